// threadIdx.x >> 1: two lanes per element (sm_90). Block = 64 threads = 2 warps.
// s[threadIdx.x >> 1]: lanes 2k and 2k+1 read the same word, 16 words in a warp -> conflict-free
//   (multicast), 1 wavefront; 2 warps -> total 2.
// s[(threadIdx.x >> 1) * 4 + (threadIdx.x & 1)]: words 4k and 4k+1 for k = 0..15 (+64 in warp 1) ->
//   k and k+8 share banks (4k, 4k+32) -> 2-way, 2 wavefronts; total 4.
// Fill s[k * 64 + tid], 2 iterations: conflict-free; 4 instructions, total 4.
#define THREADS 64

__global__ void pair_lanes(const float *in, float *out)
{
    __shared__ float s[2 * THREADS];
    int tid = threadIdx.x;
    for (int k = 0; k < 2; ++k)
        s[k * THREADS + tid] = in[k * THREADS + tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    __syncthreads();
    float shared_val = s[threadIdx.x >> 1]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=2 total=2
    float spread = s[(threadIdx.x >> 1) * 4 + (threadIdx.x & 1)]; // expect: load 2-way wavefronts=2 ideal=1 instructions=2 total=4
    out[tid] = shared_val * spread;
}

void launch_pair_lanes(const float *d_in, float *d_out)
{
    pair_lanes<<<1, THREADS>>>(d_in, d_out);
}
