/* nbody.c — all-pairs 3-D accelerations (softened, unit masses), as
 * experiments/programs/nbody.nesl; result: the sum of the acceleration norms. */
#include "suite.h"

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "bodies");
  double *x = suite_alloc(sizeof(double) * n), *y = suite_alloc(sizeof(double) * n),
         *z = suite_alloc(sizeof(double) * n), *norm = suite_alloc(sizeof(double) * n);
  for (long i = 0; i < n; i++) {
    x[i] = suite_unit(3 * i);
    y[i] = suite_unit(3 * i + 1);
    z[i] = suite_unit(3 * i + 2);
  }
  double t0 = suite_now();
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) {
    double ax = 0, ay = 0, az = 0;
    for (long j = 0; j < n; j++) {
      double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
      double r2 = dx * dx + dy * dy + dz * dz + 0.01;
      double s = 1.0 / (r2 * sqrt(r2));
      ax += s * dx;
      ay += s * dy;
      az += s * dz;
    }
    norm[i] = sqrt(ax * ax + ay * ay + az * az);
  }
  double t1 = suite_now(), total = 0;
  for (long i = 0; i < n; i++) total += norm[i];
  suite_report_float(total, t1 - t0);
  free(x), free(y), free(z), free(norm);
  return 0;
}
