#!/usr/bin/env bash
# ilp-cg's reach rows and longer cycle rows (fusion/ILP.md, "Set
# partitioning") on regions where their separations add some: the proven
# optimum equals ilp-decomp's (a different formulation, without these rows),
# the rows were really added (NESSIE_CG_TRACE counts them), and no row cut off
# the incumbent, a legal partition (sched_ilp_cg.c checks every row it adds
# against it, and the trace says so if one did).
# Bounded by work, not seconds (--work-limit without a time limit), so what is
# proven does not depend on the machine.
set -eu
bin=${NESSIE_BIN:-bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
long=0 reach=0
for spec in kernels=40,chain=8,seed=2 kernels=60,chain=4,seed=4 kernels=60,chain=8,seed=4 kernels=100,chain=4,seed=2 \
  kernels=80,chain=8,seed=2; do
  NESSIE_CG_TRACE=1 "$bin/nessie-bench" --scheduler=ilp-cg --work-limit=30000000 --format=csv --no-header "gen:$spec" \
    >"$tmp/cg.csv" 2>"$tmp/cg.err" || { echo "gen:$spec: ilp-cg failed"; exit 1; }
  "$bin/nessie-bench" --scheduler=ilp-decomp --work-limit=10000 --format=csv --no-header "gen:$spec" >"$tmp/d.csv" \
    || { echo "gen:$spec: ilp-decomp failed"; exit 1; }
  if grep -q 'internal error' "$tmp/cg.err"; then grep 'internal error' "$tmp/cg.err"; exit 1; fi
  if grep -q 'cut the incumbent' "$tmp/cg.err"; then echo "gen:$spec: a reach row cut off a legal partition"; exit 1; fi
  n=$(grep 'long cycle rows' "$tmp/cg.err" | awk '{s += $7} END {print s + 0}')
  long=$((long + n))
  n=$(grep 'reach rows' "$tmp/cg.err" | awk '{s += $6} END {print s + 0}')
  reach=$((reach + n))
  # Drop the quoted input column: objective is field 13, status 14.
  a=$(sed 's/^"[^"]*",//' "$tmp/cg.csv" | awk -F, '{print $14, $13}')
  b=$(sed 's/^"[^"]*",//' "$tmp/d.csv" | awk -F, '{print $14, $13}')
  case "$a $b" in
  optimal*optimal*) [ "${a#* }" = "${b#* }" ] || { echo "gen:$spec: ilp-cg proves ${a#* }, ilp-decomp ${b#* }"; exit 1; } ;;
  *) echo "gen:$spec: not both proven ($a / $b)"; exit 1 ;;
  esac
done
[ "$long" -ge 4 ] || { echo "only $long longer cycle rows added: the regions no longer exercise them"; exit 1; }
[ "$reach" -ge 4 ] || { echo "only $reach reach rows added: the regions no longer exercise them"; exit 1; }
echo "5 regions agree; $reach reach rows and $long longer cycle rows added"
