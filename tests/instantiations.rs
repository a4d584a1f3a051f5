//! Instantiations of a kernel that differ only in a type parameter the kernel cannot use on
//! shared memory (the element type of an output tensor written to global memory) are one
//! analysis; a type parameter that reaches shared memory (a view cast to it) keeps one
//! analysis per instantiation.

mod common;
use common::{banklint, temp_dir, write};

const KERNELS: &str = r#"template <typename T, int N>
struct Tensor {
    T *data;
};

template <typename T>
struct Convert {
    __device__ static T to(float v) { return (T)v; }
};

template <typename OutT, int W>
__global__ void rows(Tensor<OutT, 2> out, const float *in)
{
    __shared__ float tile[32][W];
    tile[threadIdx.x][0] = in[threadIdx.x];
    __syncthreads();
    out.data[threadIdx.x] = Convert<OutT>::to(tile[threadIdx.x][0]);
}

template <typename OutT>
__global__ void viewed(const float *in)
{
    __shared__ float raw[32 * 64];
    OutT *view = reinterpret_cast<OutT *>(raw);
    view[threadIdx.x * 32] = (OutT)in[threadIdx.x];
}

void launch(Tensor<float, 2> f, Tensor<double, 2> d, const float *in)
{
    rows<float, 32><<<1, 32>>>(f, in);
    rows<double, 32><<<1, 32>>>(d, in);
    rows<float, 33><<<1, 32>>>(f, in);
    viewed<float><<<1, 32>>>(in);
    viewed<double><<<1, 32>>>(in);
}
"#;

/// The "worst of N analyses" count of each reported site, by line.
fn analyses_by_line(human: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut line = 0;
    for l in human.lines() {
        if let Some(at) = l.split("k.cu:").nth(1) {
            line = at.split(':').next().unwrap().parse().unwrap();
        }
        if let Some(rest) = l.split("the worst of ").nth(1) {
            out.push((line, rest.split(' ').next().unwrap().parse().unwrap()));
        }
    }
    out
}

#[test]
fn a_type_parameter_only_written_to_global_memory_is_analyzed_once() {
    let dir = temp_dir("instantiations");
    write(&dir, "k.cu", KERNELS.as_bytes());
    let out = banklint(&dir, &["check", "k.cu", "--color", "never"]);
    // `tile[tx][0]` is 32-way with rows of 32 words, clean with 33: the worst is reported.
    assert!(
        out.stdout
            .contains("32-way bank conflict on `tile` (32 wavefronts per warp instead of 1)"),
        "{}",
        out.stdout
    );
    // `rows`: `float` and `double` at W = 32 are one analysis, W = 33 another. `viewed`: its
    // type parameter sizes the view into `raw`, so each instantiation is analyzed.
    assert_eq!(
        analyses_by_line(&out.stdout),
        vec![(15, 2), (17, 2), (25, 2)],
        "{}",
        out.stdout
    );
}
