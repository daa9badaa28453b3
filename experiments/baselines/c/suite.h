/* suite.h — what the hand-written baselines of the NESL benchmark suite share
 * (experiments/baselines/README.md): `./NAME N [SEED]`, inputs generated from the
 * seed, only the computation timed, `result <value>` then `seconds <s>` on stdout.
 * Seed 0 selects the NESL programs' own generator (experiments/programs/README.md:
 * hash(i) < 46337), so a baseline's result can be checked against the NESL program;
 * any other seed draws from splitmix64, whose i-th output is computed directly
 * (counter-based), so inputs can be generated in parallel. */
#ifndef SUITE_H
#define SUITE_H
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#endif
#include <inttypes.h>
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t suite_seed;

static inline uint64_t suite_mix(uint64_t z) { /* splitmix64's output function */
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
/* The NESL suite's hash(i): inside 32-bit NESL integers. */
static inline int32_t suite_nesl_hash(int64_t i) {
  int64_t a = ((i % 46337) * 7919 + 13) % 46337;
  return (int32_t)((a * a + 12345) % 46337);
}
/* The i-th input integer: hash(i) for seed 0, else below 2^31. */
static inline int32_t suite_int(int64_t i) {
  if (suite_seed == 0) return suite_nesl_hash(i);
  return (int32_t)(suite_mix(suite_seed + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ULL) >> 33);
}
/* The i-th input in [0, 1): hash(i) / 46337 for seed 0, as the NESL programs' gen(i). */
static inline double suite_unit(int64_t i) {
  if (suite_seed == 0) return suite_nesl_hash(i) / 46337.0;
  return (double)(suite_mix(suite_seed + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ULL) >> 11) *
         0x1.0p-53;
}

/* Parses `N [SEED]`; exits 2 with a usage line on anything else. */
static inline long suite_args(int argc, char **argv, const char *what) {
  char *end = NULL;
  long n = argc >= 2 ? strtol(argv[1], &end, 10) : -1;
  if (argc < 2 || argc > 3 || *end || n < 1) {
    fprintf(stderr, "usage: %s N [SEED]   (%s; SEED 0 = the NESL suite's inputs, default 1)\n",
            argv[0], what);
    exit(2);
  }
  suite_seed = 1;
  if (argc == 3) {
    suite_seed = strtoull(argv[2], &end, 10);
    if (*end || argv[2][0] == '-') {
      fprintf(stderr, "%s: bad seed '%s'\n", argv[0], argv[2]);
      exit(2);
    }
  }
  return n;
}

static inline void *suite_alloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1); /* C and CUDA host code alike */
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

/* n inputs in [lo, hi): lo + (hi - lo) * suite_unit(k * n + i), so streams k = 0, 1, ...
 * of one run do not overlap; filled in parallel (suite_unit is counter-based). */
static inline double *suite_units(long n, long k, double lo, double hi) {
  double *a = (double *)suite_alloc(sizeof(double) * (size_t)n);
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
  for (long i = 0; i < n; i++) a[i] = lo + (hi - lo) * suite_unit(k * n + i);
  return a;
}

static inline double suite_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static inline void suite_report_int(long long r, double seconds) {
  printf("result %lld\nseconds %.6f\n", r, seconds);
}
static inline void suite_report_float(double r, double seconds) {
  printf("result %.17g\nseconds %.6f\n", r, seconds);
}
/* The order-sensitive checksum of a sorted sequence: sum of s[i] * (i mod 7). */
static inline long long suite_sorted_checksum(const int32_t *s, long n) {
  long long c = 0;
  for (long i = 0; i < n; i++) c += (long long)s[i] * (i % 7);
  return c;
}
#endif
