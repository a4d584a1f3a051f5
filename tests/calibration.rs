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
