#!/usr/bin/env bash
# nesl_c.sh — every tests/nesl program that goes through the λcu pipeline
# (tests/sh/nesl_lcu.sh: all but tests/nesl/lcu_unsupported.txt) compiled to native
# code (`nessie run PROG.nesl --target=c`: flattening, the `show` of each form, C,
# the runtime) prints byte for byte what the AST interpreter prints, on stdout and on
# stderr, with the same exit status: fused by greedy-down (and unfused with
# NESL_C_SCHEDULERS="none greedy-down"). Programs that
# go through --interp=lcu but not through C are failures unless listed in
# tests/nesl/c_unsupported.txt with a reason (printed). NESL_C_SCHEDULERS overrides
# the scheduler list; the sanitizer build compiles every eighth program unless
# NESL_C_ALL is set; NESL_C_PROGRAMS="a b" runs only those programs. The C compiler runs at -O0 (NESSIE_CFLAGS: a flattened program is
# up to 1 MB of C, which -O1 compiles five times slower) with a private cache.
source "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."
list=tests/nesl/lcu_unsupported.txt own=tests/nesl/c_unsupported.txt
[ -f "$list" ] || { bad "missing $list"; exit 1; }
[ -f "$own" ] || { bad "missing $own"; exit 1; }
[ -f "$bin/nessie-rt/libnessie_rt.a" ] || { echo "SKIP: no runtime library in $bin/nessie-rt"; exit 77; }
command -v "${NESSIE_CC:-cc}" >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
export NESSIE_CACHE_DIR=$tmp/cache NESSIE_CFLAGS=${NESSIE_CFLAGS:--O0}
# flattened programs run thousands of tiny kernels: OpenMP's spinning threads make them
# many times slower on a shared, loaded machine (the output does not depend on it)
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# By default the fused pipeline (greedy-down) on every program, and the sanitizer build every
# 8th program, so that `make test` stays short; NESL_C_SCHEDULERS="none greedy-down" and
# NESL_C_ALL=1 give the full run.
scheds=${NESL_C_SCHEDULERS:-greedy-down}
every=1
case $bin in *asan*) [ -n "${NESL_C_ALL:-}" ] || every=8 ;; esac
grep -v '^#' "$own" | grep . | sed 's/^/not compiled (tests\/nesl\/c_unsupported.txt): /'
compared=0 i=0 listed=0 lcu_fail=0 now_ok=()
for f in tests/nesl/*.nesl; do
  name=$(basename "$f" .nesl)
  [ -z "${NESL_C_PROGRAMS:-}" ] || [[ " $NESL_C_PROGRAMS " == *" $name "* ]] || continue
  b=${f%.nesl}
  extra=()
  if [ -f "$b.args" ]; then
    read -r -a a <"$b.args"
    [ "${a[0]}" = run ] || continue # check / emit programs test other commands
    extra=("${a[@]:2}")
  fi
  grep -q "^$name " "$list" && continue
  i=$((i + 1))
  [ $((i % every)) -eq 0 ] || continue
  timeout 120 "$bin/nessie" run "$f" "${extra[@]}" --interp=ast >"$tmp/ast.out" 2>"$tmp/ast.err" </dev/null
  echo "exit $?" >>"$tmp/ast.out"
  if grep -q "^$name " "$own"; then
    listed=$((listed + 1))
    timeout 900 "$bin/nessie" run "$f" "${extra[@]}" --target=c >"$tmp/c.out" 2>"$tmp/c.err" </dev/null
    echo "exit $?" >>"$tmp/c.out"
    cmp -s "$tmp/ast.out" "$tmp/c.out" && cmp -s "$tmp/ast.err" "$tmp/c.err" && now_ok+=("$name")
    continue
  fi
  lcu_ok=unknown
  for s in $scheds; do
    opt=()
    [ "$s" = none ] || opt=(--scheduler="$s")
    timeout 900 "$bin/nessie" run "$f" "${extra[@]}" --target=c "${opt[@]}" >"$tmp/c.out" 2>"$tmp/c.err" </dev/null
    echo "exit $?" >>"$tmp/c.out"
    if ! cmp -s "$tmp/ast.out" "$tmp/c.out" || ! cmp -s "$tmp/ast.err" "$tmp/c.err"; then
      if [ $lcu_ok = unknown ]; then # a program nesl_lcu.sh fails on (its list is behind) is not ours
        timeout 120 "$bin/nessie" run "$f" "${extra[@]}" --interp=lcu >"$tmp/l.out" 2>"$tmp/l.err" </dev/null
        echo "exit $?" >>"$tmp/l.out"
        lcu_ok=yes
        cmp -s "$tmp/ast.out" "$tmp/l.out" && cmp -s "$tmp/ast.err" "$tmp/l.err" || lcu_ok=no
      fi
      if [ $lcu_ok = no ]; then
        echo "not compared: $name fails under --interp=lcu too (tests/sh/nesl_lcu.sh reports it)"
        lcu_fail=$((lcu_fail + 1))
        continue 2
      fi
      bad "$f (scheduler $s): the compiled program differs from nessie run"
      diff "$tmp/ast.out" "$tmp/c.out" | head -n 6
      diff "$tmp/ast.err" "$tmp/c.err" | head -n 6
    fi
  done
  compared=$((compared + 1))
done
echo "compared $compared programs compiled (schedulers: $scheds; every ${every}th program); $listed listed in $own; $lcu_fail failing under --interp=lcu"
[ ${#now_ok[@]} -eq 0 ] || echo "listed but now identical (remove from $own): ${now_ok[*]}"
[ "$compared" -gt 0 ] || bad "no program compared"
while read -r n _; do
  case $n in '' | '#'*) continue ;; esac
  [ -f "tests/nesl/$n.nesl" ] || bad "$own names $n, which is not in tests/nesl"
done <"$own"
exit $fail
