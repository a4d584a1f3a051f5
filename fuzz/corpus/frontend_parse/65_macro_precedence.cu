// Macros expand as the preprocessor does, with C precedence. Block 32 (one warp).
// W is `32 + 1` without parentheses: s[tid * W] is s[tid * 32 + 1], a stride of 32 words:
//   every lane in bank 1 -> 32-way.
// WP is `(32 + 1)`: s[tid * WP] has stride 33 -> conflict-free.
// AS(tid, 0) is As[tid][0] on a 32 x 32 tile: a column -> 32-way.
// t[ai + CONFLICT_FREE_OFFSET(ai)] with ai = 32 * tid: word 33 * tid -> conflict-free.
#define W 32 + 1
#define WP (32 + 1)
#define AS(i, j) As[i][j]
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

__global__ void macros(float *out)
{
    __shared__ float As[32][32];
    __shared__ float s[2048];
    __shared__ float t[2048];
    int tid = threadIdx.x;
    s[tid * W] = 1.0f; // expect: store 32-way wavefronts=32
    s[tid * WP] = 2.0f; // expect: store conflict-free wavefronts=1
    AS(tid, 0) = 3.0f; // expect: store 32-way wavefronts=32
    int ai = 32 * tid;
    t[ai + CONFLICT_FREE_OFFSET(ai)] = 4.0f; // expect: store conflict-free wavefronts=1
    out[tid] = s[tid] + t[tid]; // expect: load conflict-free wavefronts=1
}

void launch(float *d)
{
    macros<<<1, 32>>>(d);
}
