#!/usr/bin/env bash
# The experiment pipeline end to end at its smallest size: nessie-bench over
# generated regions, the derived CSVs with their documented columns, and the
# gnuplot plots (SVG and PNG). Checks the pipeline, never timings.
set -eu
bin=${NESSIE_BIN:-bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash experiments/sweep.sh --size=tiny --jobs=2 --out="$tmp" --bin="$bin" 2>"$tmp/log" || { cat "$tmp/log"; exit 1; }
# bench.csv: four nessie-bench passes, one header line
[ "$(grep -c '^input,' "$tmp/bench.csv")" = 1 ] || { echo "bench.csv: not exactly one header line"; exit 1; }
head -n 1 "$tmp/solver-time.csv" | grep -qx 'kernels,chain,seed,strategy,status,solve_seconds,build_seconds,variables,constraints,nodes' \
  || { echo "solver-time.csv header changed"; head -n 1 "$tmp/solver-time.csv"; exit 1; }
head -n 1 "$tmp/fusion-quality.csv" | grep -qx 'kernels,chain,seed,strategy,kernels_after,arrays_after,objective,ilp,ilp_status,ilp_kernels,ilp_arrays,ilp_objective,objective_ratio' \
  || { echo "fusion-quality.csv header changed"; exit 1; }
head -n 1 "$tmp/solver-summary.csv" | grep -qx 'invocations,strategy,regions,median_seconds,max_seconds,proven,feasible,fallback' \
  || { echo "solver-summary.csv header changed"; head -n 1 "$tmp/solver-summary.csv"; exit 1; }
# The tiny grid (experiments/sweep.sh): chains 2 and 4, one seed, so two regions per size;
# sizes 4 and 6 (small band) run every strategy, 8 (big band) all but ilp-mono, 10
# (huge band) the greedy ones, ilp-decomp and ilp-cg; every ILP with GLPK and CBC.
every=(greedy-down greedy-up ilp-glpk ilp-cbc ilp-lazy-glpk ilp-lazy-cbc ilp-decomp-glpk ilp-decomp-cbc ilp-cg-glpk ilp-cg-cbc)
expect() { # SIZE STRATEGY...: exactly these strategies, two regions each, at SIZE
  local k=$1; shift
  got=$(awk -F, -v k="$k" 'NR > 1 && $1 == k { print $4 }' "$tmp/solver-time.csv" | sort | uniq -c | awk '{ print $2 ":" $1 }' | sort)
  want=$(for s in "$@"; do echo "$s:2"; done | sort)
  [ "$got" = "$want" ] || { echo "solver-time.csv at $k invocations:"; echo "$got"; echo "expected:"; echo "$want"; exit 1; }
}
expect 4 "${every[@]}" ilp-mono-glpk ilp-mono-cbc
expect 6 "${every[@]}" ilp-mono-glpk ilp-mono-cbc
expect 8 "${every[@]}"
expect 10 greedy-down greedy-up ilp-decomp-glpk ilp-decomp-cbc ilp-cg-glpk ilp-cg-cbc
rows=$(($(wc -l <"$tmp/solver-time.csv") - 1))
[ "$rows" = 80 ] || { echo "solver-time.csv has $rows rows, expected 80 (2*14 + 2*14 + 2*12 + 2*6)"; exit 1; }
# The summary: one row per (invocations, strategy) of solver-time.csv, with its region
# count, max >= median, and the status counts within the region count.
awk -F, 'NR > 1 { n[$1 "," $4]++; if ($5 == "optimal") p[$1 "," $4]++ } END { for (c in n) print c "," n[c] "," p[c] + 0 }' \
  "$tmp/solver-time.csv" | sort >"$tmp/cells"
awk -F, 'NR > 1 { print $1 "," $2 "," $3 "," $6 }' "$tmp/solver-summary.csv" | sort >"$tmp/summary-cells"
cmp -s "$tmp/cells" "$tmp/summary-cells" || { echo "solver-summary.csv cells differ from solver-time.csv:"; diff "$tmp/cells" "$tmp/summary-cells"; exit 1; }
awk -F, 'NR > 1 && ($5 + 0 < $4 + 0 || $6 + $7 + $8 > $3) { print "bad summary row:", $0; bad = 1 } END { exit bad }' "$tmp/solver-summary.csv"
# Median and max by hand from solver-time.csv: two regions per cell, so the median is
# their mean and the max the larger.
awk -F, 'NR > 1 { c = $1 "," $4; if (c in a) { m = (a[c] + $6) / 2; x = (a[c] > $6 + 0) ? a[c] : $6 + 0
                    printf "%s,%.6f,%.6f\n", c, m, x } else a[c] = $6 + 0 }' "$tmp/solver-time.csv" | sort >"$tmp/times"
awk -F, 'NR > 1 { print $1 "," $2 "," $4 "," $5 }' "$tmp/solver-summary.csv" | sort >"$tmp/summary-times"
cmp -s "$tmp/times" "$tmp/summary-times" || { echo "solver-summary.csv medians or maxima wrong:"; diff "$tmp/times" "$tmp/summary-times"; exit 1; }
# fusion-quality: both greedy strategies for each of the 8 regions.
q=$(($(wc -l <"$tmp/fusion-quality.csv") - 1))
[ "$q" = 16 ] || { echo "fusion-quality.csv has $q rows, expected 16"; exit 1; }
# The best ILP schedule of a region is a proven optimum when any strategy proved one.
awk -F, 'NR > 1 && $5 == "optimal" { p[$1 "," $2 "," $3] = 1 } END { for (r in p) print r }' "$tmp/solver-time.csv" | sort >"$tmp/proven"
awk -F, 'NR > 1 && $9 == "optimal" { print $1 "," $2 "," $3 }' "$tmp/fusion-quality.csv" | sort -u >"$tmp/best-proven"
cmp -s "$tmp/proven" "$tmp/best-proven" || { echo "fusion-quality.csv ignores a proven optimum"; diff "$tmp/proven" "$tmp/best-proven"; exit 1; }
# a greedy schedule can never beat a proven-optimal ILP one under the same cost model
awk -F, 'NR > 1 && $9 == "optimal" && $13 + 0 < 0.9999 { print "greedy beat an optimal ILP:", $0; bad = 1 } END { exit bad }' "$tmp/fusion-quality.csv"
# ... nor may two proven optima disagree (sweep.sh warns)
if grep -q 'warning: proven optima disagree\|beats the proven optimum' "$tmp/log"; then cat "$tmp/log"; exit 1; fi
# greedy-scale.csv: greedy-down and greedy-up at each tiny scale size (50, 100) and
# generator family, with the kernels and objective that bench.csv's greedy rows would
# give (checked against nessie-bench run here on the same spec).
head -n 1 "$tmp/greedy-scale.csv" | grep -qx 'family,kernels,strategy,solve_seconds,kernels_after,objective,status' \
  || { echo "greedy-scale.csv header changed"; exit 1; }
got=$(awk -F, 'NR > 1 { print $1 "," $2 "," $3 "," $5 "," $6 }' "$tmp/greedy-scale.csv" | sort)
want=$(for fam in random chain siblings diamond trap; do for k in 50 100; do
  "$bin/nessie-bench" --format=csv --no-header --scheduler=greedy-down,greedy-up "gen:family=$fam,kernels=$k,seed=1" |
    sed 's/^"[^"]*",//' | awk -F, -v f="$fam" -v k="$k" '{ print f "," k "," $3 "," $7 "," $13 }'; done; done | sort)
[ "$(echo "$want" | wc -l)" = 20 ] || { echo "expected 20 greedy rows, got:"; echo "$want"; exit 1; }
[ "$got" = "$want" ] || { echo "greedy-scale.csv:"; echo "$got"; echo "expected:"; echo "$want"; exit 1; }
for f in solver-time fusion-quality greedy-scale; do
  grep -q '<svg' "$tmp/$f.svg" || { echo "$f.svg is not an SVG"; exit 1; }
  [ "$(head -c 4 "$tmp/$f.png" | od -An -c | tr -d ' ')" = '211PNG' ] || { echo "$f.png is not a PNG"; exit 1; }
done
echo "sweep pipeline ok"
