#!/usr/bin/env python3
"""Tests of scripts/coverage.py that need neither the corpus nor a banklint build: small
sources written to a temporary directory and a stand-in for banklint that replays canned
JSON. Run: python3 scripts/test_coverage.py (also run by `cargo test`, tests/scripts.rs)."""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import coverage  # noqa: E402

# A stand-in for banklint: prints the JSON (or human text) stored for the checked path in
# $FAKE_BANKLINT_DATA; "crash" panics, "hang" sleeps past any timeout. Given several paths
# (one run of every file), it panics if one of them does.
FAKE = r'''#!/usr/bin/env python3
import json, os, sys, time
args = sys.argv[1:]
if args and args[0] == "--version":
    print("banklint 0.0.0-fake"); sys.exit(0)
path = os.path.normpath(args[1])
fmt = args[args.index("--format") + 1]
data = json.load(open(os.environ["FAKE_BANKLINT_DATA"]))
with open(os.environ["FAKE_BANKLINT_DATA"] + ".argv", "a") as fh:
    fh.write(json.dumps(args) + "\n")
paths = args[1:args.index("--format")]
if len(paths) > 1:
    if any(data.get(os.path.normpath(p)) == "crash" for p in paths):
        sys.stderr.write("thread 'main' panicked at src/x.rs:1:1\n"); sys.exit(101)
    print(json.dumps({"version": 1, "files": [], "accesses": [], "diagnostics": []})); sys.exit(0)
entry = data.get(path, {})
if entry == "crash":
    sys.stderr.write("thread 'main' panicked at src/x.rs:1:1\n"); sys.exit(101)
if entry == "hang":
    time.sleep(60)
if fmt == "human":
    print(entry.get("human", "")); sys.exit(0)
out = {"version": 1, "arch": "sm_90", "bank_mode": 4,
       "files": [{"path": args[1], "status": "ok", "message": None, "context": None,
                  "inactive_lines": entry.get("inactive", [])}],
       "accesses": entry.get("accesses", []), "diagnostics": entry.get("diagnostics", [])}
print(json.dumps(out))
'''


def access(file, line, array, kernel, status="analyzed", **extra):
    a = {"file": file, "line": line, "column": 5, "array": array, "kernel": kernel,
         "kind": "load", "status": status, "reason": None if status == "analyzed" else "the index `i` is not known"}
    a.update(extra)
    return a


class Fixture:
    """A temporary tree of sources plus the fake banklint's answers."""

    def __init__(self, files, answers):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "repo")
        for rel, text in files.items():
            p = os.path.join(self.root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as fh:
                fh.write(textwrap.dedent(text))
        self.fake = os.path.join(self.tmp.name, "banklint")
        with open(self.fake, "w") as fh:
            fh.write(FAKE)
        os.chmod(self.fake, 0o755)
        self.data = os.path.join(self.tmp.name, "answers.json")
        with open(self.data, "w") as fh:
            json.dump(answers, fh)
        os.environ["FAKE_BANKLINT_DATA"] = self.data

    def args(self, **kw):
        class A:
            pass
        a = A()
        a.banklint = self.fake
        a.timeout = kw.get("timeout", 20.0)
        a.jobs = 2
        a.banklint_arg = []
        a.top = 4
        a.details = a.list_missing = a.per_file = False
        a.one_run = kw.get("one_run", False)
        a.one_run_timeout = 20.0
        return a

    def measure(self, defines=(), **kw):
        return coverage.measure(coverage.Repo("owner/repo", self.root, defines), self.args(**kw), False)

    def argv(self):
        with open(self.data + ".argv") as fh:
            return [json.loads(l) for l in fh]

    def close(self):
        self.tmp.cleanup()


def by_name(row):
    return {d["name"]: d for d in row["declarations"]}


class UseHintTest(unittest.TestCase):
    def test_only_a_use_hint_is_split_off_a_reason(self):
        self.assertEqual(coverage.split_use_hint("kernel: no access reported in it; passed to a call"),
                         ("kernel: no access reported in it", "passed to a call"))
        # banklint's own reason has a `; ` that is no hint of the script's.
        why = "skipped: `X(...)` is not a macro banklint has read; define it, e.g. `-D X()=1`"
        self.assertEqual(coverage.split_use_hint(why), (why, ""))
        self.assertEqual(coverage.split_use_hint(why + "; never used"), (why, "never used"))


class ScanTest(unittest.TestCase):
    def scan(self, text):
        return coverage.FileScan("k.cu", textwrap.dedent(text), coverage.shared_re(
            coverage.shared_synonyms(coverage.strip_comments(textwrap.dedent(text)))))

    def test_each_declarator_counts_and_comments_do_not(self):
        s = self.scan("""
            // __shared__ float commented[32];
            __global__ void k() {
                __shared__ float a[32], b[4][4];
                __shared__ int n;
                extern __shared__ __align__(16) char dyn[];
                const char *msg = "__shared__ float s[2];";
            }
        """)
        got = [(d["name"], d["array"], d["extern"], d["function"]["name"]) for d in s.decls]
        self.assertEqual(got, [("a", True, False, "k"), ("b", True, False, "k"), ("n", False, False, "k"),
                               ("dyn", True, True, "k")])

    def test_macro_bodies_are_not_declarations_but_shared_synonyms_are(self):
        s = self.scan("""
            #define LOCAL __shared__
            #define DECL(T, n) \\
                __shared__ T n[32]
            __global__ void k() { LOCAL float w[8]; DECL(float, z); }
        """)
        self.assertEqual([d["name"] for d in s.decls], ["w"])
        self.assertEqual(s.in_macro, 2)

    def test_operators_and_templates_are_functions(self):
        s = self.scan("""
            template <class T> struct SharedMemory {
                __device__ inline operator const T *() const {
                    extern __shared__ int smem[];
                    return (T *)smem;
                }
            };
        """)
        self.assertEqual(s.decls[0]["function"]["name"], "operator const T *")

    def test_other_backends_and_host_headers_are_left_out(self):
        fx = Fixture({"a.cu": "int x;", "b.h": "int host_only();",
                      "c.h": "__device__ int f();", "hip/d.h": "__device__ int g();",
                      "e_hip.h": "__global__ void h();"}, {})
        try:
            run, other, _ = coverage.select_files(fx.root)
            self.assertEqual(sorted(run), ["a.cu", "c.h"])
            self.assertEqual(sorted(other), ["e_hip.h", os.path.join("hip", "d.h")])
        finally:
            fx.close()


class MeasureTest(unittest.TestCase):
    def test_crediting_and_reasons(self):
        files = {
            "main.cu": """
                #include "tile.cuh"
                __global__ void k(float *o) {
                    __shared__ float t[32][33];
                    __shared__ float unused[4];
                    __shared__ float other[32];
                    o[0] = t[threadIdx.x][0] + other[threadIdx.x];
                    load_tile(o);
                }
                template <int N> __global__ void tk(float *o) {
                    __shared__ float tt[N];
                    o[0] = tt[threadIdx.x];
                }
                #if 0
                __global__ void off() { __shared__ float dead[4]; dead[0] = 1; }
                #endif
            """,
            "tile.cuh": """
                __device__ void load_tile(float *o) {
                    __shared__ float hdr[64];
                    o[0] = hdr[threadIdx.x];
                }
                __device__ void never_called(float *o) {
                    __shared__ float lonely[64];
                    o[0] = lonely[threadIdx.x];
                }
            """,
            "wrap.cuh": """
                template <class T> struct SharedMemory {
                    __device__ operator T *() { extern __shared__ int smem[]; return (T *)smem; }
                };
            """,
            "skip.cu": """
                template <typename T>
                __global__ void cxx(Tensor<T, 2> in) {
                    __shared__ float s[32];
                    s[threadIdx.x] = 0;
                }
            """,
            "user.cu": """
                __global__ void u(float *o) { float *p = SharedMemory<float>(); p[threadIdx.x] = 0; }
            """,
            "boom.cu": "__global__ void b() { __shared__ float lost[4]; lost[0] = 1; }",
        }
        answers = {
            "main.cu": {"inactive": [[14, 16]], "accesses": [
                access("main.cu", 6, "t", "k"),
                access("main.cu", 6, "other", "k", status="unknown"),
                access("main.cu", 7, "hdr", "k", written_in="`load_tile` at tile.cuh:4"),
            ]},
            "user.cu": {"accesses": [access("user.cu", 2, "p", "u", declared_in=[
                {"file": "wrap.cuh", "line": 3, "array": "smem", "class": "SharedMemory"}])]},
            "skip.cu": {"diagnostics": [{"code": "skipped-code", "file": "skip.cu", "line": 3, "column": 1,
                                         "message": "skipped code banklint could not parse"}],
                        "human": "note[skipped-code]: skipped code banklint could not parse\n"
                                 "   ┌─ skip.cu:3:1\n   │\n"
                                 "3 │ __global__ void cxx(Tensor<T, 2> in) {\n"
                                 "   │ ^^^^^^^^^^^^^^^^^^^ could not parse this kernel (C++)\n"},
            "boom.cu": "crash",
        }
        fx = Fixture(files, answers)
        try:
            row = fx.measure(defines=["KITTENS_HOPPER"])
            d = by_name(row)
            self.assertEqual(d["t"]["state"], "analyzed")
            self.assertEqual(d["other"]["state"], "unknown")
            self.assertEqual(d["hdr"]["state"], "analyzed")       # through the includer's run
            self.assertEqual(d["smem"]["state"], "analyzed")      # through declared_in
            self.assertEqual(d["unused"]["why"], "declared, never used")
            self.assertEqual(d["tt"]["why"], "kernel template: no access reported in it")
            self.assertEqual(d["lonely"]["why"], "device function: no analyzed kernel reaches it")
            self.assertEqual(d["s"]["why"], "skipped: could not parse this kernel (C++)")
            self.assertEqual(d["lost"]["why"], "crash")
            self.assertEqual(d["dead"]["state"], "inactive")
            self.assertEqual(row["arrays"], 9)
            self.assertEqual(row["arrays_inactive"], 1)
            self.assertEqual(row["arrays_analyzed"], 3)
            self.assertEqual(row["arrays_reached"], 4)
            self.assertEqual((row["accesses_analyzed"], row["accesses_unknown"]), (3, 1))
            self.assertEqual(row["crashes"], ["boom.cu: thread 'main' panicked at src/x.rs:1:1"])
            self.assertTrue(all("-DKITTENS_HOPPER" in a and "--no-config" in a for a in fx.argv()))
        finally:
            fx.close()

    def test_declared_in_names_the_header_as_included(self):
        # `#include <lib/a/bins.cuh>` found from the project root: banklint names the header as
        # the include wrote it; two headers share its base name, and the path's tail tells them
        # apart.
        files = {
            "src/lib/a/bins.cuh": """
                template <typename F> __device__ F *bins() { static __shared__ F ba[64]; return ba; }
            """,
            "src/lib/b/bins.cuh": """
                template <typename F> __device__ F *bins() { static __shared__ F bb[64]; return bb; }
            """,
            "src/k/user.cu": """
                __global__ void u(float *o) { float *p = bins<float>(); p[threadIdx.x] = 0; }
            """,
        }
        answers = {
            "src/k/user.cu": {"accesses": [access("src/k/user.cu", 2, "ba", "u", declared_in=[
                {"file": "lib/a/bins.cuh", "line": 2, "array": "ba", "function": "bins"}])]},
        }
        fx = Fixture(files, answers)
        try:
            d = by_name(fx.measure())
            self.assertEqual(d["ba"]["state"], "analyzed")
            self.assertNotEqual(d["bb"]["state"], "analyzed")
        finally:
            fx.close()

    def test_timeout_is_reported_and_the_rest_measured(self):
        fx = Fixture({"a.cu": "__global__ void a() { __shared__ float x[2]; x[0] = 1; }",
                      "b.cu": "__global__ void b() { __shared__ float y[2]; y[0] = 1; }"},
                     {"a.cu": "hang", "b.cu": {"accesses": [access("b.cu", 1, "y", "b")]}})
        try:
            row = fx.measure(timeout=1.0)
            self.assertEqual(row["timeouts"], ["a.cu"])
            self.assertEqual(by_name(row)["x"]["why"], "timeout")
            self.assertEqual(by_name(row)["y"]["state"], "analyzed")
        finally:
            fx.close()

    def test_one_run_checks_every_file_in_one_command(self):
        files = {"a.cu": "__global__ void a() { __shared__ float x[2]; x[0] = 1; }",
                 "b.cu": "__global__ void b() { __shared__ float y[2]; y[0] = 1; }"}
        fx = Fixture(files, {"b.cu": {"accesses": [access("b.cu", 1, "y", "b")]}})
        try:
            row = fx.measure(defines=["X=1"], one_run=True)
            self.assertEqual(row["one_run"]["status"], "ok")
            together = [a for a in fx.argv() if len(a) > 1 and a[2] != "--format"]
            self.assertEqual(len(together), 1)
            self.assertEqual(sorted(together[0][1:3]), ["a.cu", "b.cu"])
            self.assertIn("-DX=1", together[0])
            self.assertNotIn("one_run", fx.measure())
        finally:
            fx.close()
        fx = Fixture(files, {"a.cu": "crash"})
        try:
            row = fx.measure(one_run=True)
            self.assertEqual(row["one_run"]["status"], "crash")
            self.assertEqual(row["crashes"][0].split(":")[0], "a.cu")
            total = coverage.total_of([row])
            self.assertEqual(total["one_run"]["status"], "owner/repo: crash")
            self.assertTrue(coverage.one_run_cell(row).endswith(" crash"))
        finally:
            fx.close()


class OutputTest(unittest.TestCase):
    def row(self, name, analyzed):
        decls = [{"file": "k.cu", "line": 3, "name": "a", "state": "analyzed" if analyzed else "unreached",
                  "why": "" if analyzed else "kernel template: no access reported in it"}]
        r = {"repo": name, "files": 1, "bytes": 10, "other_backend_headers": 0,
             "parsed": {"fully": 1, "partly": 0, "not": 0}, "arrays": 1, "arrays_inactive": 0,
             "arrays_in_headers": 0, "arrays_reached": int(analyzed), "arrays_analyzed": int(analyzed),
             "arrays_via_untraced_pointer": 0, "scalars": 0, "scalars_analyzed": 0,
             "shared_in_macro_bodies": 0, "accesses_analyzed": int(analyzed), "accesses_unknown": 0,
             "unknown_reasons": {}, "unknown_examples": {}, "unknown_only": {},
             "not_reached": {} if analyzed else {decls[0]["why"]: 1},
             "not_reached_examples": {} if analyzed else {decls[0]["why"]: "k.cu:3"},
             "skipped_reasons": {}, "skipped_signatures": {}, "seconds": 0.5, "wall_seconds": 0.5,
             "slowest": {"file": "k.cu", "seconds": 0.5}, "crashes": [], "timeouts": [], "errors": [],
             "declarations": decls, "per_file": []}
        return r

    def doc(self, analyzed):
        rows = [self.row("x/y", analyzed), self.row("z/w", True)]
        return {"schema": 1, "banklint": "b", "date": "d", "timeout": 1, "jobs": 1,
                "tables": [{"name": "corpus", "source": "s", "rows": rows, "total": coverage.total_of(rows)}]}

    def test_table_has_a_total_row_and_the_share(self):
        fx = Fixture({}, {})
        args = fx.args()
        fx.close()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            coverage.print_table(self.doc(False)["tables"][0], args)
        text = out.getvalue()
        self.assertRegex(text, r"\ntotal +2 +2 +1 +50\.0%")
        self.assertIn("share: 1 of 2 __shared__ arrays (50.0%)", text)
        self.assertIn("kernel template: no access reported in it   e.g. k.cu:3", text)

    def test_compare_names_gained_declarations(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            coverage.compare(self.doc(False), self.doc(True))
        text = out.getvalue()
        self.assertIn("0/1 -> 1/1", text)
        self.assertIn("gained  k.cu:3 `a`: unreached -> analyzed", text)

    def test_command_line_writes_and_reads_json(self):
        with tempfile.TemporaryDirectory() as tmp:
            saved = os.path.join(tmp, "m.json")
            with open(saved, "w") as fh:
                json.dump(self.doc(True), fh)
            p = subprocess.run([sys.executable, os.path.join(HERE, "coverage.py"), "--from-json", saved,
                                "--compare", saved], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("== changes:", p.stdout)


if __name__ == "__main__":
    unittest.main()
