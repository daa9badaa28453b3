#!/usr/bin/env bash
# The CUDA back end's generated code (compiler/codegen/cg_cuda.c), on a machine
# with or without a GPU. Two checks:
#  1. Every program of tests/lcu/ that checks, unfused and fused (ilp), every
#     program of tests/fusion/ fused (ilp) and nessie-gen regions: `nessie emit
#     --stage=cuda` succeeds and the host C++ compiler accepts the file warning-free
#     (-Wall -Wextra -Werror) against tests/cuda/rt_cu_prog.cuh, a stand-in for the
#     CUDA runtime header that calls every functor (fast: thunk bodies, functor
#     members and their initialisers type-check). The sanitizer build does every
#     fourth program (its emission is what is being checked there).
#  2. With nvcc (plain build only): `nessie build --target=cuda` compiles and links
#     against CUPTI, warning-free (host -Wall -Wextra -Werror, nvcc
#     --Werror=all-warnings), every tests/fusion program fused (ilp), a fixed sample
#     of tests/lcu unfused and fused and two nessie-gen regions, two builds at a
#     time. Where a GPU is present each binary is also run and must print what the
#     interpreter prints (tests/cuda/run_gpu.sh does the complete set there).
#     Without a GPU one binary is run to check the clear no-GPU error and exit 1.
# Without g++ part 1 is skipped, without nvcc part 2 (each says so); both
# skipped: exit 77.
. "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."
ran=0
every=1
case "$bin" in *asan*) every=4 ;; esac

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
  ran=1
else
  echo "part 1 skipped: no g++"
fi

# ------------------------------------------------------------------ part 2
case "$bin" in *asan*)
  echo "part 2 (nvcc) skipped in the sanitizer build: the plain build's run does it"
  [ $ran = 1 ] && exit $fail || exit 77 ;;
esac
nvcc=$(bash .ci/find-cuda nvcc) || {
  echo "part 2 skipped: $nvcc"
  [ $ran = 1 ] && exit $fail || exit 77
}
export NESSIE_NVCC=$nvcc NESSIE_NVCCFLAGS="-O3 -Xcompiler=-Wall,-Wextra,-Werror --Werror=all-warnings"
sample=(dotprod check_ok_all_soacs flat_quicksort segdes_prims)
: >"$tmp/builds"
for f in tests/fusion/*.lcu; do echo "$f ilp"; done >>"$tmp/builds"
for p in "${sample[@]}"; do echo "tests/lcu/$p.lcu none"; echo "tests/lcu/$p.lcu ilp"; done >>"$tmp/builds"
"$bin/nessie-gen" family=random,kernels=12,seed=5,mix=map:3,reduce:2,scan:1,filter:1,permute:1 >"$tmp/gen1.lcu"
"$bin/nessie-gen" family=chain,kernels=6,seed=2 >"$tmp/gen2.lcu"
echo "$tmp/gen1.lcu ilp" >>"$tmp/builds"
echo "$tmp/gen2.lcu none" >>"$tmp/builds"
build() { # build FILE SCHED -> $tmp/nv/NAME-SCHED
  local out=$tmp/nv/$(basename "$1" .lcu)-$2
  if ! "$bin/nessie" build "$1" --target=cuda --scheduler="$2" -o "$out" >"$out.log" 2>&1; then
    echo "FAIL $1 ($2): nvcc build failed:"; head -12 "$out.log"; return 1
  fi
  [ -s "$out.log" ] && { echo "FAIL $1 ($2): warnings or output while building:"; head -12 "$out.log"; return 1; }
  [ -x "$out" ] || { echo "FAIL $1 ($2): no binary"; return 1; }
  return 0
}
export -f build
export bin tmp
mkdir -p "$tmp/nv"
xargs -P2 -L1 bash -c 'build "$0" "$1"' <"$tmp/builds" >"$tmp/nv.log" 2>&1
grep -q FAIL "$tmp/nv.log" && { head -80 "$tmp/nv.log"; fail=1; }
n2=$(wc -l <"$tmp/builds")
echo "part 2: $n2 programs built by nvcc with CUPTI, warning-free"

# run: on a GPU compare with the interpreter; without one the clear error
"$tmp/nv/dotprod-none" '[1.0, 2.0]' '[3.0, 4.0]' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && grep -q '^error: no CUDA-capable GPU is available' "$tmp/err"; then
  echo "no GPU here: the binaries were not run (checked: the clear no-GPU error, exit 1)"
elif [ $rc = 0 ]; then
  while read -r f s; do
    exe=$tmp/nv/$(basename "$f" .lcu)-$s
    if case "$f" in tests/lcu/*) lcu_run_args "$f" ;; *) false ;; esac then
      want=$("$bin/nessie" "${args[@]}" --scheduler="$s" 2>&1)
      got=$("$exe" "${args[@]:3}" 2>&1)
    else
      want=$("$bin/nessie" lcu run "$f" --random-inputs --seed=1 --max-len=40 --scheduler="$s" 2>&1)
      got=$("$exe" --random-inputs --seed=1 --max-len=40 2>&1)
    fi
    [ "$got" = "$want" ] || bad "$f ($s) on the GPU: '$got', the interpreter '$want'"
  done <"$tmp/builds"
  echo "GPU: the $n2 binaries ran and were compared with the interpreter"
else
  bad "dotprod: exit $rc: $(cat "$tmp/err")"
fi
exit $fail
