// XOR-swizzled 32x32 tile (no padding) with block (32, 8) (sm_90): element (row, col) is stored at
// tile[row][col ^ row]. 8 warps, warp w has threadIdx.y = w; j = 0, 8, 16, 24 -> 4 iterations.
// Store tile[r][threadIdx.x ^ r] with r = threadIdx.y + j: word 32r + (x ^ r); x ^ r is a permutation
//   of 0..31 -> 32 banks -> conflict-free. 32 instructions, total 32.
// Load tile[threadIdx.x][r ^ threadIdx.x] (column r of the logical tile): word 32x + (r ^ x),
//   bank r ^ x, distinct for the 32 lanes -> conflict-free. 32 instructions, total 32.
// The unswizzled column read tile[threadIdx.x][r] would be 32-way: bank r for every lane.
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_swizzled(float *odata, const float *idata, int width)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int r = threadIdx.y + j;
        tile[r][threadIdx.x ^ r] = idata[(y + j) * width + x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    }
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int r = threadIdx.y + j;
        odata[(y + j) * width + x] = tile[threadIdx.x][r ^ threadIdx.x]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    }
}

void launch_transpose_swizzled(float *d_out, const float *d_in, int width)
{
    dim3 grid(width / TILE_DIM, width / TILE_DIM);
    dim3 threads(TILE_DIM, BLOCK_ROWS);
    transpose_swizzled<<<grid, threads>>>(d_out, d_in, width);
}
