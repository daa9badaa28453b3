/* ilp_lazy.c — the `ilp-lazy` variant: the same cost model and optimum as the
 * reference ILP, without ordering variables. Clusters are an equivalence
 * relation on the pairs that may share one (x_ij = 1: fused), kept transitive
 * by triangle rows; acyclicity of the contracted graph is enforced by convexity
 * rows (fused i ⇝ j pulls every middle m in) and, for the cycles those miss,
 * by cuts added when a solution's clusters contain one (re-solve until none).
 * Measured against the reference in ILP.md ("The lazy variant"). */
#include "fusion.h"

typedef struct {
  const FusGraph *g;
  int n;
  char *apart; /* n*n: never in one cluster (pair rule, closed through middles) */
  int *xcol;   /* n*n: column of x_ij, -1 if apart */
  int *partner, *order, nforced; /* fus_forced_partners */
} Lazy;

static int X(const Lazy *L, int i, int j) { return L->xcol[i * L->n + j]; }
static int xcol_of(const void *ctx, int i, int j) { return X(ctx, i, j); }

static FusIlp *build(Lazy *L) {
  const FusGraph *g = L->g;
  int n = L->n;
  FusIlp *m = fus_ilp_new(n);
  NzArena *A = m->arena;
  FusWeights w = fus_cost_weights(g);
  for (int i = 0; i < n * n; i++) L->xcol[i] = -1;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (!L->apart[i * n + j])
        L->xcol[i * n + j] = L->xcol[j * n + i] = fus_ilp_col(m, nz_sprintf(A, "x_%d_%d", i, j), 0, 1, 0, 1, 'x', i, j);
  /* Pairs every optimal partition fuses (ILP.md, "Forced pairs"): fixed. */
  int *partner = L->partner = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  L->order = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  L->nforced = fus_forced_partners(g, L->apart, partner, L->order);
  for (int i = 0; i < n; i++)
    if (partner[i] >= 0 && X(L, i, partner[i]) >= 0) m->lb[X(L, i, partner[i])] = 1;
  /* Transitivity: x_ab + x_bc - x_ac <= 1 for each side of each triangle with
   * two fusable sides (an apart third side makes it x_ab + x_bc <= 1). */
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      for (int k = j + 1; k < n; k++) {
        int side[3][2] = {{i, j}, {j, k}, {i, k}};
        for (int t = 0; t < 3; t++) {
          int a = X(L, side[(t + 1) % 3][0], side[(t + 1) % 3][1]);
          int b = X(L, side[(t + 2) % 3][0], side[(t + 2) % 3][1]);
          int c = X(L, side[t][0], side[t][1]);
          if (a < 0 || b < 0) continue;
          fus_ilp_row(m, nz_sprintf(A, "trans_%d_%d_%d_%d", i, j, k, t), 'L', 1);
          fus_ilp_term(m, a, 1), fus_ilp_term(m, b, 1);
          if (c >= 0) fus_ilp_term(m, c, -1);
        }
      }
  /* Convexity: fused i ⇝ j fuses every m between them. */
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      if (X(L, i, j) < 0 || !fus_path(g, i, j)) continue;
      for (int k = i + 1; k < j; k++)
        if (fus_path(g, i, k) && fus_path(g, k, j)) {
          fus_ilp_row(m, nz_sprintf(A, "convex_a_%d_%d_%d", i, k, j), 'L', 0);
          fus_ilp_term(m, X(L, i, j), 1), fus_ilp_term(m, X(L, i, k), -1);
          fus_ilp_row(m, nz_sprintf(A, "convex_b_%d_%d_%d", i, k, j), 'L', 0);
          fus_ilp_term(m, X(L, i, j), 1), fus_ilp_term(m, X(L, k, j), -1);
        }
    }
  /* The cost rows of the reference with f = 1 - x (ILP.md). */
  int kbase = m->ncols;
  for (int j = 0; j < n; j++) {
    int k = fus_ilp_col(m, nz_sprintf(A, "k_%d", j), 0, 1, fus_w_kernel(&w, j), 1, 'k', j, -1);
    fus_ilp_row(m, nz_sprintf(A, "kernel_%d", j), 'G', 1);
    fus_ilp_term(m, k, 1);
    for (int i = 0; i < j; i++)
      if (X(L, i, j) >= 0) fus_ilp_term(m, X(L, i, j), 1);
  }
  /* kernels_clique: a greedy set of pairwise-apart invocations needs as many
   * kernels (the reference's implied row). */
  if (n > 1) {
    int *all = nz_xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) all[i] = i;
    int size = fus_apart_clique(g, L->apart, all, n);
    free(all);
    if (size > 1) {
      fus_ilp_row(m, "kernels_clique", 'G', size);
      for (int j = 0; j < n; j++) fus_ilp_term(m, kbase + j, 1);
    }
  }
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x = &g->var[v];
    if (!x->is_array || x->producer < 0 || (!x->live_out && x->nconsumers == 0)) continue;
    int c = fus_ilp_col(m, nz_sprintf(A, "c_%d", v), x->live_out ? 1 : 0, 1, fus_w_array(&w, v), 1, 'c', v, -1);
    if (x->live_out) continue;
    for (int u = 0; u < x->nconsumers; u++) {
      int j = x->consumers[u];
      fus_ilp_row(m, nz_sprintf(A, "array_%d_%d", v, j), 'G', 1);
      fus_ilp_term(m, c, 1);
      if (X(L, x->producer, j) >= 0) fus_ilp_term(m, X(L, x->producer, j), 1);
    }
  }
  fus_ilp_read_rows(m, g, w, NULL, xcol_of, L);
  return m;
}

static void recover(const Lazy *L, const FusIlp *m, const double *x, int *cl) {
  for (int i = 0; i < L->n; i++) cl[i] = i;
  for (int j = 0; j < m->ncols; j++)
    if (m->role[j] == 'x' && x[j] > 0.5) cl[fus_uf_find(cl, m->ra[j])] = fus_uf_find(cl, m->rb[j]);
  for (int i = 0; i < L->n; i++) cl[i] = fus_uf_find(cl, i);
  fus_partition_canon(L->n, cl);
}

/* If the contracted graph of cl (canonical) has a cycle, adds the cut "not all
 * of the fused pairs that carry it" and returns 1. The cycle enters each of
 * its clusters at one invocation and leaves from another (or the same); the
 * pairs (enter, leave) are fused in this solution, and any partition fusing
 * all of them has the same cycle, so the cut removes no legal partition. */
static int add_cycle_cut(const Lazy *L, FusIlp *m, const int *cl, int ncut) {
  int n = L->n, k = 0;
  for (int i = 0; i < n; i++)
    if (cl[i] + 1 > k) k = cl[i] + 1;
  int *cin = nz_xmalloc(sizeof(int) * ((size_t)k + 1)), *cout = nz_xmalloc(sizeof(int) * ((size_t)k + 1));
  int len = fus_contracted_cycle(L->g, cl, cin, cout);
  if (len > 0) {
    NZ_VEC(int) cols = {0};
    for (int e = 0; e < len; e++) {
      int a = cin[e], b = cout[e];
      if (a == b) continue;
      int col = X(L, a < b ? a : b, a < b ? b : a);
      if (col < 0) nz_die("ilp-lazy: a cycle through an apart pair");
      nz_vec_push(cols, col);
    }
    if (cols.n == 0) nz_die("ilp-lazy: a cycle of single invocations");
    fus_ilp_row(m, nz_sprintf(m->arena, "cycle_cut_%d", ncut), 'L', cols.n - 1);
    for (int e = 0; e < cols.n; e++) fus_ilp_term(m, cols.v[e], 1);
    nz_vec_free(cols);
  }
  free(cin);
  free(cout);
  return len > 0;
}

int fus_sched_ilp_lazy(const FusGraph *g, FusOptions *opt, FusSchedule *out) {
  int n = g->ninv;
  double t0 = nz_now();
  Lazy L = {g, n, fus_apart(g), nz_xmalloc(sizeof(int) * ((size_t)n * (size_t)n + 1)), NULL, NULL, 0};
  FusIlp *m = build(&L);
  out->build_seconds = nz_now() - t0;
  /* Start from the better greedy schedule, which is legal, with the forced
   * pairs it splits joined (legal and cheaper), hence feasible. */
  int *greedy = nz_xcalloc((size_t)(n ? n : 1), sizeof(int));
  fus_greedy_best(g, greedy);
  fus_forced_apply(n, L.partner, L.order, L.nforced, greedy);
  double t1 = nz_now();
  int status = -1, cuts = 0;
  long nodes = 0;
  double objective = 0;
  for (;;) {
    double left = opt->time_limit > 0 ? opt->time_limit - (nz_now() - t1) : 0;
    if (opt->time_limit > 0 && left <= 0) break;
    double *x = nz_xcalloc((size_t)(m->ncols ? m->ncols : 1), sizeof(double));
    double *start = nz_xcalloc((size_t)(m->ncols ? m->ncols : 1), sizeof(double));
    fus_ilp_assign(m, g, greedy, start);
    FusIlpResult r;
    m->node_limit = opt->work_limit;
    fus_ilp_solve(opt->solver, m, left, start, x, &r); /* not given if it splits a forced pair */
    free(start);
    if (r.nodes > 0) nodes += r.nodes;
    int done = 1;
    if (r.has_solution) {
      NzBuf why = {0};
      if (!fus_ilp_feasible(m, x, NULL, &why)) nz_die("the ILP solver returned an infeasible solution: %s", why.s);
      nz_buf_free(&why);
      recover(&L, m, x, out->cl);
      int legal = fus_legal(g, out->cl, NULL);
      FusCost got, start_cost;
      fus_cost(g, out->cl, &got);
      fus_cost(g, greedy, &start_cost);
      if (legal && !r.optimal && got.objective > start_cost.objective) {
        status = -1; /* expired (without the greedy start) on a worse schedule: greedy it is */
      } else if (legal) {
        status = r.optimal ? FUS_ST_OPTIMAL : FUS_ST_FEASIBLE;
        objective = r.objective;
      } else if (r.optimal && add_cycle_cut(&L, m, out->cl, cuts)) {
        cuts++;
        done = 0;
      } else if (!r.optimal) {
        status = -1; /* time ran out on an instance still missing cuts */
      } else {
        nz_die("ilp-lazy: an illegal partition without a cycle");
      }
    }
    free(x);
    if (done) break;
  }
  out->solve_seconds = nz_now() - t1;
  if (status < 0) {
    memcpy(out->cl, greedy, sizeof(int) * (size_t)n);
    status = FUS_ST_FALLBACK;
  }
  out->status = (FusStatus)status;
  out->nvars = m->ncols;
  out->nconstraints = m->nrows;
  out->nodes = nodes;
  out->solver_objective = objective;
  int rc = 0;
  rc = fus_ilp_dump(m, opt); /* the final instance, cuts included */
  free(greedy);
  free(L.apart);
  free(L.xcol);
  free(L.partner), free(L.order);
  fus_ilp_free(m);
  return rc;
}
