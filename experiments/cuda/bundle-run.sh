#!/usr/bin/env bash
# run.sh RESULTDIR — copied into a bundle by experiments/cuda/bundle.sh; runs on the GPU
# machine. Every correctness executable must print what the interpreter printed where
# the bundle was built (stdout and stderr, exit status); then the benchmarks of
# experiments/cuda/bench.sh run from the bundle's prebuilt executables (best of 3 CUPTI
# kernel times, the bandwidth bound, the CUB baseline; where the bundle has them, the
# --float32 builds too, schedule `ilp-f32`, whose bound counts 4-byte floats). Writes RESULTDIR: device.txt,
# correctness.txt, summary.csv, baseline.csv and the profile CSVs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh RESULTDIR}
mkdir -p "$out"
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
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
