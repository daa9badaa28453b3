#!/usr/bin/env bash
# recursion_depth.sh — the recursion rule (compiler/nesl/README.md, "Recursion depth") on
# the three paths (the AST interpreter, --interp=lcu, --target=c): past NESSIE_MAX_DEPTH
# nested calls a program stops with one message, the same text at the same place on each
# path; the deepest recursions real programs need work on each (a 10^5-step recursive
# loop, also in a 2 GB address space, where the λcu interpreter used to stop at 6,393
# calls; quicksort of 10^6 sorted keys); the default limit is 10^6; a bad
# NESSIE_MAX_DEPTH is a bad command line (exit 2) for nessie and for a compiled program.
source "$(dirname "$0")/common.bash"
[ -f "$bin/nessie-rt/libnessie_rt.a" ] || { echo "SKIP: no runtime library in $bin/nessie-rt"; exit 77; }
export NESSIE_CACHE_DIR=$tmp/cache OMP_WAIT_POLICY=passive
asan=0
case $bin in *asan*) asan=1 ;; esac
paths=("--interp=ast" "--interp=lcu" "--target=c")
loop() { # loop FILE N: a program whose one form makes N+1 nested calls
  printf 'function loop(i, acc) = if i == 0 then acc else loop(i - 1, acc + i) $\nloop(%d, 0) $\n' "$2" >"$1"
}
# run_all NAME: runs $tmp/NAME.nesl on every path into $tmp/NAME.P.out (stdout, stderr,
# exit status); fails unless all three are identical
run_all() {
  local p
  for p in "${paths[@]}"; do
    timeout 300 "$bin/nessie" run "$tmp/$1.nesl" "$p" >"$tmp/$1.$p.out" 2>&1 </dev/null
    echo "exit $?" >>"$tmp/$1.$p.out"
  done
  for p in "${paths[@]:1}"; do
    cmp -s "$tmp/$1.--interp=ast.out" "$tmp/$1.$p.out" || {
      bad "$1: $p differs from the AST interpreter:"
      diff "$tmp/$1.--interp=ast.out" "$tmp/$1.$p.out" | head -8
    }
  done
}
want() { # want NAME TEXT: the AST path's output contains TEXT (a fixed string)
  grep -qF -- "$2" "$tmp/$1.--interp=ast.out" || { bad "$1: no '$2' in:"; head -5 "$tmp/$1.--interp=ast.out"; }
}

# a low limit: under it the loop runs, over it every path stops with the same message
loop "$tmp/under.nesl" 990
NESSIE_MAX_DEPTH=1000 run_all under
want under "it = 490545 : int"
want under "exit 0"
loop "$tmp/over.nesl" 1010
NESSIE_MAX_DEPTH=1000 run_all over
want over "over.nesl:1:49: error: Recursion too deep: more than 1000 nested function calls."
want over "exit 1"

# the default limit: 10^5 calls work, 10^6 + 10 do not
loop "$tmp/deep5.nesl" 100000
run_all deep5
want deep5 "it = 705082704 : int"
if [ $asan = 0 ]; then # 10^6 frames of the sanitizer build's interpreters: gigabytes
  loop "$tmp/deep6.nesl" 1000010
  run_all deep6
  want deep6 "error: Recursion too deep: more than 1000000 nested function calls."
  # in a 2 GB address space (ASan reserves terabytes: not there)
  for p in "${paths[@]}"; do
    out=$( (ulimit -v 2000000 && "$bin/nessie" run "$tmp/deep5.nesl" "$p") 2>&1)
    [[ "$out" == *"it = 705082704 : int"* ]] || bad "10^5 calls in a 2 GB address space ($p): $out"
  done
fi

# quicksort of sorted keys (the pivot in the middle): 10^6 (10^5 in the λcu interpreter,
# which takes half a minute for 10^6, and in the sanitizer build)
cat >"$tmp/qs.nesl" <<'NESL'
function qsort(a) =
  if #a < 2 then a
  else let pivot = a[#a / 2];
           lesser = {e in a | e < pivot};
           equal = {e in a | e == pivot};
           greater = {e in a | e > pivot};
           result = {qsort(v) : v in [lesser, greater]}
       in result[0] ++ equal ++ result[1] $
function check(n) = let s = qsort([0:n]) in (#s, all({a <= b : a in take(s, n - 1); b in drop(s, 1)})) $
NESL
for p in "${paths[@]}"; do
  n=1000000
  [ $asan = 1 ] || [ "$p" = --interp=lcu ] && n=100000
  out=$("$bin/nessie" run "$tmp/qs.nesl" "$p" -e "check($n)" 2>&1)
  [[ "$out" == *"it = ($n, T) : int, bool"* ]] || bad "quicksort of $n sorted keys ($p): $out"
done

# a bad limit
for v in 0 -5 x 100000001 99999999999999999999 ''; do
  [ -z "$v" ] && continue
  out=$(NESSIE_MAX_DEPTH=$v "$bin/nessie" run "$tmp/under.nesl" 2>&1)
  st=$?
  [ $st = 2 ] && [[ "$out" == *"NESSIE_MAX_DEPTH must be an integer from 1 to 100000000"* ]] ||
    bad "NESSIE_MAX_DEPTH=$v: exit $st: $out"
done
"$bin/nessie" build "$tmp/over.nesl" -o "$tmp/over" >/dev/null 2>&1 || bad "build of over.nesl failed"
out=$(NESSIE_MAX_DEPTH=1x "$tmp/over" 2>&1)
st=$?
[ $st = 2 ] && [[ "$out" == *"NESSIE_MAX_DEPTH must be"* ]] || bad "compiled, NESSIE_MAX_DEPTH=1x: exit $st: $out"
out=$(NESSIE_MAX_DEPTH=2000 "$tmp/over" 2>&1)
[[ "$out" == *"it = 510555 : int"* ]] || bad "compiled, NESSIE_MAX_DEPTH=2000: $out"
exit $fail
