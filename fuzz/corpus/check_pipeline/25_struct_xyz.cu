// Array of 12-byte structs (three floats) in shared memory (sm_90). Block = 128 threads = 4 warps.
// cache[tid].x is word 3n (.y = 3n+1, .z = 3n+2): stride 3, gcd(3, 32) = 1 -> 32 different banks
// -> conflict-free, 1 wavefront (ideal 1) per warp; 4 warps -> instructions=4, total=4 per site.
#define THREADS 128

struct Particle {
    float x, y, z;
};

__global__ void particle_x(const struct Particle *p, float *out)
{
    __shared__ struct Particle cache[THREADS];
    int tid = threadIdx.x;
    int i = blockIdx.x * THREADS + tid;
    cache[tid].x = p[i].x; // expect: store conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    cache[tid].y = p[i].y; // expect: store conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    cache[tid].z = p[i].z; // expect: store conflict-free wavefronts=1 ideal=1 instructions=4 total=4
    __syncthreads();
    out[i] = cache[tid].x; // expect: load conflict-free wavefronts=1 ideal=1 instructions=4 total=4
}

void launch_particle_x(const struct Particle *d_p, float *d_out, int n)
{
    particle_x<<<n / THREADS, THREADS>>>(d_p, d_out);
}
