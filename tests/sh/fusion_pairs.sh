#!/usr/bin/env bash
# Segmented pair loops in one pass (issue 37), on n-body and on small segmented programs:
#  - n-body's bytes allocated (NESSIE_PROFILE) grow linearly with the bodies, not with the
#    pairs: at 200 and 400 bodies the second is under 2.5 times the first (quadratic: 4),
#    and at 400 the whole program allocates fewer bytes than there are pairs, so no
#    kernel writes an n²-element array (before: five, and an n²-entry segment index,
#    99 MB at 1500 bodies); greedy-down, greedy-up and ilp-cg;
#  - the pair values, the three force sums and the deferred sqrt/division checks are one
#    SEGREDUCE (the checks' REDUCE over the pairs became a SEGREDUCE plus a REDUCE of its
#    segments, fus_prep.c; the MAP joins the SEGREDUCE, compat.c);
#  - no rt_seg_of (nor the per-element segment index it needs) in the generated C of a
#    segmented reduction over a nested apply-to-each: the loop's segment variable is the
#    element's segment;
#  - a division by zero or the sqrt of a negative number inside the fused pair kernel
#    reports the same error on all three paths (AST, λcu interpreter, compiled, fused and
#    not), and the same one of two;
#  - the compiled programs print what `nessie run` prints.
# Static counts and bytes only: nothing here depends on the machine's speed.
. "$(dirname "$0")/common.bash"
scheds="greedy-down greedy-up ilp-cg"
for n in 200 400; do
  printf 'load "%s/experiments/programs/nbody.nesl" $\nbench(%d) $\n' "$PWD" $n >"$tmp/nb$n.nesl"
done
"$bin/nessie" run "$tmp/nb200.nesl" >"$tmp/ast200.out" 2>&1 || bad "nbody 200: nessie run failed"
for s in $scheds; do
  declare -A bytes=()
  for n in 200 400; do
    NESSIE_CACHE_DIR=$tmp/cache "$bin/nessie" build "$tmp/nb$n.nesl" --profile --scheduler=$s -o "$tmp/nb$n" \
      >/dev/null 2>"$tmp/err" || { bad "nbody $n ($s): build failed"; cat "$tmp/err"; continue; }
    (cd "$tmp" && NESSIE_PROFILE=$tmp/p$n.csv OMP_NUM_THREADS=2 ./nb$n >"$tmp/c$n.out" 2>&1) || bad "nbody $n ($s): run failed"
    bytes[$n]=$(awk -F, '$4 == "(total)" { print $9 }' "$tmp/p$n.csv")
    [ -n "${bytes[$n]}" ] || bad "nbody $n ($s): no total in the profile"
  done
  cmp -s "$tmp/ast200.out" "$tmp/c200.out" || bad "nbody 200 ($s): compiled output differs from nessie run"
  b200=${bytes[200]:-0} b400=${bytes[400]:-0}
  echo "  nbody ($s): $b200 bytes at 200 bodies, $b400 at 400"
  [ "$b200" -gt 0 ] && [ $((b400 * 10)) -lt $((b200 * 25)) ] ||
    bad "nbody ($s): bytes allocated grow faster than linearly: $b200 at 200 bodies, $b400 at 400"
  [ "$b400" -lt $((400 * 400)) ] || bad "nbody ($s): $b400 bytes at 400 bodies, not under the 160000 pairs"
  "$bin/nessie" emit "$tmp/nb200.nesl" --stage=fused --scheduler=$s >"$tmp/f.lcu" 2>"$tmp/err" || bad "nbody ($s): emit failed"
  grep -q 'SEGREDUCE .*sqrt(.*(bor, bor, fadd, fadd, fadd)' "$tmp/f.lcu" ||
    bad "nbody ($s): no SEGREDUCE computing the pairs, their checks and the three sums in one pass"
  "$bin/nessie" emit "$tmp/nb200.nesl" --stage=c --scheduler=$s >"$tmp/f.c" 2>"$tmp/err" || bad "nbody ($s): emit C failed"
  ! grep -q 'rt_seg_of\|rt_seg_need_segof' "$tmp/f.c" || bad "nbody ($s): the generated C looks up segments per element"
done
# Segmented reductions over a nested apply-to-each (spmv's rows) and over a count bound.
cat >"$tmp/seg.nesl" <<'P'
function smvm(m, x) = {sum({v * x[c] : (c, v) in row}) : row in m} $
smvm([[(0, 1.0), (2, 2.0)], [] (int, float), [(1, 3.0)], [(0, 1.0), (1, 1.0), (2, 1.0)]], [1.0, 10.0, 100.0]) $
function tri(xs) = {sum({i * j : j in [0:i]}) : i in xs} $
tri([3, 0, 5, 1, 7]) $
P
"$bin/nessie" run "$tmp/seg.nesl" >"$tmp/seg.ast" 2>&1 || bad "seg.nesl: nessie run failed"
for s in none $scheds; do
  "$bin/nessie" emit "$tmp/seg.nesl" --stage=c --scheduler=$s >"$tmp/seg.c" 2>"$tmp/err" || { bad "seg.nesl ($s): emit C failed"; continue; }
  grep -q 'SEGREDUCE' "$tmp/seg.c" || bad "seg.nesl ($s): no SEGREDUCE in the generated C"
  awk '/\/\* SEGREDUCE ->/,/rt_fault_check/' "$tmp/seg.c" | grep -q 'rt_seg_of\|rt_seg_need_segof' &&
    bad "seg.nesl ($s): a SEGREDUCE's loop looks up segments per element"
  NESSIE_CACHE_DIR=$tmp/cache "$bin/nessie" run "$tmp/seg.nesl" --target=c --scheduler=$s >"$tmp/seg.c.out" 2>&1
  cmp -s "$tmp/seg.ast" "$tmp/seg.c.out" || bad "seg.nesl ($s): compiled output differs from nessie run"
done
# Faults in the fused pair kernel: a zero distance (division by zero), and a negative
# sqrt operand next to a zero denominator (both faults; every path reports the sqrt).
for r2 in 'd * d' 'd * d - 1.0'; do
  cat >"$tmp/err.nesl" <<P
function acc(p, ps) =
  let contribs = {let d = q - p; r2 = $r2 in 1.0 / (r2 * sqrt(r2)) : q in ps}
  in sum(contribs) \$
{acc(p, [0.0, 1.0, 3.0]) : p in [0.0, 1.0, 3.0]} \$
P
  "$bin/nessie" run "$tmp/err.nesl" >"$tmp/e.ast" 2>&1 && bad "r2 = $r2: nessie run did not fail"
  grep -q 'error: \(Divide by zero\|Sqrt of negative number\)\.' "$tmp/e.ast" || { bad "r2 = $r2: unexpected AST error"; cat "$tmp/e.ast"; }
  "$bin/nessie" run "$tmp/err.nesl" --interp=lcu >"$tmp/e.out" 2>&1
  cmp -s "$tmp/e.ast" "$tmp/e.out" || { bad "r2 = $r2: --interp=lcu differs from nessie run"; diff "$tmp/e.ast" "$tmp/e.out"; }
  for s in none $scheds; do
    NESSIE_CACHE_DIR=$tmp/cache "$bin/nessie" run "$tmp/err.nesl" --target=c --scheduler=$s >"$tmp/e.out" 2>&1
    cmp -s "$tmp/e.ast" "$tmp/e.out" || { bad "r2 = $r2 ($s): compiled differs from nessie run"; diff "$tmp/e.ast" "$tmp/e.out"; }
    "$bin/nessie" emit "$tmp/err.nesl" --stage=fused --scheduler=$s >"$tmp/e.lcu" 2>/dev/null
    [ $s = none ] || grep -q 'SEGREDUCE .*sqrt(.*(bor, bor, fadd)' "$tmp/e.lcu" || bad "r2 = $r2 ($s): the checks are not in the pair kernel"
  done
done
grep -q 'Sqrt of negative' "$tmp/e.ast" || bad "d * d - 1.0: nessie run did not report the sqrt"
exit $fail
