#!/usr/bin/env bash
# experiments/lcu-bench/run.sh [NESSIE] — times the λcu interpreter on the
# benchmark programs of this folder: best wall time of 5 runs, for n = 0
# (start-up), 10^6 and 10^7 elements. Not part of the test suite.
set -eu
cd "$(dirname "$0")/../.."
nessie=${1:-bin/nessie}
for prog in experiments/lcu-bench/*.lcu; do
  for n in 0 1000000 10000000; do
    best=
    for _ in 1 2 3 4 5; do
      s=$(date +%s.%N)
      "$nessie" lcu run "$prog" "$n" >/dev/null
      e=$(date +%s.%N)
      t=$(echo "$e - $s" | bc -l)
      if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
    done
    printf '%-40s n=%-9s %.3f s\n' "$prog" "$n" "$best"
  done
done
