#!/bin/bash
# What runs on the GPU machine for the mbarrier measurement (hw/probe_mbarrier.cu): the SASS,
# the cycles of each launch, and Nsight Compute's shared-memory counters per launch.
# Output under $OUT: versions.txt, probe_mbarrier.sass, cycles.jsonl, launches.jsonl,
# sync_metrics.txt, ncu.csv, ncu_stderr.log.
set -u
OUT=${OUT:?}
work=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader; nvcc --version | tail -2; ncu --version | tail -1; } \
    > "$OUT/versions.txt" 2>&1
nvcc -arch=sm_90 -O3 -o "$work/probe_mbarrier" hw/probe_mbarrier.cu > "$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
cuobjdump -sass "$work/probe_mbarrier" > "$OUT/probe_mbarrier.sass"
"$work/probe_mbarrier" time > "$OUT/cycles.jsonl"
"$work/probe_mbarrier" list > "$OUT/launches.jsonl"
ncu --query-metrics 2>/dev/null | grep -i -E "sync|mbar|shared" > "$OUT/sync_metrics.txt"
metrics="l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
metrics="$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
metrics="$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum"
metrics="$metrics,smsp__inst_executed_op_shared_atom.sum,smsp__inst_executed.sum"
ncu --clock-control none --print-units base --csv --metrics "$metrics" "$work/probe_mbarrier" list \
    > "$OUT/ncu.csv" 2> "$OUT/ncu_stderr.log"
echo "ncu exit $?; $(wc -l < "$OUT/ncu.csv") csv lines; $(wc -l < "$OUT/cycles.jsonl") timed launches"
grep -c SYNCS "$OUT/probe_mbarrier.sass"
