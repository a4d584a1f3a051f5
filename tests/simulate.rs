//! `banklint simulate` run as a real binary. Expected numbers come from the rules in
//! `BANK_RULES.md` (phase splits, distinct words per bank, the wide-load merge rule), worked
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
