#!/usr/bin/env bash
# ncu_probe.sh OURS THEIRS PROBE_ARGS...: Nsight Compute's speed-of-light,
# occupancy, launch and warp-stall numbers for one launch of tilec's kernel
# OURS and Triton's THEIRS in a bench/probe.py workload (GPU machine).
#   bench/ncu_probe.sh mean_atomic mean_atomic_kernel mean 100000000
set -eu
cd "$(dirname "$0")"
ours=$1 theirs=$2
shift 2
for k in "$ours" "$theirs"; do
	echo "=== $k"
	ncu --target-processes all --kernel-name "regex:^$k\$" --launch-skip 20 --launch-count 1 \
	    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
	    python3 probe.py "$@" 2>&1 | grep -E "Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Stall [A-Z]|Warp Cycles Per Issued|Theoretical Occupancy|Block Limit [RSW]|Dynamic Shared|Waves Per SM" | sed 's/  */ /g' | head -40
done
