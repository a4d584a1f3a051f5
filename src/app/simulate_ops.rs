//! What `banklint simulate` needs to know about operations other than plain loads and stores:
//! their spellings (`--op ldmatrix.x4.trans`), default and allowed widths, the architectures
//! that have them, and the notes printed under their picture.

use crate::bank::arch::Arch;
use crate::bank::engine::{AtomicKind, Op, Verdict};
use crate::bank::ops;

/// The `--op` spellings, for help and errors.
pub const OP_SPELLINGS: &str = "load, store, atomic[.rmw|.count|.cas|.cas-loop], \
     ldmatrix.x1|x2|x4[.trans], stmatrix.x1|x2|x4[.trans], cp.async.ca, cp.async.cg, \
     mbarrier.init, mbarrier (any other barrier operation), tma.load, tma.store";

/// Parses `--op`.
pub fn parse_op(text: &str) -> Result<Op, String> {
    let t = text.trim().to_ascii_lowercase();
    let op = match t.as_str() {
        "load" | "ld" | "read" => Some(Op::Load),
        "store" | "st" | "write" => Some(Op::Store),
        "atomic" | "atomic.rmw" => Some(Op::Atomic(AtomicKind::Rmw)),
        "atomic.count" => Some(Op::Atomic(AtomicKind::Count)),
        "atomic.cas" => Some(Op::Atomic(AtomicKind::Cas)),
        "atomic.cas-loop" => Some(Op::Atomic(AtomicKind::CasLoop)),
        "cp.async.ca" | "cp.async" => Some(Op::CpAsync { bypass_l1: false }),
        "cp.async.cg" => Some(Op::CpAsync { bypass_l1: true }),
        "mbarrier.init" => Some(Op::Mbarrier { init: true }),
        // Every other barrier operation costs the same: nothing in the banks.
        "mbarrier"
        | "mbarrier.arrive"
        | "mbarrier.arrive.expect_tx"
        | "mbarrier.expect_tx"
        | "mbarrier.complete_tx"
        | "mbarrier.test_wait"
        | "mbarrier.try_wait"
        | "mbarrier.arrive_drop"
        | "mbarrier.inval" => Some(Op::Mbarrier { init: false }),
        "tma.load" => Some(Op::TensorCopy { to_shared: true }),
        "tma.store" => Some(Op::TensorCopy { to_shared: false }),
        _ => matrix_op(&t),
    };
    op.ok_or_else(|| format!("invalid --op `{text}` (expected one of: {OP_SPELLINGS})"))
}

fn matrix_op(t: &str) -> Option<Op> {
    let (ld, rest) = if let Some(rest) = t.strip_prefix("ldmatrix.") {
        (true, rest)
    } else {
        (false, t.strip_prefix("stmatrix.")?)
    };
    let (shape, trans) = match rest.strip_suffix(".trans") {
        Some(shape) => (shape, true),
        None => (rest, false),
    };
    let count = match shape {
        "x1" => 1,
        "x2" => 2,
        "x4" => 4,
        _ => return None,
    };
    Some(if ld {
        Op::Ldmatrix { count, trans }
    } else {
        Op::Stmatrix { count, trans }
    })
}

/// `--bytes` when it is not given: 16 for ldmatrix / stmatrix (one row per lane) and
/// `cp.async.cg`, else 4.
pub fn default_width(op: Op) -> u32 {
    match op {
        Op::Ldmatrix { .. }
        | Op::Stmatrix { .. }
        | Op::CpAsync { bypass_l1: true }
        | Op::TensorCopy { .. } => 16,
        Op::Mbarrier { .. } => 8,
        _ => 4,
    }
}

/// The error for a width the operation does not have.
pub fn check_width(op: Op, width: u32, text: &str) -> Result<(), String> {
    if ops::width_is_valid(op, width) {
        return Ok(());
    }
    let allowed = match op {
        Op::Load | Op::Store => "1, 2, 4, 8 or 16",
        Op::Atomic(AtomicKind::Count) => "4",
        Op::Atomic(_) => "4 or 8",
        Op::Ldmatrix { .. } | Op::Stmatrix { .. } => "16 (each lane gives one 16-byte row)",
        Op::CpAsync { bypass_l1: true } => "16",
        Op::CpAsync { bypass_l1: false } => "4, 8 or 16",
        Op::Mbarrier { .. } => "8 (one barrier object)",
        Op::TensorCopy { .. } => "16 (the issuing lane gives the tile's address)",
    };
    Err(format!(
        "invalid --bytes `{text}` ({} takes {allowed} bytes per lane)",
        op.spelling()
    ))
}

/// The first compute capability that has the operation.
fn first_arch(op: Op) -> Option<(u32, u32)> {
    match op {
        Op::Ldmatrix { .. } => Some((7, 5)),
        Op::Stmatrix { .. } | Op::TensorCopy { .. } => Some((9, 0)),
        Op::CpAsync { .. } | Op::Mbarrier { .. } => Some((8, 0)),
        _ => None,
    }
}

/// Refuses an operation the architecture does not have, and the new operations before 5.x,
/// whose bank rules were measured on sm_90 only.
pub fn check_arch(op: Op, arch: Arch) -> Result<(), String> {
    if !op.is_plain() && arch.major < 5 {
        return Err(format!(
            "{}: its bank rule was measured on sm_90 and is applied from sm_50 on, not on {arch}",
            op.spelling()
        ));
    }
    match first_arch(op) {
        Some((major, minor)) if (arch.major, arch.minor) < (major, minor) => Err(format!(
            "{} needs sm_{major}{minor} or later; {arch} does not have it",
            op.spelling()
        )),
        _ => Ok(()),
    }
}

/// What to call phase `index` in the picture (`matrix 2`, `global line 1`), if anything.
pub fn phase_label(op: Op, index: usize) -> Option<String> {
    match op {
        Op::Ldmatrix { .. } | Op::Stmatrix { .. } => Some(format!("matrix {index}")),
        Op::CpAsync { bypass_l1: true } => Some(format!("global line {index}")),
        _ => None,
    }
}

/// Extra total lines under the picture (a CAS loop's loads and tries).
pub fn extra_totals(op: Op, verdict: &Verdict) -> Vec<String> {
    match op {
        Op::Atomic(AtomicKind::CasLoop) => vec![
            format!(
                "loads:       {} of the wavefronts are the loop's LDS ({} tries)",
                verdict.load_wavefronts,
                verdict.instructions / 2
            ),
            format!(
                "instructions: {} (an LDS and an ATOMS.CAST.SPIN per try)",
                verdict.instructions
            ),
        ],
        _ => Vec::new(),
    }
}

/// How the measured rule of the operation works, for the picture's notes.
pub fn notes(op: Op) -> &'static [&'static str] {
    match op {
        Op::Load | Op::Store => &[],
        Op::Atomic(AtomicKind::Rmw) => &[
            "atomic (ATOMS.ADD/EXCH/OR/...): every lane is served on its own, lanes on",
            "  the same word too (no broadcast): ways = lanes in the bank. Measured on sm_90.",
        ],
        Op::Atomic(AtomicKind::Count) => &[
            "atomic.count (ATOMS.POPC.INC, atomicAdd(p, 1) with the result unused): lanes",
            "  on one word are one request, as for a load. Measured on sm_90.",
        ],
        Op::Atomic(AtomicKind::Cas) => &[
            "atomic.cas (ATOMS.CAS): two wavefronts per lane in the busiest bank, lanes",
            "  on one word included. Measured on sm_90.",
        ],
        Op::Atomic(AtomicKind::CasLoop) => &[
            "atomic.cas-loop (LDS + ATOMS.CAST.SPIN, e.g. atomicAdd on float): each try",
            "  serves the lowest lane left in each bank, so tries = lanes in the busiest",
            "  bank; each try costs 2 wavefronts per phase plus its load. Measured on sm_90.",
        ],
        Op::Ldmatrix { .. } | Op::Stmatrix { .. } => &[
            "ldmatrix/stmatrix: lanes 8k..8k+7 give the 8 row addresses of matrix k; each",
            "  matrix is one phase; lanes past the last matrix are not read; .trans costs",
            "  the same. Measured on sm_90.",
        ],
        Op::CpAsync { bypass_l1: false } => &[
            "cp.async.ca: the phases of a store; every lane counts in its banks, lanes",
            "  writing the same word too. Measured on sm_90.",
        ],
        Op::CpAsync { bypass_l1: true } => &[
            "cp.async.cg: written per 32-byte global sector, so the cost depends on where",
            "  the data comes from; assumed: lane l copies bytes 16l..16l+15 of a 128-byte-",
            "  aligned block (phase j = global line j). A lane writing the same 16 bytes",
            "  as a lower lane is dropped. The bank table shows where the data lands; its",
            "  ways are not the cost. See hw/ATOMICS_AND_MATRIX_OPS.md. Measured on sm_90.",
        ],
        Op::Mbarrier { init: true } => &[
            "mbarrier.init: one wavefront per distinct 8-byte barrier the lanes address,",
            "  wherever the barriers lie; lanes on one barrier are one. No layout changes",
            "  it, so it is never a conflict. See hw/MBARRIER.md. Measured on sm_90.",
        ],
        Op::Mbarrier { init: false } => &[
            "mbarrier (arrive, expect_tx, complete_tx, test_wait, try_wait, arrive_drop,",
            "  inval): served by the synchronization unit, not the banks: no wavefronts.",
            "  Its time grows with the distinct barriers a warp touches, not with banks.",
            "  See hw/MBARRIER.md. Measured on sm_90.",
        ],
        Op::TensorCopy { .. } => &[
            "tma.load / tma.store (cp.async.bulk.tensor): the copy engine moves the tile,",
            "  not the lanes: no wavefronts at the instruction's line. Its tensor map's",
            "  swizzle decides where each element lies, which the tile's readers must follow.",
            "  See docs/TMA_SWIZZLE.md. Measured on sm_90.",
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_parses_back_to_itself() {
        let all = [
            "load",
            "store",
            "atomic.rmw",
            "atomic.count",
            "atomic.cas",
            "atomic.cas-loop",
            "ldmatrix.x1",
            "ldmatrix.x2.trans",
            "ldmatrix.x4",
            "stmatrix.x1.trans",
            "stmatrix.x4",
            "cp.async.ca",
            "cp.async.cg",
            "tma.load",
            "tma.store",
        ];
        for text in all {
            assert_eq!(parse_op(text).unwrap().spelling(), text);
        }
        assert_eq!(parse_op("atomic").unwrap(), Op::Atomic(AtomicKind::Rmw));
        assert!(parse_op("ldmatrix.x3").is_err());
        assert!(parse_op("stmatrix").is_err());
        assert!(parse_op("cp.async.cs").is_err());
    }

    #[test]
    fn architectures_without_the_operation_are_refused() {
        let arch = |t: &str| Arch::parse(t).unwrap();
        let x4 = Op::Stmatrix {
            count: 4,
            trans: false,
        };
        assert!(check_arch(x4, arch("sm_89")).is_err());
        assert!(check_arch(x4, arch("sm_90")).is_ok());
        assert!(check_arch(Op::CpAsync { bypass_l1: true }, arch("sm_80")).is_ok());
        assert!(check_arch(Op::Atomic(AtomicKind::Rmw), arch("sm_35")).is_err());
        assert!(check_arch(Op::Load, arch("sm_10")).is_ok());
    }
}
