// banklint-args: --arch sm_35 --bank-mode 8
// The same kernel as 09, Kepler (sm_35) in 8-byte bank mode (cudaSharedMemBankSizeEightByte):
// 32 banks of 8 bytes, bank = (byte address / 8) % 32, lanes touching the same 64-bit word never
// conflict, the whole warp is one request. Cost = max over banks of distinct 64-bit words.
// Block = 32 threads = 1 warp.
// s[tid], s[tid + 32] (double): 64-bit words n (or 32+n) -> 32 banks -> conflict-free.
// s[2*tid]: 64-bit words 2n -> banks 0,2,..,30 each hit by n and n+16 -> 2-way.
// f[tid], f[tid+32], f[tid+64] (float): lanes 2k, 2k+1 share 64-bit word -> conflict-free.
// f[2*tid]: word 2n = 64-bit word n -> conflict-free.
// f[3*tid]: 64-bit word floor(3n/2) = 0,1,3,4,...,45,46; n=1 (q=1) and n=22 (q=33) share bank 1
//   -> 2-way (conflict-free in 4-byte mode, see 09).
// t[r][tid]: 64-bit word 32r + n -> conflict-free; 32 iterations -> 32.
// tp[r][tid] (padded [32][33]): 64-bit word 33r + n -> conflict-free (2-way in 4-byte mode); total 32.
// t[tid][c]: 64-bit word 32n + c -> bank c for all lanes -> 32-way; 32 iterations -> 1024.
// tp[tid][c]: 64-bit word 33n + c -> bank (n + c) % 32 -> conflict-free; total 32.
#define N 32

__global__ void kepler_doubles(const double *in, const float *fin, double *out)
{
    __shared__ double s[2 * N];
    __shared__ double t[N][N];
    __shared__ double tp[N][N + 1];
    __shared__ float f[3 * N];
    int tid = threadIdx.x;
    s[tid] = in[tid]; // expect: store conflict-free wavefronts=1 instructions=1 total=1
    s[tid + N] = in[tid + N]; // expect: store conflict-free wavefronts=1 instructions=1 total=1
    f[tid] = fin[tid]; // expect: store conflict-free wavefronts=1 instructions=1 total=1
    f[tid + N] = fin[tid + N]; // expect: store conflict-free wavefronts=1 instructions=1 total=1
    f[tid + 2 * N] = fin[tid + 2 * N]; // expect: store conflict-free wavefronts=1 instructions=1 total=1
    for (int r = 0; r < N; ++r) {
        t[r][tid] = in[r * N + tid]; // expect: store conflict-free wavefronts=1 instructions=32 total=32
        tp[r][tid] = in[r * N + tid]; // expect: store conflict-free wavefronts=1 instructions=32 total=32
    }
    __syncthreads();
    double a = s[tid]; // expect: load conflict-free wavefronts=1 instructions=1 total=1
    double b = s[2 * tid]; // expect: load 2-way wavefronts=2 instructions=1 total=2
    float g = f[2 * tid]; // expect: load conflict-free wavefronts=1 instructions=1 total=1
    float h = f[3 * tid]; // expect: load 2-way wavefronts=2 instructions=1 total=2
    double rowsum = 0.0;
    double padsum = 0.0;
    for (int c = 0; c < N; ++c) {
        rowsum += t[tid][c]; // expect: load 32-way wavefronts=32 instructions=32 total=1024
        padsum += tp[tid][c]; // expect: load conflict-free wavefronts=1 instructions=32 total=32
    }
    out[tid] = a + b + g + h + rowsum + padsum;
}

void launch_kepler_doubles(const double *d_in, const float *d_fin, double *d_out)
{
    kepler_doubles<<<1, N>>>(d_in, d_fin, d_out);
}
