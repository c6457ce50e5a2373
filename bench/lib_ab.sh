#!/usr/bin/env bash
# lib_ab.sh A.so B.so ROUNDS COMMAND...: COMMAND (a bench/*.py run through the
# JIT) under two libtilec.so builds, interleaved: A, B, A, B, ... ROUNDS times
# each, every output line prefixed with the build's name (GPU machine).  For
# a compiler change whose effect is small next to the GPU's drift between calls.
#   bench/lib_ab.sh base/libtilec.so build-bundle/bundle/libtilec.so 2 \
#       env TILEC_ARCH=sm_90 python3 bench/attention.py 32 4096 64 3
set -u
[ $# -ge 4 ] || { echo "usage: $0 A.so B.so ROUNDS COMMAND..." >&2; exit 2; }
a=$1 b=$2 rounds=$3
shift 3
for lib in "$a" "$b"; do
	[ -f "$lib" ] || { echo "lib_ab: no such library: $lib" >&2; exit 2; }
done
rc=0
for r in $(seq "$rounds"); do
	for name in A B; do
		lib=$([ $name = A ] && echo "$a" || echo "$b")
		echo "== $name ($lib), round $r: $*"
		TILEC_LIB=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib") "$@" 2>&1 | sed "s/^/$name /"
		[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	done
done
exit $rc
