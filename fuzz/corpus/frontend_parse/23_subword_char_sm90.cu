// 1-byte accesses on sm_90: lanes reading different bytes of one word do not conflict; what counts is
// distinct 4-byte words per bank. Block = 32 threads = 1 warp.
// Fill s[32k + tid]: 32 bytes = 8 words -> conflict-free; 128 iterations -> instructions=128, total=128.
// s[tid]: bytes 0..31 = words 0..7 -> conflict-free, 1 wavefront, ideal 1.
// s[8*tid]: byte 8n -> word 2n, words 0..62 -> 16 banks with 2 words each -> 2-way, 2 wavefronts, ideal 1.
// s[128*tid]: word 32n -> bank 0, 32 words -> 32-way, 32 wavefronts, ideal 1.
#define BYTES 4096

__global__ void byte_strides(const char *in, char *out)
{
    __shared__ char s[BYTES];
    int tid = threadIdx.x;
    for (int k = 0; k < BYTES / 32; ++k)
        s[32 * k + tid] = in[32 * k + tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=128 total=128
    __syncthreads();
    char a = s[tid]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    char b = s[8 * tid]; // expect: load 2-way wavefronts=2 ideal=1 instructions=1 total=2
    char c = s[128 * tid]; // expect: load 32-way wavefronts=32 ideal=1 instructions=1 total=32
    out[tid] = a + b + c;
}

void launch_byte_strides(const char *d_in, char *d_out)
{
    byte_strides<<<1, 32>>>(d_in, d_out);
}
