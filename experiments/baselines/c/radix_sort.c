/* radix_sort.c — least-significant-digit radix sort, 8 bits a pass, per-thread
 * histograms and a stable parallel scatter, as experiments/programs/radix_sort.nesl
 * (which takes one bit a pass); result: sum of s[i] * (i mod 7). */
#include "suite.h"

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "keys");
  int32_t *a = suite_alloc(sizeof(int32_t) * n), *b = suite_alloc(sizeof(int32_t) * n);
  for (long i = 0; i < n; i++) a[i] = suite_int(i); /* non-negative */
  int nt = omp_get_max_threads();
  long *cnt = suite_alloc(sizeof(long) * 256 * (size_t)nt);
  double t0 = suite_now();
  int32_t mx = 0;
  for (long i = 0; i < n; i++) mx = a[i] > mx ? a[i] : mx;
  for (int shift = 0; shift < 31 && (mx >> shift) > 0; shift += 8) {
    memset(cnt, 0, sizeof(long) * 256 * (size_t)nt);
#pragma omp parallel num_threads(nt)
    {
      int t = omp_get_thread_num();
      long lo = n * t / nt, hi = n * (t + 1) / nt;
      long *c = cnt + 256 * t;
      for (long i = lo; i < hi; i++) c[(a[i] >> shift) & 255]++;
#pragma omp barrier
#pragma omp single
      { /* offsets: digit-major, thread-minor, so the scatter is stable */
        long sum = 0;
        for (int d = 0; d < 256; d++)
          for (int u = 0; u < nt; u++) {
            long v = cnt[256 * u + d];
            cnt[256 * u + d] = sum;
            sum += v;
          }
      }
      for (long i = lo; i < hi; i++) b[c[(a[i] >> shift) & 255]++] = a[i];
    }
    int32_t *t = a; a = b; b = t;
  }
  double t1 = suite_now();
  suite_report_int(suite_sorted_checksum(a, n), t1 - t0);
  free(a), free(b), free(cnt);
  return 0;
}
