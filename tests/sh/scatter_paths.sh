#!/usr/bin/env bash
# Which scatter the back ends emit for PERMUTE ... into (lcu_permute_scatter): no
# winner array where the values of a position's writes are equal (a plain scatter:
# primes' dist(f, n) <- ...) or are the source index + 1 (plain stores, then atomic
# maxima only where a count shows that writes met); the winner pass otherwise. The
# results themselves are golden tests on every path (tests/lcu/permute_into_cheap.lcu,
# tests/nesl/write_collide.nesl).
. "$(dirname "$0")/common.bash"
count() { grep -c -- "$1" "$2"; }
"$bin/nessie" emit tests/lcu/permute_into_cheap.lcu --stage=c >"$tmp/pic.c" || bad "emit permute_into_cheap.lcu"
[ "$(count 'rt_atomic_max(&win' "$tmp/pic.c")" = 1 ] || bad "permute_into_cheap: want one winner pass (f), got $(count 'rt_atomic_max(&win' "$tmp/pic.c")"
[ "$(count 'rt_atomic_max_i32(' "$tmp/pic.c")" = 1 ] || bad "permute_into_cheap: want one index + 1 scatter (e)"
[ "$(count 'int cas = ' "$tmp/pic.c")" = 1 ] || bad "permute_into_cheap: the index + 1 scatter should try plain stores first"
"$bin/nessie" emit tests/lcu/permute_into_cheap.lcu --stage=cuda >"$tmp/pic.cu" || bad "emit --stage=cuda"
[ "$(count 'rt_cu_permute(fv, fi, n, m, 2,' "$tmp/pic.cu")" = 3 ] || bad "CUDA: want three PERMUTEs without the winner kernel"
[ "$(count 'atomicMax(&o0' "$tmp/pic.cu")" = 1 ] || bad "CUDA: want one atomicMax store"
# primes: its one `<-` writes the replicated `f`: a scatter of marks, no winner
# array, no atomics
{ cat experiments/programs/primes.nesl; echo 'bench(1000) $'; } >"$tmp/primes.nesl"
"$bin/nessie" emit "$tmp/primes.nesl" --stage=c >"$tmp/primes.c" || bad "emit primes"
for s in 'int64_t \*win' 'rt_atomic_max' 'uint8_t \*seen'; do
  [ "$(count "$s" "$tmp/primes.c")" = 0 ] || bad "primes: generated C has $s"
done
grep -q 'PERMUTE { i_[0-9]* => true' <("$bin/nessie" emit "$tmp/primes.nesl" --stage=lcu) || bad "primes: the put does not scatter marks"
exit $fail
