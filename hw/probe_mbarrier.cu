// Probe: do mbarrier operations go through the shared-memory banks?
//
// One warp runs one mbarrier operation (or, as a control, a plain 8-byte shared load or
// store) REPS times, each active lane on the barrier at `lane / group * stride` bytes. Stride
// 0 puts every lane on one barrier, 8 on consecutive ones, 128 and 256 on 32 different words
// of one bank (a 32-way conflict for a load or store); a group of 4 puts 4 lanes on each
// barrier. Op `none` runs the setup alone (every launch's baseline). Run it under Nsight Compute to read the
// shared-memory wavefronts of each launch, and on its own (`time`) for the cycles each
// operation takes per warp: a bank-served operation slows down with the conflict, one served
// elsewhere does not.
//
//   nvcc -arch=sm_90 -O3 -o probe_mbarrier hw/probe_mbarrier.cu
//   ./probe_mbarrier list | time       (list: the launches in order; time: cycles as JSON lines)
#include <cstdio>
#include <cstring>

enum Op { NONE, INIT, ARRIVE, ARRIVE_EXPECT_TX, EXPECT_TX, COMPLETE_TX, TEST_WAIT, TRY_WAIT, ARRIVE_DROP, INVAL, LOAD, STORE, OPS };
static const char *NAMES[OPS] = {"none", "init", "arrive", "arrive.expect_tx", "expect_tx", "complete_tx", "test_wait.parity",
                                 "try_wait.parity", "arrive_drop", "inval", "ld.shared.b64", "st.shared.b64"};
constexpr int REPS = 64;
constexpr int SLOTS = 32 * 32;  // 8 KB of 8-byte barriers: room for 32 lanes at stride 256

__global__ void probe(int op, int stride, int group, int lanes, unsigned long long *out) {
    __shared__ alignas(8) unsigned long long bars[SLOTS];
    for (int i = threadIdx.x; i < SLOTS; i += blockDim.x) {
        unsigned a = (unsigned)__cvta_generic_to_shared(&bars[i]);
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(a), "r"((1 << 20) - 1) : "memory");
    }
    __syncthreads();
    int lane = threadIdx.x & 31;
    unsigned addr = (unsigned)__cvta_generic_to_shared(bars) + lane / group * stride;
    unsigned long long sink = 0;
    long long start = clock64();
    if (lane < lanes) {
        for (int r = 0; r < REPS; r++) {
            unsigned long long state = 0;
            unsigned ok = 0;
            switch (op) {
            case NONE:  // the setup alone: its cost is every launch's baseline
                break;
            case INIT:
                asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(addr), "r"((1 << 20) - 1) : "memory");
                break;
            case ARRIVE:
                asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(addr) : "memory");
                break;
            case ARRIVE_EXPECT_TX:
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
                             : "=l"(state) : "r"(addr), "r"(1) : "memory");
                break;
            case EXPECT_TX:
                asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(addr), "r"(1) : "memory");
                break;
            case COMPLETE_TX:
                asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(addr), "r"(1) : "memory");
                break;
            case TEST_WAIT:  // parity 1: the phase before the current one, complete at once
                asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                             : "=r"(ok) : "r"(addr), "r"(1) : "memory");
                break;
            case TRY_WAIT:
                asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                             : "=r"(ok) : "r"(addr), "r"(1) : "memory");
                break;
            case ARRIVE_DROP:
                asm volatile("mbarrier.arrive_drop.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(addr) : "memory");
                break;
            case INVAL:  // each invalidation needs a barrier to invalidate: init, then inval
                asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(addr), "r"(1) : "memory");
                asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(addr) : "memory");
                break;
            case LOAD:
                asm volatile("ld.volatile.shared.b64 %0, [%1];" : "=l"(state) : "r"(addr) : "memory");
                break;
            case STORE:
                asm volatile("st.volatile.shared.b64 [%0], %1;" ::"r"(addr), "l"((unsigned long long)r) : "memory");
                break;
            }
            sink += state + ok;
        }
    }
    long long stop = clock64();
    if (threadIdx.x == 0) out[0] = (unsigned long long)(stop - start);
    if (sink == 0x5eed) out[1] = sink;  // keeps the results alive
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "time";
    // (stride, group, lanes): lanes l < lanes use the barrier at (l / group) * stride.
    const int patterns[][3] = {{0, 1, 1},   {0, 1, 32},  {8, 1, 32}, {16, 1, 32}, {128, 1, 32},
                               {256, 1, 32}, {8, 4, 32}, {128, 2, 32}, {8, 1, 8}};
    unsigned long long *d;
    cudaMalloc(&d, 2 * sizeof(unsigned long long));
    int launch = 0;
    for (int op = 0; op < OPS; op++)
        for (auto &pat : patterns) {
                int s = pat[0], g = pat[1], n = pat[2];
                unsigned long long best = ~0ull;
                int runs = strcmp(mode, "time") == 0 ? 5 : 1;
                for (int k = 0; k < runs; k++) {
                    probe<<<1, 32>>>(op, s, g, n, d);
                    unsigned long long c = 0;
                    cudaMemcpy(&c, d, sizeof c, cudaMemcpyDeviceToHost);
                    if (c < best) best = c;
                }
                cudaError_t e = cudaGetLastError();
                printf("{\"launch\": %d, \"op\": \"%s\", \"stride\": %d, \"group\": %d, \"lanes\": %d, \"reps\": %d, \"cycles\": %llu, \"error\": \"%s\"}\n",
                       launch++, NAMES[op], s, g, n, REPS, best, e == cudaSuccess ? "" : cudaGetErrorString(e));
            }
    return 0;
}
