// Cooperative groups: cg::this_thread_block(), block.thread_rank(), cg::sync().
// Block 256 (8 warps), r = thread rank = threadIdx.x.
// buf[r / 32][r % 32]: row = warp, column = lane -> 32 consecutive words, conflict-free.
// buf[r % 8][r / 8]: lane l of warp w reads row l % 8, column 4w + l / 8 -> word
// 32*(l % 8) + 4w + l/8, bank 4w + l/8: four banks, each holding 8 different words -> 8-way,
// 8 wavefronts; 8 warps -> 64 per block.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void transpose_groups(float *out)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ float buf[8][32];
    unsigned int r = block.thread_rank();
    buf[r / 32][r % 32] = out[r]; // expect: store conflict-free wavefronts=1 instructions=8 total=8
    cg::sync(block);
    out[r] = buf[r % 8][r / 8]; // expect: load 8-way wavefronts=8 instructions=8 total=64
}

void launch(float *d)
{
    transpose_groups<<<1, 256>>>(d);
}
