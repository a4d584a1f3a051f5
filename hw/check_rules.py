#!/usr/bin/env python3
"""Reference bank-conflict rules for sm_50..sm_90 (see docs/BANK_RULES.md), checked against measured JSON.

Usage: python3 hw/check_rules.py FILE.json [FILE.json ...]

FILE.json has the calibration shape: {"patterns": [{"width", "op", "offsets", "wavefronts", ...}]}.
For every pattern it predicts wavefronts (and ideal wavefronts, so predicted bank conflicts =
wavefronts - ideal) and prints every pattern where the measurement disagrees. Exit status 1 if any do.

Rules (32 banks of 4 bytes):
  * a lane touching `width` bytes at byte offset o touches the 4-byte words o//4 .. (o+width-1)//4
  * phases: width <= 4: whole warp; 8: two phases of 16 lanes; 16: four phases of 8 lanes
  * LOADS of 8/16 bytes only: if for every lane n, lanes n and n^1 hit the same address whenever both
    are active, OR the same holds for n^2, the phase size doubles once
  * cost of a phase = max over banks of distinct words touched in that bank by the phase's active lanes
  * wavefronts = sum of phase costs over phases with >= 1 active lane
  * ideal = sum over those phases of ceil(distinct words / 32)
"""
import json
import sys

BANKS = 32


def words_of(off, width):
    return range(off // 4, (off + width - 1) // 4 + 1)


def pairs_share(offsets, x):
    for n in range(32):
        m = n ^ x
        a, b = offsets[n], offsets[m]
        if a >= 0 and b >= 0 and a != b:
            return False
    return True


def phase_size(width, op, offsets):
    size = 32 if width <= 4 else (16 if width == 8 else 8)
    if op == "load" and width in (8, 16):
        if pairs_share(offsets, 1) or pairs_share(offsets, 2):
            size *= 2
    return size


def predict(width, op, offsets):
    """Return (wavefronts, ideal) predicted by the rules."""
    size = phase_size(width, op, offsets)
    wave = ideal = 0
    for start in range(0, 32, size):
        active = [o for o in offsets[start:start + size] if o >= 0]
        if not active:
            continue
        words = set()
        for o in active:
            words.update(words_of(o, width))
        per_bank = {}
        for w in words:
            per_bank[w % BANKS] = per_bank.get(w % BANKS, 0) + 1
        wave += max(per_bank.values())
        ideal += -(-len(words) // BANKS)
    return wave, ideal


def check(path):
    data = json.load(open(path))
    pats = data["patterns"]
    bad = []
    bad_conf = 0
    for i, p in enumerate(pats):
        w, ideal = predict(p["width"], p["op"], p["offsets"])
        if w != p["wavefronts"]:
            bad.append((i, p, w, ideal))
        elif "ncu_bank_conflicts" in p and p["ncu_bank_conflicts"] != w - ideal:
            bad_conf += 1
    print(f"{path}: {data.get('device', '?')}: {len(pats) - len(bad)} of {len(pats)} patterns: "
          f"measured wavefronts == predicted; {bad_conf} of the agreeing ones have "
          f"ncu_bank_conflicts != predicted wavefronts - ideal")
    for i, p, w, ideal in bad:
        print(f"  MISMATCH #{i}: width={p['width']} op={p['op']} measured={p['wavefronts']} "
              f"(ncu conflicts {p.get('ncu_bank_conflicts')}) predicted={w} ideal={ideal} "
              f"offsets={p['offsets']}")
    return not bad


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    ok = all([check(f) for f in sys.argv[1:]])
    sys.exit(0 if ok else 1)
