// Merge rule with inactive lanes (sm_90): a float4 load where only even lanes are active.
// Lanes n and n^1 are never both active, so "same address whenever both are active" holds vacuously
// and the 16-byte phase grows from 8 to 16 lanes. Block = 32 threads = 1 warp.
// rec[tid/2] under (tid & 1) == 0: even lane 2k reads float4 k, k = 0..15 (64 words).
//   Merged phases: lanes 0-15 read float4 0..7 = words 0..31 -> 1; lanes 16-31 -> words 32..63 -> 1
//   -> wavefronts=2, ideal=2 (without the merge it would be 4 phases -> 4).
// The same read as a STORE does not merge: 4 phases of 8 lanes, 4 active lanes each (16 words)
//   -> wavefronts=4, ideal=4.
// Fill rec[tid] for tid < 16: 2 active 8-lane phases, 32 consecutive words each -> 2.
__global__ void even_lane_records(const float4 *in, float4 *out)
{
    __shared__ float4 rec[16];
    int tid = threadIdx.x;
    if (tid < 16)
        rec[tid] = in[tid]; // expect: store conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    __syncthreads();
    if ((tid & 1) == 0) {
        float4 r = rec[tid / 2]; // expect: load conflict-free wavefronts=2 ideal=2 instructions=1 total=2
        r.x = r.x * 2.0f;
        out[tid / 2] = r;
        __syncwarp(0x55555555);
        rec[tid / 2] = r; // expect: store conflict-free wavefronts=4 ideal=4 instructions=1 total=4
    }
}

void launch_even_lane_records(const float4 *d_in, float4 *d_out)
{
    even_lane_records<<<1, 32>>>(d_in, d_out);
}
