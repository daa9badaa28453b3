/* batcher_sort.c — Batcher's bitonic sort network, padded to a power of two with
 * INT32_MAX, each stage a parallel loop, as experiments/programs/batcher_sort.nesl;
 * result: sum of s[i] * (i mod 7) over the first N keys. */
#include "suite.h"

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "keys");
  long m = 1;
  while (m < n) m *= 2;
  int32_t *a = suite_alloc(sizeof(int32_t) * m);
  for (long i = 0; i < m; i++) a[i] = i < n ? suite_int(i) : INT32_MAX;
  double t0 = suite_now();
  for (long k = 2; k <= m; k *= 2)
    for (long j = k / 2; j > 0; j /= 2) {
#pragma omp parallel for schedule(static)
      for (long i = 0; i < m; i++) {
        long l = i ^ j;
        if (l > i) {
          int up = (i & k) == 0;
          if ((a[i] > a[l]) == up) {
            int32_t t = a[i]; a[i] = a[l]; a[l] = t;
          }
        }
      }
    }
  double t1 = suite_now();
  suite_report_int(suite_sorted_checksum(a, n), t1 - t0);
  free(a);
  return 0;
}
