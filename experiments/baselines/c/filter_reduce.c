/* filter_reduce.c — hand-written baseline: sum of x*x - 25 over the elements
 * where it is positive (a filter then a reduction, one OpenMP loop).
 * ./filter_reduce N [SEED] */
#include "bench_common.h"

int main(int argc, char **argv) {
  int64_t n;
  uint64_t seed;
  bench_args(argc, argv, &n, &seed);
  double *x = bench_array(n, seed, 1, -10, 10);
  double t0 = omp_get_wtime(), s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (int64_t i = 0; i < n; i++) {
    double y = x[i] * x[i] - 25.0;
    if (y > 0) s += y;
  }
  double t = omp_get_wtime() - t0;
  bench_report(s, t);
  free(x);
  return 0;
}
