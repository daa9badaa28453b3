/* exhaustive.c — the oracle for small regions: enumerate every partition of the
 * invocations (restricted growth strings; a branch stops as soon as a fused
 * pair breaks the pair rule, which only prunes illegal partitions), check each
 * complete one with the legality checker and score it with the cost model. */
#include "fusion.h"

typedef struct {
  const FusGraph *g;
  int *cl, *best;
  double best_cost;
  long nlegal;
} Enum;

static void rec(Enum *E, int i, int k) {
  const FusGraph *g = E->g;
  if (i == g->ninv) {
    if (!fus_legal(g, E->cl, NULL)) return;
    E->nlegal++;
    FusCost c;
    fus_cost(g, E->cl, &c);
    if (c.objective < E->best_cost) {
      E->best_cost = c.objective;
      memcpy(E->best, E->cl, sizeof(int) * (size_t)g->ninv);
    }
    return;
  }
  for (int x = 0; x <= k; x++) {
    int ok = 1;
    for (int j = 0; j < i && ok; j++)
      if (E->cl[j] == x && !fus_pair_ok(g, j, i, NULL)) ok = 0;
    if (!ok) continue;
    E->cl[i] = x;
    rec(E, i + 1, x == k ? k + 1 : k);
  }
}

double fus_exhaustive(const FusGraph *g, int *best, long *nlegal) {
  if (g->ninv > FUS_EXHAUSTIVE_MAX) nz_die("fus_exhaustive: %d invocations (at most %d)", g->ninv, FUS_EXHAUSTIVE_MAX);
  Enum E = {.g = g, .best = best, .best_cost = 1e300};
  E.cl = nz_xcalloc((size_t)(g->ninv ? g->ninv : 1), sizeof(int));
  rec(&E, 0, 0);
  free(E.cl);
  if (nlegal) *nlegal = E.nlegal;
  return E.best_cost;
}

int fus_sched_exhaustive(const FusGraph *g, FusOptions *opt, FusSchedule *out) {
  if (g->ninv > FUS_EXHAUSTIVE_MAX) {
    nz_error("the exhaustive scheduler handles at most %d invocations; this region has %d", FUS_EXHAUSTIVE_MAX,
             g->ninv);
    return -1;
  }
  fus_exhaustive(g, out->cl, NULL);
  out->status = FUS_ST_OPTIMAL;
  return 0;
}
