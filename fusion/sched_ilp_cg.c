/* sched_ilp_cg.c — `ilp-cg`: the fusion problem as set partitioning over legal
 * clusters, solved exactly by branch-and-price (ILP.md, "Set partitioning").
 * One 0/1 column per legal cluster, priced by a search over convex sets of
 * pairwise fusable invocations; CLP (or GLPK, NESSIE_CG_LP=glpk) solves the
 * master LPs (cg_lp.c), Ryan–Foster branching on pairs, acyclicity by cuts on
 * fused pairs. */
#include "cg_lp.h"
#include "fusion.h"

#include <limits.h>
#include <math.h>

/* Reduced costs count as negative below -RC_EPS (objective units; the
 * cheapest term, one traversal, is 1). The node bound stays exact: it is the
 * Lagrangian bound, which charges every one of at most n clusters RC_EPS. */
#define RC_EPS 1e-6
/* Objectives are integers, so a node whose bound exceeds best - 1 cannot
 * hold a better partition. The bound is computed from the duals directly
 * (weak duality holds for any duals), so its only error is rounding. */
#define PRUNE_GAP (1 - 1e-4)
/* Columns kept per component and pricing round: at most PRICE_KEEP, and at
 * most one per two atoms of the component (at least 8). A round stops
 * searching a component once it holds that many and has spent PRICE_ENOUGH
 * search nodes. */
#define PRICE_KEEP 64
#define PRICE_ENOUGH 20000
/* Work units (about microseconds) that pace the heuristics inside a node:
 * per column of an LP solved, and per pricing search node (CG.heur_work). */
#define WORK_COL 2.5
#define WORK_NODE 1.5
/* ... and per candidate the greedy pricing tries (0.23-0.37 us measured at
 * 60-150 invocations). */
#define WORK_TRIAL 0.3
/* In regions of at most this many invocations every component starts its
 * cheap pricing with the greedy search, in larger ones with the bounded
 * search (cheap_round; ILP.md, "Pricing"). */
#define GREEDY_FIRST_MAX 64
/* Columns of the restricted master's MIP on a big pool: at the close, and
 * inside the search (ILP.md, "Heuristics": smaller MIPs there, same trees). */
#define RMP_COLS 2000
#define RMP_SEARCH_COLS 500
/* Under a work limit alone (no time limit) the restricted master is bounded
 * by counted work instead of its time budgets: 3 % of the limit inside the
 * search, 10 % at the close, with WORK_MIP_NODE units per branch-and-bound
 * node of its MIPs (measured 1-1.5 ms each on 500-column masters) and
 * WORK_CHECK per legality check of its repairs (FUS_CHECKS_PER_SECOND). */
#define WORK_MIP_NODE 1000.0
#define WORK_CHECK 2.5

/* The duals (lp_duals' vector, ny long) of the last complete search that
 * found no column at its node, with its tau and least reduced cost. */
typedef struct {
  double *y;
  size_t ny;
  double tau, minrc;
} DualMemo;

typedef struct {
  int n;
  int *mem;       /* increasing */
  uint64_t *bits; /* W words */
  double cost;
  int arrays, reads; /* the cost's terms: materialised arrays, traversals */
  int col;           /* GLPK column */
} Col;

/* A cycle cut: Σ_{pairs} sign * [both in one cluster] <= rhs. Jumps (+1) are
 * the pairs where the cycle enters and leaves a cluster, crossings (-1) its
 * edges between clusters (ILP.md: any partition fusing every jump and no
 * crossing contains the cycle). */
typedef struct {
  int np;
  int *a, *b, *sign;
  double rhs;
  int row;
  /* A reach row instead (np = 0, ILP.md "Set partitioning"): columns that
   * hold rj and an ancestor of rk (anc_k, W words), or rk and an ancestor
   * of rj, coefficient 1. */
  const uint64_t *anc_j, *anc_k;
  int rj, rk, W;
} Cut;

/* The duals the pricing uses (lp_duals' vector): π per invocation (row i),
 * then those of the kernels row Σλ (row n), of the arrays row Σ arrays(S)λ
 * and of the traversals row Σ reads(S)λ, then those of the cut rows. The
 * arrays and traversals rows enter the LP with the first branch on arrays
 * (before, the LP is what it was without them). */
enum { Y_KERNELS, Y_ARRAYS, Y_READS, NFIXED };

/* What a node's decision bounds, if not a pair: kernels <= i, kernels >= i,
 * arrays <= i, traversals <= i. */
enum { ON_PAIR, KERNELS_AT_MOST, KERNELS_AT_LEAST, ARRAYS_AT_MOST, READS_AT_MOST };

typedef struct Node {
  struct Node *parent;
  int i, j, together; /* the decision taken on the way from parent: on a pair, */
  int kind;           /* or (kind != ON_PAIR) a bound i on a count */
  double bound;
  int depth;
} Node;

typedef struct {
  const FusGraph *g;
  int n, W;
  const char *apart;
  int *partner, *forder, nforced; /* fus_forced_partners, and the join order */
  FusWeights w;
  /* Under a sized model (fusion.h's FusCostModel) the weights differ per
   * invocation and per array: kw the kernel term of a cluster whose first
   * member is j, aw and rw an array's materialisation and traversal, each
   * rounded to whole nanoseconds, so that every objective is an integer, as
   * the bounds and PRUNE_GAP assume. The schedule is then optimal for the
   * rounded model, within half a nanosecond per term of the exact one. NULL
   * under the unit model, whose weights are w's constants. kw_min: the least
   * kernel term. */
  double *kw, *aw, *rw, kw_min;
  uint64_t *anc; /* row j, bit m: m ⇝ j */
  int *comp, ncomp;
  /* Per component, for the cheap pricing rounds (cheap_round): columns the
   * last search added, and whether the bounded search is skipped (it failed
   * where the greedy one then succeeded). */
  int *comp_added;
  char *skip_bounded;
  char *quiet; /* both cheap searches found nothing: skipped until all are quiet */
  CgLp *lp;
  int lp_status; /* cg_lp_solve's last result */
  NZ_VEC(Col) cols;
  NZ_VEC(Cut) cuts;
  NZ_VEC(Cut) pending; /* valid cuts not yet in the LP (add_pending_cuts) */
  int *hash, hcap; /* open addressing over cols, -1 empty */
  /* The current node: together-sets ("atoms") and apart decisions. */
  int *uf;           /* union-find over invocations */
  char *dapart;      /* n*n: made apart by a decision */
  int natoms, *aof;  /* atom of each invocation */
  int *astart, *amem; /* members of atom a: amem[astart[a] .. astart[a+1]) */
  char *acompat;     /* natoms^2 */
  double *api;       /* per atom: Σ π of members */
  /* Duals of the current LP. */
  double *pi, *pairw, *bonus;
  int haspw;
  NZ_VEC(int) reach_on; /* reach rows (indices into cuts) with a negative dual */
  double *reach_pen;    /* per cut: -dual, the penalty of a column in it */
  int klo, khi;   /* the node's bounds on the number of clusters */
  double rho;     /* the dual of the kernels row, as used */
  int ahi, thi;   /* the node's bounds on arrays and traversals (INT_MAX: none) */
  int row_arrays, row_reads; /* their rows, -1 until the first branch on arrays */
  double sigma, theta;       /* the duals of those rows, as used (<= 0) */
  /* Scratch for costs. */
  int *stamp, gen;
  /* Best partition. */
  int *best;
  double best_obj;
  int best_from_search;
  double deadline;
  int timed_out;
  long nodes, lps;
  int small; /* at most GREEDY_FIRST_MAX invocations */
  long kbranches, abranches; /* branches on the number of kernels, of arrays */
  int root_rounds;
  double t_start;
  /* Column generation runs the heuristics after heur_every units of work
   * since the node started or they last ran: work, not seconds, so that a
   * run repeats whatever the machine's load. A unit is about a microsecond
   * here (measured at 150-300 invocations: 1.6-3.1 us per column of an LP
   * solved, 1.3-2.2 us per pricing search node; WORK_COL, WORK_NODE). */
  double heur_work, heur_every;
  /* The work limit (FusOptions.work_limit; 0: none) in the same units, and
   * the work done so far: the search stops, as at its deadline, once over. */
  double work_total, work_limit;
  double t_price, t_lp; /* seconds spent pricing and in the simplex */
  long dfs_work;
  double *y; /* the duals column generation prices with now */
  DualMemo memo;
  FusOptions *opt;
} CG;

#define BIT(B, i) (((B)[(i) >> 6] >> ((i)&63)) & 1)
#define SETB(B, i) ((B)[(i) >> 6] |= (uint64_t)1 << ((i)&63))

/* A term's weight with w's dual offsets (price subtracts the kernels,
 * arrays and traversals rows' duals from w's constants): under the unit
 * model the constants themselves, under a sized one C's per-invocation and
 * per-array weights moved by the same offsets. */
static inline double w_kernel(const CG *C, FusWeights w, int j) {
  return C->kw ? C->kw[j] + (w.kernels - C->w.kernels) : w.kernels;
}
static inline double w_array(const CG *C, FusWeights w, int v) {
  return C->kw ? C->aw[v] + (w.arrays - C->w.arrays) : w.arrays;
}
static inline double w_read(const CG *C, FusWeights w, int v) {
  return C->kw ? C->rw[v] + (w.traversals - C->w.traversals) : w.traversals;
}
/* The least kernel term of a cluster drawn from `in` (W words), with w's
 * offset: a bound on every extension's, whichever member comes first. */
static double w_kernel_least(const CG *C, FusWeights w, const uint64_t *in) {
  if (!C->kw) return w.kernels;
  double m = INFINITY;
  for (int x = 0; x < C->W; x++)
    for (uint64_t b = in[x]; b; b &= b - 1) {
      int j = x * 64 + __builtin_ctzll(b);
      if (C->kw[j] < m) m = C->kw[j];
    }
  return (isfinite(m) ? m : 0) + (w.kernels - C->w.kernels);
}

static int out_of_time(CG *C) {
  if (C->deadline > 0 && nz_now() > C->deadline) C->timed_out = 1;
  if (C->work_limit > 0 && C->work_total > C->work_limit) C->timed_out = 1;
  return C->timed_out;
}

/* Is the work limit spent, counting `pending` units not yet added? */
static int out_of_work(CG *C, double pending) {
  if (C->work_limit > 0 && C->work_total + pending > C->work_limit) C->timed_out = 1;
  return C->timed_out;
}

/* ----------------------------------------------------------- cluster costs */

/* Cost terms of the cluster mem[0..k), where `in` says who counts as inside:
 * the cluster itself (exact cost) or the cluster with every invocation that
 * may still join it (a lower bound on the cost of any such extension: fewer
 * outsiders can only mean fewer materialised arrays and reads). */
static double cluster_cost_terms(CG *C, const int *mem, int k, const uint64_t *in, FusWeights w, int *narrays,
                                 int *nreads) {
  const FusGraph *g = C->g;
  int arrays = 0, reads = 0;
  double ca = 0, cr = 0; /* the arrays' and reads' weights */
  if (++C->gen == 0x7fffffff) {
    memset(C->stamp, 0, sizeof(int) * (size_t)(g->nvar ? g->nvar : 1));
    C->gen = 1;
  }
  for (int a = 0; a < k; a++) {
    const FusInv *I = &g->inv[mem[a]];
    for (int d = 0; d < I->ndefs; d++) {
      const FusVar *x = &g->var[I->defs[d]];
      if (!x->is_array) continue;
      int mat = x->live_out;
      for (int u = 0; u < x->nconsumers && !mat; u++) mat = !BIT(in, x->consumers[u]);
      arrays += mat;
      if (mat) ca += w_array(C, w, I->defs[d]);
    }
    for (int u = 0; u < I->nuses; u++) {
      int v = I->uses[u].var;
      const FusVar *x = &g->var[v];
      if (!x->is_array || (x->producer >= 0 && BIT(in, x->producer)) || C->stamp[v] == C->gen) continue;
      C->stamp[v] = C->gen;
      reads++;
      cr += w_read(C, w, v);
    }
  }
  if (narrays) *narrays = arrays, *nreads = reads;
  if (!C->kw) return w.kernels + w.arrays * arrays + w.traversals * reads;
  /* The kernel term: the first member's when `in` is the cluster itself,
   * else the least over `in` (a bound on every extension's). */
  int size = 0, first = INT_MAX;
  for (int x = 0; x < C->W; x++) size += __builtin_popcountll(in[x]);
  for (int a = 0; a < k; a++)
    if (mem[a] < first) first = mem[a];
  double kt = size == k && k > 0 ? w_kernel(C, w, first) : w_kernel_least(C, w, in);
  return kt + ca + cr;
}

static double cluster_cost(CG *C, const int *mem, int k, const uint64_t *in, FusWeights w) {
  return cluster_cost_terms(C, mem, k, in, w, NULL, NULL);
}

/* ------------------------------------------------------------ column pool */

static unsigned hash_bits(const uint64_t *b, int W) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < W; i++) h = (h ^ b[i]) * 1099511628211ull;
  return (unsigned)(h ^ (h >> 32));
}

static int find_col(const CG *C, const uint64_t *bits) {
  for (unsigned h = hash_bits(bits, C->W) & (unsigned)(C->hcap - 1);; h = (h + 1) & (unsigned)(C->hcap - 1)) {
    int c = C->hash[h];
    if (c < 0) return -1;
    if (!memcmp(C->cols.v[c].bits, bits, sizeof(uint64_t) * (size_t)C->W)) return c;
  }
}

static void hash_insert(CG *C, int c) {
  for (unsigned h = hash_bits(C->cols.v[c].bits, C->W) & (unsigned)(C->hcap - 1);;
       h = (h + 1) & (unsigned)(C->hcap - 1))
    if (C->hash[h] < 0) {
      C->hash[h] = c;
      return;
    }
}

static void cut_free(Cut *u) {
  free(u->a);
  free(u->b);
  free(u->sign);
}

static int pair_in(const Col *k, int a, int b) {
  return BIT(k->bits, a) && BIT(k->bits, b);
}

static int meets(const uint64_t *a, const uint64_t *b, int W) {
  for (int x = 0; x < W; x++)
    if (a[x] & b[x]) return 1;
  return 0;
}

/* The coefficient of the set `bits` in reach row u. */
static int reach_coef(const Cut *u, const uint64_t *bits) {
  return (BIT(bits, u->rj) && meets(bits, u->anc_k, u->W)) || (BIT(bits, u->rk) && meets(bits, u->anc_j, u->W));
}

static double cut_coef(const Cut *u, const Col *k) {
  if (u->anc_k) return reach_coef(u, k->bits);
  double s = 0;
  for (int p = 0; p < u->np; p++)
    if (pair_in(k, u->a[p], u->b[p])) s += u->sign[p];
  return s;
}

/* What the reach rows with a negative dual add to the reduced cost of the
 * set `bits`. The pricing's bounds leave it out (it is >= 0, so they stay
 * bounds); its leaves and the heuristics count it exactly. */
static double reach_penalty(const CG *C, const uint64_t *bits) {
  double s = 0;
  for (int e = 0; e < C->reach_on.n; e++) {
    int u = C->reach_on.v[e];
    if (reach_coef(&C->cuts.v[u], bits)) s += C->reach_pen[u];
  }
  return s;
}

/* Orders indices by increasing value of ctx[index]. */
static int by_rc(const void *x, const void *y, void *ctx) {
  const double *rc = ctx;
  double a = rc[*(const int *)x], b = rc[*(const int *)y];
  return a < b ? -1 : a > b ? 1 : *(const int *)x - *(const int *)y;
}

/* May column k be used at the current node (no pair decided apart inside,
 * every together-set wholly in or out)? */
static int col_allowed(const CG *C, const Col *k) {
  int n = C->n;
  for (int p = 0; p < k->n; p++) {
    int i = k->mem[p];
    for (int q = p + 1; q < k->n; q++)
      if (C->dapart[i * n + k->mem[q]]) return 0;
    int a = C->aof[i];
    for (int e = C->astart[a]; e < C->astart[a + 1]; e++)
      if (!BIT(k->bits, C->amem[e])) return 0;
  }
  return 1;
}

/* Puts pool column c into the LP, with the current node's bounds. */
static void activate(CG *C, int c) {
  Col *k = &C->cols.v[c];
  int nz = 0;
  int *ind = nz_xmalloc(sizeof(int) * ((size_t)k->n + (size_t)C->cuts.n + NFIXED));
  double *val = nz_xmalloc(sizeof(double) * ((size_t)k->n + (size_t)C->cuts.n + NFIXED));
  for (int a = 0; a < k->n; a++) ind[nz] = k->mem[a], val[nz++] = 1;
  ind[nz] = C->n, val[nz++] = 1; /* the kernels row */
  if (C->row_arrays >= 0 && k->arrays) ind[nz] = C->row_arrays, val[nz++] = k->arrays;
  if (C->row_reads >= 0 && k->reads) ind[nz] = C->row_reads, val[nz++] = k->reads;
  for (int u = 0; u < C->cuts.n; u++) {
    double v = cut_coef(&C->cuts.v[u], k);
    if (v != 0) ind[nz] = C->cuts.v[u].row, val[nz++] = v;
  }
  k->col = cg_lp_add_col(C->lp, nz, ind, val, k->cost, 0, col_allowed(C, k) ? INFINITY : 0);
  free(ind);
  free(val);
}

/* Adds the cluster mem[0..k) (increasing, legal) to the pool and the LP
 * unless present; returns its index, *fresh = 1 if it is new. */
static int add_col(CG *C, const int *mem, int k, int *fresh) {
  uint64_t *bits = nz_xcalloc((size_t)C->W, sizeof(uint64_t));
  for (int a = 0; a < k; a++) SETB(bits, mem[a]);
  int have = find_col(C, bits);
  if (fresh) *fresh = have < 0;
  if (have >= 0) {
    free(bits);
    return have;
  }
  Col col = {k, nz_xmalloc(sizeof(int) * (size_t)k), bits, 0, 0, 0, 0};
  memcpy(col.mem, mem, sizeof(int) * (size_t)k);
  col.cost = cluster_cost_terms(C, mem, k, bits, C->w, &col.arrays, &col.reads);
  nz_vec_push(C->cols, col);
  int c = C->cols.n - 1;
  activate(C, c);
  if (C->cols.n * 2 > C->hcap) {
    free(C->hash);
    C->hcap *= 2;
    C->hash = nz_xmalloc(sizeof(int) * (size_t)C->hcap);
    for (int h = 0; h < C->hcap; h++) C->hash[h] = -1;
    for (int e = 0; e < C->cols.n; e++) hash_insert(C, e);
  } else {
    hash_insert(C, c);
  }
  return c;
}

/* A column's value in the LP solution. */
static double colx(const CG *C, const Col *k) {
  return cg_lp_x(C->lp, k->col);
}

/* Every cluster of a legal partition cl (canonical) into the pool. */
static void add_partition(CG *C, const int *cl) {
  int n = C->n, k = 0;
  for (int i = 0; i < n; i++)
    if (cl[i] + 1 > k) k = cl[i] + 1;
  int *mem = nz_xmalloc(sizeof(int) * (size_t)n);
  for (int c = 0; c < k; c++) {
    int m = 0;
    for (int i = 0; i < n; i++)
      if (cl[i] == c) mem[m++] = i;
    add_col(C, mem, m, NULL);
  }
  free(mem);
}

/* --------------------------------------------------------------- nodes */

/* Sets up the node's decisions: atoms, apart pairs, column bounds. Returns 0
 * if a together-set holds an apart pair (the node is infeasible). */
static int enter_node(CG *C, const Node *v) {
  int n = C->n;
  for (int i = 0; i < n; i++) C->uf[i] = i;
  for (int i = 0; i < n; i++) /* every optimal partition fuses these */
    if (C->partner[i] >= 0) C->uf[fus_uf_find(C->uf, i)] = fus_uf_find(C->uf, C->partner[i]);
  memset(C->dapart, 0, (size_t)n * (size_t)n);
  C->klo = 0, C->khi = n;
  C->ahi = C->thi = INT_MAX;
  for (const Node *u = v; u && u->parent; u = u->parent) {
    if (u->kind == KERNELS_AT_MOST) {
      if (u->i < C->khi) C->khi = u->i;
    } else if (u->kind == KERNELS_AT_LEAST) {
      if (u->i > C->klo) C->klo = u->i;
    } else if (u->kind == ARRAYS_AT_MOST) {
      if (u->i < C->ahi) C->ahi = u->i;
    } else if (u->kind == READS_AT_MOST) {
      if (u->i < C->thi) C->thi = u->i;
    } else if (u->together)
      C->uf[fus_uf_find(C->uf, u->i)] = fus_uf_find(C->uf, u->j);
    else
      C->dapart[u->i * n + u->j] = C->dapart[u->j * n + u->i] = 1;
  }
  cg_lp_row_bounds(C->lp, n, C->klo, C->khi);
  if (C->row_arrays >= 0) {
    cg_lp_row_bounds(C->lp, C->row_arrays, -INFINITY, C->ahi == INT_MAX ? INFINITY : C->ahi);
    cg_lp_row_bounds(C->lp, C->row_reads, -INFINITY, C->thi == INT_MAX ? INFINITY : C->thi);
  }
  if (C->klo > C->khi || C->ahi < 0 || C->thi < 0) return 0;
  /* Atoms numbered by their smallest member. */
  int na = 0;
  int *id = nz_xmalloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) id[i] = -1;
  for (int i = 0; i < n; i++) {
    int r = fus_uf_find(C->uf, i);
    if (id[r] < 0) id[r] = na++;
    C->aof[i] = id[r];
  }
  free(id);
  C->natoms = na;
  memset(C->astart, 0, sizeof(int) * ((size_t)n + 1));
  for (int i = 0; i < n; i++) C->astart[C->aof[i] + 1]++;
  for (int a = 0; a < na; a++) C->astart[a + 1] += C->astart[a];
  int *fill = nz_xmalloc(sizeof(int) * ((size_t)n + 1));
  memcpy(fill, C->astart, sizeof(int) * ((size_t)n + 1));
  for (int i = 0; i < n; i++) C->amem[fill[C->aof[i]]++] = i;
  free(fill);
  int ok = 1;
  memset(C->acompat, 1, (size_t)na * (size_t)na);
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      if (!C->apart[i * n + j] && !C->dapart[i * n + j]) continue;
      int a = C->aof[i], b = C->aof[j];
      if (a == b) ok = 0;
      C->acompat[a * na + b] = C->acompat[b * na + a] = 0;
    }
  /* Columns that break a decision are fixed at zero. */
  for (int c = 0; c < C->cols.n; c++)
    cg_lp_col_bounds(C->lp, C->cols.v[c].col, 0, col_allowed(C, &C->cols.v[c]) ? INFINITY : 0);
  return ok;
}

/* -------------------------------------------------------------- pricing */

/* Dinic's max flow on a small graph with double capacities. */
typedef struct {
  int nn;
  NZ_VEC(int) to, next;
  NZ_VEC(double) cap;
  int *head, *level, *it, *q, capn;
} Flow;


typedef struct {
  CG *C;
  FusWeights w; /* the columns' costs (zero in phase one) */
  int comp;
  /* Per depth: the cluster's members, descendants and ancestors. */
  int *mem, nmem;
  uint64_t *desc, *anc, *in, *reach; /* (n+1) x W each, by depth; reach = in ∪ candidates */
  uint64_t *adesc, *aanc; /* natoms x W: per atom, its members' descendants and ancestors */
  double found_rc[PRICE_KEEP];
  int *found[PRICE_KEEP], nfound_mem[PRICE_KEEP], nfound, keep;
  double dup_min; /* the most negative reduced cost among columns already in the pool */
  long work, limit; /* DFS nodes so far and allowed (0: no limit) */
  int *ccount, *cstamp, cgen; /* readers among the candidates, per variable */
  int *node, *mark, mgen;     /* cut_bound's scratch */
  Flow flow;
  int complete; /* searched to the end */
  double tau;   /* subtrees whose value bound is at most tau are not searched */
  int convex;   /* the bounds charge convexity against the set (complete searches,
                   and every search in a small region) */
} Pricer;

static double gains(Pricer *P, const int *cand, int nc, const uint64_t *reach);

/* The cut rows' pair penalties (positive pair weights) between atom a and
 * the set's members: certain costs if a joins, so both bounds subtract them
 * from a's gain (measured: without, the bounds in a 150-invocation region's
 * hardest pricing averaged 10^4 above the threshold, and its complete
 * searches took 19.5 of 30 s; with, 7 s). */
static double member_penalty(const Pricer *P, int a) {
  const CG *C = P->C;
  if (!C->haspw) return 0;
  double s = 0;
  int n = C->n;
  for (int e = C->astart[a]; e < C->astart[a + 1]; e++)
    for (int u = 0; u < P->nmem; u++) {
      double w = C->pairw[P->mem[u] * n + C->amem[e]];
      if (w > 0) s += w;
    }
  return s;
}

/* ------------------------------------------------- the min-cut bound */


static void flow_reset(Flow *F, int nn) {
  if (nn > F->capn) {
    F->capn = nn * 2;
    F->head = nz_xrealloc(F->head, sizeof(int) * (size_t)F->capn);
    F->level = nz_xrealloc(F->level, sizeof(int) * (size_t)F->capn);
    F->it = nz_xrealloc(F->it, sizeof(int) * (size_t)F->capn);
    F->q = nz_xrealloc(F->q, sizeof(int) * (size_t)F->capn);
  }
  F->nn = nn;
  for (int v = 0; v < nn; v++) F->head[v] = -1;
  F->to.n = F->next.n = F->cap.n = 0;
}

static void flow_edge(Flow *F, int a, int b, double c) {
  if (a == b || c <= 0) return;
  nz_vec_push(F->to, b);
  nz_vec_push(F->cap, c);
  nz_vec_push(F->next, F->head[a]);
  F->head[a] = F->to.n - 1;
  nz_vec_push(F->to, a);
  nz_vec_push(F->cap, 0);
  nz_vec_push(F->next, F->head[b]);
  F->head[b] = F->to.n - 1;
}

static double flow_push(Flow *F, int v, int t, double f) {
  if (v == t) return f;
  for (; F->it[v] >= 0; F->it[v] = F->next.v[F->it[v]]) {
    int e = F->it[v], w = F->to.v[e];
    if (F->cap.v[e] <= 1e-9 || F->level[w] != F->level[v] + 1) continue;
    double d = flow_push(F, w, t, f < F->cap.v[e] ? f : F->cap.v[e]);
    if (d > 0) {
      F->cap.v[e] -= d;
      F->cap.v[e ^ 1] += d;
      return d;
    }
  }
  return 0;
}

static double flow_max(Flow *F, int s, int t) {
  double total = 0;
  for (;;) {
    for (int v = 0; v < F->nn; v++) F->level[v] = -1;
    int qh = 0, qt = 0;
    F->q[qt++] = s;
    F->level[s] = 0;
    while (qh < qt) {
      int v = F->q[qh++];
      for (int e = F->head[v]; e >= 0; e = F->next.v[e])
        if (F->cap.v[e] > 1e-9 && F->level[F->to.v[e]] < 0) F->level[F->to.v[e]] = F->level[v] + 1, F->q[qt++] = F->to.v[e];
    }
    if (F->level[t] < 0) return total;
    for (int v = 0; v < F->nn; v++) F->it[v] = F->head[v];
    double f;
    while ((f = flow_push(F, s, t, 1e300)) > 0) total += f;
  }
}

/* The invocations that convexity forces into the current set (depth nmem)
 * with atom b: those on a dataflow path between b and a member, not members
 * themselves. Writes them to out (W words); returns whether there are any. */
static int forced_with(const Pricer *P, int b, uint64_t *out) {
  int W = P->C->W;
  size_t at = (size_t)P->nmem * (size_t)W;
  const uint64_t *d = P->desc + at, *an = P->anc + at, *in = P->in + at;
  const uint64_t *bd = P->adesc + (size_t)b * W, *ba = P->aanc + (size_t)b * W;
  uint64_t any = 0;
  for (int x = 0; x < W; x++) any |= out[x] = ((d[x] & ba[x]) | (an[x] & bd[x])) & ~in[x] & ~(d[x] & an[x]);
  return any != 0;
}

/* Does atom b lie on a dataflow path between two members of the current set
 * (depth nmem)? Then every convex extension holds it. */
static int mandatory(const Pricer *P, int b) {
  const CG *C = P->C;
  int W = C->W;
  size_t at = (size_t)P->nmem * (size_t)W;
  int v = C->amem[C->astart[b]];
  return BIT(P->desc + at, v) && BIT(P->anc + at, v);
}

/* A bound on the value of every extension of the current set by candidate
 * atoms, exact but for two relaxations: candidates may join together even if
 * apart, and convexity is not asked. What is left is a selection problem
 * whose costs ("the producer joins but a consumer does not", "a reader joins
 * but the producer does not") are pairwise submodular, so a minimum cut
 * solves it. Members are source side, non-candidates sink side. */
static double cut_bound(Pricer *P, const int *cand, int nc, double pis, double pw) {
  CG *C = P->C;
  const FusGraph *g = C->g;
  Flow *F = &P->flow;
  /* Node of each invocation: 0 source (member), 1 sink (other), 2+e candidate e. */
  for (int m = 0; m < P->nmem; m++) P->node[P->mem[m]] = 0;
  for (int e = 0; e < nc; e++)
    for (int f = C->astart[cand[e]]; f < C->astart[cand[e] + 1]; f++) P->node[C->amem[f]] = 2 + e;
  int nn = 2 + nc;
  flow_reset(F, nn + 2 * g->nvar + 2);
  const double INF = 1e30;
  double konst = P->w.kernels, gsum = 0;
  if (C->kw) { /* the least kernel term over the members and the candidates */
    uint64_t *all = P->reach + (size_t)(C->n + 2) * (size_t)C->W; /* scratch row */
    memset(all, 0, sizeof(uint64_t) * (size_t)C->W);
    for (int m = 0; m < P->nmem; m++) SETB(all, P->mem[m]);
    for (int e = 0; e < nc; e++)
      for (int f = C->astart[cand[e]]; f < C->astart[cand[e] + 1]; f++) SETB(all, C->amem[f]);
    konst = w_kernel_least(C, P->w, all);
  }
  for (int e = 0; e < nc; e++) {
    double gain = C->api[cand[e]] - member_penalty(P, cand[e]);
    for (int f = C->astart[cand[e]]; f < C->astart[cand[e] + 1]; f++) gain += C->bonus[C->amem[f]];
    if (gain > 0) flow_edge(F, 0, 2 + e, gain), gsum += gain;
    else flow_edge(F, 2 + e, 1, -gain);
  }
#define NODE(i) (P->mark[i] == P->mgen ? P->node[i] : 1)
  /* Mark members and candidates. */
  if (++P->mgen == 0x7fffffff) {
    memset(P->mark, 0, sizeof(int) * (size_t)C->n);
    P->mgen = 1;
  }
  for (int m = 0; m < P->nmem; m++) P->mark[P->mem[m]] = P->mgen;
  for (int e = 0; e < nc; e++)
    for (int f = C->astart[cand[e]]; f < C->astart[cand[e] + 1]; f++) P->mark[C->amem[f]] = P->mgen;
  /* Convexity between a candidate and the set: if b joins, so does every
   * invocation on a path between b and a member (a closure arc b -> y; one
   * that is no candidate keeps b out). Only convexity among candidates
   * themselves is relaxed. */
  uint64_t *fb = P->reach + (size_t)(C->n + 1) * (size_t)C->W; /* scratch row */
  for (int e = 0; e < nc && P->convex; e++) {
    if (mandatory(P, cand[e])) flow_edge(F, 0, 2 + e, INF); /* on a path between members */
    if (!forced_with(P, cand[e], fb)) continue;
    for (int x = 0; x < C->W; x++)
      for (uint64_t m = fb[x]; m; m &= m - 1) {
        int y = x * 64 + __builtin_ctzll(m);
        int ny = NODE(y);
        flow_edge(F, 2 + e, ny, INF);
      }
  }
  /* Every array produced or read by a member or candidate, once. */
  if (++P->cgen == 0x7fffffff) {
    memset(P->cstamp, 0, sizeof(int) * (size_t)(g->nvar ? g->nvar : 1));
    P->cgen = 1;
  }
  for (int who = 0; who < P->nmem + nc; who++) {
    int a0, a1;
    const int *list;
    if (who < P->nmem) list = P->mem, a0 = who, a1 = who + 1;
    else list = C->amem, a0 = C->astart[cand[who - P->nmem]], a1 = C->astart[cand[who - P->nmem] + 1];
    for (int f = a0; f < a1; f++) {
      const FusInv *I = &g->inv[list[f]];
      for (int pass = 0; pass < 2; pass++) {
        int cnt = pass ? I->ndefs : I->nuses;
        for (int u = 0; u < cnt; u++) {
          int xv = pass ? I->defs[u] : I->uses[u].var;
          const FusVar *x = &g->var[xv];
          if (!x->is_array || P->cstamp[xv] == P->cgen) continue;
          P->cstamp[xv] = P->cgen;
          int pn = x->producer >= 0 ? NODE(x->producer) : 1;
          /* Materialised: the producer joins and some consumer does not. */
          if (pn != 1) {
            int forced = x->live_out;
            for (int k = 0; k < x->nconsumers && !forced; k++) forced = NODE(x->consumers[k]) == 1;
            double wa = w_array(C, P->w, xv);
            if (forced) {
              if (pn == 0) konst += wa;
              else flow_edge(F, pn, 1, wa);
            } else {
              int a = nn++;
              flow_edge(F, pn, a, wa);
              for (int k = 0; k < x->nconsumers; k++) flow_edge(F, a, NODE(x->consumers[k]), INF);
            }
          }
          /* Read: some reader joins and the producer does not. */
          if (pn != 0) {
            int b = -1, fixed = 0;
            for (int k = 0; k < x->nconsumers && !fixed; k++) {
              int rn = NODE(x->consumers[k]);
              if (rn == 0) fixed = 1;
              else if (rn != 1) {
                if (b < 0) b = nn++;
                flow_edge(F, rn, b, INF);
              }
            }
            double wr = w_read(C, P->w, xv);
            if (fixed) {
              if (pn == 1) konst += wr;
              else flow_edge(F, 0, pn, wr);
            } else if (b >= 0) {
              flow_edge(F, b, pn, wr);
            }
          }
        }
      }
    }
  }
#undef NODE
  F->nn = nn;
  double cut = flow_max(F, 0, 1);
  return pis - pw - konst + gsum - cut;
}

/* Value (minus the reduced cost) bound for the subtree and the exact value:
 * see price_dfs. */
static double pair_delta(const Pricer *P, int a, int depth_members) {
  const CG *C = P->C;
  if (!C->haspw) return 0;
  double s = 0;
  int n = C->n;
  for (int e = C->astart[a]; e < C->astart[a + 1]; e++) {
    int v = C->amem[e];
    for (int u = 0; u < depth_members; u++) s += C->pairw[P->mem[u] * n + v];
    for (int f = C->astart[a]; f < e; f++) s += C->pairw[C->amem[f] * n + v];
  }
  return s;
}

static void keep(Pricer *P, double rc) {
  CG *C = P->C;
  /* Already in the pool: a column the LP priced at >= 0 within its own
   * tolerance. Not added again; its reduced cost still counts for the bound. */
  uint64_t *bits = P->in + (size_t)P->nmem * (size_t)C->W; /* the current set */
  int have = find_col(C, bits);
  if (have >= 0) {
    if (rc < P->dup_min) P->dup_min = rc;
    return;
  }
  int slot = P->nfound;
  if (P->nfound == P->keep) {
    slot = 0;
    for (int s = 1; s < P->keep; s++)
      if (P->found_rc[s] > P->found_rc[slot]) slot = s;
    if (P->found_rc[slot] <= rc) return;
  } else {
    P->nfound++;
  }
  P->found_rc[slot] = rc;
  P->nfound_mem[slot] = P->nmem;
  memcpy(P->found[slot], P->mem, sizeof(int) * (size_t)P->nmem);
}

/* Depth-first over sets of atoms chosen in candidate order (each set once).
 * The current set has nmem members, Σπ = pis and pair weights pw. cand holds
 * the atoms that may still join (later in the order, compatible with all). */
static void price_dfs(Pricer *P, int *cand, int nc, double pis, double pw) {
  CG *C = P->C;
  int W = C->W;
  /* The clock every 64 nodes: a node with the cut bound costs up to milliseconds
   * (a min cut over hundreds of nodes), and every 1024 let a 300-invocation search
   * run 1.5 s past its deadline, and the region past its limit. */
  if ((++P->work & 63) == 0 && (out_of_work(C, WORK_NODE * (double)P->work) || out_of_time(C))) {
    P->complete = 0;
    return;
  }
  if (P->nfound == P->keep && P->work > PRICE_ENOUGH) return; /* enough for one round */
  if (P->limit && P->work > P->limit) {
    P->complete = 0;
    return;
  }
  int *next = nz_xmalloc(sizeof(int) * (size_t)(nc ? nc : 1));
  int base = P->nmem;
  const uint64_t *din = P->desc + (size_t)base * W, *ain = P->anc + (size_t)base * W, *iin = P->in + (size_t)base * W;
  for (int c = 0; c < nc && !C->timed_out; c++) {
    int a = cand[c];
    /* The set plus atom a, one level down. */
    int depth = base + (C->astart[a + 1] - C->astart[a]);
    uint64_t *d = P->desc + (size_t)depth * W, *an = P->anc + (size_t)depth * W, *in = P->in + (size_t)depth * W,
             *reach = P->reach + (size_t)depth * W;
    memcpy(d, din, sizeof(uint64_t) * (size_t)W);
    memcpy(an, ain, sizeof(uint64_t) * (size_t)W);
    memcpy(in, iin, sizeof(uint64_t) * (size_t)W);
    double dpw = pair_delta(P, a, base);
    for (int e = C->astart[a]; e < C->astart[a + 1]; e++) {
      int v = C->amem[e];
      P->mem[P->nmem++] = v;
      SETB(in, v);
      const uint64_t *pr = C->g->path + (size_t)v * W, *ar = C->anc + (size_t)v * W;
      for (int x = 0; x < W; x++) d[x] |= pr[x], an[x] |= ar[x];
    }
    double pis2 = pis + C->api[a], pw2 = pw + dpw;
    int nn = 0;
    memcpy(reach, in, sizeof(uint64_t) * (size_t)W);
    for (int e = c + 1; e < nc; e++) {
      int b = cand[e];
      if (!C->acompat[a * C->natoms + b]) continue;
      next[nn++] = b;
      for (int f = C->astart[b]; f < C->astart[b + 1]; f++) SETB(reach, C->amem[f]);
    }
    /* A candidate that convexity would make bring in an invocation that can
     * never join (neither member nor candidate) is in no extension. */
    if (P->convex) {
      uint64_t *fb = P->reach + (size_t)(C->n + 1) * (size_t)W; /* scratch row */
      int kept = 0;
      for (int e = 0; e < nn; e++) {
        int b = next[e], out = 0;
        if (forced_with(P, b, fb))
          for (int x = 0; x < W && !out; x++) out = (fb[x] & ~reach[x]) != 0;
        if (!out) next[kept++] = b;
      }
      if (kept < nn) {
        nn = kept;
        memcpy(reach, in, sizeof(uint64_t) * (size_t)W);
        for (int e = 0; e < nn; e++)
          for (int f = C->astart[next[e]]; f < C->astart[next[e] + 1]; f++) SETB(reach, C->amem[f]);
      }
    }
    /* Invocations on a path between members must join; if one cannot, no
     * extension of this set is convex. */
    int convex = 1, hopeless = 0;
    for (int x = 0; x < W; x++) {
      uint64_t mid = d[x] & an[x] & ~in[x];
      if (mid) convex = 0;
      if (mid & ~reach[x]) hopeless = 1;
    }
    if (!hopeless && convex) {
      double rc = cluster_cost(C, P->mem, P->nmem, in, P->w) - pis2 + pw2 + reach_penalty(C, in);
      if (rc < -RC_EPS) keep(P, rc);
    }
    if (!hopeless && nn > 0) { /* bounds only where there is a subtree */
      double lb = cluster_cost(C, P->mem, P->nmem, reach, P->w);
      /* A reach row's coefficient only grows with the set, so every
       * extension pays at least the set's own reach penalties. */
      double sure = reach_penalty(C, in);
      double bound = pis2 - pw2 + gains(P, next, nn, reach) - lb - sure;
      /* The cut bound is dearer; only where the cheap one fails with a
       * choice worth pruning. */
      if (nn >= 4 && bound > P->tau) bound = cut_bound(P, next, nn, pis2, pw2) - sure;
      if (bound > P->tau) price_dfs(P, next, nn, pis2, pw2);
    }
    P->nmem = base;
  }
  free(next);
}

/* Σ over the candidates of the most each may add to the value, if positive:
 * its duals and pair bonuses, less what it must cost whatever else joins —
 * arrays it materialises (live out, or read outside `reach`) and the reads
 * of arrays produced outside `reach` that neither the set (stamped by
 * cluster_cost's last call on it) nor any other candidate reads. Those costs
 * are disjoint across candidates, so the sum bounds every extension. */
static double gains(Pricer *P, const int *cand, int nc, const uint64_t *reach) {
  CG *C = P->C;
  const FusGraph *g = C->g;
  int sgen = C->gen; /* the set's reads, from the cluster_cost call before */
  if (++P->cgen == 0x7fffffff) {
    memset(P->ccount, 0, sizeof(int) * (size_t)(g->nvar ? g->nvar : 1));
    memset(P->cstamp, 0, sizeof(int) * (size_t)(g->nvar ? g->nvar : 1));
    P->cgen = 1;
  }
  for (int e = 0; e < nc; e++)
    for (int f = C->astart[cand[e]]; f < C->astart[cand[e] + 1]; f++) {
      const FusInv *I = &g->inv[C->amem[f]];
      for (int u = 0; u < I->nuses; u++) {
        int x = I->uses[u].var;
        if (P->cstamp[x] != P->cgen) P->cstamp[x] = P->cgen, P->ccount[x] = 0;
        P->ccount[x]++;
      }
    }
  double total = 0;
  for (int e = 0; e < nc; e++) {
    int b = cand[e];
    double gain = C->api[b] - member_penalty(P, b);
    for (int f = C->astart[b]; f < C->astart[b + 1]; f++) {
      int v = C->amem[f];
      const FusInv *I = &g->inv[v];
      gain += C->bonus[v];
      for (int d = 0; d < I->ndefs; d++) {
        const FusVar *x = &g->var[I->defs[d]];
        if (!x->is_array) continue;
        int mat = x->live_out;
        for (int u = 0; u < x->nconsumers && !mat; u++) mat = !BIT(reach, x->consumers[u]);
        if (mat) gain -= w_array(C, P->w, I->defs[d]);
      }
      for (int u = 0; u < I->nuses; u++) {
        int xv = I->uses[u].var;
        const FusVar *x = &g->var[xv];
        if (!x->is_array || (x->producer >= 0 && BIT(reach, x->producer))) continue;
        if (C->stamp[xv] == sgen || P->ccount[xv] != 1) continue;
        gain -= w_read(C, P->w, xv);
      }
    }
    if (gain > 0 || (P->convex && mandatory(P, b))) total += gain; /* a mandatory one joins whatever its sign */
  }
  return total;
}

static int by_api_desc(const void *x, const void *y, void *ctx) {
  const double *api = ctx;
  double a = api[*(const int *)x], b = api[*(const int *)y];
  return a > b ? -1 : a < b ? 1 : *(const int *)x - *(const int *)y;
}

/* A set price_greedy grows: its members (bits, and mem[0..k) in the order
 * they joined), the union of their descendants and of their ancestors (an
 * invocation in both is one convexity asks for), and the sums of their
 * duals and of the cut rows' pair weights among them. */
typedef struct {
  uint64_t *bits, *desc, *anc;
  int k;
  double pis, pw;
} GrowSet;

static void grow_by_atom(const CG *C, GrowSet *s, int *mem, int a) {
  int n = C->n, W = C->W;
  for (int e = C->astart[a]; e < C->astart[a + 1]; e++) {
    int v = C->amem[e];
    SETB(s->bits, v);
    for (int x = 0; x < W; x++) s->desc[x] |= C->g->path[(size_t)v * W + x], s->anc[x] |= C->anc[(size_t)v * W + x];
    if (C->haspw)
      for (int q = 0; q < s->k; q++) s->pw += C->pairw[mem[q] * n + v];
    mem[s->k++] = v, s->pis += C->pi[v];
  }
}

static void grow_copy(GrowSet *to, const GrowSet *from, size_t wb) {
  memcpy(to->bits, from->bits, wb), memcpy(to->desc, from->desc, wb), memcpy(to->anc, from->anc, wb);
  to->k = from->k, to->pis = from->pis, to->pw = from->pw;
}

/* Is array x materialised by a cluster `bits`: live out, or read outside? */
static int mat_in(const FusVar *x, const uint64_t *bits) {
  int mat = x->live_out;
  for (int u = 0; u < x->nconsumers && !mat; u++) mat = !BIT(bits, x->consumers[u]);
  return mat;
}

/* The cost of in ∪ N (trial: its bits; N = mem[k0..k1)) from in's own
 * (arrays na, reads nr; its outside reads stamped C->stamp == sgen by the
 * cluster_cost call on it), touching only N's arrays: what N produces, what N
 * reads (a new read, or one of in's arrays no longer read outside), and in's
 * reads of arrays N produces. Equal to cluster_cost on the trial, at a cost
 * in |N| instead of |in ∪ N| (price_greedy tries every candidate at every
 * step). */
static double grown_cost(CG *C, const uint64_t *inbits, int sgen, int na, int nr, const int *mem, int k0, int k1,
                         const uint64_t *bits, FusWeights w, int *tstamp, int tgen) {
  /* Under a sized model the terms' weights differ: the whole cost, afresh
   * (price_greedy takes in's stamps again at its next step). */
  if (C->kw) return cluster_cost(C, mem, k1, bits, w);
  const FusGraph *g = C->g;
  for (int q = k0; q < k1; q++) {
    const FusInv *I = &g->inv[mem[q]];
    for (int u = 0; u < I->nuses; u++) {
      int xv = I->uses[u].var;
      const FusVar *x = &g->var[xv];
      if (!x->is_array || tstamp[xv] == tgen) continue;
      if (x->producer >= 0 && BIT(inbits, x->producer)) { /* in's array: maybe no longer read outside */
        tstamp[xv] = tgen;
        na += mat_in(x, bits) - mat_in(x, inbits);
      } else if (!(x->producer >= 0 && BIT(bits, x->producer)) && C->stamp[xv] != sgen) {
        tstamp[xv] = tgen; /* a new read from outside */
        nr++;
      }
    }
    for (int d = 0; d < I->ndefs; d++) {
      int xv = I->defs[d];
      const FusVar *x = &g->var[xv];
      if (!x->is_array) continue;
      na += mat_in(x, bits);
      if (C->stamp[xv] == sgen) nr--; /* in read it from outside; now it is produced inside */
    }
  }
  return w.kernels + w.arrays * na + w.traversals * nr;
}

/* Greedy pricing: from each atom, add the compatible atom (with whatever
 * convexity then forces in) that raises the value most, while it rises; a
 * set worth a negative reduced cost that is not in the pool becomes a
 * column. Cheap (no proof of anything), and often enough on deep regions
 * where the bounded search needs many nodes before its first column. */
static int price_greedy(CG *C, FusWeights w, const char *only) {
  int n = C->n, W = C->W, na = C->natoms, added = 0;
  double t0 = nz_now();
  w.kernels -= C->rho, w.arrays -= C->sigma, w.traversals -= C->theta;
  size_t wb = sizeof(uint64_t) * (size_t)W;
  GrowSet in = {nz_xmalloc(wb), nz_xmalloc(wb), nz_xmalloc(wb), 0, 0, 0}; /* grown so far */
  GrowSet trial = {nz_xmalloc(wb), nz_xmalloc(wb), nz_xmalloc(wb), 0, 0, 0}; /* in with a candidate */
  int *mem = nz_xmalloc(sizeof(int) * ((size_t)n + 1)); /* in's members, then the trial's */
  int *forced = nz_xmalloc(sizeof(int) * ((size_t)na + 1)), *best_forced = nz_xmalloc(sizeof(int) * ((size_t)na + 1));
  int *cands = nz_xmalloc(sizeof(int) * ((size_t)na + 1));
  char *inatom = nz_xmalloc((size_t)na + 1), *ok = nz_xmalloc((size_t)na + 1); /* ok: compatible with in's atoms */
  int *tstamp = nz_xcalloc((size_t)(C->g->nvar ? C->g->nvar : 1), sizeof(int)), tgen = 0;
  long trials = 0;
  memset(C->comp_added, 0, sizeof(int) * (size_t)C->ncomp);
  for (int seed = 0; seed < na && !out_of_time(C); seed++) {
    int comp = C->comp[C->amem[C->astart[seed]]];
    if (C->api[seed] <= 0 || (only && !only[comp])) continue;
    int nc = 0;
    for (int b = 0; b < na; b++)
      if (b != seed && C->comp[C->amem[C->astart[b]]] == comp) cands[nc++] = b;
    memset(in.bits, 0, wb), memset(in.desc, 0, wb), memset(in.anc, 0, wb);
    in.k = 0, in.pis = in.pw = 0;
    memset(inatom, 0, (size_t)na);
    for (int b = 0; b < na; b++) ok[b] = 1;
    int nbest = 0;
    double cur = -INFINITY;
    best_forced[nbest++] = seed;
    for (;;) {
      /* Take the atoms best_forced[0..nbest) into in. */
      for (int f = 0; f < nbest; f++) {
        int a = best_forced[f];
        inatom[a] = 1;
        for (int b = 0; b < na; b++) ok[b] &= C->acompat[a * na + b];
        grow_by_atom(C, &in, mem, a);
      }
      double bestv = cur;
      nbest = 0;
      int in_arrays, in_reads;
      cluster_cost_terms(C, mem, in.k, in.bits, w, &in_arrays, &in_reads);
      int sgen = C->gen; /* in's outside reads, for grown_cost */
      for (int ci = 0; ci < nc; ci++) {
        int b = cands[ci];
        if (inatom[b] || !ok[b]) continue;
        grow_copy(&trial, &in, wb);
        int nf = 0, good = 1;
        /* b, then every atom convexity forces in (lowest invocation first);
         * each must be compatible with everything already in. */
        for (int add = b; add >= 0;) {
          if (!ok[add]) good = 0;
          for (int f = 0; f < nf && good; f++)
            if (!C->acompat[forced[f] * na + add]) good = 0;
          if (!good) break;
          forced[nf++] = add;
          grow_by_atom(C, &trial, mem, add);
          add = -1;
          for (int x = 0; x < W && add < 0; x++) {
            uint64_t mid = trial.desc[x] & trial.anc[x] & ~trial.bits[x];
            if (mid) add = C->aof[x * 64 + __builtin_ctzll(mid)];
          }
        }
        if (!good) continue;
        if (++tgen == 0x7fffffff) {
          memset(tstamp, 0, sizeof(int) * (size_t)(C->g->nvar ? C->g->nvar : 1));
          tgen = 1;
        }
        trials++;
        double cost = grown_cost(C, in.bits, sgen, in_arrays, in_reads, mem, in.k, trial.k, trial.bits, w, tstamp, tgen);
        double v = trial.pis - trial.pw - cost - reach_penalty(C, trial.bits);
        if (v > bestv + 1e-9) {
          bestv = v, nbest = nf;
          memcpy(best_forced, forced, sizeof(int) * (size_t)nf);
        }
      }
      if (!nbest) break;
      cur = bestv;
    }
    if (cur > RC_EPS && find_col(C, in.bits) < 0) {
      int k = in.k;
      for (int q = 1; q < k; q++) /* members in increasing order for the pool */
        for (int r = q; r > 0 && mem[r - 1] > mem[r]; r--) {
          int t = mem[r];
          mem[r] = mem[r - 1];
          mem[r - 1] = t;
        }
      add_col(C, mem, k, NULL);
      added++;
      C->comp_added[comp]++;
    }
  }
  free(in.bits), free(in.desc), free(in.anc), free(trial.bits), free(trial.desc), free(trial.anc);
  free(mem), free(forced), free(best_forced), free(cands), free(inatom), free(ok), free(tstamp);
  C->heur_work += WORK_TRIAL * (double)trials;
  C->work_total += WORK_TRIAL * (double)trials;
  C->t_price += nz_now() - t0;
  return added;
}

/* Prices every component (or those `only` marks; NULL: all) and adds the
 * columns found, counting them per component in comp_added. Returns how
 * many were added, and in *minrc the least reduced cost over every legal
 * column allowed here when the search was complete (*complete). */
static int price(CG *C, FusWeights w, long limit, double tau, double *minrc, int *complete, const char *only) {
  int n = C->n, W = C->W, added = 0;
  double t0 = nz_now();
  *minrc = tau > RC_EPS ? -tau : 0; /* unsearched subtrees: rc >= -tau */
  *complete = 1;
  Pricer P = {0};
  P.C = C;
  P.w = w;
  /* Every column is in the kernels row, and in the arrays and traversals
   * rows by its cost's terms: their duals (<= 0) only raise the weights, so
   * the search's bounds stay bounds. */
  P.w.kernels -= C->rho, P.w.arrays -= C->sigma, P.w.traversals -= C->theta;
  P.limit = limit;
  P.tau = tau;
  P.convex = limit == 0 || C->small;
  P.ccount = nz_xcalloc((size_t)(C->g->nvar ? C->g->nvar : 1), sizeof(int));
  P.cstamp = nz_xcalloc((size_t)(C->g->nvar ? C->g->nvar : 1), sizeof(int));
  P.node = nz_xcalloc((size_t)n + 1, sizeof(int));
  P.mark = nz_xcalloc((size_t)n + 1, sizeof(int));
  P.mem = nz_xmalloc(sizeof(int) * ((size_t)n + 1));
  size_t words = ((size_t)n + 1) * (size_t)W;
  P.desc = nz_xcalloc(words, sizeof(uint64_t));
  P.anc = nz_xcalloc(words, sizeof(uint64_t));
  P.in = nz_xcalloc(words, sizeof(uint64_t));
  P.reach = nz_xcalloc(words + 2 * (size_t)W, sizeof(uint64_t)); /* and two scratch rows */
  P.adesc = nz_xcalloc((size_t)C->natoms * (size_t)W + 1, sizeof(uint64_t));
  P.aanc = nz_xcalloc((size_t)C->natoms * (size_t)W + 1, sizeof(uint64_t));
  for (int a = 0; a < C->natoms; a++)
    for (int e = C->astart[a]; e < C->astart[a + 1]; e++)
      for (int x = 0; x < W; x++) {
        P.adesc[(size_t)a * W + x] |= C->g->path[(size_t)C->amem[e] * W + x];
        P.aanc[(size_t)a * W + x] |= C->anc[(size_t)C->amem[e] * W + x];
      }
  for (int s = 0; s < PRICE_KEEP; s++) P.found[s] = nz_xmalloc(sizeof(int) * ((size_t)n + 1));
  int *cand = nz_xmalloc(sizeof(int) * ((size_t)n + 1));
  memset(C->comp_added, 0, sizeof(int) * (size_t)C->ncomp);
  for (int comp = 0; comp < C->ncomp && !C->timed_out; comp++) {
    if (only && !only[comp]) {
      *complete = 0;
      continue;
    }
    int nc = 0;
    for (int a = 0; a < C->natoms; a++)
      if (C->comp[C->amem[C->astart[a]]] == comp) cand[nc++] = a;
    qsort_r(cand, (size_t)nc, sizeof(int), by_api_desc, C->api);
    P.nfound = 0;
    P.keep = nc / 2 < 8 ? 8 : nc / 2 > PRICE_KEEP ? PRICE_KEEP : nc / 2;
    P.work = 0;
    P.dup_min = 0;
    P.complete = 1;
    P.nmem = 0;
    double tp = nz_now();
    price_dfs(&P, cand, nc, 0, 0);
    if (getenv("NESSIE_CG_TRACE") && nz_now() - tp > 0.05)
      fprintf(stderr, "ilp-cg: price comp %d (%d atoms): %ld dfs nodes, %d found, %.3f s%s\n", comp, nc, P.work, P.nfound,
              nz_now() - tp, P.complete ? "" : " (stopped)");
    C->dfs_work += P.work;
    C->heur_work += WORK_NODE * (double)P.work;
    C->work_total += WORK_NODE * (double)P.work;
    int exhausted = P.complete && !(P.nfound == P.keep && P.work > PRICE_ENOUGH);
    if (!exhausted) *complete = 0;
    if (P.dup_min < *minrc) *minrc = P.dup_min;
    for (int s = 0; s < P.nfound; s++) {
      if (P.found_rc[s] < *minrc) *minrc = P.found_rc[s];
      /* Members in increasing order for the pool. */
      int k = P.nfound_mem[s];
      int *m = P.found[s];
      for (int x = 1; x < k; x++)
        for (int y = x; y > 0 && m[y - 1] > m[y]; y--) {
          int t = m[y];
          m[y] = m[y - 1];
          m[y - 1] = t;
        }
      int fresh;
      add_col(C, m, k, &fresh);
      added += fresh;
      C->comp_added[comp] += fresh;
    }
  }
  if (C->timed_out) *complete = 0;
  for (int s = 0; s < PRICE_KEEP; s++) free(P.found[s]);
  free(P.mem);
  free(P.desc);
  free(P.anc);
  free(P.in);
  free(P.reach);
  free(P.adesc);
  free(P.aanc);
  free(P.ccount);
  free(P.cstamp);
  free(P.node);
  free(P.mark);
  free(P.flow.head), free(P.flow.level), free(P.flow.it), free(P.flow.q);
  nz_vec_free(P.flow.to);
  nz_vec_free(P.flow.next);
  nz_vec_free(P.flow.cap);
  free(cand);
  C->t_price += nz_now() - t0;
  return added;
}

/* The LP's duals as one vector: π per invocation, then the kernels row's ρ,
 * the arrays and traversals rows' duals, then each cut row's; those of <=
 * rows clamped to <= 0 (the sign an optimal dual of a <= row has, which
 * keeps the Lagrangian bound valid), and to 0 for a row without a bound. */
static double *lp_duals(CG *C) {
  int n = C->n;
  double *y = nz_xmalloc(sizeof(double) * ((size_t)n + NFIXED + (size_t)C->cuts.n));
  for (int i = 0; i <= n; i++) y[i] = cg_lp_dual(C->lp, i);
  y[n + Y_ARRAYS] = C->ahi == INT_MAX ? 0 : fmin(cg_lp_dual(C->lp, C->row_arrays), 0);
  y[n + Y_READS] = C->thi == INT_MAX ? 0 : fmin(cg_lp_dual(C->lp, C->row_reads), 0);
  for (int u = 0; u < C->cuts.n; u++) {
    double d = cg_lp_dual(C->lp, C->cuts.v[u].row);
    y[n + NFIXED + u] = d < 0 ? d : 0;
  }
  return y;
}

/* Prices with the duals y: π per row, ρ, and pair weights from the cut rows.
 * Returns the bound's dual part, Σπ + ρ·(klo or khi) + Σ y·rhs. */
static double apply_duals(CG *C, const double *y) {
  int n = C->n;
  double dual = 0;
  for (int i = 0; i < n; i++) {
    C->pi[i] = y[i];
    dual += C->pi[i];
  }
  /* klo <= Σλ <= khi: a positive dual pairs with klo, a negative with khi. */
  C->rho = y[n + Y_KERNELS];
  dual += C->rho * (C->rho > 0 ? C->klo : C->khi);
  C->sigma = y[n + Y_ARRAYS], C->theta = y[n + Y_READS];
  if (C->sigma < 0) dual += C->sigma * C->ahi;
  if (C->theta < 0) dual += C->theta * C->thi;
  if (C->haspw) memset(C->pairw, 0, sizeof(double) * (size_t)n * (size_t)n);
  memset(C->bonus, 0, sizeof(double) * (size_t)n);
  C->haspw = 0;
  C->reach_on.n = 0;
  C->reach_pen = nz_xrealloc(C->reach_pen, sizeof(double) * (size_t)(C->cuts.n + 1));
  for (int u = 0; u < C->cuts.n; u++) {
    const Cut *k = &C->cuts.v[u];
    double d = y[n + NFIXED + u];
    if (d >= 0) continue;
    dual += d * k->rhs;
    if (k->anc_k) {
      nz_vec_push(C->reach_on, u);
      C->reach_pen[u] = -d;
      continue;
    }
    C->haspw = 1;
    for (int p = 0; p < k->np; p++) {
      double v = -d * k->sign[p];
      C->pairw[k->a[p] * n + k->b[p]] += v;
      C->pairw[k->b[p] * n + k->a[p]] += v;
    }
  }
  if (C->haspw)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        if (C->pairw[i * n + j] < 0) C->bonus[j] -= C->pairw[i * n + j];
  for (int a = 0; a < C->natoms; a++) {
    double s = 0;
    for (int e = C->astart[a]; e < C->astart[a + 1]; e++) s += C->pi[C->amem[e]];
    C->api[a] = s;
  }
  return dual;
}

static double read_duals(CG *C) {
  double *y = lp_duals(C);
  double d = apply_duals(C, y);
  free(y);
  return d;
}

/* ----------------------------------------------------------- master LP */

/* Re-optimises the master; the result (CG_LP_*) is also kept in lp_status.
 * Returns 0 if the LP was solved (optimal or infeasible), -1 if not. */
static int solve_lp(CG *C, int dual) {
  double left = 0;
  if (C->deadline > 0) {
    left = C->deadline - nz_now();
    if (left <= 0) {
      C->timed_out = 1;
      return -1;
    }
  }
  if (out_of_work(C, 0)) return -1;
  C->lps++;
  C->heur_work += WORK_COL * C->cols.n;
  C->work_total += WORK_COL * C->cols.n;
  double t0 = nz_now();
  C->lp_status = cg_lp_solve(C->lp, dual, left);
  if (C->lp_status == CG_LP_LIMIT) C->timed_out = 1;
  C->t_lp += nz_now() - t0;
  if (nz_now() - t0 > 0.2 && getenv("NESSIE_CG_TRACE"))
    fprintf(stderr, "ilp-cg: LP %ld (%s simplex, %d columns) took %.2f s of %.2f left, status %d\n", C->lps,
            dual ? "dual" : "primal", C->cols.n, nz_now() - t0, left, C->lp_status);
  return C->lp_status == CG_LP_OPT || C->lp_status == CG_LP_INFEAS ? 0 : -1;
}

/* Phase one for a node whose columns cannot cover every invocation: the
 * artificial columns (one per row) are minimised, and columns priced at zero
 * cost, until they leave or no column helps. Returns 1 if the node's LP is
 * feasible (artificials out, costs restored), 0 if not, -1 on time out. */
static int phase_one(CG *C, int perturbed) {
  int n = C->n, res = -1;
  for (int c = 0; c < C->cols.n; c++) cg_lp_cost(C->lp, C->cols.v[c].col, 0);
  for (int i = 0; i < n; i++) {
    cg_lp_cost(C->lp, i, 1);
    cg_lp_col_bounds(C->lp, i, 0, INFINITY);
  }
  FusWeights zero = {0};
  for (;;) {
    if (solve_lp(C, 0) != 0 || C->lp_status != CG_LP_OPT) break;
    if (cg_lp_value(C->lp) < 1e-9) {
      res = 1;
      break;
    }
    /* Perturbed rows can be infeasible by their δ alone (columns forced
     * over rows of different δ); proving that would take a complete search
     * (0.24 s at a node of a 100-invocation region). The caller re-solves
     * unperturbed instead, as it does for any infeasibility while
     * perturbed. */
    if (perturbed && cg_lp_value(C->lp) < 1e-3) {
      res = 0;
      break;
    }
    read_duals(C);
    double minrc;
    int complete;
    if (price(C, zero, 2000, RC_EPS, &minrc, &complete, NULL) == 0 && price(C, zero, 0, RC_EPS, &minrc, &complete, NULL) == 0) {
      res = complete ? 0 : -1;
      break;
    }
    for (int c = 0; c < C->cols.n; c++) cg_lp_cost(C->lp, C->cols.v[c].col, 0);
  }
  for (int c = 0; c < C->cols.n; c++) cg_lp_cost(C->lp, C->cols.v[c].col, C->cols.v[c].cost);
  for (int i = 0; i < n; i++) {
    cg_lp_cost(C->lp, i, 0);
    cg_lp_col_bounds(C->lp, i, 0, 0);
  }
  return res;
}

/* Against primal degeneracy: the partition rows' right-hand sides become
 * 1 + δ with δ of about 1e-5 (above GLPK's feasibility tolerance), distinct
 * per together-set (rows that every column covers together must agree), so
 * a column entering the basis moves the solution instead of pivoting in
 * place. The bound does not care (it holds for any duals). The perturbed LP
 * may still be infeasible where the real one is not (a column forced to
 * cover rows of different δ), so only an unperturbed LP may declare a node
 * infeasible, and the rows are set back to 1 before the node's LP is taken
 * as converged. */
static void perturb(CG *C, int on) {
  for (int i = 0; i < C->n; i++) {
    double r = on ? 1 + 1e-5 * (1 + (double)((C->aof[i] * 7919) % 97) / 97) : 1;
    cg_lp_row_bounds(C->lp, i, r, r);
  }
}

/* The cheap pricing of one round: per component, the bounded search, and
 * the greedy one where it found nothing (every component starts the other
 * way round, with the greedy one: skip_bounded set). The components are priced
 * independently: one whose bounded search fails must not wait until the
 * others have converged (seen on a 300-invocation region: its larger
 * component got no column for 150 LPs while the other still found some).
 * A component whose bounded search failed and whose greedy search then
 * succeeded goes straight to the greedy one next time, and back to the
 * bounded one when the greedy one fails (each failed bounded search of a
 * 141-atom component cost 0.1 s). Returns the columns added. */
static int cheap_round(CG *C) {
  int nc = C->ncomp, added = 0;
  double minrc;
  int complete;
  char *mask = nz_xmalloc((size_t)nc + 1);
  int *got = nz_xcalloc((size_t)nc + 1, sizeof(int));
  int any = 0;
  for (int c = 0; c < nc; c++) any |= mask[c] = !C->quiet[c] && !C->skip_bounded[c];
  if (any) {
    added += price(C, C->w, 2000, RC_EPS, &minrc, &complete, mask);
    for (int c = 0; c < nc; c++) got[c] += C->comp_added[c];
  }
  any = 0;
  for (int c = 0; c < nc; c++) any |= mask[c] = !C->quiet[c] && !got[c];
  if (any && !C->timed_out) {
    added += price_greedy(C, C->w, mask);
    any = 0;
    for (int c = 0; c < nc; c++) {
      if (!mask[c]) continue;
      got[c] += C->comp_added[c];
      if (C->comp_added[c]) {
        C->skip_bounded[c] = 1;
        mask[c] = 0;
      } else {
        any |= mask[c] = C->skip_bounded[c]; /* skipped, and greedy failed: bounded now */
        C->skip_bounded[c] = 0;
      }
    }
    if (any && !C->timed_out) {
      added += price(C, C->w, 2000, RC_EPS, &minrc, &complete, mask);
      for (int c = 0; c < nc; c++)
        if (mask[c]) got[c] += C->comp_added[c];
    }
  }
  for (int c = 0; c < nc; c++)
    if (!got[c]) C->quiet[c] = 1;
  free(mask);
  free(got);
  return added;
}

/* A component where both cheap searches failed is left out of the next
 * rounds while others still find columns (seen on a 300-invocation region:
 * a converged 141-atom component cost 0.1 s a round, for 150 rounds); once
 * nothing is found elsewhere, every component is searched again before the
 * complete search. */
static int cheap_pricing(CG *C) {
  int added = cheap_round(C), any = 0;
  if (added) return added;
  for (int c = 0; c < C->ncomp; c++) any |= C->quiet[c], C->quiet[c] = 0;
  return any && !C->timed_out ? cheap_round(C) : 0;
}

static void round_lp(CG *C);
static void restricted_master(CG *C, double budget, int maxcols, int closing);
static void add_pending_cuts(CG *C);

/* Column generation at the current node until no column prices out, or
 * until the bound can no longer rise to the next integer. Returns 1 with
 * *bound the node's (Lagrangian) bound, 0 if infeasible, -1 on time out.
 * Every complete pricing yields a valid bound at the duals it used: every
 * column's reduced cost there is >= minrc, and at most min(khi, n) columns
 * are chosen, fewer than best / w.kernels in a partition that beats the
 * incumbent (the only comparison the bound is used for). (Wentges dual
 * smoothing was tried: slower on every region measured, 1.2-10x.) */
static int column_generation(CG *C, int after_rows, double *bound) {
  int dual = after_rows;
  C->heur_work = 0;
  *bound = -INFINITY;
  int perturbed = 1;
  perturb(C, 1);
  memset(C->quiet, 0, (size_t)C->ncomp); /* a new node or new rows: other duals */
  free(C->memo.y); /* another node: other columns allowed */
  C->memo.y = NULL;
  for (;;) {
    if (out_of_time(C)) return -1;
    if (C->pending.n > 0) {
      add_pending_cuts(C);
      dual = 1;
    }
    if (solve_lp(C, dual) != 0) return -1;
    dual = 0;
    int st = C->lp_status;
    if (st == CG_LP_INFEAS) {
      int f = phase_one(C, perturbed);
      *bound = -INFINITY;
      if (f == 0 && perturbed) { /* not trusted: again, unperturbed */
        perturb(C, 0);
        perturbed = 0;
        continue;
      }
      if (f <= 0) return f;
      continue;
    }
    if (st != CG_LP_OPT) return -1;
    if (getenv("NESSIE_CG_TRACE") && C->lps % 50 == 0)
      fprintf(stderr, "ilp-cg: LP %ld at %.2f s: z %.1f, %d columns in the LP, bound %.1f (pricing %.2f s, simplex %.2f s)\n",
              C->lps, nz_now() - C->t_start, cg_lp_value(C->lp), C->cols.n, *bound, C->t_price, C->t_lp);
    free(C->y);
    double *y = C->y = lp_duals(C);
    double dualpart = apply_duals(C, y), minrc;
    int complete;
    /* A long node (the root of a large region) gets the heuristics every
     * heur_every units of work: the incumbent decides how much of the
     * complete search can be skipped (below), and the root of a
     * 300-invocation region may take the whole limit. */
    if (C->heur_work > C->heur_every) {
      round_lp(C);
      restricted_master(C, 0.3, RMP_SEARCH_COLS, 0);
      C->heur_work = 0;
    }
    /* The cheap searches first (cheap_pricing, per component); the
     * complete search, which the bound needs, only when they find nothing. */
    int added = cheap_pricing(C);
    if (added) continue;
    /* The complete search need not find every negative reduced cost, only
     * one that could keep the bound below its target: the incumbent (the
     * node is pruned) or, unperturbed, the LP value's integer (the bound
     * can rise no further). With at most kappa columns in a partition,
     * reduced costs >= -tau are enough, so subtrees of the search whose
     * value bound is <= tau are skipped (measured: tau was 1e-6 before,
     * and 0.01-400 now, on 100-150-invocation regions). */
    double kappa = C->khi < C->n ? C->khi : C->n;
    /* A partition that beats the incumbent has fewer than best / w.kernels
     * clusters (each costs at least a kernel); the bound is only ever
     * compared with the incumbent, so it may assume that. */
    double kleast = C->kw ? C->kw_min : C->w.kernels;
    if (kleast > 0 && isfinite(C->best_obj)) {
      double kb = floor((C->best_obj - PRUNE_GAP) / kleast);
      if (kb < kappa) kappa = kb;
    }
    double target = C->best_obj - PRUNE_GAP;
    if (!perturbed) {
      double zc = ceil(cg_lp_value(C->lp) - 1e-4) - 1 + 2e-4;
      if (zc < target) target = zc;
    }
    target += 1e-3; /* strictly above: the bound must pass it, not equal it */
    double tau = kappa > 0 && dualpart - target > 0 ? (dualpart - target) / kappa : 0;
    if (tau < RC_EPS) tau = RC_EPS;
    if (getenv("NESSIE_CG_TRACE"))
      fprintf(stderr, "ilp-cg: complete pricing at %.2f s (LP %ld): z %.3f, dual %.3f, target %.3f, tau %.3g\n",
              nz_now() - C->t_start, C->lps, cg_lp_value(C->lp), dualpart, target, tau);
    /* Unperturbing often gives the very duals the perturbed LP had, and
     * then the search would repeat itself (2.1 s at the root of
     * gen:kernels=200,chain=8,seed=1): a complete search that found nothing
     * at these duals, with a tau no larger, already answers. */
    size_t ny = (size_t)C->n + NFIXED + (size_t)C->cuts.n;
    DualMemo *m = &C->memo;
    if (m->y && m->ny == ny && tau >= m->tau && !memcmp(m->y, y, sizeof(double) * ny)) {
      added = 0, minrc = m->minrc, complete = 1;
    } else {
      added = price(C, C->w, 0, tau, &minrc, &complete, NULL);
      if (complete && !added) {
        free(m->y);
        m->y = nz_xmalloc(sizeof(double) * ny);
        memcpy(m->y, y, sizeof(double) * ny);
        m->ny = ny, m->tau = tau, m->minrc = minrc;
      }
    }
    if (!complete) {
      if (C->timed_out) return -1;
      continue;
    }
    double lb = dualpart + kappa * (minrc < -RC_EPS ? minrc : -RC_EPS);
    if (lb > *bound) *bound = lb;
    if (lb > C->best_obj - PRUNE_GAP) return 1; /* pruned, whatever the LP's state */
    if (!added && perturbed) {
      perturb(C, 0);
      perturbed = 0;
      dual = 1;
      continue;
    }
    if (!added) return 1;
    /* The LP value is at least the LP optimum: once the bound reaches its
     * integer, more columns cannot raise the node's integer bound. */
    if (!perturbed && ceil(*bound - 1e-4) >= ceil(cg_lp_value(C->lp) - 1e-4)) return 1;
  }
}

/* --------------------------------------------------------- solutions */

static double part_obj(CG *C, const int *cl) {
  FusCost c;
  if (!C->kw) {
    fus_cost(C->g, cl, &c);
    return c.objective;
  }
  /* The rounded sized model: the sum of the clusters' column costs. */
  int n = C->n, *mem = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  uint64_t *bits = nz_xmalloc(sizeof(uint64_t) * (size_t)C->W);
  double o = 0;
  for (int i = 0; i < n; i++) {
    int first = 1, k = 0;
    for (int j = 0; j < i && first; j++) first = cl[j] != cl[i];
    if (!first) continue;
    memset(bits, 0, sizeof(uint64_t) * (size_t)C->W);
    for (int j = i; j < n; j++)
      if (cl[j] == cl[i]) mem[k++] = j, SETB(bits, j);
    o += cluster_cost(C, mem, k, bits, C->w);
  }
  free(mem), free(bits);
  return o;
}

static void offer(CG *C, int *cl, int from_search) {
  /* A partition that splits a forced pair has a cheaper one that does not
   * (fus_forced_apply). Only that one's columns are allowed in the LP, so
   * only it caps the LP value: an incumbent that split forced pairs let the
   * LP of a 300-invocation root wander above it for 90 solves after its
   * cut rows. */
  if (C->nforced && fus_forced_apply(C->n, C->partner, C->forder, C->nforced, cl) && getenv("NESSIE_CG_TRACE"))
    fprintf(stderr, "ilp-cg: an offered partition split forced pairs: joined\n");
  fus_partition_canon(C->n, cl);
  if (!fus_legal(C->g, cl, NULL)) return;
  add_partition(C, cl);
  double o = part_obj(C, cl);
  if (o < C->best_obj) {
    C->best_obj = o;
    memcpy(C->best, cl, sizeof(int) * (size_t)C->n);
    C->best_from_search |= from_search;
  }
}

/* The LP solution as a partition, if it is integral. */
static int integral(CG *C, int *cl) {
  int n = C->n;
  for (int i = 0; i < n; i++) cl[i] = -1;
  int k = 0;
  for (int c = 0; c < C->cols.n; c++) {
    double x = colx(C, &C->cols.v[c]);
    if (x < 1e-6) continue;
    if (x < 1 - 1e-6) return 0;
    for (int p = 0; p < C->cols.v[c].n; p++) cl[C->cols.v[c].mem[p]] = k;
    k++;
  }
  for (int i = 0; i < n; i++)
    if (cl[i] < 0) return 0;
  return 1;
}

int fus_cg_array_branch(FusWeights w, double bound, int klo, double best, double as, double ts, int *a, int *thi) {
  if (fabs(as - floor(as + 0.5)) <= 1e-6) return 0;
  /* Every partition has W_a * arrays + W_t * traversals <= W_k - 1 (cost.c's
   * weights), so one of cost >= bound has at least kmin kernels. */
  double fa = floor(as), kmin = ceil((bound - w.kernels + 1) / w.kernels - 1e-9);
  if (kmin < klo) kmin = klo;
  double t = floor((best - 1 - w.kernels * kmin - w.arrays * (fa + 1)) / w.traversals + 1e-9);
  if (t >= ts - 1e-6) return 0; /* the second child would keep the LP's solution */
  *a = (int)fa, *thi = t < 0 ? -1 : (int)t;
  return 1;
}

/* Adds the arrays and traversals rows (free until a node bounds them) with
 * every pool column's terms, once. */
static void add_objective_rows(CG *C) {
  if (C->row_arrays >= 0) return;
  int *ind = nz_xmalloc(sizeof(int) * (size_t)(C->cols.n + 1));
  double *val = nz_xmalloc(sizeof(double) * (size_t)(C->cols.n + 1));
  for (int r = 0; r < 2; r++) {
    int nz = 0;
    for (int c = 0; c < C->cols.n; c++) {
      const Col *k = &C->cols.v[c];
      int v = r ? k->reads : k->arrays;
      if (v) ind[nz] = k->col, val[nz++] = v;
    }
    int row = cg_lp_add_row(C->lp, nz, ind, val, -INFINITY, INFINITY);
    *(r ? &C->row_reads : &C->row_arrays) = row;
  }
  free(ind);
  free(val);
}

/* Puts the cut u (pairs, signs, rhs filled) into the LP and the cut list. */
static void add_cut(CG *C, Cut *u) {
  NZ_VEC(int) ind = {0};
  NZ_VEC(double) val = {0};
  for (int c = 0; c < C->cols.n; c++) {
    double s = cut_coef(u, &C->cols.v[c]);
    if (s == 0) continue;
    nz_vec_push(ind, C->cols.v[c].col);
    nz_vec_push(val, s);
  }
  u->row = cg_lp_add_row(C->lp, ind.n, ind.v, val.v, -INFINITY, u->rhs);
  nz_vec_free(ind);
  nz_vec_free(val);
  nz_vec_push(C->cuts, *u);
}

/* Pair values f(i,j) = Σ λ of the columns holding both (n*n, upper half). */
static double *pair_values(CG *C) {
  int n = C->n;
  double *f = nz_xcalloc((size_t)n * (size_t)n, sizeof(double));
  for (int c = 0; c < C->cols.n; c++) {
    double x = colx(C, &C->cols.v[c]);
    if (x < 1e-9) continue;
    const Col *k = &C->cols.v[c];
    for (int p = 0; p < k->n; p++)
      for (int q = p + 1; q < k->n; q++) f[k->mem[p] * n + k->mem[q]] += x;
  }
  return f;
}

/* Candidate rows by decreasing violation, ties in the order found. */
typedef struct {
  double viol;
  int at;
} ByViol;

static int by_viol(const void *x, const void *y) {
  const ByViol *a = x, *b = y;
  if (a->viol != b->viol) return a->viol > b->viol ? -1 : 1;
  return a->at - b->at;
}

/* order[0..n): the indices of n candidates `stride` bytes apart, each
 * starting with its violation (a double), the most violated first. */
static int *most_violated(const void *found, size_t stride, int n) {
  ByViol *b = nz_xmalloc(sizeof(ByViol) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    double v;
    memcpy(&v, (const char *)found + (size_t)i * stride, sizeof v);
    b[i] = (ByViol){v, i};
  }
  qsort(b, (size_t)n, sizeof(ByViol), by_viol);
  int *order = nz_xmalloc(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) order[i] = b[i].at;
  free(b);
  return order;
}

typedef struct {
  double viol; /* first, for most_violated */
  int i, j, k, l, ea, eb;
} TwoFound;

typedef struct {
  double viol; /* first, for most_violated */
  Cut u;
} LongFound;

typedef struct {
  double viol; /* first, for most_violated */
  int j, k;
} ReachFound;

/* Two-cluster cycle rows (ILP.md, "Set partitioning"): for disjoint pairs
 * {i,j} and {k,l} with i ⇝ k and l ⇝ j, a partition fusing both pairs into
 * two different clusters X ∋ i,j and Y ∋ k,l has the closed walk X ⇝ Y ⇝ X,
 * hence a cycle; so f(i,j) + f(k,l) <= 1 + f(e) for any e of {i,k}, {i,l},
 * {j,k}, {j,l} (one cluster holding all four fuses each). Separated at the
 * LP solution; adds at most max_cuts of the most violated, returns how many. */
static int separate_two_cycles(CG *C, int max_cuts) {
  int n = C->n;
  double *f = pair_values(C);
#define F(a, b) ((a) < (b) ? f[(a)*n + (b)] : f[(b)*n + (a)])
  NZ_VEC(int) sp = {0};
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (f[i * n + j] > 1e-6) nz_vec_push(sp, i * n + j);
  NZ_VEC(TwoFound) found = {0};
  for (int p = 0; p < sp.n; p++) {
    int i = sp.v[p] / n, j = sp.v[p] % n;
    for (int q = p + 1; q < sp.n; q++) {
      int k = sp.v[q] / n, l = sp.v[q] % n;
      if (k == i || k == j || l == i || l == j) continue;
      double base = f[i * n + j] + f[k * n + l];
      if (base <= 1 + 1e-6) continue;
      int walk = (fus_path(C->g, i, k) && fus_path(C->g, l, j)) || (fus_path(C->g, i, l) && fus_path(C->g, k, j)) ||
                 (fus_path(C->g, j, k) && fus_path(C->g, l, i)) || (fus_path(C->g, j, l) && fus_path(C->g, k, i));
      if (!walk) continue;
      int es[4][2] = {{i, k}, {i, l}, {j, k}, {j, l}}, e = 0;
      for (int t = 1; t < 4; t++)
        if (F(es[t][0], es[t][1]) < F(es[e][0], es[e][1])) e = t;
      double viol = base - 1 - F(es[e][0], es[e][1]);
      if (viol > 1e-6) {
        TwoFound x = {viol, i, j, k, l, es[e][0], es[e][1]};
        nz_vec_push(found, x);
      }
    }
  }
#undef F
  int *order = most_violated(found.v, sizeof *found.v, found.n);
  int added = 0;
  for (int o = 0; o < found.n && added < max_cuts; o++) {
    const TwoFound *x = &found.v[order[o]];
    Cut u = {0};
    u.np = 3;
    u.a = nz_xmalloc(sizeof(int) * 3);
    u.b = nz_xmalloc(sizeof(int) * 3);
    u.sign = nz_xmalloc(sizeof(int) * 3);
    u.a[0] = x->i, u.b[0] = x->j, u.sign[0] = 1;
    u.a[1] = x->k, u.b[1] = x->l, u.sign[1] = 1;
    u.a[2] = x->ea, u.b[2] = x->eb, u.sign[2] = -1;
    u.rhs = 1;
    add_cut(C, &u);
    added++;
  }
  free(order);
  nz_vec_free(found);
  nz_vec_free(sp);
  free(f);
  return added;
}

/* Reach rows (ILP.md, "Set partitioning"): for invocations j and k, take
 * the columns X holding j and an ancestor of k, and the columns Y holding k
 * and an ancestor of j. No legal partition has two of them: two X share j,
 * two Y share k, and an X and a Y either overlap or make the closed walk
 * X ⇝ Y ⇝ X. So they sum to at most 1. Separated at the LP solution; each
 * row is checked against the incumbent (it holds for every legal
 * partition); adds at most max_cuts of the most violated, returns how many. */
static int separate_reach_rows(CG *C, int max_cuts) {
  int n = C->n, W = C->W;
  /* r[j * n + k]: the LP value of the columns holding j and an ancestor of
   * k; both[j * n + k], j < k: of those holding j, k and ancestors of both
   * (counted in r[j][k] and r[k][j]; the row counts them once). */
  double *r = nz_xcalloc((size_t)n * (size_t)n, sizeof(double));
  double *both = nz_xcalloc((size_t)n * (size_t)n, sizeof(double));
  char *m = nz_xmalloc((size_t)n + 1);
  for (int c = 0; c < C->cols.n; c++) {
    const Col *k = &C->cols.v[c];
    double x = colx(C, k);
    if (x < 1e-9) continue;
    for (int t = 0; t < n; t++) {
      m[t] = (char)meets(k->bits, C->anc + (size_t)t * W, W);
      if (m[t])
        for (int p = 0; p < k->n; p++) r[k->mem[p] * n + t] += x;
    }
    for (int p = 0; p < k->n; p++)
      for (int q = p + 1; q < k->n; q++)
        if (m[k->mem[p]] && m[k->mem[q]]) both[k->mem[p] * n + k->mem[q]] += x;
  }
  free(m);
  char *have = nz_xcalloc((size_t)n * (size_t)n, 1);
  for (int u = 0; u < C->cuts.n; u++)
    if (C->cuts.v[u].anc_k) have[C->cuts.v[u].rj * n + C->cuts.v[u].rk] = 1;
  NZ_VEC(ReachFound) found = {0};
  for (int j = 0; j < n; j++)
    for (int k = j + 1; k < n; k++) {
      double viol = r[j * n + k] + r[k * n + j] - both[j * n + k] - 1;
      if (viol > 1e-6 && !have[j * n + k]) {
        ReachFound x = {viol, j, k};
        nz_vec_push(found, x);
      }
    }
  int *order = most_violated(found.v, sizeof *found.v, found.n);
  /* The incumbent's clusters (canonical numbers), for the safety net. */
  uint64_t *inc = nz_xcalloc((size_t)n * (size_t)W + 1, sizeof(uint64_t));
  int ninc = 0;
  for (int i = 0; i < n && isfinite(C->best_obj); i++) {
    SETB(inc + (size_t)C->best[i] * W, i);
    if (C->best[i] + 1 > ninc) ninc = C->best[i] + 1;
  }
  int added = 0, wrong = 0;
  for (int o = 0; o < found.n && added < max_cuts; o++) {
    const ReachFound *x = &found.v[order[o]];
    Cut u = {0};
    u.rj = x->j, u.rk = x->k, u.W = W, u.rhs = 1;
    u.anc_j = C->anc + (size_t)u.rj * W, u.anc_k = C->anc + (size_t)u.rk * W;
    /* A legal partition has at most one cluster in the row. */
    int inrow = 0;
    for (int c = 0; c < ninc; c++) inrow += reach_coef(&u, inc + (size_t)c * W);
    if (inrow > 1) {
      wrong++;
      continue;
    }
    add_cut(C, &u);
    added++;
  }
  if (getenv("NESSIE_CG_TRACE"))
    fprintf(stderr, "ilp-cg: reach rows: %d violated, %d added%s\n", found.n, added, wrong ? " (some cut the incumbent!)" : "");
  free(order);
  nz_vec_free(found);
  free(have);
  free(inc);
  free(r);
  free(both);
  return added;
}

/* Longer cycle rows (ILP.md, "Set partitioning"): stations (v_t, u_t),
 * t = 1..k, with region paths u_t ⇝ v_{t+1} around (indices mod k). If every
 * jump pair {v_t, u_t} is fused, the clusters X_t ∋ v_t, u_t and the paths
 * make a closed walk in the contracted graph, a cycle unless all X_t are one
 * cluster, which then fuses every pair of the stations' invocations. So
 * Σ_t f(v_t,u_t) <= J - 1 + f(e), J the number of jumps, for any pair e of
 * invocations of two different stations (a station may be a single
 * invocation, v_t = u_t, which is no jump and no term). The two-cluster rows
 * are two jumps with edges between them; these take any paths.
 * Separation: a shortest closed walk in the graph whose arc v -> v' costs
 * min 1 - f(v,u) over the u with f(v,u) > 0 (or u = v, cost 0) and u ⇝ v';
 * a walk of cost c is a violated row when c + min f(e) < 1. Dijkstra from
 * each invocation on the dense arc matrix, O(n^3); adds at most max_cuts of
 * the most violated, returns how many. */
static int separate_long_cycles(CG *C, int max_cuts) {
  int n = C->n;
  if (n < 3) return 0;
  double *f = pair_values(C);
#define F(a, b) ((a) == (b) ? 1.0 : (a) < (b) ? f[(a)*n + (b)] : f[(b)*n + (a)])
  size_t nn = (size_t)n * (size_t)n;
  double *arc = nz_xmalloc(sizeof(double) * nn);
  int *via = nz_xmalloc(sizeof(int) * nn);
  for (size_t e = 0; e < nn; e++) arc[e] = INFINITY, via[e] = -1;
  for (int v = 0; v < n; v++)
    for (int u = 0; u < n; u++) {
      double fu = F(v, u);
      if (fu <= 1e-6) continue;
      double cost = 1 - fu;
      if (cost < 0) cost = 0;
      for (int w = 0; w < n; w++)
        if (w != v && fus_path(C->g, u, w) && cost < arc[(size_t)v * n + w]) arc[(size_t)v * n + w] = cost, via[(size_t)v * n + w] = u;
    }
  NZ_VEC(LongFound) found = {0};
  double *dist = nz_xmalloc(sizeof(double) * (size_t)n);
  int *prev = nz_xmalloc(sizeof(int) * (size_t)n), *walk = nz_xmalloc(sizeof(int) * ((size_t)n + 1));
  char *done = nz_xmalloc((size_t)n);
  for (int s = 0; s < n; s++) {
    for (int v = 0; v < n; v++) dist[v] = INFINITY, prev[v] = -1, done[v] = v < s;
    dist[s] = 0;
    for (;;) {
      int v = -1;
      for (int x = 0; x < n; x++)
        if (!done[x] && dist[x] < 1 && (v < 0 || dist[x] < dist[v])) v = x;
      if (v < 0) break;
      done[v] = 1;
      for (int w = s + 1; w < n; w++) {
        double d = dist[v] + arc[(size_t)v * n + w];
        if (d < dist[w] && d < 1) dist[w] = d, prev[w] = v;
      }
    }
    /* The best walk back to s; only walks whose smallest station is s, so
     * each is found once. */
    int last = -1;
    double best = 1;
    for (int v = s + 1; v < n; v++)
      if (dist[v] + arc[(size_t)v * n + s] < best - 1e-6) best = dist[v] + arc[(size_t)v * n + s], last = v;
    if (last < 0) continue;
    int k = 0;
    for (int v = last; v >= 0; v = prev[v]) walk[k++] = v;
    /* walk[k-1] = s, ..., walk[0] = last; stations in walk order. */
    NZ_VEC(int) st_v = {0};
    NZ_VEC(int) st_u = {0};
    for (int t = k - 1; t >= 0; t--) {
      int v = walk[t], w = walk[t == 0 ? k - 1 : t - 1];
      nz_vec_push(st_v, v);
      nz_vec_push(st_u, via[(size_t)v * n + w]);
    }
    int jumps = 0;
    double lhs = 0;
    for (int t = 0; t < k; t++)
      if (st_v.v[t] != st_u.v[t]) jumps++, lhs += F(st_v.v[t], st_u.v[t]);
    double fe = INFINITY;
    int ea = -1, eb = -1;
    for (int t = 0; t < k; t++)
      for (int r = t + 1; r < k; r++) {
        int xs[2] = {st_v.v[t], st_u.v[t]}, ys[2] = {st_v.v[r], st_u.v[r]};
        for (int p = 0; p < 2; p++)
          for (int q = 0; q < 2; q++)
            if (xs[p] != ys[q] && F(xs[p], ys[q]) < fe) fe = F(xs[p], ys[q]), ea = xs[p], eb = ys[q];
      }
    double viol = lhs - (jumps - 1) - fe;
    /* An invariant check: the incumbent is legal, so it satisfies the row. */
    if (jumps >= 1 && ea >= 0 && viol > 1e-4 && isfinite(C->best_obj)) {
      int held = 0;
      for (int t = 0; t < k; t++) held += st_v.v[t] != st_u.v[t] && C->best[st_v.v[t]] == C->best[st_u.v[t]];
      if (held - (C->best[ea] == C->best[eb]) > jumps - 1) {
        fprintf(stderr, "ilp-cg: internal error: a cycle row cuts off a legal partition; row dropped\n");
        viol = 0;
      }
    }
    if (jumps >= 1 && ea >= 0 && viol > 1e-4) {
      LongFound x = {viol, {0}};
      x.u.a = nz_xmalloc(sizeof(int) * (size_t)(jumps + 1));
      x.u.b = nz_xmalloc(sizeof(int) * (size_t)(jumps + 1));
      x.u.sign = nz_xmalloc(sizeof(int) * (size_t)(jumps + 1));
      for (int t = 0; t < k; t++)
        if (st_v.v[t] != st_u.v[t]) x.u.a[x.u.np] = st_v.v[t], x.u.b[x.u.np] = st_u.v[t], x.u.sign[x.u.np++] = 1;
      x.u.a[x.u.np] = ea, x.u.b[x.u.np] = eb, x.u.sign[x.u.np++] = -1;
      x.u.rhs = jumps - 1;
      nz_vec_push(found, x);
    }
    nz_vec_free(st_v);
    nz_vec_free(st_u);
  }
#undef F
  int *order = most_violated(found.v, sizeof *found.v, found.n);
  int added = 0;
  for (int o = 0; o < found.n; o++) {
    Cut *u = &found.v[order[o]].u;
    if (added < max_cuts) {
      add_cut(C, u);
      added++;
    } else {
      cut_free(u);
    }
  }
  free(order);
  if (getenv("NESSIE_CG_TRACE")) fprintf(stderr, "ilp-cg: long cycle rows: %d violated, %d added\n", found.n, added);
  nz_vec_free(found);
  free(dist), free(prev), free(walk), free(done);
  free(arc), free(via);
  free(f);
  return added;
}

/* The cut of a contracted cycle: jumps cin[e] -> cout[e] (fus_contracted_cycle),
 * crossings cout[e] -> cin[e+1]. */
static Cut cycle_cut(const int *cin, const int *cout, int len) {
  Cut u = {0};
  u.a = nz_xmalloc(sizeof(int) * (size_t)len * 2);
  u.b = nz_xmalloc(sizeof(int) * (size_t)len * 2);
  u.sign = nz_xmalloc(sizeof(int) * (size_t)len * 2);
  int jumps = 0;
  for (int e = 0; e < len; e++) {
    if (cin[e] != cout[e]) u.a[u.np] = cin[e], u.b[u.np] = cout[e], u.sign[u.np++] = 1, jumps++;
    u.a[u.np] = cout[e], u.b[u.np] = cin[(e + 1) % len], u.sign[u.np++] = -1;
  }
  if (jumps == 0) nz_die("ilp-cg: a cycle of single invocations");
  u.rhs = jumps - 1;
  return u;
}

/* A cycle cut for a partition whose contracted graph has a cycle; 0 if none. */
static int add_cycle_cut(CG *C, const int *cl) {
  int n = C->n;
  int *cin = nz_xmalloc(sizeof(int) * ((size_t)n + 1)), *cout = nz_xmalloc(sizeof(int) * ((size_t)n + 1));
  int len = fus_contracted_cycle(C->g, cl, cin, cout);
  if (len > 0) {
    Cut u = cycle_cut(cin, cout, len);
    add_cut(C, &u);
  }
  free(cin);
  free(cout);
  return len > 0;
}

/* Cuts found outside column generation (the restricted master's cyclic
 * answers) join the LP before its next solve. */
static void add_pending_cuts(CG *C) {
  for (int e = 0; e < C->pending.n; e++) add_cut(C, &C->pending.v[e]);
  C->pending.n = 0;
}

/* Rounding: the columns the LP uses most, disjoint, the rest alone, then the
 * local search; offered if legal. */
static void round_lp(CG *C) {
  int n = C->n;
  int *cl = nz_xmalloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) cl[i] = -1;
  NZ_VEC(int) order = {0};
  double *x = nz_xmalloc(sizeof(double) * (size_t)(C->cols.n + 1));
  for (int c = 0; c < C->cols.n; c++) {
    x[c] = colx(C, &C->cols.v[c]);
    if (x[c] > 1e-6) nz_vec_push(order, c);
  }
  for (int a = 1; a < order.n; a++)
    for (int b = a; b > 0 && x[order.v[b - 1]] < x[order.v[b]]; b--) {
      int t = order.v[b];
      order.v[b] = order.v[b - 1];
      order.v[b - 1] = t;
    }
  int k = 0;
  for (int o = 0; o < order.n; o++) {
    const Col *col = &C->cols.v[order.v[o]];
    int free_all = 1;
    for (int p = 0; p < col->n && free_all; p++) free_all = cl[col->mem[p]] < 0;
    if (!free_all) continue;
    int *trial = nz_xmalloc(sizeof(int) * (size_t)n);
    memcpy(trial, cl, sizeof(int) * (size_t)n);
    for (int p = 0; p < col->n; p++) trial[col->mem[p]] = k;
    /* Keep it only if the partial partition (others alone) stays legal. */
    int *full = nz_xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) full[i] = trial[i] >= 0 ? trial[i] : k + 1 + i;
    if (fus_legal(C->g, full, NULL)) {
      memcpy(cl, trial, sizeof(int) * (size_t)n);
      k++;
    }
    free(full);
    free(trial);
  }
  for (int i = 0; i < n; i++)
    if (cl[i] < 0) cl[i] = k++;
  fus_partition_canon(n, cl);
  fus_improve(C->g, cl, NULL, FUS_CHECKS_PER_SECOND / 50);
  offer(C, cl, 1);
  nz_vec_free(order);
  free(x);
  free(cl);
}

/* The restricted master as a MIP over the pool (GLPK or CBC, as chosen),
 * re-solved with a no-good row while its answer has a cycle. */
/* A column's reduced cost under the duals last applied. */
static double col_rc(const CG *C, const Col *k) {
  double rc = k->cost - C->rho - C->sigma * k->arrays - C->theta * k->reads + reach_penalty(C, k->bits);
  for (int p = 0; p < k->n; p++) {
    rc -= C->pi[k->mem[p]];
    if (C->haspw)
      for (int q = p + 1; q < k->n; q++) rc += C->pairw[k->mem[p] * C->n + k->mem[q]];
  }
  return rc;
}

/* Columns sel[0..ns) of the pool as a MIP: a binary per column, the
 * partition rows, the cut rows. */
static FusIlp *pool_mip(CG *C, const int *sel, int ns) {
  int n = C->n;
  FusIlp *m = fus_ilp_new(n);
  m->no_cuts = 1;
  for (int j = 0; j < ns; j++)
    fus_ilp_col(m, nz_sprintf(m->arena, "s%d", sel[j]), 0, 1, C->cols.v[sel[j]].cost, 1, 'x', sel[j], sel[j]);
  for (int i = 0; i < n; i++) {
    fus_ilp_row(m, nz_sprintf(m->arena, "part_%d", i), 'E', 1);
    for (int j = 0; j < ns; j++)
      if (BIT(C->cols.v[sel[j]].bits, i)) fus_ilp_term(m, j, 1);
  }
  for (int u = 0; u < C->cuts.n; u++) {
    fus_ilp_row(m, nz_sprintf(m->arena, "cycle_cut_%d", u), 'L', C->cuts.v[u].rhs);
    for (int j = 0; j < ns; j++) {
      double v = cut_coef(&C->cuts.v[u], &C->cols.v[sel[j]]);
      if (v != 0) fus_ilp_term(m, j, v);
    }
  }
  return m;
}

/* Is pool column c a cluster of the incumbent? */
static int in_best(const CG *C, int c) {
  const Col *k = &C->cols.v[c];
  int cl = C->best[k->mem[0]], size = 0;
  for (int p = 1; p < k->n; p++)
    if (C->best[k->mem[p]] != cl) return 0;
  for (int i = 0; i < C->n; i++) size += C->best[i] == cl;
  return size == k->n;
}

/* The pool's columns, or on a big pool the maxcols of least reduced cost
 * under the last duals with every singleton and the incumbent's clusters
 * (so a start and a feasible point are always there). Returns the count. */
static int rmp_columns(CG *C, int *sel, int maxcols) {
  int nc = C->cols.n, ns = 0;
  if (nc <= maxcols) {
    for (int c = 0; c < nc; c++) sel[ns++] = c;
    return ns;
  }
  double *rc = nz_xmalloc(sizeof(double) * (size_t)nc);
  int *order = nz_xmalloc(sizeof(int) * (size_t)nc);
  for (int c = 0; c < nc; c++) rc[c] = col_rc(C, &C->cols.v[c]), order[c] = c;
  qsort_r(order, (size_t)nc, sizeof(int), by_rc, rc);
  char *taken = nz_xcalloc((size_t)nc, 1);
  for (int c = 0; c < nc; c++)
    if (C->cols.v[c].n == 1 || in_best(C, c)) taken[c] = 1, sel[ns++] = c;
  for (int o = 0; o < nc && ns < maxcols; o++)
    if (!taken[order[o]]) taken[order[o]] = 1, sel[ns++] = order[o];
  free(rc);
  free(order);
  free(taken);
  return ns;
}

/* The cycles a repair of the restricted master's answer meets, cut in its
 * MIP; the first, the answer's own, also queued for the master LP. */
typedef struct {
  CG *C;
  FusIlp *m;
  const int *sel;
  int ns, round, count;
} RmpCuts;

static void rmp_cut(void *ctx, const int *cin, const int *cout, int len) {
  RmpCuts *r = ctx;
  Cut u = cycle_cut(cin, cout, len);
  fus_ilp_row(r->m, nz_sprintf(r->m->arena, "rmp_cycle_%d_%d", r->round, r->count), 'L', u.rhs);
  for (int j = 0; j < r->ns; j++) {
    double v = cut_coef(&u, &r->C->cols.v[r->sel[j]]);
    if (v != 0) fus_ilp_term(r->m, j, v);
  }
  if (r->count++ == 0)
    nz_vec_push(r->C->pending, u);
  else
    cut_free(&u);
}

static void restricted_master(CG *C, double budget, int maxcols, int closing) {
  int n = C->n;
  int *sel = nz_xmalloc(sizeof(int) * (size_t)(C->cols.n + 1));
  int ns = rmp_columns(C, sel, maxcols);
  FusIlp *m = pool_mip(C, sel, ns);
  /* The incumbent's clusters are columns (offer adds them): the start. */
  double *start = nz_xcalloc((size_t)(ns + 1), sizeof(double));
  for (int j = 0; j < ns; j++) start[j] = in_best(C, sel[j]);
  double *x = nz_xmalloc(sizeof(double) * (size_t)(ns + 1));
  int *cl = nz_xmalloc(sizeof(int) * (size_t)n);
  double stop = nz_now() + budget;
  /* Under a work limit alone the rounds are bounded by counted work, not
   * seconds. */
  int by_work = C->opt->work_limit > 0 && C->opt->time_limit <= 0;
  double wbudget = (closing ? 0.1 : 0.03) * (double)C->opt->work_limit, wspent = 0;
  for (int round = 0; round < 20; round++) {
    double left = stop - nz_now();
    if (C->deadline > 0 && C->deadline - nz_now() < left) left = C->deadline - nz_now();
    if (by_work) {
      if (wspent >= wbudget) break;
      double nodes = (wbudget - wspent) / WORK_MIP_NODE;
      m->node_limit = nodes < 1 ? 1 : (long long)nodes;
      left = 0;
    } else if (left <= 0.01) {
      break;
    }
    FusIlpResult r;
    double began = nz_now();
    int bad = fus_ilp_solve(C->opt->solver, m, left, round == 0 ? start : NULL, x, &r) != 0;
    if (by_work) {
      double w = WORK_MIP_NODE * (double)(r.nodes > 1 ? r.nodes : 1);
      wspent += w, C->work_total += w;
    }
    if (getenv("NESSIE_CG_TRACE"))
      fprintf(stderr, "ilp-cg: restricted master round %d: %d columns, %s%s, objective %.0f, %ld nodes, %.2f s of %.2f\n", round,
              ns, bad ? "error" : r.has_solution ? "solution" : "none", r.optimal ? " (optimal)" : "", r.objective, r.nodes,
              nz_now() - began, left);
    if (bad || !r.has_solution) break;
    int k = 0;
    for (int i = 0; i < n; i++) cl[i] = -1;
    for (int j = 0; j < ns; j++)
      if (x[j] > 0.5) {
        const Col *col = &C->cols.v[sel[j]];
        for (int p = 0; p < col->n; p++) cl[col->mem[p]] = k;
        k++;
      }
    int *cin = nz_xmalloc(sizeof(int) * ((size_t)n + 1)), *cout = nz_xmalloc(sizeof(int) * ((size_t)n + 1));
    int len = fus_contracted_cycle(C->g, cl, cin, cout);
    if (len == 0) {
      offer(C, cl, 1);
    } else {
      /* Repaired, it may still beat the incumbent: clusters on a cycle are
       * split until none is left, then the local search merges back. The
       * cycles the repair meets are cut in the pool MIP (every partition
       * with the cycle, not only these columns: measured, the no-good on the
       * columns let the next round find the same cycle again), and the
       * answer's own is queued for the master LP, where it is just as
       * valid. Closing, the repair makes both kinds of split and the MIP
       * gets every cycle the splits in two meet: an answer has many (17 at
       * 300 invocations), and with one cut a round the next answers were
       * cyclic too. Inside the search it splits into singletons and cuts
       * the answer's own cycle only, as before: the better repairs changed
       * the incumbents, and with them the trees, both ways (one region of
       * 24 at 200-300 invocations lost its proof, measured against the
       * commit before). */
      int *fix = nz_xmalloc(sizeof(int) * (size_t)n);
      memcpy(fix, cl, sizeof(int) * (size_t)n);
      RmpCuts rc = {C, m, sel, ns, round, 0};
      if (closing) {
        fus_repair(C->g, fix, NULL, FUS_CHECKS_PER_SECOND / 20, "ilp-cg", rmp_cut, &rc);
      } else {
        int *ci = nz_xmalloc(sizeof(int) * ((size_t)n + 1)), *co = nz_xmalloc(sizeof(int) * ((size_t)n + 1));
        rmp_cut(&rc, cin, cout, len);
        fus_split_cycles_seen(C->g, fix, ci, co, "ilp-cg", 0, NULL, NULL);
        fus_improve(C->g, fix, NULL, FUS_CHECKS_PER_SECOND / 20);
        free(ci), free(co);
      }
      if (getenv("NESSIE_CG_TRACE")) {
        FusCost fc;
        fus_cost(C->g, fix, &fc);
        fprintf(stderr, "ilp-cg: %d cycles cut, repaired: objective %.0f\n", rc.count, fc.objective);
      }
      offer(C, fix, 1);
      free(fix);
      if (by_work) {
        double w = WORK_CHECK * (double)(FUS_CHECKS_PER_SECOND / 20);
        wspent += w, C->work_total += w;
      }
    }
    free(cin);
    free(cout);
    if (len == 0) break;
  }
  free(sel);
  free(start);
  free(x);
  free(cl);
  fus_ilp_free(m);
}

/* ---------------------------------------------------------- the search */

/* The pair to branch on: the one fused to the most fractional extent. */
static int branch_pair(CG *C, int *bi, int *bj) {
  int n = C->n;
  double *f = pair_values(C);
  double bestd = 1;
  int found = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double v = f[i * n + j];
      if (v < 1e-6 || v > 1 - 1e-6) continue;
      if (C->aof[i] == C->aof[j]) continue;
      double d = fabs(v - 0.5);
      if (d < bestd) bestd = d, *bi = i, *bj = j, found = 1;
    }
  free(f);
  return found;
}

int fus_sched_ilp_cg(const FusGraph *g, FusOptions *opt, FusSchedule *out) {
  int n = g->ninv, W = g->words;
  double t0 = nz_now();
  CG C = {0};
  C.g = g;
  C.n = n;
  C.W = W;
  C.opt = opt;
  C.root_rounds = 50; /* measured: 10 or 3 rounds prove less at 200 invocations */
  C.apart = fus_apart(g);
  C.partner = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  C.forder = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  {
    int np = fus_forced_partners(g, C.apart, C.partner, C.forder);
    const char *off = getenv("NESSIE_CG_FORCED"); /* =0: without them, to measure what they buy */
    if (off && !strcmp(off, "0"))
      for (int i = 0; i < n; i++) C.partner[i] = -1, np = 0;
    C.nforced = np;
    if (getenv("NESSIE_CG_TRACE")) fprintf(stderr, "ilp-cg: %d forced pairs\n", np);
  }
  C.w = fus_cost_weights(g);
  if (g->model && !g->model->unit) {
    C.kw = nz_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
    C.aw = nz_xmalloc(sizeof(double) * (size_t)(g->nvar ? g->nvar : 1));
    C.rw = nz_xmalloc(sizeof(double) * (size_t)(g->nvar ? g->nvar : 1));
    C.kw_min = INFINITY;
    for (int j = 0; j < n; j++) {
      C.kw[j] = nearbyint(fus_w_kernel(&C.w, j));
      if (C.kw[j] < C.kw_min) C.kw_min = C.kw[j];
    }
    if (!n) C.kw_min = 0;
    for (int v = 0; v < g->nvar; v++) C.aw[v] = nearbyint(fus_w_array(&C.w, v)), C.rw[v] = nearbyint(fus_w_read(&C.w, v));
  }
  C.anc = nz_xcalloc((size_t)n * (size_t)W + 1, sizeof(uint64_t));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (fus_path(g, i, j)) SETB(C.anc + (size_t)j * W, i);
  C.comp = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  {
    int *p = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) p[i] = i;
    for (int i = 0; i < n; i++)
      for (int j = i + 1; j < n; j++)
        if (!C.apart[i * n + j]) p[fus_uf_find(p, i)] = fus_uf_find(p, j);
    int *id = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) id[i] = -1;
    for (int i = 0; i < n; i++) {
      int r = fus_uf_find(p, i);
      if (id[r] < 0) id[r] = C.ncomp++;
      C.comp[i] = id[r];
    }
    free(id);
    free(p);
  }
  C.comp_added = nz_xcalloc((size_t)C.ncomp + 1, sizeof(int));
  C.skip_bounded = nz_xcalloc((size_t)C.ncomp + 1, 1);
  /* In small regions every component starts with the greedy search
   * (cheap_round): on the programs' regions of MAPs over one space the
   * bounded one spent its 2000 nodes per round for columns the greedy one
   * finds at once (blackscholes: 207,298 search nodes and 0.98 s of ilp-cg,
   * against 7,570 and 0.18 s). On regions of 100-150 invocations it was
   * mixed, and it lost two proofs (ILP.md). NESSIE_CG_BOUNDED_FIRST=1
   * keeps the old order everywhere, for measurements. */
  C.small = n <= GREEDY_FIRST_MAX && !getenv("NESSIE_CG_BOUNDED_FIRST");
  if (C.small) memset(C.skip_bounded, 1, (size_t)C.ncomp);
  C.quiet = nz_xcalloc((size_t)C.ncomp + 1, 1);
  C.uf = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  C.dapart = nz_xmalloc((size_t)n * (size_t)n + 1);
  C.aof = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  C.astart = nz_xmalloc(sizeof(int) * ((size_t)n + 1));
  C.amem = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  C.acompat = nz_xmalloc((size_t)n * (size_t)n + 1);
  C.api = nz_xcalloc((size_t)n + 1, sizeof(double));
  C.pi = nz_xcalloc((size_t)n + 1, sizeof(double));
  C.pairw = nz_xcalloc((size_t)n * (size_t)n + 1, sizeof(double));
  C.bonus = nz_xcalloc((size_t)n + 1, sizeof(double));
  C.stamp = nz_xcalloc((size_t)(g->nvar ? g->nvar : 1), sizeof(int));
  C.hcap = 1024;
  C.hash = nz_xmalloc(sizeof(int) * (size_t)C.hcap);
  for (int h = 0; h < C.hcap; h++) C.hash[h] = -1;
  C.best = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  C.best_obj = INFINITY;
  /* A row per invocation, then the kernels row; the artificial columns of
   * phase one (one per invocation) first. */
  C.lp = cg_lp_new(cg_lp_default(), n > 0 ? n + 1 : 0);
  for (int i = 0; i < n; i++) {
    cg_lp_row_bounds(C.lp, i, 1, 1);
    double one = 1;
    cg_lp_add_col(C.lp, 1, &i, &one, 0, 0, 0);
  }
  /* The root's state (no decisions) until the first node is entered. */
  memset(C.dapart, 0, (size_t)n * (size_t)n + 1);
  for (int i = 0; i <= n; i++) C.astart[i] = i;
  for (int i = 0; i < n; i++) C.aof[i] = C.amem[i] = i;
  C.natoms = n;
  C.klo = 0, C.khi = n;
  C.ahi = C.thi = INT_MAX;
  C.row_arrays = C.row_reads = -1;
  /* The pool starts with every singleton and the greedy schedule, polished.
   * The instance is built once the singletons are in; the start is a
   * heuristic, part of the solve (local search of up to 20,000 legality checks, about 50 ms at 300 invocations). */
  int *cl = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) add_col(&C, &i, 1, NULL);
  out->build_seconds = nz_now() - t0;
  double t1 = nz_now();
  fus_greedy_best(g, cl);
  fus_improve(g, cl, NULL, FUS_CHECKS_PER_SECOND / 20);
  offer(&C, cl, 0);
  /* The search stops at 80% of the limit; the rest is for a last heuristic
   * over the pool if nothing is proven by then. */
  double end = opt->time_limit > 0 ? t1 + opt->time_limit : 0;
  C.deadline = end > 0 ? t1 + 0.8 * opt->time_limit : 0;
  C.t_start = t1;
  C.heur_every = 1e6 * (opt->time_limit > 0 ? 0.05 * opt->time_limit : 0.5); /* 5 % of the limit */
  if (opt->work_limit > 0 && opt->time_limit <= 0) C.heur_every = 0.05 * (double)opt->work_limit;
  C.work_limit = (double)opt->work_limit;

  NZ_VEC(Node *) all = {0}, open = {0};
  Node *root = nz_xcalloc(1, sizeof(Node));
  root->bound = -INFINITY;
  nz_vec_push(all, root);
  nz_vec_push(open, root);
  int heur_at = 0;
  while (open.n > 0 && n > 0) {
    /* Best bound first; deeper first among equals (dives toward solutions). */
    int pick = 0;
    for (int e = 1; e < open.n; e++) {
      const Node *a = open.v[e], *b = open.v[pick];
      if (a->bound < b->bound - 0.5 || (a->bound < b->bound + 0.5 && a->depth > b->depth)) pick = e;
    }
    Node *v = open.v[pick];
    open.v[pick] = open.v[--open.n];
    if (v->bound > C.best_obj - PRUNE_GAP) continue; /* cannot beat the incumbent by 1 */
    if (out_of_time(&C)) {
      nz_vec_push(open, v);
      break;
    }
    C.nodes++;
    if (!enter_node(&C, v)) continue;
    double bound = -INFINITY;
    int st, rows_added = 0, cut_rounds = 0;
    for (;;) {
      st = column_generation(&C, rows_added, &bound);
      if (st != 1) break;
      if (bound > C.best_obj - PRUNE_GAP) break;
      if (!integral(&C, cl)) {
        /* Fractional: strengthen with two-cluster cycle rows, else reach
         * rows, else longer cycle rows, a few rounds. */
        if (cut_rounds < (v->depth == 0 ? C.root_rounds : 5) && (separate_two_cycles(&C, 100) > 0 || separate_reach_rows(&C, 100) > 0 || separate_long_cycles(&C, 50) > 0)) {
          cut_rounds++;
          rows_added = 1;
          continue;
        }
        break;
      }
      fus_partition_canon(n, cl);
      if (!add_cycle_cut(&C, cl)) {
        offer(&C, cl, 1);
        break;
      }
      rows_added = 1;
    }
    if (st < 0) {
      nz_vec_push(open, v); /* unfinished: keeps the global bound honest */
      break;
    }
    if (getenv("NESSIE_CG_TRACE") && (getenv("NESSIE_CG_TRACE")[0] == '2' || C.nodes == 1 || (C.nodes & (C.nodes - 1)) == 0)) {
      double lo = bound;
      for (int e = 0; e < open.n; e++) if (open.v[e]->bound < lo) lo = open.v[e]->bound;
      fprintf(stderr, "ilp-cg: node %ld depth %d bound %.3f global %.3f best %.0f cols %d %.2f s\n", C.nodes, v->depth, bound, lo, C.best_obj, C.cols.n, nz_now() - t1);
    }
    if (st == 0 || bound > C.best_obj - PRUNE_GAP) continue;
    if (integral(&C, cl)) continue; /* an acyclic integral optimum: offered above */
    /* The restricted master at the first four nodes (the kernel-count
     * branch's children have the columns that matter) and then at spaced
     * nodes; measured on 100-invocation regions: about 1.4x faster. */
    if (C.nodes <= 4 || C.nodes >= heur_at) {
      double before = C.best_obj;
      round_lp(&C);
      restricted_master(&C, C.nodes == 1 ? 1.0 : 0.3, RMP_SEARCH_COLS, 0);
      /* Sparser while they find nothing better (measured: at 100-150
       * invocations the incumbent is often optimal early, and the
       * restricted master took half of the time). */
      heur_at = (int)C.nodes * (C.best_obj < before ? 2 : 4) + 8;
      if (bound > C.best_obj - PRUNE_GAP) continue;
    }
    /* The number of clusters first (it dominates the objective), then the
     * number of arrays (ILP.md, "Branching"), then Ryan-Foster on the most
     * fractional pair. */
    double ks = 0, as = 0, ts = 0;
    for (int c = 0; c < C.cols.n; c++) {
      double x = colx(&C, &C.cols.v[c]);
      ks += x, as += x * C.cols.v[c].arrays, ts += x * C.cols.v[c].reads;
    }
    int bi = -1, bj = -1, onk = fabs(ks - floor(ks + 0.5)) > 1e-6, thi = 0;
    /* (The branch on arrays rests on the unit model's lexicographic weights.) */
    int ona = !onk && !C.kw && fus_cg_array_branch(C.w, bound, C.klo, C.best_obj, as, ts, &bi, &thi);
    if (!onk && !ona && !branch_pair(&C, &bi, &bj)) nz_die("ilp-cg: a fractional solution without a fractional pair");
    if (ona) add_objective_rows(&C);
    C.kbranches += onk, C.abranches += ona;
    for (int t = 1; t >= 0; t--) {
      if (ona && !t && thi < 0) break; /* no partition with more arrays beats the incumbent */
      Node *u = nz_xcalloc(1, sizeof(Node));
      u->parent = v;
      if (onk) {
        u->kind = t ? KERNELS_AT_MOST : KERNELS_AT_LEAST;
        u->i = t ? (int)floor(ks) : (int)ceil(ks);
      } else if (ona) {
        u->kind = t ? ARRAYS_AT_MOST : READS_AT_MOST;
        u->i = t ? bi : thi;
      } else {
        u->i = bi, u->j = bj;
      }
      u->together = t;
      u->bound = bound;
      u->depth = v->depth + 1;
      nz_vec_push(all, u);
      nz_vec_push(open, u);
    }
  }
  /* Proven once no open node may hold a better partition (each open node's
   * bound is a valid lower bound for its subtree). */
  int proven = 1;
  for (int e = 0; e < open.n && proven; e++) proven = open.v[e]->bound > C.best_obj - PRUNE_GAP;
  int by_work = opt->work_limit > 0 && opt->time_limit <= 0;
  if (!proven && (end > 0 || by_work)) {
    C.timed_out = 0;
    C.deadline = end;
    C.work_limit = 0; /* the closing heuristic's MIPs are bounded by nodes (RMP_NODES) */
    double ta = nz_now();
    if (C.lp_status == CG_LP_OPT) round_lp(&C);
    if (getenv("NESSIE_CG_TRACE")) fprintf(stderr, "ilp-cg: search stopped at %.2f s, rounding %.2f s\n", ta - t1, nz_now() - ta);
    /* GLPK overshoots its limit on large masters (its root LP is not
     * interrupted): measured 0.9 s over a 1 s budget with 3000 columns. It
     * gets half of what is left. */
    /* Under a work limit alone, the close takes the search's smaller MIP:
     * nodes of the 2000-column one cost up to 0.3 s each (measured at 150
     * invocations), too coarse for a count of nodes to bound. */
    restricted_master(&C, 0.5 * (end - nz_now()), by_work ? RMP_SEARCH_COLS : RMP_COLS, 1);
  }
  int rc = 0;
  if (opt->dump_ilp && n > 0) {
    int *sel = nz_xmalloc(sizeof(int) * (size_t)(C.cols.n + 1));
    for (int c = 0; c < C.cols.n; c++) sel[c] = c;
    FusIlp *m = pool_mip(&C, sel, C.cols.n); /* the final restricted master */
    free(sel);
    rc = fus_ilp_dump(m, opt);
    fus_ilp_free(m);
  }
  memcpy(out->cl, C.best, sizeof(int) * (size_t)n);
  out->status = proven ? FUS_ST_OPTIMAL : C.best_from_search ? FUS_ST_FEASIBLE : FUS_ST_FALLBACK;
  out->solve_seconds = nz_now() - t1;
  out->nvars = C.cols.n;
  out->nconstraints = n + C.cuts.n;
  out->nodes = C.nodes;
  out->solver_objective = C.best_obj;
  if (getenv("NESSIE_CG_TRACE"))
    fprintf(stderr,
            "ilp-cg: %ld nodes (branched on kernels %ld, on arrays %ld), %ld LPs, %d columns, %d cuts, %s, %.3f s "
            "(pricing %.2f s, %ld search nodes; simplex %.2f s)\n",
            C.nodes, C.kbranches, C.abranches, C.lps, C.cols.n, C.cuts.n, fus_status_name(out->status),
            out->solve_seconds, C.t_price, C.dfs_work, C.t_lp);
  for (int e = 0; e < all.n; e++) free(all.v[e]);
  nz_vec_free(all);
  nz_vec_free(open);
  for (int c = 0; c < C.cols.n; c++) free(C.cols.v[c].mem), free(C.cols.v[c].bits);
  nz_vec_free(C.cols);
  for (int u = 0; u < C.cuts.n; u++) cut_free(&C.cuts.v[u]);
  nz_vec_free(C.cuts);
  for (int u = 0; u < C.pending.n; u++) cut_free(&C.pending.v[u]);
  nz_vec_free(C.pending);
  cg_lp_free(C.lp);
  free(cl);
  free((char *)C.apart);
  free(C.partner);
  free(C.forder);
  free(C.anc);
  free(C.comp);
  free(C.comp_added);
  free(C.skip_bounded);
  free(C.quiet);
  free(C.y);
  free(C.memo.y);
  free(C.uf);
  free(C.dapart);
  free(C.aof);
  free(C.astart);
  free(C.amem);
  free(C.acompat);
  free(C.api);
  free(C.pi);
  free(C.pairw);
  free(C.reach_pen);
  nz_vec_free(C.reach_on);
  free(C.bonus);
  free(C.stamp);
  free(C.hash);
  free(C.best);
  free(C.kw), free(C.aw), free(C.rw);
  return rc;
}
