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

/// Runs `check` on `src` (as `name` in a fresh directory) in the short format, under
/// [`QUICK`]: the directory and the run.
fn check_quickly(dir_name: &str, name: &str, src: &str) -> (common::TempDir, common::Out) {
    let dir = temp_dir(dir_name);
    write(&dir, name, src.as_bytes());
    let started = Instant::now();
    let o = banklint(&dir, &["check", "--format", "short", name]);
    assert!(started.elapsed() < QUICK, "{name}: {:?}", started.elapsed());
    assert!(matches!(o.code, Some(0 | 1)), "{name}: {}", o.stderr);
    (dir, o)
}

#[test]
fn host_variables_that_refer_to_themselves_are_run_once_in_order() {
    // The clamp idiom and self-assignments hung (each self-reference doubled the work).
    // Run in order, `threads` is 256, `w` 4 and `b` 6: the launch's block is 256 / 4 + 6 = 70
    // threads, so warps 0 and 1 store 2-way (lanes 2 words apart: lanes 0 and 16 share a
    // bank) and warp 2 (6 lanes) in one wavefront: 5 wavefronts per block, 3 ideal.
    let src = "__global__ void k(float *o) {\n    __shared__ float t[1024];\n    t[threadIdx.x * 2] = o[threadIdx.x];\n}\nvoid h(float *o) {\n    int threads = 256;\n    threads = threads > 1024 ? 1024 : threads;\n    int w = 2;\n    w = w * w;\n    int b = 3;\n    b = b + b;\n    k<<<1, threads / w + b>>>(o);\n}\n";
    let dir = temp_dir("bounds-clamp");
    write(&dir, "clamp.cu", src.as_bytes());
    let started = Instant::now();
    let o = banklint(&dir, &["check", "--color", "never", "clamp.cu"]);
    assert!(started.elapsed() < QUICK, "{:?}", started.elapsed());
    assert!(
        o.stdout.contains("with block (70, 1) from the launch at line 12; per block: 3 instructions, 5 wavefronts (ideal 3)"),
        "{}",
        o.stdout
    );
    // A chain in which each variable reads the two before it twice (2^40 reads if each
    // were re-evaluated): every `b_i` is 32, so the column store is 32-way.
    let mut src = String::from(
        "__global__ void k(float *o) {\n    __shared__ float t[32][32];\n    t[threadIdx.x][0] = o[threadIdx.x];\n}\nvoid h(float *o) {\n    int b0 = 32;\n    int b1 = 32;\n",
    );
    for i in 2..40 {
        src.push_str(&format!(
            "    int b{i} = b{} + b{} - b{};\n",
            i - 1,
            i - 2,
            i - 2
        ));
    }
    src.push_str("    k<<<1, b39>>>(o);\n}\n");
    let (_, o) = check_quickly("bounds-chain", "chain.cu", &src);
    assert!(
        o.stdout
            .contains("chain.cu:3:5: warning: 32-way bank conflict on `t`"),
        "{}",
        o.stdout
    );
}

#[test]
fn macros_that_grow_without_end_are_cut_and_said() {
    // `#define X (X+X)`: `X` expands once (a macro does not expand inside itself), leaving
    // `(X+X)`, whose names are 0 in `#if`: false, as gcc has it, and not a note.
    let src = "#define X (X+X)\n#if X\n__global__ void k(float *o) { __shared__ float t[32][32]; t[threadIdx.x][0] = 1; }\n#endif\n__global__ void j(float *o) { __shared__ float u[32][33]; u[threadIdx.x][0] = 1; }\n";
    let (dir, o) = check_quickly("bounds-self-macro", "self.cu", src);
    assert_eq!(o.stdout, "", "no finding, no note");
    let json = banklint(&dir, &["check", "--format", "json", "self.cu"]).json();
    let arrays: Vec<&serde_json::Value> = json["accesses"]
        .as_array()
        .expect("accesses")
        .iter()
        .map(|a| &a["array"])
        .collect();
    assert_eq!(arrays, ["u"], "only `j` is compiled");
    // A doubling chain: `M0` would be 2^20 tokens. In `#if` the condition cannot be
    // evaluated, which is said at the directive; in a subscript the macro is left
    // unexpanded, which is said where it is written.
    let mut src = String::from("#define M20 1\n");
    for i in (0..20).rev() {
        src.push_str(&format!("#define M{i} M{} M{}\n", i + 1, i + 1));
    }
    src.push_str("#if M0\n#endif\n__global__ void k(float *o) { __shared__ float t[32][32]; t[threadIdx.x][M0 & 0] = 1; }\n");
    let (dir, o) = check_quickly("bounds-doubling", "double.cu", &src);
    assert!(
        o.stdout.contains("double.cu:22:1: note: code banklint skipped: shared-memory accesses in it are not analyzed [skipped-code]"),
        "the `#if`: {}",
        o.stdout
    );
    assert!(
        o.stdout.contains("double.cu:24:")
            && o.stdout.contains("[skipped-code]")
            && o.stdout.contains("[unanalyzed-access]"),
        "the subscript: {}",
        o.stdout
    );
    let human = banklint(&dir, &["check", "--color", "never", "double.cu"]).stdout;
    assert!(
        human.contains("the condition of this `#if` cannot be evaluated: a macro in it expands to more than 50000 tokens (through `M19`) and is left unexpanded; banklint takes it as false"),
        "{human}"
    );
    // Sizes built from a tripling chain: 8 levels expand (about 20,000 tokens, value 32: a
    // 32-way column store), 20 levels would be 3^21 tokens and are cut.
    for (levels, expect) in [
        (8, "sizes.cu:10:59: warning: 32-way bank conflict on `t`"),
        (20, "[skipped-code]"),
    ] {
        let mut src = String::from("#define A0 32\n");
        for i in 1..=levels {
            src.push_str(&format!(
                "#define A{i} (A{} + A{} - A{})\n",
                i - 1,
                i - 1,
                i - 1
            ));
        }
        src.push_str(&format!(
            "__global__ void k(float *o) {{ __shared__ float t[A{levels}][A{levels}]; t[threadIdx.x][0] = o[threadIdx.x]; }}\n"
        ));
        let (_, o) = check_quickly("bounds-tripling", "sizes.cu", &src);
        assert!(o.stdout.contains(expect), "{levels} levels: {}", o.stdout);
    }
}

#[test]
fn a_loop_that_only_data_can_end_is_analyzed_in_its_first_trips() {
    // `while (true)` around inlined work, left only where a loaded value says: trip by trip
    // its exit never resolves, and it used to run 4,096 trips (seconds each on real merge
    // and solver kernels) before being analyzed again symbolically. The stride-2 store is
    // 2-way (lanes l and l + 16 share a bank).
    let mut work = String::new();
    for i in 0..200 {
        work.push_str(&format!("    x = x * 0.5f + {i}.0f;\n"));
    }
    let src = format!(
        "__device__ float step(float x) {{\n{work}    return x;\n}}\n__global__ void k(const float *in, float *o) {{\n    __shared__ float s[64];\n    int i = 0;\n    while (true) {{\n        float v = step(in[threadIdx.x + i]);\n        s[2 * threadIdx.x] = v;\n        if (v < 0.0f) break;\n        i++;\n    }}\n    o[threadIdx.x] = s[threadIdx.x];\n}}\nvoid h(const float *in, float *o) {{ k<<<1, 32>>>(in, o); }}\n"
    );
    let dir = temp_dir("bounds-data-exit");
    write(&dir, "walk.cu", src.as_bytes());
    let started = Instant::now();
    let o = banklint(&dir, &["check", "--color", "never", "walk.cu"]);
    assert!(started.elapsed() < QUICK, "{:?}", started.elapsed());
    assert!(
        o.stdout.contains("2-way bank conflict on `s`")
            && o.stdout.contains(
                "may end early at a `break` or `return` that depends on data (each thread's own values)"
            ),
        "{}",
        o.stdout
    );
}

#[test]
fn huge_loops_with_many_accesses_stay_within_the_budget() {
    // 4096 x 4096 trips around 200 loads took 47 s. Each load's index is the same on every
    // trip: `s[(tid * m) % 1024]` with m = 1..7, 256 threads; lanes m words apart collide
    // gcd(m, 32)-way, so m = 2 and 6 are 2-way and m = 4 is 4-way.
    for loads in [50usize, 200] {
        let mut body = String::new();
        for i in 0..loads {
            body.push_str(&format!(
                "            acc += s[(threadIdx.x * {}) % 1024];\n",
                i % 7 + 1
            ));
        }
        let src = format!(
            "__global__ void k(float *o) {{\n    __shared__ float s[1024];\n    float acc = 0;\n    for (int i = 0; i < 4096; i++)\n        for (int j = 0; j < 4096; j++) {{\n{body}        }}\n    o[threadIdx.x] = acc;\n}}\nvoid h(float *o) {{ k<<<1, 256>>>(o); }}\n"
        );
        let (_, o) = check_quickly("bounds-loops", "loops.cu", &src);
        let count = |w: &str| o.stdout.matches(w).count();
        let expected = |ms: &[usize]| (0..loads).filter(|i| ms.contains(&(i % 7 + 1))).count();
        assert_eq!(count("2-way bank conflict"), expected(&[2, 6]), "{loads}");
        assert_eq!(count("4-way bank conflict"), expected(&[4]), "{loads}");
        assert_eq!(count("warning:"), expected(&[2, 4, 6]), "{loads}");
    }
}

#[test]
fn a_large_sibling_header_does_not_slow_the_checked_file() {
    // 2 MB holding the word `include` 260,000 times on one line took 17.6 s to pass over
    // (one search back for the line start per word), whether included or only beside it.
    let dir = temp_dir("bounds-sibling");
    write(&dir, "big.h", "include ".repeat(260_000).as_bytes());
    write(&dir, "k.cu", common::GOOD.as_bytes());
    write(
        &dir,
        "inc.cu",
        format!("#include \"big.h\"\n{}", common::GOOD).as_bytes(),
    );
    for (file, line) in [("k.cu", 3), ("inc.cu", 4)] {
        let started = Instant::now();
        let o = banklint(&dir, &["check", "--format", "short", file]);
        assert!(started.elapsed() < QUICK, "{file}: {:?}", started.elapsed());
        assert!(
            o.stdout.contains(&format!(
                "{file}:{line}:5: warning: 32-way bank conflict on `t`"
            )),
            "{file}: {}",
            o.stdout
        );
    }
}

#[test]
fn a_kernel_in_more_configurations_than_analyzed_says_so() {
    // 40 instantiations, rows of 33 to 72 floats, each its own value of `W`: no choice
    // covers more values than another, so banklint analyzes the first 12 (33 to 44). The
    // worst of those is rows of 40 (a column at a stride of 40 words: banks 0, 8, 16 and 24,
    // 8 lanes each: 8-way). Rows of 64, beyond them, would be 32-way: the note says that
    // some configurations were left out, and how many there are.
    let mut src = String::from(
        "template <int W>\n__global__ void k(float *o) {\n    __shared__ float t[32][W];\n    t[threadIdx.x][0] = o[threadIdx.x];\n}\nvoid h(float *o) {\n",
    );
    for w in 33..73 {
        src.push_str(&format!("    k<{w}><<<1, 32>>>(o);\n"));
    }
    src.push_str("}\n");
    let (dir, o) = check_quickly("bounds-configurations", "many.cu", &src);
    assert!(
        o.stdout
            .contains("many.cu:4:5: warning: 8-way bank conflict on `t`"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("many.cu:2:12: note: some configurations of this kernel are not analyzed"),
        "{}",
        o.stdout
    );
    let o = banklint(&dir, &["check", "--color", "never", "many.cu"]);
    assert!(
        o.stdout.contains(
            "`k` has 40 configurations (launch shapes, template arguments, element sizes); banklint analyzes 12 of them"
        ),
        "{}",
        o.stdout
    );
}
