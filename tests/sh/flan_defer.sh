#!/usr/bin/env bash
# flan_defer.sh — deferred checks (compiler/flan/flan_defer.c): a checked division,
# rem, sqrt or ln no longer ends a fusion region (its fail_if runs after the stretch of
# kernels it is in), and a kernel whose iteration space was computed after a pending
# check runs the check first. The faults themselves (message, location, exit) are
# compared with the AST interpreter by nesl_lcu.sh on tests/nesl/err_defer_*.nesl.
source "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."

# 1. Three checks (sqrt, /, rem) inside one apply-to-each: one fusion region.
head -3 tests/nesl/err_defer_first.nesl >"$tmp/a.nesl"
"$bin/nessie" emit "$tmp/a.nesl" --stage=fused >"$tmp/a.out" 2>&1 || bad "emit a.nesl: $(cat "$tmp/a.out")"
grep -q '^// total: 1 regions' "$tmp/a.out" || bad "checked map is not one region: $(grep '^// total' "$tmp/a.out")"
"$bin/nessie" emit "$tmp/a.nesl" --stage=lcu >"$tmp/a.lcu" 2>&1 || bad "emit --stage=lcu a.nesl"
# the fail_ifs come after the last kernel of form_1
awk '/^function form_1/{f=1} f&&/run /{r=NR} f&&/fail_if/{if(!c)c=NR} f&&/^}/{exit} END{exit !(c>r)}' "$tmp/a.lcu" ||
  bad "a fail_if of form_1 precedes a kernel"

# 2. A size computed from a checked division: the check runs before the kernel (the
# flattener's program: the Flan optimiser folds this check of a literal divisor away).
printf 'function h(n) = let k = 10 / n in sum(dist(1, k - 20)) + k $\nh(2) $\n' >"$tmp/h.nesl"
"$bin/nessie" emit "$tmp/h.nesl" --stage=flan >"$tmp/h.lcu" 2>&1 || bad "emit h.nesl"
awk '/fail_if/{c=NR} /run dist_/{d=NR} END{exit !(c && d && c<d)}' "$tmp/h.lcu" ||
  bad "the division's check does not precede the dist kernel"
exit $fail
