// banklint probe for shared-memory operations other than plain loads and stores: atomics,
// ldmatrix / stmatrix (sm_90 for stmatrix) and cp.async (global -> shared copies).
//
// One kernel per operation, each launched with exactly one warp (32 threads). Lane i reads its
// byte offset offs[i] from global memory. For atomics and cp.async, a lane whose offset is >= 0
// performs exactly ONE operation at that byte offset of a 128-byte-aligned __shared__ buffer and
// -1 leaves the lane out (it skips the operation). ldmatrix and stmatrix are .sync.aligned: every
// lane executes them; lane i supplies offs[i] as its row address (lanes whose address the shape
// does not use, e.g. 8..31 for .x1, still pass one). When `skip` is nonzero the whole warp skips
// the operation: that launch is the per-kernel baseline (a uniform branch, so ldmatrix stays legal).
//
// The buffer is never initialised on purpose (an initialisation loop would add shared stores);
// the operations read or overwrite whatever is there. Results go to global memory.
//
// Usage:  probe_ops --info            print "name<TAB>major<TAB>minor<TAB>shared base" and exit
//         probe_ops --list            print the kernel names, one a line
//         probe_ops PATTERNS.txt      one launch per line: "KERNEL SKIP o0 o1 ... o31"
// Everything else goes to stderr, so ncu's CSV on stdout stays clean.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define SMEM_BYTES 49152  // 48 KiB, the static shared-memory limit
#define GSRC_BYTES 65536  // global source of cp.async

#define CK(x)                                                                           \
    do {                                                                                \
        cudaError_t e_ = (x);                                                           \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                  \
                    cudaGetErrorString(e_));                                            \
            exit(2);                                                                    \
        }                                                                               \
    } while (0)

__shared__ __align__(128) unsigned char sbuf[SMEM_BYTES];

#define ARGS const int *__restrict__ offs, unsigned *__restrict__ out, const unsigned char *__restrict__ gsrc, int skip
#define KERNEL(name) extern "C" __global__ void __launch_bounds__(32) probe_##name(ARGS)

// ---- atomics through the CUDA C++ functions (what kernels are written with) ----
// BODY runs for a lane whose offset is >= 0; `p` is the generic pointer into shared memory.
#define ATOMIC(name, T, BODY)                                                            \
    KERNEL(name) {                                                                       \
        int lane = threadIdx.x, off = offs[lane];                                        \
        if (skip || off < 0) return;                                                     \
        T *p = reinterpret_cast<T *>(sbuf + off);                                        \
        BODY;                                                                            \
    }

ATOMIC(atom_add1_u32, unsigned, atomicAdd(p, 1u))  // histogram idiom, result unused
ATOMIC(atom_add_u32, unsigned, atomicAdd(p, lane + 1u))
ATOMIC(atom_add_u32_ret, unsigned, out[lane] = atomicAdd(p, lane + 1u))
ATOMIC(atom_add_f32, float, atomicAdd(p, 1.0f))
ATOMIC(atom_add_u64, unsigned long long, atomicAdd(p, 1ull))
ATOMIC(atom_cas_u32, unsigned, out[lane] = atomicCAS(p, 0u, lane + 1u))
ATOMIC(atom_cas_u64, unsigned long long, out[lane] = (unsigned)atomicCAS(p, 0ull, lane + 1ull))
ATOMIC(atom_exch_u64, unsigned long long, atomicExch(p, lane + 1ull))
ATOMIC(atom_exch_u32, unsigned, out[lane] = atomicExch(p, lane + 1u))
ATOMIC(atom_or_u32, unsigned, atomicOr(p, 1u << lane))
ATOMIC(atom_and_u32, unsigned, atomicAnd(p, ~(1u << lane)))
ATOMIC(atom_xor_u32, unsigned, atomicXor(p, 1u << lane))
ATOMIC(atom_min_s32, int, atomicMin(p, (int)lane - 16))
ATOMIC(atom_max_u32, unsigned, atomicMax(p, lane + 1u))
ATOMIC(atom_inc_u32, unsigned, atomicInc(p, 1000u))

// ---- ldmatrix: every lane passes an address; results to out ----
static __device__ __forceinline__ unsigned sbase() { return (unsigned)__cvta_generic_to_shared(sbuf); }

#define LDSM(name, shape, N, ...)                                                        \
    KERNEL(name) {                                                                       \
        int lane = threadIdx.x;                                                          \
        unsigned a = sbase() + (unsigned)offs[lane];                                     \
        if (skip) return;                                                                \
        unsigned r[4] = {0, 0, 0, 0};                                                    \
        asm volatile("ldmatrix.sync.aligned.m8n8." shape ".shared.b16 " __VA_ARGS__      \
                     : "memory");                                                        \
        for (int k = 0; k < N; k++) out[lane * 4 + k] = r[k];                            \
    }
LDSM(ldsm_x1, "x1", 1, "{%0}, [%1];" : "=r"(r[0]) : "r"(a))
LDSM(ldsm_x2, "x2", 2, "{%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a))
LDSM(ldsm_x4, "x4", 4, "{%0, %1, %2, %3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a))
LDSM(ldsm_x1_trans, "x1.trans", 1, "{%0}, [%1];" : "=r"(r[0]) : "r"(a))
LDSM(ldsm_x2_trans, "x2.trans", 2, "{%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a))
LDSM(ldsm_x4_trans, "x4.trans", 4, "{%0, %1, %2, %3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a))

// ---- stmatrix (sm_90): every lane passes an address and lane-dependent values ----
#define STSM(name, shape, ...)                                                           \
    KERNEL(name) {                                                                       \
        int lane = threadIdx.x;                                                          \
        unsigned a = sbase() + (unsigned)offs[lane];                                     \
        if (skip) return;                                                                \
        unsigned v0 = lane * 4u + 1;                                                     \
        asm volatile("stmatrix.sync.aligned.m8n8." shape ".shared.b16 " __VA_ARGS__      \
                     : "memory");                                                        \
    }
STSM(stsm_x1, "x1", "[%0], {%1};" ::"r"(a), "r"(v0))
STSM(stsm_x2, "x2", "[%0], {%1, %2};" ::"r"(a), "r"(v0), "r"(v0 + 1))
STSM(stsm_x4, "x4", "[%0], {%1, %2, %3, %4};" ::"r"(a), "r"(v0), "r"(v0 + 1), "r"(v0 + 2), "r"(v0 + 3))
STSM(stsm_x1_trans, "x1.trans", "[%0], {%1};" ::"r"(a), "r"(v0))
STSM(stsm_x2_trans, "x2.trans", "[%0], {%1, %2};" ::"r"(a), "r"(v0), "r"(v0 + 1))
STSM(stsm_x4_trans, "x4.trans", "[%0], {%1, %2, %3, %4};" ::"r"(a), "r"(v0), "r"(v0 + 1), "r"(v0 + 2), "r"(v0 + 3))

// ---- cp.async: lane copies WIDTH bytes from global to shared offset `off`. The global source
// is gsrc + lane * WIDTH (coalesced, as tile loads are), or gsrc + off for the _mirror kernels.
#define CPASYNC(name, cache, W, SRC)                                                     \
    KERNEL(name) {                                                                       \
        int lane = threadIdx.x, off = offs[lane];                                        \
        if (skip) return;                                                                \
        if (off >= 0) {                                                                  \
            const unsigned char *src = gsrc + (SRC);                                     \
            asm volatile("cp.async." cache ".shared.global [%0], [%1], " #W ";"          \
                         ::"r"(sbase() + (unsigned)off), "l"(src) : "memory");           \
        }                                                                                \
        asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");   \
    }
CPASYNC(cp_ca_4, "ca", 4, lane * 4)
CPASYNC(cp_ca_8, "ca", 8, lane * 8)
CPASYNC(cp_ca_16, "ca", 16, lane * 16)
CPASYNC(cp_cg_16, "cg", 16, lane * 16)
CPASYNC(cp_ca_16_mirror, "ca", 16, off)
CPASYNC(cp_cg_16_mirror, "cg", 16, off)

// ---- table ----
typedef void (*probe_fn)(const int *, unsigned *, const unsigned char *, int);
struct Entry {
    const char *name;
    probe_fn fn;
    int align;     // required alignment of offsets
    int width;     // bytes touched at each offset
    bool all_lanes;  // every lane must pass an address (no -1)
};
#define E(n, al, w, all) {#n, probe_##n, al, w, all}
static const Entry TABLE[] = {
    E(atom_add1_u32, 4, 4, false), E(atom_add_u32, 4, 4, false), E(atom_add_u32_ret, 4, 4, false),
    E(atom_add_f32, 4, 4, false), E(atom_add_u64, 8, 8, false), E(atom_cas_u32, 4, 4, false),
    E(atom_cas_u64, 8, 8, false), E(atom_exch_u64, 8, 8, false), E(atom_exch_u32, 4, 4, false), E(atom_or_u32, 4, 4, false),
    E(atom_and_u32, 4, 4, false), E(atom_xor_u32, 4, 4, false), E(atom_min_s32, 4, 4, false),
    E(atom_max_u32, 4, 4, false), E(atom_inc_u32, 4, 4, false),
    E(ldsm_x1, 16, 16, true), E(ldsm_x2, 16, 16, true), E(ldsm_x4, 16, 16, true),
    E(ldsm_x1_trans, 16, 16, true), E(ldsm_x2_trans, 16, 16, true), E(ldsm_x4_trans, 16, 16, true),
    E(stsm_x1, 16, 16, true), E(stsm_x2, 16, 16, true), E(stsm_x4, 16, 16, true),
    E(stsm_x1_trans, 16, 16, true), E(stsm_x2_trans, 16, 16, true), E(stsm_x4_trans, 16, 16, true),
    E(cp_ca_4, 4, 4, false), E(cp_ca_8, 8, 8, false), E(cp_ca_16, 16, 16, false),
    E(cp_cg_16, 16, 16, false), E(cp_ca_16_mirror, 16, 16, false), E(cp_cg_16_mirror, 16, 16, false),
};

static const Entry *find(const char *name) {
    for (const Entry &e : TABLE)
        if (strcmp(e.name, name) == 0) return &e;
    return nullptr;
}

extern "C" __global__ void probe_base(unsigned *out) { out[0] = sbase(); }

struct Pattern {
    const Entry *e;
    int skip;
    int offs[32];
};

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (const Entry &e : TABLE) printf("%s\n", e.name);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--info") == 0) {
        cudaDeviceProp p;
        CK(cudaGetDeviceProperties(&p, 0));
        unsigned *d, h = 0;
        CK(cudaMalloc(&d, 4));
        probe_base<<<1, 1>>>(d);
        CK(cudaGetLastError());
        CK(cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost));
        printf("%s\t%d\t%d\t%u\n", p.name, p.major, p.minor, h);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s --info | --list | PATTERNS.txt\n", argv[0]);
        return 1;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    std::vector<Pattern> pats;
    char name[64];
    for (;;) {
        Pattern p;
        int r = fscanf(f, "%63s %d", name, &p.skip);
        if (r == EOF) break;
        if (r != 2 || !(p.e = find(name))) { fprintf(stderr, "bad pattern line %zu\n", pats.size() + 1); return 1; }
        for (int i = 0; i < 32; i++)
            if (fscanf(f, "%d", &p.offs[i]) != 1) { fprintf(stderr, "bad offsets, pattern %zu\n", pats.size() + 1); return 1; }
        for (int i = 0; i < 32; i++) {
            int o = p.offs[i];
            bool bad = o < -1 || (o == -1 && p.e->all_lanes) ||
                       (o >= 0 && (o % p.e->align != 0 || o + p.e->width > SMEM_BYTES));
            if (bad) {
                fprintf(stderr, "pattern %zu (%s) lane %d: offset %d invalid\n", pats.size() + 1, name, i, o);
                return 1;
            }
        }
        pats.push_back(p);
    }
    fclose(f);

    int *d_offs;
    unsigned *d_out;
    unsigned char *d_src;
    CK(cudaMalloc(&d_offs, 32 * sizeof(int)));
    CK(cudaMalloc(&d_out, 32 * 4 * sizeof(unsigned)));
    CK(cudaMalloc(&d_src, GSRC_BYTES));
    CK(cudaMemset(d_src, 0x5a, GSRC_BYTES));
    for (size_t k = 0; k < pats.size(); k++) {
        CK(cudaMemcpy(d_offs, pats[k].offs, sizeof pats[k].offs, cudaMemcpyHostToDevice));
        pats[k].e->fn<<<1, 32>>>(d_offs, d_out, d_src, pats[k].skip);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
    }
    CK(cudaFree(d_offs));
    CK(cudaFree(d_out));
    CK(cudaFree(d_src));
    fprintf(stderr, "probe_ops: %zu launches done\n", pats.size());
    return 0;
}
