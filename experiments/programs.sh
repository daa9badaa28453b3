#!/usr/bin/env bash
# experiments/programs.sh — fusion strategies measured end to end on the NESL benchmark
# programs (issue 28; experiments/README.md): every program of experiments/programs at
# one size, compiled by `nessie build` with each scheduler and run on the C back end,
# against the hand-written baselines (experiments/baselines). Writes OUT/programs.csv
# (one row per program and variant, whatever its status), the derived tables and the
# gnuplot plots.
#
#   experiments/programs.sh [--size=tiny|small|default|classic|large] [--jobs=N] [--runs=R]
#                           [--out=DIR] [--bin=DIR] [--programs=a,b] [--variants=a,b]
#   experiments/programs.sh --size=S --list            the job list, one job a line
#   experiments/programs.sh --size=S --job=K [--build-only]   job K of that list
#   experiments/programs.sh --size=S --job=K --rep=I | --finish   (the local run's
#                                  interleaving: after --build-only, run I alone; the row)
#   experiments/programs.sh --size=S --merge [--out=DIR]  the rows so far -> CSV, plots
#   experiments/programs.sh --size=S --slurm [options]  writes a Slurm array script
#
# --list, --job, --merge and --slurm take the same --size, --runs, --bin, --programs and
# --variants as a full run (and PROGRAMS_WORK): a job refuses (exit 2) when the list was
# made with other options, and --slurm writes every one of them, and the environment
# (experiments/array.bash), into the script, so that each task runs what the list says.
#
# A job is one program and one variant: none, greedy-down, greedy-up, ilp-glpk,
# ilp-cbc, ilp-cg (the schedulers; nessie build --scheduler, --solver), baseline-c
# (experiments/baselines/c, seed 0 = the NESL program's inputs), cmu-nesl (CMU NESL 3.1's
# serial VCODE interpreter, where ../shared/tools/cmu-nesl built it, else a row with
# status no-cmu), baseline-cuda (where one exists; run only where a GPU is) and, where a
# GPU is, cuda-SCHEDULER (--target=cuda, the profile through CUPTI). Every system times
# the same thing: the NESL programs run bench_timed(n), which builds the inputs, then
# times compute(inputs) with NESL's time(...) (experiments/programs/README.md); the C
# baselines time the same computation. A job measures: the static counts of the fusion
# report (nessie emit --stage=fused: regions, kernels, materialised arrays, traversals,
# objective, solve seconds) and, per run, those timed seconds, the runtime's profile
# (launches, bytes allocated by kernels, peak memory) and the process's wall time; every
# run's output is checked against experiments/programs/verify.py's Python model. It
# writes one row under build/experiments/SIZE/rows/, whatever happens (status column).
# Jobs are independent: --jobs=N builds N at a time (the C compiler is the slow part);
# then the local run interleaves: repetition I runs every job's run I, one job at a
# time (each has the machine's cores), so that a change of load hits every system alike.
# On a cluster each array task (--job=K) runs its job's repetitions alone, and --merge
# gathers the rows (the work directory must be shared). Identical generated C
# (schedulers that fuse alike) is compiled once (column code). Every run, baselines
# included, has OMP_WAIT_POLICY=passive unless the caller set it (Nessie's runtime sets
# passive itself when it is unset: runtime/README.md), so all wait alike.
#
# Sizes: tiny (the golden tests' sizes, one run; the tests use it for the pipeline,
# never for timings), small, default (sized for about 15 minutes on two quiet cores;
# 30 minutes measured under a load average of 6-10, results/README.md), classic (issue 37's
# five classic programs at its sizes: dot product 10^7, Black-Scholes 10^6, quicksort
# 10^6, n-body 3000, primes 10^6), large.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source experiments/array.bash
size=default jobs=2 out=results bin=bin runs="" mode=all jobno="" build_only=0 phase=all
only_progs="" only_variants=""
for a in "$@"; do
  case "$a" in
    --size=*) size=${a#*=} ;;
    --jobs=*) jobs=${a#*=} ;;
    --runs=*) runs=${a#*=} ;;
    --out=*) out=${a#*=} ;;
    --bin=*) bin=${a#*=} ;;
    --programs=*) only_progs=${a#*=} ;;
    --variants=*) only_variants=${a#*=} ;;
    --list) mode=list ;;
    --merge) mode=merge ;;
    --slurm) mode=slurm ;;
    --job=*) mode=job jobno=${a#*=} ;;
    --build-only) build_only=1 ;;
    --rep=*) phase=rep=${a#*=}
      [[ ${a#*=} =~ ^[0-9]+$ ]] || { echo "programs.sh: --rep needs a run number" >&2; exit 2; } ;;
    --finish) phase=finish ;;
    -h|--help) sed -n '2,50p' "$0"; exit 0 ;;
    *) echo "programs.sh: unknown argument '$a' (--help)" >&2; exit 2 ;;
  esac
done
programs="dotprod blackscholes nbody quicksort quickhull batcher_sort radix_sort spmv mandelbrot linefit primes barnes_hut"
# size classes: n per program (bench(n), experiments/programs/README.md), runs per job
case "$size" in
  tiny)    sizes="dotprod=1000 blackscholes=300 nbody=60 quicksort=1000 quickhull=500 batcher_sort=700
                  radix_sort=1000 spmv=300 mandelbrot=24 linefit=500 primes=2000 barnes_hut=300"; r=1 ;;
  small)   sizes="dotprod=300000 blackscholes=30000 nbody=300 quicksort=30000 quickhull=30000 batcher_sort=8000
                  radix_sort=30000 spmv=30000 mandelbrot=100 linefit=300000 primes=300000 barnes_hut=2000"; r=3 ;;
  default) sizes="dotprod=3000000 blackscholes=1000000 nbody=1500 quicksort=500000 quickhull=500000 batcher_sort=16384
                  radix_sort=500000 spmv=500000 mandelbrot=300 linefit=3000000 primes=5000000 barnes_hut=10000"; r=3 ;;
  # issue 37's classic five at its sizes (the other programs are not in the list)
  classic) sizes="dotprod=10000000 blackscholes=1000000 quicksort=1000000 nbody=3000 primes=1000000"; r=5 ;;
  large)   sizes="dotprod=50000000 blackscholes=5000000 nbody=5000 quicksort=5000000 quickhull=5000000 batcher_sort=1048576
                  radix_sort=5000000 spmv=5000000 mandelbrot=1000 linefit=50000000 primes=50000000 barnes_hut=100000"; r=5 ;;
  *) echo "programs.sh: --size must be tiny, small, default, classic or large" >&2; exit 2 ;;
esac
[ -n "$runs" ] && r=$runs
work=${PROGRAMS_WORK:-build/experiments/$size}
case $work in /*) ;; *) work=$root/$work ;; esac
case $bin in /*) ;; *) bin=$root/$bin ;; esac
mkdir -p "$work/rows" "$work/runs" "$work/logs" "$work/bins" "$work/src" "$work/ref"
# the baselines wait as Nessie's runtime does (it re-executes itself with passive when unset)
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
jobfile=$work/jobs.txt
# The options a job runs with (every job of a run, every task of a Slurm array), and the
# key of those that make the job list (array_check_key).
task_opts=(--size="$size" --bin="$bin")
[ -z "$runs" ] || task_opts+=(--runs="$runs")
[ -z "$only_progs" ] || task_opts+=(--programs="$only_progs")
[ -z "$only_variants" ] || task_opts+=(--variants="$only_variants")
list_key="size=$size runs=${runs:-default} programs=${only_progs:-all} variants=${only_variants:-all}"
# Wall-clock limit of one run (a hang is a row with status timeout, not a stuck sweep).
run_limit=${PROGRAMS_RUN_LIMIT:-600}
schedulers="none greedy-down greedy-up ilp-glpk ilp-cbc ilp-cg"
gpu=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU && bash .ci/find-cuda >/dev/null 2>&1; then gpu=1; fi
# cuda_baseline PROGRAM: its hand-written CUDA baseline (experiments/baselines/cuda), if any
cuda_baseline() {
  case "$1" in
    dotprod|blackscholes) echo "experiments/baselines/cuda/$1.cu" ;;
    quicksort|batcher_sort|radix_sort) echo experiments/baselines/cuda/sort.cu ;;
  esac
}
size_of() { tr ' ' '\n' <<<"$sizes" | sed -n "s/^$1=//p"; }
want() { [ -z "$2" ] || tr , '\n' <<<"$2" | grep -qx "$1"; }

# ---------------------------------------------------------------- the job list
list_jobs() {
  local p v
  for p in $programs; do
    want "$p" "$only_progs" || continue
    [ -n "$(size_of "$p")" ] || continue
    for v in $schedulers baseline-c cmu-nesl; do
      want "$v" "$only_variants" && echo "$p $v $(size_of "$p") $r"
    done
    [ -n "$(cuda_baseline "$p")" ] && want baseline-cuda "$only_variants" && echo "$p baseline-cuda $(size_of "$p") $r"
    if [ $gpu = 1 ]; then
      for v in $schedulers; do want "cuda-$v" "$only_variants" && echo "$p cuda-$v $(size_of "$p") $r"; done
    fi
  done
}

# ---------------------------------------------------------------- one job
header="program,n,variant,target,status,regions,kernels_before,kernels,arrays_before,arrays,traversals_before,traversals,objective_before,objective,solve_seconds,regions_not_proven,code,runs,launches,kernels_run,bytes_allocated,peak_bytes,seconds_min,seconds_median,kernel_seconds_median,process_seconds_median,threads,note"

# fusion_flags VARIANT: the scheduler options of a Nessie variant.
fusion_flags() {
  case "${1#cuda-}" in
    none) echo "--scheduler=none" ;;
    ilp-glpk) echo "--scheduler=ilp --solver=glpk" ;;
    ilp-cbc) echo "--scheduler=ilp --solver=cbc" ;;
    *) echo "--scheduler=${1#cuda-}" ;;
  esac
}

# static_counts WRAPPER VARIANT: the fusion report summed over regions, as the CSV's
# columns regions .. regions_not_proven; `none` counts the unfused program (the left
# side of any report: greedy-down's).
static_counts() {
  local w=$1 v=${2#cuda-} flags
  flags=$(fusion_flags "$v")
  [ "$v" = none ] && flags="--scheduler=greedy-down"
  # shellcheck disable=SC2086
  "$bin/nessie" emit "$w" --stage=fused $flags 2>"$w.static.err" | grep '^// region' |
    awk -v none="$([ "$v" = none ] && echo 1 || echo 0)" '
      { for (i = 1; i <= NF; i++) {
          if ($i == "kernels") { kb += $(i + 1); ka += $(i + 3) + 0 }
          if ($i == "arrays") { ab += $(i + 1); aa += $(i + 3) + 0 }
          if ($i == "traversals") { tb += $(i + 1); ta += $(i + 3) + 0 }
          if ($i == "objective") { ob += $(i + 1); oa += $(i + 3) + 0 }
          if ($i == "solve") s += $(i + 1)
          if ($i ~ /^status=/ && $i != "status=optimal" && $i != "status=greedy") np++
        }
        n++ }
      END { if (none) { ka = kb; aa = ab; ta = tb; oa = ob; s = 0; np = 0 }
            printf "%d,%d,%d,%d,%d,%d,%d,%.0f,%.0f,%.6f,%d\n", n, kb, ka, ab, aa, tb, ta, ob, oa, s, np }'
}

median() { grep . | sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print a[(NR + 1) / 2]; else printf "%.6f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
minimum() { grep . | sort -g | head -n 1; }

# CMU NESL 3.1 (../shared/tools/cmu-nesl; CMU_NESL_DIR, default its build.sh's place):
# the cmu-nesl variant runs where it is built, else its rows say no-cmu.
cmu_run=${CMU_NESL_RUN:-$root/../shared/tools/cmu-nesl/run.sh}
cmu_dir=${CMU_NESL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cmu-nesl}
cmu_installed() { [ -f "$cmu_run" ] && [ -f "$cmu_dir/nesl/run-nesl.lisp" ] && command -v clisp >/dev/null; }
# A CMU NESL run is a serial bytecode interpreter under CLISP: its own, shorter limit.
cmu_limit=${PROGRAMS_CMU_LIMIT:-300}

# run_job K [PHASE]: job K of the list. PHASE all (the default: build, every run, the
# row), build (--build-only), rep=I (run I alone, recorded under runs/; the local sweep
# interleaves the jobs' runs this way) or finish (the row from the recorded runs).
run_job() {
  local line prog variant n runs phase=${2:-all}
  line=$(array_job_line programs.sh "$jobfile" "$list_key" "$1") || exit $?
  read -r prog variant n runs <<<"$line"
  local row=$work/rows/$prog.$variant.csv log=$work/logs/$prog.$variant.log
  local rec=$work/runs/$prog.$variant.txt
  # a job that dies from here on leaves no row (merge: job-failed), never an earlier run's
  [ "$phase" = finish ] || rm -f "$row"
  case "$phase" in
    all|build) rm -f "$rec" ;;
    # a job that could not be built (or whose run failed) is not run again
    rep=*) if [ -f "$rec" ] && grep -qv '^ok ' "$rec"; then return 0; fi ;;
  esac
  local target=c
  case "$variant" in cuda-*|baseline-cuda) target=cuda ;; cmu-nesl) target=vcode ;; esac
  local status=ok static=",,,,,,,,,," code="" note="" threads=${OMP_NUM_THREADS:-$(nproc)}
  local exe="" w="" cmd=() limit=$run_limit
  [ "$phase" = build ] && : >"$log"
  emit_row() { # the row, with dynamic columns $1
    echo "$prog,$n,$variant,$target,$status,$static,$code,$1,$threads,$note" >"$row"
  }
  # fail STATUS NOTE: the job cannot run; in the rep and finish phases its row comes at
  # finish, so a build-phase failure is recorded for it
  fail() {
    status=$1 note=$2
    [ "$phase" = all ] || echo "$status $note" >"$rec"
    [[ $phase == rep=* ]] || emit_row ",,,,,,,,"
  }
  # the timed entry: bench_timed(n) = (bench(n), seconds of time(compute(inputs)))
  # (experiments/programs/README.md); the wrapper is Nessie's and CMU NESL's program
  local at=${root//\\/\\\\}
  w=$work/src/$prog.nesl
  printf 'load "%s/experiments/programs/%s" $\nbench_timed(%s) $\n' "${at//\"/\\\"}" "$prog" "$n" >"$w.$$"
  # rewritten only when it changes (an older sweep's wrapper timed bench(n) whole)
  if cmp -s "$w.$$" "$w"; then rm -f "$w.$$"; else mv -f "$w.$$" "$w"; fi
  case "$variant" in
    baseline-c)
      local src=experiments/baselines/c/$prog.c
      if [ ! -f "$src" ]; then fail no-baseline "no hand-written C baseline"; return 0; fi
      exe=$work/bins/baseline-$prog
      if [ ! -x "$exe" ] || [ "$src" -nt "$exe" ] || [ experiments/baselines/c/suite.h -nt "$exe" ]; then
        if ! "${CC:-cc}" -std=c11 -O2 -fopenmp "$src" -lm -o "$exe.tmp.$$" >>"$log" 2>&1 ||
           ! mv -f "$exe.tmp.$$" "$exe"; then
          fail build-failed "cc failed (see $log)"; return 0
        fi
      fi
      cmd=("$exe" "$n" 0) ;;
    baseline-cuda)
      local cu
      cu=$(cuda_baseline "$prog")
      if [ -z "$cu" ] || [ ! -f "$cu" ]; then fail no-baseline "no hand-written CUDA baseline"; return 0; fi
      if [ $gpu = 0 ]; then fail no-gpu "$(basename "$cu") not run: no GPU"; return 0; fi
      exe=$work/bins/baseline-cuda-$prog
      [ -x "$exe" ] || "$(bash .ci/find-cuda)" -O2 "$cu" -o "$exe" >>"$log" 2>&1 ||
        { fail build-failed "nvcc failed (see $log)"; return 0; }
      cmd=("$exe" "$n" 0) ;;
    cmu-nesl)
      if ! cmu_installed; then fail no-cmu "CMU NESL not installed ($cmu_dir; ../shared/tools/cmu-nesl/build.sh)"; return 0; fi
      # serial: one thread, whatever OMP_NUM_THREADS says
      cmd=(bash "$cmu_run" "$root/experiments/programs/$prog.nesl" "bench_timed($n)") limit=$cmu_limit threads=1 ;;
    *)
      local flags tflag=""
      flags=$(fusion_flags "$variant")
      [ "$target" = cuda ] && tflag="--target=cuda"
      # the static counts and the generated code's hash, kept from the build phase
      local memo=$work/logs/$prog.$variant.static
      if [ -s "$memo" ] && [ "$memo" -nt "$bin/nessie" ] && [ "$memo" -nt "$w" ] &&
         [ "$memo" -nt "experiments/programs/$prog.nesl" ]; then
        read -r static code <"$memo"
      else
        static=$(static_counts "$w" "$variant") || true
        [ -n "$static" ] || static=",,,,,,,,,,"
        # shellcheck disable=SC2086
        if ! "$bin/nessie" emit "$w" --stage="$target" $flags >"$w.$variant.$target" 2>>"$log"; then
          fail build-failed "nessie emit failed (see $log)"; return 0
        fi
        code=$(md5sum <"$w.$variant.$target" | cut -c1-10)
        rm -f "$w.$variant.$target"
        echo "$static $code" >"$memo"
      fi
      [ "$static" != ",,,,,,,,,," ] || note="no fusion report"
      exe=$work/bins/$prog-$target-$code
      # shellcheck disable=SC2086
      # shellcheck disable=SC2016 # $1.. expand in the inner shell
      if ! flock "$exe.lock" bash -c '[ -x "$1" ] || "$2/nessie" build "$3" -o "$1" $4 $5' _ \
             "$exe" "$bin" "$w" "$flags" "$tflag" >>"$log" 2>&1; then
        fail build-failed "nessie build failed (see $log)"; return 0
      fi
      cmd=("$exe") ;;
  esac
  case "$phase" in
    build) return 0 ;;
    all) local i; for i in $(seq 1 "$runs"); do run_once "$i" || break; done ;;
    rep=*) run_once "${phase#rep=}" || true; return 0 ;;
  esac
  job_row
}

# run_once I: run I of the job set up by run_job (its locals): checks the output and
# appends `ok SECONDS LAUNCHES KERNELS BYTES PEAK KERNEL_SECONDS PROCESS_SECONDS` to the
# job's record, or `STATUS NOTE` (and returns 1); nothing once a run has failed.
run_once() {
  local i=$1 t0 t1 rc prof=$work/logs/$prog.$variant.prof.csv outf=$work/logs/$prog.$variant.out
  if [ -f "$rec" ] && grep -qv '^ok ' "$rec"; then return 1; fi
  rm -f "$prof"
  t0=$(date +%s.%N)
  set +e
  NESSIE_PROFILE=$prof timeout "$limit" "${cmd[@]}" >"$outf" 2>>"$log"
  rc=$?
  set -e
  t1=$(date +%s.%N)
  if [ $rc = 124 ]; then echo "timeout run over ${limit}s" >>"$rec"; return 1; fi
  if [ $rc != 0 ]; then echo "run-failed exit $rc (see $log)" >>"$rec"; tail -n 5 "$outf" >>"$log"; return 1; fi
  local verdict
  if [[ $variant == baseline-* ]]; then
    verdict=$(python3 experiments/programs/verify.py --check-baseline="$outf" "$prog=$n" --cache="$work/ref" 2>&1) || true
  else
    verdict=$(python3 experiments/programs/verify.py --check-timed="$outf" "$prog=$n" --cache="$work/ref" 2>&1) || true
  fi
  if [ "$variant" = cmu-nesl ] && ! grep -q '^it = ' "$outf"; then
    # CMU NESL reports its errors (out of vector memory, a missing function) and exits 0
    echo "run-failed CMU NESL: $(grep -v ' = fn : ' "$outf" | grep -v '^compacting' | head -n 2 | tr ',\n' '; ' | cut -c1-200)" >>"$rec"
    cat "$outf" >>"$log"
    return 1
  fi
  if [ "$verdict" != ok ]; then
    echo "wrong $(tr ',\n' ';' <<<"$verdict" | cut -c1-200)" >>"$rec"
    { echo "run $i: $verdict"; cat "$outf"; } >>"$log"
    return 1
  fi
  local ps s=0 launches="" kruns="" bytes="" peak="" ks=""
  ps=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
  if [[ $variant == baseline-* ]]; then
    s=$(sed -n 's/^seconds //p' "$outf")
  else
    # the seconds of time(...): the last value of the `it = ((...), SECONDS) : ...` line
    s=$(grep '^it = ' "$outf" | tail -n 1 | sed 's/ : .*//; s/.*, *//; s/)$//')
  fi
  if [ -f "$prof" ]; then
    # profile: kernel rows, then (total) with peak bytes
    read -r launches kruns bytes peak ks < <(awk -F, 'NR > 1 && $4 == "(total)" { peak = $9 }
        NR > 1 && $4 != "(total)" { l += $7; k++; b += $9; ks += $10 }
        END { printf "%d %d %.0f %.0f %.6f\n", l, k, b, peak, ks }' "$prof")
  fi
  echo "ok $s ${launches:--} ${kruns:--} ${bytes:--} ${peak:--} ${ks:--} $ps" >>"$rec"
}

# job_row: the row of the job set up by run_job, from its record of runs
job_row() {
  local bad
  bad=$(grep -v '^ok ' "$rec" 2>/dev/null | head -n 1 || true)
  if [ -n "$bad" ]; then
    status=${bad%% *} note=${bad#* }
    emit_row "$runs,,,,,,,,"; return 0
  fi
  if [ ! -s "$rec" ]; then status=job-failed note="no runs recorded"; emit_row "$runs,,,,,,,,"; return 0; fi
  col() { awk -v c="$1" '$c != "-" { print $c }' "$rec"; }
  local smin smed kmed pmed last
  smin=$(col 2 | minimum || true)
  smed=$(col 2 | median || true)
  kmed=$(col 7 | median || true)
  pmed=$(col 8 | median || true)
  # the counts of the last run (they do not change from run to run)
  last=$(tail -n 1 "$rec" | awk '{ for (i = 3; i <= 6; i++) if ($i == "-") $i = ""; print $3 "," $4 "," $5 "," $6 }')
  emit_row "$(wc -l <"$rec"),$last,$smin,$smed,$kmed,$pmed"
}

# ---------------------------------------------------------------- merging
merge() {
  mkdir -p "$out"
  local csv=$out/programs.csv
  # one row per job of the list, in its order; a job that left no row (it died) is a
  # row with status job-failed
  { echo "$header"
    local p v n k t
    while read -r p v n k; do
      if [ -f "$work/rows/$p.$v.csv" ]; then
        cat "$work/rows/$p.$v.csv"
      else
        t=c
        case "$v" in cuda-*|baseline-cuda) t=cuda ;; esac
        echo "$p,$n,$v,$t,job-failed,,,,,,,,,,,,,$k,,,,,,,,,,no row: the job died (see $work/logs/$p.$v.log)"
      fi
    done <"$jobfile"; } >"$csv"
  # the derived tables (python3: the rank correlation) and the plots
  python3 experiments/programs-tables.py "$csv" "$out"
  local rho
  rho=$(sed -n 's/^rank correlation (Spearman) .*: //p' "$out/programs-summary.txt")
  if grep -q '^[^,]*,[^,]*,none,c,ok,' "$csv"; then
    local o
    o=$(gnuplot_str "$out")
    gnuplot -e "out=$o" experiments/plots/programs-time.gp
    gnuplot -e "out=$o" experiments/plots/programs-bytes.gp
    gnuplot -e "out=$o; rho='$rho'" experiments/plots/programs-objective.gp
    gnuplot -e "out=$o" experiments/plots/programs-baselines.gp
  else
    echo "programs.sh: no program ran unfused correctly: no plots" >&2
  fi
  local bad
  # row K is job K: the number to rerun it with (--job=K, sbatch --array=K)
  bad=$(awk -F, 'NR > 1 && $5 != "ok" { printf "  %d %s %s: %s (%s)\n", NR - 1, $1, $3, $5, $28 }' "$csv")
  echo "programs ($size): $(($(wc -l <"$csv") - 1)) rows in $csv; plots and tables in $out" >&2
  [ -z "$bad" ] || { echo "rows whose status is not ok (job number, program, variant):" >&2; echo "$bad" >&2; }
}

case $mode in
  list) list_jobs ;;
  job)
    [ -f "$jobfile" ] || list_jobs | array_write_list "$jobfile" "$list_key"
    [ $build_only = 1 ] && phase=build
    run_job "$jobno" "$phase" ;;
  merge)
    array_check_key programs.sh "$jobfile" "$list_key"
    merge ;;
  slurm)
    [ -x "$bin/nessie" ] || { echo "programs.sh: no $bin/nessie (run make)" >&2; exit 1; }
    PROGRAMS_WORK=$work array_slurm programs.sh nessie-programs 2 01:00:00 ;;
  all)
    [ -x "$bin/nessie" ] || { echo "programs.sh: no $bin/nessie (run make)" >&2; exit 1; }
    command -v gnuplot >/dev/null || { echo "programs.sh: gnuplot is not installed (make deps)" >&2; exit 1; }
    command -v python3 >/dev/null || { echo "programs.sh: python3 is needed (the output checks)" >&2; exit 1; }
    list_jobs | array_write_list "$jobfile" "$list_key"
    rm -f "$work"/rows/*.csv
    n=$(wc -l <"$jobfile")
    self=$root/experiments/programs.sh
    echo "programs ($size): $n jobs; building with $jobs at a time; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    start=$(date +%s)
    seq 1 "$n" | sed 's/^/--job=/' | PROGRAMS_WORK=$work xargs -P "$jobs" -n 1 bash "$self" "${task_opts[@]}" --build-only ||
      echo "programs.sh: a build job failed (its row says why)" >&2
    built=$(date +%s)
    echo "programs ($size): built in $((built - start)) s; timed runs interleaved: $r repetitions of every job, one job at a time" >&2
    for i in $(seq 1 "$r"); do
      for k in $(seq 1 "$n"); do
        PROGRAMS_WORK=$work bash "$self" "${task_opts[@]}" --job="$k" --rep="$i" ||
          echo "programs.sh: job $k ($(sed -n "${k}p" "$jobfile")) run $i failed" >&2
      done
    done
    for k in $(seq 1 "$n"); do
      PROGRAMS_WORK=$work bash "$self" "${task_opts[@]}" --job="$k" --finish || echo "programs.sh: job $k ($(sed -n "${k}p" "$jobfile")) failed" >&2
    done
    echo "programs ($size): ran in $(($(date +%s) - built)) s; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    merge ;;
esac
