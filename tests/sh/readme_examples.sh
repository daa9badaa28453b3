#!/usr/bin/env bash
# readme_examples.sh — README.md's examples print what the README says they print, so
# that they never go stale; and the README keeps its shape (under 250 lines, the
# two commands `make run` and `make test` within its first 30 lines, no commit hashes,
# every relative link pointing at a file of the tree).
#
# What is checked: every block fenced with ```console. In it, a line starting with "$ "
# is a command (a line ending in "\" continues on the next); the lines after it, up to
# the next command or the end of the block, are what it prints, stdout and stderr
# together. Blocks fenced otherwise (```sh, ```c, plain ```) are not run: the README
# uses them for commands this test cannot run (make run, make test, make plots, which
# build, install packages or rewrite results/) and for code.
# Every command runs with bash, in order, all of them in one scratch directory that
# holds a link to each top-level entry of the tree (tests/, experiments/, ...; nothing
# a command writes lands in the tree) and bin -> the binaries under test, so files an
# earlier command writes are there for later ones. A command must exit 0, every part
# of a pipeline included (bash -o pipefail); where the README shows a failing program
# it shows `; echo "exit $?"` too.
# How output is matched:
#   - a line that is exactly "..." stands for any number of lines (none included);
#   - "..." inside a line stands for any text within that line;
#   - everything else must be equal, character for character.
# The README elides with "..." only what depends on the machine, the load or the
# compiler (times, a GPU's absence message) or output too long to show.
# A command that needs nvcc (--target=cuda) is not run where .ci/find-cuda finds none;
# the rest of its block is then skipped too, and the test exits 77 (skipped) when it
# found nothing wrong otherwise. On a machine with a GPU the CUDA binary prints its
# results instead of "no CUDA-capable GPU", which fails here: update the README then.
# README_SHOW=1 prints every command's actual output (for updating the README).
. "$(dirname "$0")/common.bash"
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
root=$(pwd)
case "$bin" in /*) absbin=$bin ;; *) absbin=$root/$bin ;; esac
work="$tmp/work"
mkdir -p "$work"
for e in "$root"/* "$root"/.ci; do
  n=$(basename "$e")
  case "$n" in bin | build) continue ;; esac
  ln -s "$e" "$work/$n"
done
ln -s "$absbin" "$work/bin"
cuda=1
bash .ci/find-cuda >/dev/null 2>&1 || cuda=0
export NESSIE_CACHE_DIR="$tmp/cache"
# The sanitizer build suppresses Graphviz's own leaks (fusion/dot.c); LeakSanitizer
# would list the suppressions it used on stderr at exit.
export LSAN_OPTIONS=print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}

python3 - "$root/README.md" "$work" "$cuda" "${README_SHOW:-0}" <<'EOF'
import os, re, subprocess, sys

readme, work, cuda, show = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4] == "1"
text = open(readme, encoding="utf-8").read()
lines = text.split("\n")
fails = []
skipped = []

def fail(msg):
    fails.append(msg)
    print("FAIL " + msg)

# --- the matcher ---------------------------------------------------------------
def line_re(l):
    return "".join(".*" if p == "..." else re.escape(p) for p in re.split(r"(\.\.\.)", l))

def matches(expected, actual):
    """expected, actual: lists of lines. '...' alone: any lines; '...' inside: any text."""
    pats = [None if l == "..." else re.compile(line_re(l) + r"\Z") for l in expected]
    memo = {}
    def m(i, j):
        if (i, j) in memo:
            return memo[i, j]
        if i == len(pats):
            r = j == len(actual)
        elif pats[i] is None:
            r = m(i + 1, j) or (j < len(actual) and m(i, j + 1))
        else:
            r = j < len(actual) and pats[i].match(actual[j]) is not None and m(i + 1, j + 1)
        memo[i, j] = r
        return r
    return m(0, 0)

# The matcher can fail: cases it must accept and cases it must refuse.
for exp, act, want in [
    (["a", "b"], ["a", "b"], True), (["a", "b"], ["a", "c"], False),
    (["a"], ["a", "b"], False), (["a", "..."], ["a", "b", "c"], True),
    (["...", "c"], ["a", "b", "c"], True), (["...", "c"], ["a", "b"], False),
    (["x ... z"], ["x y z"], True), (["x ... z"], ["x y", "z"], False),
    (["1.0 ... s"], ["1.0 (0.2) s"], True), (["a.b"], ["axb"], False), ([], [], True),
]:
    if matches(exp, act) != want:
        fail("matcher: %r against %r should be %s" % (exp, act, want))

# --- the README's shape ----------------------------------------------------------
if len(lines) >= 250:
    fail("README.md has %d lines; it should stay under 250 (details go to the folder READMEs)" % len(lines))
head = "\n".join(lines[:30])
for c in ("make run", "make test"):
    if c not in head:
        fail("README.md: `%s` is not within the first 30 lines" % c)
for i, l in enumerate(lines, 1):
    for w in re.findall(r"\b[0-9a-f]{7,40}\b", l):
        if re.search(r"[0-9]", w) and re.search(r"[a-f]", w):
            fail("README.md:%d: looks like a commit hash: %s" % (i, w))
for i, l in enumerate(lines, 1):
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", l):
        if re.match(r"[a-z]+:", target):
            continue
        if not os.path.exists(os.path.join(os.path.dirname(readme), target)):
            fail("README.md:%d: link to a missing file: %s" % (i, target))

# --- the sessions ------------------------------------------------------------------
blocks = []   # (first line number, [(command, line number, expected lines)])
i = 0
while i < len(lines):
    if lines[i].strip() == "```console":
        start, i, cmds = i + 1, i + 1, []
        while i < len(lines) and lines[i].strip() != "```":
            l = lines[i]
            if l.startswith("$ "):
                no, cmd = i + 1, l[2:]
                while cmd.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    cmd = cmd + "\n" + lines[i]
                cmds.append([cmd, no, []])
            elif cmds:
                cmds[-1][2].append(l)
            else:
                fail("README.md:%d: output before any command in a console block" % (i + 1))
            i += 1
        blocks.append((start, cmds))
    i += 1
if sum(len(c) for _, c in blocks) < 10:
    fail("README.md has only %d checked commands" % sum(len(c) for _, c in blocks))

for start, cmds in blocks:
    for cmd, no, expected in cmds:
        if "--target=cuda" in cmd and not cuda:
            skipped.append("README.md:%d and the rest of its block (no nvcc): %s" % (no, cmd))
            break
        run = "bash experiments/tour.sh bin build/run" if cmd == "make run" else cmd
        try:
            p = subprocess.run(["bash", "-o", "pipefail", "-c", run], cwd=work, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=400)
            out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
        except subprocess.TimeoutExpired:
            out, rc = "(timed out after 400 s)\n", -1
        actual = out.split("\n")
        if actual and actual[-1] == "":
            actual.pop()
        if show:
            print("$ " + cmd)
            print("\n".join(actual))
        if rc != 0:
            fail("README.md:%d: `%s` exited with status %d:\n%s" % (no, cmd, rc, "\n".join(actual[:20])))
        elif not matches(expected, actual):
            fail("README.md:%d: `%s` printed\n%s\n--- where the README shows\n%s" %
                 (no, cmd, "\n".join(actual[:40]), "\n".join(expected[:40])))

for s in skipped:
    print("not checked: " + s)
print("%d commands in %d blocks checked" % (sum(len(c) for _, c in blocks), len(blocks)))
sys.exit(1 if fails else 77 if skipped else 0)
EOF
st=$?
[ $st = 0 ] || [ $st = 77 ] || fail=1
[ $fail = 0 ] || exit 1
exit $st
