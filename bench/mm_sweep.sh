#!/bin/bash
# mm_sweep.sh: GPU correctness (gpu_test) and the f16 4096^3 matmul at several configs, on the device
# machine with the prebuilt bundle: bench/mm_sweep.sh "BM BN BK W S" ...
export TILEC_LIB=$PWD/build-bundle/bundle/libtilec.so
build-bundle/bundle/gpu_test --no-large 2>&1 | tail -3
cd bench
for c in "$@"; do
	echo "$c: $(python3 probe.py matmul 4096 4096 4096 $c 2>&1 | grep -E 'tilec|rror' | head -2)"
done
