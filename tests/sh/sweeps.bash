# sweeps.bash — sourced (after common.bash) by slurm_sweeps.sh and slurm_script.sh, the
# tests of the two sweeps' cluster path (experiments/sweep.sh and programs.sh, issue 41):
# a copy of the checkout at a hostile path, the sweeps' options all away from their
# defaults, local runs of the same sweeps, and the checks of a merge against them.

# hostile_checkout: $co, a copy of what the sweeps need (experiments/, .ci/) at a path
# holding command substitutions, quotes, spaces, `#` and a Slurm pattern (`%A`); $hbin,
# the binaries under such a name (a link: $co has no bin/, so a task that lost --bin
# fails); $pw and $sw, the work folders (PROGRAMS_WORK, SWEEP_WORK), and $pout and $sout,
# the merges' output folders, as hostile; $pwned, the file that the path's commands would
# create if anything ran them.
hostile_checkout() {
  pwned=$tmp/pwned
  export PWNED=$pwned # the commands name it through the environment: a path has no `/`
  local evil="it's \"q\" \$(touch \"\$PWNED\") \`touch \$PWNED\` #1 %A"
  co="$tmp/checkout $evil"
  mkdir -p "$co"
  cp -r experiments .ci "$co/"
  hbin="$tmp/bin $evil"
  ln -s "$(cd "$bin" && pwd)" "$hbin"
  pw="$tmp/programs work $evil" sw="$tmp/sweep work $evil"
  pout="$co/out programs $evil" sout="$co/out sweep $evil"
}

# The sweeps' options, every one that reaches a task away from its default: tiny sizes,
# two runs (tiny's default is one), two programs and three variants (job 2 must be
# dotprod ilp-cg), a time limit of 3 s (tiny's is 2).
popts() { echo --size=tiny --runs=2 --programs=dotprod,spmv --variants=none,ilp-cg,baseline-c; }
sopts() { echo --size=tiny --time-limit=3; }
# shellcheck disable=SC2207 # the options hold no spaces
p_opts=($(popts)) s_opts=($(sopts))
export NESSIE_CFLAGS=-O1 # the sweeps' compiles; carried into the tasks as part of the environment

# write_scripts: both sweeps' --slurm, in the hostile checkout: $pw/programs.slurm and
# $sw/sweep.slurm, and their job lists.
write_scripts() {
  (cd "$co" && PROGRAMS_WORK=$pw bash experiments/programs.sh "${p_opts[@]}" --bin="$hbin" --slurm) >"$tmp/p.log" 2>&1 ||
    { bad "programs.sh --slurm failed:"; cat "$tmp/p.log"; exit 1; }
  (cd "$co" && SWEEP_WORK=$sw bash experiments/sweep.sh "${s_opts[@]}" --bin="$hbin" --slurm) >"$tmp/s.log" 2>&1 ||
    { bad "sweep.sh --slurm failed:"; cat "$tmp/s.log"; exit 1; }
}

# local_sweeps: both sweeps run here, in this checkout, into $tmp/local-{programs,sweep}.
local_sweeps() {
  PROGRAMS_WORK=$tmp/local-pw bash experiments/programs.sh "${p_opts[@]}" --bin="$bin" --jobs=2 \
    --out="$tmp/local-programs" >"$tmp/local-programs.log" 2>&1 || { bad "local programs.sh failed:"; cat "$tmp/local-programs.log"; }
  SWEEP_WORK=$tmp/local-sw bash experiments/sweep.sh "${s_opts[@]}" --bin="$bin" --jobs=2 \
    --out="$tmp/local-sweep" >"$tmp/local-sweep.log" 2>&1 || { bad "local sweep.sh failed:"; cat "$tmp/local-sweep.log"; }
}

# merge_sweeps: --merge of both sweeps' rows (the hostile checkout's, $pw and $sw) into
# $pout and $sout.
merge_sweeps() {
  (cd "$co" && PROGRAMS_WORK=$pw bash experiments/programs.sh "${p_opts[@]}" --bin="$hbin" --merge --out="$pout") \
    >"$tmp/merge-programs.log" 2>&1 || { bad "programs.sh --merge failed:"; cat "$tmp/merge-programs.log"; }
  (cd "$co" && SWEEP_WORK=$sw bash experiments/sweep.sh "${s_opts[@]}" --bin="$hbin" --merge --out="$sout") \
    >"$tmp/merge-sweep.log" 2>&1 || { bad "sweep.sh --merge failed:"; cat "$tmp/merge-sweep.log"; }
}

# same_columns WHAT LOCAL MERGED COLUMNS: the two CSVs agree on the columns (cut -f list).
same_columns() {
  if ! diff <(cut -d, -f"$4" "$2") <(cut -d, -f"$4" "$3") >"$tmp/diff"; then
    bad "$1: the merge differs from the local run in columns $4:"
    head -n 20 "$tmp/diff"
  fi
}

# check_rows: what the merges wrote, alone. programs.csv: the filtered job list in its
# order, every row ok after two runs; bench.csv: every row a finished schedule, the tasks
# having run with the time limit given; every plot of both; nothing ran from the paths,
# and no task fell back to the checkout's own work folders.
check_rows() {
  local mp=$pout/programs.csv ms=$sout/bench.csv f
  [ -s "$mp" ] && [ -s "$ms" ] || { bad "the merges wrote no programs.csv or bench.csv"; return 1; }
  [ "$(awk -F, 'NR > 1 { print $1, $3 }' "$mp")" = "$(printf '%s\n' 'dotprod none' 'dotprod ilp-cg' 'dotprod baseline-c' \
    'spmv none' 'spmv ilp-cg' 'spmv baseline-c')" ] || { bad "programs.csv: not the filtered job list:"; cat "$mp"; }
  awk -F, 'NR > 1 && ($5 != "ok" || $18 != 2) { print "  " $0; bad = 1 } END { exit bad }' "$mp" >"$tmp/d" ||
    { bad "programs.csv: rows not ok or not two runs (--runs lost?):"; cat "$tmp/d"; }
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { sub(/^"[^"]*"/, "input")
      s = $c["status"]; if (s == "" || s == "job-failed") { print "  " $0; bad = 1 } } END { exit bad }' "$ms" >"$tmp/d" ||
    { bad "bench.csv: rows without a schedule:"; cat "$tmp/d"; }
  grep -q -- '--time-limit=3 ' "$sw"/logs/1.log || { bad "sweep job 1 did not run with --time-limit=3:"; cat "$sw"/logs/1.log; }
  for f in "$pout"/programs-{time,bytes,objective,baselines} "$sout"/{solver-time,fusion-quality,greedy-scale}; do
    grep -q '<svg' "$f.svg" 2>/dev/null || bad "$f.svg is not an SVG"
    [ "$(head -c 4 "$f.png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ] || bad "$f.png is not a PNG"
  done
  [ ! -e "$pwned" ] || bad "a command in a path ran"
  [ ! -e "$co/build" ] || bad "a task wrote under the checkout's build/ (PROGRAMS_WORK or SWEEP_WORK lost)"
}

# check_merged: check_rows, and the merges against the local runs. programs.csv: the same
# static columns (the job, the fusion report's counts, the profile's launches and bytes;
# not the times, solve seconds or threads, nor the code's hash: the generated C names its
# source, the wrapper in the work folder). bench.csv: the same regions and strategies in
# the same order with the same unfused counts, and the same status and objective
# wherever both runs proved an optimum or made a greedy schedule (a time limit may stop
# one run's solver and not the other's on a loaded machine: every honest status is
# accepted there; a greedy schedule never depends on time). greedy-scale.csv: the same counts.
check_merged() {
  check_rows || return
  local ls=$tmp/local-sweep/bench.csv ms=$sout/bench.csv
  same_columns programs.csv "$tmp/local-programs/programs.csv" "$pout/programs.csv" 1-14,16,18-22
  # input (three fields: it holds two commas), region, function, scheduler, solver,
  # invocations, and the unfused kernels, arrays, traversals and objective
  same_columns bench.csv "$ls" "$ms" 1-8,9,11,13,15
  paste -d'|' "$ls" "$ms" | awk -F'|' 'NR > 1 { split($1, a, ","); split($2, b, ",")
      pa = a[17] == "optimal" || a[17] == "greedy"; pb = b[17] == "optimal" || b[17] == "greedy"
      if (pa && pb && (a[17] != b[17] || a[16] != b[16])) { print "  " $0; bad = 1 }
      if (a[17] == "greedy" && b[17] != "greedy") { print "  " $0; bad = 1 } }
      END { exit bad }' >"$tmp/d" || { bad "bench.csv: a proven optimum or greedy schedule differs:"; head -n 10 "$tmp/d"; }
  same_columns greedy-scale.csv "$tmp/local-sweep/greedy-scale.csv" "$sout/greedy-scale.csv" 1-3,5-7
}
