#!/usr/bin/env bash
# experiments/sweep.sh — the solver-performance and fusion-quality experiments
# (paper §10, Figure 7): generate synthetic regions over a grid of sizes and chain
# lengths, schedule each with greedy-down, greedy-up, the reference ILP (`ilp`) and
# its lazy-cut variant (`ilp-lazy`, fusion/ILP.md), both with GLPK and with CBC, and
# write the CSVs and gnuplot plots under OUT (default results/).
#
#   experiments/sweep.sh [--size=tiny|small|default|large] [--jobs=N] [--out=DIR]
#                        [--time-limit=SEC] [--bin=DIR]
#
# tiny runs in seconds (tests use it: schema and plots, not timings); default
# finishes in about 15 minutes on two cores; large extends the grid.
set -euo pipefail
cd "$(dirname "$0")/.."
size=default jobs=2 out=results limit="" bin=bin
for a in "$@"; do
  case "$a" in
    --size=*) size=${a#*=} ;;
    --jobs=*) jobs=${a#*=} ;;
    --out=*) out=${a#*=} ;;
    --time-limit=*) limit=${a#*=} ;;
    --bin=*) bin=${a#*=} ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "sweep.sh: unknown argument '$a' (--help)" >&2; exit 2 ;;
  esac
done
# kernels: sizes for every strategy; big: sizes too large for the reference ILP
# (it only reaches its time limit there), run with greedy and ilp-lazy only.
case "$size" in
  tiny)    kernels="4 6";                    big="";          chains="2 4";   seeds="1";     tl=2 ;;
  small)   kernels="5 10 15";                big="30";        chains="2 4";   seeds="1 2";   tl=5 ;;
  default) kernels="5 10 15 20 25 30 40";    big="60 80 100"; chains="2 4 8"; seeds="1 2";   tl=10 ;;
  large)   kernels="5 10 15 20 25 30 40 50"; big="60 80 100 150 200 300"; chains="2 4 8"; seeds="1 2 3"; tl=30 ;;
  *) echo "sweep.sh: --size must be tiny, small, default or large" >&2; exit 2 ;;
esac
[ -n "$limit" ] && tl=$limit
[ -x "$bin/nessie-bench" ] || { echo "sweep.sh: no $bin/nessie-bench (run make)" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "sweep.sh: gnuplot is not installed (make deps)" >&2; exit 1; }
mkdir -p "$out"
specs_for() {
  local out=() k c s
  for k in $1; do
    for c in $chains; do
      [ "$c" -le "$k" ] || continue
      for s in $seeds; do out+=("gen:kernels=$k,chain=$c,seed=$s"); done
    done
  done
  echo "${out[@]}"
}
read -r -a specs <<<"$(specs_for "$kernels")"
read -r -a bigspecs <<<"$(specs_for "$big")"
echo "sweep ($size): ${#specs[@]} regions x (greedy-down, greedy-up, ilp, ilp-lazy; GLPK and CBC)" \
  "+ ${#bigspecs[@]} larger regions x (greedy-down, greedy-up, ilp-lazy), time limit ${tl}s, $jobs jobs" >&2
start=$(date +%s)
"$bin/nessie-bench" --format=csv --scheduler=greedy-down,greedy-up,ilp,ilp-lazy --solver=glpk,cbc \
  --time-limit="$tl" --jobs="$jobs" "${specs[@]}" >"$out/bench.csv"
if [ ${#bigspecs[@]} -gt 0 ]; then
  "$bin/nessie-bench" --format=csv --no-header --scheduler=greedy-down,greedy-up,ilp-lazy --solver=glpk,cbc \
    --time-limit="$tl" --jobs="$jobs" "${bigspecs[@]}" >>"$out/bench.csv"
fi
end=$(date +%s)

# Rows of bench.csv start with the quoted input "gen:kernels=K,chain=C,seed=S";
# the awk below takes K, C, S from it and the other columns by name.
split_rows='
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
  NR > 1 {
    line = $0
    match(line, /kernels=[0-9]+/); k = substr(line, RSTART + 8, RLENGTH - 8)
    match(line, /chain=[0-9]+/);   c = substr(line, RSTART + 6, RLENGTH - 6)
    match(line, /seed=[0-9]+/);    s = substr(line, RSTART + 5, RLENGTH - 5)
    sub(/^"[^"]*",/, "", line)      # drop the input column
    split(line, f, ",")
    for (name in col) v[name] = f[col[name] - 1]
    strat = (v["scheduler"] ~ /^ilp/) ? v["scheduler"] "-" v["solver"] : v["scheduler"]
  }'

# solver-time.csv: one row per (region, strategy).
awk -F, -v OFS=, "$split_rows"'
  NR == 1 { print "kernels,chain,seed,strategy,status,solve_seconds,build_seconds,variables,constraints,nodes" }
  NR > 1 { print k, c, s, strat, v["status"], v["solve_seconds"], v["build_seconds"], v["variables"], v["constraints"], v["nodes"] }
' "$out/bench.csv" >"$out/solver-time.csv"

# fusion-quality.csv: each greedy schedule against the better ILP schedule of the
# same region (objective_ratio = greedy objective / ILP objective; 1 = optimal).
awk -F, -v OFS=, "$split_rows"'
  NR > 1 {
    id = k "," c "," s; ids[id] = 1
    K[id, strat] = v["kernels_after"]; A[id, strat] = v["arrays_after"]
    O[id, strat] = v["objective"]; S[id, strat] = v["status"]
  }
  END {
    print "kernels,chain,seed,strategy,kernels_after,arrays_after,objective,ilp,ilp_status,ilp_kernels,ilp_arrays,ilp_objective,objective_ratio"
    for (id in ids) {
      # the best ILP schedule of the region, preferring proven optima
      b = ""
      for (q = 1; q <= 4; q++) {
        st = (q == 1) ? "ilp-lazy-glpk" : (q == 2) ? "ilp-lazy-cbc" : (q == 3) ? "ilp-glpk" : "ilp-cbc"
        if (!((id, st) in O)) continue
        if (b == "" || O[id, st] + 0 < O[id, b] + 0 || (O[id, st] + 0 == O[id, b] + 0 && S[id, st] == "optimal")) b = st
      }
      if (b == "") continue
      for (g = 1; g <= 2; g++) {
        st = (g == 1) ? "greedy-down" : "greedy-up"
        if (!((id, st) in O)) continue
        ratio = (O[id, b] + 0 > 0) ? O[id, st] / O[id, b] : 1
        print id, st, K[id, st], A[id, st], O[id, st], b, S[id, b], K[id, b], A[id, b], O[id, b], sprintf("%.4f", ratio)
      }
    }
  }' "$out/bench.csv" | { read -r h; echo "$h"; sort -t, -k1,1n -k2,2n -k3,3n -k4,4; } >"$out/fusion-quality.csv"

gnuplot -e "out='$out'" experiments/plots/solver-time.gp
gnuplot -e "out='$out'" experiments/plots/fusion-quality.gp
echo "sweep ($size) took $((end - start)) s; wrote $out/bench.csv, solver-time.csv, fusion-quality.csv and plots" >&2
