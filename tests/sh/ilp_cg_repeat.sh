#!/usr/bin/env bash
# ilp-cg repeats itself (fusion/ILP.md, "Repeatable runs"): nothing inside its
# search is timed, so two runs bounded by work (--work-limit, no time limit)
# take the same path (same nodes, LPs, columns, cuts, schedule) and end with the
# same status on any machine, under any load, in the plain and the sanitizer
# build alike. The smaller limit makes the heuristics inside a long node run
# (they come every 5 % of the limit's work); the test checks that they did,
# against a larger limit where they do not, so that it keeps testing the count.
# Bounded by work, never by seconds: it cannot fail on a slow or busy machine.
set -eu
bin=${NESSIE_BIN:-bin}
spec=gen:kernels=150,chain=4,seed=2
run() { # run WORK: the trace's closing line without its times, the objective and status, the heuristic rounds
  local out
  out=$(NESSIE_CG_TRACE=1 "$bin/nessie-bench" --format=csv --no-header --work-limit="$1" --scheduler=ilp-cg "$spec" 2>&1)
  echo "$out" | grep '^ilp-cg: [0-9]* nodes' | sed -E 's/[0-9]+\.[0-9]+ s\b/T s/g'
  echo "$out" | grep '^"' | sed 's/^"[^"]*",//' | awk -F, '{ print $13, $14 }'
  echo "rounds $(echo "$out" | grep -c 'restricted master round')"
}
a=$(run 5000000)
b=$(run 5000000)
long=$(run 60000000)
echo "$a"
[ "$a" = "$b" ] || { printf 'two runs differ:\n%s\n---\n%s\n' "$a" "$b"; exit 1; }
echo "$a" | grep -q ' optimal$' || { echo "$spec: not proven within 5,000,000 work units"; exit 1; }
ra=$(echo "$a" | sed -n 's/^rounds //p')
rl=$(echo "$long" | sed -n 's/^rounds //p')
[ "$ra" -gt "$rl" ] || { echo "$spec: no heuristics inside a node with a work limit of 5,000,000 ($ra rounds, $rl with 60,000,000)"; exit 1; }
echo "ok: two runs alike ($ra heuristic rounds; $rl with a 12 times larger work limit)"
