#!/usr/bin/env bash
# bench_nesl.sh — nessie-bench takes a NESL program directly: every region of its
# λcu program (as `nessie emit --stage=fused` reports them), every metric, --dot
# pictures whose kernels name the NESL function and line; a program whose λcu
# program cannot be made fails with the front end's message.
source "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."
[ -x "$bin/nessie-bench" ] || { echo "no $bin/nessie-bench"; exit 77; }
f=tests/nesl/nbody.nesl
"$bin/nessie-bench" "$f" --scheduler=greedy-down --format=csv --dot="$tmp/dot" >"$tmp/b.csv" 2>"$tmp/err" ||
  bad "nessie-bench $f: $(cat "$tmp/err")"
want=$("$bin/nessie" emit "$f" --stage=fused --scheduler=greedy-down | sed -n 's|^// total: \([0-9]*\) regions, kernels \([0-9]*\) -> \([0-9]*\),.*|\1 \2 \3|p')
got=$(awk -F, 'NR>1{r++; b+=$7; a+=$8} END{print r, b, a}' "$tmp/b.csv")
[ -n "$want" ] && [ "$got" = "$want" ] || bad "regions/kernels before/after: bench '$got', emit '$want'"
n=$(ls "$tmp/dot"/*.dot 2>/dev/null | wc -l)
[ "$n" = "${want%% *}" ] || bad "--dot wrote $n pictures for ${want%% *} regions"
grep -qE 'label="[a-z_]+_l[0-9]+_k_[0-9]+' "$tmp/dot"/*.dot || bad "no picture names a NESL function and line"
# A form that faults is benched when no later form reads its value (emit does not
# evaluate it; the compiled program's check is there); when a later one does, emit must
# evaluate it and reports the fault.
printf '1 / 0 $\n' >"$tmp/last.nesl"
"$bin/nessie-bench" "$tmp/last.nesl" >"$tmp/out" 2>&1 || bad "a program whose last form faults was not benched: $(cat "$tmp/out")"
printf 'x = 1 / 0 $\nx + 1 $\n' >"$tmp/bad.nesl"
"$bin/nessie-bench" "$tmp/bad.nesl" >"$tmp/out" 2>&1 && bad "a program reading a faulting form's value benched"
grep -q 'Divide by zero' "$tmp/out" || bad "no front-end message: $(cat "$tmp/out")"
exit $fail
