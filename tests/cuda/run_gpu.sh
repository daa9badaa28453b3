#!/usr/bin/env bash
# tests/cuda/run_gpu.sh [BINDIR] — `make test-gpu`: the CUDA back end on a machine
# with a GPU (not part of `make test`; exits 77 without nvcc or a GPU). Every
# runnable program of tests/lcu/ (runtime faults, their messages and exit
# statuses included), unfused and fused (ilp), and every program of
# tests/fusion/ fused (ilp) on random inputs, built with --target=cuda and run on
# the GPU, must print exactly what the interpreter prints for the same schedule.
# Also runs tests/sh/cuda_runtime.sh (CUPTI attribution and the SOAC templates
# against host loops). Builds two at a time; expect about 10 s of nvcc per
# program (some 900 builds: over an hour on 2 cores, much less on more).
# JOBS=N sets the parallel builds.
set -u
cd "$(dirname "$0")/../.."
bin=${1:-bin}
jobs=${JOBS:-2}
nvcc=$(bash .ci/find-cuda nvcc) || { echo "skipped: $nvcc"; exit 77; }
export NESSIE_NVCC=$nvcc NESSIE_NVCCFLAGS="-O3 -Xcompiler=-Wall,-Wextra,-Werror --Werror=all-warnings"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no GPU here (nvidia-smi lists none)"
  exit 77
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
bash tests/sh/cuda_runtime.sh || echo "FAIL tests/sh/cuda_runtime.sh"

: >"$tmp/jobs"
for f in tests/lcu/*.lcu; do
  b=${f%.lcu}
  if [ -f "$b.args" ]; then read -r -a a <"$b.args"; else a=(lcu run "{}"); fi
  [ "${a[1]:-}" = run ] || continue
  for s in none ilp; do echo "$f $s"; done >>"$tmp/jobs"
done
for f in tests/fusion/*.lcu; do echo "$f ilp" >>"$tmp/jobs"; done

one() { # one FILE SCHED: build, run, compare; prints FAIL lines
  local f=$1 s=$2 b=${1%.lcu} exe want got wst st
  exe=$tmp/$(basename "$f" .lcu)-$s
  if ! "$bin/nessie" build "$f" --target=cuda --scheduler="$s" -o "$exe" >"$exe.log" 2>&1 || [ -s "$exe.log" ]; then
    echo "FAIL $f ($s): build: $(head -5 "$exe.log")"
    return
  fi
  local args
  case "$f" in
  tests/fusion/*) args=(--random-inputs --seed=1 --max-len=40)
    want=$("$bin/nessie" lcu run "$f" "${args[@]}" --scheduler="$s" 2>&1); wst=$? ;;
  *)
    if [ -f "$b.args" ]; then read -r -a args <"$b.args"; else args=(lcu run "{}"); fi
    args=("${args[@]//\{\}/$f}")
    want=$("$bin/nessie" "${args[@]}" --scheduler="$s" 2>&1 </dev/null); wst=$?
    args=("${args[@]:3}") ;;
  esac
  got=$("$exe" "${args[@]}" 2>&1 </dev/null); st=$?
  if [ "$st" != "$wst" ] || [ "$got" != "$want" ]; then
    echo "FAIL $f ($s): exit $st (interpreter $wst)"
    diff <(echo "$want") <(echo "$got") | head -6
  else
    echo "ok $f ($s)"
  fi
  rm -f "$exe"
}
export -f one
export bin tmp
xargs -P"$jobs" -L1 bash -c 'one "$0" "$1"' <"$tmp/jobs" | tee "$tmp/log" | grep -v '^ok '
n=$(grep -c '^ok ' "$tmp/log")
f=$(grep -c '^FAIL ' "$tmp/log")
echo "$n programs agree with the interpreter on the GPU, $f fail"
[ "$f" = 0 ]
