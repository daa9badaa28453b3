#!/usr/bin/env bash
# Fusion preserves meaning: every runnable program of tests/lcu/ gives its
# expected output after fusion by every scheduler (each schedule is verified by
# the legality checker inside the driver, and the fused program by the λcu
# checker), and generated regions of every family give the same results fused
# and unfused on random inputs.
set -u
bin=${NESSIE_BIN:-bin}
fail=0
bad() { echo "FAIL $*"; fail=1; }
scheds=(none greedy-down greedy-up "ilp --solver=glpk" "ilp --solver=cbc")
for f in tests/lcu/*.lcu; do
  b=${f%.lcu}
  [ -f "$b.exit" ] && continue
  if [ -f "$b.args" ]; then read -r -a args <"$b.args"; else args=(lcu run "{}"); fi
  args=("${args[@]//\{\}/$f}")
  [ "${args[1]}" = run ] || continue
  for s in "${scheds[@]}"; do
    # shellcheck disable=SC2086
    out=$("$bin/nessie" "${args[@]}" --scheduler=$s --time-limit=20 2>&1)
    [ "$out" = "$(cat "$b.expected")" ] || bad "$f --scheduler=$s: $(echo "$out" | head -3)"
  done
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for fam in random chain siblings diamond trap; do
  for seed in 1 2 3; do
    for k in 6 12; do
      "$bin/nessie-gen" --family=$fam --kernels=$k --seed=$seed >"$tmp/g.lcu" 2>"$tmp/e" || { bad "nessie-gen $fam $k $seed"; continue; }
      for in_seed in 1 2; do
        want=$("$bin/nessie" lcu run "$tmp/g.lcu" --random-inputs --seed=$in_seed 2>&1)
        for s in greedy-down greedy-up "ilp --solver=glpk" "ilp --solver=cbc"; do
          # shellcheck disable=SC2086
          got=$("$bin/nessie" lcu run "$tmp/g.lcu" --random-inputs --seed=$in_seed --scheduler=$s --time-limit=20 2>&1)
          [ "$got" = "$want" ] || bad "gen family=$fam kernels=$k seed=$seed inputs $in_seed, $s: '$got' vs '$want'"
        done
      done
    done
  done
done
[ $fail = 0 ] && echo "fused programs agree with the unfused ones"
exit $fail
