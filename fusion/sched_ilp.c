/* sched_ilp.c — the reference ILP's schedulers. `ilp` solves it group by group
 * (decomp.c with ilp.c's group model). `ilp-mono` and `ilp-bare` build it for
 * the whole region (ilp.c), write it when --dump-ilp asks, solve it with GLPK
 * or CBC under the time limit (starting from the better greedy schedule) and
 * recover clusters from equal o; on expiry they keep the solver's best
 * feasible schedule, else the greedy one, and say which in the status. */
#include "fusion.h"

int fus_ilp_dump(const FusIlp *m, FusOptions *opt) {
  if (!opt->dump_ilp) return 0;
  /* One file per instance: FILE, then FILE.1, FILE.2, ... for later regions. */
  char *path = opt->dump_seq == 0 ? nz_xstrdup(opt->dump_ilp) : NULL;
  if (!path) {
    size_t len = strlen(opt->dump_ilp) + 16;
    path = nz_xmalloc(len);
    snprintf(path, len, "%s.%d", opt->dump_ilp, opt->dump_seq);
  }
  opt->dump_seq++;
  int r = fus_ilp_write_lp(m, path);
  free(path);
  if (r != 0) opt->dump_failed = 1;
  return r;
}

static void better_greedy(const FusGraph *g, FusOptions *opt, int *cl) {
  FusSchedule a = {0}, b = {0};
  a.cl = nz_xcalloc((size_t)(g->ninv ? g->ninv : 1), sizeof(int));
  b.cl = nz_xcalloc((size_t)(g->ninv ? g->ninv : 1), sizeof(int));
  fus_sched_greedy_down(g, opt, &a);
  fus_sched_greedy_up(g, opt, &b);
  FusCost ca, cb;
  fus_cost(g, a.cl, &ca);
  fus_cost(g, b.cl, &cb);
  memcpy(cl, ca.objective <= cb.objective ? a.cl : b.cl, sizeof(int) * (size_t)g->ninv);
  free(a.cl);
  free(b.cl);
}

static int solve(const FusGraph *g, FusOptions *opt, FusSchedule *out, int implied) {
  double t0 = nz_now();
  FusIlp *m = fus_ilp_build_variant(g, implied);
  out->build_seconds = nz_now() - t0;
  out->nvars = m->ncols;
  out->nconstraints = m->nrows;
  if (fus_ilp_dump(m, opt) != 0) {
    fus_ilp_free(m);
    return -1;
  }
  double *x = nz_xcalloc((size_t)(m->ncols ? m->ncols : 1), sizeof(double));
  /* The better greedy schedule: the solver's first incumbent (so a time limit
   * never leaves us worse than greedy) and the fallback if it finds nothing. */
  double t1 = nz_now();
  int *greedy = nz_xcalloc((size_t)(g->ninv ? g->ninv : 1), sizeof(int));
  better_greedy(g, opt, greedy);
  double *start = nz_xcalloc((size_t)(m->ncols ? m->ncols : 1), sizeof(double));
  fus_ilp_assign(m, g, greedy, start);
  FusIlpResult r;
  m->node_limit = opt->work_limit;
  fus_ilp_solve(opt->solver, m, opt->time_limit, start, x, &r);
  out->solve_seconds = nz_now() - t1;
  free(start);
  out->nodes = r.nodes;
  out->solver_objective = r.objective;
  int done = 0;
  if (r.has_solution) {
    /* Trust, but verify the solver's vector against our own rows. */
    NzBuf why = {0};
    if (!fus_ilp_feasible(m, x, NULL, &why)) nz_die("the ILP solver returned an infeasible solution: %s", why.s);
    nz_buf_free(&why);
    fus_ilp_recover(m, x, out->cl);
    /* ILP.md proves every feasible solution recovers a legal partition; a
     * failure here is a bug in the model, not a user error. */
    if (!fus_legal(g, out->cl, &why)) nz_die("ILP solution recovers an illegal partition: %s", why.s);
    nz_buf_free(&why);
    out->status = r.optimal ? FUS_ST_OPTIMAL : FUS_ST_FEASIBLE;
    done = 1;
  }
  if (!done) {
    /* No schedule from the solver in time: the better greedy one. */
    memcpy(out->cl, greedy, sizeof(int) * (size_t)g->ninv);
    out->status = FUS_ST_FALLBACK;
  }
  free(greedy);
  free(x);
  fus_ilp_free(m);
  return 0;
}

/* `ilp`: the reference model per group of the fusable graph (decomp.c). */
int fus_sched_ilp(const FusGraph *g, FusOptions *opt, FusSchedule *out) {
  return fus_sched_decomposed(g, opt, out, &fus_ilp_group);
}
/* `ilp-mono` and `ilp-bare`: the whole region in one model, with and without
 * the implied rows, to measure what the groups and the implied rows buy. */
int fus_sched_ilp_mono(const FusGraph *g, FusOptions *opt, FusSchedule *out) { return solve(g, opt, out, 1); }
int fus_sched_ilp_bare(const FusGraph *g, FusOptions *opt, FusSchedule *out) { return solve(g, opt, out, 0); }
