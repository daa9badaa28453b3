#!/usr/bin/env bash
# The fuzz targets (`make fuzz`, `make fuzz-lcu`) are not built by `make test`,
# so they could rot as the functions they call change: compile them here
# (syntax and types only, no libFuzzer needed) against the current headers,
# with the project's warnings as errors.
set -u
cd "$(dirname "$0")/../.."
cc=${CC:-cc}
inc=$(find compiler fusion runtime/host generators/lib -name '*.h' -printf '-I%h\n' 2>/dev/null | sort -u)
pkg=$(pkg-config --cflags cbc libgvc 2>/dev/null)
status=0
n=0
for f in tests/fuzz/*.c; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  if ! "$cc" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Werror -fsyntax-only $inc $pkg "$f"; then
    echo "fuzz target does not compile: $f"
    status=1
  fi
done
[ "$n" -ge 2 ] || { echo "expected the NESL and λcu fuzz targets, found $n"; status=1; }
exit $status
