// Work-efficient scan, up-sweep only, 512 elements per block, 256 threads = 8 warps (sm_90).
// Load/store of two elements per thread at 2*thid and 2*thid+1: word stride 2 -> 2-way, 2 wavefronts;
//   8 warps -> 8 instructions, total 16.
// Up-sweep: offset = 1, 2, ..., 256 (9 iterations), d = 512 / (2 offset) active threads (thid < d).
//   ai = offset(2 thid + 1) - 1, bi = ai + offset: word stride 2*offset per lane (bi is a uniform shift).
//   offset 1:  256 thr, 8 warps, stride 2  -> 2-way:  8 x 2  = 16
//   offset 2:  128 thr, 4 warps, stride 4  -> 4-way:  4 x 4  = 16
//   offset 4:  64 thr,  2 warps, stride 8  -> 8-way:  2 x 8  = 16
//   offset 8:  32 thr,  1 warp,  stride 16 -> banks 7/23, 16 words each -> 16-way: 16
//   offset 16: 16 lanes, stride 32 -> one bank -> 16-way: 16
//   offset 32: 8 lanes -> 8;  64: 4;  128: 2;  256: 1
//   temp[bi] += temp[ai] (two loads + one store, same numbers): instructions = 8+4+2+1+1+1+1+1+1 = 20,
//   total = 16x5 + 8 + 4 + 2 + 1 = 95, worst 16-way (16 wavefronts, ideal 1).
// Block total temp[N - 1] read by thread 0: 1 instruction.
// Source-level model. Measured on an H100 (nvcc 13.0 -O3): nvcc fuses the adjacent pairs temp[2*thid],
// temp[2*thid+1] (and ai/bi at offset 1 of the fully unrolled loop) into conflict-free 8-byte
// LDS.64/STS.64, giving 41 load / 28 store instructions per block instead of 57 / 36.
#define N 512
#define THREADS 256

__global__ void upsweep_naive(const float *in, float *out, float *sums)
{
    __shared__ float temp[N];
    int thid = threadIdx.x;
    const float *src = in + blockIdx.x * N;
    temp[2 * thid] = src[2 * thid]; // expect: store 2-way wavefronts=2 ideal=1 instructions=8 total=16
    temp[2 * thid + 1] = src[2 * thid + 1]; // expect: store 2-way wavefronts=2 ideal=1 instructions=8 total=16
    for (int offset = 1; offset < N; offset *= 2) {
        int d = N / (2 * offset);
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            temp[bi] += temp[ai]; // expect: 16-way wavefronts=16 ideal=1 instructions=20 total=95
        }
    }
    __syncthreads();
    if (thid == 0)
        sums[blockIdx.x] = temp[N - 1]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    out[blockIdx.x * N + 2 * thid] = temp[2 * thid]; // expect: load 2-way wavefronts=2 ideal=1 instructions=8 total=16
    out[blockIdx.x * N + 2 * thid + 1] = temp[2 * thid + 1]; // expect: load 2-way wavefronts=2 ideal=1 instructions=8 total=16
}

void launch_upsweep_naive(const float *d_in, float *d_out, float *d_sums, int blocks)
{
    upsweep_naive<<<blocks, THREADS>>>(d_in, d_out, d_sums);
}
