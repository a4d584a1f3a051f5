//! Shared-memory pointers that leave what banklint follows (an object built from one by a
//! constructor banklint has no body of, a function without a definition given one) are noted where they leave, naming the array;
//! before, the accesses made through them were lost without a word.

mod common;
use common::{banklint, labels_of, temp_dir, write};

/// `banklint check` of `kernel`, written as `k.cu` in `dir`, as JSON.
fn check_one(dir: &std::path::Path, kernel: &str) -> serde_json::Value {
    write(dir, "k.cu", kernel.as_bytes());
    banklint(dir, &["check", "k.cu", "--format", "json"]).json()
}

/// The line of each access reported, in order.
fn access_lines(json: &serde_json::Value) -> Vec<i64> {
    (json["accesses"].as_array().unwrap().iter())
        .map(|a| a["line"].as_i64().unwrap())
        .collect()
}

const KERNEL: &str = r#"struct allocator {
    int *next;
    __device__ allocator(int *p); // defined in another file
};

__device__ void fill(float *p, int n);

__global__ void k(float *out)
{
    extern __shared__ int pool[];
    allocator al((int *)&pool[0]);
    __shared__ float staged[64];
    fill(&staged[0], 64);
    __shared__ float kept[64];
    kept[threadIdx.x] = out[threadIdx.x];
    allocator plain(nullptr);
    fill(out, 64);
}

void launch(float *out)
{
    k<<<1, 32, 1024>>>(out);
}
"#;

#[test]
fn pointers_that_leave_the_analysis_are_noted_where_they_leave() {
    let dir = temp_dir("escapes");
    write(&dir, "k.cu", KERNEL.as_bytes());
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    // `kept` is analyzed as before.
    let accesses = json["accesses"].as_array().unwrap();
    assert_eq!(accesses.len(), 1, "{json}");
    assert_eq!(accesses[0]["array"], "kept");
    // One note where `pool` goes into an object, one where `staged` goes to a function
    // banklint has no body of; none for the object and the call given global memory.
    let notes = labels_of(&json, "skipped-code");
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert_eq!(notes[0].0, 11);
    assert!(
        notes[0]
            .1
            .contains("`al` is built from a pointer into `pool`"),
        "{notes:?}"
    );
    assert_eq!(notes[1].0, 13);
    assert!(
        notes[1]
            .1
            .contains("`fill` is given a pointer into `staged`"),
        "{notes:?}"
    );
}

#[test]
fn stats_say_why_arrays_have_no_analyzed_access() {
    let dir = temp_dir("escapes-stats");
    let unused =
        "__global__ void u(float *o)\n{\n    __shared__ float idle[32];\n    o[0] = 1.0f;\n}\n";
    write(&dir, "k.cu", KERNEL.as_bytes());
    write(&dir, "u.cu", unused.as_bytes());
    let out = banklint(
        &dir,
        &["check", "k.cu", "u.cu", "--stats", "--format", "short"],
    )
    .stdout;
    // pool and staged leave the analysis; idle is never accessed; kept is analyzed.
    assert!(out.contains("shared arrays: 4 found, 1 (25.0%)"), "{out}");
    assert!(
        out.contains("arrays without one: 0 with only unknown accesses, 3 with no access analyzed"),
        "{out}"
    );
    assert!(
        out.contains("2  a pointer into it leaves what banklint follows"),
        "{out}"
    );
    assert!(
        out.contains("1  no access to it in the code analyzed"),
        "{out}"
    );
}

#[test]
fn a_conversion_of_an_address_is_not_a_call_that_leaves() {
    let dir = temp_dir("escapes-conversion");
    let src = "#include <stdint.h>\n__global__ void k(unsigned long long *out)\n{\n    __shared__ float s[32];\n    s[threadIdx.x] = 1.0f;\n    out[threadIdx.x] = uint64_t(&s[threadIdx.x]);\n}\n";
    write(&dir, "k.cu", src.as_bytes());
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    let notes = labels_of(&json, "skipped-code");
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(json["accesses"].as_array().unwrap().len(), 1, "{json}");
}

#[test]
fn a_cast_pointer_into_an_array_of_unknown_element_type_is_reported() {
    // `arr`'s element type names a member of a class over a type banklint does not know:
    // its layout is not known, and the store through the cast pointer in `put` used to be
    // lost without a word. It is reported, with the reason.
    let src = "__device__ void put(float *s, int i) {\n    reinterpret_cast<float2 *>(&s[2 * i])[0] = make_float2(0.f, 1.f);\n}\n\
template <typename T> struct Holder { typedef T Type; };\n\
template <typename S>\n__global__ void k(float *o)\n{\n    typedef Holder<S> H;\n    typedef typename H::Type Stored;\n    extern __shared__ Stored arr[];\n    put(&arr[4], threadIdx.x);\n}\n\
void h(float *o) { k<Mystery><<<1, 32, 4096>>>(o); }\n";
    let dir = temp_dir("escapes-unknown-layout");
    write(&dir, "u.cu", src.as_bytes());
    let json = banklint(&dir, &["check", "u.cu", "--format", "json"]).json();
    let accesses = json["accesses"].as_array().unwrap();
    assert_eq!(accesses.len(), 1, "{json}");
    let a = &accesses[0];
    assert_eq!(a["array"], "arr", "{json}");
    assert_eq!(a["status"], "unknown", "{json}");
    assert!(
        a["reason"]
            .as_str()
            .is_some_and(|r| r.contains("the element type") && r.contains("of `arr` is not known")),
        "{json}"
    );
}

/// A whole `__shared__` struct handed to a function banklint has no definition of (a tile
/// library's `load(tile, ...)`) is taken as passed by reference: noted, not read. Before, the
/// call was analyzed as a load of the struct, an access the code may never make.
#[test]
fn a_shared_struct_given_to_an_undefined_function_is_noted_not_loaded() {
    let dir = temp_dir("escapes_struct");
    let kernel = r#"struct Tile {
    float data[32 * 32];
};

namespace lib {
__device__ void fill(Tile &t, float v); // defined in another file
}

__global__ void k(float *out)
{
    __shared__ Tile tile;
    lib::fill(tile, 0.0f);
    __syncthreads();
    out[threadIdx.x] = tile.data[threadIdx.x];
}

void launch(float *out)
{
    k<<<1, 32>>>(out);
}
"#;
    write(&dir, "k.cu", kernel.as_bytes());
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    let accesses = json["accesses"].as_array().unwrap();
    assert_eq!(accesses.len(), 1, "{json}");
    assert_eq!(accesses[0]["line"], 14, "{json}");
    let notes = labels_of(&json, "skipped-code");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].0, 12);
    assert!(
        notes[0]
            .1
            .contains("`lib::fill` is given a pointer into `tile`"),
        "{notes:?}"
    );
}

/// The same for tiles reached by subscripts and members: an element of a two-dimensional
/// array of tiles, an element of a member array and a member, each handed to a function
/// banklint has no definition of. Before, each call "read" its whole tile, one piece after
/// another (1,024 warp patterns for a 4 KB tile, at the call line).
#[test]
fn shared_tiles_in_arrays_and_members_given_to_an_undefined_function_are_noted_not_loaded() {
    let dir = temp_dir("escapes_tile_places");
    let kernel = r#"struct Tile {
    float data[32 * 32];
};
struct Stage {
    Tile parts[2];
    Tile last;
};

__device__ void fill(Tile &t, float v); // defined in another file

__global__ void k(float *out)
{
    __shared__ Tile grid[2][2];
    __shared__ Stage stage;
    fill(grid[1][threadIdx.x / 64], 0.0f);
    fill(stage.parts[1], 1.0f);
    fill(stage.last, 2.0f);
    __syncthreads();
    out[threadIdx.x] = grid[0][0].data[threadIdx.x] + stage.last.data[threadIdx.x];
}

void launch(float *out)
{
    k<<<1, 32>>>(out);
}
"#;
    let json = check_one(&dir, kernel);
    let lines = access_lines(&json);
    assert_eq!(lines, [19, 19], "{json}");
    let notes = labels_of(&json, "skipped-code");
    let noted: Vec<u64> = notes.iter().map(|n| n.0).collect();
    assert_eq!(noted, [15, 16, 17], "{notes:?}");
    for (_, label) in &notes {
        assert!(
            label.contains("`fill` is given a pointer into"),
            "{notes:?}"
        );
    }
}

/// A call that several overloads with its number of arguments could answer, given shared
/// memory: banklint does not choose between overloads by the arguments' types, so it says so
/// instead of running the first one written (which may be the wrong one).
#[test]
fn an_overloaded_call_given_shared_memory_is_noted_not_guessed() {
    let dir = temp_dir("escapes_overloads");
    let kernel = r#"__device__ void put(float *p, int v)
{
    p[threadIdx.x * 32] = v;
}

__device__ void put(float *p, float v)
{
    p[threadIdx.x] = v;
}

__device__ void once(float *p)
{
    p[threadIdx.x * 2] = 1.0f;
}

__global__ void k(float *out)
{
    __shared__ float s[32 * 32];
    put(s, 1.0f);
    once(s);
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}

void launch(float *out)
{
    k<<<1, 32>>>(out);
}
"#;
    write(&dir, "k.cu", kernel.as_bytes());
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    let lines: Vec<u64> = json["accesses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["line"].as_u64().unwrap())
        .collect();
    // `once` is followed; neither `put` is run.
    assert_eq!(lines, vec![13, 22], "{json}");
    let notes = labels_of(&json, "skipped-code");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].0, 19);
    assert!(
        notes[0]
            .1
            .contains("`put` is overloaded (2 definitions take 2 arguments)"),
        "{notes:?}"
    );
}

/// Shared memory handed to a method of a value object that banklint has no body of (declared
/// in the class, defined elsewhere) is noted at the call; a method it has runs.
#[test]
fn a_method_without_a_body_given_shared_memory_is_noted() {
    let dir = temp_dir("escapes-methods");
    write(
        &dir,
        "k.cu",
        br#"struct Pack {
    float v[4];
    __device__ void put(float *p, int i) const { p[i] = v[0]; }
    __device__ void scatter(float *p, int i) const; // defined in another file
};

__global__ void k(float *out)
{
    __shared__ float s[128];
    Pack pk;
    pk.put(s, threadIdx.x * 2);
    pk.scatter(s, threadIdx.x);
    pk.scatter(out, threadIdx.x);
    out[threadIdx.x] = s[threadIdx.x];
}

void launch(float *out) { k<<<1, 32>>>(out); }
"#,
    );
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    let accesses = json["accesses"].as_array().unwrap();
    // `put`'s store (lanes 2 words apart: 2-way) and the kernel's load.
    assert_eq!(accesses.len(), 2, "{json}");
    assert_eq!(accesses[0]["line"], 3);
    assert_eq!(accesses[0]["conflict_ways"], 2);
    let notes = labels_of(&json, "skipped-code");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].0, 12);
    assert!(
        notes[0]
            .1
            .contains("`pk.scatter` is a method banklint has no definition of"),
        "{notes:?}"
    );
}

#[test]
fn methods_on_shared_objects_run_or_are_noted_and_a_per_thread_array_choice_is_noted() {
    // Fixture 154: the accesses of `stage.fill` and `stage.second_row` are analyzed (the
    // fixture walk checks their figures); the two that banklint does not analyze are said.
    let dir = temp_dir("shared-methods");
    let text = std::fs::read("fixtures/154_shared_object_methods.cu").expect("fixture 154");
    write(&dir, "k.cu", &text);
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    let lines: Vec<u64> = json["accesses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["line"].as_u64().unwrap_or(0))
        .collect();
    assert_eq!(lines, [26, 30, 31], "{json}");
    let notes = labels_of(&json, "skipped-code");
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert_eq!(notes[0].0, 54);
    assert!(
        notes[0]
            .1
            .contains("`other.bump` runs on `other`, an object in shared memory"),
        "{notes:?}"
    );
    assert_eq!(notes[1].0, 55);
    assert!(
        notes[1]
            .1
            .contains("cannot follow to one place for every thread"),
        "{notes:?}"
    );
    assert_eq!(notes[2].0, 56);
    assert!(
        notes[2]
            .1
            .contains("whose field `inner` is an object of a class"),
        "{notes:?}"
    );
}

#[test]
fn an_array_reference_from_an_unfollowed_allocator_call_is_noted() {
    // `take` returns a reference to an array, declared `A (&take())[N]`: banklint does not
    // follow that return, so `t` is noted where it is bound. Before, `t` was read as a local
    // array and the store through it was lost without a word.
    let dir = temp_dir("escapes-array-reference");
    write(
        &dir,
        "k.cu",
        br#"struct carver {
    int *p;
    __device__ carver(int *q) : p(q) {}
    template <typename A, int N>
    __device__ A (&take())[N]
    {
        A(*r)[N] = reinterpret_cast<A(*)[N]>(p);
        p += sizeof(A) * N / 4;
        return *r;
    }
};
struct tile { float data[32 * 32]; };

__global__ void k(float *out)
{
    extern __shared__ int sm[];
    carver al(sm);
    tile(&t)[2] = al.take<tile, 2>();
    t[1].data[threadIdx.x * 32] = out[threadIdx.x];
}

void launch(float *out) { k<<<1, 32, 20000>>>(out); }
"#,
    );
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    let notes = labels_of(&json, "skipped-code");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].0, 18);
    assert!(
        notes[0]
            .1
            .contains("`t` is given a pointer into shared memory that banklint cannot follow"),
        "{notes:?}"
    );
}

/// Macros a kernel compiled at run time gets from its host program, standing where no C++
/// can (after the last parameter, alone on a line before a statement): each is noted where
/// it is written, by name, and the kernel around it is analyzed (fixture 164 checks the
/// accesses). A word that could be C++ (a declared type before a name) is not taken for one.
#[test]
fn macros_of_a_runtime_compiled_kernel_are_noted_by_name() {
    let dir = temp_dir("escapes_unread_macros");
    let kernel = r#"typedef float real;
extern "C" __global__ void k(float *out, unsigned long long n
        EXTRA_ARGS) {
    __shared__ float s[64];
    SETUP
    real x = 1.0f;
    s[threadIdx.x] = x + n;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}
"#;
    let json = check_one(&dir, kernel);
    let lines = access_lines(&json);
    assert_eq!(lines, [7, 9], "{json}");
    let notes = labels_of(&json, "skipped-code");
    let noted: Vec<(u64, &str)> = notes
        .iter()
        .map(|(l, m)| (*l, m.split('`').nth(1).unwrap_or("")))
        .collect();
    assert_eq!(noted, [(3, "EXTRA_ARGS"), (5, "SETUP")], "{notes:?}");
    assert!(
        notes[0].1.contains("is not a macro banklint has read"),
        "{notes:?}"
    );
}

/// `unsigned int n` before the list's end is a parameter like any other: only a type name
/// after `unsigned` or `long` makes the word after it a macro.
#[test]
fn a_sized_parameter_is_not_taken_for_a_macro() {
    let dir = temp_dir("escapes_sized_parameter");
    let kernel = r#"__device__ void put(volatile float *cache, unsigned int tid)
{
    cache[tid] += cache[tid + 32];
}

__global__ void k(float *out, const unsigned int n)
{
    __shared__ float s[64];
    s[threadIdx.x] = out[threadIdx.x];
    put(s, threadIdx.x);
    out[threadIdx.x] = s[threadIdx.x] + n;
}

void launch(float *out) { k<<<1, 32>>>(out, 4); }
"#;
    let json = check_one(&dir, kernel);
    assert!(labels_of(&json, "skipped-code").is_empty(), "{json}");
    let accesses = json["accesses"].as_array().unwrap();
    assert!(accesses.iter().all(|a| a["status"] == "analyzed"), "{json}");
}

/// An element no wider than one load (`pair` of two floats, as `half2` is) handed to a
/// function banklint has no definition of is taken by value, as C++ passes such values:
/// read at the call. A wider one (a tile) is taken by reference and noted.
#[test]
fn a_small_struct_given_to_an_undefined_function_is_read_at_the_call() {
    let dir = temp_dir("escapes_small_struct");
    let kernel = r#"struct pair {
    float a, b;
};
struct tile {
    float data[64];
};

__device__ pair add(pair x, pair y); // defined in another file
__device__ void fill(tile &t);        // defined in another file

__global__ void k(float *out)
{
    __shared__ pair v[64];
    __shared__ tile t[2];
    pair r = add(v[threadIdx.x], v[threadIdx.x + 32]);
    fill(t[1]);
    out[threadIdx.x] = r.a;
}

void launch(float *out) { k<<<1, 32>>>(out); }
"#;
    let json = check_one(&dir, kernel);
    let loads: Vec<(i64, &str)> = (json["accesses"].as_array().unwrap().iter())
        .map(|a| (a["line"].as_i64().unwrap(), a["array"].as_str().unwrap()))
        .collect();
    assert!(loads.iter().all(|l| *l == (15, "v")), "{json}");
    assert!(!loads.is_empty(), "{json}");
    let notes = labels_of(&json, "skipped-code");
    assert!(
        notes
            .iter()
            .any(|(l, m)| *l == 16 && m.contains("`fill` is given a pointer into `t`")),
        "{notes:?}"
    );
}

/// An element handed to overloads that take it by reference: a reference to a scalar takes
/// no struct, so `put(float &)` is chosen over `put(pair &)` and its store analyzed. Where
/// the types banklint knows do not choose (`put(float &)` or `put(unsigned &)`), the call is
/// noted. Before, both calls were dropped without a word: the element, bound to a reference,
/// was not read at the call, and the undecided call was not said to reach shared memory.
#[test]
fn an_element_given_to_overloads_by_reference_is_followed_or_noted() {
    let dir = temp_dir("escapes_element_overloads");
    let kernel = r#"struct pair {
    int y;
    int z;
};
__device__ void put(float &v, float f) { v = f; }
__device__ void put(pair &v, float f) { v.y = f; }
__device__ void set(float &v, float f) { v = f; }
__device__ void set(unsigned &v, float f) { v = f; }
__global__ void k(float *o)
{
    __shared__ float s[64];
    put(s[threadIdx.x], 1.0f);
    set(s[threadIdx.x + 32], 2.0f);
    __syncthreads();
    o[threadIdx.x] = s[threadIdx.x];
}
void launch(float *o) { k<<<1, 32>>>(o); }
"#;
    let json = check_one(&dir, kernel);
    assert_eq!(access_lines(&json), [5, 15], "{json}");
    let notes = labels_of(&json, "skipped-code");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].0, 13, "{notes:?}");
    assert!(notes[0].1.contains("`set` is overloaded"), "{notes:?}");
}

/// A member initializer that sets a pointer field from shared memory is read like an
/// assignment, C++ casts included; one banklint cannot read as a pointer (a function template
/// call, which C reads as comparisons) is noted at the constructor, naming the field and the
/// array. Before, the first was dropped (the cast did not parse) and so was the second, both
/// without a word.
#[test]
fn member_initializers_that_keep_shared_pointers_are_followed_or_noted() {
    let dir = temp_dir("escapes_member_initializers");
    let kernel = r#"template <typename T> __device__ T *as_rows(void *p) { return (T *)p; }
template <typename T>
struct rows {
    __device__ rows(void *smem, int w) : w_(w), cast_(static_cast<T *>(smem) + w), call_(as_rows<T>(smem)) {}
    __device__ void put(T v) { cast_[threadIdx.x % 32] = v; }
    __device__ void put_too(T v) { call_[threadIdx.x % 32] = v; }
    int w_;
    T *cast_;
    T *call_;
};
__global__ void k(float *o)
{
    extern __shared__ char smem[];
    rows<float> r(smem, 0);
    r.put(o[threadIdx.x]);
    r.put_too(o[threadIdx.x]);
}
void launch(float *o) { k<<<1, 32, 1024>>>(o); }
"#;
    let json = check_one(&dir, kernel);
    assert_eq!(access_lines(&json), [5], "{json}");
    let notes = labels_of(&json, "skipped-code");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].0, 4, "{notes:?}");
    assert!(
        notes[0].1.contains("`call_(as_rows<T>(smem))`")
            && notes[0].1.contains("a pointer into `smem`"),
        "{notes:?}"
    );
}

/// A library's temp storage in a shared union, handed to the library's constructor
/// (`sorter(tmp.sort)`, with the library's header not read): nothing is read at the call, the
/// call is noted naming the array, and the union's other fields are analyzed at offset 0.
/// Before, the union had no layout (every access unknown) and the call was a load of unknown
/// size, not a note.
#[test]
fn library_temp_storage_in_a_union_is_handed_over_and_noted() {
    let dir = temp_dir("escapes_temp_storage");
    let kernel = r#"namespace lib { template <typename T> struct sorter { struct TempStorage; __device__ sorter(TempStorage &t); __device__ void sort(T (&k)[4]); }; }
__global__ void k(float *o)
{
    typedef lib::sorter<float> S;
    __shared__ union {
        typename S::TempStorage sort;
        float staged[128];
    } tmp;
    float keys[4] = {o[0], o[1], o[2], o[3]};
    S(tmp.sort).sort(keys);
    tmp.staged[threadIdx.x] = keys[0];
}
void launch(float *o) { k<<<1, 128>>>(o); }
"#;
    let json = check_one(&dir, kernel);
    assert_eq!(access_lines(&json), [11], "{json}");
    assert_eq!(json["accesses"][0]["status"], "analyzed", "{json}");
    let notes = labels_of(&json, "skipped-code");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].0, 10, "{notes:?}");
    assert!(notes[0].1.contains("`tmp`"), "{notes:?}");
}

/// The result of a function banklint has not read is taken for one value of the warp when its
/// arguments are; an access whose address rests on that says so (a lane index computed there
/// would make it another access).
#[test]
fn an_address_from_an_unread_function_says_what_was_assumed() {
    let dir = temp_dir("unread-results");
    let json = check_one(
        &dir,
        "__global__ void k(float *out)\n{\n    __shared__ float s[32 * 32];\n    s[row_of_block() * 32 + threadIdx.x] = 1.0f;\n    out[threadIdx.x] = s[threadIdx.x];\n}\nint main() { k<<<1, 32>>>(0); }\n",
    );
    let accesses = json["accesses"].as_array().unwrap();
    let store = accesses.iter().find(|a| a["line"] == 4).expect("the store");
    assert_eq!(store["status"], "analyzed", "{json}");
    let said = store["assumptions"].as_array().expect("assumptions");
    assert!(
        said.iter().any(|a| a
            .as_str()
            .unwrap()
            .starts_with("`row_of_block`, which banklint has not read")),
        "{json}"
    );
    let load = accesses.iter().find(|a| a["line"] == 5).expect("the load");
    assert!(load.get("assumptions").is_none(), "{json}");
}

/// CUDA's functions that take values (`make_float2`, `__shfl_xor_sync`, `__expf`,
/// `__float2half_rn`) are given the elements loaded, not the elements themselves: the loads
/// are analyzed and no note says accesses were lost. An element handed to a function of the
/// user's that banklint has no definition of may bind a reference, and is still noted.
#[test]
fn elements_given_to_cuda_value_functions_are_loads_without_a_note() {
    let dir = temp_dir("escapes-value-functions");
    let src = "#include <cuda_fp16.h>\n\
__device__ void put(float &x);\n\
__global__ void k(float2 *out, __half *h)\n\
{\n\
    __shared__ float s[64];\n\
    int i = threadIdx.x;\n\
    s[i] = 0.0f;\n\
    out[i] = make_float2(s[2 * i], s[2 * i + 1]);\n\
    float v = __shfl_xor_sync(0xffffffffu, s[i], 1) + __expf(s[i + 32]);\n\
    h[i] = __float2half_rn(s[i] + v);\n\
    put(s[i]);\n\
}\n";
    let json = check_one(&dir, src);
    let notes = labels_of(&json, "skipped-code");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].0, 11);
    assert!(notes[0].1.contains("`put` is given"), "{notes:?}");
    // `put`'s element is read at the call as well, as an undefined callee's arguments are.
    assert_eq!(access_lines(&json), vec![7, 8, 8, 9, 9, 10, 11], "{json}");
    // Stride 2 over 4-byte words: lanes i and i + 16 share a bank at different words.
    for a in json["accesses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["line"] == 8)
    {
        assert_eq!(a["conflict_ways"], 2, "{a}");
    }
}
