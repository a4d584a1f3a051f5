//! Accessor functions returning a pointer into shared memory: the `return` a thread reaches
//! gives the pointer; one banklint cannot follow (several `return`s that threads reach) is
//! reported where the pointer is taken, never dropped silently.

mod common;
use common::{banklint, labels_of, temp_dir, write};

const KERNEL: &str = r#"__device__ float *pick(int w)
{
    __shared__ float a[64];
    __shared__ float b[64];
    if (w == 0)
        return a;
    return b;
}

__device__ float *split(void)
{
    __shared__ float c[64];
    __shared__ float d[64];
    if (threadIdx.x < 16)
        return c;
    return d;
}

__global__ void k(float *out)
{
    pick(1)[threadIdx.x * 2] = out[0];
    float *q = split();
    q[threadIdx.x] = out[1];
}

void launch(float *out)
{
    k<<<1, 32>>>(out);
}
"#;

#[test]
fn the_return_a_thread_reaches_gives_the_pointer() {
    let dir = temp_dir("accessors");
    write(&dir, "k.cu", KERNEL.as_bytes());
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    // pick(1) is `b` (the first return no thread reaches): b[2 t] is 2-way.
    let accesses = json["accesses"].as_array().unwrap();
    assert_eq!(accesses.len(), 1, "{json}");
    assert_eq!(accesses[0]["array"], "b");
    assert_eq!(accesses[0]["conflict_ways"], 2);
    // split() returns `c` for some threads and `d` for others: said, not guessed.
    let notes = labels_of(&json, "skipped-code");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].0, 22);
    assert!(notes[0].1.contains("more than one `return`"), "{notes:?}");
}
