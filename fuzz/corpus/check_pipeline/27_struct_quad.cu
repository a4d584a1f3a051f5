// Array of 16-byte structs (four floats) in shared memory (sm_90), member access only.
// Block = 32 threads. cache[tid].a is word 4n (.d = 4n+3): stride 4 -> 8 banks with 4 words each
// -> 4-way, 4 wavefronts, ideal 1.
struct Quad {
    float a, b, c, d;
};

__global__ void quad_first(const float *src, float *out)
{
    __shared__ struct Quad cache[32];
    int tid = threadIdx.x;
    cache[tid].a = src[tid]; // expect: store 4-way wavefronts=4 ideal=1 instructions=1 total=4
    cache[tid].d = src[32 + tid]; // expect: store 4-way wavefronts=4 ideal=1 instructions=1 total=4
    __syncthreads();
    out[tid] = cache[tid].a; // expect: load 4-way wavefronts=4 ideal=1 instructions=1 total=4
    out[32 + tid] = cache[tid].d; // expect: load 4-way wavefronts=4 ideal=1 instructions=1 total=4
}

void launch_quad_first(const float *d_src, float *d_out)
{
    quad_first<<<1, 32>>>(d_src, d_out);
}
