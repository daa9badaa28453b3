# common.bash — sourced by the test scripts in tests/sh (not a test itself: run.sh
# runs *.sh): the binaries' directory, a scratch directory removed on exit, and
# bad(), which reports a failure and makes the script exit 1 at its end, and
# lcu_run_args (below).
set -u
bin=${NESSIE_BIN:-bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
# lcu_run_args FILE.lcu: sets the array args to the program's command line in
# tests/lcu (its .args file, else `lcu run FILE`); fails for programs that are
# not runs or that expect an error exit (a .exit file).
lcu_run_args() {
  local f=$1 b=${1%.lcu}
  [ -f "$b.exit" ] && return 1
  if [ -f "$b.args" ]; then read -r -a args <"$b.args"; else args=(lcu run "{}"); fi
  args=("${args[@]//\{\}/$f}")
  [ "${args[1]}" = run ]
}
# nvcc_build OUT FILE SCHED [OPTION...]: `nessie build FILE --target=cuda` into OUT
# (cuda_nvcc.sh, float32_nvcc.sh; the caller sets NESSIE_NVCC and NESSIE_NVCCFLAGS):
# prints a FAIL line and fails unless it builds with no output (no warnings) and a
# binary appears. OUT.log keeps what the build printed.
nvcc_build() {
  local out=$1 f=$2 s=$3
  shift 3
  if ! "$bin/nessie" build "$f" --target=cuda --scheduler="$s" "$@" -o "$out" >"$out.log" 2>&1; then
    echo "FAIL $f ($s): nvcc build failed:"; head -12 "$out.log"; return 1
  fi
  [ -s "$out.log" ] && { echo "FAIL $f ($s): warnings or output while building:"; head -12 "$out.log"; return 1; }
  [ -x "$out" ] || { echo "FAIL $f ($s): no binary"; return 1; }
  return 0
}
