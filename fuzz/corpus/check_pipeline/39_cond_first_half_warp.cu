// if (tid < 16) switches lanes 16-31 off (sm_90). Block = 64 threads = 2 warps (launch below).
// s[2 * tid] under tid < 16: 16 active lanes, words 0, 2, ..., 30 -> 16 different banks -> conflict-free
//   (for a full warp stride 2 is 2-way: lanes n and n+16 share a bank). Only warp 0 has active lanes
//   -> 1 instruction, total 1.
// The same stride with no condition, s[2 * tid + 1]: 2-way in both warps -> 2 instructions, total 4.
// Fill s[k * 64 + tid], k < 2: conflict-free; 4 instructions.
#define THREADS 64

__global__ void half_warp_pick(const float *in, float *out)
{
    __shared__ float s[2 * THREADS];
    int tid = threadIdx.x;
    for (int k = 0; k < 2; ++k)
        s[k * THREADS + tid] = in[k * THREADS + tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    __syncthreads();
    if (tid < 16)
        out[tid] = s[2 * tid]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    out[THREADS + tid] = s[2 * tid + 1]; // expect: load 2-way wavefronts=2 ideal=1 instructions=2 total=4
}

void launch_half_warp_pick(const float *d_in, float *d_out)
{
    half_warp_pick<<<1, THREADS>>>(d_in, d_out);
}
