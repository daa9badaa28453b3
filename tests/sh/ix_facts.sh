#!/usr/bin/env bash
# The bounds checks the C back end leaves out (cg_ix_facts, compiler/codegen/README.md):
# in tests/lcu/ix_facts.lcu, use's a[i] (a made over the same size) and twice's xs[i]
# (m = #xs) lose theirs; b[i] (length unknown) and mixed's a[i] (its second run
# passes an array of unknown length) keep theirs. The program's output is a golden
# test on every path (tests/lcu/ix_facts.expected, c_backend_golden.sh).
. "$(dirname "$0")/common.bash"
"$bin/nessie" emit tests/lcu/ix_facts.lcu --stage=c >"$tmp/ix.c" || bad "emit ix_facts.lcu"
checks() { awk "/^static void ${1}_body/,/^}/" "$tmp/ix.c" | grep -c 'rt_ix('; }
for want in use=1 mixed=2 twice=0; do
  k=${want%=*} n=${want#*=}
  [ "$(checks "$k")" = "$n" ] || bad "ix_facts: kernel $k has $(checks "$k") bounds checks, want $n"
done
exit $fail
