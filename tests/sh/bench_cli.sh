#!/usr/bin/env bash
# nessie-bench's command line: formats and their stable columns, --jobs giving the
# same rows as one process, --run agreeing fused and unfused, --dot pictures, and
# clear errors (exit 1 for a bad input, 2 for a bad command line).
. "$(dirname "$0")/common.bash"
b="$bin/nessie-bench"
specs=(gen:kernels=6,chain=3,seed=1 gen:kernels=8,family=trap,seed=2 tests/fusion/chain_mixed.lcu)
cols='input,region,function,scheduler,solver,invocations,kernels_before,kernels_after,arrays_before,arrays_after,traversals_before,traversals_after,objective_before,objective,status,solve_seconds,build_seconds,variables,constraints,nodes,run'
"$b" --format=csv --scheduler=none,greedy-down,greedy-up,ilp --solver=glpk,cbc "${specs[@]}" >"$tmp/a.csv" || bad "csv run failed"
[ "$(head -n 1 "$tmp/a.csv")" = "$cols" ] || bad "csv header: $(head -n 1 "$tmp/a.csv")"
[ "$(($(wc -l <"$tmp/a.csv") - 1))" = 15 ] || bad "expected 15 rows (3 inputs x 5 strategies)"
"$b" --format=csv --scheduler=none,greedy-down,greedy-up,ilp --solver=glpk,cbc --jobs=2 "${specs[@]}" >"$tmp/b.csv" || bad "--jobs=2 failed"
# the same rows apart from timings (columns 16-17) and node counts (20)
strip() { sed 's/^"[^"]*",/X,/' "$1" | cut -d, -f1-15,18-19,21; }
cmp -s <(strip "$tmp/a.csv") <(strip "$tmp/b.csv") || bad "--jobs=2 rows differ from --jobs=1"
"$b" --format=json --scheduler=greedy-up gen:kernels=5,seed=4 >"$tmp/j.json" || bad "json failed"
grep -q '"kernels_before": 5' "$tmp/j.json" || bad "json lacks numeric kernels_before"
"$b" --run --scheduler=greedy-down,ilp "${specs[@]}" --format=csv >"$tmp/r.csv" || bad "--run failed"
awk -F, 'NR > 1 && $NF != "same" { print "run column:", $0; bad = 1 } END { exit bad }' "$tmp/r.csv" || bad "--run disagreement"
"$b" --dot="$tmp/dot" --scheduler=ilp gen:kernels=5,seed=1 >/dev/null || bad "--dot failed"
ls "$tmp"/dot/*.svg >/dev/null 2>&1 || bad "--dot wrote no svg"
ls "$tmp"/dot/*.dot >/dev/null 2>&1 || bad "--dot wrote no dot"
# A 300-invocation region: dot's default ranking of clusters lost edges on it,
# and Graphviz 2.42 then freed the layout twice (abort). Every invocation must
# be drawn, and no error reported.
"$b" --dot="$tmp/big" --scheduler=greedy-down gen:kernels=300,seed=1 >/dev/null 2>"$tmp/e"; st=$?
[ $st = 0 ] && ! grep -qi 'error' "$tmp/e" || bad "--dot on 300 invocations: status $st, $(head -c 300 "$tmp/e")"
n=$(grep -c '<title>inv[0-9]*</title>' "$tmp"/big/*.svg 2>/dev/null)
[ "$n" = 300 ] || bad "--dot on 300 invocations drew $n of them"
"$b" gen:kernels=5,nosuchkey=1 >/dev/null 2>"$tmp/e"; st=$?
[ $st = 1 ] && grep -q "unknown key 'nosuchkey'" "$tmp/e" || bad "bad spec: status $st, $(cat "$tmp/e")"
"$b" no/such/file.lcu >/dev/null 2>"$tmp/e"; st=$?
[ $st = 1 ] && grep -q "cannot open" "$tmp/e" || bad "missing file: status $st"
"$b" --scheduler=magic gen:kernels=5 >/dev/null 2>&1; [ $? = 2 ] || bad "unknown scheduler must exit 2"
"$b" --format=xml gen:kernels=5 >/dev/null 2>&1; [ $? = 2 ] || bad "unknown format must exit 2"
"$b" >/dev/null 2>&1; [ $? = 2 ] || bad "no input must exit 2"
for v in 0 -1 inf nan 1e999 ""; do
  "$b" --time-limit=$v gen:kernels=5 >/dev/null 2>&1; [ $? = 2 ] || bad "--time-limit=$v must exit 2"
done
[ $fail = 0 ] && echo "nessie-bench command line ok"
exit $fail
