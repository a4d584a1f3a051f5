// Where a TMA tile copy puts each element in shared memory, per swizzle mode: one 2-D copy
// (`cp.async.bulk.tensor.2d`) of a box of ROWS rows x W 2-byte elements into a 1024-byte-aligned
// shared buffer at a chosen byte offset; the buffer (pre-filled with 0xFFFF) is copied out and
// the host finds each element's byte position. Each element's value is its logical index
// (row * COLS + column), so the placement is read off directly.
//
//   probe_tma MODE INNER_BYTES OFFSET   (MODE: 0 none, 1 32B, 2 64B, 3 128B)
//
// prints one JSON line: the placement checked against three models of the swizzle. Element
// (r, c) of the box is at byte b = r * PITCH + 2c of the box, PITCH the row pitch; then
//   absolute: p = OFFSET + b, then p ^= ((p >> 7) & mask) << 4 on the address relative to the
//             1024-byte-aligned buffer (the address bits themselves), PITCH = the swizzle span
//             (32, 64, 128 bytes) in a swizzled mode and INNER_BYTES without one;
//   relative: p = OFFSET + swz(b), the swizzle taken on the box's own offsets, same PITCH;
//   packed:   as absolute, but PITCH = INNER_BYTES in every mode (rows packed densely).
// mask = 0, 1, 3, 7 for none, 32B, 64B, 128B.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int COLS = 256;                // global tensor: ROWS_G x COLS uint16, row-major
constexpr int ROWS_G = 64;
constexpr int ROWS = 32;                 // rows in the box
constexpr int BUF = 16384;               // bytes of the shared buffer

__global__ void tma_probe(const __grid_constant__ CUtensorMap map, int offset, int box_bytes,
                          uint16_t *out, int *info)
{
    __shared__ __align__(1024) uint16_t buf[BUF / 2];
    __shared__ __align__(8) unsigned long long bar;
    for (int i = threadIdx.x; i < BUF / 2; i += blockDim.x)
        buf[i] = 0xFFFF;
    uint32_t bar_addr = (uint32_t)__cvta_generic_to_shared(&bar);
    uint32_t base = (uint32_t)__cvta_generic_to_shared(buf);
    if (threadIdx.x == 0) {
        info[0] = (int)(base % 1024);
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr));
    }
    // The buffer's plain stores, then the copy engine's writes: order them.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr), "r"(box_bytes)
                     : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" ::"r"(base + offset),
                     "l"(reinterpret_cast<uint64_t>(&map)), "r"(0), "r"(0), "r"(bar_addr)
                     : "memory");
    }
    asm volatile("{\n .reg .pred p;\n WAIT_%=:\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
                 " @!p bra WAIT_%=;\n}" ::"r"(bar_addr)
                 : "memory");
    __syncthreads();
    for (int i = threadIdx.x; i < BUF / 2; i += blockDim.x)
        out[i] = buf[i];
}

static int fail(const char *what, int mode, int inner, int offset, const char *detail)
{
    printf("{\"mode\": %d, \"inner_bytes\": %d, \"offset\": %d, \"error\": \"%s: %s\"}\n", mode, inner, offset,
           what, detail);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: probe_tma MODE INNER_BYTES OFFSET\n");
        return 2;
    }
    int mode = atoi(argv[1]), inner = atoi(argv[2]), offset = atoi(argv[3]);
    int w = inner / 2;
    std::vector<uint16_t> host(ROWS_G * COLS);
    for (int i = 0; i < ROWS_G * COLS; i++)
        host[i] = (uint16_t)i;
    uint16_t *g = nullptr, *out = nullptr;
    int *info = nullptr;
    cudaMalloc(&g, host.size() * 2);
    cudaMalloc(&out, BUF);
    cudaMalloc(&info, 16);
    cudaMemcpy(g, host.data(), host.size() * 2, cudaMemcpyHostToDevice);

    CUtensorMap map;
    cuuint64_t dims[2] = {COLS, ROWS_G};
    cuuint64_t strides[1] = {COLS * 2};
    cuuint32_t box[2] = {(cuuint32_t)w, ROWS};
    cuuint32_t estr[2] = {1, 1};
    CUtensorMapSwizzle swz[4] = {CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_SWIZZLE_64B,
                                 CU_TENSOR_MAP_SWIZZLE_128B};
    CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, g, dims, strides, box, estr,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, swz[mode], CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        const char *s = "?";
        cuGetErrorString(r, &s);
        return fail("encode", mode, inner, offset, s);
    }
    tma_probe<<<1, 128>>>(map, offset, w * ROWS * 2, out, info);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
        return fail("launch", mode, inner, offset, cudaGetErrorString(e));
    std::vector<uint16_t> got(BUF / 2);
    int base_mod = -1;
    cudaMemcpy(got.data(), out, BUF, cudaMemcpyDeviceToHost);
    cudaMemcpy(&base_mod, info, 4, cudaMemcpyDeviceToHost);
    int mask = (1 << mode) - 1;
    auto swizzle = [&](long p) { return p ^ (((p >> 7) & mask) << 4); };
    long pitch = mode ? (16L << mode) : inner;
    long found = 0, absolute = 0, relative = 0, packed = 0, strays = 0;
    std::vector<long> first_wrong;
    for (int i = 0; i < BUF / 2; i++) {
        if (got[i] == 0xFFFF)
            continue;
        int row = got[i] / COLS, col = got[i] % COLS;
        if (row >= ROWS || col >= w) {
            strays++;
            continue;
        }
        found++;
        long b = row * pitch + col * 2L, at = 2L * i;
        bool a = swizzle(offset + b) == at, rl = offset + swizzle(b) == at;
        absolute += a;
        relative += rl;
        packed += swizzle(offset + (long)(row * w + col) * 2) == at;
        if (!a && first_wrong.size() < 8) {
            first_wrong.push_back(row);
            first_wrong.push_back(col);
            first_wrong.push_back(at);
        }
    }
    printf("{\"mode\": %d, \"inner_bytes\": %d, \"offset\": %d, \"base_mod_1024\": %d, \"elements\": %d, "
           "\"found\": %ld, \"strays\": %ld, \"pitch\": %ld, \"absolute_model\": %ld, \"relative_model\": %ld, "
           "\"packed_model\": %ld, \"first_wrong_row_col_at\": [",
           mode, inner, offset, base_mod, w * ROWS, found, strays, pitch, absolute, relative, packed);
    for (size_t k = 0; k < first_wrong.size(); k++)
        printf("%s%ld", k ? ", " : "", first_wrong[k]);
    printf("]}\n");
    return 0;
}
