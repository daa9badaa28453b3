/* ilp.c — builds the reference ILP of paper §8 (variables o, f, c; VFUSE-COMPAT,
 * VFUSE-CLUSTER, HFUSE-COMPAT, HFUSE-SIBS; powers-of-n objective) as corrected
 * and derived in fusion/ILP.md, into a solver-independent FusIlp, for a whole
 * region (ilp-mono, ilp-bare) or one group of it with optional tightenings
 * (ilp, solved group by group in decomp.c), and recovers clusters from equal
 * o. The solvers load it in ilp_glpk.c and ilp_cbc.c. */
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

/* The size of a set of pairwise-apart invocations among mem[0..ng), found
 * greedily: repeatedly add the one apart from every member so far that is
 * apart from the most others. */
int fus_apart_clique(const FusGraph *g, const char *apart, const int *mem, int ng) {
  int n = g->ninv, size = 0;
  int *deg = nz_xcalloc((size_t)ng + 1, sizeof(int));
  char *in = nz_xcalloc((size_t)ng + 1, 1);
  for (int a = 0; a < ng; a++)
    for (int b = 0; b < ng; b++) deg[a] += apart[mem[a] * n + mem[b]];
  for (;;) {
    int best = -1;
    for (int a = 0; a < ng; a++) {
      if (in[a]) continue;
      int ok = 1;
      for (int b = 0; b < ng && ok; b++)
        if (in[b]) ok = apart[mem[a] * n + mem[b]];
      if (ok && (best < 0 || deg[a] > deg[best])) best = a;
    }
    if (best < 0) break;
    in[best] = 1;
    size++;
  }
  free(deg);
  free(in);
  return size;
}

/* Implied rows (ILP.md, "Implied rows"): valid for every legal partition, so
 * the optimum is unchanged, but they make the LP relaxation see what the
 * o/big-M rows hide from it.
 *  - implied_apart_i_j: f_ij >= 1 when i ⇝ m ⇝ j and m can share a cluster
 *    with only one of them (acyclicity would pull m into i and j's cluster):
 *    the apart closure of decomp.c, minus the pairs the pair rule already
 *    separates (their vfuse_compat / hfuse_compat rows).
 *  - kernels_clique: sum k >= the size of a set of pairwise-apart invocations
 *    (greedy clique), each of which needs its own kernel. */
static void add_implied(FusIlp *m, const FusGraph *g, int fbase) {
  int n = g->ninv;
  if (n < 2) return;
  char *apart = fus_apart(g);
  for (int gap = 2; gap < n; gap++)
    for (int i = 0; i + gap < n; i++) {
      int j = i + gap;
      if (!apart[i * n + j] || !fus_pair_ok(g, i, j, NULL)) continue;
      fus_ilp_row(m, nz_sprintf(m->arena, "implied_apart_%d_%d", i, j), 'G', 1);
      fus_ilp_term(m, fcol(fbase, n, i, j), 1);
    }
  int *all = nz_xmalloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) all[i] = i;
  int size = fus_apart_clique(g, apart, all, n);
  if (size > 1) {
    fus_ilp_row(m, "kernels_clique", 'G', size);
    for (int j = 0; j < m->ncols; j++)
      if (m->role[j] == 'k') fus_ilp_term(m, j, 1);
  }
  free(all);
  free(apart);
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
    int k = fus_ilp_col(m, nz_sprintf(A, "k_%d", j), 0, 1, fus_w_kernel(&w, j), 1, 'k', j, -1);
    fus_ilp_row(m, nz_sprintf(A, "kernel_%d", j), 'G', 1 - j);
    fus_ilp_term(m, k, 1);
    for (int i = 0; i < j; i++) fus_ilp_term(m, fcol(fbase, n, i, j), -1);
  }

  /* Arrays (the paper's c_a): c_a >= f_pj for every consumer j of a's producer
   * p; live-out arrays are materialised anyway. */
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x = &g->var[v];
    if (!x->is_array || x->producer < 0 || (!x->live_out && x->nconsumers == 0)) continue;
    int c = fus_ilp_col(m, nz_sprintf(A, "c_%d", v), x->live_out ? 1 : 0, 1, fus_w_array(&w, v), 1, 'c', v, -1);
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
      int t = fus_ilp_col(m, nz_sprintf(A, "t_%d_%d", i, v), 0, 1, fus_w_read(&w, v), 1, 't', i, v);
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

/* ------------------------------------------------------------------------
 * The reference model of one group (ILP.md, "Solving the reference per
 * group"): o, f, d, k, c, t for the group's members only, every other
 * invocation a singleton whose kernel, arrays and reads are constants.
 * Dependent pairs come from the whole region's path relation. The model
 * excludes cycles through non-members by itself, so it needs no cut. */

static int imax(int a, int b) { return a > b ? a : b; }

FusIlp *fus_ilp_build_group(const FusGroup *G, FusWeights w, int tight) {
  const FusGraph *g = G->g;
  int n = G->n, ng = G->ng;
  const int *mem = G->mem, *lid = G->lid;
  const char *apart = G->apart;
  FusIlp *m = fus_ilp_new(n);
  NzArena *A = m->arena;
  int fixf = tight & FUS_TIGHT_APART;
  /* o ranges over 0..top: the group's clusters need at most ng positions. */
  int top = (tight & FUS_TIGHT_M ? ng : n) - 1;
  /* lo[a]: o_a is at least the number of apart steps on a dependent chain
   * ending at a (o never decreases along a path and increases across an apart
   * pair); up[a]: likewise for chains starting at a, counted from the top. */
  int *lo = nz_xcalloc((size_t)ng + 1, sizeof(int)), *up = nz_xcalloc((size_t)ng + 1, sizeof(int));
  if (tight & FUS_TIGHT_OBOUNDS) {
    for (int b = 0; b < ng; b++)
      for (int a = 0; a < b; a++)
        if (fus_path(g, mem[a], mem[b])) lo[b] = imax(lo[b], lo[a] + apart[mem[a] * n + mem[b]]);
    for (int a = ng - 1; a >= 0; a--)
      for (int b = a + 1; b < ng; b++)
        if (fus_path(g, mem[a], mem[b])) up[a] = imax(up[a], up[b] + apart[mem[a] * n + mem[b]]);
  }
  for (int a = 0; a < ng; a++)
    m->ocol[mem[a]] = fus_ilp_col(m, nz_sprintf(A, "o_%d", mem[a]), lo[a], top - up[a], 0, 1, 'o', mem[a], -1);
  int fbase = m->ncols;
  for (int a = 0; a < ng; a++)
    for (int b = a + 1; b < ng; b++)
      fus_ilp_col(m, nz_sprintf(A, "f_%d_%d", mem[a], mem[b]), fixf && apart[mem[a] * n + mem[b]], 1, 0, 1, 'f', mem[a],
                  mem[b]);
  /* big-M of a row "o_x - o_y <= M·(…)": the most o_x - o_y can be, or the
   * reference's n; MD for the d rows, which need one more. */
#define OCOL(a) m->ocol[mem[a]]
#define SPAN(x, y) (m->ub[OCOL(x)] - m->lb[OCOL(y)])
#define MF(x, y) (tight & FUS_TIGHT_M ? (SPAN(x, y) > 1 ? SPAN(x, y) : 1) : (double)n)
#define MD(x, y) (tight & FUS_TIGHT_M ? 1 + SPAN(x, y) : (double)n)
  for (int a = 0; a < ng; a++)
    for (int b = a + 1; b < ng; b++) {
      int i = mem[a], j = mem[b], f = fcol(fbase, ng, a, b), oi = OCOL(a), oj = OCOL(b);
      int ap = apart[i * n + j];
      if (fus_path(g, i, j)) {
        if (ap && fixf) {
          fus_ilp_row(m, nz_sprintf(A, "vfuse_apart_%d_%d", i, j), 'L', -1); /* o_i + 1 <= o_j */
          fus_ilp_term(m, oi, 1), fus_ilp_term(m, oj, -1);
          continue;
        }
        fus_ilp_row(m, nz_sprintf(A, "vfuse_cluster_%d_%d", i, j), 'L', 0);
        fus_ilp_term(m, oi, 1), fus_ilp_term(m, oj, -1), fus_ilp_term(m, f, 1);
        fus_ilp_row(m, nz_sprintf(A, "vfuse_equal_%d_%d", i, j), 'L', 0);
        fus_ilp_term(m, oj, 1), fus_ilp_term(m, oi, -1), fus_ilp_term(m, f, -MF(b, a));
        if (ap) {
          /* Unfixed apart pair: VFUSE-COMPAT, or the implied row. */
          int compat = fus_pair_ok(g, i, j, NULL);
          fus_ilp_row(m, nz_sprintf(A, compat ? "implied_apart_%d_%d" : "vfuse_compat_%d_%d", i, j), 'G', 1);
          fus_ilp_term(m, f, 1);
        }
      } else if (!ap) {
        fus_ilp_row(m, nz_sprintf(A, "hfuse_sibs_a_%d_%d", i, j), 'L', 0);
        fus_ilp_term(m, oi, 1), fus_ilp_term(m, oj, -1), fus_ilp_term(m, f, -MF(a, b));
        fus_ilp_row(m, nz_sprintf(A, "hfuse_sibs_b_%d_%d", i, j), 'L', 0);
        fus_ilp_term(m, oj, 1), fus_ilp_term(m, oi, -1), fus_ilp_term(m, f, -MF(b, a));
      } else {
        /* Independent and apart: not horizontally compatible. d = 0: o_i > o_j;
         * d = 1: o_j > o_i; each row's M makes it slack on the other side. */
        if (!fixf) {
          fus_ilp_row(m, nz_sprintf(A, "hfuse_compat_%d_%d", i, j), 'G', 1);
          fus_ilp_term(m, f, 1);
        }
        int d = fus_ilp_col(m, nz_sprintf(A, "d_%d_%d", i, j), 0, 1, 0, 1, 'd', i, j);
        fus_ilp_row(m, nz_sprintf(A, "hfuse_apart_a_%d_%d", i, j), 'G', 1);
        fus_ilp_term(m, oi, 1), fus_ilp_term(m, oj, -1), fus_ilp_term(m, d, MD(b, a));
        double Mb = MD(a, b);
        fus_ilp_row(m, nz_sprintf(A, "hfuse_apart_b_%d_%d", i, j), 'G', 1 - Mb);
        fus_ilp_term(m, oj, 1), fus_ilp_term(m, oi, -1), fus_ilp_term(m, d, -Mb);
      }
    }
#undef SPAN
#undef MF
#undef MD
  /* Rows of f alone that every legal partition satisfies at its indicator values
   * (f = [different clusters]); for the o model they are implied only for
   * integers. THIRD: m shares a cluster with at most one of an apart pair.
   * CONVEX: a fused dependent pair fuses every middle (one in the group: a
   * middle of a fusable dependent pair is fusable with both ends). TRANS:
   * "same cluster" is transitive. */
#define F(a, b) fcol(fbase, ng, a, b)
#define FUSABLE(a, b) (!apart[mem[a] * n + mem[b]])
  if (tight & FUS_TIGHT_THIRD)
    for (int c = 0; c < ng; c++)
      for (int a = 0; a < ng; a++)
        for (int b = a + 1; b < ng; b++) {
          if (a == c || b == c || FUSABLE(a, b) || !FUSABLE(a, c) || !FUSABLE(b, c)) continue;
          fus_ilp_row(m, nz_sprintf(A, "third_%d_%d_%d", mem[a], mem[b], mem[c]), 'G', 1);
          fus_ilp_term(m, F(a, c), 1), fus_ilp_term(m, F(b, c), 1);
        }
  if (tight & FUS_TIGHT_CONVEX)
    for (int a = 0; a < ng; a++)
      for (int b = a + 1; b < ng; b++) {
        int i = mem[a], j = mem[b];
        if (!FUSABLE(a, b) || !fus_path(g, i, j)) continue;
        for (int k = i + 1; k < j; k++) {
          if (!fus_path(g, i, k) || !fus_path(g, k, j)) continue;
          if (lid[k] < 0) nz_die("ilp: a middle of a fusable pair outside its group");
          fus_ilp_row(m, nz_sprintf(A, "convex_a_%d_%d_%d", i, k, j), 'L', 0);
          fus_ilp_term(m, F(a, lid[k]), 1), fus_ilp_term(m, F(a, b), -1);
          fus_ilp_row(m, nz_sprintf(A, "convex_b_%d_%d_%d", i, k, j), 'L', 0);
          fus_ilp_term(m, F(lid[k], b), 1), fus_ilp_term(m, F(a, b), -1);
        }
      }
  if (tight & FUS_TIGHT_TRANS)
    for (int a = 0; a < ng; a++)
      for (int b = a + 1; b < ng; b++)
        for (int c = b + 1; c < ng; c++) {
          if (!FUSABLE(a, b) || !FUSABLE(b, c) || !FUSABLE(a, c)) continue;
          int side[3] = {F(a, b), F(b, c), F(a, c)};
          for (int t = 0; t < 3; t++) {
            fus_ilp_row(m, nz_sprintf(A, "trans_%d_%d_%d_%d", mem[a], mem[b], mem[c], t), 'L', 0);
            fus_ilp_term(m, side[t], 1), fus_ilp_term(m, side[(t + 1) % 3], -1), fus_ilp_term(m, side[(t + 2) % 3], -1);
          }
        }
  /* CROSS: a ⇝ b and c ⇝ d with {a, d} and {b, c} each in one cluster give
   * the clusters X ∋ a, d and Y ∋ b, c paths both ways, a cycle unless
   * X = Y; so f_ab <= f_ad + f_bc (with a, b apart: f_ad + f_bc >= 1).
   * ilp-lazy's two-cluster cycle cuts, for every candidate up front. */
  if (tight & FUS_TIGHT_CROSS)
    for (int a = 0; a < ng; a++)
      for (int b = a + 1; b < ng; b++) {
        if (!fus_path(g, mem[a], mem[b])) continue;
        for (int c = 0; c < ng; c++)
          for (int d = c + 1; d < ng; d++) {
            if (c == a || c == b || d == a || d == b || !fus_path(g, mem[c], mem[d])) continue;
            if (!FUSABLE(a, d) || !FUSABLE(b, c)) continue;
            fus_ilp_row(m, nz_sprintf(A, "cross_%d_%d_%d_%d", mem[a], mem[b], mem[c], mem[d]), 'G', 0);
            fus_ilp_term(m, F(a, d), 1), fus_ilp_term(m, F(b, c), 1), fus_ilp_term(m, F(a, b), -1);
          }
      }
#undef F
#undef FUSABLE
  /* Kernels of the group's clusters: k_j >= 1 - sum_{members i<j} (1 - f_ij). */
  int kbase = m->ncols;
  for (int b = 0; b < ng; b++) {
    int k = fus_ilp_col(m, nz_sprintf(A, "k_%d", mem[b]), 0, 1, fus_w_kernel(&w, mem[b]), 1, 'k', mem[b], -1);
    fus_ilp_row(m, nz_sprintf(A, "kernel_%d", mem[b]), 'G', 1 - b);
    fus_ilp_term(m, k, 1);
    for (int a = 0; a < b; a++) fus_ilp_term(m, fcol(fbase, ng, a, b), -1);
  }
  int size = fus_apart_clique(g, apart, mem, ng);
  if (size > 1) {
    fus_ilp_row(m, "kernels_clique", 'G', size);
    for (int b = 0; b < ng; b++) fus_ilp_term(m, kbase + b, 1);
  }
  /* NOTFIRST: a fused earlier partner means j is not first, k_j <= f_ij. */
  if (tight & (FUS_TIGHT_NOTFIRST | FUS_TIGHT_REP))
    for (int b = 0; b < ng; b++)
      for (int a = 0; a < b; a++)
        if (!apart[mem[a] * n + mem[b]]) {
          fus_ilp_row(m, nz_sprintf(A, "not_first_%d_%d", mem[a], mem[b]), 'L', 0);
          fus_ilp_term(m, kbase + b, 1), fus_ilp_term(m, fcol(fbase, ng, a, b), -1);
        }
  /* REP: y_ab = "a is the first member of b's cluster" = (1 - f_ab) AND k_a;
   * every member has exactly one representative (itself when k_b), and a
   * representative has at most one member of a pairwise apart set. y columns
   * carry role 'x' so that fus_ilp_assign sets them to [same cluster];
   * fus_ilp_group_assign then ANDs in k. */
  if (tight & FUS_TIGHT_REP) {
    int *yc = nz_xmalloc(sizeof(int) * ((size_t)ng * (size_t)ng + 1));
    for (int e = 0; e < ng * ng; e++) yc[e] = -1;
    for (int b = 0; b < ng; b++)
      for (int a = 0; a < b; a++) {
        if (apart[mem[a] * n + mem[b]]) continue;
        int y = yc[a * ng + b] = fus_ilp_col(m, nz_sprintf(A, "y_%d_%d", mem[a], mem[b]), 0, 1, 0, 1, 'x', mem[a], mem[b]);
        int f = fcol(fbase, ng, a, b);
        fus_ilp_row(m, nz_sprintf(A, "rep_f_%d_%d", mem[a], mem[b]), 'L', 1); /* y <= 1 - f */
        fus_ilp_term(m, y, 1), fus_ilp_term(m, f, 1);
        fus_ilp_row(m, nz_sprintf(A, "rep_k_%d_%d", mem[a], mem[b]), 'L', 0); /* y <= k_a */
        fus_ilp_term(m, y, 1), fus_ilp_term(m, kbase + a, -1);
        fus_ilp_row(m, nz_sprintf(A, "rep_and_%d_%d", mem[a], mem[b]), 'G', 0); /* y >= k_a - f */
        fus_ilp_term(m, y, 1), fus_ilp_term(m, kbase + a, -1), fus_ilp_term(m, f, 1);
      }
    fus_ilp_rep_rows(m, G, yc, kbase);
    free(yc);
  }
  /* Positions are consecutive: the clusters sit at 0..K-1 with K = sum k, so
   * o_a + up[a] <= K - 1. */
  if (tight & FUS_TIGHT_CONSEC)
    for (int a = 0; a < ng; a++) {
      fus_ilp_row(m, nz_sprintf(A, "consecutive_%d", mem[a]), 'L', -1 - up[a]);
      fus_ilp_term(m, OCOL(a), 1);
      for (int b = 0; b < ng; b++) fus_ilp_term(m, kbase + b, -1);
    }
  /* Arrays produced by a member. Constant 1 (a fixed column, so that the whole
   * region as one group costs exactly fus_cost) when live out or read outside
   * the group, and with FUS_TIGHT_ARRAYS also when two of its consumers, or
   * the producer and a consumer, are apart. Otherwise c_a >= f_pj, and with
   * FUS_TIGHT_ARRAYS c_a >= f_{j1 j2} for two consumers. */
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x = &g->var[v];
    int p = x->producer;
    if (!x->is_array || p < 0 || lid[p] < 0 || (!x->live_out && x->nconsumers == 0)) continue;
    int one = x->live_out;
    for (int u = 0; u < x->nconsumers && !one; u++) {
      int j = x->consumers[u];
      one = lid[j] < 0;
      if (tight & FUS_TIGHT_ARRAYS) {
        one |= apart[p * n + j];
        for (int e = 0; e < u && !one; e++) one = apart[x->consumers[e] * n + j];
      }
    }
    int c = fus_ilp_col(m, nz_sprintf(A, "c_%d", v), one, 1, fus_w_array(&w, v), 1, 'c', v, -1);
    if (one) continue;
    for (int u = 0; u < x->nconsumers; u++) {
      int j = x->consumers[u];
      fus_ilp_row(m, nz_sprintf(A, "array_%d_%d", v, j), 'G', 0);
      fus_ilp_term(m, c, 1), fus_ilp_term(m, fcol(fbase, ng, lid[p], lid[j]), -1);
      if (tight & FUS_TIGHT_ARRAYS)
        for (int e = 0; e < u; e++) {
          fus_ilp_row(m, nz_sprintf(A, "array_pair_%d_%d_%d", v, x->consumers[e], j), 'G', 0);
          fus_ilp_term(m, c, 1), fus_ilp_term(m, fcol(fbase, ng, lid[x->consumers[e]], lid[j]), -1);
        }
    }
  }
  /* Reads by members: shared only with earlier readers and a producer in the
   * group (the others are singletons). */
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x = &g->var[v];
    if (!x->is_array) continue;
    int p = x->producer >= 0 && lid[x->producer] >= 0 ? x->producer : -1;
    for (int u = 0; u < x->nconsumers; u++) {
      int i = x->consumers[u];
      if (lid[i] < 0) continue;
      int t = fus_ilp_col(m, nz_sprintf(A, "t_%d_%d", i, v), 0, 1, fus_w_read(&w, v), 1, 't', i, v);
      int others = p >= 0;
      for (int e = 0; e < u; e++) others += lid[x->consumers[e]] >= 0;
      fus_ilp_row(m, nz_sprintf(A, "read_%d_%d", i, v), 'G', 1 - others);
      fus_ilp_term(m, t, 1);
      for (int e = 0; e < u; e++)
        if (lid[x->consumers[e]] >= 0) fus_ilp_term(m, fcol(fbase, ng, lid[x->consumers[e]], lid[i]), -1);
      if (p >= 0) fus_ilp_term(m, fcol(fbase, ng, lid[p], lid[i]), -1);
    }
  }
#undef OCOL
  free(lo);
  free(up);
  return m;
}

/* fus_ilp_assign, then the members' o renumbered to 0..K-1 in the same order:
 * the group's clusters at consecutive positions. */
void fus_ilp_group_assign(const FusGroup *G, void *aux, const FusIlp *m, const int *cl, double *x) {
  (void)aux;
  fus_ilp_assign(m, G->g, cl, x);
  int ng = G->ng;
  /* y (role 'x', FUS_TIGHT_REP): same cluster AND k of its first end. */
  for (int j = 0; j < m->ncols; j++)
    if (m->role[j] == 'x') {
      int first = 1;
      for (int i = 0; i < m->ra[j] && first; i++) first = cl[i] != cl[m->ra[j]];
      x[j] = x[j] > 0.5 && first;
    }
  double *v = nz_xmalloc(sizeof(double) * ((size_t)ng + 1));
  for (int a = 0; a < ng; a++) v[a] = x[m->ocol[G->mem[a]]];
  for (int a = 1; a < ng; a++) /* insertion sort: ng is small */
    for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
      double t = v[b];
      v[b] = v[b - 1], v[b - 1] = t;
    }
  int k = 0;
  for (int a = 0; a < ng; a++)
    if (a == 0 || v[a] != v[a - 1]) v[k++] = v[a];
  for (int a = 0; a < ng; a++) {
    double *o = &x[m->ocol[G->mem[a]]];
    int r = 0;
    while (v[r] != *o) r++;
    *o = r;
  }
  free(v);
}

/* The group's clusters from equal o, every other invocation alone. */
void fus_ilp_group_recover(const FusGroup *G, void *aux, const FusIlp *m, const double *x, int *cl) {
  (void)aux;
  for (int i = 0; i < G->n; i++) cl[i] = i;
  for (int a = 0; a < G->ng; a++) {
    int o = (int)(x[m->ocol[G->mem[a]]] + 0.5);
    cl[G->mem[a]] = G->n + (o < 0 ? 0 : o);
  }
}

static FusIlp *group_build(const FusGroup *G, FusWeights w, void **aux) {
  *aux = NULL;
  return fus_ilp_build_group(G, w, FUS_TIGHT_DEFAULT);
}

const FusGroupModel fus_ilp_group = {"ilp", group_build, fus_ilp_group_assign, fus_ilp_group_recover, NULL, NULL, 0}; /* the reference: no forced pairs */
