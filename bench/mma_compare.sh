#!/usr/bin/env bash
# mma_compare.sh: tilec's matmul next to Triton's on the same mma.sync path
# (Triton with DISABLE_MMA_V3=1), on the GPU machine, from the repo root with
# build-bundle/bundle present.  Into $OUT:
#   mm.log      bench.py --only matmul (tilec, Triton wgmma, Triton mma.sync, cuBLAS)
#   probe.log   probe.py matmul 4096^3 at tilec's best config and Triton's
#   sass.tar.gz both kernels' SASS (cuobjdump) and PTX
#   ncu.log     ncu_matmul.sh for both kernels (stall reasons, tensor pipe)
set -u
cd "$(dirname "$0")/.." || exit 2
export PYTHONUNBUFFERED=1 TILEC_LIB=$PWD/build-bundle/bundle/libtilec.so
OUT=${OUT:-$PWD/bench/out}
mkdir -p "$OUT"
CFG=${CFG:-128 256 32 8 4}
export TRITON_MM=${TRITON_MM:-128 256 64 8 8 3}
python3 bench/bench.py --only matmul --skip-compile --out "$OUT/bench" > "$OUT/mm.log" 2>&1
tail -n 30 "$OUT/mm.log"
P=$(mktemp -d)
export TRITON_CACHE_DIR=$P/cache
OUT=$P python3 bench/probe.py matmul 4096 4096 4096 $CFG 2>&1 | tee "$OUT/probe.log"
H="--hints M=16,N=16,K=16,stride_am=16,stride_bk=16,stride_cm=16,stride_ak=1,stride_bn=1,stride_cn=1"
set -- $CFG
build-bundle/bundle/tilec dsl_examples/matmul.tile -D BM=$1 -D BN=$2 -D BK=$3 --num-warps $4 --num-stages $5 \
	$H -o $P/tilec.ptx && ptxas -arch=sm_90 -O3 -v $P/tilec.ptx -o $P/tilec.cubin 2>&1 | tail -2
cuobjdump -sass $P/tilec.cubin > $P/tilec.sass
for f in $P/probe-triton-*.cubin; do cuobjdump -sass "$f" > "${f%.cubin}.sass"; done
tar czf "$OUT/sass.tar.gz" -C $P $(cd $P && ls *.sass *.ptx)
(cd bench && KERNEL='^matmul$' ./ncu_matmul.sh $CFG; KERNEL=matmul_kernel ./ncu_matmul.sh $CFG) > "$OUT/ncu.log" 2>&1
cat "$OUT/ncu.log"
