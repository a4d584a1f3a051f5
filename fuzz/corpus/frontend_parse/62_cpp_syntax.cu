// C++ around a kernel: constexpr, extern "C", __launch_bounds__, __restrict__, __align__,
// static_cast, functional casts, references, auto, bool/true/nullptr, #pragma unroll,
// asm volatile, a __forceinline__ device function. None of it changes the accesses:
// block (32, 8): s[ty][tx] is a row store (conflict-free, 8 warps);
// s[tx][k] reads a column of rows padded to 33 words: word 33*tx + k, banks (tx + k) % 32
// all different -> conflict-free; 4 unrolled trips x 8 warps = 32 instructions.
constexpr int kTile = 32;

__device__ __forceinline__ float twice(const float &v)
{
    return 2.0f * v;
}

extern "C" __global__ void __launch_bounds__(256) cpp_kernel(const float *__restrict__ in, float *__restrict__ out, bool flag)
{
    __shared__ __align__(16) float s[kTile][kTile + 1];
    auto tx = static_cast<int>(threadIdx.x);
    int ty = int(threadIdx.y);
    const int &col = tx;
    s[ty][col] = in[ty * kTile + tx]; // expect: store conflict-free wavefronts=1 instructions=8 total=8
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k)
        acc += s[tx][k]; // expect: load conflict-free wavefronts=1 instructions=32 total=32
    unsigned int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    if (flag && out != nullptr)
        out[ty * kTile + tx] = twice(acc) + (true ? 1.0f : 0.0f) + float(lane);
}

void launch(const float *in, float *out)
{
    cpp_kernel<<<1, dim3(kTile, 8)>>>(in, out, true);
}
