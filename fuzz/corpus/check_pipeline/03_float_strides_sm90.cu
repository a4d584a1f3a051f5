// shared[BaseIndex + s * threadIdx.x] for s = 1, 2, 3, 4 on sm_90 (32 banks, whole warp in one phase).
// BaseIndex is a kernel parameter: warp-uniform, it only rotates the banks, so the degree stays gcd(s, 32).
// Block = 64 threads (#define'd, launch below) = 2 warps.
// Fill: shared[k * THREADS + threadIdx.x], 8 iterations, 32 consecutive words per warp
//   -> conflict-free, instructions = 2 warps x 8 = 16, total = 16.
// s=1: words B+n, 32 banks -> conflict-free, 1 wavefront; 2 warps -> total 2.
// s=2: words B+2n span 64 words -> 16 banks hit twice -> 2-way, 2 wavefronts; total 4.
// s=3: gcd(3,32)=1 -> 32 different banks -> conflict-free; total 2.
// s=4: words B+4n span 128 words -> 8 banks hit 4 times -> 4-way, 4 wavefronts; total 8.
// ideal = ceil(32 unique words / 32) = 1 for all.
#define THREADS 64
#define SMEM_WORDS 512

__global__ void strided_gather(const float *in, float *out, int BaseIndex)
{
    __shared__ float shared[SMEM_WORDS];
    for (int k = 0; k < SMEM_WORDS / THREADS; ++k)
        shared[k * THREADS + threadIdx.x] = in[k * THREADS + threadIdx.x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=16 total=16
    __syncthreads();
    float a = shared[BaseIndex + 1 * threadIdx.x]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=2 total=2
    float b = shared[BaseIndex + 2 * threadIdx.x]; // expect: load 2-way wavefronts=2 ideal=1 instructions=2 total=4
    float c = shared[BaseIndex + 3 * threadIdx.x]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=2 total=2
    float d = shared[BaseIndex + 4 * threadIdx.x]; // expect: load 4-way wavefronts=4 ideal=1 instructions=2 total=8
    out[blockIdx.x * THREADS + threadIdx.x] = a + b + c + d;
}

int main(void)
{
    float *d_in;
    float *d_out;
    cudaMalloc((void **)&d_in, SMEM_WORDS * sizeof(float));
    cudaMalloc((void **)&d_out, 4 * THREADS * sizeof(float));
    strided_gather<<<4, THREADS>>>(d_in, d_out, 100);
    cudaDeviceSynchronize();
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
