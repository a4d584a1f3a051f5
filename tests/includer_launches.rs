//! A header's kernel template that only other files launch, each instantiating it for one
//! configuration through a macro (a library's instantiation files, in a folder beside the
//! header, including it by its path in the project): checked on its own, the header is
//! analyzed under every instantiation the nearest launching files make. And a launch reads
//! its block from a traits class however deep in the includes the class is defined.

mod common;
use common::{banklint, labels_of, temp_dir, write};

const KERNEL: &str = r#"template <int Rows, int Threads>
__global__ void pick(const float *in, float *out)
{
    __shared__ float s[Threads][Rows];
    s[threadIdx.x][0] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[0][threadIdx.x];
}
"#;

const LAUNCHER: &str = r#"#include <lib/select.cuh>

#define PICK_IMPL(ROWS)                                  \
    void run_##ROWS(const float *in, float *out)         \
    {                                                    \
        constexpr int kThreads = 64;                     \
        pick<ROWS, kThreads><<<1, kThreads>>>(in, out);  \
    }
"#;

#[test]
fn a_header_kernel_runs_under_each_instantiation_of_the_files_that_include_it() {
    let dir = temp_dir("includer-launches");
    std::fs::create_dir_all(dir.join("lib/impl")).unwrap();
    write(&dir, "lib/select.cuh", KERNEL.as_bytes());
    write(&dir, "lib/impl/launch.cuh", LAUNCHER.as_bytes());
    write(
        &dir,
        "lib/impl/pick32.cu",
        b"#include \"launch.cuh\"\nPICK_IMPL(32)\n",
    );
    write(
        &dir,
        "lib/impl/pick33.cu",
        b"#include \"launch.cuh\"\nPICK_IMPL(33)\n",
    );
    let json = banklint(&dir, &["check", "lib/select.cuh", "--format", "json"]).json();
    let accesses = json["accesses"].as_array().unwrap();
    assert_eq!(accesses.len(), 2, "{json}");
    // `s[tx][0]`: rows of 32 words put every lane in bank 0 (32-way, from pick32.cu); rows of
    // 33 would be clean. 64 threads, from the launches.
    let store = &accesses[0];
    assert_eq!(store["line"], 5);
    assert_eq!(store["status"], "analyzed", "{store}");
    assert_eq!(store["conflict_ways"], 32, "{store}");
    assert_eq!(store["block_dim"], serde_json::json!([64, 1, 1]), "{store}");
    assert_eq!(store["block_dim_source"], "includer-launch", "{store}");
    // `s[0][tx]`: consecutive words either way.
    assert_eq!(accesses[1]["status"], "analyzed");
    assert_eq!(accesses[1]["conflict_ways"], 1);
    // Both instantiations were analyzed: the human report says so.
    let human = banklint(&dir, &["check", "lib/select.cuh", "--color", "never"]);
    assert!(
        human.stdout.contains("the worst of 2 analyses"),
        "{}",
        human.stdout
    );
}

/// A launch's block read from a traits class two includes down (`launch.cu` includes
/// `traits.h`, which includes `detail/traits_impl.h`, where the class is defined).
#[test]
fn a_traits_class_in_a_nested_header_gives_the_block() {
    let dir = temp_dir("nested-traits");
    std::fs::create_dir_all(dir.join("detail")).unwrap();
    write(
        &dir,
        "detail/traits_impl.h",
        b"template <int WARPS_> struct Traits { enum { WARPS = WARPS_, THREADS = WARPS * 32 }; };\n",
    );
    write(&dir, "traits.h", b"#include \"detail/traits_impl.h\"\n");
    write(
        &dir,
        "launch.cu",
        b"#include \"traits.h\"\n\
template <typename KT>\n\
__global__ void k(float *out)\n\
{\n\
    __shared__ float s[KT::THREADS];\n\
    s[threadIdx.x] = out[threadIdx.x];\n\
    out[threadIdx.x] = s[(threadIdx.x * 32) % KT::THREADS];\n\
}\n\
template <int W>\n\
void run(float *out)\n\
{\n\
    using KT = Traits<W>;\n\
    k<KT><<<1, KT::THREADS>>>(out);\n\
}\n\
void go(float *out) { run<2>(out); }\n",
    );
    let json = banklint(&dir, &["check", "launch.cu", "--format", "json"]).json();
    let accesses = json["accesses"].as_array().unwrap();
    assert_eq!(accesses.len(), 2, "{json}");
    for a in accesses {
        assert_eq!(a["block_dim"], serde_json::json!([64, 1, 1]), "{a}");
        assert_eq!(a["status"], "analyzed", "{a}");
    }
    // 64 words: lanes 32 words apart alternate between two words of bank 0.
    assert_eq!(accesses[1]["conflict_ways"], 2, "{}", accesses[1]);
}

#[test]
fn a_header_function_s_own_array_is_reported_at_the_call_with_where_it_is_declared() {
    // Fixture 140: `combine140`'s `lse` is declared in combine140.cuh and run at the call in
    // launch140.cuh; JSON names the declaration, so that tools can count the array there.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let json = banklint(
        root,
        &[
            "check",
            "fixtures/140_header_function_arrays/launch140.cuh",
            "--format",
            "json",
            "--no-config",
        ],
    )
    .json();
    let accesses = json["accesses"].as_array().unwrap();
    assert_eq!(accesses.len(), 2, "{json}");
    for a in accesses {
        assert_eq!(a["status"], "analyzed", "{a}");
        assert_eq!(a["line"], 45, "{a}");
        let place = &a["declared_in"][0];
        assert_eq!(place["function"], "combine140", "{a}");
        assert_eq!(place["array"], "lse", "{a}");
        assert_eq!(place["line"], 15, "{a}");
        assert!(
            place["file"].as_str().unwrap().ends_with("combine140.cuh"),
            "{a}"
        );
    }
}

#[test]
fn an_access_in_a_header_s_constructor_names_its_class() {
    // The constructor is read as a function whose name lang-c sees as blanks; where its
    // accesses are written is said with the class's name.
    let dir = temp_dir("constructor-origin");
    write(
        &dir,
        "queue.cuh",
        b"struct Queue {\n    float *items;\n    __device__ Queue(float *p) : items(p)\n    {\n        items[threadIdx.x * 32] = 0.0f;\n    }\n};\n",
    );
    write(
        &dir,
        "k.cu",
        b"#include \"queue.cuh\"\n__global__ void k()\n{\n    __shared__ float s[32 * 32];\n    Queue q(s);\n}\nvoid go() { k<<<1, 32>>>(); }\n",
    );
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    let accesses = json["accesses"].as_array().unwrap();
    assert_eq!(accesses.len(), 1, "{json}");
    assert_eq!(accesses[0]["conflict_ways"], 32, "{json}");
    assert_eq!(
        accesses[0]["written_in"], "`Queue` at queue.cuh:5",
        "{json}"
    );
}

#[test]
fn a_header_function_s_own_array_is_one_array_however_many_calls_run_it() {
    // Two calls of `stage<10240>` in one kernel use one 40960-byte array (a `__shared__`
    // variable of a function is one per block): within sm_90's 48 KB. Counted once per call it
    // would be 81920 bytes, over the limit.
    let header = "#pragma once\ntemplate <int N>\n__device__ float stage(float v)\n{\n    __shared__ float buf[N];\n    buf[threadIdx.x] = v;\n    __syncthreads();\n    return buf[threadIdx.x ^ 1];\n}\n";
    let kernel = |n: u32| {
        format!(
            "#include \"h.cuh\"\n__global__ void k(float *o)\n{{\n    float a = stage<{n}>(o[threadIdx.x]);\n    float b = stage<{n}>(a);\n    o[threadIdx.x] = b;\n}}\nvoid go(float *o) {{ k<<<1, 32>>>(o); }}\n"
        )
    };
    let dir = temp_dir("header-array-once");
    write(&dir, "h.cuh", header.as_bytes());
    write(&dir, "k.cu", kernel(10240).as_bytes());
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    assert!(labels_of(&json, "shared-capacity").is_empty(), "{json}");
    assert_eq!(json["accesses"].as_array().unwrap().len(), 4, "{json}");
    // One array of 65536 bytes is over the limit, and said to be that size.
    write(&dir, "k.cu", kernel(16384).as_bytes());
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    let over = labels_of(&json, "shared-capacity");
    assert_eq!(over.len(), 1, "{json}");
    assert!(over[0].1.contains("65536 bytes"), "{over:?}");
}

#[test]
fn a_device_function_template_without_arguments_asks_for_a_call_not_a_launch() {
    // Checked on its own, a header's device function template has no arguments; the note
    // says how to give them: a device function is called, not launched.
    let dir = temp_dir("call-not-launch");
    write(
        &dir,
        "h.cuh",
        b"template <int W>\n__device__ void put(float v)\n{\n    __shared__ float s[32][W + 1];\n    s[threadIdx.x][0] = v;\n}\n",
    );
    let json = banklint(&dir, &["check", "h.cuh", "--format", "json"]).json();
    let reason = json["accesses"][0]["reason"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        reason.contains("(call `put<...>` in this file or give it a default)"),
        "{json}"
    );
}

/// A header of device helpers that names no kernel and no shared memory is checked in its
/// includer's context without that context being lowered, unless one of its functions can
/// reach shared memory through what the includer's headers define (a function template with
/// an array of its own): then it is analyzed on its own, as before.
#[test]
fn a_helper_header_is_analyzed_only_when_it_can_reach_shared_memory() {
    let dir = temp_dir("helper-headers");
    write(
        &dir,
        "stage.cuh",
        b"#pragma once\ntemplate <int N>\n__device__ void stage(int i)\n{\n    __shared__ float s[N];\n    s[i] = 1.0f;\n}\n",
    );
    write(
        &dir,
        "helpers.cuh",
        b"__device__ void helper() { stage<1024>(threadIdx.x * 32); }\n",
    );
    write(
        &dir,
        "plain.cuh",
        b"__device__ int twice(int i) { return 2 * i; }\n",
    );
    write(
        &dir,
        "main.cu",
        b"#include \"stage.cuh\"\n#include \"plain.cuh\"\n#include \"helpers.cuh\"\n__global__ void k() { helper(); }\nint main() { k<<<1, 32>>>(); }\n",
    );
    // Through the includer's header, `helper` reaches `stage`'s own array: 32 lanes, 32 words
    // apart, one bank.
    let json = banklint(&dir, &["check", "helpers.cuh", "--format", "json"]).json();
    let accesses = json["accesses"].as_array().unwrap();
    assert_eq!(accesses.len(), 1, "{json}");
    assert_eq!(accesses[0]["status"], "analyzed", "{json}");
    assert_eq!(accesses[0]["conflict_ways"], 32, "{json}");
    assert_eq!(json["files"][0]["context"], "main.cu", "{json}");
    // Arithmetic alone reaches nothing: no access, no note.
    let json = banklint(&dir, &["check", "plain.cuh", "--format", "json"]).json();
    assert_eq!(json["accesses"], serde_json::json!([]), "{json}");
    assert_eq!(json["diagnostics"], serde_json::json!([]), "{json}");
    assert_eq!(json["files"][0]["context"], "main.cu", "{json}");
}
