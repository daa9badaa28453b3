/* rt_par.c — what the generated parallel loops share: the block size that
 * fixes every reduction tree, and the segment search of segmented blocks. */
#include "nessie_rt.h"

int64_t rt_block = 16384;

int64_t rt_seg_first(const RtSeg *s, int64_t lo) {
  /* j1: the first j in [0, nsegs] with starts[j] >= lo */
  int64_t a = 0, b = s->nsegs;
  while (a < b) {
    int64_t m = a + (b - a) / 2;
    if (s->starts[m] >= lo) b = m;
    else a = m + 1;
  }
  /* a segment holding lo that starts before it comes first */
  if (a > 0 && s->starts[a] > lo) return a - 1;
  return a;
}
