#!/usr/bin/env bash
# Sized cost models from the command line (issue 38; fusion/README.md "Cost models"):
#  - nessie-bench --calibrate writes a cost file that every command reads back
#    (--cost=FILE), with finite non-negative weights (their values depend on the
#    machine and are not checked);
#  - --sizes=PROFILE.csv takes elements per kernel from an unfused run's profile
#    where the compiler cannot know them (a filter's result): the objective of the
#    fused report grows with the run's size;
#  - symbolic spaces (--show-spaces): n-body's pair sums over #bodies^2, constants at a
#    constant size, quicksort's partition over its element count;
#  - a region inside a recursion is weighed by how often it ran (the profile's
#    launches): its sized objective is 8 times the one of a profile that says it ran
#    once with the same elements per run;
#  - the program still prints what `nessie run` prints when fused under the model;
#  - ilp-cg proves the same objective as ilp under the model and the measured sizes
#    (it rounds each term to whole nanoseconds: equal within that);
#  - bad cost files, a missing one and a non-profile as --sizes are refused with a
#    message and exit 1 or 2, never a crash.
# Nothing here depends on the machine's speed.
. "$(dirname "$0")/common.bash"
"$bin/nessie-bench" --calibrate --calibrate-sizes=200,2000 --reps=1 --out="$tmp/m.cost" 2>"$tmp/cal.err" ||
  { bad "calibrate failed"; cat "$tmp/cal.err"; }
grep -q '^model sized$' "$tmp/m.cost" || bad "calibrated file has no 'model sized' line"
for k in launch pass write read default-size; do
  v=$(awk -v k=$k '$1 == k { print $2 }' "$tmp/m.cost")
  python3 -c "import math,sys; v=float(sys.argv[1]); sys.exit(0 if math.isfinite(v) and v >= 0 else 1)" "$v" 2>/dev/null ||
    bad "calibrated $k is '$v'"
done
grep -q 'median relative error' "$tmp/cal.err" || bad "calibrate reports no fit quality"
# A fixed model, so that the objective's growth is certain.
printf 'model sized\nlaunch 1e-6\npass 1e-9\nwrite 3e-9\nread 1e-9\ndefault-size 1000\n' >"$tmp/f.cost"
cat >"$tmp/p.nesl" <<'EOF'
function work(n) = let a = {float(i) : i in [0:n] | rem(i, 3) > 0}; b = {x * 2.0 : x in a} in sum({x + y : x in a; y in b}) $
work(20000) $
EOF
"$bin/nessie" run "$tmp/p.nesl" >"$tmp/ast.out" 2>&1
nessie=$(cd "$bin" && pwd)/nessie
(cd "$tmp" && NESSIE_PROFILE=prof.csv NESSIE_CACHE_DIR=$tmp/cache "$nessie" run p.nesl --target=c --scheduler=none >/dev/null 2>&1) ||
  bad "unfused profile run failed"
objective() { sed -n 's/.*objective \([0-9.e+-]*\) -> .*/\1/p' | head -1; }
for s in ilp ilp-lazy ilp-cg greedy-down; do
  "$bin/nessie" emit "$tmp/p.nesl" --stage=fused --scheduler=$s --cost="$tmp/f.cost" >"$tmp/d.lcu" 2>"$tmp/err" ||
    { bad "$s: emit under a cost file failed"; cat "$tmp/err"; continue; }
  grep -q '^// cost model sized' "$tmp/d.lcu" || bad "$s: the report does not name the model"
  "$bin/nessie" emit "$tmp/p.nesl" --stage=fused --scheduler=$s --cost="$tmp/f.cost" --sizes="$tmp/prof.csv" >"$tmp/s.lcu" 2>"$tmp/err" ||
    { bad "$s: emit with --sizes failed"; cat "$tmp/err"; continue; }
  o1=$(objective <"$tmp/d.lcu") o2=$(objective <"$tmp/s.lcu")
  python3 -c "import sys; sys.exit(0 if float(sys.argv[2]) > 1.2 * float(sys.argv[1]) else 1)" "$o1" "$o2" ||
    bad "$s: unfused objective with the measured 13333-element filter result ($o2) is not above the default 1000's ($o1)"
  NESSIE_CACHE_DIR=$tmp/cache "$bin/nessie" run "$tmp/p.nesl" --target=c --scheduler=$s --cost="$tmp/f.cost" \
    --sizes="$tmp/prof.csv" >"$tmp/c.out" 2>&1
  cmp -s "$tmp/ast.out" "$tmp/c.out" || bad "$s: compiled under the model, the output differs from nessie run"
  sed -n 's/^\/\/ region .*status=\([a-z]*\) .*objective [0-9.e+-]* -> \([0-9.e+-]*\),.*/\1 \2/p' "$tmp/s.lcu" >"$tmp/after.$s"
done
# ilp-cg under the sized model: every region optimal, at ilp's objective (to rounding).
python3 - "$tmp/after.ilp" "$tmp/after.ilp-cg" <<'EOF' || bad "ilp-cg under the sized model differs from ilp"
import sys
a = [l.split() for l in open(sys.argv[1])]
b = [l.split() for l in open(sys.argv[2])]
ok = len(a) == len(b) > 0 and all(y[0] == "optimal" and abs(float(x[1]) - float(y[1])) <= 5 for x, y in zip(a, b))
sys.exit(0 if ok else 1)
EOF
"$bin/nessie" lcu fuse tests/lcu/dotprod.lcu --scheduler=ilp --cost="$tmp/m.cost" >/dev/null 2>"$tmp/err" ||
  { bad "lcu fuse --cost failed"; cat "$tmp/err"; }
"$bin/nessie-bench" tests/lcu/dotprod.lcu --scheduler=ilp,greedy-down --cost="$tmp/m.cost" --format=csv >"$tmp/b.csv" 2>"$tmp/err" ||
  { bad "nessie-bench --cost failed"; cat "$tmp/err"; }
# Symbolic spaces (fus_shape.c): n-body's pair sums run over (#bodies)^2, and at a
# constant size over its square; every space of bench(60) is 60 or 3600.
"$bin/nessie" emit tests/nesl/nbody.nesl --stage=fused --scheduler=none --show-spaces >"$tmp/sp" 2>&1 ||
  bad "--show-spaces failed"
grep -Eq '^//   space sum_l[0-9]+_k_[0-9]+: #bodies_[0-9]+\^2$' "$tmp/sp" || bad "no pair sum over #bodies^2"
printf 'load "%s/experiments/programs/nbody.nesl" $\nbench(60) $\n' "$PWD" >"$tmp/nb.nesl"
"$bin/nessie" emit "$tmp/nb.nesl" --stage=fused --scheduler=ilp-decomp --cost="$tmp/f.cost" --show-spaces >"$tmp/sp" 2>&1 ||
  bad "--show-spaces on bench(60) failed"
got=$(sed -n 's/^\/\/   space [^:]*: \(.*\)$/\1/p' "$tmp/sp" | sort -u | tr '\n' ' ')
[ "$got" = "3600 (cost model: 3600) 60 (cost model: 60) " ] && grep -q '^//   space .*: 3600 (cost model: 3600)$' "$tmp/sp" ||
  bad "bench(60) spaces: $got"
printf 'load "%s/experiments/programs/quicksort.nesl" $\nbench(1000) $\n' "$PWD" >"$tmp/qs.nesl"
"$bin/nessie" emit "$tmp/qs.nesl" --stage=fused --scheduler=none --show-spaces >"$tmp/sp" 2>&1 || bad "quicksort --show-spaces failed"
grep -Eq '^//   space qsort_l[0-9]+_k_[0-9]+: n_[0-9]+$' "$tmp/sp" || bad "quicksort's partition does not run over its element count"
# Runs: step's body runs 8 times (the first step is inlined into the top level).
cat >"$tmp/r.nesl" <<'EOF'
function step(a, k) = if k == 0 then sum(a) else step({x * 0.5 + 1.0 : x in a}, k - 1) $
step({float(i) : i in [0:5000]}, 9) $
EOF
(cd "$tmp" && NESSIE_PROFILE=rp.csv NESSIE_CACHE_DIR=$tmp/cache "$nessie" run r.nesl --target=c --scheduler=none >/dev/null 2>&1) ||
  bad "recursive profile run failed"
# The same profile, every kernel launched once with its elements per launch.
awk -F, -v OFS=, 'NR > 1 && $7 > 1 { $8 = $8 / $7; $7 = 1 } { print }' "$tmp/rp.csv" >"$tmp/rp1.csv"
stepobj() { sed -n 's/^\/\/ region [0-9]* in step_[0-9]*: .*kernels 2 -> .*objective \([0-9.e+-]*\) -> .*/\1/p' | head -1; }
"$bin/nessie" emit "$tmp/r.nesl" --stage=fused --scheduler=ilp --cost="$tmp/f.cost" --sizes="$tmp/rp.csv" >"$tmp/r8" 2>&1 ||
  bad "emit with the recursive profile failed"
"$bin/nessie" emit "$tmp/r.nesl" --stage=fused --scheduler=ilp --cost="$tmp/f.cost" --sizes="$tmp/rp1.csv" >"$tmp/r1" 2>&1 ||
  bad "emit with the flattened profile failed"
grep -q '^//   runs 8 ' "$tmp/r8" || bad "the recursive region's report has no 'runs 8'"
! grep -q '^//   runs' "$tmp/r1" || bad "a profile of single launches still reports runs"
o8=$(stepobj <"$tmp/r8") o1=$(stepobj <"$tmp/r1")
python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if b > 0 and abs(a / b - 8) < 1e-6 else 1)" "$o8" "$o1" 2>/dev/null ||
  bad "the recursive region's objective ($o8) is not 8 times the single run's ($o1)"
refused() { # WHAT EXPECTED-TEXT COMMAND...: exit 1 or 2 (not a crash) and the text on stderr
  local what=$1 want=$2
  shift 2
  "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 1 ] || [ $rc -eq 2 ] || bad "$what: exit $rc, want 1 or 2"
  grep -q -- "$want" "$tmp/err" || { bad "$what: no message '$want'"; cat "$tmp/err"; }
}
printf 'model sized\nlaunch 1e-6\npass x\n' >"$tmp/bad.cost"
refused "bad cost file" "bad.cost:3:6: error: not a finite non-negative number 'x'" \
  "$bin/nessie" emit "$tmp/p.nesl" --stage=fused --cost="$tmp/bad.cost"
refused "missing cost file" "cannot read the cost file" "$bin/nessie" emit "$tmp/p.nesl" --stage=fused --cost="$tmp/none.cost"
refused "not a profile" "not a nessie profile" \
  "$bin/nessie" emit "$tmp/p.nesl" --stage=fused --scheduler=ilp --cost="$tmp/f.cost" --sizes="$tmp/f.cost"
refused "nessie-bench bad cost file" "bad.cost:3:6" "$bin/nessie-bench" tests/lcu/dotprod.lcu --cost="$tmp/bad.cost"
exit $fail
