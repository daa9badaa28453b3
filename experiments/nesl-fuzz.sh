#!/usr/bin/env bash
# nesl-fuzz.sh — differential testing of the NESL interpreters with random programs
# (bin/nessie-neslgen; generators/README.md, "Random NESL programs").
#
#   bash experiments/nesl-fuzz.sh [--count=N] [--start=S] [--jobs=J] [--batch=K]
#        [--bin=DIR] [--out=DIR] [--errors=P] [--variants=LIST] [--time-limit=SEC]
#        [--gen='--depth=5 ...'] [--no-compare]
#
# Seeds S .. S+N-1 are generated K programs to a file (nessie-neslgen --programs=K; only
# a file's last program may end with a run-time error). For every file:
#   1. `nessie check` must accept it (exit 0): the generator promises well-typed programs;
#   2. `nessie run --interp=ast` must exit 0, or 1 exactly when the last program ends
#      with its deliberate error, with that error's message; never 2, 3 or a signal,
#      and within --time-limit (default 60 s; programs take milliseconds: a run past
#      it is a hang, not a slow machine);
#   3. if `nessie run` accepts --interp=lcu (a one-line program does not exit 2), every variant
#      in --variants (default: "lcu;lcu --scheduler=none;lcu --scheduler=greedy-down"
#      where --scheduler is accepted) runs the file too, and its stdout, stderr and exit
#      status must equal the AST interpreter's byte for byte.
#      --no-compare leaves step 3 out (the summary says so).
# A failing file is split into its seeds; each failing seed's program goes to --out
# (default build/nesl-fuzz) with both outputs, and is minimised by deleting top-level
# forms while it still type-checks and still fails the same way.
# Prints a summary; exit 0 when nothing failed, 1 otherwise, 2 on a bad command line.
# The comparison is reported as "skipped" (never as passed) when --interp=lcu is absent.
set -u
count=200 start=1 jobs=1 batch=20 bindir=bin out=build/nesl-fuzz errors=15 limit=60 gen="" variants=""
compare=1
one="" # internal: --one=SEED runs one batch and prints its status lines
for a in "$@"; do
  case "$a" in
    --count=*) count=${a#*=} ;;
    --start=*) start=${a#*=} ;;
    --jobs=*) jobs=${a#*=} ;;
    --batch=*) batch=${a#*=} ;;
    --bin=*) bindir=${a#*=} ;;
    --out=*) out=${a#*=} ;;
    --errors=*) errors=${a#*=} ;;
    --time-limit=*) limit=${a#*=} ;;
    --gen=*) gen=${a#*=} ;;
    --variants=*) variants=${a#*=} ;;
    --one=*) one=${a#*=} ;;
    --no-compare) compare=0 ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "nesl-fuzz.sh: unknown option '$a' (--help lists them)" >&2; exit 2 ;;
  esac
done
for v in "$count" "$start" "$jobs" "$batch" "$errors" "$limit"; do
  [[ "$v" =~ ^[0-9]+$ ]] || { echo "nesl-fuzz.sh: not a number: '$v'" >&2; exit 2; }
done
[ "$batch" -ge 1 ] && [ "$jobs" -ge 1 ] || { echo "nesl-fuzz.sh: --batch and --jobs must be >= 1" >&2; exit 2; }
[ -x "$bindir/nessie" ] && [ -x "$bindir/nessie-neslgen" ] ||
  { echo "nesl-fuzz.sh: no $bindir/nessie or $bindir/nessie-neslgen (make first)" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
# A long run uses its own copy of the binaries, so a rebuild meanwhile cannot disturb it.
if [ -z "$one" ]; then
  mkdir -p "$out/.bin"
  cp -L "$bindir/nessie" "$bindir/nessie-neslgen" "$out/.bin/"
fi
nessie=$out/.bin/nessie
neslgen=$out/.bin/nessie-neslgen
# shellcheck disable=SC2086
genargs=(--errors="$errors" $gen)

# The variants of --interp=lcu this nessie accepts (a bad command line exits 2: a
# variant that runs but prints something else is accepted, and then fails below).
detect_variants() {
  local d
  d=$(mktemp -d)
  echo '{x * 2 : x in [1, 2, 3]} $' >"$d/t.nesl"
  local cand=()
  if [ -n "$variants" ]; then
    IFS=';' read -r -a cand <<<"$variants"
  else
    cand=("lcu" "lcu --scheduler=none" "lcu --scheduler=greedy-down")
  fi
  for v in "${cand[@]}"; do
    local words
    read -r -a words <<<"$v"
    local args=(--interp="${words[0]}" "${words[@]:1}")
    "$nessie" run "$d/t.nesl" "${args[@]}" >/dev/null 2>&1
    [ $? = 2 ] || printf '%s\n' "$v"
  done
  rm -rf "$d"
}

# run_to PREFIX FILE [ARGS...]: PREFIX.out, PREFIX.err, PREFIX.rc
run_to() {
  local p=$1 f=$2
  shift 2
  timeout "$limit" "$nessie" run "$f" "$@" >"$p.out" 2>"$p.err" </dev/null
  echo $? >"$p.rc"
}
same() { cmp -s "$1.out" "$2.out" && cmp -s "$1.err" "$2.err" && cmp -s "$1.rc" "$2.rc"; }

expected_message() {
  case "$1" in
    index) echo 'error: Sequence reference (a[i]) out of bounds.' ;;
    length) echo 'error: Length mismatch in an apply-to-each.' ;;
    divzero) echo 'error: Divide by zero.' ;;
  esac
}

# check_file FILE SEED-OF-LAST-PROGRAM PREFIX: the generator's promises on the AST path.
# Prints nothing when they hold, else one line saying which failed.
check_ast() {
  local f=$1 last=$2 p=$3
  if ! timeout "$limit" "$nessie" check "$f" >"$p.check" 2>&1 </dev/null; then
    echo "does not type-check: $(grep -m1 'error' "$p.check")"
    return
  fi
  run_to "$p.ast" "$f" --interp=ast
  local rc kind
  rc=$(cat "$p.ast.rc")
  kind=$("$neslgen" --seed="$last" "${genargs[@]}" --print-error)
  if [ "$rc" = 124 ]; then echo "AST run past the time limit (${limit}s)"; return; fi
  if [ "$kind" = none ]; then
    [ "$rc" = 0 ] || echo "AST run exit $rc (no error expected): $(grep -m1 'error' "$p.ast.err")"
  else
    local msg
    msg=$(expected_message "$kind")
    if [ "$rc" != 1 ]; then
      echo "AST run exit $rc, expected 1 ($kind error)"
    elif ! grep -qF "$msg" "$p.ast.err"; then
      echo "AST run: expected '$msg', got: $(grep -m1 'error' "$p.ast.err")"
    fi
  fi
}

# The first variant whose output differs from the AST run's, or nothing.
compare_lcu() {
  local f=$1 p=$2 v i=0
  while IFS= read -r v; do
    [ -n "$v" ] || continue
    i=$((i + 1))
    local words
    read -r -a words <<<"$v"
    run_to "$p.v$i" "$f" --interp="${words[0]}" "${words[@]:1}"
    if ! same "$p.ast" "$p.v$i"; then
      echo "$v"
      return
    fi
  done <"$out/.variants"
}

# Keeps deleting top-level forms of $1 (in place) while `fails` still says the same.
minimise() {
  local f=$1 test=$2 changed=1
  while [ $changed = 1 ]; do
    changed=0
    local n
    n=$(grep -c ' \$$' "$f")
    local k
    for ((k = n; k >= 1; k--)); do
      awk -v k="$k" 'BEGIN{i=1} {if (i != k) print; if ($0 ~ / \$$/) i++}' "$f" >"$f.try"
      if "$test" "$f.try"; then
        mv "$f.try" "$f"
        changed=1
      fi
    done
  done
  rm -f "$f.try"
}

# A seed's standalone program still fails with reason $why (same kind of failure).
still_fails() {
  local f=$1 p
  p=$(mktemp -d)/x
  local r
  if [ "$stage" = ast ]; then
    r=$(check_ast "$f" "$seed" "$p")
    [ -n "$r" ] && [ "${r%%:*}" = "${why%%:*}" ]
  else
    "$nessie" check "$f" >/dev/null 2>&1 || { rm -rf "$(dirname "$p")"; return 1; }
    run_to "$p.ast" "$f" --interp=ast
    r=$(compare_lcu "$f" "$p")
    [ -n "$r" ]
  fi
  local st=$?
  rm -rf "$(dirname "$p")"
  return $st
}

# Saves seed $seed's program (and its outputs) under $out, minimised.
keep_failure() {
  local d=$out/seed-$seed
  mkdir -p "$d"
  "$neslgen" --seed="$seed" "${genargs[@]}" >"$d/program.nesl"
  echo "$why" >"$d/why.txt"
  cp "$d/program.nesl" "$d/min.nesl"
  [ "$found" = 0 ] || return 0 # only a batch's first failing seed is minimised (cost)
  case "$why" in
    *"does not type-check"* | *"time limit"*) ;; # deleting forms cannot be checked cheaply
    *) minimise "$d/min.nesl" still_fails ;;
  esac
  local p=$d/min
  run_to "$p.ast" "$d/min.nesl" --interp=ast
  [ "$stage" = lcu ] && compare_lcu "$d/min.nesl" "$p" >/dev/null
  return 0
}

run_one_batch() {
  local s=$1 n=$2 w
  w=$(mktemp -d)
  local f=$w/batch.nesl last=$((s + n - 1))
  "$neslgen" --seed="$s" --programs="$n" "${genargs[@]}" >"$f"
  local r status="ok" detail=""
  r=$(check_ast "$f" "$last" "$w/b")
  if [ -n "$r" ]; then
    status="ast-fail" stage=ast
  elif [ -s "$out/.variants" ]; then
    r=$(compare_lcu "$f" "$w/b")
    [ -n "$r" ] && status="lcu-fail" stage=lcu
  fi
  if [ "$status" != ok ]; then
    # Which seeds fail on their own (a batch's failure may need the earlier programs).
    local found=0
    for ((seed = s; seed <= last; seed++)); do
      local g=$w/s$seed.nesl
      "$neslgen" --seed="$seed" "${genargs[@]}" >"$g"
      if [ "$stage" = ast ]; then why=$(check_ast "$g" "$seed" "$w/s$seed"); else
        why=""
        "$nessie" check "$g" >/dev/null 2>&1 && run_to "$w/s$seed.ast" "$g" --interp=ast &&
          why=$(compare_lcu "$g" "$w/s$seed") && [ -n "$why" ] && why="differs from --interp=$why"
      fi
      if [ -n "$why" ]; then
        detail="$detail; seed $seed: $why -> $out/seed-$seed"
        keep_failure
        found=1
      fi
    done
    if [ $found = 0 ]; then
      mkdir -p "$out/batch-$s"
      cp "$f" "$w"/b.* "$out/batch-$s/" 2>/dev/null
      detail="; no seed fails alone: batch kept in $out/batch-$s"
    fi
    detail="${r}${detail}"
  fi
  local kind
  kind=$("$neslgen" --seed="$last" "${genargs[@]}" --print-error)
  echo "$s $n $status $(cat "$w/b.ast.rc" 2>/dev/null || echo -) $kind $detail"
  rm -rf "$w"
}

if [ -n "$one" ]; then
  n=$batch
  [ $((one + n)) -gt $((start + count)) ] && n=$((start + count - one))
  run_one_batch "$one" "$n"
  exit 0
fi

if [ $compare = 1 ]; then detect_variants >"$out/.variants"; else : >"$out/.variants"; fi
seq "$start" "$batch" $((start + count - 1)) |
  xargs -P "$jobs" -I{} bash "$0" --one={} --start="$start" --count="$count" --batch="$batch" \
    --bin="$bindir" --out="$out" --errors="$errors" --time-limit="$limit" --gen="$gen" \
    ${variants:+--variants="$variants"} >"$out/log.txt"

files=$(wc -l <"$out/log.txt")
fails=$(grep -vc '^[0-9]* [0-9]* ok ' "$out/log.txt")
errs=$(awk '$3 == "ok" && $4 == 1' "$out/log.txt" | wc -l)
echo "nesl-fuzz: seeds $start..$((start + count - 1)), $files files of up to $batch programs"
echo "  type-check and AST interpreter: $((files - $(grep -c ' ast-fail ' "$out/log.txt"))) files as promised ($errs of them end with their deliberate run-time error)"
if [ -s "$out/.variants" ]; then
  echo "  compared with: $(paste -sd, "$out/.variants" | sed 's/,/, /g') — $(grep -c ' ok ' "$out/log.txt") files agree byte for byte"
elif [ $compare = 0 ]; then
  echo "  comparison with --interp=lcu: not asked for (--no-compare)"
else
  echo "  comparison with --interp=lcu: SKIPPED ($nessie run does not accept --interp=lcu)"
fi
if [ "$fails" -gt 0 ]; then
  echo "  FAILED: $fails files (details in $out/log.txt):"
  grep -v '^[0-9]* [0-9]* ok ' "$out/log.txt" | head -n 20 | sed 's/^/    /'
  exit 1
fi
echo "  no failures"
