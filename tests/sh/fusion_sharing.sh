#!/usr/bin/env bash
# Fusion duplicates no work and materialises nothing unread (issue 37), on n-body and
# Black-Scholes, fused by the greedy and exact schedulers:
#  - the fused λcu program holds no more sqrt, exp, ln and divisions than the unfused
#    one (before, the MAP rule inlined a producer into every consumer: n-body's pair
#    kernel computed 4 sqrt and 3 divisions per pair, Black-Scholes 85 operations for 27);
#  - so does the generated C (each kernel's loop computes each of them once per element);
#  - no array a kernel returns goes unread by the CPU code (n-body's gathered masses,
#    18 MB at 1500 bodies, were written by the pair kernel and never read);
#  - the compiled program prints what `nessie run` prints.
# Static counts only: nothing here depends on the machine's speed.
. "$(dirname "$0")/common.bash"
ops() { grep -v '^ *//' | grep -o 'sqrt(\| / \|exp(\|ln(\|log(' | wc -l; }
unread() { # names a function binds from `run` and never reads again, one a line
  python3 -c '
import re, sys
funcs, cur = [], None
for l in sys.stdin.read().split("\n"):
    if l.startswith("function "): cur = []
    elif cur is not None and l == "}": funcs.append("\n".join(cur)); cur = None
    elif cur is not None: cur.append(l)
for src in funcs:
    for m in re.finditer(r"let \(?([\w, ]+?)\)? = run (\w+)", src):
        for x in (y.strip() for y in m.group(1).split(",")):
            if len(re.findall(r"\b%s\b" % x, src)) < 2: print(m.group(2), x)'
}
printf 'load "%s/experiments/programs/nbody.nesl" $\nbench(40) $\n' "$PWD" >"$tmp/nb.nesl"
printf 'load "%s/experiments/programs/blackscholes.nesl" $\nbench(200) $\n' "$PWD" >"$tmp/bs.nesl"
for f in tests/nesl/nbody.nesl "$tmp/nb.nesl" "$tmp/bs.nesl"; do
  "$bin/nessie" emit "$f" --stage=lcu >"$tmp/u.lcu" 2>"$tmp/err" || { bad "$f: emit --stage=lcu failed"; cat "$tmp/err"; continue; }
  want=$(ops <"$tmp/u.lcu")
  [ "$want" -gt 0 ] || bad "$f: no operation counted in the unfused program"
  "$bin/nessie" run "$f" >"$tmp/ast.out" 2>&1
  for s in greedy-down greedy-up ilp-cg; do
    "$bin/nessie" emit "$f" --stage=fused --scheduler=$s >"$tmp/f.lcu" 2>"$tmp/err" || { bad "$f ($s): emit --stage=fused failed"; continue; }
    got=$(ops <"$tmp/f.lcu")
    [ "$got" -le "$want" ] || bad "$f ($s): fused λcu computes $got sqrt/exp/ln/divisions, the unfused $want"
    "$bin/nessie" emit "$f" --stage=c --scheduler=$s >"$tmp/f.c" 2>"$tmp/err" || { bad "$f ($s): emit --stage=c failed"; continue; }
    c=$(grep -E '^ +[a-z0-9_]+ v[0-9]+ = (sqrt\(|exp\(|log\(|rt_idiv\(|\(.* / )' "$tmp/f.c" | wc -l)
    [ "$c" -le "$want" ] || bad "$f ($s): generated C computes $c sqrt/exp/log/divisions, the unfused λcu $want"
    u=$(unread <"$tmp/f.lcu")
    [ -z "$u" ] || bad "$f ($s): kernels return values nothing reads: $(echo $u)"
    NESSIE_CACHE_DIR=$tmp/cache "$bin/nessie" run "$f" --target=c --scheduler=$s >"$tmp/c.out" 2>&1
    cmp -s "$tmp/ast.out" "$tmp/c.out" || bad "$f ($s): compiled output differs from nessie run"
  done
done
exit $fail
