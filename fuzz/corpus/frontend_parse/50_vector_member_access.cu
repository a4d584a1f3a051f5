// Member access on CUDA vector types in shared memory (sm_90). Block = 32 threads.
// A member access is a 4-byte access at the member's offset: p2[tid].x = word 2n -> 2-way;
// p4[tid].y = word 4n + 1 -> 4-way; p4[tid].w = word 4n + 3 -> 4-way.
// Whole-element accesses are wide: p2[tid] (float2, 8 B) -> 2 phases x 32 consecutive words ->
// conflict-free, 2 wavefronts, ideal 2; p4[tid] (float4, 16 B) -> 4 phases -> 4 wavefronts, ideal 4.
__global__ void vector_members(const float2 *a, const float4 *b, float *out)
{
    __shared__ float2 p2[32];
    __shared__ float4 p4[32];
    int tid = threadIdx.x;
    p2[tid] = a[tid]; // expect: store conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    p4[tid] = b[tid]; // expect: store conflict-free wavefronts=4 ideal=4 instructions=1 total=4
    __syncthreads();
    float x = p2[tid].x; // expect: load 2-way wavefronts=2 ideal=1 instructions=1 total=2
    float y = p4[tid].y; // expect: load 4-way wavefronts=4 ideal=1 instructions=1 total=4
    float w = p4[tid].w; // expect: load 4-way wavefronts=4 ideal=1 instructions=1 total=4
    out[tid] = x + y + w;
}

void launch_vector_members(const float2 *d_a, const float4 *d_b, float *d_out)
{
    vector_members<<<1, 32>>>(d_a, d_b, d_out);
}
