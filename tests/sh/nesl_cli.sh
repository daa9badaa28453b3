#!/usr/bin/env bash
# nesl_cli.sh — exit statuses and messages of `nessie check|run` on bad command lines
# and missing files (DESIGN.md: 0 ok, 1 user error, 2 bad command line, 3 internal).
set -u
n="$NESSIE_BIN/nessie"
fail=0
expect() { # expect STATUS DESCRIPTION CMD...
  local want=$1 what=$2
  shift 2
  "$@" >/tmp/nesl_cli.$$ 2>&1
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"
    cat /tmp/nesl_cli.$$
    fail=1
  fi
}
dir=$(mktemp -d)
trap 'rm -rf "$dir" /tmp/nesl_cli.$$' EXIT
printf 'function sq(x) = x * x $\nsq(3) $\n' >"$dir/ok.nesl"
expect 0 "run a program" "$n" run "$dir/ok.nesl"
expect 0 "check a program" "$n" check "$dir/ok.nesl"
expect 0 "run with -e" "$n" run "$dir/ok.nesl" -e 'sq(4)'
expect 1 "missing file" "$n" run "$dir/nope.nesl"
expect 2 "no file" "$n" run
expect 2 "unknown option" "$n" run --frobnicate "$dir/ok.nesl"
expect 2 "-e without expression" "$n" run "$dir/ok.nesl" -e
expect 2 "two files" "$n" check "$dir/ok.nesl" "$dir/ok.nesl"
expect 1 "error in -e" "$n" run "$dir/ok.nesl" -e 'sq(t)'
out=$("$n" run "$dir/ok.nesl" -e 'sq(4)' 2>&1)
want=$'sq = fn : a -> a :: (a in number)\nit = 9 : int\nit = 16 : int'
if [ "$out" != "$want" ]; then
  echo "FAIL: -e output:"
  echo "$out"
  fail=1
fi
out=$("$n" run "$dir/nope.nesl" 2>&1)
case "$out" in
  *"cannot open"*) ;;
  *) echo "FAIL: missing file message: $out"; fail=1 ;;
esac
exit $fail
