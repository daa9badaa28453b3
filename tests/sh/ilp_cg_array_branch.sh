#!/usr/bin/env bash
# ilp-cg's branch on the number of arrays (fusion/ILP.md, "Branching"): on
# generated regions where it is taken (the trace says how often), the proven
# optimum is the one ilp-decomp and, on the smaller ones, the reference ilp
# prove. The test fails if a region no longer takes the branch, so that it
# keeps testing it (pick other regions then: any 30-60-invocation region whose
# trace says "on arrays" with a count above 0).
# Every search is bounded by work, not seconds (--work-limit without a time
# limit: ilp-cg's work units, else branch-and-bound nodes per solve), so what
# is proven does not depend on the machine; each region is proven with far
# less (at most 15 ilp-cg nodes, 100 ilp-decomp nodes, 87 ilp nodes).
set -eu
bin=${NESSIE_BIN:-bin}
work() { [ "$1" = ilp-cg ] && echo 60000000 || echo 10000; }
obj() { # obj SPEC SCHEDULER: the proven objective, or "-" if not proven
  "$bin/nessie-bench" --format=csv --no-header --work-limit="$(work "$2")" --scheduler="$2" "gen:$1" |
    sed 's/^"[^"]*",//' | awk -F, '{ print ($14 == "optimal" ? $13 : "-") }'
}
branched=0
for spec in kernels=30,chain=2,seed=1 kernels=40,chain=2,seed=11 kernels=40,chain=8,seed=16 \
            kernels=50,chain=8,seed=1 kernels=60,chain=2,seed=13; do
  trace=$(NESSIE_CG_TRACE=1 "$bin/nessie-bench" --format=csv --no-header --work-limit="$(work ilp-cg)" --scheduler=ilp-cg "gen:$spec" 2>&1 >/dev/null)
  n=$(echo "$trace" | sed -n 's/.*on arrays \([0-9]*\)).*/\1/p' | tail -n 1)
  [ -n "$n" ] || { echo "gen:$spec: no closing trace line"; exit 1; }
  [ "$n" -gt 0 ] || { echo "gen:$spec: ilp-cg no longer branches on arrays here"; exit 1; }
  branched=$((branched + n))
  cg=$(obj "$spec" ilp-cg)
  [ "$cg" != - ] || { echo "gen:$spec: ilp-cg proves nothing within its work limit"; exit 1; }
  others=ilp-decomp
  case $spec in kernels=30,* | kernels=40,*) others="$others ilp" ;; esac
  for s in $others; do
    o=$(obj "$spec" "$s")
    [ "$o" = - ] && { echo "gen:$spec: $s proves nothing within its work limit"; exit 1; }
    [ "$o" = "$cg" ] || { echo "gen:$spec: ilp-cg proves $cg, $s proves $o"; exit 1; }
  done
done
echo "5 regions, $branched branches on arrays, optima agree"
