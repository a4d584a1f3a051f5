//! What one warp instruction does to shared memory (operation, access width, 32 lane
//! offsets) and what the bank rules answer (phases, wavefronts, the busiest banks): the types
//! the [`engine`], its rules for plain loads and stores ([`plain`]) and for other operations
//! ([`ops`]) read and write.
//!
//! [`engine`]: crate::bank::engine
//! [`plain`]: crate::bank::plain
//! [`ops`]: crate::bank::ops

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

/// A phase's wavefronts relative to its ideal.
pub(crate) fn phase_ways(p: &Phase) -> u32 {
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
