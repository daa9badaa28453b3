#!/usr/bin/env bash
# ilp-cg proves every region of blackscholes and nbody optimal within a work
# limit (counted, not timed: the same runs on any machine). Their big regions
# are MAPs over one iteration space whose LP duals swing by ± a kernel's
# weight between neighbours of a chain; the complete pricing search could not
# prune them until its bounds charged convexity against the current set
# (fusion/ILP.md, "Pricing"): blackscholes region 0 stopped after 2.8 million
# search nodes (8 s) with the greedy schedule, and now needs about 80,000.
# Each region's objective must also be no worse than greedy-down's.
set -eu
bin=${NESSIE_BIN:-bin}
for p in blackscholes nbody; do
  f=tests/programs/$p.nesl
  out=$("$bin/nessie-bench" --scheduler=greedy-down,ilp-cg --work-limit=1000000 --format=csv --no-header "$f") \
    || { echo "$p: nessie-bench failed"; exit 1; }
  # Fields: input, region, function, scheduler 4, solver, ..., objective 14, status 15.
  echo "$out" | awk -F, -v p="$p" '
    { key = $2; if ($4 == "ilp-cg") { st[key] = $15; cg[key] = $14 } else gr[key] = $14 }
    END {
      for (r in gr) {
        n++
        if (!(r in st)) { print p " region " r ": no ilp-cg row"; bad = 1; continue }
        if (st[r] != "optimal") { print p " region " r ": ilp-cg status " st[r] " within the work limit"; bad = 1 }
        if (cg[r] + 0 > gr[r] + 0) { print p " region " r ": ilp-cg " cg[r] " worse than greedy-down " gr[r]; bad = 1 }
      }
      if (n < 3) { print p ": only " n " regions"; bad = 1 }
      exit bad
    }'
done
