/* spmv.c — sparse matrix-vector product in compressed sparse rows, one row per
 * iteration of a parallel loop, with the matrix of experiments/programs/spmv.nesl
 * (1 to 8 entries per row at generated columns, values -4..4, x[j] = j mod 10);
 * result: the sum of y. */
#include "suite.h"

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "rows = columns");
  long *start = suite_alloc(sizeof(long) * (n + 1));
  start[0] = 0;
  for (long i = 0; i < n; i++) start[i + 1] = start[i] + 1 + suite_int(i) % 8;
  long nnz = start[n];
  long *col = suite_alloc(sizeof(long) * nnz);
  double *val = suite_alloc(sizeof(double) * nnz), *x = suite_alloc(sizeof(double) * n),
         *y = suite_alloc(sizeof(double) * n);
  for (long i = 0; i < n; i++)
    for (long k = start[i]; k < start[i + 1]; k++) {
      long j = k - start[i];
      col[k] = suite_int(8 * i + j) % n;
      val[k] = (double)(suite_int(8 * i + j + 3) % 9 - 4);
    }
  for (long j = 0; j < n; j++) x[j] = (double)(j % 10);
  double t0 = suite_now();
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) {
    double s = 0;
    for (long k = start[i]; k < start[i + 1]; k++) s += val[k] * x[col[k]];
    y[i] = s;
  }
  double t1 = suite_now(), total = 0;
  for (long i = 0; i < n; i++) total += y[i];
  suite_report_float(total, t1 - t0);
  free(start), free(col), free(val), free(x), free(y);
  return 0;
}
