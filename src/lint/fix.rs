//! Fix suggestion: the smallest padding of an array's innermost dimension that makes every
//! access to it conflict-free (or, failing that, the one that helps most), found by
//! re-running the bank engine on each padded layout with every recorded warp pattern of
//! every access, under every analyzed block shape. A padding that makes any access worse,
//! in its worst instruction or its per-block total, is never suggested.

use crate::analysis::interp::{FileRuns, Site};
use crate::bank::arch::Target;
use crate::bank::layout::{ArrayLayout, gcd};
use crate::front::const_expr::{binds_looser_than_add, eval_constant};
use crate::front::macros::MacroTable;
use crate::lint::applicability::{Applicability, FileFacts, decide};
use crate::lint::findings::{AccessFinding, evaluate_site, with_bytes_moved};
use std::ops::Range;

#[derive(Clone, Debug, PartialEq)]
pub struct PaddingFix {
    pub array: usize,
    pub pad: i64,
    /// The innermost dimension's expression in the file.
    pub dim_span: Range<usize>,
    /// Its replacement text, e.g. `TILE_DIM + 1`.
    pub replacement: String,
    /// The whole declaration as it would read after the fix.
    pub declaration: String,
    pub bytes_added: i64,
    pub total_bytes: i64,
    /// Every access to the array becomes conflict-free.
    pub conflict_free: bool,
    /// Worst conflict degree left after the fix.
    pub ways_after: u32,
    pub ways_before: u32,
    /// Accesses to the array that could not be analyzed, so were not checked.
    pub unchecked_accesses: usize,
    /// Whether `--fix` applies it (see `lint::applicability`).
    pub applicability: Applicability,
    /// What it costs each kernel that uses the array.
    pub costs: Vec<crate::lint::budget::FixCost>,
}

pub fn suggest(
    runs: &FileRuns,
    findings: &[AccessFinding],
    target: Target,
    source: &str,
    facts: FileFacts<'_>,
) -> Suggestions {
    let mut fixes = Vec::new();
    // A conflict through a byte view (a cast, a PTX address) is fixed in the array it views.
    let base = |a: usize| crate::analysis::interp::viewed_array(&runs.arrays, a);
    let mut arrays: Vec<usize> = findings
        .iter()
        .filter(|f| f.is_conflict())
        .map(|f| base(f.array))
        .collect();
    arrays.sort_unstable();
    arrays.dedup();
    // A tile a TMA copy fills is written densely: no padding or free swizzle fits it (the
    // tensor map's swizzle does, see `lint::tma`).
    let tma_tiles: std::collections::BTreeSet<usize> = runs
        .runs
        .iter()
        .flat_map(|r| &r.tma_copies)
        .map(|c| c.array)
        .collect();
    arrays.retain(|a| !tma_tiles.contains(a));
    // Looked up once for every array: sites, unanalyzed findings and layouts per declaration.
    let mut index = ArrayIndex::default();
    for s in runs.runs.iter().flat_map(|r| r.sites.values()) {
        if s.unknown.is_none() {
            index.sites.entry(s.array).or_default().push(s);
        }
    }
    for f in findings {
        if !matches!(f.status, crate::lint::findings::Status::Analyzed) {
            *index.unchecked.entry(base(f.array)).or_default() += 1;
        }
    }
    for (v, a) in runs.arrays.iter().enumerate() {
        if let Some(of) = a.byte_view_of {
            index.views.insert(of, v);
        }
    }
    for a in runs.arrays.iter().filter(|a| a.byte_view_of.is_none()) {
        *index.layouts.entry(a.decl.decl_span.clone()).or_default() += 1;
    }
    let mut swizzles = Vec::new();
    for array in arrays {
        if let Some(fix) = suggest_for_array(runs, &index, array, target, source, facts) {
            fixes.push(fix);
            continue;
        }
        let sites: Vec<&Site> = index.sites.get(&array).cloned().unwrap_or_default();
        let view_sites: Vec<&Site> = index
            .views
            .get(&array)
            .and_then(|v| index.sites.get(v))
            .cloned()
            .unwrap_or_default();
        // A declaration with several layouts (instantiations) would need one swizzle that
        // serves every layout; each is checked only against its own.
        let layouts = index
            .layouts
            .get(&runs.arrays[array].decl.decl_span)
            .copied()
            .unwrap_or(0);
        if index.unchecked.get(&array).copied().unwrap_or(0) == 0
            && layouts <= 1
            && let Some(s) = crate::lint::swizzle::suggest(runs, array, &sites, &view_sites, target)
        {
            swizzles.push(s);
        }
    }
    Suggestions {
        padding: fixes,
        swizzles,
    }
}

/// What [`suggest`] finds: paddings (applied by `--fix` where safe), and swizzles where no
/// padding serves (advice only: every access must be rewritten alike).
pub struct Suggestions {
    pub padding: Vec<PaddingFix>,
    pub swizzles: Vec<crate::lint::swizzle::Swizzle>,
}

/// What `suggest_for_array` looks up, by array (or declaration).
#[derive(Default)]
struct ArrayIndex<'r> {
    sites: std::collections::HashMap<usize, Vec<&'r Site>>,
    unchecked: std::collections::HashMap<usize, usize>,
    layouts: std::collections::HashMap<Range<usize>, usize>,
    /// The byte view of an array, where accesses reach it through casts or PTX addresses.
    views: std::collections::HashMap<usize, usize>,
}

fn suggest_for_array(
    runs: &FileRuns,
    index: &ArrayIndex<'_>,
    array: usize,
    target: Target,
    source: &str,
    facts: FileFacts<'_>,
) -> Option<PaddingFix> {
    let entry = &runs.arrays[array];
    let layout = entry.layout.as_ref()?;
    if entry.decl.is_extern || layout.dims.len() < 2 || layout.dims.iter().any(Option::is_none) {
        return None;
    }
    // A declaration with several layouts (template instantiations) has no single fix.
    if index
        .layouts
        .get(&entry.decl.decl_span)
        .copied()
        .unwrap_or(0)
        > 1
    {
        return None;
    }
    let dim_span = entry.decl.dim_spans.last()?.clone()?;
    let row_bytes = layout.strides()?.get(layout.dims.len() - 2).copied()?;
    // Accesses through the byte view, in bytes of the unpadded array: each is checked with
    // its offsets moved to the padded rows. Their widths keep the padding aligned (ldmatrix
    // and vector accesses need rows at multiples of what they move).
    let view_sites: Vec<Site> = index
        .views
        .get(&array)
        .and_then(|v| index.sites.get(v))
        .map(|s| s.iter().map(|s| (*s).clone()).collect())
        .unwrap_or_default();
    let align = view_sites
        .iter()
        .map(|s| i64::from(s.width))
        .fold(layout.elem_size, lcm);
    let view_layout = ArrayLayout {
        elem_size: 1,
        dims: vec![None],
        pad: 0,
    };
    let sites: Vec<&Site> = index.sites.get(&array).cloned().unwrap_or_default();
    let unchecked_accesses = index.unchecked.get(&array).copied().unwrap_or(0);
    let baseline: Vec<(u32, Option<u64>)> =
        sites.iter().map(|s| score(s, layout, target)).collect();
    let view_baseline: Vec<(u32, Option<u64>)> = view_sites
        .iter()
        .map(|s| score(s, &view_layout, target))
        .collect();
    let ways_before = sites
        .iter()
        .map(|s| ways(s, layout, target))
        .chain(view_sites.iter().map(|s| ways(s, &view_layout, target)))
        .max()
        .unwrap_or(1);
    let max_pad = (256 / gcd(layout.elem_size, 256)).min(128);
    let mut best: Option<(i64, u64, u32)> = None;
    for pad in 1..=max_pad {
        if (pad * layout.elem_size) % align != 0 {
            continue;
        }
        let padded = ArrayLayout {
            pad,
            ..layout.clone()
        };
        let Some(moved) = view_sites
            .iter()
            .map(|s| {
                let pad_bytes = pad * layout.elem_size;
                with_bytes_moved(s, |b| b + b.div_euclid(row_bytes) * pad_bytes)
            })
            .collect::<Option<Vec<Site>>>()
        else {
            // A view access shifted by an unknown amount cannot be moved to padded rows.
            return None;
        };
        let Some((view_total, view_ways)) =
            check_padded(moved.iter(), &view_baseline, &view_layout, target)
        else {
            continue;
        };
        let Some((total, worst_ways)) =
            check_padded(sites.iter().copied(), &baseline, &padded, target)
        else {
            continue;
        };
        let (total, worst_ways) = (total + view_total, worst_ways.max(view_ways));
        if worst_ways == 1 {
            best = Some((pad, total, 1));
            break;
        }
        if worst_ways < ways_before && best.is_none_or(|b| (worst_ways, total) < (b.2, b.1)) {
            best = Some((pad, total, worst_ways));
        }
    }
    let (pad, _, ways_after) = best?;
    let inner_text = source.get(dim_span.clone())?.trim();
    let inner_len = layout.dims.last().copied().flatten()?;
    let (replacement, as_written) =
        written_padding(inner_text, pad, inner_len, facts.macros, dim_span.start);
    let decl = &entry.decl.decl_span;
    let declaration = format!(
        "{}{}{}",
        source.get(decl.start..dim_span.start)?,
        replacement,
        source.get(dim_span.end..decl.end)?
    );
    let padded = ArrayLayout {
        pad,
        ..layout.clone()
    };
    let before = layout.total_bytes()?;
    let after = padded.total_bytes()?;
    let costs = crate::lint::budget::fix_costs(
        facts.budgets,
        facts.budget_index,
        array,
        after - before,
        facts.arch,
    );
    Some(PaddingFix {
        array,
        pad,
        dim_span,
        replacement,
        declaration: declaration.split_whitespace().collect::<Vec<_>>().join(" "),
        bytes_added: after - before,
        total_bytes: after,
        conflict_free: ways_after == 1,
        ways_after,
        ways_before,
        unchecked_accesses,
        applicability: match entry.padding_blocked.or(as_written.err()) {
            Some(why) => Applicability::Suggestion(why),
            None => decide(ways_after, unchecked_accesses, &costs, facts.unread),
        },
        costs,
    })
}

/// The sites' per-block wavefronts summed and their worst conflict degree under `layout`,
/// or `None` when any site gets worse than its `baseline`, in its worst instruction or in
/// its per-block total.
fn check_padded<'s>(
    sites: impl Iterator<Item = &'s Site>,
    baseline: &[(u32, Option<u64>)],
    layout: &ArrayLayout,
    target: Target,
) -> Option<(u64, u32)> {
    let mut total = 0u64;
    let mut worst_ways = 1;
    for (site, base) in sites.zip(baseline) {
        let now = score(site, layout, target);
        if now.0 > base.0 || matches!((now.1, base.1), (Some(a), Some(b)) if a > b) {
            return None;
        }
        total += now.1.unwrap_or(u64::from(now.0));
        worst_ways = worst_ways.max(ways(site, layout, target));
    }
    Some((total, worst_ways))
}

fn lcm(a: i64, b: i64) -> i64 {
    if a == 0 || b == 0 {
        a.max(b)
    } else {
        a / gcd(a, b) * b
    }
}

fn score(site: &Site, layout: &ArrayLayout, target: Target) -> (u32, Option<u64>) {
    let (worst, totals) = evaluate_site(site, layout, target);
    (
        worst.map_or(0, |w| w.evaluation.verdict.wavefronts),
        totals.map(|t| t.wavefronts),
    )
}

fn ways(site: &Site, layout: &ArrayLayout, target: Target) -> u32 {
    evaluate_site(site, layout, target)
        .0
        .map_or(1, |w| w.evaluation.verdict.conflict_ways)
}

/// The padded dimension's text, with parentheses where a macro in it binds looser than `+`
/// (`#define N 1 << 5`: `(N) + 1`, not `N + 1`, which is `1 << 6`), re-evaluated as written:
/// Err when its value is not `len + pad`.
fn written_padding(
    inner: &str,
    pad: i64,
    len: i64,
    macros: &MacroTable,
    at: usize,
) -> (String, Result<(), &'static str>) {
    let text = if binds_looser_than_add(inner, macros, at) {
        format!("({inner}) + {pad}")
    } else {
        padded_text(inner, pad)
    };
    let check = match eval_constant(&text, macros, at) {
        Ok(v) if v == len + pad => Ok(()),
        Ok(_) => Err("the padded size, evaluated as written, is not the padded row length"),
        // A name that is not a macro (a `constexpr`, a template parameter): the text adds
        // `pad` outside everything else, so it is the padded length by construction.
        Err(_) => Ok(()),
    };
    (text, check)
}

/// `TILE` -> `TILE + 1`; `TILE + 1` -> `TILE + 2`; `32` -> `32 + 1`.
pub fn padded_text(inner: &str, pad: i64) -> String {
    if let Some((head, tail)) = inner.rsplit_once('+')
        && let Ok(k) = tail.trim().parse::<i64>()
        && !head.trim().is_empty()
        && !head.contains(['(', '?', '<', '>', '-', '*', '/'])
    {
        return format!("{} + {}", head.trim(), k + pad);
    }
    let needs_parens = inner.contains(['?', '<', '>', '&', '|', '^', '=']) || inner.contains(',');
    if needs_parens {
        format!("({inner}) + {pad}")
    } else {
        format!("{inner} + {pad}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_is_written_so_that_it_evaluates_to_the_padded_length() {
        let macros = MacroTable::from_definitions(&["N 1 << 5", "W 32", "H (1 << 5)"]);
        let pad = |inner: &str| written_padding(inner, 1, 32, &macros, 1);
        // `N + 1` would be `1 << 5 + 1`, that is 64.
        assert_eq!(pad("N"), ("(N) + 1".to_string(), Ok(())));
        assert_eq!(pad("W"), ("W + 1".to_string(), Ok(())));
        assert_eq!(pad("H"), ("H + 1".to_string(), Ok(())));
        assert_eq!(pad("TILE"), ("TILE + 1".to_string(), Ok(())));
        // A text whose value is not the dimension banklint analyzed is not applied.
        assert!(written_padding("W", 1, 16, &macros, 1).1.is_err());
    }

    #[test]
    fn padded_text_reads_naturally() {
        assert_eq!(padded_text("TILE_DIM", 1), "TILE_DIM + 1");
        assert_eq!(padded_text("32", 1), "32 + 1");
        assert_eq!(padded_text("TILE_DIM + 1", 1), "TILE_DIM + 2");
        assert_eq!(padded_text("N+1", 2), "N + 3");
        assert_eq!(padded_text("a ? 1 : 2", 1), "(a ? 1 : 2) + 1");
    }
}
