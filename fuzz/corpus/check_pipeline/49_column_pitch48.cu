// Column read with a row pitch of 48 floats (sm_90): padding that is a multiple of 16 does not help.
// Block = 32 threads. tile[tid][c] on float[32][48]: word 48n + c, 48n % 32 = 0 (n even) or 16 (n odd)
// -> banks c and c+16, 16 words each -> 16-way, 16 wavefronts (ideal 1).
// Loop c = 0..31: 32 instructions, total 32 x 16 = 512.
// Row fill tile[r][tid] (+ tile[r][tid + 16] for tid < 16 covers columns 32..47):
//   tile[r][tid]: 32 consecutive words -> conflict-free; 32 iterations -> 32 / 32.
//   tile[r][32 + tid] for tid < 16: 16 lanes, consecutive -> conflict-free; 32 / 32.
// Source-level model. Measured on an H100 (nvcc 13.0 -O3): the unrolled c loop becomes 8 LDS.128
// (rows are 192 bytes, 16-byte aligned), each 4-way in every 8-lane phase -> 8 x 16 = 128 wavefronts.
#define ROWS 32
#define PITCH 48

__global__ void row_dot(const float *in, const float *w, float *out)
{
    __shared__ float tile[ROWS][PITCH];
    int tid = threadIdx.x;
    for (int r = 0; r < ROWS; ++r) {
        tile[r][tid] = in[r * PITCH + tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
        if (tid < PITCH - 32)
            tile[r][32 + tid] = in[r * PITCH + 32 + tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    }
    __syncthreads();
    float sum = 0.0f;
    for (int c = 0; c < 32; ++c)
        sum += tile[tid][c] * w[c]; // expect: load 16-way wavefronts=16 ideal=1 instructions=32 total=512
    out[tid] = sum;
}

void launch_row_dot(const float *d_in, const float *d_w, float *d_out)
{
    row_dot<<<1, ROWS>>>(d_in, d_w, d_out);
}
