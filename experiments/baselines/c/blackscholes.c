/* blackscholes.c — hand-written baseline: the sums of Black–Scholes call and put prices
 * of N options (spot [5, 30), strike [1, 100), expiry [0.25, 10) years, rate
 * 0.02, volatility 0.3; normal CDF by Abramowitz–Stegun 26.2.17), one OpenMP
 * loop. The inputs of experiments/programs/blackscholes.nesl (spot from unit i,
 * strike from i + 1, expiry from i + 2), its 1st value for seed 0. The timed loop
 * prices calls and puts, as the NESL program's compute does (the put sum goes to a
 * volatile, so that the compiler cannot drop it; the output stays `result`, `seconds`).
 * ./blackscholes N [SEED] */
#include "suite.h"

static inline double cnd(double d) {
  double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
  double w = 1.0 - exp(-(d * d) / 2.0) / sqrt(2.0 * 3.14159265358979323846) * k *
                       (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
  return d < 0 ? 1.0 - w : w;
}

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "options");
  double *S = suite_alloc(sizeof(double) * (size_t)n), *K = suite_alloc(sizeof(double) * (size_t)n),
         *T = suite_alloc(sizeof(double) * (size_t)n);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) {
    S[i] = 5.0 + 25.0 * suite_unit(i);
    K[i] = 1.0 + 99.0 * suite_unit(i + 1);
    T[i] = 0.25 + 9.75 * suite_unit(i + 2);
  }
  const double r = 0.02, v = 0.3;
  double t0 = suite_now(), sum = 0, puts = 0;
#pragma omp parallel for reduction(+ : sum, puts) schedule(static)
  for (long i = 0; i < n; i++) {
    double sq = v * sqrt(T[i]);
    double d1 = (log(S[i] / K[i]) + (r + v * v / 2.0) * T[i]) / sq, d2 = d1 - sq;
    double disc = K[i] * exp(-r * T[i]);
    sum += S[i] * cnd(d1) - disc * cnd(d2);
    puts += disc * cnd(-d2) - S[i] * cnd(-d1);
  }
  double t = suite_now() - t0;
  volatile double put_sum = puts;
  (void)put_sum;
  suite_report_float(sum, t);
  free(S);
  free(K);
  free(T);
  return 0;
}
