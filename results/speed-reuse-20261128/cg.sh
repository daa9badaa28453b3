#!/usr/bin/env bash
# callgrind instruction counts, whole process, OMP_NUM_THREADS=1 (OMP_WAIT_POLICY set: the runtime re-executes itself otherwise, which valgrind refuses), one run each (deterministic)
cd "${REUSE_DIR:-/tmp/reuse/m}"
for p in quicksort quickhull batcher_sort barnes_hut; do
  for v in base new; do
    OMP_WAIT_POLICY=passive OMP_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null ./cg_${p}_$v 2>&1 >/dev/null | sed -n "s/.*Collected : \([0-9]*\).*/$p $v \1/p"
  done
done
