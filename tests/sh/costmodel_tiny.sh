#!/usr/bin/env bash
# experiments/costmodel.py end to end at tiny size on one program (issue 38): the
# calibrated cost file, both models' objectives for every schedule (random legal
# partitions included), interleaved runs whose outputs equal the unfused build's (the
# script stops otherwise), the CSV and the summary's per-program line. It checks the
# files' shape and that the unfused schedule has the largest unit objective; no timing
# is checked.
. "$(dirname "$0")/common.bash"
python3 experiments/costmodel.py --size=tiny --programs=linefit --random=2 --runs=1 --bin="$bin" \
  --out="$tmp/out" >"$tmp/log" 2>&1 || { bad "costmodel.py failed"; tail -20 "$tmp/log"; exit 1; }
csv=$tmp/out/costmodel.csv
[ "$(head -1 "$csv")" = "program,n,schedule,code,unit_objective,sized_objective,cpu_median,cpu_min,cpu_max,wall_median,runs" ] ||
  bad "CSV header: $(head -1 "$csv")"
for s in none greedy-down greedy-up ilp-unit ilp-sized random-1 random-2; do
  grep -q "^linefit,[0-9]*,$s," "$csv" || bad "no row for $s"
done
python3 - "$csv" <<'PY' || bad "objectives inconsistent"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
u = {r["schedule"]: float(r["unit_objective"]) for r in rows}
z = {r["schedule"]: float(r["sized_objective"]) for r in rows}
assert all(v > 0 for v in list(u.values()) + list(z.values())), "a zero objective"
assert max(u.values()) == u["none"], "unfused is not the worst under the unit model"
assert u["ilp-unit"] == min(u.values()), "the unit ILP optimum is not the least unit objective"
assert z["ilp-sized"] <= min(z.values()) * (1 + 1e-9), "the sized ILP optimum is not the least sized objective"
PY
grep -q '^linefit (n=[0-9]*): .*unit: rho .*sized: rho ' "$tmp/out/costmodel-summary.txt" || bad "no summary line"
exit $fail
