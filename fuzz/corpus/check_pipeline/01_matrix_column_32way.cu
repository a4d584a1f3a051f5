// Column write into an unpadded 32x32 int matrix (default arch sm_90: 32 banks x 4 bytes).
// Block = 32 threads (launch below) = 1 warp.
// Row fill matrix[r][threadIdx.x]: word 32r + x, 32 consecutive words -> conflict-free,
//   32 iterations x 1 warp: instructions=32, total=32.
// matrix[threadIdx.x][4]: word 32x + 4 -> bank 4 for all 32 lanes, 32 distinct words
//   -> 32-way, wavefronts=32; ideal = ceil(32 unique words / 32) = 1.
// Row read matrix[r][threadIdx.x]: conflict-free, 32 instructions, 32 wavefronts.
#define N 32

__global__ void clear_column_four(const int *in, int *out)
{
    __shared__ int matrix[N][N];
    for (int r = 0; r < N; ++r)
        matrix[r][threadIdx.x] = in[r * N + threadIdx.x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    __syncthreads();
    matrix[threadIdx.x][4] = 0; // expect: store 32-way wavefronts=32 ideal=1 instructions=1 total=32
    __syncthreads();
    for (int r = 0; r < N; ++r)
        out[r * N + threadIdx.x] = matrix[r][threadIdx.x]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=32 total=32
}

void launch_clear_column_four(const int *d_in, int *d_out)
{
    clear_column_four<<<1, 32>>>(d_in, d_out);
}
