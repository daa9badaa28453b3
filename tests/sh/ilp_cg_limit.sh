#!/usr/bin/env bash
# ilp-cg on generated regions too large to prove within the work limit given
# (counted, not timed: the same runs on any machine, --work-limit without a
# time limit): the search
# stops, the closing heuristics (rounding, the restricted master and the repair of
# its cyclic answers) run, nessie-bench exits 0, and the schedule is no worse than
# greedy-down's. (A repair that looped forever on a cycle through single
# invocations once hung exactly here.) Every honest status is accepted.
set -eu
bin=${NESSIE_BIN:-bin}
for spec in kernels=150,chain=8,seed=1 kernels=200,chain=2,seed=1 kernels=120,chain=4,seed=3; do
  out=$("$bin/nessie-bench" --scheduler=greedy-down,ilp-cg --work-limit=300000 --format=csv --no-header "gen:$spec") \
    || { echo "gen:$spec: nessie-bench failed or hung"; exit 1; }
  # Drop the quoted input column; then scheduler is field 3, objective 13, status 14.
  echo "$out" | sed 's/^"[^"]*",//' | awk -F, -v spec="$spec" '
    { obj[$3] = $13; st[$3] = $14 }
    END {
      if (!("ilp-cg" in st) || !("greedy-down" in st)) { print "gen:" spec ": rows missing"; exit 1 }
      if (st["ilp-cg"] != "optimal" && st["ilp-cg"] != "feasible" && st["ilp-cg"] != "time-limit fallback") {
        print "gen:" spec ": status " st["ilp-cg"]; exit 1 }
      if (spec ~ /seed=1$/ && st["ilp-cg"] == "optimal") {
        print "gen:" spec ": proven within the limit: it no longer exercises the closing heuristics"; exit 1 }
      if (obj["ilp-cg"] + 0 > obj["greedy-down"] + 0) {
        print "gen:" spec ": ilp-cg objective " obj["ilp-cg"] " worse than greedy-down " obj["greedy-down"]; exit 1 }
    }'
done
