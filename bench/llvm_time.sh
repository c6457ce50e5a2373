#!/usr/bin/env bash
# llvm_time.sh: tilec's codegen time (`--time`'s codegen: building and
# verifying the LLVM module, the passes, the backend) with its own
# pass list and with default<O3> (TILEC_LLVM_REFERENCE=1), interleaved, REPS
# runs each, minimum and median in ms, per kernel.  TILEC=path/to/tilec
# (default build-bundle/bundle/tilec, else build/tilec).  Any machine.
# With TILEC_B=path/to/another/tilec the second column is that build's own
# passes instead of default<O3>: two versions timed in the same run.
# ONLY=REGEX times only the kernels whose name matches.
set -u
cd "$(dirname "$0")/.." || exit 2
TILEC=${TILEC:-$( [ -x build-bundle/bundle/tilec ] && echo build-bundle/bundle/tilec || echo build/tilec )}
REPS=${REPS:-9}
HM="--hints M=16,N=16,K=16,stride_am=16,stride_bk=16,stride_cm=16,stride_ak=1,stride_bn=1,stride_cn=1"
H="--hints n=16,stride=16"
TILEC_B=${TILEC_B:-}
second=$([ -n "$TILEC_B" ] && echo "TILEC_B min/med" || echo "default<O3> min/med")
printf "%-26s %22s %22s %6s\n" kernel "tilec's passes min/med" "$second" ratio
# one run: mode 0 = $TILEC, 1 = default<O3> or $TILEC_B; prints "mode ms"
one() {
	local t=$TILEC ref=$1
	if [ -n "$TILEC_B" ]; then
		[ "$1" = 1 ] && t=$TILEC_B
		ref=0
	fi
	TILEC_LLVM_REFERENCE=$ref $t "${@:2}" --time -o /dev/null 2>&1 |
		sed -n "s/.*codegen \([0-9.]*\) ms.*/$1 \1/p"
}
ONLY=${ONLY:-}
while read -r name file args; do
	[[ -n "$ONLY" && ! "$name" =~ $ONLY ]] && continue
	for i in $(seq "$REPS"); do
		one 0 dsl_examples/$file $args
		one 1 dsl_examples/$file $args
	done | sort -k1,1 -k2n | awk -v name="$name" '{v[$1, n[$1]++] = $2}
		END {printf "%-26s %10.1f / %-9.1f %10.1f / %-9.1f %6.2f\n", name, v[0, 0], v[0, int(n[0] / 2)],
		     v[1, 0], v[1, int(n[1] / 2)], v[0, int(n[0] / 2)] / v[1, int(n[1] / 2)]}'
done <<LIST
softmax/1024 softmax.tile -D BLOCK=1024 $H
layernorm/8192 layernorm.tile -D BLOCK=8192 --num-warps 8 $H
mean_atomic mean.tile --kernel mean_atomic --hints n=16
matmul/128x128x32 matmul.tile -D BM=128 -D BN=128 -D BK=32 --num-warps 8 --num-stages 3 $HM
matmul/128x256x32 matmul.tile -D BM=128 -D BN=256 -D BK=32 --num-warps 8 --num-stages 4 $HM
matmul/128x128x32/sm_90a matmul.tile -D BM=128 -D BN=128 -D BK=32 --num-warps 8 --num-stages 3 --arch sm_90a $HM
matmul/128x256x32/sm_90a matmul.tile -D BM=128 -D BN=256 -D BK=32 --num-warps 8 --num-stages 6 --arch sm_90a $HM
LIST
