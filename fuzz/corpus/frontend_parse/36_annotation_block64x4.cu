// No launch site in this file: the block shape comes from the annotation comment on the line directly
// before the kernel, block(64, 4) = 256 threads = 8 warps (sm_90). Warp w: threadIdx.y = w / 2,
// threadIdx.x = 32 * (w % 2) + 0..31.
// rows[ty][tx] on float[4][64]: word 64y + x -> 32 consecutive words -> conflict-free; 8 instructions.
// cols[tx][ty] on float[64][4]: word 4x + y -> lanes x and x+8, x+16, x+24 share a bank -> 4-way,
//   4 wavefronts; 8 warps -> total 32.
// colp[tx][ty] on float[64][5]: word 5x + y, 5 is odd -> 32 banks for 32 consecutive x -> conflict-free.
// banklint: block(64, 4)
__global__ void quad_rows_to_cols(const float *in, float *out)
{
    __shared__ float rows[4][64];
    __shared__ float cols[64][4];
    __shared__ float colp[64][5];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    float v = in[blockIdx.x * 256 + ty * 64 + tx];
    rows[ty][tx] = v; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    cols[tx][ty] = v; // expect: store 4-way wavefronts=4 ideal=1 instructions=8 total=32
    colp[tx][ty] = v; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    __syncthreads();
    float r = rows[ty][tx]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    float c = cols[tx][ty]; // expect: load 4-way wavefronts=4 ideal=1 instructions=8 total=32
    float p = colp[tx][ty]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    out[blockIdx.x * 256 + ty * 64 + tx] = r + c + p;
}
