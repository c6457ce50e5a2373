#!/usr/bin/env bash
# run.sh: build probe.c against the CUDA toolkit and time the driver's PTX
# compile against nvPTXCompiler's and nvJitLink's (and a ptxas process) on
# tilec's PTX of a few kernels, with and without .loc lines and at two
# optimisation levels (GPU machine; needs build-bundle/bundle/tilec).  Prints
# one block per kernel.
set -u
cd "$(dirname "$0")/../.." || exit 2
CUDA=${CUDA:-/usr/local/cuda}
BUNDLE=${BUNDLE:-build-bundle/bundle}
T=$(mktemp -d)
flags=() libs=()
lib=$(ls $CUDA/lib64/libnvptxcompiler_static.a $CUDA/targets/*/lib/libnvptxcompiler_static.a 2>/dev/null | head -1)
[ -n "$lib" ] && [ -f $CUDA/include/nvPTXCompiler.h ] && flags+=(-DHAVE_NVPTXCOMPILER) && libs+=("$lib")
[ -f $CUDA/include/nvJitLink.h ] && flags+=(-DHAVE_NVJITLINK) && libs+=(-L$CUDA/lib64 -lnvJitLink)
echo "ptx_compile: building with ${flags[*]:-neither nvPTXCompiler nor nvJitLink}"
gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L "${flags[@]}" -I$CUDA/include bench/ptx_compile/probe.c "${libs[@]}" \
	-L$CUDA/lib64/stubs -lcuda -lpthread -lm -ldl -lstdc++ -Wl,-rpath,$CUDA/lib64 -o $T/probe || exit 1
H="--hints n=16,stride=16"
HM="--hints M=16,N=16,K=16,stride_am=16,stride_bk=16,stride_cm=16,stride_ak=1,stride_bn=1,stride_cn=1"
# name opt-level file kernel tilec-arguments
while read -r name olevel file kernel args; do
	LD_LIBRARY_PATH=$BUNDLE $BUNDLE/tilec dsl_examples/$file --kernel $kernel $args -o $T/$name.ptx || continue
	echo "== $name (PTX compiled at -O$olevel)"
	CUDA_CACHE_DISABLE=1 $T/probe $T/$name.ptx $kernel $olevel
	s=$(date +%s%N); ptxas -arch=sm_90 -O$olevel $T/$name.ptx -o $T/$name.cubin; e=$(date +%s%N)
	echo "ptxas   (separate process) $(( (e - s) / 1000 ))us"
done <<LIST
vector_add 3 vector_add.tile vector_add --hints n=16
softmax_1024 3 softmax.tile softmax -D BLOCK=1024 $H
softmax_1024_nolines 3 softmax.tile softmax -D BLOCK=1024 $H --no-lineinfo
softmax_1024_O1 1 softmax.tile softmax -D BLOCK=1024 $H
layernorm_8192 3 layernorm.tile layernorm -D BLOCK=8192 --num-warps 8 $H
matmul 3 matmul.tile matmul -D BM=128 -D BN=256 -D BK=32 --num-warps 8 --num-stages 4 $HM
matmul_nolines 3 matmul.tile matmul -D BM=128 -D BN=256 -D BK=32 --num-warps 8 --num-stages 4 $HM --no-lineinfo
LIST
rm -rf "$T"
