//! Array layouts and warp access patterns: how one warp's per-lane index tuples become byte
//! offsets for a given layout (the declared one, or a padded candidate), and what the bank
//! engine says about them. A pattern is recorded once and re-evaluated for any padding.

use crate::bank::arch::{Family, Target};
use crate::bank::engine::{self, LaneOffsets, Op, Verdict, WARP_SIZE, WarpAccess};

/// Byte strides of an array's dimensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayLayout {
    pub elem_size: i64,
    /// Declared extent of each dimension (outermost first); `None` if unknown (`[]`).
    pub dims: Vec<Option<i64>>,
    /// Extra elements added to the innermost dimension.
    pub pad: i64,
}

impl ArrayLayout {
    /// Byte stride of each dimension, or `None` if an inner extent is unknown.
    pub fn strides(&self) -> Option<Vec<i64>> {
        let mut strides = vec![0; self.dims.len()];
        let mut stride = self.elem_size;
        for k in (0..self.dims.len()).rev() {
            strides[k] = stride;
            let extent = self.dims[k].map(|d| {
                if k == self.dims.len() - 1 {
                    d + self.pad
                } else {
                    d
                }
            });
            match extent {
                Some(e) => stride = stride.checked_mul(e)?,
                None if k == 0 => {}
                None => return None,
            }
        }
        Some(strides)
    }

    pub fn total_bytes(&self) -> Option<i64> {
        let strides = self.strides()?;
        Some(strides.first()? * self.dims.first().copied()??)
    }
}

/// One warp instruction's lanes, as index tuples into the array plus a byte offset inside
/// the element (struct field, vector component). Stored flat: lane `l`'s tuple is
/// `indices[l * rank..(l + 1) * rank]`, meaningful when bit `l` of `active` is set.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    pub active: u32,
    pub rank: usize,
    pub indices: Vec<i64>,
    pub member_offset: i64,
    /// Per dimension, the gcd of the coefficients of warp-uniform unknowns in the index
    /// (0 when the index is fully known). They shift every lane alike.
    pub uniform_shift: Vec<i64>,
}

impl Pattern {
    /// Builds a pattern from per-lane tuples (`None` for inactive lanes).
    pub fn from_lanes(
        lanes: &[Option<Vec<i64>>],
        member_offset: i64,
        uniform_shift: Vec<i64>,
    ) -> Pattern {
        let rank = uniform_shift.len();
        let mut p = Pattern {
            active: 0,
            rank,
            indices: vec![0; WARP_SIZE * rank],
            member_offset,
            uniform_shift,
        };
        for (l, lane) in lanes.iter().enumerate().take(WARP_SIZE) {
            if let Some(t) = lane {
                p.active |= 1 << l;
                p.indices[l * rank..(l + 1) * rank].copy_from_slice(&t[..rank]);
            }
        }
        p
    }

    /// Lane `l`'s index tuple, if it takes part.
    pub fn lane(&self, l: usize) -> Option<&[i64]> {
        (self.active & (1 << l) != 0).then(|| &self.indices[l * self.rank..(l + 1) * self.rank])
    }

    /// The pattern with `origin` added back to every lane's index tuple.
    pub fn with_origin(&self, origin: &[i64]) -> Pattern {
        let mut p = self.clone();
        for l in 0..WARP_SIZE {
            if p.active & (1 << l) != 0 {
                for (k, o) in origin.iter().enumerate().take(p.rank) {
                    p.indices[l * p.rank + k] += o;
                }
            }
        }
        p
    }
}

/// Where the worst case of a pattern was found.
#[derive(Clone, Debug)]
pub struct Evaluation {
    pub verdict: Verdict,
    pub access: WarpAccess,
    /// A uniform byte shift that made it worse than the aligned case, if any.
    pub worst_shift: Option<i64>,
}

/// Whether a uniform shift of every lane can change the verdict for this element size.
/// On 2.x and 5.x+, shifting all lanes by whole words only renames banks.
pub fn shift_matters(target: Target, elem_size: i64) -> bool {
    !(matches!(target.family(), Family::Fermi | Family::Maxwell) && elem_size % 4 == 0)
}

/// Period after which every family's bank mapping repeats (Kepler's 64-word rows).
const BANK_PERIOD: i64 = 256;

/// The shifts of a whole warp that can give different verdicts repeat with this period. For
/// plain loads and stores on 2.x and 5.x+ a shift by whole words only renames banks, so only
/// the byte within the word matters (for 1- and 2-byte accesses; a property test checks it).
/// Other families and operations are taken over the full period (`cp.async` measures
/// differently at other offsets within a row).
fn shift_period(target: Target, op: Op) -> i64 {
    match (target.family(), op) {
        (Family::Fermi | Family::Maxwell, Op::Load | Op::Store) => 4,
        _ => BANK_PERIOD,
    }
}

pub fn evaluate(
    pattern: &Pattern,
    layout: &ArrayLayout,
    target: Target,
    op: Op,
    width: u32,
) -> Option<Evaluation> {
    let strides = layout.strides()?;
    let mut raw = [None; WARP_SIZE];
    for (lane, slot) in raw.iter_mut().enumerate() {
        if let Some(idx) = pattern.lane(lane) {
            let mut off = pattern.member_offset;
            for (i, s) in idx.iter().zip(&strides) {
                off = off.checked_add(i.checked_mul(*s)?)?;
            }
            *slot = Some(off);
        }
    }
    let shift_gcd = pattern
        .uniform_shift
        .iter()
        .zip(&strides)
        .fold(0i64, |g, (c, s)| gcd(g, c.saturating_mul(*s)));
    let shifts: Vec<i64> = if shift_gcd != 0 && shift_matters(target, layout.elem_size) {
        let period = shift_period(target, op);
        let step = shift_gcd.rem_euclid(period);
        let step = if step == 0 { period } else { gcd(step, period) };
        (0..period / step)
            .map(|k| k * step)
            .filter(|r| r % i64::from(width) == 0)
            .collect()
    } else {
        vec![0]
    };
    let mut best: Option<Evaluation> = None;
    for shift in shifts {
        let access = WarpAccess {
            width,
            op,
            offsets: to_engine_offsets(&raw, shift),
        };
        let verdict = engine::wavefronts(target, &access);
        let worse = best
            .as_ref()
            .is_none_or(|b| verdict.wavefronts > b.verdict.wavefronts);
        if worse {
            best = Some(Evaluation {
                verdict,
                access,
                worst_shift: (shift != 0).then_some(shift),
            });
        }
    }
    best
}

/// Moves offsets into non-negative range by a multiple of the bank period, which no rule can
/// tell apart.
fn to_engine_offsets(raw: &[Option<i64>; WARP_SIZE], shift: i64) -> LaneOffsets {
    let min = raw.iter().flatten().copied().min().unwrap_or(0) + shift;
    let lift = if min < 0 {
        ((-min) + BANK_PERIOD - 1) / BANK_PERIOD * BANK_PERIOD
    } else {
        0
    };
    let mut out = [None; WARP_SIZE];
    for (o, r) in out.iter_mut().zip(raw) {
        *o = r.map(|v| (v + shift + lift) as u64);
    }
    out
}

pub fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::arch::{Arch, BankMode};

    fn column_pattern(rows: i64) -> Pattern {
        let lanes: Vec<Option<Vec<i64>>> = (0..32).map(|l| Some(vec![l % rows, 0])).collect();
        Pattern::from_lanes(&lanes, 0, vec![0, 0])
    }

    #[test]
    fn padding_changes_row_stride() {
        let t = Target::new(Arch::DEFAULT, BankMode::FourByte);
        let mut layout = ArrayLayout {
            elem_size: 4,
            dims: vec![Some(32), Some(32)],
            pad: 0,
        };
        let p = column_pattern(32);
        assert_eq!(
            evaluate(&p, &layout, t, Op::Load, 4)
                .unwrap()
                .verdict
                .wavefronts,
            32
        );
        layout.pad = 1;
        assert_eq!(
            evaluate(&p, &layout, t, Op::Load, 4)
                .unwrap()
                .verdict
                .wavefronts,
            1
        );
        assert_eq!(layout.total_bytes(), Some(32 * 33 * 4));
    }

    #[test]
    fn uniform_shifts_are_enumerated_where_they_matter() {
        // char s[k + 4*tid] on sm_10: any k gives the same; but on Kepler 8-byte mode a
        // float stride-2 access depends on whether k is even.
        let kepler8 = Target::new(Arch::parse("sm_35").unwrap(), BankMode::EightByte);
        let lanes: Vec<Option<Vec<i64>>> = (0..32).map(|l| Some(vec![2 * l])).collect();
        let p = Pattern::from_lanes(&lanes, 0, vec![1]);
        let layout = ArrayLayout {
            elem_size: 4,
            dims: vec![Some(1024)],
            pad: 0,
        };
        let e = evaluate(&p, &layout, kepler8, Op::Load, 4).unwrap();
        assert_eq!(e.verdict.wavefronts, 1);
    }
}
