#!/usr/bin/env bash
# experiments/cuda/bundle.sh OUTDIR [ARCH] — builds, on a machine with nvcc and no GPU,
# everything a borrowed GPU machine needs to check and time the CUDA back end without
# building Nessie there (no GLPK, CBC or Graphviz needed there): the CUDA executables,
# the answers the interpreters give here, the libraries they load (CUPTI, libgomp), and
# OUTDIR/run.sh, which on the GPU machine runs them all and writes its findings to the
# directory it is given (results/cuda-DATE/ when copied back):
#   - correctness: a sample of tests/lcu programs, unfused and fused (ilp), and of
#     tests/nesl programs compiled whole (ilp-cg), each must print on the GPU what the
#     interpreter prints here (stdout, stderr, exit status), as tests/cuda/run_gpu.sh
#     checks for every program where Nessie itself is built on the GPU machine;
#   - speed: experiments/cuda/bench.sh's programs (dot, Black–Scholes, segmented sum at
#     10^7 and 10^8, unfused and fused) with their CUPTI profiles, and the CUB baseline.
# ARCH: --cuda-arch value (default sm_90: H100/H200). JOBS parallel builds (default 2).
# ALL=1 adds `make test-gpu`'s whole set (tests/cuda/run_gpu.sh: every runnable
# tests/lcu program unfused and fused by ilp, every tests/fusion program fused by ilp on
# random inputs) as generated .cu sources, not executables (hundreds of executables
# would not fit a loan's 64 MiB): the bundle carries the runtime compiled once for ARCH
# (rt/), and run.sh compiles each source there with every core (about 5 s of nvcc a
# program) before it runs it. ONLY=PATTERN keeps the ALL=1 programs whose path holds
# PATTERN. `run.sh --build-only DIR` builds without running (to test a bundle on a
# machine with nvcc and no GPU); run.sh without a GPU stops at once, saying so.
set -u
cd "$(dirname "$0")/../.."
out=${1:?usage: bundle.sh OUTDIR [ARCH]}
arch=${2:-sm_90}
jobs=${JOBS:-2}
nvcc=$(bash .ci/find-cuda nvcc) || { echo "bundle.sh: $nvcc" >&2; exit 77; }
bin=${NESSIE_BIN:-bin}
mkdir -p "$out/exe" "$out/want" "$out/lib"
lcu_sample="dotprod flat_quicksort radix_sort segreduce_basic segscan_float scan_ops permute_into partition_order float_prims runtime_err_permute_collide runtime_err_subscript reduce_float_identities"
nesl_sample="dotprod quicksort nbody spmv_csr primes"
: >"$out/jobs"
for p in $lcu_sample; do
  f=tests/lcu/$p.lcu
  [ -f "$f" ] || continue
  for s in none ilp; do echo "lcu $f $s" >>"$out/jobs"; done
done
for p in $nesl_sample; do
  f=tests/nesl/$p.nesl
  [ -f "$f" ] && echo "nesl $f ilp-cg" >>"$out/jobs"
done
for p in dot blackscholes segsum; do
  for s in none ilp ilp-f32; do echo "bench experiments/cuda/$p.lcu $s" >>"$out/jobs"; done
done
if [ -n "${ALL:-}" ]; then # make test-gpu's set, as sources (tests/cuda/run_gpu.sh)
  mkdir -p "$out/src"
  for f in tests/lcu/*.lcu; do
    case $f in *"${ONLY:-}"*) ;; *) continue ;; esac
    b=${f%.lcu}
    if [ -f "$b.args" ]; then read -r -a a <"$b.args"; else a=(lcu run "{}"); fi
    [ "${a[1]:-}" = run ] || continue
    for s in none ilp; do echo "src $f $s" >>"$out/jobs"; done
  done
  for f in tests/fusion/*.lcu; do
    case $f in *"${ONLY:-}"*) echo "fsrc $f ilp" >>"$out/jobs" ;; esac
  done
fi
one() { # one KIND FILE SCHED: build the executable, write the interpreter's answer
  local kind=$1 f=$2 s=$3 name args b=${2%.*}
  name=$(basename "$b")-$s
  case $kind in
  lcu)
    if [ -f "$b.args" ]; then read -r -a args <"$b.args"; else args=(lcu run "{}"); fi
    args=("${args[@]//\{\}/$f}")
    "$bin/nessie" "${args[@]}" --scheduler="$s" >"$out/want/$name.out" 2>&1 </dev/null
    echo $? >"$out/want/$name.rc"
    printf '%s\n' "${args[@]:3}" >"$out/want/$name.args"
    "$bin/nessie" build "$f" --target=cuda --cuda-arch="$arch" --scheduler="$s" -o "$out/exe/$name" ;;
  nesl)
    "$bin/nessie" run "$f" >"$out/want/$name.out" 2>&1 </dev/null
    echo $? >"$out/want/$name.rc"
    : >"$out/want/$name.args"
    "$bin/nessie" build "$f" --target=cuda --cuda-arch="$arch" --scheduler="$s" -o "$out/exe/$name" ;;
  src | fsrc) # a source for run.sh to compile there; the answer from here
    name=all-$(basename "$(dirname "$f")")-$name
    if [ "$kind" = fsrc ]; then
      args=(lcu run "$f" --random-inputs --seed=1 --max-len=40)
    elif [ -f "$b.args" ]; then
      read -r -a args <"$b.args"
      args=("${args[@]//\{\}/$f}")
    else
      args=(lcu run "$f")
    fi
    "$bin/nessie" "${args[@]}" --scheduler="$s" >"$out/want/$name.out" 2>&1 </dev/null
    echo $? >"$out/want/$name.rc"
    printf '%s\n' "${args[@]:3}" >"$out/want/$name.args"
    "$bin/nessie" emit "$f" --stage=cuda --scheduler="$s" >"$out/src/$name.cu" ;;
  bench) # ilp-f32: the ilp schedule built with --float32
    local f32=()
    [ "$s" = ilp-f32 ] && s=ilp f32=(--float32)
    "$bin/nessie" build "$f" --target=cuda --cuda-arch="$arch" --profile --scheduler="$s" "${f32[@]}" -o "$out/exe/bench-$name" ;;
  esac >"$out/exe/$name.log" 2>&1 || echo "bundle.sh: building $f ($s) failed: $(head -3 "$out/exe/$name.log")" >&2
}
export -f one
export bin out arch
xargs -P"$jobs" -L1 bash -c 'one "$0" "$1" "$2"' <"$out/jobs"
"$nvcc" -O3 -std=c++17 -arch="$arch" experiments/cuda/baseline.cu -o "$out/exe/baseline" || exit 1
if [ -d "$out/src" ]; then # the runtime the sources link against, compiled once for ARCH
  mkdir -p "$out/rt"
  cp -r "$bin/nessie-rt/include" "$bin/nessie-rt/cuda" "$bin/nessie-rt/libnessie_rt.a" "$out/rt/"
  home=$(dirname "$(dirname "$nvcc")")
  cupti=()
  [ -d "$home/extras/CUPTI/include" ] && cupti=(-I"$home/extras/CUPTI/include")
  "$nvcc" -O3 -std=c++17 -arch="$arch" -I"$out/rt/include" -I"$out/rt/cuda" "${cupti[@]}" -Xcompiler=-fopenmp \
    -c "$out/rt/cuda/rt_cuda.cu" -o "$out/rt/rt_cuda.o" || exit 1
  "$nvcc" -O3 -std=c++17 -arch="$arch" -I"$out/rt/include" -I"$out/rt/cuda" "${cupti[@]}" -Xcompiler=-fopenmp \
    -c "$out/rt/cuda/rt_cupti.c" -o "$out/rt/rt_cupti.o" || exit 1
  echo "$arch" >"$out/rt/arch"
fi
cp -L "$(dirname "$(dirname "$nvcc")")"/lib*/libcupti.so.* "$out/lib/" 2>/dev/null ||
  cp -L "$(dirname "$(dirname "$nvcc")")"/extras/CUPTI/lib64/libcupti.so.* "$out/lib/" 2>/dev/null
cp -L "$(gcc -print-file-name=libgomp.so.1)" "$out/lib/" 2>/dev/null
# Host symbols stripped (the device code's sections stay): 1.3 MB an executable becomes
# 0.8, so that the sample fits a loan's 64 MiB with room; carry it as one archive,
# `tar cJf bundle.tar.xz -C OUT .` (executables share most bytes: about 70 kB each).
command -v strip >/dev/null && find "$out/exe" -type f -perm -u+x -exec strip {} + 2>/dev/null
c=$(ls "$out"/lib/libcupti.so.* 2>/dev/null | head -n 1) # what -lcupti finds when run.sh links
[ -n "$c" ] && ln -sf "$(basename "$c")" "$out/lib/libcupti.so"
{
  echo "built $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -n) for $arch"
  "$nvcc" --version | tail -n 2
  git rev-parse --short HEAD
} >"$out/built.txt"
cp experiments/cuda/bundle-run.sh "$out/run.sh"
cp experiments/cuda/measure.sh "$out/measure.sh"
echo "bundle.sh: $(ls "$out/exe" | grep -vc '\.log$') executables$([ -d "$out/src" ] && echo " and $(ls "$out/src" | wc -l) sources") in $out"
