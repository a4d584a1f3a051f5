// Probe: which lane does `elect.sync` elect? PTX says only that the choice is deterministic
// for a membermask. Each launch runs one warp; lanes outside `active` return at once, the others
// run `elect.sync _|p, mask` and record whether they were elected. Printed per launch: the
// active lanes, the mask, and the lanes elected, as JSON lines.
//
//   nvcc -arch=sm_90 -O3 -o probe_elect hw/probe_elect.cu && ./probe_elect
#include <cstdio>

__global__ void elect(unsigned active, unsigned mask, unsigned *out)
{
    unsigned lane = threadIdx.x % 32;
    if (!((active >> lane) & 1))
        return;
    unsigned elected = 0;
    asm volatile("{ .reg .pred p; elect.sync _|p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(elected) : "r"(mask));
    if (elected)
        atomicOr(out, 1u << lane);
}

int main()
{
    // (active lanes, membermask): the mask is always the active lanes, as PTX requires every
    // executing lane to be in it.
    const unsigned cases[] = {0xffffffffu, 0xfffffffeu, 0xffff0000u, 0x0000ff00u, 0x80000001u,
                              0x80000000u, 0xaaaaaaaau, 0x55555554u, 0x00f0f000u, 0x7fffffffu};
    unsigned *d;
    cudaMalloc(&d, sizeof(unsigned));
    for (unsigned m : cases) {
        for (int rep = 0; rep < 3; rep++) {
            cudaMemset(d, 0, sizeof(unsigned));
            elect<<<1, 32>>>(m, m, d);
            unsigned got = 0;
            cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost);
            cudaError_t e = cudaGetLastError();
            printf("{\"active\": \"0x%08x\", \"mask\": \"0x%08x\", \"rep\": %d, \"elected\": \"0x%08x\", \"lowest\": \"0x%08x\", \"error\": \"%s\"}\n",
                   m, m, rep, got, m & (~m + 1), e == cudaSuccess ? "" : cudaGetErrorString(e));
        }
    }
    return 0;
}
