#!/usr/bin/env python3
"""Measure shared-memory atomics, ldmatrix / stmatrix and cp.async with Nsight Compute.

Builds hw/probe_ops.cu, checks its SASS against ops_patterns.EXPECTED_SASS, then:

1. discovery: lists the GPU's metrics (ncu --query-metrics), keeps the shared-memory ones
   (`l1tex__`/`smsp__` names with shared, ldsm, stsm, ldgsts, atom or data_bank in them, `.sum`),
   and profiles a per-kernel baseline (the warp skips the operation) plus two patterns per kernel
   with ALL of them;
2. measurement: every generated pattern (ops_patterns.generate) with the metrics that moved in
   discovery, ONE ncu process per --chunk launches, with a wall-clock budget (--budget seconds):
   patterns are ordered round-robin over the kernels, so a cut-short run still covers each;
3. writes RAW JSON (--out): device, versions, SASS, metrics, baselines and, per pattern, every
   nonzero metric value as ncu printed it. Nothing is subtracted or derived here.

`--export RAW --data-dir DIR` turns a RAW file into the committed test data (see hw/README.md).
`--dry-run` writes the patterns only; `--fake-gpu` runs everything against a stand-in for ncu and
the GPU (for testing this script on a machine without one). Python 3 standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ops_patterns as P  # noqa: E402
from measure import parse_ncu_csv  # noqa: E402

KEEP = re.compile(r"shared|ldsm|stsm|ldgsts|atom|data_bank")
DROP = re.compile(r"global_op_atom|global_op_red|_red\b|op_red|surface|texture|_tex_|lookup|tag|miss|hit_rate|"
                  r"per_second|pct|ratio|peak|_dsmem|distributed")
CORE = [
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
]
# The metric each family is modelled on (read off discovery; the measured JSON keeps them all).
PRIMARY = {
    "atomic": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
               "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
               "smsp__sass_inst_executed_op_shared_atom.sum"),
    "ldmatrix": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
                 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum",
                 "smsp__sass_inst_executed_op_ldsm.sum"),
    "stmatrix": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
                 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum",
                 "smsp__sass_inst_executed_op_stsm.sum"),
    "cp.async": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
                 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
                 "smsp__sass_inst_executed_op_ldgsts.sum"),
}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def sh(cmd, check=True):
    log("$ " + " ".join(cmd)[:300])
    r = subprocess.run(cmd, text=True, capture_output=True)
    if check and r.returncode != 0:
        log(r.stdout[-3000:], r.stderr[-3000:])
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)[:200]}")
    return r


# ------------------------------------------------------------------------------------ build
def build(args, work):
    exe = os.path.join(work, "probe_ops")
    r = sh([args.nvcc, "-O3", f"-arch={args.arch}", "-Xptxas", "-v", "-o", exe,
            os.path.join(HERE, "probe_ops.cu")] + args.nvcc_extra)
    return exe, r.stderr


def sass_of(args, exe, work):
    """{kernel: [shared-memory instructions in order]}; never-executed `@!PT` lines skipped."""
    text = sh([args.cuobjdump, "-sass", exe]).stdout
    with open(os.path.join(work, "probe_ops.sass"), "w") as f:
        f.write(text)
    funcs, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1).removeprefix("probe_")
            funcs[cur] = []
            continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
        if cur is None or not m:
            continue
        ins = m.group(1).strip()
        if ins.startswith("@!PT "):
            continue
        ins = re.sub(r"^@!?U?P[T0-9]+\s+", "", ins)
        op = ins.split()[0]
        if op.split(".")[0] in ("LDS", "STS", "LDSM", "STSM", "ATOMS", "LDGSTS", "LD", "ST", "ATOM", "RED"):
            funcs[cur].append(op)
    return funcs


# ------------------------------------------------------------------------------------ ncu
def available_metrics(args, work):
    r = sh([args.ncu, "--query-metrics"], check=False)
    with open(os.path.join(work, "metrics_query.txt"), "w") as f:
        f.write(r.stdout + "\n# stderr\n" + r.stderr)
    base = sorted({m for m in re.findall(r"^([a-z0-9]+__[a-z0-9_]+)", r.stdout, re.M)
                   if (m.startswith("l1tex__") or m.startswith("smsp__")) and KEEP.search(m)
                   and not DROP.search(m)})
    log(f"{len(base)} candidate base metrics")
    sums = []
    if base:
        r2 = sh([args.ncu, "--query-metrics-mode", "suffix", "--metrics", ",".join(base)], check=False)
        with open(os.path.join(work, "metrics_query.txt"), "a") as f:
            f.write("\n# suffix mode\n" + r2.stdout + "\n# stderr\n" + r2.stderr)
        sums = sorted({m for m in re.findall(r"\b([a-z0-9]+__[a-z0-9_]+\.sum)\b", r2.stdout)
                       if m[:-4] in base})
        if not sums:
            sums = [b + ".sum" for b in base]
    return base, sums


def run_ncu(args, exe, work, launches, metrics, tag):
    """launches: [(kernel, skip, offsets)] -> [{metric: value}] in order."""
    pf = os.path.join(work, f"launches_{tag}.txt")
    with open(pf, "w") as f:
        for k, skip, offs in launches:
            f.write(f"{k} {skip} " + " ".join(map(str, offs)) + "\n")
    cmd = [args.ncu, "--clock-control", "none", "--print-units", "base", "--metrics", ",".join(metrics),
           "--csv", exe, pf]
    t0 = time.time()
    r = sh(cmd, check=False)
    with open(os.path.join(work, "ncu_raw.csv"), "a") as f:
        f.write(f"# {tag}\n" + r.stdout)
    with open(os.path.join(work, "ncu_stderr.log"), "a") as f:
        f.write(f"# {tag}\n" + r.stderr[-20000:])
    if r.returncode != 0:
        log(r.stdout[-3000:], r.stderr[-3000:])
        raise RuntimeError(f"ncu failed with status {r.returncode} ({tag})")
    res = parse_ncu_csv(r.stdout)
    if sorted(res) != list(range(len(launches))):
        raise RuntimeError(f"ncu reported {len(res)} kernels, expected {len(launches)} ({tag})")
    out = []
    for i, (k, _, _) in enumerate(launches):
        e = res[i]
        if not e["kernel"].startswith("probe_" + k):
            raise RuntimeError(f"launch {i} ({tag}): kernel {e['kernel']!r}, expected probe_{k}")
        out.append({m: v for m, v in e.items() if m != "kernel"})
    log(f"{tag}: {len(launches)} launches, {len(metrics)} metrics, {time.time() - t0:.1f} s")
    return out


def accepted_metrics(args, exe, work, cands, probe_launch):
    """The candidates ncu profiles without error: groups of 16, and one by one in a failing group."""
    ok = []
    for g in range(0, len(cands), 16):
        group = cands[g:g + 16]
        try:
            run_ncu(args, exe, work, probe_launch, group, f"accept{g}")
            ok += group
        except RuntimeError:
            for m in group:
                try:
                    run_ncu(args, exe, work, probe_launch, [m], "accept1")
                    ok.append(m)
                except RuntimeError:
                    log(f"metric {m} rejected")
    return ok


def nonzero(vals):
    return {m: (int(v) if v is not None and float(v).is_integer() else v) for m, v in vals.items()
            if v not in (None, 0, 0.0)}


# ------------------------------------------------------------------------------------ main
def plan(args):
    """The patterns to measure: generated ones; with --previous, a follow-up run instead."""
    pats = P.generate(args.seed)
    if args.kernels:
        # a follow-up run for some kernels only (e.g. one added to the probe)
        return [p for p in pats if p["kernel"] in args.kernels.split(",")]
    if args.previous:
        # what the previous run did not reach, second-round probes, and repeats of some of its patterns
        prev = json.load(open(args.previous))
        done = {(p["kernel"], tuple(p["offsets"])) for p in prev["patterns"]}
        pats = [p for p in pats if (p["kernel"], tuple(p["offsets"])) not in done]
        pats += P.cg_probe_patterns()
        pats += [{"kernel": p["kernel"], "offsets": p["offsets"], "gen": "repeat:" + p["gen"]}
                 for i, p in enumerate(prev["patterns"]) if i % 8 == 0 or p["kernel"].startswith("cp_cg")]
    return pats


def measure(args):
    t_start = time.time()
    work = args.work
    os.makedirs(work, exist_ok=True)
    for f in ("ncu_raw.csv", "ncu_stderr.log"):
        if os.path.exists(os.path.join(work, f)):
            os.remove(os.path.join(work, f))
    exe, ptxas = build(args, work)
    sass = sass_of(args, exe, work)
    sass_bad = {k: sass.get(k) for k in P.KERNELS if sass.get(k) != P.EXPECTED_SASS[k]}
    for k in P.KERNELS:
        log(f"SASS {k}: {sass.get(k)} {'OK' if k not in sass_bad else 'UNEXPECTED, want ' + str(P.EXPECTED_SASS[k])}")
    if args.fake_gpu:
        info = ["FAKE GPU", "9", "0", "1024"]
    else:
        info = sh([exe, "--info"]).stdout.strip().split("\t")
    versions = {}
    for name, cmd in (("ncu", [args.ncu, "--version"]), ("nvcc", [args.nvcc, "--version"]),
                      ("driver", ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])):
        try:
            versions[name] = sh(cmd, check=False).stdout.strip()
        except OSError as e:
            versions[name] = f"unavailable: {e}"
    if args.metrics:
        base, cands = [], args.metrics.split(",")
    else:
        base, cands = available_metrics(args, work)
        cands = sorted(set(cands) | set(CORE))
    log(f"{len(cands)} candidate .sum metrics")

    baselines = [(k, 1, [i * P.width(k) for i in range(32)]) for k in P.KERNELS]
    disc = [(p["kernel"], 0, p["offsets"]) for p in P.discovery()]
    disc_base = [b for b in baselines if b[0] in ("atom_add_f32", "ldsm_x4", "stsm_x4", "cp_cg_16")]
    if args.metrics:
        disc, disc_base = disc[:0], disc_base[:0]
        d_res = []
    else:
      try:
        d_res = run_ncu(args, exe, work, disc_base + disc, cands, "discovery")
      except RuntimeError as e:
        log(f"discovery with {len(cands)} metrics failed ({e}); keeping the groups of metrics ncu accepts")
        cands = accepted_metrics(args, exe, work, cands, disc[:1])
        d_res = run_ncu(args, exe, work, disc_base + disc, cands, "discovery-accepted")
    moved = sorted({m for v in d_res for m, x in v.items() if x not in (None, 0, 0.0)})
    chosen = sorted((set(moved) | set(CORE) | {m for v in PRIMARY.values() for m in v}) & set(cands))
    if args.metrics:
        chosen = cands
    log(f"{len(moved)} metrics moved in discovery; measuring with {len(chosen)}")

    pats = plan(args)
    # round-robin over kernels, so a run cut short by the budget still covers every kernel
    by = {}
    for p in pats:
        by.setdefault(p["kernel"], []).append(p)
    order = []
    while any(by.values()):
        for k in P.KERNELS:
            if by.get(k):
                order.append(by[k].pop(0))
    repeats = order[::args.repeat_every]
    launches = baselines + [(p["kernel"], 0, p["offsets"]) for p in order] \
        + [(p["kernel"], 0, p["offsets"]) for p in repeats]
    results, stopped = [], None
    for c in range(0, len(launches), args.chunk):
        if time.time() - t_start > args.budget:
            stopped = f"stopped by the {args.budget} s budget after {len(results)} of {len(launches)} launches"
            log(stopped)
            break
        try:
            results += run_ncu(args, exe, work, launches[c:c + args.chunk], chosen, f"chunk{c // args.chunk}")
        except RuntimeError as e:
            stopped = f"stopped after {len(results)} of {len(launches)} launches: {e}"
            log(stopped)
            break
    nb = len(baselines)
    out_b = {k: nonzero(v) for (k, _, _), v in zip(baselines, results[:nb])}
    out_p = []
    for p, v in zip(order, results[nb:nb + len(order)]):
        out_p.append({"kernel": p["kernel"], "gen": p["gen"], "offsets": p["offsets"], "metrics": nonzero(v)})
    out_r = []
    for p, v in zip(repeats, results[nb + len(order):]):
        out_r.append({"kernel": p["kernel"], "offsets": p["offsets"], "metrics": nonzero(v)})
    doc = {
        "device": f"{info[0]} (sm_{info[1]}{info[2]})",
        "shared_window_base": int(info[3]),
        "versions": versions,
        "build": f"nvcc -O3 -arch={args.arch} hw/probe_ops.cu",
        "ptxas": ptxas[-4000:],
        "sass": {k: sass.get(k) for k in P.KERNELS},
        "sass_unexpected": sass_bad,
        "metrics_candidates": cands,
        "metrics": chosen,
        "discovery": [{"kernel": k, "skip": s, "offsets": o, "metrics": nonzero(v)}
                      for (k, s, o), v in zip(disc_base + disc, d_res)],
        "baselines": out_b,
        "patterns": out_p,
        "repeats": out_r,
        "stopped": stopped,
        "elapsed_s": round(time.time() - t_start, 1),
        "seed": args.seed,
    }
    json.dump(doc, open(args.out, "w"))
    log(f"wrote {args.out}: {len(out_p)} of {len(order)} patterns, {len(out_r)} repeats, "
        f"{doc['elapsed_s']} s")
    # a short summary for the reply's tail
    print(f"device {doc['device']}; base {info[3]}; {len(out_p)}/{len(order)} patterns; {stopped or 'complete'}")
    print("SASS unexpected:", sass_bad or "none")
    print("metrics that moved in discovery:", moved)
    same = sum(1 for r in out_r for p in out_p if p["offsets"] == r["offsets"] and p["kernel"] == r["kernel"]
               and p["metrics"] == r["metrics"])
    print(f"repeats identical: {same}/{len(out_r)}")
    print("nonzero baselines:", {k: v for k, v in out_b.items() if v})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="RAW JSON to write (measurement) or read (--export)")
    ap.add_argument("--work", default="/tmp/opswork")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--chunk", type=int, default=250)
    ap.add_argument("--budget", type=float, default=420, help="seconds; no new ncu process starts after it")
    ap.add_argument("--repeat-every", type=int, default=25, help="re-measure every N-th pattern")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--nvcc-extra", nargs="*", default=[])
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    ap.add_argument("--dry-run", action="store_true", help="write the patterns to --out and stop")
    ap.add_argument("--kernels", help="comma-separated kernel names: measure only their generated patterns")
    ap.add_argument("--metrics", help="comma-separated metric list: skip the query and discovery")
    ap.add_argument("--previous", help="RAW JSON of an earlier run: measure what it did not reach, the "
                    "second-round cp.async.cg probes, and repeats of some of its patterns")
    ap.add_argument("--fake-gpu", action="store_true", help="test mode: no GPU (use with a stand-in --ncu)")
    ap.add_argument("--export", help="RAW JSON to turn into test data (with --data-dir)")
    ap.add_argument("--data-dir", help="where --export writes sm90_atomics.json and sm90_matrix_ops.json")
    args = ap.parse_args()
    if args.export:
        from ops_export import export
        export(args.export, args.data_dir)
        return
    if not args.out:
        sys.exit("--out is required")
    if args.dry_run:
        pats = plan(args)
        json.dump({"patterns": pats}, open(args.out, "w"))
        log(f"wrote {len(pats)} patterns to {args.out}")
        return
    measure(args)


if __name__ == "__main__":
    main()
