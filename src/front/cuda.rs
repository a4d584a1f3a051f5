//! The CUDA front end: turns CUDA C/C++ text into text lang-c can parse, byte for byte the same
//! length, so every offset lang-c reports is an offset into the user's file.
//!
//! It never inserts or deletes text: what lang-c cannot read is replaced by spaces (newlines
//! kept). Along the way it records what it removed and what later stages need: comments
//! (annotations), `#define`s, the positions of `__shared__`/`__global__`/`__device__`,
//! launch sites `k<<<grid, block>>>`, and the top-level items ("chunks") to parse one by one.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Ident,
    Number,
    Str,
    Char,
    Punct,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.start..self.end]
    }
}

/// A comment, with its text between the delimiters.
#[derive(Clone, Debug)]
pub struct Comment {
    pub span: Range<usize>,
    pub body: String,
}

/// A `#define`, object-like (`params == None`) or function-like.
#[derive(Clone, Debug, PartialEq)]
pub struct MacroDef {
    pub name: String,
    pub params: Option<Vec<String>>,
    pub body: String,
    /// Offset of the `#` of the directive: the macro is visible after it.
    pub defined_at: usize,
}

/// The macros of a file in definition order (a later `#define` or `#undef` wins from its
/// position on).
#[derive(Clone, Debug, Default)]
pub struct MacroTable {
    entries: HashMap<String, Vec<(usize, Option<MacroDef>)>>,
}

impl MacroTable {
    pub fn define(&mut self, def: MacroDef) {
        let at = def.defined_at;
        self.entries
            .entry(def.name.clone())
            .or_default()
            .push((at, Some(def)));
    }

    pub fn undefine(&mut self, name: &str, at: usize) {
        self.entries
            .entry(name.to_string())
            .or_default()
            .push((at, None));
    }

    /// The definition of `name` in force at byte `at`.
    pub fn lookup(&self, name: &str, at: usize) -> Option<&MacroDef> {
        let defs = self.entries.get(name)?;
        defs.iter()
            .rev()
            .find(|(pos, _)| *pos <= at)
            .and_then(|(_, d)| d.as_ref())
    }

    /// Adds every definition of `other` as if made at offset `at` of this file.
    pub fn absorb(&mut self, other: &MacroTable, at: usize) {
        for (name, defs) in &other.entries {
            if let Some((_, def)) = defs.last() {
                let entry = self.entries.entry(name.clone()).or_default();
                entry.push((
                    at,
                    def.clone().map(|d| MacroDef {
                        defined_at: at,
                        ..d
                    }),
                ));
                entry.sort_by_key(|(pos, _)| *pos);
            }
        }
    }

    /// Object-like macros in force at `at`, as `-D` pairs (what an included header sees).
    pub fn object_like_at(&self, at: usize) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .entries
            .keys()
            .filter_map(|name| self.lookup(name, at))
            .filter(|d| d.params.is_none())
            .map(|d| (d.name.clone(), d.body.clone()))
            .collect();
        out.sort();
        out
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keyword {
    Global,
    Device,
    Host,
    Shared,
    Constant,
    Constexpr,
    Other,
}

/// A kernel launch `name<<<grid, block, smem, stream>>>(...)`.
#[derive(Clone, Debug)]
pub struct Launch {
    pub kernel: String,
    /// Explicit template arguments, `k<16, float><<<...>>>`, as written.
    pub template_args: Vec<String>,
    /// The configuration arguments between `<<<` and `>>>`, as spans.
    pub config: Vec<Range<usize>>,
    /// From the kernel name to the closing `>>>`.
    pub span: Range<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkKind {
    /// A `__global__` or `__device__` function definition.
    DeviceFunction { kernel: bool },
    /// A host-only function definition: not parsed, only scanned for launch sites.
    HostFunction,
    /// Anything else at file scope ending in `;`: declarations, structs, typedefs.
    Declaration,
}

/// One top-level item, parsed by lang-c on its own.
#[derive(Clone, Debug)]
pub struct Chunk {
    pub span: Range<usize>,
    pub kind: ChunkKind,
    /// Indices of its first and one-past-last token in `Prepared::tokens`.
    pub tokens: Range<usize>,
}

/// A region the front end or the parser could not handle.
#[derive(Clone, Debug)]
pub struct Skipped {
    pub span: Range<usize>,
    pub reason: String,
}

/// Template parameters of a `template <...>` header, by the offset the header ends at.
#[derive(Clone, Debug)]
pub struct TemplateHeader {
    pub span: Range<usize>,
    /// In declaration order.
    pub params: Vec<TemplateParam>,
}

/// One template parameter: `int BLOCK = 16` or `typename T`.
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateParam {
    pub name: String,
    pub is_type: bool,
    /// The default, as written.
    pub default: Option<String>,
}

impl TemplateHeader {
    /// Non-type parameters with their defaults.
    pub fn values(&self) -> Vec<(String, Option<String>)> {
        self.params
            .iter()
            .filter(|p| !p.is_type)
            .map(|p| (p.name.clone(), p.default.clone()))
            .collect()
    }

    pub fn types(&self) -> Vec<String> {
        self.params
            .iter()
            .filter(|p| p.is_type)
            .map(|p| p.name.clone())
            .collect()
    }
}

/// The front end's output.
#[derive(Debug, Default)]
pub struct Prepared {
    /// Same length as the input; what lang-c parses.
    pub text: String,
    pub tokens: Vec<Token>,
    pub comments: Vec<Comment>,
    pub macros: MacroTable,
    pub keywords: Vec<(Keyword, usize)>,
    pub launches: Vec<Launch>,
    pub chunks: Vec<Chunk>,
    pub typenames: Vec<String>,
    pub templates: Vec<TemplateHeader>,
    /// `#include "x"` directives with their span.
    pub includes: Vec<(String, Range<usize>)>,
    /// Explicit template arguments at calls, `f<16, float>(...)`, by the callee's offset.
    pub template_calls: Vec<(usize, Vec<String>)>,
    /// Aggregates written `class` (spelled `union` for lang-c, laid out as structs).
    pub class_names: Vec<String>,
    /// Local `#include "..."` lines whose file was not found.
    pub missing_includes: Vec<(String, Range<usize>)>,
    /// Local headers that were followed, with what their front end found.
    pub headers: Vec<(String, Prepared)>,
    /// Classes that hand out an `extern __shared__` array (NVIDIA's `SharedMemory<T>`):
    /// calling one yields a pointer to dynamic shared memory. Their definitions are not parsed.
    pub shared_memory_classes: Vec<String>,
    /// The `extern __shared__` array each of those classes (or specialization) declares.
    pub shared_memory_arrays: Vec<WrapperArray>,
    pub skipped: Vec<Skipped>,
    /// Regions that conditional compilation leaves out (`#if 0` ... `#endif`), in file order.
    pub inactive: Vec<Range<usize>>,
    /// `typedef`s inside class templates and their specializations (this file's and its
    /// headers'): `template <> struct vec4<float> { typedef float4 Type; };`.
    pub member_typedefs: Vec<MemberTypedef>,
    /// Dependent member types written `typename vec4<T>::Type`, each rewritten in place to
    /// one identifier of the same length (`vec4_T___Type`) that the analysis resolves once `T`
    /// is bound.
    pub dependent_types: Vec<DependentType>,
}

/// `typedef TYPE MEMBER;` inside `struct CLASS` (the primary template, `args` `None`) or
/// `struct CLASS<ARGS>` (a specialization).
#[derive(Clone, Debug, PartialEq)]
pub struct MemberTypedef {
    pub class: String,
    pub args: Option<Vec<String>>,
    pub member: String,
    pub ty: String,
}

/// The `extern __shared__` array that a shared-memory wrapper class hands out:
/// `s_float` in `template <> struct SharedMemory<float> { ... }`.
#[derive(Clone, Debug, PartialEq)]
pub struct WrapperArray {
    pub class: String,
    /// The specialization's template arguments as written; `None` for the primary template.
    pub args: Option<Vec<String>>,
    pub array: String,
    /// The file it is declared in, as included from the analyzed file (`""`: that file).
    pub file: String,
    /// 1-based line of the array's name.
    pub line: usize,
}

/// `typename CLASS<ARGS>::MEMBER`, spelled `name` in the text lang-c reads.
#[derive(Clone, Debug, PartialEq)]
pub struct DependentType {
    pub name: String,
    pub class: String,
    pub args: Vec<String>,
    pub member: String,
}

impl Prepared {
    /// What a header (or the includer's text before its `#include`), read from `path`,
    /// defines for this file from offset `at` on: macros, type names, member typedefs and
    /// shared-memory wrapper classes with their arrays.
    fn absorb_declarations(&mut self, other: &Prepared, at: usize, path: &str) {
        self.macros.absorb(&other.macros, at);
        self.typenames.extend(other.typenames.iter().cloned());
        self.member_typedefs
            .extend(other.member_typedefs.iter().cloned());
        self.shared_memory_classes
            .extend(other.shared_memory_classes.iter().cloned());
        // Arrays declared in `other` itself are in `path`; nested ones keep their file.
        self.shared_memory_arrays
            .extend(other.shared_memory_arrays.iter().map(|a| WrapperArray {
                file: if a.file.is_empty() {
                    path.to_string()
                } else {
                    a.file.clone()
                },
                ..a.clone()
            }));
    }

    /// The type a dependent member type names once template type parameters are bound
    /// (`bound`: parameter name -> type as written): the matching specialization's typedef,
    /// else the primary template's.
    pub fn resolve_dependent(
        &self,
        dep: &DependentType,
        bound: &HashMap<String, String>,
    ) -> Option<String> {
        let subst = |t: &str| {
            bound
                .get(t.trim())
                .cloned()
                .unwrap_or_else(|| t.trim().to_string())
        };
        let args: Vec<String> = dep.args.iter().map(|a| subst(a)).collect();
        let same = |written: &[String]| {
            written.len() == args.len()
                && written
                    .iter()
                    .zip(&args)
                    .all(|(w, a)| w.split_whitespace().eq(a.split_whitespace()))
        };
        let of_class = self
            .member_typedefs
            .iter()
            .filter(|m| m.class == dep.class && m.member == dep.member);
        let found = of_class
            .clone()
            .find(|m| m.args.as_deref().is_some_and(same))
            .or_else(|| of_class.clone().find(|m| m.args.is_none()))?;
        Some(subst(&found.ty))
    }
}

/// Command-line `-D`/`-U` settings for conditional compilation.
#[derive(Clone, Debug, Default)]
pub struct Defines {
    pub defined: Vec<(String, String)>,
    pub undefined: Vec<String>,
}

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
const BLANKED_WORDS: &[(&str, Keyword)] = &[
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

pub fn prepare(src: &str, defines: &Defines) -> Prepared {
    prepare_with_includes(src, defines, &mut |_| None)
}

/// Finds a local header by its name as written: its path and text.
pub type IncludeLoader<'l> = dyn FnMut(&str) -> Option<(String, String)> + 'l;

/// Like [`prepare`], following local includes through `load`: their macros take effect at
/// the `#include` line, and their type names and declarations are kept in `headers`.
pub fn prepare_with_includes(
    src: &str,
    defines: &Defines,
    load: &mut IncludeLoader<'_>,
) -> Prepared {
    prepare_in_context(src, defines, load, None)
}

/// Like [`prepare_with_includes`], for a file that another file includes: `context` is what
/// the includer's front end found before its `#include` line (see `include_context`). Its
/// macros are in force from the first byte, and its type names and declarations count as
/// those of a header.
pub fn prepare_in_context(
    src: &str,
    defines: &Defines,
    load: &mut IncludeLoader<'_>,
    context: Option<(String, Prepared)>,
) -> Prepared {
    let mut out = Prepared::default();
    for (name, value) in &defines.defined {
        out.macros.define(MacroDef {
            name: name.clone(),
            params: None,
            body: value.clone(),
            defined_at: 0,
        });
    }
    for name in &defines.undefined {
        out.macros.undefine(name, 0);
    }
    if let Some((includer, ctx)) = &context {
        // The includer's macros, function-like ones too, already reflect `-D` and `-U`.
        out.absorb_declarations(ctx, 0, includer);
    }
    let mut blank: Vec<Range<usize>> = Vec::new();
    let lexed = lex(src);
    out.comments = lexed.comments;
    blank.extend(lexed.splices);
    for c in &out.comments {
        blank.push(c.span.clone());
    }
    let active_tokens = run_directives(
        load,
        src,
        &lexed.directives,
        lexed.tokens,
        &mut out,
        &mut blank,
    );
    out.headers.extend(context);
    // Type names first: the C++ rewrites need them to tell `T &x` from `a & b`.
    collect_typenames(src, &active_tokens, &mut out.typenames);
    let mut patches: Vec<(usize, Cow<'static, str>)> = Vec::new();
    let tokens = rewrite_tokens(src, active_tokens, &mut out, &mut blank, &mut patches);
    out.chunks = split_chunks(src, &tokens, &out.keywords);
    take_shared_memory_classes(src, &tokens, &mut out);
    strip_member_functions(src, &tokens, &mut out, &mut blank, &mut patches);
    drop_deeply_nested(src, &tokens, &mut out);

    let mut bytes = src.as_bytes().to_vec();
    for r in &blank {
        for b in &mut bytes[r.clone()] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    for (at, text) in &patches {
        bytes[*at..*at + text.len()].copy_from_slice(text.as_bytes());
    }
    for l in &out.launches {
        // `k<<<g, b>>>(x)` becomes `k(  g, b  )(x)`: a call of a call, same length.
        if let Some(open) = src[l.span.clone()].find("<<<") {
            let o = l.span.start + open;
            bytes[o..o + 3].copy_from_slice(b"(  ");
        }
        let c = l.span.end - 3;
        bytes[c..c + 3].copy_from_slice(b"  )");
    }
    // Only ASCII bytes were written over whole tokens/comments, so this stays UTF-8.
    out.text = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    out.tokens = tokens;
    out
}

/// Tokens of a piece of C text (comments and directives dropped).
pub fn tokenize(src: &str) -> Vec<Token> {
    lex(src).tokens
}

/// Whether a macro body can be used as an operand without changing meaning: one token, or
/// wholly parenthesized.
pub fn is_atomic_body(body: &str) -> bool {
    let toks = lex(body).tokens;
    match toks.as_slice() {
        [] | [_] => true,
        [first, ..] if first.text(body) == "(" => matching(body, &toks, 0) == Some(toks.len() - 1),
        _ => false,
    }
}

/// Expands macros in `text` the way the preprocessor would, token by token, with the
/// definitions in force at `at`. Used where a macro body's precedence matters.
pub fn expand_macros(text: &str, macros: &MacroTable, at: usize) -> String {
    let mut out = Vec::new();
    expand_into(text, macros, at, &mut Vec::new(), &mut out);
    out.join(" ")
}

fn expand_into(
    text: &str,
    macros: &MacroTable,
    at: usize,
    active: &mut Vec<String>,
    out: &mut Vec<String>,
) {
    let toks = lex(text).tokens;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i].text(text);
        let def = (toks[i].kind == TokenKind::Ident
            && !active.iter().any(|a| a == t)
            && active.len() < 32)
            .then(|| macros.lookup(t, at))
            .flatten();
        match def {
            Some(m) if m.params.is_none() => {
                active.push(t.to_string());
                expand_into(&m.body.clone(), macros, at, active, out);
                active.pop();
                i += 1;
            }
            Some(m) if toks.get(i + 1).map(|n| n.text(text)) == Some("(") => {
                let Some(close) = matching(text, &toks, i + 1) else {
                    out.push(t.to_string());
                    i += 1;
                    continue;
                };
                let args: Vec<String> = split_top_level(text, &toks[i + 2..close])
                    .iter()
                    .map(|p| match (p.first(), p.last()) {
                        (Some(a), Some(b)) => expand_macros(&text[a.start..b.end], macros, at),
                        _ => String::new(),
                    })
                    .collect();
                let params = m.params.clone().unwrap_or_default();
                let body = substitute(&m.body, &params, &args);
                active.push(t.to_string());
                expand_into(&body, macros, at, active, out);
                active.pop();
                i = close + 1;
            }
            _ => {
                out.push(t.to_string());
                i += 1;
            }
        }
    }
}

/// Replaces a function-like macro's parameters in its body, token by token (no parentheses
/// added: the preprocessor adds none).
fn substitute(body: &str, params: &[String], args: &[String]) -> String {
    let toks = lex(body).tokens;
    let mut out = Vec::new();
    for t in &toks {
        let w = t.text(body);
        match params.iter().position(|p| p == w) {
            Some(k) => out.push(args.get(k).cloned().unwrap_or_default()),
            None => out.push(w.to_string()),
        }
    }
    out.join(" ")
}

struct Lexed {
    tokens: Vec<Token>,
    comments: Vec<Comment>,
    /// Backslash-newline splices outside directives (lang-c does not join lines).
    splices: Vec<Range<usize>>,
    /// Directive line spans (including continuations), in order.
    directives: Vec<Range<usize>>,
}

fn lex(src: &str) -> Lexed {
    let b = src.as_bytes();
    let mut tokens = Vec::new();
    let mut comments = Vec::new();
    let mut directives = Vec::new();
    let mut splices = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'\\' {
            let next = if b.get(i + 1) == Some(&b'\r') {
                i + 2
            } else {
                i + 1
            };
            if b.get(next) == Some(&b'\n') {
                splices.push(i..next);
                i = next + 1;
                continue;
            }
        }
        if c == b'#' && line_start {
            let start = i;
            i = directive_end(b, i);
            directives.push(start..i);
            continue;
        }
        line_start = false;
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let end = memchr_or_end(b, i, b'\n');
            comments.push(Comment {
                span: i..end,
                body: src[i + 2..end].to_string(),
            });
            i = end;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            // An unterminated comment runs to the end (its body has no `*/` to drop).
            let (end, body_end) = src[i + 2..]
                .find("*/")
                .map_or((b.len(), b.len()), |p| (i + 2 + p + 2, i + 2 + p));
            comments.push(Comment {
                span: i..end,
                body: src[i + 2..body_end].to_string(),
            });
            i = end;
            continue;
        }
        let start = i;
        let kind;
        if c == b'"' || c == b'\'' {
            i = quoted_end(b, i);
            kind = if c == b'"' {
                TokenKind::Str
            } else {
                TokenKind::Char
            };
        } else if c == b'R' && b.get(i + 1) == Some(&b'"') {
            i = raw_string_end(src, i);
            kind = TokenKind::Str;
        } else if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
                i += 1;
            }
            // String prefixes: u8"..", L"..".
            if i < b.len() && b[i] == b'"' && matches!(&src[start..i], "L" | "u" | "U" | "u8") {
                i = quoted_end(b, i);
                kind = TokenKind::Str;
            } else {
                kind = TokenKind::Ident;
            }
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
            while i < b.len() {
                let d = b[i];
                let exponent_sign =
                    (d == b'+' || d == b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                if d.is_ascii_alphanumeric()
                    || d == b'.'
                    || d == b'_'
                    || d == b'\''
                    || exponent_sign
                {
                    i += 1;
                } else {
                    break;
                }
            }
            kind = TokenKind::Number;
        } else {
            i += punct_len(&b[i..]);
            kind = TokenKind::Punct;
        }
        tokens.push(Token {
            kind,
            start,
            end: i,
        });
    }
    Lexed {
        tokens,
        comments,
        splices,
        directives,
    }
}

fn memchr_or_end(b: &[u8], from: usize, needle: u8) -> usize {
    b[from..]
        .iter()
        .position(|&x| x == needle)
        .map_or(b.len(), |p| from + p)
}

fn directive_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\n' => {
                let mut k = i;
                while k > 0 && (b[k - 1] == b' ' || b[k - 1] == b'\t' || b[k - 1] == b'\r') {
                    k -= 1;
                }
                if k > 0 && b[k - 1] == b'\\' {
                    i += 1;
                    continue;
                }
                return i;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                // A block comment inside a directive may span lines.
                i = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(b.len(), |p| i + 2 + p + 2);
            }
            _ => i += 1,
        }
    }
    i
}

fn quoted_end(b: &[u8], start: usize) -> usize {
    let q = b[start];
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            x if x == q => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

fn raw_string_end(src: &str, start: usize) -> usize {
    let rest = &src[start + 2..];
    let Some(open) = rest.find('(') else {
        return src.len();
    };
    let delim = &rest[..open];
    let close = format!("){delim}\"");
    rest[open..]
        .find(&close)
        .map_or(src.len(), |p| start + 2 + open + p + close.len())
}

fn punct_len(b: &[u8]) -> usize {
    const THREE: &[&[u8]] = &[b"...", b">>=", b"<<=", b"->*"];
    const TWO: &[&[u8]] = &[
        b"::", b"->", b"++", b"--", b"<<", b">>", b"<=", b">=", b"==", b"!=", b"&&", b"||", b"*=",
        b"/=", b"%=", b"+=", b"-=", b"&=", b"^=", b"|=", b"##",
    ];
    if THREE.iter().any(|p| b.starts_with(p)) {
        3
    } else if TWO.iter().any(|p| b.starts_with(p)) {
        2
    } else {
        // One character (a whole UTF-8 sequence for stray non-ASCII bytes).
        let lead = b[0];
        if lead < 0x80 {
            1
        } else {
            (lead.leading_ones() as usize).clamp(1, 4).min(b.len())
        }
    }
}

/// Handles `#define`, `#undef`, `#include`, and conditional compilation. Returns the tokens
/// outside disabled regions; disabled regions and all directive lines are blanked.
fn run_directives(
    load: &mut IncludeLoader<'_>,
    src: &str,
    directives: &[Range<usize>],
    tokens: Vec<Token>,
    out: &mut Prepared,
    blank: &mut Vec<Range<usize>>,
) -> Vec<Token> {
    // Stack of (this branch active, some branch already taken, parent active).
    let mut stack: Vec<(bool, bool, bool)> = Vec::new();
    let mut disabled: Vec<Range<usize>> = Vec::new();
    let mut disabled_from: Option<usize> = None;
    let active = |stack: &Vec<(bool, bool, bool)>| stack.last().is_none_or(|s| s.0);
    for d in directives {
        blank.push(d.clone());
        let line = strip_comments(&src[d.clone()])
            .replace("\\\n", " ")
            .replace("\\\r\n", " ");
        let body = line.trim_start().trim_start_matches('#').trim_start();
        let (word, rest) = split_word(body);
        let was_active = active(&stack);
        match word {
            "if" | "ifdef" | "ifndef" => {
                let cond = was_active
                    && match word {
                        "ifdef" => out.macros.lookup(split_word(rest).0, d.start).is_some(),
                        "ifndef" => out.macros.lookup(split_word(rest).0, d.start).is_none(),
                        _ => eval_condition(rest, &out.macros, d.start),
                    };
                stack.push((cond, cond, was_active));
            }
            "elif" | "elifdef" | "elifndef" => {
                if let Some(top) = stack.last_mut() {
                    let cond = top.2
                        && !top.1
                        && match word {
                            "elifdef" => out.macros.lookup(split_word(rest).0, d.start).is_some(),
                            "elifndef" => out.macros.lookup(split_word(rest).0, d.start).is_none(),
                            _ => eval_condition(rest, &out.macros, d.start),
                        };
                    top.0 = cond;
                    top.1 |= cond;
                }
            }
            "else" => {
                if let Some(top) = stack.last_mut() {
                    top.0 = top.2 && !top.1;
                    top.1 = true;
                }
            }
            "endif" => {
                stack.pop();
            }
            "define" if was_active => {
                if let Some(def) = parse_define(rest, d.start) {
                    out.macros.define(def);
                }
            }
            "undef" if was_active => out.macros.undefine(split_word(rest).0, d.start),
            "include" if was_active => {
                let r = rest.trim();
                if let Some(name) = r.strip_prefix('"').and_then(|s| s.split('"').next()) {
                    out.includes.push((name.to_string(), d.clone()));
                    if let Some((path, text)) = load(name) {
                        // The header sees the macros defined so far; its own take effect here.
                        let inherited = Defines {
                            defined: out.macros.object_like_at(d.start),
                            undefined: Vec::new(),
                        };
                        let header = prepare_with_includes(&text, &inherited, load);
                        out.absorb_declarations(&header, d.start, &path);
                        out.headers.push((name.to_string(), header));
                    } else {
                        out.missing_includes.push((
                            name.to_string(),
                            d.start..d.start + line.trim_end().len().min(d.len()),
                        ));
                    }
                }
            }
            _ => {}
        }
        let now_active = active(&stack);
        if was_active && !now_active {
            disabled_from = Some(d.end);
        } else if !was_active
            && now_active
            && let Some(from) = disabled_from.take()
        {
            disabled.push(from..d.start);
        }
    }
    if let Some(from) = disabled_from {
        disabled.push(from..src.len());
    }
    blank.extend(disabled.iter().cloned());
    out.inactive.extend(disabled.iter().cloned());
    // Disabled regions are in file order and disjoint: one pass drops their tokens.
    let mut tokens = tokens;
    let mut r = 0;
    tokens.retain(|t| {
        while r < disabled.len() && disabled[r].end <= t.start {
            r += 1;
        }
        !(r < disabled.len() && disabled[r].start <= t.start)
    });
    tokens
}

fn split_word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

fn strip_comments(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("//") {
            let nl = r.find('\n').map_or(r.len(), |p| p);
            rest = &r[nl..];
        } else if let Some(r) = rest.strip_prefix("/*") {
            let end = r.find("*/").map_or(r.len(), |p| p + 2);
            out.push(' ');
            rest = &r[end..];
        } else if rest.starts_with('"') || rest.starts_with('\'') {
            let end = quoted_end(rest.as_bytes(), 0);
            out.push_str(&rest[..end]);
            rest = &rest[end..];
        } else {
            let ch = rest.chars().next().unwrap_or(' ');
            out.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    out
}

fn parse_define(rest: &str, at: usize) -> Option<MacroDef> {
    let rest = rest.trim_start();
    let (name, after) = split_word(rest);
    if name.is_empty() {
        return None;
    }
    let after_name = &rest[name.len()..];
    let (params, body) = if let Some(p) = after_name.strip_prefix('(') {
        let close = p.find(')')?;
        let params = p[..close]
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        (Some(params), &p[close + 1..])
    } else {
        (None, after)
    };
    Some(MacroDef {
        name: name.to_string(),
        params,
        body: body.trim().to_string(),
        defined_at: at,
    })
}

/// Evaluates a `#if` expression: `defined`, macros, integer arithmetic; unknown names are 0.
fn eval_condition(expr: &str, macros: &MacroTable, at: usize) -> bool {
    let expanded = expand_for_condition(expr, macros, at, 0);
    let toks = lex(&expanded).tokens;
    let mut p = CondParser {
        src: &expanded,
        toks: &toks,
        pos: 0,
    };
    p.ternary() != 0
}

fn expand_for_condition(expr: &str, macros: &MacroTable, at: usize, depth: usize) -> String {
    let toks = lex(expr).tokens;
    let mut out = String::new();
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        let text = t.text(expr);
        if text == "defined" {
            // defined NAME or defined(NAME)
            let (name, skip) = match toks.get(i + 1).map(|t| t.text(expr)) {
                Some("(") => (toks.get(i + 2).map(|t| t.text(expr)).unwrap_or(""), 4),
                Some(n) => (n, 2),
                None => ("", 1),
            };
            out.push_str(if macros.lookup(name, at).is_some() {
                " 1 "
            } else {
                " 0 "
            });
            i += skip;
            continue;
        }
        if t.kind == TokenKind::Ident {
            match macros.lookup(text, at) {
                Some(m) if m.params.is_none() && depth < 32 => {
                    out.push_str(" (");
                    out.push_str(&expand_for_condition(&m.body, macros, at, depth + 1));
                    out.push_str(") ");
                }
                _ => out.push_str(if text == "true" { " 1 " } else { " 0 " }),
            }
        } else {
            out.push(' ');
            out.push_str(text);
        }
        i += 1;
    }
    out
}

struct CondParser<'a> {
    src: &'a str,
    toks: &'a [Token],
    pos: usize,
}

impl CondParser<'_> {
    fn peek(&self) -> &str {
        self.toks.get(self.pos).map_or("", |t| t.text(self.src))
    }

    fn ternary(&mut self) -> i64 {
        let c = self.binary(0);
        if self.peek() == "?" {
            self.pos += 1;
            let a = self.ternary();
            if self.peek() == ":" {
                self.pos += 1;
            }
            let b = self.ternary();
            if c != 0 { a } else { b }
        } else {
            c
        }
    }

    fn binary(&mut self, min_prec: u8) -> i64 {
        let mut lhs = self.unary();
        loop {
            let op = self.peek().to_string();
            let prec = match op.as_str() {
                "||" => 1,
                "&&" => 2,
                "|" => 3,
                "^" => 4,
                "&" => 5,
                "==" | "!=" => 6,
                "<" | "<=" | ">" | ">=" => 7,
                "<<" | ">>" => 8,
                "+" | "-" => 9,
                "*" | "/" | "%" => 10,
                _ => return lhs,
            };
            if prec < min_prec {
                return lhs;
            }
            self.pos += 1;
            let rhs = self.binary(prec + 1);
            lhs = match op.as_str() {
                "||" => i64::from(lhs != 0 || rhs != 0),
                "&&" => i64::from(lhs != 0 && rhs != 0),
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => i64::from(lhs == rhs),
                "!=" => i64::from(lhs != rhs),
                "<" => i64::from(lhs < rhs),
                "<=" => i64::from(lhs <= rhs),
                ">" => i64::from(lhs > rhs),
                ">=" => i64::from(lhs >= rhs),
                "<<" => lhs.checked_shl(rhs as u32).unwrap_or(0),
                ">>" => lhs.checked_shr(rhs as u32).unwrap_or(0),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                "/" => lhs.checked_div(rhs).unwrap_or(0),
                _ => lhs.checked_rem(rhs).unwrap_or(0),
            };
        }
    }

    fn unary(&mut self) -> i64 {
        match self.peek() {
            "!" => {
                self.pos += 1;
                i64::from(self.unary() == 0)
            }
            "-" => {
                self.pos += 1;
                self.unary().wrapping_neg()
            }
            "+" => {
                self.pos += 1;
                self.unary()
            }
            "~" => {
                self.pos += 1;
                !self.unary()
            }
            "(" => {
                self.pos += 1;
                let v = self.ternary();
                if self.peek() == ")" {
                    self.pos += 1;
                }
                v
            }
            _ => {
                let text = self.peek().to_string();
                self.pos += 1;
                parse_int_literal(&text).unwrap_or(0)
            }
        }
    }
}

/// Parses a C integer literal with suffixes (`32`, `0x20u`, `1'000`, `'a'`).
pub fn parse_int_literal(text: &str) -> Option<i64> {
    let t = text.replace('\'', "");
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(bin) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        i64::from_str_radix(bin, 2).ok()
    } else if t.len() > 1 && t.starts_with('0') && t.bytes().all(|b| b.is_ascii_digit()) {
        i64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    }
}

/// Blanks CUDA and C++ words lang-c does not know, records launches and templates.
fn rewrite_tokens(
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

/// The text of each top-level, comma-separated argument in `tokens` (`16`, `float`).
fn argument_texts(src: &str, tokens: &[Token]) -> Vec<String> {
    split_top_level(src, tokens)
        .iter()
        .filter_map(|p| Some(src[p.first()?.start..p.last()?.end].to_string()))
        .collect()
}

fn adjacent_tokens(tokens: &[Token], a: usize, b: usize) -> bool {
    tokens[a].end == tokens[b].start
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

fn template_header(src: &str, params: &[Token], span: Range<usize>) -> TemplateHeader {
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

fn is_ident(w: &str) -> bool {
    w.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Splits tokens at commas outside brackets of any kind.
fn split_top_level<'t>(src: &str, toks: &'t [Token]) -> Vec<&'t [Token]> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (k, t) in toks.iter().enumerate() {
        match t.text(src) {
            "(" | "[" | "{" | "<" => depth += 1,
            ")" | "]" | "}" | ">" => depth -= 1,
            ">>" => depth -= 2,
            "," if depth == 0 => {
                parts.push(&toks[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    if start < toks.len() {
        parts.push(&toks[start..]);
    }
    parts
}

/// Index of the token closing the bracket opened at `open`.
pub fn matching(src: &str, tokens: &[Token], open: usize) -> Option<usize> {
    let (o, c) = match tokens[open].text(src) {
        "(" => ("(", ")"),
        "[" => ("[", "]"),
        "{" => ("{", "}"),
        _ => return None,
    };
    let mut depth = 0;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        let s = t.text(src);
        if s == o {
            depth += 1;
        } else if s == c {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// Closing `>` of a template argument or parameter list (`>>` closes two levels).
fn matching_angle(src: &str, tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut paren = 0i32;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        match t.text(src) {
            "(" => paren += 1,
            ")" => paren -= 1,
            "<" if paren == 0 => depth += 1,
            ">" if paren == 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            ">>" if paren == 0 => {
                depth -= 2;
                if depth <= 0 {
                    return Some(k);
                }
            }
            ";" | "{" => return None,
            _ => {}
        }
    }
    None
}

fn launch_at(src: &str, tokens: &[Token], open: usize) -> Option<Launch> {
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

/// Splits the file into top-level items.
fn split_chunks(src: &str, tokens: &[Token], keywords: &[(Keyword, usize)]) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let start = i;
        // Leading keywords that were blanked belong to the chunk too.
        let prev_end = if start == 0 { 0 } else { tokens[start - 1].end };
        let chunk_start = keywords
            .iter()
            .filter(|(_, at)| *at >= prev_end && *at < tokens[start].start)
            .map(|(_, at)| *at)
            .min()
            .unwrap_or(tokens[start].start);
        let mut paren = 0i32;
        let mut aggregate = false;
        let mut end = None;
        let mut kind = ChunkKind::Declaration;
        let mut j = i;
        while j < tokens.len() {
            let t = tokens[j].text(src);
            match t {
                "(" | "[" => paren += 1,
                ")" | "]" => paren -= 1,
                "struct" | "union" | "enum" | "class" if paren == 0 => aggregate = true,
                ";" if paren <= 0 => {
                    end = Some(j);
                    break;
                }
                "}" if paren <= 0 => {
                    // A stray closing brace: end the item before it.
                    end = Some(j);
                    break;
                }
                "{" if paren <= 0 => {
                    let close = matching(src, tokens, j).unwrap_or(tokens.len() - 1);
                    let prev = if j > start {
                        tokens[j - 1].text(src)
                    } else {
                        ""
                    };
                    let is_function = !aggregate
                        && (prev == ")"
                            || matches!(prev, "const" | "noexcept" | "override" | "final"))
                        && tokens[start..j].iter().any(|t| t.text(src) == "(");
                    if is_function {
                        let header = chunk_start..tokens[j].start;
                        let has = |k: Keyword| {
                            keywords
                                .iter()
                                .any(|(kw, at)| *kw == k && header.contains(at))
                        };
                        kind = if has(Keyword::Global) {
                            ChunkKind::DeviceFunction { kernel: true }
                        } else if has(Keyword::Device) {
                            ChunkKind::DeviceFunction { kernel: false }
                        } else {
                            ChunkKind::HostFunction
                        };
                        end = Some(close);
                        break;
                    }
                    j = close;
                }
                _ => {}
            }
            j += 1;
        }
        let last = end.unwrap_or(tokens.len() - 1);
        chunks.push(Chunk {
            span: chunk_start..tokens[last].end,
            kind,
            tokens: start..last + 1,
        });
        i = last + 1;
    }
    chunks
}

/// Deepest bracket nesting the parser is given. Real kernels stay far below; the parser
/// and the analyzer recurse per level, so deeper input is skipped instead of overflowing.
pub const MAX_NESTING: usize = 256;

fn drop_deeply_nested(src: &str, tokens: &[Token], out: &mut Prepared) {
    let mut dropped = Vec::new();
    out.chunks.retain(|c| {
        let mut depth = 0usize;
        let mut deepest = 0usize;
        for t in &tokens[c.tokens.clone()] {
            match t.text(src) {
                "(" | "[" | "{" => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        if deepest > MAX_NESTING {
            let first_line = src[c.span.clone()]
                .find('\n')
                .map_or(c.span.end, |p| c.span.start + p);
            dropped.push(Skipped {
                span: c.span.start..first_line,
                reason: format!(
                    "brackets nested {deepest} levels deep (banklint reads at most {MAX_NESTING})"
                ),
            });
            false
        } else {
            true
        }
    });
    out.skipped.extend(dropped);
}

/// C++ aggregates become C structs of the same layout: member functions, constructors,
/// access specifiers and base-class lists are blanked, and `class` is spelled `union` (same
/// length; `class_names` says to lay it out as a struct).
fn strip_member_functions(
    src: &str,
    tokens: &[Token],
    out: &mut Prepared,
    blank: &mut Vec<Range<usize>>,
    patches: &mut Vec<(usize, Cow<'static, str>)>,
) {
    let text = |k: usize| tokens.get(k).map_or("", |t| t.text(src));
    for chunk in out
        .chunks
        .iter()
        .filter(|c| c.kind == ChunkKind::Declaration)
    {
        let first = chunk.tokens.start;
        if first >= tokens.len() {
            continue;
        }
        let mut k = first;
        if text(k) == "typedef" {
            k += 1;
        }
        if !matches!(text(k), "struct" | "class") {
            continue;
        }
        let is_class = text(k) == "class";
        let Some(open) = (k..tokens.len())
            .take_while(|&j| tokens[j].start < chunk.span.end)
            .find(|&j| text(j) == "{")
        else {
            continue;
        };
        if is_class {
            patches.push((tokens[k].start, "union".into()));
            if let Some(name) = tokens.get(k + 1).filter(|t| t.kind == TokenKind::Ident) {
                out.class_names.push(name.text(src).to_string());
            }
        }
        // `struct D : public B {`: drop the base list.
        if let Some(colon) = (k + 1..open).find(|&j| text(j) == ":") {
            blank.push(tokens[colon].start..tokens[open - 1].end);
        }
        let Some(close) = matching(src, tokens, open) else {
            continue;
        };
        let mut m = open + 1;
        while m < close {
            if matches!(text(m), "public" | "private" | "protected") && text(m + 1) == ":" {
                blank.push(tokens[m].start..tokens[m + 1].end);
                m += 2;
                continue;
            }
            // One member: up to `;` at depth 0, or a function body.
            let mut j = m;
            let mut depth = 0i32;
            let mut has_call_parens = false;
            let mut end = close - 1;
            while j < close {
                match text(j) {
                    "(" | "[" => {
                        if depth == 0 && text(j) == "(" {
                            has_call_parens = true;
                        }
                        depth += 1;
                    }
                    ")" | "]" => depth -= 1,
                    "{" if depth == 0 => {
                        let body_end = matching(src, tokens, j).unwrap_or(close - 1);
                        end = if text(body_end + 1) == ";" {
                            body_end + 1
                        } else {
                            body_end
                        };
                        if has_call_parens {
                            break;
                        }
                        j = body_end;
                    }
                    ";" if depth == 0 => {
                        end = j;
                        break;
                    }
                    _ => {}
                }
                j += 1;
            }
            if has_call_parens {
                blank.push(tokens[m].start..tokens[end].end);
            }
            m = end + 1;
        }
    }
}

/// Finds classes whose body declares `extern __shared__` storage and hands it out, records
/// their names and arrays, and drops their definitions from the items to parse.
fn take_shared_memory_classes(src: &str, tokens: &[Token], out: &mut Prepared) {
    let shared: Vec<usize> = out
        .keywords
        .iter()
        .filter(|(k, _)| *k == Keyword::Shared)
        .map(|(_, at)| *at)
        .collect();
    let mut names = Vec::new();
    let mut arrays = Vec::new();
    out.chunks.retain(|c| {
        if c.kind != ChunkKind::Declaration || !shared.iter().any(|at| c.span.contains(at)) {
            return true;
        }
        let first = Some(c.tokens.start).filter(|&k| k < tokens.len());
        let Some(k) = first else { return true };
        if !matches!(tokens[k].text(src), "struct" | "class")
            || !src[c.span.clone()].contains("extern")
        {
            return true;
        }
        if let Some(name) = tokens.get(k + 1).filter(|t| t.kind == TokenKind::Ident) {
            let class = name.text(src).to_string();
            let args = angle_arguments(&src[name.end..c.span.end]);
            for &at in shared.iter().filter(|at| c.span.contains(at)) {
                // The declared name: the first identifier after `__shared__` followed by `[`.
                let array = tokens[c.tokens.clone()]
                    .windows(2)
                    .find(|w| {
                        w[0].start > at && w[0].kind == TokenKind::Ident && w[1].text(src) == "["
                    })
                    .map(|w| &w[0]);
                if let Some(array) = array {
                    arrays.push(WrapperArray {
                        class: class.clone(),
                        args: args.clone(),
                        array: array.text(src).to_string(),
                        file: String::new(),
                        line: src[..array.start].matches('\n').count() + 1,
                    });
                }
            }
            names.push(class);
        }
        false
    });
    out.shared_memory_classes.extend(names);
    out.shared_memory_classes.sort();
    out.shared_memory_classes.dedup();
    out.shared_memory_arrays.extend(arrays);
}

/// The template arguments `text` starts with (`<float>` after `SharedMemory`), if any. Read
/// from the source text, lexed again: the rewritten tokens no longer hold them.
fn angle_arguments(text: &str) -> Option<Vec<String>> {
    let tokens = lex(text).tokens;
    if tokens.first()?.text(text) != "<" {
        return None;
    }
    let close = matching_angle(text, &tokens, 0)?;
    Some(argument_texts(text, &tokens[1..close]))
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

fn collect_typenames(src: &str, tokens: &[Token], names: &mut Vec<String>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapper_classes_record_each_specialization_and_its_array() {
        let src = "template <typename T> struct Wrap {\n    __device__ T *get() { return 0; }\n};\ntemplate <> struct Wrap<unsigned int> {\n    __device__ unsigned int *get()\n    {\n        extern __shared__ unsigned int w_uint[];\n        return w_uint;\n    }\n};\ntemplate <class T> struct Conv { __device__ operator T *() { extern __shared__ int raw[]; return (T *)raw; } };\n";
        let p = prepare(src, &Defines::default());
        assert_eq!(p.shared_memory_classes, ["Conv", "Wrap"]);
        let found: Vec<(&str, Option<Vec<String>>, &str, usize)> = p
            .shared_memory_arrays
            .iter()
            .map(|w| (w.class.as_str(), w.args.clone(), w.array.as_str(), w.line))
            .collect();
        // The primary `Wrap` declares no array; the specialization's is on line 7.
        assert_eq!(
            found,
            [
                ("Wrap", Some(vec!["unsigned int".to_string()]), "w_uint", 7),
                ("Conv", None, "raw", 11)
            ]
        );
        assert!(p.shared_memory_arrays.iter().all(|w| w.file.is_empty()));
    }

    #[test]
    fn dependent_member_types_become_one_name_resolved_by_specialization() {
        let src = "template <typename T> struct vec4 { typedef float Type; };\ntemplate <> struct vec4<double> { typedef double2 Type; };\ntemplate <typename T> __global__ void k(typename vec4<T>::Type *p) {}\n";
        let p = prepare(src, &Defines::default());
        assert_eq!(p.text.len(), src.len());
        assert!(p.text.contains("vec4_T___Type *p"), "{}", p.text);
        assert_eq!(p.dependent_types.len(), 1);
        let dep = &p.dependent_types[0];
        let bound = |t: &str| HashMap::from([("T".to_string(), t.to_string())]);
        assert_eq!(
            p.resolve_dependent(dep, &bound("double")).as_deref(),
            Some("double2")
        );
        assert_eq!(
            p.resolve_dependent(dep, &bound("int")).as_deref(),
            Some("float")
        );
        assert_eq!(
            dependent_type_name(" typename vec4< T >::Type").as_deref(),
            Some("vec4_T___Type")
        );
        assert_eq!(dependent_type_name("vec4<T>::Type"), None);
    }

    fn prep(src: &str) -> Prepared {
        prepare(src, &Defines::default())
    }

    #[test]
    fn keeps_length_and_blanks_cuda_words() {
        let src = "#define N 32 // rows\n__global__ void k() { __shared__ float t[N][N + 1]; }\n";
        let p = prep(src);
        assert_eq!(p.text.len(), src.len());
        assert!(!p.text.contains("__shared__"));
        assert!(!p.text.contains("#define"));
        assert_eq!(
            p.macros.lookup("N", 100).map(|m| m.body.as_str()),
            Some("32")
        );
        assert!(p.keywords.iter().any(|(k, _)| *k == Keyword::Shared));
        assert_eq!(p.chunks.len(), 1);
        assert_eq!(p.chunks[0].kind, ChunkKind::DeviceFunction { kernel: true });
    }

    #[test]
    fn records_launches_and_rewrites_chevrons() {
        let src = "void h() { k<<<g, dim3(32, 8)>>>(x); t<16, float><<<1, 64, 0, s>>>(y); }";
        let p = prep(src);
        assert_eq!(p.launches.len(), 2);
        assert_eq!(p.launches[0].kernel, "k");
        assert_eq!(&src[p.launches[0].config[1].clone()], "dim3(32, 8)");
        assert_eq!(p.launches[1].template_args, vec!["16", "float"]);
        assert_eq!(p.launches[1].config.len(), 4);
        assert!(p.text.contains("k(  g, dim3(32, 8)  )(x)"));
        assert_eq!(p.chunks[0].kind, ChunkKind::HostFunction);
    }

    #[test]
    fn conditional_compilation() {
        let src = "#define A 1\n#if A && !defined(B)\nint x;\n#else\nint y;\n#endif\n#ifdef B\nint z;\n#endif\n";
        let p = prep(src);
        assert!(p.text.contains("int x;"));
        assert!(!p.text.contains("int y;"));
        assert!(!p.text.contains("int z;"));
        let d = Defines {
            defined: vec![("B".into(), "1".into())],
            undefined: vec![],
        };
        let p = prepare(src, &d);
        assert!(p.text.contains("int y;") && p.text.contains("int z;"));
    }

    #[test]
    fn templates_and_namespaces() {
        let src = "namespace cg = cooperative_groups;\nnamespace a {\ntemplate <int BLOCK = 16, typename T>\n__global__ void k(T *x) {}\n}\n";
        let p = prep(src);
        assert_eq!(p.templates.len(), 1);
        assert_eq!(
            p.templates[0].values(),
            vec![("BLOCK".to_string(), Some("16".to_string()))]
        );
        assert_eq!(p.templates[0].types(), vec!["T".to_string()]);
        assert!(!p.text.contains("namespace"));
        assert!(!p.text.contains('}') || p.text.matches('}').count() == 1);
        assert_eq!(p.chunks.len(), 1);
    }

    #[test]
    fn macro_expansion_keeps_c_precedence() {
        let p = prep("#define N 32 + 1\n#define IDX(r, c) r * N + c\nint x;\n");
        let e = expand_macros("IDX(a + 1, b) * 2", &p.macros, 100);
        assert_eq!(e, "a + 1 * 32 + 1 + b * 2");
        assert!(is_atomic_body("(32 + 1)"));
        assert!(is_atomic_body("TILE"));
        assert!(!is_atomic_body("32 + 1"));
        assert!(!is_atomic_body("(a) + (b)"));
    }

    #[test]
    fn qualified_name_at_end_of_file() {
        // Found by fuzzing: a qualified name as the last tokens of the file.
        for src in ["a::b::c", "x a::b::c", "::", "a::", "a::b::"] {
            let p = prep(src);
            assert_eq!(p.text.len(), src.len());
        }
    }

    #[test]
    fn int_literals() {
        assert_eq!(parse_int_literal("0x20u"), Some(32));
        assert_eq!(parse_int_literal("017"), Some(15));
        assert_eq!(parse_int_literal("32ULL"), Some(32));
        assert_eq!(parse_int_literal("1.5f"), None);
    }
}
