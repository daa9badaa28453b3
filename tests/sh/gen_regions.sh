#!/usr/bin/env bash
# nessie-gen property tests: for every family, several sizes and many seeds the
# generated region passes `nessie lcu check` and runs on random inputs (empty
# arrays included) with exit 0; it has exactly `kernels` invocations and, when
# chain= is given, exactly that depth (recomputed here from the printed program);
# the random family respects fanin= and mix=; output is a function of the spec.
set -u
cd "$(dirname "$0")/../.."
bin=${NESSIE_BIN:-bin}
gen=$bin/nessie-gen
nessie=$bin/nessie
[ -x "$gen" ] || { echo "no $gen"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# region_shape FILE: "INVOCATIONS DEPTH MAXARGS MAXREADERS" from main's
# `let ... = run kN(args) in` lines; depth(v) = 1 + the largest depth among the
# run's arguments (inputs 0); readers: invocations reading one result (not inputs).
region_shape() {
  awk '
    /^function main/ { inmain = 1; next }
    inmain && /= run k[0-9]+\(/ {
      line = $0
      lhs = line; sub(/ = run .*/, "", lhs); sub(/^ *let /, "", lhs); gsub(/[() ]/, "", lhs)
      args = line; sub(/.*= run k[0-9]+\(/, "", args); sub(/\) in *$/, "", args); gsub(/ /, "", args)
      n = split(args, a, ","); d = 0
      for (k = 1; k <= n; k++)
        if (a[k] in depth) { # a result; inputs are never entered (depth 0)
          if (depth[a[k]] > d) d = depth[a[k]]
          if (++readers[a[k]] > maxr) maxr = readers[a[k]]
        }
      d++
      m = split(lhs, b, ",")
      for (k = 1; k <= m; k++) depth[b[k]] = d
      inv++; if (d > maxd) maxd = d; if (n > maxargs) maxargs = n
    }
    END { print inv + 0, maxd + 0, maxargs + 0, maxr + 0 }' "$1"
}

# check_runs SPEC...: generate, check, run on random inputs with two seeds.
check_runs() {
  local what="$*"
  if ! "$gen" "$@" >"$tmp/r.lcu" 2>"$tmp/err"; then
    fail "nessie-gen $what: exit $?"; sed 's/^/    /' "$tmp/err" | head -n 5; return 1
  fi
  if ! "$nessie" lcu check "$tmp/r.lcu" >"$tmp/out" 2>&1; then
    fail "nessie-gen $what: does not check"; sed 's/^/    /' "$tmp/out" | head -n 5; return 1
  fi
  local s
  for s in 1 7; do
    if ! "$nessie" lcu run "$tmp/r.lcu" --random-inputs --seed=$s >"$tmp/out" 2>&1; then
      fail "nessie-gen $what: run --random-inputs --seed=$s failed"
      sed 's/^/    /' "$tmp/out" | head -n 5
      return 1
    fi
  done
  if grep -qiE 'nan|inf' "$tmp/out"; then fail "nessie-gen $what: non-finite result"; fi
  return 0
}

# --- every family, sizes, seeds: checks, runs, invocation count ---------------
for fam in random chain siblings diamond trap; do
  for k in 1 2 3 5 8 13 21 40 60; do
    [ $fam = trap ] && [ $k -lt 4 ] && continue
    for seed in 1 2 3 4 5; do
      check_runs --family=$fam --kernels=$k --seed=$seed || continue
      read -r inv depth maxargs maxr < <(region_shape "$tmp/r.lcu")
      [ "$inv" = "$k" ] || fail "family=$fam kernels=$k seed=$seed: $inv invocations"
    done
  done
done

# --- an explicit chain= is the region's depth ----------------------------------
for spec in "random 30 1" "random 30 7" "random 60 12" "random 12 12" "chain 20 5" "chain 7 7" \
  "siblings 20 3" "diamond 20 5" "diamond 9 3" "trap 12 4" "trap 17 3" "trap 40 8"; do
  set -- $spec
  for seed in 1 2 3; do
    check_runs --family=$1 --kernels=$2 --chain=$3 --seed=$seed || continue
    read -r inv depth maxargs maxr < <(region_shape "$tmp/r.lcu")
    [ "$inv" = "$2" ] || fail "family=$1 kernels=$2 chain=$3 seed=$seed: $inv invocations"
    [ "$depth" = "$3" ] || fail "family=$1 kernels=$2 chain=$3 seed=$seed: depth $depth"
  done
done

# --- random: fanin bounds the arguments of every invocation, fanout the readers
# of every result; other keys vary ---------------------------------------------
for fanin in 1 2 4; do
  for fanout in 1 2 5; do
    for seed in 1 2 3; do
      check_runs --kernels=40 --chain=6 --fanin=$fanin --fanout=$fanout --sizes=3 --shared=0.8 --seed=$seed || continue
      read -r inv depth maxargs maxr < <(region_shape "$tmp/r.lcu")
      what="fanin=$fanin fanout=$fanout seed=$seed"
      [ "$maxargs" -le "$fanin" ] || fail "$what: an invocation reads $maxargs values"
      [ "$maxr" -le "$fanout" ] || fail "$what: a result has $maxr readers"
      [ "$depth" = 6 ] || fail "$what: depth $depth"
    done
  done
done
check_runs --kernels=50 --shared=0 --sizes=5 --seed=3
check_runs --kernels=50 --shared=1 --sizes=1 --fanout=1 --seed=3

# --- mix: only the SOACs given weight appear ---------------------------------
soacs() { grep -oE '= (ONCE|MAP|PERMUTE|REDUCE|SCAN|FILTER|PARTITION) ' "$1" | sort -u | awk '{print $2}' | tr '\n' ' '; }
for m in "map:1|MAP " "filter:1|FILTER " "scan:2,permute:1|PERMUTE SCAN " "partition:1|PARTITION " \
  "once:1|ONCE " "reduce:3,once:1|ONCE REDUCE "; do
  mix=${m%%|*} want=${m#*|}
  check_runs --kernels=30 --chain=5 --mix=$mix --seed=4 || continue
  got=$(soacs "$tmp/r.lcu")
  [ "$got" = "$want" ] || fail "mix=$mix: SOACs '$got', expected '$want'"
done
# every SOAC shows up in a large default region
check_runs --kernels=60 --seed=2
got=$(soacs "$tmp/r.lcu")
[ "$got" = "FILTER MAP ONCE PARTITION PERMUTE REDUCE SCAN " ] || fail "default mix, 60 kernels: SOACs '$got'"

# --- determinism: same spec same program, other seed other program -----------
for fam in random chain siblings diamond trap; do
  "$gen" --family=$fam --kernels=25 --seed=11 >"$tmp/a.lcu"
  "$gen" --family=$fam --kernels=25 --seed=11 >"$tmp/b.lcu"
  "$gen" --family=$fam --kernels=25 --seed=12 >"$tmp/c.lcu"
  cmp -s "$tmp/a.lcu" "$tmp/b.lcu" || fail "family=$fam: seed 11 twice gives different programs"
  # the header differs anyway; compare the programs below it
  if cmp -s <(tail -n +2 "$tmp/a.lcu") <(tail -n +2 "$tmp/c.lcu"); then
    fail "family=$fam: seeds 11 and 12 give the same program"
  fi
done

# --- the spec string, options and the printed header agree --------------------
"$gen" kernels=12,chain=3,mix=map:3,reduce:1,filter:1,seed=9 >"$tmp/a.lcu"
"$gen" --kernels=12 --chain=3 --mix=map:3,reduce:1,filter:1 --seed=9 >"$tmp/b.lcu"
"$gen" gen:seed=9,kernels=12,mix=filter:1,map:3,reduce:1,chain=3 >"$tmp/c.lcu"
cmp -s "$tmp/a.lcu" "$tmp/b.lcu" || fail "spec string and options differ"
cmp -s "$tmp/a.lcu" "$tmp/c.lcu" || fail "key order or the gen: prefix changes the program"
header=$(head -n 1 "$tmp/a.lcu")
case "$header" in
  "// nessie-gen family=random,kernels=12,chain=3,fanin=2,fanout=3,mix=map:3,reduce:1,filter:1,shared=0.3,sizes=2,seed=9") ;;
  *) fail "unexpected header: $header" ;;
esac
"$gen" "${header#// nessie-gen }" >"$tmp/d.lcu"
cmp -s "$tmp/a.lcu" "$tmp/d.lcu" || fail "the header's spec does not reproduce the program"
# options override the positional spec wherever they are written
"$gen" --seed=5 kernels=12,seed=9 >"$tmp/e.lcu"
grep -q ',seed=5$' "$tmp/e.lcu" || fail "--seed=5 did not override seed=9 from the spec"

# --- the trap's shape (generators/README.md): M R C1 C2 C3 R2 per gadget ------
"$gen" --family=trap --kernels=13 --seed=3 >"$tmp/t.lcu"
got=$(grep -oE '= (ONCE|MAP|PERMUTE|REDUCE|SCAN|FILTER|PARTITION) ' "$tmp/t.lcu" | awk '{print $2}' | tr '\n' ' ')
[ "$got" = "MAP REDUCE MAP FILTER REDUCE REDUCE MAP REDUCE MAP FILTER REDUCE REDUCE REDUCE " ] ||
  fail "trap kernels=13: SOACs in order: $got"
grep -q 'let s2 = run k2(a1, x0) in' "$tmp/t.lcu" || fail "trap: R must read M's result and M's input"
grep -q 'let s6 = run k6(x0) in' "$tmp/t.lcu" || fail "trap: R2 must read M's input only"
grep -q 'let s13 = run k13(x0) in' "$tmp/t.lcu" || fail "trap: the leftover kernel is a REDUCE over x0"

# --- the example in generators/README.md is what nessie-gen prints -----------
# (its result was checked against an independent Python model of the program
# and of the interpreter's random inputs)
sed -n '/^\$ nessie-gen --kernels=6 --chain=3 --seed=6$/,/^\$ nessie-gen --kernels=6 --chain=3 --seed=6 >/p' \
  generators/README.md | sed '1d;$d' >"$tmp/doc.lcu"
"$gen" --kernels=6 --chain=3 --seed=6 >"$tmp/ex.lcu"
[ -s "$tmp/doc.lcu" ] || fail "generators/README.md: example not found"
cmp -s "$tmp/doc.lcu" "$tmp/ex.lcu" || { fail "generators/README.md example differs from nessie-gen's output"; diff "$tmp/doc.lcu" "$tmp/ex.lcu" | head -n 10; }
got=$("$nessie" lcu run "$tmp/ex.lcu" --random-inputs --seed=1 2>&1)
[ "$got" = "(0, [-6, -19, -3, -23, -22, -7, -15], [2, 9, 0, 10, 10, 2, 7])" ] ||
  fail "the README example prints $got"

# --- bad command lines exit 2 with a message ---------------------------------
bad() { # bad 'expected message part' ARGS...
  local want=$1
  shift
  "$gen" "$@" >"$tmp/out" 2>&1
  local st=$?
  [ $st = 2 ] || fail "nessie-gen $*: exit $st, expected 2"
  grep -qF -- "$want" "$tmp/out" || { fail "nessie-gen $*: message lacks '$want'"; sed 's/^/    /' "$tmp/out"; }
  [ -s "$tmp/out" ] || fail "nessie-gen $*: no message"
}
bad "unknown key 'kernel'" --kernel=3
bad "unknown key 'colour'" kernels=3,colour=red
bad "bad value 'x' for kernels" --kernels=x
bad "bad value '0' for kernels" --kernels=0
bad "bad value '-1' for seed" --seed=-1
bad "bad value '1.5' for shared" --shared=1.5
bad "chain=9 is longer than kernels=4" --kernels=4 --chain=9
bad "unknown family 'tree'" --family=tree
bad "unknown SOAC 'gather' in mix" --mix=map:1,gather:2
bad "bad weight 'x' for map" --mix=map:x
bad "every SOAC weight 0" --mix=map:0
bad "family=trap needs kernels >= 4" --family=trap --kernels=3
bad "chain must be odd" --family=diamond --kernels=10 --chain=4
bad "unknown option '--frobnicate'" --frobnicate
bad "unknown option '-x'" -x
bad "expected KEY=VALUE" kernels=3,oops
bad "more than one SPEC" kernels=3 seed=4
"$gen" --help >"$tmp/out" 2>&1 || fail "--help: exit $?"
grep -q "family=F" "$tmp/out" || fail "--help does not list the keys"

[ $failures = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "ok"
