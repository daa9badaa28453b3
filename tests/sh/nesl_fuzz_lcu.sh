#!/usr/bin/env bash
# nesl_fuzz_lcu.sh — the flattening path agrees with the AST interpreter (issue 25):
# 300 random programs (bin/nessie-neslgen, seeds 1..300, 1..100 in the sanitizer build,
# which runs them several times slower; half of the batches ending
# with a deliberate run-time error) run with --interp=lcu (and each --scheduler that
# `nessie run` accepts) must print the same stdout and stderr and exit with the same
# status as with --interp=ast, byte for byte (experiments/nesl-fuzz.sh). Skipped
# while `nessie run` has no --interp=lcu.
source "$(dirname "$0")/common.bash"
echo '1 $' >"$tmp/t.nesl"
"$bin/nessie" run "$tmp/t.nesl" --interp=lcu >/dev/null 2>&1
if [ $? = 2 ]; then # a bad command line: the option does not exist yet
  echo "skipped: $bin/nessie run does not accept --interp=lcu yet"
  exit 77
fi
# The generated programs use `@` and int_string too (text formatting, lifted inside
# apply-to-each: compiler/flan/flan_text.c).
count=300
case $bin in *asan*) count=100 ;; esac
if ! bash experiments/nesl-fuzz.sh --count=$count --batch=25 --errors=50 --bin="$bin" \
  --out="$tmp/fuzz" >"$tmp/log" 2>&1; then
  bad "experiments/nesl-fuzz.sh:"
  cat "$tmp/log"
  # keep the minimised programs where a developer finds them
  mkdir -p build/nesl-fuzz-failures && cp -r "$tmp/fuzz"/seed-* build/nesl-fuzz-failures/ 2>/dev/null &&
    echo "failing programs copied to build/nesl-fuzz-failures/"
fi
grep -q 'files agree byte for byte' "$tmp/log" || { bad "no comparison was made"; cat "$tmp/log"; }
exit $fail
