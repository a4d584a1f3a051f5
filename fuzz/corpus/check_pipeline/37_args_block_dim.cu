// banklint-args: --block-dim 32x4
// No launch site and no annotation: the block shape (32, 4) = 128 threads = 4 warps comes from the
// --block-dim option in the header line (sm_90). Warp w has threadIdx.y = w, tx = 0..31.
// stage[tx][ty] on float[32][4] (column-major staging): word 4x + y -> lanes x, x+8, x+16, x+24 share
//   a bank -> 4-way, 4 wavefronts; 4 warps -> total 16.
// stage_pad[tx][ty] on float[32][5]: word 5x + y, 5 is odd -> 32 banks -> conflict-free; total 4.
// Reads stage[tx][3 - ty] / stage_pad[tx][3 - ty]: same shapes (3 - ty is warp-uniform).
__global__ void stage_columns(const float *in, float *out)
{
    __shared__ float stage[32][4];
    __shared__ float stage_pad[32][5];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    float v = in[blockIdx.x * 128 + ty * 32 + tx];
    stage[tx][ty] = v; // expect: store 4-way wavefronts=4 ideal=1 instructions=4 total=16
    stage_pad[tx][ty] = v; // expect: store conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    __syncthreads();
    float a = stage[tx][3 - ty]; // expect: load 4-way wavefronts=4 ideal=1 instructions=4 total=16
    float b = stage_pad[tx][3 - ty]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    out[blockIdx.x * 128 + ty * 32 + tx] = a - b;
}
