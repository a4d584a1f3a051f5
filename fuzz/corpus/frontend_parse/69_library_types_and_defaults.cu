// Library types in signatures (cudaTextureObject_t, curandState), a clock_t shared array, a
// default argument, a functional cast after `*`, and a condition continued with a backslash.
// None of it stops banklint from reading the kernel. Block 32 (one warp).
// clocks[tid]: clock_t is 8 bytes: a warp of consecutive 8-byte stores is two phases of 16
//   lanes, each 32 consecutive words -> conflict-free, 2 wavefronts.
// s[tid][1]: column of a 32 x 32 float tile -> 32-way.
__global__ void sampler(float *out, cudaTextureObject_t tex, curandState *states, int *flags = NULL)
{
    __shared__ float s[32][32];
    __shared__ clock_t clocks[32];
    clock_t start = clock();
    curandState local = states[threadIdx.x];
    clocks[threadIdx.x] = start; // expect: store conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    if (threadIdx.x < 32 && \
        threadIdx.y < 32)
        s[threadIdx.x][1] = out[threadIdx.x] * float(0.5f); // expect: store 32-way wavefronts=32 instructions=1 total=32
}

void launch(float *out, cudaTextureObject_t tex, curandState *states)
{
    sampler<<<1, 32>>>(out, tex, states);
}
