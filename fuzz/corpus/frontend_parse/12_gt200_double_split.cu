// banklint-args: --arch sm_13
// 64-bit shared accesses on compute capability 1.x (sm_13, the first 1.x part with doubles; sm_10
// demotes double to float). 16 banks x 4 bytes, half-warps separate. A 64-bit access is split into two
// 32-bit accesses (low words, then high words), each with a stride of 2 words.
// Block = 32 threads (launch below).
// s[tid] (double): low halves: half-warp lane n touches word 2n -> words 0..30 even -> 8 banks x 2 words
//   -> 2-way; high halves (2n+1) likewise -> 2-way. Wavefronts = 2 steps x 2 halves x 2 half-warps = 8.
// The classic 1.x fix: keep the two halves in separate int arrays: lo[tid], hi[tid] are stride 1
//   -> conflict-free, 1 step per half-warp -> 2 wavefronts each.
#define N 32

__global__ void double_halves(const double *in, const int *in_lo, const int *in_hi, double *out, int *out2)
{
    __shared__ double s[N];
    __shared__ int lo[N];
    __shared__ int hi[N];
    int tid = threadIdx.x;
    s[tid] = in[tid]; // expect: store 2-way wavefronts=8
    lo[tid] = in_lo[tid]; // expect: store conflict-free wavefronts=2 instructions=1 total=2
    hi[tid] = in_hi[tid]; // expect: store conflict-free wavefronts=2 instructions=1 total=2
    __syncthreads();
    double v = s[tid]; // expect: load 2-way wavefronts=8
    int a = lo[tid]; // expect: load conflict-free wavefronts=2 instructions=1 total=2
    int b = hi[tid]; // expect: load conflict-free wavefronts=2 instructions=1 total=2
    out[tid] = v;
    out2[tid] = a ^ b;
}

void launch_double_halves(const double *d_in, const int *d_lo, const int *d_hi, double *d_out, int *d_out2)
{
    double_halves<<<1, N>>>(d_in, d_lo, d_hi, d_out, d_out2);
}
