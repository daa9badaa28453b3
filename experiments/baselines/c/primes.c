/* primes.c — the primes below N: the primes up to sqrt(N) by a serial sieve, then
 * the rest of the range in blocks, each block sieved by one thread (no shared
 * writes), as experiments/programs/primes.nesl; result: the sum of the primes.
 * The seed is accepted and unused. */
#include "suite.h"

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "bound");
  char *composite = suite_alloc((size_t)n + 1);
  double t0 = suite_now();
  memset(composite, 0, (size_t)n + 1);
  long r = (long)sqrt((double)n);
  while (r * r > n) r--;
  while ((r + 1) * (r + 1) <= n) r++;
  for (long p = 2; p <= r; p++)
    if (!composite[p])
      for (long q = p * p; q <= r; q += p) composite[q] = 1;
  const long block = 1 << 16;
#pragma omp parallel for schedule(dynamic)
  for (long lo = r + 1; lo < n; lo += block) {
    long hi = lo + block < n ? lo + block : n;
    for (long p = 2; p <= r; p++) {
      if (composite[p]) continue;
      long q = (lo + p - 1) / p * p;
      if (q < p * p) q = p * p;
      for (; q < hi; q += p) composite[q] = 1;
    }
  }
  long long sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (long i = 2; i < n; i++)
    if (!composite[i]) sum += i;
  double t1 = suite_now();
  suite_report_int(sum, t1 - t0);
  free(composite);
  return 0;
}
