// Row-per-thread matrix-vector product from a shared 32x32 tile (sm_90), block 32 = 1 warp.
// Loop k = 0..31:
//   w[tid][k]: word 32n + k -> bank k for every lane -> 32-way, 32 wavefronts; 32 x 32 = 1024 total.
//   x[k]: all lanes read one word -> broadcast, conflict-free; 32 instructions, total 32.
// Fill w[r][tid] (row), 32 iterations: conflict-free; x[tid]: conflict-free.
// Source-level model. Measured on an H100 (nvcc 13.0 -O3): w[tid][k..k+3] and x[k..k+3] are fused into
// LDS.128 (8 each): w is 8-way in each 8-lane phase (32 wavefronts x 8 = 256), x a broadcast (2 x 8 = 16).
#define N 32

__global__ void matvec_rows(const float *W, const float *X, float *Y)
{
    __shared__ float w[N][N];
    __shared__ float x[N];
    int tid = threadIdx.x;
    for (int r = 0; r < N; ++r)
        w[r][tid] = W[r * N + tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    x[tid] = X[tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) {
        float wv = w[tid][k]; // expect: load 32-way wavefronts=32 ideal=1 instructions=32 total=1024
        float xv = x[k]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=32 total=32
        acc += wv * xv;
    }
    Y[tid] = acc;
}

void launch_matvec_rows(const float *d_w, const float *d_x, float *d_y)
{
    matvec_rows<<<1, N>>>(d_w, d_x, d_y);
}
