#!/usr/bin/env bash
# time_barrier.sh — NESL's time(e) times e and nothing else in compiled code, whatever
# the fusion schedule (issue 37: experiments/programs' bench_timed times compute(x) with
# the inputs x built before it). The timer is an effect, so a fusion-region barrier:
# the input generators (the kernels that compute hash(i) or i mod 7) must run before the
# first timer() of the fused λcu, the timed computation's kernels between the two, and
# the generated C must call rt_timer around exactly those launches. Counts kernels and
# where the timers sit, never seconds.
source "$(dirname "$0")/common.bash"
# kernels PROGRAM.fused: `SECTION NAME` for every kernel run at form level, SECTION 0
# before the first timer(), 1 between the two, 2 after
kernels() {
  awk '/^function form/ { f = 1; s = 0 } f && /timer\(\)/ { s++ }
       f && / = run / { n = $0; sub(/.* = run /, "", n); sub(/\(.*/, "", n); print s, n }
       /^}/ { f = 0 }' "$1"
}
# body FILE.fused KERNEL: the kernel's text
body() { awk -v k="kernel $2(" 'index($0, k) == 1 { f = 1 } f { print } f && /^}/ { exit }' "$1"; }
for prog in dotprod nbody; do
  # the generators: dotprod's i mod 7 and mod 5, nbody's hash(i) (mod 46337)
  case $prog in dotprod) gen='% [75]\b' ;; nbody) gen='46337' ;; esac
  printf 'load "%s/experiments/programs/%s" $\nbench_timed(200) $\n' "$PWD" "$prog" >"$tmp/$prog.nesl"
  for s in none greedy-down greedy-up ilp-cg; do
    f=$tmp/$prog.$s.fused
    "$bin/nessie" emit "$tmp/$prog.nesl" --stage=fused --scheduler="$s" >"$f" 2>"$tmp/err" ||
      { bad "$prog $s: emit --stage=fused failed:"; cat "$tmp/err"; continue; }
    [ "$(grep -c 'timer()' "$f")" = 2 ] || { bad "$prog $s: not two timer() calls in the fused program"; continue; }
    kernels "$f" >"$tmp/k"
    grep -q '^0 ' "$tmp/k" || bad "$prog $s: no kernel before the first timer (the inputs)"
    grep -q '^1 ' "$tmp/k" || bad "$prog $s: no kernel between the timers (the timed computation)"
    gen_before=0
    while read -r sec k; do
      if body "$f" "$k" | grep -Eq "$gen"; then
        [ "$sec" = 0 ] && gen_before=1
        [ "$sec" = 1 ] && bad "$prog $s: kernel $k, run between the timers, generates the inputs"
      fi
    done <"$tmp/k"
    [ $gen_before = 1 ] || bad "$prog $s: no input generator runs before the first timer"
    # the generated C: kernel calls between the two rt_timer() calls, as many as λcu's
    "$bin/nessie" emit "$tmp/$prog.nesl" --stage=c --scheduler="$s" >"$tmp/$prog.$s.c" 2>"$tmp/err" ||
      { bad "$prog $s: emit --stage=c failed:"; cat "$tmp/err"; continue; }
    c_between=$(awk '/= rt_timer\(\);/ { t++ } t == 1 && /_kernel\(/ && !/^static|^void/ { n++ } END { print n + 0 }' "$tmp/$prog.$s.c")
    [ "$c_between" = "$(grep -c '^1 ' "$tmp/k")" ] ||
      bad "$prog $s: $c_between kernel calls between rt_timer() in C, $(grep -c '^1 ' "$tmp/k") in the fused λcu"
  done
done
# dotprod fused: the timed part is the one multiply-and-sum kernel
for s in greedy-down ilp-cg; do
  [ "$(grep -c '^1 ' <(kernels "$tmp/dotprod.$s.fused"))" = 1 ] || bad "dotprod $s: the timed part is not one kernel"
done
exit $fail
