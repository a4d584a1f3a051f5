//! `banklint:` annotations anywhere in a comment, as clang-tidy's `NOLINT` and ruff's `noqa`
//! work, run through the real binary: after other comment text they suppress, assert, give
//! block shapes and arguments; a malformed one is `invalid-annotation` wherever it stands.
//!
//! The kernels index `t[threadIdx.x][k]` of a `float t[32][32]` with 32 threads: every lane
//! reads column k, 32 words 128 bytes apart, all in one bank: a 32-way conflict (fixture 01),
//! while `t[0][threadIdx.x]` reads one row: conflict-free.

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

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

const AFTER_OTHER_TEXT: &str = "\
__global__ void a(float *o) {
    __shared__ float t[32][32];
    o[0] = t[threadIdx.x][0]; // column read  // banklint: allow(bank-conflict)
    // note // banklint: expect(32-way)
    o[1] = t[threadIdx.x][1];
    o[2] = t[0][threadIdx.x]; /* row */ // banklint: expect(conflict-free)
    o[3] = t[threadIdx.x][3]; // once per launch, banklint: allow(bank-conflict) as measured
}
void h(float *o) { a<<<1, 32>>>(o); }
";

#[test]
fn annotations_after_other_comment_text_suppress_and_assert() {
    let dir = temp_dir("after");
    let f = write(&dir, "after.cu", AFTER_OTHER_TEXT);
    let o = banklint(&["check", &f, "--format", "short", "--warn-unused-allow"]);
    assert_eq!(
        stdout(&o),
        "",
        "line 3's and line 7's allows suppress their 32-way reads, line 4's expect(32-way) holds \
         and acknowledges line 5's, line 6's expect(conflict-free) holds; none is unused"
    );
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_failing_expectation_after_other_text_is_an_error() {
    let dir = temp_dir("failing");
    let f = write(
        &dir,
        "failing.cu",
        "__global__ void a(float *o) {\n    __shared__ float t[32][32];\n    // padded?  // banklint: expect(conflict-free)\n    o[0] = t[threadIdx.x][0];\n}\nvoid h(float *o) { a<<<1, 32>>>(o); }\n",
    );
    let o = banklint(&["check", &f, "--format", "short"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains(&format!(
            "{f}:4:12: error: expected this load of `t` to be conflict-free, but it is 32-way [expectation-failed]"
        )),
        "{out}"
    );
}

#[test]
fn an_unused_allow_after_other_text_is_reported() {
    let dir = temp_dir("unused");
    let f = write(
        &dir,
        "unused.cu",
        "__global__ void a(float *o) {\n    __shared__ float t[32][32];\n    o[0] = t[0][threadIdx.x]; // row // banklint: allow(bank-conflict)\n}\nvoid h(float *o) { a<<<1, 32>>>(o); }\n",
    );
    let o = banklint(&["check", &f, "--format", "short", "--warn-unused-allow"]);
    // The annotation's own column: `banklint:` stands at column 41 of line 3.
    assert_eq!(
        stdout(&o),
        format!(
            "{f}:3:41: warning: `allow(bank-conflict)` suppresses nothing here [unused-allow]\n"
        )
    );
}

#[test]
fn malformed_annotations_anywhere_in_a_comment_are_invalid() {
    let dir = temp_dir("malformed");
    let f = write(
        &dir,
        "bad.cu",
        "__global__ void a(float *o) {\n    __shared__ float t[64];\n    o[0] = t[threadIdx.x]; // fast // banklint: alow(bank-conflict)\n    o[1] = t[threadIdx.x]; // row, banklint: expect(sideways)\n    o[2] = t[threadIdx.x]; // x // banklint: allow(no-such-code)\n    o[3] = t[threadIdx.x]; // mybanklint: not ours, nor no-banklint: this\n}\nvoid h(float *o) { a<<<1, 32>>>(o); }\n",
    );
    let o = banklint(&["check", &f, "--format", "short"]);
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert_eq!(
        lines,
        vec![
            format!(
                "{f}:3:39: error: unknown banklint annotation `alow(bank-conflict)` [invalid-annotation]"
            ),
            format!(
                "{f}:4:36: error: `banklint: expect(sideways)` should be `expect(conflict-free)` or `expect(N-way)` [invalid-annotation]"
            ),
            format!(
                "{f}:5:36: error: unknown code `no-such-code` in `banklint: allow(...)` [invalid-annotation]"
            ),
        ],
        "line 6 names no annotation: `banklint:` there is part of other words"
    );
}

#[test]
fn kernel_annotations_after_other_text_give_block_and_arguments() {
    let dir = temp_dir("kernel");
    // Block (32, 2): two warps, each reading column `stride` of its own row block; with
    // stride = 32 the index is threadIdx.x * 32: every lane in bank 0, 32-way. Neither
    // value is known without the annotations (no launch in the file).
    let f = write(
        &dir,
        "kernel.cu",
        "// transpose tile, two warps // banklint: block(32, 2)\n// strides from the host // banklint: args(stride = 32)\n__global__ void k(float *o, int stride) {\n    __shared__ float s[2048];\n    o[0] = s[threadIdx.x * stride + threadIdx.y];\n}\n",
    );
    let o = banklint(&["check", &f, "--format", "json"]);
    let doc: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let access = &doc["accesses"][0];
    assert_eq!(access["block_dim"], serde_json::json!([32, 2, 1]));
    assert_eq!(access["block_dim_source"], "annotation");
    assert_eq!(access["assumed_arguments"]["stride"], 32);
    assert_eq!(access["conflict_ways"], 32);
    assert_eq!(access["block_totals"]["instructions"], 2);
    assert_eq!(access["block_totals"]["wavefronts"], 64);
}

const INSTANTIATE: &str = "\
// banklint: instantiate(K = 3)
template <int N>
__global__ void k(float *out)
{
    __shared__ float s[2][N];
    out[threadIdx.x] = s[1][threadIdx.x];
}
// banklint: instantiate(N)
__global__ void plain(float *out)
{
    __shared__ float s[32];
    out[threadIdx.x] = s[threadIdx.x];
}
// banklint: instantiate(T = unsigned long long, N = (2 * 16))
template <typename T, int N>
__global__ void wide(T *out)
{
    __shared__ T s[N];
    out[threadIdx.x] = s[threadIdx.x];
}
";

#[test]
fn instantiate_names_parameters_the_kernel_has_or_says_which_it_has() {
    let dir = temp_dir("instantiate");
    let f = write(&dir, "k.cu", INSTANTIATE);
    let o = banklint(&["check", &f, "--format", "short"]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            format!("{f}:1:1: note: `banklint: instantiate(K = ...)` is not used [block-shape]")
                .as_str(),
            format!("{f}:6:24: note: could not analyze this load of `s` [unanalyzed-access]")
                .as_str(),
            format!(
                "{f}:8:1: error: `N` in `banklint: instantiate(...)` should be `PARAMETER = argument`, e.g. `instantiate(T = float, BLOCK = 256)` [invalid-annotation]"
            )
            .as_str(),
        ],
        "{out}"
    );
    // The third kernel is analyzed as `wide<unsigned long long, 32>`: 8-byte elements read
    // in a row, conflict-free in 2 wavefronts.
    let o = banklint(&["check", &f, "--format", "json"]);
    let json: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let wide = json["accesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kernel"] == "wide")
        .expect("the access in `wide`");
    assert_eq!(wide["status"], "analyzed");
    assert_eq!(wide["access_bytes"], 8);
    assert_eq!(wide["wavefronts"], 2);
}
