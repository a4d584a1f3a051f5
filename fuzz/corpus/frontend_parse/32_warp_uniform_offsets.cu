// Warp-uniform but statically unknown terms (sm_90): blockIdx.x and kernel parameters are the same for
// every lane of a warp, so they move all lanes by the same number of words; on 32 banks that only
// rotates the bank numbers and the distinct-words-per-bank count is unchanged.
// Block = 32 threads (launch below) = 1 warp.
// s[blockIdx.x * 32 + threadIdx.x]: 32 consecutive words -> conflict-free, 1 wavefront.
// s[offset + threadIdx.x]: conflict-free, 1 wavefront.
// s[offset + 2 * threadIdx.x]: stride 2 -> 2-way, 2 wavefronts (whatever offset is).
#define WORDS 1024

__global__ void windowed(const float *in, float *out, int offset)
{
    __shared__ float s[WORDS];
    for (int k = 0; k < WORDS / 32; ++k)
        s[k * 32 + threadIdx.x] = in[k * 32 + threadIdx.x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    __syncthreads();
    float a = s[blockIdx.x * 32 + threadIdx.x]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    float b = s[offset + threadIdx.x]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    float c = s[offset + 2 * threadIdx.x]; // expect: load 2-way wavefronts=2 ideal=1 instructions=1 total=2
    out[blockIdx.x * 32 + threadIdx.x] = a + b + c;
}

void launch_windowed(const float *d_in, float *d_out)
{
    windowed<<<16, 32>>>(d_in, d_out, 300);
}
