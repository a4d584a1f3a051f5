//! Tiles a TMA copy fills (or drains), checked against the accesses that read (or write)
//! them. The copy's tensor map decides where each element lies ([`crate::bank::tma`]); an
//! access that addresses the tile under another layout reads other elements than it names,
//! and usually conflicts where the swizzle was meant to prevent it.
//!
//! - `ldmatrix`/`stmatrix`: the 8 row addresses of one matrix must name one column of the tile.
//!   The access matches a layout when, un-swizzled by it, every matrix's rows share their byte
//!   position in the row; it mismatches when that fails under the copy's swizzle but holds
//!   under another.
//! - Other accesses: mismatched when they conflict as written but would not through the
//!   copy's swizzle (the addresses a swizzle-aware read would use).
//!
//! Where a tile's accesses conflict, padding cannot serve (the copy writes the box densely):
//! the fix is a swizzle mode on the tensor map, with the accesses addressing through it,
//! checked here on every access to the tile.

use crate::analysis::interp::{FileRuns, Site, tma::TmaCopy, viewed_array};
use crate::bank::arch::Target;
use crate::bank::engine::Op;
use crate::bank::tma::TmaSwizzle;
use crate::lint::swizzle::{byte_layout, worst};
use std::collections::BTreeSet;
use std::ops::Range;

/// What is wrong between a copy and an access of its tile.
#[derive(Clone, Debug, PartialEq)]
pub enum TmaIssue {
    /// The access addresses the tile as if it were laid out with `read_as`.
    Mismatch {
        actual: TmaSwizzle,
        read_as: TmaSwizzle,
    },
    /// The copy's swizzle is not known: its tile's accesses are not checked against it.
    UnknownLayout(String),
}

#[derive(Clone, Debug)]
pub struct TmaFinding {
    /// The access (a mismatch) or the copy (an unknown layout).
    pub span: Range<usize>,
    pub copy: TmaCopy,
    pub issue: TmaIssue,
    /// Whether the array is declared aligned to the swizzle's repeat (else assumed).
    pub aligned: bool,
}

/// A swizzle mode for the tensor map that makes every access to a TMA tile conflict-free.
#[derive(Clone, Debug)]
pub struct TmaFix {
    pub array: usize,
    pub copy: TmaCopy,
    pub mode: TmaSwizzle,
}

impl TmaFix {
    /// The help line under a conflict on the tile `name` of `elem`-byte elements.
    pub fn help(&self, name: &str, elem: i64) -> String {
        let per_chunk = 16 / elem.max(1);
        let (shift, mask) = row_terms(self.mode);
        let row = if shift == 0 {
            "r".to_string()
        } else {
            format!("(r >> {shift})")
        };
        let at = self
            .copy
            .map_line
            .map_or(String::new(), |l| format!(" (made at line {l})"));
        format!(
            "help: the TMA copy writes `{name}` densely, so padding cannot serve; give its tensor map `{}`{at} and address through it: column `c` of row `r` at column `c ^ (({row} & {mask}) * {per_chunk})`; checked on every access banklint analyzed, each becomes conflict-free",
            self.mode.enumerator(),
        )
    }
}

/// The swizzle of a mode on a tile whose rows are its span: chunk ^= (row >> shift) & mask.
fn row_terms(mode: TmaSwizzle) -> (u32, i64) {
    match mode {
        TmaSwizzle::B32 => (2, 1),
        TmaSwizzle::B64 => (1, 3),
        _ => (0, 7),
    }
}

/// The declared alignment of an array, from `__align__(N)` or `alignas(N)` in its declaration.
fn declared_alignment(decl: &str) -> Option<i64> {
    ["__align__(", "alignas(", "aligned("].iter().find_map(|k| {
        let at = decl.find(k)? + k.len();
        let end = decl[at..].find(')')? + at;
        crate::front::lex::parse_int_literal(decl[at..end].trim())
    })
}

/// Every byte address an access's first occurrences touch, per pattern: `(lane, address)`.
fn addresses(site: &Site) -> Vec<Vec<(usize, i64)>> {
    site.patterns
        .iter()
        .filter(|(p, _)| p.rank == 1 && p.uniform_shift.iter().all(|&s| s == 0))
        .map(|(p, stats)| {
            let origin = stats.origin.first().copied().unwrap_or(0);
            (0..32)
                .filter(|l| p.active & (1 << l) != 0)
                .map(|l| (l, p.indices[l] + p.member_offset + origin))
                .collect()
        })
        .collect()
}

/// Whether every matrix of every pattern names one column under `mode` (rows `row_bytes`).
fn rows_share_a_column(
    patterns: &[Vec<(usize, i64)>],
    matrices: usize,
    mode: TmaSwizzle,
    dst: i64,
    row_bytes: i64,
) -> bool {
    let pitch = mode.pitch(row_bytes);
    pitch > 0
        && patterns.iter().all(|lanes| {
            (0..matrices).all(|m| {
                let cols: BTreeSet<i64> = lanes
                    .iter()
                    .filter(|(l, _)| l / 8 == m)
                    .map(|(_, a)| (mode.swizzle(*a) - dst).rem_euclid(pitch))
                    .collect();
                cols.len() <= 1
            })
        })
}

/// The access with every address moved through `mode`'s swizzle.
fn through(site: &Site, mode: TmaSwizzle) -> Site {
    let mut moved = site.clone();
    moved.patterns = site
        .patterns
        .iter()
        .map(|(p, stats)| {
            let origin = stats.origin.first().copied().unwrap_or(0);
            let mut q = p.clone();
            for l in 0..32 {
                if p.active & (1 << l) != 0 {
                    q.indices[l] = mode.swizzle(p.indices[l] + p.member_offset + origin);
                }
            }
            q.member_offset = 0;
            let mut stats = stats.clone();
            stats.origin = vec![0];
            (q, stats)
        })
        .collect();
    moved
}

/// The worst conflict degree of a byte-offset access.
fn ways(site: &Site, target: Target) -> u32 {
    worst(site, &byte_layout(), target).1
}

/// The accesses of a run to the tile of `copy`, as byte-offset sites (uniform shifts left out).
fn tile_sites(runs: &FileRuns, sites: &[&Site], array: usize) -> Vec<Site> {
    let layout = runs.arrays[array].layout.as_ref();
    let strides = layout.and_then(|l| l.strides());
    sites
        .iter()
        .filter(|s| s.unknown.is_none() && viewed_array(&runs.arrays, s.array) == array)
        .filter_map(|s| {
            if s.array == array {
                crate::lint::swizzle::as_bytes(s, strides.as_ref()?)
            } else {
                Some((*s).clone())
            }
        })
        .collect()
}

/// The tile's row length in bytes (its innermost dimension), if known.
fn row_bytes(runs: &FileRuns, array: usize) -> Option<i64> {
    let layout = runs.arrays[array].layout.as_ref()?;
    let strides = layout.strides()?;
    (layout.dims.len() >= 2).then(|| strides[layout.dims.len() - 2])
}

/// Mismatches and unknown layouts of every TMA copy in the file, and the swizzle fixes for
/// tiles whose accesses conflict.
pub fn check(runs: &FileRuns, text: &str, target: Target) -> (Vec<TmaFinding>, Vec<TmaFix>) {
    let mut out: Vec<TmaFinding> = Vec::new();
    let mut fixes: Vec<TmaFix> = Vec::new();
    for run in &runs.runs {
        let sites: Vec<&Site> = run.sites.values().collect();
        for copy in &run.tma_copies {
            let decl = &runs.arrays[copy.array].decl;
            let declared = declared_alignment(text.get(decl.decl_span.clone()).unwrap_or(""));
            let swizzle = match (&copy.swizzle, copy.offset) {
                (Ok(s), Some(_)) => *s,
                (Err(why), _) => {
                    push_unknown(&mut out, copy, why.clone());
                    continue;
                }
                (Ok(_), None) => {
                    push_unknown(
                        &mut out,
                        copy,
                        "the tile's offset in the array is not a constant".to_string(),
                    );
                    continue;
                }
            };
            let dst = copy.offset.unwrap_or(0);
            let rows = row_bytes(runs, copy.array);
            let tile = tile_sites(runs, &sites, copy.array);
            let as_written: Vec<u32> = tile.iter().map(|s| ways(s, target)).collect();
            for (site, &written) in tile.iter().zip(&as_written) {
                if out.iter().any(|f| f.span == site.span) {
                    continue;
                }
                let read_as = match site.op {
                    Op::Ldmatrix { count, .. } | Op::Stmatrix { count, .. } => {
                        let Some(row_bytes) = rows else { continue };
                        let pats = addresses(site);
                        let n = usize::from(count);
                        if rows_share_a_column(&pats, n, swizzle, dst, row_bytes) {
                            continue;
                        }
                        TmaSwizzle::ALL
                            .into_iter()
                            .find(|m| rows_share_a_column(&pats, n, *m, dst, row_bytes))
                    }
                    _ if swizzle != TmaSwizzle::None
                        && written > 1
                        && ways(&through(site, swizzle), target) == 1 =>
                    {
                        Some(TmaSwizzle::None)
                    }
                    _ => None,
                };
                if let Some(read_as) = read_as {
                    out.push(TmaFinding {
                        span: site.span.clone(),
                        copy: copy.clone(),
                        issue: TmaIssue::Mismatch {
                            actual: swizzle,
                            read_as,
                        },
                        aligned: declared.is_some_and(|a| a % swizzle.repeat() == 0),
                    });
                }
            }
            // A fix where the tile's accesses conflict as they are.
            let conflicted = as_written.iter().any(|&w| w > 1);
            if conflicted && !fixes.iter().any(|f| f.array == copy.array) {
                let fix = TmaSwizzle::ALL
                    .into_iter()
                    .filter(|m| *m != TmaSwizzle::None && Some(m.span()) == rows)
                    .find(|m| tile.iter().all(|s| ways(&through(s, *m), target) == 1));
                if let Some(mode) = fix {
                    fixes.push(TmaFix {
                        array: copy.array,
                        copy: copy.clone(),
                        mode,
                    });
                }
            }
        }
    }
    out.sort_by_key(|f| f.span.start);
    (out, fixes)
}

fn push_unknown(out: &mut Vec<TmaFinding>, copy: &TmaCopy, why: String) {
    if !out.iter().any(|f| f.span == copy.span) {
        out.push(TmaFinding {
            span: copy.span.clone(),
            copy: copy.clone(),
            issue: TmaIssue::UnknownLayout(why),
            aligned: false,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_is_read_from_the_declaration() {
        assert_eq!(
            declared_alignment("__shared__ __align__(1024) half t[64][64];"),
            Some(1024)
        );
        assert_eq!(
            declared_alignment("alignas(128) __shared__ float t[8];"),
            Some(128)
        );
        assert_eq!(declared_alignment("__shared__ float t[8];"), None);
    }

    #[test]
    fn ldmatrix_rows_of_one_column_match_the_layout_they_were_written_for() {
        // 8 rows of 128 bytes, chunk 0 of each: one column unswizzled; under the 128-byte
        // swizzle those addresses hold chunk r ^ 0 = r of row r: 8 different columns.
        let plain: Vec<(usize, i64)> = (0..8).map(|r| (r, r as i64 * 128)).collect();
        assert!(rows_share_a_column(
            std::slice::from_ref(&plain),
            1,
            TmaSwizzle::None,
            0,
            128
        ));
        assert!(!rows_share_a_column(&[plain], 1, TmaSwizzle::B128, 0, 128));
        // Addressed through the swizzle: chunk r of row r.
        let swizzled: Vec<(usize, i64)> = (0..8)
            .map(|r| (r, r as i64 * 128 + 16 * r as i64))
            .collect();
        assert!(rows_share_a_column(
            std::slice::from_ref(&swizzled),
            1,
            TmaSwizzle::B128,
            0,
            128
        ));
        assert!(!rows_share_a_column(
            &[swizzled],
            1,
            TmaSwizzle::None,
            0,
            128
        ));
    }
}
