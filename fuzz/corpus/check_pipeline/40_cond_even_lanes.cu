// if (tid % 2 == 0) switches odd lanes off (sm_90). Block = 32 threads = 1 warp.
// s[tid * 2] with even lanes only: active lanes n = 0, 2, ..., 30 touch words 0, 4, ..., 60 -> banks
//   0, 4, ..., 28 each hit by n and n+16 (words 4k and 4k+32) -> still 2-way, 2 wavefronts: turning off
//   the odd lanes does not help, because the conflicting partners (n, n+16) are both even.
// s[tid] with even lanes only: words 0, 2, ..., 30 -> 16 banks -> conflict-free.
// s[tid * 2] with lanes tid % 32 < 16 only (the partner n+16 is off) -> conflict-free.
__global__ void even_lane_gather(const float *in, float *out)
{
    __shared__ float s[64];
    int tid = threadIdx.x;
    s[tid] = in[tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    s[tid + 32] = in[tid + 32]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    __syncthreads();
    float v = 0.0f;
    if (tid % 2 == 0) {
        v = s[tid * 2]; // expect: load 2-way wavefronts=2 ideal=1 instructions=1 total=2
        v += s[tid]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    }
    if (tid % 32 < 16)
        v -= s[tid * 2]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    out[tid] = v;
}

void launch_even_lane_gather(const float *d_in, float *d_out)
{
    even_lane_gather<<<1, 32>>>(d_in, d_out);
}
