// float3 in shared memory (sm_90): 12 bytes, 4-byte aligned, so a whole-element access is three
// 4-byte accesses at +0, +4, +8. Block = 32 threads.
// pos[tid] (store or load, whole float3): the three accesses touch words 3n, 3n+1, 3n+2: each one has
// stride 3 -> conflict-free, 1 wavefront each (instructions/total not given: one source site, three
// hardware instructions).
// pos[tid].y: word 3n + 1 -> conflict-free, 1 wavefront; 1 instruction.
__global__ void float3_moves(const float3 *in, float3 *out, float *ys)
{
    __shared__ float3 pos[32];
    int tid = threadIdx.x;
    pos[tid] = in[tid]; // expect: store conflict-free wavefronts=1 ideal=1
    __syncthreads();
    float3 p = pos[31 - tid]; // expect: load conflict-free wavefronts=1 ideal=1
    ys[tid] = pos[tid].y; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    out[tid] = p;
}

void launch_float3_moves(const float3 *d_in, float3 *d_out, float *d_ys)
{
    float3_moves<<<1, 32>>>(d_in, d_out, d_ys);
}
