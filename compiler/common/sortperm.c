/* sortperm.c — the stable sorting permutation of the segments of a float array (λcu's
 * sort_perm, compiler/lcu/README.md), for the λcu interpreter and the runtime. Ordered by
 * value (<, >), ties (equal values, -0.0 and 0.0, nan against anything) by index, the
 * comparison the AST interpreter's rank uses. */
#include "nessie.h"

#include <stdlib.h>

typedef struct {
  double v;
  int32_t i;
} Key;

static int cmp_key(const void *a, const void *b) {
  const Key *x = a, *y = b;
  if (x->v < y->v) return -1;
  if (x->v > y->v) return 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

void nz_sort_perm(const int64_t *starts, int64_t nsegs, const double *x, int32_t *perm) {
  int64_t total = starts[nsegs];
  Key *k = nz_xmalloc(sizeof(Key) * (size_t)(total > 0 ? total : 1));
  for (int64_t j = 0; j < total; j++) k[j] = (Key){x[j], (int32_t)j};
  for (int64_t s = 0; s < nsegs; s++)
    if (starts[s + 1] - starts[s] > 1) qsort(k + starts[s], (size_t)(starts[s + 1] - starts[s]), sizeof(Key), cmp_key);
  for (int64_t j = 0; j < total; j++) perm[j] = k[j].i;
  free(k);
}
