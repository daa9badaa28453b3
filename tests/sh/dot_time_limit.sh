#!/usr/bin/env bash
# --dot-time-limit: a picture Graphviz cannot finish in time is given up with a
# message naming the .dot file, which stays; no half-written SVG; exit 1 (nessie
# lcu fuse and nessie-bench). A 2000-invocation region takes dot over a minute
# here, so a limit of 0.01 s cannot be met on any machine. Bad values exit 2.
. "$(dirname "$0")/common.bash"
"$bin/nessie-gen" kernels=2000,seed=1 >"$tmp/r.lcu" || bad "nessie-gen failed"

"$bin/nessie" lcu fuse "$tmp/r.lcu" --scheduler=greedy-down --dot="$tmp/a" --dot-time-limit=0.01 >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st = 1 ] || bad "nessie lcu fuse: exit $st, want 1"
grep -q "did not finish drawing $tmp/a/region0 within 0.01 s (2000 invocations); $tmp/a/region0.dot is written" "$tmp/err" ||
  bad "nessie lcu fuse message: $(head -c 300 "$tmp/err")"
[ -s "$tmp/a/region0.dot" ] || bad "region0.dot missing"
[ ! -e "$tmp/a/region0.svg" ] || bad "a half-drawn region0.svg was left"
grep -q '^kernel' "$tmp/out" && bad "the fused program was printed although the run failed"

"$bin/nessie-bench" --scheduler=greedy-up --dot="$tmp/b" --dot-time-limit=0.01 "$tmp/r.lcu" >/dev/null 2>"$tmp/err"
st=$?
[ $st = 1 ] || bad "nessie-bench: exit $st, want 1"
grep -q "did not finish drawing" "$tmp/err" || bad "nessie-bench message: $(head -c 300 "$tmp/err")"
ls "$tmp"/b/*.dot >/dev/null 2>&1 || bad "nessie-bench wrote no .dot"
ls "$tmp"/b/*.svg >/dev/null 2>&1 && bad "nessie-bench left an svg"

# a small region is drawn well within the default limit
"$bin/nessie" lcu fuse tests/fusion/greedy_trap.lcu --scheduler=ilp --dot="$tmp/c" >/dev/null ||
  bad "greedy_trap with the default --dot-time-limit failed"
[ -s "$tmp/c/region0.svg" ] || bad "greedy_trap drew no svg"

for v in 0 -1 abc 1e400; do
  "$bin/nessie" lcu fuse tests/fusion/greedy_trap.lcu --dot="$tmp/d" --dot-time-limit=$v >/dev/null 2>"$tmp/err"
  st=$?
  [ $st = 2 ] && grep -q -- "--dot-time-limit" "$tmp/err" || bad "nessie --dot-time-limit=$v: exit $st, $(head -c 200 "$tmp/err")"
  "$bin/nessie-bench" --dot="$tmp/d" --dot-time-limit=$v tests/fusion/greedy_trap.lcu >/dev/null 2>"$tmp/err"
  st=$?
  [ $st = 2 ] || bad "nessie-bench --dot-time-limit=$v: exit $st"
done
exit $fail
