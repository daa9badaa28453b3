/* sched_ilp_decomp.c — the `ilp-decomp` scheduler: ilp-lazy's model solved per
 * component of the "may share a cluster" graph (decomp.c), merging components
 * only when their separate optima together form a cycle, with representative
 * rows that count kernels tightly. Exact: ILP.md, "The decomposed variant". */
#include "fusion.h"

/* Per group model: x columns by local pair, and the representative columns
 * y_ab (local a < b) with their ends. */
typedef struct {
  const FusGroup *G;
  int ng;
  int *xcol; /* ng*ng, -1 for apart pairs */
  NZ_VEC(int) ycol;
  NZ_VEC(int) ya;
  NZ_VEC(int) yb;
} Aux;

static int X(const Aux *D, int i, int j) {
  int a = D->G->lid[i], b = D->G->lid[j];
  return a < 0 || b < 0 || a == b ? -1 : D->xcol[a * D->ng + b];
}

static int xcol_of(const void *ctx, int i, int j) { return X(ctx, i, j); }

/* ilp-lazy's model for the group's invocations; every other invocation is a
 * singleton, so its kernel, its arrays and its reads are constants and left
 * out. Column roles and ids are global, so fus_ilp_assign works unchanged. */
static FusIlp *build(const FusGroup *G, FusWeights w, void **auxp) {
  const FusGraph *g = G->g;
  int n = G->n, ng = G->ng;
  const int *mem = G->mem;
  Aux *D = nz_xcalloc(1, sizeof *D);
  *auxp = D;
  D->G = G;
  D->ng = ng;
  D->xcol = nz_xmalloc(sizeof(int) * (size_t)ng * (size_t)ng);
  FusIlp *m = fus_ilp_new(n);
  NzArena *A = m->arena;
  for (int a = 0; a < ng * ng; a++) D->xcol[a] = -1;
  for (int a = 0; a < ng; a++)
    for (int b = a + 1; b < ng; b++)
      if (!G->apart[mem[a] * n + mem[b]])
        D->xcol[a * ng + b] = D->xcol[b * ng + a] =
            fus_ilp_col(m, nz_sprintf(A, "x_%d_%d", mem[a], mem[b]), 0, 1, 0, 1, 'x', mem[a], mem[b]);
  /* Transitivity rows are cubic in the group's size, and few of them ever
   * bind: lazy (GLPK adds each when a relaxation violates it). */
  m->lazy_mode = getenv("NESSIE_DECOMP_EAGER") ? 0 : 1;
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
  m->lazy_mode = 0;
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
  /* Pairs every optimal partition fuses, also in this restricted problem
   * (ILP.md "Forced pairs": the move keeps the other invocations where they
   * are): fixed fused. */
  for (int a = 0; a < ng && G->partner; a++) {
    int i = mem[a], p = G->partner[i];
    if (p >= 0 && X(D, i, p) >= 0) m->lb[X(D, i, p)] = 1;
  }
  int kbase = m->ncols;
  for (int b = 0; b < ng; b++) {
    int k = fus_ilp_col(m, nz_sprintf(A, "k_%d", mem[b]), 0, 1, fus_w_kernel(&w, mem[b]), 1, 'k', mem[b], -1);
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
    /* rep_j, and rep_indep: the later fusable partners of a, split greedily
     * into sets of pairwise apart ones; a represents at most one of each. */
    fus_ilp_rep_rows(m, G, yc, kbase);
    free(yc);
  }
  /* kernels_clique within the group (greedy, most apart partners first). */
  int size = fus_apart_clique(g, G->apart, mem, ng);
  if (size > 1) {
    fus_ilp_row(m, "kernels_clique", 'G', size);
    for (int b = 0; b < ng; b++) fus_ilp_term(m, kbase + b, 1);
  }
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x = &g->var[v];
    if (!x->is_array || x->producer < 0 || G->lid[x->producer] < 0 || x->live_out || x->nconsumers == 0) continue;
    int c = fus_ilp_col(m, nz_sprintf(A, "c_%d", v), 0, 1, fus_w_array(&w, v), 1, 'c', v, -1);
    for (int u = 0; u < x->nconsumers; u++) {
      int j = x->consumers[u];
      fus_ilp_row(m, nz_sprintf(A, "array_%d_%d", v, j), 'G', 1);
      fus_ilp_term(m, c, 1);
      if (X(D, x->producer, j) >= 0) fus_ilp_term(m, X(D, x->producer, j), 1);
    }
    /* Implied: the array disappears only if its producer and all its
     * consumers share a cluster, so also only if any two consumers do. The
     * producer rows alone let the relaxation half-fuse two consumers that
     * can never meet (on the 45-invocation component of
     * gen:kernels=100,chain=4,seed=1 these rows lift the root bound from
     * 94,555 to 95,256 of the optimum 95,382). */
    for (int u = 0; u < x->nconsumers; u++)
      for (int u2 = u + 1; u2 < x->nconsumers; u2++) {
        int j1 = x->consumers[u], j2 = x->consumers[u2];
        if (j1 == j2) continue;
        fus_ilp_row(m, nz_sprintf(A, "array_pair_%d_%d_%d", v, j1, j2), 'G', 1);
        fus_ilp_term(m, c, 1);
        if (X(D, j1, j2) >= 0) fus_ilp_term(m, X(D, j1, j2), 1);
      }
  }
  fus_ilp_read_rows(m, g, w, G->lid, xcol_of, D);
  return m;
}


/* The solution vector of cl: fus_ilp_assign, then y = x AND k (y columns
 * carry role 'x', see build, so assign set them to x). */
static void assign(const FusGroup *G, void *aux, const FusIlp *m, const int *cl, double *x) {
  const Aux *D = aux;
  fus_ilp_assign(m, G->g, cl, x);
  int *kc = nz_xmalloc(sizeof(int) * (size_t)G->ng);
  for (int j = 0; j < m->ncols; j++)
    if (m->role[j] == 'k') kc[G->lid[m->ra[j]]] = j;
  for (int e = 0; e < D->ycol.n; e++)
    x[D->ycol.v[e]] = cl[G->mem[D->ya.v[e]]] == cl[G->mem[D->yb.v[e]]] && x[kc[D->ya.v[e]]] > 0.5;
  free(kc);
}

/* The group's partition (x = 1 classes) with every other invocation alone. */
static void recover(const FusGroup *G, void *aux, const FusIlp *m, const double *x, int *cl) {
  (void)aux;
  for (int i = 0; i < G->n; i++) cl[i] = i;
  for (int j = 0; j < m->ncols; j++)
    if (m->role[j] == 'x' && x[j] > 0.5) cl[fus_uf_find(cl, m->ra[j])] = fus_uf_find(cl, m->rb[j]);
  for (int i = 0; i < G->n; i++) cl[i] = fus_uf_find(cl, i);
}

/* The cut for a cycle of the group's solution: "every (enter, leave) pair
 * fused and no edge between consecutive clusters fused" gives a closed walk
 * through distinct consecutive clusters, hence a cycle, in ANY partition of
 * the group (others alone, or in the driver's fixed clusters: their pairs are
 * fused whatever the group does and drop out). So
 * Σ x(in) − Σ x(edge) ≤ |in| − 1  removes no legal one. */
static int cut(const FusGroup *G, void *aux, FusIlp *m, const int *cin, const int *cout, int len, int ncut) {
  const Aux *D = aux;
  NZ_VEC(int) pos = {0};
  NZ_VEC(int) neg = {0};
  for (int e = 0; e < len; e++) {
    int a = cin[e], b = cout[e], nx = cin[(e + 1) % len];
    if (a != b && G->lid[a] >= 0) {
      if (X(D, a, b) < 0) nz_die("ilp-decomp: a cycle through an unfusable pair");
      nz_vec_push(pos, X(D, a, b));
    }
    if (X(D, b, nx) >= 0) nz_vec_push(neg, X(D, b, nx));
  }
  int made = pos.n > 0;
  if (made) {
    fus_ilp_row(m, nz_sprintf(m->arena, "cycle_cut_%d", ncut), 'L', pos.n - 1);
    for (int e = 0; e < pos.n; e++) fus_ilp_term(m, pos.v[e], 1);
    for (int e = 0; e < neg.n; e++) fus_ilp_term(m, neg.v[e], -1);
  }
  nz_vec_free(pos);
  nz_vec_free(neg);
  return made;
}

static void free_aux(void *aux) {
  Aux *D = aux;
  if (!D) return;
  free(D->xcol);
  nz_vec_free(D->ycol), nz_vec_free(D->ya), nz_vec_free(D->yb);
  free(D);
}

static const FusGroupModel lazy_model = {"ilp-decomp", build, assign, recover, cut, free_aux, 1};

int fus_sched_ilp_decomp(const FusGraph *g, FusOptions *opt, FusSchedule *out) {
  return fus_sched_decomposed(g, opt, out, &lazy_model);
}
