#!/usr/bin/env bash
# nesl_lcu_work.sh — flattening keeps work complexity: the λcu interpreter's element
# counter (--stats) grows like n log n for quicksort (recursion inside apply-to-each)
# and about linearly for quickhull, never like n^2 (a copy of the data per element or
# per segment). Counts are exact, so the bounds do not depend on the machine.
source "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."
elements() { # elements FILE: the element count of an --interp=lcu run
  "$bin/nessie" run "$1" --interp=lcu --stats 2>&1 >/dev/null | sed -n 's/^lcu stats: .* SOAC applications, \([0-9]*\) elements$/\1/p'
}
qsort_prog() { # n
  head -n 10 tests/nesl/quicksort.nesl
  echo "#qsort({rem(i * 1103515245 + 12345, 1000003) : i in [0:$1]}) \$"
}
hull_prog() { # n
  head -n 17 tests/nesl/quickhull.nesl
  echo "#convex_hull({(float(rem(i * 37, 1009)), float(rem(i * 91, 997))) : i in [0:$1]}) \$"
}
check() { # name small large bound: elements(large) / elements(small) must stay below bound
  local a b
  a=$(elements "$tmp/$1_$2.nesl")
  b=$(elements "$tmp/$1_$3.nesl")
  if [ -z "$a" ] || [ -z "$b" ] || [ "$a" -le 0 ]; then
    bad "$1: no element counts ($a, $b)"
    return
  fi
  echo "$1: n=$2 $a elements, n=$3 $b elements (ratio $((b / a)), bound $4)"
  [ $((b)) -lt $((a * $4)) ] || bad "$1: elements grew from $a to $b (more than ${4}x for ${3}/${2} times the input)"
}
for n in 2000 16000; do qsort_prog $n >"$tmp/qsort_$n.nesl"; done
for n in 2000 8000; do hull_prog $n >"$tmp/hull_$n.nesl"; done
# 8x the input: n log n gives about 10x (15x measured: costs per recursion level), n^2 64x
check qsort 2000 16000 24
# 4x the input: linear-ish gives about 4x, n^2 16x
check hull 2000 8000 8
# a list built by `[n] ++ build(n - 1)` copies 1 + 2 + ... + n elements: the unlifted
# append of flat sequences is one MAP, not the lifted append's segment descriptor, index
# map and gather (about twice the elements, and many times the interpreter's time)
printf 'function build(n) = if n == 0 then [] int else [n] ++ build(n - 1) $\n#build(1000) $\n' >"$tmp/build.nesl"
a=$(elements "$tmp/build.nesl")
echo "build: n=1000 $a elements (bound 750750: 1.5 n(n+1)/2)"
[ -n "$a" ] && [ "$a" -le 750750 ] || bad "build: the unlifted append copied ${a:-no count} elements for 1000 conses"
exit $fail
