/* cost.c — the one cost model every schedule is scored with, whoever made it
 * (DESIGN.md "Metrics"):
 *   kernels     clusters (one launch each);
 *   arrays      arrays produced in the region that must be materialised: some
 *               consumer is outside the producer's cluster, or it is live out;
 *   traversals  array reads: per cluster, the distinct arrays its members read
 *               that are not produced inside it (a read shared by fused kernels
 *               counts once; an array consumed where it is produced is no read);
 *   objective   W_k*kernels + W_a*arrays + W_t*traversals, lexicographic
 *               under the unit model; under a sized model (cost_model.c) each
 *               term weighed by its size in elements, in nanoseconds.
 *
 * Priority order. The paper is inconsistent: §8.2 prioritises fusions that
 * reduce (1) kernels (2) intermediate arrays (3) traversals; §8.4's formula
 * weights unfused pairs by n^2, shared reads by n and arrays by 1; its prose
 * says allocation, memory traffic, invocations "in descending order". We take
 * §8.2's order. It agrees with the formula that launches come first, and an
 * eliminated array saves its allocation, a full write and at least one full
 * read, so it should outweigh a single shared read.
 *
 * Weights make the order strict: W_t = 1, W_a = T0 + 1, W_k = W_a * (A0 + 1),
 * where T0 and A0 are the traversals and arrays of the unfused region. Every
 * partition has traversals <= T0 and arrays <= A0 (fusing only removes reads
 * and materialisations), so one kernel more outweighs any change in the rest:
 * W_a*A + W_t*T <= (T0+1)*A0 + T0 < W_k. All values are exact integers in a
 * double up to 2^53. */
#include "fusion.h"

/* Counts the three terms of partition cl; with w (may be NULL) also their
 * weighted sum in *objective. */
static void count(const FusGraph *g, const int *cl, const FusWeights *w, int *kernels, int *arrays,
                  int *traversals, double *objective) {
  double obj = 0;
  int n = g->ninv;
  int *c = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  memcpy(c, cl, sizeof(int) * (size_t)n);
  int k = fus_partition_canon(n, c);
  if (w) /* a cluster's first member is where canonical numbering meets a new cluster */
    for (int i = 0, seen = 0; i < n; i++)
      if (c[i] == seen) obj += fus_w_kernel(w, i), seen++;
  int a = 0;
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x = &g->var[v];
    if (!x->is_array || x->producer < 0) continue;
    int mat = x->live_out;
    for (int u = 0; u < x->nconsumers && !mat; u++) mat = c[x->consumers[u]] != c[x->producer];
    a += mat;
    if (w && mat) obj += fus_w_array(w, v);
  }
  /* stamp[v] = 1 + the last cluster that counted a read of v. Visiting the
   * invocations cluster by cluster makes the stamp a set per cluster. */
  int *stamp = nz_xcalloc((size_t)(g->nvar ? g->nvar : 1), sizeof(int));
  int *order = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int *start = nz_xcalloc((size_t)k + 1, sizeof(int));
  for (int i = 0; i < n; i++) start[c[i] + 1]++;
  for (int x = 0; x < k; x++) start[x + 1] += start[x];
  for (int i = 0; i < n; i++) order[start[c[i]]++] = i;
  int t = 0;
  for (int o = 0; o < n; o++) {
    int i = order[o];
    const FusInv *I = &g->inv[i];
    for (int u = 0; u < I->nuses; u++) {
      int v = I->uses[u].var;
      const FusVar *x = &g->var[v];
      if (!x->is_array) continue;
      if (x->producer >= 0 && c[x->producer] == c[i]) continue;
      if (stamp[v] == c[i] + 1) continue;
      stamp[v] = c[i] + 1;
      t++;
      if (w) obj += fus_w_read(w, v);
    }
  }
  free(stamp);
  free(order);
  free(start);
  free(c);
  *kernels = k;
  *arrays = a;
  *traversals = t;
  if (objective) *objective = obj;
}

FusWeights fus_cost_weights(const FusGraph *g) {
  FusWeights w = {0};
  const FusCostModel *m = g->model;
  if (m && !m->unit) {
    /* In nanoseconds: solvers' tolerances are absolute (about 1e-6), and
     * per-element weights are about 1e-9 s. */
    w.kernels = 1e9 * m->launch, w.pass = 1e9 * m->pass, w.arrays = 1e9 * m->write, w.traversals = 1e9 * m->read;
    w.inv_size = g->inv_size, w.var_size = g->var_size;
    return w;
  }
  int n = g->ninv, k, a, t;
  int *single = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) single[i] = i;
  count(g, single, NULL, &k, &a, &t, NULL);
  free(single);
  w.traversals = 1;
  w.arrays = (double)t + 1;
  w.kernels = w.arrays * ((double)a + 1);
  return w;
}

void fus_cost(const FusGraph *g, const int *cl, FusCost *out) {
  FusWeights w = fus_cost_weights(g);
  count(g, cl, &w, &out->kernels, &out->arrays, &out->traversals, &out->objective);
  if (g->model && !g->model->unit && g->runs > 0) out->objective *= g->runs;
}

void fus_cost_before(const FusGraph *g, FusCost *out) {
  int n = g->ninv;
  int *single = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) single[i] = i;
  fus_cost(g, single, out);
  free(single);
}
