// Sequential-addressing reduction (sm_90), 256 threads = 8 warps.
// Loop s = 128, 64, 32, 16, 8, 4, 2, 1; active lanes tid < s touch sdata[tid] and sdata[tid + s]:
// consecutive words -> conflict-free. Warps with an active lane: 4, 2, 1, 1, 1, 1, 1, 1 = 12.
// Per site: instructions = 12, total = 12.
#define THREADS 256

__global__ void reduce_sequential(const float *g_in, float *g_out)
{
    __shared__ float sdata[THREADS];
    unsigned int tid = threadIdx.x;
    sdata[tid] = g_in[blockIdx.x * blockDim.x + tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s]; // expect: conflict-free wavefronts=1 ideal=1 instructions=12 total=12
        __syncthreads();
    }
    if (tid == 0)
        g_out[blockIdx.x] = sdata[0]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
}

int main(void)
{
    int n = 1 << 22;
    float *d_in;
    float *d_out;
    cudaMalloc((void **)&d_in, n * sizeof(float));
    cudaMalloc((void **)&d_out, (n / THREADS) * sizeof(float));
    reduce_sequential<<<n / THREADS, THREADS>>>(d_in, d_out);
    cudaDeviceSynchronize();
    return 0;
}
