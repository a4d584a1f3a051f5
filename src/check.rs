//! The pipeline for one file: front end, parse, extraction, block shapes, index analysis,
//! findings and fixes. Pure apart from its input: a `SourceFile` in, a `FileReport` out.

use crate::analysis::extraction::Unit;
use crate::analysis::extraction::extract;
use crate::analysis::interp::{AnalysisOptions, FileRuns, SiteKey, analyze};
use crate::bank::arch::Target;
use crate::front::cuda::ChunkKind;
use crate::front::cuda::{Defines, Prepared, prepare_to_check, probe_to_check};
use crate::front::host_templates::TemplateCall;
use crate::front::includes::{HeaderLog, Includer, IncluderIndex, header_loader, include_problems};
use crate::front::limits_scan;
use crate::front::parse::{ParseOutcome, parse_chunks, parse_chunks_where};
use crate::front::source::SourceFile;
use crate::host::launches::{IncluderLaunches, shapes_for};
use crate::limits::MAX_INCLUDER_TEMPLATE_CALLS;
use crate::lint::applicability::FileFacts;
use crate::lint::budget::kernel_budgets;
use crate::lint::findings::collect;
use crate::lint::fix::suggest;
use crate::lint::report::{FileReport, ParseStats};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct CheckOptions {
    pub target: Target,
    pub block_dim: Option<[u32; 3]>,
    pub defines: Defines,
    /// Directories searched for `#include "x.h"` after the including file's own.
    pub include_dirs: Vec<PathBuf>,
    /// Who includes whom among the checked files and their directories; `None` analyzes each
    /// file on its own.
    pub includers: Option<Arc<IncluderIndex>>,
}

/// The file's front end, in the context of its includer when it has one. Host templates of
/// the file that only its includers instantiate (a header's `launch_<...>` called from the
/// files that include it) run with those files' calls.
fn prepare_file(
    file: &SourceFile,
    text: &str,
    options: &CheckOptions,
) -> (Prepared, HeaderLog, Option<Includer>) {
    let header_log = HeaderLog::default();
    let mut includer_calls = |prepared: &Prepared, names: &[String]| {
        includer_template_calls(file, prepared, names, options)
    };
    // A file that writes no kernel and no shared memory (a header of device helpers) may need
    // no declarations at all: its includers' texts are first only preprocessed, for their
    // macros, and prepared whole only if it does.
    let (defines, dirs) = (&options.defines, &options.include_dirs);
    if let Some(index) = &options.includers
        && !(text.contains("__global__") || text.contains("__shared__"))
        && let Some(found) = index.macro_context_for(&file.path, defines, dirs)
    {
        let name = found.includer.path.display().to_string();
        let mut load = header_loader(&file.path, dirs, &header_log).after(found.read_once);
        let context = Some((name, found.prepared));
        if let Some(p) =
            probe_to_check(text, defines, &mut load, context, Some(&mut includer_calls))
        {
            return (p, header_log, Some(found.includer));
        }
    }
    let header_log = HeaderLog::default();
    let found = options
        .includers
        .as_ref()
        .and_then(|index| index.context_for(&file.path, defines, dirs));
    let (includer, context, read_once) = match found {
        Some(found) => {
            let name = found.includer.path.display().to_string();
            let context = Some((name, found.prepared));
            (Some(found.includer), context, found.read_once)
        }
        None => (None, None, Vec::new()),
    };
    let prepared = prepare_to_check(
        text,
        &options.defines,
        &mut header_loader(&file.path, &options.include_dirs, &header_log).after(read_once),
        context,
        Some(&mut includer_calls),
    );
    (prepared, header_log, includer)
}

/// The calls the files including this one make of its host templates `unrun` (that nothing
/// in it instantiates), each said to be made in its file.
fn includer_template_calls(
    file: &SourceFile,
    prepared: &Prepared,
    unrun: &[String],
    options: &CheckOptions,
) -> Vec<TemplateCall> {
    let Some(index) = &options.includers else {
        return Vec::new();
    };
    if !prepared.device_code || unrun.is_empty() {
        return Vec::new();
    }
    let names: Vec<&str> = unrun.iter().map(String::as_str).collect();
    // An includer instantiates one by naming it with template arguments, or by invoking a
    // macro that does (`REGISTER_LAUNCHER(256, fp32)`); only such files are prepared whole.
    let macros = prepared.macros.instantiating(&names);
    let mut wanted: Vec<&str> = names.clone();
    wanted.extend(macros.iter().map(String::as_str));
    // Per template, per file: each template the includers call gets its share of the runs
    // (a library's includers are often one file per configuration of one entry point, in
    // name order, and another entry point's files come after them).
    let mut per_template: Vec<(String, Vec<Vec<TemplateCall>>)> = Vec::new();
    for (_, inc) in index.launching_includers(&file.path, &wanted) {
        let instantiates = crate::front::includes::read_small(&inc.path).is_some_and(|t| {
            crate::front::macros::names_with_arguments(&t, &names)
                || macros.iter().any(|m| t.contains(m.as_str()))
        });
        if !instantiates {
            continue;
        }
        let Some(p) = index.prepared_whole(&inc.path, &options.defines, &options.include_dirs)
        else {
            continue;
        };
        let name = inc.path.display().to_string();
        for c in
            (p.host_template_calls.iter()).filter(|c| !c.open && names.contains(&c.name.as_str()))
        {
            let k = match per_template.iter().position(|(n, _)| *n == c.name) {
                Some(k) => k,
                None => {
                    per_template.push((c.name.clone(), Vec::new()));
                    per_template.len() - 1
                }
            };
            let files = &mut per_template[k].1;
            match files.last_mut() {
                Some(last) if last.last().is_some_and(|l| l.is_made_in(&name)) => {
                    last.push(c.made_in(&name));
                }
                _ => files.push(vec![c.made_in(&name)]),
            }
        }
    }
    let lists = (per_template.into_iter())
        .map(|(_, files)| interleave(files, MAX_INCLUDER_TEMPLATE_CALLS))
        .collect();
    interleave(lists, MAX_INCLUDER_TEMPLATE_CALLS)
}

/// Items of several lists, a list at a time in turn, each list starting one item further on,
/// duplicates dropped, at most `limit`. The includers' calls: the runs a file may have are
/// bounded, each file is most often one size of a library's kernels (`ln_bwd_1024.cu`,
/// `ln_bwd_8192.cu`) and its calls the element types, so the first runs span both.
fn interleave<T: Clone + PartialEq>(lists: Vec<Vec<T>>, limit: usize) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    for k in 0..longest {
        for (i, list) in lists.iter().enumerate() {
            if k < list.len() {
                let item = &list[(k + i) % list.len()];
                if out.len() < limit && !out.contains(item) {
                    out.push(item.clone());
                }
            }
        }
    }
    out
}

/// The headers of the launching includers that this file does not read itself (nor is), for
/// their declarations only: nothing in them is parsed.
fn later_headers<'p>(
    file: &SourceFile,
    prepared: &Prepared,
    includers: &'p [(usize, String, Arc<Prepared>)],
) -> Vec<(String, Unit<'p>)> {
    let mine = prepared.nested_headers();
    let mut out: Vec<(String, Unit<'p>)> = Vec::new();
    for (_, _, inc) in includers {
        for (name, h) in &inc.headers {
            let known = mine
                .iter()
                .any(|m| Arc::ptr_eq(m, h) || m.source == h.source)
                || h.source == file.text
                || out.iter().any(|(_, u)| std::ptr::eq(u.prepared, &**h));
            if !known && out.len() < MAX_LATER_HEADERS {
                out.push((name.clone(), extract(h, ParseOutcome::default())));
            }
        }
    }
    out
}

/// Headers of launching includers read for their declarations.
const MAX_LATER_HEADERS: usize = 32;

/// Registers the types a unit declares (structs, typedefs, classes) in `types`.
fn register_unit_types(types: &mut crate::analysis::types::TypeTable, unit: &Unit<'_>) {
    types
        .classes
        .extend(unit.prepared.class_names.iter().cloned());
    types
        .alignments
        .extend(unit.prepared.class_alignments.iter().cloned());
    types
        .template_headers
        .extend(unit.prepared.class_templates.iter().cloned());
    for item in &unit.items {
        for d in &item.decls {
            if let lang_c::ast::ExternalDeclaration::Declaration(decl) = &d.node {
                let text = |s: lang_c::span::Span| {
                    unit.prepared.text.get(item.span(s)).map(str::to_string)
                };
                crate::analysis::extraction::register_types(types, &decl.node, &text);
            }
        }
    }
}

/// Every local header (and the includer context), parsed once, nested headers first: their
/// types count for the file, and a kernel's call of one of their device functions is analyzed
/// in the kernel's context. Each header's unit also knows the types of what it includes.
fn header_units(prepared: &Prepared) -> Vec<(String, Unit<'_>)> {
    use crate::front::include_scopes::IncludeScope;
    /// A header to parse: where it is included, and where its nested headers start in the
    /// list (they come right before it).
    struct Planned<'p> {
        name: &'p str,
        header: &'p Prepared,
        scope: IncludeScope,
        nested_from: usize,
    }
    // `scope`: where `p` itself is included (a namespace or a class; see `include_scopes`).
    fn plan<'p>(p: &'p Prepared, scope: &IncludeScope, out: &mut Vec<Planned<'p>>) {
        for (name, header) in &p.headers {
            let inner = match p.include_scopes.iter().find(|s| s.header == *name) {
                Some(s) => scope.nest(s),
                None => scope.clone(),
            };
            let nested_from = out.len();
            plan(header, &inner, out);
            out.push(Planned {
                name,
                header,
                scope: inner,
                nested_from,
            });
        }
    }
    let wanted = wanted_header_functions(prepared);
    let mut planned = Vec::new();
    plan(prepared, &IncludeScope::default(), &mut planned);
    // Each header's parse is its own: side by side on the spare threads.
    let parsed = crate::front::cuda::map_on_spare_threads(planned.len(), |i| {
        let header = planned[i].header;
        let id = std::ptr::from_ref::<Prepared>(header) as usize;
        let keep = |index: usize| {
            header.chunks[index].kind == ChunkKind::Declaration || wanted.contains(&(id, index))
        };
        parse_chunks_where(header, &keep)
    });
    let mut units: Vec<Unit<'_>> = (planned.iter().zip(parsed))
        .map(|(Planned { header, scope, .. }, parsed)| {
            let mut unit = extract(header, parsed);
            if !scope.namespace.is_empty() {
                for f in &mut unit.functions {
                    f.namespace = scope.namespace_of(&f.namespace);
                    f.template = scope.template_of(f.template.take());
                }
            }
            unit
        })
        .collect();
    // Nested types first, then the header's own again over them, so that a struct with a
    // field of a nested header's type is laid out.
    for i in 0..units.len() {
        let mut types = std::mem::take(&mut units[i].types);
        for nested in &units[planned[i].nested_from..i] {
            register_unit_types(&mut types, nested);
        }
        register_unit_types(&mut types, &units[i]);
        units[i].types = types;
    }
    planned
        .iter()
        .zip(units)
        .map(|(p, unit)| (p.name.to_string(), unit))
        .collect()
}

/// The device functions of `prepared`'s headers the file can call, by (header, chunk index):
/// those whose name the file's text writes, then those their texts write, until no more. A
/// tile library's headers define thousands of functions and a kernel calls a few; parsing
/// only those saves most of lang-c's time. By name only, so overloads and methods of any
/// class of that name are all kept; an operator is always kept (it is called without its
/// name).
/// Whether the identifier at `i` of a function's head is the name it is declared with: the
/// next word is `(`. Words the lowering blanked are passed over: an explicit specialization's
/// template arguments (`store<16>(...)`, lowered `store    (...)`).
fn called_at(head: &[crate::front::lex::Token], i: usize, text: &str) -> bool {
    (head[i + 1..].iter())
        .map(|t| t.text(text))
        .find(|w| !w.trim().is_empty())
        == Some("(")
}

fn wanted_header_functions(prepared: &Prepared) -> HashSet<(usize, usize)> {
    use crate::front::lex::TokenKind;
    fn headers_of<'p>(p: &'p Prepared, out: &mut Vec<&'p Prepared>) {
        for (_, h) in &p.headers {
            if !out.iter().any(|seen| std::ptr::eq(*seen, &**h)) {
                headers_of(h, out);
                out.push(h);
            }
        }
    }
    let mut headers = Vec::new();
    headers_of(prepared, &mut headers);
    fn words<'p>(
        p: &'p Prepared,
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = &'p str> + 'p {
        p.tokens
            .get(range)
            .unwrap_or(&[])
            .iter()
            .filter(|t| t.kind == TokenKind::Ident)
            .map(|t| t.text(&p.text))
    }
    // Each candidate: where it is, the names it may be called by, whether it is an operator,
    // the header it is in, and for a method its class.
    type Candidate<'p> = (
        (usize, usize),
        Vec<&'p str>,
        bool,
        &'p Prepared,
        Option<&'p str>,
    );
    let mut candidates: Vec<Candidate<'_>> = Vec::new();
    for h in &headers {
        let id = std::ptr::from_ref::<Prepared>(*h) as usize;
        for (index, chunk) in h.chunks.iter().enumerate() {
            if !matches!(chunk.kind, ChunkKind::DeviceFunction { .. }) {
                continue;
            }
            let tokens = h.tokens.get(chunk.tokens.clone()).unwrap_or(&[]);
            let body = tokens
                .iter()
                .position(|t| t.text(&h.text) == "{")
                .unwrap_or(tokens.len());
            let head = &tokens[..body];
            let operator = head.iter().any(|t| t.text(&h.text) == "operator");
            let mut names: Vec<&str> = (0..head.len())
                .filter(|&i| head[i].kind == TokenKind::Ident && called_at(head, i, &h.text))
                .map(|i| head[i].text(&h.text))
                // A constructor's lowered name (underscores as long as its class's) would
                // match every constructor whose class's name is as long.
                .filter(|n| !n.bytes().all(|b| b == b'_'))
                .collect();
            // A constructor, renamed for lang-c, is called by its class's name.
            names.extend(
                h.methods
                    .iter()
                    .filter(|m| m.constructor && m.span.contains(&chunk.span.start))
                    .map(|m| m.class.as_str()),
            );
            let class = (h.methods.iter())
                .find(|m| m.span.contains(&chunk.span.start))
                .map(|m| m.class.as_str());
            candidates.push(((id, index), names, operator, h, class));
        }
    }
    let mut known: rustc_hash::FxHashSet<&str> =
        words(prepared, 0..prepared.tokens.len()).collect();
    // `using tma_allocator = shared_allocator<1024>;`: a file that names the alias calls the
    // class's constructor and methods, under the class's name (only that: the arguments name
    // no function, and following every word of every alias reads most of a tile library).
    let aliases: Vec<(&str, &str)> = std::iter::once(prepared)
        .chain(headers.iter().copied())
        .flat_map(|p| p.aliases.iter())
        .filter_map(|(a, t)| {
            let head = t.split('<').next()?.trim();
            let class = head.rsplit("::").next()?.trim();
            (!class.is_empty()).then_some((a.as_str(), class))
        })
        .collect();
    // A class's members of class type (`Reducer reducer_;`): running its constructor builds
    // them, calling their constructors, which no method's text names. Their types' words, by
    // class, gathered once.
    let mut member_types: rustc_hash::FxHashMap<&str, Vec<&str>> = Default::default();
    for (class, fields) in std::iter::once(prepared)
        .chain(headers.iter().copied())
        .flat_map(|p| p.object_fields.iter())
    {
        member_types.entry(class.as_str()).or_default().extend(
            (fields.iter())
                .flat_map(|(_, t)| t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
                .filter(|w| !w.is_empty()),
        );
    }
    let mut wanted = HashSet::new();
    loop {
        let before = (wanted.len(), known.len());
        for (alias, class) in &aliases {
            if known.contains(alias) {
                known.insert(class);
            }
        }
        for (at, names, operator, h, class) in &candidates {
            if wanted.contains(at) || !(*operator || names.iter().any(|n| known.contains(n))) {
                continue;
            }
            wanted.insert(*at);
            known.extend(words(h, h.chunks[at.1].tokens.clone()));
            if let Some(words) = class.and_then(|c| member_types.get(c)) {
                known.extend(words.iter().copied());
            }
        }
        if (wanted.len(), known.len()) == before {
            return wanted;
        }
    }
}

pub fn check_source(file: SourceFile, options: &CheckOptions) -> FileReport {
    // Too-deep code is blanked before anything recurses into it, offsets unchanged.
    let deep = limits_scan::scan(&file.text);
    let text = deep.apply(&file.text);
    let (prepared, header_log, context) = prepare_file(&file, &text, options);
    let include_problems = include_problems(&prepared, &header_log);
    // Without device code there is nothing to analyze (and its headers were not lowered).
    let parsed = if prepared.device_code {
        parse_chunks(&prepared)
    } else {
        ParseOutcome::default()
    };
    let parse_stats = ParseStats {
        items: parsed.items.len() + parsed.unparsed,
        partly_parsed: parsed.partly_parsed,
        unparsed: parsed.unparsed,
    };
    let mut skipped = deep.skipped;
    skipped.extend(prepared.skipped.iter().cloned());
    skipped.extend(parsed.skipped.iter().cloned());
    let mut unit = extract(&prepared, parsed);
    // The launches of the files that include this one (nearest first), for kernels this file
    // does not launch itself; each includer is prepared once per run.
    let unlaunched: Vec<&str> = unit
        .functions
        .iter()
        .filter(|f| f.kernel && !prepared.launches.iter().any(|l| l.kernel == f.name))
        .map(|f| f.name.as_str())
        .collect();
    let includer_files: Vec<(usize, String, Arc<Prepared>)> = match &options.includers {
        Some(index) if !unlaunched.is_empty() => index
            .launching_includers(&file.path, &unlaunched)
            .iter()
            .filter_map(|(level, inc)| {
                let p = index.prepared_whole(&inc.path, &options.defines, &options.include_dirs)?;
                Some((*level, inc.path.display().to_string(), p))
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut headers = header_units(&prepared);
    for (_, header) in &headers {
        register_unit_types(&mut unit.types, header);
    }
    // A kernel template's traits class may be defined in a header its includer reads after
    // this file (`#include "kernels.cuh"` then `#include "traits.h"`): what the launching
    // includers' other headers declare is readable here too, as at the instantiation.
    headers.extend(later_headers(&file, &prepared, &includer_files));
    // Again, for macros that name a header's types (`#define real float4_t`).
    unit.types
        .add_macro_types(&prepared.macros.object_like_at(usize::MAX));
    let includer_launches: Vec<IncluderLaunches<'_>> = includer_files
        .iter()
        .map(|(level, file, prepared)| IncluderLaunches {
            prepared,
            file: file.clone(),
            level: *level,
        })
        .collect();
    let mut unresolved = Vec::new();
    let mut shapes = std::collections::HashMap::new();
    for f in &unit.functions {
        shapes.insert(
            f.name.clone(),
            shapes_for(
                &unit,
                f,
                options.block_dim,
                &mut unresolved,
                &includer_launches,
            ),
        );
    }
    let analysis = AnalysisOptions {
        target: options.target,
    };
    let mut runs = analyze(&unit, &headers, &analysis, &|f| {
        shapes.get(&f.name).cloned().unwrap_or_default()
    });
    // Everything found so far is at offsets of the expanded text: from here on, the file's.
    to_file_offsets(&mut runs, &prepared);
    for s in skipped.iter_mut() {
        s.span = prepared.source_span(s.span.clone());
    }
    let not_parsed = !skipped.is_empty() || parse_stats.unparsed > 0;
    // Calls the analysis did not follow (already at file offsets), once each.
    for run in &runs.runs {
        for (span, reason) in &run.not_followed {
            if !skipped
                .iter()
                .any(|s| s.span == *span && s.reason == *reason)
            {
                skipped.push(crate::front::cuda::Skipped {
                    span: span.clone(),
                    reason: reason.clone(),
                });
            }
        }
    }
    // Shift overflows (already at file offsets), once each with the largest count.
    let mut shift_overflows: Vec<crate::analysis::interp::shifts::ShiftOverflow> = Vec::new();
    for o in runs.runs.iter().flat_map(|r| &r.shift_overflows) {
        match shift_overflows.iter_mut().find(|s| s.span == o.span) {
            Some(seen) => seen.count = seen.count.max(o.count),
            None => shift_overflows.push(o.clone()),
        }
    }
    shift_overflows.sort_by_key(|s| s.span.start);
    let functions: Vec<crate::analysis::extraction::Function> = unit
        .functions
        .iter()
        .map(|f| crate::analysis::extraction::Function {
            span: prepared.source_span(f.span.clone()),
            ..f.clone()
        })
        .collect();
    let findings = collect(&runs, options.target);
    let budgets = kernel_budgets(&runs, &functions, &file.text);
    let budget_index = crate::lint::budget::BudgetIndex::new(&budgets);
    let facts = FileFacts {
        unread: if not_parsed {
            Some("parts of the file could not be parsed")
        } else if !skipped.is_empty() {
            Some("parts of the file were not analyzed (see the skipped-code notes)")
        } else {
            None
        },
        budgets: &budgets,
        budget_index: &budget_index,
        arch: options.target.arch,
        macros: &prepared.macros,
    };
    let suggestions = suggest(&runs, &findings, options.target, &file.text, facts);
    let (tma, tma_fixes) = crate::lint::tma::check(&runs, &file.text, options.target);
    skipped.sort_by_key(|s| s.span.start);
    let (annotations, annotation_errors) =
        crate::lint::annotations::parse(&file, &prepared.comments, |code| {
            crate::lint::rules::Rule::from_code(code).is_some()
        });
    let functions = functions
        .iter()
        .map(|f| (f.name.clone(), f.span.clone(), f.kernel))
        .collect();
    FileReport {
        arrays: runs.arrays,
        findings,
        fixes: suggestions.padding,
        swizzles: suggestions.swizzles,
        skipped,
        unresolved_launches: unresolved,
        parse_stats,
        budgets,
        missing_includes: prepared.missing_includes.clone(),
        include_problems,
        annotations,
        annotation_errors,
        functions,
        context,
        inactive: prepared.inactive.clone(),
        shift_overflows,
        tma,
        tma_fixes,
        file,
    }
}

/// Moves the spans of what the analysis found from the expanded text to the file. Several
/// accesses inside one macro invocation all land on the invocation; they stay apart by their
/// place in the expansion.
fn to_file_offsets(runs: &mut FileRuns, prepared: &Prepared) {
    for run in &mut runs.runs {
        for (span, _) in run.not_followed.iter_mut() {
            *span = prepared.source_span(span.clone());
        }
        for c in run.tma_copies.iter_mut() {
            c.span = prepared.source_span(c.span.clone());
        }
        for o in run.shift_overflows.iter_mut() {
            o.span = prepared.source_span(o.span.clone());
            o.count_span = prepared.source_span(o.count_span.clone());
        }
        let mut sites: Vec<(SiteKey, _)> = std::mem::take(&mut run.sites).into_iter().collect();
        // In the order of the expanded text, so that sites sharing a file span keep a
        // stable order.
        sites.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, mut site) in sites {
            let expanded = site.span.clone();
            site.span = prepared.source_span(expanded.clone());
            let mut key = SiteKey {
                start: site.span.start,
                end: site.span.end,
                sub: if prepared.map.is_verbatim(expanded.clone()) {
                    key.sub
                } else {
                    key.sub.max(expanded.start + 1)
                },
                ..key
            };
            while run.sites.contains_key(&key) {
                key.sub += 1;
            }
            run.sites.insert(key, site);
        }
    }
    for entry in &mut runs.arrays {
        let d = &mut entry.decl;
        d.decl_span = prepared.source_span(d.decl_span.clone());
        d.name_span = prepared.source_span(d.name_span.clone());
        for dim in d.dim_spans.iter_mut().flatten() {
            *dim = prepared.source_span(dim.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reaches(src: &str, header: &str) -> bool {
        let mut load = |r: &crate::front::cuda::HeaderRequest| {
            (r.name == "h.cuh").then(|| ("h.cuh".to_string(), header.to_string()))
        };
        let prepared = prepare_to_check(src, &Defines::default(), &mut load, None, None);
        let unit = extract(&prepared, parse_chunks(&prepared));
        let headers = header_units(&prepared);
        !crate::analysis::interp::SharedReach::of(&unit, &headers).is_empty()
    }

    #[test]
    fn includer_calls_are_spread_over_files_and_their_calls() {
        let lists = vec![
            vec!["a0", "a1", "a2"],
            vec!["b0", "b1", "b2"],
            vec!["c0"],
            vec!["a0"],
        ];
        // Round 0 takes a0, b1, c0 (and a0 again, dropped); round 1 a1, b2; round 2 a2, b0.
        assert_eq!(
            interleave(lists.clone(), 100),
            ["a0", "b1", "c0", "a1", "b2", "a2", "b0"]
        );
        assert_eq!(interleave(lists, 4), ["a0", "b1", "c0", "a1"]);
    }

    #[test]
    fn only_the_header_functions_a_file_can_call_are_parsed() {
        let header = "__device__ float leaf(float x) { return x; }\n\
                      __device__ float called(float x) { return leaf(x); }\n\
                      __device__ float unused(float x) { return 3 * x; }\n\
                      struct Op { __device__ float operator()(float x) const { return x; } };\n";
        let src = "#include \"h.cuh\"\n__global__ void k(float *o) { o[0] = called(o[1]); }\n";
        let mut load = |r: &crate::front::cuda::HeaderRequest| {
            (r.name == "h.cuh").then(|| ("h.cuh".to_string(), header.to_string()))
        };
        let prepared = prepare_to_check(src, &Defines::default(), &mut load, None, None);
        let headers = header_units(&prepared);
        let mut names: Vec<&str> = headers[0]
            .1
            .functions
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        names.sort();
        // `called` by name, `leaf` through it; `unused` not (the class is a declaration,
        // always parsed).
        assert_eq!(names, ["called", "leaf"]);
    }

    #[test]
    fn the_constructors_of_a_called_class_members_are_parsed() {
        // `outer`'s constructor builds its member `in`, calling `inner`'s constructor, which
        // no text the file reaches names.
        // (Names of different lengths: a constructor is lowered to underscores as long.)
        let header = "struct inner_t { float *p; __device__ inner_t(void *s) { p = (float *)s; } };\n\
                      struct outer { inner_t in; float *q; __device__ outer(void *s) : in(s) { q = (float *)s; } };\n\
                      struct unrelated { float *r; __device__ unrelated(void *s) { r = (float *)s; } };\n";
        let src = "#include \"h.cuh\"\n__global__ void k(float *o) { extern __shared__ float s[]; outer x(s); o[0] = 1; }\n";
        let mut load = |r: &crate::front::cuda::HeaderRequest| {
            (r.name == "h.cuh").then(|| ("h.cuh".to_string(), header.to_string()))
        };
        let prepared = prepare_to_check(src, &Defines::default(), &mut load, None, None);
        let headers = header_units(&prepared);
        let h = &headers[0].1;
        let mut classes: Vec<&str> = (h.functions.iter())
            .filter_map(|f| {
                let m = (h.prepared.methods.iter()).find(|m| m.span.contains(&f.span.start))?;
                Some(m.class.as_str())
            })
            .collect();
        classes.sort();
        assert_eq!(classes, ["inner_t", "outer"]);
    }

    #[test]
    fn a_file_without_shared_memory_anywhere_is_not_analyzed() {
        let kernel =
            "#include \"h.cuh\"\n__global__ void k(float *o) { o[threadIdx.x] = twice(o[0]); }\n";
        let plain = "__device__ float twice(float x) { return 2 * x; }\n";
        assert!(!reaches(kernel, plain));
        // Shared memory in a header the kernel calls into is reached.
        let with_shared = "__device__ float twice(float x) { __shared__ float s[32]; s[threadIdx.x] = x; return s[0]; }\n";
        assert!(reaches(kernel, with_shared));
        // So is an array at file scope, and a kernel's own.
        assert!(reaches(
            "__shared__ float g[32];\n__global__ void k() { g[threadIdx.x] = 0; }\n",
            ""
        ));
        assert!(reaches(
            "__global__ void k() { extern __shared__ float d[]; d[0] = 0; }\n",
            ""
        ));
    }
}
