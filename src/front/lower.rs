//! Lowering: rewrites the expanded text of a file, token by token, into C that lang-c parses,
//! with the same length, so lang-c's offsets are offsets of the expanded text. CUDA words are
//! blanked and recorded, C++ constructs become C of the same length (`static_cast<T>(x)` ->
//! `(T)(x)`, `cg::tile` -> `cg__tile`, references -> pointers), templates, launches and
//! explicit template arguments are recorded.

use crate::front::lex::{
    Token, TokenKind, adjacent_tokens, argument_texts, is_ident, matching, matching_angle,
    split_top_level,
};
use crate::front::prepared::{
    DependentType, Keyword, Launch, MemberTypedef, Prepared, TemplateHeader, TemplateParam,
};
use std::borrow::Cow;
use std::ops::Range;

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

/// Words blanked out (recorded in `keywords`) because lang-c does not know them.
pub const BLANKED_WORDS: &[(&str, Keyword)] = &[
    ("__global__", Keyword::Global),
    ("__device__", Keyword::Device),
    ("__host__", Keyword::Host),
    ("__shared__", Keyword::Shared),
    ("__constant__", Keyword::Constant),
    ("__managed__", Keyword::Other),
    ("__forceinline__", Keyword::Other),
    ("__noinline__", Keyword::Other),
    ("__inline__", Keyword::Other),
    ("__restrict__", Keyword::Other),
    ("__grid_constant__", Keyword::Other),
    ("constexpr", Keyword::Constexpr),
    ("__cluster_dims__", Keyword::Other),
];

/// Words followed by a parenthesised argument that goes with them.
const BLANKED_CALLS: &[&str] = &[
    "__launch_bounds__",
    "__align__",
    "__cluster_dims__",
    "alignas",
    "static_assert",
];

/// Blanks CUDA and C++ words lang-c does not know, records launches and templates.
pub fn rewrite_tokens(
    src: &str,
    tokens: Vec<Token>,
    out: &mut Prepared,
    blank: &mut Vec<Range<usize>>,
    patches: &mut Vec<(usize, Cow<'static, str>)>,
) -> Vec<Token> {
    let mut keep = vec![true; tokens.len()];
    let text = |i: usize| tokens.get(i).map_or("", |t| t.text(src));
    let adjacent = |a: usize, b: usize| tokens[a].end == tokens[b].start;
    let typenames = out.typenames.clone();
    let mut template_names = template_function_names(src, &tokens);
    template_names.extend(LIBRARY_TEMPLATES.iter().map(|n| n.to_string()));
    let mut i = 0;
    while i < tokens.len() {
        let t = text(i);
        if let Some(fix) = cxx_rewrite(
            src,
            &tokens,
            i,
            &template_names,
            &typenames,
            out,
            patches,
            &mut keep,
        ) {
            i = fix;
            continue;
        }
        if t == "::" {
            // `cg::sync` -> `cg__sync`: one identifier, same length; a leading `::` goes.
            let joined = i > 0
                && i + 1 < tokens.len()
                && adjacent(i - 1, i)
                && adjacent(i, i + 1)
                && tokens[i - 1].kind == TokenKind::Ident
                && tokens[i + 1].kind == TokenKind::Ident;
            if joined {
                patches.push((tokens[i].start, "__".into()));
            } else {
                keep[i] = false;
            }
            i += 1;
            continue;
        }
        if let Some((_, kw)) = BLANKED_WORDS.iter().find(|(w, _)| *w == t) {
            out.keywords.push((*kw, tokens[i].start));
            keep[i] = false;
        }
        if BLANKED_CALLS.contains(&t) && tokens.get(i + 1).map(|_| text(i + 1)) == Some("(") {
            let close = matching(src, &tokens, i + 1).unwrap_or(tokens.len() - 1);
            let mut end = close;
            if t == "static_assert" && tokens.get(close + 1).map(|_| text(close + 1)) == Some(";") {
                end = close + 1;
            }
            keep[i..=end].iter_mut().for_each(|k| *k = false);
            i = end + 1;
            continue;
        }
        match t {
            "extern" if tokens.get(i + 1).is_some_and(|n| n.kind == TokenKind::Str) => {
                keep[i] = false;
                keep[i + 1] = false;
                if tokens.get(i + 2).map(|_| text(i + 2)) == Some("{") {
                    keep[i + 2] = false;
                    if let Some(close) = matching(src, &tokens, i + 2) {
                        keep[close] = false;
                    }
                }
            }
            "namespace" => {
                // `namespace a::b {` ... `}`, or an alias `namespace x = y;`.
                let mut j = i + 1;
                while j < tokens.len() && !matches!(text(j), "{" | ";") {
                    j += 1;
                }
                if j < tokens.len() {
                    keep[i..=j].iter_mut().for_each(|k| *k = false);
                    if text(j) == "{"
                        && let Some(close) = matching(src, &tokens, j)
                    {
                        keep[close] = false;
                    }
                }
                i = j + 1;
                continue;
            }
            "using" => {
                let mut j = i;
                while j < tokens.len() && text(j) != ";" {
                    j += 1;
                }
                if j < tokens.len() {
                    keep[i..=j].iter_mut().for_each(|k| *k = false);
                }
                i = j + 1;
                continue;
            }
            "struct" | "class" => record_member_typedefs(src, &tokens, i, out),
            "typename" => {
                if let Some(next) = dependent_type(src, &tokens, i, out, &mut keep, patches) {
                    i = next;
                    continue;
                }
            }
            "template" if tokens.get(i + 1).map(|_| text(i + 1)) == Some("<") => {
                if let Some(close) = matching_angle(src, &tokens, i + 1) {
                    out.templates.push(template_header(
                        src,
                        &tokens[i + 2..close],
                        tokens[i].start..tokens[close].end,
                    ));
                    keep[i..=close].iter_mut().for_each(|k| *k = false);
                    i = close + 1;
                    continue;
                }
            }
            "<<" if tokens
                .get(i + 1)
                .is_some_and(|n| n.start == tokens[i].end && n.text(src) == "<") =>
            {
                if let Some(launch) = launch_at(src, &tokens, i) {
                    out.launches.push(launch);
                }
            }
            _ => {}
        }
        i += 1;
    }
    blank_default_arguments(src, &tokens, &mut keep);
    let mut tokens = tokens;
    let mut k = 0;
    tokens.retain(|t| {
        let kept = keep[k];
        k += 1;
        if !kept {
            blank.push(t.start..t.end);
        }
        kept
    });
    tokens
}

/// `typedef`s in the body of `struct NAME { ... }` or `struct NAME<ARGS> { ... }` at `i`.
fn record_member_typedefs(src: &str, tokens: &[Token], i: usize, out: &mut Prepared) {
    let text = |k: usize| tokens.get(k).map_or("", |t| t.text(src));
    if tokens.get(i + 1).is_none_or(|t| t.kind != TokenKind::Ident) {
        return;
    }
    let class = text(i + 1).to_string();
    let (args, open) = if text(i + 2) == "<" {
        let Some(close) = matching_angle(src, tokens, i + 2) else {
            return;
        };
        let args = argument_texts(src, &tokens[i + 3..close]);
        (Some(args), close + 1)
    } else {
        (None, i + 2)
    };
    if text(open) != "{" {
        return;
    }
    let Some(end) = matching(src, tokens, open) else {
        return;
    };
    let mut depth = 0;
    let mut k = open + 1;
    while k < end {
        match text(k) {
            "{" => depth += 1,
            "}" => depth -= 1,
            "typedef" if depth == 0 => {
                let semi = (k..end).find(|&j| text(j) == ";").unwrap_or(end);
                if semi > k + 2 && tokens[semi - 1].kind == TokenKind::Ident {
                    out.member_typedefs.push(MemberTypedef {
                        class: class.clone(),
                        args: args.clone(),
                        member: text(semi - 1).to_string(),
                        ty: (k + 1..semi - 1).map(text).collect::<Vec<_>>().join(" "),
                    });
                }
                k = semi;
            }
            _ => {}
        }
        k += 1;
    }
}

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

/// `typename CLASS<ARGS>::MEMBER` at `i` -> one identifier of the same length, e.g.
/// `vec4_T___Type`, recorded in `dependent_types` and declared a type name. Returns the token
/// after it, or `None` when the form is another one or the name would not fit.
fn dependent_type(
    src: &str,
    tokens: &[Token],
    i: usize,
    out: &mut Prepared,
    keep: &mut [bool],
    patches: &mut Vec<(usize, Cow<'static, str>)>,
) -> Option<usize> {
    let text = |k: usize| tokens.get(k).map_or("", |t| t.text(src));
    if tokens.get(i + 1)?.kind != TokenKind::Ident || text(i + 2) != "<" {
        return None;
    }
    let close = matching_angle(src, tokens, i + 2)?;
    if text(close + 1) != "::" || tokens.get(close + 2)?.kind != TokenKind::Ident {
        return None;
    }
    let args = argument_texts(src, &tokens[i + 3..close]);
    if args.is_empty()
        || tokens[i + 3..close]
            .iter()
            .any(|t| !matches!(t.kind, TokenKind::Ident) && t.text(src) != ",")
    {
        return None;
    }
    let class = text(i + 1);
    let member = text(close + 2);
    let words: Vec<String> = args
        .iter()
        .map(|a| a.split_whitespace().collect::<Vec<_>>().join("_"))
        .collect();
    let name = format!("{class}_{}___{member}", words.join("_"));
    let span = tokens[i + 1].start..tokens[close + 2].end;
    if name.len() > span.len() {
        return None;
    }
    keep[i..=close + 2].iter_mut().for_each(|k| *k = false);
    patches.push((span.start, Cow::Owned(name.clone())));
    if !out.typenames.contains(&name) {
        out.typenames.push(name.clone());
    }
    if !out.dependent_types.iter().any(|d| d.name == name) {
        out.dependent_types.push(DependentType {
            name,
            class: class.to_string(),
            args,
            member: member.to_string(),
        });
    }
    Some(close + 3)
}

/// Function templates from CUDA's headers that kernels call with explicit arguments.
const LIBRARY_TEMPLATES: &[&str] = &[
    "tiled_partition",
    "this_thread_block",
    "sync",
    "reduce",
    "memcpy_async",
];

const CXX_CASTS: &[&str] = &[
    "static_cast",
    "reinterpret_cast",
    "const_cast",
    "dynamic_cast",
];

/// Scalar type words that appear as functional casts, `float(x)`, with the same-length
/// identifier they become (the index analyzer treats calls to them as casts).
const FUNCTIONAL_CASTS: &[(&str, &str)] = &[
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

const TYPE_WORDS: &[&str] = &[
    "int", "float", "double", "unsigned", "signed", "char", "short", "long", "bool", "void",
    "const", "auto",
];

/// Names declared right after a `template <...>` header (functions and classes).
fn template_function_names(src: &str, tokens: &[Token]) -> Vec<String> {
    let mut names = Vec::new();
    for i in 0..tokens.len() {
        if tokens[i].text(src) != "template" || tokens.get(i + 1).map(|t| t.text(src)) != Some("<")
        {
            continue;
        }
        let Some(close) = matching_angle(src, tokens, i + 1) else {
            continue;
        };
        // The name is the identifier before the first `(` (functions) or after
        // `struct`/`class` (classes).
        let mut k = close + 1;
        while k < tokens.len() && !matches!(tokens[k].text(src), "(" | "{" | ";") {
            if matches!(tokens[k].text(src), "struct" | "class") {
                if let Some(n) = tokens.get(k + 1) {
                    names.push(n.text(src).to_string());
                }
                break;
            }
            k += 1;
        }
        if tokens.get(k).map(|t| t.text(src)) == Some("(")
            && k > 0
            && tokens[k - 1].kind == TokenKind::Ident
        {
            names.push(tokens[k - 1].text(src).to_string());
        }
    }
    names.sort();
    names.dedup();
    names
}

/// C++ constructs rewritten to C of the same length. Returns the next token index when a
/// rewrite consumed tokens.
#[allow(clippy::too_many_arguments)]
fn cxx_rewrite(
    src: &str,
    tokens: &[Token],
    i: usize,
    template_names: &[String],
    typenames: &[String],
    out: &mut Prepared,
    patches: &mut Vec<(usize, Cow<'static, str>)>,
    keep: &mut [bool],
) -> Option<usize> {
    let text = |k: usize| tokens.get(k).map_or("", |t| t.text(src));
    let t = text(i);
    // static_cast<T>(x) -> (T)(x): the keyword blanked, `<` -> `(`, `>` -> `)`.
    if CXX_CASTS.contains(&t) && text(i + 1) == "<" {
        let close = matching_angle(src, tokens, i + 1)?;
        if text(close) != ">" {
            return None;
        }
        keep[i] = false;
        patches.push((tokens[i + 1].start, "(".into()));
        patches.push((tokens[close].start, ")".into()));
        return Some(close + 1);
    }
    // auto -> int, same length.
    if t == "auto" {
        patches.push((tokens[i].start, "int ".into()));
        return Some(i + 1);
    }
    // Functional casts in expression position: float(x) -> _f___(x).
    if let Some((_, alias)) = FUNCTIONAL_CASTS.iter().find(|(w, _)| *w == t) {
        let prev = if i > 0 { text(i - 1) } else { ";" };
        let expression_position = (tokens
            .get(i.wrapping_sub(1))
            .is_some_and(|p| p.kind == TokenKind::Punct)
            && !matches!(prev, ")" | "]" | "}" | ";" | "{" | "<" | ">" | "::"))
            || prev == "return";
        if text(i + 1) == "(" && expression_position {
            patches.push((tokens[i].start, (*alias).into()));
            return Some(i + 1);
        }
    }
    // References in declarations: `float &x` -> `float *x`.
    if t == "&" && i > 0 && i + 2 < tokens.len() {
        let prev = &tokens[i - 1];
        let prev_is_type = TYPE_WORDS.contains(&text(i - 1))
            || BUILTIN_TYPENAMES.contains(&text(i - 1))
            || (prev.kind == TokenKind::Ident && typenames.iter().any(|n| n == text(i - 1)))
            || (prev.kind == TokenKind::Ident && i >= 2 && text(i - 2) == "::");
        let next_is_name = tokens[i + 1].kind == TokenKind::Ident
            && matches!(text(i + 2), "," | ")" | "=" | ";" | "[");
        if prev_is_type && next_is_name {
            patches.push((tokens[i].start, "*".into()));
            return Some(i + 1);
        }
    }
    // A class template's specialization as a declared type, `cg::thread_block_tile<32> t = ...`
    // or `cuda::barrier<cuda::thread_scope_block> &bar`: the arguments go (recorded like a
    // call's, at the name), a reference becomes a pointer, and the name is a type name.
    if let Some(next) = template_type_declaration(src, tokens, i, typenames, out, patches, keep) {
        return Some(next);
    }
    // Explicit template arguments at a call of a template: f<16>(x) -> f    (x).
    if tokens[i].kind == TokenKind::Ident
        && text(i + 1) == "<"
        && adjacent_tokens(tokens, i, i + 1)
        && template_names.iter().any(|n| n == t)
    {
        let close = matching_angle(src, tokens, i + 1)?;
        // `Name<T> var;`: a variable of a class template type (the shared-memory wrapper).
        let declares = tokens
            .get(close + 1)
            .is_some_and(|t| t.kind == TokenKind::Ident)
            && matches!(text(close + 2), ";" | "=" | ",");
        if !declares
            && (!matches!(text(close + 1), "(" | "<")
                || (text(close + 1) == "<" && text(close + 2) != "<"))
        {
            return None;
        }
        if text(close + 1) == "<" {
            // A launch `k<16><<<...>>>`: the launch records the arguments.
            for k in keep.iter_mut().take(close + 1).skip(i + 1) {
                *k = false;
            }
            return Some(close + 1);
        }
        let args = argument_texts(src, &tokens[i + 2..close]);
        out.template_calls.push((tokens[i].start, args));
        for k in keep.iter_mut().take(close + 1).skip(i + 1) {
            *k = false;
        }
        return Some(close + 1);
    }
    None
}

/// See [`cxx_rewrite`]. Only names that are qualified (`cg::`, `cuda::`) or known type names
/// qualify, so that `i<n && j>k` stays a comparison.
fn template_type_declaration(
    src: &str,
    tokens: &[Token],
    i: usize,
    typenames: &[String],
    out: &mut Prepared,
    patches: &mut Vec<(usize, Cow<'static, str>)>,
    keep: &mut [bool],
) -> Option<usize> {
    let text = |k: usize| tokens.get(k).map_or("", |t| t.text(src));
    if tokens[i].kind != TokenKind::Ident
        || text(i + 1) != "<"
        || !adjacent_tokens(tokens, i, i + 1)
    {
        return None;
    }
    // The whole name, `cg::thread_block_tile` -> `cg__thread_block_tile` (as `::` is rewritten).
    let mut first = i;
    while first >= 2 && text(first - 1) == "::" && tokens[first - 2].kind == TokenKind::Ident {
        first -= 2;
    }
    let joined: String = (first..=i)
        .map(|k| if text(k) == "::" { "__" } else { text(k) })
        .collect();
    if first == i && !typenames.iter().any(|n| n == text(i)) {
        return None;
    }
    let before = first.checked_sub(1).map_or(";", text);
    let declaration_start = matches!(before, "(" | "," | ";" | "{" | "}" | "const" | "static")
        || BLANKED_WORDS.iter().any(|(w, _)| *w == before);
    if !declaration_start {
        return None;
    }
    let close = matching_angle(src, tokens, i + 1)?;
    let mut j = close + 1;
    let mut reference = None;
    while matches!(text(j), "&" | "*" | "const") {
        if text(j) == "&" {
            reference = Some(j);
        }
        j += 1;
    }
    if tokens.get(j).is_none_or(|t| t.kind != TokenKind::Ident)
        || !matches!(text(j + 1), "," | ")" | "=" | ";" | "[" | "{")
    {
        return None;
    }
    let args = argument_texts(src, &tokens[i + 2..close]);
    out.template_calls.push((tokens[i].start, args));
    keep[i + 1..=close].iter_mut().for_each(|k| *k = false);
    if let Some(r) = reference {
        patches.push((tokens[r].start, "*".into()));
    }
    if !out.typenames.contains(&joined) {
        out.typenames.push(joined);
    }
    Some(close + 1)
}

/// C++ default arguments in function headers at file scope, `int *p = NULL)`: the `= ...`
/// is blanked so lang-c reads the parameter.
fn blank_default_arguments(src: &str, tokens: &[Token], keep: &mut [bool]) {
    let mut brace = 0i32;
    let mut i = 0;
    while i < tokens.len() {
        if !keep[i] {
            i += 1;
            continue;
        }
        match tokens[i].text(src) {
            "{" => brace += 1,
            "}" => brace -= 1,
            "(" if brace == 0 && i > 0 && tokens[i - 1].kind == TokenKind::Ident => {
                let Some(close) = matching(src, tokens, i) else {
                    break;
                };
                let header = matches!(
                    tokens.get(close + 1).map(|t| t.text(src)),
                    Some("{" | ";" | "const")
                );
                if header {
                    let mut depth = 0i32;
                    let mut k = i + 1;
                    while k < close {
                        match tokens[k].text(src) {
                            "(" | "[" | "{" | "<" => depth += 1,
                            ")" | "]" | "}" | ">" => depth -= 1,
                            "=" if depth == 0 => {
                                let mut e = k;
                                let mut d = 0i32;
                                while e < close {
                                    match tokens[e].text(src) {
                                        "(" | "[" | "{" => d += 1,
                                        ")" | "]" | "}" => d -= 1,
                                        "," if d == 0 => break,
                                        _ => {}
                                    }
                                    e += 1;
                                }
                                keep[k..e].iter_mut().for_each(|x| *x = false);
                                k = e;
                                continue;
                            }
                            _ => {}
                        }
                        k += 1;
                    }
                }
                i = close + 1;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
}

pub fn template_header(src: &str, params: &[Token], span: Range<usize>) -> TemplateHeader {
    let mut header = TemplateHeader {
        span,
        params: Vec::new(),
    };
    for param in split_top_level(src, params) {
        let words: Vec<&str> = param.iter().map(|t| t.text(src)).collect();
        let eq = words.iter().position(|w| *w == "=");
        let decl = &words[..eq.unwrap_or(words.len())];
        let Some(name) = decl.iter().rev().find(|w| is_ident(w)) else {
            continue;
        };
        let default = eq.map(|e| {
            let toks = &param[e + 1..];
            match (toks.first(), toks.last()) {
                (Some(a), Some(b)) => src[a.start..b.end].to_string(),
                _ => String::new(),
            }
        });
        header.params.push(TemplateParam {
            name: name.to_string(),
            is_type: matches!(decl.first(), Some(&"typename") | Some(&"class")),
            default,
        });
    }
    header
}

pub fn launch_at(src: &str, tokens: &[Token], open: usize) -> Option<Launch> {
    // Kernel name, skipping explicit template arguments `k<16, float>`.
    let mut name_idx = open.checked_sub(1)?;
    let mut template_args = Vec::new();
    if tokens[name_idx].text(src) == ">" {
        let mut depth = 0;
        let mut k = name_idx;
        loop {
            match tokens[k].text(src) {
                ">" => depth += 1,
                "<" => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            k = k.checked_sub(1)?;
        }
        template_args = argument_texts(src, &tokens[k + 1..name_idx]);
        name_idx = k.checked_sub(1)?;
    }
    let name = tokens[name_idx];
    if name.kind != TokenKind::Ident {
        return None;
    }
    // Find `>>` `>` adjacent, at bracket depth 0.
    let mut depth = 0i32;
    let args_start = open + 2;
    for k in args_start..tokens.len() {
        match tokens[k].text(src) {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            ">>" if depth == 0
                && tokens
                    .get(k + 1)
                    .is_some_and(|n| n.start == tokens[k].end && n.text(src) == ">") =>
            {
                let config = split_top_level(src, &tokens[args_start..k])
                    .iter()
                    .filter_map(|p| Some(p.first()?.start..p.last()?.end))
                    .collect();
                return Some(Launch {
                    kernel: name.text(src).to_string(),
                    template_args,
                    config,
                    span: name.start..tokens[k + 1].end,
                });
            }
            ";" => return None,
            _ => {}
        }
    }
    None
}

/// Words that are never type names for the declaration heuristics below.
const NOT_TYPES: &[&str] = &[
    "return",
    "if",
    "else",
    "for",
    "while",
    "do",
    "switch",
    "case",
    "goto",
    "break",
    "continue",
    "sizeof",
    "new",
    "delete",
    "throw",
    "typedef",
    "using",
    "namespace",
    "template",
    "operator",
    "struct",
    "class",
    "union",
    "enum",
    "const",
    "volatile",
    "static",
    "extern",
    "inline",
    "register",
    "unsigned",
    "signed",
    "int",
    "float",
    "double",
    "char",
    "short",
    "long",
    "void",
    "bool",
    "auto",
    "typename",
    "public",
    "private",
    "protected",
    "virtual",
    "friend",
    "mutable",
    "explicit",
    "default",
    "true",
    "false",
    "nullptr",
    "this",
];

/// Type names the file uses without declaring (library types such as `cudaTextureObject_t`,
/// `curandState`, `clock_t`), found from how declarations are written: a parameter
/// `T name` or `T *name`, and a statement `T name = ...;` or `T *name;`.
fn collect_declared_types(src: &str, tokens: &[Token], names: &mut Vec<String>) {
    let text = |i: usize| tokens.get(i).map_or("", |t| t.text(src));
    let is_ident = |i: usize| {
        tokens.get(i).is_some_and(|t| t.kind == TokenKind::Ident) && !NOT_TYPES.contains(&text(i))
    };
    let mut brace = 0i32;
    for i in 0..tokens.len() {
        match text(i) {
            "{" => brace += 1,
            "}" => brace -= 1,
            _ => {}
        }
        if !is_ident(i) || text(i.wrapping_sub(1)) == "::" || text(i + 1) == "::" {
            continue;
        }
        let prev = if i == 0 { ";" } else { text(i - 1) };
        // Skip qualifiers before the name: `T *const *p`.
        let mut k = i + 1;
        let mut pointers = 0;
        while matches!(
            text(k),
            "*" | "&" | "const" | "volatile" | "__restrict__" | "__restrict"
        ) {
            pointers += usize::from(matches!(text(k), "*" | "&"));
            k += 1;
        }
        if !is_ident(k) {
            continue;
        }
        let after = text(k + 1);
        // A parameter of a function declared at file scope: `(T name,` / `, T *name)`.
        let parameter = brace == 0
            && matches!(prev, "(" | "," | "const" | "volatile")
            && matches!(after, "," | ")" | "=" | "[");
        // A declaration statement: `; T name = ...` (with `*`, only at statement start).
        let statement = matches!(prev, ";" | "{" | "}" | "const" | "static" | "volatile")
            && matches!(after, "=" | ";" | "[" | ",")
            && (pointers == 0 || matches!(prev, ";" | "{" | "}"));
        if (parameter || statement) && !BUILTIN_TYPENAMES.contains(&text(i)) {
            names.push(text(i).to_string());
        }
    }
}

pub fn collect_typenames(src: &str, tokens: &[Token], names: &mut Vec<String>) {
    collect_declared_types(src, tokens, names);
    let text = |i: usize| tokens.get(i).map_or("", |t| t.text(src));
    for i in 0..tokens.len() {
        // `cg::thread_block b` declares with a qualified type, which the front end spells
        // `cg__thread_block`.
        if text(i) == "::" && i > 0 && i + 2 < tokens.len() {
            let mut end = i + 1;
            while end + 2 < tokens.len() && text(end + 1) == "::" {
                end += 2;
            }
            let followed_by_name = tokens
                .get(end + 1)
                .is_some_and(|t| t.kind == TokenKind::Ident)
                || (matches!(text(end + 1), "*" | "&")
                    && tokens
                        .get(end + 2)
                        .is_some_and(|t| t.kind == TokenKind::Ident));
            let starts = i < 2 || text(i - 2) != "::";
            if starts
                && followed_by_name
                && tokens[i - 1].kind == TokenKind::Ident
                && tokens[end].kind == TokenKind::Ident
            {
                names.push(src[tokens[i - 1].start..tokens[end].end].replace("::", "__"));
            }
        }
        match text(i) {
            "struct" | "class" | "union" | "enum" => {
                let mut k = i + 1;
                if tokens.get(k).is_some_and(|_| text(k) == "class") {
                    k += 1; // enum class
                }
                if let Some(t) = tokens.get(k)
                    && t.kind == TokenKind::Ident
                {
                    names.push(t.text(src).to_string());
                }
            }
            "typedef" => {
                let mut depth = 0i32;
                let mut last_ident = None;
                let mut fn_ptr_name = None;
                for k in i + 1..tokens.len() {
                    match text(k) {
                        "{" | "(" | "[" => {
                            if text(k) == "("
                                && tokens.get(k + 1).is_some_and(|_| text(k + 1) == "*")
                            {
                                fn_ptr_name = tokens.get(k + 2).map(|t| t.text(src).to_string());
                            }
                            depth += 1;
                        }
                        "}" | ")" | "]" => depth -= 1,
                        ";" if depth == 0 => break,
                        _ if depth == 0 && tokens[k].kind == TokenKind::Ident => {
                            last_ident = Some(k)
                        }
                        _ => {}
                    }
                }
                if let Some(n) = fn_ptr_name.or_else(|| last_ident.map(|k| text(k).to_string())) {
                    names.push(n);
                }
            }
            "typename" => {
                if let Some(t) = tokens.get(i + 1)
                    && t.kind == TokenKind::Ident
                {
                    names.push(t.text(src).to_string());
                }
            }
            _ => {}
        }
    }
    names.sort();
    names.dedup();
}
