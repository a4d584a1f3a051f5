// Interleaved-addressing reduction with a strided index (sm_90), 256 threads = 8 warps per block.
// Loop s = 1, 2, 4, ..., 128 (8 iterations). index = 2*s*tid is active when index < 256, i.e. tid < 128/s.
// The line holds two loads (sdata[index], sdata[index + s]) and one store (sdata[index]); the "+ s"
// is warp-uniform so all three sites have the same cost. Word stride per lane = 2s:
//   s=1:   tid<128, 4 warps, stride 2  -> 2-way, 4 x 2 = 8 wavefronts
//   s=2:   tid<64,  2 warps, stride 4  -> 4-way, 2 x 4 = 8
//   s=4:   tid<32,  1 warp,  stride 8  -> 8-way, 8
//   s=8:   tid<16,  16 lanes, stride 16 -> banks 0/16, 8 words each -> 8-way, 8
//   s=16:  tid<8,   8 lanes,  stride 32 -> one bank, 8 words -> 8-way, 8
//   s=32:  4 lanes -> 4;  s=64: 2 lanes -> 2;  s=128: 1 lane -> 1
// Per site: instructions = 4+2+1+1+1+1+1+1 = 12, total = 8+8+8+8+8+4+2+1 = 47, worst 8-way (8 wavefronts,
// ideal 1). Initial store sdata[tid]: 8 warps, conflict-free. Final read sdata[0] by tid 0: 1 instruction.
#define THREADS 256

__global__ void reduce_interleaved(const int *g_in, int *g_out)
{
    __shared__ int sdata[THREADS];
    unsigned int tid = threadIdx.x;
    sdata[tid] = g_in[blockIdx.x * blockDim.x + tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s]; // expect: 8-way wavefronts=8 ideal=1 instructions=12 total=47
        __syncthreads();
    }
    if (tid == 0)
        g_out[blockIdx.x] = sdata[0]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
}

int main(void)
{
    int n = 1 << 20;
    int *d_in;
    int *d_out;
    cudaMalloc((void **)&d_in, n * sizeof(int));
    cudaMalloc((void **)&d_out, (n / THREADS) * sizeof(int));
    reduce_interleaved<<<n / THREADS, THREADS>>>(d_in, d_out);
    cudaDeviceSynchronize();
    return 0;
}
