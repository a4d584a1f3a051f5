//! C and CUDA type layouts: sizes and alignments of scalars, CUDA's vector types (with their
//! real alignments: `float4` is 16-aligned, `float3` only 4) and structs defined in the file.

use std::collections::HashMap;
use std::rc::Rc;

#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// An integer or floating-point scalar.
    Scalar {
        name: String,
        size: u32,
        float: bool,
    },
    /// A struct, union, or CUDA vector type, with its fields laid out.
    Record(Rc<Record>),
    Pointer(Box<Type>),
    /// An array type named as a whole (`using row = float[32];`, `T[N]` an alias template
    /// builds): its element type and extent.
    Array(Box<Type>, u32),
    /// A type banklint does not know; accesses through it cannot be sized.
    Unknown(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub name: String,
    pub size: u32,
    pub align: u32,
    pub fields: Vec<Field>,
    /// A record laid out only in part: the field whose size is not known (a library's
    /// `TempStorage`). The fields before it in a struct, or every field of a union (all at
    /// offset 0), have their offsets; the record's own size is not known.
    pub unsized_field: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub offset: u32,
    pub ty: Type,
    /// The extents of an array field (`float v[2][3]`: `[2, 3]`), empty for a scalar one.
    pub dims: Vec<u32>,
}

impl Type {
    /// Why the field `m` of this type cannot be placed.
    pub fn field_problem(&self, m: &str) -> String {
        match self {
            // A struct whose layout failed says why (see `extraction::struct_type`).
            Type::Unknown(why) if why.contains("whose layout") => {
                format!("the field `{m}` is in {why}")
            }
            // A type declared nowhere, analyzed at each size as a plain value.
            Type::Scalar { name, .. } if opaque_element(name).is_some() => format!(
                "the field `{m}` is of a type declared nowhere banklint reads, which it analyzes as a plain value of each size (here {name}), without fields"
            ),
            // The field whose size is not known: its own accesses cannot be sized.
            Type::Record(r) if r.unsized_field.as_deref() == Some(m) => format!(
                "the field `{m}` of `{}` has a type whose size is not known",
                self.name()
            ),
            // Left out of a partial layout: it lies after a field of unknown size.
            Type::Record(r) if r.unsized_field.is_some() => format!(
                "the field `{m}` of `{}` lies after its field `{}`, whose size is not known",
                self.name(),
                r.unsized_field.as_deref().unwrap_or_default()
            ),
            _ => format!("the field `{m}` of `{}` is not known", self.name()),
        }
    }

    /// Where `.a.b` (the `members`, in order) of a value of this type lies, and what it is.
    pub fn field_path(&self, members: &[String]) -> FieldPath {
        let mut path = FieldPath {
            offset: 0,
            ty: self.clone(),
            dims: Vec::new(),
            problem: None,
        };
        for m in members {
            let Some(f) = path.ty.field(m) else {
                path.problem = Some(path.ty.field_problem(m));
                break;
            };
            let (offset, dims, ty) = (f.offset, f.dims.clone(), f.ty.clone());
            path.offset += i64::from(offset);
            path.dims = dims;
            path.ty = ty;
        }
        path
    }

    /// Why this type cannot be sized.
    pub fn size_problem(&self) -> String {
        match self {
            Type::Unknown(why) if why.contains("whose layout") => format!("it is {why}"),
            Type::Record(r) if r.unsized_field.is_some() => format!(
                "`{}` is laid out only up to its field `{}`, whose size is not known",
                self.name(),
                r.unsized_field.as_deref().unwrap_or_default()
            ),
            _ => format!("the size of `{}` is not known", self.name()),
        }
    }
}

/// The result of [`Type::field_path`].
#[derive(Clone, Debug, PartialEq)]
pub struct FieldPath {
    /// Bytes from the start of the value.
    pub offset: i64,
    /// The last member's type (its element type, for an array member); where a member is not
    /// found, the type that lacks it.
    pub ty: Type,
    /// The last member's extents (empty unless it is an array).
    pub dims: Vec<u32>,
    /// Why a member could not be found.
    pub problem: Option<String>,
}

impl Field {
    /// Elements the field holds: the product of its extents.
    pub fn count(&self) -> u32 {
        self.dims.iter().product()
    }
}

impl Type {
    pub fn scalar(name: &str, size: u32, float: bool) -> Type {
        Type::Scalar {
            name: name.to_string(),
            size,
            float,
        }
    }

    pub fn size(&self) -> Option<u32> {
        match self {
            Type::Scalar { size, .. } => Some(*size),
            Type::Record(r) => r.unsized_field.is_none().then_some(r.size),
            Type::Pointer(_) => Some(8),
            Type::Array(elem, n) => elem.size()?.checked_mul(*n),
            Type::Unknown(_) => None,
        }
    }

    pub fn align(&self) -> Option<u32> {
        match self {
            Type::Scalar { size, .. } => Some(*size),
            Type::Record(r) => Some(r.align),
            Type::Pointer(_) => Some(8),
            Type::Array(elem, _) => elem.align(),
            Type::Unknown(_) => None,
        }
    }

    pub fn name(&self) -> String {
        match self {
            Type::Scalar { name, .. } => name.clone(),
            Type::Record(r) => r.name.clone(),
            Type::Pointer(t) => format!("{} *", t.name()),
            Type::Array(..) => {
                // As C writes it, outermost extent first: `float4[2][3]`.
                let (mut t, mut extents) = (self, String::new());
                while let Type::Array(elem, n) = t {
                    extents.push_str(&format!("[{n}]"));
                    t = elem;
                }
                format!("{}{extents}", t.name())
            }
            Type::Unknown(n) => n.clone(),
        }
    }

    /// The class an unknown type stands for, as text: its name (`q_tile`, `tile<T, 4>`), or
    /// the struct named by the reason it has no layout (see [`unsized_struct`]). `None` for
    /// other reasons.
    pub fn unknown_class(&self) -> Option<&str> {
        let Type::Unknown(n) = self else {
            return None;
        };
        let named = |t: &str| {
            !t.is_empty()
                && t.chars()
                    .all(|c| c.is_alphanumeric() || "_:<>, ".contains(c))
                && !t.starts_with(|c: char| c.is_ascii_digit())
        };
        if named(n) {
            return Some(n.as_str());
        }
        let rest = n
            .strip_prefix("`struct ")
            .or_else(|| n.strip_prefix("`union "))?;
        let (tag, _) = rest.split_once("`, whose layout")?;
        named(tag).then_some(tag)
    }

    pub fn is_float(&self) -> bool {
        matches!(self, Type::Scalar { float: true, .. })
    }

    pub fn field(&self, name: &str) -> Option<&Field> {
        match self {
            Type::Record(r) => r.fields.iter().find(|f| f.name == name),
            _ => None,
        }
    }

    /// How one thread's access of the whole object is issued: (width, byte offsets) of the
    /// shared-memory instructions nvcc emits. A `float4` is one 16-byte access; a `float3`
    /// (4-aligned) is three 4-byte accesses; a 4-aligned struct of four floats is four.
    pub fn pieces(&self) -> Option<(u32, Vec<u32>)> {
        let size = self.size()?;
        let align = self.align()?.max(1);
        let mut width = 16u32;
        while width > 1 && (width > align || size % width != 0) {
            width /= 2;
        }
        Some((width, (0..size / width).map(|k| k * width).collect()))
    }
}

/// Size/alignment of a C scalar type named by its specifier words.
/// The sizes an element of a type declared nowhere can have: every width one access moves.
pub const OPAQUE_SIZES: [u32; 5] = [1, 2, 4, 8, 16];

/// How a binding to an opaque element of `size` bytes is written: `8-byte type`.
/// A struct or union without a layout, because the extent of its field `field` is not a
/// constant banklint evaluates there; the reason names it (see [`Type::unknown_class`]).
pub fn unsized_struct(word: &str, tag: Option<&str>, field: &str) -> Type {
    let what = tag.map_or(format!("an unnamed {word}"), |t| format!("`{word} {t}`"));
    Type::Unknown(format!(
        "{what}, whose layout banklint does not know: the extent of its field `{field}` is not a constant it evaluates in a {word}"
    ))
}

pub fn opaque_name(size: u32) -> String {
    format!("{size}-byte type")
}

/// The opaque element type [`opaque_name`] wrote: a size and nothing else (its fields are
/// not known).
pub fn opaque_element(text: &str) -> Option<Type> {
    let size: u32 = text.strip_suffix("-byte type")?.parse().ok()?;
    OPAQUE_SIZES
        .contains(&size)
        .then(|| Type::scalar(text, size, false))
}

pub fn scalar_from_words(words: &[&str]) -> Option<Type> {
    let has = |w: &str| words.contains(&w);
    let longs = words.iter().filter(|w| **w == "long").count();
    let unsigned = has("unsigned");
    let (name, size, float) = if has("double") {
        ("double", 8, true)
    } else if has("float") {
        ("float", 4, true)
    } else if has("char") {
        (if unsigned { "unsigned char" } else { "char" }, 1, false)
    } else if has("short") {
        (if unsigned { "unsigned short" } else { "short" }, 2, false)
    } else if longs >= 1 {
        (
            if unsigned {
                "unsigned long long"
            } else {
                "long long"
            },
            8,
            false,
        )
    } else if has("int") || unsigned || has("signed") {
        (if unsigned { "unsigned" } else { "int" }, 4, false)
    } else if has("bool") || has("_Bool") {
        ("bool", 1, false)
    } else {
        return None;
    };
    Some(Type::scalar(name, size, float))
}

/// CUTLASS's and CuTe's numeric types (`cutlass::half_t`, `cute::uint128_t`), spelled with
/// their namespace as the front end joins it or bare after `using namespace cute;`: their size
/// in bytes and whether they are floating point. Code that uses CuTe rarely has CUTLASS's
/// headers on a machine without CUDA.
fn cutlass_numeric(name: &str) -> Option<(u32, bool)> {
    let bare = ["cutlass__", "cute__", "cutlass::", "cute::"]
        .iter()
        .find_map(|ns| name.strip_prefix(ns))
        .unwrap_or(name);
    Some(match bare {
        "half_t" | "bfloat16_t" => (2, true),
        "tfloat32_t" => (4, true),
        "float_e4m3_t" | "float_e5m2_t" | "float_ue8m0_t" => (1, true),
        "uint128_t" | "int128_t" => (16, false),
        _ => return None,
    })
}

/// The CUDA builtin types that code uses without declaring them.
pub fn builtin(name: &str) -> Option<Type> {
    let scalar = |n: &str, size, float| Some(Type::scalar(n, size, float));
    match name {
        "bool" => return scalar("bool", 1, false),
        "size_t" | "ssize_t" | "ptrdiff_t" | "intptr_t" | "uintptr_t" | "int64_t" | "uint64_t"
        | "ulong" => {
            return scalar(name, 8, false);
        }
        "int32_t" | "uint32_t" | "uint" => return scalar(name, 4, false),
        // CUDA runtime handles and C library types on 64-bit Linux.
        "clock_t"
        | "time_t"
        | "cudaTextureObject_t"
        | "cudaSurfaceObject_t"
        | "CUtexObject"
        | "CUsurfObject" => {
            return scalar(name, 8, false);
        }
        "int16_t" | "uint16_t" | "ushort" => return scalar(name, 2, false),
        "int8_t" | "uint8_t" | "uchar" => return scalar(name, 1, false),
        "half" | "__half" | "__nv_bfloat16" | "nv_bfloat16" => return scalar(name, 2, true),
        _ if cutlass_numeric(name).is_some() => {
            let (size, float) = cutlass_numeric(name)?;
            return scalar(name, size, float);
        }
        "half2" | "__half2" | "__nv_bfloat162" | "nv_bfloat162" => {
            return Some(vector(name, Type::scalar("__half", 2, true), 2, 4));
        }
        _ => {}
    }
    // Vector types: base name + count 1..4, built once per thread (declarations and
    // `sizeof(float4)` look them up on every run of a statement).
    thread_local! {
        static VECTORS: std::cell::RefCell<HashMap<String, Option<Type>>> = Default::default();
    }
    let count: u32 = name.chars().last()?.to_digit(10)?;
    if let Some(known) = VECTORS.with(|v| v.borrow().get(name).cloned()) {
        return known;
    }
    let built = vector_type(name, count);
    VECTORS.with(|v| v.borrow_mut().insert(name.to_string(), built.clone()));
    built
}

/// `float4`, `uchar2`: the CUDA vector type `name` names, `count` its last digit.
fn vector_type(name: &str, count: u32) -> Option<Type> {
    if !(1..=4).contains(&count) {
        return None;
    }
    let base = &name[..name.len() - 1];
    let (elem, size) = match base {
        "char" | "uchar" => (Type::scalar(base, 1, false), 1),
        "short" | "ushort" => (Type::scalar(base, 2, false), 2),
        "int" | "uint" => (Type::scalar(base, 4, false), 4),
        "float" => (Type::scalar(base, 4, true), 4),
        "long" | "ulong" | "longlong" | "ulonglong" => (Type::scalar(base, 8, false), 8),
        "double" => (Type::scalar(base, 8, true), 8),
        _ => return None,
    };
    // vector_types.h: 2- and 4-component types are aligned to their size (at most 16);
    // 1- and 3-component types to their element.
    let align = match count {
        2 => (2 * size).min(16),
        4 => (4 * size).min(16),
        _ => size,
    };
    Some(vector(name, elem, count, align))
}

fn vector(name: &str, elem: Type, count: u32, align: u32) -> Type {
    let esize = elem.size().unwrap_or(4);
    let fields = ["x", "y", "z", "w"]
        .iter()
        .take(count as usize)
        .enumerate()
        .map(|(k, n)| Field {
            name: (*n).to_string(),
            offset: k as u32 * esize,
            ty: elem.clone(),
            dims: Vec::new(),
        })
        .collect();
    let raw = esize * count;
    Type::Record(Rc::new(Record {
        name: name.to_string(),
        size: raw.div_ceil(align) * align,
        align,
        fields,
        unsized_field: None,
    }))
}

/// Lays out a struct from its fields in order (C rules: each field at its alignment, size
/// rounded to the largest alignment). `union` puts every field at 0. `None` when a field has
/// no size (see [`layout_partial_record`]).
pub fn layout_record(
    name: &str,
    fields: Vec<(String, Type, Vec<u32>)>,
    union: bool,
    min_align: u32,
) -> Option<Record> {
    let r = lay_out(name, fields, union, min_align);
    r.unsized_field.is_none().then_some(r)
}

/// A struct or union one of whose fields has no size banklint knows (`typename
/// BlockReduce::TempStorage reduce;` with the library unread), laid out as far as C's rules
/// allow: every field of a union at offset 0; in a struct, the fields before that one (and
/// it, where its alignment is known), none after. Its `size` is the part laid out, which
/// nothing reads (the record has no size). `None` when every field has a size (see
/// [`layout_record`]).
pub fn layout_partial_record(
    name: &str,
    fields: Vec<(String, Type, Vec<u32>)>,
    union: bool,
    min_align: u32,
) -> Option<Record> {
    let r = lay_out(name, fields, union, min_align);
    r.unsized_field.is_some().then_some(r)
}

fn lay_out(
    name: &str,
    fields: Vec<(String, Type, Vec<u32>)>,
    union: bool,
    min_align: u32,
) -> Record {
    let mut offset = 0u32;
    let mut align = min_align.max(1);
    let mut out = Vec::new();
    let mut size = 0;
    let mut unsized_field: Option<String> = None;
    for (fname, ty, dims) in fields {
        if !union && unsized_field.is_some() {
            break;
        }
        let at = match (ty.size(), ty.align()) {
            (Some(fs), Some(fa)) => {
                let fa = fa.max(1);
                align = align.max(fa);
                let at = if union { 0 } else { offset.div_ceil(fa) * fa };
                let count: u32 = dims.iter().product();
                offset = at + fs * count;
                size = size.max(offset);
                Some(at)
            }
            (_, fa) => {
                unsized_field.get_or_insert_with(|| fname.clone());
                match (union, fa) {
                    (true, _) => Some(0),
                    (false, Some(fa)) => Some(offset.div_ceil(fa.max(1)) * fa.max(1)),
                    (false, None) => None,
                }
            }
        };
        if let Some(at) = at {
            out.push(Field {
                name: fname,
                offset: at,
                ty,
                dims,
            });
        }
    }
    Record {
        name: name.to_string(),
        size: size.div_ceil(align) * align,
        align,
        fields: out,
        unsized_field,
    }
}

/// Named types known in a file: typedefs and struct tags.
#[derive(Clone, Debug, Default)]
pub struct TypeTable {
    pub named: HashMap<String, Type>,
    /// C++ `class` aggregates, which the front end spells `union`: lay them out as structs.
    pub classes: Vec<String>,
    /// Alignments classes declare (`alignas(16)`), by tag.
    pub alignments: HashMap<String, u32>,
    /// The parameters of each primary class template, by tag (from the front end).
    pub template_headers: HashMap<String, crate::front::prepared::TemplateHeader>,
    /// Class templates whose definitions were read, by tag: laid out per instantiation.
    pub class_templates: HashMap<String, Rc<ClassTemplate>>,
    /// While one class template instance is laid out: the types of its fields that are
    /// themselves class template instances (`base<T, L> tiles[2]`), by field name.
    pub field_types: HashMap<String, Type>,
}

/// A class template's definition as lang-c read it (`struct sv { T data[N]; }`), with its
/// parameters: its layout depends on them (see `analysis::class_templates`).
#[derive(Debug)]
pub struct ClassTemplate {
    pub tag: String,
    pub header: crate::front::prepared::TemplateHeader,
    pub definition: lang_c::ast::StructType,
    /// The text of each field extent that calls a function (`char buf[max_bytes()]`), by
    /// its span in `definition`: the analysis evaluates it where the class is used.
    pub call_extents: Vec<((usize, usize), String)>,
}

impl TypeTable {
    /// A type by name; a qualified one (`kittens::semaphore`, joined `kittens__semaphore`) by
    /// its last part when the whole is not declared (types are not kept per namespace).
    pub fn lookup(&self, name: &str) -> Option<Type> {
        self.named
            .get(name)
            .cloned()
            .or_else(|| builtin(name))
            .or_else(|| {
                let (bare, _) = crate::front::names::split_qualified(name)?;
                self.named.get(bare).cloned().or_else(|| builtin(bare))
            })
    }

    /// Names given to a type written as text: object-like macros used where a type goes
    /// (`#define fp float`, `#define real float4`: the parser saw `fp` as a type name) and
    /// alias declarations (`using idx_t = int64_t;`). Names already declared as types keep
    /// their declaration; a text that names no type known here adds nothing.
    pub fn add_macro_types(&mut self, macros: &[(String, String)]) {
        for (name, body) in macros {
            if self.lookup(name).is_some() {
                continue;
            }
            // `using row = float[32];`: an array of a type known here.
            let (body, extents) = split_array_suffix(body);
            let words: Vec<&str> = body
                .split_whitespace()
                .filter(|w| !matches!(*w, "const" | "volatile"))
                .collect();
            let ty = match words.as_slice() {
                [one] => self.lookup(one).or_else(|| scalar_from_words(&words)),
                _ => scalar_from_words(&words),
            };
            if let Some(ty) = ty.filter(|t| extents.is_empty() || t.size().is_some()) {
                let ty = array_of(ty, &extents);
                self.named.insert(name.clone(), ty);
            }
        }
    }
}

/// `elem` in arrays of `extents`, outermost first: `[2, 4]` of `T` is `T[2][4]`.
pub fn array_of(elem: Type, extents: &[u32]) -> Type {
    extents
        .iter()
        .rev()
        .fold(elem, |t, n| Type::Array(Box::new(t), *n))
}

/// `T[2][4]` as `T` and its extents, outermost first; a text without a suffix of literal
/// extents is itself with none. `T[N]` (not a literal) keeps its suffix: its size is unknown.
pub fn split_array_suffix(text: &str) -> (&str, Vec<u32>) {
    let mut rest = text.trim_end();
    let mut extents = Vec::new();
    while let Some(open) = rest.strip_suffix(']').and_then(|r| r.rfind('[')) {
        let inner = rest[open + 1..rest.len() - 1].trim();
        let Some(n) =
            crate::front::lex::parse_int_literal(inner).and_then(|n| u32::try_from(n).ok())
        else {
            return (text, Vec::new());
        };
        extents.push(n);
        rest = rest[..open].trim_end();
    }
    extents.reverse();
    (rest, extents)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_record_with_a_field_of_unknown_size_is_laid_out_in_part() {
        let f = |n: &str, t: Type, d: Vec<u32>| (n.to_string(), t, d);
        let float = || Type::scalar("float", 4, true);
        let opaque = || Type::Unknown("Lib::TempStorage".into());
        // A union: every field at 0, the unknown ones too; no size.
        let u = layout_partial_record(
            "u",
            vec![
                f("t", opaque(), vec![]),
                f("b", float(), vec![64]),
                f("t2", opaque(), vec![]),
            ],
            true,
            1,
        )
        .unwrap();
        assert_eq!(
            u.fields.iter().map(|f| f.offset).collect::<Vec<_>>(),
            [0, 0, 0]
        );
        assert_eq!(Type::Record(Rc::new(u)).size(), None);
        // A struct: the fields before the unknown one only.
        let s = layout_partial_record(
            "s",
            vec![
                f("head", float(), vec![8]),
                f("t", opaque(), vec![]),
                f("tail", float(), vec![8]),
            ],
            false,
            1,
        )
        .unwrap();
        let names: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["head"]);
        let s = Type::Record(Rc::new(s));
        assert!(s.field_problem("tail").contains("lies after its field `t`"));
        assert!(
            s.field_problem("t")
                .ends_with("has a type whose size is not known")
        );
        let opaque = opaque_element(&opaque_name(8)).unwrap();
        assert!(
            opaque
                .field_problem("x")
                .contains("declared nowhere banklint reads")
        );
        // Every size known: not a partial record.
        assert!(layout_partial_record("c", vec![f("a", float(), vec![])], false, 1).is_none());
    }

    use super::*;

    #[test]
    fn array_suffixes_split_into_literal_extents() {
        assert_eq!(split_array_suffix("cell[2][4]"), ("cell", vec![2, 4]));
        assert_eq!(split_array_suffix("float [ 0x20 ]"), ("float", vec![32]));
        assert_eq!(split_array_suffix("float"), ("float", vec![]));
        // An extent that is not a literal leaves the text whole: its size is not known.
        assert_eq!(split_array_suffix("cell[N]"), ("cell[N]", vec![]));
        assert_eq!(split_array_suffix("cell[2][N]"), ("cell[2][N]", vec![]));
    }

    #[test]
    fn arrays_are_sized_and_aligned_by_their_elements() {
        let f4 = builtin("float4").unwrap();
        let grid = array_of(f4, &[2, 3]);
        assert_eq!((grid.size(), grid.align()), (Some(96), Some(16)));
        assert_eq!(grid.name(), "float4[2][3]");
        let unknown = Type::Array(Box::new(Type::Unknown("T".into())), 4);
        assert_eq!(unknown.size(), None);
    }

    #[test]
    fn vector_types_have_cuda_layouts() {
        let f4 = builtin("float4").unwrap();
        assert_eq!((f4.size(), f4.align()), (Some(16), Some(16)));
        assert_eq!(f4.pieces(), Some((16, vec![0])));
        let f3 = builtin("float3").unwrap();
        assert_eq!((f3.size(), f3.align()), (Some(12), Some(4)));
        assert_eq!(f3.pieces(), Some((4, vec![0, 4, 8])));
        let d2 = builtin("double2").unwrap();
        assert_eq!((d2.size(), d2.align()), (Some(16), Some(16)));
        let c3 = builtin("char3").unwrap();
        assert_eq!((c3.size(), c3.align()), (Some(3), Some(1)));
        let s2 = builtin("short2").unwrap();
        assert_eq!((s2.size(), s2.align()), (Some(4), Some(4)));
        assert_eq!(s2.field("y").map(|f| f.offset), Some(2));
    }

    #[test]
    fn macros_that_name_types_are_types() {
        let mut t = TypeTable::default();
        let m = |n: &str, b: &str| (n.to_string(), b.to_string());
        t.add_macro_types(&[
            m("fp", "float"),
            m("u32", "unsigned  int"),
            m("real4", "float4"),
            m("N", "16"),
            m("bool", "int"),
        ]);
        assert_eq!(t.lookup("fp").and_then(|t| t.size()), Some(4));
        assert_eq!(t.lookup("u32").map(|t| t.is_float()), Some(false));
        assert_eq!(t.lookup("real4").and_then(|t| t.size()), Some(16));
        assert!(!t.named.contains_key("N"));
        // `bool` is a type already and keeps its size.
        assert_eq!(t.lookup("bool").and_then(|t| t.size()), Some(1));
    }

    #[test]
    fn struct_layout_follows_c_rules() {
        let r = layout_record(
            "S",
            vec![
                ("a".into(), Type::scalar("char", 1, false), vec![]),
                ("b".into(), Type::scalar("double", 8, true), vec![]),
                ("c".into(), Type::scalar("float", 4, true), vec![2, 3]),
            ],
            false,
            1,
        )
        .unwrap();
        assert_eq!(r.size, 40);
        assert_eq!(r.fields[1].offset, 8);
        assert_eq!(r.fields[2].offset, 16);
        assert_eq!(r.fields[2].count(), 6);
    }
}
