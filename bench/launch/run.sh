#!/usr/bin/env bash
# run.sh: build probe.c against the CUDA toolkit and time cuLaunchKernel by
# launch path (GPU machine; needs build-bundle/bundle/tilec for the PTX).
set -eu
cd "$(dirname "$0")/../.."
CUDA=${CUDA:-/usr/local/cuda}
BUNDLE=${BUNDLE:-build-bundle/bundle}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$CUDA/include" bench/launch/probe.c -L"$CUDA/lib64/stubs" -lcuda \
	-o "$T/probe"
LD_LIBRARY_PATH=$BUNDLE "$BUNDLE/tilec" dsl_examples/vector_add.tile --hints n=16 -o "$T/vector_add.ptx"
"$T/probe" "$T/vector_add.ptx"
