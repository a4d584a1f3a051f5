#!/bin/bash
# On the GPU: build probe_wmma.cu, keep its SASS, and count each kernel's shared-memory
# instructions and wavefronts with Nsight Compute. Results under $OUT.
set -u
cd "$(dirname "$0")"
python3 gen_probe.py probe_wmma.cu
nvcc -arch=sm_90 -O3 -o /tmp/probe_wmma probe_wmma.cu 2> "$OUT/wmma_nvcc.txt" || { cat "$OUT/wmma_nvcc.txt"; exit 1; }
cuobjdump -sass /tmp/probe_wmma > "$OUT/wmma_sass.txt"
ncu --clock-control none --csv --print-units base --metrics \
smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_ldsm.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum \
  /tmp/probe_wmma > "$OUT/wmma_ncu.csv" 2> "$OUT/wmma_ncu_err.txt"
echo "ncu rc $?"; tail -2 "$OUT/wmma_ncu.csv"; nvcc --version | tail -2 > "$OUT/wmma_nvcc_version.txt"
