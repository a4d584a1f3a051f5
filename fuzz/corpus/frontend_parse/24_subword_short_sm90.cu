// 2-byte accesses on sm_90. Block = 32 threads = 1 warp.
// h[tid]: bytes 2n -> words 0..15 -> conflict-free. h[2*tid]: byte 4n -> word n -> conflict-free.
// h[4*tid]: byte 8n -> word 2n -> 2 words per even bank -> 2-way, 2 wavefronts, ideal 1.
// t[32][65] (130-byte rows), column t[tid][c]: byte 130n + 2c. For even c the word is
//   floor(32.5n) + c/2: lanes 2m and 2m+1 -> words 65m + c/2 and 65m + 32 + c/2 -> same bank -> 2-way;
//   for odd c lanes 2m-1 and 2m pair up the same way -> 2-way. 64 iterations x 2 = total 128.
// u[32][64] (128-byte rows), column u[tid][c]: word 32n + c/2 -> one bank -> 32-way; total 64 x 32 = 2048.
// Row fills t[r][2*tid + k] / u[r][2*tid + k], k = 0,1: the 32 lanes write shorts 4 bytes apart, one
//   per word, 32 consecutive words -> conflict-free; 32 x 2 = 64 instructions, total 64.
#define ROWS 32

__global__ void short_strides(const short *in, short *out)
{
    __shared__ short h[4 * ROWS];
    __shared__ short t[ROWS][65];
    __shared__ short u[ROWS][64];
    int tid = threadIdx.x;
    for (int k = 0; k < 4; ++k)
        h[32 * k + tid] = in[32 * k + tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    for (int r = 0; r < ROWS; ++r) {
        for (int k = 0; k < 2; ++k) {
            t[r][2 * tid + k] = in[r * 64 + 2 * tid + k]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=64 total=64
            u[r][2 * tid + k] = in[r * 64 + 2 * tid + k]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=64 total=64
        }
    }
    __syncthreads();
    short a = h[tid]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    short b = h[2 * tid]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    short c = h[4 * tid]; // expect: load 2-way wavefronts=2 ideal=1 instructions=1 total=2
    int padded = 0;
    int plain = 0;
    for (int col = 0; col < 64; ++col) {
        padded += t[tid][col]; // expect: load 2-way wavefronts=2 ideal=1 instructions=64 total=128
        plain += u[tid][col]; // expect: load 32-way wavefronts=32 ideal=1 instructions=64 total=2048
    }
    out[tid] = (short)(a + b + c + padded + plain);
}

void launch_short_strides(const short *d_in, short *d_out)
{
    short_strides<<<1, 32>>>(d_in, d_out);
}
