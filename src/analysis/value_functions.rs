//! CUDA's device functions that take every argument by value: the vector constructors
//! (`make_float2`), the half and bfloat16 conversions and arithmetic (`__floats2half2_rn`,
//! `__hadd2`), the math library (`sqrtf`, `__expf`, `fmaf`), the bit casts
//! (`__float_as_uint`) and the warp's votes and shuffles (`__shfl_xor_sync`). Handed an
//! element of a shared array (`make_float2(s[i], s[i + 32])`), such a function gets the loaded
//! value: it makes no access of its own through the argument, so the call needs no
//! "accesses it makes are not analyzed" note. These are declared by the CUDA headers, which
//! banklint does not read; a name outside these families stays a function it has no
//! definition of.

/// Whether `name` (as a call spells it; a qualified name's `::` written `__`) is one of
/// CUDA's functions that take only values.
pub fn takes_only_values(name: &str) -> bool {
    let name = name.strip_prefix("std__").unwrap_or(name);
    vector_constructor(name)
        || math(name)
        || warp_collective(name)
        || reduced_precision(name)
        || conversion(name)
}

/// `sqrtf`, `sqrt`, `__expf`, `__fmaf_rn`, `__dmul_rz`: a name of [`MATH`], with or without
/// `__` before it, `f` after it and a rounding mode.
fn math(name: &str) -> bool {
    let core = name.strip_prefix("__").unwrap_or(name);
    let core = ["_rn", "_rz", "_ru", "_rd"]
        .iter()
        .find_map(|r| core.strip_suffix(r))
        .unwrap_or(core);
    MATH.contains(&core) || core.strip_suffix('f').is_some_and(|c| MATH.contains(&c))
}

/// `make_<type><n>`: `make_float4`, `make_uchar2`, `make_longlong1`, `make_half2`.
fn vector_constructor(name: &str) -> bool {
    const BASES: [&str; 12] = [
        "char",
        "short",
        "int",
        "long",
        "longlong",
        "float",
        "double",
        "uchar",
        "ushort",
        "uint",
        "ulong",
        "ulonglong",
    ];
    let Some(rest) = name.strip_prefix("make_") else {
        return false;
    };
    if matches!(rest, "half2" | "bfloat162") {
        return true;
    }
    let Some(base) = rest.strip_suffix(['1', '2', '3', '4']) else {
        return false;
    };
    BASES.contains(&base)
}

/// The warp's votes, shuffles, matches and reductions: `__shfl_down_sync`, `__ballot_sync`.
fn warp_collective(name: &str) -> bool {
    matches!(
        name,
        "__shfl_sync"
            | "__shfl_up_sync"
            | "__shfl_down_sync"
            | "__shfl_xor_sync"
            | "__ballot_sync"
            | "__any_sync"
            | "__all_sync"
            | "__uni_sync"
            | "__activemask"
            | "__match_any_sync"
            | "__match_all_sync"
            | "__reduce_add_sync"
            | "__reduce_min_sync"
            | "__reduce_max_sync"
            | "__reduce_and_sync"
            | "__reduce_or_sync"
            | "__reduce_xor_sync"
    ) || cooperative_groups_collective(name)
}

/// `cg::reduce(tile, v, op)`, `cg::inclusive_scan`, `cg::exclusive_scan`: each thread's value
/// is read once and combined through shuffles; a `__shared__` element given there is loaded
/// at the call. Only the qualified names (`cg::`, `cooperative_groups::`): a bare `reduce`
/// may be a function of the user's that banklint did not read.
fn cooperative_groups_collective(name: &str) -> bool {
    let Some(f) = ["cg__", "cooperative_groups__"]
        .iter()
        .find_map(|ns| name.strip_prefix(ns))
    else {
        return false;
    };
    matches!(f, "reduce" | "inclusive_scan" | "exclusive_scan")
}

/// `cuda_fp16.h` and `cuda_bf16.h`: `__hadd`, `__hfma2`, `__floats2half2_rn`, `__low2half`,
/// `__float2bfloat16`, `__bfloat1622float2`. Their loads and stores through pointers
/// (`__ldg`, `__stcs`) are not among them.
fn reduced_precision(name: &str) -> bool {
    const ARITHMETIC: [&str; 16] = [
        "__hadd", "__hsub", "__hmul", "__hdiv", "__hfma", "__hneg", "__habs", "__hmax", "__hmin",
        "__hadd2", "__hsub2", "__hmul2", "__hfma2", "__hneg2", "__hmax2", "__hmin2",
    ];
    ARITHMETIC.contains(&name)
        || [
            "__floats2half2",
            "__float2half",
            "__half2float",
            "__halves2half2",
            "__float22half2",
            "__half22float2",
            "__low2half",
            "__high2half",
            "__low2float",
            "__high2float",
            "__lows2half2",
            "__highs2half2",
            "__half2half2",
            "__floats2bfloat162",
            "__float2bfloat16",
            "__bfloat162float",
            "__bfloat1622float2",
            "__float22bfloat162",
            "__halves2bfloat162",
            "__low2bfloat16",
            "__high2bfloat16",
            "__bfloat162bfloat162",
        ]
        .iter()
        .any(|f| name == *f || name.strip_prefix(f).is_some_and(rounding_suffix))
}

/// The type conversions and bit casts: `__float2int_rn`, `__int2float_rz`, `__float_as_uint`,
/// `__double2hiint`, `__ll2float_rn`.
fn conversion(name: &str) -> bool {
    const FROM: [&str; 7] = [
        "__float2",
        "__double2",
        "__int2",
        "__uint2",
        "__ll2",
        "__ull2",
        "__half2",
    ];
    const AS: [&str; 8] = [
        "__float_as_int",
        "__float_as_uint",
        "__int_as_float",
        "__uint_as_float",
        "__double_as_longlong",
        "__longlong_as_double",
        "__hiloint2double",
        "__double2loint",
    ];
    if AS.contains(&name) || name == "__double2hiint" {
        return true;
    }
    FROM.iter().any(|f| {
        name.strip_prefix(f).is_some_and(|rest| {
            let (to, round) = rest.split_once('_').unwrap_or((rest, ""));
            matches!(
                to,
                "int" | "uint" | "ll" | "ull" | "float" | "double" | "half" | "short" | "ushort"
            ) && (round.is_empty() || rounding_suffix(&format!("_{round}")))
        })
    })
}

/// `_rn`, `_rz`, `_ru`, `_rd`, `_sat`: a rounding mode or saturation.
fn rounding_suffix(s: &str) -> bool {
    matches!(s, "" | "_rn" | "_rz" | "_ru" | "_rd" | "_sat" | "_rn_sat")
}

/// The math library's names without their single-precision `f` (`sqrtf` is `sqrt` + `f`),
/// which are also the double-precision names, and the intrinsics' cores (`__fadd_rn`,
/// `__dmul_rz`, `__fdividef`). Those that write through a pointer (`sincosf`, `frexpf`,
/// `modff`, `remquof`) are not among them.
const MATH: [&str; 69] = [
    "sqrt",
    "rsqrt",
    "cbrt",
    "rcbrt",
    "exp",
    "exp2",
    "exp10",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "pow",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "fabs",
    "floor",
    "ceil",
    "trunc",
    "round",
    "rint",
    "nearbyint",
    "fmod",
    "remainder",
    "fma",
    "fmin",
    "fmax",
    "fdim",
    "hypot",
    "erf",
    "erfc",
    "erfinv",
    "lgamma",
    "tgamma",
    "copysign",
    "ldexp",
    "logb",
    "ilogb",
    "scalbn",
    "fdivide",
    "saturate",
    "sinpi",
    "cospi",
    "norm3d",
    "rhypot",
    "fadd",
    "fsub",
    "fmul",
    "fdiv",
    "frcp",
    "fsqrt",
    "frsqrt",
    "dadd",
    "dsub",
    "dmul",
    "ddiv",
    "drcp",
    "dsqrt",
];

#[cfg(test)]
mod tests {
    use super::takes_only_values;

    #[test]
    fn cuda_value_functions_are_known_by_family() {
        for f in [
            "make_float2",
            "make_uchar4",
            "make_longlong2",
            "make_ulonglong1",
            "make_half2",
            "sqrtf",
            "sqrt",
            "__expf",
            "fmaf",
            "__fmaf_rn",
            "__fdividef",
            "__dmul_rz",
            "__fsqrt_rn",
            "std__sqrt",
            "__shfl_xor_sync",
            "__ballot_sync",
            "__hfma2",
            "__floats2half2_rn",
            "__float2half",
            "__half22float2",
            "__float2bfloat16_rn",
            "__float2int_rn",
            "__int2float_rz",
            "__float_as_uint",
            "__double2hiint",
        ] {
            assert!(takes_only_values(f), "{f}");
        }
    }

    #[test]
    fn functions_that_take_pointers_or_are_unknown_are_not() {
        for f in [
            "__ldg",
            "__stcs",
            "atomicAdd",
            "memcpy",
            "make_float5",
            "make_vec2",
            "__float2gizmo",
            "sincosf",
            "frexpf",
            "modff",
            "sort",
            "load",
            "__cvta_generic_to_shared",
        ] {
            assert!(!takes_only_values(f), "{f}");
        }
    }
}
