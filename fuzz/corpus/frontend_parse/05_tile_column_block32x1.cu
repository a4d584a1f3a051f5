// tile[threadIdx.x][threadIdx.y] on float tile[32][32], launched with block (32, 1) (sm_90).
// One warp: threadIdx.y = 0, lanes x = 0..31.
// Store tile[threadIdx.y][threadIdx.x]: words 0..31 -> conflict-free, 1 instruction, 1 wavefront.
// Load tile[threadIdx.x][threadIdx.y]: word 32x -> bank 0 for every lane, 32 distinct words
//   -> 32-way, 32 wavefronts, ideal 1; 1 instruction -> total 32.
#define TILE 32

__global__ void tile_flip(const float *in, float *out)
{
    __shared__ float tile[TILE][TILE];
    int idx = (blockIdx.y * blockDim.y + threadIdx.y) * TILE + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = in[idx]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    __syncthreads();
    out[idx] = tile[threadIdx.x][threadIdx.y]; // expect: load 32-way wavefronts=32 ideal=1 instructions=1 total=32
}

void launch_tile_flip_rows(const float *d_in, float *d_out, int rows)
{
    dim3 grid(1, rows);
    tile_flip<<<grid, dim3(32, 1)>>>(d_in, d_out);
}
