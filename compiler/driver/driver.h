/* driver.h — subcommands of the nessie driver, one file each. Prefix: drv_. */
#ifndef DRIVER_H
#define DRIVER_H
#include "nessie.h"
#include "lcu.h"

/* Each takes argv starting at the subcommand name and returns an exit status. */
int drv_cmd_lcu(int argc, char **argv);  /* cmd_lcu.c: lcu check|run|fuse */
int drv_cmd_nesl(int argc, char **argv); /* cmd_nesl.c: check, run, emit, build */

/* fuse.c: the fusion pipeline shared by `lcu fuse`, `lcu run --scheduler`. */
#include "fusion.h"
typedef struct {
  const char *scheduler; /* a name in fus_schedulers */
  FusOptions opt;
  const char *dot_dir; /* --dot=DIR or NULL */
  int png;
  double dot_limit; /* --dot-time-limit=SEC, per picture */
  int time_given;   /* --time-limit was given (else --work-limit turns it off) */
} DrvFuse;
void drv_fuse_defaults(DrvFuse *o);
int drv_fuse_option(DrvFuse *o, const char *arg); /* 1 taken, 0 not ours, -1 bad */
/* Fuses every region of a checked program in place; appends the per-region
 * report (as // comments) to report if non-NULL. Returns an exit status. */
int drv_fuse(LcuProgram *p, DrvFuse *o, NzBuf *report);

#endif
