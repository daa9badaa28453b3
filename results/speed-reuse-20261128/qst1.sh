#!/usr/bin/env bash
# quicksort 10^6: the sort alone (NESL time(...) / the baseline's own timer), OMP_NUM_THREADS=1, interleaved
cd "${REUSE_DIR:-/tmp/reuse/m}"
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
for r in 1 2 3 4 5; do
  echo "hand $(./qs_hand 1000000 0 | sed -n 's/^seconds //p')"
  for v in none_base none_new greedy-down_base greedy-down_new; do
    echo "$v $(./qst_$v | sed -n 's/^it = (\([0-9.eE+-]*\),.*/\1/p')"
  done
done
