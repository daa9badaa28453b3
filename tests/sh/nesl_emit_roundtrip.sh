#!/usr/bin/env bash
# nesl_emit_roundtrip.sh — `nessie emit --stage=ast` prints a checked program back as
# NESL; running that text must give exactly the original program's expected output.
# Covers every golden NESL test that runs successfully with default arguments.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
n="$root/$NESSIE_BIN/nessie"
[ -x "$n" ] || n="$NESSIE_BIN/nessie"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$root/tests/nesl/lib" "$tmp/"
fail=0
count=0
for f in "$root"/tests/nesl/*.nesl; do
  b=${f%.nesl}
  name=$(basename "$b")
  [ -f "$b.args" ] || [ -f "$b.exit" ] && continue
  if ! "$n" emit "$f" --stage=ast >"$tmp/$name.nesl" 2>"$tmp/$name.err"; then
    echo "FAIL: emit $name"; cat "$tmp/$name.err"; fail=1; continue
  fi
  (cd "$tmp" && timeout 300 "$n" run "$name.nesl" </dev/null >"$name.out" 2>&1)
  if ! diff -q "$tmp/$name.out" "$b.expected" >/dev/null; then
    echo "FAIL: $name: the emitted program behaves differently"
    diff "$b.expected" "$tmp/$name.out" | head -n 10
    fail=1
  fi
  count=$((count + 1))
done
[ $count -gt 50 ] || { echo "FAIL: only $count programs checked"; fail=1; }
exit $fail
