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
