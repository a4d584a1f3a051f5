//! Host values and arithmetic on them: C integer operators, `dim3` construction, the sizes of the
//! scalar types host code takes `sizeof` of, and short quotes of expressions for reasons.

/// A host value: an integer, a `dim3`, a tensor map (its swizzle or why that is not known,
/// and the line that made it), or unknown with the reason why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostValue {
    Int(i64),
    Dim3([i64; 3]),
    TensorMap(Result<crate::bank::tma::TmaSwizzle, String>, usize),
    /// A type alias in scope (`using acc_t = float;`), by the type it names.
    Type(String),
    /// A variable holding a kernel (`auto k = &kern<4>;`): each kernel it may hold here.
    Kernels(Vec<KernelRef>),
    Unknown(String),
}

impl HostValue {
    pub fn as_int(&self) -> Option<i64> {
        match self {
            HostValue::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// A block or grid shape: a `dim3`, or an integer for its x extent.
    pub fn as_dims(&self) -> Result<[i64; 3], String> {
        match self {
            HostValue::Int(v) => Ok([*v, 1, 1]),
            HostValue::Dim3(d) => Ok(*d),
            HostValue::Unknown(why) => Err(why.clone()),
            HostValue::TensorMap(..) => Err("a tensor map is not a shape".into()),
            HostValue::Type(t) => Err(format!("`{t}` is a type")),
            HostValue::Kernels(ks) => Err(format!(
                "it names a function ({}), not a number",
                ks.iter()
                    .map(|k| format!("`{}`", k.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

/// One kernel a variable may hold: its name (last component) and explicit template
/// arguments as written, with their values where the pointer was taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelRef {
    pub name: String,
    pub template_args: Vec<String>,
    pub template_values: Vec<Option<String>>,
}

/// Integer arithmetic with C's semantics (`fold` of the analysis), unknowns propagated.
pub(super) fn arith(op: &str, a: &HostValue, b: &HostValue) -> HostValue {
    use crate::arith::{BinOp, fold};
    let (x, y) = match (a, b) {
        (HostValue::Int(x), HostValue::Int(y)) => (*x, *y),
        (HostValue::Unknown(w), _) | (_, HostValue::Unknown(w)) => {
            return HostValue::Unknown(w.clone());
        }
        _ => return HostValue::Unknown("arithmetic on a dim3".into()),
    };
    let op = match op {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Rem,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        "&" | "bitand" => BinOp::And,
        "|" | "bitor" => BinOp::Or,
        "^" | "xor" => BinOp::Xor,
        "<" => BinOp::Lt,
        ">" => BinOp::Gt,
        "<=" => BinOp::Le,
        ">=" => BinOp::Ge,
        "==" => BinOp::Eq,
        "!=" | "not_eq" => BinOp::Ne,
        "&&" | "and" => BinOp::LogicalAnd,
        "||" | "or" => BinOp::LogicalOr,
        "min" => BinOp::Min,
        "max" => BinOp::Max,
        other => return HostValue::Unknown(format!("the operator `{other}`")),
    };
    fold(op, x, y).map_or_else(
        || HostValue::Unknown(format!("`{x} {op:?} {y}` is not defined")),
        HostValue::Int,
    )
}

pub(super) fn dim3(parts: &[HostValue]) -> HostValue {
    let mut d = [1i64; 3];
    if parts.len() > 3 {
        return HostValue::Unknown("a dim3 of more than 3 extents".into());
    }
    for (k, p) in parts.iter().enumerate() {
        match p {
            HostValue::Int(v) => d[k] = *v,
            HostValue::Unknown(w) => return HostValue::Unknown(w.clone()),
            HostValue::Dim3(x) if parts.len() == 1 => return HostValue::Dim3(*x),
            HostValue::Dim3(_) => return HostValue::Unknown("a dim3 inside a dim3".into()),
            HostValue::TensorMap(..) => return HostValue::Unknown("a tensor map in a dim3".into()),
            HostValue::Type(t) => return HostValue::Unknown(format!("the type `{t}` in a dim3")),
            HostValue::Kernels(_) => return HostValue::Unknown("a kernel in a dim3".into()),
        }
    }
    HostValue::Dim3(d)
}

pub(super) fn scalar_size(ty: &str) -> Option<i64> {
    let t = ty.trim().trim_start_matches("const ").trim();
    Some(match t {
        "char" | "unsigned char" | "signed char" | "int8_t" | "uint8_t" | "bool" => 1,
        "short" | "unsigned short" | "half" | "__half" | "int16_t" | "uint16_t"
        | "__nv_bfloat16" | "nv_bfloat16" => 2,
        "int" | "unsigned" | "unsigned int" | "float" | "int32_t" | "uint32_t" | "half2"
        | "__half2" | "__nv_bfloat162" => 4,
        "long" | "unsigned long" | "long long" | "unsigned long long" | "double" | "size_t"
        | "int64_t" | "uint64_t" | "float2" | "int2" | "uint2" => 8,
        "float4" | "int4" | "uint4" | "double2" => 16,
        "double4" => 32,
        _ if t.ends_with('*') => 8,
        _ => return None,
    })
}

pub(super) fn short(t: &str) -> String {
    let one: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 40 {
        format!("{}...", one.chars().take(37).collect::<String>())
    } else {
        one
    }
}
