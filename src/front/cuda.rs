//! The front end's driver: preprocesses a file (following local headers), lowers the
//! expanded text to C, and splits it into items, giving a [`Prepared`].
//!
//! Stages, each in its own module: [`crate::front::preprocess`] (directives, macro
//! expansion, source map), [`crate::front::lower`] (CUDA C++ to C of the same length),
//! [`crate::front::items`] (top-level items and aggregates).

use crate::front::header_cache;
pub use crate::front::include_loader::{
    HeaderRequest, IncludeLoader, LoaderMark, OwnedHeaderRequest,
};
use crate::front::items::lower_items;
use crate::front::lex::{Token, TokenKind, lex};
use crate::front::lower::Lowering;
pub use crate::front::macros::Defines;
use crate::front::macros::MacroTable;
pub use crate::front::prepared::*;
use crate::front::preprocess::{Included, initial_macros, run_directives};
pub use crate::front::spare_threads::{LOWERING_THREAD, map_on_spare_threads, set_spare_threads};
use crate::front::syntax::parse;
use std::sync::{Arc, OnceLock};

pub fn prepare(src: &str, defines: &Defines) -> Prepared {
    prepare_with_includes(src, defines, &mut |_: &HeaderRequest| None)
}

/// Like [`prepare`], following local includes through `load`: their macros take effect at
/// the `#include` line, and their type names and declarations are kept in `headers`.
pub fn prepare_with_includes(
    src: &str,
    defines: &Defines,
    load: &mut dyn IncludeLoader,
) -> Prepared {
    prepare_in_context(src, defines, load, None)
}

/// Like [`prepare_with_includes`], for a file that another file includes: `context` is what
/// the includer's front end found before its `#include` line (see `includes`). Its macros are
/// in force from the first byte, and its type names and declarations count as those of a
/// header.
pub fn prepare_in_context(
    src: &str,
    defines: &Defines,
    load: &mut dyn IncludeLoader,
    context: Option<(String, Prepared)>,
) -> Prepared {
    prepare_top(src, defines, load, context, Headers::Always, None)
}

/// Like [`prepare_in_context`], for a file to check: when its own expanded text has no device
/// code there is nothing in it to analyze, and its headers are only preprocessed (for their
/// macros, inactive regions and missing includes), not parsed and lowered (but for what spare
/// threads lower meanwhile, see [`lower_soon`](crate::front::spare_threads::lower_soon)). In a library whose
/// sources are mostly host code over device headers (raft, flash-attention), that is most of
/// the time a run spends. `includer_calls` are the calls of its host templates that the files
/// including it make (`launch_<fp32, 256>(p)` of a `launch_` it defines).
pub fn prepare_to_check(
    src: &str,
    defines: &Defines,
    load: &mut dyn IncludeLoader,
    context: Option<(String, Prepared)>,
    includer_calls: Option<crate::front::host_templates::IncluderCalls<'_>>,
) -> Prepared {
    prepare_top(
        src,
        defines,
        load,
        context,
        Headers::IfDeviceCode,
        includer_calls,
    )
}

/// Like [`prepare_to_check`], for a file checked in the context of includers whose texts
/// were only preprocessed ([`preprocess_in_context`]): the file prepared, when it has no
/// device code that needs declarations (then neither do its includers); `None` when it has,
/// and must be prepared again in its includers' full context.
pub fn probe_to_check(
    src: &str,
    defines: &Defines,
    load: &mut dyn IncludeLoader,
    context: Option<(String, Prepared)>,
    includer_calls: Option<crate::front::host_templates::IncluderCalls<'_>>,
) -> Option<Prepared> {
    let p = prepare_top(src, defines, load, context, Headers::Probe, includer_calls);
    (!p.device_code).then_some(p)
}

/// An includer's text before its `#include` of the file, preprocessed in the context of the
/// includers before it: its macros, and its headers preprocessed, nothing parsed or lowered
/// (see [`probe_to_check`]).
pub fn preprocess_in_context(
    src: &str,
    defines: &Defines,
    load: &mut dyn IncludeLoader,
    context: Option<(String, Prepared)>,
) -> Prepared {
    let mut out = preprocess_top(src, defines, load, context.as_ref());
    out.headers
        .extend(context.map(|(name, ctx)| (name, Arc::new(ctx))));
    out
}

/// `src` preprocessed with the `-D` definitions and the context's macros: its expanded text,
/// not yet parsed.
fn preprocess_top(
    src: &str,
    defines: &Defines,
    load: &mut dyn IncludeLoader,
    context: Option<&(String, Prepared)>,
) -> Prepared {
    crate::front::spare_threads::lower_soon_for(src);
    let mut macros = initial_macros(defines);
    if let Some((_, ctx)) = context {
        // The includer's macros, function-like ones too, already reflect `-D` and `-U`.
        macros.absorb(&ctx.macros, 0);
    }
    let mut out = preprocess_stage(src, macros, load);
    out.expanded = out.text.clone();
    out
}

/// When a file's headers are lowered for their declarations.
#[derive(Clone, Copy, PartialEq)]
enum Headers {
    Always,
    IfDeviceCode,
    /// As `IfDeviceCode`, returning unlowered as soon as the file turns out to need them.
    Probe,
}

fn prepare_top(
    src: &str,
    defines: &Defines,
    load: &mut dyn IncludeLoader,
    context: Option<(String, Prepared)>,
    headers: Headers,
    includer_calls: Option<crate::front::host_templates::IncluderCalls<'_>>,
) -> Prepared {
    let mut out = preprocess_top(src, defines, load, context.as_ref());
    let tree = parse(&out.text);
    out.device_code = match tree
        .as_ref()
        .map(|t| own_code(&out.tokens, &out.text, t.root_node()))
    {
        None | Some(OwnCode::Analyzed) => true,
        Some(OwnCode::Nothing) => false,
        // Always lowered, a context need not ask.
        Some(OwnCode::DeviceFunctions) if headers == Headers::Always => true,
        Some(OwnCode::DeviceFunctions) => {
            let names = (out.tokens.iter())
                .filter(|t| t.kind == TokenKind::Ident)
                .map(|t| t.text(&out.text));
            crate::front::shared_roots::file_can_reach_shared(
                names,
                &out,
                context.as_ref().map(|(_, c)| c),
            )
        }
    };
    if headers == Headers::Probe && out.device_code {
        return out;
    }
    let lower_headers = headers == Headers::Always || out.device_code;
    lower_stage(
        &mut out,
        context,
        lower_headers,
        tree,
        includer_calls,
        false,
    );
    out
}

// What `PendingHeader` holds is `prepared`'s; how it is expanded and lowered is here.
impl PendingHeader {
    pub fn new(
        preprocessed: Prepared,
        expansion: crate::front::preprocess::Expansion,
        macros: MacroTable,
    ) -> PendingHeader {
        PendingHeader {
            preprocessed,
            expansion: std::sync::Mutex::new(Some((expansion, macros))),
            expanded: OnceLock::new(),
            expanded_text: OnceLock::new(),
            lowered: OnceLock::new(),
        }
    }

    /// What preprocessing found: macros, inactive regions, missing includes, nested headers.
    pub fn preprocessed(&self) -> &Prepared {
        &self.preprocessed
    }

    /// The header's expanded text, before lowering.
    pub fn expanded_text(&self) -> &str {
        if let Some(t) = self.expanded_text.get() {
            return t;
        }
        self.expanded.get_or_init(|| self.expand()).0.as_str()
    }

    fn expand(&self) -> Expanded {
        match self.expansion.lock().as_deref() {
            Ok(Some((expansion, macros))) => expansion.run(&self.preprocessed.source, macros),
            _ => Default::default(),
        }
    }

    /// The header expanded, parsed and lowered, its own headers first.
    pub fn lowered(&self) -> Arc<Prepared> {
        let lowered = self
            .lowered
            .get_or_init(|| {
                let mut out = self.preprocessed.preprocessing_copy();
                let (text, map, notes) = match self.expanded.get() {
                    Some(e) => e.clone(),
                    None => self.expand(),
                };
                let _ = self.expanded_text.set(text.clone());
                out.expanded(text, map, notes);
                out.tokens = lex(&out.text).tokens;
                lower_stage(&mut out, None, true, None, None, true);
                Arc::new(out)
            })
            .clone();
        // Lowered once and for all: what the expansion started from is not needed again.
        if let Ok(mut e) = self.expansion.lock() {
            e.take();
        }
        lowered
    }
}

/// Preprocesses `src` from `macros`, following headers (each preprocessed once per run for
/// each set of definitions it sees); `text` is the expanded text, not yet lowered.
fn preprocess_stage(src: &str, macros: MacroTable, load: &mut dyn IncludeLoader) -> Prepared {
    let (mut out, directives) = directives_stage(src, macros, load, None);
    let (text, map, notes) = directives.expansion.run(src, &directives.macros);
    out.macros = directives.macros;
    out.expanded(text, map, notes);
    out.tokens = lex(&out.text).tokens;
    out
}

/// Runs the directives of `src` (a header's when `path` is given), following its headers:
/// all of `Prepared` but the expanded text (and the macros, which stay in what this returns
/// with what the expansion needs).
fn directives_stage(
    src: &str,
    macros: MacroTable,
    load: &mut dyn IncludeLoader,
    path: Option<&str>,
) -> (Prepared, crate::front::preprocess::Directives) {
    let mut out = Prepared::default();
    let mut directives = run_directives(src, macros, &mut |name, angled, in_force, span| {
        let request = HeaderRequest {
            name,
            angled,
            from: path,
        };
        match load.load(&request) {
            Some((found, text)) => {
                // The header sees every macro in force at the `#include` line.
                let header = header_cache::prepared_header(&found, &text, in_force, load, |l| {
                    directives_stage(&text, in_force.clone(), l, Some(&found))
                });
                let defined = header.preprocessed().macros.clone();
                out.pending.push((name.to_string(), found, header));
                Included::Found(defined)
            }
            // A `<header>` outside the project is the system's or a library's: not reported.
            None if angled => Included::NotFound,
            None => {
                out.missing_includes.push((name.to_string(), span));
                Included::NotFound
            }
        }
    });
    out.source = src.to_string();
    out.source_lines = std::iter::once(0)
        .chain(src.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    out.comments = std::mem::take(&mut directives.comments);
    out.includes = std::mem::take(&mut directives.includes);
    out.inactive = std::mem::take(&mut directives.inactive);
    (out, directives)
}

impl Prepared {
    /// Adds what expanding the code gave: the text (with `_Pragma` operators read as the
    /// directives they are), its map to the file, and the expansions abandoned.
    fn expanded(
        &mut self,
        text: String,
        map: crate::front::source_map::SourceMap,
        notes: Vec<crate::front::preprocess::Note>,
    ) {
        self.map = map;
        self.skipped.extend(notes.into_iter().map(|n| Skipped {
            span: n.span,
            reason: n.message,
        }));
        self.text = without_pragma_operators(text);
    }
}

/// `_Pragma("unroll")`, which a macro expands to (`#define UNROLL _Pragma("unroll")` before a
/// loop), is a directive as `#pragma unroll` is: blanked, offsets kept, so that the loop after
/// it parses.
fn without_pragma_operators(text: String) -> String {
    if !text.contains("_Pragma") {
        return text;
    }
    let tokens = lex(&text).tokens;
    let pragmas: Vec<std::ops::Range<usize>> = (tokens.windows(4))
        .filter(|w| {
            let t = |k: usize| w[k].text(&text);
            t(0) == "_Pragma" && t(1) == "(" && w[2].kind == TokenKind::Str && t(3) == ")"
        })
        .map(|w| w[0].start..w[3].end)
        .collect();
    let mut bytes = text.into_bytes();
    for r in pragmas {
        for b in &mut bytes[r] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // Only whole ASCII tokens were blanked.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// What code of its own banklint may analyze in a file.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum OwnCode {
    Nothing,
    /// Device functions or variables outside any class or function body, and no kernel or
    /// shared memory: analyzed on their own only if they can reach shared memory through
    /// what the headers define (see `shared_roots`).
    DeviceFunctions,
    /// A kernel or shared memory.
    Analyzed,
}

/// What code the expanded text has that banklint analyzes by itself (after expansion:
/// `RAFT_KERNEL` has become `__global__`). A `__device__` lambda or member function is
/// analyzed only where a kernel calls it, so it does not count.
fn own_code(tokens: &[Token], text: &str, root: tree_sitter::Node<'_>) -> OwnCode {
    let mut found = OwnCode::Nothing;
    for t in tokens.iter().filter(|t| t.kind == TokenKind::Ident) {
        match t.text(text) {
            "__global__" | "__shared__" => return OwnCode::Analyzed,
            "__device__" | "__constant__" | "__managed__"
                if found == OwnCode::Nothing
                    && !crate::front::syntax::inside_body(root, t.start) =>
            {
                found = OwnCode::DeviceFunctions;
            }
            _ => {}
        }
    }
    found
}

/// Lowers a preprocessed `out`: the context's and (when `lower_headers`) the headers'
/// declarations first, then its own text.
fn lower_stage(
    out: &mut Prepared,
    context: Option<(String, Prepared)>,
    lower_headers: bool,
    tree: Option<tree_sitter::Tree>,
    includer_calls: Option<crate::front::host_templates::IncluderCalls<'_>>,
    header: bool,
) {
    if let Some((includer, ctx)) = &context {
        out.absorb_declarations(ctx, includer);
    }
    if lower_headers {
        crate::front::spare_threads::lower_side_by_side(&out.pending);
        let pending = out.pending.clone();
        for (name, path, header) in pending {
            let header = header.lowered();
            out.absorb_declarations(&header, &path);
            out.headers.push((name, header));
        }
    }
    out.headers
        .extend(context.map(|(name, ctx)| (name, Arc::new(ctx))));
    let text = std::mem::take(&mut out.text);
    lower(
        &text,
        out,
        tree.or_else(|| parse(&text)),
        includer_calls,
        header,
    );
}

/// Lowers the expanded text into `out`: items, rewrites, type names, launches.
fn lower(
    text: &str,
    out: &mut Prepared,
    tree: Option<tree_sitter::Tree>,
    includer_calls: Option<crate::front::host_templates::IncluderCalls<'_>>,
    header: bool,
) {
    let mut bytes = text.as_bytes().to_vec();
    if let Some(tree) = tree {
        // Constants of the headers (absorbed before lowering) are visible to host code.
        let imported = std::mem::take(&mut out.host_constants);
        let mut l = Lowering::new(text, out);
        l.host_reader.import(&imported);
        l.host_reader.declarations_only = header;
        lower_items(&mut l, tree.root_node(), includer_calls);
        // The directives are found in the file; the tree is of the expanded text, where a
        // macro expanded earlier has moved them.
        let includes: Vec<(String, std::ops::Range<usize>)> = (l.out.includes.iter())
            .filter_map(|(name, span)| {
                let at = l.out.map.to_expanded(span.start)?;
                Some((name.clone(), at..at + span.len()))
            })
            .collect();
        l.out.include_scopes =
            crate::front::include_scopes::include_scopes(text, tree.root_node(), &includes);
        let constants = l.host_reader.constants();
        let (blank, patches) = (l.blank, l.patches);
        let wiped = disjoint(l.wiped);
        out.host_constants = constants;
        for r in &blank {
            for b in &mut bytes[r.clone()] {
                if *b != b'\n' && *b != b'\r' {
                    *b = b' ';
                }
            }
        }
        for (at, t) in &patches {
            let k = wiped.partition_point(|r| r.start <= *at);
            if k > 0 && wiped[k - 1].contains(at) {
                continue;
            }
            if let Some(dst) = bytes.get_mut(*at..*at + t.len()) {
                dst.copy_from_slice(t.as_bytes());
            }
        }
    }
    out.chunks.sort_by_key(|c| c.span.start);
    out.keywords.sort_by_key(|(_, at)| *at);
    out.packs.finish();
    out.range_fors.sort_unstable();
    // Only ASCII bytes were written over whole tokens, so this stays UTF-8.
    out.text = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
}

/// Ranges merged where they overlap, in order.
fn disjoint(mut ranges: Vec<std::ops::Range<usize>>) -> Vec<std::ops::Range<usize>> {
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<std::ops::Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::names::dependent_type_name;
    use std::collections::HashMap;

    #[test]
    fn headers_lowered_side_by_side_give_what_one_thread_gives() {
        // Nested headers under a prefix of their own, so that neither run reuses the other's.
        let prepared = |prefix: &'static str| {
            let mut load = move |r: &HeaderRequest| {
                let text = match r.name {
                    "a.cuh" => "#include \"b.cuh\"\n#include \"c.cuh\"\nstruct A { B b; C c; };\n",
                    "b.cuh" => "#include \"c.cuh\"\nstruct B { int v[4]; };\n",
                    "c.cuh" => "typedef float C;\n__device__ C twice(C x) { return 2 * x; }\n",
                    _ => return None,
                };
                Some((format!("{prefix}/{}", r.name), text.to_string()))
            };
            let src = "#include \"a.cuh\"\n__global__ void k(struct A *a) {}\n";
            prepare_to_check(src, &Defines::default(), &mut load, None, None)
        };
        set_spare_threads(0);
        let alone = prepared("one");
        set_spare_threads(3);
        let side_by_side = prepared("three");
        set_spare_threads(0);
        assert_eq!(alone.typenames, side_by_side.typenames);
        let texts = |p: &Prepared| -> Vec<String> {
            p.headers.iter().map(|(_, h)| h.text.clone()).collect()
        };
        assert_eq!(texts(&alone), texts(&side_by_side));
        assert_eq!(alone.headers.len(), 1);
        assert_eq!(alone.headers[0].1.headers.len(), 2);
        assert!(
            alone.typenames.iter().any(|t| t == "B"),
            "{:?}",
            alone.typenames
        );
    }

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
    fn expands_macros_blanks_cuda_words_and_maps_back() {
        let src = "#define N 32 // rows\n__global__ void k() { __shared__ float t[N][N + 1]; }\n";
        let p = prep(src);
        assert!(p.text.contains("t[ 32 ][ 32  + 1]"), "{}", p.text);
        let dim = p.text.find("32 ]").expect("first dimension");
        assert_eq!(&src[p.source_span(dim..dim + 2)], "N");
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
    fn qualified_name_at_end_of_file() {
        // Found by fuzzing: a qualified name as the last tokens of the file.
        for src in ["a::b::c", "x a::b::c", "::", "a::", "a::b::"] {
            let p = prep(src);
            assert_eq!(p.text.len(), src.len());
        }
    }
}
