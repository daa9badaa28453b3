/* fus_ilp_decomp.c — the `ilp-decomp` scheduler is exact: its proven optimum
 * equals exhaustive search on random small regions (GLPK and CBC), equals
 * ilp-lazy's proven optimum on medium ones, and a region whose components'
 * separate optima form a cycle together is merged and solved right. Also the
 * repair of cyclic partitions its driver and ilp-cg share (fus_split_cycles,
 * fus_repair). */
#include "fusion.h"
#include "fus_run.h"
#include "unit.h"

#include <string.h>

/* fus_split_cycles: on random partitions that satisfy the pair rule (random
 * merges, acyclicity not asked), the result is legal, refines the input, and
 * over all of them keeps fewer clusters than splitting into singletons; on a
 * hand region it splits a three-member cluster in two. fus_repair keeps the
 * cheaper of both. */
static void test_split_cycles(void) {
  int illegal = 0, coarser = 0, cyclic = 0, worse = 0, repair_bad = 0;
  long k_new = 0, k_old = 0;
  for (int r = 1; r <= 400; r++) {
    int n = 6 + r % 35;
    FusGraph *g = fus_graph_random((uint64_t)(91000 + r), n);
    uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)r;
    int cl[40], orig[40], old[40], cin[41], cout[41];
    for (int i = 0; i < n; i++) cl[i] = i;
    for (int t = 0; t < 4 * n; t++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      int a = (int)((s >> 33) % (uint64_t)n), b = (int)((s >> 17) % (uint64_t)n), ok = 1;
      if (cl[a] == cl[b]) continue;
      for (int i = 0; i < n && ok; i++)
        for (int j = 0; j < n && ok; j++)
          if (cl[i] == cl[a] && cl[j] == cl[b] && !fus_pair_ok(g, i, j, NULL)) ok = 0;
      if (!ok) continue;
      int from = cl[b];
      for (int i = 0; i < n; i++)
        if (cl[i] == from) cl[i] = cl[a];
    }
    fus_partition_canon(n, cl);
    cyclic += fus_contracted_cycle(g, cl, cin, cout) > 0;
    memcpy(orig, cl, sizeof cl);
    memcpy(old, cl, sizeof cl);
    fus_split_cycles(g, cl, cin, cout, "test");
    fus_split_cycles_seen(g, old, cin, cout, "test", 0, NULL, NULL); /* the repair before: singletons only */
    int kn = fus_partition_canon(n, cl), ko = fus_partition_canon(n, old);
    if (!fus_legal(g, cl, NULL)) illegal++;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        if (cl[i] == cl[j] && orig[i] != orig[j]) coarser++;
    int rep[40];
    memcpy(rep, orig, sizeof orig);
    fus_repair(g, rep, NULL, 0, "test", NULL, NULL);
    FusCost cr, cn, co;
    fus_cost(g, rep, &cr), fus_cost(g, cl, &cn), fus_cost(g, old, &co);
    if (!fus_legal(g, rep, NULL) || cr.objective > cn.objective || cr.objective > co.objective) repair_bad++;
    worse += kn > ko;
    k_new += kn, k_old += ko;
    fus_graph_free(g);
  }
  printf("  split cycles: %d of 400 random partitions cyclic; %ld clusters after, %ld splitting into singletons "
         "(%d worse)\n",
         cyclic, k_new, k_old, worse);
  CHECK("split cycles: legal, and a refinement of the input", illegal == 0 && coarser == 0 && cyclic >= 100);
  CHECK("split cycles: fewer clusters than splitting into singletons", k_new < k_old);
  CHECK("repair: legal, and the cheaper of the two splits", repair_bad == 0);

  /* a -> y -> b, with a, b, c one cluster (MAPs over n; y a REDUCE that a
   * MAP cannot absorb horizontally, so alone) and c independent of y: the
   * cycle {a,b,c} -> {y} -> {a,b,c} is broken by {a,c} {b}, not by three
   * singletons. */
  {
    FusGraph *g = fus_graph_parse("a MAP(n): x* -> A; y REDUCE(n): A* -> $s; b MAP(n): x*, $s -> B; c MAP(n): x* -> C; "
                                  "out B, C",
                                  "split");
    int cl[4] = {0, 1, 0, 0}, cin[5], cout[5];
    CHECK("split cycles: the hand region's cluster is cyclic", g && fus_contracted_cycle(g, cl, cin, cout) > 0);
    fus_split_cycles(g, cl, cin, cout, "test");
    CHECK("split cycles: {a,c} {y} {b}", cl[0] == cl[3] && cl[0] != cl[2] && cl[1] != cl[0] && cl[1] != cl[2]);
    fus_graph_free(g);
  }
}

int main(void) {
  /* Small regions against exhaustive search (other seeds than fus_ilp.c). */
  int bad = 0, regions = 0;
  double t = 0;
  for (int r = 1; r <= 200; r++) {
    int n = 1 + r % 9;
    FusGraph *g = fus_graph_random((uint64_t)(7000 + r), n);
    int best[9];
    double opt = fus_exhaustive(g, best, NULL);
    if (fus_run_proven(g, "ilp-decomp", FUS_GLPK, &t) != opt) bad++;
    if (fus_run_proven(g, "ilp-decomp", FUS_CBC, &t) != opt) bad++;
    regions++;
    fus_graph_free(g);
  }
  printf("  %d regions of 1-9 invocations, %.3f s\n", regions, t);
  CHECK("ilp-decomp == exhaustive (glpk, cbc)", bad == 0);

  /* Medium regions: the same optimum as ilp-lazy where both prove one. */
  int bad_med = 0, compared = 0;
  double tl = 0, td = 0;
  for (int r = 1; r <= 12; r++) {
    FusGraph *g = fus_graph_random((uint64_t)(300 + r), 18 + 2 * r);
    double a = fus_run_proven(g, "ilp-lazy", FUS_GLPK, &tl), b = fus_run_proven(g, "ilp-decomp", FUS_GLPK, &td);
    if (a >= 0) {
      compared++;
      if (a != b) bad_med++;
    }
    fus_graph_free(g);
  }
  printf("  %d medium regions (20-42 invocations) compared; ilp-lazy %.3f s, ilp-decomp %.3f s\n", compared, tl, td);
  CHECK("ilp-decomp == ilp-lazy on medium regions", bad_med == 0 && compared >= 9);

  /* a, d are fusable only with each other (REDUCE over n), b, c likewise (over
   * m); a -> b and c -> d are incompatible. Each component alone fuses its
   * pair, but both fusions together make the cycle {a,d} -> {b,c} -> {a,d}:
   * the optimum fuses one pair (3 kernels), found by exhaustive search. */
  {
    FusGraph *g = fus_graph_parse(FUS_CROSS_REGION, "cross");
    int best[4];
    double opt = fus_exhaustive(g, best, NULL);
    FusCost c;
    fus_cost(g, best, &c);
    double t2 = 0;
    int both = 0;
    int cl[4] = {0, 1, 1, 0}; /* {a,d} {c,b}: the separate optima, illegal together */
    both = !fus_legal(g, cl, NULL);
    CHECK("cross-component cycle: the separate optima are illegal together", both);
    CHECK("cross-component cycle: 3 kernels at the optimum", c.kernels == 3);
    CHECK("cross-component cycle: ilp-decomp (glpk) == exhaustive", fus_run_proven(g, "ilp-decomp", FUS_GLPK, &t2) == opt);
    CHECK("cross-component cycle: ilp-decomp (cbc) == exhaustive", fus_run_proven(g, "ilp-decomp", FUS_CBC, &t2) == opt);
    fus_graph_free(g);
  }
  test_split_cycles();
  nz_intern_free_all();
  return 0;
}
