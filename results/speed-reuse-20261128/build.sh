#!/usr/bin/env bash
# builds the four programs (+ the timed quicksort) x scheduler (none, greedy-down) x compiler (base = main 05e340a, new = reuse)
cd "${REUSE_DIR:-/tmp/reuse/m}"
for s in none greedy-down; do
  for v in base new; do
    c=/work/wt-reuse/bin/nessie; [ $v = base ] && c=/tmp/reuse/base/bin/nessie
    for p in quicksort quickhull batcher_sort barnes_hut; do
      nice -n 10 $c build ../$p.nesl --scheduler=$s -o ${p}_${s}_$v >/dev/null 2>&1 || echo "build failed $p $s $v"
    done
    nice -n 10 $c build qs_timed.nesl --scheduler=$s -o qst_${s}_$v >/dev/null 2>&1 || echo "build failed qst $s $v"
  done
done
