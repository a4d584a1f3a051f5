"""Warp patterns for hw/probe_ops.cu: shared-memory atomics, ldmatrix / stmatrix and cp.async.

Each pattern is {"kernel": name, "offsets": [32 per-lane byte offsets, -1 = lane left out],
"gen": tag}. ldmatrix / stmatrix patterns give every lane an offset (lanes whose address the
shape does not use get one too, often one that would conflict if it were used). Deterministic for
a given seed. Python 3 standard library only.
"""
import random

SMEM_BYTES = 49152  # must match probe_ops.cu

ATOMIC_32 = ["atom_add1_u32", "atom_add_u32", "atom_add_u32_ret", "atom_add_f32", "atom_cas_u32",
             "atom_exch_u32", "atom_or_u32", "atom_and_u32", "atom_xor_u32", "atom_min_s32",
             "atom_max_u32", "atom_inc_u32"]
ATOMIC_64 = ["atom_add_u64", "atom_cas_u64"]
# Kernels added to the probe after the first measurement; generated last, from their own random
# stream, so that the patterns of the others stay the ones measured first.
ADDED = ["atom_exch_u64"]
LDSM = ["ldsm_x1", "ldsm_x2", "ldsm_x4", "ldsm_x1_trans", "ldsm_x2_trans", "ldsm_x4_trans"]
STSM = ["stsm_x1", "stsm_x2", "stsm_x4", "stsm_x1_trans", "stsm_x2_trans", "stsm_x4_trans"]
CPASYNC = {"cp_ca_4": 4, "cp_ca_8": 8, "cp_ca_16": 16, "cp_cg_16": 16,
           "cp_ca_16_mirror": 16, "cp_cg_16_mirror": 16}
KERNELS = ATOMIC_32 + ATOMIC_64 + LDSM + STSM + list(CPASYNC) + ADDED

# What each kernel must compile to on sm_90 (cuobjdump -sass; never-executed `@!PT` lines aside):
# the shared-memory instructions in order. A CAS loop is an LDS then ATOMS.CAST.SPIN.
EXPECTED_SASS = {
    "atom_add1_u32": ["ATOMS.POPC.INC.32"], "atom_add_u32": ["ATOMS.ADD"], "atom_add_u32_ret": ["ATOMS.ADD"],
    "atom_add_f32": ["LDS", "ATOMS.CAST.SPIN"], "atom_add_u64": ["LDS.64", "ATOMS.CAST.SPIN.64"],
    "atom_cas_u32": ["ATOMS.CAS"], "atom_cas_u64": ["ATOMS.CAS.64"], "atom_exch_u32": ["ATOMS.EXCH"],
    "atom_exch_u64": ["ATOMS.EXCH.64"],
    "atom_or_u32": ["ATOMS.OR"], "atom_and_u32": ["ATOMS.AND"], "atom_xor_u32": ["ATOMS.XOR"],
    "atom_min_s32": ["ATOMS.MIN.S32"], "atom_max_u32": ["ATOMS.MAX"], "atom_inc_u32": ["ATOMS.INC"],
    "ldsm_x1": ["LDSM.16.M88"], "ldsm_x2": ["LDSM.16.M88.2"], "ldsm_x4": ["LDSM.16.M88.4"],
    "ldsm_x1_trans": ["LDSM.16.MT88"], "ldsm_x2_trans": ["LDSM.16.MT88.2"], "ldsm_x4_trans": ["LDSM.16.MT88.4"],
    "stsm_x1": ["STSM.16.M88"], "stsm_x2": ["STSM.16.M88.2"], "stsm_x4": ["STSM.16.M88.4"],
    "stsm_x1_trans": ["STSM.16.MT88"], "stsm_x2_trans": ["STSM.16.MT88.2"], "stsm_x4_trans": ["STSM.16.MT88.4"],
    "cp_ca_4": ["LDGSTS.E"], "cp_ca_8": ["LDGSTS.E.64"], "cp_ca_16": ["LDGSTS.E.128"],
    "cp_cg_16": ["LDGSTS.E.BYPASS.128"], "cp_ca_16_mirror": ["LDGSTS.E.128"],
    "cp_cg_16_mirror": ["LDGSTS.E.BYPASS.128"],
}


def family(kernel):
    if kernel.startswith("atom_"):
        return "atomic"
    if kernel.startswith("ldsm_"):
        return "ldmatrix"
    if kernel.startswith("stsm_"):
        return "stmatrix"
    return "cp.async"


def width(kernel):
    """Bytes at each lane's offset (the alignment the probe checks)."""
    if kernel in ATOMIC_64 or kernel == "atom_exch_u64":
        return 8
    if kernel in CPASYNC:
        return CPASYNC[kernel]
    return 16 if family(kernel) in ("ldmatrix", "stmatrix") else 4


def matrices(kernel):
    """ldmatrix / stmatrix: 8x8 matrices moved (x1, x2, x4); 0 for other kernels."""
    for n in (1, 2, 4):
        if f"_x{n}" in kernel:
            return n
    return 0


def swizzle(byte_off, b, m, s, elem=2):
    """CuTe-style Swizzle<B, M, S> on element offsets of `elem` bytes: bits [M+S, M+S+B) of the
    element index are XORed into bits [M, M+B)."""
    e = byte_off // elem
    ymask = ((1 << b) - 1) << (m + s)
    return (e ^ ((e & ymask) >> s)) * elem + byte_off % elem


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.out = []
        self.seen = set()

    def add(self, kernel, offs, tag):
        offs = [int(o) for o in offs]
        assert len(offs) == 32, tag
        w = width(kernel)
        full = family(kernel) in ("ldmatrix", "stmatrix")
        for o in offs:
            assert (o == -1 and not full) or (o >= 0 and o % w == 0 and o + w <= SMEM_BYTES), (kernel, tag, offs)
        assert any(o >= 0 for o in offs), (kernel, tag)
        key = (kernel, tuple(offs))
        if key not in self.seen:
            self.seen.add(key)
            self.out.append({"kernel": kernel, "offsets": offs, "gen": tag})

    def aligned(self, w, hi):
        return self.rng.randrange(0, hi // w) * w

    def mask(self, offs, p):
        m = [o if self.rng.random() < p else -1 for o in offs]
        if all(o < 0 for o in m):
            m[self.rng.randrange(32)] = offs[0]
        return m


# ------------------------------------------------------------------------------------ atomics
def atomic_patterns(g, kernel, extended):
    w = width(kernel)
    lanes = range(32)
    for s in (0, 1, 2, 3, 4, 8, 16, 17, 32, 33, 64):
        g.add(kernel, [i * s * w for i in lanes], f"stride{s}")
    for k in (2, 4, 8, 16):
        g.add(kernel, [(i // k) * w for i in lanes], f"groups{k}-consecutive")       # k lanes per address
        g.add(kernel, [(i // k) * 128 for i in lanes], f"groups{k}-samebank")         # addresses in one bank
        g.add(kernel, [(i % k) * w for i in lanes], f"lane-mod{k}")
    g.add(kernel, [0 if i % 2 == 0 else 8 for i in lanes], "two-hot-diffbank")
    g.add(kernel, [0 if i % 2 == 0 else 128 for i in lanes], "two-hot-samebank")
    g.add(kernel, [0 if i < 16 else i * w for i in lanes], "hot16+distinct16")
    g.add(kernel, [0 if i < 4 else i * w for i in lanes], "hot4+distinct")
    g.add(kernel, [(i % 2) * 128 + (i // 2) * w * (1 if i % 2 == 0 else 0) for i in lanes], "even-distinct-odd-hot")
    for bins in (8, 32, 64, 256, 1024):
        for r in range(2 if not extended else 6):
            g.add(kernel, [g.rng.randrange(bins) * w for _ in lanes], f"histogram{bins}")
    single = [-1] * 32
    single[5] = 64
    g.add(kernel, single, "single-lane")
    g.add(kernel, [i * 32 * w if i < 16 else -1 for i in lanes], "lanes0-15-stride32")
    g.add(kernel, [0 if i % 4 == 0 else -1 for i in lanes], "every4th-hot")
    for p in (0.3, 0.6):
        g.add(kernel, g.mask([i * w for i in lanes], p), f"mask{p}-stride1")
        g.add(kernel, g.mask([0] * 32, p), f"mask{p}-hot")
        g.add(kernel, g.mask([g.rng.randrange(64) * w for _ in lanes], p), f"mask{p}-histogram64")
    if extended:
        for hi in (256, 4096, SMEM_BYTES):
            for _ in range(4):
                g.add(kernel, [g.aligned(w, hi) for _ in lanes], f"random<{hi}")
        for k in (3, 5, 6, 12):
            g.add(kernel, [(i // k) * 128 for i in lanes], f"groups{k}-samebank")
            g.add(kernel, [(i // k) * w for i in lanes], f"groups{k}-consecutive")
        for s in (5, 6, 7, 12, 24, 31, 48, 96):
            g.add(kernel, [i * s * w for i in lanes], f"stride{s}")
        for p in (0.25, 0.5, 0.75):
            for bins in (4, 16, 128):
                g.add(kernel, g.mask([g.rng.randrange(bins) * w for _ in lanes], p), f"mask{p}-histogram{bins}")


# ------------------------------------------------------------------------- ldmatrix / stmatrix
def matrix_patterns(g, kernel, extended):
    lanes = range(32)
    n = matrices(kernel)
    # Row-address layouts over a tile of R-byte rows. "a" = the usual A-fragment mapping of an
    # x4 load (lane l -> row l % 16, 16-byte chunk l // 16); "b" = the B-fragment mapping
    # (row (l % 8) + 8 * (l // 16), chunk (l // 8) % 2); "col" = lane l -> row l (one chunk).
    maps = {
        "a": lambda l: (l % 16, l // 16),
        "b": lambda l: ((l % 8) + 8 * (l // 16), (l // 8) % 2),
        "col": lambda l: (l, 0),
        "rowmajor": lambda l: (l // 4, l % 4),
    }
    for rb in (16, 32, 48, 64, 80, 96, 128, 144, 256, 272):
        for mname, f in maps.items():
            offs = []
            for l in lanes:
                r, c = f(l)
                if c * 16 >= rb:
                    c %= max(rb // 16, 1)
                offs.append(r * rb + c * 16)
            g.add(kernel, offs, f"tile-row{rb}B-{mname}")
    # XOR swizzles (CuTe Swizzle<B, M, S> on 2-byte elements) of 64- and 128-byte-row tiles.
    for rb, swz in ((64, (2, 3, 3)), (64, (3, 3, 3)), (64, (1, 3, 3)), (64, (2, 3, 2)), (64, (2, 4, 3)),
                    (128, (3, 3, 3)), (128, (2, 3, 3)), (128, (3, 3, 4)), (128, (3, 4, 3)), (256, (3, 3, 4))):
        for mname in ("a", "b"):
            offs = []
            for l in lanes:
                r, c = maps[mname](l)
                offs.append(swizzle(r * rb + c * 16, *swz))
            g.add(kernel, offs, f"tile-row{rb}B-{mname}-swizzle{swz[0]}{swz[1]}{swz[2]}")
    # Phase structure: conflicts only within a matrix, or only across matrices.
    g.add(kernel, [(l % 8) * 16 + (l // 8) * 128 for l in lanes], "matrices-same-banks")
    g.add(kernel, [(l % 8) * 128 + (l // 8) * 16 for l in lanes], "rows-in-one-bankgroup")
    g.add(kernel, [(l % 4) * 16 + ((l // 4) % 2) * 128 + (l // 8) * 1024 for l in lanes], "rows4-7-repeat-banks")
    g.add(kernel, [(l % 8) * 16 + (l // 8) * 512 + ((l // 8) % 2) * 0 for l in lanes], "matrices-512B-apart")
    g.add(kernel, [l * 16 for l in lanes], "contiguous")
    g.add(kernel, [(l % 16) * 16 for l in lanes], "lanes-n-n^16-same")
    g.add(kernel, [(l % 8) * 16 for l in lanes], "all-matrices-same-rows")
    g.add(kernel, [0 for l in lanes], "broadcast")
    g.add(kernel, [(l // 2) * 16 for l in lanes], "pairs-n^1")
    g.add(kernel, [((l >> 2) * 2 + (l & 1)) * 16 for l in lanes], "pairs-n^2")
    g.add(kernel, [(l // 2) * 128 for l in lanes], "pairs-n^1-samebank")
    g.add(kernel, [(l % 8) * 16 + 4096 * (l // 8) + 128 * (l % 2) for l in lanes], "odd-rows-shift128")
    # Lanes the shape does not use: used lanes conflict-free, the rest all in one bank group.
    used = 8 * n
    if used < 32:
        g.add(kernel, [l * 16 if l < used else 2048 + l * 128 for l in lanes], "unused-lanes-conflicting")
        g.add(kernel, [l * 128 if l < used else l * 16 for l in lanes], "used-lanes-conflicting")
    for hi in (256, 1024, 4096, SMEM_BYTES):
        for _ in range(3 if not extended else 6):
            g.add(kernel, [g.aligned(16, hi) for _ in lanes], f"random<{hi}")
    for _ in range(2 if not extended else 5):
        # random permutation of the 8 bank groups per matrix, with some rows pushed into other
        # 128-byte lines
        offs = []
        for m in range(4):
            perm = list(range(8))
            g.rng.shuffle(perm)
            offs += [perm[r] * 16 + 128 * g.rng.randrange(4) for r in range(8)]
        g.add(kernel, offs, "random-bankgroups")


# ----------------------------------------------------------------------------------- cp.async
def cpasync_patterns(g, kernel, extended):
    w = width(kernel)
    lanes = range(32)
    for s in (0, 1, 2, 3, 4, 8, 16, 17, 32, 33):
        if 31 * s * w + w <= SMEM_BYTES:
            g.add(kernel, [i * s * w for i in lanes], f"stride{s}")
    for hi in (256, 1024, 4096, SMEM_BYTES):
        for _ in range(2 if not extended else 4):
            g.add(kernel, [g.aligned(w, hi) for _ in lanes], f"random<{hi}")
    for p in (0.3, 0.6):
        g.add(kernel, g.mask([i * w for i in lanes], p), f"mask{p}-stride1")
        g.add(kernel, g.mask([i * 8 * w for i in lanes], p), f"mask{p}-stride8")
    g.add(kernel, [i * w if i < 16 else -1 for i in lanes], "lanes0-15")
    g.add(kernel, [i * w if i >= 16 else -1 for i in lanes], "lanes16-31")
    g.add(kernel, [i * 32 * w if i % 8 == 0 else -1 for i in lanes], "every8th-stride32")
    g.add(kernel, [(i // 2) * w for i in lanes], "pairs-n^1")
    g.add(kernel, [((i >> 2) * 2 + (i & 1)) * w for i in lanes], "pairs-n^2")
    g.add(kernel, [(i // 2) * 4 * w for i in lanes], "pairs-n^1-stride4")
    g.add(kernel, [(i % 16) * w for i in lanes], "n-n^16-same")
    if w == 16:
        # A producer filling a tile: thread t copies 16-byte chunk t % C of row t // C.
        for rb in (64, 80, 128, 144):
            c = rb // 16
            g.add(kernel, [(t // c) * rb + (t % c) * 16 for t in lanes], f"tile-row{rb}B")
        for rb, swz in ((64, (2, 3, 3)), (128, (3, 3, 3)), (64, (3, 3, 3))):
            c = rb // 16
            g.add(kernel, [swizzle((t // c) * rb + (t % c) * 16, *swz) for t in lanes],
                  f"tile-row{rb}B-swizzle{swz[0]}{swz[1]}{swz[2]}")
        g.add(kernel, [(t % 8) * 128 + (t // 8) * 16 for t in lanes], "columns-of-chunks")


def generate(seed=14, extended=True):
    g = Gen(seed)
    for k in ATOMIC_32 + ATOMIC_64:
        atomic_patterns(g, k, extended and k in ("atom_add1_u32", "atom_add_u32", "atom_add_f32", "atom_cas_u32"))
    for k in LDSM + STSM:
        matrix_patterns(g, k, extended and k in ("ldsm_x4", "stsm_x4", "ldsm_x4_trans"))
    for k in CPASYNC:
        cpasync_patterns(g, k, extended and k in ("cp_ca_16", "cp_cg_16", "cp_ca_4"))
    added = Gen(seed + 1000)
    for k in ADDED:
        atomic_patterns(added, k, extended)
    return g.out + added.out


def cg_probe_patterns():
    """Second-round probes of the L1-bypass copy (cp.async.cg): two active lanes (one or two source
    sectors of one 128-byte global line, or of two lines) into chosen 16-byte destination chunks,
    one full global line under many chunk mappings, and pairs of chunks with identical global and
    shared layout (the _mirror kernel)."""
    g = Gen(140)
    k = "cp_cg_16"

    def two(a, da, b, db, tag):
        offs = [-1] * 32
        offs[a], offs[b] = da * 16, db * 16
        g.add(k, offs, tag)

    for a, da in ((0, 0), (0, 1), (1, 1), (1, 0)):
        for b in range(8):
            if b == a:
                continue
            for db in range(16):
                if db != da:
                    two(a, da, b, db, f"pair-l{a}c{da}-l{b}c{db}")
    for b in (8, 9, 12):
        for db in range(16):
            two(0, 0, b, db, f"pair-l0c0-l{b}c{db}")
    line = range(8)
    maps = {f"stride{s}": (lambda s: lambda l: l * s)(s) for s in range(0, 10)}
    maps.update({f"xor{x}": (lambda x: lambda l: l ^ x)(x) for x in range(1, 8)})
    maps.update({f"rot{r}": (lambda r: lambda l: (l + r) % 8)(r) for r in range(1, 8)})
    maps.update({f"plus{r}": (lambda r: lambda l: l + r)(r) for r in (1, 2, 3, 4, 8)})
    maps["reverse"] = lambda l: 7 - l
    maps["halves-swapped-sectors-kept"] = lambda l: l ^ 1
    maps["sector-reverse"] = lambda l: (3 - l // 2) * 2 + l % 2
    for name, f in maps.items():
        g.add(k, [f(l) * 16 if l < 8 else -1 for l in range(32)], f"line0-{name}")
    for _ in range(24):
        perm = list(range(16))
        g.rng.shuffle(perm)
        g.add(k, [perm[l] * 16 if l < 8 else -1 for l in range(32)], "line0-random16")
    for n in (3, 4, 5):
        for _ in range(30):
            offs = [-1] * 32
            for l in g.rng.sample(range(8), n):
                offs[l] = g.rng.randrange(16) * 16
            g.add(k, offs, f"line0-random{n}lanes")
    for b in range(1, 16):
        offs = [-1] * 32
        offs[0], offs[1] = 0, b * 16
        g.add("cp_cg_16_mirror", offs, f"mirror-pair-c0-c{b}")
    return g.out


def discovery(seed=14):
    """A few patterns per kernel, for finding which metrics count what: a conflict-free one and a
    conflicting one."""
    out = []
    for k in KERNELS:
        w = width(k)
        out.append({"kernel": k, "offsets": [i * w for i in range(32)], "gen": "discovery-stride1"})
        stride = 128 if w <= 8 else 128
        out.append({"kernel": k, "offsets": [i * stride for i in range(32)], "gen": "discovery-stride128"})
    return out


if __name__ == "__main__":
    pats = generate()
    by = {}
    for p in pats:
        by[p["kernel"]] = by.get(p["kernel"], 0) + 1
    print(len(pats), by)
