// The wide-LOAD merge rule on sm_90 (measured): for 8/16-byte LOADS, if lanes n and n^1 (or n and n^2)
// always read the same address, the phase size doubles once (16 -> 32 lanes for 8 B, 8 -> 16 for 16 B).
// Stores never merge. Block = 32 threads = 1 warp.
// c[0] load (double, all lanes): merged to one 32-lane phase, 2 words -> wavefronts=1, ideal=1.
// c[tid/2] load: lanes 2k, 2k+1 share an address -> one 32-lane phase, doubles 0..15 = words 0..31
//   -> wavefronts=1, ideal=1.
// c[tid/2] store (pairs write the same value): no merge -> 2 phases, each 8 doubles = 16 words
//   -> 1 + 1 = 2 wavefronts, ideal=2.
// c[tid] store (fill): 2 phases x 32 consecutive words -> 2, ideal 2.
// v[0] load (float4, all lanes): merged 16-lane phases -> 2 phases x 1 = wavefronts=2, ideal=2.
// v[tid/2] load: n^1 pairs -> 16-lane phases, 8 float4s = 32 words each -> 2, ideal 2.
// v[tid/4] load: n^1 and n^2 both hold, but the size doubles only once -> 16-lane phases with
//   4 float4s = 16 words each -> 2, ideal 2.
// v[tid] store (fill, lanes < 16 only): 2 active 8-lane phases x 32 words -> 2, ideal 2.
#define N 32

__global__ void broadcast_params(const double *coef, const float4 *quad, double *out, float4 *out4)
{
    __shared__ double c[N];
    __shared__ float4 v[16];
    int tid = threadIdx.x;
    c[tid] = coef[tid]; // expect: store conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    if (tid < 16)
        v[tid] = quad[tid]; // expect: store conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    __syncthreads();
    double scale = c[0]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    double pair = c[tid / 2]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    float4 origin = v[0]; // expect: load conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    float4 half = v[tid / 2]; // expect: load conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    float4 quarter = v[tid / 4]; // expect: load conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    __syncthreads();
    c[tid / 2] = scale * pair; // expect: store conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    out[tid] = scale * pair;
    out4[tid] = origin;
    out4[32 + tid] = half;
    out4[64 + tid] = quarter;
}

void launch_broadcast_params(const double *d_coef, const float4 *d_quad, double *d_out, float4 *d_out4)
{
    broadcast_params<<<1, N>>>(d_coef, d_quad, d_out, d_out4);
}
