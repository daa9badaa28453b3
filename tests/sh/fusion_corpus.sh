#!/usr/bin/env bash
# Fusion preserves meaning: every runnable program of tests/lcu/ gives its
# expected output after fusion by every scheduler (each schedule is verified by
# the legality checker inside the driver, and the fused program by the λcu
# checker). Generated regions are compared fused and unfused in
# tests/sh/gen_fusion_agree.sh. Comparison: exact (the printed output equals
# the .expected file byte for byte), by default and with --strict-float: the
# float inputs of these programs are exact in binary (quarter steps, small
# integers), so no fusion that reorders a float sum can change them
# (tests/sh/strict_float.sh covers inputs where it does). Searches are bounded
# by work (--work-limit, no time limit), so the schedules are the same on any
# machine.
. "$(dirname "$0")/common.bash"
scheds=(none greedy-down greedy-up "ilp --solver=glpk" "ilp --solver=cbc" ilp-cg)
for f in tests/lcu/*.lcu; do
  b=${f%.lcu}
  lcu_run_args "$f" || continue
  for s in "${scheds[@]}"; do
    # shellcheck disable=SC2086
    for strict in "" --strict-float; do
      # shellcheck disable=SC2086
      out=$("$bin/nessie" "${args[@]}" --scheduler=$s --work-limit=1000000 $strict 2>&1)
      [ "$out" = "$(cat "$b.expected")" ] || bad "$f --scheduler=$s $strict: $(echo "$out" | head -3)"
    done
  done
done
[ $fail = 0 ] && echo "fused programs agree with the unfused ones"
exit $fail
