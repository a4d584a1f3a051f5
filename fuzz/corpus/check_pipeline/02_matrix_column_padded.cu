// Same column write as 01, but rows are padded to 33 ints (sm_90).
// Block = 32 threads = 1 warp (launch below).
// Row fill matrix[r][threadIdx.x]: word 33r + x, 32 consecutive words -> conflict-free,
//   32 iterations: instructions=32, total=32.
// matrix[threadIdx.x][4]: word 33x + 4, bank (x + 4) % 32 -> 32 different banks
//   -> conflict-free, wavefronts=1, ideal=1.
#define N 32

__global__ void clear_column_four_padded(const int *in, int *out)
{
    __shared__ int matrix[N][N + 1];
    for (int r = 0; r < N; ++r)
        matrix[r][threadIdx.x] = in[r * N + threadIdx.x]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=32 total=32
    __syncthreads();
    matrix[threadIdx.x][4] = 0; // expect: store conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    __syncthreads();
    for (int r = 0; r < N; ++r)
        out[r * N + threadIdx.x] = matrix[r][threadIdx.x]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=32 total=32
}

void launch_clear_column_four_padded(const int *d_in, int *d_out)
{
    clear_column_four_padded<<<1, 32>>>(d_in, d_out);
}
