// 16-byte accesses on sm_90: four phases of 8 lanes. Block = 32 threads = 1 warp.
// v[tid] (float4): phase = 8 lanes x 4 words = 32 consecutive words -> 1 per phase -> conflict-free,
//   wavefronts=4, ideal=4. Same for the stores v[tid] and v[tid + 32].
// v[2*tid]: phase 0 touches float4s 0,2,..,14 = words 0-3, 8-11, ..., 56-59; lanes n and n+4 land on
//   the same 4 banks (8n and 8n+32) -> 2-way per phase -> wavefronts=8; 32 unique words/phase -> ideal=4.
#define N 32

__global__ void load_float4(const float4 *in, float4 *out)
{
    __shared__ float4 v[2 * N];
    int tid = threadIdx.x;
    v[tid] = in[tid]; // expect: store conflict-free wavefronts=4 ideal=4 instructions=1 total=4
    v[tid + N] = in[tid + N]; // expect: store conflict-free wavefronts=4 ideal=4 instructions=1 total=4
    __syncthreads();
    float4 a = v[tid]; // expect: load conflict-free wavefronts=4 ideal=4 instructions=1 total=4
    float4 b = v[2 * tid]; // expect: load 2-way wavefronts=8 ideal=4 instructions=1 total=8
    out[tid] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

void launch_load_float4(const float4 *d_in, float4 *d_out)
{
    load_float4<<<1, N>>>(d_in, d_out);
}
