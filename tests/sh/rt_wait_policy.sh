#!/usr/bin/env bash
# rt_wait_policy.sh — a compiled program runs with OMP_WAIT_POLICY=passive unless the
# user set the variable (runtime/README.md, "OpenMP wait policy"): libgomp reads it when
# it loads, so rt_main executes the program once more with it set. Checked with strace
# (the exec and the environment it passes); skipped without strace.
source "$(dirname "$0")/common.bash"
command -v strace >/dev/null || { echo "skipped: no strace"; exit 77; }
strace -f -e trace=none true >/dev/null 2>&1 || { echo "skipped: strace cannot trace here"; exit 77; }
export NESSIE_CACHE_DIR=$tmp/cache NESSIE_CFLAGS=-O0
"$bin/nessie" build tests/lcu/dotprod.lcu -o "$tmp/dotp" >"$tmp/build.out" 2>&1 || {
  bad "nessie build tests/lcu/dotprod.lcu:"
  cat "$tmp/build.out"
  exit 1
}
args=('[1.0, 2.0, 3.0]' '[4.0, 5.0, 6.0]')
want=$("$tmp/dotp" "${args[@]}")
[ "$want" = 32.0 ] || bad "dotp printed '$want', not 32.0"
# LeakSanitizer cannot run under ptrace (the sanitizer build's programs)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
# unset: one exec of the program itself, whose environment has the variable
env -u OMP_WAIT_POLICY strace -f -v -s 64 -e trace=execve -o "$tmp/trace" "$tmp/dotp" "${args[@]}" >"$tmp/out" 2>&1
[ "$(cat "$tmp/out")" = "$want" ] || bad "re-executed: output '$(cat "$tmp/out")', not '$want'"
n=$(grep -c 'execve(' "$tmp/trace")
[ "$n" = 2 ] || { bad "unset: $n execs, not 2 (the program and its re-execution):"; cat "$tmp/trace"; }
grep 'execve("/proc/self/exe"' "$tmp/trace" | grep -q '"OMP_WAIT_POLICY=passive"' ||
  { bad "the re-execution does not pass OMP_WAIT_POLICY=passive:"; cat "$tmp/trace"; }
# set by the user: kept, no second exec
OMP_WAIT_POLICY=active strace -f -e trace=execve -o "$tmp/trace2" "$tmp/dotp" "${args[@]}" >/dev/null 2>&1
n=$(grep -c 'execve(' "$tmp/trace2")
[ "$n" = 1 ] || { bad "OMP_WAIT_POLICY=active: $n execs, not 1:"; cat "$tmp/trace2"; }
exit $fail
