/* filter_reduce.c — hand-written baseline: sum of x*x - 25 over the elements
 * where it is positive (a filter then a reduction, one OpenMP loop), x in [-10, 10).
 * ./filter_reduce N [SEED] */
#include "suite.h"

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "elements");
  double *x = suite_units(n, 0, -10, 10);
  double t0 = suite_now(), s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (long i = 0; i < n; i++) {
    double y = x[i] * x[i] - 25.0;
    if (y > 0) s += y;
  }
  double t = suite_now() - t0;
  suite_report_float(s, t);
  free(x);
  return 0;
}
