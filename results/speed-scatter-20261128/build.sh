#!/bin/bash
# build.sh BASE_NESSIE NEW_NESSIE: the binaries timing.sh and cgall.sh measure, in m/
# (base: main at 05e340a; new: branch scatter), unfused and greedy-down; and the hand C
# baselines in base/. Run from this directory.
set -e
B=$1 W=$2
mkdir -p m base
for f in pr1m pr5m rx; do
  for sch in none greedy-down; do
    $B build $f.nesl --scheduler=$sch -o m/$f.$sch.base
    $W build $f.nesl --scheduler=$sch -o m/$f.$sch.new
    NESSIE_CC=$PWD/ccnoix $W build $f.nesl --scheduler=$sch -o m/$f.$sch.noix
  done
done
for p in primes radix_sort; do gcc -O2 -fopenmp -o base/c_$p ../../experiments/baselines/c/$p.c -lm; done
