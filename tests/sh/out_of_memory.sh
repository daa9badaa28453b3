#!/usr/bin/env bash
# Running out of memory is a limit of the machine, not a bug: a λcu program
# asking for an array larger than the address space allows gets
# "nessie: error: out of memory ..." and exit 1 (DESIGN.md: 1 = the input's
# fault), not an internal error (3) or a crash. Sanitizer builds reserve
# terabytes of address space, so there the test is skipped (77).
set -u
bin=${NESSIE_BIN:-bin}
case "$bin" in *asan*) echo "skipped in the sanitizer build: ASan reserves terabytes of address space"; exit 77 ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/big.lcu" <<'LCU'
kernel big(n : int) -> [int] {
  let a = MAP { i => i } (n)
  return a
}

function main(n : int) -> int {
  let a = run big(n) in
  length(a)
}
LCU
fail=0
out=$("$bin/nessie" lcu run "$tmp/big.lcu" 1000 2>&1)
[ "$out" = 1000 ] || { echo "FAIL small run: $out"; fail=1; }
# 4 GB of ints in a 3 GB address space
out=$( (ulimit -v 3000000 && "$bin/nessie" lcu run "$tmp/big.lcu" 1000000000) 2>&1)
st=$?
[ $st = 1 ] || { echo "FAIL exit $st (want 1): $out"; fail=1; }
echo "$out" | grep -q "^nessie: error: out of memory allocating 1000000000 x 4 bytes$" || {
  echo "FAIL message: $out"
  fail=1
}
exit $fail
