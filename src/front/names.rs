//! Names the front end knows without a declaration: CUDA's vector and library types, the
//! scalar types written as functional casts, C++ casts, and the identifiers it writes for
//! names C cannot spell.

/// CUDA's vector types and other names that code uses without declaring.
pub const BUILTIN_TYPENAMES: &[&str] = &[
    "bool",
    "size_t",
    "ptrdiff_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "uintptr_t",
    "intptr_t",
    "half",
    "half_t",
    "bfloat16_t",
    "tfloat32_t",
    "uint128_t",
    "__half",
    "half2",
    "__half2",
    "__nv_bfloat16",
    "__nv_bfloat162",
    "nv_bfloat16",
    "nv_bfloat162",
    "dim3",
    "uint",
    "ushort",
    "uchar",
    "ulong",
    "cudaStream_t",
    "cudaError_t",
    "cudaEvent_t",
    "char1",
    "char2",
    "char3",
    "char4",
    "uchar1",
    "uchar2",
    "uchar3",
    "uchar4",
    "short1",
    "short2",
    "short3",
    "short4",
    "ushort1",
    "ushort2",
    "ushort3",
    "ushort4",
    "int1",
    "int2",
    "int3",
    "int4",
    "uint1",
    "uint2",
    "uint3",
    "uint4",
    "long1",
    "long2",
    "long3",
    "long4",
    "ulong1",
    "ulong2",
    "ulong3",
    "ulong4",
    "longlong1",
    "longlong2",
    "longlong3",
    "longlong4",
    "ulonglong1",
    "ulonglong2",
    "ulonglong3",
    "ulonglong4",
    "float1",
    "float2",
    "float3",
    "float4",
    "double1",
    "double2",
    "double3",
    "double4",
    "clock_t",
    "ssize_t",
    "time_t",
    "cudaTextureObject_t",
    "cudaSurfaceObject_t",
    "CUtexObject",
    "CUsurfObject",
    "curandState",
    "curandState_t",
    "cudaExtent",
    "cufftComplex",
];

/// The identifier the front end writes for `typename CLASS<ARGS>::MEMBER` written as text
/// (a template argument), or `None` if `text` is not of that form.
pub fn dependent_type_name(text: &str) -> Option<String> {
    let rest = text.trim().strip_prefix("typename")?;
    let (class, rest) = rest.split_once('<')?;
    let (args, member) = rest.rsplit_once('>')?;
    let member = member.trim().strip_prefix("::")?.trim();
    let ident = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_');
    let words: Vec<String> = args
        .split(',')
        .map(|a| a.split_whitespace().collect::<Vec<_>>().join("_"))
        .collect();
    (ident(class.trim()) && ident(member) && words.iter().all(|w| ident(w)))
        .then(|| format!("{}_{}___{member}", class.trim(), words.join("_")))
}

/// C++ casts written `static_cast<T>(x)`, lowered to `(T)(x)`.
pub const CXX_CASTS: &[&str] = &[
    "static_cast",
    "reinterpret_cast",
    "const_cast",
    "dynamic_cast",
];

/// Scalar type words that appear as functional casts, `float(x)`, with the same-length
/// identifier they become (the index analyzer treats calls to them as casts).
pub const FUNCTIONAL_CASTS: &[(&str, &str)] = &[
    ("int", "_i_"),
    ("float", "_f___"),
    ("double", "_d____"),
    ("unsigned", "_u______"),
    ("char", "_c__"),
    ("short", "_s___"),
    ("long", "_l__"),
    ("bool", "_b__"),
    ("size_t", "_z____"),
];

/// Whether a call named `name` is a functional cast written by the front end.
pub fn is_functional_cast(name: &str) -> Option<bool> {
    FUNCTIONAL_CASTS
        .iter()
        .find(|(_, alias)| *alias == name)
        .map(|(word, _)| matches!(*word, "float" | "double"))
}

/// A name the front end joined from `a::b::f` (`a__b__f`): its last part and its qualifier
/// (`("f", "a__b")`); `None` for a plain name (`__half` and `__syncthreads` included).
pub fn split_qualified(name: &str) -> Option<(&str, &str)> {
    let at = name.rfind("__")?;
    let (qualifier, bare) = (&name[..at], &name[at + 2..]);
    (!qualifier.is_empty()
        && !qualifier.ends_with('_')
        && !bare.is_empty()
        && !bare.starts_with('_'))
    .then_some((bare, qualifier))
}

/// Each way to read a joined name (`A__m`, the front end's spelling of `A::m`) as scope and
/// member, the last `__` first; overlapping ones count, as a scope may end in `_`
/// (`P_::Type` is `P___Type`: `P_` and `Type`, or `P` and `_Type`).
pub fn scope_splits(name: &str) -> Vec<(&str, &str)> {
    let bytes = name.as_bytes();
    (1..bytes.len().saturating_sub(2))
        .rev()
        .filter(|&k| bytes[k] == b'_' && bytes[k + 1] == b'_')
        .map(|k| (&name[..k], &name[k + 2..]))
        .filter(|(scope, member)| !scope.is_empty() && !member.is_empty())
        .collect()
}

/// `ns::A<x, y::z>::m` split at its `::` outside `<>`: `ns`, `A<x, y::z>`, `m`.
pub fn split_path(path: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0i32, 0);
    let bytes = path.as_bytes();
    let mut k = 0;
    while k < bytes.len() {
        match bytes[k] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0 && bytes.get(k + 1) == Some(&b':') => {
                parts.push(path[from..k].trim().to_string());
                from = k + 2;
                k += 1;
            }
            _ => {}
        }
        k += 1;
    }
    parts.push(path[from..].trim().to_string());
    parts.retain(|p| !p.is_empty());
    parts
}

/// Whether something declared in `namespace` is named by `qualifier`: the namespace itself
/// or its trailing part (`tma` names `kittens__tma`).
pub fn namespace_matches(namespace: &str, qualifier: &str) -> bool {
    namespace == qualifier
        || namespace
            .strip_suffix(qualifier)
            .is_some_and(|rest| rest.ends_with("__"))
}

#[cfg(test)]
mod qualified_tests {
    use super::*;

    #[test]
    fn joined_names_split_at_their_last_scope() {
        assert_eq!(
            split_qualified("kittens__tma__expect"),
            Some(("expect", "kittens__tma"))
        );
        assert_eq!(split_qualified("__half"), None);
        assert_eq!(split_qualified("__syncthreads"), None);
        assert_eq!(split_qualified("plain"), None);
        assert!(namespace_matches("kittens__tma", "tma"));
        assert!(namespace_matches("kittens__tma", "kittens__tma"));
        assert!(!namespace_matches("kittens__warp__tma", "kittens__tma"));
        assert!(!namespace_matches("xtma", "tma"));
    }
}

/// `Packed128<float, 4>` as `("Packed128", ["float", "4"])`: commas nested in `<>` or `()`
/// stay inside an argument. `None` when `text` is not `NAME<ARGS>`.
pub fn split_template_args(text: &str) -> Option<(&str, Vec<String>)> {
    let (name, rest) = text.split_once('<')?;
    let inner = rest.trim_end().strip_suffix('>')?;
    let args = split_top_level(inner)
        .into_iter()
        .map(|a| a.trim().to_string())
        .collect();
    Some((name.trim(), args))
}

/// `text` split at its commas outside `<>` and `()`: `float, vec<int, 2>` -> `float`,
/// ` vec<int, 2>`.
pub fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0i32, 0);
    for (k, c) in text.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[from..k]);
                from = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[from..]);
    parts
}

/// The C keywords a type is written with (`unsigned int`, `const float`): words no
/// declaration makes a type name of.
pub fn is_type_keyword(word: &str) -> bool {
    matches!(
        word,
        "void"
            | "bool"
            | "char"
            | "short"
            | "int"
            | "long"
            | "float"
            | "double"
            | "signed"
            | "unsigned"
            | "const"
            | "volatile"
    )
}

/// Whether `name` occurs in `text` as a whole word (`ST` in `ST &dst`, not in `STAGES`).
pub fn mentions_word(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name)
        .any(|(at, _)| !text[..at].ends_with(word) && !text[at + name.len()..].starts_with(word))
}

/// `text` with each whole-word occurrence of a binding's name replaced by its value
/// (`sizeof(ElementType)` with `ElementType` -> `float`).
pub fn replace_words(text: &str, bindings: &[(&str, &str)]) -> String {
    replace_words_with(text, |word| {
        (bindings.iter())
            .find(|(name, _)| *name == word)
            .map(|(_, value)| (*value).to_string())
    })
}

/// `text` with each whole word replaced by what `value` gives for it, where it gives one.
pub fn replace_words_with(text: &str, value: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match value(word) {
            Some(v) => out.push_str(&v),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A comma-separated list of arguments as written (`int, Pair<A, B>`), split at its
/// top-level commas; none for empty text.
pub fn split_list(text: &str) -> Vec<String> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    split_top_level(text)
        .into_iter()
        .map(|a| a.trim().to_string())
        .collect()
}

/// `text` with each pack expansion `name...` (or `name ...`) whose pack `packs` knows replaced
/// by the pack's arguments, joined; an empty pack takes the comma before it too
/// (`variadic<A, dims...>` with no `dims` is `variadic<A>`).
pub fn expand_packs(text: &str, packs: &dyn Fn(&str) -> Option<Vec<String>>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(k) = rest.find("...") {
        let before = &rest[..k];
        let head = before.trim_end();
        let start = head
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let name = &head[start..];
        match (!name.is_empty()).then(|| packs(name)).flatten() {
            Some(args) if args.is_empty() => {
                let kept = head[..start].trim_end();
                out.push_str(kept.strip_suffix(',').unwrap_or(kept));
            }
            Some(args) => {
                out.push_str(&head[..start]);
                out.push_str(&args.join(", "));
            }
            None => {
                out.push_str(before);
                out.push_str("...");
            }
        }
        rest = &rest[k + 3..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod template_text_tests {
    #[test]
    fn pack_expansions() {
        let packs = |n: &str| match n {
            "dims" => Some(Vec::new()),
            "Ts" => Some(vec!["int".to_string(), "float".to_string()]),
            _ => None,
        };
        let e = |t: &str| super::expand_packs(t, &packs);
        assert_eq!(e("variadic<A, dims...>::type"), "variadic<A>::type");
        assert_eq!(e("f<Ts...>(x)"), "f<int, float>(x)");
        assert_eq!(e("g<A, Ts ...>"), "g<A, int, float>");
        assert_eq!(e("h<other...>"), "h<other...>");
    }

    #[test]
    fn whole_words_are_found() {
        use super::mentions_word;
        assert!(mentions_word("load(ST *dst, const GL *src)", "ST"));
        assert!(mentions_word("f(coord<ST> *c)", "ST"));
        assert!(!mentions_word("f(int STAGES, BST *b)", "ST"));
        assert!(!mentions_word("f(ST_x *a)", "ST"));
    }

    #[test]
    fn template_arguments_and_word_replacement() {
        assert_eq!(
            super::split_template_args("Packed128<float, vec<int, 2>>"),
            Some((
                "Packed128",
                vec!["float".to_string(), "vec<int, 2>".to_string()]
            ))
        );
        assert_eq!(super::split_template_args("float"), None);
        assert_eq!(
            super::replace_words("sizeof(int4) / sizeof(T) + T2", &[("T", "half")]),
            "sizeof(int4) / sizeof(half) + T2"
        );
    }
}
