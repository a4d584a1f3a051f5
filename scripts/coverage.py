#!/usr/bin/env python3
"""Measure how much of a CUDA code base banklint can read and analyze.

Runs `banklint check FILE` once per .cu/.cuh file (with a timeout, so a crash or
hang in one file does not hide the others) and prints a coverage table per
directory:

  * files: parsed fully / partly (any skipped-code) / not at all (an error, a
    crash, a timeout, or no access reported although the file declares
    `__shared__` memory), crashes and timeouts;
  * `__shared__` declarations found by a plain text scan (comments and string
    literals ignored) against the shared arrays banklint reported accesses for,
    and the share of declarations with at least one analyzed access;
  * accesses analyzed / unknown, the most common reasons for unknown accesses
    and for skipped code (reason text normalized so that similar ones group).

`--list-missing` lists, per file, the `__shared__` declarations for which
banklint reported no access at all, then those whose accesses are all unknown (with reasons).

Notes on the figures:
  * The JSON format does not carry the reason of a skipped-code region, so a
    file with skipped code is run a second time in the human format to read it.
  * Declarations in code that conditional compilation leaves out (as banklint evaluates
    `#if` with its defaults: `__CUDA_ARCH__` of --arch, no -D) are not counted; the table
    says how many. Scalars count; "arrays only" leaves them out.
  * An access is matched to a declaration by array name (and function). Accesses
    under a name that no `__shared__` declaration has (a pointer banklint could
    not trace to its array, e.g. SharedMemory<T>) are credited to the file's
    unmatched `extern __shared__` declarations, and counted on their own line.
  * For whole kernels/device functions that were skipped, the signature is
    scanned for what a C parser rejects (unknown type names, references,
    default arguments, ...): a guess to point at the cause.

Usage:
    scripts/coverage.py --banklint target/release/banklint DIR [DIR...]
    scripts/coverage.py --banklint target/release/banklint --list-missing DIR

Python 3 standard library only.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

EXTENSIONS = (".cu", ".cuh")
CONTROL_WORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof",
                 "defined", "__launch_bounds__", "__attribute__", "decltype",
                 "alignas", "__align__", "static_assert"}


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
            # A quote preceded by an identifier character is most likely a
            # C++14 digit separator (1'000) or a prefix (u8"..."); only the
            # former matters here.
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


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def function_spans(code):
    """Yield (body_start, body_end, name) for brace blocks that look like
    function bodies: `name(...) [const] {`. A rough scan, good enough to tell
    which function a `__shared__` declaration is in."""
    stack = []  # (open offset, name or None)
    spans = []
    for m in re.finditer(r"[{}]", code):
        if m.group() == "{":
            start = m.start()
            # Text since the previous statement/block boundary.
            k = max(code.rfind(";", 0, start), code.rfind("{", 0, start), code.rfind("}", 0, start))
            head = code[k + 1:start]
            # Preprocessor lines between the previous item and this one.
            head = "\n".join(l for l in head.split("\n") if not l.lstrip().startswith("#"))
            head = re.sub(r"\s+", " ", head).strip()
            # Drop trailing qualifiers and a constructor's initializer list.
            head = re.sub(r"\)\s*(const|noexcept|override|final|mutable|\s)*$", ")", head)
            name = None
            fm = re.search(r"([A-Za-z_]\w*)\s*(<[^;{}]*>)?\s*\((?:[^()]|\([^()]*\))*\)\s*(?:->[^{]*)?$", head)
            if fm and fm.group(1) not in CONTROL_WORDS:
                name = fm.group(1)
            stack.append((start, name))
        else:
            if stack:
                start, name = stack.pop()
                if name is not None:
                    spans.append((start, m.start(), name))
    return spans


def enclosing_function(spans, offset):
    best = None
    for start, end, name in spans:
        if start < offset < end and (best is None or start > best[0]):
            best = (start, end, name)
    return best[2] if best else None


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


def declarator_name(decl):
    """Name declared by `type name[...] = ...` / `name[...]` (first declarator
    has the type in front); None if there is no plausible name."""
    decl = drop_attributes(decl)
    # Cut at the first top-level '[', '=' or '(' (after the name).
    depth = 0
    cut = len(decl)
    for idx, ch in enumerate(decl):
        if ch in "<":
            depth += 1
        elif ch in ">":
            depth = max(0, depth - 1)
        elif depth == 0 and ch in "[=":
            cut = idx
            break
        elif depth == 0 and ch == "(" and re.search(r"[A-Za-z_]\w*\s*$", decl[:idx]) \
                and not re.search(r"(__align__|alignas|__attribute__|__declspec)\s*$", decl[:idx]):
            cut = idx
            break
    head = decl[:cut]
    head = re.sub(r"__align__\s*\([^)]*\)|alignas\s*\([^)]*\)|__attribute__\s*\(\(.*?\)\)", " ", head)
    idents = re.findall(r"[A-Za-z_]\w*", head)
    if not idents:
        return None
    return idents[-1]


SHARED_RE = re.compile(r"\b__shared__\b")


def scan_shared(text):
    """`__shared__` occurrences outside comments and strings.

    Returns a list of dicts: line, names (declared names), is_array, function,
    text (the source line), extern, in_macro."""
    code = strip_comments(text)
    spans = function_spans(code)
    lines = text.splitlines()
    found = []
    for m in SHARED_RE.finditer(code):
        start = m.start()
        ln = line_of(code, start)
        line_start = code.rfind("\n", 0, start) + 1
        in_macro = code[line_start:start].lstrip().startswith("#")
        # Declaration text up to the ';' (or end of a macro line).
        end = code.find(";", m.end())
        if end < 0:
            end = len(code)
        if in_macro:
            eol = code.find("\n", m.end())
            end = min(end, eol if eol >= 0 else len(code))
        decl = code[m.end():end]
        decl = re.sub(r"\\\n", " ", decl)
        names = []
        is_array = "[" in decl
        if not in_macro:
            for d in split_top_level(decl, ","):
                nm = declarator_name(d)
                if nm:
                    names.append(nm)
        prefix = code[max(0, start - 40):start]
        found.append({
            "line": ln,
            "names": names,
            "is_array": is_array,
            "function": enclosing_function(spans, start),
            "text": lines[ln - 1].strip() if ln - 1 < len(lines) else "",
            "extern": bool(re.search(r"\bextern\s*$", prefix)),
            "in_macro": in_macro,
        })
    return found


# ---------------------------------------------------------------------------
# Running banklint

ANNOT_RE = re.compile(r"^\s*│[\s│╰╭─·]*\^+\s?(.*)$")
HEADER_RE = re.compile(r"^(error|warning|note|help)\[([a-z0-9-]+)\]: ")
LOC_RE = re.compile(r"^\s*[┌╭]─ (.*):(\d+):(\d+)\s*$")


def skipped_labels(human_output):
    """Map (file, line, column) -> label text for skipped-code diagnostics in
    banklint's human output (the JSON format does not carry the label)."""
    labels = {}
    code = None
    loc = None
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
            loc = (lm.group(1), int(lm.group(2)), int(lm.group(3)))
            continue
        am = ANNOT_RE.match(line)
        if am and loc is not None and loc not in labels:
            labels[loc] = am.group(1).strip()
    return labels


def run_banklint(banklint, path, timeout, extra):
    res = {"path": path, "crash": False, "timeout": False, "error": None,
           "json": None, "labels": {}, "seconds": 0.0, "stderr": ""}
    t0 = time.monotonic()
    try:
        p = subprocess.run([banklint, "check", path, "--format", "json", "--color", "never"] + extra,
                           capture_output=True, text=True, timeout=timeout,
                           errors="replace")
    except subprocess.TimeoutExpired:
        res["timeout"] = True
        res["seconds"] = time.monotonic() - t0
        return res
    res["seconds"] = time.monotonic() - t0
    res["stderr"] = p.stderr
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
            h = subprocess.run([banklint, "check", path, "--format", "human", "--color", "never"] + extra,
                               capture_output=True, text=True, timeout=timeout, errors="replace")
            res["labels"] = skipped_labels(h.stdout + h.stderr)
        except subprocess.TimeoutExpired:
            pass
    return res


# ---------------------------------------------------------------------------
# Normalizing reasons


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
        # Quotes nest (`the loop over `s``): a backtick closes when one is
        # open and it is followed by a space, punctuation or the end.
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


def snippet_shape(snippet):
    """A coarse shape of a backticked snippet for the examples column:
    identifiers other than a few keywords become `x`, numbers `N`."""
    keep = {"cg", "thread_block", "sync", "this_thread_block", "template", "auto",
            "typename", "const", "volatile", "unsigned", "int", "float", "double",
            "cuda", "memcpy_async", "tiled_partition", "static_cast", "reinterpret_cast",
            "operator", "class", "struct", "namespace", "new", "delete"}
    s = re.sub(r"\b\d+\b", "N", snippet)
    s = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: m.group() if m.group() in keep else "x", s)
    return s


# ---------------------------------------------------------------------------
# Why a whole function was skipped: a guess from its signature

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


def signature_suspects(code, line):
    """Words and constructs in the signature of the function starting at
    `line` (1-based) that a C parser would not accept: type names the file does
    not declare, references, default arguments, templates, operators."""
    lines = code.split("\n")
    off = sum(len(l) + 1 for l in lines[:line - 1])
    brace = code.find("{", off)
    head = code[off:brace if brace >= 0 else len(code)]
    local = set(re.findall(r"typedef[^;]*?\b(\w+)\s*;", code))
    local |= set(re.findall(r"\b(?:struct|class|union|enum)\s+(\w+)", code))
    local |= set(re.findall(r"^\s*#\s*define\s+(\w+)", code, re.M))
    found = []
    if re.search(r"^\s*#", head, re.M):
        found.append("#directive inside the signature")
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
        p = re.sub(r"^\s*#.*$", "", p, flags=re.M)
        words = re.findall(r"[A-Za-z_]\w*(?:::\w+)*", p)
        for wd in words[:-1]:
            if wd not in C_WORDS and wd not in CUDA_TYPE_WORDS and wd not in local and wd != "typename":
                found.append(f"type `{wd}`")
    return sorted(set(found))


# ---------------------------------------------------------------------------
# Report


def collect(root):
    if os.path.isfile(root):
        return [root]
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fn in sorted(filenames):
            if fn.endswith(EXTENSIONS):
                out.append(os.path.join(dirpath, fn))
    return out


def other_shared_files(root):
    """Files banklint does not search (.h, .hpp, ...) that mention __shared__."""
    out = []
    if os.path.isfile(root):
        return out
    for dirpath, dirnames, filenames in os.walk(root):
        for fn in filenames:
            if fn.endswith(EXTENSIONS) or not fn.endswith((".h", ".hpp", ".hh", ".inl", ".inc", ".cuinc")):
                continue
            p = os.path.join(dirpath, fn)
            try:
                with open(p, "r", encoding="utf-8", errors="replace") as fh:
                    if SHARED_RE.search(strip_comments(fh.read())):
                        out.append(p)
            except OSError:
                pass
    return sorted(out)


def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "n/a"


def report(root, results, args):
    files = len(results)
    fully = partly = not_at_all = 0
    crashes, timeouts, errors, empty = [], [], [], []
    decl_total = decl_arrays = decl_inactive = 0
    decl_with_access = decl_with_analyzed = decl_via_alias = decl_via_other = 0
    alias_arrays = set()
    whole_functions = 0
    suspects = collections.Counter()
    empty_trivial = []
    code_by_path = args.code_by_path
    arr_decl_with_analyzed = 0
    accessed_arrays = set()
    analyzed_arrays = set()
    acc_analyzed = acc_unknown = 0
    unknown_reasons = collections.Counter()
    unknown_examples = collections.defaultdict(collections.Counter)
    skipped_reasons = collections.Counter()
    skipped_examples = collections.defaultdict(collections.Counter)
    diag_codes = collections.Counter()
    files_with_shared = 0
    missing = []  # (path, decl)
    unanalyzed = []  # (path, decl, [reasons]): accesses reported, none analyzed
    per_file = []
    total_seconds = 0.0
    slowest = (0.0, None)

    # Declarations that accesses in other files reach: a header's wrapper class
    # (`SharedMemory<float>` hands out its `extern __shared__ float s_float[]`), named
    # by the access's JSON `declared_in`. Keyed by (file, array name) with lines.
    reached_any = collections.defaultdict(set)
    reached_ana = collections.defaultdict(set)
    for r in results:
        for a in (r["json"] or {}).get("accesses", []):
            for d in a.get("declared_in") or []:
                key = (os.path.normpath(d["file"]), d["array"])
                reached_any[key].add(d["line"])
                if a.get("status") == "analyzed":
                    reached_ana[key].add(d["line"])

    for r in results:
        path = r["path"]
        total_seconds += r["seconds"]
        if r["seconds"] > slowest[0]:
            slowest = (r["seconds"], path)
        decls = r["decls"]
        # Declarations in code that conditional compilation leaves out (banklint reports
        # those regions, evaluated with its -D/-U and __CUDA_ARCH__) are not compiled.
        inactive = []
        for f in (r["json"] or {}).get("files", []):
            inactive.extend(f.get("inactive_lines") or [])
        live = [d for d in decls if not any(a <= d["line"] <= b for a, b in inactive)]
        decl_inactive += len(decls) - len(live)
        decls = live
        decl_total += len(decls)
        if decls:
            files_with_shared += 1
        data = r["json"] or {}
        accesses = data.get("accesses", [])
        diags = data.get("diagnostics", [])
        # Arrays with accesses, by (kernel, array) and by array.
        acc_by_name = collections.defaultdict(set)   # array -> {kernels}
        ana_by_name = collections.defaultdict(set)
        for a in accesses:
            accessed_arrays.add((path, a.get("array")))
            acc_by_name[a.get("array")].add(a.get("kernel"))
            if a.get("status") == "analyzed":
                acc_analyzed += 1
                analyzed_arrays.add((path, a.get("array")))
                ana_by_name[a.get("array")].add(a.get("kernel"))
            else:
                acc_unknown += 1
                norm, snips = normalize_reason(a.get("reason"))
                unknown_reasons[norm] += 1
        skipped = 0
        for d in diags:
            diag_codes[d.get("code")] += 1
            if d.get("code") == "skipped-code":
                skipped += 1
                label = r["labels"].get((d.get("file"), d.get("line"), d.get("column")))
                norm, snips = normalize_reason(label or "(reason not found in human output)")
                skipped_reasons[norm] += 1
                for s in snips:
                    skipped_examples[norm][s.strip()] += 1
                if label and re.search(r"could not parse this (kernel|device function)", label):
                    whole_functions += 1
                    for sus in signature_suspects(code_by_path.get(path, ""), d.get("line") or 1):
                        suspects[sus] += 1

        declared = {nm for d2 in decls for nm in d2["names"]}
        # Accesses under a name no `__shared__` declaration of this file has:
        # a pointer banklint could not trace back to its array (SharedMemory<T>
        # wrappers, `T *s = (T *)smem`, ...). They can only be dynamic shared
        # memory or an array seen through a pointer, so they are credited to
        # the file's `extern __shared__` declarations that nothing else matched.
        alias_any = {a.get("array") for a in accesses} - declared
        alias_ana = {a.get("array") for a in accesses if a.get("status") == "analyzed"} - declared
        for nm in alias_any:
            alias_arrays.add((path, nm))

        def matched(table, decl, aliases, reached):
            for nm in decl["names"]:
                # The name is on the `__shared__` line or a line or two below it.
                lines = reached.get((os.path.normpath(path), nm), ())
                if any(0 <= ln - decl["line"] <= 2 for ln in lines):
                    return "declared_in"
                kernels = table.get(nm)
                if not kernels:
                    continue
                # A declaration inside a function counts when an access was
                # reported in that function; one at file scope (or in a
                # function the scan could not name) when any function accessed
                # it. An access reported under another function (a device
                # function the array was passed to) counts unless that
                # function declares its own array of the same name.
                declaring = {d2["function"] for d2 in decls if nm in d2["names"]}
                if decl["function"] is None or decl["function"] in kernels or any(
                        k not in declaring for k in kernels):
                    return "direct"
            if decl["extern"] and aliases:
                return "alias"
            return None

        file_has_live_array = False
        for decl in decls:
            if decl["is_array"]:
                decl_arrays += 1
            if decl["is_array"] and any(len(re.findall(r"\b%s\b" % re.escape(nm), code_by_path[path])) > 1
                                        for nm in decl["names"]):
                file_has_live_array = True
            how = matched(acc_by_name, decl, alias_any, reached_any)
            if how:
                decl_with_access += 1
                if how == "alias":
                    decl_via_alias += 1
                elif how == "declared_in":
                    decl_via_other += 1
            else:
                missing.append((path, decl))
            if matched(ana_by_name, decl, alias_ana, reached_ana):
                decl_with_analyzed += 1
                if decl["is_array"]:
                    arr_decl_with_analyzed += 1
            elif how:
                reasons = collections.Counter(
                    a.get("reason") or "" for a in accesses
                    if a.get("array") in decl["names"] or (how == "alias" and a.get("array") in alias_any))
                unanalyzed.append((path, decl, reasons))

        status = "fully"
        why = ""
        if r["crash"]:
            crashes.append((path, r["error"]))
            status, why = "not", "crash"
        elif r["timeout"]:
            timeouts.append(path)
            status, why = "not", "timeout"
        elif r["error"]:
            errors.append((path, r["error"]))
            status, why = "not", "error"
        elif decls and not accesses:
            empty.append(path)
            status, why = "not", "no access reported"
            if not file_has_live_array:
                empty_trivial.append(path)
        elif skipped:
            status = "partly"
        if status == "fully":
            fully += 1
        elif status == "partly":
            partly += 1
        else:
            not_at_all += 1
        per_file.append((path, status, why, len(decls), len(accesses),
                         sum(1 for a in accesses if a.get("status") == "analyzed"), skipped,
                         r["seconds"]))

    w = 52
    print(f"== {root} ==")
    rows = [
        ("files (.cu/.cuh)", files),
        ("  parsed fully", f"{fully} ({pct(fully, files)})"),
        ("  parsed partly (some skipped-code)", f"{partly} ({pct(partly, files)})"),
        ("  not at all", f"{not_at_all} ({pct(not_at_all, files)})"),
        ("    error reported by banklint", len(errors)),
        ("    crash (panic / signal)", len(crashes)),
        ("    timeout", len(timeouts)),
        ("    declares __shared__ but no access reported", len(empty)),
        ("      of which only scalars or unused arrays", len(empty_trivial)),
        ("files declaring __shared__", files_with_shared),
        ("__shared__ declarations in the text", decl_total),
        ("  not counted: in #if-disabled code", decl_inactive),
        ("  of which arrays (declarator has [])", decl_arrays),
        ("shared arrays with accesses reported (file, array)", len(accessed_arrays)),
        ("  of which with >= 1 analyzed access", len(analyzed_arrays)),
        ("  of which named by a pointer, not a declaration", len(alias_arrays)),
        ("__shared__ declarations with >= 1 access reported",
         f"{decl_with_access} / {decl_total} ({pct(decl_with_access, decl_total)})"),
        ("  extern ones credited through pointer accesses", decl_via_alias),
        ("  credited through accesses in other files", decl_via_other),
        ("__shared__ declarations with >= 1 analyzed access",
         f"{decl_with_analyzed} / {decl_total} ({pct(decl_with_analyzed, decl_total)})"),
        ("  arrays only",
         f"{arr_decl_with_analyzed} / {decl_arrays} ({pct(arr_decl_with_analyzed, decl_arrays)})"),
        ("accesses reported", acc_analyzed + acc_unknown),
        ("  analyzed", f"{acc_analyzed} ({pct(acc_analyzed, acc_analyzed + acc_unknown)})"),
        ("  unknown", f"{acc_unknown} ({pct(acc_unknown, acc_analyzed + acc_unknown)})"),
        ("diagnostics", ", ".join(f"{k} {v}" for k, v in sorted(diag_codes.items())) or "none"),
        ("banklint time, sum over files", f"{total_seconds:.2f} s"),
        ("  slowest file", f"{slowest[0]:.2f} s {slowest[1] or ''}"),
    ]
    for label, value in rows:
        print(f"{label:<{w}} {value}")
    others = other_shared_files(root)
    if others:
        print(f"{'other files with __shared__ (not searched: .h ...)':<{w}} {len(others)}")
        for p in others:
            print(f"    {p}")
    for path, err in crashes:
        print(f"CRASH    {path}: {err}")
    for path in timeouts:
        print(f"TIMEOUT  {path}")
    for path, err in errors:
        print(f"ERROR    {path}: {err}")

    print(f"\nTop {args.top} unknown-access reasons ({acc_unknown} unknown accesses):")
    for reason, n in unknown_reasons.most_common(args.top):
        print(f"  {n:5}  {reason}")
    total_skipped = sum(skipped_reasons.values())
    print(f"\nTop {args.top} skipped-code reasons ({total_skipped} skipped regions):")
    for reason, n in skipped_reasons.most_common(args.top):
        ex = skipped_examples.get(reason)
        extra = ""
        if ex:
            extra = "   e.g. " + ", ".join(f"`{s}` x{c}" for s, c in ex.most_common(4))
        print(f"  {n:5}  {reason}{extra}")

    if whole_functions:
        print(f"\nWhole kernels/device functions skipped: {whole_functions}; what their signatures"
              " have that C does not (a guess, one function can count several times):")
        for sus, n in suspects.most_common(args.top):
            print(f"  {n:5}  {sus}")

    if args.list_missing:
        print(f"\n__shared__ declarations with no access reported ({len(missing)}):")
        last = None
        for path, decl in missing:
            if path != last:
                print(f"  {path}")
                last = path
            where = f" in {decl['function']}" if decl["function"] else ""
            print(f"    {decl['line']:5}{where}: {decl['text']}")
        print(f"\n__shared__ declarations with accesses, none analyzed ({len(unanalyzed)}):")
        last = None
        for path, decl, reasons in unanalyzed:
            if path != last:
                print(f"  {path}")
                last = path
            where = f" in {decl['function']}" if decl["function"] else ""
            print(f"    {decl['line']:5}{where}: {decl['text']}")
            for reason, n in reasons.most_common(2):
                print(f"           {n} x {reason}")
    if args.per_file:
        print("\nPer file: status, __shared__ decls, accesses (analyzed), skipped regions, seconds")
        for path, status, why, nd, na, nana, ns, secs in per_file:
            print(f"  {status:6} {why:20} decl {nd:3} acc {na:4} ({nana:4}) skip {ns:3} {secs:6.2f}s  {path}")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", metavar="DIR", help="directories (or files) to measure")
    ap.add_argument("--banklint", default="target/release/banklint", help="banklint binary")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per file (default 60)")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="parallel runs")
    ap.add_argument("--top", type=int, default=15, help="reasons to list (default 15)")
    ap.add_argument("--list-missing", action="store_true",
                    help="list __shared__ declarations for which no access was reported")
    ap.add_argument("--per-file", action="store_true", help="one line per file")
    ap.add_argument("--banklint-arg", action="append", default=[], metavar="ARG",
                    help="extra argument for `banklint check` (repeatable), e.g. --banklint-arg=--arch=sm_70")
    args = ap.parse_args()
    if not os.path.exists(args.banklint):
        sys.exit(f"error: banklint binary {args.banklint} not found (cargo build --release)")

    for root in args.dirs:
        paths = collect(root)
        decls = {}
        args.code_by_path = {}
        for p in paths:
            try:
                with open(p, "r", encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                text = ""
            decls[p] = scan_shared(text)
            args.code_by_path[p] = strip_comments(text)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(lambda p: run_banklint(args.banklint, p, args.timeout, args.banklint_arg), paths))
        for r in results:
            r["decls"] = decls[r["path"]]
        report(root, results, args)


if __name__ == "__main__":
    main()
