// banklint-args: --arch sm_20
// Fermi (compute capability 2.x): 32 banks x 4 bytes, the whole warp in one request for accesses of
// 4 bytes or less, multicast of any number of words. Only 32-bit accesses here.
// Block = 64 threads = 2 warps.
// s[tid]: conflict-free, 1 wavefront; 2 instructions, total 2.
// s[2 * tid]: 2-way, 2 wavefronts; total 4.
// s[tid / 4]: 8 words, each read by 4 lanes (multicast) -> conflict-free; total 2.
// s[32 * (tid % 4)]: words 0, 32, 64, 96 all in bank 0, 8 lanes each -> 4 distinct words -> 4-way; total 8.
#define THREADS 64

__global__ void fermi_strides(const float *in, float *out)
{
    __shared__ float s[2 * THREADS];
    int tid = threadIdx.x;
    s[tid] = in[tid]; // expect: store conflict-free wavefronts=1 instructions=2 total=2
    s[tid + THREADS] = in[tid + THREADS]; // expect: store conflict-free wavefronts=1 instructions=2 total=2
    __syncthreads();
    float a = s[2 * tid]; // expect: load 2-way wavefronts=2 instructions=2 total=4
    float b = s[tid / 4]; // expect: load conflict-free wavefronts=1 instructions=2 total=2
    float c = s[32 * (tid % 4)]; // expect: load 4-way wavefronts=4 instructions=2 total=8
    out[tid] = a + b + c;
}

void launch_fermi_strides(const float *d_in, float *d_out)
{
    fermi_strides<<<1, THREADS>>>(d_in, d_out);
}
