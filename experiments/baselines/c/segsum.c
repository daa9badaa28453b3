/* segsum.c — hand-written baseline: segmented sum of squares. MODE short
 * (default): about N/4 segments of 1 to 7 elements; MODE long: 8 segments of
 * N/8. One OpenMP loop over the segments writes each sum, a second sums them.
 * ./segsum N [SEED] [short|long] */
#include <string.h>

#include "bench_common.h"

int main(int argc, char **argv) {
  int64_t n;
  uint64_t seed;
  bench_args(argc, argv, &n, &seed);
  int few = argc > 3 && !strcmp(argv[3], "long");
  int64_t m = few ? 8 : n / 4;
  int64_t *start = malloc(sizeof(int64_t) * (size_t)(m + 1));
  start[0] = 0;
  for (int64_t j = 0; j < m; j++) {
    uint64_t s = seed * 31 + (uint64_t)j;
    start[j + 1] = start[j] + (few ? n / 8 : 1 + (int64_t)(splitmix64(&s) % 7));
  }
  int64_t total = start[m];
  double *x = bench_array(total, seed, 1, -10, 10);
  double t0 = omp_get_wtime();
  double *sums = malloc(sizeof(double) * (size_t)(m ? m : 1));
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < m; j++) {
    double s = 0;
    for (int64_t i = start[j]; i < start[j + 1]; i++) s += x[i] * x[i];
    sums[j] = s;
  }
  double r = 0;
#pragma omp parallel for reduction(+ : r) schedule(static)
  for (int64_t j = 0; j < m; j++) r += sums[j];
  double t = omp_get_wtime() - t0;
  bench_report(r, t);
  free(sums);
  free(x);
  free(start);
  return 0;
}
