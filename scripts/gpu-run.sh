#!/usr/bin/env bash
# gpu-run.sh: every GPU check and benchmark, on the GPU machine, from the repo
# root with build-bundle/bundle/ present (`make device-bundle` makes it here),
# in three parts that each fit one 10-minute device call:
#
#   OUT=/some/dir scripts/gpu-run.sh [PART...]    # OUT unset: gpu-out/
#
# PART is tests, bench or more; none: all three, one after the other.
#   tests   gpu_test: bundle/gpu_test, every example against a float64
#           reference, compiled for the device (sm_90a on an H100: wgmma), then
#           again for sm_90 (ldmatrix + mma.sync everywhere; no 10^8 cases);
#           then 400 random kernels (tests/diff/gen.py, seed 1) through
#           bundle/diff_test on the GPU and in the interpreter, both arches;
#           tests/gpu/debug_check.py
#           sanitizer: compute-sanitizer memcheck over gpu_test --no-large
#           --no-interp (those two flags drop the 10^8 cases and the CPU
#           interpreter, which memcheck does not need), then racecheck over
#           every kernel that uses shared memory
#           ptxas: bundle/tilec --emit=ptx for each example kernel, ptxas -v
#           on it: registers, stack frame, spills per kernel
#   bench   python3 bench/bench.py (tilec vs Triton vs torch/cuBLAS, matmul
#           last; about 40 s of matmul on an H100), bench/linear_i8.py (the int8
#           linear layer vs Triton and cuBLAS int8) and bench/linear_f8.py (the
#           fp8 linear layer vs Triton and cuBLASLt fp8)
#   more    bench/attention.py, plain and causal, bench/attention_backward.py,
#           bench/layernorm_backward.py, bench/softmax_persistent.py,
#           bench/rope.py (both forms), bench/dropout.py, bench/cumsum.py,
#           bench/linear_scan.py, bench/sort.py, bench/quant.py (i8 and f8),
#           bench/ragged.py (softmax and layer norm), bench/mathfuncs.py and
#           bench/ptx_load.py (vs Triton and torch; into bench-more.log)
# Writes into $OUT: gpu_test.log sanitizer.log ptxas.log ptx.tar.gz (tests),
# bench.log bench.json bench.png bench_matmul.png (bench), bench-more.log
# (more): 9 files, so fetch a part's files after its call (the device returns
# 8 at most).  Prints a summary last.  Exit status 1 if any step failed.  Each
# part stays under BUDGET (530 s, under 9 minutes): a step's cap is cut to
# what is left of it, and a step never starts past it.
set -u
cd "$(dirname "$0")/.." || exit 2
export PYTHONUNBUFFERED=1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
BUNDLE=${BUNDLE:-build-bundle/bundle}
case $BUNDLE in /*) ;; *) BUNDLE=$PWD/$BUNDLE ;; esac
export TILEC_LIB=${TILEC_LIB:-$BUNDLE/libtilec.so}
export TILEC_EXAMPLES=$PWD/dsl_examples
BUDGET=${BUDGET:-530}   # seconds for each part
PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
SANITIZER=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export OUT BUNDLE PTXAS
failed=()
summary=()

# step NAME CAP_SECONDS COMMAND...: run it under a time cap, output teed to $OUT/NAME.log.
step() {
	local name=$1 cap=$2 left rc
	shift 2
	left=$((BUDGET - (SECONDS - part_start)))
	if [ "$left" -lt 10 ]; then
		echo "=== $name: skipped, the part's ${BUDGET}s budget is spent" | tee -a "$OUT/$name.log"
		failed+=("$name(no time)")
		return
	fi
	[ "$cap" -gt "$left" ] && cap=$left
	echo "=== $name (cap ${cap}s): $*"
	timeout --kill-after=10 "$cap" "$@" 2>&1 | tee -a "$OUT/$name.log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		[ "$rc" -eq 124 ] && echo "=== $name: timed out after ${cap}s" | tee -a "$OUT/$name.log"
		failed+=("$name(rc=$rc)")
	fi
	echo "=== $name: exit $rc, $SECONDS s into the run"
}

# The PTX of every example kernel, then ptxas -v on each; a table at the end.
# Each line: file kernel num_warps defines...
ptxas_all() {
	local dir rc=0 file kernel warps defs d f args regs stack sst sld smem arch
	dir=$(mktemp -d)
	printf '%-26s %5s %6s %6s %6s %6s\n' "kernel" "regs" "stack" "spillS" "spillL" "smem" > "$dir/table"
	while read -r file kernel warps defs; do
		[ -z "$file" ] && continue
		args=()
		f=$kernel
		arch=sm_90
		# defs: NAME=V (a constexpr), @ARCH, +HINTS (--hints), ^STAGES (--num-stages)
		for d in $defs; do
			case $d in
			@*) arch=${d#@}; f=$f.$arch ;;
			+*) args+=(--hints "${d#+}"); f=$f.hints ;;
			^*) args+=(--num-stages "${d#^}"); f=$f.s${d#^} ;;
			*) args+=(-D "$d"); f=$f.${d#*=} ;;
			esac
		done
		[ "$warps" != "-" ] && args+=(--num-warps "$warps")
		echo "--- $kernel ($file ${defs:-defaults}, num_warps ${warps/-/default})"
		if ! "$BUNDLE/tilec" "dsl_examples/$file" --kernel "$kernel" --arch "$arch" --emit=ptx \
			"${args[@]}" -o "$dir/$f.ptx"; then
			echo "tilec failed on $kernel"
			printf '%-26s %s\n' "$f" "tilec FAILED" >> "$dir/table"
			rc=1
			continue
		fi
		if ! "$PTXAS" -arch="$arch" -v "$dir/$f.ptx" -o "$dir/$f.cubin" > "$dir/$f.txt" 2>&1; then
			cat "$dir/$f.txt"
			printf '%-26s %s\n' "$f" "ptxas FAILED" >> "$dir/table"
			rc=1
			continue
		fi
		cat "$dir/$f.txt"
		regs=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$dir/$f.txt" | head -1)
		stack=$(sed -n 's/.*[^0-9]\([0-9]*\) bytes stack frame.*/\1/p' "$dir/$f.txt" | head -1)
		sst=$(sed -n 's/.*[^0-9]\([0-9]*\) bytes spill stores.*/\1/p' "$dir/$f.txt" | head -1)
		sld=$(sed -n 's/.*[^0-9]\([0-9]*\) bytes spill loads.*/\1/p' "$dir/$f.txt" | head -1)
		smem=$(sed -n 's/.*[^0-9]\([0-9]*\) bytes smem.*/\1/p' "$dir/$f.txt" | head -1)
		printf '%-26s %5s %6s %6s %6s %6s\n' "$f" "${regs:-?}" "${stack:-0}" "${sst:-0}" "${sld:-0}" \
			"${smem:-0}" >> "$dir/table"
	done <<-'EOF'
		vector_add.tile vector_add 4 BLOCK=1024
		softmax.tile softmax 4 BLOCK=1024
		softmax.tile softmax 16 BLOCK=4096
		softmax.tile softmax 16 BLOCK=8192
		softmax.tile softmax 16 BLOCK=16384
		softmax.tile softmax_persistent 4 BLOCK=1024
		softmax.tile softmax_persistent 16 BLOCK=4096
		softmax_backward.tile softmax_backward 4 BLOCK=1024
		layernorm.tile layernorm 8 BLOCK=8192
		layernorm_backward.tile layernorm_backward_dx 8 BLOCK=8192
		layernorm_backward.tile layernorm_backward_dwdb 4
		mean.tile mean_atomic 4 BLOCK=4096
		mean.tile mean_partial 4 BLOCK=4096
		mean.tile mean_final 4 BLOCK=1024
		matmul.tile matmul -
		matmul_relu.tile matmul_relu -
		linear.tile linear -
		linear.tile linear - ACT=2
		rope.tile rope 4 ROWS=8 +stride=16
		rope.tile rope_interleaved 4 ROWS=8 +stride=16
		linear_scan.tile linear_recurrence 4 BLOCK=1024 +T=16
		layernorm_backward.tile layernorm_backward_locked 8 BLOCK=8192 +n=16,stride=16
		dropout.tile dropout 4 BLOCK=1024 +n=16
		dropout.tile dropout_add 4 BLOCK=1024 +n=16
		attention.tile attention 4
		attention.tile attention 8 BM=128 @sm_90a +n_ctx=16,stride_h=16,stride_t=16
		attention_causal.tile attention_causal -
		attention_causal.tile attention_causal - @sm_90a +n_ctx=16,stride_h=16,stride_t=16
		attention_backward.tile attention_bwd_dkdv - @sm_90a +n_ctx=16,stride_h=16,stride_t=16
		attention_backward.tile attention_bwd_dq - @sm_90a +n_ctx=16,stride_h=16,stride_t=16
		matmul_nt.tile matmul_nt -
		matmul_i8.tile matmul_i8 -
		linear_i8.tile linear_i8 -
		linear_i8.tile linear_i8 8 BM=256 ^4 @sm_90a +K=16,stride_xm=16,stride_wn=16,stride_ym=16
		linear_f8.tile linear_f8 - BN=128
		linear_f8.tile linear_f8 - @sm_90a +M=16,N=16,K=16,stride_xm=16,stride_wn=16,stride_ym=16
		matmul.tile matmul 8 BN=256 ^6 @sm_90a +M=16,N=16,K=16,stride_am=16,stride_ak=1,stride_bk=16,stride_bn=1,stride_cm=16,stride_cn=1
		matmul_relu.tile matmul_relu 8 BN=256 ^6 @sm_90a +M=16,N=16,K=16,stride_am=16,stride_ak=1,stride_bk=16,stride_bn=1,stride_cm=16,stride_cn=1
		matmul_nt.tile matmul_nt 8 @sm_90a +M=16,N=16,K=16
		quant.tile quant_i8 8 BLOCK=4096
		quant.tile quant_f8 8 BLOCK=4096
	EOF
	echo
	echo "ptxas -arch=sm_90 -v, rows named .sm_90a for -arch=sm_90a (smem: static shared bytes; the launch adds dynamic shared memory):"
	cat "$dir/table"
	(cd "$dir" && tar -czf "$OUT/ptx.tar.gz" ./*.ptx 2>/dev/null)
	rm -rf "$dir"
	return $rc
}

parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(tests bench more)
for part in "${parts[@]}"; do
	case $part in tests | bench | more) ;; *) echo "gpu-run: unknown part '$part' (tests, bench, more)"; exit 2 ;; esac
done
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -4)
echo "=== GPU: $gpu"
echo "=== bundle: $BUNDLE: $(cd "$BUNDLE" 2>&1 && echo ./*)"

# memcheck over every case; racecheck (shared-memory hazards: the barriers
# codegen leaves out where accesses touch other bytes, copies of replicated
# elements) over every kernel that uses shared memory, for both targets
sanitize() {
	"$SANITIZER" --tool memcheck --error-exitcode 9 "$BUNDLE/gpu_test" --no-large --no-interp \
		--examples dsl_examples || return
	echo "=== racecheck"
	local only=softmax,softmax_backward,layernorm,mean,attention,attention_causal,matmul,matmul_relu,linear,matmul_nt
	only+=,attention_backward,batched_matmul,matmul_f32,matmul_i8,linear_i8,layernorm_backward,softmax_persistent,scan,sync,layernorm_backward_locked,gather,builtins,fp8,linear_f8
	"$SANITIZER" --tool racecheck --error-exitcode 9 "$BUNDLE/gpu_test" --no-large --no-interp \
		--examples dsl_examples --only "$only" || return
	echo "=== racecheck, sm_90"
	"$SANITIZER" --tool racecheck --error-exitcode 9 "$BUNDLE/gpu_test" --no-large --no-interp \
		--examples dsl_examples --arch sm_90 --only "$only"
}
export -f sanitize ptxas_all
export SANITIZER

part_tests() {
	rm -f "$OUT"/gpu_test.log "$OUT"/sanitizer.log "$OUT"/ptxas.log
	echo "GPU: $gpu" > "$OUT/gpu_test.log"
	step gpu_test 430 bash -c 'set -o pipefail; "$0" --examples dsl_examples && echo "=== again for sm_90" &&
		"$0" --examples dsl_examples --arch sm_90 --no-large --no-interp &&
		echo "=== random kernels: tests/diff/gen.py --count 400 --seed 1, diff_test" && d=$(mktemp -d) &&
		python3 tests/diff/gen.py "$d" --count 400 --seed 1 > /dev/null &&
		"$1" --require-gpu "$d" | grep -v "^PASS" && "$1" --require-gpu --arch sm_90 "$d" | grep -v "^PASS"' \
		"$BUNDLE/gpu_test" "$BUNDLE/diff_test"
	step gpu_test 30 python3 tests/gpu/debug_check.py
	step sanitizer 200 bash -c sanitize
	step ptxas 40 bash -c ptxas_all
	summary+=("gpu_test: $(grep -E '^[0-9]+ passed, [0-9]+ failed' "$OUT/gpu_test.log" | tr '\n' ' ')")
	summary+=("diff_test: $(grep -E '^diff_test: [0-9]+ passed' "$OUT/gpu_test.log" | cut -d' ' -f2-7 | tr '\n' ' ')")
	summary+=("sanitizer: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed, [0-9]+ failed' "$OUT/sanitizer.log" | tr '\n' ' ')")
}

part_bench() {
	rm -f "$OUT"/bench.log
	# bench.py reports gpu_test's C launch-overhead line: the tests part's, else the api case run here
	local log=$OUT/gpu_test.log
	if ! grep -q '^launch overhead:' "$log" 2>/dev/null; then
		step bench 60 "$BUNDLE/gpu_test" --examples dsl_examples --only api
		log=$OUT/bench.log
	fi
	step bench 330 python3 bench/bench.py --gpu-test-log "$log"
	step bench 150 python3 bench/linear_i8.py 4096 4096 4096 3
	step bench 150 python3 bench/linear_f8.py 4096 4096 4096 3
}

part_more() {
	rm -f "$OUT"/bench-more.log
	step bench-more 120 python3 bench/attention.py 32 4096 64 3
	step bench-more 100 python3 bench/attention.py 32 4096 64 3 causal
	step bench-more 120 python3 bench/attention_backward.py 32 4096 64 3
	step bench-more 90 python3 bench/layernorm_backward.py
	step bench-more 90 python3 bench/softmax_persistent.py
	step bench-more 100 python3 bench/rope.py
	step bench-more 80 python3 bench/rope.py interleaved
	step bench-more 90 python3 bench/dropout.py
	step bench-more 60 python3 bench/cumsum.py
	step bench-more 60 python3 bench/linear_scan.py
	step bench-more 120 python3 bench/sort.py
	step bench-more 60 python3 bench/quant.py
	step bench-more 60 python3 bench/quant.py f8
	step bench-more 90 python3 bench/ragged.py
	step bench-more 90 python3 bench/ragged.py layernorm
	step bench-more 90 python3 bench/mathfuncs.py
	step bench-more 40 env CUDA_CACHE_DISABLE=1 python3 bench/ptx_load.py
}

for part in "${parts[@]}"; do
	part_start=$SECONDS
	echo "=== part $part"
	"part_$part"
done

echo
echo "================ summary (${parts[*]}: $SECONDS s) ================"
echo "GPU: $gpu"
printf '%s\n' "${summary[@]}"
case " ${parts[*]} " in *" tests "*) grep -A60 '^ptxas -arch' "$OUT/ptxas.log" 2>/dev/null ;; esac
case " ${parts[*]} " in *" bench "*) sed -n '/^cold compile/,$p' "$OUT/bench.log" 2>/dev/null ;; esac
case " ${parts[*]} " in *" more "*) grep -E '^ratios|^=== bench-more|tilec/triton' "$OUT/bench-more.log" 2>/dev/null ;; esac
if [ ${#failed[@]} -ne 0 ]; then
	echo "gpu-run: FAILED steps: ${failed[*]}"
	exit 1
fi
echo "gpu-run: all steps passed"
