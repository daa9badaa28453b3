/* bench_common.h — shared by the hand-written baselines of experiments/baselines/c:
 * splitmix64 input generation from a seed, and a wall clock. Each baseline is
 * built alone: cc -O2 -fopenmp NAME.c -lm, run as ./NAME N [SEED], and prints
 * "result <value>" then "seconds <s>" (the computation only, inputs excluded). */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [lo, hi): element i of stream `stream` (independent of threads). */
static inline double bench_uniform(uint64_t seed, uint64_t stream, int64_t i, double lo, double hi) {
  uint64_t s = seed * 0x100000001B3ull + stream * 0x9E3779B97F4A7C15ull + (uint64_t)i * 0xD1B54A32D192ED03ull;
  return lo + (hi - lo) * (double)(splitmix64(&s) >> 11) * 0x1.0p-53;
}

static inline double *bench_array(int64_t n, uint64_t seed, uint64_t stream, double lo, double hi) {
  double *a = malloc(sizeof(double) * (size_t)(n ? n : 1));
  if (!a) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) a[i] = bench_uniform(seed, stream, i, lo, hi);
  return a;
}

static inline void bench_args(int argc, char **argv, int64_t *n, uint64_t *seed) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s N [SEED]\n", argv[0]);
    exit(2);
  }
  *n = atoll(argv[1]);
  *seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
}

static inline void bench_report(double result, double seconds) {
  printf("result %.17g\nseconds %.6f\n", result, seconds);
}
#endif
