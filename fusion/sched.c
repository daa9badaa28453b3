/* sched.c — the scheduler interface: the table of strategies by name, and the
 * driver that runs one, puts its partition in canonical form and verifies it
 * with the legality checker. Adding a strategy: one file defining a FusSchedFn,
 * its prototype in fusion.h, and one line in the table below. */
#include "fusion.h"

const FusScheduler fus_schedulers[] = {
    {"none", fus_sched_none, "no fusion: every invocation is its own kernel (the baseline)"},
    {"greedy-down", fus_sched_greedy_down, "top-down greedy: from producers, fuse consumers breadth-first"},
    {"greedy-up", fus_sched_greedy_up, "bottom-up greedy: from the leaves, fuse producers"},
    {"ilp", fus_sched_ilp, "the reference ILP of paper §8 (fusion/ILP.md), solved per group by GLPK or CBC"},
    {"ilp-mono", fus_sched_ilp_mono, "the reference ILP for the whole region at once (to measure what groups buy)"},
    {"ilp-bare", fus_sched_ilp_bare, "ilp-mono without its implied rows (to measure what they buy)"},
    {"ilp-lazy", fus_sched_ilp_lazy, "same optimum, no ordering variables: transitivity rows, cycle cuts added lazily"},
    {"ilp-decomp", fus_sched_ilp_decomp, "ilp-lazy per may-fuse component: lazy rows and cuts in the search, conflicts repaired or merged"},
    {"ilp-cg", fus_sched_ilp_cg, "set partitioning over legal clusters by branch-and-price (columns priced, CLP LPs)"},
    {"exhaustive", fus_sched_exhaustive, "every legal partition, for regions of at most 12 invocations"},
    {"random", fus_sched_random, "a random legal partition (--partition-seed=S), to validate cost models"},
    {NULL, NULL, NULL},
};

void fus_schedulers_help(FILE *f) {
  fputs("schedulers:\n", f);
  for (const FusScheduler *s = fus_schedulers; s->name; s++) fprintf(f, "  %-12s %s\n", s->name, s->help);
}

const FusScheduler *fus_scheduler_find(const char *name) {
  for (const FusScheduler *s = fus_schedulers; s->name; s++)
    if (strcmp(s->name, name) == 0) return s;
  return NULL;
}

const char *fus_status_name(FusStatus s) {
  switch (s) {
  case FUS_ST_OPTIMAL: return "optimal";
  case FUS_ST_FEASIBLE: return "feasible";
  case FUS_ST_FALLBACK: return "time-limit fallback";
  case FUS_ST_GREEDY: return "greedy";
  }
  nz_die("fus_status_name: bad status %d", (int)s);
}

void fus_options_default(FusOptions *o) {
  memset(o, 0, sizeof *o);
  o->solver = FUS_GLPK;
  o->time_limit = 10;
}

void fus_schedule_free(FusSchedule *s) {
  free(s->cl);
  s->cl = NULL;
}

int fus_schedule(const FusGraph *g, const char *name, FusOptions *opt, FusSchedule *out) {
  const FusScheduler *s = fus_scheduler_find(name);
  if (!s) nz_die("fus_schedule: no scheduler named %s", name);
  memset(out, 0, sizeof *out);
  out->n = g->ninv;
  out->cl = nz_xcalloc((size_t)(g->ninv ? g->ninv : 1), sizeof(int));
  out->status = FUS_ST_GREEDY;
  out->solve_seconds = -1;
  out->nodes = -1;
  double t0 = nz_now();
  if (s->run(g, opt, out) != 0) {
    fus_schedule_free(out);
    return -1;
  }
  if (out->solve_seconds < 0) out->solve_seconds = nz_now() - t0;
  fus_partition_canon(g->ninv, out->cl);
  NzBuf why = {0};
  if (!fus_legal(g, out->cl, &why)) nz_die("scheduler %s produced an illegal partition: %s", name, why.s);
  nz_buf_free(&why);
  return 0;
}
