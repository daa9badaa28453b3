#!/usr/bin/env bash
# nesl_build.sh — `nessie build PROG.nesl -o X && ./X` outside the test harness's
# conventions: relative paths, the binary run from its own directory, the runtime found
# next to the nessie binary, the default C flags and cache. The binary prints what
# `nessie run` prints; a type error in a later form builds nothing (exit 1), while
# `nessie run --target=c` prints the earlier forms' lines before reporting it, as the
# AST path does; `emit --stage=lcu --show` runs in the λcu interpreter with the same
# output.
source "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."
[ -f "$bin/nessie-rt/libnessie_rt.a" ] || { echo "SKIP: no runtime library in $bin/nessie-rt"; exit 77; }
command -v "${NESSIE_CC:-cc}" >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
nessie=$(cd "$bin" && pwd)/nessie
export NESSIE_CACHE_DIR=$tmp/cache
cp tests/nesl/dotprod.nesl "$tmp/"
"$nessie" run tests/nesl/dotprod.nesl >"$tmp/want" 2>&1
echo "exit $?" >>"$tmp/want"
(
  cd "$tmp" || exit 1
  "$nessie" build dotprod.nesl -o dp >build.log 2>&1 || { echo "build failed: $(head -n 3 build.log)"; exit 1; }
  [ -x dp ] || { echo "no binary dp"; exit 1; }
  ./dp >got 2>&1
  echo "exit $?" >>got
) || bad "nessie build dotprod.nesl -o dp (relative paths)"
cmp -s "$tmp/want" "$tmp/got" || { bad "./dp differs from nessie run"; diff "$tmp/want" "$tmp/got" | head; }
# the default output name: the file without directory and extension
(cd "$tmp" && "$nessie" build dotprod.nesl >/dev/null 2>&1 && [ -x dotprod ]) || bad "nessie build dotprod.nesl did not write ./dotprod"

# a type error after two good forms
printf 'a = [1, 2, 3];\nsum(a);\n1 + 2.0;\n4;\n' >"$tmp/late.nesl"
"$nessie" run "$tmp/late.nesl" >"$tmp/want" 2>&1
echo "exit $?" >>"$tmp/want"
grep -q '^it = 6 : int$' "$tmp/want" && grep -q 'error' "$tmp/want" || bad "late.nesl: nessie run did not print a line then an error"
"$nessie" run "$tmp/late.nesl" --target=c >"$tmp/got" 2>&1
echo "exit $?" >>"$tmp/got"
cmp -s "$tmp/want" "$tmp/got" || { bad "late.nesl: run --target=c differs from nessie run"; diff "$tmp/want" "$tmp/got" | head; }
(cd "$tmp" && "$nessie" build late.nesl -o late >late.log 2>&1)
rc=$?
[ $rc -eq 1 ] || bad "late.nesl: nessie build exited $rc, not 1"
[ ! -e "$tmp/late" ] || bad "late.nesl: nessie build wrote a binary for an ill-typed program"
grep -q 'error' "$tmp/late.log" || bad "late.nesl: nessie build gave no error message"

# emit --show: the λcu program nessie build compiles, run by the λcu interpreter
"$nessie" emit tests/nesl/dotprod.nesl --stage=fused --show >"$tmp/d.lcu" || bad "emit --show failed"
"$nessie" lcu run "$tmp/d.lcu" >"$tmp/got" 2>&1
echo "exit $?" >>"$tmp/got"
"$nessie" run tests/nesl/dotprod.nesl >"$tmp/want" 2>&1
echo "exit $?" >>"$tmp/want"
cmp -s "$tmp/want" "$tmp/got" || { bad "emit --show | lcu run differs from nessie run"; diff "$tmp/want" "$tmp/got" | head; }
grep -q 'show(' "$tmp/d.lcu" || bad "emit --show: no show in the program"
exit $fail
