#!/usr/bin/env bash
# CBC runs in a child process (fusion/ilp_cbc.c): when it dies, as CBC 2.10.8
# does inside Cgl on some instances, the region falls back to the greedy
# schedule with a warning, and the compiler neither crashes nor loses other
# regions. NESSIE_TEST_CBC_CRASH makes the child raise SIGSEGV.
. "$(dirname "$0")/common.bash"
for s in ilp ilp-lazy ilp-decomp; do
  NESSIE_TEST_CBC_CRASH=1 "$bin/nessie-bench" --format=csv --work-limit=100000 --scheduler=$s --solver=cbc gen:kernels=12,chain=3,seed=5 \
    >"$tmp/o.csv" 2>"$tmp/e"
  st=$?
  [ $st = 0 ] || bad "$s: exit $st"
  grep -q "warning: CBC crashed (signal 11)" "$tmp/e" || bad "$s: no crash warning: $(cat "$tmp/e")"
  grep -q "time-limit fallback" "$tmp/o.csv" || bad "$s: not a fallback: $(tail -n 1 "$tmp/o.csv")"
  # without the crash the same region is solved to optimality
  "$bin/nessie-bench" --format=csv --work-limit=100000 --scheduler=$s --solver=cbc gen:kernels=12,chain=3,seed=5 >"$tmp/o2.csv" 2>"$tmp/e2" ||
    bad "$s: clean run failed"
  grep -q ",optimal," "$tmp/o2.csv" || bad "$s: clean run not optimal: $(tail -n 1 "$tmp/o2.csv")"
  [ -s "$tmp/e2" ] && bad "$s: clean run wrote to stderr: $(cat "$tmp/e2")"
done
# nessie lcu fuse keeps going: the region is fused by the fallback and says so
NESSIE_TEST_CBC_CRASH=1 "$bin/nessie" lcu fuse --scheduler=ilp --solver=cbc tests/fusion/chain_mixed.lcu >"$tmp/f" 2>"$tmp/e"
st=$?
[ $st = 0 ] || bad "lcu fuse under a CBC crash: exit $st"
grep -q "warning: CBC crashed" "$tmp/e" || bad "lcu fuse: no warning"
grep -q "time-limit fallback" "$tmp/f" || bad "lcu fuse: the report does not say fallback"
grep -q "run fused_" "$tmp/f" || bad "lcu fuse: no fused program"
exit $fail
