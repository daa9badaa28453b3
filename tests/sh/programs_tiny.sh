#!/usr/bin/env bash
# programs_tiny.sh — the end-to-end experiment of issue 28 (experiments/programs.sh) at
# its tiny size on three cheap programs: every variant becomes a row of programs.csv
# with the documented columns, the static counts and the runtime's profile are
# consistent, a wrong output becomes a row with status wrong (a model value planted in
# the cache), the tables and plots are written, and the job list and the Slurm array
# script agree. Checks the pipeline, never timings. Skipped without python3 or gnuplot.
source "$(dirname "$0")/common.bash"
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
command -v gnuplot >/dev/null || { echo "skipped: no gnuplot"; exit 77; }
export PROGRAMS_WORK=$tmp/work NESSIE_CFLAGS=-O1
progs=dotprod,spmv,linefit
mkdir -p "$tmp/work/ref"
echo '[1.5, 2.5]' >"$tmp/work/ref/linefit-500.json" # not linefit(500): every linefit row is wrong
bash experiments/programs.sh --size=tiny --jobs=2 --programs=$progs --out="$tmp/out" --bin="$bin" \
  >"$tmp/log" 2>&1 || { bad "programs.sh failed:"; cat "$tmp/log"; exit 1; }
csv=$tmp/out/programs.csv
want_header="program,n,variant,target,status,regions,kernels_before,kernels,arrays_before,arrays,traversals_before,traversals,objective_before,objective,solve_seconds,regions_not_proven,code,runs,launches,kernels_run,bytes_allocated,peak_bytes,seconds_min,seconds_median,kernel_seconds_median,process_seconds_median,threads,note"
[ "$(head -n 1 "$csv")" = "$want_header" ] || { bad "programs.csv header:"; head -n 1 "$csv"; }
# one row per job of the list, in its order
bash experiments/programs.sh --size=tiny --programs=$progs --list >"$tmp/jobs"
[ "$(awk '{ print $1 "," $2 }' "$tmp/jobs")" = "$(awk -F, 'NR > 1 { print $1 "," $3 }' "$csv")" ] ||
  { bad "rows differ from the job list:"; cat "$tmp/jobs"; cat "$csv"; }
for p in dotprod spmv linefit; do
  for v in none greedy-down greedy-up ilp-glpk ilp-cbc ilp-cg baseline-c; do
    grep -q "^$p,[0-9]*,$v,c," "$csv" || bad "no row $p $v"
  done
done
# CMU NESL: run where it is built (bench_timed, checked like Nessie's), else a row that says so
awk -F, 'NR > 1 && $3 == "cmu-nesl" && $1 != "linefit" && $5 != "ok" && $5 != "no-cmu" { print; bad = 1 } END { exit bad }' "$csv" || bad "cmu-nesl rows"
for p in dotprod spmv linefit; do grep -q "^$p,[0-9]*,cmu-nesl,vcode," "$csv" || bad "no $p cmu-nesl row"; done
# every row has all 28 columns
awk -F, 'NF != 28 { print "row with " NF " columns: " $0; bad = 1 } END { exit bad }' "$csv" || bad "column count"
# dotprod and spmv are right: status ok, counts and profile filled in and consistent
awk -F, 'NR > 1 && ($1 == "dotprod" || $1 == "spmv") && $3 != "baseline-cuda" {
    if ($3 == "cmu-nesl" && $5 == "no-cmu") next # where CMU NESL is not built
    if ($5 != "ok") { print "not ok:", $0; bad = 1; next }
    if ($24 + 0 <= 0 || $26 + 0 <= 0) { print "no times:", $0; bad = 1 }
    if ($3 == "baseline-c" || $3 == "cmu-nesl") next
    if ($6 + 0 < 1 || $19 + 0 < 1 || $21 + 0 <= 0 || $22 + 0 <= 0 || $20 + 0 < 1) { print "empty counts:", $0; bad = 1 }
    if ($8 + 0 > $7 + 0 || $10 + 0 > $9 + 0 || $14 + 0 > $13 + 0) { print "fused above unfused:", $0; bad = 1 }
    if ($3 == "none" && ($8 != $7 || $10 != $9 || $12 != $11 || $14 != $13 || $15 + 0 != 0)) { print "none is fused:", $0; bad = 1 }
    if ($17 !~ /^[0-9a-f]+$/) { print "no code hash:", $0; bad = 1 }
  } END { exit bad }' "$csv" || bad "dotprod/spmv rows"
# the rows' seconds are those of the timed computation (time(...) in bench_timed), not
# main's whole run: below the process's wall time
awk -F, 'NR > 1 && $5 == "ok" && $24 + 0 >= $26 + 0 { print "timed seconds not below process seconds:", $0; bad = 1 } END { exit bad }' "$csv" ||
  bad "timed seconds"
# the local run interleaves: every job has one recorded run per repetition
for f in "$tmp/work/runs/"*.txt; do [ "$(wc -l <"$f")" -le 1 ] || bad "$f: more runs than the tiny size's one"; done
# a scheduler that fuses differently from none has another code hash
awk -F, 'NR > 1 && $1 == "dotprod" && $3 == "none" { n = $17 } NR > 1 && $1 == "dotprod" && $3 == "greedy-down" { g = $17; gk = $8; nk = $7 }
  END { exit !(gk == nk || g != n) }' "$csv" || bad "dotprod: greedy-down fuses but has none's code hash"
# the planted model value: linefit's rows are wrong, with the model's words in the note
awk -F, 'NR > 1 && $1 == "linefit" && $3 != "baseline-cuda" && !($3 == "cmu-nesl" && $5 == "no-cmu") &&
  ($5 != "wrong" || $28 !~ /Python model/) { print; bad = 1 } END { exit bad }' "$csv" ||
  bad "linefit rows are not 'wrong'"
# the CUDA baseline: run where a GPU is, else a row that says why
awk -F, 'NR > 1 && $3 == "baseline-cuda" && $5 != "ok" && $5 != "no-gpu" { print; bad = 1 } END { exit bad }' "$csv" || bad "baseline-cuda rows"
grep -q '^dotprod,[0-9]*,baseline-cuda,cuda,' "$csv" || bad "no dotprod baseline-cuda row"
# tables and plots
head -n 1 "$tmp/out/programs-time.csv" | grep -qx 'program,greedy-down,greedy-up,ilp-glpk,ilp-cbc,ilp-cg' || bad "programs-time.csv header"
[ "$(wc -l <"$tmp/out/programs-time.csv")" = 4 ] || bad "programs-time.csv: not one row per program"
grep -q '^linefit,?,?,?,?,?$' "$tmp/out/programs-time.csv" || bad "linefit (wrong) is not missing in programs-time.csv"
head -n 1 "$tmp/out/programs-baselines.csv" | grep -qx 'program,baseline_c_seconds,cmu_nesl_seconds,none_seconds,best_fused,best_fused_seconds,none_over_c,fused_over_c,fused_over_cmu' ||
  bad "programs-baselines.csv header"
[ "$(($(wc -l <"$tmp/out/programs-objective.csv") - 1))" = 12 ] || bad "programs-objective.csv: not 12 points (2 programs x 6)"
grep -q '^rank correlation (Spearman) .* 12 ok program x scheduler points: ' "$tmp/out/programs-summary.txt" || bad "no rank correlation in the summary"
for f in programs-time programs-bytes programs-objective programs-baselines; do
  grep -q '<svg' "$tmp/out/$f.svg" || bad "$f.svg is not an SVG"
  [ "$(head -c 4 "$tmp/out/$f.png" | od -An -c | tr -d ' ')" = '211PNG' ] || bad "$f.png is not a PNG"
done
# the Slurm array covers the job list
bash experiments/programs.sh --size=tiny --programs=$progs --slurm 2>/dev/null
grep -q "^#SBATCH --array=1-$(wc -l <"$tmp/jobs")\$" "$tmp/work/programs.slurm" || bad "Slurm array does not cover the $(wc -l <"$tmp/jobs") jobs"
cmp -s "$tmp/jobs" "$tmp/work/jobs.txt" || bad "--slurm's job list differs from --list"
exit $fail
