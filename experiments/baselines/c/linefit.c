/* linefit.c — least-squares line through (i, 3i + 2 + noise), noise in quarters in
 * [-1.25, 1.25], with parallel reductions, as experiments/programs/linefit.nesl;
 * result: the slope. */
#include "suite.h"

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "points");
  double *x = suite_alloc(sizeof(double) * n), *y = suite_alloc(sizeof(double) * n);
  for (long i = 0; i < n; i++) {
    x[i] = (double)i;
    y[i] = 3.0 * (double)i + 2.0 + (double)(suite_int(i) % 11 - 5) / 4.0;
  }
  double t0 = suite_now(), sx = 0, sy = 0;
#pragma omp parallel for reduction(+ : sx, sy)
  for (long i = 0; i < n; i++) {
    sx += x[i];
    sy += y[i];
  }
  double xa = sx / (double)n, ya = sy / (double)n, sxx = 0, sxy = 0;
#pragma omp parallel for reduction(+ : sxx, sxy)
  for (long i = 0; i < n; i++) {
    sxx += (x[i] - xa) * (x[i] - xa);
    sxy += (x[i] - xa) * (y[i] - ya);
  }
  double b = sxy / sxx;
  double t1 = suite_now();
  suite_report_float(b, t1 - t0);
  free(x), free(y);
  return 0;
}
