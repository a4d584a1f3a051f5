//! Findings: turns what the index analyzer recorded (per block shape, per access site, the
//! distinct warp patterns and how often each ran) into one result per site: the worst warp
//! instruction with the bank engine's verdict, per-block totals, and the shape that gave them.

use crate::analysis::interp::{BlockShape, FileRuns, Site, SiteKey};
use crate::bank::arch::Target;
use crate::bank::engine::Op;
use crate::bank::layout::{ArrayLayout, Evaluation, evaluate};
use std::collections::BTreeMap;
use std::ops::Range;

/// What a profiler would count for one thread block at one site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockTotals {
    pub instructions: u64,
    pub wavefronts: u64,
    pub ideal: u64,
}

/// The worst warp instruction at a site.
#[derive(Clone, Debug)]
pub struct Worst {
    pub evaluation: Evaluation,
    /// Where it happens: "warp 0, j = 0 (trip 1 of the loop at line 18)".
    pub label: String,
}

#[derive(Clone, Debug)]
pub enum Status {
    Analyzed,
    Unknown(String),
}

/// One access site's result.
#[derive(Clone, Debug)]
pub struct AccessFinding {
    pub span: Range<usize>,
    pub function: String,
    pub array: usize,
    pub op: Op,
    pub width: u32,
    pub shape: BlockShape,
    pub status: Status,
    /// `None` when no thread executes the access under the analyzed shape.
    pub worst: Option<Worst>,
    pub totals: Option<BlockTotals>,
    pub assumptions: Vec<String>,
    /// Shapes analyzed for this site (several launch shapes).
    pub shapes_analyzed: usize,
    /// Where the access is written when it is in a header's function called here.
    pub origin: Option<String>,
    /// Every array the site reached across the analyzed shapes and instantiations, `array`
    /// first: `SharedMemory<T>` is another declaration for each `T`.
    pub arrays_reached: Vec<usize>,
    /// When template type parameters were bound by assumption (nothing instantiates the
    /// template): the verdict for each element size, in `host::element_sizes::ELEMENT_SIZES` order.
    pub by_element_size: Vec<(String, Option<u32>)>,
    /// Why no thread reached the access in this run, when the analysis knows (see
    /// [`unreached_reason`]).
    pub unreached: Option<String>,
    /// The site's `help:` line, where its operation gives one (see `Site::hint`).
    pub hint: Option<String>,
}

impl AccessFinding {
    pub fn conflict_ways(&self) -> u32 {
        self.worst
            .as_ref()
            .map_or(1, |w| w.evaluation.verdict.conflict_ways)
    }

    pub fn is_conflict(&self) -> bool {
        matches!(self.status, Status::Analyzed) && self.conflict_ways() > 1
    }
}

/// Evaluates one site's patterns against a layout: the worst instruction and the totals.
pub fn evaluate_site(
    site: &Site,
    layout: &ArrayLayout,
    target: Target,
) -> (Option<Worst>, Option<BlockTotals>) {
    let mut worst: Option<Worst> = None;
    let mut totals = BlockTotals {
        instructions: 0,
        wavefronts: 0,
        ideal: 0,
    };
    // In execution order, so the first worst instance is the one named. The pieces of one
    // access (an element wider than a word) share their sequence: member order, not the
    // map's, decides between them.
    let mut patterns: Vec<_> = site.patterns.iter().collect();
    patterns.sort_by_key(|(p, s)| (s.first_seen, p.member_offset));
    for (pattern, stats) in patterns {
        let Some(e) = evaluate(pattern, layout, target, site.op, site.width) else {
            continue;
        };
        totals.instructions += stats.count;
        totals.wavefronts += stats.count * u64::from(e.verdict.wavefronts);
        totals.ideal += stats.count * u64::from(e.verdict.ideal);
        let better = worst.as_ref().is_none_or(|w| {
            (e.verdict.wavefronts, e.verdict.conflict_ways)
                > (
                    w.evaluation.verdict.wavefronts,
                    w.evaluation.verdict.conflict_ways,
                )
        });
        if better {
            // Shown with the first occurrence's real offsets, so banks are the real ones.
            let shown = pattern.with_origin(&stats.origin);
            let evaluation = evaluate(&shown, layout, target, site.op, site.width)
                .filter(|d| d.verdict.wavefronts == e.verdict.wavefronts)
                .unwrap_or(e);
            worst = Some(Worst {
                evaluation,
                label: stats.label.clone(),
            });
        }
    }
    let totals = (!site.trips_unknown).then_some(totals);
    (worst, totals)
}

/// A byte-offset site (rank 1: a byte view, or a site turned into byte offsets) with every
/// lane's offset moved by `to` (a padded row, a swizzled chunk); `None` when a warp-uniform
/// unknown shifts a pattern, so its offsets are not known.
pub fn with_bytes_moved(site: &Site, to: impl Fn(i64) -> i64) -> Option<Site> {
    let mut moved = site.clone();
    moved.patterns = site
        .patterns
        .iter()
        .map(|(p, stats)| {
            if p.rank != 1 || p.uniform_shift.iter().any(|&s| s != 0) {
                return None;
            }
            let mut q = p.clone();
            q.indices = p
                .indices
                .iter()
                .map(|&b| to(b + p.member_offset) - p.member_offset)
                .collect();
            let mut stats = stats.clone();
            stats.origin = stats.origin.iter().map(|&b| to(b)).collect();
            Some((q, stats))
        })
        .collect::<Option<_>>()?;
    Some(moved)
}

/// Why an access no lane executed in any run is not analyzed, when the analysis cannot say
/// which statement switched the lanes off.
pub const UNREACHED: &str = "no thread reaches it in the analysis: conditions or loop bounds before it switched every lane off (code that cannot run, or values banklint assumed for the block shape and parameters)";

/// Why an access no lane executed is not analyzed: what switched every lane off (the `return`
/// every thread took, a condition none passes) where the analysis knows it.
pub fn unreached_reason(why: Option<&str>) -> String {
    match why {
        Some(why) => format!("no thread reaches it in the analysis: {why}"),
        None => UNREACHED.to_string(),
    }
}

/// Combines all shape runs into one finding per site.
pub fn collect(runs: &FileRuns, target: Target) -> Vec<AccessFinding> {
    let mut by_site: BTreeMap<SiteKey, Vec<AccessFinding>> = BTreeMap::new();
    for run in &runs.runs {
        for (key, site) in &run.sites {
            let entry = &runs.arrays[site.array];
            let layout_unknown = || {
                Status::Unknown(
                    entry
                        .layout_problem
                        .clone()
                        .unwrap_or_else(|| "the array's layout is not known".into()),
                )
            };
            let usable_layout = entry.layout.as_ref().filter(|l| l.strides().is_some());
            let (status, worst, totals) = match (&site.unknown, usable_layout) {
                (Some(reason), _) => (Status::Unknown(reason.clone()), None, None),
                (None, None) => (layout_unknown(), None, None),
                (None, Some(layout)) => {
                    let (w, t) = evaluate_site(site, layout, target);
                    (Status::Analyzed, w, t)
                }
            };
            by_site.entry(key.clone()).or_default().push(AccessFinding {
                span: site.span.clone(),
                function: site.function.clone(),
                array: site.array,
                op: site.op,
                width: site.width,
                shape: run.shape.clone(),
                status,
                worst,
                totals,
                assumptions: site.assumptions.iter().cloned().collect(),
                shapes_analyzed: 1,
                origin: site.origin.clone(),
                arrays_reached: vec![site.array],
                by_element_size: Vec::new(),
                unreached: site.unreached.clone(),
                hint: site.hint.clone(),
            });
        }
    }
    let mut out = Vec::new();
    for (_, candidates) in by_site {
        let count = candidates.len();
        // A run in which no lane reached the access (every one switched off before it)
        // says nothing of its cost.
        let analyzed: Vec<&AccessFinding> = candidates
            .iter()
            .filter(|c| matches!(c.status, Status::Analyzed) && c.worst.is_some())
            .collect();
        let chosen = if analyzed.is_empty() {
            let mut first = candidates[0].clone();
            if matches!(first.status, Status::Analyzed) {
                let why = candidates.iter().find_map(|c| c.unreached.as_deref());
                first.status = Status::Unknown(unreached_reason(why));
                first.totals = None;
            }
            first
        } else {
            // The worst shape: most wavefronts in one instruction, then the worst degree, then
            // most per block.
            (*analyzed
                .iter()
                .max_by_key(|c| {
                    (
                        c.worst
                            .as_ref()
                            .map_or(0, |w| w.evaluation.verdict.wavefronts),
                        c.conflict_ways(),
                        c.totals.map_or(0, |t| t.wavefronts),
                        std::cmp::Reverse(c.shape.source.name()),
                    )
                })
                .expect("non-empty"))
            .clone()
        };
        let mut arrays_reached = vec![chosen.array];
        for c in &candidates {
            if !arrays_reached.contains(&c.array) {
                arrays_reached.push(c.array);
            }
        }
        // Each assumed element size's worst verdict (`None`: not analyzed under it).
        let mut by_element_size: Vec<(String, Option<u32>)> = Vec::new();
        for c in candidates
            .iter()
            .filter(|c| !c.shape.assumed_types.is_empty())
        {
            let binding = c.shape.describe_assumed_types();
            let ways = matches!(c.status, Status::Analyzed).then(|| c.conflict_ways());
            match by_element_size.iter_mut().find(|(b, _)| *b == binding) {
                Some((_, w)) => *w = (*w).max(ways),
                None => by_element_size.push((binding, ways)),
            }
        }
        out.push(AccessFinding {
            shapes_analyzed: count,
            arrays_reached,
            by_element_size,
            ..chosen
        });
    }
    out.sort_by_key(|f| (f.span.start, f.span.end, f.op));
    out
}
