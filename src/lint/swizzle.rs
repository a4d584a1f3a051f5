//! Swizzle suggestion: where no padding serves (it would make another access worse, or the
//! array is a tile of 16-byte rows that `ldmatrix`, `cp.async` and TMA need unpadded), the
//! XOR swizzle of its 16-byte chunks that makes every access conflict-free: chunk `c` of row
//! `r` stored at chunk `c ^ ((r >> shift) & mask)`. Each candidate is checked by re-running
//! the bank engine on every recorded warp pattern of every access to the array (through
//! casts and PTX addresses too), with their byte offsets moved as the swizzle moves them.

use crate::analysis::interp::{FileRuns, Site};
use crate::bank::arch::Target;
use crate::bank::layout::ArrayLayout;
use crate::lint::findings::{evaluate_site, with_bytes_moved};

/// Bytes in a swizzled unit: what `ldmatrix` rows, `cp.async` and vector accesses move.
const CHUNK: i64 = 16;

#[derive(Clone, Debug, PartialEq)]
pub struct Swizzle {
    pub array: usize,
    /// `(row >> shift) & mask` is XORed into the chunk index.
    pub shift: u32,
    pub mask: i64,
    /// Chunks of 16 bytes per row.
    pub chunks_per_row: i64,
    /// CuTe's `Swizzle<B, M, S>` for the same permutation, where rows are a power of two
    /// elements long.
    pub cute: Option<(u32, u32, u32)>,
}

impl Swizzle {
    /// The help line under a conflict on `name`.
    pub fn help(&self, name: &str, elem_size: i64) -> String {
        let per_chunk = CHUNK / elem_size.max(1);
        let row_term = if self.shift == 0 {
            "r".to_string()
        } else {
            format!("(r >> {})", self.shift)
        };
        let cute = self.cute.map_or(String::new(), |(b, m, s)| {
            format!(" (CuTe `Swizzle<{b}, {m}, {s}>`)")
        });
        format!(
            "help: no padding makes every access to `{name}` conflict-free without making another worse or misaligning its 16-byte rows; XOR-swizzle its 16-byte chunks instead{cute}: in every access, write column `c` of row `r` at column `((c / {per_chunk}) ^ ({row_term} & {mask})) * {per_chunk} + c % {per_chunk}`; checked on every access banklint analyzed, each becomes conflict-free",
            mask = self.mask
        )
    }
}

/// The smallest swizzle (fewest bits, then smallest shift) that leaves every analyzed access
/// to `array` conflict-free and none worse; `None` if none does or an access cannot be moved
/// (an offset shifted by a warp-uniform unknown).
pub fn suggest(
    runs: &FileRuns,
    array: usize,
    sites: &[&Site],
    view_sites: &[&Site],
    target: Target,
) -> Option<Swizzle> {
    let entry = &runs.arrays[array];
    let layout = entry.layout.as_ref()?;
    let strides = layout.strides()?;
    if layout.dims.len() < 2 {
        return None;
    }
    let row_bytes = *strides.get(layout.dims.len() - 2)?;
    if row_bytes % CHUNK != 0 || row_bytes / CHUNK < 2 {
        return None;
    }
    let chunks = row_bytes / CHUNK;
    let bytes = byte_layout();
    // Every access as byte offsets into the array.
    let mut all: Vec<Site> = Vec::new();
    for s in sites {
        all.push(as_bytes(s, &strides)?);
    }
    all.extend(view_sites.iter().map(|s| (*s).clone()));
    if all.is_empty() {
        return None;
    }
    let before: Vec<u32> = all.iter().map(|s| worst(s, &bytes, target).0).collect();
    let max_bits = chunks.ilog2().min(3);
    // The rows of one 2-D slice (`[stage][row][col]`: the row within its stage).
    let rows = layout.dims[layout.dims.len() - 2]?;
    for bits in 1..=max_bits {
        let mask = (1i64 << bits) - 1;
        // XOR must keep each chunk inside its row.
        if chunks % (mask + 1) != 0 {
            continue;
        }
        for shift in 0..=4u32 {
            // `r` in the help is the row within its slice: the bits used must not reach past it.
            if layout.dims.len() > 2 && rows % ((mask + 1) << shift) != 0 {
                continue;
            }
            let moved: Option<Vec<Site>> = all
                .iter()
                .map(|s| swizzled(s, row_bytes, shift, mask))
                .collect();
            let moved = moved?;
            let clean = moved.iter().zip(&before).all(|(s, b)| {
                let (wavefronts, ways) = worst(s, &bytes, target);
                ways == 1 && wavefronts <= *b
            });
            if clean {
                return Some(Swizzle {
                    array,
                    shift,
                    mask,
                    chunks_per_row: chunks,
                    cute: cute_form(layout.elem_size, row_bytes, shift, bits),
                });
            }
        }
    }
    None
}

/// `Swizzle<B, M, S>` on element offsets: `M` = log2 of elements per chunk, `S` = the
/// distance from the chunk bits to the row bits used.
fn cute_form(elem_size: i64, row_bytes: i64, shift: u32, bits: u32) -> Option<(u32, u32, u32)> {
    let per_chunk = CHUNK / elem_size;
    let row_elems = row_bytes / elem_size;
    if per_chunk < 1
        || !(per_chunk as u64).is_power_of_two()
        || !(row_elems as u64).is_power_of_two()
    {
        return None;
    }
    let m = per_chunk.ilog2();
    let s = row_elems.ilog2() + shift - m;
    Some((bits, m, s))
}

/// One-byte elements, no dimensions: the layout of accesses given as byte offsets.
pub(crate) fn byte_layout() -> ArrayLayout {
    ArrayLayout {
        elem_size: 1,
        dims: vec![None],
        pad: 0,
    }
}

/// The worst instruction's wavefronts and conflict degree.
pub(crate) fn worst(site: &Site, layout: &ArrayLayout, target: Target) -> (u32, u32) {
    let (w, _) = evaluate_site(site, layout, target);
    w.map_or((0, 1), |w| {
        (
            w.evaluation.verdict.wavefronts,
            w.evaluation.verdict.conflict_ways,
        )
    })
}

/// A site of the array itself, its index tuples turned into byte offsets.
pub(crate) fn as_bytes(site: &Site, strides: &[i64]) -> Option<Site> {
    let mut out = site.clone();
    out.patterns = site
        .patterns
        .iter()
        .map(|(p, stats)| {
            if p.uniform_shift.iter().any(|&s| s != 0) {
                return None;
            }
            let mut q = p.clone();
            q.indices = p
                .indices
                .chunks(p.rank.max(1))
                .map(|t| t.iter().zip(strides).map(|(i, s)| i * s).sum::<i64>() + p.member_offset)
                .collect();
            q.rank = 1;
            q.member_offset = 0;
            q.uniform_shift = vec![0];
            let mut stats = stats.clone();
            let origin: i64 = stats.origin.iter().zip(strides).map(|(i, s)| i * s).sum();
            stats.origin = vec![origin];
            Some((q, stats))
        })
        .collect::<Option<_>>()?;
    Some(out)
}

/// A byte-offset site with each offset moved by the swizzle.
fn swizzled(site: &Site, row_bytes: i64, shift: u32, mask: i64) -> Option<Site> {
    with_bytes_moved(site, |b| {
        let (row, within) = (b.div_euclid(row_bytes), b.rem_euclid(row_bytes));
        let chunk = (within / CHUNK) ^ ((row >> shift) & mask);
        row * row_bytes + chunk * CHUNK + within % CHUNK
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cute_form_of_the_hgemm_tile_swizzle() {
        // 2-byte elements, 64-byte rows, chunk ^= (row >> 1) & 3: Swizzle<2, 3, 3>.
        assert_eq!(cute_form(2, 64, 1, 2), Some((2, 3, 3)));
        // 4-byte elements, 128-byte rows, chunk ^= row & 7: Swizzle<3, 2, 3>.
        assert_eq!(cute_form(4, 128, 0, 3), Some((3, 2, 3)));
        // Rows of 48 elements are no power of two: no CuTe form.
        assert_eq!(cute_form(2, 96, 0, 1), None);
    }

    #[test]
    fn help_names_the_expression_to_write() {
        let s = Swizzle {
            array: 0,
            shift: 1,
            mask: 3,
            chunks_per_row: 4,
            cute: Some((2, 3, 3)),
        };
        let help = s.help("tile", 2);
        assert!(
            help.contains("((c / 8) ^ ((r >> 1) & 3)) * 8 + c % 8"),
            "{help}"
        );
        assert!(help.contains("Swizzle<2, 3, 3>"), "{help}");
    }
}
