#!/usr/bin/env bash
# builds every program x scheduler x compiler variant (base = main 284e175, new = speed)
cd /tmp/sp/bench
for p in nbody blackscholes dotprod linefit spmv mandelbrot primes quicksort radix_sort quickhull batcher_sort barnes_hut; do
  for s in greedy-down ilp-cg; do
    for v in base new; do
      c=/work/wt-speed/bin/nessie; [ $v = base ] && c=/tmp/sp/basesrc/bin/nessie
      [ -x bin/$p.$s.$v ] || nice -n 10 $c build src/$p.nesl --scheduler=$s --profile -o bin/$p.$s.$v > bin/$p.$s.$v.log 2>&1 || echo "build failed $p $s $v"
    done
  done
  echo "built $p $(date +%T)"
done
