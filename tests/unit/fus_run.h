/* fus_run.h — helpers shared by the unit tests of the exact schedulers: run a
 * scheduler and keep its cost only when it claims a proven optimum, and the
 * region whose components' separate optima form a cycle together. */
#ifndef FUS_RUN_H
#define FUS_RUN_H

#include <stdio.h>

#include "fusion.h"

/* Options for the tests: bounded by work, never by seconds (no time limit),
 * so that what a test proves is the same on any machine under any load. */
#define FUS_TEST_WORK 100000000LL
static inline void fus_test_options(FusOptions *o) {
  fus_options_default(o);
  o->time_limit = 0;
  o->work_limit = FUS_TEST_WORK;
}

/* Runs sched; returns its cost if proven optimal, else -1 (printed). The
 * solver's own objective must equal the cost model's. Adds the solve time to
 * *secs. */
static inline double fus_run_proven(const FusGraph *g, const char *sched, FusSolver s, double *secs) {
  FusOptions o;
  fus_test_options(&o);
  o.solver = s;
  FusSchedule sc;
  if (fus_schedule(g, sched, &o, &sc) != 0) return -1;
  FusCost c;
  fus_cost(g, sc.cl, &c);
  double r = sc.status == FUS_ST_OPTIMAL ? c.objective : -1;
  if (sc.solver_objective != c.objective) r = -1;
  if (r < 0)
    printf("  %s (%s): status %s, cost %.0f\n", sched, s == FUS_CBC ? "cbc" : "glpk", fus_status_name(sc.status),
           c.objective);
  *secs += sc.solve_seconds;
  fus_schedule_free(&sc);
  return r;
}

/* a, d fuse only with each other (REDUCE over n), b, c likewise (over m);
 * a -> b and c -> d are incompatible, so fusing both pairs makes the cycle
 * {a,d} -> {b,c} -> {a,d}: the optimum fuses one pair (3 kernels). */
#define FUS_CROSS_REGION                                                                                              \
  "a REDUCE(n): x* -> $s\n"                                                                                          \
  "c REDUCE(m): y* -> $t\n"                                                                                          \
  "b REDUCE(m): y*, $s -> $u\n"                                                                                      \
  "d REDUCE(n): x*, $t -> $v\n"                                                                                      \
  "out $u $v\n"

#endif
