// banklint-args: --arch sm_10
// shared[BaseIndex + s * threadIdx.x] for s = 1, 2, 3, 4 on compute capability 1.0 (G80):
// 16 banks of 4 bytes, each half-warp (lanes 0-15, 16-31) is its own request; wavefronts of a warp
// instruction = steps of half-warp 0 + steps of half-warp 1.
// Block = 64 threads (launch below) = 2 warps.
// Fill: shared[k * THREADS + threadIdx.x]: each half-warp writes 16 consecutive words -> 1 step each,
//   2 wavefronts per instruction; 8 iterations x 2 warps = 16 instructions, 32 wavefronts.
// s=1: half-warp words B+n, n<16: 16 banks -> conflict-free, 1+1 = 2 wavefronts; 2 warps -> total 4.
// s=2: words B+2n span 32 words: 8 banks hit twice -> 2-way, 2+2 = 4; total 8.
// s=3: 3 is odd -> 16 different banks -> conflict-free, 2; total 4.
// s=4: words B+4n span 64 words: 4 banks hit 4 times -> 4-way, 4+4 = 8; total 16.
// Only odd strides are conflict-free on 1.x.
#define THREADS 64
#define SMEM_WORDS 512
#define BaseIndex 96

__global__ void strided_gather_g80(const float *in, float *out)
{
    __shared__ float shared[SMEM_WORDS];
    for (int k = 0; k < SMEM_WORDS / THREADS; ++k)
        shared[k * THREADS + threadIdx.x] = in[k * THREADS + threadIdx.x]; // expect: store conflict-free wavefronts=2 instructions=16 total=32
    __syncthreads();
    float a = shared[BaseIndex + 1 * threadIdx.x]; // expect: load conflict-free wavefronts=2 instructions=2 total=4
    float b = shared[BaseIndex + 2 * threadIdx.x]; // expect: load 2-way wavefronts=4 instructions=2 total=8
    float c = shared[BaseIndex + 3 * threadIdx.x]; // expect: load conflict-free wavefronts=2 instructions=2 total=4
    float d = shared[BaseIndex + 4 * threadIdx.x]; // expect: load 4-way wavefronts=8 instructions=2 total=16
    out[blockIdx.x * THREADS + threadIdx.x] = a + b + c + d;
}

void launch_strided_gather_g80(const float *d_in, float *d_out, int blocks)
{
    strided_gather_g80<<<blocks, THREADS>>>(d_in, d_out);
}
