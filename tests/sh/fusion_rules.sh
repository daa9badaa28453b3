#!/usr/bin/env bash
# Fusion rewriting, rule by rule (tests/fusion/*.lcu): each program states, in a
# `// expect: kernels=K soacs=S` line, what the optimal schedule must rewrite it
# to — derived by hand from the rule it exercises (and, in `// expect(SCHED):`
# lines, what a given scheduler must produce). For every program:
#  - ilp and exhaustive produce exactly K kernels holding S SOACs;
#  - the printed fused program parses, checks and prints back identically;
#  - for every scheduler, fused results equal unfused ones on random inputs
#    (compared exactly: --random-inputs floats are quarter steps, exact in
#    binary, so a reordered float sum gives the same bits; see
#    tests/sh/strict_float.sh for inputs where it does not).
. "$(dirname "$0")/common.bash"
for f in tests/fusion/*.lcu; do
  exp=$(sed -n 's|^// expect: ||p' "$f")
  [ -n "$exp" ] || { bad "$f: no '// expect:' line"; continue; }
  for s in ilp exhaustive; do
    if ! "$bin/nessie" lcu fuse "$f" --scheduler=$s --work-limit=1000000 >"$tmp/fused.lcu" 2>"$tmp/err"; then
      bad "$f: fuse --scheduler=$s failed"; cat "$tmp/err"; continue
    fi
    k=$(grep -c '^kernel ' "$tmp/fused.lcu")
    n=$(grep -cE '^  let .* = (ONCE|MAP|PERMUTE|REDUCE|SCAN|FILTER|PARTITION|SEGREDUCE|SEGSCAN) ' "$tmp/fused.lcu")
    [ "kernels=$k soacs=$n" = "$exp" ] || { bad "$f ($s): got kernels=$k soacs=$n, expected $exp"; grep -v '^//' "$tmp/fused.lcu"; }
    "$bin/nessie" lcu print "$tmp/fused.lcu" >"$tmp/p1" 2>"$tmp/err" || { bad "$f ($s): fused program does not check"; cat "$tmp/err"; continue; }
    grep -v '^//' "$tmp/fused.lcu" | cmp -s - "$tmp/p1" || bad "$f ($s): fused program does not print back identically"
  done
  # optional per-scheduler expectations: // expect(SCHED): kernels=K soacs=S
  while IFS= read -r line; do
    s=${line%%)*}; s=${s#// expect(}; want=${line#*): }
    "$bin/nessie" lcu fuse "$f" --scheduler="$s" --work-limit=1000000 >"$tmp/g.lcu" 2>"$tmp/err" || { bad "$f: fuse --scheduler=$s failed"; continue; }
    k=$(grep -c '^kernel ' "$tmp/g.lcu")
    n=$(grep -cE '^  let .* = (ONCE|MAP|PERMUTE|REDUCE|SCAN|FILTER|PARTITION|SEGREDUCE|SEGSCAN) ' "$tmp/g.lcu")
    [ "kernels=$k soacs=$n" = "$want" ] || bad "$f ($s): got kernels=$k soacs=$n, expected $want"
  done < <(grep '^// expect(' "$f")
  for seed in 1 2 3 4 5 6; do
    want=$("$bin/nessie" lcu run "$f" --random-inputs --seed=$seed --max-len=12 2>&1)
    for s in none greedy-down greedy-up ilp; do
      got=$("$bin/nessie" lcu run "$f" --random-inputs --seed=$seed --max-len=12 --scheduler=$s --work-limit=1000000 2>&1)
      [ "$got" = "$want" ] || bad "$f seed $seed ($s): fused gives '$got', unfused '$want'"
    done
  done
done
[ $fail = 0 ] && echo "all fusion rule programs rewrite as expected"
exit $fail
