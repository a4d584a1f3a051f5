// 1-D stencil with a halo of RADIUS = 3 on each side, 256 threads = 8 warps (sm_90).
// buf[tid + RADIUS]: 32 consecutive words per warp -> conflict-free; 8 instructions, total 8.
// Halo loads under if (threadIdx.x < RADIUS): only lanes 0..2 of warp 0 -> conflict-free,
//   1 instruction, total 1 each.
// Stencil loop j = -3..3 (7 iterations): buf[tid + RADIUS + j] -> consecutive words -> conflict-free;
//   8 warps x 7 = 56 instructions, total 56.
#define RADIUS 3
#define BLOCK 256

__global__ void stencil1d(const float *in, float *out)
{
    __shared__ float buf[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * BLOCK + threadIdx.x;
    int tid = threadIdx.x;
    buf[tid + RADIUS] = in[g + RADIUS]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    if (threadIdx.x < RADIUS) {
        buf[tid] = in[g]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=1 total=1
        buf[tid + BLOCK + RADIUS] = in[g + BLOCK + RADIUS]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    }
    __syncthreads();
    float sum = 0.0f;
    for (int j = -RADIUS; j <= RADIUS; ++j)
        sum += buf[tid + RADIUS + j]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=56 total=56
    out[g] = sum;
}

int main(void)
{
    int n = 1 << 20;
    float *d_in;
    float *d_out;
    cudaMalloc((void **)&d_in, (n + 2 * RADIUS) * sizeof(float));
    cudaMalloc((void **)&d_out, n * sizeof(float));
    stencil1d<<<n / BLOCK, BLOCK>>>(d_in, d_out);
    cudaDeviceSynchronize();
    return 0;
}
