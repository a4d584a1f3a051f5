// A __device__ helper with its own __shared__ array, indexed by threadIdx (sm_90).
// The calling kernel is launched with block (32, 8): warp w has threadIdx.y = w, x = 0..31.
// Block shape reaches the helper only through its caller, so instructions/total are not given here.
// stage[threadIdx.y][threadIdx.x] on float[8][32]: word 32y + x -> conflict-free, 1 wavefront.
// stage[threadIdx.x % 8][threadIdx.x / 8]: word 32(x % 8) + x / 8 -> bank x / 8 (0..3); the 8 lanes with
//   the same x / 8 touch 8 different words (one per row) -> 8-way, 8 wavefronts, ideal 1.
// (With no block information at all the result is the same: threadIdx.y is warp-uniform then.)
__device__ float stage_and_swap(float v)
{
    __shared__ float stage[8][32];
    stage[threadIdx.y][threadIdx.x] = v; // expect: store conflict-free wavefronts=1 ideal=1
    __syncthreads();
    float w = stage[threadIdx.x % 8][threadIdx.x / 8]; // expect: load 8-way wavefronts=8 ideal=1
    __syncthreads();
    return w;
}

__global__ void swap_kernel(const float *in, float *out)
{
    int i = blockIdx.x * 256 + threadIdx.y * 32 + threadIdx.x;
    out[i] = stage_and_swap(in[i]);
}

void launch_swap_kernel(const float *d_in, float *d_out, int blocks)
{
    swap_kernel<<<blocks, dim3(32, 8)>>>(d_in, d_out);
}
