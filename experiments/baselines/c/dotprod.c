/* dotprod.c — hand-written baseline: dot product of two arrays of N doubles
 * (OpenMP reduction). ./dotprod N [SEED] */
#include "bench_common.h"

int main(int argc, char **argv) {
  int64_t n;
  uint64_t seed;
  bench_args(argc, argv, &n, &seed);
  double *x = bench_array(n, seed, 1, -10, 10), *y = bench_array(n, seed, 2, -10, 10);
  double t0 = omp_get_wtime(), s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (int64_t i = 0; i < n; i++) s += x[i] * y[i];
  double t = omp_get_wtime() - t0;
  bench_report(s, t);
  free(x);
  free(y);
  return 0;
}
