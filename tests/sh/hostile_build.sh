#!/usr/bin/env bash
# hostile_build.sh — no source text, path or argument subverts a build (issue 36): C
# trigraphs and comment ends in NESL comments and strings, `*/` in a source path and
# λcu names with quotes reach generated C and CUDA only escaped (compiled programs
# print what `nessie run` prints); `build -o` leaves the user's files alone and
# refuses an output that is a directory, a device, empty or the source; the compile
# cache runs nothing it does not own; a failure while a build evaluates a form says
# why; a long string literal makes generated C that grows linearly; compiled
# binaries check --seed and --max-len as `nessie lcu run` does.
source "$(dirname "$0")/common.bash"
cd "$(dirname "$0")/../.."
[ -f "$bin/nessie-rt/libnessie_rt.a" ] || { echo "SKIP: no runtime library in $bin/nessie-rt"; exit 77; }
command -v "${NESSIE_CC:-cc}" >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
nessie=$(cd "$bin" && pwd)/nessie
export NESSIE_CACHE_DIR=$tmp/cache

# same FILE: `nessie run` (AST) and the built binary print the same, exit the same
same() {
  local f=$1 out=$2
  "$nessie" run "$f" >"$tmp/want" 2>&1
  echo "exit $?" >>"$tmp/want"
  "$nessie" build "$f" -o "$out" >"$tmp/build.log" 2>&1 || { bad "$f: build failed: $(head -c 300 "$tmp/build.log")"; return; }
  "$out" >"$tmp/got" 2>&1
  echo "exit $?" >>"$tmp/got"
  cmp -s "$tmp/want" "$tmp/got" || { bad "$f: the binary differs from nessie run"; diff "$tmp/want" "$tmp/got" | head -5; }
  grep -q INJECTED "$tmp/got" && bad "$f: injected code ran"
}

# 1. trigraphs: `??/"` in a comment on a line that may fault closed the C string the
# line is kept in, and the rest of the line compiled as C
cat >"$tmp/tri.nesl" <<'EOF'
function h(x) = [1, 2, 3][x]; % ??! ??/ */ /* "}}; %
print_string("what??/") $ % ??/"}}; __attribute__((constructor)) static void f(void){ puts("INJECTED"); } static const RtLoc zz[] = {{0, 0, 0}, // %
print_string("??= ??( ??) ??' ??< ??> ??- ??!") $
h(1) + h(7) $
EOF
same "$tmp/tri.nesl" "$tmp/tri"
grep -qF 'function h(x) = [1, 2, 3][x]; % ??! ??/ */ /* "}}; %' "$tmp/got" || bad "tri.nesl: the fault does not show its source line as written"
"$nessie" run "$tmp/tri.nesl" --target=c >"$tmp/got2" 2>&1
echo "exit $?" >>"$tmp/got2"
cmp -s "$tmp/want" "$tmp/got2" || bad "tri.nesl: run --target=c differs from nessie run"
"$nessie" emit "$tmp/tri.nesl" --stage=cuda >"$tmp/tri.cu" 2>/dev/null || bad "tri.nesl: emit --stage=cuda failed"
grep -q 'puts("INJECTED")' "$tmp/tri.cu" && bad "tri.nesl: the .cu holds the comment's C unescaped"
grep -q '??/' "$tmp/tri.cu" && bad "tri.nesl: the .cu holds a trigraph"
if command -v g++ >/dev/null; then # the .cu's host side as C++: does it parse as intended?
  sed -n '/^static const RtLoc nessie_locs/,/^};/p' "$tmp/tri.cu" >"$tmp/locs.cc"
  printf 'typedef struct { int l, c; const char *s; } RtLoc;\n' | cat - "$tmp/locs.cc" >"$tmp/locs2.cc"
  g++ -std=c++17 -trigraphs -fsyntax-only -Werror=trigraphs "$tmp/locs2.cc" 2>"$tmp/gxx.log" ||
    bad "tri.nesl: the .cu's location table does not compile with trigraphs on: $(head -3 "$tmp/gxx.log")"
fi

# 2. a source path holding `*/` and quotes ended the generated file's header comment
d="$tmp/a*/ int injected = 1; /*\"q"
mkdir -p "$d" && cp "$tmp/tri.nesl" "$d/p.nesl"
same "$d/p.nesl" "$tmp/pathbin"
mkdir -p "$tmp/b*" && printf '1 + 2;\n' >"$tmp/b*/q.nesl"
same "$tmp/b*/q.nesl" "$tmp/qbin"

# 3. λcu names with primes (legal λcu) became C with quote characters
cat >"$tmp/prime.lcu" <<'EOF'
function main(x' : int, y'' : int) -> int {
  x' + y''
}
EOF
"$nessie" build "$tmp/prime.lcu" -o "$tmp/prime" >"$tmp/build.log" 2>&1 || bad "prime.lcu: build failed: $(head -3 "$tmp/build.log")"
[ "$("$tmp/prime" 3 4 2>&1)" = "7" ] || bad "prime.lcu: the binary does not print 7"

# 4. -o: the user's OUT.c, the source, directories, devices, names starting with '-'
w="$tmp/work"
mkdir -p "$w" && cp tests/nesl/dotprod.nesl "$w/P.nesl"
(
  cd "$w" || exit 1
  echo 'int users_own_file;' >P.c
  "$nessie" build P.nesl -o P >log 2>&1 || echo "FAIL build -o P: $(head -3 log)"
  [ "$(cat P.c)" = 'int users_own_file;' ] || echo "FAIL build -o P changed or removed the user's P.c"
  cp P.nesl keep.nesl
  "$nessie" build P.nesl -o P.nesl >log 2>&1
  rc=$?
  [ $rc -eq 2 ] || echo "FAIL build -o SOURCE exited $rc, not 2"
  cmp -s P.nesl keep.nesl || echo "FAIL build -o SOURCE replaced the source"
  grep -q 'source' log || echo "FAIL build -o SOURCE does not say why: $(cat log)"
  mkdir -p adir
  for o in adir /dev/full ''; do
    "$nessie" build P.nesl -o "$o" >log 2>&1
    rc=$?
    [ $rc -eq 2 ] || echo "FAIL build -o '$o' exited $rc, not 2"
    grep -q 'a bug in nessie' log && echo "FAIL build -o '$o' calls itself a bug"
  done
  [ ! -e /dev/full.c ] || echo "FAIL build -o /dev/full wrote /dev/full.c"
  "$nessie" build P.nesl -o -x >log 2>&1 || echo "FAIL build -o -x: $(head -3 log)"
  [ -x ./-x ] || echo "FAIL build -o -x wrote no ./-x"
  ls -A | grep -q 'nessie-' && echo "FAIL a temporary file was left behind: $(ls -A)"
  "$nessie" build P.nesl -o K --keep-c >log 2>&1 || echo "FAIL build --keep-c: $(head -3 log)"
  [ -s K.c ] || echo "FAIL build --keep-c kept no K.c"
) >"$tmp/o.log" 2>&1
grep FAIL "$tmp/o.log" && bad "build -o cases"

# 5. the compile cache: a directory or binary another user could have written is
# not run; without HOME nothing goes to a shared /tmp/.cache
cp tests/nesl/dotprod.nesl "$tmp/c.nesl"
mkdir -p "$tmp/open" && chmod 0777 "$tmp/open"
NESSIE_CACHE_DIR=$tmp/open "$nessie" run "$tmp/c.nesl" --target=c >"$tmp/log" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'writable by others' "$tmp/log" || bad "a world-writable cache was used (exit $rc): $(head -3 "$tmp/log")"
mkdir -p "$tmp/mine" && chmod 0700 "$tmp/mine"
NESSIE_CACHE_DIR=$tmp/mine "$nessie" run "$tmp/c.nesl" --target=c >"$tmp/log" 2>&1 || bad "a private cache failed: $(head -3 "$tmp/log")"
planted=$(ls "$tmp/mine"/c-* 2>/dev/null | head -n 1)
if [ -n "$planted" ]; then
  printf '#!/bin/sh\necho INJECTED\n' >"$planted" && chmod 0777 "$planted"
  NESSIE_CACHE_DIR=$tmp/mine "$nessie" run "$tmp/c.nesl" --target=c >"$tmp/log" 2>&1
  grep -q INJECTED "$tmp/log" && bad "a world-writable cached binary was run"
  grep -q 'writable by others' "$tmp/log" || bad "a world-writable cached binary: no message: $(head -3 "$tmp/log")"
else
  bad "the private cache holds no binary"
fi
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  mkdir -p "$tmp/theirs" && chown nobody "$tmp/theirs" && chmod 0755 "$tmp/theirs"
  NESSIE_CACHE_DIR=$tmp/theirs "$nessie" run "$tmp/c.nesl" --target=c >"$tmp/log" 2>&1
  [ $? -eq 1 ] && grep -q 'owned by another user' "$tmp/log" || bad "a cache owned by another user was used"
fi
before=$(ls -d /tmp/.cache/nessie 2>/dev/null)
env -u HOME -u XDG_CACHE_HOME -u NESSIE_CACHE_DIR TMPDIR="$tmp" "$nessie" run "$tmp/c.nesl" --target=c >"$tmp/log" 2>&1 ||
  bad "no HOME: run --target=c failed: $(head -3 "$tmp/log")"
[ -z "$before" ] && [ -e /tmp/.cache/nessie ] && bad "no HOME: the cache went to /tmp/.cache/nessie"

# 6. a failure while a build evaluates a form (out of memory) says why, on every
# compiled path (under ASan the address-space limit cannot be set)
case "$nessie" in
*asan*) echo "note: the out-of-memory case is not run under ASan (it reserves the address space)" ;;
*)
  printf 'x = dist(1, 300000000);\nfunction g(n) = n + #x;\ng(2);\n' >"$tmp/oom.nesl"
  for cmd in "build $tmp/oom.nesl -o $tmp/oom" "run $tmp/oom.nesl --target=c" "emit $tmp/oom.nesl --stage=c"; do
    (ulimit -v 2000000 && exec "$nessie" $cmd) >/dev/null 2>"$tmp/log"
    rc=$?
    [ $rc -ne 0 ] && grep -q 'out of memory' "$tmp/log" || bad "nessie $cmd under ulimit -v: exit $rc, message: $(head -c 200 "$tmp/log")"
  done
  ;;
esac

# 7. a 200,000-character string literal: generated C grows linearly with it (it was a
# statement per character, which made the C compiler quadratic), and it runs
python3 - "$tmp/lit.nesl" <<'EOF'
import sys
s = "ab?c" * 50000
open(sys.argv[1], "w").write('function g(n) = #"' + s + '" + n;\ng(1);\nprint_string("' + s + '");\n')
EOF
"$nessie" emit "$tmp/lit.nesl" --stage=c >"$tmp/lit.c" || bad "lit.nesl: emit --stage=c failed"
lines=$(wc -l <"$tmp/lit.c")
[ "$lines" -lt 40000 ] || bad "lit.nesl: 400,000 literal characters made $lines lines of C"
same "$tmp/lit.nesl" "$tmp/lit"

# 8. compiled binaries check their options as `nessie lcu run` does
for o in --seed=-1 --seed=99999999999999999999 --seed=x --max-len=-1 --max-len=100000000000; do
  "$tmp/prime" --random-inputs "$o" >/dev/null 2>"$tmp/log"
  rc=$?
  [ $rc -eq 2 ] || bad "compiled binary $o: exit $rc, not 2"
  "$nessie" lcu run "$tmp/prime.lcu" --random-inputs "$o" >/dev/null 2>&1
  [ $? -eq 2 ] || bad "lcu run $o: not exit 2"
done
"$tmp/prime" --random-inputs --seed=5 --max-len=3 >/dev/null || bad "compiled binary: good --seed/--max-len refused"
"$bin/nessie-neslgen" --seed=3 >/dev/full 2>/dev/null && bad "nessie-neslgen >/dev/full exits 0"
exit $fail
