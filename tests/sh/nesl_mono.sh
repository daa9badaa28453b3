#!/usr/bin/env bash
# nesl_mono.sh — `nessie emit --stage=mono` (compiler/mono/) on every program of
# tests/nesl that type-checks: the emit runs the pass's checker (mono_check;
# exit 3 when it fails), and the printed monomorphic program must
#   (a) type-check again (`nessie check`),
#   (b) hold no call of a generic function: every `function` it defines beyond the kept
#       generic definitions is an instance (`% mono: instance NAME of ...` comment), and
#   (c) print under `nessie run` exactly what the original prints, exit status included,
#       once the instances' own `NAME = fn : TYPE` lines (TYPE their ground type) are
#       dropped and error locations
#       are normalised (a message's file:line:col and the source line and caret after it
#       are the printed file's: the error text itself must be the same).
# The original's output is its .expected golden (with .exit), or a run of it when the
# golden runs another command (.args).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
n="$root/$NESSIE_BIN/nessie"
[ -x "$n" ] || n="$NESSIE_BIN/nessie"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NESL_DRAW_DIR="$tmp"

# file:line:col: prefixes dropped, with the source line and caret that follow them
norm() {
  awk '{
    if (match($0, /^[^ ]+:[0-9]+:[0-9]+: /)) {
      print substr($0, RLENGTH + 1)
      if ((getline l1) <= 0) next
      if ((getline l2) <= 0) { print l1; next }
      if (l2 !~ /^ *\^ *$/) { print l1; print l2 }
      next
    }
    print
  }' "$1"
}

fail=0
count=0
ninst=0
i=0
ran=0
every=1
case $n in *asan*) every=4 ;; esac
cd "$root"
for f in tests/nesl/*.nesl; do
  b=${f%.nesl}
  name=$(basename "$b")
  m="$tmp/$name.mono.nesl"
  "$n" emit "$f" --stage=mono >"$m" 2>"$tmp/err" </dev/null
  rc=$?
  [ $rc = 1 ] && continue # a syntax or type error: not a program run takes
  if [ $rc != 0 ]; then
    echo "FAIL: $name: emit --stage=mono exit $rc"; head -n 20 "$tmp/err"; fail=1; continue
  fi
  if ! "$n" check "$m" >/dev/null 2>"$tmp/err" </dev/null; then
    echo "FAIL: $name: the monomorphic program does not type-check"; head -n 10 "$tmp/err"; fail=1; continue
  fi
  grep -o '^% mono: instance [a-z0-9_]*' "$m" | awk '{print $4}' >"$tmp/names"
  # (b): every defined function is an instance or a kept definition of the original
  grep -o '^function [a-z0-9_]*' "$m" | awk '{print $2}' | sort -u >"$tmp/defs"
  grep -io '^ *function *[a-z0-9_]*' "$f" tests/nesl/lib/*.nesl 2>/dev/null | awk '{print tolower($NF)}' >"$tmp/orig"
  extra=$(sort -u "$tmp/names" "$tmp/orig" | comm -13 - "$tmp/defs")
  if [ -n "$extra" ]; then
    echo "FAIL: $name: functions that are neither the program's nor instances: $extra"; fail=1
  fi
  ninst=$((ninst + $(wc -l <"$tmp/names")))
  # (c); under ASan on every fourth program (the pass and its checker run on all; the
  # runs exercise the interpreter, which the golden tests run under ASan anyway)
  i=$((i + 1))
  [ $((i % every)) -eq 0 ] || { count=$((count + 1)); continue; }
  ran=$((ran + 1))
  extra=()
  if [ -f "$b.args" ]; then
    read -r -a a <"$b.args"
    [ "${a[0]}" = run ] && extra=("${a[@]:2}") # -e EXPR: on both programs
    timeout 300 "$n" run "$f" "${extra[@]}" >"$tmp/want" 2>&1 </dev/null
    want_rc=$?
  else
    cp "$b.expected" "$tmp/want"
    want_rc=0
    [ -f "$b.exit" ] && want_rc=$(tr -d ' \n' <"$b.exit")
  fi
  timeout 300 "$n" run "$m" "${extra[@]}" >"$tmp/got" 2>&1 </dev/null
  got_rc=$?
  # an instance's line is dropped only when it shows the instance's ground type (from
  # the `% NAME : TYPE %` comment before its definition): a signature that reads back
  # as generic (a type name taken for a type variable) stays and fails the diff. Its
  # context may list only variables its text never shows: the identities of function
  # parameters, which a signature cannot name (NESL.md 3.4: `(int -> int, int) -> int`
  # reads back as `... :: (a in any)`, in the reference too)
  awk 'function hidden_only(l,   i, j, t, n, k, parts, w) {
         i = index(l, " :: ("); j = index(l, " = fn : ")
         if (i == 0 || j == 0) return l
         t = " " substr(l, j + 8, i - j - 8) " "
         n = split(substr(l, i + 5, length(l) - i - 5), parts, "; ")
         for (k = 1; k <= n; k++) {
           split(parts[k], w, " ")
           if (t ~ ("[^a-z0-9_]" w[1] "[^a-z0-9_]")) return l
         }
         return substr(l, 1, i - 1)
       }
       FILENAME == ARGV[1] {
         if ($0 ~ /^% mono: instance /) { inst[$4] = 1; next }
         if ($0 ~ /^% [a-z0-9_]+ : .* %$/ && ($2 in inst)) want[$2 " = fn : " substr($0, length($2) + 6, length($0) - length($2) - 7)] = 1
         next
       }
       !(hidden_only($0) in want) { print }' "$m" "$tmp/got" >"$tmp/got2"
  if [ "$got_rc" != "$want_rc" ]; then
    echo "FAIL: $name: exit $got_rc, the original $want_rc"; head -n 5 "$tmp/got2"; fail=1
  elif ! diff <(norm "$tmp/want") <(norm "$tmp/got2") >"$tmp/d"; then
    echo "FAIL: $name: the monomorphic program prints differently"; head -n 10 "$tmp/d"; fail=1
  fi
  count=$((count + 1))
done
# the command line and what the pass refuses
expect() { # want-status pattern args...
  local want=$1 pat=$2; shift 2
  timeout 60 "$n" "$@" >"$tmp/out" 2>&1 </dev/null
  local got=$?
  if [ "$got" != "$want" ] || ! grep -q -- "$pat" "$tmp/out"; then
    echo "FAIL: nessie $*: exit $got (want $want), output:"; head -n 5 "$tmp/out"; fail=1
  fi
}
cat >"$tmp/polyrec.nesl" <<'EOF'
function pf(x, n) : (a, int) -> int :: (a in any) $
function pg(x, n) = if n == 0 then 0 else 1 + pf([x], n - 1) $
function pf(x, n) = pg(x, n) $
pf(1, 3) $
EOF
expect 0 "it = 3 : int" run "$tmp/polyrec.nesl"
expect 3 "polymorphic recursion" emit "$tmp/polyrec.nesl" --stage=mono
# the flattener reads mono's output: it stops there too (its own specialiser looped)
expect 3 "polymorphic recursion" run "$tmp/polyrec.nesl" --interp=lcu
printf 'function g(x) = x $\ng(1 + ) $\n' >"$tmp/syntax.nesl"
expect 1 "error: expected an expression" emit "$tmp/syntax.nesl" --stage=mono
expect 2 "show" emit "$tmp/polyrec.nesl" --stage=mono --show
expect 0 "function twice__int" emit tests/nesl/mono_generic.nesl --stage=mono --check

echo "nesl_mono: $count programs, $ninst instances, $ran runs compared"
[ $count -gt 100 ] || { echo "FAIL: only $count programs checked"; fail=1; }
[ $ninst -gt 500 ] || { echo "FAIL: only $ninst instances made"; fail=1; }
[ $ran -gt 25 ] || { echo "FAIL: only $ran runs compared"; fail=1; }
exit $fail
