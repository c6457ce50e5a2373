#!/bin/sh
# Builds and runs gpu_check.cu (GPU transcription vs C model, CUDA sinf/cosf accuracy, throughput).
set -e
cd "$(dirname "$0")"
B=${BUILD:-/tmp/sin_cos_build}; mkdir -p $B
gcc -O2 -c -Dmain=model_main_a model.c -o $B/model_a.o
gcc -O2 -c -DVARIANT_B -Dmain=model_main_b -Dsinf_model=sinf_model_b -Dcosf_model=cosf_model_b model.c -o $B/model_b.o
nvcc -O2 -arch=sm_90 -fmad=false gpu_check.cu $B/model_a.o $B/model_b.o -o $B/gpu_check -lpthread
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2
$B/gpu_check "$@"
