// Batched 32x32 matrix product, one pair of tiles per block, block (32, 32) = 32 warps (sm_90).
// Warp w has ty = w and tx = 0..31.
// As[ty][tx] / Bs[ty][tx] stores: 32 consecutive words -> conflict-free; 32 instructions, total 32.
// Inner loop k = 0..31 (warp-uniform counter, same pattern every iteration):
//   As[ty][k]: every lane of the warp reads the same word -> broadcast, conflict-free;
//   Bs[k][tx]: one row, 32 consecutive words -> conflict-free.
//   Both on one line, same numbers: 32 warps x 32 iterations = 1024 instructions, total 1024.
// Source-level model. Measured on an H100 (nvcc 13.0 -O3, ncu): nvcc unrolls the k loop and fuses
// As[ty][k..k+3] into one 16-byte broadcast LDS.128 (2 wavefronts by the merge rule), so the block
// executes 1024 + 256 = 1280 load instructions and 1024 + 512 = 1536 wavefronts instead of 2048 / 2048.
// banklint cannot see that fusion (BANK_RULES.md); the expectations below follow the source.
#define TILE 32

__global__ void batched_matmul32(const float *A, const float *B, float *C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int base = blockIdx.x * TILE * TILE;
    As[ty][tx] = A[base + ty * TILE + tx]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    Bs[ty][tx] = B[base + ty * TILE + tx]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < TILE; ++k)
        sum += As[ty][k] * Bs[k][tx]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1024 total=1024
    C[base + ty * TILE + tx] = sum;
}

int main(void)
{
    int batch = 64;
    float *d_a;
    float *d_b;
    float *d_c;
    cudaMalloc((void **)&d_a, batch * TILE * TILE * sizeof(float));
    cudaMalloc((void **)&d_b, batch * TILE * TILE * sizeof(float));
    cudaMalloc((void **)&d_c, batch * TILE * TILE * sizeof(float));
    dim3 threads(TILE, TILE);
    batched_matmul32<<<batch, threads>>>(d_a, d_b, d_c);
    cudaDeviceSynchronize();
    return 0;
}
