// One kernel, two launch shapes (sm_90): <<<g, 32>>> and <<<g, dim3(16, 2)>>>. The reported verdict and
// wavefronts are the worst shape's; instructions/total are left out on purpose (they differ per shape).
// buf[threadIdx.y][threadIdx.x] on float[2][32]: word 32y + x.
//   block 32:     y = 0, x = 0..31 -> 32 consecutive words -> conflict-free, 1 wavefront.
//   block (16,2): one warp holds x = 0..15 for y = 0 and y = 1 -> words x and 32 + x share bank x
//                 -> 2-way, 2 wavefronts.  Worst: 2-way, wavefronts=2.
// line[i], line[i + 32] with i = y * blockDim.x + x = 0..31 in both shapes: conflict-free.
// line[threadIdx.x * 2]: block 32: words 0..62 even -> 2-way; block (16,2): x < 16 -> words 0..30,
//   each read by the y = 0 and y = 1 lanes (same word, multicast) -> conflict-free. Worst: 2-way.
__global__ void row_mix(const float *in, float *out)
{
    __shared__ float buf[2][32];
    __shared__ float line[64];
    int i = threadIdx.y * blockDim.x + threadIdx.x;
    buf[threadIdx.y][threadIdx.x] = in[blockIdx.x * 64 + i]; // expect: store 2-way wavefronts=2 ideal=1
    line[i] = in[blockIdx.x * 64 + i]; // expect: store conflict-free wavefronts=1 ideal=1
    line[i + 32] = in[blockIdx.x * 64 + 32 + i]; // expect: store conflict-free wavefronts=1 ideal=1
    __syncthreads();
    float even = line[threadIdx.x * 2]; // expect: load 2-way wavefronts=2 ideal=1
    out[blockIdx.x * 64 + i] = even + buf[threadIdx.y][threadIdx.x]; // expect: load 2-way wavefronts=2 ideal=1
}

void launch_row_mix(const float *d_in, float *d_out, int blocks)
{
    row_mix<<<blocks, 32>>>(d_in, d_out);
    row_mix<<<blocks, dim3(16, 2)>>>(d_in, d_out);
}
