#!/usr/bin/env python3
"""Measure how much of a CUDA code base banklint reads and analyzes, per repository.

One command measures the development corpus (`../shared/corpus/repos.tsv`, extracted by
`../shared/corpus/extract.py` into `../corpus/OWNER+NAME/`), each repository with its own
`-D` defines, and prints one row per repository, a total row and the share:

    scripts/coverage.py --banklint target/release/banklint                  # the corpus
    scripts/coverage.py --banklint B ../ref/cuda-samples ../ref/gpu-rodinia  # one table each
    scripts/coverage.py --banklint B --corpus --json new.json --compare old.json DIR...

Without DIR arguments the corpus is measured; with DIR arguments, each DIR is a table of its
own (one row, no defines), and `--corpus` adds the corpus table. `--json FILE` writes the same
numbers (and the state of every declaration) for the README and for comparisons;
`--compare OLD.json` prints, per repository, what changed from OLD.json (arrays analyzed,
accesses, seconds, crashes, and the declarations that were gained or lost: each one, or grouped
by change where there are more than 8; `--list-missing` lists each). `--from-json
NEW.json --compare OLD.json` compares two saved measurements without running banklint.

What is counted
---------------
* Files run: every `.cu` and `.cuh` file, and every `.h`/`.hpp`/`.inl` header that holds
  device code (`__global__`, `__device__` or `__shared__` outside comments). Headers of
  another GPU back end (a path component `hip`, `sycl`, `opencl` or `ocl`, or a name ending
  in `_hip`, `_sycl`, `_ocl`) are not CUDA and are left out; the details say how many.
  banklint runs once per file (`banklint check FILE --format json --no-config` plus the
  repository's `-D` flags, from the table's root directory, with a timeout), so a crash or a
  hang in one file does not hide the others, and each file is checked in the context of its
  includer as banklint finds it (its own directory).
* Arrays in the text: every declarator of a `__shared__` declaration whose declarator has
  `[` (`__shared__ float a[32], b[32];` is two arrays), in those files, found by a text scan
  with comments and string literals blanked. Scalars (`__shared__ TempStorage ts;`) are
  counted on their own line. A `__shared__` inside a `#define` body is not a declaration
  (it is counted as "in macro bodies"); an object-like macro whose body holds `__shared__`
  (`#define LOCAL __shared__`) is read as `__shared__` in that repository.
* Active code: a declaration on a line that banklint's own run of that file reports as
  inactive (`inactive_lines`, evaluated with the repository's `-D` flags and `__CUDA_ARCH__`
  of the default `--arch`) is not counted, unless an access reaches it (then some includer
  compiles it). When the file's run gave no JSON (crash, timeout), only `#if 0` blocks are
  taken as inactive.

How an access is credited to a declaration
------------------------------------------
Accesses from every run of the table are pooled, so an array declared in a header counts
whether its access is reported in the header's own run (checked on its own or in the
context of its includer) or in the run of a file that uses it. An access credits:
1. the declaration named by its JSON `declared_in` (wrapper classes such as
   `SharedMemory<float>`: file, array name and line, the line within 2 of the `__shared__`);
   a future `declaration: {file, line}` field on an access is used the same way, exactly;
2. otherwise the declarations whose declarator name is the access's `array`, in the file
   the access is reported in or the file it is written in (`written_in`, a device function
   of a header inlined at the call): the one whose enclosing function contains the place it
   is written; else the ones declared in the function named by the access's `kernel`; else
   the file-scope ones; else all of that name in the reported file (an array passed to a
   device function by pointer);
3. an access under a name that no declaration of those files has (a pointer banklint did
   not trace to its declaration) is credited to the reported file's `extern __shared__`
   declarations that nothing else reached; the table counts these on their own line.
An array is "reached" when any access credits it and "analyzed" when an access with
`status: analyzed` does.

Why a declaration is not reached (first that applies)
-----------------------------------------------------
the file's run crashed, timed out or failed; a banklint diagnostic at the declaration's line
(any code other than the access and parse ones: the note a front end gives for a declaration
it cannot reach); a `skipped-code` region covers it (a whole function: the span of the
function whose signature starts on the reported line; a statement: up to its `;` or its
brace block), with the region's label from the human output (the JSON does not carry it);
it is at file or namespace scope; its function has no access at all (a kernel, a kernel
template, a device function no analyzed kernel reaches, or a function without `__global__`
or `__device__` in its signature: a macro); its function has accesses but none reaches this
array (and whether the name is used at all after the declaration).

Seconds are the wall time of each JSON run (process start included), summed per repository,
with the slowest file. Runs go in parallel (`--jobs`, default one per core), which on a
loaded machine inflates each file's time; use `--jobs 1` for times to quote. Each file run
prepares its headers anew, as an editor's first check of a file does.

"One run" is the other time a user meets: the same files given to one `banklint check`
(as a pre-commit hook or CI passes them), which reads each header once for all of them and
checks files side by side on its cores. It runs alone, after the file runs, with
`--one-run-timeout` (default 600 s); `--no-one-run` leaves it out.

Options that list more: `--markdown` (the README's table), `--list-missing` (each declaration
not analyzed, with why),
`--per-file` (one line per file run), `--details` (unknown-access and skipped-code reasons,
and the C++ constructs in the signatures of skipped kernels).

Python 3 standard library only.
"""

import argparse
import collections
import concurrent.futures
import csv
import datetime
import json
import os
import re
import subprocess
import sys
import time

RUN_ALWAYS = (".cu", ".cuh")
HEADERS = (".h", ".hpp", ".inl")
OTHER_BACKENDS = {"hip", "sycl", "opencl", "ocl"}
CONTROL_WORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof",
                 "defined", "__launch_bounds__", "__attribute__", "decltype",
                 "alignas", "__align__", "static_assert"}
DEVICE_CODE_RE = re.compile(r"\b(__global__|__device__|__shared__)\b")
# Diagnostics about accesses, parsing and includes: not a front end's note on a declaration.
ACCESS_CODES = {"bank-conflict", "unanalyzed-access", "skipped-code", "include-not-found",
                "block-shape", "expectation-failed", "unused-allow", "invalid-annotation",
                "shared-capacity"}
SCHEMA = 1


# ---------------------------------------------------------------------------
# Source scanning


def strip_comments(text):
    """Return text with comments and string/char literals replaced by spaces.

    Newlines are kept so that offsets and line numbers do not move.
    """
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            # A quote between identifier characters is a C++14 digit separator (1'000).
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + (c if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Lines:
    """Offset <-> line number (1-based) for one text."""

    def __init__(self, text):
        self.starts = [0]
        for m in re.finditer("\n", text):
            self.starts.append(m.end())

    def line(self, offset):
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    def offset(self, line):
        return self.starts[min(max(line, 1), len(self.starts)) - 1]


def macro_lines(code):
    """Line numbers (1-based) of preprocessor directives and their continuations."""
    out = set()
    cont = False
    for i, l in enumerate(code.split("\n"), 1):
        if cont or l.lstrip().startswith("#"):
            out.add(i)
            cont = l.rstrip().endswith("\\")
        else:
            cont = False
    return out


def function_spans(code, lines):
    """Brace blocks that look like function bodies, `name(...) [const] {`: a list of dicts
    with name, head_line (first line of the signature, template line included), body_start
    and body_end (offsets), start_line, end_line and head (the signature text). A rough
    scan, good enough to tell which function a declaration or an access is in."""
    stack = []  # (open offset, name, head_start, head)
    spans = []
    for m in re.finditer(r"[{}]", code):
        if m.group() == "{":
            start = m.start()
            k = max(code.rfind(";", 0, start), code.rfind("{", 0, start), code.rfind("}", 0, start))
            raw = code[k + 1:start]
            # The signature starts after blank and preprocessor lines.
            head_start = k + 1
            for piece in re.finditer(r"[^\n]*\n?", raw):
                text = piece.group()
                if text.strip() == "" or text.lstrip().startswith("#"):
                    head_start = k + 1 + piece.end()
                    continue
                break
            head = "\n".join(l for l in raw.split("\n") if not l.lstrip().startswith("#"))
            head = re.sub(r"\s+", " ", head).strip()
            head = re.sub(r"\)\s*(const|noexcept|override|final|mutable|\s)*$", ")", head)
            name = None
            om = re.search(r"\boperator\b\s*(.*?)\s*\((?:[^()]|\([^()]*\))*\)\s*(?:->[^{]*)?$", head)
            fm = re.search(r"([A-Za-z_]\w*)\s*(<[^;{}]*>)?\s*\((?:[^()]|\([^()]*\))*\)\s*(?:->[^{]*)?$", head)
            if om:
                name = "operator " + re.sub(r"\s+", " ", om.group(1)).strip()
            elif fm and fm.group(1) not in CONTROL_WORDS:
                name = fm.group(1)
            stack.append((start, name, min(head_start, start), head))
        elif stack:
            start, name, head_start, head = stack.pop()
            if name is not None:
                spans.append({"name": name, "head_line": lines.line(head_start),
                              "start_line": lines.line(start), "end_line": lines.line(m.start()),
                              "body_start": start, "body_end": m.start(), "head": head})
    return spans


def innermost(spans, line):
    best = None
    for s in spans:
        if s["start_line"] <= line <= s["end_line"] and (best is None or s["body_start"] > best["body_start"]):
            best = s
    return best


def split_top_level(text, sep):
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth = max(0, depth - 1)
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def drop_attributes(decl):
    """Remove `alignas(...)`, `__align__(...)`, `__attribute__((...))` and
    `__declspec(...)`, with balanced parentheses."""
    out = []
    i = 0
    for m in re.finditer(r"\b(alignas|__align__|__attribute__|__declspec)\s*\(", decl):
        if m.start() < i:
            continue
        out.append(decl[i:m.start()])
        depth = 0
        j = m.end() - 1
        while j < len(decl):
            if decl[j] == "(":
                depth += 1
            elif decl[j] == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        out.append(" ")
        i = j + 1
    out.append(decl[i:])
    return "".join(out)


def declarator(decl):
    """(name, is_array) of `type name[...] = ...` / `name[...]`; name None if there is none."""
    decl = drop_attributes(decl)
    depth = 0
    cut = len(decl)
    for idx, ch in enumerate(decl):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0 and ch in "[=":
            cut = idx
            break
        elif depth == 0 and ch == "(" and re.search(r"[A-Za-z_]\w*\s*$", decl[:idx]):
            cut = idx
            break
    idents = re.findall(r"[A-Za-z_]\w*", decl[:cut])
    if not idents:
        return None, False
    rest = decl[cut:]
    return idents[-1], rest.lstrip().startswith("[")


def shared_synonyms(code):
    """Object-like macros whose body is `__shared__` with qualifiers (`#define LOCAL __shared__`)."""
    return set(re.findall(r"^\s*#\s*define\s+([A-Za-z_]\w*)[ \t]+(?:\w+[ \t]+)*__shared__(?:[ \t]+\w+)*[ \t]*$",
                          code, re.M))


def shared_re(synonyms):
    words = ["__shared__"] + sorted(synonyms)
    return re.compile(r"\b(?:%s)\b" % "|".join(re.escape(w) for w in words))


class FileScan:
    """What the text of one file declares: `__shared__` declarators and function spans."""

    def __init__(self, path, text, pattern):
        self.path = path
        self.code = strip_comments(text)
        self.lines = Lines(self.code)
        self.spans = function_spans(self.code, self.lines)
        self.text_lines = text.splitlines()
        self.decls = []
        self.in_macro = 0
        macro = macro_lines(self.code)
        code = self.code
        for m in pattern.finditer(code):
            ln = self.lines.line(m.start())
            if ln in macro:
                if not re.search(r"#\s*define\s+$", code[self.lines.offset(ln):m.start()]):
                    self.in_macro += 1
                continue
            end = code.find(";", m.end())
            end = len(code) if end < 0 else end
            body = code[m.end():end]
            prefix = code[max(0, m.start() - 40):m.start()]
            extern = bool(re.search(r"\bextern\s*$", prefix))
            fn = innermost(self.spans, ln)
            for d in split_top_level(body, ","):
                name, is_array = declarator(d)
                if not name:
                    continue
                self.decls.append({
                    "file": path, "line": ln, "name": name, "array": is_array,
                    "extern": extern, "function": fn,
                    "text": self.text_lines[ln - 1].strip() if ln - 1 < len(self.text_lines) else "",
                })

    def if0_lines(self):
        """Lines inside `#if 0` ... `#endif`/`#else` (the fallback when no run reported)."""
        out = set()
        depth = 0
        dead_at = None
        for i, l in enumerate(self.code.split("\n"), 1):
            s = l.strip()
            if re.match(r"#\s*if", s):
                depth += 1
                if dead_at is None and re.match(r"#\s*if\s+0\b", s):
                    dead_at = depth
            elif re.match(r"#\s*(else|elif)", s) and dead_at == depth:
                dead_at = None
            elif re.match(r"#\s*endif", s):
                if dead_at == depth:
                    dead_at = None
                depth = max(0, depth - 1)
            if dead_at is not None:
                out.add(i)
        return out

    def statement_end_line(self, line):
        """Last line of the statement or brace block that starts on `line`."""
        off = self.lines.offset(line)
        semi = self.code.find(";", off)
        brace = self.code.find("{", off)
        if brace >= 0 and (semi < 0 or brace < semi):
            depth = 0
            for m in re.finditer(r"[{}]", self.code[brace:]):
                depth += 1 if m.group() == "{" else -1
                if depth == 0:
                    return self.lines.line(brace + m.start())
            return len(self.lines.starts)
        return self.lines.line(semi if semi >= 0 else len(self.code))


# ---------------------------------------------------------------------------
# Files


def is_other_backend(rel):
    parts = rel.replace("\\", "/").split("/")
    if any(p.lower() in OTHER_BACKENDS for p in parts[:-1]):
        return True
    stem = os.path.splitext(parts[-1])[0].lower()
    return any(stem.endswith("_" + b) for b in OTHER_BACKENDS)


def select_files(root):
    """(files to run, relative to root; headers of another back end left out; bytes)."""
    run, other, size = [], [], 0
    if os.path.isfile(root):
        return [os.path.basename(root)], [], os.path.getsize(root)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for fn in sorted(filenames):
            p = os.path.join(dirpath, fn)
            rel = os.path.relpath(p, root)
            if fn.endswith(RUN_ALWAYS):
                run.append(rel)
            elif fn.endswith(HEADERS):
                text = read(p)
                if not DEVICE_CODE_RE.search(strip_comments(text)):
                    continue
                if is_other_backend(rel):
                    other.append(rel)
                    continue
                run.append(rel)
            else:
                continue
            size += os.path.getsize(p)
    return run, other, size


def read(path):
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return ""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", errors="replace")


# ---------------------------------------------------------------------------
# Running banklint

ANNOT_RE = re.compile(r"^\s*│[\s│╰╭─·]*\^+\s?(.*)$")
HEADER_RE = re.compile(r"^(error|warning|note|help)\[([a-z0-9-]+)\]: ")
LOC_RE = re.compile(r"^\s*[┌╭]─ (.*):(\d+):(\d+)\s*$")


NUMBERED_RE = re.compile(r"^\s*(\d+) │")


def skipped_labels(human_output):
    """Map (file, line, column) -> (label text, last line of the span) for skipped-code
    diagnostics in banklint's human output (the JSON format carries neither)."""
    labels = {}
    code = None
    loc = None
    last = None
    for line in human_output.splitlines():
        h = HEADER_RE.match(line)
        if h:
            code = h.group(2)
            loc = None
            continue
        if code != "skipped-code":
            continue
        lm = LOC_RE.match(line)
        if lm and loc is None:
            loc = (os.path.normpath(lm.group(1)), int(lm.group(2)), int(lm.group(3)))
            continue
        nm = NUMBERED_RE.match(line)
        if nm:
            last = int(nm.group(1))
            continue
        am = ANNOT_RE.match(line)
        # A span over several lines is drawn `╭───^` on its first line (no label) and
        # `╰───^ label` under its last.
        if am and am.group(1).strip() and loc is not None and loc not in labels:
            labels[loc] = (am.group(1).strip(), last or loc[1])
    return labels


def run_banklint(banklint, root, rel, timeout, extra):
    """One file: banklint's JSON (or why there is none), its time, and skipped-code labels."""
    res = {"path": rel, "crash": False, "timeout": False, "error": None,
           "json": None, "labels": {}, "seconds": 0.0}
    cmd = [banklint, "check", rel, "--format", "json", "--color", "never", "--no-config"] + extra
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=timeout,
                           errors="replace")
    except subprocess.TimeoutExpired:
        res["timeout"] = True
        res["seconds"] = time.monotonic() - t0
        return res
    res["seconds"] = time.monotonic() - t0
    if p.returncode == 101 or "panicked" in p.stderr or p.returncode < 0:
        res["crash"] = True
        first = [l for l in p.stderr.splitlines() if "panicked" in l]
        res["error"] = (first[0] if first else p.stderr.strip()[:300]) or f"exit {p.returncode}"
        return res
    try:
        res["json"] = json.loads(p.stdout)
    except ValueError:
        res["error"] = f"no JSON output (exit {p.returncode}): {p.stderr.strip()[:300]}"
        return res
    for f in res["json"].get("files", []):
        if f.get("status") != "ok":
            res["error"] = f.get("message") or f.get("status")
    if any(d.get("code") == "skipped-code" for d in res["json"].get("diagnostics", [])):
        try:
            h = subprocess.run(cmd[:3] + ["--format", "human"] + cmd[5:], cwd=root, capture_output=True,
                               text=True, timeout=timeout, errors="replace")
            res["labels"] = skipped_labels(h.stdout + h.stderr)
        except subprocess.TimeoutExpired:
            pass
    return res


# ---------------------------------------------------------------------------
# Reasons


def normalize_reason(text):
    """Group similar reasons: backticked code becomes `…`, numbers become N.
    Returns (normalized, list of backticked snippets)."""
    if not text:
        return "(no reason given)", []
    snippets = []
    out = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch != "`":
            if depth == 0:
                out.append(ch)
            continue
        nxt = text[i + 1] if i + 1 < len(text) else " "
        # Quotes nest (`the loop over `s``): a backtick closes when one is open and it is
        # followed by a space, punctuation or the end.
        if depth > 0 and (nxt.isspace() or nxt in ",.;:)]`"):
            depth -= 1
            if depth == 0:
                snippets.append(text[start:i])
                out.append("`…`")
        else:
            if depth == 0:
                start = i + 1
            depth += 1
    if depth:
        out.append("`…")
    norm = re.sub(r"\b\d+\b", "N", "".join(out))
    return norm, snippets


C_WORDS = set("""void char short int long float double signed unsigned const volatile struct
union enum bool static inline extern register restrict __restrict __restrict__ __global__
__device__ __host__ __forceinline__ __inline__ __noinline__ __launch_bounds__ auto""".split())
CUDA_TYPE_WORDS = set("""size_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t
uint64_t uintptr_t intptr_t half __half half2 __half2 __nv_bfloat16 __nv_bfloat162 nv_bfloat16
nv_bfloat162 dim3 uint ushort uchar ulong cudaStream_t cudaError_t cudaEvent_t""".split())
for _base in ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong",
              "ulonglong", "float", "double"):
    for _n in "1234":
        CUDA_TYPE_WORDS.add(_base + _n)


def signature_suspects(code, head):
    """What a function's signature has that a C parser would not accept (a guess)."""
    local = set(re.findall(r"typedef[^;]*?\b(\w+)\s*;", code))
    local |= set(re.findall(r"\b(?:struct|class|union|enum)\s+(\w+)", code))
    local |= set(re.findall(r"^\s*#\s*define\s+(\w+)", code, re.M))
    found = []
    if re.search(r"\btemplate\s*<", head):
        found.append("template")
    if re.search(r"\boperator\b", head):
        found.append("operator overload")
    m = re.search(r"\((.*)\)\s*$", head, re.S)
    params = m.group(1) if m else ""
    if re.search(r"&\s*\w+\s*(,|$)", params):
        found.append("reference parameter")
    if re.search(r"[^=!<>]=[^=]", params):
        found.append("default argument")
    if "typename" in params:
        found.append("dependent type (typename)")
    for p in split_top_level(params, ","):
        p = re.sub(r"\s*=.*", "", p, flags=re.S)
        words = re.findall(r"[A-Za-z_]\w*(?:::\w+)*", p)
        for wd in words[:-1]:
            if wd not in C_WORDS and wd not in CUDA_TYPE_WORDS and wd not in local and wd != "typename":
                found.append("type `…`" if "<" not in p else "template type")
                break
    return sorted(set(found))


# ---------------------------------------------------------------------------
# Measuring one repository


WRITTEN_RE = re.compile(r"at (.+):(\d+)\s*$")


class Repo:
    """One row: a directory with its defines."""

    def __init__(self, name, root, defines=(), note=""):
        self.name = name
        self.root = root
        self.defines = list(defines)
        self.note = note


def measure(repo, args, progress):
    files, other_backend, size = select_files(repo.root)
    texts = {rel: read(os.path.join(repo.root, rel)) for rel in files}
    synonyms = set()
    for t in texts.values():
        if "__shared__" in t and "define" in t:
            synonyms |= shared_synonyms(strip_comments(t))
    pattern = shared_re(synonyms)
    scans = {}
    for rel, t in texts.items():
        scans[os.path.normpath(rel)] = FileScan(os.path.normpath(rel), t, pattern)
    by_base = collections.defaultdict(list)
    for k in scans:
        by_base[os.path.basename(k)].append(k)

    extra = [f"-D{d}" for d in repo.defines] + args.banklint_arg
    done = [0]

    def one(rel):
        r = run_banklint(args.banklint, repo.root, rel, args.timeout, extra)
        done[0] += 1
        if progress and (done[0] % 50 == 0 or done[0] == len(files)):
            print(f"  {repo.name}: {done[0]}/{len(files)} files", file=sys.stderr, flush=True)
        return r

    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(one, files))
    wall = time.monotonic() - t0
    row = tally(repo, results, scans, by_base, other_backend, size, wall)
    if args.one_run and files:
        row["one_run"] = run_all_at_once(args.banklint, repo.root, files, args.one_run_timeout, extra)
    return row


def run_all_at_once(banklint, root, files, timeout, extra):
    """Every file in one `banklint check` (headers read once, files side by side): its wall
    time, and whether it ended as a check does (exit 0 or 1: findings or none)."""
    cmd = [banklint, "check", *files, "--format", "json", "--color", "never", "--no-config"] + extra
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return {"seconds": round(time.monotonic() - t0, 3), "status": "timeout"}
    seconds = round(time.monotonic() - t0, 3)
    if p.returncode == 101 or "panicked" in p.stderr or p.returncode < 0:
        return {"seconds": seconds, "status": "crash"}
    return {"seconds": seconds, "status": "ok" if p.returncode in (0, 1) else f"exit {p.returncode}"}


def resolve_written(place, access_file, scans, by_base, root=None):
    """`fn` at FILE:LINE -> (normalized file, line) of a file of this repository, or None."""
    m = WRITTEN_RE.search(place or "")
    if not m:
        return None
    f = resolve_header(m.group(1), access_file, scans, by_base, root)
    return (f, int(m.group(2))) if f else None


def resolve_header(f, access_file, scans, by_base, root=None):
    """A header as banklint names it, the path written in the `#include` (`helpers.cuh`,
    `cub/detail/rfa.cuh`) -> the normalized path of a file of this repository, or None:
    beside the access's file, from the root, else the one file whose path ends so."""
    for cand in (os.path.join(os.path.dirname(access_file), f), f):
        c = os.path.normpath(cand)
        if c in scans:
            return c
    hits = by_base.get(os.path.basename(f), [])
    if len(hits) > 1 and root:
        tail = os.sep + os.path.normpath(f)
        hits = [h for h in hits if os.path.abspath(os.path.join(root, h)).endswith(tail)]
    if len(hits) == 1:
        return hits[0]
    return None


def tally(repo, results, scans, by_base, other_backend, size, wall):
    decls = [d for s in scans.values() for d in s.decls]
    by_name = collections.defaultdict(list)
    for d in decls:
        by_name[(d["file"], d["name"])].append(d)
    reached, analyzed = {}, {}          # id(decl) -> count
    unknown_of = collections.defaultdict(collections.Counter)  # id(decl) -> reasons
    fn_accessed = set()                 # (file, body_start) of functions with an access
    kernel_names = collections.defaultdict(set)   # file -> kernel names in its accesses
    alias = collections.defaultdict(lambda: [0, 0])  # file -> [accesses, analyzed]
    inactive = collections.defaultdict(list)
    seen = set()
    acc_analyzed = acc_unknown = 0
    unknown_reasons = collections.Counter()
    unknown_example = {}
    skipped_reasons = collections.Counter()
    skipped_regions = collections.defaultdict(list)  # file -> (first, last, label)
    decl_notes = collections.defaultdict(list)       # (file, line) -> message
    suspects = collections.Counter()
    diag_codes = collections.Counter()
    run_of = {}
    per_file = []
    seconds = 0.0
    slowest = (0.0, "")
    parsed = collections.Counter()
    crashes, timeouts, errors = [], [], []

    def credit(d, status, reason):
        k = id(d)
        reached[k] = reached.get(k, 0) + 1
        if status == "analyzed":
            analyzed[k] = analyzed.get(k, 0) + 1
        else:
            unknown_of[k][normalize_reason(reason)[0]] += 1

    for r in results:
        rel = os.path.normpath(r["path"])
        run_of[rel] = r
        seconds += r["seconds"]
        if r["seconds"] > slowest[0]:
            slowest = (r["seconds"], rel)
        data = r["json"] or {}
        for f in data.get("files", []):
            inactive[os.path.normpath(f.get("path", rel))].extend(f.get("inactive_lines") or [])
        scan = scans.get(rel)
        skipped = 0
        for dg in data.get("diagnostics", []):
            code = dg.get("code")
            diag_codes[code] += 1
            dfile = os.path.normpath(dg.get("file") or rel)
            line = dg.get("line") or 1
            if code == "skipped-code":
                skipped += 1
                label, span_end = r["labels"].get((dfile, line, dg.get("column")), (None, line))
                norm = normalize_reason(label or "(reason not in the human output)")[0]
                skipped_reasons[norm] += 1
                s = scans.get(dfile)
                first, last = line, line
                if s is not None:
                    whole = [sp for sp in s.spans if sp["head_line"] <= line <= sp["start_line"]]
                    if label and re.search(r"could not parse this (kernel|device function|function)", label) and whole:
                        sp = min(whole, key=lambda x: x["body_start"])
                        first, last = sp["head_line"], sp["end_line"]
                        for sus in signature_suspects(s.code, sp["head"]):
                            suspects[sus] += 1
                    else:
                        last = max(span_end, s.statement_end_line(line))
                skipped_regions[dfile].append((first, last, norm))
            elif code not in ACCESS_CODES:
                # `unreached-array` says why in its label; other notes in their message.
                said = dg.get("label") if code == "unreached-array" else None
                decl_notes[(dfile, line)].append(
                    f"{code}: {normalize_reason(said or dg.get('message'))[0]}")
        status = "fully"
        if r["crash"]:
            crashes.append((rel, r["error"]))
            status = "not"
        elif r["timeout"]:
            timeouts.append(rel)
            status = "not"
        elif r["error"]:
            errors.append((rel, r["error"]))
            status = "not"
        elif scan and scan.decls and not data.get("accesses"):
            status = "not"
        elif skipped:
            status = "partly"
        parsed[status] += 1
        n_acc = len(data.get("accesses", []))
        n_ana = sum(1 for a in data.get("accesses", []) if a.get("status") == "analyzed")
        per_file.append((rel, status, r["seconds"], n_acc, n_ana, skipped,
                         "crash" if r["crash"] else "timeout" if r["timeout"] else (r["error"] or "")))

        for a in data.get("accesses", []):
            key = json.dumps(a, sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            status_a = a.get("status")
            if status_a == "analyzed":
                acc_analyzed += 1
            else:
                acc_unknown += 1
                norm = normalize_reason(a.get("reason"))[0]
                unknown_reasons[norm] += 1
                unknown_example.setdefault(norm, f"{a.get('file')}:{a.get('line')}")
            afile = os.path.normpath(a.get("file") or rel)
            name = a.get("array")
            kernel_names[afile].add(a.get("kernel"))
            written = resolve_written(a.get("written_in"), afile, scans, by_base, repo.root)
            loc = written or (afile, a.get("line") or 0)
            s = scans.get(loc[0])
            if s is not None:
                sp = innermost(s.spans, loc[1])
                if sp is not None:
                    fn_accessed.add((loc[0], sp["body_start"]))
            targets = []
            exact = a.get("declaration")
            places = list(a.get("declared_in") or []) + ([exact] if isinstance(exact, dict) else [])
            for pl in places:
                pf = os.path.normpath(pl.get("file") or afile)
                if pf not in scans:
                    pf = resolve_header(pf, afile, scans, by_base, repo.root) or pf
                pname = pl.get("array") or pl.get("name") or name
                for d in by_name.get((pf, pname), []):
                    if 0 <= (pl.get("line") or 0) - d["line"] <= 2:
                        targets.append(d)
            if not targets:
                cands = by_name.get((afile, name), [])
                if written and written[0] != afile:
                    cands = cands + by_name.get((written[0], name), [])
                if cands:
                    inside = [d for d in cands if d["file"] == loc[0] and d["function"]
                              and d["function"]["start_line"] <= loc[1] <= d["function"]["end_line"]]
                    if inside:
                        targets = [max(inside, key=lambda d: d["function"]["body_start"])]
                    else:
                        targets = [d for d in cands if d["function"] and d["function"]["name"] == a.get("kernel")]
                        if not targets:
                            targets = [d for d in cands if d["function"] is None]
                        if not targets:
                            targets = [d for d in cands if d["file"] == afile] or cands
                else:
                    alias[afile][0] += 1
                    if status_a == "analyzed":
                        alias[afile][1] += 1
            for d in {id(d): d for d in targets}.values():
                credit(d, status_a, a.get("reason"))

    # Untraced names: credited to the file's extern declarations nothing else reached.
    via_alias = set()
    for f, (n, n_ana) in alias.items():
        for d in scans[f].decls if f in scans else []:
            if d["extern"] and id(d) not in reached:
                via_alias.add(id(d))
                reached[id(d)] = n
                if n_ana:
                    analyzed[id(d)] = n_ana

    row = {
        "repo": repo.name, "root": repo.root, "defines": repo.defines,
        "files": len(results), "bytes": size, "other_backend_headers": len(other_backend),
        "parsed": {"fully": parsed["fully"], "partly": parsed["partly"], "not": parsed["not"]},
        "arrays": 0, "arrays_inactive": 0, "arrays_in_headers": 0,
        "arrays_reached": 0, "arrays_analyzed": 0, "arrays_via_untraced_pointer": 0,
        "scalars": 0, "scalars_analyzed": 0, "shared_in_macro_bodies": sum(s.in_macro for s in scans.values()),
        "accesses_analyzed": acc_analyzed, "accesses_unknown": acc_unknown,
        "unknown_reasons": dict(unknown_reasons.most_common()),
        "unknown_examples": {k: unknown_example[k] for k in unknown_reasons},
        "unknown_only": {}, "not_reached": {}, "not_reached_examples": {},
        "skipped_reasons": dict(skipped_reasons.most_common()),
        "skipped_signatures": dict(suspects.most_common()),
        "diagnostics": dict(sorted(diag_codes.items(), key=lambda kv: str(kv[0]))),
        "seconds": round(seconds, 3), "wall_seconds": round(wall, 3),
        "slowest": {"file": slowest[1], "seconds": round(slowest[0], 3)},
        "crashes": [f"{p}: {e}" for p, e in crashes], "timeouts": timeouts,
        "errors": [f"{p}: {e}" for p, e in errors],
        "declarations": [], "per_file": per_file,
    }
    macros = set()
    for s in scans.values():
        macros |= set(re.findall(r"^\s*#\s*define\s+([A-Za-z_]\w*)\(", s.code, re.M))
    unknown_only = collections.Counter()
    not_reached = collections.Counter()
    not_reached_hints = collections.defaultdict(collections.Counter)
    not_reached_ex = {}
    for d in decls:
        k = id(d)
        spans_inactive = inactive.get(d["file"])
        r = run_of.get(d["file"])
        if spans_inactive is None and (r is None or r["json"] is None):
            dead = d["line"] in scans[d["file"]].if0_lines()
        else:
            dead = any(a <= d["line"] <= b for a, b in spans_inactive or [])
        if dead and k not in reached:
            if d["array"]:
                row["arrays_inactive"] += 1
                row["declarations"].append({"file": d["file"], "line": d["line"], "name": d["name"],
                                            "state": "inactive", "why": ""})
            continue
        if not d["array"]:
            row["scalars"] += 1
            if k in analyzed:
                row["scalars_analyzed"] += 1
            continue
        row["arrays"] += 1
        if d["file"].endswith(HEADERS + (".cuh",)):
            row["arrays_in_headers"] += 1
        if k in via_alias:
            row["arrays_via_untraced_pointer"] += 1
        if k in analyzed:
            state, why = "analyzed", ""
            row["arrays_analyzed"] += 1
            row["arrays_reached"] += 1
        elif k in reached:
            state = "unknown"
            why = unknown_of[k].most_common(1)[0][0] if unknown_of[k] else "(through an untraced pointer)"
            row["arrays_reached"] += 1
            unknown_only[why] += 1
        else:
            state = "unreached"
            why = why_not_reached(d, scans[d["file"]], run_of.get(d["file"]), decl_notes,
                                  skipped_regions, fn_accessed, kernel_names, macros)
            main, hint = split_use_hint(why)
            not_reached[main] += 1
            if hint:
                not_reached_hints[main][hint] += 1
            not_reached_ex.setdefault(main, f"{d['file']}:{d['line']}")
        row["declarations"].append({"file": d["file"], "line": d["line"], "name": d["name"],
                                    "state": state, "why": why})
    row["unknown_only"] = dict(unknown_only.most_common())
    row["not_reached"] = dict(not_reached.most_common())
    row["not_reached_examples"] = not_reached_ex
    row["not_reached_hints"] = {k: dict(v.most_common()) for k, v in not_reached_hints.items()}
    return row


def why_not_reached(d, scan, run, decl_notes, skipped_regions, fn_accessed, kernel_names, macros):
    if run is None:
        return "file not run"
    if run["crash"]:
        return "crash"
    if run["timeout"]:
        return "timeout"
    if run["error"]:
        return "error: " + normalize_reason(run["error"])[0][:80]
    for ln in range(d["line"], d["line"] + 3):
        notes = decl_notes.get((d["file"], ln))
        if notes:
            return "banklint: " + notes[0]
    for first, last, label in skipped_regions.get(d["file"], []):
        if first <= d["line"] <= last:
            return "skipped: " + label
    fn = d["function"]
    if fn is None:
        return "file or namespace scope, no access traced to it"
    hint = use_hint(d, scan, macros)
    if hint == "; never used":
        return "declared, never used"
    if (d["file"], fn["body_start"]) not in fn_accessed and fn["name"] not in kernel_names.get(d["file"], ()):
        head = fn["head"]
        tmpl = " template" if re.search(r"\btemplate\s*<", head) else ""
        if re.search(r"\b__global__\b", head):
            return f"kernel{tmpl}: no access reported in it" + hint
        if re.search(r"\b__device__\b", head):
            return f"device function{tmpl}: no analyzed kernel reaches it"
        return f"function{tmpl} without __global__/__device__ in its text (macro?): nothing reported"
    return "function analyzed, no access to this array reported" + hint


USE_HINTS = ("never used", "used in a function-like macro's argument", "address taken or cast",
             "passed to a call")


def split_use_hint(why):
    """A reason and the use hint `use_hint` appended to it, if any: banklint's own reasons may
    have a `; ` of their own."""
    main, sep, hint = why.rpartition("; ")
    return (main, hint) if sep and hint in USE_HINTS else (why, "")


def use_hint(d, scan, macros):
    """How the array is used after its declaration, in its function: `; never used`, `; used in
    a function-like macro's argument`, `; address taken or cast`, `; passed to a call`, or ``."""
    fn = d["function"]
    start = scan.lines.offset(d["line"])
    end = fn["body_end"] if fn else len(scan.code)
    code = scan.code
    kinds = set()
    uses = 0
    for m in re.finditer(r"\b%s\b" % re.escape(d["name"]), code[start:end]):
        at = start + m.start()
        uses += 1
        if uses == 1:
            continue  # the declaration itself
        stmt = max(code.rfind(";", 0, at), code.rfind("{", 0, at), code.rfind("}", 0, at)) + 1
        before = code[stmt:at]
        if re.search(r"&\s*\(?\s*$", before) or re.search(r"_cast\s*<[^;]*>\s*\(\s*&?\s*\(?\s*$", before) \
                or re.search(r"\(\s*[\w:<>, ]+\*+\s*\)\s*&?\s*\(?\s*$", before):
            kinds.add("cast")
        # The innermost open parenthesis before the use, and the name in front of it.
        depth = 0
        for i in range(len(before) - 1, -1, -1):
            ch = before[i]
            if ch == ")":
                depth += 1
            elif ch == "(":
                if depth == 0:
                    cm = re.search(r"([A-Za-z_]\w*)\s*(<[^;()]*>)?\s*$", before[:i])
                    if cm and cm.group(1) not in CONTROL_WORDS and not cm.group(1).endswith("_cast"):
                        kinds.add("macro" if cm.group(1) in macros else "call")
                    break
                depth -= 1
    if uses <= 1:
        return "; never used"
    for k, text in (("macro", "; used in a function-like macro's argument"),
                    ("cast", "; address taken or cast"), ("call", "; passed to a call")):
        if k in kinds:
            return text
    return ""


# ---------------------------------------------------------------------------
# Output


def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "n/a"


def total_of(rows):
    t = {"repo": "total", "files": 0, "bytes": 0, "arrays": 0, "arrays_inactive": 0,
         "arrays_in_headers": 0, "arrays_reached": 0, "arrays_analyzed": 0,
         "arrays_via_untraced_pointer": 0, "scalars": 0, "scalars_analyzed": 0,
         "shared_in_macro_bodies": 0, "accesses_analyzed": 0, "accesses_unknown": 0,
         "other_backend_headers": 0, "seconds": 0.0, "wall_seconds": 0.0,
         "parsed": {"fully": 0, "partly": 0, "not": 0},
         "slowest": {"file": "", "seconds": 0.0}, "crashes": [], "timeouts": [], "errors": []}
    counters = {k: collections.Counter() for k in ("unknown_reasons", "unknown_only", "not_reached",
                                                   "skipped_reasons", "skipped_signatures")}
    examples = {"unknown_examples": {}, "not_reached_examples": {}}
    hints = collections.defaultdict(collections.Counter)
    for r in rows:
        for k, v in r.get("not_reached_hints", {}).items():
            hints[k].update(v)
        for k, v in r.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool) and k in t:
                t[k] += v
        for k in ("fully", "partly", "not"):
            t["parsed"][k] += r["parsed"][k]
        for k in counters:
            counters[k].update(r.get(k, {}))
        for k in examples:
            for reason, ex in r.get(k, {}).items():
                examples[k].setdefault(reason, f"{r['repo']}: {ex}")
        if r["slowest"]["seconds"] > t["slowest"]["seconds"]:
            t["slowest"] = {"file": f"{r['repo']}: {r['slowest']['file']}", "seconds": r["slowest"]["seconds"]}
        for k in ("crashes", "timeouts", "errors"):
            t[k] += [f"{r['repo']}: {x}" for x in r[k]]
    for k, c in counters.items():
        t[k] = dict(c.most_common())
    t.update(examples)
    t["not_reached_hints"] = {k: dict(v.most_common()) for k, v in hints.items()}
    t["seconds"] = round(t["seconds"], 3)
    t["wall_seconds"] = round(t["wall_seconds"], 3)
    runs = [r["one_run"] for r in rows if "one_run" in r]
    if runs and len(runs) == len(rows):
        bad = [f"{r['repo']}: {r['one_run']['status']}" for r in rows if r["one_run"]["status"] != "ok"]
        t["one_run"] = {"seconds": round(sum(x["seconds"] for x in runs), 3),
                        "status": "; ".join(bad) or "ok"}
    return t


def one_run_cell(r):
    """`7.8` (one run's seconds), `7.8 crash`, or `-` when it was not measured."""
    o = r.get("one_run")
    if not o:
        return "-"
    return f"{o['seconds']:.1f}" + ("" if o["status"] == "ok" else " " + o["status"].split(":")[-1].strip())


def short_name(name, width):
    return name if len(name) <= width else name[:width - 1] + "…"


def print_table(table, args):
    rows, total = table["rows"], table["total"]
    print(f"== {table['name']} ==  ({table['source']})")
    nw = max([len("repository")] + [min(len(r["repo"]), 34) for r in rows])
    head = (f"{'repository':<{nw}} {'files':>5} {'arrays':>6} {'analyzed':>8} {'share':>6} "
            f"{'unknown':>7} {'unreached':>9} {'acc analyzed/unknown':>20} {'seconds':>8} "
            f"{'slowest':>7} {'one run':>7}  {'crash/timeout':>13}  slowest file")
    print(head)
    print("-" * len(head))
    for r in rows + ([total] if len(rows) > 1 else []):
        unk = r["arrays_reached"] - r["arrays_analyzed"]
        unreached = r["arrays"] - r["arrays_reached"]
        acc = f"{r['accesses_analyzed']:,} / {r['accesses_unknown']:,}"
        slow = r["slowest"]["file"]
        if r is total:
            print("-" * len(head))
        print(f"{short_name(r['repo'], nw):<{nw}} {r['files']:>5} {r['arrays']:>6} {r['arrays_analyzed']:>8} "
              f"{pct(r['arrays_analyzed'], r['arrays']):>6} {unk:>7} {unreached:>9} {acc:>20} "
              f"{r['seconds']:>8.1f} {r['slowest']['seconds']:>7.2f} {one_run_cell(r):>7}  "
              f"{len(r['crashes']):>6}/{len(r['timeouts']):<6}  {slow}")
    print()
    print(f"share: {total['arrays_analyzed']} of {total['arrays']} __shared__ arrays "
          f"({pct(total['arrays_analyzed'], total['arrays'])}) have an analyzed access; "
          f"{total['arrays_reached'] - total['arrays_analyzed']} have only unknown accesses, "
          f"{total['arrays'] - total['arrays_reached']} none; "
          f"{total['arrays_in_headers']} of the arrays are in headers (.cuh/.h/.hpp/.inl), "
          f"{total['arrays_via_untraced_pointer']} credited through an untraced pointer name; "
          f"not counted: {total['arrays_inactive']} in inactive code, "
          f"{total['shared_in_macro_bodies']} __shared__ in #define bodies, "
          f"{total['other_backend_headers']} headers of other back ends. "
          f"Scalars: {total['scalars_analyzed']} of {total['scalars']} analyzed. "
          f"Files run: {total['files']} ({total['bytes'] / 1e6:.1f} MB), parsed fully/partly/not "
          f"{total['parsed']['fully']}/{total['parsed']['partly']}/{total['parsed']['not']}.")
    top = args.top
    for r in rows + ([total] if len(rows) > 1 else []):
        lines = []
        for k, title, exk in (("not_reached", "arrays not reached", "not_reached_examples"),
                              ("unknown_only", "arrays with only unknown accesses", None),
                              ("unknown_reasons", "unknown accesses", "unknown_examples")):
            items = list(r[k].items())
            if not items:
                continue
            lines.append(f"  {title} ({sum(r[k].values())}):")
            for why, n in items[:top]:
                ex = f"   e.g. {r[exk][why]}" if exk and why in r.get(exk, {}) else ""
                lines.append(f"    {n:5}  {why}{ex}")
                hint = r.get("not_reached_hints", {}).get(why) if k == "not_reached" else None
                if hint:
                    lines.append("           the array is " + ", ".join(
                        f"{h.replace('used ', '').replace('address taken or cast', 'cast or its address taken')}"
                        f" ({c})" for h, c in hint.items()))
            if len(items) > top:
                lines.append(f"    {sum(n for _, n in items[top:]):5}  (others)")
        for k in ("crashes", "timeouts", "errors"):
            for x in r[k][:top if r is not total else 3 * top]:
                lines.append(f"  {k[:-1] if k != 'crashes' else 'crash'}: {x}")
        if args.details:
            for k, title in (("skipped_reasons", "skipped-code regions"),
                             ("skipped_signatures", "what skipped kernels' signatures have that C has not (a guess)")):
                if r.get(k):
                    lines.append(f"  {title}:")
                    for why, n in list(r[k].items())[:top]:
                        lines.append(f"    {n:5}  {why}")
        if lines:
            print(f"\n{r['repo']}:")
            print("\n".join(lines))
    if args.list_missing:
        print("\n__shared__ arrays without an analyzed access:")
        for r in rows:
            for d in r["declarations"]:
                if d["state"] not in ("analyzed", "inactive"):
                    print(f"  {r['repo']}: {d['file']}:{d['line']} `{d['name']}`: {d['state']}: {d['why']}")
    if args.per_file:
        print("\nper file: status, seconds, accesses (analyzed), skipped regions, problem")
        for r in rows:
            for rel, status, secs, n_acc, n_ana, skipped, problem in r["per_file"]:
                print(f"  {status:6} {secs:7.2f}s acc {n_acc:4} ({n_ana:4}) skip {skipped:3}  {r['repo']}: {rel}  {problem}")
    print()


def print_markdown(result):
    """The README's table: one row per repository of every table, a bold total for the corpus."""
    print("| repository | arrays | analyzed | only unknown | not reached | seconds (slowest file) | one run |")
    print("|---|---|---|---|---|---|---|")
    for t in result["tables"]:
        rows = t["rows"] + ([t["total"]] if len(t["rows"]) > 1 else [])
        for r in rows:
            b = "**" if r is t["total"] else ""
            name = t["name"] if r is t["total"] else r["repo"]
            share = f" ({pct(r['arrays_analyzed'], r['arrays'])})" if r["arrays_analyzed"] else ""
            print(f"| {b}{name}{b} | {b}{r['arrays']}{b} | {b}{r['arrays_analyzed']}{share}{b} | "
                  f"{r['arrays_reached'] - r['arrays_analyzed']} | {r['arrays'] - r['arrays_reached']} | "
                  f"{r['seconds']:.1f} ({r['slowest']['seconds']:.2f}) | {b}{one_run_cell(r)}{b} |")
    print()


def compare(old, new, max_listed=8):
    """Print, per table and repository, what changed from OLD to NEW: each declaration whose
    state changed, or grouped by change when there are more than `max_listed`."""
    old_tables = {t["name"]: t for t in old["tables"]}
    print(f"== changes: {old.get('banklint')} ({old.get('date')}) -> {new.get('banklint')} ({new.get('date')}) ==")
    for t in new["tables"]:
        ot = old_tables.get(t["name"])
        if ot is None:
            print(f"{t['name']}: not in the old measurement")
            continue
        orows = {r["repo"]: r for r in ot["rows"]}
        print(f"\n{t['name']}:")
        print(f"  {'repository':<34} {'arrays analyzed':>22} {'accesses analyzed':>22} {'unknown':>14} "
              f"{'seconds':>16} {'slowest':>14} {'one run':>16} {'crash+timeout':>14}")
        for r in t["rows"] + ([t["total"]] if len(t["rows"]) > 1 else []):
            o = orows.get(r["repo"]) if r is not t["total"] else ot["total"]
            if o is None:
                print(f"  {r['repo']}: new")
                continue

            def d(a, b, fmt="{:,}"):
                s = f"{fmt.format(a)} -> {fmt.format(b)}"
                return s if a == b else s + (" (+" if b > a else " (") + fmt.format(b - a) + ")"
            share_o = f"{o['arrays_analyzed']}/{o['arrays']}"
            share_n = f"{r['arrays_analyzed']}/{r['arrays']}"
            arr = f"{share_o} -> {share_n}" if share_o != share_n else share_n
            ct_o = len(o["crashes"]) + len(o["timeouts"])
            ct_n = len(r["crashes"]) + len(r["timeouts"])
            print(f"  {short_name(r['repo'], 34):<34} {arr:>22} "
                  f"{d(o['accesses_analyzed'], r['accesses_analyzed']):>22} "
                  f"{d(o['accesses_unknown'], r['accesses_unknown']):>14} "
                  f"{o['seconds']:>6.1f} -> {r['seconds']:<6.1f} "
                  f"{o['slowest']['seconds']:>5.2f} -> {r['slowest']['seconds']:<5.2f} "
                  f"{one_run_cell(o):>6} -> {one_run_cell(r):<6} {ct_o:>5} -> {ct_n}")
            if r is t["total"]:
                continue
            od = {(x["file"], x["line"], x["name"]): x for x in o.get("declarations", [])}
            nd = {(x["file"], x["line"], x["name"]): x for x in r.get("declarations", [])}
            changes = []
            for key in sorted(set(od) | set(nd)):
                a, b = od.get(key), nd.get(key)
                was = a["state"] if a else "not counted"
                now = b["state"] if b else "not counted"
                if was == now:
                    continue
                tag = "gained" if now == "analyzed" else "lost" if was == "analyzed" else "changed"
                why = f": {b['why']}" if b and b["why"] else ""
                changes.append((tag, f"{was} -> {now}{why}", f"{key[0]}:{key[1]} `{key[2]}`"))
            if len(changes) <= max_listed:
                for tag, what, where in changes:
                    print(f"      {tag:7} {where}: {what}")
            else:
                groups = collections.defaultdict(list)
                for tag, what, where in changes:
                    groups[(tag, what)].append(where)
                for (tag, what), wheres in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                    more = f" and {len(wheres) - 1} more" if len(wheres) > 1 else ""
                    print(f"      {tag:7} {len(wheres):4} x {what}   e.g. {wheres[0]}{more}")
            for k in ("crashes", "timeouts"):
                for x in sorted(set(r[k]) - set(o[k])):
                    print(f"      new {k[:-1] if k == 'timeouts' else 'crash'}: {x}")
                for x in sorted(set(o[k]) - set(r[k])):
                    print(f"      gone {k[:-1] if k == 'timeouts' else 'crash'}: {x}")
    print()


# ---------------------------------------------------------------------------


def read_repos(tsv, corpus_dir):
    """Rows of repos.tsv whose extraction is present: [Repo], [missing names]."""
    repos, missing = [], []
    with open(tsv, newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            name = row["repo"].strip()
            root = os.path.join(corpus_dir, name.replace("/", "+"))
            sub = (row.get("subdir") or "").strip().strip("/")
            if sub not in ("", "."):
                root = os.path.join(root, sub)
            if not os.path.isdir(root):
                missing.append(name)
                continue
            defines = [d for d in re.split(r"[\s,;]+", row.get("defines") or "") if d]
            repos.append(Repo(name, root, defines, row.get("note") or ""))
    return repos, missing


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="See the top of scripts/coverage.py for what is counted and how.")
    ap.add_argument("dirs", nargs="*", metavar="DIR", help="directories measured as tables of their own")
    ap.add_argument("--banklint", default=os.path.join(here, "target/release/banklint"), help="banklint binary")
    ap.add_argument("--repos", default=os.path.join(here, "../shared/corpus/repos.tsv"),
                    help="the corpus's repos.tsv (default: ../shared/corpus/repos.tsv from the repository)")
    ap.add_argument("--corpus-dir", default=os.path.join(here, "../corpus"),
                    help="where extract.py put OWNER+NAME/ folders (default: ../corpus from the repository)")
    ap.add_argument("--corpus", action="store_true", help="measure the corpus also when DIRs are given")
    ap.add_argument("--only", action="append", default=[], metavar="SUBSTRING",
                    help="corpus repositories whose name contains SUBSTRING (repeatable)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per file (default 30)")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="parallel runs")
    ap.add_argument("--top", type=int, default=4, help="reasons listed per repository (default 4)")
    ap.add_argument("--json", metavar="FILE", help="write the measurement as JSON")
    ap.add_argument("--compare", metavar="OLD.json", help="print what changed from a saved measurement")
    ap.add_argument("--from-json", metavar="FILE", help="read a saved measurement instead of running banklint")
    ap.add_argument("--markdown", action="store_true", help="also print the README's table (Markdown)")
    ap.add_argument("--list-missing", action="store_true", help="each array without an analyzed access, with why")
    ap.add_argument("--per-file", action="store_true", help="one line per file run")
    ap.add_argument("--details", action="store_true", help="skipped-code reasons and signature constructs")
    ap.add_argument("--no-one-run", dest="one_run", action="store_false",
                    help="leave out the one run of all of a repository's files")
    ap.add_argument("--one-run-timeout", type=float, default=600.0,
                    help="seconds for the one run of all of a repository's files (default 600)")
    ap.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    ap.add_argument("--banklint-arg", action="append", default=[], metavar="ARG",
                    help="extra argument for `banklint check` (repeatable), e.g. --banklint-arg=--arch=sm_70")
    args = ap.parse_args()

    if args.from_json:
        with open(args.from_json) as fh:
            result = json.load(fh)
    else:
        if not os.path.isfile(args.banklint):
            sys.exit(f"error: banklint binary {args.banklint} not found (cargo build --release)")
        tables = []
        if not args.dirs or args.corpus:
            if not os.path.isfile(args.repos):
                sys.exit(f"error: {args.repos} not found (give --repos, or DIRs to measure)")
            repos, missing = read_repos(args.repos, args.corpus_dir)
            if args.only:
                repos = [r for r in repos if any(s.lower() in r.name.lower() for s in args.only)]
            for m in missing:
                print(f"note: {m} is not extracted under {args.corpus_dir} (see ../shared/corpus/README.md)",
                      file=sys.stderr)
            if repos:
                tables.append(("corpus", f"{os.path.normpath(args.repos)}, extracted in "
                                          f"{os.path.normpath(args.corpus_dir)}", repos))
        for d in args.dirs:
            if not os.path.exists(d):
                sys.exit(f"error: {d} not found")
            name = os.path.basename(os.path.normpath(os.path.abspath(d)))
            tables.append((name, os.path.normpath(d), [Repo(name, d)]))
        result = {"schema": SCHEMA, "banklint": args.banklint,
                  "banklint_version": banklint_version(args.banklint),
                  "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                  "timeout": args.timeout, "jobs": args.jobs, "extra_args": args.banklint_arg,
                  "tables": []}
        for name, source, repos in tables:
            rows = []
            for repo in repos:
                rows.append(measure(repo, args, not args.quiet))
            result["tables"].append({"name": name, "source": source, "rows": rows, "total": total_of(rows)})
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(result, fh, indent=1)
    print(f"banklint: {result['banklint']} ({result.get('banklint_version')}), {result['date']}, "
          f"timeout {result['timeout']} s per file, {result['jobs']} parallel runs\n")
    for t in result["tables"]:
        print_table(t, args)
    if args.markdown:
        print_markdown(result)
    if args.compare:
        with open(args.compare) as fh:
            compare(json.load(fh), result, 10**9 if args.list_missing else 8)


def banklint_version(banklint):
    try:
        return subprocess.run([banklint, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None


if __name__ == "__main__":
    main()
