#!/usr/bin/env bash
# --check (issue 40): on `nessie run` and `emit`, the checked forms are also
# monomorphised and checked by mono_check (with NESSIE_CHECK_TRACE set, one line on
# stderr says so), and the program's output does not change (without it, exactly). Every tenth tests/nesl program (31 of them, a
# bound by count), through the AST interpreter, and three through --interp=lcu
# with fusion. Programs that expect an error exit are skipped (no line then).
. "$(dirname "$0")/common.bash"
k=0 n=0
for f in tests/nesl/*.nesl; do
  k=$((k + 1))
  [ $((k % 10)) = 1 ] || continue
  b=${f%.nesl}
  [ -f "$b.exit" ] && continue
  n=$((n + 1))
  NESSIE_CHECK_TRACE=1 "$bin/nessie" run "$f" --check >"$tmp/out" 2>"$tmp/err" || { bad "$f: run --check failed"; head -3 "$tmp/err"; continue; }
  grep -Eq '^nessie: --check: mono_check passed on [0-9]+ instances from [0-9]+ checked forms$' "$tmp/err" ||
    { bad "$f: no --check line"; head -3 "$tmp/err"; }
  grep -v '^nessie: --check: ' "$tmp/err" >>"$tmp/out"
  cmp -s "$tmp/out" "$b.expected" || bad "$f: output under --check differs from $b.expected"
done
[ "$n" -ge 20 ] || bad "only $n programs checked"
for p in merge_sort nbody quickhull; do
  NESSIE_CHECK_TRACE=1 "$bin/nessie" run "tests/nesl/$p.nesl" --check --interp=lcu --scheduler=ilp-cg >/dev/null 2>"$tmp/err" ||
    { bad "$p: run --check --interp=lcu failed"; head -3 "$tmp/err"; }
  grep -q '^nessie: --check: mono_check passed' "$tmp/err" || bad "$p: no --check line under --interp=lcu"
done
NESSIE_CHECK_TRACE=1 "$bin/nessie" emit tests/nesl/nbody.nesl --stage=mono --check >/dev/null 2>"$tmp/err" || bad "emit --stage=mono --check failed"
! grep -q -- '--check' "$tmp/err" || bad "emit --stage=mono ran mono_check twice"
# Without the trace, nothing is added to the output.
"$bin/nessie" run tests/nesl/nbody.nesl --check >"$tmp/out" 2>&1
cmp -s "$tmp/out" tests/nesl/nbody.expected || bad "run --check changes nbody's output"
exit $fail
