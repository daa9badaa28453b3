#!/usr/bin/env bash
# recursion_memory.sh — a value dies at its last use, not when the recursion that made it
# returns (compiler/lcu/lcu_lastuse.c; the AST interpreter's tail calls, NlExpr.tail).
# A recursive loop of 20,000 steps over 10,000 ints kept every step's array alive on all
# three paths (800 MB); now each path holds about one step: the AST interpreter and
# --interp=lcu stay under 200 MB of resident memory, the compiled program's peak of
# counted bytes (NESSIE_PROFILE's (total) row) under 8 MB. Quicksort of 10^5 keys peaked
# at 98 MB of counted bytes; it stays under 16 MB. Memory, never time, is checked.
source "$(dirname "$0")/common.bash"
[ -f "$bin/nessie-rt/libnessie_rt.a" ] || { echo "SKIP: no runtime library in $bin/nessie-rt"; exit 77; }
export NESSIE_CACHE_DIR=$tmp/cache OMP_WAIT_POLICY=passive
# the sanitizer build keeps freed blocks in a quarantine (256 MB by default): keep it small
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16
# maxrss_mb CMD...: runs CMD (stdout to $tmp/out), prints its peak resident memory in MB
maxrss_mb() {
  python3 -c 'import resource, subprocess, sys
with open(sys.argv[1], "w") as out: rc = subprocess.call(sys.argv[2:], stdout=out)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024 if rc == 0 else "exit %d" % rc)' "$tmp/out" "$@"
}
# peak_mb PROFILE.csv: the (total) row's peak bytes, in MB
peak_mb() { awk -F, '$4 == "(total)" { printf "%d\n", $9 / 1048576 }' "$1"; }

cat >"$tmp/loop.nesl" <<'NESL'
function loop(a, k) = if k == 0 then a else loop({x + 1 : x in a}, k - 1) $
function bench(n) = let r = loop({i : i in [0:10000]}, n) in (#r, sum(r)) $
bench(20000) $
NESL
want="it = (10000, 249995000) : int, int"
for p in --interp=ast --interp=lcu; do
  mb=$(maxrss_mb "$bin/nessie" run "$tmp/loop.nesl" "$p")
  grep -qxF "$want" "$tmp/out" || bad "loop $p: no '$want' in: $(tail -n 1 "$tmp/out")"
  case $mb in
    *[!0-9]*|"") bad "loop $p: $mb" ;;
    *) [ "$mb" -lt 200 ] || bad "loop $p: $mb MB resident (bound 200 MB: one step is 40 KB)" ;;
  esac
done
# c_peak NAME TEXT MB: builds $tmp/NAME.nesl, runs it with a profile; its last line must
# contain TEXT (a fixed string) and its peak of counted bytes stay under MB
c_peak() {
  "$bin/nessie" build "$tmp/$1.nesl" -o "$tmp/$1" >"$tmp/build.log" 2>&1 || { bad "build of $1 failed"; cat "$tmp/build.log"; return; }
  NESSIE_PROFILE=$tmp/$1.csv "$tmp/$1" >"$tmp/out" || bad "$1 --target=c: exit $?"
  tail -n 1 "$tmp/out" | grep -qF -- "$2" || bad "$1 --target=c: no '$2' in: $(tail -n 1 "$tmp/out")"
  mb=$(peak_mb "$tmp/$1.csv")
  [ -n "$mb" ] && [ "$mb" -lt "$3" ] || bad "$1 --target=c: peak ${mb:-?} MB (bound $3 MB)"
}
c_peak loop "$want" 8
printf 'load "%s/experiments/programs/quicksort" $\nbench(100000) $\n' "$PWD" >"$tmp/qs.nesl"
c_peak qs "it = (T, " 16
exit $fail
