// 2-D 5-point stencil on a 16x16 block with an 18x18 shared tile (1-cell halo) (sm_90).
// 8 warps; warp w holds rows ty = 2w, 2w+1 with tx = 0..15.
// Interior tile[ty + 1 + dy][tx + 1 + dx]: word 18(ty+1+dy) + tx + 1 + dx. Relative to the warp's first
//   word the 32 lanes touch offsets {0..15} and {18..33}: offsets 0,1 and 32,33 share banks -> 2-way,
//   2 wavefronts, for every uniform shift (dx, dy). 8 warps -> total 16 per site.
// Halo rows: if (ty == 0) tile[0][tx + 1] -> warp 0, 16 lanes, consecutive -> conflict-free, 1 / 1;
//   if (ty == 15) tile[17][tx + 1] -> warp 7 only -> 1 / 1.
// Halo columns: if (tx == 0) tile[ty + 1][0] -> 2 lanes per warp, words 18 apart -> conflict-free,
//   8 instructions, total 8; same for tile[ty + 1][17] under tx == 15.
#define B 16

__global__ void stencil2d(const float *in, float *out, int width)
{
    __shared__ float tile[B + 2][B + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * B + tx + 1;
    int y = blockIdx.y * B + ty + 1;
    tile[ty + 1][tx + 1] = in[y * width + x]; // expect: store 2-way wavefronts=2 ideal=1 instructions=8 total=16
    if (ty == 0)
        tile[0][tx + 1] = in[(y - 1) * width + x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    if (ty == B - 1)
        tile[B + 1][tx + 1] = in[(y + 1) * width + x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    if (tx == 0)
        tile[ty + 1][0] = in[y * width + x - 1]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    if (tx == B - 1)
        tile[ty + 1][B + 1] = in[y * width + x + 1]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=8 total=8
    __syncthreads();
    float c = tile[ty + 1][tx + 1]; // expect: load 2-way wavefronts=2 ideal=1 instructions=8 total=16
    float n = tile[ty][tx + 1]; // expect: load 2-way wavefronts=2 ideal=1 instructions=8 total=16
    float s = tile[ty + 2][tx + 1]; // expect: load 2-way wavefronts=2 ideal=1 instructions=8 total=16
    float w = tile[ty + 1][tx]; // expect: load 2-way wavefronts=2 ideal=1 instructions=8 total=16
    float e = tile[ty + 1][tx + 2]; // expect: load 2-way wavefronts=2 ideal=1 instructions=8 total=16
    out[y * width + x] = 0.5f * c + 0.125f * (n + s + w + e);
}

void launch_stencil2d(const float *d_in, float *d_out, int width)
{
    dim3 threads(B, B);
    dim3 grid((width - 2) / B, (width - 2) / B);
    stencil2d<<<grid, threads>>>(d_in, d_out, width);
}
