#!/bin/bash
# interleaved repetitions: every variant once per repetition; prints
# variant rep computation_seconds cpu_seconds(user+sys of the process)
reps=${REPS:-5}
run1() { # name cmd...
  local name=$1; shift
  local out; out=$( { /usr/bin/time -f "CPU %U %S" "$@" ; } 2>&1 )
  local cpu; cpu=$(echo "$out" | awk '/^CPU/{print $2+$3}')
  local t; t=$(echo "$out" | awk '/^seconds/{print $2} /^it = /{gsub(/\).*/,""); n=split($0,a,", "); print a[n]}')
  echo "$name $r $t $cpu"
}
for r in $(seq 1 $reps); do
  for p in pr1m pr5m rx; do
    for v in none.base none.new greedy-down.base greedy-down.new; do run1 $p.$v ./m/$p.$v; done
  done
  run1 c_primes1m ./base/c_primes 1000000 0
  run1 c_primes5m ./base/c_primes 5000000 0
  run1 c_radix ./base/c_radix_sort 500000 0
done
