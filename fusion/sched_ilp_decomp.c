/* sched_ilp_decomp.c — the `ilp-decomp` scheduler: ilp-lazy's model solved per
 * component of the "may share a cluster" graph, merging components only when
 * their separate optima together form a cycle. Exact: each solve is a
 * relaxation of the whole problem restricted to its group (ILP.md, "The
 * decomposed variant"), and the union of their optima is checked legal. */
#include "fusion.h"

#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
  const FusGraph *g;
  int n;
  char *apart; /* n*n: never in one cluster (pair rule, closed through middles) */
  /* The current group: ng members (global ids, increasing), lid[i] its local
   * index or -1, xcol[a*ng+b] the column of x for local a, b or -1. */
  int ng;
  int *mem, *lid, *xcol;
  /* Representative columns y_ab (local a < b) of the current model: col[e]
   * with its ends. They carry role 'x' (see build), so ya/yb say which. */
  NZ_VEC(int) ycol;
  NZ_VEC(int) ya;
  NZ_VEC(int) yb;
} Dec;

static int X(const Dec *D, int i, int j) {
  int a = D->lid[i], b = D->lid[j];
  return a < 0 || b < 0 || a == b ? -1 : D->xcol[a * D->ng + b];
}

/* As ilp_lazy.c: the pair rule, closed under "i ⇝ m ⇝ j with m apart from i
 * or j" by increasing j - i. */
static void compute_apart(Dec *D) {
  const FusGraph *g = D->g;
  int n = D->n;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) D->apart[i * n + j] = (char)(i != j && !fus_pair_ok(g, i, j, NULL));
  for (int gap = 2; gap < n; gap++)
    for (int i = 0; i + gap < n; i++) {
      int j = i + gap;
      if (D->apart[i * n + j] || !fus_path(g, i, j)) continue;
      for (int m = i + 1; m < j; m++)
        if (fus_path(g, i, m) && fus_path(g, m, j) && (D->apart[i * n + m] || D->apart[m * n + j])) {
          D->apart[i * n + j] = D->apart[j * n + i] = 1;
          break;
        }
    }
}

/* The column of k_i in m (build makes one per member). */
static int kcol(const FusIlp *m, int i) {
  for (int j = 0; j < m->ncols; j++)
    if (m->role[j] == 'k' && m->ra[j] == i) return j;
  nz_die("ilp-decomp: no k column for %d", i);
}

static int find(int *parent, int a) {
  while (parent[a] != a) a = parent[a] = parent[parent[a]];
  return a;
}

/* ilp-lazy's model for the group's invocations; every other invocation is a
 * singleton, so its kernel, its arrays and its reads are constants and left
 * out. Column roles and ids are global, so fus_ilp_assign works unchanged. */
static FusIlp *build(Dec *D, FusWeights w) {
  const FusGraph *g = D->g;
  int n = D->n, ng = D->ng;
  const int *mem = D->mem;
  FusIlp *m = fus_ilp_new(n);
  NzArena *A = m->arena;
  for (int a = 0; a < ng * ng; a++) D->xcol[a] = -1;
  for (int a = 0; a < ng; a++)
    for (int b = a + 1; b < ng; b++)
      if (!D->apart[mem[a] * n + mem[b]])
        D->xcol[a * ng + b] = D->xcol[b * ng + a] =
            fus_ilp_col(m, nz_sprintf(A, "x_%d_%d", mem[a], mem[b]), 0, 1, 0, 1, 'x', mem[a], mem[b]);
  for (int a = 0; a < ng; a++)
    for (int b = a + 1; b < ng; b++)
      for (int c = b + 1; c < ng; c++) {
        int side[3][2] = {{a, b}, {b, c}, {a, c}};
        for (int t = 0; t < 3; t++) {
          int p = D->xcol[side[(t + 1) % 3][0] * ng + side[(t + 1) % 3][1]];
          int q = D->xcol[side[(t + 2) % 3][0] * ng + side[(t + 2) % 3][1]];
          int r = D->xcol[side[t][0] * ng + side[t][1]];
          if (p < 0 || q < 0) continue;
          fus_ilp_row(m, nz_sprintf(A, "trans_%d_%d_%d_%d", mem[a], mem[b], mem[c], t), 'L', 1);
          fus_ilp_term(m, p, 1), fus_ilp_term(m, q, 1);
          if (r >= 0) fus_ilp_term(m, r, -1);
        }
      }
  /* Convexity. A middle of a fusable dependent pair is fusable with both ends
   * (else the pair would be apart), so it is in the group. */
  for (int a = 0; a < ng; a++)
    for (int b = a + 1; b < ng; b++) {
      int i = mem[a], j = mem[b], xij = D->xcol[a * ng + b];
      if (xij < 0 || !fus_path(g, i, j)) continue;
      for (int k = i + 1; k < j; k++)
        if (fus_path(g, i, k) && fus_path(g, k, j)) {
          if (X(D, i, k) < 0 || X(D, k, j) < 0) nz_die("ilp-decomp: a middle outside its group");
          fus_ilp_row(m, nz_sprintf(A, "convex_a_%d_%d_%d", i, k, j), 'L', 0);
          fus_ilp_term(m, xij, 1), fus_ilp_term(m, X(D, i, k), -1);
          fus_ilp_row(m, nz_sprintf(A, "convex_b_%d_%d_%d", i, k, j), 'L', 0);
          fus_ilp_term(m, xij, 1), fus_ilp_term(m, X(D, k, j), -1);
        }
    }
  int kbase = m->ncols;
  for (int b = 0; b < ng; b++) {
    int k = fus_ilp_col(m, nz_sprintf(A, "k_%d", mem[b]), 0, 1, w.kernels, 1, 'k', mem[b], -1);
    fus_ilp_row(m, nz_sprintf(A, "kernel_%d", mem[b]), 'G', 1);
    fus_ilp_term(m, k, 1);
    for (int a = 0; a < b; a++)
      if (D->xcol[a * ng + b] >= 0) fus_ilp_term(m, D->xcol[a * ng + b], 1);
  }
  /* Representatives: y_ab = "a is the first member of b's cluster", i.e.
   * x_ab AND k_a. Exactly one per invocation (itself when k_b), a
   * representative only represents fusable pairs, and never two invocations
   * that are apart from each other. The kernel row above is implied for
   * integers; these make the relaxation count kernels much more tightly.
   * y columns get role 'x' so that fus_ilp_assign and recover handle them
   * (y = 1 implies x = 1, so recover's union is unchanged); solve_group
   * then corrects their start values to x AND k. */
  D->ycol.n = D->ya.n = D->yb.n = 0;
  {
    int *yc = nz_xmalloc(sizeof(int) * (size_t)ng * (size_t)ng);
    for (int a = 0; a < ng * ng; a++) yc[a] = -1;
    for (int b = 0; b < ng; b++)
      for (int a = 0; a < b; a++) {
        int xab = D->xcol[a * ng + b];
        if (xab < 0) continue;
        int y = fus_ilp_col(m, nz_sprintf(A, "y_%d_%d", mem[a], mem[b]), 0, 1, 0, 1, 'x', mem[a], mem[b]);
        yc[a * ng + b] = y;
        nz_vec_push(D->ycol, y);
        nz_vec_push(D->ya, a);
        nz_vec_push(D->yb, b);
        fus_ilp_row(m, nz_sprintf(A, "rep_x_%d_%d", mem[a], mem[b]), 'L', 0);
        fus_ilp_term(m, y, 1), fus_ilp_term(m, xab, -1);
        fus_ilp_row(m, nz_sprintf(A, "rep_k_%d_%d", mem[a], mem[b]), 'L', 0);
        fus_ilp_term(m, y, 1), fus_ilp_term(m, kbase + a, -1);
        fus_ilp_row(m, nz_sprintf(A, "rep_and_%d_%d", mem[a], mem[b]), 'G', -1);
        fus_ilp_term(m, y, 1), fus_ilp_term(m, xab, -1), fus_ilp_term(m, kbase + a, -1);
        fus_ilp_row(m, nz_sprintf(A, "not_first_%d_%d", mem[a], mem[b]), 'L', 1);
        fus_ilp_term(m, kbase + b, 1), fus_ilp_term(m, xab, 1);
      }
    for (int b = 0; b < ng; b++) {
      fus_ilp_row(m, nz_sprintf(A, "rep_%d", mem[b]), 'E', 1);
      fus_ilp_term(m, kbase + b, 1);
      for (int a = 0; a < b; a++)
        if (yc[a * ng + b] >= 0) fus_ilp_term(m, yc[a * ng + b], 1);
    }
    /* rep_indep: the later fusable partners of a, split greedily into sets of
     * pairwise apart ones; a represents at most one of each set. */
    char *used = nz_xcalloc((size_t)ng, 1);
    int *set = nz_xmalloc(sizeof(int) * (size_t)ng);
    for (int a = 0; a < ng; a++) {
      memset(used, 0, (size_t)ng);
      for (int round = 0;; round++) {
        int ns = 0;
        for (int b = a + 1; b < ng; b++) {
          if (used[b] || yc[a * ng + b] < 0) continue;
          int ok = 1;
          for (int e = 0; e < ns && ok; e++) ok = D->xcol[set[e] * ng + b] < 0;
          if (ok) set[ns++] = b;
        }
        if (ns == 0) break;
        for (int e = 0; e < ns; e++) used[set[e]] = 1;
        if (ns < 2) continue;
        fus_ilp_row(m, nz_sprintf(A, "rep_indep_%d_%d", mem[a], round), 'L', 0);
        fus_ilp_term(m, kbase + a, -1);
        for (int e = 0; e < ns; e++) fus_ilp_term(m, yc[a * ng + set[e]], 1);
      }
    }
    free(used);
    free(set);
    free(yc);
  }
  /* kernels_clique within the group (greedy, most apart partners first). */
  if (ng > 1) {
    char *in = nz_xcalloc((size_t)ng, 1);
    int *deg = nz_xcalloc((size_t)ng, sizeof(int));
    for (int a = 0; a < ng; a++)
      for (int b = 0; b < ng; b++) deg[a] += a != b && D->xcol[a * ng + b] < 0;
    int size = 0;
    for (;;) {
      int best = -1;
      for (int a = 0; a < ng; a++) {
        if (in[a]) continue;
        int ok = 1;
        for (int b = 0; b < ng && ok; b++)
          if (in[b] && D->xcol[a * ng + b] >= 0) ok = 0;
        if (ok && (best < 0 || deg[a] > deg[best])) best = a;
      }
      if (best < 0) break;
      in[best] = 1;
      size++;
    }
    if (size > 1) {
      fus_ilp_row(m, "kernels_clique", 'G', size);
      for (int b = 0; b < ng; b++) fus_ilp_term(m, kbase + b, 1);
    }
    free(in);
    free(deg);
  }
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x = &g->var[v];
    if (!x->is_array || x->producer < 0 || D->lid[x->producer] < 0 || x->live_out || x->nconsumers == 0) continue;
    int c = fus_ilp_col(m, nz_sprintf(A, "c_%d", v), 0, 1, w.arrays, 1, 'c', v, -1);
    for (int u = 0; u < x->nconsumers; u++) {
      int j = x->consumers[u];
      fus_ilp_row(m, nz_sprintf(A, "array_%d_%d", v, j), 'G', 1);
      fus_ilp_term(m, c, 1);
      if (X(D, x->producer, j) >= 0) fus_ilp_term(m, X(D, x->producer, j), 1);
    }
  }
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x = &g->var[v];
    if (!x->is_array) continue;
    for (int u = 0; u < x->nconsumers; u++) {
      int i = x->consumers[u];
      if (D->lid[i] < 0) continue;
      int t = fus_ilp_col(m, nz_sprintf(A, "t_%d_%d", i, v), 0, 1, w.traversals, 1, 't', i, v);
      fus_ilp_row(m, nz_sprintf(A, "read_%d_%d", i, v), 'G', 1);
      fus_ilp_term(m, t, 1);
      for (int e = 0; e < u; e++)
        if (X(D, x->consumers[e], i) >= 0) fus_ilp_term(m, X(D, x->consumers[e], i), 1);
      if (x->producer >= 0 && X(D, x->producer, i) >= 0) fus_ilp_term(m, X(D, x->producer, i), 1);
    }
  }
  return m;
}

/* The group's partition (x = 1 classes) with every other invocation alone. */
static void recover(const Dec *D, const FusIlp *m, const double *x, int *cl) {
  for (int i = 0; i < D->n; i++) cl[i] = i;
  for (int j = 0; j < m->ncols; j++)
    if (m->role[j] == 'x' && x[j] > 0.5) cl[find(cl, m->ra[j])] = find(cl, m->rb[j]);
  for (int i = 0; i < D->n; i++) cl[i] = find(cl, i);
  fus_partition_canon(D->n, cl);
}

/* The cut for a cycle of the group's solution: "every (enter, leave) pair
 * fused and no edge between consecutive clusters fused" gives a closed walk
 * through distinct consecutive clusters, hence a cycle, in ANY partition of
 * the group (others alone). So  Σ x(in) − Σ x(edge) ≤ |in| − 1  removes no
 * legal one. */
static void add_cut(const Dec *D, FusIlp *m, const int *cin, const int *cout, int len, int ncut) {
  NZ_VEC(int) pos = {0};
  NZ_VEC(int) neg = {0};
  for (int e = 0; e < len; e++) {
    int a = cin[e], b = cout[e], nx = cin[(e + 1) % len];
    if (a != b) {
      if (X(D, a, b) < 0) nz_die("ilp-decomp: a cycle through an unfusable pair");
      nz_vec_push(pos, X(D, a, b));
    }
    if (X(D, b, nx) >= 0) nz_vec_push(neg, X(D, b, nx));
  }
  if (pos.n == 0) nz_die("ilp-decomp: a cycle of single invocations");
  fus_ilp_row(m, nz_sprintf(m->arena, "cycle_cut_%d", ncut), 'L', pos.n - 1);
  for (int e = 0; e < pos.n; e++) fus_ilp_term(m, pos.v[e], 1);
  for (int e = 0; e < neg.n; e++) fus_ilp_term(m, neg.v[e], -1);
  nz_vec_free(pos);
  nz_vec_free(neg);
}

/* Solves the current group to optimality (status 1), or returns 0 on time-out
 * with sol = the group part of the best legal partition seen (start if none).
 * sol and start are whole partitions with non-members alone. */
static int solve_group(Dec *D, FusWeights w, FusOptions *opt, double deadline, const int *start, int *sol,
                       FusSchedule *out) {
  const FusGraph *g = D->g;
  int n = D->n;
  FusIlp *m = build(D, w);
  int cuts = 0, proven = 0;
  memcpy(sol, start, sizeof(int) * (size_t)n);
  int *cl = nz_xmalloc(sizeof(int) * (size_t)n);
  int *cin = nz_xmalloc(sizeof(int) * (size_t)n), *cout = nz_xmalloc(sizeof(int) * (size_t)n);
  for (;;) {
    double left = opt->time_limit > 0 ? deadline - now() : 0;
    if (opt->time_limit > 0 && left <= 0) break;
    /* CBC 2.10.8 can crash in CglPreProcess::postProcess when a very short
     * limit expires during preprocessing (seen with 0.18 s left on
     * gen:kernels=60,chain=4,seed=4): a group that only gets the last crumbs
     * of the budget is left unsolved instead. */
    if (opt->solver == FUS_CBC && opt->time_limit > 0 && left < 0.5) break;
    double *x = nz_xcalloc((size_t)m->ncols + 1, sizeof(double));
    double *st = nz_xcalloc((size_t)m->ncols + 1, sizeof(double));
    fus_ilp_assign(m, g, start, st);
    for (int e = 0; e < D->ycol.n; e++) /* y = x AND k (see build) */
      st[D->ycol.v[e]] = start[D->mem[D->ya.v[e]]] == start[D->mem[D->yb.v[e]]] && st[kcol(m, D->mem[D->ya.v[e]])] > 0.5;
    FusIlpResult r;
    if (opt->solver == FUS_CBC)
      fus_ilp_solve_cbc(m, left, st, x, &r);
    else
      fus_ilp_solve_glpk(m, left, st, x, &r);
    free(st);
    if (r.nodes > 0) out->nodes += r.nodes;
    int again = 0;
    if (r.has_solution) {
      NzBuf why = {0};
      if (!fus_ilp_feasible(m, x, NULL, &why)) nz_die("the ILP solver returned an infeasible solution: %s", why.s);
      nz_buf_free(&why);
      recover(D, m, x, cl);
      int len = fus_contracted_cycle(g, cl, cin, cout);
      if (len == 0) {
        FusCost a, b;
        fus_cost(g, cl, &a);
        fus_cost(g, sol, &b);
        if (r.optimal || a.objective < b.objective) memcpy(sol, cl, sizeof(int) * (size_t)n);
        proven = r.optimal;
      } else if (r.optimal) {
        add_cut(D, m, cin, cout, len, cuts++);
        again = 1;
      }
    }
    free(x);
    if (!again) break;
  }
  out->nvars += m->ncols;
  out->nconstraints += m->nrows;
  if (opt->dump_ilp) {
    size_t len = strlen(opt->dump_ilp) + 16;
    char *path = nz_xmalloc(len);
    snprintf(path, len, opt->dump_seq ? "%s.%d" : "%s", opt->dump_ilp, opt->dump_seq);
    opt->dump_seq++;
    fus_ilp_write_lp(m, path);
    free(path);
  }
  free(cl);
  free(cin);
  free(cout);
  fus_ilp_free(m);
  return proven;
}

int fus_sched_ilp_decomp(const FusGraph *g, FusOptions *opt, FusSchedule *out) {
  int n = g->ninv;
  if (n == 0) {
    out->status = FUS_ST_OPTIMAL;
    return 0;
  }
  double t0 = now();
  size_t nn = (size_t)n * (size_t)n;
  Dec D = {g, n, nz_xcalloc(nn, 1), 0, nz_xmalloc(sizeof(int) * (size_t)n), nz_xmalloc(sizeof(int) * (size_t)n),
           nz_xmalloc(sizeof(int) * nn), {0}, {0}, {0}};
  compute_apart(&D);
  FusWeights w = fus_cost_weights(g);
  /* Groups start as the components of the fusable (not apart) graph. */
  int *grp = nz_xmalloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) grp[i] = i;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (!D.apart[i * n + j]) grp[find(grp, i)] = find(grp, j);
  for (int i = 0; i < n; i++) grp[i] = find(grp, i);
  out->build_seconds = now() - t0;
  /* The better greedy schedule: every group's start (its restriction, others
   * alone, is legal) and the fallback. */
  int *greedy = nz_xmalloc(sizeof(int) * (size_t)n), *alt = nz_xmalloc(sizeof(int) * (size_t)n);
  fus_greedy(g, greedy, 1, 0);
  fus_greedy(g, alt, 0, 0);
  FusCost ca, cb;
  fus_cost(g, greedy, &ca);
  fus_cost(g, alt, &cb);
  if (cb.objective < ca.objective) memcpy(greedy, alt, sizeof(int) * (size_t)n);
  free(alt);
  double t1 = now(), deadline = t1 + opt->time_limit;
  int *best = nz_xmalloc(sizeof(int) * (size_t)n);   /* per invocation: its group's solution */
  char *solved = nz_xcalloc((size_t)n, 1);           /* per group root: solved and not merged since */
  char *proven = nz_xcalloc((size_t)n, 1);           /* per group root */
  int *start = nz_xmalloc(sizeof(int) * (size_t)n), *sol = nz_xmalloc(sizeof(int) * (size_t)n);
  int *comb = nz_xmalloc(sizeof(int) * (size_t)n);
  int *cin = nz_xmalloc(sizeof(int) * (size_t)n), *cout = nz_xmalloc(sizeof(int) * (size_t)n);
  int *first = nz_xmalloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) best[i] = i;
  out->nodes = 0;
  int all_proven = 1, status;
  for (;;) {
    /* Solve every group not solved yet (singletons need no solve). */
    for (int r = 0; r < n; r++) {
      if (grp[r] != r || solved[r]) continue;
      D.ng = 0;
      for (int i = 0; i < n; i++)
        if (grp[i] == r) D.lid[i] = D.ng, D.mem[D.ng++] = i;
        else D.lid[i] = -1;
      solved[r] = 1;
      if (D.ng == 1) {
        proven[r] = 1;
        best[r] = r;
        continue;
      }
      /* Start: greedy's clusters inside the group, others alone. */
      for (int i = 0; i < n; i++) start[i] = grp[i] == r ? n + greedy[i] : i;
      fus_partition_canon(n, start);
      if (opt->time_limit > 0 && now() >= deadline) {
        memcpy(sol, start, sizeof(int) * (size_t)n);
        proven[r] = 0;
      } else {
        proven[r] = (char)solve_group(&D, w, opt, deadline, start, sol, out);
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
     * conflict, so solve them together. */
    int root = grp[cin[0]], merged = 0;
    for (int e = 0; e < len; e++) {
      int r = grp[cin[e]];
      if (r != root) {
        merged = 1;
        for (int i = 0; i < n; i++)
          if (grp[i] == r) grp[i] = root;
      }
    }
    if (!merged) nz_die("ilp-decomp: a cycle within one group's solution");
    solved[root] = 0;
    if (opt->time_limit > 0 && now() >= deadline) {
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
    FusCost a, b;
    fus_cost(g, comb, &a);
    fus_cost(g, greedy, &b);
    if (all_proven == 0 && fus_legal(g, comb, NULL) && a.objective < b.objective) {
      memcpy(out->cl, comb, sizeof(int) * (size_t)n);
      status = FUS_ST_FEASIBLE;
    } else {
      memcpy(out->cl, greedy, sizeof(int) * (size_t)n);
      status = FUS_ST_FALLBACK;
    }
  }
  out->solve_seconds = now() - t1;
  out->status = (FusStatus)status;
  FusCost c;
  fus_cost(g, out->cl, &c);
  out->solver_objective = c.objective;
  free(grp), free(greedy), free(best), free(solved), free(proven), free(start), free(sol), free(comb);
  free(cin), free(cout), free(first);
  free(D.apart), free(D.mem), free(D.lid), free(D.xcol);
  nz_vec_free(D.ycol), nz_vec_free(D.ya), nz_vec_free(D.yb);
  return 0;
}
