#!/usr/bin/env bash
# The --float32 experiment switch of the CUDA back end (compiler/codegen/README.md,
# "The --float32 experiment"), with nvcc (skipped, exit 77, without it, and in the
# sanitizer build, as tests/sh/cuda_nvcc.sh): `nessie build --target=cuda --float32`
# compiles and links warning-free (host -Wall -Wextra -Werror, nvcc
# --Werror=all-warnings) a sample of float programs — reductions with float max/min
# and their identities, float-to-int conversions that fault on the device, segmented
# scans, elementwise math — fused and unfused, and a NESL benchmark; the .cu has no
# `double` outside the boundary (the entry's result cells, the header comment), so
# device arrays, thunks and the CUB operators' value types are float. Without a GPU
# the binaries are not run (tests/sh/float32.sh runs the C side).
. "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."
case "$bin" in *asan*) echo "skipped in the sanitizer build: the plain build's run does it"; exit 77 ;; esac
nvcc=$(bash .ci/find-cuda nvcc) || { echo "skipped: $nvcc"; exit 77; }
export NESSIE_NVCC=$nvcc NESSIE_NVCCFLAGS="-O3 -Xcompiler=-Wall,-Wextra,-Werror --Werror=all-warnings"
{
  for p in reduce_float_identities interp_float_to_int segscan_float float_prims; do echo "tests/lcu/$p.lcu ilp"; done
  for p in check_ok_all_soacs vcode_elementwise; do echo "tests/lcu/$p.lcu none"; done
  echo "tests/programs/blackscholes.nesl greedy-down"
} >"$tmp/builds"
build() { # build FILE SCHED -> $tmp/nv/NAME-SCHED (and its .cu)
  local out=$tmp/nv/$(basename "${1%.*}")-$2 n
  nvcc_build "$out" "$1" "$2" --float32 || return 1
  n=$(grep -w double "$out.cu" | grep -Ecv '^  r\[[0-9]+\]\.f = \(double\)r[0-9]+;$|widened to double for printing')
  [ "$n" = 0 ] || { echo "FAIL $1 ($2): 'double' in the --float32 .cu: $(grep -w double "$out.cu" | head -3)"; return 1; }
  grep -qw float "$out.cu" || { echo "FAIL $1 ($2): no float in the --float32 .cu"; return 1; }
  return 0
}
export -f build nvcc_build
export bin tmp
mkdir -p "$tmp/nv"
xargs -P2 -L1 bash -c 'build "$0" "$1"' <"$tmp/builds" >"$tmp/nv.log" 2>&1
grep -q FAIL "$tmp/nv.log" && { head -80 "$tmp/nv.log"; fail=1; }
echo "$(wc -l <"$tmp/builds") --float32 programs built by nvcc, warning-free, with no double outside the boundary"
exit $fail
