// The up-sweep of 47 with one pad word every 32 words: element e lives at e + (e >> LOG_NUM_BANKS)
// (sm_90, 512 elements, 256 threads = 8 warps).
// Loads/stores of elements thid and thid + 256: padded word thid + thid/32 (resp. + 8): inside a warp
//   32 consecutive words -> conflict-free; 8 instructions, total 8.
// Up-sweep, per level (ai = offset(2 thid + 1) - 1, padded pa = ai + (ai >> 5); bi likewise):
//   offset 1: ai = 2t: words 2u + u/16 (+ uniform) -> evens, then odds -> 32 banks
//   offset 2: ai = 4t+1: bank (4t + 1 + t/8) % 32 -> 8 lanes per t/8 group, groups shifted by 1 -> distinct
//   offset 4: 8t + 3 + t/4 -> distinct;  offset 8: 16t + 7 + t/2 -> distinct
//   offset 16: 32t + 15 + t (16 lanes) -> banks 15 + t distinct;  offset 32: 64t + 31 + 2t (8 lanes)
//   offset 64: 4 lanes, 128: 2 lanes, 256: 1 lane -> distinct banks.
//   Every level conflict-free -> instructions = 20 (as in 47), total = 20.
// Block total (element N-1, padded word 511 + 15 = 526) read by thread 0: 1 instruction.
#define N 512
#define THREADS 256
#define LOG_NUM_BANKS 5
#define PADDED (N + (N >> LOG_NUM_BANKS))

__global__ void upsweep_padded(const float *in, float *out, float *sums)
{
    __shared__ float temp[PADDED];
    int thid = threadIdx.x;
    const float *src = in + blockIdx.x * N;
    int a = thid;
    int b = thid + N / 2;
    int pa0 = a + (a >> LOG_NUM_BANKS);
    int pb0 = b + (b >> LOG_NUM_BANKS);
    temp[pa0] = src[a]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    temp[pb0] = src[b]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    for (int offset = 1; offset < N; offset *= 2) {
        int d = N / (2 * offset);
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            int pa = ai + (ai >> LOG_NUM_BANKS);
            int pb = bi + (bi >> LOG_NUM_BANKS);
            temp[pb] += temp[pa]; // expect: conflict-free wavefronts=1 ideal=1 instructions=20 total=20
        }
    }
    __syncthreads();
    if (thid == 0)
        sums[blockIdx.x] = temp[(N - 1) + ((N - 1) >> LOG_NUM_BANKS)]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    out[blockIdx.x * N + a] = temp[pa0]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    out[blockIdx.x * N + b] = temp[pb0]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=8 total=8
}

void launch_upsweep_padded(const float *d_in, float *d_out, float *d_sums, int blocks)
{
    upsweep_padded<<<blocks, THREADS>>>(d_in, d_out, d_sums);
}
