//! The bank engine: a pure function from one warp instruction (target, operation and access
//! width, 32 per-lane byte offsets) to the wavefronts the hardware needs to serve it.
//!
//! Rules per family follow `docs/BANK_RULES.md`; the 5.x+ rules (phases and the wide-load merge
//! rule) reproduce every pattern of the sm_90 calibration data measured with Nsight Compute.
//! Atomics, ldmatrix / stmatrix and cp.async follow their own measured rules, in [`ops`].
//!
//! [`ops`]: crate::bank::ops

use crate::bank::arch::{BankMode, Family, Target};
use crate::bank::ops;
use std::ops::Range;

pub const WARP_SIZE: usize = 32;

/// Per-lane byte offsets; `None` is a lane that does not take part (predicated off).
pub type LaneOffsets = [Option<u64>; WARP_SIZE];

/// What one warp instruction (or, for a CAS loop, one source-level atomic) does to shared
/// memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Load,
    Store,
    /// A shared-memory atomic read-modify-write (`ATOMS`), 4 or 8 bytes per lane.
    Atomic(AtomicKind),
    /// `ldmatrix.sync.aligned.m8n8.x{count}[.trans].shared.b16`: lanes `0..8 * count` each give
    /// the address of one 16-byte row; each 8x8 matrix is one phase.
    Ldmatrix {
        count: u8,
        trans: bool,
    },
    /// `stmatrix.sync.aligned.m8n8.x{count}[.trans].shared.b16` (sm_90), addressed like ldmatrix.
    Stmatrix {
        count: u8,
        trans: bool,
    },
    /// `cp.async` from global to shared memory; `bypass_l1` is `.cg` (16 bytes only), else `.ca`.
    CpAsync {
        bypass_l1: bool,
    },
    /// An `mbarrier` operation on the 8-byte barrier each lane addresses (sm_80+): `init`
    /// costs one wavefront per distinct barrier, every other operation (arrive, expect_tx,
    /// complete_tx, test_wait, try_wait, arrive_drop, inval) none; banks play no part
    /// (measured, `hw/MBARRIER.md`).
    Mbarrier {
        init: bool,
    },
    /// A TMA tile copy (`cp.async.bulk.tensor`, sm_90), into shared memory or out of it: the
    /// copy engine moves the box, not the lanes, so its line costs no wavefront (measured,
    /// `hw/fixture_validation_tma.md`); where the tile lies is what it decides (see
    /// [`crate::bank::tma`]).
    TensorCopy {
        to_shared: bool,
    },
}

/// The machine code a shared-memory atomic compiles to (measured with nvcc 13.0 for sm_90; see
/// `hw/ATOMICS_AND_MATRIX_OPS.md`), which decides its cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AtomicKind {
    /// One `ATOMS.ADD/EXCH/AND/OR/XOR/MIN/MAX/INC/DEC` (`.64` for `atomicExch` of 8 bytes):
    /// every lane is served on its own, lanes on one word included.
    Rmw,
    /// `ATOMS.POPC.INC`: `atomicAdd(p, 1)` whose result is unused; lanes on one word are one
    /// request.
    Count,
    /// `ATOMS.CAS` (`atomicCAS`): two wavefronts per lane in the busiest bank.
    Cas,
    /// A compare-and-swap loop (`LDS` + `ATOMS.CAST.SPIN`, repeated by the lanes that lost):
    /// `atomicAdd` of `float`/`double`/64-bit integers, 64-bit min/max/and/or/xor.
    CasLoop,
}

impl AtomicKind {
    pub fn name(self) -> &'static str {
        match self {
            AtomicKind::Rmw => "rmw",
            AtomicKind::Count => "count",
            AtomicKind::Cas => "cas",
            AtomicKind::CasLoop => "cas-loop",
        }
    }
}

impl Op {
    /// The kind of access, one word: `load`, `store`, `atomic`, `ldmatrix`, `stmatrix`,
    /// `cp.async`, `mbarrier`.
    pub fn name(self) -> &'static str {
        match self {
            Op::Load => "load",
            Op::Store => "store",
            Op::Atomic(_) => "atomic",
            Op::Ldmatrix { .. } => "ldmatrix",
            Op::Stmatrix { .. } => "stmatrix",
            Op::CpAsync { .. } => "cp.async",
            Op::Mbarrier { .. } => "mbarrier",
            Op::TensorCopy { .. } => "tma",
        }
    }

    /// The access as a noun in messages: `load`, `mbarrier operation`.
    pub fn noun(self) -> &'static str {
        match self {
            Op::Mbarrier { .. } => "mbarrier operation",
            Op::TensorCopy { .. } => "TMA copy",
            _ => self.name(),
        }
    }

    /// The full spelling `banklint simulate --op` takes: `ldmatrix.x4.trans`, `cp.async.cg`,
    /// `atomic.cas-loop`, `load`.
    pub fn spelling(self) -> String {
        match self {
            Op::Load | Op::Store => self.name().to_string(),
            Op::Atomic(kind) => format!("atomic.{}", kind.name()),
            Op::Ldmatrix { count, trans } | Op::Stmatrix { count, trans } => format!(
                "{}.x{count}{}",
                self.name(),
                if trans { ".trans" } else { "" }
            ),
            Op::CpAsync { bypass_l1 } => {
                format!("cp.async.{}", if bypass_l1 { "cg" } else { "ca" })
            }
            Op::Mbarrier { init: true } => "mbarrier.init".to_string(),
            Op::Mbarrier { init: false } => "mbarrier".to_string(),
            Op::TensorCopy { to_shared: true } => "tma.load".to_string(),
            Op::TensorCopy { to_shared: false } => "tma.store".to_string(),
        }
    }

    /// Whether this is a plain load or store (the operations of `docs/BANK_RULES.md`).
    pub fn is_plain(self) -> bool {
        matches!(self, Op::Load | Op::Store)
    }
}

/// One warp-level shared-memory instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpAccess {
    /// Bytes each lane accesses: 1, 2, 4, 8 or 16.
    pub width: u32,
    pub op: Op,
    pub offsets: LaneOffsets,
}

/// One independently served group of lanes (a phase on 5.x+, a half-warp request on 1.x).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phase {
    pub lanes: Range<usize>,
    /// On 1.x, wide accesses are split into 32-bit parts served as separate requests.
    pub part: u32,
    pub wavefronts: u32,
    pub ideal: u32,
}

/// What the engine says about one warp instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub wavefronts: u32,
    pub ideal: u32,
    /// The worst phase's wavefronts relative to its ideal (1 = conflict-free).
    pub conflict_ways: u32,
    /// Phases with at least one active lane.
    pub phases: Vec<Phase>,
    /// Whether the wide-load merge rule doubled the phase size.
    pub merged: bool,
    /// Part of `wavefronts` spent by the loads of a CAS loop (0 for other operations); the
    /// phases cover the rest.
    pub load_wavefronts: u32,
    /// Shared-memory instructions the warp executes: 1, or two per try of a CAS loop.
    pub instructions: u32,
}

impl Verdict {
    /// The phase that sets `conflict_ways` (first one on ties).
    pub fn worst_phase(&self) -> Option<&Phase> {
        self.phases
            .iter()
            .max_by_key(|p| (phase_ways(p), std::cmp::Reverse(p.lanes.start)))
    }
}

fn phase_ways(p: &Phase) -> u32 {
    p.wavefronts.div_ceil(p.ideal.max(1))
}

/// Which lanes touch which distinct storage units of one bank within a phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankLoad {
    pub bank: u32,
    /// Distinct conflict units in this bank (4-byte word index, or 8-byte unit in Kepler's
    /// 8-byte mode), sorted.
    pub units: Vec<u64>,
    /// Lanes touching this bank, sorted.
    pub lanes: Vec<usize>,
}

/// Computes wavefronts, ideal and conflict degree of one warp instruction.
pub fn wavefronts(target: Target, access: &WarpAccess) -> Verdict {
    if !access.op.is_plain() {
        return ops::wavefronts(target, access);
    }
    let (layout, merged) = phase_layout(target, access);
    let mut phases = Vec::new();
    for part in 0..layout.parts {
        for start in (0..WARP_SIZE).step_by(layout.lanes_per_phase) {
            let lanes = start..start + layout.lanes_per_phase;
            if !access.offsets[lanes.clone()].iter().any(Option::is_some) {
                continue;
            }
            let touches = phase_touches(target, access, lanes.clone(), part);
            let (wavefronts, ideal) = phase_cost(target, access, &touches);
            phases.push(Phase {
                lanes,
                part,
                wavefronts,
                ideal,
            });
        }
    }
    Verdict {
        wavefronts: phases.iter().map(|p| p.wavefronts).sum(),
        ideal: phases.iter().map(|p| p.ideal).sum(),
        conflict_ways: phases.iter().map(phase_ways).max().unwrap_or(1),
        phases,
        merged,
        load_wavefronts: 0,
        instructions: 1,
    }
}

/// Per-bank detail of one phase, for explanations and `simulate`'s picture.
pub fn bank_map(target: Target, access: &WarpAccess, phase: &Phase) -> Vec<BankLoad> {
    if !access.op.is_plain() {
        return bank_loads(ops::phase_touches(access, phase));
    }
    bank_loads(
        phase_touches(target, access, phase.lanes.clone(), phase.part)
            .into_iter()
            .map(|t| (t.lane, t.bank, t.key)),
    )
}

/// Groups (lane, bank, conflict unit) touches by bank.
fn bank_loads(touches: impl IntoIterator<Item = (usize, u32, u64)>) -> Vec<BankLoad> {
    let mut loads: Vec<BankLoad> = Vec::new();
    for (lane, bank, key) in touches {
        let idx = match loads.iter().position(|b| b.bank == bank) {
            Some(i) => i,
            None => {
                loads.push(BankLoad {
                    bank,
                    units: Vec::new(),
                    lanes: Vec::new(),
                });
                loads.len() - 1
            }
        };
        let load = &mut loads[idx];
        if !load.units.contains(&key) {
            load.units.push(key);
        }
        if !load.lanes.contains(&lane) {
            load.lanes.push(lane);
        }
    }
    for load in &mut loads {
        load.units.sort_unstable();
        load.lanes.sort_unstable();
    }
    loads.sort_by_key(|b| b.bank);
    loads
}

struct Layout {
    lanes_per_phase: usize,
    parts: u32,
}

fn phase_layout(target: Target, access: &WarpAccess) -> (Layout, bool) {
    let w = access.width;
    match target.family() {
        Family::Tesla => (
            Layout {
                lanes_per_phase: 16,
                parts: if w > 4 { w / 4 } else { 1 },
            },
            false,
        ),
        Family::Kepler => (
            Layout {
                lanes_per_phase: 32,
                parts: 1,
            },
            false,
        ),
        Family::Fermi | Family::Maxwell => {
            let base = match w {
                0..=4 => 32,
                5..=8 => 16,
                _ => 8,
            };
            let merged = target.family() == Family::Maxwell
                && access.op == Op::Load
                && w >= 8
                && (pairs_share_address(&access.offsets, 1)
                    || pairs_share_address(&access.offsets, 2));
            let lanes_per_phase = if merged { base * 2 } else { base };
            (
                Layout {
                    lanes_per_phase,
                    parts: 1,
                },
                merged,
            )
        }
    }
}

/// The measured merge condition: lanes n and n^mask use one address whenever both are active.
fn pairs_share_address(offsets: &LaneOffsets, mask: usize) -> bool {
    (0..WARP_SIZE).all(|n| match (offsets[n], offsets[n ^ mask]) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    })
}

#[derive(Clone, Copy, Debug)]
struct Touch {
    lane: usize,
    bank: u32,
    /// The unit whose distinctness decides conflicts within a bank.
    key: u64,
    /// Byte address, for 1.x where distinct addresses inside one word still conflict.
    addr: u64,
}

fn phase_touches(
    target: Target,
    access: &WarpAccess,
    lanes: Range<usize>,
    part: u32,
) -> Vec<Touch> {
    let mut out = Vec::with_capacity(lanes.len() * 4);
    let width = u64::from(access.width.max(1));
    for lane in lanes {
        let Some(offset) = access.offsets[lane] else {
            continue;
        };
        match (target.family(), target.bank_mode) {
            (Family::Tesla, _) => {
                // Wide accesses are split into 32-bit requests; sub-word ones keep their byte.
                let (addr, word) = if width > 4 {
                    let word = offset / 4 + u64::from(part);
                    (word * 4, word)
                } else {
                    (offset, offset / 4)
                };
                out.push(Touch {
                    lane,
                    bank: (word % 16) as u32,
                    key: word,
                    addr,
                });
            }
            (Family::Kepler, BankMode::EightByte) => {
                for unit in offset / 8..=(offset + width - 1) / 8 {
                    out.push(Touch {
                        lane,
                        bank: (unit % 32) as u32,
                        key: unit,
                        addr: unit * 8,
                    });
                }
            }
            (Family::Kepler, BankMode::FourByte) => {
                for word in offset / 4..=(offset + width - 1) / 4 {
                    // Words i and i+32 of one 64-word segment share a 64-bit bank row.
                    out.push(Touch {
                        lane,
                        bank: (word % 32) as u32,
                        key: (word / 64) * 64 + word % 32,
                        addr: word * 4,
                    });
                }
            }
            (Family::Fermi | Family::Maxwell, _) => {
                for word in offset / 4..=(offset + width - 1) / 4 {
                    out.push(Touch {
                        lane,
                        bank: (word % 32) as u32,
                        key: word,
                        addr: word * 4,
                    });
                }
            }
        }
    }
    out
}

/// Returns (wavefronts, ideal) for one phase.
fn phase_cost(target: Target, access: &WarpAccess, touches: &[Touch]) -> (u32, u32) {
    let mut units: Vec<(u32, u64)> = touches.iter().map(|t| (t.bank, t.key)).collect();
    units.sort_unstable();
    units.dedup();
    let ideal = ideal_passes(target, touches, units.len());
    let worst_bank = max_per_bank(&units);
    let cost = match target.family() {
        Family::Tesla => tesla_request_cost(access.op, touches),
        Family::Fermi if access.width > 8 => {
            // The 2.x guide: add 1 to the worst bank's count for 128-bit accesses.
            return (worst_bank + 1, 1);
        }
        _ => worst_bank,
    };
    (cost, ideal)
}

/// The fewest passes that could serve the distinct storage this phase touches: a pass moves
/// one unit per bank (4 bytes; 8 bytes on 3.x in either mode).
fn ideal_passes(target: Target, touches: &[Touch], distinct_units: usize) -> u32 {
    let distinct = match (target.family(), target.bank_mode) {
        (Family::Kepler, BankMode::FourByte) => {
            // Words i and i+32 share a bank row, so a pass can move 64 words.
            let mut words: Vec<u64> = touches.iter().map(|t| t.addr / 4).collect();
            words.sort_unstable();
            words.dedup();
            return (words.len() as u32).div_ceil(64).max(1);
        }
        _ => distinct_units,
    };
    (distinct as u32).div_ceil(target.banks()).max(1)
}

fn max_per_bank(sorted_units: &[(u32, u64)]) -> u32 {
    let mut best = 0;
    let mut run = 0;
    let mut current = None;
    for &(bank, _) in sorted_units {
        if current == Some(bank) {
            run += 1;
        } else {
            current = Some(bank);
            run = 1;
        }
        best = best.max(run);
    }
    best.max(1)
}

/// 1.x: each step serves every address inside one broadcast word (reads only) plus one
/// address per other bank. The hardware's choice of broadcast word is unspecified; we pick
/// the word serving the most remaining addresses, which gives the fewest steps greedily.
fn tesla_request_cost(op: Op, touches: &[Touch]) -> u32 {
    let mut remaining: Vec<(u32, u64, u64)> =
        touches.iter().map(|t| (t.bank, t.key, t.addr)).collect();
    remaining.sort_unstable();
    remaining.dedup();
    if op == Op::Store {
        let units: Vec<(u32, u64)> = remaining.iter().map(|&(b, _, a)| (b, a)).collect();
        return max_per_bank(&units);
    }
    let mut steps = 0;
    while !remaining.is_empty() {
        steps += 1;
        let broadcast = most_shared_word(&remaining);
        let broadcast_bank = remaining.iter().find(|r| r.1 == broadcast).map(|r| r.0);
        remaining.retain(|r| r.1 != broadcast);
        let mut served_banks: Vec<u32> = broadcast_bank.into_iter().collect();
        let mut next = Vec::with_capacity(remaining.len());
        for r in remaining {
            if served_banks.contains(&r.0) {
                next.push(r);
            } else {
                served_banks.push(r.0);
            }
        }
        remaining = next;
    }
    steps
}

fn most_shared_word(remaining: &[(u32, u64, u64)]) -> u64 {
    let mut best = (0usize, u64::MAX);
    for &(_, word, _) in remaining {
        let count = remaining.iter().filter(|r| r.1 == word).count();
        if count > best.0 || (count == best.0 && word < best.1) {
            best = (count, word);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::arch::Arch;

    fn target(arch: &str) -> Target {
        Target::new(Arch::parse(arch).unwrap(), BankMode::FourByte)
    }

    fn strided(width: u32, op: Op, stride_bytes: u64) -> WarpAccess {
        let mut offsets = [None; WARP_SIZE];
        for (lane, o) in offsets.iter_mut().enumerate() {
            *o = Some(lane as u64 * stride_bytes);
        }
        WarpAccess { width, op, offsets }
    }

    #[test]
    fn word_stride_gives_gcd_ways_on_sm90() {
        for s in 1..=64u64 {
            let v = wavefronts(target("sm_90"), &strided(4, Op::Load, 4 * s));
            let g = gcd(s, 32) as u32;
            assert_eq!(v.wavefronts, g, "stride {s}");
            assert_eq!(v.conflict_ways, g);
            assert_eq!(v.ideal, 1);
        }
    }

    #[test]
    fn wide_accesses_on_sm90() {
        let t = target("sm_90");
        assert_eq!(wavefronts(t, &strided(8, Op::Load, 8)).wavefronts, 2);
        assert_eq!(wavefronts(t, &strided(8, Op::Load, 16)).wavefronts, 4);
        assert_eq!(wavefronts(t, &strided(16, Op::Load, 16)).wavefronts, 4);
        assert_eq!(wavefronts(t, &strided(16, Op::Load, 32)).wavefronts, 8);
        // Broadcasts merge for loads, not for stores.
        assert_eq!(wavefronts(t, &strided(8, Op::Load, 0)).wavefronts, 1);
        assert_eq!(wavefronts(t, &strided(16, Op::Load, 0)).wavefronts, 2);
        assert_eq!(wavefronts(t, &strided(8, Op::Store, 0)).wavefronts, 2);
    }

    #[test]
    fn tesla_half_warps_and_subwords() {
        let t = target("sm_10");
        // 16 banks per half-warp: odd strides are clean, stride 2 is 2-way.
        assert_eq!(wavefronts(t, &strided(4, Op::Load, 4)).conflict_ways, 1);
        assert_eq!(wavefronts(t, &strided(4, Op::Load, 12)).conflict_ways, 1);
        assert_eq!(wavefronts(t, &strided(4, Op::Load, 8)).conflict_ways, 2);
        // char s[tid] conflicts, char s[4 * tid] does not.
        assert!(wavefronts(t, &strided(1, Op::Load, 1)).conflict_ways > 1);
        assert_eq!(wavefronts(t, &strided(1, Op::Load, 4)).conflict_ways, 1);
        // double s[tid]: two 32-bit requests of word stride 2, each 2-way.
        assert_eq!(wavefronts(t, &strided(8, Op::Load, 8)).conflict_ways, 2);
        // A half-warp reading one word is a broadcast.
        assert_eq!(wavefronts(t, &strided(4, Op::Load, 0)).wavefronts, 2);
    }

    #[test]
    fn kepler_bank_modes() {
        let four = target("sm_35");
        let eight = Target::new(Arch::parse("sm_35").unwrap(), BankMode::EightByte);
        // double s[tid]: both modes serve a warp in one pass.
        assert_eq!(wavefronts(eight, &strided(8, Op::Load, 8)).wavefronts, 1);
        assert_eq!(wavefronts(four, &strided(8, Op::Load, 8)).wavefronts, 1);
        // float s[2 * tid]: words 0..62 lie in one 64-word segment, so words i and i+32
        // share a bank row in 4-byte mode; 8-byte mode sees 32 distinct 8-byte units.
        assert_eq!(wavefronts(four, &strided(4, Op::Load, 8)).wavefronts, 1);
        assert_eq!(wavefronts(eight, &strided(4, Op::Load, 8)).wavefronts, 1);
        // A column of doubles, rows of 256 bytes: 32 rows in banks 0 and 1, 32-way; the
        // ideal is one pass, since a pass moves 256 bytes.
        let mut column = strided(8, Op::Load, 256);
        column.width = 8;
        let v = wavefronts(four, &column);
        assert_eq!((v.wavefronts, v.ideal, v.conflict_ways), (32, 1, 32));
        // float s[32 * tid]: every lane in bank 0, 16 distinct rows in either mode.
        assert_eq!(wavefronts(four, &strided(4, Op::Load, 128)).wavefronts, 16);
        assert_eq!(wavefronts(eight, &strided(4, Op::Load, 128)).wavefronts, 16);
    }

    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
}
