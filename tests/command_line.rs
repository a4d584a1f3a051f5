//! The command line as ruff's and clang-tidy's users expect it: `--select`/`--ignore` of rule
//! codes over `[severity]`, `--min-ways`, no path meaning the current directory, and each
//! file checked under the `banklint.toml` nearest to it. Each case runs the real binary.

mod common;

use common::{banklint, temp_dir, write};
use std::path::Path;

/// Line 3: a 32-way store (the column of a 32x32 float tile: word 32 * lane, all in bank 0).
/// Line 4: a 2-way load (word 32 * (lane / 16) + 2 * (lane % 16) = 2 * lane: lanes l and
/// l + 16 meet in bank 2l mod 32 on different words).
/// Line 5: an index read from memory, a note (`unanalyzed-access`).
const MIXED: &str = "__global__ void k(const int *in, float *o) {\n    __shared__ float t[32][32];\n    t[threadIdx.x][0] = o[threadIdx.x];\n    o[threadIdx.x] = t[threadIdx.x / 16][2 * (threadIdx.x % 16)];\n    t[0][in[threadIdx.x]] = 1.0f;\n}\n";

/// The 2-way load alone, on its own array; padded to 33 columns it is conflict-free (lanes
/// 16-31 move to the odd banks).
const TWO_WAY: &str = "__global__ void k(float *o) {\n    __shared__ float s[32][32];\n    o[threadIdx.x] = s[threadIdx.x / 16][2 * (threadIdx.x % 16)];\n}\n";

fn codes(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| {
            l.rsplit_once(" [")
                .map(|(_, c)| c.trim_end_matches(']').to_string())
        })
        .collect()
}

fn mixed_dir(name: &str) -> common::TempDir {
    let dir = temp_dir(name);
    write(&dir, "k.cu", MIXED.as_bytes());
    dir
}

#[test]
fn the_fixture_of_these_tests_has_what_it_says() {
    let dir = mixed_dir("cl-mixed");
    let o = banklint(&dir, &["check", "k.cu", "--format", "short"]);
    assert_eq!(o.code, Some(1));
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", o.stdout);
    assert!(lines[0].starts_with("k.cu:3:5: warning: 32-way bank conflict"));
    assert!(lines[1].contains(":4:") && lines[1].contains("2-way bank conflict"));
    assert!(lines[2].starts_with("k.cu:5:5: note: ") && lines[2].ends_with("[unanalyzed-access]"));
}

#[test]
fn select_and_ignore_take_lists_and_repeat() {
    let dir = mixed_dir("cl-select");
    let o = banklint(
        &dir,
        &[
            "check",
            "k.cu",
            "--format",
            "short",
            "--select",
            "bank-conflict",
        ],
    );
    assert_eq!(codes(&o.stdout), ["bank-conflict", "bank-conflict"]);
    assert_eq!(o.code, Some(1));
    for args in [
        vec!["--select", "unanalyzed-access,shared-capacity"],
        vec![
            "--select",
            "unanalyzed-access",
            "--select",
            "shared-capacity",
        ],
        vec!["--ignore", "bank-conflict"],
    ] {
        let mut all = vec!["check", "k.cu", "--format", "short"];
        all.extend(args.iter().copied());
        let o = banklint(&dir, &all);
        assert_eq!(codes(&o.stdout), ["unanalyzed-access"], "{args:?}");
        // What is left is a note: nothing fails.
        assert_eq!(o.code, Some(0), "{args:?}");
    }
    // The summary counts what is reported.
    let o = banklint(&dir, &["check", "k.cu", "--ignore", "bank-conflict"]);
    assert_eq!(
        o.stdout.lines().last(),
        Some("checked 1 file, 3 shared-memory accesses; no bank conflicts")
    );
}

#[test]
fn unknown_codes_are_a_usage_error_naming_each() {
    let dir = mixed_dir("cl-unknown");
    let o = banklint(
        &dir,
        &[
            "check",
            "k.cu",
            "--select",
            "bank-conflict,bank-conflicts",
            "--select",
            "nope",
        ],
    );
    assert_eq!(o.code, Some(2));
    assert_eq!(o.stdout, "");
    assert_eq!(
        o.stderr.trim_end(),
        "error: --select: unknown rule codes `bank-conflicts`, `nope`; `banklint explain` lists them"
    );
    let o = banklint(&dir, &["check", "k.cu", "--ignore", "conflict"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.contains("--ignore: unknown rule code `conflict`;"),
        "{}",
        o.stderr
    );
}

#[test]
fn selection_overrides_the_configured_severity() {
    let dir = mixed_dir("cl-over-config");
    write(
        &dir,
        "banklint.toml",
        b"[severity]\nunanalyzed-access = \"off\"\nbank-conflict = \"error\"\n",
    );
    // The file alone: the note is off, conflicts are errors.
    let o = banklint(&dir, &["check", "k.cu", "--format", "short"]);
    assert_eq!(codes(&o.stdout), ["bank-conflict", "bank-conflict"]);
    assert!(o.stdout.lines().all(|l| l.contains(": error: ")));
    // `--select` brings back a code the file turns off, at its default severity, and keeps
    // the file's level for the codes it leaves on.
    let o = banklint(
        &dir,
        &[
            "check",
            "k.cu",
            "--format",
            "short",
            "--select",
            "unanalyzed-access,bank-conflict",
        ],
    );
    assert_eq!(
        codes(&o.stdout),
        ["bank-conflict", "bank-conflict", "unanalyzed-access"]
    );
    assert!(
        o.stdout
            .lines()
            .last()
            .is_some_and(|l| l.contains(": note: "))
    );
    assert!(o.stdout.lines().take(2).all(|l| l.contains(": error: ")));
    // `--ignore` wins over the file and over `--select`.
    let o = banklint(
        &dir,
        &[
            "check",
            "k.cu",
            "--format",
            "short",
            "--select",
            "bank-conflict",
            "--ignore",
            "bank-conflict",
        ],
    );
    assert_eq!((o.code, o.stdout.as_str()), (Some(0), ""));
}

#[test]
fn selecting_unused_allow_turns_it_on() {
    let dir = temp_dir("cl-unused");
    write(
        &dir,
        "k.cu",
        TWO_WAY
            .replace(
                "    __shared__",
                "    // banklint: allow(unanalyzed-access)\n    __shared__",
            )
            .as_bytes(),
    );
    let o = banklint(
        &dir,
        &[
            "check",
            "k.cu",
            "--format",
            "short",
            "--select",
            "unused-allow",
        ],
    );
    assert_eq!(codes(&o.stdout), ["unused-allow"], "{}", o.stdout);
    assert_eq!(o.code, Some(1));
}

#[test]
fn min_ways_hides_smaller_conflicts_from_report_exit_and_fix() {
    let dir = mixed_dir("cl-min-ways");
    write(&dir, "two.cu", TWO_WAY.as_bytes());
    let o = banklint(
        &dir,
        &["check", "k.cu", "--format", "short", "--min-ways", "4"],
    );
    assert_eq!(codes(&o.stdout), ["bank-conflict", "unanalyzed-access"]);
    assert!(o.stdout.contains("32-way"));
    let o = banklint(&dir, &["check", "k.cu", "two.cu", "--min-ways", "4"]);
    assert_eq!(
        o.stdout.lines().last(),
        Some("checked 2 files, 4 shared-memory accesses; 1 bank conflict (1 x 32-way)")
    );
    // A 2-way conflict alone, below the minimum: a clean run, and nothing to fix.
    let o = banklint(&dir, &["check", "two.cu", "--min-ways", "4"]);
    assert_eq!(o.code, Some(0), "{}", o.stdout);
    let o = banklint(&dir, &["check", "two.cu", "--min-ways", "4", "--fix"]);
    assert_eq!(o.code, Some(0), "{}{}", o.stdout, o.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("two.cu")).expect("read"),
        TWO_WAY
    );
    // At the default, reported and fixed.
    let o = banklint(&dir, &["check", "two.cu", "--fix"]);
    assert_eq!(
        o.code,
        Some(0),
        "fixed, then clean: {}{}",
        o.stdout,
        o.stderr
    );
    assert_ne!(
        std::fs::read_to_string(dir.join("two.cu")).expect("read"),
        TWO_WAY
    );
    // From banklint.toml, which the flag overrides.
    write(&dir, "banklint.toml", b"min-ways = 64\n");
    let o = banklint(&dir, &["check", "k.cu", "--format", "short"]);
    assert_eq!(codes(&o.stdout), ["unanalyzed-access"]);
    let o = banklint(
        &dir,
        &["check", "k.cu", "--format", "short", "--min-ways", "2"],
    );
    assert_eq!(codes(&o.stdout).len(), 3);
    write(&dir, "banklint.toml", b"min-ways = 0\n");
    let o = banklint(&dir, &["check", "k.cu"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr
            .contains("`min-ways` must be an integer from 1 to 64, not 0"),
        "{}",
        o.stderr
    );
}

#[test]
fn no_path_checks_the_current_directory() {
    let dir = temp_dir("cl-no-path");
    write(&dir, "a.cu", TWO_WAY.as_bytes());
    std::fs::create_dir_all(dir.join("sub")).expect("mkdir");
    write(&dir, "sub/b.cu", TWO_WAY.as_bytes());
    std::fs::create_dir_all(dir.join("build")).expect("mkdir");
    write(&dir, "build/skipped.cu", TWO_WAY.as_bytes());
    let o = banklint(&dir, &["check", "--format", "short"]);
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    let files: Vec<&str> = o
        .stdout
        .lines()
        .map(|l| l.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(files, ["a.cu", "sub/b.cu"]);
    // The same as naming it, but for the `./` of the names.
    let named = banklint(&dir, &["check", ".", "--format", "short"]);
    assert_eq!(named.stdout.replace("./", ""), o.stdout);
}

/// `root/banklint.toml` targets sm_90, `root/old/banklint.toml` sm_10 (16 banks, half-warp
/// requests): the tile column is 32-way on sm_90 and 16-way on sm_10 (each half-warp's 16
/// lanes in bank 0).
fn two_projects(name: &str) -> common::TempDir {
    let dir = temp_dir(name);
    std::fs::create_dir_all(dir.join("root/old")).expect("mkdir");
    std::fs::create_dir_all(dir.join("elsewhere")).expect("mkdir");
    write(&dir, "root/banklint.toml", b"arch = \"sm_90\"\n");
    write(
        &dir,
        "root/old/banklint.toml",
        b"arch = \"sm_10\"\nexclude = [\"gen/**\"]\n",
    );
    let column = "__global__ void k(float *o) {\n    __shared__ float t[32][32];\n    t[threadIdx.x][0] = o[threadIdx.x];\n}\n";
    write(&dir, "root/a.cu", column.as_bytes());
    write(&dir, "root/old/b.cu", column.as_bytes());
    std::fs::create_dir_all(dir.join("root/old/gen")).expect("mkdir");
    write(&dir, "root/old/gen/g.cu", column.as_bytes());
    dir
}

#[test]
fn each_file_is_checked_under_the_configuration_nearest_to_it() {
    let dir = two_projects("cl-nearest");
    let expect = |o: &common::Out, prefix: &str| {
        assert_eq!(o.code, Some(1), "{}{}", o.stdout, o.stderr);
        let lines: Vec<&str> = o.stdout.lines().collect();
        assert_eq!(
            lines.len(),
            2,
            "old/gen is excluded by old/banklint.toml: {}",
            o.stdout
        );
        assert!(
            lines[0].starts_with(&format!("{prefix}a.cu:3:5: warning: 32-way")),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].starts_with(&format!("{prefix}old/b.cu:3:5: warning: 16-way")),
            "{}",
            lines[1]
        );
    };
    // From a directory with no configuration of its own.
    let o = banklint(
        &dir.join("elsewhere"),
        &["check", "../root", "--format", "short"],
    );
    expect(&o, "../root/");
    // From the root, whose own configuration does not apply to old/.
    let o = banklint(&dir.join("root"), &["check", "--format", "short"]);
    expect(&o, "");
    // From old/, whose configuration does not apply to its parent's files.
    let o = banklint(&dir.join("root/old"), &["check", "..", "--format", "short"]);
    expect(&o, "../");
    // JSON names each file's target; the document's is the current directory's.
    let o = banklint(&dir.join("root/old"), &["check", "..", "--format", "json"]);
    let doc = o.json();
    assert_eq!(doc["arch"], "sm_10");
    let files = doc["files"].as_array().expect("files");
    assert_eq!(files.len(), 2);
    assert_eq!(
        (&files[0]["path"], &files[0]["arch"]),
        (&"../a.cu".into(), &"sm_90".into())
    );
    assert_eq!(
        (&files[1]["path"], &files[1]["arch"]),
        (&"../old/b.cu".into(), &"sm_10".into())
    );
    // `--config` applies one file to every path; `--no-config` none.
    let o = banklint(
        &dir.join("elsewhere"),
        &[
            "check",
            "../root",
            "--format",
            "short",
            "--config",
            "../root/old/banklint.toml",
        ],
    );
    assert_eq!(o.stdout.matches("16-way").count(), 2, "{}", o.stdout);
    let o = banklint(
        &dir.join("elsewhere"),
        &["check", "../root", "--format", "short", "--no-config"],
    );
    assert_eq!(o.stdout.matches("32-way").count(), 3, "{}", o.stdout);
}

#[test]
fn print_config_names_the_file_that_applies_to_each_path() {
    let dir = two_projects("cl-print");
    let canonical = |p: &Path| {
        std::fs::canonicalize(p)
            .expect("canonical")
            .display()
            .to_string()
    };
    let o = banklint(
        &dir.join("elsewhere"),
        &["check", "--print-config", "../root"],
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let root_config = canonical(&dir.join("root/banklint.toml"));
    let old_config = canonical(&dir.join("root/old/banklint.toml"));
    let sections: Vec<&str> = o.stdout.split("\n\n").collect();
    assert_eq!(sections.len(), 2, "{}", o.stdout);
    assert!(
        sections[0].starts_with(&format!(
            "# configuration: {root_config}\n# applies to: ../root/a.cu\narch = \"sm_90\""
        )),
        "{}",
        o.stdout
    );
    assert!(
        sections[1].starts_with(&format!(
            "# configuration: {old_config}\n# applies to: ../root/old/b.cu\narch = \"sm_10\""
        )),
        "{}",
        o.stdout
    );
    assert!(sections[1].contains("exclude = \"gen/**\""));
    // Nothing to check here: the current directory's configuration (none) alone.
    let o = banklint(&dir.join("elsewhere"), &["check", "--print-config"]);
    assert_eq!(o.code, Some(0));
    assert!(
        o.stdout
            .starts_with("# configuration: none (no banklint.toml found)\narch = \"sm_90\""),
        "{}",
        o.stdout
    );
}
