#!/usr/bin/env bash
# flan_defer.sh — deferred checks (compiler/flan/flan_defer.c): a checked division,
# rem, sqrt or ln no longer ends a fusion region (its fail_if runs after the stretch of
# kernels it is in), and a kernel whose iteration space was computed after a pending
# check runs the check first. The faults themselves (message, location, exit) are
# compared with the AST interpreter by nesl_lcu.sh on tests/nesl/err_defer_*.nesl.
# 3. The checks of indexing (a[i] of tuples, ->, permute), ranges, the lengths of a
# two-generator apply-to-each and the basis' __error checks (<-) are deferred too: in
# err_defer_KIND_{first,later}.nesl, the form before the failing one runs no kernel
# after the first of its two checks (the check of KIND and a division's); a range
# after a pending check waits (its length is a size computed in the stretch), and so
# does pack's new segment descriptor.
# 4. Garbage an index check lets through while it is pending never becomes a huge
# iteration space: each program faults as the AST interpreter does, after a few dozen
# SOAC elements (--stats), though its bad index or length is 2e9.
source "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."

# 1. Three checks (sqrt, /, rem) inside one apply-to-each: one fusion region.
head -3 tests/nesl/err_defer_first.nesl >"$tmp/a.nesl"
"$bin/nessie" emit "$tmp/a.nesl" --stage=fused >"$tmp/a.out" 2>&1 || bad "emit a.nesl: $(cat "$tmp/a.out")"
grep -q '^// total: 1 regions' "$tmp/a.out" || bad "checked map is not one region: $(grep '^// total' "$tmp/a.out")"
"$bin/nessie" emit "$tmp/a.nesl" --stage=lcu >"$tmp/a.lcu" 2>&1 || bad "emit --stage=lcu a.nesl"
# the fail_ifs come after the last kernel of form_1
awk '/^function form_1/{f=1} f&&/run /{r=NR} f&&/fail_if/{if(!c)c=NR} f&&/^}/{exit} END{exit !(c>r)}' "$tmp/a.lcu" ||
  bad "a fail_if of form_1 precedes a kernel"

# 2. A size computed from a checked division: the check runs before the kernel (the
# flattener's program: the Flan optimiser folds this check of a literal divisor away).
printf 'function h(n) = let k = 10 / n in sum(dist(1, k - 20)) + k $\nh(2) $\n' >"$tmp/h.nesl"
"$bin/nessie" emit "$tmp/h.nesl" --stage=flan >"$tmp/h.lcu" 2>&1 || bad "emit h.nesl"
awk '/fail_if/{c=NR} /run dist_/{d=NR} END{exit !(c && d && c<d)}' "$tmp/h.lcu" ||
  bad "the division's check does not precede the dist kernel"
# 3.
# joined LCU MSG1 MSG2: in the last form, no kernel runs after the first fail_if with
# either message (the message is a literal or a string let)
joined() {
  awk -v m1="$2" -v m2="$3" '
    function msg(s,   r) { r = s; gsub(/[^a-zA-Z]/, "", r); return r }
    BEGIN { a = msg(m1); b = msg(m2) }
    /^function form_/ { inform = 1; seen = 0; runafter = 0; na = 0; nb = 0 }
    inform && /= \[/ { split($0, w, " "); lit[w[2]] = msg(substr($0, index($0, "="))) }
    inform && /fail_if/ {
      t = msg($0)
      if (match($0, /fail_if\([a-z_0-9]+, [a-z_0-9]+\)/)) { split(substr($0, RSTART + 8, RLENGTH - 9), xs, ", "); t = lit[xs[2]] }
      if (index(t, a)) { na++; seen = 1 }
      if (index(t, b)) { nb++; seen = 1 }
    }
    inform && seen && /= run / { runafter = 1 }
    inform && /^}/ { inform = 0; last = (na && nb) ? (runafter ? "split" : "joined") : "missing" }
    END { print last }' "$1"
}
for kind in nested read permute range zip zip_rows pack error; do
  msg=$(sed -n 's/.*error: //p' "tests/nesl/err_defer_${kind}_first.expected")
  [ -n "$msg" ] || bad "err_defer_${kind}_first.expected has no error"
  for v in first later; do
    f=tests/nesl/err_defer_${kind}_$v.nesl
    head -n -1 "$f" >"$tmp/ok.nesl" # (the flattener's program: the optimiser folds checks of literals)
    "$bin/nessie" emit "$tmp/ok.nesl" --stage=flan >"$tmp/ok.lcu" 2>&1 || bad "emit the forms of $f before its last"
    want=joined
    # waits for the checks: a range's length computed after a pending check; the
    # segment descriptor of pack's result (the counts are computed in the stretch)
    case "$kind $v" in "range later" | pack*) want=split ;; esac
    got=$(joined "$tmp/ok.lcu" "$msg" "Divide by zero.")
    [ "$got" = "$want" ] || bad "$f: the checks of its last form are $got, not $want"
  done
done

# 4.
cat >"$tmp/garbage.txt" <<'G'
{#a[i] + 10 / (i - 1) : i in [0, 2000000000, 1]} $
{#a[i] : i in [0, -2000000000, 1]} $
[[1], [2]] -> [1, 2000000000] $
{s -> [0, 2000000000] : s in [a, a]} $
permute([[1], [2]], [2000000000, 0]) $
{permute(s, [2000000000, 0, 1]) : s in [a, a]} $
{permute(s, [0, 1]) : s in [a, a]} $
{[0:i:k] : i in [5, 2000000000]; k in [1, 0]} $
{[i:j] : i in [2000000000, 0]; j in [-2000000000, 3]} $
[0:2000000000:0] $
{dist(x, y) : x in [1, 2]; y in [3, 2000000000, 5]} $
{{x + y : x in a; y in b} : a in [[1, 2], [3, 9]]; b in [[4, 5, 2000000000], [6]]} $
__pack2([1, 2, 3], [t, f]) $
{__pack2(s, fl) : s in [[1, 2], [3, 4]]; fl in [[t, t], [f]]} $
[1, 2, 3] <- [(2000000000, 5)] $
take([1, 2, 3], 2000000000) $
{take(s, k) : s in [[1, 2, 3], [4]]; k in [1, 2000000000]} $
let k = 10 / 0 in dist(1, k + 2000000000) $
G
while IFS= read -r form; do
  printf 'a = [[1, 2], [3], [4, 5, 6]] $\n%s\n' "$form" >"$tmp/g.nesl"
  "$bin/nessie" run "$tmp/g.nesl" --interp=ast >"$tmp/g.ast" 2>&1
  echo "exit $?" >>"$tmp/g.ast"
  "$bin/nessie" run "$tmp/g.nesl" --interp=lcu --stats >"$tmp/g.lcu" 2>"$tmp/g.err"
  echo "exit $?" >>"$tmp/g.lcu"
  grep -v '^lcu stats:' "$tmp/g.err" >>"$tmp/g.lcu"
  sort "$tmp/g.ast" >"$tmp/g.a"
  sort "$tmp/g.lcu" >"$tmp/g.l"
  grep -q 'exit 1' "$tmp/g.ast" || bad "$form: the AST interpreter does not fault"
  cmp -s "$tmp/g.a" "$tmp/g.l" || bad "$form: --interp=lcu differs from --interp=ast: $(diff "$tmp/g.a" "$tmp/g.l" | head -4)"
  n=$(sed -n 's/^lcu stats: .* \([0-9]*\) elements$/\1/p' "$tmp/g.err")
  [ -n "$n" ] && [ "$n" -lt 10000 ] || bad "$form: ${n:-no} SOAC elements counted (garbage became a size?)"
done <"$tmp/garbage.txt"
exit $fail
