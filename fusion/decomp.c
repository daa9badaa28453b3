/* decomp.c — solving a fusion ILP group by group: the apart relation, the
 * components of the fusable graph, and the loop that solves each group with a
 * formulation's hooks (FusGroupModel) and merges groups whose optima form a
 * cycle together. Exact for any formulation whose group model is the whole
 * problem restricted to the group (ILP.md, "The decomposed variant"). */
#include "fusion.h"

/* By increasing j - i, so the pairs a closure step reads are final; each pair
 * is one pass of word-wide operations over the path matrix. */
char *fus_apart(const FusGraph *g) {
  int n = g->ninv, W = g->words;
  char *apart = nz_xcalloc((size_t)n * (size_t)n + 1, 1);
  uint64_t *ab = nz_xcalloc((size_t)n * (size_t)W + 1, sizeof(uint64_t)); /* apart as bits */
  uint64_t *to = nz_xcalloc((size_t)n * (size_t)W + 1, sizeof(uint64_t)); /* to[j] bit m: m ⇝ j */
#define ROW(M, r) ((M) + (size_t)(r) * (size_t)W)
#define SET(M, r, c) (ROW(M, r)[(c) >> 6] |= (uint64_t)1 << ((c)&63))
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (i != j && !fus_pair_ok(g, i, j, NULL)) apart[i * n + j] = 1, SET(ab, i, j);
      if (fus_path(g, i, j)) SET(to, j, i);
    }
  for (int gap = 2; gap < n; gap++)
    for (int i = 0; i + gap < n; i++) {
      int j = i + gap;
      if (apart[i * n + j] || !fus_path(g, i, j)) continue;
      const uint64_t *from_i = ROW(g->path, i), *to_j = ROW(to, j), *ai = ROW(ab, i), *aj = ROW(ab, j);
      int hit = 0;
      for (int w = 0; w < W && !hit; w++) hit = (from_i[w] & to_j[w] & (ai[w] | aj[w])) != 0;
      if (!hit) continue;
      apart[i * n + j] = apart[j * n + i] = 1;
      SET(ab, i, j);
      SET(ab, j, i);
    }
#undef ROW
#undef SET
  free(ab);
  free(to);
  return apart;
}

void fus_ilp_rep_rows(FusIlp *m, const FusGroup *G, const int *yc, int kbase) {
  int ng = G->ng, n = G->n;
  const int *mem = G->mem;
  for (int b = 0; b < ng; b++) {
    fus_ilp_row(m, nz_sprintf(m->arena, "rep_%d", mem[b]), 'E', 1);
    fus_ilp_term(m, kbase + b, 1);
    for (int a = 0; a < b; a++)
      if (yc[a * ng + b] >= 0) fus_ilp_term(m, yc[a * ng + b], 1);
  }
  char *used = nz_xcalloc((size_t)ng + 1, 1);
  int *set = nz_xmalloc(sizeof(int) * ((size_t)ng + 1));
  for (int a = 0; a < ng; a++) {
    memset(used, 0, (size_t)ng);
    for (int round = 0;; round++) {
      int ns = 0;
      for (int b = a + 1; b < ng; b++) {
        if (used[b] || yc[a * ng + b] < 0) continue;
        int ok = 1;
        for (int e = 0; e < ns && ok; e++) ok = G->apart[mem[set[e]] * n + mem[b]];
        if (ok) set[ns++] = b;
      }
      if (ns == 0) break;
      for (int e = 0; e < ns; e++) used[set[e]] = 1;
      if (ns < 2) continue;
      fus_ilp_row(m, nz_sprintf(m->arena, "rep_indep_%d_%d", mem[a], round), 'L', 0);
      fus_ilp_term(m, kbase + a, -1);
      for (int e = 0; e < ns; e++) fus_ilp_term(m, yc[a * ng + set[e]], 1);
    }
  }
  free(used);
  free(set);
}

void fus_ilp_read_rows(FusIlp *m, const FusGraph *g, FusWeights w, const int *lid,
                       int (*xcol)(const void *ctx, int i, int j), const void *ctx) {
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x = &g->var[v];
    if (!x->is_array) continue;
    for (int u = 0; u < x->nconsumers; u++) {
      int i = x->consumers[u];
      if (lid && lid[i] < 0) continue;
      int t = fus_ilp_col(m, nz_sprintf(m->arena, "t_%d_%d", i, v), 0, 1, fus_w_read(&w, v), 1, 't', i, v);
      fus_ilp_row(m, nz_sprintf(m->arena, "read_%d_%d", i, v), 'G', 1);
      fus_ilp_term(m, t, 1);
      for (int e = 0; e < u; e++)
        if (xcol(ctx, x->consumers[e], i) >= 0) fus_ilp_term(m, xcol(ctx, x->consumers[e], i), 1);
      if (x->producer >= 0 && xcol(ctx, x->producer, i) >= 0) fus_ilp_term(m, xcol(ctx, x->producer, i), 1);
    }
  }
}

void fus_greedy_best(const FusGraph *g, int *cl) {
  int n = g->ninv;
  int *alt = nz_xcalloc((size_t)(n ? n : 1), sizeof(int));
  fus_greedy(g, cl, 1, 0);
  fus_greedy(g, alt, 0, 0);
  FusCost a, b;
  fus_cost(g, cl, &a);
  fus_cost(g, alt, &b);
  if (b.objective < a.objective) memcpy(cl, alt, sizeof(int) * (size_t)n);
  free(alt);
}

/* The separation hook (FusIlp.separate): an integral solution whose clusters
 * form a cycle gets the formulation's cycle cut, during the search. */
typedef struct {
  const FusGroup *G;
  const FusGroupModel *gm;
  void *aux;
  const int *context;
  int *cl, *cin, *cout, *cuts;
  char *movable; /* the members (fus_improve), or NULL: no local search */
} Sep;

/* The whole partition of a group solution: members as recovered, the others
 * alone (context NULL) or in the fixed clusters context gives them. */
static void whole(const FusGroup *G, const FusGroupModel *gm, void *aux, const FusIlp *m, const double *x,
                  const int *context, int *cl) {
  gm->recover(G, aux, m, x, cl);
  fus_partition_canon(G->n, cl);
  if (context)
    for (int i = 0; i < G->n; i++)
      if (G->lid[i] < 0) cl[i] = G->n + context[i];
  fus_partition_canon(G->n, cl);
}

static int separate(void *ctx, FusIlp *m, const double *x) {
  Sep *S = ctx;
  whole(S->G, S->gm, S->aux, m, x, S->context, S->cl);
  int len = fus_contracted_cycle(S->G->g, S->cl, S->cin, S->cout);
  if (len == 0) return 0;
  int before = m->nrows, mode = m->lazy_mode;
  m->lazy_mode = 1;
  if (S->gm->cut(S->G, S->aux, m, S->cin, S->cout, len, *S->cuts)) (*S->cuts)++;
  m->lazy_mode = mode;
  return m->nrows - before;
}

/* The primal heuristic (FusIlp.heuristic): LP-guided merging. Pairs are
 * taken by decreasing relaxation value of "fused" (x, or 1 - f) and their
 * clusters merged whenever the merge is legal, starting from the members
 * alone (others alone or in context's clusters). Every merge saves a kernel,
 * the first priority of the cost, so a maximal partition in the order the
 * relaxation prefers is usually near the optimum; the proof of optimality
 * is much shorter once the search has it (measured: 0.3 s instead of 2.0 s
 * on a 45-invocation group given its optimum). A legal partition satisfies
 * every row of the model (ILP.md's proof), lazy rows and cuts included. */
typedef struct {
  int a, b;
  double v;
} Pair;

static int by_value(const void *p, const void *q) {
  const Pair *x = p, *y = q;
  return x->v > y->v ? -1 : x->v < y->v ? 1 : x->a != y->a ? x->a - y->a : x->b - y->b;
}

static int heuristic(void *ctx, const FusIlp *m, const double *x, double *out) {
  Sep *S = ctx;
  const FusGroup *G = S->G;
  int n = G->n;
  NZ_VEC(Pair) pairs = {0};
  for (int j = 0; j < m->ncols; j++) {
    double v = m->role[j] == 'x' ? x[j] : m->role[j] == 'f' ? 1 - x[j] : -1;
    if (v < 1e-6) continue;
    Pair p = {m->ra[j], m->rb[j], v};
    nz_vec_push(pairs, p);
  }
  qsort(pairs.v, (size_t)pairs.n, sizeof(Pair), by_value);
  int *cl = S->cl;
  for (int i = 0; i < n; i++) cl[i] = G->lid[i] >= 0 || !S->context ? i : n + S->context[i];
  for (int e = 0; e < pairs.n; e++) {
    int c1 = cl[pairs.v[e].a], c2 = cl[pairs.v[e].b];
    if (c1 == c2 || !fus_legal_merge(G->g, cl, c1, c2, NULL)) continue;
    for (int i = 0; i < n; i++)
      if (cl[i] == c2) cl[i] = c1;
  }
  nz_vec_free(pairs);
  if (S->movable) fus_improve(G->g, cl, S->movable, FUS_CHECKS_PER_SECOND / 100);
  S->gm->assign(G, S->aux, m, cl, out);
  /* Legal, so it satisfies the model's rows; but not necessarily an
   * objective cap (a repair's), which the full check covers. */
  return fus_ilp_feasible(m, out, NULL, NULL);
}

static void objective_row(FusIlp *m, const char *name, char sense, double rhs) {
  fus_ilp_row(m, name, sense, rhs);
  for (int j = 0; j < m->ncols; j++)
    if (m->obj[j] != 0) fus_ilp_term(m, j, m->obj[j]);
}

/* Solves the group G to optimality (returns 1), or returns 0 on time-out (or
 * infeasibility) with sol = the best legal partition seen (start if none).
 * sol and start are whole partitions, non-members alone or, with context, in
 * context's clusters (fixed). lb > 0 and ub >= 0 bound the group's objective
 * (rows). *objective gets the optimum. */
static int solve_group(const FusGroup *G, const FusGroupModel *gm, FusWeights w, FusOptions *opt, double deadline,
                       const int *start, const int *context, int *sol, double lb, double ub, double *objective,
                       FusSchedule *out) {
  const FusGraph *g = G->g;
  int n = G->n;
  void *aux = NULL;
  FusIlp *m = gm->build(G, w, &aux);
  int cuts = 0, proven = 0;
  /* A merged group's optimum is at least the sum of its parts' optima (they
   * are relaxations of it): the search may stop at a solution reaching it. */
  m->lower_bound = lb > 0 ? lb : 0;
  if (ub >= 0) objective_row(m, "objective_ub", 'L', ub);
  memcpy(sol, start, sizeof(int) * (size_t)n);
  int *cl = nz_xmalloc(sizeof(int) * (size_t)n);
  int *cin = nz_xmalloc(sizeof(int) * (size_t)n), *cout = nz_xmalloc(sizeof(int) * (size_t)n);
  int *scl = nz_xmalloc(sizeof(int) * (size_t)n), *scin = nz_xmalloc(sizeof(int) * (size_t)n),
      *scout = nz_xmalloc(sizeof(int) * (size_t)n);
  Sep S = {G, gm, aux, context, scl, scin, scout, &cuts, NULL};
  if (!getenv("NESSIE_DECOMP_NOLOCAL")) {
    S.movable = nz_xmalloc((size_t)n);
    for (int i = 0; i < n; i++) S.movable[i] = G->lid[i] >= 0;
  }
  if (gm->cut) {
    m->separate = separate;
    m->separate_ctx = &S;
  }
  if (!getenv("NESSIE_DECOMP_NOHEUR")) {
    m->heuristic = heuristic;
    m->heuristic_ctx = &S;
  }
  for (;;) {
    double left = deadline > 0 ? deadline - nz_now() : 0;
    if (deadline > 0 && left <= 0) break;
    /* CBC gets whatever is left, however little, as GLPK does: under a limit
     * it runs without preprocessing (where 2.10.8 crashed when a short limit
     * expired) and in a child process that is killed past the limit
     * (ilp_cbc.c), so a short limit costs at most a solve without answer. */
    double *x = nz_xcalloc((size_t)m->ncols + 1, sizeof(double));
    double *st = nz_xcalloc((size_t)m->ncols + 1, sizeof(double));
    gm->assign(G, aux, m, start, st);
    FusIlpResult r;
    m->node_limit = opt->work_limit;
    fus_ilp_solve(opt->solver, m, left, st, x, &r); /* (only if feasible: under the cap, no split forced pair) */
    free(st);
    if (r.nodes > 0) out->nodes += r.nodes;
    if (getenv("NESSIE_DECOMP_TRACE"))
      fprintf(stderr, "group of %d: %d cols %d rows, %s %.3f s, %ld nodes, %ld lazy rows added, obj %.0f\n", G->ng, m->ncols,
              m->nrows, r.optimal ? "optimal" : r.has_solution ? "feasible" : "none", left - (deadline - nz_now()), r.nodes,
              r.lazy_rows, r.objective);
    int again = 0;
    if (r.has_solution) {
      NzBuf why = {0};
      if (!fus_ilp_feasible(m, x, NULL, &why)) nz_die("the ILP solver returned an infeasible solution: %s", why.s);
      nz_buf_free(&why);
      whole(G, gm, aux, m, x, context, cl);
      int len = fus_contracted_cycle(g, cl, cin, cout);
      if (len == 0) {
        FusCost a, b;
        fus_cost(g, cl, &a);
        fus_cost(g, sol, &b);
        if (r.optimal || a.objective < b.objective) memcpy(sol, cl, sizeof(int) * (size_t)n);
        proven = r.optimal;
        *objective = r.objective;
      } else if (r.optimal) {
        if (!gm->cut) nz_die("%s: a cycle in a group's optimal solution", gm->name);
        if (gm->cut(G, aux, m, cin, cout, len, cuts))
          cuts++, again = 1;
        else if (!context)
          nz_die("%s: a cycle of single invocations", gm->name);
        /* else the fixed clusters alone close the cycle: no solution */
      }
    }
    free(x);
    if (!again) break;
  }
  out->nvars += m->ncols;
  out->nconstraints += m->nrows;
  fus_ilp_dump(m, opt);
  free(cl);
  free(cin);
  free(cout);
  free(scl), free(scin), free(scout), free(S.movable);
  if (gm->free_aux) gm->free_aux(aux);
  fus_ilp_free(m);
  return proven;
}

/* The part of cluster x (canonical cl) that the clusters x reaches can reach
 * in turn, over the region's edges with every other cluster taken as one
 * node: late[i] = 1 for those members. No such path runs from a late member
 * to an early one (its clusters would be reached from x, so the early one
 * late), so the early part takes every edge from x into a cluster that leads
 * back, and the late part every edge back. Returns how many are late.
 * head/next: x's and the others' member lists; seen: n + k flags. */
static int late_part(const FusGraph *g, const int *cl, int x, const int *head, const int *next, char *late, char *seen,
                     int *queue) {
  int n = g->ninv, qn = 0, nlate = 0;
  char *seen_cl = seen + n;
  for (int m = head[x]; m >= 0; m = next[m]) {
    const FusInv *v = &g->inv[m];
    for (int d = 0; d < v->ndefs; d++) {
      const FusVar *a = &g->var[v->defs[d]];
      for (int c = 0; c < a->nconsumers; c++) {
        int j = a->consumers[c], cj = cl[j];
        if (cj == x || seen_cl[cj]) continue;
        seen_cl[cj] = 1;
        for (int u = head[cj]; u >= 0; u = next[u]) queue[qn++] = u;
      }
    }
  }
  for (int q = 0; q < qn; q++) {
    const FusInv *v = &g->inv[queue[q]];
    for (int d = 0; d < v->ndefs; d++) {
      const FusVar *a = &g->var[v->defs[d]];
      for (int c = 0; c < a->nconsumers; c++) {
        int j = a->consumers[c], cj = cl[j];
        if (cj == x) {
          if (!late[j]) late[j] = 1, nlate++, queue[qn++] = j;
        } else if (!seen_cl[cj]) {
          seen_cl[cj] = 1;
          for (int u = head[cj]; u >= 0; u = next[u]) queue[qn++] = u;
        }
      }
    }
  }
  return nlate;
}

/* Makes a partition acyclic by splitting clusters on each contracted cycle
 * in turn. A cluster the cycle jumps through splits in two, its early and late
 * parts (late_part), which breaks every cycle that enters it late and leaves it
 * early; of the clusters on the cycle, the split that costs least is taken. When none splits so (every
 * member late), the first jumped one splits into single invocations, as
 * before: a split into singletons never makes a cycle (a cycle through parts
 * of one former cluster would run between single invocations of a DAG). Each
 * round adds a cluster, so this ends, with a legal partition when cl
 * satisfied the pair rule. Splitting whole clusters into singletons, the old
 * repair, lost several kernels a cycle: on the closing restricted master of
 * gen:kernels=300,chain=4,seed=1 a cyclic 7.59 million became worse than the
 * 8.11 million incumbent. */
void fus_split_cycles(const FusGraph *g, int *cl, int *cin, int *cout, const char *name) {
  fus_split_cycles_seen(g, cl, cin, cout, name, 1, NULL, NULL);
}

void fus_split_cycles_seen(const FusGraph *g, int *cl, int *cin, int *cout, const char *name, int halves,
                           void (*seen)(void *ctx, const int *cin, const int *cout, int len), void *ctx) {
  int n = g->ninv, len;
  int *head = nz_xmalloc(sizeof(int) * (size_t)(2 * n + 1)), *next = nz_xmalloc(sizeof(int) * (size_t)(n + 1));
  int *queue = nz_xmalloc(sizeof(int) * (size_t)(2 * n + 1)), *trial = nz_xmalloc(sizeof(int) * (size_t)(n + 1));
  int *best = nz_xmalloc(sizeof(int) * (size_t)(n + 1));
  char *late = nz_xmalloc((size_t)n + 1), *mark = nz_xmalloc((size_t)(2 * n) + 1);
  int k = fus_partition_canon(n, cl);
  while ((len = fus_contracted_cycle(g, cl, cin, cout)) > 0) {
    if (seen) seen(ctx, cin, cout, len);
    for (int c = 0; c < k; c++) head[c] = -1;
    for (int i = n - 1; i >= 0; i--) next[i] = head[cl[i]], head[cl[i]] = i;
    double best_obj = 0;
    int found = 0, first = -1;
    for (int e = 0; e < len; e++) {
      if (cin[e] == cout[e]) continue;
      int x = cl[cin[e]], size = 0;
      if (first < 0) first = x;
      if (!halves) break;
      memset(late, 0, (size_t)n);
      memset(mark, 0, (size_t)(n + k));
      int nlate = late_part(g, cl, x, head, next, late, mark, queue);
      for (int m = head[x]; m >= 0; m = next[m]) size++;
      if (nlate == 0 || nlate == size) continue;
      for (int i = 0; i < n; i++) trial[i] = late[i] ? k : cl[i];
      FusCost c;
      fus_cost(g, trial, &c);
      if (!found || c.objective < best_obj) best_obj = c.objective, found = 1, memcpy(best, trial, sizeof(int) * (size_t)n);
    }
    if (found) {
      memcpy(cl, best, sizeof(int) * (size_t)n);
    } else {
      if (first < 0) nz_die("%s: a cycle of single invocations", name);
      for (int i = 0, j = 0; i < n; i++)
        if (cl[i] == first) cl[i] = 2 * n + j++;
    }
    k = fus_partition_canon(n, cl);
  }
  free(head), free(next), free(queue), free(trial), free(best), free(late), free(mark);
}

void fus_repair(const FusGraph *g, int *cl, const char *movable, long budget, const char *name,
                void (*seen)(void *ctx, const int *cin, const int *cout, int len), void *ctx) {
  int n = g->ninv;
  int *alt = nz_xmalloc(sizeof(int) * (size_t)(n + 1));
  int *cin = nz_xmalloc(sizeof(int) * (size_t)(n + 1)), *cout = nz_xmalloc(sizeof(int) * (size_t)(n + 1));
  memcpy(alt, cl, sizeof(int) * (size_t)n);
  fus_split_cycles_seen(g, cl, cin, cout, name, 1, seen, ctx);
  fus_split_cycles_seen(g, alt, cin, cout, name, 0, NULL, NULL);
  if (budget > 0) { /* half each: the same checks in all as one polish */
    fus_improve(g, cl, movable, budget / 2);
    fus_improve(g, alt, movable, budget - budget / 2);
  }
  FusCost a, b;
  fus_cost(g, cl, &a);
  fus_cost(g, alt, &b);
  if (b.objective < a.objective) memcpy(cl, alt, sizeof(int) * (size_t)n);
  free(alt), free(cin), free(cout);
}

static int gsize(const int *grp, int n, int r) {
  int k = 0;
  for (int i = 0; i < n; i++) k += grp[i] == r;
  return k;
}

int fus_sched_decomposed(const FusGraph *g, FusOptions *opt, FusSchedule *out, const FusGroupModel *gm) {
  int n = g->ninv;
  if (n == 0) {
    out->status = FUS_ST_OPTIMAL;
    return 0;
  }
  double t0 = nz_now();
  char *apart = fus_apart(g);
  int *mem = nz_xmalloc(sizeof(int) * (size_t)n), *lid = nz_xmalloc(sizeof(int) * (size_t)n);
  int *partner = NULL, *forder = NULL, nforced = 0;
  if (gm->forced) {
    partner = nz_xmalloc(sizeof(int) * (size_t)n);
    forder = nz_xmalloc(sizeof(int) * (size_t)n);
    nforced = fus_forced_partners(g, apart, partner, forder);
  }
  FusGroup G = {g, n, apart, 0, mem, lid, partner};
  FusWeights w = fus_cost_weights(g);
  /* Groups start as the components of the fusable (not apart) graph. */
  int *grp = nz_xmalloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) grp[i] = i;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (!apart[i * n + j]) grp[fus_uf_find(grp, i)] = fus_uf_find(grp, j);
  for (int i = 0; i < n; i++) grp[i] = fus_uf_find(grp, i);
  out->build_seconds = nz_now() - t0;
  /* The better greedy schedule: every group's start (its restriction, others
   * alone, is legal) and the fallback. The forced pairs it splits are joined
   * (legal and cheaper), or the group models' fixed pairs would refuse it. */
  int *greedy = nz_xmalloc(sizeof(int) * (size_t)n);
  fus_greedy_best(g, greedy);
  if (partner) fus_forced_apply(n, partner, forder, nforced, greedy);
  double t1 = nz_now(), deadline = opt->time_limit > 0 ? t1 + opt->time_limit : 0;
  int *best = nz_xmalloc(sizeof(int) * (size_t)n);   /* per invocation: its group's solution */
  char *solved = nz_xcalloc((size_t)n, 1);           /* per group root: solved and not merged since */
  char *proven = nz_xcalloc((size_t)n, 1);           /* per group root */
  double *gopt = nz_xcalloc((size_t)n, sizeof(double)); /* per proven group root: its model's optimum */
  double *glb = nz_xcalloc((size_t)n, sizeof(double));  /* per group root: a lower bound, or 0 */
  int *start = nz_xmalloc(sizeof(int) * (size_t)n), *sol = nz_xmalloc(sizeof(int) * (size_t)n);
  int *comb = nz_xmalloc(sizeof(int) * (size_t)n);
  int *cin = nz_xmalloc(sizeof(int) * (size_t)n), *cout = nz_xmalloc(sizeof(int) * (size_t)n);
  int *first = nz_xmalloc(sizeof(int) * (size_t)n);
  int *cand = nz_xmalloc(sizeof(int) * (size_t)n);
  char *movable = nz_xmalloc((size_t)n);
  char *merged_group = nz_xcalloc((size_t)n, 1); /* per group root: made by merging */
  int *cin2 = nz_xmalloc(sizeof(int) * (size_t)n), *cout2 = nz_xmalloc(sizeof(int) * (size_t)n);
  int repairs = 0, ngroups = 0;
  for (int i = 0; i < n; i++) ngroups += grp[i] == i && gsize(grp, n, i) > 1;
  for (int i = 0; i < n; i++) best[i] = i;
  out->nodes = 0;
  int all_proven = 1, status;
  for (;;) {
    /* Solve every group not solved yet (singletons need no solve), the
     * smallest first: when time runs out, it runs out on the big ones. */
    int nq = 0;
    for (int r = 0; r < n; r++)
      if (grp[r] == r && !solved[r]) cand[nq++] = r;
    for (int a = 1; a < nq; a++) /* insertion sort by size */
      for (int b = a; b > 0 && gsize(grp, n, cand[b]) < gsize(grp, n, cand[b - 1]); b--) {
        int t = cand[b];
        cand[b] = cand[b - 1], cand[b - 1] = t;
      }
    for (int q = 0; q < nq; q++) {
      int r = cand[q];
      G.ng = 0;
      for (int i = 0; i < n; i++)
        if (grp[i] == r) lid[i] = G.ng, mem[G.ng++] = i;
        else lid[i] = -1;
      solved[r] = 1;
      if (G.ng == 1) {
        proven[r] = 1;
        best[r] = r;
        continue;
      }
      /* Start: greedy's clusters inside the group, others alone. */
      for (int i = 0; i < n; i++) start[i] = grp[i] == r ? n + greedy[i] : i;
      fus_partition_canon(n, start);
      if (!getenv("NESSIE_DECOMP_NOLOCAL")) {
        for (int i = 0; i < n; i++) movable[i] = grp[i] == r;
        fus_improve(g, start, movable, (long)(FUS_CHECKS_PER_SECOND * (opt->time_limit > 0 ? 0.01 * opt->time_limit : 0.1)));
      }
      if (merged_group[r]) {
        /* A merged group: its parts' optima together, with the cycles
         * between them repaired (fus_repair), is usually much closer to the
         * optimum than greedy. */
        for (int i = 0; i < n; i++) sol[i] = grp[i] == r ? n + best[i] : i;
        fus_repair(g, sol, NULL, 0, gm->name, NULL, NULL);
        FusCost a, b;
        fus_cost(g, sol, &a);
        fus_cost(g, start, &b);
        if (a.objective < b.objective) memcpy(start, sol, sizeof(int) * (size_t)n);
      }
      if (deadline > 0 && nz_now() >= deadline) {
        memcpy(sol, start, sizeof(int) * (size_t)n);
        proven[r] = 0;
      } else {
        proven[r] = (char)solve_group(&G, gm, w, opt, deadline, start, NULL, sol, glb[r], -1, &gopt[r], out);
      }
      /* Name each cluster by its first member: unique across groups. */
      for (int i = n - 1; i >= 0; i--) first[sol[i]] = i;
      for (int i = 0; i < n; i++)
        if (grp[i] == r) best[i] = first[sol[i]];
    }
    /* The union of the groups' partitions; cluster ids are unique across
     * groups because clusters never leave a group. */
    memcpy(comb, best, sizeof(int) * (size_t)n);
    fus_partition_canon(n, comb);
    int len = fus_contracted_cycle(g, comb, cin, cout);
    if (len == 0) break;
    /* A cycle through clusters of several groups: their separate optima
     * conflict. First try a repair: re-solve one group of the cycle with
     * every other group's clusters held fixed, asking for no more than its
     * own optimum. Ties are common; a group solution at the same objective
     * keeps the union's cost at the sum of the groups' optima, a lower bound
     * of the whole problem, so an acyclic union is then optimal. */
    if (gm->cut && repairs < 4 * ngroups && !getenv("NESSIE_DECOMP_NOREPAIR")) {
      int fixed_one = 0;
      int nr = 0;
      for (int e = 0; e < len; e++) {
        int r = grp[cin[e]], seen = 0;
        for (int q = 0; q < nr && !seen; q++) seen = cand[q] == r;
        if (!seen) cand[nr++] = r;
      }
      for (int a = 0; a < nr; a++) /* smallest group first */
        for (int b = a + 1; b < nr; b++)
          if (gsize(grp, n, cand[b]) < gsize(grp, n, cand[a])) {
            int t = cand[a];
            cand[a] = cand[b], cand[b] = t;
          }
      for (int q = 0; q < nr && !fixed_one; q++) {
        int r = cand[q];
        if (!proven[r] || gsize(grp, n, r) < 2) continue;
        if (deadline > 0 && nz_now() >= deadline) break;
        for (int i = 0; i < n; i++) start[i] = grp[i] == r ? n + i : comb[i];
        fus_partition_canon(n, start);
        if (fus_contracted_cycle(g, start, cin2, cout2)) continue; /* the others conflict among themselves */
        G.ng = 0;
        for (int i = 0; i < n; i++)
          if (grp[i] == r) lid[i] = G.ng, mem[G.ng++] = i;
          else lid[i] = -1;
        /* A repair is a gamble on a tie: proving that none exists can take
         * as long as solving the merged group, so it gets a small budget. */
        double obj = -1, cap = nz_now() + (opt->time_limit > 0 ? 0.05 * opt->time_limit : 0.5);
        /* Under a work limit alone the budget is counted too: 5 % of the
         * limit's nodes, and no clock. */
        FusOptions ropt = *opt;
        if (opt->work_limit > 0 && opt->time_limit <= 0) {
          cap = 0;
          ropt.work_limit = opt->work_limit / 20 > 0 ? opt->work_limit / 20 : 1;
        }
        int ok = solve_group(&G, gm, w, &ropt, deadline > 0 && (cap <= 0 || deadline < cap) ? deadline : cap, start,
                             comb, sol, gopt[r], gopt[r] + 0.5, &obj, out);
        opt->dump_seq = ropt.dump_seq, opt->dump_failed = ropt.dump_failed;
        repairs++;
        if (ok && obj <= gopt[r] + 0.5) {
          for (int i = n - 1; i >= 0; i--) first[sol[i]] = i;
          for (int i = 0; i < n; i++)
            if (grp[i] == r) best[i] = first[sol[i]];
          fixed_one = 1;
        }
      }
      if (fixed_one) continue;
    }
    /* Else solve them together. */
    int root = grp[cin[0]], merged = 0;
    /* Lower bound of the merged group: the parts' optima (each group's
     * objective counts only its own clusters, which never span groups). */
    double lb = 0;
    int exact = 1;
    for (int r = 0; r < n; r++) {
      if (grp[r] != r) continue;
      int in = r == root;
      for (int e = 0; e < len && !in; e++) in = grp[cin[e]] == r;
      if (!in) continue;
      int size = 0;
      for (int i = 0; i < n; i++) size += grp[i] == r;
      if (size == 1) continue; /* a singleton's kernel and arrays are constants outside every model */
      if (!proven[r]) exact = 0;
      lb += gopt[r];
    }
    for (int e = 0; e < len; e++) {
      int r = grp[cin[e]];
      if (r != root) {
        merged = 1;
        for (int i = 0; i < n; i++)
          if (grp[i] == r) grp[i] = root;
      }
    }
    if (!merged) nz_die("%s: a cycle within one group's solution", gm->name);
    solved[root] = 0;
    merged_group[root] = 1;
    glb[root] = exact ? lb : 0;
    if (deadline > 0 && nz_now() >= deadline) {
      all_proven = -1; /* out of time with a conflict: greedy */
      break;
    }
  }
  for (int r = 0; r < n && all_proven == 1; r++)
    if (grp[r] == r && !proven[r]) all_proven = 0;
  if (all_proven == 1) {
    memcpy(out->cl, comb, sizeof(int) * (size_t)n);
    status = FUS_ST_OPTIMAL;
  } else {
    /* Out of time: the groups' best partitions together, with any cycle
     * between them split away, if that beats greedy. */
    fus_repair(g, comb, NULL,
               getenv("NESSIE_DECOMP_NOLOCAL") ? 0 : (long)(FUS_CHECKS_PER_SECOND * (opt->time_limit > 0 ? 0.02 * opt->time_limit : 0.2)),
               gm->name, NULL, NULL);
    FusCost a, b;
    fus_cost(g, comb, &a);
    fus_cost(g, greedy, &b);
    if (fus_legal(g, comb, NULL) && a.objective < b.objective) {
      memcpy(out->cl, comb, sizeof(int) * (size_t)n);
      status = FUS_ST_FEASIBLE;
    } else {
      memcpy(out->cl, greedy, sizeof(int) * (size_t)n);
      status = FUS_ST_FALLBACK;
    }
  }
  out->solve_seconds = nz_now() - t1;
  out->status = (FusStatus)status;
  FusCost c;
  fus_cost(g, out->cl, &c);
  out->solver_objective = c.objective;
  free(grp), free(greedy), free(best), free(solved), free(proven), free(start), free(sol), free(comb);
  free(cin), free(cout), free(first), free(apart), free(partner), free(forder), free(mem), free(lid), free(gopt), free(glb);
  free(cand), free(cin2), free(cout2), free(movable), free(merged_group);
  return opt->dump_failed ? -1 : 0; /* --dump-ilp asked for a file that could not be written */
}
