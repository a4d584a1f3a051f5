#!/usr/bin/env python3
"""Joins what hw/run_mbarrier_device.sh left in a folder (cycles.jsonl, ncu.csv, versions.txt)
into tests/data/sm90_mbarrier.json: per launch, the pattern, the cycles one warp took for the
64 repetitions (best of 5 runs), and Nsight Compute's shared-memory counters as it printed them.

    python3 hw/mbarrier_export.py RESULTS_DIR > tests/data/sm90_mbarrier.json
"""
import csv
import json
import sys
from pathlib import Path

COUNTERS = {
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum": "shared_wavefronts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum": "bank_conflicts",
    "smsp__inst_executed.sum": "instructions",
}


def main(folder):
    d = Path(folder)
    launches = [json.loads(line) for line in (d / "cycles.jsonl").read_text().splitlines() if line]
    metrics = {}
    header = None
    for row in csv.reader((d / "ncu.csv").read_text().splitlines()):
        if row and row[0] == "ID":
            header = row
            continue
        if header and len(row) == len(header):
            r = dict(zip(header, row))
            if r["Metric Name"] in COUNTERS:
                value = int(r["Metric Value"].replace(",", ""))
                metrics.setdefault(int(r["ID"]), {})[COUNTERS[r["Metric Name"]]] = value
    for launch in launches:
        launch.update(metrics[launch["launch"]])
        if not launch["error"]:
            del launch["error"]
    versions = (d / "versions.txt").read_text().strip().splitlines()
    out = {
        "source": "hw/probe_mbarrier.cu run by hw/run_mbarrier_device.sh, joined by hw/mbarrier_export.py",
        "device": versions,
        "note": "one block of one warp; counters cover the whole launch, setup included (op `none` is the setup alone); cycles: one warp, 64 repetitions, best of 5 runs",
        "launches": launches,
    }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
