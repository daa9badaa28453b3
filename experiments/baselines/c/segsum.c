/* segsum.c — hand-written baseline: segmented sum of squares. MODE short
 * (default): about N/4 segments of 1 to 7 elements; MODE long: 8 segments of
 * N/8. One OpenMP loop over the segments writes each sum, a second sums them.
 * ./segsum N [SEED] [short|long] */
#include "suite.h"

int main(int argc, char **argv) {
  int few = 0;
  if (argc > 3) {
    few = !strcmp(argv[3], "long");
    if (!few && strcmp(argv[3], "short")) {
      fprintf(stderr, "%s: MODE must be short or long, not '%s'\n", argv[0], argv[3]);
      return 2;
    }
  }
  long n = suite_args(argc > 3 ? 3 : argc, argv, "elements; then MODE short|long");
  long m = few ? 8 : n / 4;
  long *start = suite_alloc(sizeof(long) * (size_t)(m + 1));
  start[0] = 0;
  for (long j = 0; j < m; j++) start[j + 1] = start[j] + (few ? n / 8 : 1 + suite_int(j) % 7);
  long total = start[m];
  double *x = suite_units(total, 1, -10, 10);
  double t0 = suite_now();
  double *sums = suite_alloc(sizeof(double) * (size_t)m);
#pragma omp parallel for schedule(static)
  for (long j = 0; j < m; j++) {
    double s = 0;
    for (long i = start[j]; i < start[j + 1]; i++) s += x[i] * x[i];
    sums[j] = s;
  }
  double r = 0;
#pragma omp parallel for reduction(+ : r) schedule(static)
  for (long j = 0; j < m; j++) r += sums[j];
  double t = suite_now() - t0;
  suite_report_float(r, t);
  free(sums);
  free(x);
  free(start);
  return 0;
}
