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
b=$here/exe
echo "program,schedule,n,kernel_seconds,bound_seconds,fraction_of_bound,baseline_seconds" >"$out/summary.csv"
: >"$out/baseline.csv"
for n in 10000000 100000000; do
  "$b/baseline" $n 1000 | tee -a "$out/baseline.csv"
  peak=$(awk -F, '$1 == "device" { print $4 }' "$out/baseline.csv" | tail -n 1)
  for p in dot blackscholes segsum; do
    case $p in dot) per=16 ;; blackscholes) per=24 ;; segsum) per=8 ;; esac
    args=($n)
    [ $p = segsum ] && args=($n 1000)
    base=$(awk -F, -v p=$p -v n=$n '$1 == p && $2 == n { print $3 }' "$out/baseline.csv" | tail -n 1)
    for s in none ilp ilp-f32; do
      [ -x "$b/bench-$p-$s" ] || continue
      per_s=$per
      [ $s = ilp-f32 ] && per_s=$((per / 2)) # --float32: 4-byte floats
      best=
      for r in 1 2 3; do
        csv=$out/profile-$p-$s-$n-$r.csv
        NESSIE_PROFILE=$csv "$b/bench-$p-$s" "${args[@]}" >"$out/result-$p-$s-$n.txt" 2>&1 || { echo "bench-$p-$s failed: $(head -3 "$out/result-$p-$s-$n.txt")"; continue; }
        t=$(awk -F, 'NR > 1 && $4 != "(total)" && $5 !~ /gen/ { t += $10 } END { printf "%.9f", t }' "$csv")
        if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then best=$t; fi
      done
      [ -n "$best" ] || continue
      awk -v p=$p -v s=$s -v n=$n -v t=$best -v per=$per_s -v peak=$peak -v base=$base 'BEGIN {
        bound = per * n / peak
        printf "%s,%s,%d,%.9f,%.9f,%.3f,%s\n", p, s, n, t, bound, (t > 0 ? bound / t : 0), base }' >>"$out/summary.csv"
    done
  done
done
column -s, -t "$out/summary.csv"
