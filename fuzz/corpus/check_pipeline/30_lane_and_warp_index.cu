// Lane / warp index idioms with a 256-thread block (8 warps) (sm_90).
// lane = threadIdx.x & 31, warp = threadIdx.x / 32 (warp-uniform inside a warp).
// partial[warp][lane]: word 32w + lane -> conflict-free; 8 instructions, total 8.
// if (lane == 0) warp_sum[warp] = partial[warp][0] + partial[warp][31]: one lane per warp
//   -> conflict-free (two loads, one store); 8 instructions, total 8 each.
// warp_sum[tid / 32]: every lane of a warp reads the same word -> broadcast, conflict-free; total 8.
// scratch[tid % 32][tid / 32] on float[32][8]: word 8*lane + w -> lanes n, n+4, ..., n+28 share bank
//   (8n + w) % 32 -> 8 words per bank -> 8-way, 8 wavefronts; 8 warps -> total 64.
// scratch[lane][(warp + 1) % WARPS] (read the next warp's value): same shape -> 8-way, total 64.
// scratch_pad[lane][...] on float[32][9]: word 9*lane + w, 9 is odd -> 32 banks -> conflict-free.
#define THREADS 256
#define WARPS (THREADS / 32)

__global__ void warp_partials(const float *in, float *out, float *rotated)
{
    __shared__ float partial[WARPS][32];
    __shared__ float warp_sum[WARPS];
    __shared__ float scratch[32][WARPS];
    __shared__ float scratch_pad[32][WARPS + 1];
    unsigned int tid = threadIdx.x;
    unsigned int lane = threadIdx.x & 31;
    unsigned int warp = threadIdx.x / 32;
    float v = in[blockIdx.x * THREADS + tid];
    partial[warp][lane] = v; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    scratch[tid % 32][tid / 32] = v; // expect: store 8-way wavefronts=8 ideal=1 instructions=8 total=64
    scratch_pad[lane][warp] = v; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    __syncthreads();
    if (lane == 0)
        warp_sum[warp] = partial[warp][0] + partial[warp][31]; // expect: conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    float next = scratch[lane][(warp + 1) % WARPS]; // expect: load 8-way wavefronts=8 ideal=1 instructions=8 total=64
    float next_pad = scratch_pad[lane][(warp + 1) % WARPS]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    __syncthreads();
    out[blockIdx.x * THREADS + tid] = v / warp_sum[tid / 32]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    rotated[blockIdx.x * THREADS + tid] = next - next_pad;
}

void launch_warp_partials(const float *d_in, float *d_out, float *d_rot, int n)
{
    warp_partials<<<n / THREADS, THREADS>>>(d_in, d_out, d_rot);
}
