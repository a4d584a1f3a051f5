// Early return: if (threadIdx.x >= 8) return; leaves lanes 0-7 of warp 0 active (sm_90).
// Block = 128 threads = 4 warps, but only warp 0 reaches the accesses after the return.
// s[threadIdx.x * 4] for lanes 0..7: words 0, 4, ..., 28 -> 8 different banks -> conflict-free
//   (for a full warp stride 4 would be 4-way). 1 instruction, total 1.
// s[threadIdx.x * 32] for lanes 0..7: all in bank 0, 8 words -> 8-way, 8 wavefronts; total 8.
// The fill before the return, s[threadIdx.x], runs in all 4 warps: 4 instructions, total 4.
#define THREADS 128

__global__ void first_eight(const float *in, float *out)
{
    __shared__ float s[2 * THREADS];
    s[threadIdx.x] = in[threadIdx.x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    s[threadIdx.x + THREADS] = in[threadIdx.x + THREADS]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    __syncthreads();
    if (threadIdx.x >= 8)
        return;
    float a = s[threadIdx.x * 4]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    float b = s[threadIdx.x * 32]; // expect: load 8-way wavefronts=8 ideal=1 instructions=1 total=8
    out[threadIdx.x] = a + b;
}

void launch_first_eight(const float *d_in, float *d_out)
{
    first_eight<<<1, THREADS>>>(d_in, d_out);
}
