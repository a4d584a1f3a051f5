// Dynamic shared memory (extern __shared__ float dyn[]) holding 4-float records (AoS) (sm_90).
// Block = 128 threads = 4 warps (second launch argument; the third is the dynamic size in bytes).
// Fill dyn[c * THREADS + tid], c < 4: consecutive words per warp -> conflict-free; 4 x 4 = 16
//   instructions, total 16.
// Read of one component, dyn[tid * COMPS + comp] (comp is a kernel parameter, warp-uniform):
//   words 4n + comp -> 8 banks with 4 words each -> 4-way, 4 wavefronts; 4 warps -> total 16.
#define THREADS 128
#define COMPS 4

__global__ void pick_component(const float *in, float *out, int comp)
{
    extern __shared__ float dyn[];
    int tid = threadIdx.x;
    for (int c = 0; c < COMPS; ++c)
        dyn[c * THREADS + tid] = in[blockIdx.x * THREADS * COMPS + c * THREADS + tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=16 total=16
    __syncthreads();
    out[blockIdx.x * THREADS + tid] = dyn[tid * COMPS + comp]; // expect: load 4-way wavefronts=4 ideal=1 instructions=4 total=16
}

void launch_pick_component(const float *d_in, float *d_out, int n)
{
    size_t bytes = THREADS * COMPS * sizeof(float);
    pick_component<<<n / THREADS, THREADS, bytes>>>(d_in, d_out, 2);
}
