#!/usr/bin/env bash
# --dot pictures through `nessie lcu fuse` on n-body (issue 40): every picture has a
# legend; each kernel's label names its SOACs, iteration spaces and the arrays it
# reads and writes; the region's input scalars are folded into their users' labels
# by default (no scalar node, no dotted edge from one) and drawn as nodes with dotted
# edges under --dot-scalars; every .dot file parses again (`dot -Tsvg`).
. "$(dirname "$0")/common.bash"
"$bin/nessie" emit tests/nesl/nbody.nesl --stage=lcu >"$tmp/nb.lcu" || bad "emit nbody failed"

"$bin/nessie" lcu fuse "$tmp/nb.lcu" --scheduler=greedy-down --dot="$tmp/a" >/dev/null || bad "--dot failed"
"$bin/nessie" lcu fuse "$tmp/nb.lcu" --scheduler=greedy-down --dot="$tmp/b" --dot-scalars >/dev/null ||
  bad "--dot-scalars failed"
n=$(ls "$tmp"/a/*.dot 2>/dev/null | wc -l)
[ "$n" -ge 2 ] || bad "--dot drew $n regions"
[ "$(ls "$tmp"/b/*.dot 2>/dev/null | wc -l)" = "$n" ] || bad "--dot-scalars drew other regions than --dot"

for f in "$tmp"/a/*.dot; do
  r=$(basename "$f")
  grep -q 'cluster_legend' "$f" && grep -q 'dashed grey edge' "$f" || bad "$r: no legend"
  # every kernel (cluster_N) is labelled "kernel N...: SOAC...\nover SPACE\narrays in: ...\narrays out: ..."
  k=$(grep -c 'subgraph cluster_[0-9]' "$f")
  l=$(grep -Ec 'label="kernel [0-9]+( \(fused: [0-9]+\))?:( [A-Z]+( x[0-9]+)?)+(\\nover [^"]*)?\\narrays in: [^"]*\\narrays out: ' "$f")
  [ "$k" -ge 1 ] && [ "$k" = "$l" ] || bad "$r: $k kernels, $l labelled with SOACs and arrays"
  grep -q 'shape=ellipse' "$f" && bad "$r: a scalar node without --dot-scalars"
  command -v dot >/dev/null && { dot -Tsvg "$f" >/dev/null 2>"$tmp/err" || bad "$r does not parse: $(head -c 200 "$tmp/err")"; }
done
# n-body's input scalars (the step's dt, the softening) are used by many invocations
grep -qh '\\nuses: t_' "$tmp"/a/*.dot || bad "no input scalar folded into a label"
grep -qh 'shape=ellipse' "$tmp"/b/*.dot || bad "--dot-scalars drew no scalar node"
grep -qh '\\nuses: ' "$tmp"/b/*.dot && bad "--dot-scalars still folds scalars into labels"
# the scalar nodes' edges are dotted: at least one per use folded by default (a label
# lists four, then "...")
uses=$(grep -oh '\\nuses: [^"]*' "$tmp"/a/*.dot | sed 's/^\\nuses: //; s/\\n.*//' | tr ',' '\n' | grep -vc '\.\.\.')
dotted=$(cat "$tmp"/b/*.dot | tr '\n' ' ' | sed 's/;/;\n/g' | grep -E '^[[:space:]]*var[0-9]+ -> inv' | grep -c 'style=dotted')
[ "$uses" -ge 1 ] && [ "$dotted" -ge "$uses" ] || bad "$uses scalar uses folded, $dotted dotted edges under --dot-scalars"
for f in "$tmp"/b/*.dot; do
  command -v dot >/dev/null && { dot -Tsvg "$f" >/dev/null 2>&1 || bad "$(basename "$f") (--dot-scalars) does not parse"; }
done
exit $fail
