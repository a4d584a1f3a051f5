#!/bin/bash
# What runs on the GPU machine for the TMA measurements (docs/TMA_SWIZZLE.md): the placement
# probe over every swizzle mode, box width and base offset, then the fixture validation of the
# TMA fixtures (prepared beforehand with `validate_fixtures.py prepare --only 99_`).
# Output under $OUT: tma_layout.jsonl, versions.txt, and fixture_results.tar.gz.
set -u
OUT=${OUT:?}
work=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader; nvcc --version | tail -2; } \
    > "$OUT/versions.txt" 2>&1
nvcc -arch=sm_90 -O2 -o "$work/probe_tma" hw/probe_tma.cu -lcuda > "$OUT/probe_build.log" 2>&1 || {
    echo "probe build failed"; cat "$OUT/probe_build.log"; }
: > "$OUT/tma_layout.jsonl"
for mode in 0 1 2 3; do
    span=$(( mode == 0 ? 256 : 16 << mode ))
    for inner in 16 32 64 128 256; do
        [ "$inner" -le "$span" ] || continue
        for offset in 0 128 256 384 512 640 768 896; do
            timeout 20 "$work/probe_tma" "$mode" "$inner" "$offset" >> "$OUT/tma_layout.jsonl" 2>&1 \
                || echo "{\"mode\": $mode, \"inner_bytes\": $inner, \"offset\": $offset, \"error\": \"exit $?\"}" >> "$OUT/tma_layout.jsonl"
        done
    done
done
echo "probe: $(wc -l < "$OUT/tma_layout.jsonl") lines"
[ "${PROBE_ONLY:-0}" = 1 ] && exit 0
python3 hw/validate_fixtures.py device --out "$OUT" > "$OUT/validate.log" 2>&1
tail -5 "$OUT/validate.log"
