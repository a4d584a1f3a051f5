// Tiled N x N matrix product with N = 512 (#define), TILE = 32, block (32, 32) = 32 warps (sm_90).
// Outer loop over N / TILE = 16 tiles; inner loop k = 0..31.
// As[ty][tx] / Bs[ty][tx] stores: conflict-free; 32 warps x 16 tiles = 512 instructions, total 512.
// As[ty][k] (broadcast) * Bs[k][tx] (row): conflict-free; 32 warps x 16 tiles x 32 k = 16384 each.
// The naive alternative Bs[tx][k] (column of an unpadded tile) would be 32-way; this kernel avoids it.
// Source-level model; on an H100 nvcc fuses As[ty][k..k+3] into LDS.128 as in 45 (measured per block:
// 20480 load instructions instead of 32768).
#define N 512
#define TILE 32

__global__ void matmul_tiled(const float *A, const float *B, float *C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < N / TILE; ++t) {
        As[ty][tx] = A[row * N + t * TILE + tx]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=512 total=512
        Bs[ty][tx] = B[(t * TILE + ty) * N + col]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=512 total=512
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            sum += As[ty][k] * Bs[k][tx]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=16384 total=16384
        __syncthreads();
    }
    C[row * N + col] = sum;
}

void launch_matmul_tiled(const float *d_a, const float *d_b, float *d_c)
{
    dim3 threads(TILE, TILE);
    dim3 grid(N / TILE, N / TILE);
    matmul_tiled<<<grid, threads>>>(d_a, d_b, d_c);
}
