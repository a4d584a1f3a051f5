// banklint-args: --arch sm_10
// 8-bit accesses on compute capability 1.0: 16 banks x 4 bytes, each half-warp its own request.
// On 1.x lanes that touch DIFFERENT bytes of one 32-bit word conflict (only one broadcast word is
// served per step, every other bank serves one address per step).
// Block = 32 threads = 1 warp (launch below). BaseIndex = 64 is a multiple of 4 (word aligned).
// Fill s[4*tid + k] and s[128 + 4*tid + k]: in a half-warp lane n touches word n (or 32+n) -> 16
//   banks, one address each -> 1 step per half-warp, 2 wavefronts; 4 iterations -> total 8.
// s[BaseIndex + tid]: half-warp 0 reads bytes 64..79 = words 16..19 (banks 0..3), 4 different bytes
//   in each word -> 4 steps; half-warp 1: bytes 80..95, words 20..23, also 4 -> 4-way, 8 wavefronts.
// s[BaseIndex + 4*tid]: half-warp reads words 16..31 (or 32..47), one byte each, 16 banks
//   -> conflict-free, 1 + 1 = 2 wavefronts.
#define BaseIndex 64

__global__ void byte_lookup(const char *in, char *out)
{
    __shared__ char s[256];
    int tid = threadIdx.x;
    for (int k = 0; k < 4; ++k) {
        s[4 * tid + k] = in[4 * tid + k]; // expect: store conflict-free wavefronts=2 instructions=4 total=8
        s[128 + 4 * tid + k] = in[128 + 4 * tid + k]; // expect: store conflict-free wavefronts=2 instructions=4 total=8
    }
    __syncthreads();
    char packed = s[BaseIndex + tid]; // expect: load 4-way wavefronts=8 instructions=1 total=8
    char spread = s[BaseIndex + 4 * tid]; // expect: load conflict-free wavefronts=2 instructions=1 total=2
    out[tid] = packed + spread;
}

void launch_byte_lookup(const char *d_in, char *d_out)
{
    byte_lookup<<<1, 32>>>(d_in, d_out);
}
