// Warp-uniform values known only at run time: a __shared__ scalar, a value loaded at a
// uniform address, and a loop whose bound is a kernel parameter. Block 256 (8 warps).
// base is read by every lane (one word: a broadcast, conflict-free); s[base + tid] is a
//   uniform shift of consecutive words -> conflict-free, whatever base is.
// table[blockIdx.x] is loaded at a uniform address, so s[off + tid] is conflict-free too.
// The loop `stride < n` has an unknown bound: its first trips are analyzed. At stride 1,
//   pos = 2 * tid: a stride of 2 words -> 2-way (the worst of the trips analyzed; a lower
//   bound, so no per-block totals).
// __CUDA_ARCH__ follows --arch (sm_90 -> 900): the sm_80+ branch is the one analyzed.
__global__ void runtime_values(float *out, const int *table, int n)
{
    __shared__ float s[1024];
    __shared__ int base;
    if (threadIdx.x == 0)
        base = table[0]; // expect: store conflict-free wavefronts=1 instructions=1 total=1
    __syncthreads();
    s[base + threadIdx.x] = 1.0f; // expect: store conflict-free wavefronts=1; load conflict-free wavefronts=1 instructions=8 total=8
    int off = table[blockIdx.x];
    out[threadIdx.x] = s[off + threadIdx.x]; // expect: load conflict-free wavefronts=1 instructions=8 total=8
    for (int stride = 1; stride < n; stride <<= 1) {
        int pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
        s[pos] += s[pos + stride]; // expect: 2-way wavefronts=2
    }
#if __CUDA_ARCH__ >= 800
    __shared__ float t[32][32];
    t[threadIdx.x % 32][0] = 1.0f; // expect: store 32-way wavefronts=32
#endif
}

void launch(float *out, const int *table, int n)
{
    runtime_values<<<1, 256>>>(out, table, n);
}
