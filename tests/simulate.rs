//! `banklint simulate` run as a real binary. Expected numbers come from the rules in
//! `docs/BANK_RULES.md` (phase splits, distinct words per bank, the wide-load merge rule), worked
//! out by hand in the comments, not from running the code.

use serde_json::Value;
use std::process::Command;

fn banklint(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_banklint"))
        .args(args)
        .output()
        .expect("run banklint");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn simulate(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["simulate"];
    all.extend_from_slice(args);
    banklint(&all)
}

fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--format", "json"]);
    let (code, stdout, stderr) = simulate(&all);
    assert_eq!(code, 0, "{args:?}: {stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}\n{stdout}"))
}

fn offsets(list: impl IntoIterator<Item = Option<u64>>) -> String {
    list.into_iter()
        .map(|o| o.map_or_else(|| "-".to_string(), |v| v.to_string()))
        .collect::<Vec<_>>()
        .join(",")
}

fn num(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("`{key}` is not a number in {v}"))
}

/// (wavefronts, ideal, conflict ways, merged)
fn totals(v: &Value) -> (u64, u64, u64, bool) {
    (
        num(v, "wavefronts"),
        num(v, "ideal_wavefronts"),
        num(v, "conflict_ways"),
        v["merged"].as_bool().expect("merged is a bool"),
    )
}

fn phase_lanes(v: &Value) -> Vec<(u64, u64)> {
    v["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["lanes"][0].as_u64().unwrap(),
                p["lanes"][1].as_u64().unwrap(),
            )
        })
        .collect()
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

#[test]
fn stride_one_float_is_one_wavefront() {
    // 32 consecutive words land in 32 different banks: one pass.
    let v = json(&["--arch", "sm_90", "--stride", "4"]);
    assert_eq!(totals(&v), (1, 1, 1, false));
    assert_eq!(phase_lanes(&v), vec![(0, 31)]);
    assert_eq!(v["phases"][0]["banks"].as_array().unwrap().len(), 32);

    let (code, stdout, _) = simulate(&["--stride", "4"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("wavefronts:  1 (ideal 1)"), "{stdout}");
    assert!(stdout.contains("conflict:    none"), "{stdout}");
}

#[test]
fn float_tile_column_is_32_way_in_bank_0() {
    // float tile[32][32], lane i reads tile[i][0]: offset 128 i, word 32 i, bank 0 for all;
    // 32 distinct words in one bank: 32 wavefronts, ideal 1.
    let list = offsets((0..32).map(|i| Some(i * 128)));
    let v = json(&["--offsets", &list]);
    assert_eq!(totals(&v), (32, 1, 32, false));
    let banks = v["phases"][0]["banks"].as_array().unwrap();
    assert_eq!(banks.len(), 1);
    assert_eq!(num(&banks[0], "bank"), 0);
    assert_eq!(u64s(&banks[0]["lanes"]), (0..32).collect::<Vec<_>>());
    assert_eq!(
        u64s(&banks[0]["words"]),
        (0..32).map(|i| i * 32).collect::<Vec<_>>()
    );

    let (_, stdout, _) = simulate(&["--offsets", &list]);
    assert!(stdout.contains("32-way"), "{stdout}");
    let marked: Vec<&str> = stdout.lines().filter(|l| l.starts_with('>')).collect();
    assert_eq!(marked.len(), 1, "{stdout}");
    assert!(marked[0].contains("0-31"), "{stdout}");
}

#[test]
fn eight_byte_stride_sixteen_is_four_wavefronts() {
    // double at stride 16 bytes: two phases of 16 lanes; in each, lane i covers words 4i and
    // 4i+1, so lanes i and i+8 share banks with different words: 2 passes per phase.
    let v = json(&["--bytes", "8", "--stride", "16"]);
    assert_eq!(totals(&v), (4, 2, 2, false));
    assert_eq!(phase_lanes(&v), vec![(0, 15), (16, 31)]);
    let bank0 = &v["phases"][0]["banks"][0];
    assert_eq!(num(bank0, "bank"), 0);
    assert_eq!(u64s(&bank0["lanes"]), vec![0, 8]);
    assert_eq!(u64s(&bank0["words"]), vec![0, 32]);
}

#[test]
fn wide_load_merge_rule() {
    // float4 s[0]: a load merges (lanes n and n^1 share addresses), so 16-lane phases each
    // reading words 0-3 once: 2 wavefronts. A store keeps four 8-lane phases: 4.
    let load = json(&["--bytes", "16", "--stride", "0"]);
    assert_eq!(totals(&load), (2, 2, 1, true));
    assert_eq!(phase_lanes(&load), vec![(0, 15), (16, 31)]);
    let store = json(&["--bytes", "16", "--stride", "0", "--op", "store"]);
    assert_eq!(totals(&store), (4, 4, 1, false));
    assert_eq!(
        phase_lanes(&store),
        vec![(0, 7), (8, 15), (16, 23), (24, 31)]
    );
    // double s[0]: one 32-lane phase when loading.
    assert_eq!(
        totals(&json(&["--bytes", "8", "--stride", "0"])),
        (1, 1, 1, true)
    );

    let (_, stdout, _) = simulate(&["--bytes", "16", "--stride", "0"]);
    assert!(stdout.contains("merge rule:  applied"), "{stdout}");
    let (_, stdout, _) = simulate(&["--bytes", "16", "--stride", "0", "--op", "store"]);
    assert!(stdout.contains("stores never merge"), "{stdout}");
}

#[test]
fn sm10_has_16_banks_per_half_warp() {
    // float tile[32][32] column on 1.x: each half-warp is its own request with 16 banks;
    // its 16 words all sit in bank 0: 16 steps per half, 32 in all.
    let v = json(&["--arch", "sm_10", "--stride", "128"]);
    assert_eq!(totals(&v), (32, 2, 16, false));
    assert_eq!(phase_lanes(&v), vec![(0, 15), (16, 31)]);
    // Stride one: each half-warp reads 16 words from 16 banks, one step each.
    let v = json(&["--arch", "sm_10", "--stride", "4"]);
    assert_eq!(totals(&v), (2, 2, 1, false));
    for phase in v["phases"].as_array().unwrap() {
        let banks: Vec<u64> = phase["banks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| num(b, "bank"))
            .collect();
        assert_eq!(banks, (0..16).collect::<Vec<_>>());
    }
    // double s[tid]: split into two 32-bit requests of word stride 2, each 2-way.
    let v = json(&["--arch", "sm_10", "--bytes", "8", "--stride", "8"]);
    assert_eq!(totals(&v), (8, 4, 2, false));
}

#[test]
fn kepler_bank_modes() {
    // Lanes 0 and 1 at bytes 0 and 384 (words 0 and 96). 4-byte mode: both in bank 0 and in
    // different 64-word segments, so 2-way. 8-byte mode: 8-byte units 0 and 48, banks 0 and
    // 16: no conflict.
    let mut lanes = vec![Some(0), Some(384)];
    lanes.extend(std::iter::repeat_n(None, 30));
    let list = offsets(lanes);
    let four = json(&["--arch", "sm_35", "--offsets", &list]);
    let eight = json(&["--arch", "sm_35", "--bank-mode", "8", "--offsets", &list]);
    assert_eq!(num(&four, "wavefronts"), 2);
    assert_eq!(num(&eight, "wavefronts"), 1);
    assert_eq!(num(&eight, "bank_mode"), 8);
    // float column of 128-byte rows in 8-byte mode: 8-byte unit 16 i, banks 0 and 16
    // alternate, 16 distinct units each.
    let v = json(&["--arch", "sm_35", "--bank-mode", "8", "--stride", "128"]);
    assert_eq!(num(&v, "wavefronts"), 16);
    let banks: Vec<u64> = v["phases"][0]["banks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| num(b, "bank"))
        .collect();
    assert_eq!(banks, vec![0, 16]);
    // double s[tid] in 8-byte mode: 32 units in 32 banks, one pass for the whole warp.
    let v = json(&[
        "--arch",
        "sm_35",
        "--bank-mode",
        "8",
        "--bytes",
        "8",
        "--stride",
        "8",
    ]);
    assert_eq!(totals(&v), (1, 1, 1, false));
    assert_eq!(phase_lanes(&v), vec![(0, 31)]);
}

#[test]
fn json_shape() {
    let v = json(&["--arch", "sm_90", "--bytes", "8", "--stride", "16"]);
    assert_eq!(v["arch"], "sm_90");
    assert_eq!(v["bytes"], 8);
    assert_eq!(v["op"], "load");
    for key in ["wavefronts", "ideal_wavefronts", "conflict_ways"] {
        assert!(v[key].is_u64(), "{key}");
    }
    assert!(v["merged"].is_boolean());
    for phase in v["phases"].as_array().unwrap() {
        assert_eq!(phase["lanes"].as_array().unwrap().len(), 2);
        assert!(phase["wavefronts"].is_u64());
        assert!(phase["ideal"].is_u64());
        for bank in phase["banks"].as_array().unwrap() {
            assert!(bank["bank"].is_u64());
            assert!(bank["lanes"].as_array().unwrap().iter().all(Value::is_u64));
            assert!(bank["words"].as_array().unwrap().iter().all(Value::is_u64));
        }
    }
}

#[test]
fn inactive_lanes_cost_nothing() {
    // Only lanes 0-15 of an 8-byte stride-8 access: the first phase reads 32 words from
    // 32 banks (1 pass); the second phase has no active lane and is not listed.
    let v = json(&["--bytes", "8", "--stride", "8", "--active", "16"]);
    assert_eq!(totals(&v), (1, 1, 1, false));
    assert_eq!(phase_lanes(&v), vec![(0, 15)]);
    let list = offsets((0..32).map(|i| (i % 2 == 0).then_some(i * 4)));
    let v = json(&["--offsets", &list]);
    assert_eq!(totals(&v), (1, 1, 1, false));
    let (_, stdout, _) = simulate(&["--offsets", &list]);
    assert!(stdout.contains("16 of 32 lanes active"), "{stdout}");
}

#[test]
fn human_output_fits_80_columns() {
    let scattered = offsets((0..32).map(|i| Some((i * i * 7 % 97) * 4)));
    let cases: Vec<Vec<&str>> = vec![
        vec!["--stride", "4"],
        vec!["--stride", "128"],
        vec!["--bytes", "16", "--stride", "32"],
        vec!["--bytes", "8", "--stride", "8", "--op", "store"],
        vec!["--arch", "sm_10", "--bytes", "16", "--stride", "16"],
        vec!["--arch", "sm_20", "--bytes", "16", "--stride", "16"],
        vec!["--arch", "sm_35", "--bank-mode", "8", "--stride", "12"],
        vec!["--arch", "sm_120", "--bytes", "2", "--stride", "2"],
        vec!["--offsets", &scattered],
    ];
    for args in cases {
        let (code, stdout, stderr) = simulate(&args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        for line in stdout.lines() {
            assert!(line.len() <= 80, "{args:?}: {line:?}");
        }
    }
}

fn assert_usage_error(args: &[&str], needle: &str) {
    let (code, stdout, stderr) = simulate(args);
    assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
    assert!(stdout.is_empty(), "{args:?}: {stdout}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: expected `{needle}` in {stderr}"
    );
}

#[test]
fn bad_input_is_a_one_line_error() {
    let zeros = offsets((0..32).map(|_| Some(0)));
    let mut short = (0..31).map(|i| (i * 4).to_string()).collect::<Vec<_>>();
    assert_usage_error(&["--offsets", &short.join(",")], "exactly 32");
    short.extend(["4".to_string(), "8".to_string()]);
    assert_usage_error(&["--offsets", &short.join(",")], "exactly 32");

    let mut items: Vec<String> = (0..32).map(|i| (i * 4).to_string()).collect();
    items[5] = "abc".to_string();
    assert_usage_error(&["--offsets", &items.join(",")], "not a number");
    items[5] = "-8".to_string();
    assert_usage_error(&["--offsets", &items.join(",")], "negative");
    items[5] = "".to_string();
    assert_usage_error(&["--offsets", &items.join(",")], "not a number");

    let misaligned = offsets((0..32).map(|i| Some(i * 4)));
    assert_usage_error(&["--bytes", "8", "--offsets", &misaligned], "not aligned");
    assert_usage_error(&["--bytes", "16", "--stride", "8"], "not aligned");
    assert_usage_error(
        &["--bytes", "4", "--stride", "4", "--base", "2"],
        "not aligned",
    );

    for width in ["3", "32", "0", "four", "-4"] {
        assert_usage_error(&["--bytes", width, "--stride", "16"], "--bytes");
    }
    assert_usage_error(
        &["--arch", "sm_99", "--stride", "4"],
        "unknown GPU architecture",
    );
    assert_usage_error(
        &["--arch", "volta", "--stride", "4"],
        "unknown GPU architecture",
    );
    for mode in ["2", "16", "eight"] {
        assert_usage_error(&["--bank-mode", mode, "--stride", "4"], "--bank-mode");
    }
    assert_usage_error(&["--offsets", &zeros, "--stride", "4"], "not both");
    assert_usage_error(&[], "--stride");
    assert_usage_error(&["--op", "fetch", "--stride", "4"], "--op");
    assert_usage_error(&["--stride", "-4"], "negative");
    assert_usage_error(&["--stride", "x"], "--stride");
    assert_usage_error(&["--stride", "4", "--active", "33"], "--active");
    assert_usage_error(&["--stride", "4", "--active", "0"], "--active");
    assert_usage_error(&["--offsets", &zeros, "--base", "4"], "--stride");
    let all_off = offsets((0..32).map(|_| None));
    assert_usage_error(&["--offsets", &all_off], "inactive");
    assert_usage_error(
        &["--stride", "170141183460469231731687303715884105727"],
        "largest",
    );
}

#[test]
fn archs_command() {
    let (code, stdout, stderr) = banklint(&["archs"]);
    assert_eq!(code, 0, "{stderr}");
    for line in stdout.lines() {
        assert!(line.len() <= 80, "{line:?}");
    }
    assert!(stdout.contains("10.x, 11.x and 12.x use the 5.x-9.x bank rules"));
    let row = |cc: &str| {
        stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(cc))
            .unwrap_or_else(|| panic!("no row for {cc}:\n{stdout}"))
            .to_string()
    };
    let sm90: Vec<String> = row("9.0").split_whitespace().map(String::from).collect();
    assert_eq!(sm90[1], "32x4B");
    assert!(row("9.0").contains("228 KB"));
    assert!(row("1.0-1.3").contains("16x4B"));

    let (code, stdout, _) = banklint(&["archs", "--format", "json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let rows = v["archs"].as_array().unwrap();
    let find = |arch: &str| {
        rows.iter()
            .find(|r| r["archs"].as_array().unwrap().iter().any(|a| a == arch))
            .unwrap_or_else(|| panic!("no row for {arch}"))
    };
    let hopper = find("sm_90");
    assert_eq!(hopper["banks"], 32);
    assert_eq!(hopper["lanes_per_phase"]["8"], 16);
    assert_eq!(hopper["lanes_per_phase"]["16"], 8);
    assert_eq!(hopper["wide_load_merge"], true);
    assert_eq!(hopper["per_sm"], 228 * 1024);
    assert_eq!(hopper["opt_in_per_block"], 227 * 1024);
    assert_eq!(find("sm_10")["banks"], 16);
    assert_eq!(find("sm_35")["bank_width_bytes"], 8);
    assert_eq!(find("sm_120")["rules_assumed"], true);
    assert_eq!(find("sm_86")["rules_assumed"], false);
    // Every known arch appears exactly once.
    let count: usize = rows
        .iter()
        .map(|r| r["archs"].as_array().unwrap().len())
        .sum();
    assert_eq!(count, banklint::bank::arch::KNOWN_ARCHS.len());
}

#[test]
fn archs_doc_matches_the_binary() {
    let (code, table, _) = banklint(&["archs", "--format", "markdown"]);
    assert_eq!(code, 0);
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ARCHS.md"))
        .expect("docs/ARCHS.md");
    assert!(
        doc.contains(&table),
        "docs/ARCHS.md is out of date; paste `banklint archs --format markdown` into it:\n{table}"
    );
}

// ---------------------------------------------------------------------------------------------
// Atomics, ldmatrix / stmatrix and cp.async. Expected numbers are the H100 measurements in
// tests/data/sm90_atomics.json and tests/data/sm90_matrix_ops.json (pattern names quoted).

/// Lane offsets as `--offsets` text.
fn lane_list(f: impl Fn(u64) -> u64) -> String {
    offsets((0..32).map(|l| Some(f(l))))
}

/// The usual A-fragment addressing of an x4 ldmatrix: lane l -> row l % 16, 16-byte chunk l / 16.
fn a_fragment(row_bytes: u64) -> String {
    lane_list(|l| (l % 16) * row_bytes + (l / 16) * 16)
}

#[test]
fn ldmatrix_on_an_hgemm_tile_plain_padded_and_swizzled() {
    // 128x32 half tile, 64-byte rows ("tile-row64B-a"): 16 wavefronts, 4-way, 12 conflicts.
    let plain = json(&["--op", "ldmatrix.x4", "--offsets", &a_fragment(64)]);
    assert_eq!(totals(&plain), (16, 4, 4, false));
    assert_eq!(plain["op"], "ldmatrix.x4");
    assert_eq!(
        phase_lanes(&plain),
        vec![(0, 7), (8, 15), (16, 23), (24, 31)]
    );
    // Rows 0, 2, 4, 6 of matrix 0 start in bank 0: four different words there.
    let bank0 = &plain["phases"][0]["banks"][0];
    assert_eq!((num(bank0, "bank"), num(bank0, "ways")), (0, 4));
    assert_eq!(u64s(&bank0["lanes"]), vec![0, 2, 4, 6]);
    // Padded to 80-byte rows ("tile-row80B-a"): 4, conflict-free.
    let padded = json(&["--op", "ldmatrix.x4", "--offsets", &a_fragment(80)]);
    assert_eq!(totals(&padded), (4, 4, 1, false));
    // Swizzle<2,3,3> ("tile-row64B-a-swizzle233"): 4.
    let swz = lane_list(|l| {
        let (r, c) = (l % 16, l / 16);
        let e = (r * 64 + c * 16) / 2;
        (e ^ ((e & (0b11 << 6)) >> 3)) * 2
    });
    assert_eq!(
        totals(&json(&["--op", "ldmatrix.x4", "--offsets", &swz])),
        (4, 4, 1, false)
    );
    // stmatrix on the plain tile ("stsm_x4 tile-row64B-a"): the same 16.
    assert_eq!(
        num(
            &json(&["--op", "stmatrix.x4", "--offsets", &a_fragment(64)]),
            "wavefronts"
        ),
        16
    );
}

#[test]
fn ldmatrix_trans_with_the_swizzle_of_cutlass_3172() {
    // B-fragment addressing (row (l % 8) + 8 (l / 16), chunk (l / 8) % 2) of a 128-byte-row tile.
    let b = |swizzle: Option<(u64, u64, u64)>| {
        lane_list(|l| {
            let off = ((l % 8) + 8 * (l / 16)) * 128 + ((l / 8) % 2) * 16;
            match swizzle {
                None => off,
                Some((bits, base, shift)) => {
                    let e = off / 2;
                    let mask = ((1 << bits) - 1) << (base + shift);
                    (e ^ ((e & mask) >> shift)) * 2
                }
            }
        })
    };
    // "tile-row128B-b": 32 (8-way); Swizzle<3,3,3>: 4; Swizzle<3,3,4>: 8 (still 2-way).
    let run = |o: &str| json(&["--op", "ldmatrix.x4.trans", "--offsets", o]);
    assert_eq!(totals(&run(&b(None))), (32, 4, 8, false));
    assert_eq!(totals(&run(&b(Some((3, 3, 3))))), (4, 4, 1, false));
    assert_eq!(totals(&run(&b(Some((3, 3, 4))))), (8, 4, 2, false));
}

#[test]
fn lanes_an_operation_does_not_read_are_ignored() {
    // "ldsm_x1 unused-lanes-conflicting": lanes 0-7 clean rows, lanes 8-31 all in bank 0: 1.
    let o = lane_list(|l| if l < 8 { 16 * l } else { 2048 + 128 * l });
    let v = json(&["--op", "ldmatrix.x1", "--offsets", &o]);
    assert_eq!(totals(&v), (1, 1, 1, false));
    assert_eq!((num(&v, "lanes_read"), num(&v, "active_lanes")), (8, 8));
    // Ignored lanes may be anything, even unaligned or `-`.
    let mut items: Vec<String> = (0..16).map(|l| (16 * l).to_string()).collect();
    items.push("3".to_string()); // not 16-byte aligned, and not read
    items.extend((17..32).map(|_| "-".to_string()));
    let loose = items.join(",");
    let v = json(&["--op", "ldmatrix.x2.trans", "--offsets", &loose]);
    assert_eq!(num(&v, "wavefronts"), 2);
    // A lane the shape reads must give an address.
    let (code, _, err) = simulate(&["--op", "stmatrix.x2", "--stride", "16", "--active", "8"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("lanes 0-15") && err.contains("lane 8"),
        "{err}"
    );
    // The human picture names the matrices and the lanes not read.
    let (code, out, _) = simulate(&["--op", "ldmatrix.x1", "--stride", "16"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("lanes 8-31 are not read by ldmatrix.x1"),
        "{out}"
    );
    assert!(out.contains("(lanes 0-7, matrix 0): 1 wavefront"), "{out}");
}

#[test]
fn atomics_serialize_on_one_word_unless_they_count() {
    // "atom_add_u32 stride0": 32; "atom_add1_u32 stride0" (ATOMS.POPC.INC): 1;
    // "atom_cas_u32 stride0": 64.
    assert_eq!(
        totals(&json(&["--op", "atomic", "--stride", "0"])),
        (32, 1, 32, false)
    );
    assert_eq!(
        totals(&json(&["--op", "atomic.count", "--stride", "0"])),
        (1, 1, 1, false)
    );
    assert_eq!(
        num(
            &json(&["--op", "atomic.cas", "--stride", "0"]),
            "wavefronts"
        ),
        64
    );
    // "groups2-samebank": pairs of lanes on 16 words of bank 0: 32 for ATOMS.ADD, 16 counted.
    let pairs = lane_list(|l| (l / 2) * 128);
    assert_eq!(
        num(
            &json(&["--op", "atomic", "--offsets", &pairs]),
            "wavefronts"
        ),
        32
    );
    assert_eq!(
        num(
            &json(&["--op", "atomic.count", "--offsets", &pairs]),
            "wavefronts"
        ),
        16
    );
    // "atom_cas_u64 stride1": 8-byte CAS, half-warps: 4.
    assert_eq!(
        num(
            &json(&["--op", "atomic.cas", "--bytes", "8", "--stride", "8"]),
            "wavefronts"
        ),
        4
    );
}

#[test]
fn a_cas_loop_reports_its_loads_and_tries() {
    // "atom_add_f32 stride32": 32 tries; ATOMS 64 wavefronts, LDS 528, 64 instructions.
    let v = json(&["--op", "atomic.cas-loop", "--stride", "128"]);
    assert_eq!(num(&v, "wavefronts"), 64 + 528);
    assert_eq!(num(&v, "load_wavefronts"), 528);
    assert_eq!(num(&v, "instructions"), 64);
    // "atom_add_u64 stride0": ATOMS 96 + LDS 32.
    let v = json(&["--op", "atomic.cas-loop", "--bytes", "8", "--stride", "0"]);
    assert_eq!(
        (num(&v, "wavefronts"), num(&v, "load_wavefronts")),
        (128, 32)
    );
    let (code, out, _) = simulate(&["--op", "atomic.cas-loop", "--stride", "0"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("32 of the wavefronts are the loop's LDS (32 tries)"),
        "{out}"
    );
}

#[test]
fn cp_async_through_l1_and_bypassing_it() {
    // "cp_ca_4 stride0": 32 lanes on one word, no broadcast: 32 (31 conflicts).
    assert_eq!(
        totals(&json(&["--op", "cp.async.ca", "--stride", "0"])),
        (32, 1, 32, false)
    );
    // "cp_ca_8 pairs-n^1": 4.
    let pairs = lane_list(|l| (l / 2) * 8);
    assert_eq!(
        num(
            &json(&["--op", "cp.async.ca", "--bytes", "8", "--offsets", &pairs]),
            "wavefronts"
        ),
        4
    );
    // "cp_ca_16 stride1": 4.
    assert_eq!(
        num(
            &json(&["--op", "cp.async.ca", "--bytes", "16", "--stride", "16"]),
            "wavefronts"
        ),
        4
    );
    // .cg, coalesced sources: "stride1" 4, "stride2" 32, "stride3" 24, "stride0" 1.
    let cg = |stride: &str| {
        num(
            &json(&["--op", "cp.async.cg", "--stride", stride]),
            "wavefronts",
        )
    };
    assert_eq!((cg("16"), cg("32"), cg("48"), cg("0")), (4, 32, 24, 1));
    assert_eq!(
        json(&["--op", "cp.async.cg", "--stride", "16"])["bytes"],
        16
    );
    // Widths and architectures the operations do not have.
    let (code, _, err) = simulate(&["--op", "cp.async.cg", "--bytes", "8", "--stride", "8"]);
    assert_eq!(code, 2);
    assert!(err.contains("cp.async.cg takes 16"), "{err}");
    let (code, _, err) = simulate(&["--op", "cp.async.ca", "--arch", "sm_75", "--stride", "4"]);
    assert_eq!(code, 2);
    assert!(err.contains("sm_80"), "{err}");
}

#[test]
fn simulate_agrees_with_a_sample_of_every_measured_operation() {
    // Every 25th measured pattern of both files, through the binary (cp.async.cg only where its
    // global sources are the coalesced ones simulate assumes).
    for file in ["sm90_atomics.json", "sm90_matrix_ops.json"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(file);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut checked = 0;
        for p in doc["patterns"].as_array().unwrap().iter().step_by(25) {
            let op = p["op"].as_str().unwrap();
            let offs: Vec<i64> = p["offsets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o.as_i64().unwrap())
                .collect();
            if op == "cp.async.cg"
                && (0..32).any(|l| offs[l] >= 0 && p["sources"][l].as_i64() != Some(16 * l as i64))
            {
                continue;
            }
            let list = offsets(offs.iter().map(|&o| (o >= 0).then_some(o as u64)));
            let width = p["width"].to_string();
            let v = json(&["--op", op, "--bytes", &width, "--offsets", &list]);
            let measured = num(p, "wavefronts") + p["load_wavefronts"].as_u64().unwrap_or(0);
            assert_eq!(num(&v, "wavefronts"), measured, "{file}: {p}");
            checked += 1;
        }
        assert!(checked >= 30, "{file}: only {checked} checked");
    }
}
