#!/bin/bash
# Runs hw/measure_ops.py on a GPU machine and leaves its results in $OUT (at most 8 files):
#   ops_raw.json, probe_ops.sass, metrics_query.txt.gz, ncu_raw.csv.gz, ncu_stderr.log.gz, log.txt
# Usage (from the directory holding probe_ops.cu, ops_patterns.py, measure_ops.py, measure.py):
#   OUT=/some/dir bash run_ops_device.sh [extra measure_ops.py arguments]
set -u
OUT=${OUT:?set OUT}
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$OUT/log.txt"
python3 measure_ops.py --out "$OUT/ops_raw.json" --work /tmp/opswork "$@" 2>&1 | tee -a "$OUT/log.txt"
rc=${PIPESTATUS[0]}
cp /tmp/opswork/probe_ops.sass "$OUT/" 2>/dev/null
for f in metrics_query.txt ncu_raw.csv ncu_stderr.log; do
  [ -f /tmp/opswork/$f ] && gzip -c /tmp/opswork/$f > "$OUT/$f.gz"
done
exit $rc
