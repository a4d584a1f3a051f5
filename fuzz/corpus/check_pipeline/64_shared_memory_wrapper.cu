// NVIDIA's SharedMemory<T> pattern: a class whose conversion operator returns an
// extern __shared__ array. T = float from the launch; block 256 = 8 warps.
// sdata[tid]: consecutive words, 8 instructions.
// Sequential-addressing reduction: s = 128, 64, ..., 1; `if (tid < s)` -> active warps
// 4, 2, 1, 1, 1, 1, 1, 1 = 12 instructions, each conflict-free (consecutive words).
template <class T>
struct SharedMemory {
    __device__ inline operator T *()
    {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};

template <class T>
__global__ void reduce_wrapped(const T *g_in, T *g_out)
{
    T *sdata = SharedMemory<T>();
    unsigned int tid = threadIdx.x;
    sdata[tid] = g_in[tid]; // expect: store conflict-free wavefronts=1 instructions=8 total=8
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s]; // expect: conflict-free wavefronts=1 instructions=12 total=12
        __syncthreads();
    }
    if (tid == 0)
        g_out[0] = sdata[0]; // expect: load conflict-free wavefronts=1 instructions=1 total=1
}

void launch(const float *in, float *out)
{
    reduce_wrapped<float><<<1, 256, 256 * sizeof(float)>>>(in, out);
}
