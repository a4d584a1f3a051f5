// Interleaved-addressing reduction with a divergent modulo test (sm_90), 256 threads = 8 warps.
// Loop s = 1, 2, ..., 128. Active lanes: tid % (2s) == 0; they touch sdata[tid] and sdata[tid + s].
// Inside one warp the active lanes' words are 32w + 2s*k: all in different banks (at most 16 lanes,
// distinct words < 32 apart) -> conflict-free every time, 1 wavefront per warp instruction.
// Warps with an active lane: s=1,2,4,8,16 -> all 8 warps (s=16: lane 0 of each warp);
//   s=32 -> tids 0,64,128,192 -> 4 warps; s=64 -> 2 warps; s=128 -> 1 warp.
// Per site: instructions = 5x8 + 4 + 2 + 1 = 47, total = 47 (the same 47 as 15, but as 47 clean
// instructions instead of 12 conflicting ones).
#define THREADS 256

__global__ void reduce_divergent(const int *g_in, int *g_out)
{
    __shared__ int sdata[THREADS];
    unsigned int tid = threadIdx.x;
    sdata[tid] = g_in[blockIdx.x * blockDim.x + tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s]; // expect: conflict-free wavefronts=1 ideal=1 instructions=47 total=47
        __syncthreads();
    }
    if (tid == 0)
        g_out[blockIdx.x] = sdata[0]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
}

void launch_reduce_divergent(const int *d_in, int *d_out, int n)
{
    reduce_divergent<<<n / THREADS, THREADS>>>(d_in, d_out);
}
