// banklint-args: --arch sm_10
// 16x16 tiles with a 16x16 block on compute capability 1.0: 16 banks, each half-warp its own request,
// and a half-warp here is exactly one tile row (threadIdx.y fixed, x = 0..15). 8 warps.
// Wavefronts of a warp instruction = steps of half-warp 0 + steps of half-warp 1.
// tile[16][16]: store tile[ty][tx]: words 16y + x -> 16 banks -> 1 + 1 = 2; total 8 x 2 = 16.
//   load tile[tx][ty]: word 16x + y -> bank y for all 16 lanes -> 16-way, 16 + 16 = 32; total 256.
// tilep[16][17]: store tile[ty][tx]: 17y + x, 16 consecutive words -> 2; total 16.
//   load tilep[tx][ty]: word 17x + y -> bank (x + y) % 16 -> conflict-free, 2; total 16.
//   (On 1.x padding by one word IS enough for 16-wide tiles, unlike sm_90, see 28.)
// scale[0] read by every lane: one word per half-warp = the broadcast word -> 1 step each -> 2; total 16.
// scale[0] written by thread (0,0) only: 1 step in one half-warp -> 1; 1 instruction.
#define TILE 16

__global__ void transpose16_g80(const float *in, float *out, const float *factor, int width)
{
    __shared__ float tile[TILE][TILE];
    __shared__ float tilep[TILE][TILE + 1];
    __shared__ float scale[1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    float v = in[y * width + x];
    if (threadIdx.x == 0 && threadIdx.y == 0)
        scale[0] = factor[0]; // expect: store conflict-free wavefronts=1 instructions=1 total=1
    tile[threadIdx.y][threadIdx.x] = v; // expect: store conflict-free wavefronts=2 instructions=8 total=16
    tilep[threadIdx.y][threadIdx.x] = v; // expect: store conflict-free wavefronts=2 instructions=8 total=16
    __syncthreads();
    float f = scale[0]; // expect: load conflict-free wavefronts=2 instructions=8 total=16
    float a = tile[threadIdx.x][threadIdx.y]; // expect: load 16-way wavefronts=32 instructions=8 total=256
    float b = tilep[threadIdx.x][threadIdx.y]; // expect: load conflict-free wavefronts=2 instructions=8 total=16
    out[y * width + x] = f * (a - b);
}

int main(void)
{
    int width = 256;
    float *d_in;
    float *d_out;
    float *d_f;
    cudaMalloc((void **)&d_in, width * width * sizeof(float));
    cudaMalloc((void **)&d_out, width * width * sizeof(float));
    cudaMalloc((void **)&d_f, sizeof(float));
    dim3 threads(TILE, TILE);
    dim3 grid(width / TILE, width / TILE);
    transpose16_g80<<<grid, threads>>>(d_in, d_out, d_f, width);
    cudaDeviceSynchronize();
    return 0;
}
