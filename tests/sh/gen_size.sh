#!/usr/bin/env bash
# Generated code grows with the program, not with how often its forms use a function
# (issue 39; compiler/lcu/README.md, "Duplicate functions"). Sizes, never times:
#  - merge_sort.nesl's forms each flatten merge_sort and count_less again; the joined
#    program keeps one lifted function per element type and shape (merge_sort: int,
#    char; count_less: five), and no two of its functions print the same body once
#    their names are taken out;
#  - generated C stays under bounds a return of the copies would break (lines, and
#    CPU functions): merge_sort (85,254 lines and 25 functions with the copies),
#    p3_karatsuba (234,868; 29), p3_bitonic (131,133; 31); 69,996; 21, 121,829; 18,
#    75,643; 21 without them; now, with recursive functions called rather than their
#    first level inlined at every call site (compiler/flan/README.md): 34,809; 23,
#    46,552; 20, 54,530; 27 (more functions: the unlifted instances, fewer lines).
. "$(dirname "$0")/common.bash"
"$bin/nessie" emit tests/nesl/merge_sort.nesl --stage=lcu >"$tmp/ms.lcu" 2>"$tmp/err" || { bad "emit --stage=lcu failed"; cat "$tmp/err"; }
n=$(grep -c '^function merge_sort_lifted_' "$tmp/ms.lcu")
[ "$n" = 2 ] || bad "merge_sort: $n lifted merge_sort functions, want 2 (int, char)"
n=$(grep -c '^function count_less_lifted_' "$tmp/ms.lcu")
[ "$n" = 5 ] || bad "merge_sort: $n lifted count_less functions, want 5"
# Bodies with every name replaced by its stem: equal ones would be copies.
python3 - "$tmp/ms.lcu" <<'EOF' || bad "merge_sort: two functions with the same body remain"
import re, sys
text = open(sys.argv[1]).read()
funcs = re.findall(r"^function [^\n]*\{\n(?:.*\n)*?^\}", text, re.M)
norm = lambda f: re.sub(r"\b([A-Za-z_][A-Za-z0-9_]*?)_[0-9]+\b", r"\1", re.sub(r"^function \S+", "function", f))
seen = {}
for f in funcs:
    k = norm(f)
    if k in seen:
        print("same body:", f.split("(")[0], "and", seen[k])
        sys.exit(1)
    seen[k] = f.split("(")[0]
sys.exit(0 if len(funcs) > 10 else 1)
EOF
check() { # PROGRAM MAX-LINES MAX-FUNCTIONS
  "$bin/nessie" emit "tests/nesl/$1.nesl" --stage=c >"$tmp/p.c" 2>"$tmp/err" || { bad "$1: emit --stage=c failed"; return; }
  local l f
  l=$(wc -l <"$tmp/p.c")
  f=$(grep -c '^static void [A-Za-z_0-9]*_fn(.*{$' "$tmp/p.c")
  [ "$l" -le "$2" ] || bad "$1: $l lines of C, bound $2"
  [ "$f" -le "$3" ] || bad "$1: $f CPU functions, bound $3"
  [ "$f" -gt 0 ] || bad "$1: no CPU function found (the pattern is stale)"
}
check merge_sort 36000 23
check p3_karatsuba 48000 20
check p3_bitonic 56000 27
exit $fail
