// banklint-args: -D PADDED -D ROWS=16
// #if/#ifdef/#else with -D from the command line: PADDED selects the padded tile, ROWS=16
// overrides the default 8 rows. Block (32, ROWS) = (32, 16) = 16 warps.
// With the [32][33] tile the column read tile[tx][ty] is conflict-free (stride 33).
// The #else branch (unpadded, 32-way) is not compiled, so it is not analyzed.
#ifndef ROWS
#define ROWS 8
#endif

#ifdef PADDED
#define PITCH (32 + 1)
#else
#define PITCH 32
#endif

#if ROWS > 8 && defined(PADDED)
__global__ void cond_tile(float *out)
{
    __shared__ float tile[32][PITCH];
    tile[threadIdx.y][threadIdx.x] = out[threadIdx.x]; // expect: store conflict-free wavefronts=1 instructions=16 total=16
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x][threadIdx.y]; // expect: load conflict-free wavefronts=1 instructions=16 total=16
}
#else
__global__ void cond_tile(float *out)
{
    __shared__ float tile[32][32];
    out[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
#endif

void launch(float *d)
{
    cond_tile<<<1, dim3(32, ROWS)>>>(d);
}
