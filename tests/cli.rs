//! The command line, end to end: output formats, exit statuses, the JSON schema, and bad
//! input that must produce a clear error (never a panic) while other files are analyzed.

mod common;

use common::temp_dir;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn banklint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_banklint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("banklint runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const COLUMN: &str = "__global__ void k(int *out) {\n    __shared__ int matrix[32][32];\n    matrix[threadIdx.x][4] = 0;\n    out[threadIdx.x] = matrix[4][threadIdx.x];\n}\nvoid launch(int *o) { k<<<1, 32>>>(o); }\n";

const CLEAN: &str = "__global__ void k(float *out) {\n    __shared__ float s[64];\n    s[threadIdx.x] = 1.0f;\n    out[threadIdx.x] = s[threadIdx.x + 32];\n}\n";

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

#[test]
fn human_output_is_rustc_style_with_the_fix() {
    let dir = temp_dir("human");
    let f = write(&dir, "column.cu", COLUMN);
    let o = banklint(&["check", &f, "--color", "never"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("warning[bank-conflict]: 32-way bank conflict on `matrix` (32 wavefronts per warp instead of 1)"), "{out}");
    assert!(out.contains(&format!("{f}:3:5")), "{out}");
    assert!(out.contains("`matrix` declared here"), "{out}");
    assert!(
        out.contains("lanes 0-31 all hit bank 4, 32 different words"),
        "{out}"
    );
    assert!(out.contains("help: pad the innermost dimension by 1 element: `__shared__ int matrix[32][32 + 1];` (+128 bytes, 4224 bytes in all)"), "{out}");
    assert!(
        out.contains("block (32, 1) from the launch at line 6"),
        "{out}"
    );
    assert!(!out.contains('\u{1b}'), "no colour when not asked");
}

#[test]
fn color_always_emits_ansi() {
    let dir = temp_dir("color");
    let f = write(&dir, "column.cu", COLUMN);
    let o = banklint(&["check", &f, "--color", "always"]);
    assert!(stdout(&o).contains("\u{1b}["));
}

#[test]
fn clean_file_exits_zero_silently() {
    let dir = temp_dir("clean");
    let f = write(&dir, "clean.cu", CLEAN);
    let o = banklint(&["check", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "checked 1 file, 2 shared-memory accesses; no bank conflicts\n"
    );
    let o = banklint(&["check", &f, "--format", "short"]);
    assert_eq!(stdout(&o), "", "short output has no summary");
}

#[test]
fn short_format_matches_gcc_problem_matchers() {
    let dir = temp_dir("short");
    let f = write(&dir, "column.cu", COLUMN);
    let o = banklint(&["check", &f, "--format", "short"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert_eq!(
        lines[0],
        format!(
            "{f}:3:5: warning: 32-way bank conflict on `matrix` (32 wavefronts per warp instead of 1) [bank-conflict]"
        )
    );
}

#[test]
fn json_follows_the_schema_and_lists_every_access() {
    let dir = temp_dir("json");
    let f = write(&dir, "column.cu", COLUMN);
    let o = banklint(&["check", &f, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["arch"], "sm_90");
    assert_eq!(doc["files"][0]["status"], "ok");
    let accesses = doc["accesses"].as_array().expect("accesses");
    assert_eq!(accesses.len(), 2, "the clean access is listed too");
    let store = &accesses[0];
    for key in [
        "file",
        "line",
        "column",
        "end_line",
        "end_column",
        "kernel",
        "array",
        "kind",
        "access_bytes",
        "block_dim",
        "block_dim_source",
        "launch_arguments",
        "status",
        "reason",
        "wavefronts",
        "ideal_wavefronts",
        "conflict_ways",
        "block_totals",
    ] {
        assert!(store.get(key).is_some(), "missing {key} in {store}");
    }
    assert_eq!(store["line"], 3);
    assert_eq!(store["column"], 5);
    assert_eq!(store["end_line"], 3);
    assert_eq!(store["end_column"], 27);
    assert_eq!(store["kernel"], "k");
    assert_eq!(store["kind"], "store");
    assert_eq!(store["access_bytes"], 4);
    assert_eq!(store["block_dim"], serde_json::json!([32, 1, 1]));
    assert_eq!(store["block_dim_source"], "launch");
    assert_eq!(store["status"], "analyzed");
    assert_eq!(store["wavefronts"], 32);
    assert_eq!(store["ideal_wavefronts"], 1);
    assert_eq!(store["conflict_ways"], 32);
    assert_eq!(
        store["block_totals"],
        serde_json::json!({"instructions": 1, "wavefronts": 32})
    );
    let load = &accesses[1];
    assert_eq!(load["kind"], "load");
    assert_eq!(load["conflict_ways"], 1);
    let diag = &doc["diagnostics"][0];
    assert_eq!(diag["code"], "bank-conflict");
    assert_eq!(diag["severity"], "warning");
    assert_eq!(diag["conflict_ways"], 32);
    let s = &diag["suggestion"];
    assert_eq!(s["replacement"], "32 + 1");
    assert_eq!(
        (s["line"].as_u64(), s["column"].as_u64()),
        (Some(2), Some(31))
    );
    assert_eq!(
        (s["end_line"].as_u64(), s["end_column"].as_u64()),
        (Some(2), Some(33))
    );
}

#[test]
fn unknown_accesses_carry_a_reason() {
    let dir = temp_dir("unknown");
    let f = write(
        &dir,
        "dd.cu",
        "__global__ void k(const int *in, float *out) {\n    __shared__ float s[256];\n    s[in[threadIdx.x]] = 1.0f;\n}\n",
    );
    let o = banklint(&["check", &f, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    let a = &doc["accesses"][0];
    assert_eq!(a["status"], "unknown");
    assert!(
        a["reason"]
            .as_str()
            .unwrap_or("")
            .contains("data loaded from `in`"),
        "{a}"
    );
    assert_eq!(a["block_dim_source"], "default");
}

#[test]
fn bad_inputs_are_reported_and_the_rest_analyzed() {
    let dir = temp_dir("bad");
    let good = write(&dir, "good.cu", COLUMN);
    let missing = dir.join("missing.cu").display().to_string();
    let binary = dir.join("binary.cu");
    std::fs::write(&binary, [0x7f, b'E', b'L', b'F', 0, 0, 1]).expect("write");
    let latin1 = dir.join("latin1.cu");
    std::fs::write(&latin1, b"int caf\xe9;\n__global__ void k() {}\n").expect("write");
    let o = banklint(&[
        "check",
        &missing,
        &binary.display().to_string(),
        &latin1.display().to_string(),
        &good,
        "--color",
        "never",
    ]);
    assert_eq!(o.status.code(), Some(2), "input errors win over conflicts");
    let err = stderr(&o);
    assert!(err.contains(&format!("{missing}: no such file")), "{err}");
    assert!(err.contains("binary.cu: looks like a binary file"), "{err}");
    assert!(
        err.contains("latin1.cu: is not valid UTF-8 at line 1, column 8"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        stdout(&o).contains("32-way bank conflict on `matrix`"),
        "the good file is still analyzed"
    );
}

#[test]
fn empty_file_is_fine() {
    let dir = temp_dir("empty");
    let f = write(&dir, "empty.cu", "");
    let o = banklint(&["check", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn usage_errors_exit_two() {
    for args in [
        vec!["check", "fixtures", "--arch", "sm_40"],
        vec!["check", "fixtures", "--bank-mode", "6"],
        vec!["check", "fixtures", "--cuda-version", "12"],
        vec!["check", "fixtures", "--block-dim", "64x64"],
        vec!["check", "fixtures", "--select", "bank-conflicts"],
        vec!["check", "fixtures", "--min-ways", "0"],
        vec!["frobnicate"],
    ] {
        let o = banklint(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).is_empty());
    }
}

#[test]
fn directories_are_walked_skipping_hidden_and_build_dirs() {
    let dir = temp_dir("walk");
    write(&dir, "a.cu", COLUMN);
    std::fs::create_dir_all(dir.join("sub")).expect("mkdir");
    write(&dir.join("sub"), "b.cuh", COLUMN);
    for skipped in [".git", "build"] {
        std::fs::create_dir_all(dir.join(skipped)).expect("mkdir");
        write(&dir.join(skipped), "c.cu", COLUMN);
    }
    write(&dir, "notes.txt", "not cuda");
    let o = banklint(&["check", &dir.display().to_string(), "--format", "short"]);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(
        out.lines().next().unwrap_or("").contains("a.cu:3:5"),
        "sorted by path: {out}"
    );
    assert!(out.contains("b.cuh:3:5"), "{out}");
}

#[test]
fn directories_include_the_headers_that_hold_device_code() {
    // The kernel lives in a `.h` that a `.cu` includes and launches: walking the directory
    // analyzes it in that context (block 32 from the launch): the column store is 32-way
    // (32 rows of 128 bytes, every lane in bank 0) and the row load clean.
    let dir = temp_dir("walk-headers");
    write(
        &dir,
        "kernel.h",
        "#pragma once\n__global__ void column(float *out) {\n  __shared__ float t[32][32];\n  t[threadIdx.x][0] = 1.0f;\n  out[0] = t[0][threadIdx.x];\n}\n",
    );
    write(
        &dir,
        "main.cu",
        "#include \"kernel.h\"\nvoid run(float *o) { column<<<1, 32>>>(o); }\n",
    );
    // Host-only headers, and one that names device code only in a comment, are not checked.
    write(
        &dir,
        "host.hpp",
        "#pragma once\n// __global__ kernels live elsewhere\nint f();\n",
    );
    write(
        &dir,
        "util.h",
        "#pragma once\nconst char *s = \"__shared__\";\n",
    );
    let o = banklint(&["check", &dir.display().to_string(), "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let files: Vec<&str> = (json["files"].as_array().expect("files").iter())
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files.iter().any(|f| f.ends_with("kernel.h")), "{files:?}");
    let accesses = json["accesses"].as_array().expect("accesses");
    let ways: Vec<(i64, &str)> = accesses
        .iter()
        .filter(|a| a["file"].as_str().is_some_and(|f| f.ends_with("kernel.h")))
        .map(|a| {
            (
                a["line"].as_i64().unwrap_or(0),
                a["status"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(ways.len(), 2, "{accesses:?}");
    let by_line = |l: i64| {
        accesses
            .iter()
            .find(|a| a["line"].as_i64() == Some(l))
            .and_then(|a| a["conflict_ways"].as_i64())
    };
    assert_eq!(by_line(4), Some(32), "{accesses:?}");
    assert_eq!(by_line(5), Some(1), "{accesses:?}");
}

#[test]
fn launch_bounds_make_a_kernel_whatever_macro_stands_before_its_name() {
    // A header's kernel behind an attribute macro banklint has not read (CUB's
    // `_CCCL_KERNEL_ATTRIBUTES`): only a kernel takes `__launch_bounds__`, so it is analyzed as
    // one (before: a device function no kernel calls, its array never reached). One warp: lane
    // l stores at row l of 128-byte rows, every lane in bank 0.
    let dir = temp_dir("launch-bounds");
    let path = write(
        &dir,
        "bounded.cuh",
        "#pragma once\ntemplate <typename P>\n__launch_bounds__(128) LIB_KERNEL_ATTRIBUTES void bounded(float *out) {\n  __shared__ float t[32][32];\n  t[threadIdx.x % 32][0] = 1.0f;\n  out[threadIdx.x] = t[0][threadIdx.x % 32];\n}\n",
    );
    let o = banklint(&["check", &path, "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let accesses = json["accesses"].as_array().expect("accesses");
    let store = accesses
        .iter()
        .find(|a| a["line"].as_i64() == Some(5))
        .unwrap_or_else(|| panic!("the store is analyzed: {json}"));
    assert_eq!(store["conflict_ways"].as_i64(), Some(32), "{store}");
    assert_eq!(store["kernel"].as_str(), Some("bounded"), "{store}");
}

#[test]
fn unparseable_statement_costs_only_itself() {
    let dir = temp_dir("recover");
    let f = write(
        &dir,
        "cpp.cu",
        "__global__ void k(int *out) {\n    __shared__ int matrix[32][32];\n    for (auto &v : matrix[0]) v = 0;\n    matrix[threadIdx.x][4] = 0;\n}\n",
    );
    let o = banklint(&["check", &f, "--format", "short"]);
    let out = stdout(&o);
    assert!(
        out.contains(":3:5: note: code banklint skipped: shared-memory accesses in it are not analyzed [skipped-code]"),
        "{out}"
    );
    assert!(
        out.contains(":4:5: warning: 32-way bank conflict on `matrix`"),
        "{out}"
    );
}

#[test]
fn older_architectures_follow_their_rules() {
    // tile[threadIdx.x][0] on float[32][32]: 32-way on sm_90, 16-way on sm_10 (16 banks, half-warps).
    let dir = temp_dir("arch");
    let f = write(&dir, "column.cu", COLUMN);
    let o = banklint(&["check", &f, "--format", "json", "--arch", "sm_10"]);
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    assert_eq!(doc["arch"], "sm_10");
    assert_eq!(doc["accesses"][0]["conflict_ways"], 16);
    assert_eq!(
        doc["accesses"][0]["wavefronts"], 32,
        "two half-warps of 16 each"
    );
}

#[test]
fn explain_prints_the_rule_documentation() {
    let o = banklint(&["explain", "bank-conflict"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("## What it does"));
    assert!(out.contains("## Why is this bad?"));
    assert!(out.contains("[32][32 + 1]"));
    let o = banklint(&["explain", "no-such-code"]);
    assert_eq!(o.status.code(), Some(2));
    let o = banklint(&["explain"]);
    assert!(stdout(&o).contains("unanalyzed-access"));
}

const CAPACITY: &str = "__global__ void big(float *o) {\n    __shared__ float a[128][96];\n    __shared__ float b[32][32];\n    a[threadIdx.x][0] = 1; b[threadIdx.x][0] = 2;\n}\n__global__ void k(float *o) { __shared__ float t[32][32]; t[threadIdx.x][0] = 1; }\nvoid h(float *o) { cudaFuncSetCacheConfig(k, cudaFuncCachePreferL1); big<<<1, 32>>>(o); k<<<1, 32>>>(o); }\n";

#[test]
fn static_shared_memory_over_the_limit_is_an_error() {
    // 128*96*4 + 32*32*4 = 53248 bytes > 48 KB = 49152.
    let dir = temp_dir("capacity");
    let f = write(&dir, "cap.cu", CAPACITY);
    let o = banklint(&["check", &f, "--format", "short"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains(":1:17: error: kernel `big` needs 53248 bytes of static shared memory, over the 49152-byte limit of sm_90 [shared-capacity]"),
        "{out}"
    );
    assert!(!out.contains("kernel `k` needs"), "{out}");
}

#[test]
fn an_array_of_unknown_size_makes_the_capacity_a_lower_bound() {
    // 128*104*4 = 53248 bytes known, over 49152; `extra`'s extent is a macro never defined.
    let dir = temp_dir("capacity-unsized");
    let src = "__global__ void big(float *o) {\n    __shared__ float a[128][104];\n    __shared__ float extra[UNDEFINED_COUNT];\n    a[threadIdx.x][0] = 1; extra[threadIdx.x] = 2;\n}\nvoid h(float *o) { big<<<1, 32>>>(o); }\n";
    let f = write(&dir, "cap.cu", src);
    let o = banklint(&["check", &f, "--color", "never"]);
    let out = stdout(&o);
    assert!(
        out.contains("kernel `big` needs at least 53248 bytes of static shared memory"),
        "{out}"
    );
    assert!(
        out.contains("`extra`: not counted, its size is not a constant banklint can evaluate"),
        "{out}"
    );
    // The outermost extent does not place elements: `extra[threadIdx.x]` is analyzed.
    assert!(
        !out.contains("could not analyze this store of `extra`"),
        "{out}"
    );
}

#[test]
fn padding_help_states_its_cost_and_occupancy() {
    let dir = temp_dir("cost");
    let f = write(&dir, "cap.cu", CAPACITY);
    // sm_90: 228 KB per SM, 1 KB reserved per block, at most 32 blocks: 4096 + 1024 bytes
    // per block allows 45, capped at 32, before and after the 128-byte pad.
    let o = banklint(&["check", &f, "--color", "never"]);
    let out = stdout(&o);
    assert!(out.contains("kernel `k`: 4096 -> 4224 bytes of static shared memory, within the 49152-byte limit, blocks per SM limited by shared memory: 32 -> 32"), "{out}");
    assert!(
        out.contains(
            "kernel `big`: 53248 -> 53376 bytes of static shared memory, OVER the 49152-byte limit"
        ),
        "{out}"
    );
    // sm_20 with cudaFuncCachePreferL1 for `k`: 16 KB of shared memory per SM, so 4 blocks of
    // 4096 bytes, and 3 of 4224.
    let o = banklint(&["check", &f, "--color", "never", "--arch", "sm_20"]);
    let out = stdout(&o);
    assert!(out.contains("kernel `k`: 4096 -> 4224 bytes of static shared memory, within the 49152-byte limit, blocks per SM limited by shared memory: 4 -> 3"), "{out}");
}

#[test]
fn explain_lists_shared_capacity() {
    let o = banklint(&["explain", "shared-capacity"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("48 KB"));
}

const ANNOTATED: &str = "__global__ void a(float *o) {\n    __shared__ float t[32][32];\n    t[threadIdx.x][0] = 1; // banklint: allow(bank-conflict)\n    // banklint: allow(bank-conflict)\n    t[threadIdx.x][1] = 1;\n    t[threadIdx.x][2] = 1; // banklint: expect(conflict-free)\n    t[0][threadIdx.x] = 1; // banklint: expect(conflict-free)\n    t[threadIdx.x][3] = 1; // banklint: expect(32-way)\n}\n// banklint: allow(bank-conflict)\n__global__ void b(float *o) {\n    __shared__ float u[32][32];\n    u[threadIdx.x][0] = 1;\n}\n// banklint: allow(bank-conflict)\n__global__ void c(float *o) { o[0] = 1; }\nvoid h(float *o) { a<<<1, 32>>>(o); b<<<1, 32>>>(o); c<<<1,32>>>(o); }\n";

#[test]
fn allow_comments_suppress_and_expectations_assert() {
    let dir = temp_dir("annotations");
    let f = write(&dir, "ann.cu", ANNOTATED);
    let o = banklint(&["check", &f, "--format", "short"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a failed expectation fails the run"
    );
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        vec![
            format!(
                "{f}:6:5: warning: 32-way bank conflict on `t` (32 wavefronts per warp instead of 1) [bank-conflict]"
            ),
            format!(
                "{f}:6:5: error: expected this store of `t` to be conflict-free, but it is 32-way [expectation-failed]"
            ),
        ],
        "line 3 (same line), 5 (line before) and kernel b (above the kernel) are allowed; 7 and 8 hold"
    );
    let o = banklint(&["check", &f, "--format", "short", "--warn-unused-allow"]);
    assert!(stdout(&o).contains(&format!(
        "{f}:15:1: warning: `allow(bank-conflict)` suppresses nothing here [unused-allow]"
    )));
}

#[test]
fn all_conflicts_allowed_exits_zero() {
    let dir = temp_dir("allowed");
    let f = write(
        &dir,
        "ok.cu",
        "__global__ void k(float *o) {\n    __shared__ float t[32][32];\n    t[threadIdx.x][0] = 1; // banklint: allow(bank-conflict)\n}\n",
    );
    let o = banklint(&["check", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn malformed_annotations_are_errors() {
    let dir = temp_dir("badann");
    let f = write(
        &dir,
        "bad.cu",
        "__global__ void k(float *o) {\n    __shared__ float t[64];\n    t[threadIdx.x] = 1; // banklint: expect(sideways)\n    t[threadIdx.x] = 2; // banklint: allow(no-such-code)\n}\n",
    );
    let o = banklint(&["check", &f, "--format", "short"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains(":3:25: error: `banklint: expect(sideways)` should be `expect(conflict-free)` or `expect(N-way)` [invalid-annotation]"), "{out}");
    assert!(out.contains(":4:25: error: unknown code `no-such-code` in `banklint: allow(...)` [invalid-annotation]"), "{out}");
}

#[test]
fn malformed_or_misnamed_kernel_annotations_are_reported() {
    let dir = temp_dir("badargs");
    let f = write(
        &dir,
        "args.cu",
        "// banklint: args(lenght = 512)\n__global__ void k(float *o, int length) {\n    __shared__ float s[64];\n    s[threadIdx.x] = 1.0f;\n}\n// banklint: args(n = big)\n__global__ void j(float *o, int n) { }\n// banklint: block(32, x)\n__global__ void i(float *o) { }\n",
    );
    let o = banklint(&["check", &f, "--format", "short"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(":1:1: note: `banklint: args(lenght = ...)` is not used [block-shape]"),
        "{out}"
    );
    assert!(
        out.contains(
            ":6:1: error: `n = big` in `banklint: args(...)` should be `name = integer` [invalid-annotation]"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            ":8:1: error: `banklint: block(32, x)` should be 1 to 3 integers, e.g. `block(32, 8)` [invalid-annotation]"
        ),
        "{out}"
    );
}

#[test]
fn unanalyzed_accesses_say_what_would_resolve_them() {
    let dir = temp_dir("unknownhelp");
    let f = write(
        &dir,
        "help.cu",
        "namespace lib { struct store; }\n__global__ void k(float *o, const int *in, int n) {\n    __shared__ float s[1024];\n    s[threadIdx.x * n] = 1.0f;\n    o[0] = s[in[threadIdx.x]];\n    __shared__ struct { float head[32]; lib::store t; float tail[32]; } st;\n    st.tail[threadIdx.x % 32] = 1.0f;\n}\nvoid h(float *o, const int *in, int n) { k<<<1, 64>>>(o, in, n); }\n",
    );
    let o = banklint(&["check", &f, "--color", "never"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("= help: if it comes from a kernel parameter, give its value with `// banklint: args(NAME = VALUE)`"),
        "{out}"
    );
    assert!(
        out.contains("= help: the address depends on data known only when the kernel runs"),
        "{out}"
    );
    // A field after one of unknown size (a library's type): the header that defines it.
    assert!(
        out.contains("= help: banklint lays a type out from its definition: pass `-I DIR`"),
        "{out}"
    );
    // The reason is the label; it is not repeated as a note.
    assert!(!out.contains("= note: because"), "{out}");
}

#[test]
fn accesses_through_references_name_the_element_the_caller_passed() {
    let dir = temp_dir("refreason");
    let f = write(
        &dir,
        "r.cu",
        "__device__ void put(float &a) { a = 1.0f; }\n__global__ void k(const int *in) {\n    __shared__ float s[1024];\n    put(s[in[threadIdx.x]]);\n}\nvoid h(const int *in) { k<<<1, 32>>>(in); }\n",
    );
    let o = banklint(&["check", &f, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("json");
    let only = &doc["accesses"][0];
    assert_eq!(doc["accesses"].as_array().map(Vec::len), Some(1));
    // The store is in `put`, line 1; nothing is read at the call on line 4.
    assert_eq!(
        (only["line"].as_u64(), only["kind"].as_str()),
        (Some(1), Some("store"))
    );
    let reason = only["reason"].as_str().unwrap_or("");
    assert!(
        reason.starts_with("the index `s[in[threadIdx.x]]` (through `a`) cannot be resolved"),
        "{reason}"
    );
}

#[test]
fn a_launch_with_a_runtime_block_gets_one_note_however_often_it_is_instantiated() {
    let dir = temp_dir("onenote");
    let f = write(
        &dir,
        "t.cu",
        "template <class T> __global__ void k(T *o) {\n    __shared__ T s[64];\n    s[threadIdx.x] = o[0];\n}\ntemplate <class T> void run(T *o, int n) { k<T><<<1, n>>>(o); }\nvoid both(float *f, int *i, int n) { run<float>(f, n); run<int>(i, n); }\n",
    );
    let o = banklint(&["check", &f, "--format", "short"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.matches("[block-shape]").count(), 1, "{out}");
}

#[test]
fn human_output_ends_with_a_summary() {
    let dir = temp_dir("summary");
    let f = write(&dir, "column.cu", COLUMN);
    let o = banklint(&["check", &f, "--color", "never"]);
    assert!(
        stdout(&o)
            .ends_with("checked 1 file, 2 shared-memory accesses; 1 bank conflict (1 x 32-way)\n"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn github_format_emits_workflow_commands() {
    let dir = temp_dir("github");
    let f = write(&dir, "column.cu", COLUMN);
    let o = banklint(&["check", &f, "--format", "github"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        format!(
            "::warning file={f},line=3,col=5,endLine=3,endColumn=27,title=bank-conflict::32-way bank conflict on `matrix` (32 wavefronts per warp instead of 1) (store of 4 bytes per lane, 32-way conflict)\n"
        )
    );
}

#[test]
fn sarif_has_rules_results_and_fixes() {
    // Full validation against the SARIF 2.1.0 schema runs in .ci/run (scripts/validate_sarif.sh).
    let dir = temp_dir("sarif");
    let f = write(&dir, "column.cu", COLUMN);
    let o = banklint(&["check", &f, "--format", "sarif"]);
    assert_eq!(o.status.code(), Some(1));
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    assert_eq!(doc["version"], "2.1.0");
    let run = &doc["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "banklint");
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let rule = rules
        .iter()
        .find(|r| r["id"] == "bank-conflict")
        .expect("bank-conflict rule");
    assert!(
        rule["help"]["text"]
            .as_str()
            .unwrap_or("")
            .contains("## Why is this bad?")
    );
    let result = &run["results"][0];
    assert_eq!(result["ruleId"], "bank-conflict");
    assert_eq!(result["level"], "warning");
    assert_eq!(
        rules[result["ruleIndex"].as_u64().unwrap_or(99) as usize]["id"],
        "bank-conflict"
    );
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startLine"].as_u64(), region["startColumn"].as_u64()),
        (Some(3), Some(5))
    );
    let replacement = &result["fixes"][0]["artifactChanges"][0]["replacements"][0];
    assert_eq!(replacement["insertedContent"]["text"], "32 + 1");
    assert_eq!(replacement["deletedRegion"]["startLine"], 2);
    assert_eq!(replacement["deletedRegion"]["startColumn"], 31);
}

#[test]
fn stdin_is_reported_under_the_given_name() {
    use std::io::Write;
    let dir = temp_dir("stdin");
    // The name also anchors `#include "..."` lookups: the header sits next to it.
    std::fs::write(dir.join("dims.h"), "#define W 32\n").expect("write");
    let name = dir.join("buffer.cu").display().to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_banklint"))
        .args(["check", "--stdin-filename", &name, "-", "--format", "short"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"#include \"dims.h\"\n__global__ void k(float *o) {\n    __shared__ float t[W][W];\n    t[threadIdx.x][0] = 1;\n}\n")
        .expect("write stdin");
    let o = child.wait_with_output().expect("wait");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        format!(
            "{name}:4:5: warning: 32-way bank conflict on `t` (32 wavefronts per warp instead of 1) [bank-conflict]\n"
        )
    );
}

#[test]
fn fix_dry_run_prints_a_diff_and_writes_nothing() {
    let dir = temp_dir("dryrun");
    let f = write(&dir, "column.cu", COLUMN);
    let o = banklint(&["check", &f, "--fix", "--dry-run"]);
    assert_eq!(o.status.code(), Some(1));
    let rel = f.trim_start_matches('/');
    assert_eq!(
        stdout(&o),
        format!(
            "--- a/{rel}\n+++ b/{rel}\n@@ -1,5 +1,5 @@\n __global__ void k(int *out) {{\n-    __shared__ int matrix[32][32];\n+    __shared__ int matrix[32][32 + 1];\n     matrix[threadIdx.x][4] = 0;\n     out[threadIdx.x] = matrix[4][threadIdx.x];\n }}\n"
        )
    );
    assert_eq!(
        std::fs::read_to_string(&f).expect("read"),
        COLUMN,
        "dry run writes nothing"
    );
}

#[test]
fn fix_rewrites_keeping_line_endings_and_permissions_then_is_idempotent() {
    let dir = temp_dir("fix");
    let crlf = COLUMN.replace('\n', "\r\n");
    let f = write(&dir, "column.cu", &crlf);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }
    let o = banklint(&["check", &f, "--fix", "--format", "short"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "nothing left after the fix: {}",
        stdout(&o)
    );
    assert!(
        stderr(&o).contains("applied 1 padding fix in 1 file"),
        "{}",
        stderr(&o)
    );
    let fixed = std::fs::read_to_string(&f).expect("read");
    assert_eq!(fixed, crlf.replace("matrix[32][32]", "matrix[32][32 + 1]"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&f).expect("stat").permissions().mode() & 0o777,
            0o600
        );
    }
    let o = banklint(&["check", &f, "--fix"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&f).expect("read"),
        fixed,
        "a second run changes no byte"
    );
    assert_eq!(
        std::fs::read_dir(&dir).expect("ls").count(),
        1,
        "no temporary files left"
    );
}

/// Host code cannot declare shared memory, so a function whose body does is device code,
/// whatever word before it hid what it is: a kernel when `__global__` stands in its head
/// (analyzed with its launch's block). A device lambda's `__shared__` in a host function is
/// said, never dropped.
#[test]
fn shared_memory_makes_a_misread_function_device_code() {
    let dir = temp_dir("misread");
    let text = "template <typename C>\nKERNEL_ATTRS(C::X) __global__ void k(int *o)\n{\n    __shared__ float q[32][32];\n    q[threadIdx.x][0] = 0;\n}\nstruct P { static const int X = 1; };\nvoid h(int *o) { k<P><<<1, 32>>>(o); }\n";
    let f = write(&dir, "k.cu", text);
    let o = banklint(&["check", &f, "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(json["accesses"][0]["status"], "analyzed", "{json}");
    assert_eq!(json["accesses"][0]["conflict_ways"], 32, "{json}");
    let host = "void h(float *o)\n{\n    auto f = [] __device__ (int i) { __shared__ float q[4]; q[i] = 0; };\n}\n";
    let f = write(&dir, "h.cu", host);
    let o = banklint(&["check", &f, "--format", "short"]);
    let out = stdout(&o);
    assert!(
        out.contains("h.cu:3:38: note: code banklint skipped"),
        "{out}"
    );
}

#[test]
fn fix_leaves_files_it_could_not_fully_analyze() {
    let dir = temp_dir("nofix");
    // An access to `matrix` banklint cannot analyze: the padding is not checked against it.
    let unknown = "__global__ void k(const int *in) {\n    __shared__ int matrix[32][32];\n    matrix[threadIdx.x][4] = 0;\n    matrix[in[threadIdx.x]][0] = 1;\n}\n";
    // A statement banklint cannot parse.
    let skipped = "__global__ void k(int *o) {\n    __shared__ int matrix[32][32];\n    for (auto &v : matrix[0]) v = 0;\n    matrix[threadIdx.x][4] = 0;\n}\n";
    for (name, text, why) in [
        (
            "unknown.cu",
            unknown,
            "some accesses to the array could not be analyzed",
        ),
        (
            "skipped.cu",
            skipped,
            "parts of the file could not be parsed",
        ),
    ] {
        let f = write(&dir, name, text);
        let o = banklint(&["check", &f, "--fix", "--color", "never"]);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            std::fs::read_to_string(&f).expect("read"),
            text,
            "{name} untouched"
        );
        assert!(
            stdout(&o).contains(&format!("[not applied by --fix: {why}]")),
            "{}",
            stdout(&o)
        );
    }
}

fn banklint_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_banklint"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("banklint runs")
}

fn config_project(name: &str) -> common::TempDir {
    let dir = temp_dir(name);
    for sub in ["src", "third_party", "build"] {
        std::fs::create_dir_all(dir.join(sub)).expect("mkdir");
    }
    std::fs::write(
        dir.join("banklint.toml"),
        "arch = \"sm_80\"\ndefines = [\"TILE=32\"]\nexclude = [\"third_party/**\"]\n\n[severity]\nunanalyzed-access = \"off\"\nbank-conflict = \"error\"\n",
    )
    .expect("write config");
    let kernel = "__global__ void k(const int *in) {\n    __shared__ float t[TILE][TILE];\n    t[threadIdx.x][0] = 1;\n    t[in[threadIdx.x]][0] = 2;\n}\n";
    std::fs::write(dir.join("src/a.cu"), kernel).expect("write");
    std::fs::write(dir.join("third_party/b.cu"), kernel).expect("write");
    dir
}

#[test]
fn config_is_found_upward_and_flags_override_it() {
    let dir = config_project("config");
    let src = dir.join("src");
    let o = banklint_in(&src, &["check", "--print-config", "--arch", "sm_70"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let config = std::fs::canonicalize(dir.join("banklint.toml"))
        .expect("canonical")
        .display()
        .to_string();
    let line = |key: &str| {
        out.lines()
            .find(|l| l.starts_with(key))
            .unwrap_or("")
            .to_string()
    };
    assert!(
        line("arch = \"sm_70\"").ends_with("# command line"),
        "{out}"
    );
    assert!(line("bank-mode = 4").ends_with("# default"), "{out}");
    assert!(
        line("define = \"TILE=32\"").ends_with(&format!("# {config}")),
        "{out}"
    );
    assert!(
        line("severity.bank-conflict = \"error\"").ends_with(&format!("# {config}")),
        "{out}"
    );
}

#[test]
fn config_severity_and_exclude_apply() {
    let dir = config_project("config2");
    let o = banklint_in(&dir.join("src"), &["check", "..", "--format", "short"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    // third_party is excluded; the unanalyzed access is off; the conflict is an error.
    assert_eq!(
        out,
        "../src/a.cu:3:5: error: 32-way bank conflict on `t` (32 wavefronts per warp instead of 1) [bank-conflict]\n"
    );
    let o = banklint_in(
        &dir.join("src"),
        &[
            "check",
            "..",
            "--format",
            "short",
            "--no-config",
            "-D",
            "TILE=32",
        ],
    );
    assert_eq!(
        stdout(&o).lines().count(),
        4,
        "without the config: both files, warnings and notes"
    );
}

#[test]
fn bad_config_is_a_usage_error_naming_the_file() {
    let dir = temp_dir("badconfig");
    std::fs::write(dir.join("banklint.toml"), "arch = 90\n").expect("write");
    let o = banklint_in(&dir, &["check", "."]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("banklint.toml: `arch` must be a string like \"sm_90\""),
        "{}",
        stderr(&o)
    );
    std::fs::write(
        dir.join("banklint.toml"),
        "[severity]\nbank-conflicts = \"off\"\n",
    )
    .expect("write");
    let o = banklint_in(&dir, &["check", "."]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown code `bank-conflicts` in [severity]"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn compile_commands_give_per_file_flags() {
    let dir = temp_dir("ccdb");
    std::fs::create_dir_all(dir.join("build")).expect("mkdir");
    std::fs::create_dir_all(dir.join("inc")).expect("mkdir");
    std::fs::write(dir.join("inc/w.h"), "#define W 32\n").expect("write");
    std::fs::write(
        dir.join("k.cu"),
        "#include \"w.h\"\n__global__ void k() {\n    __shared__ float t[W][W + PAD];\n    t[threadIdx.x][0] = 1;\n}\n",
    )
    .expect("write");
    let db = format!(
        "[{{\"directory\": \"{}\", \"file\": \"k.cu\", \"command\": \"nvcc -DPAD=0 -Iinc -c k.cu\"}}]",
        dir.display()
    );
    std::fs::write(dir.join("build/compile_commands.json"), db).expect("write");
    // PAD=0 from the database: an unpadded 32 x 32 tile, 32-way.
    let o = banklint_in(&dir, &["check", "k.cu", "-p", "build", "--format", "short"]);
    assert_eq!(
        stdout(&o),
        "k.cu:4:5: warning: 32-way bank conflict on `t` (32 wavefronts per warp instead of 1) [bank-conflict]\n",
        "{}",
        stderr(&o)
    );
    // Without it, W and PAD are unknown: the access cannot be analyzed.
    let o = banklint_in(&dir, &["check", "k.cu", "--format", "short"]);
    assert!(stdout(&o).contains("[unanalyzed-access]"), "{}", stdout(&o));
}

#[test]
fn a_loop_that_makes_no_progress_is_not_enumerated_forever() {
    // Found by fuzzing: `s *= 1` never ends. banklint stops after one trip and analyzes the
    // loop symbolically: the stride depends on `s`, so the access is unknown.
    let dir = temp_dir("noprogress");
    let f = write(
        &dir,
        "loop.cu",
        "__global__ void k(int *o) {\n    __shared__ int s[256];\n    for (unsigned int d = 1; d < blockDim.x; d *= 1)\n        s[2 * d * threadIdx.x] = 0;\n}\nvoid h(int *o) { k<<<1, 256>>>(o); }\n",
    );
    let started = std::time::Instant::now();
    let o = banklint(&["check", &f, "--format", "json"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(doc["accesses"][0]["status"], "unknown");
    assert!(
        doc["accesses"][0]["reason"]
            .as_str()
            .unwrap_or("")
            .contains("`d`"),
        "{}",
        doc["accesses"][0]
    );
}

#[test]
fn progress_is_shown_on_a_terminal_and_never_in_pipes() {
    // A terminal for stderr comes from util-linux's `script`; without it the check is skipped
    // (the piped case below still runs).
    let dir = temp_dir("progress");
    let kernel = "__global__ void k(float *o) {\n    __shared__ float t[256];\n    for (int i = 0; i < 16; ++i)\n        t[(threadIdx.x + i) % 256] = o[threadIdx.x];\n}\nvoid h(float *o) { k<<<1, 256>>>(o); }\n";
    for i in 0..400 {
        std::fs::write(dir.join(format!("k{i:03}.cu")), kernel).expect("write");
    }
    let piped = banklint(&["check", &dir.display().to_string(), "--format", "short"]);
    assert!(
        !stderr(&piped).contains("checking:"),
        "no progress when stderr is not a terminal"
    );
    if !Path::new("/usr/bin/script").is_file() {
        return;
    }
    let command = format!(
        "{} check {} --format short > /dev/null",
        env!("CARGO_BIN_EXE_banklint"),
        dir.display()
    );
    let o = Command::new("/usr/bin/script")
        .args(["-qec", &command, "/dev/null"])
        .env("BANKLINT_PROGRESS_AFTER_MS", "0")
        .output()
        .expect("script runs");
    let tty = String::from_utf8_lossy(&o.stdout);
    assert!(
        tty.contains("checking: "),
        "progress on a terminal: {tty:?}"
    );
    assert!(tty.contains("/400 files"), "{tty:?}");
}

#[test]
fn compound_assignment_evaluates_its_index_once() {
    // `s[k++] += 1` is a load and a store of one element, and increments k once: afterwards
    // k = 32 * tid + 1, so `s[k]` puts every lane in bank 1 (words 32 * tid + 1).
    let dir = temp_dir("compound");
    let f = write(
        &dir,
        "inc.cu",
        "__global__ void k(float *o) {\n    __shared__ float s[1100];\n    int k = 32 * threadIdx.x;\n    s[k++] += 1.0f;\n    s[k] = 0.0f;\n}\nvoid h(float *o) { k<<<1, 32>>>(o); }\n",
    );
    let o = banklint(&["check", &f, "--format", "json"]);
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let kinds: Vec<(u64, &str)> = doc["accesses"]
        .as_array()
        .expect("accesses")
        .iter()
        .map(|a| {
            (
                a["line"].as_u64().unwrap_or(0),
                a["kind"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(kinds, vec![(4, "load"), (4, "store"), (5, "store")]);
    let o = banklint(&["check", &f, "--color", "never"]);
    let out = stdout(&o);
    let line5 = out
        .split("warning[")
        .find(|w| w.contains(":5:5"))
        .expect("a finding on line 5");
    assert!(
        line5.contains("lanes 0-31 all hit bank 1, 32 different words"),
        "{line5}"
    );
}

/// A kernel file that only compiles after its includer's definitions.
const INCLUDED_KERNEL: &str = "__global__ void k(real *out) {\n    __shared__ real s[ROWS][32];\n    s[threadIdx.x][0] = 1;\n    out[threadIdx.x] = s[0][threadIdx.x];\n}\n";

#[test]
fn included_files_are_analyzed_after_their_includers_definitions() {
    let dir = temp_dir("includer");
    std::fs::create_dir_all(dir.join("kernels")).expect("dir");
    // main.cu -> kernels/all.cuh -> kernels/k.cu: `real` comes from main.cu, ROWS from all.cuh.
    let main = write(
        &dir,
        "main.cu",
        "#define real float\n#include \"kernels/all.cuh\"\nvoid go(real *o) { k<<<1, 32>>>(o); }\n",
    );
    write(
        &dir,
        "kernels/all.cuh",
        "#define ROWS 32\n#include \"k.cu\"\n",
    );
    let kernel = write(&dir, "kernels/k.cu", INCLUDED_KERNEL);

    // Checked alone: the includer chain is found through the file's directory and the checked
    // files; the column store is 32-way (4-byte words, rows of 32 words).
    let o = banklint(&["check", &kernel, &main, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("json");
    let files = doc["files"].as_array().expect("files");
    let k = files
        .iter()
        .find(|f| f["path"] == kernel.as_str())
        .expect("kernel file listed");
    let header = dir.join("kernels").join("all.cuh").display().to_string();
    assert_eq!(k["context"], header.as_str());
    let accesses = doc["accesses"].as_array().expect("accesses");
    let ways: Vec<u64> = accesses
        .iter()
        .filter(|a| a["file"] == kernel.as_str())
        .map(|a| a["conflict_ways"].as_u64().unwrap_or(0))
        .collect();
    assert_eq!(ways, vec![32, 1], "{accesses:?}");

    // Without the context, `real` is declared nowhere: each element size is analyzed, and
    // the column store's worst is the 4-byte one (rows of 32 words: 32-way; 1 byte: rows of 8
    // words, 4 lanes a word, 8-way; 16 bytes: rows of 128 words, 8 lanes a phase, 8-way).
    let o = banklint(&[
        "check",
        &kernel,
        "--format",
        "json",
        "--no-includer-context",
    ]);
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(doc["files"][0]["context"], Value::Null);
    let store = &doc["accesses"][0];
    assert_eq!(store["conflict_ways"], 32, "{doc}");
    assert_eq!(store["assumed_types"]["real"], "4-byte type", "{doc}");
    let sizes = store["by_element_size"].as_object().expect("by size");
    assert_eq!(sizes.len(), 5, "{doc}");
    assert_eq!(sizes["real = 1-byte type"], 8, "{doc}");
    assert_eq!(sizes["real = 16-byte type"], 8, "{doc}");
}

#[test]
fn a_pragma_once_header_the_includer_read_is_not_read_again_in_the_included_file() {
    let dir = temp_dir("includer-once");
    // main.cu reads tile.cuh with ROWS 32, then includes k.cuh with ROWS 8. tile.cuh is
    // `#pragma once`: in the translation unit k.cuh's own `#include "tile.cuh"` is empty, so
    // kTile is 32 there, not 8.
    let main = write(
        &dir,
        "main.cu",
        "#define ROWS 32\n#include \"tile.cuh\"\n#undef ROWS\n#define ROWS 8\n#include \"k.cuh\"\nvoid go() { k<<<1, 32>>>(); }\n",
    );
    write(
        &dir,
        "tile.cuh",
        "#pragma once\nconstexpr int kTile = ROWS;\n",
    );
    let kernel = write(
        &dir,
        "k.cuh",
        "#include \"tile.cuh\"\n__global__ void k() {\n    __shared__ float s[kTile][kTile];\n    s[threadIdx.x % kTile][0] = 1.0f;\n}\n",
    );
    let o = banklint(&["check", &kernel, &main, "--format", "json"]);
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("json");
    let store = doc["accesses"]
        .as_array()
        .expect("accesses")
        .iter()
        .find(|a| a["file"] == kernel.as_str())
        .expect("the store in k.cuh")
        .clone();
    // Rows of 32 floats: lane l writes word 32 l, all in bank 0 (32-way). Rows of 8 would put
    // lanes l and l + 8 on one word and the four words in four banks: conflict-free.
    assert_eq!(store["status"], "analyzed", "{store}");
    assert_eq!(store["conflict_ways"], 32, "{store}");
}

#[test]
fn json_lists_the_lines_conditional_compilation_leaves_out() {
    let dir = temp_dir("inactive");
    let f = write(
        &dir,
        "k.cu",
        "#define WIDE 0\n#if WIDE\n__global__ void wide(float *o) {\n    __shared__ float s[64];\n}\n#endif\n#ifdef __CUDA_ARCH__\nint arch_only;\n#else\nint host_only;\n#endif\n",
    );
    let o = banklint(&["check", &f, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("json");
    // Lines 3-5 (`#if WIDE` is false) and 10 (the host side of `#ifdef __CUDA_ARCH__`).
    assert_eq!(
        doc["files"][0]["inactive_lines"],
        serde_json::json!([[3, 5], [10, 10]])
    );
}

#[test]
fn wrapper_class_memory_names_the_declaration_of_each_instantiation() {
    let args = [
        "check",
        "fixtures/77_wrapper_class_in_header.cu",
        "-I",
        "fixtures/include",
    ];
    let o = banklint(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("json");
    // `DynamicShared<T>` for T = int and T = float: the header's two specializations.
    let mut declared: Vec<(String, u64)> = doc["accesses"][0]["declared_in"]
        .as_array()
        .expect("declared_in")
        .iter()
        .map(|d| {
            assert_eq!(d["file"], "fixtures/include/dynamic_shared.cuh");
            assert_eq!(d["class"], "DynamicShared");
            (
                d["array"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    declared.sort();
    assert_eq!(
        declared,
        [("dyn_float".to_string(), 14), ("dyn_int".to_string(), 22)]
    );
    let human = banklint(&[&args[..], &["--color", "never"]].concat());
    assert!(
        stdout(&human).contains(
            "`s` is `dyn_int`, the dynamic shared memory that `DynamicShared<int>` declares at fixtures/include/dynamic_shared.cuh:22"
        ),
        "{}",
        stdout(&human)
    );
}

#[test]
fn accesses_in_header_functions_are_reported_at_the_call_with_their_origin() {
    let o = banklint(&[
        "check",
        "fixtures/76_header_device_functions.cu",
        "-I",
        "fixtures/include",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("json");
    let first = &doc["accesses"][0];
    assert_eq!(first["line"], 14);
    assert_eq!(first["conflict_ways"], 32);
    assert_eq!(
        first["written_in"],
        "`store_strided` at strided_access.cuh:7"
    );
    let human = banklint(&[
        "check",
        "fixtures/76_header_device_functions.cu",
        "-I",
        "fixtures/include",
        "--color",
        "never",
    ]);
    assert!(
        stdout(&human)
            .contains("the access is in `store_strided` at strided_access.cuh:7, called here"),
        "{}",
        stdout(&human)
    );
}

#[test]
fn places_after_macro_expansions_are_the_written_ones() {
    // Macros expanded before the launch change the text's length: the note must still name
    // the line the launch is written on.
    let dir = temp_dir("expanded-lines");
    let f = write(
        &dir,
        "k.cu",
        "#define TILE_DIMENSION_OF_THE_KERNEL 32\n#define ROWS 8\n__global__ void k(float *o) {\n    __shared__ float t[TILE_DIMENSION_OF_THE_KERNEL][TILE_DIMENSION_OF_THE_KERNEL];\n    o[threadIdx.x] = t[threadIdx.x][threadIdx.y];\n}\nvoid h(float *o) {\n    dim3 b(TILE_DIMENSION_OF_THE_KERNEL, ROWS);\n    k<<<1, b>>>(o);\n}\n",
    );
    let o = banklint(&["check", &f, "--color", "never"]);
    let out = stdout(&o);
    assert!(out.contains("from the launch at line 9"), "{out}");
    assert!(out.contains(":5:22"), "the access, on its own line: {out}");
}

#[test]
fn arrays_no_analysis_reaches_are_named_with_why() {
    let dir = temp_dir("unreached");
    let f = write(
        &dir,
        "k.cu",
        "__device__ float *scratch() {\n    static __shared__ float pool[64];\n    return pool;\n}\n\
         __global__ void k(float *out) {\n    __shared__ float spare[32];\n    __shared__ float used[32];\n    used[threadIdx.x] = 1.0f;\n    out[threadIdx.x] = used[31 - threadIdx.x];\n}\n",
    );
    let o = banklint(&["check", &f, "--color", "never", "--format", "short"]);
    assert_eq!(o.status.code(), Some(0), "notes only: {}", stderr(&o));
    let out = stdout(&o);
    let notes: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("[unreached-array]"))
        .collect();
    assert_eq!(notes.len(), 2, "{out}");
    assert!(
        notes[0].contains(":2:29: note: no access to `pool` was analyzed"),
        "{out}"
    );
    assert!(
        notes[1].contains(":6:22: note: no access to `spare` was analyzed"),
        "{out}"
    );
    let human = stdout(&banklint(&["check", &f, "--color", "never"]));
    assert!(
        human.contains(
            "the device function `scratch`, which no kernel banklint analyzed in this file calls"
        ),
        "{human}"
    );
    assert!(
        human.contains("the kernel `k` never names it after this declaration"),
        "{human}"
    );
    let explain = stdout(&banklint(&["explain", "unreached-array"]));
    assert!(explain.contains("## What it does"), "{explain}");
}

/// An access that cannot be analyzed says what would let it be, by its reason: a field of a
/// type declared nowhere asks for the type, and once given (`-D real2=float2`) it is analyzed.
#[test]
fn help_for_an_undeclared_type_asks_for_the_type() {
    let dir = temp_dir("cli-undeclared-type");
    let file = write(
        &dir,
        "k.cu",
        "__global__ void k(real2 *p) {\n    __shared__ real2 one;\n    one.x = 1.0f;\n    p[threadIdx.x] = one;\n}\nvoid launch(real2 *p) { k<<<1, 32>>>(p); }\n",
    );
    let out = banklint(&["check", &file, "--color", "never"]);
    let text = stdout(&out);
    assert!(text.contains("declared nowhere banklint reads"), "{text}");
    assert!(
        text.contains("help: give the type as the build does (`-D NAME=float2`"),
        "{text}"
    );
    let out = banklint(&["check", &file, "--format", "json", "-D", "real2=float2"]);
    let json: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let accesses = json["accesses"].as_array().expect("accesses");
    assert!(!accesses.is_empty(), "{json}");
    assert!(accesses.iter().all(|a| a["status"] == "analyzed"), "{json}");
}

#[test]
fn an_access_no_thread_reaches_names_the_return_or_condition_that_switched_the_lanes_off() {
    let fixture = "fixtures/181_returned_before_access.cu";
    let reasons = |arch: &str| -> Vec<(u64, String, Option<u64>)> {
        let out = banklint(&["check", fixture, "--format", "json", "--arch", arch]);
        let j: Value = serde_json::from_str(&stdout(&out)).expect("json");
        j["accesses"]
            .as_array()
            .expect("accesses")
            .iter()
            .map(|a| {
                (
                    a["line"].as_u64().unwrap(),
                    a["reason"].as_str().unwrap_or("").to_string(),
                    a["conflict_ways"].as_u64(),
                )
            })
            .collect()
    };
    let returned = "no thread reaches it in the analysis: every thread has returned before it (the last at the `return` on line 11)";
    let condition = "no thread reaches it in the analysis: the condition `threadIdx.x >= 32` (line 21) is false for every thread that reaches it";
    let sm90 = reasons("sm_90");
    assert_eq!(sm90[0], (13, returned.to_string(), None));
    assert_eq!(sm90[1], (15, returned.to_string(), None));
    assert_eq!(sm90[2], (22, condition.to_string(), None));
    // Before Ampere the return is compiled out: t[tid][0] on float[32][32] is 32-way.
    let sm75 = reasons("sm_75");
    assert_eq!(sm75[0], (13, String::new(), Some(32)));
    assert_eq!(sm75[2], (22, condition.to_string(), None));
    let human = stdout(&banklint(&["check", fixture, "--color", "never"]));
    assert!(
        human.contains("every thread takes that `return`") && human.contains("`--arch`"),
        "{human}"
    );
}

#[test]
fn an_operand_no_thread_runs_is_named_with_the_left_side_that_decided() {
    let out = banklint(&[
        "check",
        "fixtures/182_short_circuit_operands.cu",
        "--format",
        "json",
    ]);
    let j: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let reasons: Vec<(u64, &str)> = j["accesses"]
        .as_array()
        .expect("accesses")
        .iter()
        .map(|a| {
            (
                a["line"].as_u64().unwrap(),
                a["reason"].as_str().unwrap_or(""),
            )
        })
        .collect();
    // Line 16's operand is not instantiated (Ascending = 0): no access there at all.
    assert_eq!(
        reasons.iter().map(|r| r.0).collect::<Vec<_>>(),
        vec![13, 18, 19]
    );
    assert_eq!(
        reasons[2].1,
        "no thread reaches it in the analysis: the operand after `&&` does not run: `threadIdx.x >= 32` (line 19) is false for every thread that reaches it"
    );
}

#[test]
fn a_function_with_a_parameter_pack_is_analyzed_and_its_pack_bound_as_written() {
    let fixture = "fixtures/183_parameter_packs.cu";
    let human = stdout(&banklint(&["check", fixture, "--color", "never"]));
    // The launch's `float, int` go to the pack's expansion; no element size is assumed for
    // `Ins` alone.
    assert!(
        human.contains("instantiated with Scale = 2, Ins... = float, int;"),
        "{human}"
    );
    assert!(!human.contains("assumed"), "{human}");
    // Nothing skipped: the signatures with packs are read.
    assert!(!human.contains("skipped-code"), "{human}");
    // Both calls of the variadic device function run it: 2 calls x 32 warps.
    assert!(
        human.contains("per block: 64 instructions, 2048 wavefronts"),
        "{human}"
    );
}

#[test]
fn a_range_for_over_shared_pointers_is_noted_not_dropped() {
    let fixture = "fixtures/199_range_for_braced_list.cu";
    let human = stdout(&banklint(&["check", fixture, "--color", "never"]));
    assert!(
        human.contains("a range-based `for` over pointers into shared memory: `row` is not followed to them, so the accesses through it are not analyzed"),
        "{human}"
    );
}
