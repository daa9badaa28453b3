#!/usr/bin/env bash
# The --float32 experiment switch of the C back end (compiler/codegen/README.md,
# "The --float32 experiment"):
#  1. Every tests/lcu program that uses floats and runs, alternately unfused and
#     fused (ilp), and four benchmark programs (tests/programs: blackscholes, nbody, linefit,
#     dotprod), built both ways: the --float32 binary exits as the default one does
#     and prints the same text, integers and floats, the floats within a relative
#     1e-4 (linefit: 1e-2, see below; tests/sh/float32_agree.py parses them); at least one program prints
#     different text (so the switch does something). Excluded, named below: programs
#     whose values leave single precision's range or that print floats as text.
#  2. The generated C and CUDA under the switch have no `double` anywhere except at
#     the documented boundary: the result cells' widening in the entry glue, the
#     kernel clock (rt_now) and the file's header comment; the .cu type-checks with
#     g++ against the runtime stand-in (tests/sh/float32_nvcc.sh builds with nvcc).
#  3. The profile CSV counts 4 bytes per float element under the switch (8 without).
#  4. The binary cache keeps the two builds apart (two entries, each printing its
#     own result), also for a program without floats.
#  5. NESL's hash of a float, a float-to-int fault, and the usage errors.
# The sanitizer build does every third tests/lcu program and one benchmark.
. "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."
command -v python3 >/dev/null || { echo "skipped: python3 is needed to compare the printed floats"; exit 77; }
agree=tests/sh/float32_agree.py
# warnings are failures; the run's cache (tests/run.sh: c_backend_golden.sh builds the
# default-precision tests/lcu programs at the same flags)
export NESSIE_CACHE_DIR=${NESSIE_TEST_CACHE:-$tmp/cache} NESSIE_CFLAGS="-O2 -Wall -Wextra -Werror"
every=1 benches="blackscholes nbody linefit dotprod" gxx=$(command -v g++)
# the sanitizer build: a third of the programs, one benchmark, and no g++ check of the
# .cu (its text is the plain build's)
case "$bin" in *asan*) every=3 benches="blackscholes" gxx= ;; esac
nessie=$bin/nessie
# values outside single precision (float_extremes), floats printed as text
# (float_format, text_prims: the digits are the point)
skip=" float_extremes float_format text_prims "

# ------------------------------------------------------------------ part 1
ndiff=0 nprog=0 worst=0
compare() { # compare LABEL RA RB [REL]: $tmp/a (default) against $tmp/b (--float32), exit statuses RA RB
  local label=$1 ra=$2 rb=$3 rel=${4:-1e-4} w
  nprog=$((nprog + 1))
  [ "$ra" = "$rb" ] || { bad "$label: exit $rb under --float32, $ra without"; return; }
  cmp -s "$tmp/a" "$tmp/b" || ndiff=$((ndiff + 1))
  if w=$(python3 "$agree" "$tmp/a" "$tmp/b" "$rel"); then
    worst=$(python3 -c "print(max($worst, $w))")
  else
    bad "$label: the --float32 output does not agree: $w"
  fi
}
k=0
for f in tests/lcu/*.lcu; do
  grep -q float "$f" || continue
  case "$skip" in *" $(basename "$f" .lcu) "*) continue ;; esac
  lcu_run_args "$f" || continue
  k=$((k + 1))
  [ $((k % every)) = 0 ] || continue
  s=$([ $((k / every % 2)) = 0 ] && echo ilp || echo none) # alternately fused and unfused
  "$nessie" "${args[@]}" --compiled --scheduler=$s >"$tmp/a" 2>&1
  ra=$?
  "$nessie" "${args[@]}" --compiled --scheduler=$s --float32 >"$tmp/b" 2>&1
  compare "$f ($s)" $ra $?
done
for p in $benches; do
  f=tests/programs/$p.nesl
  if ! "$nessie" build "$f" -o "$tmp/$p-64" >"$tmp/err" 2>&1 ||
    ! "$nessie" build "$f" --float32 -o "$tmp/$p-32" >"$tmp/err" 2>&1; then
    bad "$f: build failed: $(head -3 "$tmp/err")"
    continue
  fi
  "$tmp/$p-64" >"$tmp/a" 2>&1
  ra=$?
  "$tmp/$p-32" >"$tmp/b" 2>&1
  # linefit's intercept is a difference of nearly equal sums: single precision loses
  # about 1e-3 of it there (the double build's own error is about 1e-12)
  compare "$f" $ra $? "$([ "$p" = linefit ] && echo 1e-2 || echo 1e-4)"
  [ "$p" = blackscholes ] && ! cmp -s "$tmp/a" "$tmp/b" && bs_differs=1
done
[ "$ndiff" -ge 1 ] || bad "no program prints anything different under --float32"
[ -n "${bs_differs:-}" ] || bad "blackscholes prints the same under --float32 (exp, ln, sqrt in single precision)"
echo "part 1: $nprog runs agree within 1e-4 (largest relative difference $worst); $ndiff print differently"

# ------------------------------------------------------------------ part 2
# the one boundary: main's float results widened into their cells; plus the clock
boundary='^  r\[[0-9]+\]\.f = \(double\)r[0-9]+;$|const double t0 = rt_now\(\);$|widened to double for printing'
check_double() { # check_double FILE LABEL
  local n
  n=$(grep -w double "$1" | grep -Ecv "$boundary")
  [ "$n" = 0 ] || bad "$2: 'double' outside the boundary under --float32: $(grep -w double "$1" | grep -Ev "$boundary" | head -3)"
}
nemit=0
for fs in tests/lcu/float_prims.lcu:ilp tests/lcu/reduce_float_identities.lcu:ilp tests/lcu/segscan_float.lcu:ilp \
  tests/lcu/vcode_elementwise.lcu:none tests/lcu/interp_float_to_int.lcu:ilp tests/lcu/text_prims.lcu:none \
  tests/lcu/check_ok_all_soacs.lcu:none tests/lcu/check_ok_all_soacs.lcu:ilp tests/programs/blackscholes.nesl:ilp \
  tests/programs/nbody.nesl:none; do
  f=${fs%:*}
  for s in ${fs#*:}; do
    "$nessie" emit "$f" --stage=c --scheduler=$s --float32 >"$tmp/e.c" 2>"$tmp/err" || {
      bad "$f ($s): emit --float32 failed: $(head -3 "$tmp/err")"
      continue
    }
    check_double "$tmp/e.c" "$f ($s)"
    grep -qw float "$tmp/e.c" || bad "$f ($s): no float in the --float32 C"
    nemit=$((nemit + 1))
    # the CUDA target's text too, type-checked by g++ against the runtime stand-in
    # (tests/sh/cuda_codegen.sh; tests/sh/float32_nvcc.sh builds a sample with nvcc)
    "$nessie" emit "$f" --stage=cuda --scheduler=$s --float32 >"$tmp/e.cu" 2>"$tmp/err" || {
      bad "$f ($s): emit --stage=cuda --float32 failed: $(head -3 "$tmp/err")"
      continue
    }
    check_double "$tmp/e.cu" "$f ($s, cuda)"
    if [ -n "$gxx" ] && ! g++ -x c++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror -Wno-unknown-pragmas \
      -Wno-unused-parameter -Itests/cuda -Iruntime/host "$tmp/e.cu" >"$tmp/err" 2>&1; then
      bad "$f ($s): the --float32 .cu does not type-check: $(head -5 "$tmp/err")"
    fi
  done
done
"$nessie" emit tests/lcu/float_prims.lcu --stage=c >"$tmp/d.c"
grep -qw double "$tmp/d.c" || bad "the default C has no double"
echo "part 2: $nemit generated C files and as many .cu have no double outside the boundary$([ -n "$gxx" ] && echo "; the .cu type-check with g++" || echo " (not type-checked here)")"

# ------------------------------------------------------------------ part 3
cat >"$tmp/twice.lcu" <<'EOF'
kernel twice(xs : [float]) -> [float] {
  let ys = MAP { i => xs[i] * 2.0 using xs } (#xs)
  return ys
}
function main(xs : [float]) -> [float] {
  run twice(xs)
}
EOF
"$nessie" build "$tmp/twice.lcu" --profile -o "$tmp/t64" && "$nessie" build "$tmp/twice.lcu" --profile --float32 -o "$tmp/t32" ||
  bad "twice: build failed"
xs=$(python3 -c "print('[' + ', '.join(str(i) + '.5' for i in range(100)) + ']')")
NESSIE_PROFILE=$tmp/p64.csv "$tmp/t64" "$xs" >/dev/null && NESSIE_PROFILE=$tmp/p32.csv "$tmp/t32" "$xs" >/dev/null ||
  bad "twice: run failed"
b64=$(awk -F, '$4 == "twice" {print $9}' "$tmp/p64.csv")
b32=$(awk -F, '$4 == "twice" {print $9}' "$tmp/p32.csv")
[ -n "$b64" ] && [ -n "$b32" ] && [ $((b64 - b32)) = 400 ] ||
  bad "profile bytes: $b64 without, $b32 under --float32 for 100 floats (expected 400 fewer)"
echo "part 3: the profile counts $b32 bytes under --float32, $b64 without (100 floats)"

# ------------------------------------------------------------------ part 4
export NESSIE_CACHE_DIR=$tmp/cache4
r1=$("$nessie" lcu run "$tmp/twice.lcu" '[1.1]' --compiled)
r2=$("$nessie" lcu run "$tmp/twice.lcu" '[1.1]' --compiled --float32)
r3=$("$nessie" lcu run "$tmp/twice.lcu" '[1.1]' --compiled)
r4=$("$nessie" lcu run "$tmp/twice.lcu" '[1.1]' --compiled --float32)
[ "$r1" = "[2.2]" ] && [ "$r3" = "$r1" ] || bad "cache: the default build printed '$r1' then '$r3'"
[ "$r2" = "[2.200000047683716]" ] && [ "$r4" = "$r2" ] || bad "cache: the --float32 build printed '$r2' then '$r4'"
"$nessie" lcu run tests/lcu/int_arith.lcu --compiled >/dev/null 2>&1
"$nessie" lcu run tests/lcu/int_arith.lcu --compiled --float32 >/dev/null 2>&1
n=$(find "$NESSIE_CACHE_DIR" -type f -name 'c-*' | wc -l)
[ "$n" = 4 ] || bad "cache: $n entries for two programs built both ways (expected 4)"
echo "part 4: the cache holds the two builds apart ($n entries)"
export NESSIE_CACHE_DIR=${NESSIE_TEST_CACHE:-$tmp/cache}

# ------------------------------------------------------------------ part 5
cat >"$tmp/h.nesl" <<'EOF'
hash(1.5, 1000000) $
hash([0.25, -0.0, 1024.5], 1000000) $
{round(x) : x in [1.5, 2.25, -3.75]} $
{trunc(x) : x in [1.0, 4294967296.0]} $
EOF
"$nessie" run "$tmp/h.nesl" >"$tmp/h.want" 2>&1
"$nessie" run "$tmp/h.nesl" --target=c --float32 >"$tmp/h.got" 2>&1
rc=$?
[ $rc = 1 ] || bad "h.nesl --float32: exit $rc (the float-to-int fault is exit 1)"
cmp -s "$tmp/h.want" "$tmp/h.got" || bad "h.nesl: --float32 prints $(cat "$tmp/h.got"), nessie run $(cat "$tmp/h.want")"
"$nessie" lcu run "$tmp/twice.lcu" '[1.0]' --float32 >/dev/null 2>&1
[ $? = 2 ] || bad "lcu run --float32 without --compiled is not a usage error"
echo "part 5: hash of floats single precision holds exactly, the float-to-int fault and the usage error"
exit $fail
