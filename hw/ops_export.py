"""Turns RAW files of hw/measure_ops.py into banklint's test data (tests/data/):

  sm90_atomics.json      shared-memory atomics (ATOMS and the CAS loops nvcc emits)
  sm90_matrix_ops.json   ldmatrix, stmatrix and cp.async

Each pattern keeps its per-lane byte offsets and the counters read off Nsight Compute, copied
unchanged from the RAW files (no subtraction: every baseline launch read 0 in these counters, and
the export stops if one did not). Patterns measured more than once (repeats within a run and
across runs) are written once; the export stops if two measurements of one pattern differ.
Python 3 standard library only.
"""
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ops_patterns as P  # noqa: E402

PER_INSN = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_"
PER_INSN_BC = "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_"

# kernel -> (op name in the test data, width, what the probe's source line is)
KERNELS = {
    "atom_add1_u32": ("atomic.count", 4, "atomicAdd(p, 1u), result unused"),
    "atom_add_u32": ("atomic.rmw", 4, "atomicAdd(p, lane + 1u), result unused"),
    "atom_add_u32_ret": ("atomic.rmw", 4, "out = atomicAdd(p, lane + 1u)"),
    "atom_exch_u32": ("atomic.rmw", 4, "out = atomicExch(p, lane + 1u)"),
    "atom_or_u32": ("atomic.rmw", 4, "atomicOr(p, 1u << lane)"),
    "atom_and_u32": ("atomic.rmw", 4, "atomicAnd(p, ~(1u << lane))"),
    "atom_xor_u32": ("atomic.rmw", 4, "atomicXor(p, 1u << lane)"),
    "atom_min_s32": ("atomic.rmw", 4, "atomicMin((int *)p, lane - 16)"),
    "atom_max_u32": ("atomic.rmw", 4, "atomicMax(p, lane + 1u)"),
    "atom_inc_u32": ("atomic.rmw", 4, "atomicInc(p, 1000u)"),
    "atom_cas_u32": ("atomic.cas", 4, "out = atomicCAS(p, 0u, lane + 1u)"),
    "atom_cas_u64": ("atomic.cas", 8, "out = atomicCAS((unsigned long long *)p, 0ull, lane + 1ull)"),
    "atom_exch_u64": ("atomic.rmw", 8, "atomicExch((unsigned long long *)p, lane + 1ull), result unused"),
    "atom_add_f32": ("atomic.cas-loop", 4, "atomicAdd((float *)p, 1.0f)"),
    "atom_add_u64": ("atomic.cas-loop", 8, "atomicAdd((unsigned long long *)p, 1ull)"),
}
for k in P.LDSM + P.STSM:
    kind = "ldmatrix" if k.startswith("ldsm") else "stmatrix"
    shape = k.split("_")[1] + (".trans" if k.endswith("trans") else "")
    KERNELS[k] = (f"{kind}.{shape}", 16, f"{kind}.sync.aligned.m8n8.{shape}.shared.b16")
for k, w in P.CPASYNC.items():
    cache = k.split("_")[1]
    src = "gsrc + offset (the same layout as shared)" if k.endswith("mirror") else f"gsrc + lane * {w}"
    KERNELS[k] = (f"cp.async.{cache}", w, f"cp.async.{cache}.shared.global [offset], [{src}], {w}")


def counters(kernel, m):
    """The fields of one pattern, read off its metrics."""
    g = lambda name: m.get(name, 0)  # noqa: E731  (absent = 0: the RAW files keep nonzero values only)
    fam = P.family(kernel)
    if fam == "atomic":
        out = {"wavefronts": g("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"),
               "ncu_bank_conflicts": g("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"),
               "instructions": g("smsp__sass_inst_executed_op_shared_atom.sum")}
        assert out["wavefronts"] == g(PER_INSN + "atom.sum"), (kernel, m)
        if KERNELS[kernel][0] == "atomic.cas-loop":
            out["load_wavefronts"] = g("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")
            out["load_bank_conflicts"] = g("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
            out["load_instructions"] = g("smsp__sass_inst_executed_op_shared_ld.sum")
        return out
    if fam in ("ldmatrix", "stmatrix"):
        op = "ldsm" if fam == "ldmatrix" else "stsm"
        return {"wavefronts": g(PER_INSN + op + ".sum"), "ncu_bank_conflicts": g(PER_INSN_BC + op + ".sum"),
                "instructions": g("smsp__sass_inst_executed_op_ldsm.sum") if op == "ldsm"
                else g("smsp__sass_inst_executed_op_shared_stsm.sum")}
    bypass = "cg" in kernel
    out = {"wavefronts": g(PER_INSN + ("ldgsts_cache_bypass.sum" if bypass else "ldgsts_cache_access.sum")),
           "ncu_bank_conflicts": g(PER_INSN_BC + "ldgsts.sum"),
           "instructions": g("smsp__sass_inst_executed_op_ldgsts.sum")}
    assert out["wavefronts"] == g(PER_INSN + "ldgsts.sum"), (kernel, m)
    if bypass:
        out["global_sectors"] = g("smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum")
    return out


def export(raw_paths, data_dir):
    if isinstance(raw_paths, str):
        raw_paths = raw_paths.split(",")
    raws = [json.load(gzip.open(p) if p.endswith(".gz") else open(p)) for p in raw_paths]
    devices = {r["device"] for r in raws}
    assert len(devices) == 1, devices
    for r in raws:
        for k, v in r["baselines"].items():
            bad = {m: x for m, x in v.items() if "op_misc" not in m and "bank_reads" not in m
                   and "bank_writes" not in m and m != "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"}
            assert not bad, f"baseline of {k} is not zero: {bad}"
        assert not r["sass_unexpected"], r["sass_unexpected"]
    sass = {}
    for r in raws:
        for k, v in r["sass"].items():
            if v is not None:
                assert sass.setdefault(k, v) == v, f"SASS of {k} differs between runs"
    seen, order, repeats = {}, [], 0
    for r in raws:
        for p in r["patterns"] + r.get("repeats", []):
            key = (p["kernel"], tuple(p["offsets"]))
            c = counters(p["kernel"], p["metrics"])
            if key in seen:
                assert seen[key] == c, f"two measurements of one pattern differ: {key} {seen[key]} {c}"
                repeats += 1
                continue
            seen[key] = c
            order.append((p["kernel"], p["offsets"], p.get("gen", "").removeprefix("repeat:")))
    v = raws[0]["versions"]
    ncu_v = v["ncu"].splitlines()[-1].strip()
    nvcc_v = [x for x in v["nvcc"].splitlines() if "release" in x][0].strip()
    tool = f"Nsight Compute {ncu_v.removeprefix('Version ')} (ncu --clock-control none --csv); nvcc {nvcc_v}"
    common = {
        "device": raws[0]["device"],
        "tool": tool,
        "driver": v["driver"],
        "probe": "hw/probe_ops.cu, built with nvcc -O3 -arch=sm_90; measured by hw/measure_ops.py",
        "shared_window_base": raws[0]["shared_window_base"],
    }
    base_note = (
        "One warp, one launch per pattern; offsets are per-lane byte offsets into a 128-byte-aligned 48 KiB "
        "__shared__ buffer that starts at byte 1024 of the shared window, so offset mod 128 fixes the bank; -1 = "
        "the lane skips the operation. Every kernel's baseline launch (the warp skips the operation) read 0 in "
        "every counter below. Counters are copied from ncu unchanged. "
        f"{len(order)} distinct patterns in this file and its sibling; {repeats} further measurements of them (repeats in the same run, and in later runs on "
        "freshly started machines) were identical in every exported counter. "
    )
    files = {
        "sm90_atomics.json": (lambda k: P.family(k) == "atomic", {
            "wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum (equal to "
                          "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum in every pattern)",
            "ncu_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
            "instructions": "smsp__sass_inst_executed_op_shared_atom.sum (warp-level ATOMS executed)",
            "load_wavefronts": "cas-loop only: l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum (the loop's LDS)",
            "load_bank_conflicts": "cas-loop only: l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
            "load_instructions": "cas-loop only: smsp__sass_inst_executed_op_shared_ld.sum",
        }, "Shared-memory atomics through the CUDA C++ functions; `sass` gives what each kernel compiles to. "),
        "sm90_matrix_ops.json": (lambda k: P.family(k) != "atomic", {
            "wavefronts": "ldmatrix: smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum; stmatrix: "
                          "..._op_stsm.sum; cp.async.ca: ..._op_ldgsts_cache_access.sum; cp.async.cg: "
                          "..._op_ldgsts_cache_bypass.sum (each equal to ..._op_ldgsts.sum for cp.async)",
            "ncu_bank_conflicts": "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_{ldsm,stsm,ldgsts}.sum",
            "instructions": "smsp__sass_inst_executed_op_{ldsm,shared_stsm,ldgsts}.sum",
            "global_sectors": "cp.async.cg only: smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum",
        }, "ldmatrix / stmatrix: every lane passes a row address (offsets), also the lanes the shape does "
           "not read (x1: lanes 8-31, x2: 16-31). cp.async: `sources` are the per-lane global byte offsets "
           "from a 256-byte-aligned cudaMalloc buffer (lane * width, or the shared offset for the _mirror kernels). "
           "On this GPU and ncu the l1tex__ ldsm/stsm/ldgsts wavefront metrics do not exist: at the l1tex level "
           "ldmatrix counts as op_ld and stmatrix as op_st, and the L1-bypass (.cg) copies appear in no l1tex__ "
           "shared metric at all; the per-instruction smsp__sass_l1tex_* metrics above count each operation apart. "),
    }
    os.makedirs(data_dir, exist_ok=True)
    for name, (want, metrics, note) in files.items():
        pats = []
        for kernel, offs, gen in order:
            if not want(kernel):
                continue
            op, w, _ = KERNELS[kernel]
            e = {"kernel": kernel, "op": op, "width": w, "gen": gen, "offsets": offs}
            if P.family(kernel) == "cp.async":
                e["sources"] = [(o if kernel.endswith("mirror") else lane * w) if o >= 0 else -1
                                for lane, o in enumerate(offs)]
            e.update(seen[(kernel, tuple(offs))])
            pats.append(e)
        kernels = {k: {"op": KERNELS[k][0], "width": KERNELS[k][1], "source": KERNELS[k][2],
                       "sass": sass[k]} for k in KERNELS if want(k)}
        doc = dict(common, note=base_note + note, metrics=metrics, kernels=kernels, patterns=pats)
        path = os.path.join(data_dir, name)
        with open(path, "w") as f:
            f.write(json.dumps(doc, separators=(",", ":")).replace('{"kernel"', '\n{"kernel"') + "\n")
        print(f"wrote {path}: {len(pats)} patterns")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: ops_export.py RAW[,RAW...] DATA_DIR")
    export(sys.argv[1], sys.argv[2])
