// Each thread reads 4 consecutive floats in an unrolled loop (sm_90), block 64 = 2 warps.
// Source-level model (what banklint checks): s[4*tid + k] is a 4-byte access with stride 4
//   -> 8 banks x 4 words -> 4-way, 4 wavefronts; 4 iterations x 2 warps = 8 instructions, total 32.
// CAUTION: nvcc may merge the four loads into one 16-byte LDS.128 (= float4 s4[tid], 4 wavefronts,
// no conflict); a source-level analysis cannot see that, so the expected values below follow the source.
// Measured on an H100 (nvcc 13.0 -O3): it does merge them -> 2 LDS.128 per block, 8 wavefronts.
// Fill s[k * 64 + tid]: conflict-free, 8 instructions, total 8.
#define THREADS 64

__global__ void quad_sum(const float *in, float *out)
{
    __shared__ float s[4 * THREADS];
    int tid = threadIdx.x;
    for (int k = 0; k < 4; ++k)
        s[k * THREADS + tid] = in[blockIdx.x * 4 * THREADS + k * THREADS + tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k)
        sum += s[4 * tid + k]; // expect: load 4-way wavefronts=4 ideal=1 instructions=8 total=32
    out[blockIdx.x * THREADS + tid] = sum;
}

void launch_quad_sum(const float *d_in, float *d_out, int blocks)
{
    quad_sum<<<blocks, THREADS>>>(d_in, d_out);
}
