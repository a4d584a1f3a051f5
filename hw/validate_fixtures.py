#!/usr/bin/env python3
"""Validate banklint's per-block shared-memory totals for the fixtures against Nsight Compute.

Three steps, one sub-command each (Python 3 standard library only):

  prepare  (here, no GPU)  Copies fixtures/ (working tree, or --git-rev REV) to WORK/fixtures. For every
           fixture whose arch is sm_90 (others are listed as skipped), runs `banklint check FILE --format
           json [banklint-args]` on that copy, sums `block_totals` per source line (loads and stores
           together, as ncu's per-line "L1 Wavefronts Shared" counts both) and writes a harness
           WORK/NN_name/harness.cu that #includes the copy and launches each __global__ kernel (see
           below). Writes WORK/manifest.json. WORK defaults to hw/.valwork (git-ignored via
           .git/info/exclude; name it in the device tool's `carry`).
  device   (on the GPU)    Builds every harness with `nvcc -arch=sm_90 -lineinfo -O3` (plus the -D/-I of
           the fixture's banklint-args), disassembles it (`nvdisasm -g -c` on a cubin built the same
           way), profiles it with `ncu --clock-control none --section SourceCounters --metrics <kernel
           shared counters> --import-source yes -o rep` and exports `--page source --print-source
           cuda,sass --csv` (per launch too, with --launch-skip/--launch-count, where a harness has
           several) and `--page details --csv`. Everything, with the manifest and the fixture copy, goes
           into OUT/fixture_results.tar.gz (OUT/log.txt is the log).
  compare  (here)          Reads the archive, takes per source line the SASS instructions whose address
           space is Shared (warp-level Instructions Executed, L1 Wavefronts Shared / Ideal), compares
           them with banklint's per-line totals and the kernel-level counters with banklint's kernel
           totals, and writes hw/fixture_validation.{json,md}. Causes of known disagreements are in
           EXPLANATIONS below.

Harness conventions (all recorded per fixture in the manifest and the report):
  - grid (1, 1, 1); block = banklint's `block_dim` for the kernel's accesses. A kernel whose accesses carry
    several block shapes (several launch sites) is launched once per shape, and each line is compared
    with the launch of its own shape. No shape known (banklint's default single-warp model): block
    (32, 1, 1). A template kernel is launched once per launch site of the fixture, with that site's
    template arguments and block expression.
  - every pointer parameter: its own zero-filled 16 MiB cudaMalloc buffer.
  - every scalar parameter: the literal the fixture's own launch passes at that position when it is a
    number (or true/false); otherwise 1 for integers (small on purpose: it keeps widths, counts and
    offsets in range; a kernel whose shared accesses depend on it shows up as a disagreement) and 1.0
    for floating point.
  - dynamic shared memory: the third <<<>>> argument of the fixture's launch (a local variable defined
    in the launching function is replaced by its initialiser); else 16 KiB if the file declares
    `extern __shared__`; else 0.
  - the fixture's own `main` is renamed (`#define main fixture_main` around the #include).

Run (see hw/README.md, "Fixture validation"):
  CARGO_TARGET_DIR=/work/target-val cargo build --release
  python3 hw/validate_fixtures.py prepare --banklint /work/target-val/release/banklint
  # on the GPU, from the repository root, with hw/.valwork carried:
  python3 hw/validate_fixtures.py device --out $OUT
  python3 hw/validate_fixtures.py compare --results fixture_results.tar.gz
"""
import argparse
import concurrent.futures
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BUF_BYTES = 16 << 20
DEFAULT_INT = 1
DEFAULT_FLOAT = "1.0"
EXTERN_SMEM_DEFAULT = 16384
ARCH = "sm_90"
KERNEL_METRICS = [
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# =============================================================================================
# prepare
# =============================================================================================
def banklint_args(text):
    for line in text.splitlines()[:10]:
        m = re.match(r"\s*//\s*banklint-args:\s*(.*)", line)
        if m:
            return m.group(1).split()
    return []


def own_main(text):
    """`// hw-validate: own-main FLAGS...`: the fixture launches its kernels itself (its `main` builds
    what they need, a TMA tensor map say); the harness is the fixture, linked with FLAGS."""
    for line in text.splitlines()[:10]:
        m = re.match(r"\s*//\s*hw-validate:\s*own-main\b(.*)", line)
        if m:
            return m.group(1).split()
    return None


def extra_nvcc_flags(text):
    """`// hw-validate: nvcc-flags FLAGS...`: more flags for nvcc (a library's include directory,
    a language standard); `${VAR}` in them is expanded on the GPU machine (`CUTLASS`: where the
    device run put CUTLASS's headers, for the CuTe fixtures)."""
    for line in text.splitlines()[:10]:
        m = re.match(r"\s*//\s*hw-validate:\s*nvcc-flags\b(.*)", line)
        if m:
            return m.group(1).split()
    return []


def arch_of(args):
    for i, a in enumerate(args):
        if a == "--arch" and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--arch="):
            return a.split("=", 1)[1]
    return ARCH


def nvcc_flags(bargs):
    """-D/-U/-I of the banklint-args header, for nvcc (an -I below fixtures/ points into the snapshot)."""
    out, i = [], 0
    while i < len(bargs):
        a = bargs[i]
        for flag in ("-D", "-U", "-I"):
            if a == flag and i + 1 < len(bargs):
                val = bargs[i + 1]
                i += 1
                break
            if a.startswith(flag) and len(a) > 2:
                val = a[2:]
                break
        else:
            i += 1
            continue
        if flag == "-I":
            val = os.path.join("..", val) if not os.path.isabs(val) else val
            out += ["-I", val]
        else:
            out.append(flag + val)
        i += 1
    return out


def split_top(s, sep=","):
    """Split at top-level separators (outside (), [], {})."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def strip_comments(text):
    """Blank out comments, keeping line numbers and columns."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"//[^\n]*|/\*.*?\*/", blank, text, flags=re.S)


LB = r"(?:__launch_bounds__\s*\([^)]*\)\s*)?"


def parse_kernels(code):
    ks = []
    for m in re.finditer(r"__global__\s+" + LB + r"void\s+" + LB + r"(\w+)\s*\(([^)]*)\)", code, re.S):
        params = []
        for p in split_top(" ".join(m.group(2).split())):
            if p in ("", "void"):
                continue
            pm = re.match(r"(.*?)(\w+)\s*$", p)
            ptype, pname = pm.group(1).strip(), pm.group(2)
            params.append({"type": ptype, "name": pname, "pointer": "*" in ptype})
        before = code[:m.start()].rstrip()
        template = re.search(r"template\s*<[^;{}]*>\s*(extern\s+\"C\"\s*)?$", before) is not None
        if any(k["name"] == m.group(1) for k in ks):
            continue  # another definition of the same kernel (#if/#else branches): one launch is enough
        ks.append({"name": m.group(1), "params": params, "line": code[:m.start()].count("\n") + 1,
                   "template": template})
    return ks


def parse_launches(code):
    out = []
    for m in re.finditer(r"\b(\w+)\s*(<(?:[^<>;]|<[^<>;]*>)*>)?\s*<<<(.*?)>>>\s*\((.*?)\)\s*;", code, re.S):
        out.append({"kernel": m.group(1), "targs": m.group(2) or "",
                    "config": split_top(" ".join(m.group(3).split())),
                    "args": split_top(" ".join(m.group(4).split())), "pos": m.start()})
    return out


NUM = re.compile(r"^([-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)[fFuUlL]*|true|false)$")


def resolve_local(code, pos, expr):
    """If expr is a plain identifier assigned earlier in the same function, return its initialiser."""
    if not re.fullmatch(r"[A-Za-z_]\w*", expr):
        return expr, None
    start = code.rfind("\n}", 0, pos)
    body = code[start if start >= 0 else 0:pos]
    ms = list(re.finditer(r"\b" + re.escape(expr) + r"\s*=\s*([^;]+);", body))
    if ms:
        init = " ".join(ms[-1].group(1).split())
        return f"({init})", f"`{expr}` replaced by its initialiser `{init}`"
    m = re.search(r"\bdim3\s+" + re.escape(expr) + r"\s*\(([^;]*)\)\s*;", body)
    if m:
        return f"dim3({m.group(1)})", f"`{expr}` replaced by `dim3({m.group(1)})`"
    return expr, None


NOT_NAMES = {"dim3", "sizeof", "float", "double", "int", "unsigned", "char", "short", "long", "uint",
             "size_t", "float2", "float4", "int2", "int4", "double2"}


def is_constant_text(code, expr):
    """Whether expr names nothing but macros of the file (and types, `sizeof`, `dim3`): it
    compiles in the harness's main()."""
    macros = set(re.findall(r"^\s*#\s*define\s+([A-Za-z_]\w*)", code, re.M))
    return all(w in NOT_NAMES or w in macros for w in re.findall(r"\b[A-Za-z_]\w*\b", expr))


def run_banklint(bl, path, args, cwd):
    r = subprocess.run([bl, "check", path, "--format", "json", "--color", "never"] + args,
                       capture_output=True, text=True, cwd=cwd)
    if not r.stdout.strip():
        raise RuntimeError(f"banklint gave no output for {path} (status {r.returncode}): {r.stderr[-500:]}")
    return json.loads(r.stdout)


def per_line(accesses):
    lines = {}
    for a in accesses:
        e = lines.setdefault(a["line"], {"accesses": [], "instructions": 0, "wavefronts": 0, "complete": True,
                                         "block_dims": [], "kernels": [], "arrays": [], "kinds": []})
        bt = a.get("block_totals")
        e["accesses"].append({k: a.get(k) for k in ("column", "kernel", "array", "kind", "access_bytes", "status",
                                                    "wavefronts", "ideal_wavefronts", "conflict_ways",
                                                    "block_dim", "block_dim_source", "block_totals")})
        if bt is None:
            e["complete"] = False
        else:
            e["instructions"] += bt["instructions"]
            e["wavefronts"] += bt["wavefronts"]
        for key, val in (("block_dims", a.get("block_dim")), ("kernels", a["kernel"]), ("arrays", a["array"]),
                         ("kinds", a["kind"])):
            if val not in e[key]:
                e[key].append(val)
    return lines


HARNESS_HEAD = """// Generated by hw/validate_fixtures.py from {fixture}: do not edit.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define main fixture_main
#include "../fixtures/{base}"
#undef main

#define CK(x) do {{ cudaError_t e_ = (x); if (e_ != cudaSuccess) {{ \\
    fprintf(stderr, "%s:%d %s: %s\\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); }} }} while (0)

// a fresh zero-filled device buffer that converts to any pointer parameter type (template kernels too)
struct ZBuf {{
    void *p;
    template <class U> operator U *() const {{ return (U *)p; }}
}};

static ZBuf zbuf(void)
{{
    void *p = 0;
    CK(cudaMalloc(&p, {buf}));
    CK(cudaMemset(p, 0, {buf}));
    ZBuf b = {{p}};
    return b;
}}

int main(void)
{{
"""


def snapshot_fixtures(work, rev):
    """Copy fixtures/ (working tree, or a git revision) to WORK/fixtures; return a description."""
    dst = os.path.join(work, "fixtures")
    if rev:
        os.makedirs(dst)
        arch = subprocess.run(["git", "archive", rev, "fixtures"], cwd=REPO, capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(arch)) as tf:
            tf.extractall(work)
        commit = subprocess.run(["git", "rev-parse", rev], cwd=REPO, capture_output=True, text=True).stdout.strip()
        return f"fixtures/ of git {commit}"
    shutil.copytree(os.path.join(REPO, "fixtures"), dst)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "fixtures"], cwd=REPO, capture_output=True,
                           text=True).stdout.strip()
    return f"fixtures/ of the working tree at git {commit}" + (" (with uncommitted fixture edits)" if dirty else "")


def plan_launches(f, text, d, notes):
    """The harness launches of one fixture: list of {kernel, targs, block (list or None), block_expr, smem, args}."""
    code = strip_comments(text)
    kernels = parse_kernels(code)
    launches = parse_launches(code)
    gnames = {k["name"] for k in kernels}
    plan = []
    for k in kernels:
        sites = [l for l in launches if l["kernel"] == k["name"]]

        def smem_of(site):
            if site and len(site["config"]) >= 3:
                val, why = resolve_local(code, site["pos"], site["config"][2])
                if not is_constant_text(code, val):
                    return (str(EXTERN_SMEM_DEFAULT), f"dynamic shared memory `{site['config'][2]}` is not a "
                            f"constant in the harness: {EXTERN_SMEM_DEFAULT} bytes")
                return val, f"dynamic shared memory from the launch: {site['config'][2]}" + (f" ({why})" if why else "")
            if re.search(r"extern\s+__shared__", code):
                return str(EXTERN_SMEM_DEFAULT), f"extern __shared__ with no launch size: {EXTERN_SMEM_DEFAULT} bytes"
            return "0", None

        argv = []
        for i, p in enumerate(k["params"]):
            ctype = " ".join(p["type"].replace("__restrict__", " ").split())
            if p["pointer"]:
                argv.append("zbuf()")
                continue
            lit = None
            for s_ in sites:
                if i < len(s_["args"]) and NUM.match(s_["args"][i]):
                    lit = s_["args"][i]
                    break
            isfloat = re.search(r"\b(float|double|half)\b", p["type"]) is not None
            known = banklint_values(d, k["name"]).get(p["name"])
            if lit is not None:
                val, src = lit, "(the literal of the fixture's launch)"
            elif known is not None:
                val, src = str(known), "(banklint's value: a host constant at the launch or the `banklint: args` annotation)"
            else:
                val, src = (DEFAULT_FLOAT if isfloat else str(DEFAULT_INT)), "(default)"
            notes.append(f"`{k['name']}`: scalar `{p['type']} {p['name']}` = {val} " + src)
            argv.append(f"({ctype})({val})")
        if k["template"]:
            # a template kernel is launched once per launch site, with its template arguments and block
            if not sites:
                notes.append(f"`{k['name']}`: template kernel without a launch site: not launched")
            for s_ in sites:
                blk, why = resolve_local(code, s_["pos"], s_["config"][1]) if len(s_["config"]) > 1 else ("1", None)
                if not is_constant_text(code, blk):
                    # A run-time block shape: banklint's default single-warp model, as for kernels
                    # without a launch.
                    notes.append(f"`{k['name']}{s_['targs']}`: block `{blk}` is not a constant; launched with "
                                 "block (32, 1, 1), banklint's default model")
                    blk = "dim3(32, 1, 1)"
                smem, smem_note = smem_of(s_)
                plan.append({"kernel": k["name"], "targs": s_["targs"], "block": None, "block_expr": blk,
                             "smem": smem, "args": argv, "default_shape": False})
                notes.append(f"`{k['name']}{s_['targs']}`: template kernel, launched with the fixture's template "
                             f"arguments and block `{s_['config'][1]}`" + (f" ({why})" if why else "")
                             + (f"; {smem_note}" if smem_note else ""))
            continue
        dims = []
        for a in d["accesses"]:
            owner = a["kernel"] if a["kernel"] in gnames else (k["name"] if len(kernels) == 1 else None)
            if owner == k["name"] and a.get("block_dim") and a["block_dim"] not in dims:
                dims.append(a["block_dim"])
        if any(a["kernel"] not in gnames for a in d["accesses"]) and len(kernels) == 1:
            notes.append(f"accesses in __device__ functions attributed to the only kernel `{k['name']}`")
        default_shape = not dims
        if default_shape:
            dims = [[32, 1, 1]]
            notes.append(f"`{k['name']}`: no block shape known to banklint; launched with block (32, 1, 1)")
        smem, smem_note = smem_of(sites[0] if sites else None)
        if smem_note:
            notes.append(f"`{k['name']}`: {smem_note}")
        if len(dims) > 1:
            notes.append(f"`{k['name']}` is launched once per block shape banklint reports for it "
                         f"({', '.join(str(tuple(x)) for x in dims)}); each line is compared with the launch of its "
                         "own shape")
        for dim in dims:
            plan.append({"kernel": k["name"], "targs": "", "block": dim, "block_expr": "dim3({}, {}, {})".format(*dim),
                         "smem": smem, "args": argv, "default_shape": default_shape})
    return kernels, plan


def prepare(args):
    bl = args.banklint
    work = os.path.abspath(args.work)
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    source = snapshot_fixtures(work, args.git_rev)
    fixtures = sorted(f for f in os.listdir(os.path.join(work, "fixtures")) if f.endswith(".cu"))
    if args.only:
        want = args.only.split(",")
        fixtures = [f for f in fixtures if any(f.startswith(w) for w in want)]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    src_dirty = subprocess.run(["git", "status", "--porcelain", "src"], cwd=REPO, capture_output=True,
                               text=True).stdout.strip()
    manifest = {"banklint": subprocess.run([bl, "--version"], capture_output=True, text=True).stdout.strip()
                + f", built from the working tree at git {head[:12]}" + (" (src/ with uncommitted edits)" if src_dirty else ""),
                "fixtures_source": source,
                "conventions": {"buffer_bytes": BUF_BYTES, "default_int": DEFAULT_INT,
                                "default_float": DEFAULT_FLOAT, "extern_smem_default": EXTERN_SMEM_DEFAULT,
                                "grid": [1, 1, 1]},
                "fixtures": [], "skipped": []}
    for f in fixtures:
        text = open(os.path.join(work, "fixtures", f)).read()
        bargs = banklint_args(text)
        arch = arch_of(bargs)
        if arch != ARCH:
            manifest["skipped"].append({"fixture": f, "reason": f"needs an {arch} GPU", "banklint_args": bargs})
            continue
        name = f[:-3]
        d = run_banklint(bl, os.path.join("fixtures", f), bargs, work)
        lines = per_line(d["accesses"])
        notes = []
        kernels, plan = plan_launches(f, text, d, notes)
        wd = os.path.join(work, name)
        os.makedirs(wd)
        # A file that only compiles inside its includer (banklint's JSON `context`) is built through it.
        context = ((d.get("files") or [{}])[0] or {}).get("context")
        base = os.path.basename(context) if context else f
        if context:
            notes.append(f"built through its includer `{base}`, as banklint analyzed it")
        link = own_main(text)
        if link is not None:
            notes.append("the fixture's own `main` launches its kernels (the harness is the fixture)"
                         + (f", linked with {' '.join(link)}" if link else ""))
            with open(os.path.join(wd, "harness.cu"), "w") as fh:
                fh.write(f"// Generated by hw/validate_fixtures.py: {f} runs itself.\n"
                         f"#include \"../fixtures/{base}\"\n")
            manifest["fixtures"].append({"fixture": f, "name": name, "banklint_args": bargs,
                                         "nvcc_flags": nvcc_flags(bargs) + extra_nvcc_flags(text), "link_flags": link,
                                         "kernels": kernels, "launches": plan, "notes": notes,
                                         "lines": {str(k): v for k, v in sorted(lines.items())}})
            log(f"{f}: runs itself, {len(lines)} access lines")
            continue
        src = HARNESS_HEAD.format(fixture=f"fixtures/{base}", base=base, buf=BUF_BYTES)
        for i, l in enumerate(plan):
            src += (f"    // launch {i}\n"
                    f"    {l['kernel']}{l['targs']}<<<dim3(1, 1, 1), dim3({l['block_expr']}), {l['smem']}>>>("
                    + ", ".join(l["args"]) + ");\n"
                    f"    CK(cudaGetLastError());\n    CK(cudaDeviceSynchronize());\n"
                    f"    printf(\"launch {i} {l['kernel']} ok\\n\");\n")
        src += "    return 0;\n}\n"
        with open(os.path.join(wd, "harness.cu"), "w") as fh:
            fh.write(src)
        manifest["fixtures"].append({"fixture": f, "name": name, "banklint_args": bargs, "nvcc_flags": nvcc_flags(bargs) + extra_nvcc_flags(text),
                                     "kernels": kernels, "launches": plan, "notes": notes,
                                     "lines": {str(k): v for k, v in sorted(lines.items())}})
        log(f"{f}: {len(plan)} launch(es), {len(lines)} access lines")
    with open(os.path.join(work, "manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1)
    log(f"prepared {len(manifest['fixtures'])} fixtures, skipped {len(manifest['skipped'])} in {work} ({source})")


# =============================================================================================
# device
# =============================================================================================
def sh_capture(cmd, cwd=None, timeout=300):
    t = time.time()
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr, time.time() - t
    except subprocess.TimeoutExpired as e:
        return 124, e.stdout or "", (e.stderr or "") + "\nTIMEOUT", time.time() - t
    except OSError as e:
        return 127, "", str(e), time.time() - t


def device(args):
    work = os.path.abspath(args.work)
    out = os.path.abspath(args.out)
    res = os.path.join(out, "fixture_results")
    os.makedirs(res, exist_ok=True)
    logf = open(os.path.join(out, "log.txt"), "w")

    def note(msg):
        logf.write(msg + "\n")
        logf.flush()
        log(msg)

    man = json.load(open(os.path.join(work, "manifest.json")))
    fx = man["fixtures"]
    if args.only:
        fx = [f for f in fx if any(f["name"].startswith(w) for w in args.only.split(","))]
    vers = {}
    for key, cmd in (("nvidia-smi", ["nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"]),
                     ("ncu", [args.ncu, "--version"]), ("nvcc", [args.nvcc, "--version"])):
        rc, o, e, _ = sh_capture(cmd)
        vers[key] = (o + e).strip()
    if args.explore:
        rc, o, e, _ = sh_capture([args.ncu, "--help"])
        vers["ncu-help"] = o + e
    json.dump(vers, open(os.path.join(res, "versions.json"), "w"), indent=1)
    note(json.dumps({k: v for k, v in vers.items() if k != "ncu-help"}))

    def build(f):
        d = os.path.join(work, f["name"])
        r = {}
        fl = [os.path.expandvars(x) for x in f.get("nvcc_flags", [])]
        rc, o, e, t = sh_capture([args.nvcc, f"-arch={ARCH}", "-lineinfo", "-O3", "-Xptxas", "-v"] + fl
                                 + ["-o", "h", "harness.cu"] + f.get("link_flags", []), cwd=d)
        r["build_rc"], r["build_log"] = rc, (o + e)[-4000:]
        if rc == 0:
            rc2, o2, e2, _ = sh_capture([args.nvcc, f"-arch={ARCH}", "-lineinfo", "-O3", "-cubin"] + fl
                                        + ["-o", "h.cubin", "harness.cu"], cwd=d)
            rc3, o3, e3, _ = sh_capture([args.nvdisasm, "-g", "-c", "h.cubin"], cwd=d)
            if rc3 != 0:
                rc3, o3, e3, _ = sh_capture([args.cuobjdump, "-sass", "h"], cwd=d)
            r["sass"] = o3 if rc3 == 0 else (o3 + e3)
        return f["name"], r

    t0 = time.time()
    built = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 8) as ex:
        for name, r in ex.map(build, fx):
            built[name] = r
    note(f"built {sum(1 for r in built.values() if r['build_rc'] == 0)}/{len(fx)} in {time.time() - t0:.1f} s")

    views = args.views.split(",")
    summary = {}

    def export(name, d, od, nlaunch):
        rep = os.path.join(d, "rep.ncu-rep")
        jobs = []
        for v in views:
            if v in ("details", "raw"):
                jobs.append((v, [args.ncu, "--import", rep, "--page", v, "--csv"]))
            else:
                c = [args.ncu, "--import", rep, "--page", "source", "--print-source", v.replace("+", ","), "--csv"]
                jobs.append((v, c))
                if nlaunch > 1:  # one file per launch as well (import filters), to tell results apart
                    for i in range(nlaunch):
                        jobs.append((f"{v}.launch{i}", c + ["--launch-skip", str(i), "--launch-count", "1"]))
        for tag, c in jobs:
            rc2, o2, e2, _ = sh_capture(c, cwd=d)
            with open(os.path.join(od, f"{tag}.csv"), "w") as fh:
                fh.write(o2)
            if e2.strip() or rc2:
                with open(os.path.join(od, f"{tag}.err"), "w") as fh:
                    fh.write(f"status {rc2}\n{e2}")
        return name

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=8)
    pending = []
    for f in fx:
        name = f["name"]
        d = os.path.join(work, name)
        od = os.path.join(res, name)
        os.makedirs(od, exist_ok=True)
        b = built[name]
        with open(os.path.join(od, "build.log"), "w") as fh:
            fh.write(b["build_log"])
        s = {"build_rc": b["build_rc"]}
        summary[name] = s
        if b["build_rc"] != 0:
            note(f"{name}: BUILD FAILED")
            continue
        with open(os.path.join(od, "sass.txt"), "w") as fh:
            fh.write(b.get("sass", ""))
        cmd = [args.ncu, "--clock-control", "none", "--section", "SourceCounters", "--metrics", ",".join(KERNEL_METRICS),
               "--import-source", "yes", "-f", "-o", os.path.join(d, "rep"), "./h"]
        rc, o, e, dt = sh_capture(cmd, cwd=d, timeout=240)
        s["ncu_rc"], s["ncu_s"] = rc, round(dt, 1)
        with open(os.path.join(od, "ncu_profile.log"), "w") as fh:
            fh.write(" ".join(cmd) + "\n" + o + e)
        if not os.path.exists(os.path.join(d, "rep.ncu-rep")):
            note(f"{name}: ncu wrote no report (status {rc})")
            continue
        pending.append(pool.submit(export, name, d, od, len(f["launches"])))
        note(f"{name}: ncu {rc} in {dt:.1f} s")
    for p in pending:
        p.result()
    pool.shutdown()
    json.dump(summary, open(os.path.join(res, "summary.json"), "w"), indent=1)
    shutil.copy(os.path.join(work, "manifest.json"), os.path.join(res, "manifest.json"))
    shutil.copytree(os.path.join(work, "fixtures"), os.path.join(res, "fixtures"))
    logf.close()
    shutil.copy(os.path.join(out, "log.txt"), os.path.join(res, "log.txt"))
    with tarfile.open(os.path.join(out, "fixture_results.tar.gz"), "w:gz") as tf:
        tf.add(res, arcname="fixture_results")
    shutil.rmtree(res)
    log(f"device step done in {time.time() - t0:.1f} s")



# =============================================================================================
# compare
# =============================================================================================
class Results:
    """Read access to the device step's archive (a .tar.gz or its unpacked folder)."""

    def __init__(self, path):
        self.tar = None
        self.dir = None
        if os.path.isdir(path):
            self.dir = path if os.path.basename(path.rstrip("/")) == "fixture_results" else os.path.join(path, "fixture_results")
        else:
            self.tar = tarfile.open(path)
            self.names = set(self.tar.getnames())

    def read(self, rel):
        if self.dir:
            p = os.path.join(self.dir, rel)
            return open(p).read() if os.path.exists(p) else None
        n = "fixture_results/" + rel
        if n not in self.names:
            return None
        return self.tar.extractfile(n).read().decode("utf-8", "replace")


def num(x):
    x = (x or "").replace(",", "").strip()
    if x in ("", "-", "n/a"):
        return 0
    m = re.match(r"^[-+]?\d+(\.\d+)?", x)
    return float(m.group(0)) if m else 0


def intify(x):
    return int(x) if float(x).is_integer() else x


def parse_source_csv(text, basename):
    """ncu --page source --print-source cuda,sass --csv -> list of results; each result is
    {"function", "lines": {line: {"row": {...}, "sass": [ {...}, ... ]}}, "other_files": {path: shared wavefronts}}.
    A new result starts when a (file, function) block repeats the first block of the current one."""
    results = []
    cur = None
    hdr = None
    path = func = None
    line = None
    for r in csv.reader(io.StringIO(text)):
        if not r:
            continue
        if r[0] == "File Path":
            path = r[1]
            continue
        if r[0] == "Function Name":
            func = r[1]
            key = (path, func)
            if cur is None or key == cur["first"]:
                cur = {"first": key, "function": func, "lines": {}, "other_files": {}, "seen": set()}
                results.append(cur)
            continue
        if r[:2] == ["Line No", "Source"]:
            hdr = r
            line = None
            continue
        if hdr is None or cur is None or len(r) != len(hdr):
            continue
        d = dict(zip(hdr[4:], r[4:]))
        mine = os.path.basename(path or "") == basename
        if r[0]:
            line = int(r[0])
            if mine:
                cur["lines"].setdefault(line, {"row": {}, "sass": []})["row"] = {
                    "source": r[1], "wavefronts": num(d.get("L1 Wavefronts Shared")),
                    "ideal": num(d.get("L1 Wavefronts Shared Ideal"))}
            continue
        if r[2] in ("...", "-", "") or line is None:
            continue
        ins = {"address": r[2], "sass": r[3].strip(), "space": d.get("Address Space", "-"),
               "op": d.get("Access Operation", "-"), "size": d.get("Access Size", "-"),
               "executed": num(d.get("Instructions Executed")),
               "thread_executed": num(d.get("Thread Instructions Executed")),
               "wavefronts": num(d.get("L1 Wavefronts Shared")), "ideal": num(d.get("L1 Wavefronts Shared Ideal"))}
        if ins["address"] in cur["seen"]:  # ncu lists some instructions twice (same line, or an inlined call site)
            continue
        cur["seen"].add(ins["address"])
        if mine:
            cur["lines"].setdefault(line, {"row": {}, "sass": []})["sass"].append(ins)
        elif ins["space"] == "Shared":
            cur["other_files"][path] = cur["other_files"].get(path, 0) + ins["wavefronts"]
    return results


def parse_details(text):
    """details page CSV -> {ID: {"kernel", "block", "grid", metric: value}}."""
    out = {}
    if not text:
        return out
    rows = [l for l in text.splitlines() if l.startswith('"')]
    hdr = None
    for r in csv.reader(io.StringIO("\n".join(rows))):
        if "ID" in r and "Metric Name" in r:
            hdr = r
            continue
        if hdr is None or len(r) < len(hdr) - 6:
            continue
        d = dict(zip(hdr, r))
        e = out.setdefault(int(d["ID"]), {"kernel": d["Kernel Name"], "block": d["Block Size"], "grid": d["Grid Size"]})
        if d.get("Metric Name"):
            e[d["Metric Name"]] = num(d.get("Metric Value"))
    return out


SHARED_OPC = re.compile(r"^(LDS|STS|LDSM|STSM|ATOMS|LDGSTS)\b")


def measured_line(entry):
    """Shared-memory counts of one source line of one launch, from its SASS rows."""
    ops = [i for i in entry["sass"]
           if i["space"] == "Shared" or SHARED_OPC.match(re.sub(r"^@!?U?P\w+\s+", "", i["sass"]))]
    return {"instructions": intify(sum(i["executed"] for i in ops)),
            "wavefronts": intify(sum(i["wavefronts"] for i in ops)),
            "ideal": intify(sum(i["ideal"] for i in ops)),
            "line_row_wavefronts": intify(entry["row"].get("wavefronts", 0)),
            "sass": [{"sass": i["sass"], "executed": intify(i["executed"]), "wavefronts": intify(i["wavefronts"]),
                      "ideal": intify(i["ideal"]), "op": i["op"], "size": i["size"]} for i in ops]}



def launch_results(res, f):
    """Per launch of the harness: (parsed source result or None, problem note or None)."""
    name, base, n = f["name"], f["fixture"], len(f["launches"])
    out = []
    if n == 1:
        rs = parse_source_csv(res.read(f"{name}/cuda+sass.csv") or "", base)
        return [(rs[0] if len(rs) == 1 else None, None if len(rs) == 1 else f"{len(rs)} results in cuda+sass.csv")]
    for i in range(n):
        rs = parse_source_csv(res.read(f"{name}/cuda+sass.launch{i}.csv") or "", base)
        if len(rs) == 1:
            out.append((rs[0], None))
            continue
        allr = parse_source_csv(res.read(f"{name}/cuda+sass.csv") or "", base)
        out.append((allr[i], "per-launch export unusable; split from the combined export") if len(allr) == n
                   else (None, "results could not be told apart"))
    return out


def kbase(name):
    """Base name of a kernel in ncu's spelling: 'void colsum<32, float>(float *)' -> 'colsum'."""
    name = re.sub(r"^(void\s+)", "", name.strip())
    m = re.match(r"[\w:]+", name)
    return m.group(0).split("::")[-1] if m else name


def fmt_counts(c):
    return f"{c['instructions']} / {c['wavefronts']}" if c else "-"


def compare(args):
    res = Results(args.results)
    man = json.loads(res.read("manifest.json"))
    vers = json.loads(res.read("versions.json") or "{}")
    dsum = json.loads(res.read("summary.json") or "{}")
    out = {"device": vers, "banklint": man.get("banklint"), "fixtures_source": man.get("fixtures_source"),
           "conventions": man["conventions"],
           "skipped": man["skipped"], "fixtures": []}
    for f in man["fixtures"]:
        name, plan = f["name"], f["launches"]
        gk = [k["name"] for k in f["kernels"]]
        text = res.read(f"fixtures/{f['fixture']}")
        if text is None and args.fixtures and os.path.exists(os.path.join(args.fixtures, f["fixture"])):
            text = open(os.path.join(args.fixtures, f["fixture"])).read()
        srclines = text.splitlines() if text is not None else []
        fx = {"fixture": f["fixture"], "banklint_args": f["banklint_args"], "notes": list(f["notes"]),
              "launches": [], "lines": [], "measured_only": []}
        out["fixtures"].append(fx)
        st = dsum.get(name, {})
        if st.get("build_rc", 0) != 0:
            fx["error"] = "did not compile: " + (res.read(f"{name}/build.log") or "")[-1500:]
            continue
        details = parse_details(res.read(f"{name}/details.csv"))
        lres = launch_results(res, f)
        measured = []
        actual = []
        for i, (l, (r, problem)) in enumerate(zip(plan, lres)):
            dd = details.get(i, {})
            blk = [int(x) for x in re.findall(r"\d+", dd.get("block", ""))] or l["block"]
            actual.append((kbase(dd["kernel"]) if dd else l["kernel"], blk))
            li = {"kernel": l["kernel"] + l.get("targs", ""), "block": blk, "smem": l["smem"],
                  "ncu_kernel": dd.get("kernel"), "ncu_block": dd.get("block")}
            if problem:
                li["problem"] = problem
            lines = {ln: measured_line(e) for ln, e in (r["lines"].items() if r else [])}
            measured.append(lines)
            tot_wf = sum(m["wavefronts"] for m in lines.values())
            tot_in = sum(m["instructions"] for m in lines.values())
            k_wf = dd.get(KERNEL_METRICS[0], 0) + dd.get(KERNEL_METRICS[1], 0)
            k_in = dd.get(KERNEL_METRICS[2], 0) + dd.get(KERNEL_METRICS[3], 0)
            li["kernel_counters"] = {"wavefronts": intify(k_wf), "instructions": intify(k_in)}
            li["sum_of_lines"] = {"wavefronts": tot_wf, "instructions": tot_in}
            li["lines_cover_kernel_wavefronts"] = tot_wf == k_wf
            if r and r["other_files"]:
                li["shared_wavefronts_in_other_files"] = r["other_files"]
            if not dd:
                li["problem"] = (li.get("problem", "") + f" no ncu result {i}").strip()
            elif kbase(dd["kernel"]) != l["kernel"] or (l["block"] and blk != l["block"]):
                li["problem"] = (li.get("problem", "") + f" ncu result {i} is {dd['kernel']} block {dd['block']}").strip()
            fx["launches"].append(li)
        seen = set()
        for ln_s, e in f["lines"].items():
            ln = int(ln_s)
            kernels = {k if k in gk else (gk[0] if len(gk) == 1 else k) for k in e["kernels"]}
            dims = [d for d in e["block_dims"] if d is not None]
            row = {"line": ln, "source": srclines[ln - 1].strip() if ln <= len(srclines) else None, "arrays": e["arrays"], "kinds": e["kinds"], "kernels": sorted(kernels),
                   "accesses": len(e["accesses"]),
                   "banklint": {"instructions": e["instructions"], "wavefronts": e["wavefronts"]} if e["complete"] else None,
                   "banklint_status": sorted({a["status"] for a in e["accesses"]}),
                   "banklint_per_warp": [{"kind": a["kind"], "array": a["array"], "bytes": a["access_bytes"],
                                          "wavefronts": a["wavefronts"], "ideal": a["ideal_wavefronts"],
                                          "block_totals": a["block_totals"]} for a in e["accesses"]]}
            if len(set(map(tuple, dims))) > 1:
                row["status"] = "not compared: the line's accesses carry several block shapes"
                fx["lines"].append(row)
                continue
            cands = [i for i, (kn, blk) in enumerate(actual) if kn in kernels and (not dims or blk == dims[0])]
            if len(cands) != 1:
                row["status"] = f"not compared: {len(cands)} matching launches"
                fx["lines"].append(row)
                continue
            i = cands[0]
            seen.add((i, ln))
            m = measured[i].get(ln, {"instructions": 0, "wavefronts": 0, "ideal": 0, "line_row_wavefronts": 0, "sass": []})
            row["launch"] = i
            row["block"] = actual[i][1]
            row["measured"] = m
            if row["banklint"] is None:
                row["status"] = "not compared: banklint gives no block totals (" + ", ".join(row["banklint_status"]) + ")"
            else:
                b = row["banklint"]
                row["agree_wavefronts"] = b["wavefronts"] == m["wavefronts"]
                row["agree_instructions"] = b["instructions"] == m["instructions"]
                # ncu's per-instruction "Instructions Executed" counts a warp instruction even when all its
                # lanes are predicated off (0 wavefronts); banklint counts warp instructions with an active
                # lane. Where every shared instruction of the line is predicated and ncu counts more, the
                # line's instruction count is not comparable; the kernel-level counter (which skips
                # predicated-off warps) is checked against banklint's kernel total instead.
                row["predicated"] = bool(m["sass"]) and all(o["sass"].startswith("@") for o in m["sass"])
                row["agree"] = row["agree_wavefronts"] and row["agree_instructions"]
                if row["agree"]:
                    row["status"] = "agree"
                elif row["agree_wavefronts"] and row["predicated"] and m["instructions"] > b["instructions"]:
                    row["status"] = "agree-predicated"
                else:
                    row["status"] = "disagree"
                if row["status"] == "disagree":
                    row["hint"] = auto_hint(row)
                    for piece, cause, text in EXPLANATIONS.get(f["fixture"], []):
                        if row["source"] and piece in row["source"]:
                            row["cause"], row["explanation"] = cause, text
                            break
            fx["lines"].append(row)
        # kernel-level instruction check per launch: banklint's total over the launch's lines vs
        # smsp__sass_inst_executed_op_shared_{ld,st}.sum
        for i, li in enumerate(fx["launches"]):
            rows = [r for r in fx["lines"] if r.get("launch") == i and r.get("banklint")]
            li["banklint_totals"] = {"instructions": sum(r["banklint"]["instructions"] for r in rows),
                                     "wavefronts": sum(r["banklint"]["wavefronts"] for r in rows)}
            # comparable when every line of this kernel is compared with this launch and has totals
            # (not so for a kernel launched with several shapes, whose lines are split between launches)
            mine = [r for r in fx["lines"] if actual[i][0] in r["kernels"]]
            li["all_lines_comparable"] = all(r.get("launch") == i and r.get("banklint") for r in mine)
            li["kernel_instructions_agree"] = li["banklint_totals"]["instructions"] == li["kernel_counters"]["instructions"]
            li["kernel_wavefronts_agree"] = li["banklint_totals"]["wavefronts"] == li["kernel_counters"]["wavefronts"]
        for r in fx["lines"]:
            if r.get("status") == "agree-predicated":
                r["kernel_level_instructions_agree"] = fx["launches"][r["launch"]]["kernel_instructions_agree"]
        for i, lines in enumerate(measured):
            for ln, m in sorted(lines.items()):
                if m["instructions"] and (i, ln) not in seen and str(ln) not in f["lines"]:
                    fx["measured_only"].append({"launch": i, "line": ln, "measured": m})
        reconcile(fx)
        fx["lines"].sort(key=lambda r: r["line"])
    summarize(out)
    with open(args.json, "w") as fh:
        fh.write(dump_json(out))
    with open(args.md, "w") as fh:
        fh.write(render_md(out, args))
    s = out["summary"]
    log(f"fixtures compared {s['fixtures_compared']}, lines compared {s['lines_compared']}, agree {s['agree']}, "
        f"disagree {s['disagree']}; wrote {args.json} and {args.md}")


def dump_json(out):
    """The report as JSON, one compared line (or launch) per text line, so that diffs stay readable."""
    c = lambda v: json.dumps(v, separators=(", ", ": "))  # noqa: E731
    parts = []
    for k, v in sorted(out.items(), key=lambda kv: kv[0] != "summary"):
        if k != "fixtures":
            parts.append(f' {c(k)}: {json.dumps(v, indent=1).replace(chr(10), chr(10) + " ")}')
    fxs = []
    for fx in out["fixtures"]:
        items = []
        for k, v in fx.items():
            if k in ("lines", "launches", "measured_only"):
                inner = ",\n".join("    " + c(x) for x in v)
                items.append(f"   {c(k)}: [\n{inner}\n   ]" if v else f"   {c(k)}: []")
            else:
                items.append(f"   {c(k)}: {c(v)}")
        fxs.append("  {\n" + ",\n".join(items) + "\n  }")
    parts.append(' "fixtures": [\n' + ",\n".join(fxs) + "\n ]")
    text = "{\n" + ",\n".join(parts) + "\n}\n"
    json.loads(text)
    return text


def reconcile(fx):
    """Line attribution: nvcc may emit a line's shared instruction under another line (a load sunk to
    its use, two lines' loads scheduled together). Within one launch, take the disagreeing lines and the
    lines where ncu saw shared instructions but banklint has no access, in line order, and find the
    shortest runs whose banklint totals equal their measured totals; their lines are marked `moved`."""
    for i in range(len(fx["launches"])):
        items = [("d", r["line"], r) for r in fx["lines"] if r.get("launch") == i and r.get("status") == "disagree"]
        items += [("m", x["line"], x) for x in fx["measured_only"] if x["launch"] == i]
        items.sort(key=lambda t: t[1])
        start = 0
        while start < len(items):
            done = False
            for end in range(start + 1, len(items)):
                run = items[start:end + 1]
                if not any(k == "d" for k, _, _ in run):
                    continue
                bi = sum(o["banklint"]["instructions"] for k, _, o in run if k == "d")
                bw = sum(o["banklint"]["wavefronts"] for k, _, o in run if k == "d")
                mi = sum(o["measured"]["instructions"] for _, _, o in run)
                mw = sum(o["measured"]["wavefronts"] for _, _, o in run)
                if (bi, bw) == (mi, mw):
                    group = {"lines": [ln for _, ln, _ in run], "banklint": {"instructions": bi, "wavefronts": bw},
                             "measured": {"instructions": mi, "wavefronts": mw}}
                    for k, _, o in run:
                        o["moved"] = group
                    start = end + 1
                    done = True
                    break
            if not done:
                start += 1


def auto_hint(row):
    b, m = row["banklint"], row["measured"]
    widths = sorted({a["bytes"] for a in row["banklint_per_warp"]})
    sizes = sorted({int(num(x["size"])) // 8 for x in m["sass"] if num(x["size"])})
    h = []
    if m["instructions"] == 0:
        h.append("no shared-memory instruction executed for this line")
    if sizes and widths and max(sizes) > max(widths):
        h.append(f"SASS accesses of {sizes} bytes where the source has {widths}-byte accesses (merged by nvcc)")
    if m["instructions"] and m["instructions"] < b["instructions"] and not (sizes and max(sizes) > max(widths)):
        h.append("fewer shared-memory instructions than source accesses (eliminated, merged or moved)")
    if m["instructions"] > b["instructions"]:
        h.append("more shared-memory instructions than source accesses")
    return "; ".join(h)


def summarize(out):
    lines = [r for fx in out["fixtures"] for r in fx["lines"]]
    comp = [r for r in lines if "agree" in r]
    launches = [l for fx in out["fixtures"] for l in fx["launches"]]
    out["summary"] = {
        "fixtures_sm90": len(out["fixtures"]),
        "fixtures_compared": sum(1 for fx in out["fixtures"] if any("agree" in r for r in fx["lines"])),
        "fixtures_skipped": len(out["skipped"]),
        "fixtures_not_built": sum(1 for fx in out["fixtures"] if "error" in fx),
        "lines_with_accesses": len(lines),
        "lines_compared": len(comp),
        "agree": sum(1 for r in comp if r["status"] == "agree"),
        "agree_predicated": sum(1 for r in comp if r["status"] == "agree-predicated"),
        "disagree": sum(1 for r in comp if r["status"] == "disagree"),
        "disagree_wavefronts": sum(1 for r in comp if r["status"] == "disagree" and not r["agree_wavefronts"]),
        "disagree_instructions_only": sum(1 for r in comp if r["status"] == "disagree" and r["agree_wavefronts"]),
        "disagree_line_attribution_only": sum(1 for r in comp if r["status"] == "disagree" and r.get("moved")),
        "disagree_by_cause": {c: sum(1 for r in comp if r["status"] == "disagree" and r.get("cause", "unexplained") == c)
                              for c in sorted({r.get("cause", "unexplained") for r in comp if r["status"] == "disagree"})},
        "lines_not_compared": len(lines) - len(comp),
        "launches": len(launches),
        "launches_lines_cover_kernel_wavefronts": sum(1 for l in launches if l.get("lines_cover_kernel_wavefronts")),
        "launches_kernel_level_agree": sum(1 for l in launches if l.get("all_lines_comparable")
                                           and l.get("kernel_instructions_agree") and l.get("kernel_wavefronts_agree")),
        "launches_all_lines_comparable": sum(1 for l in launches if l.get("all_lines_comparable")),
    }


def md_escape(s):
    return s.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def sass_summary(m):
    """'LDS x2, @P STS.128 x1': distinct shared opcodes of a line with their static counts."""
    cnt = {}
    for o in m["sass"]:
        parts = o["sass"].split()
        op = ("@P " if parts[0].startswith("@") else "") + (parts[1] if parts[0].startswith("@") else parts[0])
        cnt[op] = cnt.get(op, 0) + 1
    return ", ".join(f"{k} x{v}" if v > 1 else k for k, v in cnt.items()) or "-"


STATUS_MD = {"agree": "yes", "agree-predicated": "yes (pred.)", "disagree": "**no**"}


def render_md(out, args):
    s = out["summary"]
    v = out["device"]
    ncu_v = re.search(r"Version\s+(\S+)", v.get("ncu", ""))
    nvcc_v = re.search(r"release\s+([0-9.]+),\s*(V[0-9.]+)", v.get("nvcc", ""))
    L = []
    L.append("# Fixture validation on a GPU: banklint's per-block totals vs Nsight Compute\n")
    L.append("Generated by `python3 hw/validate_fixtures.py compare` from the archive that `hw/validate_fixtures.py "
             "device` wrote on the GPU (how to run it: `hw/README.md`, section \"Fixture validation\"; the same data "
             "as JSON: `hw/fixture_validation.json`). Per source line, banklint's `block_totals` (summed over every "
             "access on the line, loads and stores together) are compared with the shared-memory SASS instructions "
             "that Nsight Compute correlates with that line, for ONE thread block (grid 1): warp-level "
             "`Instructions Executed` and `L1 Wavefronts Shared`.\n")
    L.append("## Setup\n")
    L.append(f"- GPU, driver, compute capability: {v.get('nvidia-smi', '?')}")
    L.append(f"- Nsight Compute {ncu_v.group(1) if ncu_v else '?'}; nvcc {nvcc_v.group(1) + ' (' + nvcc_v.group(2) + ')' if nvcc_v else '?'}")
    L.append(f"- banklint: {out.get('banklint') or '?'}; fixtures: {out.get('fixtures_source') or '?'}")
    L.append("- build: `nvcc -arch=sm_90 -lineinfo -O3` (plus the `-D`/`-I` of a fixture's `banklint-args`); profile: "
             "`ncu --clock-control none --section SourceCounters --metrics " + ",".join(KERNEL_METRICS)
             + " --import-source yes -o rep ./h`; read: `ncu --import rep.ncu-rep --page source --print-source "
             "cuda,sass --csv` (and once per launch with `--launch-skip i --launch-count 1` where a harness launches "
             "more than one kernel) and `--page details --csv` for the kernel-level counters")
    c = out["conventions"]
    L.append(f"- harness (generated, `#include`s the fixture, whose `main` is renamed): each `__global__` kernel "
             f"launched once with grid (1, 1, 1) and banklint's `block_dim` (once per shape where banklint reports "
             f"several for one kernel; a template kernel once per launch site of the fixture, with its template "
             f"arguments and block); every pointer parameter its own zero-filled {c['buffer_bytes'] >> 20} MiB "
             f"buffer; scalar parameters: the literal of the fixture's own launch, else {c['default_int']} "
             f"(integers: small, to keep indices in range) / {c['default_float']} (floating point); dynamic shared "
             f"memory: the fixture's third launch argument, else {c['extern_smem_default']} bytes for "
             f"`extern __shared__`, else 0")
    L.append("- measured per line = sum over the line's SASS instructions whose address space is Shared: "
             "`inst` = warp-level Instructions Executed, `wf` = L1 Wavefronts Shared (`ideal` = L1 Wavefronts "
             "Shared Ideal). ncu counts a warp instruction as executed even when all its lanes are predicated "
             "off (it then costs 0 wavefronts), while banklint counts warp instructions with at least one active "
             "lane; a line whose shared instructions are all predicated (`@P`), whose wavefronts agree and where "
             "ncu counts more instructions is marked `yes (pred.)`, and for those the kernel-level counter "
             "`smsp__sass_inst_executed_op_shared_{ld,st}.sum`, which skips predicated-off warps, is compared "
             "with banklint's kernel total instead\n")
    L.append("## Summary\n")
    L.append("| | |\n|---|---|")
    L.append(f"| sm_90 fixtures built and profiled | {s['fixtures_sm90'] - s['fixtures_not_built']} of {s['fixtures_sm90']} |")
    L.append(f"| fixtures with compared lines | {s['fixtures_compared']} |")
    L.append(f"| fixtures skipped (other arch) | {s['fixtures_skipped']} |")
    L.append(f"| source lines with shared accesses (banklint) | {s['lines_with_accesses']} |")
    L.append(f"| lines compared | {s['lines_compared']} |")
    L.append(f"| agree: instructions and wavefronts equal | {s['agree']} |")
    L.append(f"| agree (pred.): wavefronts equal, instructions differ only by predicated-off warps | {s['agree_predicated']} |")
    L.append(f"| disagree | {s['disagree']} ({s['disagree_wavefronts']} in wavefronts, "
             f"{s['disagree_instructions_only']} in instructions only) |")
    L.append(f"| of which the automatic line-group check finds the totals of neighbouring lines equal (nvcc emitted the access under another line; "
             f"the group's totals agree) | {s['disagree_line_attribution_only']} |")
    for c, n in s["disagree_by_cause"].items():
        L.append(f"| disagree, cause: {c} | {n} |")
    L.append(f"| lines not compared (banklint gives no totals, or no single matching launch) | {s['lines_not_compared']} |")
    L.append(f"| launches whose per-line wavefronts add up to the kernel-level counters | "
             f"{s['launches_lines_cover_kernel_wavefronts']} of {s['launches']} |")
    L.append(f"| launches where banklint's kernel totals equal the kernel-level counters (instructions and "
             f"wavefronts; launches with every line comparable) | {s['launches_kernel_level_agree']} of "
             f"{s['launches_all_lines_comparable']} |\n")
    dis = [(fx, r) for fx in out["fixtures"] for r in fx["lines"] if r.get("status") == "disagree"]
    L.append("## Disagreements and their causes\n")
    if not dis:
        L.append("None.\n")
    for fx, r in dis:
        m, b = r["measured"], r["banklint"]
        ops = ", ".join(f"`{o['sass']}` x{o['executed']} ({o['wavefronts']} wf)" for o in m["sass"][:6]) or "none"
        if len(m["sass"]) > 6:
            ops += f", ... ({len(m['sass'])} instructions)"
        L.append(f"- **{fx['fixture']}:{r['line']}** ({', '.join(r['arrays'])}; {'/'.join(r['kinds'])}; block "
                 f"{tuple(r['block'])}; {r.get('cause', 'unexplained')}): banklint {b['instructions']} inst / {b['wavefronts']} wf, measured "
                 f"{m['instructions']} inst / {m['wavefronts']} wf (ideal {m['ideal']}). SASS: {ops}.  \n  Cause: "
                 + md_escape(r.get("explanation") or ("unexplained" + (f" (automatic hint: {r['hint']})" if r.get("hint") else "")))
                 + (f"  \n  Line group {r['moved']['lines']}: banklint {fmt_counts(r['moved']['banklint'])}, measured "
                    f"{fmt_counts(r['moved']['measured'])} (equal)." if r.get("moved") else ""))
    L.append("")
    L.append("## Every compared line\n")
    L.append("banklint and measured as `instructions / wavefronts` for one block; SASS = the shared-memory "
             "instructions nvcc emitted for the line (static count; `@P` = predicated).\n")
    L.append("| fixture | line | block | array(s) | banklint | measured | ideal | SASS | agree |")
    L.append("|---|---:|---|---|---:|---:|---:|---|---|")
    for fx in out["fixtures"]:
        for r in fx["lines"]:
            if "agree" not in r:
                continue
            m = r["measured"]
            L.append(f"| {fx['fixture']} | {r['line']} | {tuple(r['block'])} | {', '.join(r['arrays'])} | "
                     f"{fmt_counts(r['banklint'])} | {fmt_counts(m)} | {m['ideal']} | {sass_summary(m)} | "
                     f"{STATUS_MD[r['status']]} |")
    L.append("")
    L.append("## Kernel-level check per launch\n")
    L.append("banklint's totals over all lines of the launch vs `smsp__sass_inst_executed_op_shared_{ld,st}.sum` and "
             "`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum` (instructions / wavefronts).\n")
    L.append("| fixture | launch | block | banklint | kernel counters | equal | per-line sum of wf |")
    L.append("|---|---|---|---:|---:|---|---:|")
    for fx in out["fixtures"]:
        for i, l in enumerate(fx["launches"]):
            eq = "yes" if l["kernel_instructions_agree"] and l["kernel_wavefronts_agree"] else "**no**"
            if not l.get("all_lines_comparable"):
                eq = ("n/a (a line without banklint totals, or the kernel's lines are split between its "
                      "launches of several shapes)")
            L.append(f"| {fx['fixture']} | {i}: `{l['kernel']}` | {tuple(l['block'])} | {fmt_counts(l['banklint_totals'])} | "
                     f"{fmt_counts(l['kernel_counters'])} | {eq} | {l['sum_of_lines']['wavefronts']} |")
    L.append("")
    nc = [(fx, r) for fx in out["fixtures"] for r in fx["lines"] if "agree" not in r]
    L.append("## Lines not compared\n")
    if not nc:
        L.append("None.\n")
    else:
        L.append("| fixture | line | array(s) | why | measured (inst / wf) |")
        L.append("|---|---:|---|---|---:|")
        for fx, r in nc:
            L.append(f"| {fx['fixture']} | {r['line']} | {', '.join(r['arrays'])} | {md_escape(r['status'])} | "
                     f"{fmt_counts(r.get('measured'))} |")
        L.append("")
    mo = [(fx, x) for fx in out["fixtures"] for x in fx["measured_only"]]
    L.append("## Shared-memory instructions on lines without a banklint access\n")
    if not mo:
        L.append("None: every shared-memory instruction ncu saw is on a line where banklint reports an access.\n")
    else:
        for fx, x in mo:
            L.append(f"- {fx['fixture']}:{x['line']} (launch {x['launch']}): {fmt_counts(x['measured'])} — "
                     + ", ".join(f"`{o['sass']}`" for o in x["measured"]["sass"]))
        L.append("")
    L.append("## Harness notes per fixture\n")
    for fx in out["fixtures"]:
        notes = list(fx["notes"])
        if "error" in fx:
            notes.append("did not compile: " + fx["error"].strip().splitlines()[-1] if fx["error"].strip() else "did not compile")
        for i, l in enumerate(fx["launches"]):
            if l.get("problem"):
                notes.append(f"launch {i}: {l['problem']}")
            if l.get("shared_wavefronts_in_other_files"):
                notes.append(f"launch {i}: shared wavefronts on lines of other files {l['shared_wavefronts_in_other_files']}")
        if notes:
            L.append(f"- {fx['fixture']}: " + "; ".join(md_escape(n) for n in notes))
    L.append("")
    L.append("## Skipped fixtures\n")
    for sk in out["skipped"]:
        L.append(f"- {sk['fixture']}: {sk['reason']} (`{' '.join(sk['banklint_args'])}`)")
    L.append("")
    return "\n".join(L)


# Causes of disagreements, established by reading the SASS that ncu correlates with each line:
# fixture -> [(a piece of the disagreeing source line, class of cause, the cause)]. A cause is shown
# only while the line disagrees and its source contains the piece (line numbers may move).
ATTR = "line attribution"
DEAD = "dead store removed by nvcc"
DEAD_LOAD = "dead load removed by nvcc"
MERGE = "nvcc merged accesses into wider instructions"
_DEAD = ("the array is written here and never read in the kernel, so nvcc removed the store (no STS in the "
         "SASS); banklint analyses the source as written")
_MERGE4 = ("nvcc unrolled the loop and merged 4 consecutive 4-byte loads of one thread ({what}) into one "
           "LDS.128, so the block executes 4x fewer shared instructions; ")
_SUNK = "nvcc sank the load to its use, {use}, where ncu counts it ({sass}, {wf} = banklint's)"
EXPLANATIONS = {
    "24_subword_short_sm90.cu": [
        ("a = h[tid]", ATTR, "nvcc sank the three 2-byte loads a, b, c to their use in `out[tid] = (short)(a + b "
         "+ c + ...)`, where ncu counts three LDS.U16 (1 + 2 + 1 wavefronts); together they equal banklint's "
         "1 + 1 + 2"),
        ("b = h[2 * tid]", ATTR, "load sunk to its use in `out[tid] = ...` (see `a = h[tid]`)"),
        ("c = h[4 * tid]", ATTR, "load sunk to its use in `out[tid] = ...` (see `a = h[tid]`)"),
    ],
    "27_struct_quad.cu": [
        ("= cache[tid].a", ATTR, "nvcc issues the next line's load of cache[tid].d (`LDS [R7+0xc]`) together "
         "with this one and gives it this line; each LDS costs 4 wavefronts as banklint says, and the two "
         "lines together agree"),
        ("= cache[tid].d", ATTR, "its LDS is counted on the line before (cache[tid].a)"),
    ],
    "50_vector_member_access.cu": [
        ("y = p4[tid].y", ATTR, "the next line's load of p4[tid].w (`LDS [R8+0xc]`, 4 wavefronts) is counted "
         "on this line too; the two lines together agree"),
        ("w = p4[tid].w", ATTR, "its LDS is counted on the line before (p4[tid].y)"),
    ],
    "54_wide_int_types.cu": [
        ("av = a[tid]", ATTR, _SUNK.format(use="`oa[tid] = av`", sass="`LDS.64`", wf="2 wavefronts")),
        ("hv = h[tid]", ATTR, _SUNK.format(use="`oc[tid] = hv`", sass="`LDS.64`", wf="2 wavefronts")),
        ("dv = d[tid]", ATTR, _SUNK.format(use="`od[tid] = dv`", sass="`LDS.128`", wf="4 wavefronts")),
        ("qv = q[2 * tid]", ATTR, _SUNK.format(use="`oe[tid] = qv`", sass="`LDS.128`",
                                               wf="8 wavefronts: 2-way")),
        ("cv = c[tid]", ATTR, _SUNK.format(use="`og[tid] = cv`", sass="`LDS`", wf="1 wavefront")),
    ],
    "45_matmul_single_tile.cu": [
        ("As[ty][k] * Bs[k][tx]", MERGE, _MERGE4.format(what="As[ty][k..k+3], a warp-uniform row: all lanes "
         "read the same 16 bytes") + "each such broadcast LDS.128 costs 2 wavefronts (ncu's ideal is 2 too). "
         "Per warp: 32 LDS for Bs[k][tx] (1 wavefront each, as banklint says) + 8 LDS.128 for As = 40 "
         "instructions / 48 wavefronts instead of 64 / 64; x 32 warps = 1280 / 1536. Not a bank-model "
         "error: the source-level accesses are not the instructions nvcc emits"),
    ],
    "46_matmul_tiled_outer_loop.cu": [
        ("As[ty][k] * Bs[k][tx]", MERGE, "as in 45_matmul_single_tile.cu: As[ty][k..k+3] merged into "
         "broadcast LDS.128 (2 wavefronts each), Bs[k][tx] stays 32 conflict-free LDS; 40 instructions / 48 "
         "wavefronts per warp and outer trip, x 32 warps x 16 trips = 20480 / 24576"),
    ],
    "47_scan_upsweep_naive.cu": [
        ("temp[2 * thid] = src[2 * thid]", MERGE, "nvcc merged this store and the next line's (temp[2t], "
         "temp[2t+1]: adjacent words of one thread) into one STS.64 counted on the next line: one 8-byte store "
         "at a stride of 8 bytes costs 2 wavefronts (its ideal), where banklint counts two 4-byte 2-way stores "
         "of 2 wavefronts each; the two lines: banklint 16 / 32, measured 8 / 16. (The next line agrees only "
         "by coincidence: the merged STS.64 costs what banklint predicts for that line alone.)"),
        ("temp[bi] += temp[ai]", MERGE, "nvcc unrolled the 9 trips; in the first trip (offset 1) ai = 2t and "
         "bi = 2t + 1 are adjacent words, and nvcc loads both with one `LDS.64` (16 wavefronts for the block) "
         "instead of two 2-way LDS (16 + 16): 285 - 16 = 269 wavefronts measured; the other trips cost "
         "exactly banklint's wavefronts. The line's instruction count includes predicated-off warps (`@!P` on "
         "every access); the kernel counter gives 69 = banklint's 93 - 8 (store merge) - 8 (final load merge) "
         "- 8 (this merge)"),
        ("= temp[2 * thid + 1]", MERGE, "nvcc merged this load and the line before's (temp[2t], temp[2t+1]) "
         "into one LDS.64 counted on the line before (2 wavefronts per warp, its ideal); the two lines: "
         "banklint 16 / 32, measured 8 / 16"),
    ],
    "49_column_pitch48.cu": [
        ("tile[tid][c] * w[c]", MERGE, _MERGE4.format(what="tile[tid][c..c+3]; rows are 192 bytes apart, so "
         "16-byte aligned") + "each LDS.128 (lane stride 192 bytes) costs 16 wavefronts (ideal 4), so per warp "
         "8 x 16 = 128 wavefronts instead of banklint's 32 x 16 = 512. The conflict is real in both; its cost "
         "per block differs because the instructions differ"),
    ],
    "57_matvec_row_per_thread.cu": [
        ("wv = w[tid][k]", MERGE, _MERGE4.format(what="w[tid][k..k+3]") + "each LDS.128 (lane stride 128 "
         "bytes, all lanes on the same 4 banks) costs 32 wavefronts (ideal 4): 8 x 32 = 256 instead of 32 x "
         "32 = 1024"),
        ("xv = x[k]", MERGE, _MERGE4.format(what="x[k..k+3], warp-uniform") + "each broadcast LDS.128 costs "
         "2 wavefronts (ideal 2): 8 x 2 = 16 instead of 32 x 1"),
    ],
    "58_unrolled_consecutive_loads.cu": [
        ("s[4 * tid + k]", MERGE, "the case this fixture documents: nvcc merges the 4 unrolled 4-byte loads of "
         "s[4t..4t+3] into one LDS.128 per warp (consecutive 16-byte records, 4 wavefronts = its ideal): 2 "
         "instructions / 8 wavefronts per block, where banklint checks the source-level 4-byte accesses "
         "(4-way, 8 / 32)"),
    ],
    "63_shared_pointers.cu": [("row[3]", DEAD, _DEAD + " (tile is only reached through `row`, and only written)")],
    "65_macro_precedence.cu": [("AS(tid, 0)", DEAD, _DEAD)],
    "67_local_include.cu": [("t[tid][0]", DEAD, _DEAD)],
    "68_file_scope_and_recovery.cu": [("g[tid][0]", DEAD, _DEAD + " (g is a file-scope __shared__ array)")],
    "69_library_types_and_defaults.cu": [("clocks[threadIdx.x] = start", DEAD, _DEAD),
                                         ("s[threadIdx.x][1] =", DEAD, _DEAD)],
    "70_uniform_runtime_values.cu": [("t[threadIdx.x % 32][0]", DEAD, _DEAD)],
    "71_device_template_call.cu": [("s[threadIdx.x % 32][0] = out", DEAD, _DEAD)],
    "72_included_kernel.cu": [("tile[tid][0]", DEAD, _DEAD), ("tile[0][tid]", DEAD, _DEAD)],
    "74_thread_block_tiles.cu": [
        ("s[t8.meta_group_rank() * 8 + t8.thread_rank()]", DEAD_LOAD,
         "the loaded value only goes to out[threadIdx.x], which `through_reference` on the next line overwrites, "
         "so nvcc removed the global store and the shared load with it; the kernel-level counters (6 / 36) are "
         "banklint's kernel totals without this line (8 - 2 / 38 - 2)"),
    ],
    "76_header_device_functions.cu": [
        ("store_strided(s, ", ATTR, "the access is in the header's device function; ncu attributes its SASS to "
         "the line of strided_access.cuh it is written on, not to the call banklint reports it at. The kernel-level "
         "counters equal banklint's kernel totals: 3 instructions / 34 wavefronts"),
        ("load_row(s)", ATTR, "as above: SASS attributed to strided_access.cuh; kernel-level counters agree"),
    ],
}


def banklint_values(d, kernel):
    """Integer arguments banklint analyzed `kernel` with and that are the same for all its
    accesses: host constants at the launch (`launch_arguments`) and `banklint: args`
    annotations (`assumed_arguments`)."""
    vals = {}
    for a in d["accesses"]:
        if a["kernel"] != kernel:
            continue
        for key in ("launch_arguments", "assumed_arguments"):
            for n, v in (a.get(key) or {}).items():
                vals.setdefault(n, set()).add(v)
    return {n: next(iter(v)) for n, v in vals.items() if len(v) == 1}


# =============================================================================================
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--banklint", default=os.environ.get("BANKLINT", "/work/target-val/release/banklint"))
    p.add_argument("--work", default=os.path.join(HERE, ".valwork"))
    p.add_argument("--only", help="comma-separated fixture name prefixes")
    p.add_argument("--git-rev", help="take fixtures/ from this git revision instead of the working tree")
    p = sub.add_parser("device")
    p.add_argument("--work", default=os.path.join(HERE, ".valwork"))
    p.add_argument("--out", required=True)
    p.add_argument("--only")
    p.add_argument("--views", default="cuda+sass,details",
                   help="exports: cuda, sass, cuda+sass (source page views), details, raw")
    p.add_argument("--explore", action="store_true", help="also record `ncu --help`")
    p.add_argument("--nvcc", default="nvcc")
    p.add_argument("--ncu", default="ncu")
    p.add_argument("--nvdisasm", default="nvdisasm")
    p.add_argument("--cuobjdump", default="cuobjdump")
    p = sub.add_parser("compare")
    p.add_argument("--results", required=True, help="fixture_results.tar.gz or its unpacked folder")
    p.add_argument("--json", default=os.path.join(HERE, "fixture_validation.json"))
    p.add_argument("--md", default=os.path.join(HERE, "fixture_validation.md"))
    p.add_argument("--fixtures", help="the fixture snapshot the run used, where the archive has none (WORK/fixtures)")
    args = ap.parse_args()
    {"prepare": prepare, "device": device, "compare": compare}[args.cmd](args)


if __name__ == "__main__":
    main()
