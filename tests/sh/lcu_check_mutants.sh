#!/usr/bin/env bash
# The λcu checker must survive any syntactically valid program: `nessie lcu
# check` on mutants of the golden programs (a name, type, operator or SOAC
# swapped for another) exits 0 or 1, never crashes, never hits an internal
# error, and reports every error as file:line:col. Deterministic: the mutations
# are a fixed list applied to every tests/lcu/*.lcu.
set -u
cd "$(dirname "$0")/../.."
bin=${NESSIE_BIN:-bin}/nessie
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
runs=0
rejected=0
by_checker=0 # rejected by the checker rather than the parser

# FROM TO: whole-word substitutions (sed -E), one occurrence at a time.
mutations=(
  'int float' 'float int' 'int bool' '\[int\] int' '\[float\] segdes' 'segdes \[int\]'
  'xs ys' 'xs sd' 'i n' 'n xs' 'sd xs' 's xs'
  'MAP ONCE' 'MAP REDUCE' 'REDUCE MAP' 'SCAN SEGSCAN' 'FILTER PARTITION' 'PARTITION FILTER'
  'REDUCE SEGREDUCE' 'PERMUTE FILTER' 'ONCE MAP'
  'iadd fadd' 'fadd iadd' 'iadd id' 'band iadd' 'imax bxor'
  'using using i,' 'using using main,'
  'true 1' '0 true' '1 1.5' 'run main' 'main mian'
)

# Every third (program, mutation) pair, first or second occurrence: a few
# hundred mutants, enough to reach every checker rule, quick under ASan.
pick=0
for f in tests/lcu/*.lcu; do
  "$bin" lcu check "$f" >/dev/null 2>&1 || continue # mutate programs that check
  for m in "${mutations[@]}"; do
    pick=$((pick + 1))
    [ $((pick % 3)) = 0 ] || continue
    from=${m%% *}
    to=${m#* }
    grep -Eq "\\b$from\\b" "$f" || continue
    for nth in $((pick % 2 + 1)); do
      sed -E "s/\\b$from\\b/$to/$nth" "$f" >"$tmp/m.lcu"
      cmp -s "$f" "$tmp/m.lcu" && continue
      "$bin" lcu check "$tmp/m.lcu" >"$tmp/out" 2>&1 </dev/null
      st=$?
      runs=$((runs + 1))
      if [ $st != 0 ] && [ $st != 1 ]; then
        echo "FAIL: exit status $st on $f with s/$from/$to/$nth"
        head -n 20 "$tmp/out"
        failures=$((failures + 1))
      elif grep -Eq 'Sanitizer|runtime error|internal error' "$tmp/out"; then
        echo "FAIL: crash report on $f with s/$from/$to/$nth"
        head -n 20 "$tmp/out"
        failures=$((failures + 1))
      elif [ $st = 1 ]; then
        rejected=$((rejected + 1))
        grep -Eq ': error: (expected|unexpected|unterminated)' "$tmp/out" || by_checker=$((by_checker + 1))
        if ! head -n 1 "$tmp/out" | grep -Eq "^$tmp/m.lcu:[0-9]+:[0-9]+: error: "; then
          echo "FAIL: first message is not file:line:col: error: on $f with s/$from/$to/$nth"
          head -n 5 "$tmp/out"
          failures=$((failures + 1))
        fi
      fi
    done
  done
done

# The mutants must actually exercise the checker (not only the parser).
if [ $runs -lt 100 ] || [ $by_checker -lt 50 ]; then
  echo "FAIL: only $runs mutants, $by_checker rejected by the checker"
  failures=$((failures + 1))
fi
echo "$runs mutants, $rejected rejected ($by_checker by the checker), $failures failure(s)"
[ $failures = 0 ]
