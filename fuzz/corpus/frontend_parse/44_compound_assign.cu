// Compound assignments and ++ on shared elements (sm_90). Block = 32 threads = 1 warp.
// "a[i] += x" and "a[i]++" are one load AND one store of a[i]; "a[i] += a[j]" is two loads + one store.
// acc[tid] = 0 / acc[tid + 32] = 0: conflict-free stores. counts[k * 32 + tid] = 0, k < 4: conflict-free,
//   4 instructions.
// acc[tid] += in[...]: load + store of word n, conflict-free.
// counts[tid * 2]++: words 2n -> 2-way (load and store), 2 wavefronts.
// ++counts[tid * 4 + 1]: words 4n + 1 -> 4-way (load and store), 4 wavefronts.
// acc[tid] += acc[tid + 32]: loads of words n and 32+n, store of n -> all conflict-free.
// half[tid] = 0.5f * acc[2 * tid]: the load is stride 2 -> 2-way; the store to half[tid] is stride 1
//   -> conflict-free (clauses split by kind).
#define N 32

__global__ void accumulate(const float *in, float *out, int *hits)
{
    __shared__ float acc[2 * N];
    __shared__ float half[N];
    __shared__ int counts[4 * N];
    int tid = threadIdx.x;
    acc[tid] = 0.0f; // expect: store conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    acc[tid + N] = 0.0f; // expect: store conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    for (int k = 0; k < 4; ++k)
        counts[k * N + tid] = 0; // expect: store conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    __syncthreads();
    acc[tid] += in[tid]; // expect: conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    acc[tid + N] += in[tid + N]; // expect: conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    counts[tid * 2]++; // expect: 2-way wavefronts=2 ideal=1 instructions=1 total=2
    ++counts[tid * 4 + 1]; // expect: 4-way wavefronts=4 ideal=1 instructions=1 total=4
    __syncthreads();
    acc[tid] += acc[tid + N]; // expect: conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    __syncthreads();
    half[tid] = 0.5f * acc[2 * tid]; // expect: load 2-way wavefronts=2 ideal=1 instructions=1 total=2; store conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    __syncthreads();
    out[tid] = half[tid]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    hits[tid] = counts[tid * 2]; // expect: load 2-way wavefronts=2 ideal=1 instructions=1 total=2
    hits[N + tid] = counts[tid * 4 + 1]; // expect: load 4-way wavefronts=4 ideal=1 instructions=1 total=4
}

void launch_accumulate(const float *d_in, float *d_out, int *d_hits)
{
    accumulate<<<1, N>>>(d_in, d_out, d_hits);
}
