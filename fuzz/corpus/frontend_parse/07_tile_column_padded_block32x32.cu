// Same transpose as 06 with the tile padded to [32][33] (sm_90), block (32, 32) = 32 warps.
// Store tile[threadIdx.y][threadIdx.x]: word 33y + x, 32 consecutive words -> conflict-free, total 32.
// Load tile[threadIdx.x][threadIdx.y]: word 33x + y, bank (x + y) % 32 -> all different
//   -> conflict-free, 1 wavefront per warp, instructions=32, total=32.
#define TILE 32

__global__ void transpose_tile33(const float *in, float *out, int width)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    out[y * width + x] = tile[threadIdx.x][threadIdx.y]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=32 total=32
}

void launch_transpose_tile33(const float *d_in, float *d_out, int width)
{
    dim3 threads(TILE, TILE);
    dim3 grid(width / TILE, width / TILE);
    transpose_tile33<<<grid, threads>>>(d_in, d_out, width);
}
