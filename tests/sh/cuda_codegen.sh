#!/usr/bin/env bash
# The CUDA back end's generated code (compiler/codegen/cg_cuda.c), without nvcc
# (tests/sh/cuda_nvcc.sh compiles it with nvcc):
#  0. Without nvcc `nessie build --target=cuda` writes the .cu, says it could not
#     compile it and exits 0; an unknown target is a usage error.
#  1. Every program of tests/lcu/ that checks, unfused and fused (ilp), every
#     program of tests/fusion/ fused (ilp) and nessie-gen regions: `nessie emit
#     --stage=cuda` succeeds and the host C++ compiler accepts the file warning-free
#     (-Wall -Wextra -Werror) against tests/cuda/rt_cu_prog.cuh, a stand-in for the
#     CUDA runtime header that calls every functor (fast: thunk bodies, functor
#     members and their initialisers type-check). The sanitizer build does every
#     fourth program (its emission is what is being checked there).
# Without g++: part 0 only, then exit 77 (skipped) unless it failed.
. "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."
every=1
case "$bin" in *asan*) every=12 ;; esac

# ------------------------------------------------------------------ part 0
# without nvcc: the .cu is written, the build says it could not compile it, exit 0
NESSIE_NVCC=/nonexistent/nvcc "$bin/nessie" build tests/lcu/dotprod.lcu --target=cuda -o "$tmp/nonv" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] || bad "build without nvcc: exit $rc"
grep -q "^nessie: wrote $tmp/nonv.cu but could not compile it: no CUDA toolkit" "$tmp/out" ||
  bad "build without nvcc: message: $(cat "$tmp/out")"
grep -q 'rt_cu_kernel_begin' "$tmp/nonv.cu" 2>/dev/null || bad "build without nvcc: no .cu written"
[ -e "$tmp/nonv" ] && bad "build without nvcc: a binary appeared"
"$bin/nessie" build tests/lcu/dotprod.lcu --target=opencl >/dev/null 2>&1
[ $? = 2 ] || bad "an unknown target is not a usage error (exit 2)"

# ------------------------------------------------------------------ part 1
progs=()
for f in tests/lcu/*.lcu; do "$bin/nessie" lcu check "$f" >/dev/null 2>&1 && progs+=("$f"); done
syntax() { # syntax FILE.cu LABEL
  if ! g++ -x c++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-unused-parameter \
    -Itests/cuda -Iruntime/host "$1" >"$1.err" 2>&1; then
    echo "FAIL $2: the generated .cu does not type-check:"
    head -8 "$1.err"
    return 1
  fi
}
export -f syntax
if command -v g++ >/dev/null; then
  mkdir -p "$tmp/syn"
  k=0
  : >"$tmp/list"
  for f in "${progs[@]}" tests/fusion/*.lcu; do
    k=$((k + 1))
    [ $((k % every)) = 0 ] || continue
    for s in none ilp; do
      case "$f" in tests/fusion/*) [ $s = none ] && continue ;; esac
      out=$tmp/syn/$(basename "$f" .lcu)-$s.cu
      if ! "$bin/nessie" emit "$f" --stage=cuda --scheduler=$s >"$out" 2>"$tmp/err"; then
        bad "$f ($s): emit --stage=cuda failed: $(head -3 "$tmp/err")"
        continue
      fi
      echo "$out $f($s)" >>"$tmp/list"
    done
  done
  for spec in family=random,kernels=30,seed=3 family=diamond,kernels=12,seed=1; do
    out=$tmp/syn/gen-${spec//[=,]/_}.cu
    "$bin/nessie-gen" "$spec" >"$tmp/gen.lcu" && "$bin/nessie" emit "$tmp/gen.lcu" --stage=cuda --scheduler=ilp >"$out" ||
      bad "nessie-gen $spec: emit failed"
    echo "$out gen:$spec" >>"$tmp/list"
  done
  n1=$(wc -l <"$tmp/list")
  xargs -P2 -L1 bash -c 'syntax "$0" "$1"' <"$tmp/list" >"$tmp/syn.log" 2>&1 || fail=1
  grep -q FAIL "$tmp/syn.log" && { cat "$tmp/syn.log" | head -60; fail=1; }
  echo "part 1: $n1 generated .cu files type-check with g++ against the runtime stand-in"
else
  echo "skipped: no g++ to type-check the generated .cu (part 0 ran: $([ $fail = 0 ] && echo passed || echo failed))"
  [ $fail = 0 ] && exit 77
fi

exit $fail
