#!/usr/bin/env bash
# flan_opt.sh — the Flan optimiser (compiler/flan/flan_opt.c): `--stage=flan` (before it)
# and `--stage=lcu` (after it) both pass the λcu checker; a check of a literal divisor
# goes, a check of a variable one stays and still faults; shapes proved equal across a
# lifted recursive function give fewer kernels after fusion; and `--no-opt` runs agree
# with the optimised ones and with the AST interpreter. nesl_lcu.sh compares every
# tests/nesl program with the optimiser on.
source "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."

emit() { # emit FILE STAGE [OPTS...] > stdout; fails the test on a non-zero exit
  local f=$1 s=$2
  shift 2
  "$bin/nessie" emit "$f" --stage="$s" "$@" 2>"$tmp/err" || bad "emit $f --stage=$s $*: $(head -3 "$tmp/err")"
}
total() { grep '^// total:' | sed 's/.*kernels [0-9]* -> \([0-9]*\),.*/\1/'; }

# 1. Both stages print programs the checker takes, and the optimiser changed something.
for p in tests/nesl/quicksort.nesl tests/nesl/nbody.nesl tests/nesl/empty_poly.nesl; do
  n=$(basename "$p" .nesl)
  emit "$p" flan >"$tmp/$n.flan"
  emit "$p" lcu >"$tmp/$n.lcu"
  "$bin/nessie" lcu check "$tmp/$n.flan" >/dev/null 2>&1 || bad "$n: --stage=flan does not check"
  "$bin/nessie" lcu check "$tmp/$n.lcu" >/dev/null 2>&1 || bad "$n: --stage=lcu does not check"
  cmp -s "$tmp/$n.flan" "$tmp/$n.lcu" && bad "$n: the optimiser changed nothing"
done

# 2. rem by a literal: its check (REDUCE bor of `46337 == 0`, fail_if) is gone.
cat >"$tmp/rem.nesl" <<'EOF'
function h(i) = rem(rem(i, 46337) * 7919 + 13, 46337) $
{h(i) : i in [0:10]} $
EOF
dz="'D', 'i', 'v', 'i', 'd', 'e'" # the message, as λcu prints a [char] literal
a=$(emit "$tmp/rem.nesl" flan | grep -c "$dz")
b=$(emit "$tmp/rem.nesl" lcu | grep -c "$dz")
[ "$a" -ge 2 ] && [ "$b" = 0 ] || bad "rem by a literal: $a division checks before, $b after (want >= 2, 0)"
ka=$(emit "$tmp/rem.nesl" fused --no-opt | total)
kb=$(emit "$tmp/rem.nesl" fused | total)
[ -n "$ka" ] && [ -n "$kb" ] && [ "$kb" -lt "$ka" ] || bad "rem by a literal: kernels after fusion $ka unoptimised, $kb optimised"

# 3. rem by a variable keeps its check, and a zero still faults as in the AST interpreter.
cat >"$tmp/var.nesl" <<'EOF'
function g(s, d) = {rem(x, d) : x in s} $
g([1, 2, 3], 2) $
g([1, 2, 3], 0) $
EOF
for m in ast lcu; do
  "$bin/nessie" run "$tmp/var.nesl" --interp=$m >"$tmp/var.$m" 2>&1
  echo "exit $?" >>"$tmp/var.$m"
done
cmp -s "$tmp/var.ast" "$tmp/var.lcu" || bad "rem by a variable: --interp=lcu differs: $(diff "$tmp/var.ast" "$tmp/var.lcu" | head -5)"
grep -q 'Divide by zero' "$tmp/var.lcu" || bad "rem by a variable zero: no fault"

# 4. Shapes and common subexpressions in the lifted quicksort: the three filters'
#    `seg_total` of one descriptor and their copies of the pivot row are computed once,
#    and fewer kernels remain after fusion.
ka=$(emit tests/nesl/quicksort.nesl fused --no-opt --scheduler=greedy-down | total)
kb=$(emit tests/nesl/quicksort.nesl fused --scheduler=greedy-down | total)
[ -n "$ka" ] && [ -n "$kb" ] && [ "$kb" -lt "$ka" ] || bad "quicksort: kernels after fusion $ka unoptimised, $kb optimised"
lifted() { awk '/^function qsort_lifted/{f=1} f&&/^}/{exit} f' "$1"; }
for w in 'seg_total(' 'run '; do
  n_flan=$(lifted "$tmp/quicksort.flan" | grep -o "$w" | wc -l)
  n_lcu=$(lifted "$tmp/quicksort.lcu" | grep -o "$w" | wc -l)
  [ "$n_flan" -gt 0 ] && [ "$n_lcu" -lt "$n_flan" ] || bad "quicksort's lifted function: '$w' $n_flan times before, $n_lcu after"
done

# 5. --no-opt and the optimiser agree with the AST interpreter on programs with lifted
#    recursion, conditionals and faults.
for p in quicksort quickhull empty_poly err_defer_first bitonic_sort; do
  f=tests/nesl/$p.nesl
  [ -f "$f" ] || { bad "missing $f"; continue; }
  "$bin/nessie" run "$f" --interp=ast >"$tmp/ast" 2>&1 </dev/null
  echo "exit $?" >>"$tmp/ast"
  for o in --no-opt ""; do
    "$bin/nessie" run "$f" --interp=lcu --scheduler=greedy-down $o >"$tmp/lcu" 2>&1 </dev/null
    echo "exit $?" >>"$tmp/lcu"
    cmp -s "$tmp/ast" "$tmp/lcu" || bad "$p ${o:-(optimised)}: --interp=lcu differs from --interp=ast"
  done
done
exit $fail
