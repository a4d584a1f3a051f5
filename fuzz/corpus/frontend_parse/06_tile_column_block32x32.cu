// Naive 32x32 shared tile transpose with block (32, 32) (sm_90): 32 warps, warp w has threadIdx.y = w.
// Store tile[threadIdx.y][threadIdx.x]: word 32y + x, 32 consecutive words -> conflict-free;
//   32 warps -> instructions=32, total=32.
// Load tile[threadIdx.x][threadIdx.y]: word 32x + y -> bank y for all lanes, 32 distinct words
//   -> 32-way, 32 wavefronts (ideal 1); 32 warps -> total 32 x 32 = 1024.
#define TILE 32

__global__ void transpose_tile32(const float *in, float *out, int width)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    out[y * width + x] = tile[threadIdx.x][threadIdx.y]; // expect: load 32-way wavefronts=32 ideal=1 instructions=32 total=1024
}

int main(void)
{
    int width = 1024;
    float *d_in;
    float *d_out;
    cudaMalloc((void **)&d_in, width * width * sizeof(float));
    cudaMalloc((void **)&d_out, width * width * sizeof(float));
    dim3 grid(width / TILE, width / TILE);
    dim3 block(TILE, TILE);
    transpose_tile32<<<grid, block>>>(d_in, d_out, width);
    cudaDeviceSynchronize();
    return 0;
}
