/* mandelbrot.c — escape-time iteration counts of an N x N grid over
 * [-2, 0.5] x [-1.25, 1.25], at most 100 iterations, pixels split dynamically over
 * the threads, as experiments/programs/mandelbrot.nesl; result: the sum of the counts.
 * The seed is accepted and unused (the input is the grid). */
#include "suite.h"

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "grid side");
  double h = 2.5 / (double)n;
  long long total = 0;
  double t0 = suite_now();
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : total)
  for (long k = 0; k < n * n; k++) {
    double cx = -2.0 + h * (double)(k % n), cy = -1.25 + h * (double)(k / n);
    double x = 0, y = 0;
    int i = 0;
    while (!(i >= 100 || x * x + y * y > 4.0)) {
      double nx = x * x - y * y + cx;
      y = 2.0 * x * y + cy;
      x = nx;
      i++;
    }
    total += i;
  }
  double t1 = suite_now();
  suite_report_int(total, t1 - t0);
  return 0;
}
