#!/usr/bin/env bash
# llvm_time.sh: tilec's codegen time (`--time`'s codegen: building and
# verifying the LLVM module, the passes, the backend) with its own
# pass list and with default<O3> (TILEC_LLVM_REFERENCE=1), interleaved, REPS
# runs each, minimum and median in ms, per kernel.  TILEC=path/to/tilec
# (default build-bundle/bundle/tilec, else build/tilec).  Any machine.
set -u
cd "$(dirname "$0")/.." || exit 2
TILEC=${TILEC:-$( [ -x build-bundle/bundle/tilec ] && echo build-bundle/bundle/tilec || echo build/tilec )}
REPS=${REPS:-9}
HM="--hints M=16,N=16,K=16,stride_am=16,stride_bk=16,stride_cm=16,stride_ak=1,stride_bn=1,stride_cn=1"
H="--hints n=16,stride=16"
printf "%-26s %22s %22s %6s\n" kernel "tilec's passes min/med" "default<O3> min/med" ratio
while read -r name file args; do
	for mode in 0 1; do
		for i in $(seq "$REPS"); do
			TILEC_LLVM_REFERENCE=$mode $TILEC dsl_examples/$file $args --time -o /dev/null 2>&1 |
				sed -n 's/.*codegen \([0-9.]*\) ms.*/\1/p'
		done | sort -n | awk -v m=$mode 'BEGIN{n=0} {v[n++]=$1} END {printf "%s %.1f %.1f\n", m, v[0], v[int(n/2)]}'
	done | awk -v name="$name" '{min[$1]=$2; med[$1]=$3} END {printf "%-26s %10.1f / %-9.1f %10.1f / %-9.1f %6.2f\n", name, min[0], med[0], min[1], med[1], med[0]/med[1]}'
done <<LIST
softmax/1024 softmax.tile -D BLOCK=1024 $H
layernorm/8192 layernorm.tile -D BLOCK=8192 --num-warps 8 $H
mean_atomic mean.tile --kernel mean_atomic --hints n=16
matmul/128x128x32 matmul.tile -D BM=128 -D BN=128 -D BK=32 --num-warps 8 --num-stages 3 $HM
matmul/128x256x32 matmul.tile -D BM=128 -D BN=256 -D BK=32 --num-warps 8 --num-stages 4 $HM
matmul/128x128x32/sm_90a matmul.tile -D BM=128 -D BN=128 -D BK=32 --num-warps 8 --num-stages 3 --arch sm_90a $HM
matmul/128x256x32/sm_90a matmul.tile -D BM=128 -D BN=256 -D BK=32 --num-warps 8 --num-stages 6 --arch sm_90a $HM
LIST
