#!/usr/bin/env bash
# A NESL let with 100,000 bindings: checked (locals are found through a name
# index, compiler/common/scope.c, not a walk down the scope stack) and run on
# the driver's 1 GB stack (compiler/common/stack.c).
set -u
cd "$(dirname "$0")/../.."
bin=${NESSIE_BIN:-bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { n = 100000; print "function chain(x) ="; print "let"
  for (i = 0; i < n; i++) printf "  v%d = x + %d;\n", i, i
  printf "in v%d;\nchain(5);\n", n - 1 }' >"$tmp/long.nesl"
out=$("$bin/nessie" run "$tmp/long.nesl" 2>&1)
want='chain = fn : int -> int
it = 100004 : int'
[ "$out" = "$want" ] || { echo "FAIL: got: $(echo "$out" | head -c 300)"; exit 1; }
