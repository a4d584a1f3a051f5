//! The pipeline for one file: front end, parse, extraction, block shapes, index analysis,
//! findings and fixes. Pure apart from its input: a `SourceFile` in, a `FileReport` out.

use crate::arch::Target;
use crate::cuda_frontend::{Defines, Prepared, Skipped, prepare_in_context};
use crate::extraction::Unit;
use crate::extraction::extract;
use crate::findings::{AccessFinding, collect};
use crate::fix_suggestion::{PaddingFix, suggest};
use crate::include_context::{Includer, IncluderIndex};
use crate::index_analysis::{AnalysisOptions, ArrayEntry, analyze};
use crate::launch_config::{IncluderLaunches, UnresolvedLaunch, shapes_for};
use crate::parse::parse_chunks;
use crate::shared_budget::{KernelBudget, kernel_budgets};
use crate::source::SourceFile;
use std::path::{Path, PathBuf};
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

/// How much of a file the parser read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseStats {
    pub items: usize,
    pub partly_parsed: usize,
    pub unparsed: usize,
}

pub struct FileReport {
    pub file: SourceFile,
    pub arrays: Vec<ArrayEntry>,
    pub findings: Vec<AccessFinding>,
    pub fixes: Vec<PaddingFix>,
    pub skipped: Vec<Skipped>,
    pub unresolved_launches: Vec<UnresolvedLaunch>,
    pub parse_stats: ParseStats,
    pub budgets: Vec<KernelBudget>,
    /// Local includes that were not found, with the directive's span.
    pub missing_includes: Vec<(String, std::ops::Range<usize>)>,
    pub annotations: Vec<crate::annotations::Annotation>,
    /// Malformed `banklint:` comments: span and message.
    pub annotation_errors: Vec<(std::ops::Range<usize>, String)>,
    /// Kernels and device functions: name, span of the definition, kernel or not.
    pub functions: Vec<(String, std::ops::Range<usize>, bool)>,
    /// The file that includes this one, whose definitions before its `#include` were in force.
    pub context: Option<Includer>,
    /// Byte ranges conditional compilation leaves out.
    pub inactive: Vec<std::ops::Range<usize>>,
}

impl FileReport {
    pub fn conflicts(&self) -> impl Iterator<Item = &AccessFinding> {
        self.findings.iter().filter(|f| f.is_conflict())
    }

    /// Kernels over the static shared-memory limit of `arch`.
    pub fn over_capacity(&self, arch: crate::arch::Arch) -> impl Iterator<Item = &KernelBudget> {
        self.budgets.iter().filter(move |b| b.over_limit(arch))
    }

    pub fn fix_for(&self, array: usize) -> Option<&PaddingFix> {
        self.fixes.iter().find(|f| f.array == array)
    }
}

/// Reads local headers next to `file`, then in `include_dirs`, giving each one's path and
/// text; at most 64 files, so include cycles end.
pub fn header_loader<'a>(
    file: &'a Path,
    include_dirs: &'a [PathBuf],
) -> impl FnMut(&str) -> Option<(String, String)> + 'a {
    let mut budget = 64;
    move |name: &str| {
        if budget == 0 {
            return None;
        }
        budget -= 1;
        let here = file.parent().map(|p| p.join(name));
        here.into_iter()
            .chain(include_dirs.iter().map(|d| d.join(name)))
            .find_map(|p| {
                let text = String::from_utf8(std::fs::read(&p).ok()?).ok()?;
                Some((p.display().to_string(), text))
            })
    }
}

/// Registers the types a unit declares (structs, typedefs, classes) in `types`.
fn register_unit_types(types: &mut crate::types::TypeTable, unit: &Unit<'_>) {
    types
        .classes
        .extend(unit.prepared.class_names.iter().cloned());
    for item in &unit.items {
        for d in &item.decls {
            if let lang_c::ast::ExternalDeclaration::Declaration(decl) = &d.node {
                crate::extraction::register_types(types, &decl.node);
            }
        }
    }
}

/// Every local header (and the includer context), parsed once, nested headers first: their
/// types count for the file, and a kernel's call of one of their device functions is analyzed
/// in the kernel's context. Each header's unit also knows the types of what it includes.
fn header_units(prepared: &Prepared) -> Vec<(String, Unit<'_>)> {
    fn walk<'p>(p: &'p Prepared, out: &mut Vec<(String, Unit<'p>)>) {
        for (name, header) in &p.headers {
            let nested_from = out.len();
            walk(header, out);
            let mut unit = extract(header, parse_chunks(header));
            // Nested types first, then the header's own again over them, so that a struct
            // with a field of a nested header's type is laid out.
            let mut types = std::mem::take(&mut unit.types);
            for (_, nested) in &out[nested_from..] {
                register_unit_types(&mut types, nested);
            }
            register_unit_types(&mut types, &unit);
            unit.types = types;
            out.push((name.clone(), unit));
        }
    }
    let mut out = Vec::new();
    walk(prepared, &mut out);
    out
}

pub fn check_source(file: SourceFile, options: &CheckOptions) -> FileReport {
    let found = options
        .includers
        .as_ref()
        .and_then(|index| index.context_for(&file.path, &options.defines, &options.include_dirs));
    let (context, context_prepared) = match found {
        Some((includer, prepared)) => {
            let name = includer.path.display().to_string();
            (Some(includer), Some((name, prepared)))
        }
        None => (None, None),
    };
    let prepared = prepare_in_context(
        &file.text,
        &options.defines,
        &mut header_loader(&file.path, &options.include_dirs),
        context_prepared,
    );
    let parsed = parse_chunks(&prepared);
    let parse_stats = ParseStats {
        items: parsed.items.len() + parsed.unparsed,
        partly_parsed: parsed.partly_parsed,
        unparsed: parsed.unparsed,
    };
    let mut skipped = prepared.skipped.clone();
    skipped.extend(parsed.skipped.iter().cloned());
    let mut unit = extract(&prepared, parsed);
    let headers = header_units(&prepared);
    for (_, header) in &headers {
        register_unit_types(&mut unit.types, header);
    }
    // Again, for macros that name a header's types (`#define real float4_t`).
    unit.types
        .add_macro_types(&prepared.macros.object_like_at(usize::MAX));
    // The includer's launches, for kernels this file does not launch itself (parsed only if
    // there is such a kernel).
    let unlaunched = unit
        .functions
        .iter()
        .any(|f| f.kernel && !prepared.launches.iter().any(|l| l.kernel == f.name));
    let includer_prepared = context.as_ref().filter(|_| unlaunched).and_then(|inc| {
        let text = String::from_utf8(std::fs::read(&inc.path).ok()?).ok()?;
        Some(prepare_in_context(
            &text,
            &options.defines,
            &mut header_loader(&inc.path, &options.include_dirs),
            None,
        ))
    });
    let includer_unit = includer_prepared
        .as_ref()
        .map(|p| extract(p, parse_chunks(p)));
    let includer_launches = includer_unit
        .as_ref()
        .zip(context.as_ref())
        .map(|(unit, inc)| IncluderLaunches {
            unit,
            file: inc.path.display().to_string(),
        });
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
                includer_launches.as_ref(),
            ),
        );
    }
    let analysis = AnalysisOptions {
        target: options.target,
    };
    let runs = analyze(&unit, &headers, &analysis, &|f| {
        shapes.get(&f.name).cloned().unwrap_or_default()
    });
    let findings = collect(&runs, options.target);
    let fixes = suggest(&runs, &findings, options.target, &file.text);
    let budgets = kernel_budgets(&runs, &unit.functions, &file.text);
    skipped.sort_by_key(|s| s.span.start);
    let (annotations, annotation_errors) = crate::annotations::parse(&file, &prepared.comments);
    let functions = unit
        .functions
        .iter()
        .map(|f| (f.name.clone(), f.span.clone(), f.kernel))
        .collect();
    FileReport {
        arrays: runs.arrays,
        findings,
        fixes,
        skipped,
        unresolved_launches: unresolved,
        parse_stats,
        budgets,
        missing_includes: prepared.missing_includes.clone(),
        annotations,
        annotation_errors,
        functions,
        context,
        inactive: prepared.inactive.clone(),
        file,
    }
}
