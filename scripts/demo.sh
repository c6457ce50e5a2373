#!/usr/bin/env bash
# demo.sh: what `make demo` runs after the build: compile softmax to PTX with
# the CLI, then run it (GPU through the JIT when there is one, else the
# interpreter) and compare with a C reference.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}

echo "\$ $build/tilec dsl_examples/softmax.tile -o $build/softmax.ptx --time"
"$build/tilec" dsl_examples/softmax.tile -o "$build/softmax.ptx" --time
echo "wrote $build/softmax.ptx ($(wc -l < "$build/softmax.ptx") lines); its loads and reductions:"
grep -E 'ld\.global|shfl\.sync|ex2\.approx|st\.global' "$build/softmax.ptx" | sort | uniq -c | sed 's/^/    /' | head -8
echo
echo "\$ $build/softmax_demo dsl_examples/softmax.tile"
"$build/softmax_demo" dsl_examples/softmax.tile
