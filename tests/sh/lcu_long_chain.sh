#!/usr/bin/env bash
# A long chain of lets (one region of a generated program is one) must not
# overflow the stack in any pass: the tools run on a 1 GB stack
# (compiler/common/stack.c), where 100,000 lets are checked, run, fused and
# benchmarked (with the default 8 MB stack 60,000 crashed `nessie lcu check`),
# and the parser refuses chains longer than 1,000,000 with an error.
set -u
cd "$(dirname "$0")/../.."
bin=${NESSIE_BIN:-bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
chain() { # chain N: main(x) = x + N - 1 through N lets
  awk -v n="$1" 'BEGIN { print "function main(x : int) -> int {"
    for (i = 0; i < n; i++) printf "  let v%d = x + %d in\n", i, i
    printf "  v%d\n}\n", n - 1 }'
}
chain 100000 >"$tmp/c.lcu"
"$bin/nessie" lcu check "$tmp/c.lcu" >"$tmp/o" 2>&1 || bad "check: $(tail -c 200 "$tmp/o")"
[ "$("$bin/nessie" lcu run "$tmp/c.lcu" 5 2>&1)" = 100004 ] || bad "run of 100,000 lets"
[ "$("$bin/nessie" lcu run "$tmp/c.lcu" 5 --scheduler=greedy-down 2>&1)" = 100004 ] || bad "fused run of 100,000 lets"
"$bin/nessie-bench" --scheduler=greedy-up "$tmp/c.lcu" >"$tmp/o" 2>&1 || bad "nessie-bench: $(tail -c 200 "$tmp/o")"
chain 1000001 >"$tmp/d.lcu"
"$bin/nessie" lcu check "$tmp/d.lcu" >"$tmp/o" 2>&1; st=$?
[ $st = 1 ] && grep -q "more than 1000000 lets or else-branches in one chain" "$tmp/o" ||
  bad "1,000,001 lets: status $st, $(head -c 200 "$tmp/o")"
exit $fail
