#!/usr/bin/env bash
# tests/run.sh BINDIR... — run every test suite against each build's binaries
# (bin/ and the sanitizer build), ending with the line "N passed, N failed".
#
# Suites:
#   unit     tests/unit/*.c, built next to each BINDIR's objects; a unit test
#            prints "ok NAME" or "not ok NAME: why" per check (see tests/unit/unit.h).
#   golden   tests/<suite>/*.<ext> with NAME.expected (stdout+stderr, exactly) and
#            optional NAME.args (the command's arguments; {} is the file; default
#            below) and NAME.exit (expected exit status, default 0).
#   scripts  tests/sh/*.sh, run with NESSIE_BIN=BINDIR; exit 0 passes, 77 skips
#            (listed, never counted as passed), anything else fails. Most
#            source tests/sh/common.bash ($bin, $tmp, bad()).
# -v prints every test; TESTS=pattern limits to test paths matching the pattern.
set -u
cd "$(dirname "$0")/.."
verbose=0
[ "${1:-}" = "-v" ] && { verbose=1; shift; }
[ $# -gt 0 ] || set -- bin
pass=0
fail=0
skip=0
skipped=()
failed=()
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n_unit=0 n_golden=0 n_script=0
result() { # result OK|FAIL name [detail-file]
  case $2 in *"] unit/"*) n_unit=$((n_unit + 1)) ;; *"] tests/sh/"*) n_script=$((n_script + 1)) ;; *) n_golden=$((n_golden + 1)) ;; esac
  if [ "$1" = OK ]; then
    pass=$((pass + 1))
    [ $verbose = 1 ] && echo "  ok   $2"
  else
    fail=$((fail + 1))
    failed+=("$2")
    echo "  FAIL $2"
    [ -n "${3:-}" ] && [ -s "$3" ] && head -n 40 "$3" | sed 's/^/       /'
  fi
  return 0
}

selected() { [ -z "${TESTS:-}" ] || [[ "$1" == *$TESTS* ]]; }

# Golden suites: directory, extension, default arguments.
golden_suites=(
  "tests/lcu lcu lcu run {}"
  "tests/nesl nesl run {}"
  "tests/programs nesl run {}"
)

run_golden() { # bindir dir ext default-args...
  local bindir=$1 dir=$2 ext=$3; shift 3
  local default=("$@")
  [ -d "$dir" ] || return 0
  for f in "$dir"/*."$ext"; do
    [ -e "$f" ] || continue
    selected "$f" || continue
    local base=${f%.*} name="[$bindir] $f"
    if [ ! -f "$base.expected" ]; then
      echo "missing $base.expected" >"$tmp/d"
      result FAIL "$name" "$tmp/d"
      continue
    fi
    local args=()
    if [ -f "$base.args" ]; then
      read -r -a args <"$base.args"
    else
      args=("${default[@]}")
    fi
    args=("${args[@]//\{\}/$f}")
    local want_exit=0
    [ -f "$base.exit" ] && want_exit=$(tr -d ' \n' <"$base.exit")
    timeout 120 "$bindir/nessie" "${args[@]}" >"$tmp/out" 2>&1 </dev/null
    local got=$?
    if [ "$got" != "$want_exit" ]; then
      { echo "exit status $got, expected $want_exit"; cat "$tmp/out"; } >"$tmp/d"
      result FAIL "$name" "$tmp/d"
    elif ! diff -u "$base.expected" "$tmp/out" >"$tmp/d"; then
      result FAIL "$name" "$tmp/d"
    else
      result OK "$name"
    fi
  done
}

run_unit() { # bindir
  local objdir
  if [ "$1" = bin ]; then objdir=build/plain; else objdir=$(dirname "$1"); fi
  for t in "$objdir"/tests/unit/*; do
    [ -x "$t" ] && [ -f "$t" ] || continue
    selected "$t" || continue
    "$t" >"$tmp/u" 2>"$tmp/uerr"
    local st=$?
    while IFS= read -r line; do
      case "$line" in
        "ok "*) result OK "[$1] unit/$(basename "$t"): ${line#ok }" ;;
        "not ok "*) echo "$line" >"$tmp/d"; result FAIL "[$1] unit/$(basename "$t"): ${line#not ok }" "$tmp/d" ;;
      esac
    done <"$tmp/u"
    if [ $st != 0 ]; then
      { echo "exit status $st"; tail -n 20 "$tmp/u" "$tmp/uerr"; } >"$tmp/d"
      result FAIL "[$1] unit/$(basename "$t") (process)" "$tmp/d"
    fi
  done
}

# Scripts: every selected script of every BINDIR is one task, and TEST_JOBS
# tasks run at a time (default 2: the scripts are mostly serial), each under a
# generous hang guard (TEST_HANG seconds, default 1800: a guard against a hung
# process, not a speed requirement). The pool starts before the unit and golden
# suites, which run beside it, and takes the tasks longest first by
# tests/sh/durations.txt (seconds measured on this machine; a script it does not
# list counts 30 s): an order only, so that no slot idles at the end and the
# sanitizer build's scripts do not wait for the plain build's last one. Results
# are reported in file order, per BINDIR, and the slowest scripts are listed at
# the end (information only).
# Scripts that compile the same program with the same flags share the binary:
# each BINDIR's scripts get one compile cache for the run, NESSIE_TEST_CACHE,
# which a script uses as NESSIE_CACHE_DIR where it does not test the cache
# itself (c_backend_golden.sh and float32.sh build the same tests/lcu programs
# at the same flags). The cache's key is the C text, the compiler, its flags,
# the sanitizer flags and the runtime library, so a shared entry is the binary
# the script would have built; racing builds of one key agree (cg_build.c).
tasks_bin=() tasks_script=() tasks_cache=()
nb=0
for bindir in "$@"; do
  nb=$((nb + 1))
  [ -x "$bindir/nessie" ] || continue
  for s in tests/sh/*.sh; do
    [ -e "$s" ] || continue
    selected "$s" || continue
    tasks_bin+=("$bindir") tasks_script+=("$s") tasks_cache+=("$tmp/cache.$nb")
  done
done

run_pool() {
  local jobs=${TEST_JOBS:-2} hang=${TEST_HANG:-1800} k order
  order=$(for k in "${!tasks_script[@]}"; do
    local est
    est=$(awk -v n="$(basename "${tasks_script[$k]}")" '$2 == n { print $1; exit }' tests/sh/durations.txt 2>/dev/null)
    echo "${est:-30} $k"
  done | sort -k1,1nr -k2,2n | awk '{ print $2 }')
  for k in $order; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n 2>/dev/null || true; done
    (
      t0=$(date +%s)
      mkdir -p -m 700 "${tasks_cache[$k]}"
      NESSIE_BIN=${tasks_bin[$k]} NESSIE_TEST_CACHE=${tasks_cache[$k]} timeout "$hang" bash "${tasks_script[$k]}" >"$tmp/s.$k" 2>&1
      echo "$? $(($(date +%s) - t0))" >"$tmp/st.$k"
    ) &
  done
  wait
}

report_scripts() { # bindir
  local k st secs
  for k in "${!tasks_script[@]}"; do
    [ "${tasks_bin[$k]}" = "$1" ] || continue
    local s=${tasks_script[$k]}
    read -r st secs <"$tmp/st.$k" || { st=1 secs=0; }
    echo "$secs [$1] $s" >>"$tmp/times"
    if [ "$st" = 0 ]; then
      result OK "[$1] $s"
    elif [ "$st" = 77 ]; then # skipped: not counted as passed
      skip=$((skip + 1))
      skipped+=("[$1] $s: $(tail -n 1 "$tmp/s.$k")")
    elif [ "$st" = 124 ]; then
      echo "hung: still running after $hang s (TEST_HANG)" >"$tmp/d"
      tail -n 20 "$tmp/s.$k" >>"$tmp/d"
      result FAIL "[$1] $s" "$tmp/d"
    else
      result FAIL "[$1] $s" "$tmp/s.$k"
    fi
  done
}

run_pool &
pool=$!
for bindir in "$@"; do
  if [ ! -x "$bindir/nessie" ]; then
    echo "no $bindir/nessie: build first (make all, make SAN=1 all)" >"$tmp/d"
    result FAIL "[$bindir] build" "$tmp/d"
    continue
  fi
  echo "== $bindir"
  run_unit "$bindir"
  for s in "${golden_suites[@]}"; do
    # shellcheck disable=SC2086
    run_golden "$bindir" $s
  done
done
wait "$pool"
hang=${TEST_HANG:-1800}
for bindir in "$@"; do
  [ -x "$bindir/nessie" ] && report_scripts "$bindir"
done

if [ $fail -gt 0 ]; then
  echo "failed:"
  printf '  %s\n' "${failed[@]}"
fi
if [ $skip -gt 0 ]; then
  echo "skipped (not counted):"
  printf '  %s\n' "${skipped[@]}"
fi
if [ -s "$tmp/times" ]; then
  echo "slowest scripts (seconds, information only):"
  sort -rn "$tmp/times" | head -n 8 | sed 's/^/  /'
fi
# every script's seconds and the checks each suite counted, kept for
# tests/sh/durations.txt and results/README.md (a log, never a check)
if mkdir -p build 2>/dev/null; then
  {
    echo "# tests/run.sh $* ($(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)): seconds per script"
    sort -rn "$tmp/times" 2>/dev/null
    echo "# checks counted (passed + failed): unit $n_unit, golden $n_golden, scripts $n_script; skipped $skip"
  } >build/test-times.log 2>/dev/null
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
