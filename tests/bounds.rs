//! Every analysis is bounded: inputs that would make it exponential (calls that fan out,
//! recursion) or unbounded (loops of millions of trips with many accesses) finish quickly,
//! and reaching a bound is reported where it happens, never silent. Each run of the binary
//! is under a time limit, so a hang fails the test; the bounds themselves are in
//! `src/limits.rs`.

mod common;

use common::{banklint, temp_dir, write};
use std::time::{Duration, Instant};

/// A generous limit for a debug build on a loaded machine; the cases below took minutes or
/// did not finish before the bounds existed.
const QUICK: Duration = Duration::from_secs(20);

/// `f0` calls `f1` ten times, ..., `f{depth-1}` writes shared memory through its pointer.
fn fan_out(depth: usize) -> String {
    let mut src = String::new();
    src.push_str(&format!(
        "__device__ void f{}(float *s) {{ s[threadIdx.x * 32] = 1.0f; }}\n",
        depth - 1
    ));
    for d in (0..depth - 1).rev() {
        src.push_str(&format!("__device__ void f{d}(float *s) {{\n"));
        for _ in 0..10 {
            src.push_str(&format!("    f{}(s);\n", d + 1));
        }
        src.push_str("}\n");
    }
    src.push_str(
        "__global__ void k() {\n    __shared__ float s[32 * 32];\n    f0(s);\n}\nvoid h() { k<<<1, 32>>>(); }\n",
    );
    src
}

#[test]
fn call_trees_that_fan_out_stay_linear() {
    let dir = temp_dir("fan-out");
    for depth in [5, 7, 9] {
        let name = format!("fan{depth}.cu");
        write(&dir, &name, fan_out(depth).as_bytes());
        let started = Instant::now();
        let o = banklint(&dir, &["check", "--format", "json", &name]);
        assert!(
            started.elapsed() < QUICK,
            "depth {depth}: {:?}",
            started.elapsed()
        );
        let json = o.json();
        let accesses = json["accesses"].as_array().expect("accesses");
        let human = banklint(&dir, &["check", "--color", "never", &name]).stdout;
        if depth <= 8 {
            // The leaf's store, 32 lanes 32 words apart: 32-way, found through the first
            // calls.
            assert!(
                accesses
                    .iter()
                    .any(|a| a["status"] == "analyzed" && a["conflict_ways"] == 32),
                "depth {depth}: {accesses:?}"
            );
        } else {
            // Past banklint's call depth the leaf is not reached: said at the calls of it.
            assert!(accesses.is_empty(), "depth {depth}: {accesses:?}");
            assert!(
                human
                    .contains("the call of `f8` is not followed: calls are followed 8 levels deep"),
                "depth {depth}: {human}"
            );
        }
        if depth >= 7 {
            // More calls than the budget: the rest are reported where they are.
            assert!(
                human.contains("20000 calls were already followed"),
                "depth {depth}"
            );
        }
    }
}

#[test]
fn recursion_is_not_followed_and_says_so() {
    let dir = temp_dir("recursion");
    let src = "__device__ void r(float *s, int n) {\n    s[threadIdx.x] = n;\n    if (n > 0) { r(s, n - 1); r(s, n - 1); r(s, n - 1); r(s, n - 1); r(s, n - 1); r(s, n - 1); r(s, n - 1); r(s, n - 1); r(s, n - 1); r(s, n - 1); }\n}\n__global__ void k() {\n    __shared__ float s[32];\n    r(s, 20);\n}\nvoid h() { k<<<1, 32>>>(); }\n";
    write(&dir, "rec.cu", src.as_bytes());
    let started = Instant::now();
    let o = banklint(&dir, &["check", "--format", "short", "rec.cu"]);
    assert!(started.elapsed() < QUICK, "{:?}", started.elapsed());
    assert!(
        o.stdout
            .contains("rec.cu:3:18: note: code banklint skipped"),
        "the recursive call is reported where it is: {}",
        o.stdout
    );
}

#[test]
fn device_functions_that_cannot_reach_shared_memory_cost_nothing_on_their_own() {
    // A header of value-only helpers calling each other ten times each, never launched:
    // nothing to analyze, so nothing is spent on it.
    let dir = temp_dir("helpers");
    let mut src = String::from("__device__ float g8(float x) { return x * 2.0f; }\n");
    for d in (0..8).rev() {
        src.push_str(&format!(
            "__device__ float g{d}(float x) {{ float y = 0.0f;"
        ));
        for _ in 0..10 {
            src.push_str(&format!(" y += g{}(x);", d + 1));
        }
        src.push_str(" return y; }\n");
    }
    write(&dir, "helpers.cuh", src.as_bytes());
    let started = Instant::now();
    let o = banklint(&dir, &["check", "helpers.cuh"]);
    assert!(started.elapsed() < QUICK, "{:?}", started.elapsed());
    assert_eq!(o.code, Some(0), "{}", o.stdout);
}

#[test]
#[cfg(target_os = "linux")]
fn a_uniform_unknown_rebuilt_in_a_loop_keeps_memory_bounded() {
    // Found by the structure-aware fuzzer: each trip names `v | blockDim.x` after the name
    // before it, and the names grew to 1.9 GB in 0.8 s (770 MB for this reduction). They are cut at
    // `limits::MAX_SYMBOL_NAME`; the function still runs to its budget.
    let src = "__device__ void g(float *q) {\n    __shared__ float s[32];\n    int v = 3;\n    while (1) {\n        v |= blockDim.x;\n        v |= 16640;\n        s[threadIdx.x] = v;\n    }\n}\n";
    let dir = temp_dir("bounds-symbol-names");
    write(&dir, "k.cu", src.as_bytes());
    let start = Instant::now();
    let (o, peak_kb) = common::run_measured(&dir, &["check", "k.cu", "--format", "json"]);
    assert!(start.elapsed() < QUICK, "took {:?}", start.elapsed());
    assert!(o.code.is_some(), "{}", o.stderr);
    assert!(peak_kb < 200 * 1024, "peak {peak_kb} KB");
    assert!(
        o.stdout.contains("\"array\": \"s\""),
        "the store is analyzed: {}",
        o.stdout
    );
}
