// Tiled transpose with a 32x32 shared tile and 32x8 thread blocks (sm_90).
// Block (TILE_DIM, BLOCK_ROWS) = (32, 8) from the launch in main(): 8 warps, warp w has threadIdx.y = w.
// The j loop runs 4 times (0, 8, 16, 24): 4 iterations x 8 warps = 32 warp instructions per site.
// Store tile[threadIdx.y + j][threadIdx.x]: word 32(y+j) + x, 32 consecutive words -> conflict-free,
//   total 32 x 1 = 32.
// Load tile[threadIdx.x][threadIdx.y + j]: word 32x + (y+j) -> one bank, 32 distinct words -> 32-way,
//   32 wavefronts (ideal 1), total 32 x 32 = 1024.
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_naive_tile(float *odata, const float *idata, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j]; // expect: load 32-way wavefronts=32 ideal=1 instructions=32 total=1024
}

int main(void)
{
    const int width = 2048;
    const int height = 2048;
    float *d_in;
    float *d_out;
    cudaMalloc((void **)&d_in, width * height * sizeof(float));
    cudaMalloc((void **)&d_out, width * height * sizeof(float));
    dim3 grid(width / TILE_DIM, height / TILE_DIM);
    dim3 threads(TILE_DIM, BLOCK_ROWS);
    transpose_naive_tile<<<grid, threads>>>(d_out, d_in, width, height);
    cudaDeviceSynchronize();
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
