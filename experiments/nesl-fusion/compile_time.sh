#!/usr/bin/env bash
# experiments/nesl-fusion/compile_time.sh [BINDIR] [programs|tests] [RUNS] — the compile
# time of each classic program (`nessie emit PROG.nesl --stage=fused --scheduler=S
# --compile-time`: front end, flattening, Flan optimiser, λcu checks, fusion, printing;
# the AST evaluation of the forms excluded), best of RUNS (default 3) per cell, in ms, as
# a Markdown table. `programs` (default): the benchmark suite, each
# experiments/programs file with its bench(n) form as tests/programs/NAME.nesl runs it;
# `tests`: the classic tests/nesl files, all their forms joined into one program. A cell
# marked * had a region whose exact search stopped at its time limit and kept its best
# schedule (the `status=time-limit` of the fusion report); its time is mostly that limit.
# Timings, not a test: run it on a quiet machine and say which machine in the report.
set -u
bin=${1:-bin}
set_=${2:-programs}
runs=${3:-3}
cd "$(dirname "$0")/../.."
scheds="greedy-down greedy-up ilp-cg"
if [ "$set_" = tests ]; then
  dir=tests/nesl
  progs="dotprod quicksort quickhull blackscholes nbody spmv_csr sparse_mvmult merge_sort spectral_separator bfs fft primes line_fit matrix"
else
  dir=tests/programs
  progs=$(cd $dir && ls *.nesl | sed 's/\.nesl$//')
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| program | $(sed 's/ / | /g' <<<"$scheds") |"
echo "|---$(sed 's/[^ ]*/|---/g; s/ //g' <<<"$scheds")|"
for p in $progs; do
  f=$dir/$p.nesl
  [ -f "$f" ] || continue
  row="| $p"
  for s in $scheds; do
    best=
    mark=
    for ((r = 0; r < runs; r++)); do
      if ! "$bin/nessie" emit "$f" --stage=fused --scheduler="$s" --compile-time >"$tmp/out" 2>"$tmp/err"; then
        best=failed
        break
      fi
      grep -q 'status=time-limit' "$tmp/out" && mark='*'
      t=$(sed -n 's/^compile time: \([0-9.]*\) ms.*/\1/p' "$tmp/err")
      [ -n "$t" ] || { best=failed; break; }
      if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
    done
    row="$row | $best$mark"
  done
  echo "$row |"
done
