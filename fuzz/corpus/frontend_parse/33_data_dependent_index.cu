// Data-dependent shared-memory index (sm_90): s[perm[threadIdx.x]] depends on values loaded from
// global memory, so the bank pattern cannot be known statically -> unknown. The same holds for an index
// computed from such a value (bucket = key & 63). The other accesses are plain stride 1.
// Block = 64 threads = 2 warps.
#define THREADS 64

__global__ void permute(const float *in, const int *perm, const int *keys, float *out, int *owner)
{
    __shared__ float s[THREADS];
    __shared__ int buckets[THREADS];
    int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * THREADS + tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=2 total=2
    buckets[tid] = -1; // expect: store conflict-free wavefronts=1 ideal=1 instructions=2 total=2
    __syncthreads();
    float v = s[perm[tid]]; // expect: load unknown
    int bucket = keys[blockIdx.x * THREADS + tid] & 63;
    buckets[bucket] = tid; // expect: store unknown
    __syncthreads();
    out[blockIdx.x * THREADS + tid] = v;
    owner[blockIdx.x * THREADS + tid] = buckets[tid]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=2 total=2
}

void launch_permute(const float *d_in, const int *d_perm, const int *d_keys, float *d_out, int *d_owner, int n)
{
    permute<<<n / THREADS, THREADS>>>(d_in, d_perm, d_keys, d_out, d_owner);
}
