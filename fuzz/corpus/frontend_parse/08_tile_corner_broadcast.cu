// Broadcast: 31 lanes read the same element tile[31][31] (sm_90). Block = 32 threads = 1 warp.
// Row fill tile[r][threadIdx.x]: 32 consecutive words -> conflict-free, 32 iterations -> total 32.
// tile[31][31] under if (threadIdx.x < 31): 31 active lanes, one word -> conflict-free (same-word
//   reads are multicast), 1 wavefront, ideal 1; 1 instruction.
// tile[threadIdx.x][31] under the same if: word 32x + 31 -> bank 31 for 31 lanes -> 31-way.
#define N 32

__global__ void scale_by_corner(const float *in, float *out)
{
    __shared__ float tile[N][N];
    for (int r = 0; r < N; ++r)
        tile[r][threadIdx.x] = in[r * N + threadIdx.x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    __syncthreads();
    if (threadIdx.x < 31) {
        float pivot = tile[31][31]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
        float last = tile[threadIdx.x][31]; // expect: load 31-way wavefronts=31 ideal=1 instructions=1 total=31
        out[threadIdx.x] = last / pivot;
    }
}

void launch_scale_by_corner(const float *d_in, float *d_out)
{
    scale_by_corner<<<1, N>>>(d_in, d_out);
}
