//! Exit status follows severity alone: 1 when a warning or error remains after `allow`
//! comments, `[severity]` and the rule selection, never because of a note; and a clean run
//! whose accesses were not all reached, for want of a header or a macro, says so in its
//! summary line. Each case runs the real binary in its own directory.

mod common;

use common::{banklint, temp_dir, write};

/// A 32-way store: the column of a 32x32 float tile (word 32 * lane, every lane in bank 0).
const CONFLICT: &str = "__global__ void k(float *o) {\n    __shared__ float t[32][32];\n    t[threadIdx.x][0] = o[threadIdx.x];\n}\n";

/// Conflict-free: the padded tile (word 33 * lane, 32 banks).
const CLEAN: &str = "__global__ void k(float *o) {\n    __shared__ float t[32][33];\n    t[threadIdx.x][0] = o[threadIdx.x];\n}\n";

/// An index read from memory: a note (`unanalyzed-access`), nothing else.
const UNKNOWN: &str = "__global__ void k(const int *in, float *o) {\n    __shared__ float t[64];\n    t[in[threadIdx.x]] = o[threadIdx.x];\n}\n";

fn short_lines(out: &common::Out) -> Vec<&str> {
    out.stdout.lines().collect()
}

#[test]
fn a_warning_fails_the_run_and_a_clean_file_does_not() {
    let dir = temp_dir("exit-basic");
    write(&dir, "conflict.cu", CONFLICT.as_bytes());
    write(&dir, "clean.cu", CLEAN.as_bytes());
    let o = banklint(&dir, &["check", "conflict.cu", "--format", "short"]);
    assert_eq!(o.code, Some(1), "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains(": warning: 32-way bank conflict on `t`"));
    let o = banklint(&dir, &["check", "clean.cu"]);
    assert_eq!(o.code, Some(0), "{}{}", o.stdout, o.stderr);
}

#[test]
fn notes_never_change_the_exit_status() {
    let dir = temp_dir("exit-notes");
    write(&dir, "unknown.cu", UNKNOWN.as_bytes());
    // A local header that is not there: an `include-not-found` note.
    write(
        &dir,
        "header.cu",
        format!("#include \"nowhere.h\"\n{CLEAN}").as_bytes(),
    );
    for file in ["unknown.cu", "header.cu"] {
        let o = banklint(&dir, &["check", file, "--format", "short"]);
        assert_eq!(o.code, Some(0), "{file}: {}{}", o.stdout, o.stderr);
        let lines = short_lines(&o);
        assert_eq!(lines.len(), 1, "{file}: {}", o.stdout);
        assert!(lines[0].contains(": note: "), "{}", lines[0]);
    }
}

#[test]
fn an_allowed_conflict_is_clean() {
    let dir = temp_dir("exit-allowed");
    let text = CONFLICT.replace(
        "    t[threadIdx.x][0]",
        "    // banklint: allow(bank-conflict)\n    t[threadIdx.x][0]",
    );
    write(&dir, "k.cu", text.as_bytes());
    let o = banklint(&dir, &["check", "k.cu", "--format", "short"]);
    assert_eq!(o.code, Some(0), "{}{}", o.stdout, o.stderr);
    assert_eq!(o.stdout, "");
}

#[test]
fn an_unused_allow_fails_only_when_asked_for_and_as_its_severity_says() {
    let dir = temp_dir("exit-unused");
    let text = CLEAN.replace(
        "    t[threadIdx.x][0]",
        "    // banklint: allow(bank-conflict)\n    t[threadIdx.x][0]",
    );
    write(&dir, "k.cu", text.as_bytes());
    // Not asked for: not reported.
    let o = banklint(&dir, &["check", "k.cu", "--format", "short"]);
    assert_eq!((o.code, o.stdout.as_str()), (Some(0), ""), "{}", o.stderr);
    // Asked for: a warning, so the run fails.
    let o = banklint(
        &dir,
        &["check", "k.cu", "--format", "short", "--warn-unused-allow"],
    );
    assert_eq!(o.code, Some(1), "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout
            .contains(": warning: `allow(bank-conflict)` suppresses nothing here [unused-allow]"),
        "{}",
        o.stdout
    );
    // Made a note: still reported, no longer failing.
    write(
        &dir,
        "banklint.toml",
        b"[severity]\nunused-allow = \"note\"\n",
    );
    let o = banklint(
        &dir,
        &["check", "k.cu", "--format", "short", "--warn-unused-allow"],
    );
    assert_eq!(o.code, Some(0), "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout
            .contains(": note: `allow(bank-conflict)` suppresses nothing here [unused-allow]"),
        "{}",
        o.stdout
    );
}

#[test]
fn an_invalid_annotation_fails_as_an_error_unless_made_a_note() {
    let dir = temp_dir("exit-invalid");
    let text = CLEAN.replace(
        "    t[threadIdx.x][0]",
        "    // banklint: expect(sideways)\n    t[threadIdx.x][0]",
    );
    write(&dir, "k.cu", text.as_bytes());
    let o = banklint(&dir, &["check", "k.cu", "--format", "short"]);
    assert_eq!(o.code, Some(1), "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains(": error: ") && o.stdout.contains("[invalid-annotation]"));
    write(
        &dir,
        "banklint.toml",
        b"[severity]\ninvalid-annotation = \"note\"\n",
    );
    let o = banklint(&dir, &["check", "k.cu", "--format", "short"]);
    assert_eq!(o.code, Some(0), "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains(": note: ") && o.stdout.contains("[invalid-annotation]"));
}

#[test]
fn severities_decide_in_both_directions() {
    let dir = temp_dir("exit-severity");
    write(&dir, "conflict.cu", CONFLICT.as_bytes());
    write(&dir, "unknown.cu", UNKNOWN.as_bytes());
    write(
        &dir,
        "banklint.toml",
        b"[severity]\nbank-conflict = \"note\"\nunanalyzed-access = \"warning\"\n",
    );
    let o = banklint(&dir, &["check", "conflict.cu", "--format", "short"]);
    assert_eq!(o.code, Some(0), "a conflict made a note: {}", o.stdout);
    assert!(o.stdout.contains(": note: 32-way bank conflict"));
    let o = banklint(&dir, &["check", "unknown.cu", "--format", "short"]);
    assert_eq!(
        o.code,
        Some(1),
        "an unanalyzed access made a warning: {}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains(": warning: could not analyze this store of `t`")
    );
    // The same in the machine formats.
    for format in ["json", "sarif", "github"] {
        let o = banklint(&dir, &["check", "unknown.cu", "--format", format]);
        assert_eq!(o.code, Some(1), "{format}");
        let o = banklint(&dir, &["check", "conflict.cu", "--format", format]);
        assert_eq!(o.code, Some(0), "{format}");
    }
}

#[test]
fn the_summary_says_when_a_missing_header_or_macro_left_accesses_unreached() {
    let dir = temp_dir("exit-incomplete");
    // TILE comes from a header that is not there: the tile's size, so its accesses, unknown.
    let needs_header = "#include \"tile.h\"\n__global__ void k(float *o) {\n    __shared__ float t[TILE][TILE];\n    t[threadIdx.x][0] = o[threadIdx.x];\n}\n";
    write(&dir, "a.cu", needs_header.as_bytes());
    write(&dir, "b.cu", needs_header.as_bytes());
    // No include at all: TILE is a macro nothing defines.
    write(
        &dir,
        "c.cu",
        needs_header.replace("#include \"tile.h\"\n", "").as_bytes(),
    );
    // A missing header that this file's analysis does not need: nothing to say.
    write(
        &dir,
        "d.cu",
        format!("#include \"unused.h\"\n{CLEAN}").as_bytes(),
    );
    let summary = |args: &[&str]| {
        let o = banklint(&dir, args);
        assert_eq!(o.code, Some(0), "{args:?}: {}{}", o.stdout, o.stderr);
        o.stdout.lines().last().unwrap_or("").to_string()
    };
    assert_eq!(
        summary(&["check", "a.cu", "b.cu", "c.cu", "d.cu"]),
        "checked 4 files, 4 shared-memory accesses; no bank conflicts; 2 files had missing headers, 1 file used macros or constants nothing defines: results may be incomplete"
    );
    assert_eq!(
        summary(&["check", "a.cu"]),
        "checked 1 file, 1 shared-memory access; no bank conflicts; 1 file had missing headers: results may be incomplete"
    );
    assert_eq!(
        summary(&["check", "d.cu"]),
        "checked 1 file, 1 shared-memory access; no bank conflicts"
    );
    // Given the header, the file is complete (and its 32-way conflict found).
    write(&dir, "tile.h", b"#define TILE 32\n");
    let o = banklint(&dir, &["check", "a.cu"]);
    assert_eq!(o.code, Some(1));
    assert_eq!(
        o.stdout.lines().last(),
        Some("checked 1 file, 1 shared-memory access; 1 bank conflict (1 x 32-way)")
    );
}
