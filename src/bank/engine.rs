//! The bank engine: a pure function from one warp instruction (target, operation and access
//! width, 32 per-lane byte offsets) to the wavefronts the hardware needs to serve it.
//!
//! Loads and stores follow the rules per family of `docs/BANK_RULES.md`, in [`plain`]; the
//! 5.x+ rules (phases and the wide-load merge rule) reproduce every pattern of the sm_90
//! calibration data measured with Nsight Compute. Atomics, ldmatrix / stmatrix, cp.async and
//! mbarrier follow their own measured rules, in [`ops`]. What goes in and comes out is
//! [`access`]'s, named here too: this module is the engine's one entry.
//!
//! [`plain`]: crate::bank::plain
//! [`ops`]: crate::bank::ops
//! [`access`]: crate::bank::access

// The engine's interface, named where callers look for it.
pub use crate::bank::access::{
    AtomicKind, BankLoad, LaneOffsets, Op, Phase, Verdict, WARP_SIZE, WarpAccess,
};
use crate::bank::arch::Target;
use crate::bank::{ops, plain};

/// Computes wavefronts, ideal and conflict degree of one warp instruction.
pub fn wavefronts(target: Target, access: &WarpAccess) -> Verdict {
    if access.op.is_plain() {
        plain::verdict(target, access)
    } else {
        ops::wavefronts(target, access)
    }
}

/// Per-bank detail of one phase, for explanations and `simulate`'s picture.
pub fn bank_map(target: Target, access: &WarpAccess, phase: &Phase) -> Vec<BankLoad> {
    if access.op.is_plain() {
        bank_loads(plain::touches(target, access, phase))
    } else {
        bank_loads(ops::phase_touches(access, phase))
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::arch::{Arch, BankMode};

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
