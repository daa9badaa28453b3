/* sched_none.c — the baseline schedule: no fusion, one kernel per invocation. */
#include "fusion.h"

int fus_sched_none(const FusGraph *g, FusOptions *opt, FusSchedule *out) {
  for (int i = 0; i < g->ninv; i++) out->cl[i] = i;
  out->status = FUS_ST_GREEDY;
  return 0;
}
