// Templates: BLOCK and T are template parameters; the values come from the launches below.
// colsum<32, float> with block (32, 8): the row store tile[ty][tx] is conflict-free (8 warps,
// 8 instructions); the column load tile[tx][ty] puts lane l at word 32*l + ty, all in bank ty:
// 32-way, 32 wavefronts, 8 warps -> 256 per block.
// colsum<16, float> with block (16, 16): a warp spans two rows; the column load hits 8 distinct
// words in each of 4 banks (BANK_RULES.md: 8 per instruction). The worst instantiation (32) is
// reported. Row store: two rows of 16 consecutive floats = 32 consecutive words, conflict-free.
template <int BLOCK, typename T>
__global__ void colsum(T *out)
{
    __shared__ T tile[BLOCK][BLOCK];
    tile[threadIdx.y][threadIdx.x] = out[threadIdx.x]; // expect: store conflict-free wavefronts=1 instructions=8 total=8
    __syncthreads();
    out[threadIdx.y * BLOCK + threadIdx.x] = tile[threadIdx.x][threadIdx.y]; // expect: load 32-way wavefronts=32 instructions=8 total=256
}

void launch(float *d)
{
    colsum<32, float><<<1, dim3(32, 8)>>>(d);
    colsum<16, float><<<1, dim3(16, 16)>>>(d);
}
