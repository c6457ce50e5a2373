#!/usr/bin/env bash
# demo.sh: what `make demo` runs after the build: compile softmax to PTX with
# the CLI, then run it (GPU through the JIT when there is one, else the
# interpreter) and compare with a C reference.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}

# count PATTERN FILE: how many PTX instructions match
count() { grep -cE "$1" "$2" || true; }

echo "\$ $build/tilec dsl_examples/softmax.tile -o $build/softmax.ptx --time"
"$build/tilec" dsl_examples/softmax.tile -o "$build/softmax.ptx" --time
echo "\$ $build/tilec dsl_examples/softmax.tile --hints n=16,stride=16 -o $build/softmax16.ptx"
"$build/tilec" dsl_examples/softmax.tile --hints n=16,stride=16 -o "$build/softmax16.ptx"
for f in softmax softmax16; do
	p="$build/$f.ptx"
	printf '%-14s %4d lines: %2d ld.global.v4, %2d ld.global (32-bit), %2d shfl.sync.bfly, %2d ex2.approx, %d .local\n' \
		"$f.ptx" "$(wc -l < "$p")" "$(count 'ld\.global\.v4' "$p")" "$(count 'ld\.global\.b32' "$p")" \
		"$(count 'shfl\.sync\.bfly' "$p")" "$(count 'ex2\.approx' "$p")" "$(count '\.local' "$p")"
done
echo "(with the hints -- what the JIT compiles when the row length and stride are multiples of 16 --"
echo " each thread moves its row slice with 128-bit loads and stores)"
echo
echo "\$ $build/softmax_demo dsl_examples/softmax.tile"
"$build/softmax_demo" dsl_examples/softmax.tile
