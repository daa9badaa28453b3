/* fus_ilp_decomp.c — the `ilp-decomp` scheduler is exact: its proven optimum
 * equals exhaustive search on random small regions (GLPK and CBC), equals
 * ilp-lazy's proven optimum on medium ones, and a region whose components'
 * separate optima form a cycle together is merged and solved right. */
#include "fusion.h"
#include "fus_run.h"
#include "unit.h"

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
  nz_intern_free_all();
  return 0;
}
