/* quicksort.c — parallel quicksort (three-way partition, the two sides as OpenMP
 * tasks), as experiments/programs/quicksort.nesl; result: sum of s[i] * (i mod 7). */
#include "suite.h"

static void qsort3(int32_t *a, long n) {
  while (n > 1) {
    int32_t p = a[n / 2];
    long lt = 0, i = 0, gt = n; /* [0,lt) < p, [lt,i) == p, [gt,n) > p */
    while (i < gt) {
      if (a[i] < p) {
        int32_t t = a[i]; a[i] = a[lt]; a[lt] = t; lt++, i++;
      } else if (a[i] > p) {
        gt--;
        int32_t t = a[i]; a[i] = a[gt]; a[gt] = t;
      } else {
        i++;
      }
    }
    if (lt > 4096) {
#pragma omp task
      qsort3(a, lt);
    } else {
      qsort3(a, lt);
    }
    a += gt;
    n -= gt;
  }
}

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "keys");
  int32_t *a = suite_alloc(sizeof(int32_t) * n);
  for (long i = 0; i < n; i++) a[i] = suite_int(i);
  double t0 = suite_now();
#pragma omp parallel
#pragma omp single
  qsort3(a, n);
  double t1 = suite_now();
  suite_report_int(suite_sorted_checksum(a, n), t1 - t0);
  free(a);
  return 0;
}
