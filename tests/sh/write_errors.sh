#!/usr/bin/env bash
# Write errors are errors (compiler/common/output.c): output to a full disk
# (/dev/full) or to a pipe whose reader is gone exits non-zero with a message,
# for every command and every nessie-bench --format; --dump-ilp checks what
# GLPK reports; files appear complete or not at all (no temporary is left).
. "$(dirname "$0")/common.bash"
printf 'function inc(x) = x + 1 $\ninc(41) $\nprint_string("hello") $\n' >"$tmp/p.nesl"
dp=tests/lcu/dotprod.lcu
cmds=(
  "nessie --help"
  "nessie check $tmp/p.nesl"
  "nessie run $tmp/p.nesl"
  "nessie emit $tmp/p.nesl --stage=ast"
  "nessie lcu --help"
  "nessie lcu check $dp"
  "nessie lcu print $dp"
  "nessie lcu run $dp [1.0] [2.0]"
  "nessie lcu run $dp --random-inputs --max-len=0 --scheduler=ilp"
  "nessie lcu fuse $dp --scheduler=ilp"
  "nessie-gen --kernels=5"
  "nessie-gen --help"
  "nessie-bench --format=table gen:kernels=5"
  "nessie-bench --format=csv gen:kernels=5"
  "nessie-bench --format=json gen:kernels=5"
  "nessie-bench --format=csv --jobs=2 gen:kernels=5 gen:kernels=6"
  "nessie-bench --help"
)
# A pipe with no reader: a FIFO opened for reading and writing, then for
# writing, then closed for reading (deterministic, unlike `cmd | true`).
closed_pipe() { # closed_pipe CMD...: runs CMD with stdout on a pipe nobody reads
  rm -f "$tmp/fifo"
  mkfifo "$tmp/fifo"
  exec 3<>"$tmp/fifo" 4>"$tmp/fifo" 3<&-
  "$@" >&4 2>"$tmp/err"
  local st=$?
  exec 4>&-
  return $st
}
for c in "${cmds[@]}"; do
  read -r -a argv <<<"$c"
  argv[0]="$bin/${argv[0]}"
  "${argv[@]}" >/dev/full 2>"$tmp/err"
  st=$?
  [ $st != 0 ] || bad "$c > /dev/full: exit 0"
  grep -q "error: writing the standard output: No space left on device" "$tmp/err" ||
    bad "$c > /dev/full: no message: $(head -c 300 "$tmp/err")"
  closed_pipe "${argv[@]}"
  st=$?
  [ $st != 0 ] && [ $st -lt 128 ] || bad "$c on a closed pipe: exit $st (a signal, or success)"
  grep -q "error: writing the standard output: Broken pipe" "$tmp/err" ||
    bad "$c on a closed pipe: no message: $(head -c 300 "$tmp/err")"
done

# --dump-ilp: GLPK's write error is reported; a complete file is written under
# its name, nothing else is left in the directory.
"$bin/nessie" lcu fuse "$dp" --scheduler=ilp --dump-ilp=/dev/full >/dev/null 2>"$tmp/err"
st=$?
[ $st = 1 ] && grep -q "cannot write the ILP instance to /dev/full" "$tmp/err" ||
  bad "--dump-ilp=/dev/full: exit $st, $(head -c 300 "$tmp/err")"
mkdir "$tmp/d"
"$bin/nessie" lcu fuse "$dp" --scheduler=ilp --dump-ilp="$tmp/d/x.lp" >/dev/null 2>"$tmp/err" || bad "--dump-ilp failed"
[ "$(ls "$tmp/d")" = x.lp ] || bad "--dump-ilp left $(ls "$tmp/d" | tr '\n' ' ')"
grep -q '^Minimize' "$tmp/d/x.lp" && grep -q '^End' "$tmp/d/x.lp" || bad "x.lp is not a complete LP file"
"$bin/nessie-bench" --scheduler=ilp,ilp-cg --dump-ilp="$tmp/e" gen:kernels=6 >/dev/null 2>"$tmp/err" || bad "nessie-bench --dump-ilp failed"
ls "$tmp/e" | grep -q tmp && bad "nessie-bench --dump-ilp left a temporary: $(ls "$tmp/e")"
# --dot: the .dot file and the pictures appear complete under their names
# (drawn under temporary names, checked, renamed); nothing else is left.
"$bin/nessie" lcu fuse tests/fusion/greedy_trap.lcu --scheduler=ilp --dot="$tmp/g" --png >/dev/null 2>"$tmp/err" || bad "--dot failed"
[ "$(ls "$tmp/g" | tr '\n' ' ')" = "region0.dot region0.png region0.svg " ] || bad "--dot left $(ls "$tmp/g" | tr '\n' ' ')"
tail -c 7 "$tmp/g/region0.svg" | grep -q '</svg>' || bad "region0.svg is not complete"
exit $fail
