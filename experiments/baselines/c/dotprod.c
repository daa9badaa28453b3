/* dotprod.c — hand-written baseline: dot product of two arrays of N doubles
 * (OpenMP reduction). Seed 0: experiments/programs/dotprod.nesl's vectors
 * (a[i] = i mod 7, b[i] = i mod 5 - 2); else a in [-10, 10) and b likewise.
 * ./dotprod N [SEED] */
#include "suite.h"

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "vector length");
  double *x = suite_units(n, 0, -10, 10), *y = suite_units(n, 1, -10, 10);
  if (suite_seed == 0) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
      x[i] = (double)(i % 7);
      y[i] = (double)(i % 5) - 2.0;
    }
  }
  double t0 = suite_now(), s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (long i = 0; i < n; i++) s += x[i] * y[i];
  double t = suite_now() - t0;
  suite_report_float(s, t);
  free(x);
  free(y);
  return 0;
}
