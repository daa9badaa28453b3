#!/usr/bin/env bash
# The CUDA runtime (runtime/cuda) and its CUPTI profile, built with nvcc into the
# smoke program tests/cuda/cupti_smoke.cu and run. On a machine with a GPU the
# profile must attribute the kernel and the memset to their bracket and the memcpy
# to no bracket; on a machine without one the program must say so and exit 1 (that
# is what this test checks there, and it says which of the two it checked).
# tests/cuda/soac_test.cu (the SOAC templates against host loops) is built too, and
# run where there is a GPU. Without nvcc: skipped (exit 77).
set -u
nvcc=$(bash "$(dirname "$0")/../../.ci/find-cuda" nvcc) || { echo "skipped: $nvcc"; exit 77; }
. "$(dirname "$0")/common.bash"
home=$(dirname "$(dirname "$nvcc")")
cupti=()
[ -d "$home/extras/CUPTI/include" ] && cupti=(-I"$home/extras/CUPTI/include" -L"$home/extras/CUPTI/lib64")
if ! "$nvcc" -O2 -Iruntime/cuda "${cupti[@]}" -Xcompiler -Wall,-Wextra,-Werror \
  tests/cuda/cupti_smoke.cu runtime/cuda/rt_cuda.cu runtime/cuda/rt_cupti.c -lcupti \
  -o "$tmp/smoke" 2>"$tmp/cc.err"; then
  bad "runtime/cuda did not build with nvcc:"; cat "$tmp/cc.err"; exit 1
fi
[ -s "$tmp/cc.err" ] && { bad "nvcc warned:"; cat "$tmp/cc.err"; }
if ! "$nvcc" -O2 -std=c++17 -Iruntime/cuda "${cupti[@]}" -Xcompiler -Wall,-Wextra,-Werror \
  tests/cuda/soac_test.cu runtime/cuda/rt_cuda.cu runtime/cuda/rt_cupti.c -lcupti \
  -o "$tmp/soac" 2>"$tmp/cc.err"; then
  bad "tests/cuda/soac_test.cu did not build with nvcc:"; cat "$tmp/cc.err"; exit 1
fi
"$tmp/smoke" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && grep -q '^error: no CUDA-capable GPU is available (.*); this program was built with --target=cuda' "$tmp/err"; then
  [ -s "$tmp/out" ] && bad "output before the no-GPU error: $(cat "$tmp/out")"
  echo "no GPU here: checked the clear error and exit 1 (the profile itself is checked only on a GPU)"
elif [ $rc = 0 ]; then
  grep -q '^bracket: kernels 1 memsets 1 memset_bytes 4194304 memcpys 0 time>0 1$' "$tmp/out" ||
    bad "bracket totals wrong: $(cat "$tmp/out")"
  grep -q '^outside: kernels 0 memcpys 1 memcpy_bytes 4$' "$tmp/out" || bad "outside totals wrong: $(cat "$tmp/out")"
  grep -q '^value 0, peak 8388608$' "$tmp/out" || bad "value or peak wrong: $(cat "$tmp/out")"
  echo "GPU $(sed -n 's/^device //p' "$tmp/out"): CUPTI attributed kernel, memset and memcpy correctly"
  "$tmp/soac" >"$tmp/soac.out" 2>&1 || bad "SOAC templates on the GPU: $(grep -v '^ok' "$tmp/soac.out")"
  echo "SOAC templates: $(grep -c '^ok' "$tmp/soac.out") checks passed on the GPU"
else
  bad "exit $rc: $(cat "$tmp/err")"
fi
exit $fail
