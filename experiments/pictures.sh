#!/usr/bin/env bash
# experiments/pictures.sh [BINDIR] — `make pictures`: regenerates the committed pictures
# the top README shows (Graphviz drawings of fusion clusters; the plots come from
# `make plots`):
#   results/greedy-trap/{greedy-down,greedy-up,ilp}.{svg,png}
#       tests/fusion/greedy_trap.lcu (paper §8.1) as each scheduler fuses it;
#   results/nbody/ilp-largest-region.{svg,png}
#       the region of tests/nesl/nbody.nesl with the most kernels, fused by ilp-cg
#       (the program of experiments/tour.sh, `make run`).
set -euo pipefail
bin=${1:-bin}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p results/greedy-trap results/nbody
for s in greedy-down greedy-up ilp; do
  "$bin/nessie" lcu fuse tests/fusion/greedy_trap.lcu --scheduler=$s --dot="$tmp/$s" --png >/dev/null
  cp "$tmp/$s/region0.svg" results/greedy-trap/$s.svg
  cp "$tmp/$s/region0.png" results/greedy-trap/$s.png
  echo "results/greedy-trap/$s.svg, .png"
done

"$bin/nessie" emit tests/nesl/nbody.nesl --stage=lcu >"$tmp/nbody.lcu"
"$bin/nessie" lcu fuse "$tmp/nbody.lcu" --scheduler=ilp-cg --dot="$tmp/nbody" --png >"$tmp/nbody.fused.lcu"
biggest=$(awk '/^\/\/ region / { n = $0; sub(/.*kernels /, "", n); sub(/ .*/, "", n);
                                  if (n + 0 > best) { best = n + 0; r = $3 } } END { print r }' "$tmp/nbody.fused.lcu")
cp "$tmp/nbody/region$biggest.svg" results/nbody/ilp-largest-region.svg
cp "$tmp/nbody/region$biggest.png" results/nbody/ilp-largest-region.png
echo "results/nbody/ilp-largest-region.svg, .png (region $biggest)"
