#!/usr/bin/env bash
# attention_sweep.sh: gpu_test's attention cases, then tilec's attention (probe.py) at a few
# configs (BM BN WARPS STAGES) against torch's scaled_dot_product_attention, bh 32, n 4096, D 64
# (GPU machine, repo root, build-bundle/bundle present).
export TILEC_LIB=$PWD/build-bundle/bundle/libtilec.so PYTHONUNBUFFERED=1
build-bundle/bundle/gpu_test --no-large 2>&1 | grep -E "attention|passed"
cd bench
for c in "128 64 8 3" "64 64 4 3" "128 32 8 3" "64 32 4 3" "128 64 4 3"; do
	echo "$c: $(python3 probe.py attention 32 4096 64 $c 2>&1 | grep -E 'attention|rror' | head -3 | tr '\n' ' ')"
done
