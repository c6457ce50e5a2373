#!/usr/bin/env bash
# install-deps.sh: makes sure the tools tilec builds and tests with are here.
# Checks each one; only when something is missing does it run apt-get update
# once and install the missing Debian packages.  Silent when all is present.
set -euo pipefail

LLVM=/usr/lib/llvm-19
missing=()

# need PACKAGE TEST...: PACKAGE is missing unless every TEST succeeds.
need() {
	local pkg=$1
	shift
	for t in "$@"; do
		if ! eval "$t" >/dev/null 2>&1; then
			missing+=("$pkg")
			return
		fi
	done
}

need cmake        "command -v cmake"
need make         "command -v make"
need gcc          "command -v gcc"
need re2c         "command -v re2c"
need python3      "command -v python3"
need zlib1g-dev   "test -e /usr/include/zlib.h"
need llvm-19-dev  "test -e $LLVM/include/llvm-c/Core.h" \
                  "test -e $LLVM/lib/cmake/llvm/LLVMConfig.cmake" \
                  "test -e $LLVM/lib/libLLVM-19.so" \
                  "test -e $LLVM/lib/libLLVMNVPTXCodeGen.a"
need llvm-19-tools "test -x $LLVM/bin/FileCheck" \
                   "test -e $LLVM/build/utils/lit/lit.py" \
                   "test -x $LLVM/bin/not"

[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: missing packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1; then
	sudo=(sudo)
else
	echo "install-deps: not root and no sudo; as root run:"
	echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
