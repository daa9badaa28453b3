/* rt_runtime.c — unit tests of the C back end's runtime (runtime/host): the
 * first segment a block visits (empty segments included), the allocation
 * counters, and the last-writer-wins atomic of PERMUTE ... into. */
#include "nessie_rt.h"
#include "unit.h"

/* The reference: the smallest j with lens[j] > 0 containing lo, or the first
 * segment (possibly empty) starting at lo. */
static int64_t first_ref(const RtSeg *s, int64_t lo) {
  for (int64_t j = 0; j < s->nsegs; j++)
    if (s->starts[j] >= lo || s->starts[j + 1] > lo) return j;
  return s->nsegs;
}

int main(void) {
  /* every lens in {0,1,2}^k for k <= 6, every lo in [0, total) */
  int bad = 0, cases = 0;
  for (int k = 0; k <= 6; k++) {
    int combos = 1;
    for (int i = 0; i < k; i++) combos *= 3;
    for (int c = 0; c < combos; c++) {
      int32_t lens[6];
      for (int i = 0, x = c; i < k; i++, x /= 3) lens[i] = x % 3;
      RtSeg *s = rt_seg_from_lens(lens, k);
      for (int64_t lo = 0; lo < s->total; lo++, cases++)
        if (rt_seg_first(s, lo) != first_ref(s, lo)) bad++;
      rt_seg_release(s);
    }
  }
  CHECK("rt_seg_first agrees with a linear search on every small segdes", bad == 0 && cases > 1000);
  CHECK("segdes freed", rt_bytes_live == 0);

  int64_t before = rt_bytes_allocated;
  RtArr *a = rt_arr_new(RT_FLOAT, 1000);
  CHECK("arrays count their bytes", rt_bytes_allocated - before >= 8000 && rt_bytes_live >= 8000);
  rt_retain(a);
  rt_release(a);
  CHECK("a retained array survives one release", rt_bytes_live >= 8000);
  rt_release(a);
  CHECK("the last release frees it", rt_bytes_live == 0 && rt_bytes_peak >= 8000);
  before = rt_bytes_allocated;
  RtArr *f32 = rt_arr_new(RT_FLOAT32, 1000); /* --float32: 4-byte elements */
  int64_t f32_bytes = rt_bytes_allocated - before;
  rt_release(f32);
  before = rt_bytes_allocated;
  RtArr *f64 = rt_arr_new(RT_FLOAT, 1000);
  CHECK("an RT_FLOAT32 array takes 4 bytes an element, 4000 fewer than RT_FLOAT's 8",
        f32_bytes >= 4000 && rt_bytes_allocated - before - f32_bytes == 4000);
  rt_release(f64);
  RtArr *z = rt_arr_zeroed(RT_INT, 5);
  int zero = 1;
  for (int i = 0; i < 5; i++) zero &= ((int32_t *)z->d)[i] == 0;
  CHECK("rt_arr_zeroed is zero-filled", zero);
  rt_release(z);

  /* the pool (rt_mem.c): a big block freed serves the next one of its size class */
  RtArr *big = rt_arr_new(RT_INT, 1000000);
  void *big_d = big->d;
  ((int32_t *)big->d)[999999] = 7;
  rt_release(big);
  before = rt_bytes_allocated;
  RtArr *again = rt_arr_zeroed(RT_INT, 990000); /* 3.96 MB: the class of 4 MB */
  zero = 1;
  for (int i = 0; i < 990000; i++) zero &= ((int32_t *)again->d)[i] == 0;
  CHECK("a pooled block counts as allocated and comes back zero-filled when asked",
        rt_bytes_allocated - before >= 3960000 && zero);
#if !defined(__SANITIZE_ADDRESS__) /* AddressSanitizer turns the pool off */
  CHECK("a freed big block is reused for the next of its class", again->d == big_d);
#else
  (void)big_d;
#endif
  RtArr *bigger = rt_arr_new(RT_INT, 1200000); /* another class: a block of its own */
  CHECK("a block of another class is not reused", bigger->d != again->d);
  rt_release(again);
  rt_release(bigger);
  CHECK("pooled blocks are not live", rt_bytes_live == 0);

  int64_t w = -1;
#pragma omp parallel for
  for (int64_t i = 0; i < 100000; i++) rt_atomic_max(&w, i % 77777);
  CHECK("rt_atomic_max keeps the largest", w == 77776);
  uint8_t flag = 0;
  CHECK("rt_atomic_mark: first mark", rt_atomic_mark(&flag) == 0 && rt_atomic_mark(&flag) == 1);

  rt_block = 4;
  CHECK("rt_nblocks rounds up", rt_nblocks(0) == 0 && rt_nblocks(4) == 1 && rt_nblocks(9) == 3);
  CHECK("wrapping int operators", rt_iadd(INT32_MAX, 1) == INT32_MIN && rt_ineg(INT32_MIN) == INT32_MIN &&
                                      rt_idiv(INT32_MIN, -1, 0, 0) == INT32_MIN && rt_imod(INT32_MIN, -1, 0, 0) == 0);
  CHECK("shifts clamp like PTX", rt_shl(1, 32) == 0 && rt_shr(-8, 40) == -1 && rt_shr(8, -1) == 0);
  return unit_failures != 0;
}
