// Shared memory reached through pointers. Block 32 (one warp).
// row = &tile[tid][0]: row[3] is column 3 of a 32-float row pitch -> word 32*tid + 3, all in
//   bank 3: 32-way.
// a = (float *)smem: a[2 * tid] is a float stride of 2 words -> 2-way.
// b = (int *)&a[64]: b[tid] starts 256 bytes in, consecutive words -> conflict-free.
// v = (float4 *)smem: v[tid].x reads 4 bytes at stride 16 bytes -> words 4*tid: banks 0, 4,
//   ..., 28, four words each -> 4-way.
// *(a + tid): consecutive words -> conflict-free.
// warp_pair(a, tid) reads s[i] and s[i + 32] through a volatile pointer parameter: each is 32
//   consecutive words -> conflict-free.
__device__ float warp_pair(volatile float *s, int i)
{
    return s[i] + s[i + 32]; // expect: load conflict-free wavefronts=1
}

__global__ void pointers(float *out)
{
    extern __shared__ char smem[];
    __shared__ float tile[32][32];
    unsigned int tid = threadIdx.x;
    float *row = &tile[tid][0];
    float *a = (float *)smem;
    int *b = (int *)&a[64];
    float4 *v = reinterpret_cast<float4 *>(smem);
    row[3] = 4.0f; // expect: store 32-way wavefronts=32 instructions=1 total=32
    a[2 * tid] = 1.0f; // expect: store 2-way wavefronts=2 instructions=1 total=2
    b[tid] = 2; // expect: store conflict-free wavefronts=1 instructions=1 total=1
    float x = v[tid].x; // expect: load 4-way wavefronts=4 instructions=1 total=4
    float y = *(a + tid); // expect: load conflict-free wavefronts=1 instructions=1 total=1
    out[tid] = x + y + warp_pair(a, tid);
}

void launch(float *d)
{
    pointers<<<1, 32, 4096>>>(d);
}
