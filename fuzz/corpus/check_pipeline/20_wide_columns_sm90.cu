// Column reads of 8- and 16-byte 2-D tiles on sm_90. Block = 32 threads = 1 warp; col is a kernel
// parameter (warp-uniform, it only shifts every lane by the same amount).
// double t[32][32], t[tid][col]: lane n touches words 64n + 2col, +1 -> banks 2col and 2col+1; in each
//   16-lane phase 16 distinct words per bank -> 16-way, 2 phases -> wavefronts=32; ideal=2.
// double tp[32][33], tp[tid][col]: words 66n + 2col: bank (2n + 2col) % 32, distinct for the 16 lanes of
//   a phase -> conflict-free, wavefronts=2, ideal=2.
// float4 q[32][8], q[tid][col]: words 32n + 4col .. +3 -> 4 banks; each 8-lane phase: 8 words per bank
//   -> 8-way, 4 phases -> wavefronts=32; ideal=4.
// float4 qp[32][9], qp[tid][col]: words 36n + 4col: banks (4n + 4col) % 32 .. +3, distinct for the 8
//   lanes of a phase -> conflict-free, wavefronts=4, ideal=4.
// Row fills (all conflict-free, per warp instruction):
//   t[r][tid], tp[r][tid]: 64 consecutive words, 2 phases -> wavefronts 2; 32 iterations -> total 64.
//   q[4k + tid/8][tid%8]: float4 index 32k + tid, consecutive -> 4 wavefronts; 8 iterations -> 32.
//   qp[4k + tid/8][tid%8]: phase p writes row 4k+p, 8 consecutive float4s -> 4; 8 iterations -> 32.
#define N 32

__global__ void column_pick(const double *din, const float4 *fin, double *dout, float4 *fout, int col)
{
    __shared__ double t[N][N];
    __shared__ double tp[N][N + 1];
    __shared__ float4 q[N][8];
    __shared__ float4 qp[N][9];
    int tid = threadIdx.x;
    for (int r = 0; r < N; ++r) {
        t[r][tid] = din[r * N + tid]; // expect: store conflict-free wavefronts=2 ideal=2 instructions=32 total=64
        tp[r][tid] = din[r * N + tid]; // expect: store conflict-free wavefronts=2 ideal=2 instructions=32 total=64
    }
    for (int k = 0; k < 8; ++k) {
        q[4 * k + tid / 8][tid % 8] = fin[32 * k + tid]; // expect: store conflict-free wavefronts=4 ideal=4 instructions=8 total=32
        qp[4 * k + tid / 8][tid % 8] = fin[32 * k + tid]; // expect: store conflict-free wavefronts=4 ideal=4 instructions=8 total=32
    }
    __syncthreads();
    double a = t[tid][col]; // expect: load 16-way wavefronts=32 ideal=2 instructions=1 total=32
    double b = tp[tid][col]; // expect: load conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    float4 c = q[tid][col]; // expect: load 8-way wavefronts=32 ideal=4 instructions=1 total=32
    float4 d = qp[tid][col]; // expect: load conflict-free wavefronts=4 ideal=4 instructions=1 total=4
    dout[tid] = a + b;
    fout[tid] = make_float4(c.x + d.x, c.y + d.y, c.z + d.z, c.w + d.w);
}

void launch_column_pick(const double *d_din, const float4 *d_fin, double *d_dout, float4 *d_fout)
{
    column_pick<<<1, N>>>(d_din, d_fin, d_dout, d_fout, 5);
}
