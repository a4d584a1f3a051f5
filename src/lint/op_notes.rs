//! The notes that explain a conflict on an operation other than a plain load or store: what
//! the source compiles to and why lanes on one word cost what they cost (the measured rules of
//! `hw/ATOMICS_AND_MATRIX_OPS.md`).

use crate::bank::engine::{AtomicKind, BankLoad, Op, Verdict};
use crate::bank::ops::per_lane;

/// The busiest banks of an operation that serves each lane on its own (atomics other than
/// the count, `cp.async.ca`), said in lane requests rather than words; `None` for others.
pub fn per_lane_bank_note(op: Op, hot: &[&BankLoad], phase_text: &str) -> Option<String> {
    if !per_lane(op) {
        return None;
    }
    let requests = hot.first()?.units.len();
    let one_word = |b: &BankLoad| {
        let mut words: Vec<u64> = b.units.iter().map(|u| u / 32).collect();
        words.dedup();
        words.len() == 1
    };
    if let [only] = hot
        && only.lanes.len() > 1
        && one_word(only)
    {
        return Some(format!(
            "lanes {} all update one word in bank {}{phase_text}, and lanes on one word are served one at a time",
            compress_lanes(&only.lanes),
            only.bank
        ));
    }
    let shown: Vec<String> = hot
        .iter()
        .take(3)
        .map(|b| format!("bank {} by lanes {}", b.bank, compress_lanes(&b.lanes)))
        .collect();
    let banks = if hot.len() == 1 {
        "1 bank serves".to_string()
    } else {
        format!("{} banks each serve", hot.len())
    };
    Some(format!(
        "{banks} {requests} lane requests{phase_text} (each lane on its own, lanes on one word included): {}{}",
        shown.join("; "),
        if hot.len() > 3 { ", ..." } else { "" }
    ))
}

/// What the operation compiles to and how that is served, for atomics; `None` for others.
pub fn op_note(op: Op, v: &Verdict) -> Option<String> {
    let Op::Atomic(kind) = op else {
        return None;
    };
    Some(match kind {
        AtomicKind::Count => "`atomicAdd(p, 1)` on a 32-bit integer with its result unused compiles to `ATOMS.POPC.INC`: lanes on one word are one request, so it costs what a load of the same addresses costs".to_string(),
        AtomicKind::Rmw => "this atomic compiles to one `ATOMS` read-modify-write, which serves each lane on its own, lanes on one word included (only `atomicAdd(p, 1)` on a 32-bit integer with its result unused compiles to `ATOMS.POPC.INC`, where they share one request)".to_string(),
        AtomicKind::Cas => "`atomicCAS` compiles to `ATOMS.CAS`: two wavefronts for each lane in the busiest bank".to_string(),
        AtomicKind::CasLoop => format!(
            "this atomic compiles to a compare-and-swap loop (`LDS` + `ATOMS.CAST.SPIN`, once per lane in the busiest bank): {} tries here, {} of the wavefronts are the loop's loads",
            v.instructions / 2,
            v.load_wavefronts
        ),
    })
}

/// `0-15`, `0, 2, ..., 30`, `1, 5, 9`.
pub fn compress_lanes(lanes: &[usize]) -> String {
    match lanes {
        [] => String::new(),
        [a] => a.to_string(),
        [a, b] => format!("{a} and {b}"),
        _ => {
            let step = lanes[1] - lanes[0];
            let progression = lanes.windows(2).all(|w| w[1] - w[0] == step);
            if progression && step == 1 {
                format!("{}-{}", lanes[0], lanes[lanes.len() - 1])
            } else if progression && lanes.len() > 3 {
                format!(
                    "{}, {}, ..., {}",
                    lanes[0],
                    lanes[1],
                    lanes[lanes.len() - 1]
                )
            } else {
                lanes
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_lists_compress() {
        assert_eq!(compress_lanes(&(0..32).collect::<Vec<_>>()), "0-31");
        assert_eq!(compress_lanes(&[0, 2, 4, 6]), "0, 2, ..., 6");
        assert_eq!(compress_lanes(&[0, 16]), "0 and 16");
        assert_eq!(compress_lanes(&[1, 5, 6]), "1, 5, 6");
    }
}
