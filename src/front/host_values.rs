//! Host values and arithmetic on them: C integer operators, `dim3` construction, the sizes of the
//! scalar types host code takes `sizeof` of, and short quotes of expressions for reasons; and
//! what reading host code records (a launch's values, a call with template arguments, a host
//! function template), which the rest of the front end keeps without reading host code.

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

/// What a launch's configuration and arguments are where it stands.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaunchValues {
    /// The block argument (the second between `<<<` and `>>>`).
    pub block: Option<HostValue>,
    /// Each explicit template argument as the kernel gets it, when the host code says: an
    /// integer constant's value, or the type a local alias names.
    pub template_values: Vec<Option<String>>,
    /// Each kernel argument.
    pub arguments: Vec<HostValue>,
    /// The enclosing host function template's arguments in the run that saw this launch, as
    /// written at the call that instantiates it (`launch<64, 2>(...)`): empty outside one.
    pub host_args: Vec<(String, String)>,
    /// For a launch through a variable (`k<<<g, b>>>(x)` after `auto k = &kern<4>;`), the
    /// kernels it may hold there; empty for a launch that names its kernel.
    pub through: Vec<KernelRef>,
}

pub(super) type Env = std::collections::HashMap<String, HostValue>;

/// A call naming explicit template arguments: `launch<64, kStage>(q, k)`.
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateCall {
    pub name: String,
    /// Each argument's value where it is an integer constant at the call, and its text.
    pub(super) args: Vec<(HostValue, String)>,
    pub(super) line: usize,
    /// The file the call is in, when it is not the one read (a call an includer makes of a
    /// template its header defines).
    pub(super) file: Option<String>,
    /// Made by a template read without its arguments, naming its parameters (`go<T, N>(d)`
    /// in `template <typename T, int N> void run(...)`): it instantiates nothing yet.
    pub open: bool,
    /// An explicit instantiation of a class template (`template class MLP<float, 64>;`):
    /// it instantiates the class's members, not a function of that name.
    pub of_class: bool,
}

impl TemplateCall {
    /// The same call, said to be made in `file`.
    pub fn made_in(&self, file: &str) -> TemplateCall {
        TemplateCall {
            file: Some(self.file.clone().unwrap_or_else(|| file.to_string())),
            ..self.clone()
        }
    }

    /// Each argument as its value where it is a constant or a bound type, else as written.
    pub fn argument_texts(&self) -> Vec<String> {
        (self.args.iter())
            .map(|(value, written)| match value {
                HostValue::Int(v) => v.to_string(),
                HostValue::Type(t) => t.clone(),
                _ => written.clone(),
            })
            .collect()
    }

    /// Whether the call is made in the file read (not imported from an includer).
    pub fn is_own(&self) -> bool {
        self.file.is_none()
    }

    /// Whether the call is said to be made in `file`.
    pub fn is_made_in(&self, file: &str) -> bool {
        self.file.as_deref() == Some(file)
    }

    /// Where the call is, for messages: `line 12`, or `line 12 of a.cu`.
    pub(super) fn place(&self) -> String {
        match &self.file {
            Some(f) => format!("line {} of {f}", self.line),
            None => format!("line {}", self.line),
        }
    }
}

/// A host function template: where it is, its name and its parameters.
#[derive(Clone, Debug)]
pub struct HostTemplate {
    pub name: String,
    /// The function definition's bytes (the template header excluded).
    pub(super) range: std::ops::Range<usize>,
    pub(super) params: Vec<(String, TemplateParamKind)>,
    /// For a member of a class template defined outside it (`template <typename T, int W>
    /// void MLP<T, W>::run()`), the class and its arguments as the definition writes them:
    /// an explicit instantiation of the class (`template class MLP<float, 64>;`) runs it.
    pub(super) class: Option<(String, Vec<String>)>,
    /// Instantiations already run, by their arguments as written.
    pub(super) runs: Vec<Vec<(String, String)>>,
}

/// A host template parameter: a type, or a value with its default where one is written.
#[derive(Clone, Debug)]
pub(super) enum TemplateParamKind {
    Type,
    /// A value, with its default where one is written.
    Value(Option<HostValue>),
}

impl HostTemplate {
    /// The names of its parameters.
    pub fn param_names(&self) -> impl Iterator<Item = &str> {
        self.params.iter().map(|(n, _)| n.as_str())
    }
}

/// Kernels a host variable may hold, one per distinct instantiation.
pub const MAX_KERNELS_PER_POINTER: usize = 64;

/// The kernels either of two values may hold, each once, at most `MAX_KERNELS_PER_POINTER`.
pub fn kernel_union(a: &[KernelRef], b: &[KernelRef]) -> Vec<KernelRef> {
    let mut out = a.to_vec();
    for k in b {
        if out.len() < MAX_KERNELS_PER_POINTER && !out.contains(k) {
            out.push(k.clone());
        }
    }
    out
}

/// Whether a declaration's type (as written) is the runtime's launch configuration.
pub(super) fn is_launch_config(type_text: &str) -> bool {
    let t = type_text.trim();
    let t = t.strip_prefix("const ").unwrap_or(t).trim();
    let t = t.strip_prefix("struct ").unwrap_or(t).trim();
    let t = t.strip_prefix("::").unwrap_or(t);
    matches!(t, "cudaLaunchConfig_t" | "cudaLaunchConfig_st")
}
