#!/usr/bin/env bash
# The README's "Adding a scheduler" recipe works as written: in a copy of the
# tree, its code block becomes fusion/sched_mine.c, its table entry goes into
# fusion/sched.c and the function's prototype into fusion/fusion.h; the copy
# builds (warnings are errors under CI) and `--scheduler=mine` is listed,
# fuses, is verified and scored like every other strategy, and the fused
# program computes what the unfused one does.
. "$(dirname "$0")/common.bash"
root=$(pwd)
tree="$tmp/tree"
mkdir -p "$tree"
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$tree"
else
  tar -C "$root" --exclude=./build --exclude=./bin --exclude=./.git -cf - . | tar -xf - -C "$tree"
fi

# The code block after the heading "## Adding a scheduler", and the table entry.
awk '/^## Adding a scheduler/ { on = 1 } on && /^```c$/ { code = 1; next } code && /^```$/ { exit } code { print }' \
  README.md >"$tree/fusion/sched_mine.c"
grep -q 'fus_sched_mine' "$tree/fusion/sched_mine.c" || bad "no code block for fus_sched_mine in the README"
entry=$(grep -o '{"mine", fus_sched_mine, "[^"]*"}' README.md | head -n 1)
[ -n "$entry" ] || bad "no table entry for mine in the README"
proto=$(grep -m1 '^int fus_sched_mine(' "$tree/fusion/sched_mine.c" | sed 's/ *{ *$/;/')
[ -n "$proto" ] || bad "no definition of fus_sched_mine in the README's code"
sed -i "s|^    {NULL, NULL, NULL},|    $entry,\n&|" "$tree/fusion/sched.c"
grep -q 'fus_sched_mine' "$tree/fusion/sched.c" || bad "could not add the table entry to fusion/sched.c"
sed -i "/^int fus_sched_exhaustive(/a $proto" "$tree/fusion/fusion.h"
grep -q '^int fus_sched_mine(' "$tree/fusion/fusion.h" || bad "could not declare fus_sched_mine in fusion/fusion.h"
[ $fail = 0 ] || exit 1

# Built like the binaries under test: the sanitizer build when they are.
case "$bin" in
*asan*) san=1 bindir=build/asan/bin ;;
*) san=0 bindir=bin ;;
esac
make -C "$tree" -j2 SAN=$san OPT=-O0 "$bindir/nessie" "$bindir/nessie-bench" >"$tmp/build" 2>&1 || {
  tail -n 30 "$tmp/build"
  bad "the tree with the README's scheduler does not build"
  exit 1
}
nb="$tree/$bindir/nessie-bench" ns="$tree/$bindir/nessie"

"$nb" --help 2>&1 | grep -q '^  mine  *one line of help' || bad "mine is not listed by nessie-bench --help"
# The greedy trap: k1 -> k2, k1 -> k3 -> k4 are into edges; mine fuses along them.
"$nb" --scheduler=mine --format=csv --no-header tests/fusion/greedy_trap.lcu >"$tmp/row" 2>&1 || bad "nessie-bench --scheduler=mine failed: $(cat "$tmp/row")"
IFS=, read -r _input _region _fn sched _solver inv kb ka _rest <"$tmp/row"
[ "$sched" = mine ] || bad "row names scheduler '$sched': $(cat "$tmp/row")"
[ "${kb:-0}" = 5 ] && [ "${ka:-5}" -lt 5 ] 2>/dev/null || bad "mine did not fuse the greedy trap: $(cat "$tmp/row")"
grep -q ',greedy,' "$tmp/row" || bad "mine's status is not 'greedy': $(cat "$tmp/row")"

# The fused programs compute what the unfused ones do: the runnable programs of
# tests/lcu/ give their expected output (as in fusion_corpus.sh), the greedy
# trap the same output fused and unfused.
for f in tests/lcu/*.lcu; do
  lcu_run_args "$f" || continue
  out=$("$ns" "${args[@]}" --scheduler=mine 2>&1)
  [ "$out" = "$(cat "${f%.lcu}.expected")" ] || bad "$f --scheduler=mine: $(echo "$out" | head -3)"
done
"$ns" lcu run tests/fusion/greedy_trap.lcu --random-inputs >"$tmp/u" 2>&1 || bad "greedy_trap unfused failed"
"$ns" lcu run tests/fusion/greedy_trap.lcu --random-inputs --scheduler=mine >"$tmp/m" 2>&1 || bad "greedy_trap fused by mine failed"
cmp -s "$tmp/u" "$tmp/m" || bad "greedy_trap: fused by mine differs from unfused"
"$ns" lcu fuse tests/fusion/greedy_trap.lcu --scheduler=mine >"$tmp/fused" 2>&1 || bad "nessie lcu fuse --scheduler=mine failed"
grep -q 'scheduler=mine' "$tmp/fused" || bad "the fuse report does not name mine: $(head -c 300 "$tmp/fused")"
exit $fail
