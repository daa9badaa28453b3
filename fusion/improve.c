/* improve.c — local search on legal partitions: merges of two clusters and
 * moves of one invocation into another cluster (or out, alone), taken while
 * they lower the cost model's objective. The ILP schedulers use it to polish
 * their starts and the partitions their in-search heuristic builds: the
 * solvers prove optimality much sooner once they hold a near-optimal
 * solution (ILP.md, "The decomposed variant"). */
#include "fusion.h"

static double objective(const FusGraph *g, const int *cl) {
  FusCost c;
  fus_cost(g, cl, &c);
  return c.objective;
}

/* i may join cluster c: pair rule with every member (the cheap half of
 * legality; acyclicity is checked on the whole partition after). */
static int pairs_ok(const FusGraph *g, const int *cl, int i, int c) {
  for (int j = 0; j < g->ninv; j++)
    if (j != i && cl[j] == c && !fus_pair_ok(g, i, j, NULL)) return 0;
  return 1;
}

void fus_improve(const FusGraph *g, int *cl, const char *movable, long budget) {
  int n = g->ninv;
  if (n < 2) return;
  long checks = 0; /* legality checks so far: the budget counts them, not seconds, so runs repeat */
  /* Clusters made of movable invocations only may change; the others are
   * fixed (another group's, or a context's). */
  char *free_cl = nz_xmalloc((size_t)n * 2 + 1);
  int *trial = nz_xmalloc(sizeof(int) * (size_t)n);
  fus_partition_canon(n, cl);
  double cur = objective(g, cl);
  for (int improved = 1; improved && checks < budget;) {
    improved = 0;
    memset(free_cl, 1, (size_t)n * 2 + 1);
    for (int i = 0; i < n; i++)
      if (movable && !movable[i]) free_cl[cl[i]] = 0;
    int k = 0;
    for (int i = 0; i < n; i++)
      if (cl[i] + 1 > k) k = cl[i] + 1;
    /* Merges: each saves a kernel, the first priority. */
    for (int a = 0; a < k && checks < budget; a++)
      for (int b = a + 1; b < k; b++) {
        if (!free_cl[a] || !free_cl[b]) continue;
        int present_b = 0;
        for (int i = 0; i < n && !present_b; i++) present_b = cl[i] == b;
        if (!present_b) continue;
        checks++;
        if (!fus_legal_merge(g, cl, a, b, NULL)) continue;
        for (int i = 0; i < n; i++)
          if (cl[i] == b) cl[i] = a;
        improved = 1;
      }
    if (improved) {
      fus_partition_canon(n, cl);
      cur = objective(g, cl);
      continue;
    }
    /* Moves: i into another free cluster, or alone (cluster id n + i). */
    for (int i = 0; i < n && !improved && checks < budget; i++) {
      if (movable && !movable[i]) continue;
      for (int c = 0; c <= k && !improved; c++) {
        int target = c == k ? n + i : c;
        if (target == cl[i] || (c < k && !free_cl[c])) continue;
        if (c < k && !pairs_ok(g, cl, i, c)) continue;
        memcpy(trial, cl, sizeof(int) * (size_t)n);
        trial[i] = target;
        fus_partition_canon(n, trial);
        checks++;
        if (!fus_legal(g, trial, NULL)) continue;
        double o = objective(g, trial);
        if (o < cur) {
          memcpy(cl, trial, sizeof(int) * (size_t)n);
          cur = o;
          improved = 1;
        }
      }
    }
  }
  free(free_cl);
  free(trial);
}
