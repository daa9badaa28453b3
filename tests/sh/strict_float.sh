#!/usr/bin/env bash
# The float policy (fusion/README.md, "Decisions"): fusion may reassociate a float
# reduction (PERMUTE into a REDUCE with fadd sums in source order, not in
# destination order), and --strict-float refuses exactly those fusions, so
# that fused results are bit-identical to the unfused interpreter's.
# Comparisons: with --strict-float, exact (cmp of the printed results); by
# default, equal up to float reassociation (relative difference below 1e-9),
# and at least one seed must differ in the last digits, or the exact check
# would test nothing. Integer reductions fuse under --strict-float too.
. "$(dirname "$0")/common.bash"
cat >"$tmp/pr.lcu" <<'LCU'
kernel rev(xs : [float]) -> [float] {
  let a = PERMUTE { i => xs[i] using xs } { i => #xs - 1 - i using xs } (#xs)
  return a
}
kernel sum(a : [float]) -> float {
  let s = REDUCE { i => a[i] using a } (fadd) (#a)
  return s
}
function main(xs : [float]) -> float {
  let a = run rev(xs) in
  run sum(a)
}
LCU
kernels() { grep -c '^kernel ' "$1"; }
"$bin/nessie" lcu fuse "$tmp/pr.lcu" --scheduler=ilp >"$tmp/f1" 2>&1 || bad "fuse failed: $(cat "$tmp/f1")"
[ "$(kernels "$tmp/f1")" = 1 ] || bad "by default PERMUTE into the float REDUCE should fuse: $(grep '^// region' "$tmp/f1")"
"$bin/nessie" lcu fuse "$tmp/pr.lcu" --scheduler=ilp --strict-float >"$tmp/f2" 2>&1 || bad "fuse --strict-float failed"
[ "$(kernels "$tmp/f2")" = 2 ] || bad "--strict-float fused the float PERMUTE into the REDUCE: $(grep '^// region' "$tmp/f2")"
"$bin/nessie" lcu fuse tests/fusion/permute_reduce.lcu --scheduler=ilp --strict-float >"$tmp/f3" 2>&1
[ "$(kernels "$tmp/f3")" = 1 ] || bad "--strict-float refused an integer PERMUTE into REDUCE"
"$bin/nessie" lcu fuse tests/lcu/dotprod.lcu --scheduler=ilp --strict-float >"$tmp/f4" 2>&1
[ "$(kernels "$tmp/f4")" = 1 ] || bad "--strict-float refused MAP into a float REDUCE (the order is kept)"

differ=0 runs=0
for seed in $(seq 1 30); do
  # Not --random-inputs: its floats are quarter steps, exact in any order.
  xs=$(awk -v s="$seed" 'BEGIN { srand(s); printf "["; for (i = 0; i < 40; i++) printf "%s%.17g", i ? ", " : "", rand() * 100 - 50; printf "]" }')
  run=(lcu run "$tmp/pr.lcu" "$xs")
  "$bin/nessie" "${run[@]}" >"$tmp/want" 2>&1 || { bad "seed $seed: unfused run failed"; continue; }
  for s in greedy-down greedy-up ilp ilp-cg exhaustive; do
    runs=$((runs + 1))
    "$bin/nessie" "${run[@]}" --scheduler=$s --strict-float >"$tmp/got" 2>&1 || bad "seed $seed $s --strict-float: run failed"
    cmp -s "$tmp/want" "$tmp/got" || bad "seed $seed $s --strict-float: $(cat "$tmp/got") instead of $(cat "$tmp/want")"
    "$bin/nessie" "${run[@]}" --scheduler=$s >"$tmp/got" 2>&1 || bad "seed $seed $s: run failed"
    cmp -s "$tmp/want" "$tmp/got" && continue
    differ=$((differ + 1))
    awk -v a="$(cat "$tmp/want")" -v b="$(cat "$tmp/got")" 'BEGIN {
      d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a
      exit !(d <= 1e-9 * (m > 1 ? m : 1)) }' || bad "seed $seed $s: $(cat "$tmp/got") is not $(cat "$tmp/want") up to reassociation"
  done
done
[ $differ -gt 0 ] || bad "no default run differed from the unfused one: the exact check above tests nothing"
echo "--strict-float: $runs runs bit-identical; by default $differ of $runs differ in the last digits"
exit $fail
