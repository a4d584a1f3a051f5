//! `banklint profile`: banklint's per-block prediction next to Nsight Compute's source page,
//! line by line. The CSVs in `tests/data/ncu/` are real exports (`ncu --page source --csv
//! --print-source cuda,sass`, H100, Nsight Compute 2025.3.1) of fixture 93 as it stands, and of
//! an earlier version of it whose stores nvcc removed (nothing read them back).

mod common;
use common::{banklint, temp_dir, write};
use std::path::Path;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `banklint profile fixtures/93_shift_clamp.cu --ncu-csv tests/data/ncu/CSV ARGS...`.
fn profile_93(csv: &str, args: &[&str]) -> common::Out {
    let csv = format!("tests/data/ncu/{csv}");
    let mut all = vec!["profile", "fixtures/93_shift_clamp.cu", "--ncu-csv", &csv];
    all.extend_from_slice(args);
    banklint(repo(), &all)
}

#[test]
fn a_profile_that_matches_agrees_line_by_line() {
    let out = profile_93("93_shift_clamp.h100.csv", &[]);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    // The padding macro whose padding is 0: 32 wavefronts, ideal 1, both ways.
    assert!(
        out.stdout
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == ["16", "32", "(1)", "32", "(1)", "agree"]),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("5 lines compared, 5 agree, 0 differ"),
        "{}",
        out.stdout
    );
}

#[test]
fn lines_that_differ_show_the_lane_to_bank_picture() {
    // Counted as two blocks, the measurement halves: every line differs.
    let out = profile_93("93_shift_clamp.h100.csv", &["--blocks", "2"]);
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("    16              32 (1)           16 (0.50)  differ"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(
            "banklint, worst instruction (warp 0): lanes 0-31 all hit bank 0, 32 different words"
        ),
        "{}",
        out.stdout
    );
    // A profile in which nvcc had removed the stores: nothing measured on those lines.
    let out = profile_93("93_shift_clamp_stores_removed.h100.csv", &[]);
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("differ: no shared-memory traffic measured on this line (the compiler removed the access"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_file_that_is_not_a_source_page_is_an_error_naming_it() {
    let dir = temp_dir("profile");
    write(&dir, "k.csv", b"a,b\n1,2\n");
    let out = banklint(
        repo(),
        &[
            "profile",
            "fixtures/93_shift_clamp.cu",
            "--ncu-csv",
            dir.join("k.csv").to_str().unwrap(),
        ],
    );
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr.contains("k.csv: no source-page table in it"),
        "{}",
        out.stderr
    );
    let out = banklint(
        repo(),
        &[
            "profile",
            "fixtures/nope.cu",
            "--ncu-csv",
            "tests/data/ncu/93_shift_clamp.h100.csv",
        ],
    );
    assert_eq!(out.code, Some(2));
    assert!(out.stderr.contains("fixtures/nope.cu"), "{}", out.stderr);
}
