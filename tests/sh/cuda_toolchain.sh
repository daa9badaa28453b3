#!/usr/bin/env bash
# The CUDA toolchain is found the way the build finds it (nvcc on PATH, $CUDA_HOME,
# or /usr/local/cuda) and can compile and link a kernel against CUPTI. No GPU is
# needed: nothing is run. Without nvcc this test reports itself skipped (exit 77).
set -eu
nvcc=$(bash "$(dirname "$0")/../../.ci/find-cuda" nvcc) || { echo "skipped: $nvcc"; exit 77; }
home=$(dirname "$(dirname "$nvcc")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/probe.cu" <<'CU'
#include <cstdio>
#include <cupti.h>
__global__ void add1(int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}
int main() {
  // Links the CUPTI activity API that kernel timing uses; never executed here.
  CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  int *d = nullptr;
  cudaMalloc(&d, 4);
  add1<<<1, 1>>>(d, 1);
  std::printf("%d\n", (int)r);
  return 0;
}
CU
"$nvcc" -o "$tmp/probe" "$tmp/probe.cu" -I"$home/include" -L"$home/lib64" -lcupti
test -x "$tmp/probe"
echo "nvcc $("$nvcc" --version | tail -n 2 | head -n 1) compiled and linked a CUPTI program"
