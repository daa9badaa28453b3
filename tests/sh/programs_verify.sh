#!/usr/bin/env bash
# programs_verify.sh — the benchmark programs (experiments/programs/*.nesl) compute what
# an independent Python model of each computes (experiments/programs/verify.py: sorted(),
# a monotone-chain hull, a direct sieve, the same float formulas), at the sizes of their
# golden tests (tests/programs/). Skipped without python3.
source "$(dirname "$0")/common.bash"
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
python3 experiments/programs/verify.py --bin="$bin" >"$tmp/out" 2>&1 || { bad "verify.py:"; cat "$tmp/out"; }
for f in experiments/programs/*.nesl; do
  n=$(basename "$f" .nesl)
  grep -q "^ok   $n(" "$tmp/out" || bad "$n is not verified by verify.py"
  [ -f "tests/programs/$n.nesl" ] || bad "$n has no golden test in tests/programs"
done
exit $fail
