#!/usr/bin/env bash
# experiments/cuda/bench.sh [OUTDIR] — the CUDA back end's speed (a benchmark, not a
# test; needs a GPU and nvcc, exits 77 without). Dot product, Black–Scholes and a
# segmented sum (segments of 1000) at n = 10^7 and 10^8, unfused and fused (ilp),
# built with --target=cuda --profile: the CUPTI kernel time of the measured kernels
# (every kernel but the input generator `gen`), best of 3 runs, against
#   - the memory-bandwidth bound: the bytes the computation must read (dot 16n,
#     Black–Scholes 24n, segmented sum 8n) over the device's peak bandwidth;
#   - the hand-written CUB baseline (baseline.cu, CUDA events, best of 5).
# Writes OUTDIR (default results/cuda-DATE): device.txt (nvidia-smi, nvcc), every
# profile CSV, baseline.csv and summary.csv.
set -u
cd "$(dirname "$0")/../.."
nvcc=$(bash .ci/find-cuda nvcc) || { echo "skipped: $nvcc"; exit 77; }
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no GPU here"; exit 77; }
out=${1:-results/cuda-$(date -u +%Y%m%d)}
mkdir -p "$out"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv
  "$nvcc" --version | tail -n 2
  git rev-parse --short HEAD
} >"$out/device.txt"
b=$out/bin
mkdir -p "$b"
"$nvcc" -O3 -std=c++17 experiments/cuda/baseline.cu -o "$b/baseline" || exit 1
for p in dot blackscholes segsum; do
  for s in none ilp; do
    bin/nessie build experiments/cuda/$p.lcu --target=cuda --profile --scheduler=$s -o "$b/$p-$s" || exit 1
  done
done
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
    for s in none ilp; do
      best=
      for r in 1 2 3; do
        csv=$out/profile-$p-$s-$n-$r.csv
        NESSIE_PROFILE=$csv "$b/$p-$s" "${args[@]}" >"$out/result-$p-$s-$n.txt" || exit 1
        t=$(awk -F, 'NR > 1 && $4 != "(total)" && $5 !~ /gen/ { t += $10 } END { printf "%.9f", t }' "$csv")
        if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then best=$t; fi
      done
      awk -v p=$p -v s=$s -v n=$n -v t=$best -v per=$per -v peak=$peak -v base=$base 'BEGIN {
        bound = per * n / peak
        printf "%s,%s,%d,%.9f,%.9f,%.3f,%s\n", p, s, n, t, bound, bound / t, base }' >>"$out/summary.csv"
    done
  done
done
column -s, -t "$out/summary.csv"
