// A file-scope __shared__ array, a C++ statement banklint cannot parse (a lambda), and a
// class with member functions. The lambda costs only its own statement; the class keeps its
// data layout (16 bytes: four floats). Block 32 (one warp).
// g[tid][0]: column of a 32 x 32 float array -> 32-way.
// p[tid].y: 4-byte loads at a stride of 16 bytes -> words 4*tid + 1, banks 1, 5, ..., 29,
//   four words each -> 4-way.
__shared__ float g[32][32];

class Particle {
public:
    float x, y, z, w;
    __device__ Particle() : x(0), y(0), z(0), w(0) {}
    __device__ float norm2() const { return x * x + y * y + z * z; }
};

__global__ void mixed(float *out)
{
    __shared__ Particle p[32];
    unsigned int tid = threadIdx.x;
    auto square = [](float v) { return v * v; };
    g[tid][0] = 1.0f; // expect: store 32-way wavefronts=32
    out[tid] = p[tid].y; // expect: load 4-way wavefronts=4
}

void launch(float *d)
{
    mixed<<<1, 32>>>(d);
}
