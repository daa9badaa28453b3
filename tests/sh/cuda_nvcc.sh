#!/usr/bin/env bash
# The CUDA back end with nvcc (skipped, exit 77, without it): `nessie build
# --target=cuda` compiles and links against CUPTI, warning-free (host -Wall -Wextra
# -Werror, nvcc --Werror=all-warnings), every tests/fusion program fused (ilp), a
# fixed sample of tests/lcu unfused and fused and two nessie-gen regions, two
# builds at a time (about 10 s of nvcc each). Where a GPU is present each binary is
# also run and must print what the interpreter prints (tests/cuda/run_gpu.sh, `make
# test-gpu`, does every program there); without one, one binary is run to check the
# clear no-GPU error and exit 1. The sanitizer build skips this test (its runtime
# would need the sanitizers linked into every CUDA program; the plain build's run
# covers it).
. "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."
case "$bin" in *asan*) echo "skipped in the sanitizer build: the plain build's run does it"; exit 77 ;; esac
nvcc=$(bash .ci/find-cuda nvcc) || { echo "skipped: $nvcc"; exit 77; }
export NESSIE_NVCC=$nvcc NESSIE_NVCCFLAGS="-O3 -Xcompiler=-Wall,-Wextra,-Werror --Werror=all-warnings"
sample=(dotprod check_ok_all_soacs flat_quicksort segdes_prims)
: >"$tmp/builds"
# Every tests/fusion program with CUDA_NVCC_ALL=1 (about 5 minutes of nvcc CPU time);
# by default a fixed third of them, so that `make test` stays short.
k=0
for f in tests/fusion/*.lcu; do
  [ -n "${CUDA_NVCC_ALL:-}" ] || [ $((k++ % 3)) = 0 ] && echo "$f ilp"
done >>"$tmp/builds"
for p in "${sample[@]}"; do echo "tests/lcu/$p.lcu none"; echo "tests/lcu/$p.lcu ilp"; done >>"$tmp/builds"
"$bin/nessie-gen" family=random,kernels=12,seed=5,mix=map:3,reduce:2,scan:1,filter:1,permute:1 >"$tmp/gen1.lcu"
"$bin/nessie-gen" family=chain,kernels=6,seed=2 >"$tmp/gen2.lcu"
echo "$tmp/gen1.lcu ilp" >>"$tmp/builds"
echo "$tmp/gen2.lcu none" >>"$tmp/builds"
build() { nvcc_build "$tmp/nv/$(basename "$1" .lcu)-$2" "$1" "$2"; } # build FILE SCHED -> $tmp/nv/NAME-SCHED
export -f build nvcc_build
export bin tmp
mkdir -p "$tmp/nv"
xargs -P2 -L1 bash -c 'build "$0" "$1"' <"$tmp/builds" >"$tmp/nv.log" 2>&1
grep -q FAIL "$tmp/nv.log" && { head -80 "$tmp/nv.log"; fail=1; }
n2=$(wc -l <"$tmp/builds")
echo "$n2 programs built by nvcc with CUPTI, warning-free"

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
