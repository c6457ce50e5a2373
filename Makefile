# tilec: front door to the CMake build.
#   make / make build   install missing tools, configure and build build/
#   make test           sanitizer suite (build-asan/), then the normal suite (build/)
#   make demo           build, then scripts/demo.sh
#   make device-bundle  build-bundle/bundle/: libtilec.so (static LLVM), tilec, GPU programs
#   make clean
# CI=1 in the environment turns warnings into errors (TILEC_WERROR).
JOBS ?= 2
BUILD_TYPE ?= Release
ifneq ($(CI),)
WERROR := -DTILEC_WERROR=ON
else
WERROR := -DTILEC_WERROR=OFF
endif
CMAKE_FLAGS := $(WERROR)
BUNDLE_MAX_BYTES := 67108864

.PHONY: all build deps test test-asan test-normal demo device-bundle clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	cmake -S . -B build $(CMAKE_FLAGS) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build build -j$(JOBS)

# Both suites always run; the normal one last, so the output ends with its
# ctest summary.  Either failing makes `make test` fail.
test: deps
	@status=0; \
	$(MAKE) --no-print-directory test-asan || { status=1; \
		echo "make test: the sanitizer suite (build-asan/) FAILED; the normal suite follows"; }; \
	$(MAKE) --no-print-directory test-normal || status=1; \
	exit $$status

test-asan:
	cmake -S . -B build-asan $(CMAKE_FLAGS) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILEC_SANITIZE=ON
	cmake --build build-asan -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --test-dir build-asan --output-on-failure --no-label-summary -j$(JOBS)

test-normal:
	cmake -S . -B build $(CMAKE_FLAGS) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build build -j$(JOBS)
	ctest --test-dir build --output-on-failure --no-label-summary -j$(JOBS)

demo: build
	@if [ -x scripts/demo.sh ]; then scripts/demo.sh; \
	elif [ -f scripts/demo.sh ]; then bash scripts/demo.sh; \
	else echo "make demo: scripts/demo.sh does not exist yet"; exit 1; fi

device-bundle: deps
	cmake -S . -B build-bundle $(CMAKE_FLAGS) -DCMAKE_BUILD_TYPE=Release -DTILEC_BUNDLE=ON
	cmake --build build-bundle -j$(JOBS)
	@size=$$(du -cb build-bundle/bundle/* | tail -1 | cut -f1); \
	if [ $$size -ge $(BUNDLE_MAX_BYTES) ]; then \
		echo "device-bundle: $$size bytes, over the 64 MiB limit"; exit 1; fi; \
	if ldd build-bundle/bundle/libtilec.so build-bundle/bundle/tilec | grep -i 'libLLVM'; then \
		echo "device-bundle: links libLLVM dynamically"; exit 1; fi; \
	echo "device-bundle: build-bundle/bundle/ ($$size bytes):"; ls -l build-bundle/bundle/

clean:
	rm -rf build build-asan build-bundle
