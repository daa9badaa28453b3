#!/usr/bin/env bash
# The experiment pipeline end to end at its smallest size: nessie-bench over
# generated regions, the derived CSVs with their documented columns, and the
# gnuplot plots (SVG and PNG). Checks the pipeline, never timings.
set -eu
bin=${NESSIE_BIN:-bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash experiments/sweep.sh --size=tiny --jobs=2 --out="$tmp" --bin="$bin" 2>"$tmp/log" || { cat "$tmp/log"; exit 1; }
head -n 1 "$tmp/solver-time.csv" | grep -qx 'kernels,chain,seed,strategy,status,solve_seconds,build_seconds,variables,constraints,nodes' \
  || { echo "solver-time.csv header changed"; head -n 1 "$tmp/solver-time.csv"; exit 1; }
head -n 1 "$tmp/fusion-quality.csv" | grep -qx 'kernels,chain,seed,strategy,kernels_after,arrays_after,objective,ilp,ilp_status,ilp_kernels,ilp_arrays,ilp_objective,objective_ratio' \
  || { echo "fusion-quality.csv header changed"; exit 1; }
# tiny: 2 sizes x 2 chains x 1 seed = 4 regions, 6 strategies each
rows=$(($(wc -l <"$tmp/solver-time.csv") - 1))
[ "$rows" = 24 ] || { echo "solver-time.csv has $rows rows, expected 24"; cat "$tmp/solver-time.csv"; exit 1; }
for s in ilp-glpk ilp-cbc ilp-lazy-glpk ilp-lazy-cbc greedy-down greedy-up; do
  [ "$(grep -c ",$s," "$tmp/solver-time.csv")" = 4 ] || { echo "strategy $s missing rows"; exit 1; }
done
q=$(($(wc -l <"$tmp/fusion-quality.csv") - 1))
[ "$q" = 8 ] || { echo "fusion-quality.csv has $q rows, expected 8"; exit 1; }
# a greedy schedule can never beat a proven-optimal ILP one under the same cost model
awk -F, 'NR > 1 && $9 == "optimal" && $13 + 0 < 0.9999 { print "greedy beat an optimal ILP:", $0; bad = 1 } END { exit bad }' "$tmp/fusion-quality.csv"
for f in solver-time fusion-quality; do
  grep -q '<svg' "$tmp/$f.svg" || { echo "$f.svg is not an SVG"; exit 1; }
  [ "$(head -c 4 "$tmp/$f.png" | od -An -c | tr -d ' ')" = '211PNG' ] || { echo "$f.png is not a PNG"; exit 1; }
done
echo "sweep pipeline ok"
