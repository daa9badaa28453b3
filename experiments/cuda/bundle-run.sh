#!/usr/bin/env bash
# run.sh RESULTDIR — copied into a bundle by experiments/cuda/bundle.sh; runs on the GPU
# machine. Every correctness executable must print what the interpreter printed where
# the bundle was built (stdout and stderr, exit status); then the benchmarks of
# experiments/cuda/bench.sh run from the bundle's prebuilt executables (best of 3 CUPTI
# kernel times, the bandwidth bound, the CUB baseline; where the bundle has them, the
# --float32 builds too, schedule `ilp-f32`, whose bound counts 4-byte floats). Writes RESULTDIR: device.txt,
# correctness.txt, summary.csv, baseline.csv and the profile CSVs.
# A bundle made with ALL=1 also holds src/*.cu: compiled here first, with every core,
# against the runtime the bundle carries (rt/). `run.sh --build-only RESULTDIR` compiles
# them and stops (a check of the bundle on a machine with nvcc and no GPU); without a GPU
# run.sh stops at once with exit 77, saying so.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build_only=
[ "${1:-}" = --build-only ] && build_only=1 && shift
out=${1:?usage: run.sh [--build-only] RESULTDIR}
mkdir -p "$out"
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -z "$build_only" ] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "run.sh: no GPU here (nvidia-smi lists none): nothing run" | tee "$out/device.txt" >&2
  exit 77
fi
if [ -d "$here/src" ]; then
  nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  [ -x "$nvcc" ] || { echo "run.sh: no nvcc (set NVCC) to compile $here/src" >&2; exit 1; }
  home=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
  cupti=()
  [ -d "$home/extras/CUPTI/include" ] && cupti=(-I"$home/extras/CUPTI/include")
  build_one() { # the link line of compiler/codegen/cg_cuda_build.c, the runtime prebuilt
    local n
    n=$(basename "$1" .cu)
    "$nvcc" -O3 -std=c++17 -arch="$(cat "$here/rt/arch")" -I"$here/rt/include" -I"$here/rt/cuda" "${cupti[@]}" \
      "$1" "$here/rt/rt_cuda.o" "$here/rt/rt_cupti.o" -o "$here/exe/$n" "$here/rt/libnessie_rt.a" \
      -L"$here/lib" -lcupti -Xcompiler=-fopenmp -lm -lpthread >"$here/exe/$n.log" 2>&1 ||
      echo "run.sh: building $n failed: $(head -3 "$here/exe/$n.log")" >&2
  }
  export -f build_one
  export nvcc here
  export cupti_flags="${cupti[*]}"
  t0=$(date +%s)
  ls "$here"/src/*.cu | xargs -P"$(nproc)" -I{} bash -c 'cupti=($cupti_flags); build_one "{}"'
  echo "run.sh: compiled $(ls "$here"/src/*.cu | wc -l) sources in $(($(date +%s) - t0)) s on $(nproc) cores" | tee "$out/build.txt"
fi
[ -n "$build_only" ] && exit 0
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv
  cat "$here/built.txt"
} >"$out/device.txt"
cat "$out/device.txt"
ok=0 bad=0
: >"$out/correctness.txt"
for w in "$here"/want/*.rc; do
  name=$(basename "$w" .rc)
  exe=$here/exe/$name
  if [ ! -x "$exe" ]; then
    echo "FAIL $name: not built" >>"$out/correctness.txt"
    bad=$((bad + 1))
    continue
  fi
  mapfile -t args <"$here/want/$name.args"
  got=$(timeout 120 "$exe" "${args[@]}" 2>&1 </dev/null)
  st=$?
  want=$(cat "$here/want/$name.out")
  if [ "$st" = "$(cat "$w")" ] && [ "$got" = "$want" ]; then
    echo "ok $name" >>"$out/correctness.txt"
    ok=$((ok + 1))
  else
    {
      echo "FAIL $name: exit $st (interpreter $(cat "$w"))"
      diff <(echo "$want") <(echo "$got") | head -8
      echo "  its last lines:"
      echo "$got" | tail -n 4 | cut -c1-300
    } >>"$out/correctness.txt"
    bad=$((bad + 1))
  fi
done
echo "$ok executables agree with the interpreter on the GPU, $bad differ" | tee -a "$out/correctness.txt"
grep -v '^ok ' "$out/correctness.txt" | head -40
bash "$here/measure.sh" "$here/exe" "$out"
