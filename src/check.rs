//! The pipeline for one file: front end, parse, extraction, block shapes, index analysis,
//! findings and fixes. Pure apart from its input: a `SourceFile` in, a `FileReport` out.

use crate::arch::Target;
use crate::cuda_frontend::{Defines, Skipped, prepare};
use crate::extraction::extract;
use crate::findings::{AccessFinding, collect};
use crate::fix_suggestion::{PaddingFix, suggest};
use crate::index_analysis::{AnalysisOptions, ArrayEntry, analyze};
use crate::launch_config::{UnresolvedLaunch, shapes_for};
use crate::parse::parse_chunks;
use crate::shared_budget::{KernelBudget, kernel_budgets};
use crate::source::SourceFile;

#[derive(Clone, Debug)]
pub struct CheckOptions {
    pub target: Target,
    pub block_dim: Option<[u32; 3]>,
    pub defines: Defines,
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

pub fn check_source(file: SourceFile, options: &CheckOptions) -> FileReport {
    let prepared = prepare(&file.text, &options.defines);
    let parsed = parse_chunks(&prepared);
    let parse_stats = ParseStats {
        items: parsed.items.len() + parsed.unparsed,
        partly_parsed: parsed.partly_parsed,
        unparsed: parsed.unparsed,
    };
    let mut skipped = prepared.skipped.clone();
    skipped.extend(parsed.skipped.iter().cloned());
    let unit = extract(&prepared, parsed);
    let mut unresolved = Vec::new();
    let mut shapes = std::collections::HashMap::new();
    for f in &unit.functions {
        shapes.insert(
            f.name.clone(),
            shapes_for(&unit, f, options.block_dim, &mut unresolved),
        );
    }
    let analysis = AnalysisOptions {
        target: options.target,
    };
    let runs = analyze(&unit, &analysis, &|f| {
        shapes.get(&f.name).cloned().unwrap_or_default()
    });
    let findings = collect(&runs, options.target);
    let fixes = suggest(&runs, &findings, options.target, &file.text);
    let budgets = kernel_budgets(&runs, &unit.functions, &file.text);
    skipped.sort_by_key(|s| s.span.start);
    FileReport {
        arrays: runs.arrays,
        findings,
        fixes,
        skipped,
        unresolved_launches: unresolved,
        parse_stats,
        budgets,
        file,
    }
}
