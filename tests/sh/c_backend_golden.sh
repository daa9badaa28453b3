#!/usr/bin/env bash
# The C back end gives the interpreter's output: every program of tests/lcu/
# (runtime faults, their messages and exit statuses included), unfused and
# fused by every scheduler, compiled (nessie lcu run --compiled), prints what
# the interpreter prints for the same schedule (unfused: its .expected; fusing
# a colliding PERMUTE into a REDUCE removes the fault in both); every program
# of tests/fusion/ on random inputs prints what the interpreter prints. Then the thread check: with blocks of 3 elements (so
# reductions, scans and segmented SOACs cross many blocks even on small
# inputs) the output is the same at 1 and 2 threads and still the expected one.
. "$(dirname "$0")/common.bash"
# Generated C must compile without a warning under -Wall -Wextra.
# the run's cache (tests/run.sh: float32.sh builds some of the same programs)
export NESSIE_CACHE_DIR=${NESSIE_TEST_CACHE:-$tmp/cache} NESSIE_CFLAGS="-O2 -Wall -Wextra -Werror"
# tests/fusion/ runs under every scheduler; tests/lcu/ under the distinct
# strategies (ilp-mono, -bare, -lazy and -decomp solve ilp's model: same optimum).
all=(none greedy-down greedy-up ilp ilp-mono ilp-bare ilp-lazy ilp-decomp ilp-cg exhaustive)
scheds=(none greedy-down greedy-up ilp ilp-cg exhaustive)
# The sanitizer build compiles programs with ASan+UBSan (slower): one schedule there.
case "$bin" in *asan*) scheds=(ilp) all=(ilp) ;; esac
n=0
for f in tests/lcu/*.lcu; do
  b=${f%.lcu}
  if [ -f "$b.args" ]; then read -r -a args <"$b.args"; else args=(lcu run "{}"); fi
  args=("${args[@]//\{\}/$f}")
  [ "${args[1]:-}" = run ] || continue
  want_exit=0
  [ -f "$b.exit" ] && want_exit=$(tr -d ' \n' <"$b.exit")
  for s in "${scheds[@]}"; do
    # exhaustive search is for regions of at most 12 invocations
    [ "$s" = exhaustive ] && [ "$("$bin/nessie" lcu fuse "$f" --scheduler=exhaustive >/dev/null 2>&1; echo $?)" != 0 ] && continue
    if [ $s = none ]; then
      cp "$b.expected" "$tmp/want"
      wst=$want_exit
    else
      "$bin/nessie" "${args[@]}" --scheduler=$s >"$tmp/want" 2>&1 </dev/null
      wst=$?
    fi
    OMP_NUM_THREADS=2 "$bin/nessie" "${args[@]}" --scheduler=$s --compiled >"$tmp/out" 2>&1 </dev/null
    st=$?
    n=$((n + 1))
    if [ $st != "$wst" ]; then
      bad "$f --scheduler=$s: exit $st, the interpreter $wst: $(head -3 "$tmp/out")"
    elif ! cmp -s "$tmp/out" "$tmp/want"; then
      bad "$f --scheduler=$s: output differs"; diff "$tmp/want" "$tmp/out" | head -6
    fi
  done
  for s in none ilp; do
    for t in 1 2; do
      NESSIE_RT_BLOCK=3 OMP_NUM_THREADS=$t "$bin/nessie" "${args[@]}" --scheduler=$s --compiled >"$tmp/out$t" 2>&1 </dev/null
      echo "exit $?" >>"$tmp/out$t"
    done
    cmp -s "$tmp/out1" "$tmp/out2" || bad "$f --scheduler=$s: 1 and 2 threads differ (blocks of 3)"
    [ $s = none ] && { head -n -1 "$tmp/out1" | cmp -s - "$b.expected" || bad "$f: blocks of 3 change the output"; }
  done
done
for f in tests/fusion/*.lcu; do
  for seed in 1 2 3; do
    want=$("$bin/nessie" lcu run "$f" --random-inputs --seed=$seed --max-len=40 2>&1)
    for s in "${all[@]}"; do
      got=$("$bin/nessie" lcu run "$f" --random-inputs --seed=$seed --max-len=40 --scheduler=$s --compiled 2>&1)
      n=$((n + 1))
      [ "$got" = "$want" ] || bad "$f seed $seed ($s): compiled gives '$got', the interpreter '$want'"
    done
    # many blocks (segmented SOACs crossing them): 1 and 2 threads agree
    for s in none ilp; do
      g1=$(NESSIE_RT_BLOCK=3 OMP_NUM_THREADS=1 "$bin/nessie" lcu run "$f" --random-inputs --seed=$seed --max-len=40 --scheduler=$s --compiled 2>&1)
      g2=$(NESSIE_RT_BLOCK=3 OMP_NUM_THREADS=2 "$bin/nessie" lcu run "$f" --random-inputs --seed=$seed --max-len=40 --scheduler=$s --compiled 2>&1)
      n=$((n + 2))
      [ "$g1" = "$g2" ] || bad "$f seed $seed ($s), blocks of 3: 1 thread '$g1', 2 threads '$g2'"
    done
  done
done
# The benchmarks at 200,000 elements (13 blocks of the default size, float
# sums): the same bits at 1 and 2 threads. (Fused and unfused may differ in
# the last bits: a FILTER fused into a REDUCE sums blocks of the input, the
# unfused REDUCE blocks of the kept elements.)
for f in experiments/cbench/*.lcu; do
  a=(200000)
  case $f in *segsum*) a=(200000 F) ;; esac
  for s in none ilp; do
    want=
    for t in 1 2; do
      got=$(OMP_NUM_THREADS=$t "$bin/nessie" lcu run "$f" "${a[@]}" --scheduler=$s --compiled 2>&1)
      n=$((n + 1))
      [ -n "$want" ] || want=$got
      [ "$got" = "$want" ] || bad "$f --scheduler=$s, $t threads: '$got', first run '$want'"
    done
  done
done
[ $fail = 0 ] && echo "$n compiled runs agree with the interpreter"
exit $fail
