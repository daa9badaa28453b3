/* ilp.c — builds the reference ILP of paper §8 (variables o, f, c; VFUSE-COMPAT,
 * VFUSE-CLUSTER, HFUSE-COMPAT, HFUSE-SIBS; powers-of-n objective) as corrected
 * and derived in fusion/ILP.md, into a solver-independent FusIlp, and recovers
 * clusters from equal o. The solvers load it in ilp_glpk.c and ilp_cbc.c. */
#include "fusion.h"

int fus_ilp_col(FusIlp *m, const char *name, double lb, double ub, double obj, int isint, char role, int a,
                int b) {
  if (m->ncols == m->capcols) {
    m->capcols = m->capcols ? 2 * m->capcols : 64;
    size_t c = (size_t)m->capcols;
    m->colname = nz_xrealloc(m->colname, sizeof(char *) * c);
    m->lb = nz_xrealloc(m->lb, sizeof(double) * c);
    m->ub = nz_xrealloc(m->ub, sizeof(double) * c);
    m->obj = nz_xrealloc(m->obj, sizeof(double) * c);
    m->isint = nz_xrealloc(m->isint, c);
    m->role = nz_xrealloc(m->role, c);
    m->ra = nz_xrealloc(m->ra, sizeof(int) * c);
    m->rb = nz_xrealloc(m->rb, sizeof(int) * c);
  }
  int j = m->ncols++;
  m->colname[j] = name;
  m->lb[j] = lb;
  m->ub[j] = ub;
  m->obj[j] = obj;
  m->isint[j] = (char)isint;
  m->role[j] = role;
  m->ra[j] = a;
  m->rb[j] = b;
  return j;
}

/* Rows are built term by term: begin, term..., end. */
void fus_ilp_row(FusIlp *m, const char *name, char sense, double rhs) {
  if (m->nrows == m->caprows) {
    m->caprows = m->caprows ? 2 * m->caprows : 64;
    size_t c = (size_t)m->caprows;
    m->rowname = nz_xrealloc(m->rowname, sizeof(char *) * c);
    m->sense = nz_xrealloc(m->sense, c);
    m->lazy = nz_xrealloc(m->lazy, c);
    m->rhs = nz_xrealloc(m->rhs, sizeof(double) * c);
    m->rowstart = nz_xrealloc(m->rowstart, sizeof(int) * (c + 1));
  }
  int r = m->nrows++;
  m->rowname[r] = name;
  m->sense[r] = sense;
  m->lazy[r] = (char)m->lazy_mode;
  m->rhs[r] = rhs;
  m->rowstart[r] = m->nnz;
  m->rowstart[r + 1] = m->nnz;
}

void fus_ilp_term(FusIlp *m, int col, double coef) {
  if (m->nnz == m->capnnz) {
    m->capnnz = m->capnnz ? 2 * m->capnnz : 256;
    m->idx = nz_xrealloc(m->idx, sizeof(int) * (size_t)m->capnnz);
    m->val = nz_xrealloc(m->val, sizeof(double) * (size_t)m->capnnz);
  }
  m->idx[m->nnz] = col;
  m->val[m->nnz] = coef;
  m->nnz++;
  m->rowstart[m->nrows] = m->nnz;
}

/* Column of f_ij (i < j): pairs are numbered row by row. */
static int fcol(int fbase, int n, int i, int j) {
  if (i > j) {
    int t = i;
    i = j;
    j = t;
  }
  return fbase + i * n - i * (i + 1) / 2 + (j - i - 1);
}

/* Implied rows (ILP.md, "Implied rows"): valid for every legal partition, so
 * the optimum is unchanged, but they make the LP relaxation see what the
 * o/big-M rows hide from it.
 *  - implied_apart_i_j: f_ij >= 1 when i ⇝ m ⇝ j and m can share a cluster
 *    with only one of them (acyclicity would pull m into i and j's cluster).
 *    Closed by increasing j - i, each pair with bit operations on the path
 *    matrix.
 *  - kernels_clique: sum k >= the size of a set of pairwise-apart invocations
 *    (greedy clique), each of which needs its own kernel. */
static void add_implied(FusIlp *m, const FusGraph *g, int fbase) {
  int n = g->ninv, W = g->words;
  if (n < 2) return;
  NzArena *A = m->arena;
  uint64_t *apart = nz_xcalloc((size_t)n * (size_t)W, sizeof(uint64_t));
  uint64_t *to = nz_xcalloc((size_t)n * (size_t)W, sizeof(uint64_t)); /* to[j] bit m: m ⇝ j */
#define BIT(M, r, c) ((M)[(size_t)(r) * (size_t)W + (size_t)((c) >> 6)] >> ((c)&63) & 1u)
#define SET(M, r, c) ((M)[(size_t)(r) * (size_t)W + (size_t)((c) >> 6)] |= (uint64_t)1 << ((c)&63))
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (i != j && !fus_pair_ok(g, i, j, NULL)) SET(apart, i, j);
      if (fus_path(g, i, j)) SET(to, j, i);
    }
  for (int gap = 2; gap < n; gap++)
    for (int i = 0; i + gap < n; i++) {
      int j = i + gap;
      if (BIT(apart, i, j) || !fus_path(g, i, j)) continue;
      const uint64_t *from_i = g->path + (size_t)i * (size_t)W, *to_j = to + (size_t)j * (size_t)W;
      const uint64_t *ai = apart + (size_t)i * (size_t)W, *aj = apart + (size_t)j * (size_t)W;
      int hit = 0;
      for (int w = 0; w < W && !hit; w++) hit = (from_i[w] & to_j[w] & (ai[w] | aj[w])) != 0;
      if (!hit) continue;
      SET(apart, i, j);
      SET(apart, j, i);
      fus_ilp_row(m, nz_sprintf(A, "implied_apart_%d_%d", i, j), 'G', 1);
      fus_ilp_term(m, fcol(fbase, n, i, j), 1);
    }
  /* Greedy clique: repeatedly add the invocation apart from every member so
   * far that is apart from the most others. */
  int *deg = nz_xcalloc((size_t)n, sizeof(int));
  char *in = nz_xcalloc((size_t)n, 1);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) deg[i] += (int)BIT(apart, i, j);
  int size = 0;
  NZ_VEC(int) members = {0};
  for (;;) {
    int best = -1;
    for (int i = 0; i < n; i++) {
      if (in[i]) continue;
      int ok = 1;
      for (int k = 0; k < members.n && ok; k++) ok = (int)BIT(apart, i, members.v[k]);
      if (ok && (best < 0 || deg[i] > deg[best])) best = i;
    }
    if (best < 0) break;
    in[best] = 1;
    nz_vec_push(members, best);
    size++;
  }
  if (size > 1) {
    fus_ilp_row(m, nz_sprintf(A, "kernels_clique"), 'G', size);
    for (int j = 0; j < m->ncols; j++)
      if (m->role[j] == 'k') fus_ilp_term(m, j, 1);
  }
#undef BIT
#undef SET
  nz_vec_free(members);
  free(deg);
  free(in);
  free(apart);
  free(to);
}

FusIlp *fus_ilp_build(const FusGraph *g) { return fus_ilp_build_variant(g, 1); }

FusIlp *fus_ilp_new(int n) {
  FusIlp *m = nz_xcalloc(1, sizeof *m);
  m->arena = nz_arena_new();
  m->n = n;
  m->ocol = NZ_NEWN(m->arena, int, n ? n : 1);
  return m;
}

FusIlp *fus_ilp_build_variant(const FusGraph *g, int implied) {
  int n = g->ninv;
  FusIlp *m = fus_ilp_new(n);
  NzArena *A = m->arena;
  FusWeights w = fus_cost_weights(g);
  double M = n; /* o ranges over 0..n-1, so |o_i - o_j| <= n - 1 < M */

  for (int i = 0; i < n; i++) m->ocol[i] = fus_ilp_col(m, nz_sprintf(A, "o_%d", i), 0, n > 0 ? n - 1 : 0, 0, 1, 'o', i, -1);
  int fbase = m->ncols;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) fus_ilp_col(m, nz_sprintf(A, "f_%d_%d", i, j), 0, 1, 0, 1, 'f', i, j);

  /* Pair constraints. Program order is topological, so a path runs i -> j with i < j. */
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      int f = fcol(fbase, n, i, j), oi = m->ocol[i], oj = m->ocol[j];
      if (fus_path(g, i, j)) {
        /* VFUSE-CLUSTER, corrected: o_i + f_ij <= o_j (unfused: strictly
         * before; fused: not after) and o_j - o_i <= M f_ij (fused: equal). */
        fus_ilp_row(m, nz_sprintf(A, "vfuse_cluster_%d_%d", i, j), 'L', 0);
        fus_ilp_term(m, oi, 1), fus_ilp_term(m, oj, -1), fus_ilp_term(m, f, 1);
        fus_ilp_row(m, nz_sprintf(A, "vfuse_equal_%d_%d", i, j), 'L', 0);
        fus_ilp_term(m, oj, 1), fus_ilp_term(m, oi, -1), fus_ilp_term(m, f, -M);
        if (fus_into(g, i, j) && !fus_vcompat(g, i, j, NULL)) {
          fus_ilp_row(m, nz_sprintf(A, "vfuse_compat_%d_%d", i, j), 'G', 1); /* VFUSE-COMPAT */
          fus_ilp_term(m, f, 1);
        }
      } else if (fus_hcompat(g, i, j, NULL)) {
        /* HFUSE-SIBS: may fuse; f_ij = 0 forces o_i = o_j. */
        fus_ilp_row(m, nz_sprintf(A, "hfuse_sibs_a_%d_%d", i, j), 'L', 0);
        fus_ilp_term(m, oi, 1), fus_ilp_term(m, oj, -1), fus_ilp_term(m, f, -M);
        fus_ilp_row(m, nz_sprintf(A, "hfuse_sibs_b_%d_%d", i, j), 'L', 0);
        fus_ilp_term(m, oj, 1), fus_ilp_term(m, oi, -1), fus_ilp_term(m, f, -M);
      } else {
        /* HFUSE-COMPAT: f_ij = 1, and it must mean o_i != o_j, a disjunction
         * linearised with a direction variable d_ij (ILP.md). */
        fus_ilp_row(m, nz_sprintf(A, "hfuse_compat_%d_%d", i, j), 'G', 1);
        fus_ilp_term(m, f, 1);
        int d = fus_ilp_col(m, nz_sprintf(A, "d_%d_%d", i, j), 0, 1, 0, 1, 'd', i, j);
        fus_ilp_row(m, nz_sprintf(A, "hfuse_apart_a_%d_%d", i, j), 'G', 1);
        fus_ilp_term(m, oi, 1), fus_ilp_term(m, oj, -1), fus_ilp_term(m, d, M);
        fus_ilp_row(m, nz_sprintf(A, "hfuse_apart_b_%d_%d", i, j), 'G', 1 - M);
        fus_ilp_term(m, oj, 1), fus_ilp_term(m, oi, -1), fus_ilp_term(m, d, -M);
      }
    }

  /* Kernels: k_j = 1 iff j is the first member of its cluster:
   * k_j >= 1 - sum_{i<j} (1 - f_ij). */
  for (int j = 0; j < n; j++) {
    int k = fus_ilp_col(m, nz_sprintf(A, "k_%d", j), 0, 1, w.kernels, 1, 'k', j, -1);
    fus_ilp_row(m, nz_sprintf(A, "kernel_%d", j), 'G', 1 - j);
    fus_ilp_term(m, k, 1);
    for (int i = 0; i < j; i++) fus_ilp_term(m, fcol(fbase, n, i, j), -1);
  }

  /* Arrays (the paper's c_a): c_a >= f_pj for every consumer j of a's producer
   * p; live-out arrays are materialised anyway. */
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x = &g->var[v];
    if (!x->is_array || x->producer < 0 || (!x->live_out && x->nconsumers == 0)) continue;
    int c = fus_ilp_col(m, nz_sprintf(A, "c_%d", v), x->live_out ? 1 : 0, 1, w.arrays, 1, 'c', v, -1);
    if (x->live_out) continue;
    for (int u = 0; u < x->nconsumers; u++) {
      int j = x->consumers[u];
      fus_ilp_row(m, nz_sprintf(A, "array_%d_%d", v, j), 'G', 0);
      fus_ilp_term(m, c, 1), fus_ilp_term(m, fcol(fbase, n, x->producer, j), -1);
    }
  }

  /* Traversals: the read of array a by i counts iff no earlier reader of a and
   * not a's producer is in i's cluster:
   * t_ia >= 1 - sum_{j<i reads a} (1 - f_ji) - [p exists] (1 - f_pi). */
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x = &g->var[v];
    if (!x->is_array) continue;
    for (int u = 0; u < x->nconsumers; u++) {
      int i = x->consumers[u];
      int t = fus_ilp_col(m, nz_sprintf(A, "t_%d_%d", i, v), 0, 1, w.traversals, 1, 't', i, v);
      int others = u + (x->producer >= 0);
      fus_ilp_row(m, nz_sprintf(A, "read_%d_%d", i, v), 'G', 1 - others);
      fus_ilp_term(m, t, 1);
      for (int e = 0; e < u; e++) fus_ilp_term(m, fcol(fbase, n, x->consumers[e], i), -1);
      if (x->producer >= 0) fus_ilp_term(m, fcol(fbase, n, x->producer, i), -1);
    }
  }
  if (implied) add_implied(m, g, fbase);
  return m;
}

void fus_ilp_free(FusIlp *m) {
  if (!m) return;
  free(m->colname);
  free(m->lb);
  free(m->ub);
  free(m->obj);
  free(m->isint);
  free(m->role);
  free(m->ra);
  free(m->rb);
  free(m->rowname);
  free(m->sense);
  free(m->lazy);
  free(m->rhs);
  free(m->rowstart);
  free(m->idx);
  free(m->val);
  nz_arena_free(m->arena);
  free(m);
}

void fus_ilp_recover(const FusIlp *m, const double *x, int *cl) {
  for (int i = 0; i < m->n; i++) {
    double o = x[m->ocol[i]];
    cl[i] = (int)(o + 0.5);
    if (cl[i] < 0) cl[i] = 0;
  }
  fus_partition_canon(m->n, cl);
}

/* Topological rank of each cluster in the contracted graph (Kahn, smallest
 * cluster first among the ready ones). cl is canonical with k clusters. */
static void cluster_ranks(const FusGraph *g, const int *cl, int k, int *rank) {
  int *indeg = nz_xcalloc((size_t)(k ? k : 1), sizeof(int));
  for (int v = 0; v < g->nvar; v++) {
    int p = g->var[v].producer;
    if (p < 0) continue;
    for (int u = 0; u < g->var[v].nconsumers; u++)
      if (cl[g->var[v].consumers[u]] != cl[p]) indeg[cl[g->var[v].consumers[u]]]++;
  }
  char *done = nz_xcalloc((size_t)(k ? k : 1), 1);
  for (int r = 0; r < k; r++) {
    int x = 0;
    while (x < k && (done[x] || indeg[x] != 0)) x++;
    if (x == k) nz_die("fus_ilp_assign: the partition's contracted graph has a cycle");
    done[x] = 1;
    rank[x] = r;
    for (int v = 0; v < g->nvar; v++) {
      int p = g->var[v].producer;
      if (p < 0 || cl[p] != x) continue;
      for (int u = 0; u < g->var[v].nconsumers; u++)
        if (cl[g->var[v].consumers[u]] != x) indeg[cl[g->var[v].consumers[u]]]--;
    }
  }
  free(indeg);
  free(done);
}

void fus_ilp_assign(const FusIlp *m, const FusGraph *g, const int *cl_in, double *x) {
  int n = g->ninv;
  int *cl = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  memcpy(cl, cl_in, sizeof(int) * (size_t)n);
  int k = fus_partition_canon(n, cl);
  int *rank = nz_xmalloc(sizeof(int) * (size_t)(k ? k : 1));
  cluster_ranks(g, cl, k, rank);
  for (int j = 0; j < m->ncols; j++) {
    int a = m->ra[j], b = m->rb[j];
    switch (m->role[j]) {
    case 'o': x[j] = rank[cl[a]]; break;
    case 'f': x[j] = cl[a] != cl[b]; break;
    case 'x': x[j] = cl[a] == cl[b]; break; /* ilp_lazy.c: fused */
    case 'd': x[j] = rank[cl[a]] > rank[cl[b]] ? 0 : 1; break;
    case 'k': {
      int first = 1;
      for (int i = 0; i < a && first; i++) first = cl[i] != cl[a];
      x[j] = first;
      break;
    }
    case 'c': {
      const FusVar *v = &g->var[a];
      int mat = v->live_out;
      for (int u = 0; u < v->nconsumers && !mat; u++) mat = cl[v->consumers[u]] != cl[v->producer];
      x[j] = mat;
      break;
    }
    case 't': {
      const FusVar *v = &g->var[b];
      int counts = !(v->producer >= 0 && cl[v->producer] == cl[a]);
      for (int u = 0; u < v->nconsumers && counts && v->consumers[u] < a; u++) counts = cl[v->consumers[u]] != cl[a];
      x[j] = counts;
      break;
    }
    default: nz_die("fus_ilp_assign: column %d has no role", j);
    }
  }
  free(rank);
  free(cl);
}

int fus_ilp_feasible(const FusIlp *m, const double *x, double *obj, NzBuf *why) {
  const double eps = 1e-6;
  double z = 0;
  for (int j = 0; j < m->ncols; j++) {
    z += m->obj[j] * x[j];
    double frac = x[j] - (double)(long)(x[j] + (x[j] < 0 ? -0.5 : 0.5));
    if (x[j] < m->lb[j] - eps || x[j] > m->ub[j] + eps || (m->isint[j] && (frac > eps || frac < -eps))) {
      if (why) nz_buf_printf(why, "column %s = %g outside [%g, %g] or not integral", m->colname[j], x[j], m->lb[j], m->ub[j]);
      return 0;
    }
  }
  if (obj) *obj = z;
  for (int r = 0; r < m->nrows; r++) {
    double lhs = 0;
    for (int e = m->rowstart[r]; e < m->rowstart[r + 1]; e++) lhs += m->val[e] * x[m->idx[e]];
    int ok = m->sense[r] == 'L' ? lhs <= m->rhs[r] + eps : m->sense[r] == 'G' ? lhs >= m->rhs[r] - eps
                                                                               : lhs >= m->rhs[r] - eps && lhs <= m->rhs[r] + eps;
    if (!ok) {
      if (why) nz_buf_printf(why, "row %s: %g %c %g violated", m->rowname[r], lhs, m->sense[r], m->rhs[r]);
      return 0;
    }
  }
  return 1;
}
