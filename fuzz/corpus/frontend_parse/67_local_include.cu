// banklint-args: -I fixtures/include
// A local header found through -I supplies TILE and the Sample struct (8 bytes, align 4).
// Block 32 (one warp).
// t[tid][0]: a column of a TILE x TILE float tile -> 32-way.
// samples[tid].weight: 4-byte loads at a stride of 8 bytes -> words 2*tid + 1, two per bank
//   -> 2-way.
#include "tile_config.cuh"
#include <cuda_runtime.h>

__global__ void with_header(float *out)
{
    __shared__ float t[TILE][TILE];
    __shared__ Sample samples[64];
    unsigned int tid = threadIdx.x;
    t[tid][0] = 1.0f; // expect: store 32-way wavefronts=32
    out[tid] = samples[tid].weight; // expect: load 2-way wavefronts=2
}

void launch(float *d)
{
    with_header<<<1, 32>>>(d);
}
