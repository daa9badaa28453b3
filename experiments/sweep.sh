#!/usr/bin/env bash
# experiments/sweep.sh — the solver-performance and fusion-quality experiments
# (paper §10, Figure 7): generate synthetic regions over a grid of sizes and chain
# lengths, schedule each with the greedy strategies and the ILP schedulers
# (fusion/README.md, fusion/ILP.md), every ILP with GLPK and with CBC, and write the
# CSVs and gnuplot plots under OUT (default results/).
#
#   experiments/sweep.sh [--size=tiny|small|default|large] [--jobs=N] [--out=DIR]
#                        [--time-limit=SEC] [--bin=DIR]
#   experiments/sweep.sh --size=S [--time-limit=SEC] --list       the job list, one a line
#   experiments/sweep.sh --size=S [--time-limit=SEC] --job=K      job K of that list
#   experiments/sweep.sh --size=S [--time-limit=SEC] --merge [--out=DIR]   rows -> CSVs, plots
#   experiments/sweep.sh --size=S [--time-limit=SEC] --slurm      writes a Slurm array script
#
# A job is one nessie-bench run: one region with the strategies of its band (line
# `bench LIMIT STRATEGIES SOLVERS SPEC`), or one region of the greedy-at-scale series
# (`scale - greedy-down,greedy-up - SPEC`). A full run lists the jobs, runs the bench
# jobs --jobs at a time (each nessie-bench alone on its region), then the scale jobs one
# at a time (their timings unshared), then merges; on a cluster each is a task of a
# Slurm array (--slurm; experiments/README.md) and --merge gathers the rows. Rows and
# logs go under build/sweep/SIZE (SWEEP_WORK moves it). A job that fails or dies is a
# row with status job-failed in bench.csv or greedy-scale.csv; rerunning it repairs it.
#
# The grid has three bands of region sizes (kernel invocations):
#   small  greedy-down, greedy-up, ilp, ilp-mono, ilp-lazy, ilp-decomp, ilp-cg
#   big    greedy-down, greedy-up, ilp, ilp-lazy, ilp-decomp, ilp-cg (ilp-mono only times out)
#   huge   greedy-down, greedy-up, ilp-decomp, ilp-cg (where the 100-in-1 s / 300-in-10 s goal stands)
# default: small 5..40, big 60 80 100, huge 150 200 300; chains 2 4 8; seeds 3101 3102
# 3103 (small and big bands), 3101 3102 (huge band); 10 s limit. With seeds 1 2 in
# every band it took 768 scheduler runs, 844-850 s wall on two cores with --jobs=2
# (2026-11-23/24, commits 572c830 and 952bff9); the third seed in the small and big bands
# adds 264 runs, about 3-4 minutes more (an estimate: not run at this size yet). Most
# big and huge ILP runs take their whole limit, so the wall time is about (runs at the
# limit) x 10 s / jobs. To save time: mono_max=30 saves ~60 s, huge_solvers=glpk ~95 s
# (below). tiny runs in seconds (tests use it: schema and plots, not timings); small in
# about a minute; large extends the grid (huge up to 500, 3 seeds, 30 s limit; not timed,
# expect well over an hour).
# Seeds: the sweep's seeds are disjoint from every generator seed used while
# developing and testing the schedulers (1-99 in tests/, fusion/ILP.md and the
# commits; 9001-9003 in issue 23's probe): the claims in results/README.md are
# measured on regions the code was never tuned on.
#
# Outputs: bench.csv (every nessie-bench row), solver-time.csv (one row per region and
# strategy), solver-summary.csv (per invocations and strategy: regions, median and max
# solve seconds, proven optimal / feasible / time-limit fallback counts; the table the
# README quotes), fusion-quality.csv (each greedy schedule against the best ILP schedule
# of its region), greedy-scale.csv (greedy at 300-10000 invocations, one region per
# size and generator family), solver-time.svg|png, fusion-quality.svg|png and
# greedy-scale.svg|png.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source experiments/array.bash
size=default jobs=2 out=results limit="" bin=bin mode=all jobno=""
for a in "$@"; do
  case "$a" in
    --size=*) size=${a#*=} ;;
    --jobs=*) jobs=${a#*=} ;;
    --out=*) out=${a#*=} ;;
    --time-limit=*) limit=${a#*=} ;;
    --bin=*) bin=${a#*=} ;;
    --list) mode=list ;;
    --merge) mode=merge ;;
    --slurm) mode=slurm ;;
    --job=*) mode=job jobno=${a#*=} ;;
    -h|--help) sed -n '2,49p' "$0"; exit 0 ;;
    *) echo "sweep.sh: unknown argument '$a' (--help)" >&2; exit 2 ;;
  esac
done
# small/big/huge: the size bands above; mono_max: the largest size ilp-mono runs at;
# huge_solvers: the ILP solvers of the huge band.
case "$size" in
  tiny)    small="4 6"; big="8"; huge="10"; chains="2 4"; seeds="3101"; huge_seeds=$seeds; tl=2
           mono_max=6; huge_solvers="glpk,cbc"; scale="50 100" ;;
  small)   small="5 10 15 20"; big="30 40"; huge="60 100"; chains="2 4"; seeds="3101 3102"; huge_seeds=$seeds; tl=5
           mono_max=20; huge_solvers="glpk,cbc"; scale="300 1000" ;;
  default) small="5 10 15 20 25 30 40"; big="60 80 100"; huge="150 200 300"; chains="2 4 8"
           seeds="3101 3102 3103"; huge_seeds="3101 3102"; tl=10
           mono_max=40; huge_solvers="glpk,cbc"; scale="300 1000 3000 10000" ;;
  large)   small="5 10 15 20 25 30 40 50"; big="60 80 100"; huge="150 200 300 400 500"; chains="2 4 8"
           seeds="3101 3102 3103"; huge_seeds=$seeds; tl=30; mono_max=50; huge_solvers="glpk,cbc"; scale="300 1000 3000 10000 30000" ;;
  *) echo "sweep.sh: --size must be tiny, small, default or large" >&2; exit 2 ;;
esac
[ -n "$limit" ] && tl=$limit
case $bin in /*) ;; *) bin=$root/$bin ;; esac
work=${SWEEP_WORK:-build/sweep/$size}
case $work in /*) ;; *) work=$root/$work ;; esac
mkdir -p "$work/rows" "$work/logs"
jobfile=$work/jobs.txt
# The options every job runs with (locally and in each Slurm task), and the key of those
# that make the job list (array_check_key).
task_opts=(--size="$size" --time-limit="$tl" --bin="$bin")
list_key="size=$size time-limit=$tl"

# The generator specs for the sizes in $1 that satisfy the test $2 (on k).
specs_for() {
  local o=() k c s
  for k in $1; do
    (eval "$2") || continue
    for c in $chains; do
      [ "$c" -le "$k" ] || continue
      for s in $seeds; do o+=("gen:kernels=$k,chain=$c,seed=$s"); done
    done
  done
  echo "${o[@]}"
}

# ---------------------------------------------------------------- the job list
# band SIZES TEST STRATEGIES SOLVERS: one bench job per region (specs_for SIZES TEST).
band() {
  local s
  for s in $(specs_for "$1" "$2"); do echo "bench $tl $3 $4 $s"; done
}
list_jobs() {
  band "$small" "[ \$k -le $mono_max ]" greedy-down,greedy-up,ilp,ilp-mono,ilp-lazy,ilp-decomp,ilp-cg glpk,cbc
  band "$small" "[ \$k -gt $mono_max ]" greedy-down,greedy-up,ilp,ilp-lazy,ilp-decomp,ilp-cg glpk,cbc
  band "$big" true greedy-down,greedy-up,ilp,ilp-lazy,ilp-decomp,ilp-cg glpk,cbc
  seeds=$huge_seeds band "$huge" true greedy-down,greedy-up,ilp-decomp,ilp-cg "$huge_solvers"
  # Greedy at scale (the issue's "thousands of invocations in milliseconds"): one
  # region per size in $scale and generator family (each family's default chain:
  # four layers for random and trap, one chain for chain), greedy-down and greedy-up.
  local fam k
  for fam in random chain siblings diamond trap; do
    for k in $scale; do echo "scale - greedy-down,greedy-up - gen:family=$fam,kernels=$k,seed=1"; done
  done
}

# ---------------------------------------------------------------- one job
# run_job K: job K's nessie-bench rows (CSV, with its header) into WORK/rows/K.csv, the
# command and its stderr into WORK/logs/K.log. A failure leaves no row file (merge
# writes the job's rows with status job-failed) and exits 1.
run_job() {
  local line kind t strategies solvers spec k
  line=$(array_job_line sweep.sh "$jobfile" "$list_key" "$1") || exit $?
  read -r kind t strategies solvers spec <<<"$line"
  k=$((10#$1))
  local row=$work/rows/$k.csv log=$work/logs/$k.log
  rm -f "$row"
  local cmd=("$bin/nessie-bench" --format=csv --scheduler="$strategies" --jobs=1)
  [ "$kind" = scale ] || cmd+=(--solver="$solvers" --time-limit="$t")
  cmd+=("$spec")
  { printf '%q ' "${cmd[@]}"; echo; } >"$log"
  if ! "${cmd[@]}" >"$row.tmp" 2>>"$log"; then
    rm -f "$row.tmp"
    echo "sweep.sh: job $k ($line) failed: see $log" >&2
    exit 1
  fi
  mv -f "$row.tmp" "$row"
}

# failed_rows HEADER STRATEGIES SOLVERS SPEC: the rows a job that left none would have
# written (nessie-bench's order: strategy, then solver), with status job-failed.
failed_rows() {
  awk -v h="$1" -v st="$2" -v so="$3" -v spec="$4" 'BEGIN {
    n = split(h, name, ","); ns = split(st, S, ","); nv = split(so, V, ",")
    for (i = 1; i <= ns; i++)
      for (j = 1; j <= (S[i] ~ /^ilp/ ? nv : 1); j++) {
        line = ""
        for (c = 1; c <= n; c++) {
          f = ""
          if (name[c] == "input") f = "\"" spec "\""
          if (name[c] == "scheduler") f = S[i]
          if (name[c] == "solver") f = (S[i] ~ /^ilp/) ? V[j] : "-"
          if (name[c] == "status") f = "job-failed"
          line = line (c > 1 ? "," : "") f
        }
        print line
      }
  }'
}

# ---------------------------------------------------------------- merging
# gather: every job's rows, in the list's order, into OUT/bench.csv (bench jobs) and
# WORK/scale.csv (scale jobs), a job without rows as job-failed rows; the failed jobs'
# lines into WORK/failed.txt.
gather() {
  local k=0 kind t strategies solvers spec header="" f
  for f in "$work"/rows/*.csv; do [ -f "$f" ] && [ -s "$f" ] && { header=$(head -n 1 "$f"); break; }; done
  [ -n "$header" ] || { echo "sweep.sh: no job of $jobfile left rows (logs: $work/logs)" >&2; exit 1; }
  echo "$header" >"$out/bench.csv"
  echo "$header" >"$work/scale.csv"
  : >"$work/failed.txt"
  while read -r kind t strategies solvers spec; do
    k=$((k + 1))
    f=$work/rows/$k.csv
    local dest=$out/bench.csv
    [ "$kind" = bench ] || dest=$work/scale.csv
    if [ -f "$f" ] && [ -s "$f" ]; then
      tail -n +2 "$f" >>"$dest"
    else
      failed_rows "$header" "$strategies" "$solvers" "$spec" >>"$dest"
      echo "$k $kind $strategies $spec" >>"$work/failed.txt"
    fi
  done <"$jobfile"
}

# greedy-scale.csv: family, kernels, strategy, solve seconds, kernels and objective after
# fusion, and the status (greedy; job-failed where the job left no row).
scale_table() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { f = $0; sub(/^"gen:family=/, "", f); sub(/,.*/, "", f)
      k = $0; sub(/^"[^"]*kernels=/, "", k); sub(/[,"].*/, "", k)
      sub(/^"[^"]*",/, "") } # the quoted input holds commas: drop it, then shift the columns
    { print f "," k "," $(col["scheduler"] - 1) "," $(col["solve_seconds"] - 1) "," $(col["kernels_after"] - 1) "," $(col["objective"] - 1) "," $(col["status"] - 1) }' \
    "$work/scale.csv" |
    { echo "family,kernels,strategy,solve_seconds,kernels_after,objective,status"; cat; } >"$out/greedy-scale.csv"
}

# Rows of bench.csv start with the quoted input "gen:kernels=K,chain=C,seed=S";
# the awk below takes K, C, S from it and the other columns by name. strat is the
# scheduler, with "-SOLVER" for the ILP schedulers.
# shellcheck disable=SC2016 # awk text, expanded by awk
split_rows='
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
  NR > 1 {
    line = $0
    match(line, /kernels=[0-9]+/); k = substr(line, RSTART + 8, RLENGTH - 8)
    match(line, /chain=[0-9]+/);   c = substr(line, RSTART + 6, RLENGTH - 6)
    match(line, /seed=[0-9]+/);    s = substr(line, RSTART + 5, RLENGTH - 5)
    sub(/^"[^"]*",/, "", line)      # drop the input column
    split(line, f, ",")
    for (name in col) v[name] = f[col[name] - 1]
    strat = (v["scheduler"] ~ /^ilp/) ? v["scheduler"] "-" v["solver"] : v["scheduler"]
    failed = (v["status"] == "job-failed")
  }'

merge() {
  mkdir -p "$out"
  gather
  scale_table
  # Sanity warnings (on stderr; the data stays as measured): a run over its time limit
  # by more than a second, and a region where a proven optimum is beaten or two proven
  # optima disagree (a solver or model bug).
  awk -F, -v tl="$tl" "$split_rows"'
    NR > 1 && !failed && v["solve_seconds"] + 0 > tl + 1 {
      printf "sweep.sh: warning: %s on gen:kernels=%s,chain=%s,seed=%s took %s s (limit %s s, status %s)\n",
        strat, k, c, s, v["solve_seconds"], tl, v["status"] > "/dev/stderr"
    }
    NR > 1 && !failed {
      id = "gen:kernels=" k ",chain=" c ",seed=" s
      if (v["status"] == "optimal") {
        if (id in opt && (v["objective"] - opt[id] > 1e-9 * opt[id] || opt[id] - v["objective"] > 1e-9 * opt[id]))
          printf "sweep.sh: warning: proven optima disagree on %s: %s %s, %s %s\n", id, who[id], opt[id],
            strat, v["objective"] > "/dev/stderr"
        opt[id] = v["objective"]; who[id] = strat
      }
      if (!(id in low) || v["objective"] + 0 < low[id] + 0) { low[id] = v["objective"]; lw[id] = strat }
    }
    END {
      for (id in opt)
        if (low[id] + 0 < opt[id] * (1 - 1e-9))
          printf "sweep.sh: warning: %s beats the proven optimum of %s on %s: %s < %s\n", lw[id], who[id], id,
            low[id], opt[id] > "/dev/stderr"
    }' "$out/bench.csv"

  # solver-time.csv: one row per (region, strategy).
  awk -F, -v OFS=, "$split_rows"'
    NR == 1 { print "kernels,chain,seed,strategy,status,solve_seconds,build_seconds,variables,constraints,nodes" }
    NR > 1 { print k, c, s, strat, v["status"], v["solve_seconds"], v["build_seconds"], v["variables"], v["constraints"], v["nodes"] }
  ' "$out/bench.csv" >"$out/solver-time.csv"

  # solver-summary.csv (rows of jobs that failed left out): per (invocations, strategy) the median and max solve seconds and
  # how many regions ended proven optimal, feasible (a better schedule, not proven) or
  # at the time limit with the greedy fallback. Rows by strategy, then invocations (the
  # plot draws one line per strategy from consecutive rows).
  awk -F, -v OFS=, "$split_rows"'
    NR > 1 && !failed {
      key = v["invocations"] SUBSEP strat; keys[key] = 1
      t[key, ++n[key]] = v["solve_seconds"] + 0
      if (v["status"] == "optimal") po[key]++
      else if (v["status"] == "feasible") fe[key]++
      else if (v["status"] ~ /fallback/) fb[key]++
    }
    END {
      for (key in keys) {
        m = n[key]
        for (i = 2; i <= m; i++) {          # insertion sort of this cell'"'"'s times
          x = t[key, i]
          for (j = i - 1; j >= 1 && t[key, j] > x; j--) t[key, j + 1] = t[key, j]
          t[key, j + 1] = x
        }
        med = (m % 2) ? t[key, (m + 1) / 2] : (t[key, m / 2] + t[key, m / 2 + 1]) / 2
        split(key, kk, SUBSEP)
        printf "%s,%s,%d,%.6f,%.6f,%d,%d,%d\n", kk[1], kk[2], m, med, t[key, m], po[key], fe[key], fb[key]
      }
    }' "$out/bench.csv" | sort -t, -k2,2 -k1,1n |
    { echo "invocations,strategy,regions,median_seconds,max_seconds,proven,feasible,fallback"; cat; } \
      >"$out/solver-summary.csv"

  # fusion-quality.csv (rows of jobs that failed left out): each greedy schedule against the best ILP schedule of the same
  # region over every ILP strategy (a proven optimum first, then the lowest objective;
  # ties to the first in grid order); objective_ratio = greedy objective / ILP objective
  # (1 = as good as the ILP).
  awk -F, -v OFS=, "$split_rows"'
    NR > 1 && !failed {
      id = k "," c "," s; ids[id] = 1
      if (!(strat in seen)) { seen[strat] = 1; order[++ns] = strat }
      K[id, strat] = v["kernels_after"]; A[id, strat] = v["arrays_after"]
      O[id, strat] = v["objective"]; S[id, strat] = v["status"]
    }
    END {
      print "kernels,chain,seed,strategy,kernels_after,arrays_after,objective,ilp,ilp_status,ilp_kernels,ilp_arrays,ilp_objective,objective_ratio"
      for (id in ids) {
        b = ""
        for (q = 1; q <= ns; q++) {
          st = order[q]
          if (st !~ /^ilp/ || !((id, st) in O)) continue
          if (b == "") { b = st; continue }
          po = (S[id, st] == "optimal"); pb = (S[id, b] == "optimal")
          if (po > pb || (po == pb && O[id, st] + 0 < O[id, b] + 0)) b = st
        }
        if (b == "") continue
        for (g = 1; g <= 2; g++) {
          st = (g == 1) ? "greedy-down" : "greedy-up"
          if (!((id, st) in O)) continue
          ratio = (O[id, b] + 0 > 0) ? O[id, st] / O[id, b] : 1
          print id, st, K[id, st], A[id, st], O[id, st], b, S[id, b], K[id, b], A[id, b], O[id, b], sprintf("%.6f", ratio)
        }
      }
    }' "$out/bench.csv" | { read -r h; echo "$h"; sort -t, -k1,1n -k2,2n -k3,3n -k4,4; } >"$out/fusion-quality.csv"
  local o nruns
  o=$(gnuplot_str "$out")
  gnuplot -e "out=$o; tl=$tl" experiments/plots/solver-time.gp
  gnuplot -e "out=$o" experiments/plots/fusion-quality.gp
  gnuplot -e "out=$o" experiments/plots/greedy-scale.gp
  nruns=$(($(wc -l <"$out/bench.csv") - 1))
  echo "sweep ($size): $nruns scheduler runs${1:-}; wrote $out/bench.csv, solver-time.csv," \
    "solver-summary.csv, fusion-quality.csv, greedy-scale.csv and plots" >&2
  if [ -s "$work/failed.txt" ]; then
    echo "sweep.sh: jobs that left no rows (status job-failed; logs in $work/logs; rerun one with --job=K or sbatch --array=K):" >&2
    sed 's/^/  /' "$work/failed.txt" >&2
  fi
}

case $mode in
  list) list_jobs ;;
  job)
    [ -f "$jobfile" ] || list_jobs | array_write_list "$jobfile" "$list_key"
    run_job "$jobno" ;;
  merge)
    array_check_key sweep.sh "$jobfile" "$list_key"
    command -v gnuplot >/dev/null || { echo "sweep.sh: gnuplot is not installed (make deps)" >&2; exit 1; }
    merge ;;
  slurm)
    [ -x "$bin/nessie-bench" ] || { echo "sweep.sh: no $bin/nessie-bench (run make)" >&2; exit 1; }
    SWEEP_WORK=$work array_slurm sweep.sh nessie-sweep 1 00:30:00 ;;
  all)
    [ -x "$bin/nessie-bench" ] || { echo "sweep.sh: no $bin/nessie-bench (run make)" >&2; exit 1; }
    command -v gnuplot >/dev/null || { echo "sweep.sh: gnuplot is not installed (make deps)" >&2; exit 1; }
    list_jobs | array_write_list "$jobfile" "$list_key"
    rm -f "$work"/rows/*.csv
    self=$root/experiments/sweep.sh
    echo "sweep ($size): time limit ${tl}s, $jobs jobs" >&2
    awk '$1 == "bench" { print $3 "; ILPs with " $4 }' "$jobfile" | uniq -c |
      awk '{ n = $1; sub(/^ *[0-9]+ /, ""); print "  " n " regions x " $0 }' >&2
    start=$(date +%s)
    grep -n '^bench ' "$jobfile" | cut -d: -f1 | sed 's/^/--job=/' |
      SWEEP_WORK=$work xargs -P "$jobs" -n 1 bash "$self" "${task_opts[@]}" || echo "sweep.sh: a job failed (its rows say job-failed)" >&2
    end=$(date +%s)
    echo "  greedy at scale: $scale invocations, five families, one job at a time" >&2
    for k in $(grep -n '^scale ' "$jobfile" | cut -d: -f1); do
      SWEEP_WORK=$work bash "$self" "${task_opts[@]}" --job="$k" || true # its rows say job-failed
    done
    merge " in $((end - start)) s" ;;
esac
