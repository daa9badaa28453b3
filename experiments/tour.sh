#!/usr/bin/env bash
# experiments/tour.sh [BINDIR [OUTDIR]] — the main job (`make run`, README "A tour"):
# one real NESL program, tests/nesl/nbody.nesl (a direct-sum n-body step), through the
# whole pipeline with the binaries of BINDIR (default bin) into OUTDIR (default
# build/run):
#   1. run by the reference interpreter, then flattened to λcu and fused by ilp-cg
#      (--interp=lcu), which must print the same;
#   2. its λcu (OUTDIR/nbody.lcu), fused by ilp-cg with the fusion report
#      (OUTDIR/nbody.fused.lcu) and every region's clusters drawn
#      (OUTDIR/pictures/regionN.svg and .png);
#   3. the schedulers compared by nessie-bench (kernels and objective summed over the
#      regions);
#   4. compiled by the C back end (the default: no GPU here) with the per-kernel
#      profile, run and timed. Where nvidia-smi lists a GPU and nvcc is found, it is
#      compiled with --target=cuda instead (never tried: no GPU where this was written);
#   5. where the pictures and the profile went.
# Exit status 1 if a step fails or the two interpreters disagree.
set -euo pipefail
bin=${1:-bin}
out=${2:-build/run}
cd "$(dirname "$0")/.."
prog=tests/nesl/nbody.nesl
mkdir -p "$out"
rm -rf "$out/pictures"

echo "== 1. $prog, run by the reference interpreter (lines cut at 100 characters)"
"$bin/nessie" run "$prog" >"$out/ast.out"
cut -c 1-100 "$out/ast.out"
echo "== flattened to λcu, fused by ilp-cg, run by the λcu interpreter"
"$bin/nessie" run "$prog" --interp=lcu --scheduler=ilp-cg >"$out/lcu.out"
if cmp -s "$out/ast.out" "$out/lcu.out"; then
  echo "the same $(wc -l <"$out/lcu.out") lines"
else
  echo "error: --interp=lcu printed something else:"
  diff "$out/ast.out" "$out/lcu.out" | head -n 10
  exit 1
fi

echo "== 2. fused by ilp-cg: the report's total, and the largest region"
"$bin/nessie" emit "$prog" --stage=lcu >"$out/nbody.lcu"
"$bin/nessie" lcu fuse "$out/nbody.lcu" --scheduler=ilp-cg --dot="$out/pictures" --png >"$out/nbody.fused.lcu"
grep '^// total' "$out/nbody.fused.lcu"
# The region with the most kernels before fusion, and its clusters.
biggest=$(awk '/^\/\/ region / { n = $0; sub(/.*kernels /, "", n); sub(/ .*/, "", n);
                                  if (n + 0 > best) { best = n + 0; r = $3 } } END { print r }' "$out/nbody.fused.lcu")
grep -A1 "^// region $biggest in" "$out/nbody.fused.lcu" | cut -c 1-160

echo "== 3. schedulers compared (nessie-bench): kernels after fusion and objective, summed over the regions"
"$bin/nessie-bench" --scheduler=none,greedy-down,greedy-up,ilp-cg --format=csv "$out/nbody.lcu" >"$out/bench.csv"
awk -F, 'NR > 1 { if (!($4 in k)) order[++n] = $4; k[$4] += $8; o[$4] += $14 }
         END { for (i = 1; i <= n; i++) printf "%-12s kernels %4d  objective %d\n", order[i], k[order[i]], o[order[i]] }' "$out/bench.csv"

target=c
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU && bash .ci/find-cuda >/dev/null 2>&1; then
  target=cuda
fi
echo "== 4. compiled (--target=$target, fused by ilp-cg, --profile), run and timed"
"$bin/nessie" build "$prog" --target=$target --scheduler=ilp-cg --profile -o "$out/nbody"
(cd "$out" && NESSIE_TIME=1 ./nbody >compiled.out 2>time.out) || { cat "$out/time.out"; exit 1; }
if cmp -s "$out/ast.out" "$out/compiled.out"; then
  echo "the compiled program prints the same $(wc -l <"$out/compiled.out") lines; it ran in $(sed -n 's/^seconds //p' "$out/time.out") s"
else
  echo "error: the compiled program printed something else:"
  diff "$out/ast.out" "$out/compiled.out" | head -n 10
  exit 1
fi
echo "the slowest kernels (seconds, kernel, the invocations fused into it):"
grep -v '(total)' "$out/nessie-profile.csv" | tail -n +2 | sort -t, -k10 -g -r | head -n 3 |
  awk -F, '{ printf "  %s  %s  %s\n", $10, $4, substr($5, 1, 60) }'

echo "== 5. where things went"
echo "fused λcu:  $out/nbody.fused.lcu"
echo "pictures:   $out/pictures/ (largest region: $out/pictures/region$biggest.png)"
echo "profile:    $out/nessie-profile.csv"
echo "scheduler comparison: $out/bench.csv"
