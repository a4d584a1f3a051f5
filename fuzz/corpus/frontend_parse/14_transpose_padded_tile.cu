// The tiled transpose of 13 with the tile padded to [TILE_DIM][TILE_DIM + 1] (sm_90), block (32, 8).
// 4 iterations x 8 warps = 32 warp instructions per site.
// Store tile[threadIdx.y + j][threadIdx.x]: word 33(y+j) + x, 32 consecutive words -> conflict-free.
// Load tile[threadIdx.x][threadIdx.y + j]: word 33x + (y+j), bank (x + y + j) % 32 -> 32 banks
//   -> conflict-free. Both sites: instructions=32, total=32.
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_padded_tile(float *odata, const float *idata, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=32 total=32
}

void launch_transpose_padded(float *d_out, const float *d_in, int width, int height)
{
    dim3 grid(width / TILE_DIM, height / TILE_DIM);
    transpose_padded_tile<<<grid, dim3(TILE_DIM, BLOCK_ROWS)>>>(d_out, d_in, width, height);
}
