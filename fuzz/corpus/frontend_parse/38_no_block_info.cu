// No launch site, no annotation, no --block-dim: banklint assumes blockDim.x is a multiple of 32, so it
// knows one warp's pattern (32 consecutive threadIdx.x values) but not how many warps run: no
// instructions/total here (sm_90).
// Stores s[threadIdx.x] and s[threadIdx.x + blockDim.x] (blockDim.x is warp-uniform): conflict-free.
// Load s[threadIdx.x * 2] (every second element of the concatenated pair): words 2n -> 2-way,
//   2 wavefronts, ideal 1.
__global__ void downsample_pair(const float *a, const float *b, float *out)
{
    __shared__ float s[512];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = a[i]; // expect: store conflict-free wavefronts=1 ideal=1
    s[threadIdx.x + blockDim.x] = b[i]; // expect: store conflict-free wavefronts=1 ideal=1
    __syncthreads();
    out[i] = s[threadIdx.x * 2]; // expect: load 2-way wavefronts=2 ideal=1
}
