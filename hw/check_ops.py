#!/usr/bin/env python3
"""Reference rules for shared-memory atomics, ldmatrix / stmatrix and cp.async on sm_90 (see
hw/ATOMICS_AND_MATRIX_OPS.md), checked against measured data.

Usage: python3 hw/check_ops.py tests/data/sm90_atomics.json tests/data/sm90_matrix_ops.json

For every pattern it predicts the wavefronts (and, where the data has them, instructions and the
loads of a CAS loop) and prints every pattern where the measurement disagrees; exit status 1 if
any does. The Rust engine (src/bank/ops.rs) implements the same rules; this file is the short
independent statement of them. Python 3 standard library only.
"""
import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_rules import predict  # noqa: E402  (the load / store rules)


def words(off, width):
    return range(off // 4, (off + width - 1) // 4 + 1)


def lanes_per_bank(offs, width, lanes):
    """Max over banks of the number of (lane, word) pairs in that bank: every lane counts, lanes
    on the same word included (no broadcast)."""
    c = Counter(w % 32 for l in lanes if offs[l] >= 0 for w in words(offs[l], width))
    return max(c.values(), default=0)


def phases(size, offs):
    """Lane groups of `size` with at least one active lane."""
    return [range(s, s + size) for s in range(0, 32, size) if any(offs[l] >= 0 for l in range(s, s + size))]


def atomic(op, width, offs):
    """Returns (wavefronts of the ATOMS, ATOMS instructions, wavefronts of the loop's LDS)."""
    if op == "atomic.count":  # ATOMS.POPC.INC: lanes on one word are one request, like a load
        return predict(4, "load", offs)[0], 1, 0
    size = 32 if width == 4 else 16
    if op == "atomic.rmw":  # every lane is served on its own: cost = lanes per bank
        return sum(lanes_per_bank(offs, width, ph) for ph in phases(size, offs)), 1, 0
    if op == "atomic.cas":  # compare and swap: two wavefronts per lane in the busiest bank
        return sum(2 * lanes_per_bank(offs, width, ph) for ph in phases(size, offs)), 1, 0
    # cas-loop: LDS, then ATOMS.CAST.SPIN, repeated by the lanes that did not succeed. Each try
    # costs 2 wavefronts per phase with lanes left; in each phase the lowest lane left in each bank
    # is tried; of the lanes tried on one address the lowest succeeds (phase 0 before phase 1).
    left = list(offs)
    tries = atom = loads = 0
    while any(o >= 0 for o in left):
        tries += 1
        loads += predict(width, "load", left)[0]
        tried = []
        for ph in phases(size, left):
            atom += 2
            busy = set()
            for l in ph:
                if left[l] < 0:
                    continue
                banks = {w % 32 for w in words(left[l], width)}
                if banks & busy:
                    continue
                busy |= banks
                tried.append(l)
        done = set()
        for l in tried:
            if left[l] not in done:
                done.add(left[l])
                left[l] = -1
    return atom, tries, loads


def matrix(op, offs):
    """ldmatrix / stmatrix .xN: lanes 0..8N-1 give the row addresses; each 8x8 matrix (8 rows of
    16 bytes) is one phase; a phase costs the most distinct words of one bank; no merging."""
    n = int(op.split(".x")[1][0])
    return predict(16, "store", [o if l < 8 * n else -1 for l, o in enumerate(offs)])[0]


def cp_async_ca(width, offs):
    """cp.async.ca (through L1): the phases of a store of that width; every lane counts in its
    banks, lanes writing the same word included."""
    size = {4: 32, 8: 16, 16: 8}[width]
    return sum(lanes_per_bank(offs, width, ph) for ph in phases(size, offs))


def cp_async_cg(offs, sources):
    """cp.async.cg (L1 bypass, 16 bytes): the copy is written to shared memory per 32-byte source
    sector. Lanes with the same destination keep the lowest lane only. A unit is one (destination
    sector, source sector) pair, with the 16-byte halves it uses on each side. Units of one 128-byte
    source line and one 128-byte destination line share a wavefront when they use the same source
    halves, the same destination halves and the same bit 0 of (source sector ^ destination sector);
    within such a group each wavefront takes a source sector at most once and a destination sector
    at most once, so the group costs its most-used sector."""
    first = {}
    for l, o in enumerate(offs):
        if o >= 0 and o not in first:
            first[o] = l
    units = {}
    for d, l in first.items():
        s = sources[l]
        u = units.setdefault((d // 32, s // 32), [0, 0])
        u[0] |= 1 << (s // 16 % 2)
        u[1] |= 1 << (d // 16 % 2)
    groups = {}
    for (ds, gs), (sm, dm) in units.items():
        groups.setdefault((gs // 4, ds // 4, sm, dm, (gs ^ ds) & 1), []).append((gs, ds))
    return sum(max(max(Counter(g for g, _ in us).values()), max(Counter(d for _, d in us).values()))
               for us in groups.values())


def check(path):
    doc = json.load(open(path))
    bad = []
    for i, p in enumerate(doc["patterns"]):
        op, w, offs = p["op"], p["width"], p["offsets"]
        got = {"wavefronts": p["wavefronts"]}
        if op.startswith("atomic"):
            wf, insn, loads = atomic(op, w, offs)
            want = {"wavefronts": wf}
            got["instructions"] = p["instructions"]
            want["instructions"] = insn
            if op == "atomic.cas-loop":
                got["load_wavefronts"] = p["load_wavefronts"]
                want["load_wavefronts"] = loads
        elif op.startswith(("ldmatrix", "stmatrix")):
            want = {"wavefronts": matrix(op, offs)}
        elif op == "cp.async.ca":
            want = {"wavefronts": cp_async_ca(w, offs)}
        else:
            want = {"wavefronts": cp_async_cg(offs, p["sources"])}
        if got != want:
            bad.append((i, p["kernel"], p.get("gen"), got, want))
    n = len(doc["patterns"])
    print(f"{path}: {doc['device']}: {n - len(bad)} of {n} patterns predicted exactly")
    for b in bad[:40]:
        print(f"  MISMATCH #{b[0]} {b[1]} ({b[2]}): measured {b[3]}, rules {b[4]}")
    return not bad


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(0 if all([check(f) for f in sys.argv[1:]]) else 1)
