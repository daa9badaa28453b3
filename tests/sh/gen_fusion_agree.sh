#!/usr/bin/env bash
# Generated regions as a fusion property test (issue 4, DESIGN.md "Oracles"):
# for every family and several seeds, `nessie lcu run` on random inputs must
# print the same result unfused and fused by every scheduler. Skips (77) while
# `nessie lcu run` does not take --scheduler.
# Comparison: exact (cmp of the printed results), although fusion may
# reassociate float reductions (fusion/README.md, "Decisions"): --random-inputs
# floats are quarter steps and the generator keeps fadd sums exact, so every
# order of addition gives the same bits. Searches are bounded by work
# (--work-limit, no time limit): the schedules are the same on any machine.
set -u
cd "$(dirname "$0")/../.."
bin=${NESSIE_BIN:-bin}
gen=$bin/nessie-gen
nessie=$bin/nessie
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

"$gen" --kernels=3 --seed=1 >"$tmp/probe.lcu" || { echo "nessie-gen failed"; exit 1; }
if ! "$nessie" lcu run "$tmp/probe.lcu" --random-inputs --scheduler=none >/dev/null 2>&1; then
  echo "skipped: nessie lcu run does not take --scheduler yet"
  exit 77
fi

# PERMUTE into REDUCE reorders a sum: the generator keeps fadd sums exact so
# that fused and unfused agree to the bit; the permute-heavy mix checks it.
for fam in random chain siblings diamond trap permute; do
  for k in 5 6 9 14; do
    for seed in 1 2 3; do
      spec="--family=$fam --kernels=$k --seed=$seed"
      [ $fam = permute ] && spec="--kernels=$k --chain=3 --mix=permute:3,reduce:2,map:1,scan:1 --seed=$seed"
      # shellcheck disable=SC2086
      "$gen" $spec >"$tmp/r.lcu" || { fail "nessie-gen $spec"; continue; }
      for inputs in 1 2; do
        # max-len 0 makes every input array empty; 12 gives some length
        maxlen=$([ $inputs = 1 ] && echo 0 || echo 12)
        run=(lcu run "$tmp/r.lcu" --random-inputs --seed=$inputs --max-len=$maxlen)
        if ! "$nessie" "${run[@]}" >"$tmp/want" 2>&1; then
          fail "$spec: unfused run failed"; sed 's/^/    /' "$tmp/want" | head -n 5; continue
        fi
        scheds="greedy-down greedy-up ilp ilp-cg"
        [ $k -le 9 ] && scheds="$scheds exhaustive"
        for s in $scheds; do
          if ! "$nessie" "${run[@]}" --scheduler=$s --work-limit=1000000 >"$tmp/got" 2>&1; then
            fail "$spec --scheduler=$s: run failed"; sed 's/^/    /' "$tmp/got" | head -n 5; continue
          fi
          cmp -s "$tmp/want" "$tmp/got" ||
            fail "$spec inputs $inputs --scheduler=$s: $(cat "$tmp/got") instead of $(cat "$tmp/want")"
        done
      done
    done
  done
done

# A region where an earlier fusion rewrite summed a PERMUTE's floats in another
# order than the unfused program (a last-bit difference, before the generator
# made fadd sums exact).
"$gen" --kernels=6 --chain=3 --seed=3 >"$tmp/r.lcu"
"$nessie" lcu run "$tmp/r.lcu" --random-inputs --seed=1 >"$tmp/want" 2>&1
for s in greedy-down greedy-up ilp; do
  "$nessie" lcu run "$tmp/r.lcu" --random-inputs --seed=1 --scheduler=$s >"$tmp/got" 2>&1
  cmp -s "$tmp/want" "$tmp/got" || fail "kernels=6,chain=3,seed=3 --scheduler=$s: $(cat "$tmp/got") instead of $(cat "$tmp/want")"
done

[ $failures = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "ok"
