//! The bank engine against warp patterns measured with Nsight Compute on real GPUs.
//! Every measured pattern must be predicted exactly, wavefront for wavefront.

use banklint::bank::arch::{Arch, BankMode, Target};
use banklint::bank::engine::{self, Op, WARP_SIZE, WarpAccess};
use serde_json::Value;
use std::path::Path;

struct Outcome {
    total: usize,
    mismatches: Vec<String>,
}

fn check_file(name: &str) -> Option<Outcome> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&path).ok()?;
    let doc: Value = serde_json::from_str(&text).expect("calibration file is valid JSON");
    let device = doc["device"].as_str().unwrap_or("");
    // The device string ends with the arch, e.g. "NVIDIA H200 (sm_90)".
    let arch = device
        .rsplit_once("(sm_")
        .and_then(|(_, rest)| Arch::parse(&format!("sm_{}", rest.trim_end_matches(')'))).ok())
        .unwrap_or(Arch::DEFAULT);
    let target = Target::new(arch, BankMode::FourByte);
    let patterns = doc["patterns"].as_array().expect("patterns array");
    let mut mismatches = Vec::new();
    for (i, p) in patterns.iter().enumerate() {
        let offsets_json = p["offsets"].as_array().expect("offsets");
        assert_eq!(offsets_json.len(), WARP_SIZE, "pattern {i} has 32 lanes");
        let mut offsets = [None; WARP_SIZE];
        for (lane, o) in offsets_json.iter().enumerate() {
            let v = o.as_i64().expect("integer offset");
            offsets[lane] = (v >= 0).then_some(v as u64);
        }
        let op = match p["op"].as_str() {
            Some("load") => Op::Load,
            Some("store") => Op::Store,
            other => panic!("pattern {i}: bad op {other:?}"),
        };
        let access = WarpAccess {
            width: p["width"].as_u64().expect("width") as u32,
            op,
            offsets,
        };
        let verdict = engine::wavefronts(target, &access);
        let measured = p["wavefronts"].as_u64().expect("wavefronts") as u32;
        let measured_ideal = p["ncu_bank_conflicts"]
            .as_u64()
            .map(|c| measured - c as u32);
        if verdict.wavefronts != measured || measured_ideal.is_some_and(|m| m != verdict.ideal) {
            mismatches.push(format!(
                "pattern {i} ({} B {}): measured {measured} (ideal {measured_ideal:?}), engine {} (ideal {})",
                access.width,
                op.name(),
                verdict.wavefronts,
                verdict.ideal
            ));
        }
    }
    Some(Outcome {
        total: patterns.len(),
        mismatches,
    })
}

#[test]
fn engine_predicts_every_h200_calibration_pattern() {
    let outcome = check_file("sm90_calibration.json").expect("tests/data/sm90_calibration.json");
    assert_eq!(outcome.total, 2500);
    assert!(
        outcome.mismatches.is_empty(),
        "{} of {} patterns mispredicted:\n{}",
        outcome.mismatches.len(),
        outcome.total,
        outcome.mismatches.join("\n")
    );
}

#[test]
fn engine_predicts_our_own_measurements() {
    // Measured by hw/measure.py on a lent GPU; see hw/README.md.
    let Some(outcome) = check_file("sm90_own_measurements.json") else {
        panic!("tests/data/sm90_own_measurements.json is missing");
    };
    assert!(outcome.total >= 600, "only {} patterns", outcome.total);
    assert!(
        outcome.mismatches.is_empty(),
        "{} of {} patterns mispredicted:\n{}",
        outcome.mismatches.len(),
        outcome.total,
        outcome.mismatches.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Atomics, ldmatrix / stmatrix and cp.async, measured by hw/measure_ops.py on an H100 (see
// hw/ATOMICS_AND_MATRIX_OPS.md). Each pattern's wavefronts, and where the profiler counts them
// meaningfully its bank conflicts and instructions, must come out of the engine exactly.

use banklint::bank::engine::{AtomicKind, LaneOffsets};
use banklint::bank::ops;

fn parse_op(text: &str) -> Op {
    let matrix = |rest: &str| -> (u8, bool) {
        let (shape, trans) = match rest.strip_suffix(".trans") {
            Some(s) => (s, true),
            None => (rest, false),
        };
        let count = shape.strip_prefix('x').and_then(|n| n.parse().ok());
        (count.expect("matrix shape"), trans)
    };
    match text {
        "atomic.rmw" => Op::Atomic(AtomicKind::Rmw),
        "atomic.count" => Op::Atomic(AtomicKind::Count),
        "atomic.cas" => Op::Atomic(AtomicKind::Cas),
        "atomic.cas-loop" => Op::Atomic(AtomicKind::CasLoop),
        "cp.async.ca" => Op::CpAsync { bypass_l1: false },
        "cp.async.cg" => Op::CpAsync { bypass_l1: true },
        _ => {
            if let Some(rest) = text.strip_prefix("ldmatrix.") {
                let (count, trans) = matrix(rest);
                Op::Ldmatrix { count, trans }
            } else if let Some(rest) = text.strip_prefix("stmatrix.") {
                let (count, trans) = matrix(rest);
                Op::Stmatrix { count, trans }
            } else {
                panic!("unknown op {text}")
            }
        }
    }
}

fn lanes(value: &Value) -> LaneOffsets {
    let list = value.as_array().expect("32 lanes");
    assert_eq!(list.len(), WARP_SIZE);
    let mut out = [None; WARP_SIZE];
    for (lane, o) in list.iter().enumerate() {
        let v = o.as_i64().expect("integer offset");
        out[lane] = (v >= 0).then_some(v as u64);
    }
    out
}

/// Checks every pattern of one file; returns (patterns, mismatches).
fn check_ops_file(name: &str) -> (usize, Vec<String>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("measured data file");
    let doc: Value = serde_json::from_str(&text).expect("valid JSON");
    assert!(doc["device"].as_str().unwrap_or("").ends_with("(sm_90)"));
    let target = Target::new(Arch::DEFAULT, BankMode::FourByte);
    let patterns = doc["patterns"].as_array().expect("patterns");
    let mut bad = Vec::new();
    for (i, p) in patterns.iter().enumerate() {
        let op = parse_op(p["op"].as_str().expect("op"));
        let width = p["width"].as_u64().expect("width") as u32;
        let offsets = lanes(&p["offsets"]);
        let field = |k: &str| p[k].as_u64().unwrap_or_else(|| panic!("pattern {i}: {k}")) as u32;
        let v = engine::wavefronts(target, &WarpAccess { width, op, offsets });
        // (what, measured, engine) for every quantity compared
        let mut checks: Vec<(&str, u32, u32)> = Vec::new();
        match op {
            Op::Atomic(AtomicKind::CasLoop) => {
                checks.push((
                    "ATOMS wavefronts",
                    field("wavefronts"),
                    v.wavefronts - v.load_wavefronts,
                ));
                checks.push((
                    "LDS wavefronts",
                    field("load_wavefronts"),
                    v.load_wavefronts,
                ));
                checks.push((
                    "instructions",
                    field("instructions") + field("load_instructions"),
                    v.instructions,
                ));
                // ATOMS.CAST.SPIN serves one lane per bank per try: ncu counts no conflict.
                checks.push(("ATOMS bank conflicts", field("ncu_bank_conflicts"), 0));
            }
            Op::Atomic(AtomicKind::Cas) => {
                checks.push(("wavefronts", field("wavefronts"), v.wavefronts));
                // ncu counts a CAS's conflicts in passes of two wavefronts.
                checks.push((
                    "bank conflicts",
                    field("ncu_bank_conflicts"),
                    (v.wavefronts - v.ideal) / 2,
                ));
                checks.push(("instructions", field("instructions"), v.instructions));
            }
            Op::CpAsync { bypass_l1: true } => {
                let sources = lanes(&p["sources"]);
                let coalesced = ops::coalesced_sources();
                let engine_wf =
                    if (0..WARP_SIZE).all(|l| offsets[l].is_none() || sources[l] == coalesced[l]) {
                        v.wavefronts
                    } else {
                        ops::bypass_wavefronts(&offsets, &sources)
                    };
                checks.push(("wavefronts", field("wavefronts"), engine_wf));
                // The profiler counts no bank conflicts for L1-bypass copies.
                checks.push(("bank conflicts", field("ncu_bank_conflicts"), 0));
            }
            _ => {
                checks.push(("wavefronts", field("wavefronts"), v.wavefronts));
                checks.push((
                    "bank conflicts",
                    field("ncu_bank_conflicts"),
                    v.wavefronts - v.ideal,
                ));
                checks.push(("instructions", field("instructions"), v.instructions));
            }
        }
        for (what, measured, predicted) in checks {
            if measured != predicted {
                bad.push(format!(
                    "pattern {i} ({} {}, {}): {what} measured {measured}, engine {predicted}",
                    p["kernel"].as_str().unwrap_or("?"),
                    op.spelling(),
                    p["gen"].as_str().unwrap_or("")
                ));
            }
        }
    }
    (patterns.len(), bad)
}

#[test]
fn engine_predicts_every_measured_atomic_pattern() {
    let (total, bad) = check_ops_file("sm90_atomics.json");
    assert_eq!(total, 987);
    assert!(
        bad.is_empty(),
        "{} of {total} mispredicted:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn engine_predicts_every_measured_ldmatrix_stmatrix_and_cp_async_pattern() {
    let (total, bad) = check_ops_file("sm90_matrix_ops.json");
    assert_eq!(total, 1862);
    assert!(
        bad.is_empty(),
        "{} of {total} mispredicted:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// `mbarrier` operations (`hw/probe_mbarrier.cu`): one warp, 64 repetitions per launch, each
/// active lane on the barrier at `lane / group * stride`; ncu's counters cover the whole
/// launch, so the setup's (op `none`, same pattern) is subtracted. Plain 8-byte loads and
/// stores of the same addresses are the control.
#[test]
fn engine_predicts_every_measured_mbarrier_launch() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sm90_mbarrier.json");
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("data")).expect("JSON");
    let launches = doc["launches"].as_array().expect("launches");
    let target = Target::new(Arch::DEFAULT, BankMode::FourByte);
    let num = |l: &Value, k: &str| l[k].as_u64().unwrap_or_else(|| panic!("{k}: {l}"));
    let pattern = |l: &Value| (num(l, "stride"), num(l, "group"), num(l, "lanes"));
    let setup = |l: &Value| {
        launches
            .iter()
            .find(|b| b["op"] == "none" && pattern(b) == pattern(l))
            .expect("a setup launch for every pattern")
    };
    let mut bad = Vec::new();
    let mut checked = 0;
    for l in launches.iter().filter(|l| l["op"] != "none") {
        let name = l["op"].as_str().expect("op");
        let op = match name {
            "ld.shared.b64" => Op::Load,
            "st.shared.b64" => Op::Store,
            "init" => Op::Mbarrier { init: true },
            _ => Op::Mbarrier { init: false },
        };
        let (stride, group, lanes) = pattern(l);
        let offsets = std::array::from_fn(|lane| {
            ((lane as u64) < lanes).then_some(lane as u64 / group * stride)
        });
        let v = engine::wavefronts(
            target,
            &WarpAccess {
                width: 8,
                op,
                offsets,
            },
        );
        let reps = num(l, "reps");
        // `inval` runs after an `init` of the same barriers in each repetition.
        let with_init = if name == "inval" {
            let init = Op::Mbarrier { init: true };
            engine::wavefronts(
                target,
                &WarpAccess {
                    width: 8,
                    op: init,
                    offsets,
                },
            )
            .wavefronts
        } else {
            0
        };
        let measured = num(l, "shared_wavefronts") - num(setup(l), "shared_wavefronts");
        let predicted = reps * u64::from(v.wavefronts + with_init);
        let conflicts = num(l, "bank_conflicts") - num(setup(l), "bank_conflicts");
        let predicted_conflicts = match op {
            // ncu counts a conflict per wavefront past the first of each 16-lane phase.
            Op::Load | Op::Store => reps * u64::from(v.wavefronts - v.ideal),
            _ => 0,
        };
        if measured != predicted || (op.is_plain() && conflicts != predicted_conflicts) {
            bad.push(format!(
                "{name} stride {stride} group {group} lanes {lanes}: measured {measured} wavefronts ({conflicts} conflicts), engine {predicted} ({predicted_conflicts})"
            ));
        }
        if !op.is_plain() {
            assert_eq!(
                conflicts, 0,
                "{name}: ncu counts no bank conflict for mbarrier"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 99);
    assert!(bad.is_empty(), "mispredicted:\n{}", bad.join("\n"));
    // What the docs claim about time: it follows the barriers, not the banks. 32 barriers 8
    // bytes apart (32 banks) take as long as 32 barriers 128 bytes apart (one bank), within 2%.
    for name in ["arrive", "expect_tx", "try_wait.parity", "test_wait.parity"] {
        let cycles = |stride: u64| {
            let l = launches
                .iter()
                .find(|l| l["op"] == name && pattern(l) == (stride, 1, 32))
                .expect("launch");
            num(l, "cycles") as f64
        };
        let (spread, one_bank) = (cycles(8), cycles(128));
        assert!(
            (one_bank / spread - 1.0).abs() < 0.02,
            "{name}: {spread} vs {one_bank}"
        );
    }
}
