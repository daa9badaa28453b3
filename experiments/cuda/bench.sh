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
    bin/nessie build experiments/cuda/$p.lcu --target=cuda --profile --scheduler=$s -o "$b/bench-$p-$s" || exit 1
  done
done
bash experiments/cuda/measure.sh "$b" "$out"
