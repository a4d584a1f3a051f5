// 16x16 tiles with a 16x16 thread block (sm_90): 256 threads = 8 warps; warp w holds rows
// threadIdx.y = 2w and 2w+1, threadIdx.x = 0..15 in each (so one warp spans TWO rows of the tile).
// tile16_naive, float tile[16][16]:
//   store tile[ty][tx]: words 16*2w .. 16*2w+31, 32 consecutive -> conflict-free; 8 warps -> 8.
//   load tile[tx][ty]: word 16x + y; even x -> bank y, odd x -> bank 16+y: 8 distinct words per bank
//   -> 8-way, 8 wavefronts per instruction (ideal 1); total 8 x 8 = 64.
// tile16_padded, float tile[16][17]:
//   store tile[ty][tx]: words 17y + x for y = 2w, 2w+1 = base + {0..15} and base + {17..32}:
//   base+0 and base+32 share a bank -> 2-way, 2 wavefronts; total 16.
//   load tile[tx][ty]: word 17x + y, bank (17x + y) % 32 = x + y (x even) or x + 16 + y (x odd):
//   for y = 2w the banks are all different, for y = 2w+1 as well, but (x=15, y=2w+1) gives
//   17*15 + 2w + 1 = 256 + 2w -> same bank as (x=0, y=2w) -> 2-way (padding by 1 is NOT enough
//   for a 16-wide block), 2 wavefronts; total 16.
#define TILE 16

__global__ void tile16_naive(const float *in, float *out, int width)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    __syncthreads();
    out[y * width + x] = tile[threadIdx.x][threadIdx.y]; // expect: load 8-way wavefronts=8 ideal=1 instructions=8 total=64
}

__global__ void tile16_padded(const float *in, float *out, int width)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x]; // expect: store 2-way wavefronts=2 ideal=1 instructions=8 total=16
    __syncthreads();
    out[y * width + x] = tile[threadIdx.x][threadIdx.y]; // expect: load 2-way wavefronts=2 ideal=1 instructions=8 total=16
}

int main(void)
{
    int width = 512;
    float *d_in;
    float *d_out;
    cudaMalloc((void **)&d_in, width * width * sizeof(float));
    cudaMalloc((void **)&d_out, width * width * sizeof(float));
    dim3 threads(16, 16);
    dim3 grid(width / TILE, width / TILE);
    tile16_naive<<<grid, threads>>>(d_in, d_out, width);
    tile16_padded<<<grid, threads>>>(d_in, d_out, width);
    cudaDeviceSynchronize();
    return 0;
}
