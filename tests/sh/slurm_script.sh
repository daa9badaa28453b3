#!/usr/bin/env bash
# slurm_script.sh — the Slurm array scripts of both sweeps (experiments/sweep.sh and
# programs.sh --slurm, issue 41) without a Slurm: each task run as Slurm runs it (bash,
# SLURM_ARRAY_TASK_ID set, from another folder), from a copy of the checkout at a hostile
# path, with every option away from its default (sweeps.bash). Checks that nothing in a
# path runs, every option reaches the tasks, the merge has every row ok, and --job takes
# only a line of the list (exit 2 for a non-number, an out-of-range line, or options other
# than the list's). slurm_sweeps.sh runs the same scripts on a real Slurm.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/sweeps.bash"
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
command -v gnuplot >/dev/null || { echo "skipped: no gnuplot"; exit 77; }
hostile_checkout
write_scripts
np=$(wc -l <"$pw/jobs.txt") ns=$(wc -l <"$sw/jobs.txt")
[ "$np" = 6 ] || bad "programs: $np jobs, expected 6 (2 programs x 3 variants)"
[ "$ns" = 18 ] || bad "sweep: $ns jobs, expected 18 (8 regions and 10 at scale)"
grep -qx "#SBATCH --array=1-$np" "$pw/programs.slurm" || bad "programs.slurm: not an array of $np tasks"
grep -qx "#SBATCH --array=1-$ns" "$sw/sweep.slurm" || bad "sweep.slurm: not an array of $ns tasks"

# Every task, as Slurm would run it: the environment cleared of what the scripts carry,
# from a folder that is not the checkout.
run_tasks() { # SCRIPT N
  local k
  for k in $(seq 1 "$2"); do
    (cd / && env -u PROGRAMS_WORK -u SWEEP_WORK -u NESSIE_CFLAGS SLURM_ARRAY_TASK_ID="$k" bash "$1") \
      >>"$tmp/tasks.log" 2>&1 || bad "task $k of $1 failed"
  done
}
run_tasks "$pw/programs.slurm" "$np"
run_tasks "$sw/sweep.slurm" "$ns"
[ $fail = 0 ] || cat "$tmp/tasks.log"
merge_sweeps
check_rows
# a script run outside an array refuses
(cd / && env -u SLURM_ARRAY_TASK_ID bash "$sw/sweep.slurm") >"$tmp/o" 2>&1 && bad "sweep.slurm ran outside a Slurm array"
grep -q 'not a Slurm array task' "$tmp/o" || { bad "sweep.slurm outside an array:"; cat "$tmp/o"; }

# --job: a line of the list, or exit 2 (and nothing run: the old --job went into sed)
for j in abc '1p;e touch "$PWNED"' '' 0 -1 7 99999999999999999999 1.5; do
  PROGRAMS_WORK=$pw bash "$co/experiments/programs.sh" "${p_opts[@]}" --bin="$hbin" --job="$j" >"$tmp/o" 2>&1
  st=$?
  [ $st = 2 ] || { bad "programs.sh --job='$j': exit $st, expected 2"; cat "$tmp/o"; }
done
for j in abc '2p;e touch "$PWNED"' 0 19; do
  SWEEP_WORK=$sw bash "$co/experiments/sweep.sh" "${s_opts[@]}" --bin="$hbin" --job="$j" >"$tmp/o" 2>&1
  st=$?
  [ $st = 2 ] || { bad "sweep.sh --job='$j': exit $st, expected 2"; cat "$tmp/o"; }
done
[ ! -e "$pwned" ] || bad "--job ran a command"
# a job run with options other than the list's refuses (it would run another list's line)
PROGRAMS_WORK=$pw bash "$co/experiments/programs.sh" --size=tiny --bin="$hbin" --job=2 >"$tmp/o" 2>&1
st=$?
[ $st = 2 ] && grep -q 'listed with other options' "$tmp/o" || { bad "programs.sh --job=2 without the list's filters: exit $st"; cat "$tmp/o"; }
SWEEP_WORK=$sw bash "$co/experiments/sweep.sh" --size=tiny --bin="$hbin" --job=2 >"$tmp/o" 2>&1
st=$?
[ $st = 2 ] && grep -q 'listed with other options' "$tmp/o" || { bad "sweep.sh --job=2 without the list's time limit: exit $st"; cat "$tmp/o"; }
# ... as does a merge
SWEEP_WORK=$sw bash "$co/experiments/sweep.sh" --size=tiny --bin="$hbin" --merge --out="$tmp/m" >"$tmp/o" 2>&1
st=$?
[ $st = 2 ] && grep -q 'listed with other options' "$tmp/o" || { bad "sweep.sh --merge without the list's time limit: exit $st"; cat "$tmp/o"; }
# ... and a line of the list, with its options, runs (leading zeros are the same line)
SWEEP_WORK=$sw bash "$co/experiments/sweep.sh" "${s_opts[@]}" --bin="$hbin" --job=002 >"$tmp/o" 2>&1 ||
  { bad "sweep.sh --job=002 failed:"; cat "$tmp/o"; }
exit $fail
