// banklint-args: --arch sm_35
// Kepler (sm_35) in the default 4-byte bank mode: 32 banks, bank = word % 32, the whole warp is one
// request (no phases), and words i and i+32 of one 64-word (256-byte) aligned segment share a 64-bit
// bank row, so they do NOT conflict. Cost = max over banks of distinct 64-word segments touched.
// Block = 32 threads = 1 warp (launch below), so instructions/total are per warp.
// s[tid] (double): lane n touches words 2n, 2n+1 -> words 0..63, one segment -> conflict-free, 1 wavefront.
// s[tid + 32]: words 64..127, one segment -> conflict-free.
// s[2*tid]: words 4n, 4n+1 -> 0..125; bank 0 gets words 0, 32 (segment 0) and 64, 96 (segment 1)
//   -> 2 segments -> 2-way, 2 wavefronts.
// f[tid], f[tid+32], f[tid+64] (float): consecutive words -> conflict-free.
// f[2*tid] (float stride 2): words 0..62 even; bank b gets b and b+32, same segment -> conflict-free.
// f[3*tid]: stride 3 -> 32 different banks -> conflict-free.
// t[r][tid] (double t[32][32] row): words 64r .. 64r+63 = exactly segment r -> conflict-free; 32 iterations.
// tp[r][tid] (double tp[32][33] row): words 66r .. 66r+63 cross a segment boundary unless 66r % 64 == 0
//   (only r = 0): e.g. r=1: words 96 (segment 1) and 128 (segment 2) both in bank 0 -> 2-way.
//   Total over 32 iterations = 1 + 31 x 2 = 63.
// t[tid][c] (column): words 64n + 2c -> bank 2c, each lane its own segment -> 32-way; 32 iterations -> 1024.
// tp[tid][c] (padded column): words 66n + 2c, bank (2n + 2c) % 32: lanes n and n+16 share a bank and
//   are 1056 words apart (different segments) -> 2-way; 32 iterations -> 64.
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
        tp[r][tid] = in[r * N + tid]; // expect: store 2-way wavefronts=2 instructions=32 total=63
    }
    __syncthreads();
    double a = s[tid]; // expect: load conflict-free wavefronts=1 instructions=1 total=1
    double b = s[2 * tid]; // expect: load 2-way wavefronts=2 instructions=1 total=2
    float g = f[2 * tid]; // expect: load conflict-free wavefronts=1 instructions=1 total=1
    float h = f[3 * tid]; // expect: load conflict-free wavefronts=1 instructions=1 total=1
    double rowsum = 0.0;
    double padsum = 0.0;
    for (int c = 0; c < N; ++c) {
        rowsum += t[tid][c]; // expect: load 32-way wavefronts=32 instructions=32 total=1024
        padsum += tp[tid][c]; // expect: load 2-way wavefronts=2 instructions=32 total=64
    }
    out[tid] = a + b + g + h + rowsum + padsum;
}

void launch_kepler_doubles(const double *d_in, const float *d_fin, double *d_out)
{
    kepler_doubles<<<1, N>>>(d_in, d_fin, d_out);
}
