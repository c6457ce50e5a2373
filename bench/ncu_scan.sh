#!/usr/bin/env bash
# ncu_scan.sh ROWS T BLOCK WARPS: Nsight Compute's speed-of-light, occupancy,
# launch and warp-stall numbers for tilec's linear_recurrence and Triton's
# (bench/probe.py linear_scan; both kernels have that name, so the launch to
# profile is picked by its place: probe.py runs tilec's 211 times, then
# Triton's).  GPU machine.
set -eu
cd "$(dirname "$0")"
ARGS="$*"
for who in "tilec 20" "triton 231"; do
	name=${who% *} skip=${who#* }
	echo "=== $name"
	ncu --target-processes all --kernel-name regex:'^linear_recurrence$' --launch-skip "$skip" --launch-count 1 \
	    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
	    --section MemoryWorkloadAnalysis \
	    python3 probe.py linear_scan $ARGS 2>&1 |
		grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Stall [A-Z]|Warp Cycles Per Issued|Theoretical Occupancy|Block Limit [RSW]|Shared Memory Configuration|Dynamic Shared|Static Shared|Waves Per SM|Executed Ipc" |
		sed 's/  */ /g' | head -40
done
