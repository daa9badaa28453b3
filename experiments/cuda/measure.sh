#!/usr/bin/env bash
# experiments/cuda/measure.sh BINDIR OUTDIR — the timing loop shared by bench.sh (which
# builds BINDIR on the GPU machine) and a bundle's run.sh (bundle.sh built it elsewhere).
# BINDIR holds `baseline` (baseline.cu) and `bench-PROG-SCHED` for PROG in dot,
# blackscholes, segsum and SCHED in none, ilp and (optional) ilp-f32, built with
# --profile. For n = 10^7 and 10^8: the CUB baseline's times (baseline.csv), and per
# program and schedule the CUPTI kernel time of the measured kernels (every kernel but
# the input generator `gen`), best of 3, against the bandwidth bound (bytes that must be
# read over the device's peak: dot 16n, Black–Scholes 24n, segmented sum 8n; half for
# ilp-f32's 4-byte floats) in OUTDIR/summary.csv, with every profile CSV beside it.
set -u
b=${1:?usage: measure.sh BINDIR OUTDIR}
out=${2:?usage: measure.sh BINDIR OUTDIR}
mkdir -p "$out"
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
      [ $s = ilp-f32 ] && per_s=$((per / 2))
      best=
      for r in 1 2 3; do
        csv=$out/profile-$p-$s-$n-$r.csv
        NESSIE_PROFILE=$csv "$b/bench-$p-$s" "${args[@]}" >"$out/result-$p-$s-$n.txt" 2>&1 ||
          { echo "bench-$p-$s failed: $(head -3 "$out/result-$p-$s-$n.txt")"; continue; }
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
if command -v column >/dev/null; then column -s, -t "$out/summary.csv"; else cat "$out/summary.csv"; fi
