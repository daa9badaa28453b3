#!/usr/bin/env bash
# nesl_lcu_print_order.sh — printing inside an apply-to-each under --interp=lcu
# (compiler/flan/flan_text.c): a lifted print writes all its rows at once, so where the
# AST interpreter's element-by-element order would differ the flattener either runs the
# apply-to-each element by element (two print sites in it, a print in a recursive
# function called in it) or refuses the program (exit 3, "not supported": where it
# cannot run them one by one, inside a lambda's body), never prints in another order;
# with one site, also under a sieve, a one-sided conditional or a nested
# apply-to-each, and in the cases run one by one, the output is the AST interpreter's
# byte for byte.
source "$(dirname "$0")/common.bash"
refused() { # refused NAME SOURCE
  printf '%s\n' "$2" >"$tmp/$1.nesl"
  "$bin/nessie" run "$tmp/$1.nesl" --interp=lcu >"$tmp/out" 2>&1 </dev/null
  local rc=$?
  [ $rc = 3 ] || bad "$1: exit $rc, expected 3"
  grep -q "not supported by the flattener yet: .*order" "$tmp/out" || bad "$1: $(cat "$tmp/out")"
}
refused in_lambda 'function g(x) = let p = print_string(@x) in if x > 0 then g(x - 1) else 0 $
let h = (y => {g(x + y) : x in [1, 2]}) in h(1) $'
cat >"$tmp/ok.nesl" <<'NESL'
{print_string("x") : a in [1, 2, 3]} $
{print_string(@a) : a in [1, 2, 3] | a /= 2} $
{if a > 1 then print_string(@a) else f : a in [1, 2, 3]} $
{{print_string(@b) : b in a} : a in [[1, 2], [] int, [3]]} $
function h(x) = let p = print_string(@x) in if x > 0 then h(x - 1) else 0 $
h(3) $
{if x > 2 then print_string(@x) else print_string("<") : x in [1, 5, 2]} $
{let a = print_string("a"); b = print_string("b") in x : x in [1, 2]} $
{{let a = print_string("<" ++ @x); b = print_string(@y ++ ">") in x + y : y in [0:x]} : x in [0:4]} $
function g(x) = let p = print_string(@x) in if x > 0 then g(x - 1) else 0 $
{g(x) : x in [1, 2]} $
function qs(s) = if #s < 2 then s else
  let p = s[0]; tr = print_string("[" ++ @p ++ "]");
      r = {qs(v) : v in [{x in s | x < p}, {x in s | x > p}]}
  in r[0] ++ {x in s | x == p} ++ r[1] $
{qs(s) : s in [[3, 1, 4, 1, 5, 9, 2, 6], [2, 1]]} $
NESL
"$bin/nessie" run "$tmp/ok.nesl" --interp=ast >"$tmp/ast" 2>&1 </dev/null
echo "exit $?" >>"$tmp/ast"
for s in none greedy-down; do
  opt=()
  [ $s = none ] || opt=(--scheduler=$s)
  "$bin/nessie" run "$tmp/ok.nesl" --interp=lcu "${opt[@]}" >"$tmp/lcu" 2>&1 </dev/null
  echo "exit $?" >>"$tmp/lcu"
  cmp -s "$tmp/ast" "$tmp/lcu" || { bad "one print site ($s) differs from --interp=ast"; diff "$tmp/ast" "$tmp/lcu" | head; }
done
grep -q '^123it' "$tmp/ast" || bad "the reference output changed: $(cat "$tmp/ast")"
exit $fail
