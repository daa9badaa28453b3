#!/usr/bin/env bash
# nesl_fuzz.sh — the random NESL program generator keeps its promises (issue 25):
# its command line; the same seed gives the same bytes; 300 seeds' programs contain
# every construct it claims to exercise; and, through experiments/nesl-fuzz.sh, every
# one of them type-checks and runs on the AST interpreter to exit 0, or to exit 1 with
# the message of the deliberate run-time error the seed asked for. The comparison with
# --interp=lcu is tests/sh/nesl_fuzz_lcu.sh (skipped while nessie lacks it).
source "$(dirname "$0")/common.bash"
g="$bin/nessie-neslgen"
"$g" --help >"$tmp/help" || bad "--help exits $?"
grep -q -- '--seed=S' "$tmp/help" || bad "--help does not list --seed"
for opt in --frobnicate --seed=-1 --seed=x --depth=0 --errors=101 --programs=0; do
  "$g" "$opt" >/dev/null 2>"$tmp/err"
  st=$?
  [ $st = 2 ] || bad "$opt: exit $st, expected 2"
  grep -q 'nessie-neslgen: error:' "$tmp/err" || bad "$opt: no error message"
done
"$g" --seed=42 >"$tmp/a"
"$g" --seed=42 >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || bad "--seed=42 gives two different programs"
"$g" --seed=43 >"$tmp/c"
cmp -s "$tmp/a" "$tmp/c" && bad "--seed=42 and --seed=43 give the same program"

# --avoid leaves out every call of the named functions, and only those forms.
for s in 1 2 3 4 5 6; do "$g" --seed=$s --avoid=@,rotate,plus_scan; done >"$tmp/avoid.nesl"
grep -qE '(@|[^a-z_]rotate|[^a-z_]plus_scan)\(' "$tmp/avoid.nesl" && bad "--avoid=@,rotate,plus_scan: a program still calls one"
grep -q 'sum(' "$tmp/avoid.nesl" || bad "--avoid=@,rotate,plus_scan: no sum( left either"

# What 300 seeds contain, as the README promises (one pattern per construct).
{ "$g" --seed=1 --programs=300; for s in $(seq 1 12); do "$g" --seed="$s" --errors=100; done; } >"$tmp/all.nesl"
while IFS='~' read -r what pat; do
  grep -qE -- "$pat" "$tmp/all.nesl" || bad "no program of seeds 1..300 has $what (/$pat/)"
done <<'PATTERNS'
recursion inside an apply-to-each~\{rec[0-9]+\(v\) : v in
a conditional recursion inside an apply-to-each~\{if .* then rec[0-9]+\(
a recursive function used inside an apply-to-each at top level~^\{.*rec[0-9]+\(.* : e[0-9]+ in
quicksort on pairs~\{\(k, w\) in a \| k [<>] pk\}
a nested sequence of depth 3~\[\[\[
an empty sequence with its type~\[\] \[\(
a tuple pattern generator~\{.* : \(e[0-9]+, e[0-9]+\) in
a two-generator apply-to-each~\{.* : e[0-9]+ in v[0-9]+; e[0-9]+ in
a sieve~\{[^{}]* : e[0-9]+ in [^{}]* \| 
the body-less filter form~\{e[0-9]+ in .* \|
the {e : x} shorthand~\{[^{}]* : [gvpe][0-9]+( \|[^{}]*)?\}
a strided range~\[(\(-)?[0-9]+\)? : .* : 1 \+ mod\(
a string with an escaped quote~\\"q
a top-level tuple binding~^\(g[0-9]+, g[0-9]+\) = 
a function with a tuple parameter~^function fun[0-9]+\(.*\(p[0-9]+, p[0-9]+\)
plus_scan~plus_scan\(
max_scan~max_scan\(
mult_scan~mult_scan\(
or_scan~or_scan\(
a reduction~(sum|product|max_val|min_val|any|all|parity)\(
permute~permute\(
a gather~( -> \{|read\()
pack~pack\(
flatten~flatten\(
partition~partition\(
split~split\(
bottop~bottop\(
transpose~transpose\(
dist~dist\(
take or drop~(take|drop)\(
sort or rank~(sort|rank|rank_down)\(
int_collect~int_collect\(
zip~zip\(
string conversion~@\(
float quantised through sqrt~sqrt\(
an index error form~\[#v[0-9]+ \+ mod\(
a length error form~in \[0 : #v[0-9]+ \+ 1\]\}
a division-by-zero form~ / (float\()?\(?e[0-9]+ - \(
PATTERNS

# Every program type-checks and runs as promised (batches of 25: a few processes).
if ! bash experiments/nesl-fuzz.sh --count=300 --batch=25 --errors=50 --bin="$bin" \
  --out="$tmp/fuzz" --no-compare >"$tmp/log" 2>&1; then
  bad "experiments/nesl-fuzz.sh:"
  cat "$tmp/log"
fi
grep -q 'end with their deliberate run-time error' "$tmp/log" || { bad "no summary"; cat "$tmp/log"; }
grep -q '(0 of them end' "$tmp/log" && bad "no batch ended with its deliberate error"

# The comparison and the minimiser, on a stand-in for --interp=lcu that is the AST
# interpreter except that it adds a line to the output of programs using `rotate`:
# the harness must report those seeds, and shrink one to a program that still uses it.
mkdir -p "$tmp/fake"
real=$(cd "$bin" && pwd)
cat >"$tmp/fake/nessie" <<FAKE
#!/usr/bin/env bash
if [ "\$1" = run ] && [[ " \$* " == *" --interp=lcu "* ]]; then
  args=(); for a in "\$@"; do [ "\$a" = --interp=lcu ] || args+=("\$a"); done
  "$real/nessie" "\${args[@]}"; st=\$?
  grep -q 'rotate(' "\$2" && echo "extra line"
  exit \$st
fi
exec "$real/nessie" "\$@"
FAKE
chmod +x "$tmp/fake/nessie"
ln -s "$real/nessie-neslgen" "$tmp/fake/nessie-neslgen"
bash experiments/nesl-fuzz.sh --count=25 --batch=25 --errors=0 --bin="$tmp/fake" \
  --variants=lcu --out="$tmp/fake-out" >"$tmp/flog" 2>&1
st=$?
[ $st = 1 ] || { bad "a differing --interp=lcu: nesl-fuzz.sh exit $st, expected 1"; cat "$tmp/flog"; }
grep -q 'differs from --interp=lcu' "$tmp/flog" || { bad "no seed reported as differing"; cat "$tmp/flog"; }
first=$(cd "$tmp/fake-out" && ls -d seed-* 2>/dev/null | sort -t- -k2 -n | head -n 1)
[ -n "$first" ] && first=$tmp/fake-out/$first # the batch's first failing seed: minimised
if [ -z "$first" ] || [ ! -f "$first/min.nesl" ]; then
  bad "no failing program kept"
else
  grep -q 'rotate(' "$first/min.nesl" || bad "the minimised program lost what makes it differ"
  [ "$(grep -c ' \$$' "$first/min.nesl")" -lt "$(grep -c ' \$$' "$first/program.nesl")" ] ||
    bad "the minimised program is no smaller: $first"
fi
for s in $(seq 1 25); do
  if "$bin/nessie-neslgen" --seed="$s" --errors=0 | grep -q 'rotate('; then
    [ -d "$tmp/fake-out/seed-$s" ] || bad "seed $s uses rotate but was not reported"
  else
    [ -d "$tmp/fake-out/seed-$s" ] && bad "seed $s does not use rotate but was reported"
  fi
done
exit $fail
