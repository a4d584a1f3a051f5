//! What nvcc has defined before it reads the first line of a file, in the device pass banklint
//! models, on a machine with no CUDA toolkit: `__CUDA_ARCH__` and the feature macros of an
//! arch-specific target (`sm_90a`), the toolkit's version (`__CUDACC_VER_MAJOR__`,
//! `CUDART_VERSION`, from `--cuda-version`), the qualifiers and attributes its headers define
//! as macros, and `<nv/target>`'s `NV_IF_TARGET` family, which picks code by target as
//! `#if __CUDA_ARCH__` does. All of it is written as `-D` values, so that the user's own
//! `-D`/`-U`, and a header that defines the same name, win.

use crate::bank::arch::{Arch, KNOWN_ARCHS};

/// A CUDA toolkit release, `major.minor[.build]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CudaVersion {
    pub major: u32,
    pub minor: u32,
    pub build: u32,
}

/// The release banklint's hardware measurements were compiled with (nvcc 13.0).
pub const DEFAULT_CUDA_VERSION: &str = "13.0";

impl CudaVersion {
    /// `12.4`, `12.4.131` or `13.0`; the minor release is one digit, as `CUDART_VERSION`
    /// (`major * 1000 + minor * 10`) encodes it.
    pub fn parse(text: &str) -> Result<CudaVersion, String> {
        let bad = || {
            format!(
                "invalid CUDA version `{text}` (expected MAJOR.MINOR as nvcc --version prints it, e.g. 12.4)"
            )
        };
        let mut parts = text.trim().split('.');
        let mut number = |max: u32| -> Result<Option<u32>, String> {
            match parts.next() {
                None => Ok(None),
                Some(p) => match p.parse::<u32>() {
                    Ok(n) if n <= max && !p.starts_with('+') => Ok(Some(n)),
                    _ => Err(bad()),
                },
            }
        };
        let major = number(99)?.filter(|&m| m >= 1).ok_or_else(bad)?;
        let minor = number(9)?.ok_or_else(bad)?;
        let build = number(99_999)?.unwrap_or(0);
        if parts.next().is_some() {
            return Err(bad());
        }
        Ok(CudaVersion {
            major,
            minor,
            build,
        })
    }

    /// `CUDART_VERSION` as `cuda_runtime_api.h` defines it (12040 for 12.4).
    pub fn cudart(self) -> u32 {
        self.major * 1000 + self.minor * 10
    }
}

/// Macros the toolkit's headers define that device code uses without including anything.
pub const HEADER_MACROS: &[&str] = &[
    "__align__(n) __attribute__((aligned(n)))",
    "__inline__ inline",
    "CUDART_CB",
];

/// What nvcc defines for a device compilation for `arch` (written as `--arch` spells it, so
/// that `sm_90a` is seen) with toolkit `cuda`, as `-D` values (`NAME=VALUE`, `F(x)=BODY`).
pub fn predefined(arch_text: &str, arch: Arch, cuda: CudaVersion) -> Vec<String> {
    let sm = arch.major * 10 + arch.minor;
    let suffix = arch_text.trim().to_ascii_lowercase();
    let specific = suffix.ends_with('a');
    let family = specific || suffix.ends_with('f');
    let mut defs: Vec<String> = vec![
        format!("__CUDA_ARCH__={}", sm * 10),
        format!("__CUDA_ARCH_LIST__={}", sm * 10),
        "__CUDACC__".into(),
        "__NVCC__".into(),
        format!("__CUDACC_VER_MAJOR__={}", cuda.major),
        format!("__CUDACC_VER_MINOR__={}", cuda.minor),
        format!("__CUDACC_VER_BUILD__={}", cuda.build),
        // `cuda_runtime.h`, which nvcc includes before every `.cu` file, defines these.
        format!("CUDART_VERSION={}", cuda.cudart()),
        format!("__CUDART_API_VERSION={}", cuda.cudart()),
        // Kernel attributes that say nothing about banks.
        "__cluster_dims__(...)=".into(),
        "__maxnreg__(...)=".into(),
    ];
    // The execution and memory space qualifiers are macros in the toolkit too, each spelling
    // itself: a header that defines them away for host compilers under `#ifndef __host__`
    // must not do so here.
    for q in [
        "__host__",
        "__device__",
        "__global__",
        "__shared__",
        "__constant__",
        "__managed__",
        "__forceinline__",
        "__noinline__",
    ] {
        defs.push(format!("{q}={q}"));
    }
    if specific {
        defs.push(format!("__CUDA_ARCH_FEAT_SM{sm}_ALL"));
        defs.push(format!("__CUDA_ARCH_SPECIFIC__={}", sm * 10));
    }
    if family {
        defs.push(format!("__CUDA_ARCH_FAMILY_SPECIFIC__={}", sm * 10));
    }
    defs.extend(target_macros(sm, specific, family));
    defs
}

/// How many `query, code` pairs `NV_DISPATCH_TARGET` takes (each level is one macro).
const DISPATCH_PAIRS: usize = 8;

/// `<nv/target>` for the device pass on `sm` (`90` for sm_90): `NV_IF_TARGET(q, (code))`,
/// `NV_IF_TARGET(q, (code), (otherwise))`, `NV_IF_ELSE_TARGET(q, (code), (otherwise))` and
/// `NV_DISPATCH_TARGET(q1, (code1), q2, (code2), ...)`, the first true query's code. A query
/// is a name (`NV_IS_DEVICE`, `NV_PROVIDES_SM_80`) pasted onto `_NV_TARGET_`: that macro takes
/// the code and the alternative and gives one of them, its parentheses removed (code written
/// without them, `NV_IF_TARGET(NV_IS_DEVICE, x = f();)`, is taken as it is).
fn target_macros(sm: u32, specific: bool, family: bool) -> Vec<String> {
    let mut defs: Vec<String> = vec![
        // Removes one pair of parentheses if there is one: `_NV_BLOCK_ISH (x)` gives
        // `_NV_BLOCK_ISH x`, and pasting `_NV_VAN` onto the word left makes it vanish.
        "_NV_BLOCK(...)=_NV_BLOCK_ESC(_NV_BLOCK_ISH __VA_ARGS__)".into(),
        "_NV_BLOCK_ISH(...)=_NV_BLOCK_ISH __VA_ARGS__".into(),
        "_NV_BLOCK_ESC(...)=_NV_BLOCK_ESC_(__VA_ARGS__)".into(),
        "_NV_BLOCK_ESC_(...)=_NV_VAN ## __VA_ARGS__".into(),
        "_NV_VAN_NV_BLOCK_ISH=".into(),
        "NV_IF_TARGET(q, ...)=_NV_TARGET_ ## q(__VA_ARGS__, (), ())".into(),
        "NV_IF_ELSE_TARGET(q, t, f)=_NV_TARGET_ ## q(t, f, ())".into(),
    ];
    let sentinels = ["NV_NO_TARGET, ()"; DISPATCH_PAIRS].join(", ");
    defs.push(format!(
        "NV_DISPATCH_TARGET(...)=_NV_DISPATCH_1(__VA_ARGS__, {sentinels})"
    ));
    for level in 1..=DISPATCH_PAIRS {
        defs.push(format!(
            "_NV_DISPATCH_{level}(q, t, ...)=_NV_TARGET_ ## q(t, (_NV_DISPATCH_{}(__VA_ARGS__)), ())",
            level + 1
        ));
    }
    defs.push(format!("_NV_DISPATCH_{}(...)=", DISPATCH_PAIRS + 1));
    let mut query = |name: String, holds: bool| {
        let pick = if holds { "t" } else { "f" };
        defs.push(format!("_NV_TARGET_{name}(t, f, ...)=_NV_BLOCK({pick})"));
    };
    query("NV_IS_DEVICE".into(), true);
    query("NV_ANY_TARGET".into(), true);
    query("NV_IS_HOST".into(), false);
    query("NV_NO_TARGET".into(), false);
    for &(major, minor) in KNOWN_ARCHS {
        let n = major * 10 + minor;
        query(format!("NV_PROVIDES_SM_{n}"), sm >= n);
        query(format!("NV_IS_EXACTLY_SM_{n}"), sm == n);
        if n >= 90 {
            query(format!("NV_HAS_FEATURE_SM_{n}a"), specific && sm == n);
            query(format!("NV_HAS_FEATURE_SM_{n}f"), family && sm == n);
        }
    }
    defs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::macros::{Defines, expand_with};
    use crate::front::preprocess::initial_macros;

    fn expand(arch: &str, text: &str) -> String {
        let defs = predefined(
            arch,
            Arch::parse(arch).unwrap(),
            CudaVersion::parse(DEFAULT_CUDA_VERSION).unwrap(),
        );
        let defines = Defines::from_flags(defs.iter().map(String::as_str), std::iter::empty());
        expand_with(&initial_macros(&defines), text)
    }

    #[test]
    fn versions_parse_as_nvcc_prints_them() {
        let v = CudaVersion::parse("12.4").unwrap();
        assert_eq!((v.major, v.minor, v.build, v.cudart()), (12, 4, 0, 12040));
        assert_eq!(CudaVersion::parse("12.4.131").unwrap().build, 131);
        assert_eq!(CudaVersion::parse("13.0").unwrap().cudart(), 13000);
        for bad in ["12", "12.10", "0.5", "12.x", "", "12.4.1.1", "+12.4"] {
            assert!(CudaVersion::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn version_and_arch_macros() {
        assert_eq!(
            expand("sm_80", "__CUDA_ARCH__ __CUDACC_VER_MAJOR__ CUDART_VERSION"),
            "800 13 13000"
        );
        assert_eq!(
            expand("sm_90a", "__CUDA_ARCH_FEAT_SM90_ALL __CUDA_ARCH_SPECIFIC__"),
            "1 900"
        );
        assert_eq!(
            expand("sm_90", "__CUDA_ARCH_FEAT_SM90_ALL"),
            "__CUDA_ARCH_FEAT_SM90_ALL"
        );
        assert_eq!(expand("sm_100f", "__CUDA_ARCH_FAMILY_SPECIFIC__"), "1000");
    }

    #[test]
    fn if_target_takes_the_code_of_the_target() {
        let on = |arch: &str, text: &str| expand(arch, text);
        assert_eq!(
            on("sm_90", "NV_IF_TARGET(NV_PROVIDES_SM_80, (s[i] = 1;))"),
            "s [ i ] = 1 ;"
        );
        assert_eq!(
            on("sm_75", "NV_IF_TARGET(NV_PROVIDES_SM_80, (s[i] = 1;))"),
            ""
        );
        assert_eq!(
            on(
                "sm_75",
                "NV_IF_TARGET(NV_PROVIDES_SM_80, (a(1, 2);), (b(3, 4);))"
            ),
            "b ( 3 , 4 ) ;"
        );
        assert_eq!(
            on("sm_90", "NV_IF_ELSE_TARGET(NV_IS_HOST, (h();), (d();))"),
            "d ( ) ;"
        );
        assert_eq!(
            on("sm_90", "NV_IF_TARGET(NV_IS_DEVICE, x = f();)"),
            "x = f ( ) ;"
        );
        assert_eq!(
            on("sm_90", "NV_IF_TARGET(NV_IS_EXACTLY_SM_90, (e();))"),
            "e ( ) ;"
        );
        assert_eq!(on("sm_90", "NV_IF_TARGET(NV_IS_EXACTLY_SM_80, (e();))"), "");
        assert_eq!(
            on(
                "sm_90a",
                "NV_IF_TARGET(NV_HAS_FEATURE_SM_90a, (w();), (m();))"
            ),
            "w ( ) ;"
        );
        assert_eq!(
            on(
                "sm_90",
                "NV_IF_TARGET(NV_HAS_FEATURE_SM_90a, (w();), (m();))"
            ),
            "m ( ) ;"
        );
        // The parenthesized code keeps its own parentheses.
        assert_eq!(
            on("sm_90", "NV_IF_TARGET(NV_IS_DEVICE, ((void) x;))"),
            "( void ) x ;"
        );
    }

    #[test]
    fn dispatch_takes_the_first_target_that_holds() {
        let text = "NV_DISPATCH_TARGET(NV_PROVIDES_SM_90, (a();), NV_PROVIDES_SM_80, (b();), NV_ANY_TARGET, (c();))";
        assert_eq!(expand("sm_90", text), "a ( ) ;");
        assert_eq!(expand("sm_86", text), "b ( ) ;");
        assert_eq!(expand("sm_75", text), "c ( ) ;");
        assert_eq!(
            expand("sm_75", "NV_DISPATCH_TARGET(NV_PROVIDES_SM_80, (b();))"),
            ""
        );
    }
}
