#!/usr/bin/env bash
# nesl_emit_lcu.sh — `nessie emit --stage=lcu|fused` prints the whole NESL file as one λcu
# program: it checks, prints back identically, and runs (its main returns every form's
# value); fusing dotprod's dot(a, b) leaves one REDUCE kernel for it.
source "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."
for p in dotprod quicksort quickhull nested_seqs; do
  f=tests/nesl/$p.nesl
  [ -f "$f" ] || continue
  for stage in lcu fused; do
    if ! "$bin/nessie" emit "$f" --stage=$stage >"$tmp/$p.lcu" 2>"$tmp/err"; then
      bad "$p: emit --stage=$stage failed: $(head -n 3 "$tmp/err")"
      continue
    fi
    "$bin/nessie" lcu check "$tmp/$p.lcu" >"$tmp/out" 2>&1 || bad "$p ($stage): lcu check: $(head -n 3 "$tmp/out")"
    "$bin/nessie" lcu print "$tmp/$p.lcu" >"$tmp/a.lcu" 2>&1 || bad "$p ($stage): lcu print failed"
    "$bin/nessie" lcu print "$tmp/a.lcu" >"$tmp/b.lcu" 2>&1
    cmp -s "$tmp/a.lcu" "$tmp/b.lcu" || bad "$p ($stage): print does not round-trip"
  done
done
# a form that prints: its output is not part of the emitted program (emit evaluates the
# forms with the AST interpreter for the later ones), but running the program prints it
printf 'function say(n) = print_string("n=" ++ @n ++ [newline]) $\nsay(7) $\n{say(i) : i in [1, 2]} $\n' >"$tmp/pr.nesl"
"$bin/nessie" emit "$tmp/pr.nesl" --stage=lcu >"$tmp/pr.lcu" 2>"$tmp/err" || bad "print: emit failed: $(head -n 3 "$tmp/err")"
"$bin/nessie" lcu check "$tmp/pr.lcu" >"$tmp/out" 2>&1 || bad "print: the emitted program does not check: $(head -n 3 "$tmp/out")"
out=$("$bin/nessie" lcu run "$tmp/pr.lcu" 2>&1 | head -n 3 | tr '\n' ' ')
[ "$out" = "n=7 n=1 n=2 " ] || bad "print: the emitted program prints '$out'"
# a source named - is standard input
"$bin/nessie" emit tests/nesl/dotprod.nesl --stage=lcu | "$bin/nessie" lcu check - >"$tmp/out" 2>&1 ||
  bad "emit | lcu check -: $(head -n 3 "$tmp/out")"
# dotprod's last form, dot([1, 2, 3], [4, 5, 6]), is 32: the joined program's last value
"$bin/nessie" emit tests/nesl/dotprod.nesl --stage=fused >"$tmp/d.lcu"
out=$("$bin/nessie" lcu run "$tmp/d.lcu" 2>&1)
case $out in *", 32)") ;; *) bad "dotprod fused: main gives '${out: -40}', not ending in 32" ;; esac
# form_4 is dot(a, b) with sum inlined: one kernel, a REDUCE
body=$(sed -n '/^function form_4(/,/^}/p' "$tmp/d.lcu")
runs=$(grep -c 'run ' <<<"$body")
[ "$runs" = 1 ] || bad "dotprod fused: dot(a, b) runs $runs kernels, not 1"
k=$(grep -o 'run [a-z_0-9]*' <<<"$body" | head -n 1 | cut -d' ' -f2)
sed -n "/^kernel $k(/,/^}/p" "$tmp/d.lcu" | grep -q REDUCE || bad "dotprod fused: kernel $k is not a REDUCE"
exit $fail
