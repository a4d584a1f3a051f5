//! Shared-memory pointers that leave what banklint follows (an object built from one by a
//! constructor banklint has no body of, a function without a definition given one) are noted where they leave, naming the array;
//! before, the accesses made through them were lost without a word.

mod common;
use common::{banklint, labels_of, temp_dir, write};

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
