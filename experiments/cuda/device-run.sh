#!/usr/bin/env bash
# experiments/cuda/device-run.sh BUNDLE.tar.xz — the one command a GPU loan runs (the
# device tool's `run`, with BUNDLE.tar.xz carried): unpacks a bundle made by bundle.sh,
# runs its run.sh (ALL=1 bundles compile their sources there first, with every core)
# and packs everything run.sh wrote into $OUT/results.tar.gz, one file, since a loan
# brings back at most 8. Without a GPU it stops at once (run.sh's exit 77), still
# packing what it wrote (device.txt says why). Unpack the archive here into
# results/cuda-DATE/ and write its README from correctness.txt and summary.csv.
set -u
bundle=${1:?usage: device-run.sh BUNDLE.tar.xz}
: "${OUT:?device-run.sh: set OUT, the folder a loan brings back}"
dir=$(mktemp -d)
tar xJf "$bundle" -C "$dir" || { echo "device-run.sh: cannot unpack $bundle" >&2; exit 1; }
res=$dir/results
mkdir -p "$res"
bash "$dir/run.sh" "$res" 2>&1 | tee "$res/run.log"
rc=${PIPESTATUS[0]}
tar czf "$OUT/results.tar.gz" -C "$res" .
echo "device-run.sh: run.sh exited $rc; results in \$OUT/results.tar.gz"
exit "$rc"
