#!/usr/bin/env bash
# experiments/nesl-fusion/table.sh [BINDIR] — for each classic NESL program of
# tests/nesl, the whole file's λcu program (nessie emit --stage=fused): fusion regions,
# and kernels (invocations) before and after fusion for each scheduler, from the fusion
# report's total line. Prints a Markdown table (README of compiler/flan). `ilp` runs
# with --time-limit=1 per region (its best schedule then; marked *). EMIT_OPTS adds
# options to every `nessie emit` (EMIT_OPTS=--no-opt: without the Flan optimiser).
# table.sh BINDIR programs: the same for the benchmark suite (experiments/programs,
# each file's bench(n) as tests/programs/NAME.nesl loads and runs it).
set -u
bin=${1:-bin}
read -r -a eopts <<<"${EMIT_OPTS:-}"
cd "$(dirname "$0")/../.."
progs="dotprod quicksort quickhull blackscholes nbody spmv_csr sparse_mvmult merge_sort spectral_separator bfs fft primes line_fit matrix"
dir=tests/nesl
if [ "${2:-}" = programs ]; then
  dir=tests/programs
  progs=$(cd $dir && ls *.nesl | sed 's/\.nesl$//')
fi
echo "| program | regions | kernels unfused | greedy-down | greedy-up | ilp | ilp-cg |"
echo "|---|---|---|---|---|---|---|"
for p in $progs; do
  f=$dir/$p.nesl
  [ -f "$f" ] || continue
  row="| $p"
  first=1
  for s in greedy-down greedy-up ilp ilp-cg; do
    opt=()
    [ "$s" = ilp ] && opt=(--time-limit=1)
    line=$("$bin/nessie" emit "$f" --stage=fused --scheduler=$s "${opt[@]}" "${eopts[@]}" 2>/dev/null | grep '^// total:')
    if [ -z "$line" ]; then
      [ $first = 1 ] && row="$row | - | -"
      row="$row | failed"
      first=0
      continue
    fi
    regions=$(sed 's/.*total: \([0-9]*\) regions.*/\1/' <<<"$line")
    before=$(sed 's/.*kernels \([0-9]*\) -> \([0-9]*\),.*/\1/' <<<"$line")
    after=$(sed 's/.*kernels \([0-9]*\) -> \([0-9]*\),.*/\2/' <<<"$line")
    [ $first = 1 ] && row="$row | $regions | $before"
    mark=""
    [ "$s" = ilp ] && grep -q 'status=time' <<<"$("$bin/nessie" emit "$f" --stage=fused --scheduler=ilp --time-limit=1 "${eopts[@]}" 2>/dev/null | grep '^// region')" && mark="*"
    row="$row | $after$mark"
    first=0
  done
  echo "$row |"
done
