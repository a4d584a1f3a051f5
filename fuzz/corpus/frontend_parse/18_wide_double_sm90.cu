// 8-byte accesses on sm_90: a warp's 64-bit access is served in two phases (lanes 0-15, 16-31).
// Block = 32 threads = 1 warp (launch below).
// s[tid] (store or load): phase = 16 lanes x 2 words = 32 consecutive words -> 1 wavefront per phase
//   -> conflict-free, wavefronts=2, ideal=2. Same for s[tid + 32].
// s[2*tid] (load): phase 0 touches words 4n, 4n+1 for n < 16 = 0..61; lanes n and n+8 share banks
//   (4n and 4n+32) -> 2-way, 2 wavefronts per phase -> wavefronts=4; 32 unique words per phase -> ideal=2.
// No lane pair shares an address, so the wide-load merge rule does not apply here.
#define N 32

__global__ void scale_doubles(const double *in, double *out, double alpha)
{
    __shared__ double s[2 * N];
    int tid = threadIdx.x;
    s[tid] = in[tid]; // expect: store conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    s[tid + N] = in[tid + N]; // expect: store conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    __syncthreads();
    double a = s[tid]; // expect: load conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    double b = s[2 * tid]; // expect: load 2-way wavefronts=4 ideal=2 instructions=1 total=4
    out[tid] = alpha * a + b;
}

void launch_scale_doubles(const double *d_in, double *d_out)
{
    scale_doubles<<<1, N>>>(d_in, d_out, 0.5);
}
