/* blackscholes.c — hand-written baseline: the sum of Black–Scholes call prices
 * of N options (spot [5, 30), strike [1, 100), expiry [0.25, 10) years, rate
 * 0.02, volatility 0.3; normal CDF by Abramowitz–Stegun 26.2.17), one OpenMP
 * loop. ./blackscholes N [SEED] */
#include <math.h>

#include "bench_common.h"

static inline double cnd(double d) {
  double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
  double w = 1.0 - 0.3989422804014327 * exp(-d * d / 2.0) * k *
                       (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
  return d < 0 ? 1.0 - w : w;
}

int main(int argc, char **argv) {
  int64_t n;
  uint64_t seed;
  bench_args(argc, argv, &n, &seed);
  double *S = bench_array(n, seed, 1, 5, 30), *K = bench_array(n, seed, 2, 1, 100),
         *T = bench_array(n, seed, 3, 0.25, 10);
  const double r = 0.02, v = 0.3;
  double t0 = omp_get_wtime(), sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (int64_t i = 0; i < n; i++) {
    double sq = v * sqrt(T[i]);
    double d1 = (log(S[i] / K[i]) + (r + v * v / 2.0) * T[i]) / sq, d2 = d1 - sq;
    sum += S[i] * cnd(d1) - K[i] * exp(-r * T[i]) * cnd(d2);
  }
  double t = omp_get_wtime() - t0;
  bench_report(sum, t);
  free(S);
  free(K);
  free(T);
  return 0;
}
