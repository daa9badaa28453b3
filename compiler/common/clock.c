/* clock.c — the one clock every timing in the compiler and its tools reads. */
#include "nessie.h"

#include <time.h>

double nz_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
