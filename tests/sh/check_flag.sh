#!/usr/bin/env bash
# --check (issue 40): every stage's invariant checker runs after it (the stage table,
# compiler/driver/stages.c; compiler/README.md), and the output does not change.
#  - Every fifth tests/nesl program (a bound by count) through `run --interp=lcu
#    --scheduler=greedy-down --check`: with NESSIE_CHECK_TRACE set, one stderr line per
#    stage names its checker and how often it passed (ast, mono, flan, lcu, fused, in
#    the pipeline's order); the rest of the output is the program's .expected. Every
#    tenth also through the AST interpreter (ast and mono checked). Programs that expect
#    an error exit are skipped.
#  - Mutants: NESSIE_CHECK_MUTATE=STAGE breaks that stage's output just before its
#    checker runs; the checker must report it (exit 3, its name in the message).
#  - emit --stage=mono checks once; without the trace, nothing is added to the output.
. "$(dirname "$0")/common.bash"
stages='ast mono flan lcu fused'
k=0 n=0
for f in tests/nesl/*.nesl; do
  k=$((k + 1))
  [ $((k % 5)) = 1 ] || continue
  b=${f%.nesl}
  [ -f "$b.exit" ] || [ -f "$b.args" ] && continue
  n=$((n + 1))
  NESSIE_CHECK_TRACE=1 timeout 120 "$bin/nessie" run "$f" --interp=lcu --scheduler=greedy-down --check \
    >"$tmp/out" 2>"$tmp/err" </dev/null || { bad "$f: run --check failed"; head -3 "$tmp/err"; continue; }
  got=$(sed -n 's/^nessie: --check: \([a-z]*\): [a-z_ ]* passed [0-9]* times*$/\1/p' "$tmp/err" | tr '\n' ' ')
  # a program without a runnable form has no flan, lcu or fused stage
  want=$stages
  grep -q '^nessie: --check: flan' "$tmp/err" || want='ast mono'
  [ "$got" = "$want " ] || bad "$f: --check ran the checkers of '$got', not '$want'"
  grep -v '^nessie: --check: ' "$tmp/err" >>"$tmp/out"
  cmp -s "$tmp/out" "$b.expected" || bad "$f: output under --check differs from $b.expected"
  if [ $((k % 10)) = 1 ]; then
    NESSIE_CHECK_TRACE=1 "$bin/nessie" run "$f" --check >"$tmp/out" 2>"$tmp/err" </dev/null ||
      { bad "$f: run --check (AST interpreter) failed"; continue; }
    got=$(sed -n 's/^nessie: --check: \([a-z]*\): .*/\1/p' "$tmp/err" | tr '\n' ' ')
    [ "$got" = "ast mono " ] || bad "$f: the AST interpreter's --check ran '$got'"
  fi
done
[ "$n" -ge 40 ] || bad "only $n programs checked"
# Each checker finds its stage's output broken.
declare -A checker=([ast]=nesl_verify_decl [mono]=mono_check [flan]=lcu_check [lcu]=lcu_check [fused]=lcu_check)
for s in $stages; do
  NESSIE_CHECK_MUTATE=$s "$bin/nessie" run tests/nesl/nbody.nesl --interp=lcu --scheduler=greedy-down --check \
    >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc = 3 ] || bad "mutant $s: exit $rc, not 3"
  grep -q "error: the $s stage .* fails ${checker[$s]} (a bug)" "$tmp/err" || { bad "mutant $s: no message from ${checker[$s]}"; tail -2 "$tmp/err"; }
done
# flan's and lcu's checkers run without --check too
for s in flan lcu; do
  NESSIE_CHECK_MUTATE=$s "$bin/nessie" run tests/nesl/nbody.nesl --interp=lcu >/dev/null 2>"$tmp/err"
  grep -q "fails lcu_check" "$tmp/err" || bad "mutant $s without --check: not found"
done
NESSIE_CHECK_MUTATE=ast "$bin/nessie" run tests/nesl/nbody.nesl >"$tmp/out" 2>&1 ||
  bad "mutant ast without --check: the checker ran"
NESSIE_CHECK_TRACE=1 "$bin/nessie" emit tests/nesl/nbody.nesl --stage=mono --check >/dev/null 2>"$tmp/err" ||
  bad "emit --stage=mono --check failed"
grep -q '^nessie: --check: mono: mono_check passed 1 time$' "$tmp/err" || bad "emit --stage=mono: mono_check not once"
# Without the trace, nothing is added to the output.
"$bin/nessie" run tests/nesl/nbody.nesl --check >"$tmp/out" 2>&1
cmp -s "$tmp/out" tests/nesl/nbody.expected || bad "run --check changes nbody's output"
# The stages emit names, in the pipeline's order.
"$bin/nessie" emit tests/nesl/nbody.nesl --stage=nope >/dev/null 2>"$tmp/err"
grep -q "unknown stage 'nope' (ast, mono, flan, lcu, fused, c, cuda)" "$tmp/err" || bad "emit --stage=nope: $(cat "$tmp/err")"
exit $fail
