#!/usr/bin/env python3
"""Measure warp shared-memory access patterns with Nsight Compute on an NVIDIA GPU.

Builds hw/probe.cu for the GPU's own arch, checks its SASS (one LDS/STS of the right width per
kernel, no other shared-memory instruction), runs every pattern as one single-warp launch of the
probe under ONE ncu process per chunk, parses ncu's CSV and writes the calibration JSON shape:

  {"device": "...", "tool": "...", "note": "...",
   "patterns": [{"width", "op", "offsets", "wavefronts", "ncu_bank_conflicts"}]}

Patterns come from --patterns FILE (that JSON shape; measured fields in it are ignored, except for
the cross-check report) and/or --generate N (built-in generator, --seed). A cross-check file can be
re-measured in the same ncu runs (--xcheck FILE, --xcheck-first N, --xcheck-per-group N,
--xcheck-out OUT): its patterns go to their own output file and are compared with the file's
recorded wavefronts.

Baseline: one all-lanes-inactive launch per kernel is profiled first. If any shows nonzero
wavefronts or conflicts, that baseline is subtracted from every pattern of that kernel and the
note says so; otherwise nothing is subtracted. Python 3 standard library only.
"""
import argparse
import csv
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WIDTHS = (1, 2, 4, 8, 16)
OPS = ("load", "store")
SMEM_BYTES = 49152  # must match SMEM_BYTES in probe.cu
METRICS = {
    ("load", "wave"): "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    ("store", "wave"): "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    ("load", "conf"): "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    ("store", "conf"): "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
}
METRIC_LIST = [METRICS[k] for k in (("load", "wave"), ("store", "wave"), ("load", "conf"), ("store", "conf"))]
SASS_WIDTH = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "": 4, "32": 4, "U32": 4, "64": 8, "128": 16}


def sass_width(opcode):
    """(op, width) of an LDS/STS opcode such as LDS.U8 or STS.128; None for anything else."""
    parts = opcode.split(".")
    if parts[0] not in ("LDS", "STS"):
        return None
    sizes = [x for x in parts[1:] if x in SASS_WIDTH] or [""]
    return ("load" if parts[0] == "LDS" else "store", SASS_WIDTH[sizes[0]])


def kernel_name(width, op):
    return f"probe_{'ld' if op == 'load' else 'st'}_w{width}"


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def sh(cmd, **kw):
    log("$ " + " ".join(cmd))
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


# --------------------------------------------------------------------------------------------
# pattern generator
# --------------------------------------------------------------------------------------------
def generate(n_min, seed):
    """A deterministic mix of patterns; at least n_min (per-(width, op) quotas scale up)."""
    rng = random.Random(seed)
    out = []
    seen = set()

    def add(width, op, offs, tag):
        offs = [int(o) for o in offs]
        assert len(offs) == 32
        assert any(o >= 0 for o in offs) or tag == "none-active"
        for o in offs:
            assert o == -1 or (o >= 0 and o % width == 0 and o + width <= SMEM_BYTES), (tag, width, offs)
        key = (width, op, tuple(offs))
        if key in seen:
            return
        seen.add(key)
        out.append({"width": width, "op": op, "offsets": offs, "gen": tag})

    def mask(offs, keep):
        return [o if keep(i) else -1 for i, o in enumerate(offs)]

    def rnd_mask(offs, p):
        m = [o if rng.random() < p else -1 for o in offs]
        if all(o < 0 for o in m):
            m[rng.randrange(32)] = offs[0] if offs[0] >= 0 else 0
        return m

    def aligned(width, hi):
        return rng.randrange(0, hi // width) * width

    stride_set = list(range(0, 18)) + [19, 20, 23, 24, 31, 32, 33, 40, 47, 48, 63, 64]
    for width in WIDTHS:
        for op in OPS:
            # 1) element strides 0..64 (byte stride = s * width), random small aligned base
            for s in stride_set:
                maxbase = min(512, SMEM_BYTES - 31 * s * width - width)
                base = aligned(width, max(maxbase, width)) if s else aligned(width, 1024)
                add(width, op, [base + i * s * width for i in range(32)], f"stride{s}")
            # 2) byte strides that are not multiples of the width (only where still aligned) and
            #    strides of 4-byte words for sub-word widths
            if width < 4:
                for s in (1, 2, 3, 4, 5, 6, 8, 12, 16, 33, 64, 128, 129, 132):
                    bs = s * width if width == 2 else s
                    if 31 * bs + width <= SMEM_BYTES:
                        add(width, op, [i * bs for i in range(32)], f"bytestride{bs}")
            # 3) random aligned offsets, small and large windows
            for hi in (64, 256, 1024, 4096, SMEM_BYTES):
                for _ in range(2):
                    add(width, op, [aligned(width, hi) for _ in range(32)], f"random<{hi}")
            # 4) random inactive-lane masks over strided and random patterns
            for p in (0.25, 0.5, 0.75, 0.9):
                s = rng.choice([1, 2, 3, 4, 8, 16, 17, 32, 33])
                add(width, op, rnd_mask([i * s * width for i in range(32)], p), f"mask{p}-stride{s}")
                add(width, op, rnd_mask([aligned(width, 2048) for _ in range(32)], p), f"mask{p}-random")
            add(width, op, mask([i * width for i in range(32)], lambda i: i < 16), "lanes0-15")
            add(width, op, mask([i * width for i in range(32)], lambda i: i >= 16), "lanes16-31")
            add(width, op, mask([i * 32 * width for i in range(32)], lambda i: i % 8 == 0), "every8th-stride32")
            add(width, op, mask([0] * 32, lambda i: i == 5), "single-lane")
            # 5) broadcasts and address sharing between lanes (wide-load merge rule, all widths)
            b = aligned(width, 4096)
            add(width, op, [b] * 32, "broadcast")
            add(width, op, [(i // 2) * width for i in range(32)], "pairs-n^1-stride1")
            add(width, op, [(i // 4) * width for i in range(32)], "quads")
            add(width, op, [((i >> 2) * 2 + (i & 1)) * width for i in range(32)], "pairs-n^2-stride1")
            for k in (2, 3, 4, 8, 16, 32):
                add(width, op, [(i // 2) * k * width for i in range(32)], f"pairs-n^1-stride{k}")
                add(width, op, [((i >> 2) * 2 + (i & 1)) * k * width for i in range(32)], f"pairs-n^2-stride{k}")
            pr = [aligned(width, 2048) for _ in range(16)]
            add(width, op, [pr[i // 2] for i in range(32)], "pairs-n^1-random")
            add(width, op, [pr[(i >> 2) * 2 + (i & 1)] for i in range(32)], "pairs-n^2-random")
            add(width, op, rnd_mask([pr[i // 2] for i in range(32)], 0.6), "pairs-n^1-random-masked")
            add(width, op, rnd_mask([pr[(i >> 2) * 2 + (i & 1)] for i in range(32)], 0.6), "pairs-n^2-random-masked")
            near = [(i // 2) * 4 * width for i in range(32)]
            near[13] = near[13] + 64 * width  # breaks the n^1 pairing in one pair only
            add(width, op, near, "pairs-n^1-near-miss")
            add(width, op, [(i & ~4) * width for i in range(32)], "pairs-n^4")
            add(width, op, [(i & 15) * width for i in range(32)], "pairs-n^16")
            add(width, op, [(i & ~8) * 2 * width for i in range(32)], "pairs-n^8-stride2")
            add(width, op, mask([i * width for i in range(32)], lambda i: i % 2 == 0), "even-lanes-stride1")
            add(width, op, mask([i * width for i in range(32)], lambda i: i % 2 == 1), "odd-lanes-stride1")
            add(width, op, mask([i * 2 * width for i in range(32)], lambda i: (i & 2) == 0), "lanes-bit1-clear")
            add(width, op, mask([i * 8 * width for i in range(32)], lambda i: i % 4 == 0), "every4th-stride8")
            add(width, op, [(i % 2) * 32 * width + (i // 2) * 4 * width for i in range(32)], "halves-interleaved")
            add(width, op, [b] * 16 + [b + 128 * width * (1 + i % 3) for i in range(16)], "half-broadcast")
            # 6) sub-word: lanes touching different bytes of the same / conflicting words
            if width < 4:
                per = 4 // width
                add(width, op, [(i // per) * 4 + (i % per) * width for i in range(32)], "subword-packed")
                add(width, op, [(i % per) * width + (i // per) * 128 for i in range(32)], "subword-same-bank")
                add(width, op, [(i % per) * width + i * 128 for i in range(32)], "subword-stride128")
                add(width, op, [rng.randrange(0, 8 // width) * width for _ in range(32)], "subword-2words")
                add(width, op, [rng.randrange(0, 2) * 128 + rng.randrange(0, per) * width for _ in range(32)],
                    "subword-2words-same-bank")
                add(width, op, [(i % per) * width + (i // per % 2) * 128 + (i // per // 2) * 4 for i in range(32)],
                    "subword-2way")
    # top up with random patterns until n_min is reached
    while len(out) < n_min:
        width, op = rng.choice(WIDTHS), rng.choice(OPS)
        offs = [aligned(width, rng.choice((256, 2048, SMEM_BYTES))) for _ in range(32)]
        add(width, op, rnd_mask(offs, rng.choice((0.5, 1.0))), "random-topup")
    return out


# --------------------------------------------------------------------------------------------
# device, build, SASS check
# --------------------------------------------------------------------------------------------
def gpu_arch(args):
    if args.arch:
        return args.arch
    try:
        r = sh(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"])
        cc = r.stdout.strip().splitlines()[0].strip()
        return "sm_" + cc.replace(".", "")
    except Exception as e:  # noqa: BLE001
        log(f"nvidia-smi did not give a compute capability ({e}); using -arch=native")
        return "native"


def build(args, work):
    arch = gpu_arch(args)
    exe = os.path.join(work, "probe")
    r = sh([args.nvcc, "-O3", f"-arch={arch}", "-Xptxas", "-v", "-o", exe, os.path.join(HERE, "probe.cu")])
    ptxas = r.stderr
    with open(os.path.join(work, "build.log"), "w") as f:
        f.write(ptxas)
    info = sh([exe, "--info"]).stdout.strip().split("\t")
    name, major, minor = info[0], int(info[1]), int(info[2])
    sm = f"sm_{major}{minor}"
    if arch not in ("native", sm):
        log(f"WARNING: built for {arch} but the device is {sm}")
    return exe, name, sm, arch, ptxas


SHARED_OPS = re.compile(r"\b(LDS|STS|LDSM|STSM|ATOMS|RED\.\S*SHARED|LDGSTS|LD|ST|ATOM|RED|MATCH)(\.[A-Z0-9_.]+)?\b")


def sass_check(args, exe, work):
    """Return (ok, summary lines). Counts shared-memory (and generic) memory instructions per kernel."""
    r = sh([args.cuobjdump, "-sass", exe])
    with open(os.path.join(work, "probe.sass"), "w") as f:
        f.write(r.stdout)
    funcs = {}
    cur = None
    for line in r.stdout.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        if cur is None:
            continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
        if not m:
            continue
        ins = m.group(1).strip()
        ins = re.sub(r"^@!?U?P[T0-9]+\s+", "", ins)
        opcode = ins.split()[0]
        base = opcode.split(".")[0]
        if base in ("LDS", "STS", "LDSM", "STSM", "ATOMS", "LDGSTS", "LD", "ST", "ATOM"):
            funcs[cur].append(opcode)
    ok = True
    lines = []
    for width in WIDTHS:
        for op in OPS:
            k = kernel_name(width, op)
            got = funcs.get(k)
            good = got is not None and len(got) == 1 and sass_width(got[0]) == (op, width)
            ok &= good
            lines.append(f"{k}: memory-space instructions {got} (want one {'LDS' if op == 'load' else 'STS'} "
                         f"of {width} B) {'OK' if good else 'FAIL'}")
    return ok, lines


def tool_versions(args):
    ncu = sh([args.ncu, "--version"]).stdout
    nvcc = sh([args.nvcc, "--version"]).stdout
    m = re.search(r"Version\s+([0-9.]+)", ncu)
    ncu_v = m.group(1) if m else ncu.strip().splitlines()[-1]
    m = re.search(r"release\s+([0-9.]+),\s*(V[0-9.]+)", nvcc)
    nvcc_v = f"{m.group(1)} ({m.group(2)})" if m else nvcc.strip().splitlines()[-1]
    drv = ""
    try:
        drv = sh(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]).stdout.strip().splitlines()[0]
    except Exception:  # noqa: BLE001
        pass
    return ncu_v, nvcc_v, drv


# --------------------------------------------------------------------------------------------
# ncu
# --------------------------------------------------------------------------------------------
def parse_ncu_csv(text):
    """Return {launch id: {"kernel": name, metric: value}} from ncu --csv output."""
    rows = [l for l in text.splitlines() if l.startswith('"')]
    res = {}
    header = None
    for row in csv.reader(io.StringIO("\n".join(rows))):
        if "Metric Name" in row and "ID" in row:
            header = row
            continue
        if header is None or len(row) != len(header):
            continue
        d = dict(zip(header, row))
        i = int(d["ID"])
        e = res.setdefault(i, {"kernel": d["Kernel Name"]})
        v = d["Metric Value"].replace(",", "").strip()
        e[d["Metric Name"]] = float(v) if v not in ("", "n/a") else None
    return res


def run_ncu(args, exe, work, launches, chunk_idx):
    pf = os.path.join(work, f"launches_{chunk_idx}.txt")
    with open(pf, "w") as f:
        for width, op, offs in launches:
            f.write(f"{width} {'L' if op == 'load' else 'S'} " + " ".join(map(str, offs)) + "\n")
    cmd = [args.ncu, "--clock-control", "none", "--metrics", ",".join(METRIC_LIST), "--csv", exe, pf]
    log("$ " + " ".join(cmd))
    r = subprocess.run(cmd, text=True, capture_output=True)
    with open(os.path.join(work, "ncu_raw.csv"), "a") as f:
        f.write(f"# chunk {chunk_idx}\n" + r.stdout)
    with open(os.path.join(work, "ncu_stderr.log"), "a") as f:
        f.write(f"# chunk {chunk_idx}\n" + r.stderr)
    if r.returncode != 0:
        log(r.stdout[-3000:])
        log(r.stderr[-3000:])
        sys.exit(f"ncu failed with status {r.returncode}")
    res = parse_ncu_csv(r.stdout)
    if sorted(res) != list(range(len(launches))):
        sys.exit(f"ncu reported {len(res)} kernels, expected {len(launches)} (chunk {chunk_idx})")
    out = []
    for i, (width, op, offs) in enumerate(launches):
        e = res[i]
        if not e["kernel"].startswith(kernel_name(width, op)):
            sys.exit(f"launch {i} of chunk {chunk_idx}: kernel {e['kernel']!r}, expected {kernel_name(width, op)}")
        vals = {}
        for (o, kind), m in METRICS.items():
            if e.get(m) is None:
                sys.exit(f"launch {i}: metric {m} missing")
            vals[(o, kind)] = e[m]
        out.append(vals)
    return out


def measure(args, exe, work, launches):
    results = []
    for c in range(0, len(launches), args.chunk):
        results += run_ncu(args, exe, work, launches[c:c + args.chunk], c // args.chunk)
        log(f"measured {len(results)} / {len(launches)} launches")
    return results


# --------------------------------------------------------------------------------------------
def load_patterns(path):
    d = json.load(open(path))
    pats = d["patterns"] if isinstance(d, dict) else d
    for p in pats:
        assert p["width"] in WIDTHS and p["op"] in OPS and len(p["offsets"]) == 32, p
    return pats


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--patterns", help="input JSON in the calibration shape")
    ap.add_argument("--generate", type=int, default=0, help="generate at least N patterns")
    ap.add_argument("--seed", type=int, default=90)
    ap.add_argument("--out", required=True, help="output JSON")
    ap.add_argument("--xcheck", help="cross-check JSON with recorded wavefronts (re-measured too)")
    ap.add_argument("--xcheck-first", type=int, default=200, help="take its first N patterns")
    ap.add_argument("--xcheck-per-group", type=int, default=0,
                    help="also take the first N patterns of every (width, op) not already taken")
    ap.add_argument("--xcheck-out", help="output JSON for the re-measured cross-check patterns")
    ap.add_argument("--repeat", type=int, default=20, help="re-measure the first N own patterns as a stability check")
    ap.add_argument("--work", default="hw_work", help="build / raw-log directory")
    ap.add_argument("--chunk", type=int, default=400, help="launches per ncu process")
    ap.add_argument("--arch", help="nvcc -arch (default: from nvidia-smi)")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    ap.add_argument("--allow-sass-mismatch", action="store_true",
                    help="measure even if the SASS check fails (recorded in the note)")
    ap.add_argument("--dry-run", action="store_true", help="only write the generated patterns to --out")
    args = ap.parse_args()

    own = []
    if args.patterns:
        own += [{"width": p["width"], "op": p["op"], "offsets": p["offsets"]} for p in load_patterns(args.patterns)]
    if args.generate:
        own += generate(args.generate, args.seed)
    if args.dry_run:
        json.dump({"patterns": own}, open(args.out, "w"))
        log(f"wrote {len(own)} patterns to {args.out}")
        return
    xc = []
    if args.xcheck:
        allx = load_patterns(args.xcheck)
        idx = list(range(min(args.xcheck_first, len(allx))))
        if args.xcheck_per_group:
            taken = {(allx[i]["width"], allx[i]["op"]) for i in idx}
            cnt = {}
            for i, p in enumerate(allx):
                g = (p["width"], p["op"])
                if g not in taken and cnt.get(g, 0) < args.xcheck_per_group:
                    cnt[g] = cnt.get(g, 0) + 1
                    idx.append(i)
        xc = [(i, allx[i]) for i in idx]
    if not own and not xc:
        sys.exit("nothing to measure: give --patterns, --generate or --xcheck")

    os.makedirs(args.work, exist_ok=True)
    for f in ("ncu_raw.csv", "ncu_stderr.log"):
        if os.path.exists(os.path.join(args.work, f)):
            os.remove(os.path.join(args.work, f))
    exe, devname, sm, arch, ptxas = build(args, args.work)
    ok, sass_lines = sass_check(args, exe, args.work)
    log("\n".join(sass_lines))
    if not ok:
        if not args.allow_sass_mismatch:
            sys.exit("SASS check failed: a probe kernel is not exactly one shared-memory instruction of its width "
                     "(see probe.sass in --work; --allow-sass-mismatch measures anyway and says so in the note)")
        log("WARNING: SASS check FAILED, measuring anyway (--allow-sass-mismatch)")
    smem = sorted(set(re.findall(r"(\d+) bytes smem", ptxas)))
    ncu_v, nvcc_v, drv = tool_versions(args)
    log(f"device {devname} ({sm}), driver {drv}, ncu {ncu_v}, nvcc {nvcc_v}, ptxas smem {smem}")

    baselines = [(w, o, [-1] * 32) for w in WIDTHS for o in OPS]
    launches = baselines + [(p["width"], p["op"], p["offsets"]) for p in own] \
        + [(p["width"], p["op"], p["offsets"]) for _, p in xc] \
        + [(p["width"], p["op"], p["offsets"]) for p in own[:args.repeat]]
    res = measure(args, exe, args.work, launches)

    nb = len(baselines)
    base = {}
    for (w, o, _), v in zip(baselines, res[:nb]):
        base[(w, o)] = v
    nonzero_base = {k: v for k, v in base.items() if any(x != 0 for x in v.values())}

    def value(width, op, v):
        b = base[(width, op)]
        wave = v[(op, "wave")] - b[(op, "wave")]
        conf = v[(op, "conf")] - b[(op, "conf")]
        other = "store" if op == "load" else "load"
        stray = (v[(other, "wave")] - b[(other, "wave")], v[(other, "conf")] - b[(other, "conf")])
        return int(round(wave)), int(round(conf)), stray

    anomalies = []
    own_res = res[nb:nb + len(own)]
    xc_res = res[nb + len(own):nb + len(own) + len(xc)]
    rep_res = res[nb + len(own) + len(xc):]
    own_out = []
    for p, v in zip(own, own_res):
        wave, conf, stray = value(p["width"], p["op"], v)
        if stray != (0, 0):
            anomalies.append(f"own pattern {len(own_out)}: other-op counters {stray}")
        own_out.append({"width": p["width"], "op": p["op"], "offsets": p["offsets"],
                        "wavefronts": wave, "ncu_bank_conflicts": conf})
    rep_diff = [i for i, v in enumerate(rep_res) if value(own[i]["width"], own[i]["op"], v)[:2]
                != (own_out[i]["wavefronts"], own_out[i]["ncu_bank_conflicts"])]
    xc_out, xc_bad = [], []
    for (i, p), v in zip(xc, xc_res):
        wave, conf, stray = value(p["width"], p["op"], v)
        xc_out.append({"width": p["width"], "op": p["op"], "offsets": p["offsets"],
                       "wavefronts": wave, "ncu_bank_conflicts": conf})
        if wave != p.get("wavefronts") or ("ncu_bank_conflicts" in p and conf != p["ncu_bank_conflicts"]):
            xc_bad.append((i, p.get("wavefronts"), p.get("ncu_bank_conflicts"), wave, conf))
    n_first = min(args.xcheck_first, len(xc))
    xc_bad_first = [b for b in xc_bad if b[0] < n_first]

    if nonzero_base:
        base_note = ("baseline (all lanes inactive) launches showed nonzero counters, SUBTRACTED per kernel from "
                     "every pattern of that kernel: " + "; ".join(
                         f"{kernel_name(w, o)} {dict((f'{a}_{b}', x) for (a, b), x in v.items())}"
                         for (w, o), v in sorted(nonzero_base.items())))
    else:
        base_note = ("baseline launches with all lanes inactive read 0 wavefronts and 0 conflicts for all 10 kernels, "
                     "so nothing was subtracted")
    note = (
        "one warp (32 threads), one shared-memory instruction per launch, one launch per pattern; offsets are "
        "per-lane byte offsets into a 16-byte-aligned 48 KiB __shared__ buffer (never initialised), -1 = lane "
        "inactive (it exits before the instruction, so it is off in the warp's active mask). The buffer starts at a "
        "multiple of 128 B in the shared window (0x400 on sm_90), so offset mod 128 fixes the bank. Probe hw/probe.cu (inline PTX ld/st.shared .u8/.u16/.u32/.v2.u32/.v4.u32), "
        f"built with nvcc -O3 -arch={arch}; SASS check ({'passed' if ok else 'FAILED: ' + '; '.join(sass_lines)}): "
        "each kernel must have exactly one shared-memory instruction (LDS.U8/.U16/LDS/.64/.128, STS likewise) "
        "and no other memory-space-generic or shared one. wavefronts = l1tex__data_pipe_lsu_wavefronts_mem_"
        "shared_op_{ld|st}.sum for the pattern's op; ncu_bank_conflicts = l1tex__data_bank_conflicts_pipe_lsu_mem_"
        f"shared_op_{{ld|st}}.sum. {base_note}. Patterns generated by hw/measure.py --generate {args.generate} "
        f"--seed {args.seed}" + (f" plus {args.patterns}" if args.patterns else "") + f" ({len(own_out)} in all). "
        f"Stability: the first {len(rep_res)} patterns were measured twice in the same run, "
        f"{len(rep_res) - len(rep_diff)} identical. "
        + (f"Cross-check: re-measured {len(xc)} patterns of {os.path.basename(args.xcheck)} in the same runs "
           f"(its first {n_first}, then the first {args.xcheck_per_group} of every other width x op); "
           f"{n_first - len(xc_bad_first)} of the first {n_first} and {len(xc) - len(xc_bad)} of all {len(xc)} match "
           "its recorded wavefronts and ncu_bank_conflicts exactly; they are not in this file. " if xc else "")
        + (f"Anomalies: {anomalies}. " if anomalies else "No counts of the other op (load vs store) appeared. ")
    )
    tool = (f"Nsight Compute {ncu_v} (ncu --clock-control none --csv), metrics {', '.join(METRIC_LIST)}; "
            f"nvcc {nvcc_v}; driver {drv}")
    device = f"{devname} ({sm})"
    json.dump({"device": device, "tool": tool, "note": note, "patterns": own_out}, open(args.out, "w"))
    log(f"wrote {len(own_out)} patterns to {args.out}")
    if args.xcheck_out and xc:
        json.dump({"device": device, "tool": tool,
                   "note": f"re-measurement of patterns {[i for i, _ in xc]} of {args.xcheck}; " + note,
                   "patterns": xc_out}, open(args.xcheck_out, "w"))
    print("SASS:\n  " + "\n  ".join(sass_lines))
    print(f"device: {device}; tool: {tool}")
    print(f"baseline: {base_note}")
    print(f"own patterns: {len(own_out)}; repeats identical: {len(rep_res) - len(rep_diff)}/{len(rep_res)} {rep_diff}")
    if xc:
        print(f"cross-check: {len(xc) - len(xc_bad)}/{len(xc)} match (first {n_first}: "
              f"{n_first - len(xc_bad_first)}/{n_first})")
        for b in xc_bad[:50]:
            print(f"  xcheck #{b[0]}: recorded wave={b[1]} conf={b[2]}, measured wave={b[3]} conf={b[4]}")
    if anomalies:
        print("anomalies:", anomalies[:20])


if __name__ == "__main__":
    main()
