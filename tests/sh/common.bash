# common.bash — sourced by the test scripts in tests/sh (not a test itself: run.sh
# runs *.sh): the binaries' directory, a scratch directory removed on exit, and
# bad(), which reports a failure and makes the script exit 1 at its end.
set -u
bin=${NESSIE_BIN:-bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
