// Array of 8-byte structs (two floats) in shared memory (sm_90), member access only.
// Block = 64 threads = 2 warps. cache[tid].a is word 2n: stride 2 -> 2 words in each of 16 banks
// -> 2-way, 2 wavefronts, ideal 1; 2 warps -> instructions=2, total=4 per site.
// cache[THREADS - 1 - tid].b is word 2(63 - n) + 1: stride -2 -> also 2-way. (Writing .b of the
// mirrored element keeps nvcc from fusing a thread's .a/.b stores into one 8-byte store.)
#define THREADS 64

struct Pair {
    float a, b;
};

__global__ void pair_sum(const float *xa, const float *xb, float *out)
{
    __shared__ struct Pair cache[THREADS];
    int tid = threadIdx.x;
    cache[tid].a = xa[blockIdx.x * THREADS + tid]; // expect: store 2-way wavefronts=2 ideal=1 instructions=2 total=4
    cache[THREADS - 1 - tid].b = xb[blockIdx.x * THREADS + tid]; // expect: store 2-way wavefronts=2 ideal=1 instructions=2 total=4
    __syncthreads();
    float first = cache[tid].a; // expect: load 2-way wavefronts=2 ideal=1 instructions=2 total=4
    out[blockIdx.x * THREADS + tid] = first;
}

void launch_pair_sum(const float *d_xa, const float *d_xb, float *d_out, int n)
{
    pair_sum<<<n / THREADS, THREADS>>>(d_xa, d_xb, d_out);
}
