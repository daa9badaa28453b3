#!/usr/bin/env bash
# nesl_lcu.sh — every tests/nesl program run through the λcu pipeline (flattening,
# lowering, the λcu interpreter) gives byte for byte the output, errors and exit status
# of the reference AST interpreter: unfused, and fused by greedy-down, greedy-up, ilp-decomp
# and ilp-cg. Programs listed in tests/nesl/lcu_unsupported.txt (each with its reason)
# are not compared and never counted as passed, but must be refused (exit 3), never run
# wrongly; a listed program that now matches is reported so the list shrinks.
# NESL_LCU_SCHEDULERS overrides the scheduler list (the sanitizer build runs none and
# greedy-down unless it is given). NESL_LCU_PROGRAMS="a b" runs only those programs.
source "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."
list=tests/nesl/lcu_unsupported.txt
[ -f "$list" ] || { bad "missing $list"; exit 1; }
# The exact ILP is ilp-decomp (the reference model per may-fuse group): the eager
# reference model (`ilp`) has O(n^3) rows (43770 on a 25-invocation region of nbody)
# and GLPK spends minutes at its root, which no node limit bounds, now that deferred
# checks and hoisted barriers make regions of 25-50 invocations.
scheds=${NESL_LCU_SCHEDULERS:-none greedy-down greedy-up ilp-decomp ilp-cg}
# The sanitizer build is several times slower: it checks one fused pipeline; the plain
# build checks all five.
case $bin in *asan*) [ -n "${NESL_LCU_SCHEDULERS:-}" ] || scheds="greedy-down" ;; esac
compared=0 skipped=0 now_ok=()
for f in tests/nesl/*.nesl; do
  name=$(basename "$f" .nesl)
  [ -z "${NESL_LCU_PROGRAMS:-}" ] || [[ " $NESL_LCU_PROGRAMS " == *" $name "* ]] || continue
  b=${f%.nesl}
  extra=()
  if [ -f "$b.args" ]; then
    read -r -a a <"$b.args"
    [ "${a[0]}" = run ] || continue # check / emit programs test other commands
    extra=("${a[@]:2}")
  fi
  timeout 120 "$bin/nessie" run "$f" "${extra[@]}" --interp=ast >"$tmp/ast" 2>&1 </dev/null
  echo "exit $?" >>"$tmp/ast"
  if grep -q "^$name " "$list"; then
    skipped=$((skipped + 1))
    timeout 120 "$bin/nessie" run "$f" "${extra[@]}" --interp=lcu --check >"$tmp/lcu" 2>&1 </dev/null
    echo "exit $?" >>"$tmp/lcu"
    if cmp -s "$tmp/ast" "$tmp/lcu"; then
      now_ok+=("$name")
    elif [ "$(tail -n 1 "$tmp/lcu")" != "exit 3" ]; then # refused, never run wrongly
      bad "$f: listed as not supported, but --interp=lcu neither refuses it (exit 3) nor matches"
      diff "$tmp/ast" "$tmp/lcu" | head -n 6
    fi
    continue
  fi
  for s in $scheds; do
    opt=()
    [ "$s" = none ] || opt=(--scheduler="$s")
    # the reference ILP is exact and slow on the larger regions of flattened code
    # (a radix sort is 200 kernels in one region): its best schedule after 1 s a region
    case $s in ilp | ilp-decomp) opt+=(--work-limit=100000) ;; esac # bounded by work: any schedule it ends with must print the same
    timeout 120 "$bin/nessie" run "$f" "${extra[@]}" --interp=lcu --check "${opt[@]}" >"$tmp/lcu" 2>&1 </dev/null
    echo "exit $?" >>"$tmp/lcu"
    if ! cmp -s "$tmp/ast" "$tmp/lcu"; then
      bad "$f (scheduler $s): --interp=lcu differs from --interp=ast"
      diff "$tmp/ast" "$tmp/lcu" | head -n 10
    fi
  done
  compared=$((compared + 1))
done
echo "compared $compared programs (schedulers: $scheds); $skipped listed as not supported yet"
[ ${#now_ok[@]} -eq 0 ] || echo "listed but now identical unfused (remove from $list): ${now_ok[*]}"
# the list names only existing programs
while read -r n _; do
  case $n in '' | '#'*) continue ;; esac
  [ -f "tests/nesl/$n.nesl" ] || bad "$list names $n, which is not in tests/nesl"
done <"$list"
exit $fail
