#!/usr/bin/env bash
# ncu_source.sh KERNEL_REGEX OUTFILE PROBE-ARGS...: per-SASS-instruction warp
# stall samples and executed instructions of one launch of the kernel that
# probe.py runs (GPU machine, Nsight Compute), as CSV in OUTFILE, to find
# which instructions a kernel's time waits on.
#   bash ncu_source.sh '^matmul_block_ptr$' $OUT/bp.csv matmul_block_ptr 4096 4096 4096 128 256 32 8 6
set -eu
cd "$(dirname "$0")"
k=$1 out=$2
shift 2
ncu --target-processes all --kernel-name regex:"$k" --launch-skip 3 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
    python3 probe.py "$@" > "$out" 2>&1 || true
wc -l "$out"
