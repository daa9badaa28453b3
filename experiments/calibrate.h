/* calibrate.h — `nessie-bench --calibrate` (calibrate.c): fits the sized cost
 * model's weights (fusion.h, FusCostModel) on this machine. */
#ifndef CALIBRATE_H
#define CALIBRATE_H
#include "nessie.h"

typedef struct {
  const char *nessie; /* the compiler to build the calibration program with */
  const char *out;    /* cost file, or NULL for stdout */
  long long sizes[16];
  int nsizes;
  int reps;            /* rounds; each runs every size once */
  double default_size; /* written into the cost file */
} CalibrateOpts;

int calibrate_main(const CalibrateOpts *o); /* an exit status */
#endif
