//! The bank model of shared-memory operations other than plain loads and stores: atomics,
//! `ldmatrix` / `stmatrix`, `cp.async` and `mbarrier` (the last measured with
//! `hw/probe_mbarrier.cu`, written up in `hw/MBARRIER.md`). Each rule was read off Nsight Compute on an H100
//! (sm_90) with `hw/probe_ops.cu` and reproduces every measured pattern of
//! `tests/data/sm90_atomics.json` and `tests/data/sm90_matrix_ops.json`; the same rules in
//! Python are `hw/check_ops.py`, the write-up `hw/ATOMICS_AND_MATRIX_OPS.md`. They are applied
//! on every architecture that has the operation, with 4-byte banks (32 of them) as on 5.x+.
//!
//! Pure functions of (operation, width, lane offsets); the engine calls `wavefronts` for any
//! operation that is not a plain load or store.

use crate::bank::access::{AtomicKind, LaneOffsets, Op, Phase, Verdict, WARP_SIZE, WarpAccess};
use crate::bank::arch::Target;
use crate::bank::plain;
use std::collections::BTreeMap;
use std::ops::Range;

const BANKS: u64 = 32;

/// The lanes whose addresses the operation reads: 8 per matrix for ldmatrix / stmatrix
/// (`.x1`: lanes 0-7), all 32 otherwise.
pub fn lanes_read(op: Op) -> usize {
    match op {
        Op::Ldmatrix { count, .. } | Op::Stmatrix { count, .. } => 8 * usize::from(count),
        _ => WARP_SIZE,
    }
}

/// Whether the operation exists with `width` bytes per lane.
pub fn width_is_valid(op: Op, width: u32) -> bool {
    match op {
        Op::Load | Op::Store => matches!(width, 1 | 2 | 4 | 8 | 16),
        Op::Atomic(AtomicKind::Count) => width == 4,
        Op::Atomic(_) => matches!(width, 4 | 8),
        Op::Ldmatrix { count, .. } | Op::Stmatrix { count, .. } => {
            width == 16 && matches!(count, 1 | 2 | 4)
        }
        Op::CpAsync { bypass_l1: true } => width == 16,
        Op::CpAsync { bypass_l1: false } => matches!(width, 4 | 8 | 16),
        Op::Mbarrier { .. } => width == 8,
        Op::TensorCopy { .. } => width == 16,
    }
}

/// The offsets the operation uses: lanes it does not read are `None`.
fn used(access: &WarpAccess) -> LaneOffsets {
    let mut offsets = access.offsets;
    for o in offsets.iter_mut().skip(lanes_read(access.op)) {
        *o = None;
    }
    offsets
}

/// Lanes served together.
fn phase_size(op: Op, width: u32) -> usize {
    match op {
        Op::Ldmatrix { .. } | Op::Stmatrix { .. } => 8,
        _ => match width {
            0..=4 => 32,
            5..=8 => 16,
            _ => 8,
        },
    }
}

/// The 4-byte words a lane touches.
fn words(offset: u64, width: u32) -> Range<u64> {
    offset / 4..(offset + u64::from(width.max(1)) - 1) / 4 + 1
}

/// Whether each (lane, word) pair is its own conflict unit (no broadcast between lanes).
pub fn per_lane(op: Op) -> bool {
    matches!(
        op,
        Op::Atomic(AtomicKind::Rmw | AtomicKind::Cas | AtomicKind::CasLoop)
            | Op::CpAsync { bypass_l1: false }
    )
}

/// One word a lane touches: its bank and the unit whose distinctness decides conflicts.
#[derive(Clone, Copy, Debug)]
struct Touch {
    lane: usize,
    bank: u32,
    key: u64,
    word: u64,
}

/// Every word the lanes of `lanes` touch.
fn touches(op: Op, width: u32, offsets: &LaneOffsets, lanes: Range<usize>) -> Vec<Touch> {
    let mut out = Vec::new();
    for lane in lanes {
        let Some(offset) = offsets[lane] else {
            continue;
        };
        for word in words(offset, width) {
            let key = if per_lane(op) {
                word * WARP_SIZE as u64 + lane as u64
            } else {
                word
            };
            out.push(Touch {
                lane,
                bank: (word % BANKS) as u32,
                key,
                word,
            });
        }
    }
    out
}

/// The most conflict units one bank serves, and the fewest passes the distinct words need.
fn busiest_bank(touches: &[Touch]) -> (u32, u32) {
    let mut units: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    let mut words: Vec<u64> = Vec::new();
    for t in touches {
        units.entry(t.bank).or_default().push(t.key);
        words.push(t.word);
    }
    let worst = units
        .values_mut()
        .map(|v| {
            v.sort_unstable();
            v.dedup();
            v.len() as u32
        })
        .max()
        .unwrap_or(0);
    words.sort_unstable();
    words.dedup();
    (worst, (words.len() as u64).div_ceil(BANKS).max(1) as u32)
}

/// The per-bank picture of one phase of `access` (for `simulate` and explanations).
pub(crate) fn phase_touches(access: &WarpAccess, phase: &Phase) -> Vec<(usize, u32, u64)> {
    let offsets = match access.op {
        Op::CpAsync { bypass_l1: true } => surviving_lanes(&used(access)),
        _ => used(access),
    };
    touches(access.op, access.width, &offsets, phase.lanes.clone())
        .into_iter()
        .map(|t| (t.lane, t.bank, t.key))
        .collect()
}

/// Computes the verdict of one warp-level operation other than a plain load or store.
pub(crate) fn wavefronts(target: Target, access: &WarpAccess) -> Verdict {
    let offsets = used(access);
    let op = access.op;
    match op {
        Op::Atomic(AtomicKind::CasLoop) => return cas_loop(target, access.width, &offsets),
        Op::CpAsync { bypass_l1: true } => return bypass_verdict(&offsets),
        Op::Mbarrier { init } => return mbarrier_verdict(init, &offsets),
        // The copy engine's work, not the lanes': nothing in the banks at this line.
        Op::TensorCopy { .. } => return mbarrier_verdict(false, &offsets),
        _ => {}
    }
    let size = phase_size(op, access.width);
    let mut phases = Vec::new();
    for start in (0..WARP_SIZE).step_by(size) {
        let lanes = start..start + size;
        if !offsets[lanes.clone()].iter().any(Option::is_some) {
            continue;
        }
        let (worst, ideal) = busiest_bank(&touches(op, access.width, &offsets, lanes.clone()));
        let (wavefronts, ideal) = match op {
            // A compare-and-swap moves each lane twice (compare, then swap).
            Op::Atomic(AtomicKind::Cas) => (2 * worst, 2),
            _ => (worst, ideal),
        };
        phases.push(Phase {
            lanes,
            part: 0,
            wavefronts,
            ideal,
        });
    }
    verdict(phases, 0, 1)
}

/// An mbarrier operation. Measured on sm_90 (`hw/MBARRIER.md`): `init` compiles to a loop that
/// runs one `SYNCS.EXCH.64` per distinct barrier the active lanes address, one wavefront each,
/// at any stride (8, 16, 128 or 256 bytes apart: the same count, no bank conflict counted);
/// the other operations cost no wavefront. No layout changes the count, so it is the ideal.
fn mbarrier_verdict(init: bool, offsets: &LaneOffsets) -> Verdict {
    let mut barriers: Vec<u64> = offsets.iter().flatten().map(|o| o / 8).collect();
    barriers.sort_unstable();
    barriers.dedup();
    let cost = if init { barriers.len() as u32 } else { 0 };
    let phases = if barriers.is_empty() {
        Vec::new()
    } else {
        vec![Phase {
            lanes: 0..WARP_SIZE,
            part: 0,
            wavefronts: cost,
            ideal: cost,
        }]
    };
    verdict(phases, 0, if init { cost.max(1) } else { 1 })
}

fn verdict(phases: Vec<Phase>, load_wavefronts: u32, instructions: u32) -> Verdict {
    Verdict {
        wavefronts: phases.iter().map(|p| p.wavefronts).sum::<u32>() + load_wavefronts,
        ideal: phases.iter().map(|p| p.ideal).sum(),
        conflict_ways: phases
            .iter()
            .map(|p| p.wavefronts.div_ceil(p.ideal.max(1)))
            .max()
            .unwrap_or(1)
            .max(1),
        phases,
        merged: false,
        load_wavefronts,
        instructions,
    }
}

/// A CAS loop: each try is an `LDS` of the lanes left (costed as a load) and an
/// `ATOMS.CAST.SPIN`, which costs 2 wavefronts in each phase with lanes left. In a phase, the
/// lowest lane left in each bank is tried (for 8 bytes, in each of its two banks); of the lanes
/// tried on one address the lowest succeeds (phase 0 before phase 1). The lanes that succeeded
/// leave the loop.
fn cas_loop(target: Target, width: u32, offsets: &LaneOffsets) -> Verdict {
    let size = phase_size(Op::Atomic(AtomicKind::CasLoop), width);
    let mut left = *offsets;
    let mut per_phase = vec![0u32; WARP_SIZE / size];
    let (mut tries, mut loads) = (0u32, 0u32);
    while left.iter().any(Option::is_some) {
        tries += 1;
        let load = WarpAccess {
            width,
            op: Op::Load,
            offsets: left,
        };
        loads += plain::verdict(target, &load).wavefronts;
        let mut tried = Vec::new();
        for (k, start) in (0..WARP_SIZE).step_by(size).enumerate() {
            let lanes: Vec<usize> = (start..start + size)
                .filter(|&l| left[l].is_some())
                .collect();
            if lanes.is_empty() {
                continue;
            }
            per_phase[k] += 2;
            let mut busy: Vec<u64> = Vec::new();
            for lane in lanes {
                let banks: Vec<u64> = words(left[lane].unwrap_or(0), width)
                    .map(|w| w % BANKS)
                    .collect();
                if banks.iter().any(|b| busy.contains(b)) {
                    continue;
                }
                busy.extend(banks);
                tried.push(lane);
            }
        }
        let mut done: Vec<u64> = Vec::new();
        for lane in tried {
            if let Some(addr) = left[lane]
                && !done.contains(&addr)
            {
                done.push(addr);
                left[lane] = None;
            }
        }
    }
    let phases = per_phase
        .iter()
        .enumerate()
        .filter(|&(_, &w)| w > 0)
        .map(|(k, &w)| Phase {
            lanes: k * size..(k + 1) * size,
            part: 0,
            wavefronts: w,
            ideal: 2,
        })
        .collect();
    let first_load = WarpAccess {
        width,
        op: Op::Load,
        offsets: *offsets,
    };
    let mut v = verdict(phases, loads, 2 * tries);
    if tries > 0 {
        v.ideal += plain::verdict(target, &first_load).ideal;
    }
    v
}

/// `cp.async.cg` writes each 16-byte destination once: a lane whose destination a lower lane
/// also writes is dropped.
fn surviving_lanes(offsets: &LaneOffsets) -> LaneOffsets {
    let mut out = [None; WARP_SIZE];
    for lane in 0..WARP_SIZE {
        if let Some(o) = offsets[lane]
            && !offsets[..lane].contains(&Some(o))
        {
            out[lane] = Some(o);
        }
    }
    out
}

/// The sources the engine assumes for `cp.async.cg`: lane `l` copies bytes `16 l .. 16 l + 16`
/// of a 128-byte-aligned global block (a warp copying 512 contiguous bytes), so lanes `8 j ..
/// 8 j + 7` read global line `j`.
pub fn coalesced_sources() -> LaneOffsets {
    std::array::from_fn(|lane| Some(16 * lane as u64))
}

/// One group of `cp.async.cg` writes that can share wavefronts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BypassGroup {
    /// 128-byte global line the data comes from (global byte offset / 128).
    pub source_line: u64,
    /// 128-byte shared-memory line it goes to (shared byte offset / 128).
    pub dest_line: u64,
    /// (source 32-byte sector, destination 32-byte sector) pairs.
    pub units: Vec<(u64, u64)>,
    pub wavefronts: u32,
}

/// The measured rule of the L1-bypass copy (`cp.async.cg`, 16 bytes per lane), for any
/// per-lane global `sources` (byte offsets from a 128-byte-aligned base): the copy is written to
/// shared memory per 32-byte source sector. A unit is one (destination sector, source sector)
/// pair, with the 16-byte halves it uses on each side. Units of one source line and one
/// destination line share a wavefront when they use the same source halves, the same destination
/// halves and the same bit 0 of (source sector XOR destination sector); each wavefront of such a
/// group takes a source sector at most once and a destination sector at most once, so the group
/// costs its most-used sector.
pub fn bypass_groups(offsets: &LaneOffsets, sources: &LaneOffsets) -> Vec<BypassGroup> {
    let kept = surviving_lanes(offsets);
    // (dest sector, source sector) -> (source halves, dest halves)
    let mut units: BTreeMap<(u64, u64), (u8, u8)> = BTreeMap::new();
    for lane in 0..WARP_SIZE {
        let (Some(d), Some(s)) = (kept[lane], sources[lane]) else {
            continue;
        };
        let halves = units.entry((d / 32, s / 32)).or_default();
        halves.0 |= 1 << (s / 16 % 2);
        halves.1 |= 1 << (d / 16 % 2);
    }
    type Key = (u64, u64, u8, u8, u64);
    let mut groups: BTreeMap<Key, Vec<(u64, u64)>> = BTreeMap::new();
    for (&(ds, gs), &(sh, dh)) in &units {
        groups
            .entry((gs / 4, ds / 4, sh, dh, (gs ^ ds) & 1))
            .or_default()
            .push((gs, ds));
    }
    groups
        .into_iter()
        .map(|((source_line, dest_line, ..), units)| {
            let most = |f: fn(&(u64, u64)) -> u64| {
                let mut count: BTreeMap<u64, u32> = BTreeMap::new();
                for u in &units {
                    *count.entry(f(u)).or_default() += 1;
                }
                count.into_values().max().unwrap_or(0)
            };
            let wavefronts = most(|u| u.0).max(most(|u| u.1));
            BypassGroup {
                source_line,
                dest_line,
                units,
                wavefronts,
            }
        })
        .collect()
}

/// Wavefronts of a `cp.async.cg` with explicit global sources.
pub fn bypass_wavefronts(offsets: &LaneOffsets, sources: &LaneOffsets) -> u32 {
    bypass_groups(offsets, sources)
        .iter()
        .map(|g| g.wavefronts)
        .sum()
}

/// `cp.async.cg` with [`coalesced_sources`]: one phase per 128-byte source line (lanes
/// `8 j .. 8 j + 7`); its ideal is one wavefront per destination line it writes.
fn bypass_verdict(offsets: &LaneOffsets) -> Verdict {
    let groups = bypass_groups(offsets, &coalesced_sources());
    let mut phases = Vec::new();
    for line in 0..(WARP_SIZE / 8) as u64 {
        let lanes = line as usize * 8..line as usize * 8 + 8;
        if !offsets[lanes.clone()].iter().any(Option::is_some) {
            continue;
        }
        let mine: Vec<&BypassGroup> = groups.iter().filter(|g| g.source_line == line).collect();
        let mut dest_lines: Vec<u64> = mine.iter().map(|g| g.dest_line).collect();
        dest_lines.sort_unstable();
        dest_lines.dedup();
        phases.push(Phase {
            lanes,
            part: 0,
            wavefronts: mine.iter().map(|g| g.wavefronts).sum(),
            ideal: dest_lines.len() as u32,
        });
    }
    verdict(phases, 0, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::arch::{Arch, BankMode};

    fn sm90() -> Target {
        Target::new(Arch::DEFAULT, BankMode::FourByte)
    }

    fn access(op: Op, width: u32, f: impl Fn(usize) -> Option<u64>) -> WarpAccess {
        WarpAccess {
            width,
            op,
            offsets: std::array::from_fn(f),
        }
    }

    fn wf(op: Op, width: u32, f: impl Fn(usize) -> Option<u64>) -> u32 {
        wavefronts(sm90(), &access(op, width, f)).wavefronts
    }

    // Expected values below are measured ones (tests/data), quoted by their pattern names.
    #[test]
    fn atomics_on_one_address_serialize_unless_counted() {
        let rmw = Op::Atomic(AtomicKind::Rmw);
        assert_eq!(wf(rmw, 4, |_| Some(0)), 32); // stride0: 32
        assert_eq!(wf(Op::Atomic(AtomicKind::Count), 4, |_| Some(0)), 1);
        assert_eq!(wf(rmw, 4, |l| Some(4 * l as u64)), 1); // stride1
        assert_eq!(wf(rmw, 4, |l| Some(128 * l as u64)), 32); // stride32
        assert_eq!(wf(Op::Atomic(AtomicKind::Cas), 4, |_| Some(0)), 64);
        assert_eq!(
            wf(Op::Atomic(AtomicKind::Cas), 8, |l| Some(8 * l as u64)),
            4
        );
    }

    #[test]
    fn cas_loop_tries_once_per_lane_of_the_busiest_bank() {
        // atomicAdd(float) on one address: 32 tries, 64 ATOMS + 32 LDS wavefronts.
        let v = wavefronts(
            sm90(),
            &access(Op::Atomic(AtomicKind::CasLoop), 4, |_| Some(0)),
        );
        assert_eq!(
            (v.wavefronts - v.load_wavefronts, v.load_wavefronts),
            (64, 32)
        );
        assert_eq!(v.instructions, 64);
        // float, stride 32 words: 32 tries, loads 32 + 31 + ... + 1 = 528.
        let v = wavefronts(
            sm90(),
            &access(Op::Atomic(AtomicKind::CasLoop), 4, |l| Some(128 * l as u64)),
        );
        assert_eq!(
            (v.wavefronts - v.load_wavefronts, v.load_wavefronts),
            (64, 528)
        );
        // 64-bit add on one address: 16 tries with both halves, 16 with one: 96.
        let v = wavefronts(
            sm90(),
            &access(Op::Atomic(AtomicKind::CasLoop), 8, |_| Some(0)),
        );
        assert_eq!(v.wavefronts - v.load_wavefronts, 96);
    }

    #[test]
    fn ldmatrix_ignores_lanes_it_does_not_read() {
        let x1 = Op::Ldmatrix {
            count: 1,
            trans: false,
        };
        // unused-lanes-conflicting: rows of lanes 0-7 clean, lanes 8-31 all in bank 0.
        assert_eq!(
            wf(x1, 16, |l| Some(
                if l < 8 { 16 * l } else { 2048 + 128 * l } as u64
            )),
            1
        );
        let x4 = Op::Ldmatrix {
            count: 4,
            trans: true,
        };
        assert_eq!(wf(x4, 16, |l| Some(128 * l as u64)), 32);
        assert_eq!(wf(x4, 16, |_| Some(0)), 4); // broadcast: no merging
    }

    #[test]
    fn cp_async_ca_counts_every_lane_and_cg_follows_the_sector_rule() {
        let ca = Op::CpAsync { bypass_l1: false };
        let cg = Op::CpAsync { bypass_l1: true };
        assert_eq!(wf(ca, 4, |_| Some(0)), 32);
        assert_eq!(wf(ca, 16, |l| Some(16 * l as u64)), 4);
        assert_eq!(wf(cg, 16, |_| Some(0)), 1);
        assert_eq!(wf(cg, 16, |l| Some(16 * l as u64)), 4);
        assert_eq!(wf(cg, 16, |l| Some(32 * l as u64)), 32);
        assert_eq!(wf(cg, 16, |l| Some(48 * l as u64)), 24);
        // the same copy with global == shared layout: 8 and 24
        let same = |s: u64| -> LaneOffsets { std::array::from_fn(|l| Some(s * l as u64)) };
        assert_eq!(bypass_wavefronts(&same(32), &same(32)), 8);
        assert_eq!(bypass_wavefronts(&same(48), &same(48)), 24);
    }
}
