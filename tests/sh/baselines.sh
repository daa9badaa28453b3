#!/usr/bin/env bash
# baselines.sh — the hand-written baselines (experiments/baselines/README.md) compile
# warning-free, follow the common interface (`./NAME N [SEED]` prints `result <value>`
# then `seconds <s>`, bad arguments exit 2), and, with seed 0 (the NESL suite's inputs),
# compute what the NESL program of experiments/programs computes on the AST interpreter.
# The CUDA ones are compiled with nvcc (cached in build/baselines/cuda) when the toolkit
# is present; they cannot run here (no GPU).
source "$(dirname "$0")/common.bash"
cc=${CC:-cc}
for f in experiments/baselines/c/*.c; do
  n=$(basename "$f" .c)
  if ! "$cc" -std=c11 -O2 -fopenmp -Wall -Wextra -Werror "$f" -lm -o "$tmp/$n" 2>"$tmp/$n.cc"; then
    bad "$f does not compile:"
    head -n 20 "$tmp/$n.cc"
    continue
  fi
  "$tmp/$n" 50 7 >"$tmp/$n.out" 2>&1 || bad "$n 50 7: exit $?"
  grep -qE '^result -?[0-9]' "$tmp/$n.out" && grep -qE '^seconds [0-9.]+$' "$tmp/$n.out" &&
    [ "$(wc -l <"$tmp/$n.out")" = 2 ] || { bad "$n: output is not 'result' and 'seconds':"; cat "$tmp/$n.out"; }
  "$tmp/$n" >/dev/null 2>&1
  [ $? = 2 ] || bad "$n without N: exit status not 2"
done

# nesl_value FILE EXPR K: the K-th number of the value the expression prints.
nesl_value() {
  "$bin/nessie" run "experiments/programs/$1.nesl" -e "$2" 2>&1 |
    awk -v k="$3" '/^it = / { v = $0 } END { sub(/^it = /, "", v); sub(/ : [^:]*$/, "", v);
      gsub(/[()\[\]]/, "", v); split(v, a, ", "); print a[k] }'
}
# same A B int|float: exact for ints, to a relative 1e-9 for floats.
same() {
  if [ "$3" = int ]; then [ "$1" = "$2" ]; else
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a);
      exit !(d <= 1e-9 * m + 1e-12) }'
  fi
}
sorted_sum='sum({x * rem(i, 7) : x in s; i in [0:N]})'
while IFS='|' read -r name size kind k expr; do
  [ -x "$tmp/$name" ] || { bad "no compiled baseline $name"; continue; }
  expr=${expr//N/$size}
  want=$(nesl_value "$name" "$expr" "$k")
  got=$("$tmp/$name" "$size" 0 | awk '/^result / { print $2 }')
  [ -n "$want" ] || bad "$name: no value from the NESL program ($expr)"
  same "$got" "$want" "$kind" || bad "$name $size 0: result $got, the NESL program gives $want"
done <<EOF2
dotprod|1000|float|1|bench(N)
blackscholes|300|float|1|bench(N)
nbody|60|float|2|bench(N)
quicksort|500|int|1|let s = qsort({hash(i) : i in [0:N]}) in ${sorted_sum}
batcher_sort|300|int|1|let s = take(bitonic_sort({hash(i) : i in [0:N]} ++ dist(max_int, pow2_above(N, 1) - N)), N) in ${sorted_sum}
radix_sort|500|int|1|let s = radix_sort({hash(i) : i in [0:N]}, 0, 16) in ${sorted_sum}
spmv|300|float|1|bench(N)
mandelbrot|20|int|1|bench(N)
linefit|500|float|1|bench(N)
primes|3000|int|3|bench(N)
quickhull|500|float|2|bench(N)
barnes_hut|300|float|3|bench(N)
EOF2

# CUDA: compile only (cached by modification time).
nvcc=$(bash .ci/find-cuda 2>/dev/null)
if [ -z "$nvcc" ]; then
  echo "CUDA baselines not compiled: no nvcc (.ci/find-cuda)"
else
  mkdir -p build/baselines/cuda
  for f in experiments/baselines/cuda/*.cu; do
    n=$(basename "$f" .cu) o=build/baselines/cuda/$(basename "$f" .cu)
    if [ ! -x "$o" ] || [ "$f" -nt "$o" ] || [ experiments/baselines/c/suite.h -nt "$o" ]; then
      "$nvcc" -O2 "$f" -o "$o" >"$tmp/$n.nvcc" 2>&1 || { bad "$f does not compile:"; head -n 20 "$tmp/$n.nvcc"; }
    fi
  done
fi
exit $fail
