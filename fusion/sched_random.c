/* sched_random.c — a random legal partition (issue 38's validation: schedules
 * beyond the named schedulers, to check that a cost model ranks them as their
 * measured times do). From singletons, the pairs that the pair rule allows are
 * taken in a random order (FusOptions.seed); each is merged with probability
 * p, itself drawn per region from [0.2, 1), when the merge keeps the partition
 * legal (fus_legal_merge), at most 40 n + 1000 attempts. p = 1 is a random maximal partition; small p leaves
 * much unfused. The same seed gives the same partition. */
#include "fusion.h"

static uint64_t next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int fus_sched_random(const FusGraph *g, FusOptions *opt, FusSchedule *out) {
  int n = g->ninv, np = 0;
  uint64_t s = opt->seed * 0x2545f4914f6cdd1dull + (uint64_t)n;
  int *pi = nz_xmalloc(sizeof(int) * (size_t)(n * (n - 1) / 2 + 1)), *pj = nz_xmalloc(sizeof(int) * (size_t)(n * (n - 1) / 2 + 1));
  for (int i = 0; i < n; i++) {
    out->cl[i] = i;
    for (int j = i + 1; j < n; j++)
      if ((fus_into(g, i, j) || fus_indep(g, i, j)) && fus_pair_ok(g, i, j, NULL)) pi[np] = i, pj[np++] = j;
  }
  for (int k = np - 1; k > 0; k--) { /* Fisher–Yates */
    int r = (int)(next(&s) % (uint64_t)(k + 1)), t = pi[k];
    pi[k] = pi[r], pi[r] = t;
    t = pj[k], pj[k] = pj[r], pj[r] = t;
  }
  double p = 0.2 + 0.8 * (double)(next(&s) >> 11) * 0x1.0p-53;
  /* Each attempt costs O(n + edges): a bounded number keeps big regions
   * (thousands of invocations) quadratic, not cubic. */
  long tries = 0, max_tries = 40L * n + 1000;
  for (int k = 0; k < np && tries < max_tries; k++) {
    int a = out->cl[pi[k]], b = out->cl[pj[k]];
    if (a == b || (double)(next(&s) >> 11) * 0x1.0p-53 >= p) continue;
    if (++tries, !fus_legal_merge(g, out->cl, a, b, NULL)) continue;
    for (int i = 0; i < n; i++)
      if (out->cl[i] == b) out->cl[i] = a;
  }
  free(pi), free(pj);
  out->status = FUS_ST_GREEDY;
  return 0;
}
