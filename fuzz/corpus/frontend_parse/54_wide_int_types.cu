// Other 8- and 16-byte element types on sm_90 follow the same phase rules as double / float4.
// Block = 32 threads, all lanes active, no two lanes share an address (no load merge).
// int2 a[tid], long long l[tid], short4 h[tid] (8 B): 2 phases x 32 consecutive words -> 2 wavefronts,
//   ideal 2, conflict-free.
// long long l[2 * tid] (8 B, stride 2): lanes n and n+8 of a phase share banks -> 2-way, 4 wavefronts.
// double2 d[tid] (16 B): 4 phases x 32 consecutive words -> 4, ideal 4.
// int4 q[2 * tid] (16 B, stride 2): lanes n and n+4 of a phase share banks -> 2-way, 8 wavefronts, ideal 4.
// char4 c[tid] (4 B): word n -> conflict-free, 1 wavefront, ideal 1.
// Every loaded vector is written back whole, so the compiler keeps the full-width loads.
__global__ void wide_ints(const int2 *ia, const long long *ib, const short4 *ic, const double2 *id,
                          const int4 *ie, const char4 *ig, int2 *oa, long long *ob, short4 *oc,
                          double2 *od, int4 *oe, char4 *og)
{
    __shared__ int2 a[32];
    __shared__ long long l[64];
    __shared__ short4 h[32];
    __shared__ double2 d[32];
    __shared__ int4 q[64];
    __shared__ char4 c[32];
    int tid = threadIdx.x;
    a[tid] = ia[tid]; // expect: store conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    l[tid] = ib[tid]; // expect: store conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    l[tid + 32] = ib[tid + 32]; // expect: store conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    h[tid] = ic[tid]; // expect: store conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    d[tid] = id[tid]; // expect: store conflict-free wavefronts=4 ideal=4 instructions=1 total=4
    q[tid] = ie[tid]; // expect: store conflict-free wavefronts=4 ideal=4 instructions=1 total=4
    q[tid + 32] = ie[tid + 32]; // expect: store conflict-free wavefronts=4 ideal=4 instructions=1 total=4
    c[tid] = ig[tid]; // expect: store conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    __syncthreads();
    int2 av = a[tid]; // expect: load conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    long long lv = l[2 * tid]; // expect: load 2-way wavefronts=4 ideal=2 instructions=1 total=4
    short4 hv = h[tid]; // expect: load conflict-free wavefronts=2 ideal=2 instructions=1 total=2
    double2 dv = d[tid]; // expect: load conflict-free wavefronts=4 ideal=4 instructions=1 total=4
    int4 qv = q[2 * tid]; // expect: load 2-way wavefronts=8 ideal=4 instructions=1 total=8
    char4 cv = c[tid]; // expect: load conflict-free wavefronts=1 ideal=1 instructions=1 total=1
    oa[tid] = av;
    ob[tid] = lv;
    oc[tid] = hv;
    od[tid] = dv;
    oe[tid] = qv;
    og[tid] = cv;
}

void launch_wide_ints(const int2 *a, const long long *b, const short4 *c, const double2 *d,
                      const int4 *e, const char4 *g, int2 *oa, long long *ob, short4 *oc,
                      double2 *od, int4 *oe, char4 *og)
{
    wide_ints<<<1, 32>>>(a, b, c, d, e, g, oa, ob, oc, od, oe, og);
}
