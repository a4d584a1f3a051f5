// banklint shared-memory probe.
//
// One kernel per (access width in {1,2,4,8,16} bytes) x (load, store). Each kernel is launched with
// exactly one warp (32 threads). Lane i reads its byte offset offs[i] from global memory; if it is
// >= 0 the lane performs exactly ONE shared-memory access of that width at that byte offset of a
// 16-byte-aligned __shared__ buffer (inline PTX ld.shared / st.shared, so the compiler emits one
// LDS / STS of the right width and nothing else touches shared memory); -1 means the lane does
// nothing. Loaded values are written to global memory so the load stays. The shared buffer is never
// initialised on purpose: reading garbage is fine, an initialisation loop would add shared stores.
//
// Usage:  probe --info              print "name<TAB>major<TAB>minor" of device 0 and exit
//         probe PATTERNS.txt         one launch per line "WIDTH L|S o0 o1 ... o31"
// Everything the program prints goes to stderr, except --info (stdout), so ncu's CSV on stdout
// stays clean.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define SMEM_BYTES 49152  // 48 KiB, the static shared-memory limit

#define CK(x)                                                                           \
    do {                                                                                \
        cudaError_t e_ = (x);                                                           \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                  \
                    cudaGetErrorString(e_));                                            \
            exit(2);                                                                    \
        }                                                                               \
    } while (0)

static __device__ __forceinline__ unsigned smem_base() {
    __shared__ __align__(16) unsigned char buf[SMEM_BYTES];
    return (unsigned)__cvta_generic_to_shared(buf);
}

// ---- loads: one ld.shared each, results to out[lane*4 + k] ----
extern "C" __global__ void __launch_bounds__(32) probe_ld_w1(const int* __restrict__ offs, unsigned* __restrict__ out) {
    int lane = threadIdx.x, off = offs[lane];
    unsigned base = smem_base();
    if (off >= 0) {
        unsigned v;
        asm volatile("ld.shared.u8 %0, [%1];" : "=r"(v) : "r"(base + off) : "memory");
        out[lane * 4] = v;
    }
}
extern "C" __global__ void __launch_bounds__(32) probe_ld_w2(const int* __restrict__ offs, unsigned* __restrict__ out) {
    int lane = threadIdx.x, off = offs[lane];
    unsigned base = smem_base();
    if (off >= 0) {
        unsigned v;
        asm volatile("ld.shared.u16 %0, [%1];" : "=r"(v) : "r"(base + off) : "memory");
        out[lane * 4] = v;
    }
}
extern "C" __global__ void __launch_bounds__(32) probe_ld_w4(const int* __restrict__ offs, unsigned* __restrict__ out) {
    int lane = threadIdx.x, off = offs[lane];
    unsigned base = smem_base();
    if (off >= 0) {
        unsigned v;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(base + off) : "memory");
        out[lane * 4] = v;
    }
}
extern "C" __global__ void __launch_bounds__(32) probe_ld_w8(const int* __restrict__ offs, unsigned* __restrict__ out) {
    int lane = threadIdx.x, off = offs[lane];
    unsigned base = smem_base();
    if (off >= 0) {
        unsigned a, b;
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(base + off) : "memory");
        out[lane * 4] = a;
        out[lane * 4 + 1] = b;
    }
}
extern "C" __global__ void __launch_bounds__(32) probe_ld_w16(const int* __restrict__ offs, unsigned* __restrict__ out) {
    int lane = threadIdx.x, off = offs[lane];
    unsigned base = smem_base();
    if (off >= 0) {
        unsigned a, b, c, d;
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(base + off) : "memory");
        out[lane * 4] = a;
        out[lane * 4 + 1] = b;
        out[lane * 4 + 2] = c;
        out[lane * 4 + 3] = d;
    }
}

// ---- stores: one st.shared each, of lane-dependent values ----
extern "C" __global__ void __launch_bounds__(32) probe_st_w1(const int* __restrict__ offs, unsigned* __restrict__ out) {
    int lane = threadIdx.x, off = offs[lane];
    unsigned base = smem_base();
    if (off >= 0) asm volatile("st.shared.u8 [%0], %1;" :: "r"(base + off), "r"(lane + 1u) : "memory");
}
extern "C" __global__ void __launch_bounds__(32) probe_st_w2(const int* __restrict__ offs, unsigned* __restrict__ out) {
    int lane = threadIdx.x, off = offs[lane];
    unsigned base = smem_base();
    if (off >= 0) asm volatile("st.shared.u16 [%0], %1;" :: "r"(base + off), "r"(lane + 1u) : "memory");
}
extern "C" __global__ void __launch_bounds__(32) probe_st_w4(const int* __restrict__ offs, unsigned* __restrict__ out) {
    int lane = threadIdx.x, off = offs[lane];
    unsigned base = smem_base();
    if (off >= 0) asm volatile("st.shared.u32 [%0], %1;" :: "r"(base + off), "r"(lane + 1u) : "memory");
}
extern "C" __global__ void __launch_bounds__(32) probe_st_w8(const int* __restrict__ offs, unsigned* __restrict__ out) {
    int lane = threadIdx.x, off = offs[lane];
    unsigned base = smem_base();
    if (off >= 0)
        asm volatile("st.shared.v2.u32 [%0], {%1, %2};" :: "r"(base + off), "r"(lane + 1u), "r"(lane + 2u) : "memory");
}
extern "C" __global__ void __launch_bounds__(32) probe_st_w16(const int* __restrict__ offs, unsigned* __restrict__ out) {
    int lane = threadIdx.x, off = offs[lane];
    unsigned base = smem_base();
    if (off >= 0)
        asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};"
                     :: "r"(base + off), "r"(lane + 1u), "r"(lane + 2u), "r"(lane + 3u), "r"(lane + 4u) : "memory");
}

typedef void (*probe_fn)(const int*, unsigned*);

static probe_fn pick(int width, char op) {
    bool st = (op == 'S');
    switch (width) {
        case 1: return st ? probe_st_w1 : probe_ld_w1;
        case 2: return st ? probe_st_w2 : probe_ld_w2;
        case 4: return st ? probe_st_w4 : probe_ld_w4;
        case 8: return st ? probe_st_w8 : probe_ld_w8;
        case 16: return st ? probe_st_w16 : probe_ld_w16;
    }
    return nullptr;
}

struct Pattern {
    int width;
    char op;
    int offs[32];
};

int main(int argc, char** argv) {
    if (argc == 2 && strcmp(argv[1], "--info") == 0) {
        cudaDeviceProp p;
        CK(cudaGetDeviceProperties(&p, 0));
        printf("%s\t%d\t%d\n", p.name, p.major, p.minor);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s --info | PATTERNS.txt\n", argv[0]);
        return 1;
    }
    FILE* f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    std::vector<Pattern> pats;
    for (;;) {
        Pattern p;
        char op[4];
        int r = fscanf(f, "%d %3s", &p.width, op);
        if (r == EOF) break;
        if (r != 2) { fprintf(stderr, "bad pattern line %zu\n", pats.size() + 1); return 1; }
        p.op = op[0];
        for (int i = 0; i < 32; i++)
            if (fscanf(f, "%d", &p.offs[i]) != 1) { fprintf(stderr, "bad offsets, pattern %zu\n", pats.size() + 1); return 1; }
        if (!pick(p.width, p.op) || (p.op != 'L' && p.op != 'S') || op[1]) {
            fprintf(stderr, "bad width/op in pattern %zu\n", pats.size() + 1); return 1;
        }
        for (int i = 0; i < 32; i++) {
            int o = p.offs[i];
            if (o < -1 || (o >= 0 && (o % p.width != 0 || o + p.width > SMEM_BYTES))) {
                fprintf(stderr, "pattern %zu lane %d: offset %d invalid for width %d\n", pats.size() + 1, i, o, p.width);
                return 1;
            }
        }
        pats.push_back(p);
    }
    fclose(f);

    int* d_offs;
    unsigned* d_out;
    CK(cudaMalloc(&d_offs, 32 * sizeof(int)));
    CK(cudaMalloc(&d_out, 32 * 4 * sizeof(unsigned)));
    for (size_t k = 0; k < pats.size(); k++) {
        CK(cudaMemcpy(d_offs, pats[k].offs, sizeof pats[k].offs, cudaMemcpyHostToDevice));
        pick(pats[k].width, pats[k].op)<<<1, 32>>>(d_offs, d_out);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
    }
    CK(cudaFree(d_offs));
    CK(cudaFree(d_out));
    fprintf(stderr, "probe: %zu launches done\n", pats.size());
    return 0;
}
