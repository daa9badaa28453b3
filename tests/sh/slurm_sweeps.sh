#!/usr/bin/env bash
# slurm_sweeps.sh — both sweeps (experiments/sweep.sh, the sweep of `make plots`, and
# programs.sh, `make experiments`) as job arrays on a real Slurm (issue 41). Installs
# Debian's slurm-wlm and munge when missing; starts munged, slurmctld and slurmd for a
# one-node cluster on localhost, everything (configuration, key, socket, state, spool,
# logs, pid files) in this test's temporary folder and the two ports free ones; submits
# both tiny sweeps with sbatch, from a copy of the checkout at a hostile path and with
# every option away from its default (sweeps.bash); waits, with a bound; merges; and
# checks the merge against local runs of the same sweeps (static columns equal, every
# row ok). Then one task of each array is made to fail (its row file blocked): Slurm
# records the task as failed and the merge shows its rows as job-failed; `sbatch
# --array=K` of the same script repairs them. Every daemon it started, and every
# process of its cluster, is stopped on exit, failure included. A skip (77, with the
# reason) where Slurm cannot be installed or started.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/sweeps.bash"
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
command -v gnuplot >/dev/null || { echo "skipped: no gnuplot"; exit 77; }
sd=$tmp/slurm
pids=()
jobids=()

# ---------------------------------------------------------------- install
have_slurm() { command -v sbatch && command -v slurmctld && command -v slurmd && command -v munged; } >/dev/null
if ! have_slurm; then
  [ "$(id -u)" = 0 ] || { echo "skipped: Slurm is not installed, and installing it (apt-get) needs root"; exit 77; }
  command -v apt-get >/dev/null || { echo "skipped: Slurm is not installed, and there is no apt-get to install it"; exit 77; }
  # no service may start from the packages' scripts: this test starts its own daemons
  own_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && own_policy=1
  fi
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
      --no-install-recommends slurm-wlm munge; } >"$tmp/apt.log" 2>&1
  [ $own_policy = 0 ] || rm -f /usr/sbin/policy-rc.d
  have_slurm || { tail -n 5 "$tmp/apt.log"; echo "skipped: apt-get could not install slurm-wlm and munge"; exit 77; }
fi
[ "$(id -u)" = 0 ] || { echo "skipped: slurmd must run as root (this test runs as $(id -un))"; exit 77; }

# ---------------------------------------------------------------- the cluster
# stop_cluster: cancel this test's jobs, stop the daemons it started, then any process
# still carrying this cluster's configuration in its environment (slurmstepd and the
# tasks it ran outlive slurmd), each by its id.
stop_cluster() {
  [ ${#jobids[@]} = 0 ] || timeout 20 scancel "${jobids[@]}" >/dev/null 2>&1
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for _ in $(seq 1 100); do # up to 10 s for them to end, then KILL
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && break; done
    kill -0 "$p" 2>/dev/null || break
    sleep 0.1
  done
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  for p in /proc/[0-9]*; do
    grep -qzx "SLURM_CONF=$sd/slurm.conf" "$p/environ" 2>/dev/null && kill -9 "${p#/proc/}" 2>/dev/null
  done
  pids=()
}
# on a failure, the daemons' last words first (their logs go with $tmp)
trap '[ "$fail" = 0 ] || tail -n 15 "$sd"/*.log 2>/dev/null; stop_cluster; rm -rf "$tmp"' EXIT
trap 'exit 143' TERM INT HUP

# skip_start WHY: the cluster did not come up: the daemons' last words, then a skip.
skip_start() {
  tail -n 5 "$sd"/*.out 2>/dev/null
  echo "skipped: Slurm did not start: $1"
  exit 77
}

chmod 711 "$tmp" # munged wants every folder above its socket searchable by all
mkdir -p "$sd/state" "$sd/spool"
head -c 1024 /dev/urandom >"$sd/munge.key"
chmod 400 "$sd/munge.key"
munged -F --key-file="$sd/munge.key" --socket="$sd/munge.sock" --pid-file="$sd/munged.pid" \
  --seed-file="$sd/munged.seed" --log-file="$sd/munged.log" >"$sd/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 300); do [ -S "$sd/munge.sock" ] || ! kill -0 "${pids[0]}" 2>/dev/null && break; sleep 0.1; done
[ -S "$sd/munge.sock" ] || skip_start "munged made no socket in 30 s"
# two ports free now on every address (the controller's and slurmd's)
read -r cport dport < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("", 0))
print(*[x.getsockname()[1] for x in s])')
host=$(hostname -s 2>/dev/null || hostname)
node=nessie-node
# at least the two CPUs a programs task asks for (config_overrides lets the node claim
# more than a one-core machine has)
cpus=$(nproc)
[ "$cpus" -ge 2 ] || cpus=2
cat >"$sd/slurm.conf" <<EOF
# one node on localhost for tests/sh/slurm_sweeps.sh; every file in $sd
ClusterName=nessietest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sd/munge.sock
StateSaveLocation=$sd/state
SlurmdSpoolDir=$sd/spool
SlurmctldPidFile=$sd/slurmctld.pid
SlurmdPidFile=$sd/slurmd.pid
SlurmctldLogFile=$sd/slurmctld.log
SlurmdLogFile=$sd/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=$node NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=nessie Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$sd/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$sd/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$sd/slurmd.out" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 1 120); do
  state=$(sinfo -h -n "$node" -o %T 2>/dev/null) || true
  [ "$state" = idle ] && break
  sleep 1
done
[ "$state" = idle ] || skip_start "node $node not idle after 120 s (state '${state:-none}')"
echo "Slurm $(sinfo -V | cut -d' ' -f2): node $node idle, ports $cport and $dport"

# ---------------------------------------------------------------- the sweeps
hostile_checkout
write_scripts
pscript=$pw/programs.slurm sscript=$sw/sweep.slurm

# submit ARG...: sbatch from $tmp (no checkout: the script must find its own), the job's id
# into $id and jobids.
submit() {
  id=$(cd "$tmp" && sbatch --parsable "$@") || { bad "sbatch $* failed"; exit 1; }
  id=${id%%;*}
  jobids+=("$id")
}
# submit_arrays ARG...: both sweeps' scripts, with the sbatch options ARG; their ids in
# $pj and $sj.
submit_arrays() {
  submit "$@" "$pscript"
  pj=$id
  submit "$@" "$sscript"
  sj=$id
}
# wait_jobs ID...: until the controller lists none of them (a hang guard of 900 s; the
# tiny sweeps take seconds of work).
wait_jobs() {
  local left
  for _ in $(seq 1 900); do
    left=$(squeue -h -j "$(IFS=,; echo "$*")" -o %i 2>/dev/null | wc -l) || left=1
    [ "$left" = 0 ] && return 0
    sleep 1
  done
  bad "jobs $* still queued or running after 900 s:"
  squeue
  exit 1
}
# task_state ID K: the state Slurm recorded for task K of array ID.
task_state() { scontrol show job "${1}_$2" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1; }

t0=$(date +%s)
submit_arrays
local_sweeps # meanwhile, the same sweeps here
wait_jobs "$pj" "$sj"
echo "both arrays ran in $(($(date +%s) - t0)) s (with the local runs beside them)"
for k in $(seq 1 "$(wc -l <"$sw/jobs.txt")"); do
  [ "$(task_state "$sj" "$k")" = JobState=COMPLETED ] || bad "sweep task $k: $(task_state "$sj" "$k")"
done
merge_sweeps
check_merged
cp "$pout/programs.csv" "$tmp/first-programs.csv"
cp "$sout/bench.csv" "$tmp/first-bench.csv"

# A task that fails: its row file is a folder, so it cannot start (it removes its old row
# first); Slurm records the failure, the merge writes its rows as job-failed.
rm -f "$pw/rows/dotprod.ilp-cg.csv" "$sw/rows/2.csv"
mkdir "$pw/rows/dotprod.ilp-cg.csv" "$sw/rows/2.csv"
submit_arrays --array=2
wait_jobs "$pj" "$sj"
[ "$(task_state "$pj" 2)" = JobState=FAILED ] || bad "the blocked programs task: $(task_state "$pj" 2), not FAILED"
[ "$(task_state "$sj" 2)" = JobState=FAILED ] || bad "the blocked sweep task: $(task_state "$sj" 2), not FAILED"
merge_sweeps
awk -F, 'NR > 1 && $5 != "ok" { print $1, $3, $5 }' "$pout/programs.csv" >"$tmp/d"
[ "$(cat "$tmp/d")" = "dotprod ilp-cg job-failed" ] || { bad "programs.csv after the failed task:"; cat "$tmp/d"; }
spec=$(sed -n '2s/.* //p' "$sw/jobs.txt")
nfail=$(grep -c ',job-failed,' "$sout/bench.csv")
[ "$nfail" -gt 0 ] && [ "$nfail" = "$(grep -c "^\"$spec\"," "$tmp/first-bench.csv")" ] &&
  [ "$(grep ',job-failed,' "$sout/bench.csv" | grep -vc "^\"$spec\",")" = 0 ] ||
  { bad "bench.csv after the failed task: $nfail job-failed rows, expected those of $spec alone"; grep job-failed "$sout/bench.csv"; }
grep -q "^  2 bench .* $spec\$" "$tmp/merge-sweep.log" || { bad "sweep.sh --merge does not name the failed job:"; cat "$tmp/merge-sweep.log"; }
grep -q "^  2 dotprod ilp-cg: job-failed" "$tmp/merge-programs.log" || { bad "programs.sh --merge does not name the failed job:"; cat "$tmp/merge-programs.log"; }

# The rerun of that one task repairs it.
rmdir "$pw/rows/dotprod.ilp-cg.csv" "$sw/rows/2.csv"
submit_arrays --array=2
wait_jobs "$pj" "$sj"
merge_sweeps
check_merged
same_columns "programs.csv after the rerun" "$tmp/first-programs.csv" "$pout/programs.csv" 1-14,16-22
same_columns "bench.csv after the rerun" "$tmp/first-bench.csv" "$sout/bench.csv" 1-8,9,11,13,15
echo "done in $(($(date +%s) - t0)) s"
exit $fail
