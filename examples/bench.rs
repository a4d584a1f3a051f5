//! Benchmark: generates a corpus of realistic CUDA files (1,000 kernels, about 5 MB), then
//! measures, side by side on the same files:
//! - banklint over the directory (MB/s, files/s, peak memory);
//! - `gcc -E -x c` once per file with its `#include` lines removed (what a compiler-based tool
//!   pays before it even parses);
//! - one typical 20 KB file, including process start (median and 90th percentile).
//!
//! Run: `cargo build --release && cargo run --release --example bench`
//! (set BANKLINT to another binary to measure it instead).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const FILES: usize = 250;
const KERNELS_PER_FILE: usize = 4;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let banklint = std::env::var_os("BANKLINT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/release/banklint"));
    if !banklint.is_file() {
        eprintln!(
            "build first: cargo build --release ({} not found)",
            banklint.display()
        );
        std::process::exit(2);
    }
    let dir = std::env::temp_dir().join(format!("banklint-bench-{}", std::process::id()));
    let corpus = dir.join("corpus");
    let stripped = dir.join("no-includes");
    std::fs::create_dir_all(&corpus).expect("corpus dir");
    std::fs::create_dir_all(&stripped).expect("stripped dir");
    let mut bytes = 0usize;
    for f in 0..FILES {
        let text = generate_file(f);
        bytes += text.len();
        std::fs::write(corpus.join(format!("kernels_{f:03}.cu")), &text).expect("write");
        let no_includes: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("#include"))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(stripped.join(format!("kernels_{f:03}.cu")), no_includes).expect("write");
    }
    let mb = bytes as f64 / 1e6;
    println!(
        "corpus: {FILES} files, {} kernels, {mb:.2} MB ({:.1} KB per file)",
        FILES * KERNELS_PER_FILE,
        bytes as f64 / FILES as f64 / 1e3
    );

    // banklint over the directory: best of three (the first also warms the page cache).
    let mut lint_times = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        let status = Command::new(&banklint)
            .args(["check", "--format", "json"])
            .arg(&corpus)
            .stdout(Stdio::null())
            .status()
            .expect("banklint runs");
        lint_times.push(t.elapsed());
        assert!(
            status.code().is_some_and(|c| c <= 1),
            "banklint failed: {status}"
        );
    }
    let lint = *lint_times.iter().min().expect("three runs");
    let peak = peak_memory_kb(&banklint, &corpus);

    // gcc -E once per file, sequentially, as a compiler-based tool would run it.
    let gcc = which("gcc");
    let gcc_time = gcc.as_ref().map(|gcc| {
        let t = Instant::now();
        for f in 0..FILES {
            let status = Command::new(gcc)
                .args(["-E", "-x", "c", "-o", "/dev/null"])
                .arg(stripped.join(format!("kernels_{f:03}.cu")))
                .stderr(Stdio::null())
                .status()
                .expect("gcc runs");
            assert!(status.success(), "gcc -E failed on file {f}");
        }
        t.elapsed()
    });

    // One typical file, process start included.
    let one = corpus.join("kernels_000.cu");
    let size = std::fs::metadata(&one).map(|m| m.len()).unwrap_or(0);
    let mut singles: Vec<Duration> = (0..30)
        .map(|_| {
            let t = Instant::now();
            Command::new(&banklint)
                .args(["check", "--format", "short"])
                .arg(&one)
                .stdout(Stdio::null())
                .status()
                .expect("banklint runs");
            t.elapsed()
        })
        .collect();
    singles.sort();

    let secs = lint.as_secs_f64();
    println!(
        "banklint check (directory, {} threads): {:.3} s = {:.1} MB/s, {:.0} files/s",
        threads(),
        secs,
        mb / secs,
        FILES as f64 / secs
    );
    match peak {
        Some(kb) => println!("peak memory: {:.1} MB", kb as f64 / 1024.0),
        None => println!("peak memory: not measured (/usr/bin/time not found)"),
    }
    match gcc_time {
        Some(g) => println!(
            "gcc -E -x c, once per file: {:.3} s ({:.1}x banklint's time)",
            g.as_secs_f64(),
            g.as_secs_f64() / secs
        ),
        None => println!("gcc -E: not measured (gcc not found)"),
    }
    println!(
        "one {:.1} KB file, process start included: median {:.2} ms, p90 {:.2} ms",
        size as f64 / 1e3,
        ms(singles[singles.len() / 2]),
        ms(singles[singles.len() * 9 / 10])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// Peak resident memory of one run, from GNU time's `%M` (kilobytes).
fn peak_memory_kb(banklint: &Path, corpus: &Path) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.is_file() {
        return None;
    }
    let out = Command::new(time)
        .args(["-f", "%M"])
        .arg(banklint)
        .args(["check", "--format", "json"])
        .arg(corpus)
        .stdout(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}

/// One file: four kernels of different kinds and sizes, their host launcher, and the
/// comments and helpers real files carry. About 20 KB.
fn generate_file(f: usize) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "// kernels_{f:03}.cu: generated for banklint's benchmark.\n#include <cuda_runtime.h>\n#include <stdio.h>\n#include \"helpers_{f:03}.h\"\n\n"
    ));
    let tile = [8, 16, 32, 64][f % 4];
    let pad = f % 2;
    let ty = ["float", "double", "int", "float2"][(f / 2) % 4];
    s.push_str(&format!(
        "#define TILE_{f} {tile}\n#define PAD_{f} {pad}\n#define ROWS_{f} 8\n\n"
    ));
    for k in 0..KERNELS_PER_FILE {
        let id = f * KERNELS_PER_FILE + k;
        s.push_str(&doc_comment(id));
        s.push_str(&match (f + k) % 4 {
            0 => format!(
                "__global__ void transpose_{id}({ty} *out, const {ty} *in, int width)\n{{\n    __shared__ {ty} tile[TILE_{f}][TILE_{f} + PAD_{f}];\n    int x = blockIdx.x * TILE_{f} + threadIdx.x;\n    int y = blockIdx.y * TILE_{f} + threadIdx.y;\n    for (int j = 0; j < TILE_{f}; j += ROWS_{f}) {{\n        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];\n    }}\n    __syncthreads();\n    x = blockIdx.y * TILE_{f} + threadIdx.x;\n    y = blockIdx.x * TILE_{f} + threadIdx.y;\n    for (int j = 0; j < TILE_{f}; j += ROWS_{f}) {{\n        out[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];\n    }}\n}}\n\n"
            ),
            1 => format!(
                "__global__ void reduce_{id}(const int *in, int *out, unsigned int n)\n{{\n    extern __shared__ int sdata[];\n    unsigned int tid = threadIdx.x;\n    unsigned int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;\n    int sum = (i < n) ? in[i] : 0;\n    if (i + blockDim.x < n) sum += in[i + blockDim.x];\n    sdata[tid] = sum;\n    __syncthreads();\n    for (unsigned int s = {}; s > 0; s >>= 1) {{\n        if (tid < s) {{\n            sdata[tid] = sum = sum + sdata[tid + s];\n        }}\n        __syncthreads();\n    }}\n    if (tid == 0) out[blockIdx.x] = sdata[0];\n}}\n\n",
                "blockDim.x / 2"
            ),
            2 => format!(
                "__global__ void matmul_{id}(const float *A, const float *B, float *C, int n)\n{{\n    __shared__ float As[16][16 + {pad}];\n    __shared__ float Bs[16][16];\n    int tx = threadIdx.x, ty = threadIdx.y;\n    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;\n    float acc = 0.0f;\n    for (int t = 0; t < n / 16; ++t) {{\n        As[ty][tx] = A[row * n + t * 16 + tx];\n        Bs[ty][tx] = B[(t * 16 + ty) * n + col];\n        __syncthreads();\n        for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];\n        __syncthreads();\n    }}\n    C[row * n + col] = acc;\n}}\n\n"
            ),
            _ => format!(
                "__global__ void stencil_{id}(const float *in, float *out, int n)\n{{\n    __shared__ float halo[256 + 2 * {r}];\n    int g = blockIdx.x * blockDim.x + threadIdx.x;\n    int l = threadIdx.x + {r};\n    halo[l] = in[g];\n    if (threadIdx.x < {r}) {{\n        halo[l - {r}] = in[g - {r}];\n        halo[l + 256] = in[g + 256];\n    }}\n    __syncthreads();\n    float v = 0.0f;\n    for (int o = -{r}; o <= {r}; ++o) v += halo[l + o * {stride}];\n    out[g] = v;\n}}\n\n",
                r = 1 + f % 4,
                stride = 1 + (f % 3)
            ),
        });
    }
    s.push_str(&format!("void launch_{f}(float *a, float *b, float *c, int *ia, int *ib, {ty} *ta, {ty} *tb, int n)\n{{\n"));
    for k in 0..KERNELS_PER_FILE {
        let id = f * KERNELS_PER_FILE + k;
        s.push_str(&match (f + k) % 4 {
            0 => format!("    transpose_{id}<<<dim3(n / TILE_{f}, n / TILE_{f}), dim3(TILE_{f}, ROWS_{f})>>>(ta, tb, n);\n"),
            1 => format!("    reduce_{id}<<<n / 512, 256, 256 * sizeof(int)>>>(ia, ib, n);\n"),
            2 => format!("    matmul_{id}<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(a, b, c, n);\n"),
            _ => format!("    stencil_{id}<<<n / 256, 256>>>(a, b, n);\n"),
        });
    }
    s.push_str("    cudaDeviceSynchronize();\n}\n\n");
    // Host-side helpers and tables: the bulk of real files.
    while s.len() < 20_000 {
        let n = s.len();
        s.push_str(&format!(
            "/* Host helper {n}: validates inputs and reports errors. */\nstatic int check_{f}_{n}(const float *ref, const float *got, int count, float tol)\n{{\n    int bad = 0;\n    for (int i = 0; i < count; ++i) {{\n        float d = ref[i] - got[i];\n        if (d > tol || d < -tol) {{\n            if (bad < 10) printf(\"mismatch at %d: %f vs %f\\n\", i, ref[i], got[i]);\n            ++bad;\n        }}\n    }}\n    return bad;\n}}\n\n"
        ));
    }
    s
}

fn doc_comment(id: usize) -> String {
    format!(
        "// Kernel {id}: one of the benchmark's generated kernels. The comment block stands in\n// for the documentation real kernels carry: parameters, launch shape, and what each\n// shared-memory buffer holds.\n"
    )
}
