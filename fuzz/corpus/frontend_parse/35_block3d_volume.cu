// 3-D thread block (8, 4, 4) = 128 threads = 4 warps (sm_90). Linear id = x + 8y + 32z, so warp w
// is exactly the plane threadIdx.z = w (x = 0..7, y = 0..3).
// vol[z][y][x] on float[4][4][8]: word 32z + 8y + x -> 32 consecutive words -> conflict-free;
//   4 instructions, total 4.
// volt[x][y][z] on float[8][4][4]: word 16x + 4y + z; even x -> bank 4y + z, odd x -> 16 + 4y + z,
//   4 x-values per bank -> 4-way, 4 wavefronts; total 16.
// volp[x][y][z] on float[8][4][5]: word 20x + 5y + z. For x = 0..7, 20x % 32 = 0,20,8,28,16,4,24,12
//   (every multiple of 4 once); adding 5y (y < 4; 5y % 4 = y) gives 32 different banks -> conflict-free.
// The loads after the barrier have the same shapes as the stores.
__global__ void volume_flip(const float *in, float *out)
{
    __shared__ float vol[4][4][8];
    __shared__ float volt[8][4][4];
    __shared__ float volp[8][4][5];
    int i = threadIdx.x + 8 * threadIdx.y + 32 * threadIdx.z;
    float v = in[blockIdx.x * 128 + i];
    vol[threadIdx.z][threadIdx.y][threadIdx.x] = v; // expect: store conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    volt[threadIdx.x][threadIdx.y][threadIdx.z] = v; // expect: store 4-way wavefronts=4 ideal=1 instructions=4 total=16
    volp[threadIdx.x][threadIdx.y][threadIdx.z] = v; // expect: store conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    __syncthreads();
    float a = vol[threadIdx.z][threadIdx.y][threadIdx.x]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    float b = volt[threadIdx.x][threadIdx.y][threadIdx.z]; // expect: load 4-way wavefronts=4 ideal=1 instructions=4 total=16
    float c = volp[threadIdx.x][threadIdx.y][threadIdx.z]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    out[blockIdx.x * 128 + i] = a + b - c;
}

void launch_volume_flip(const float *d_in, float *d_out, int blocks)
{
    dim3 threads(8, 4, 4);
    volume_flip<<<blocks, threads>>>(d_in, d_out);
}
