// A device-function template called with explicit arguments, and a kernel template launched
// with a block shape that is only known at run time. Both get their template values.
// body<32>: s[tid][0] on a 32 x 32 tile with one warp (block 32) -> 32-way.
// tiled<16>: no block shape (a runtime dim3), so one warp of a block whose x extent is a
//   multiple of 32: lane l writes s[l][0] on a 16 x 16 tile, word 16 * l -> banks 0 and 16,
//   16 words each -> 16-way.
template <int BS>
__device__ void body(float *o)
{
    __shared__ float s[BS][BS];
    s[threadIdx.x][0] = o[threadIdx.x]; // expect: store 32-way wavefronts=32 instructions=1 total=32
}

extern "C" __global__ void entry32(float *o)
{
    body<32>(o);
}

template <int BS>
__global__ void tiled(float *out)
{
    __shared__ float s[BS][BS];
    s[threadIdx.x % 32][0] = out[threadIdx.x]; // expect: store 16-way wavefronts=16
}

void host(float *p, int n)
{
    entry32<<<1, 32>>>(p);
    dim3 threads(n, n);
    tiled<16><<<1, threads>>>(p);
}
