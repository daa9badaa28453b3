#!/usr/bin/env bash
# The C back end as a property test over generated regions (nessie-gen): for
# 48 regions of six families (4 to 24 invocations; GEN_SEEDS=5 makes it 120 and
# GEN_SEEDS=10 240, GEN_SCHEDS adds schedulers), the compiled program on random inputs (empty
# arrays, and arrays of up to 12 and up to 3000 elements, so reductions, scans
# and filters cross blocks) prints what the interpreter prints, unfused and
# fused by ilp-cg. Compiled at -O0 to keep the test short (the optimisation
# level does not change the semantics; c_backend_golden.sh compiles at -O2
# with -Wall -Wextra -Werror). The sanitizer build runs 24 regions.
. "$(dirname "$0")/common.bash"
export NESSIE_CACHE_DIR=$tmp/cache NESSIE_CFLAGS="-O0 -Wall -Wextra -Werror"
n=0
fams=(random chain siblings diamond trap permute)
sizes=(4 7 12 24)
read -r -a seeds <<<"$(seq 1 "${GEN_SEEDS:-2}" | tr '\n' ' ')"
read -r -a scheds <<<"${GEN_SCHEDS:-none ilp-cg}"
case "$bin" in *asan*) seeds=(1) ;; esac
for fam in "${fams[@]}"; do
  for k in "${sizes[@]}"; do
    for seed in "${seeds[@]}"; do
      spec="--family=$fam --kernels=$k --seed=$seed"
      [ $fam = permute ] && spec="--kernels=$k --chain=3 --mix=permute:3,reduce:2,map:1,scan:1,filter:1 --seed=$seed"
      # shellcheck disable=SC2086
      "$bin/nessie-gen" $spec >"$tmp/r.lcu" || { bad "nessie-gen $spec"; continue; }
      for s in "${scheds[@]}"; do
        for ml in 0 12 3000; do
          run=(lcu run "$tmp/r.lcu" --random-inputs --seed=$seed --max-len=$ml --scheduler=$s --work-limit=100000)
          want=$("$bin/nessie" "${run[@]}" 2>&1)
          got=$(OMP_NUM_THREADS=2 "$bin/nessie" "${run[@]}" --compiled 2>&1)
          n=$((n + 1))
          [ "$got" = "$want" ] || bad "$spec --scheduler=$s --max-len=$ml: compiled '${got:0:200}', interpreter '${want:0:200}'"
        done
      done
    done
  done
done
[ $fail = 0 ] && echo "$n compiled runs of generated regions agree with the interpreter"
exit $fail
