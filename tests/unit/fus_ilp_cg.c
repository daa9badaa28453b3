/* fus_ilp_cg.c — the `ilp-cg` scheduler (branch-and-price over legal
 * clusters) is exact: its proven optimum equals exhaustive search on random
 * small regions, equals ilp-decomp's proven optimum on medium ones, and the
 * cycle its separate cluster choices can form is cut without losing the
 * optimum; and the pairs it joins from the root are fused by every optimal
 * partition. */
#include "fusion.h"
#include "fus_run.h"
#include "unit.h"

/* Calls visit(g, cl, ctx) for every legal partition cl of g: restricted
 * growth strings, pruned by the pair rule as in exhaustive.c. */
static void each_legal(const FusGraph *g, int *cl, int i, int k, void (*visit)(const FusGraph *, const int *, void *),
                       void *ctx) {
  if (i == g->ninv) {
    if (fus_legal(g, cl, NULL)) visit(g, cl, ctx);
    return;
  }
  for (int x = 0; x <= k; x++) {
    int ok = 1;
    for (int j = 0; j < i && ok; j++)
      if (cl[j] == x && !fus_pair_ok(g, j, i, NULL)) ok = 0;
    if (!ok) continue;
    cl[i] = x;
    each_legal(g, cl, i + 1, x == k ? k + 1 : k, visit, ctx);
  }
}

/* Counts, over the partitions of cost opt, those that split a forced pair
 * (bad) and all of them (nopt). */
typedef struct {
  const int *partner;
  double opt;
  int nopt, bad;
} ForcedCheck;

static void check_forced(const FusGraph *g, const int *cl, void *ctx) {
  ForcedCheck *f = ctx;
  FusCost c;
  fus_cost(g, cl, &c);
  if (c.objective != f->opt) return;
  f->nopt++;
  for (int m = 0; m < g->ninv; m++)
    if (f->partner[m] >= 0 && cl[m] != cl[f->partner[m]]) f->bad++;
}

/* Applies the forced moves to a legal partition: the result must be legal,
 * fuse every forced pair, and cost less whenever something moved. */
typedef struct {
  const int *partner, *order;
  int count, parts, moved, bad;
} ApplyCheck;

static void check_apply(const FusGraph *g, const int *cl, void *ctx) {
  ApplyCheck *f = ctx;
  int n = g->ninv, to[32];
  memcpy(to, cl, sizeof(int) * (size_t)n);
  int moves = fus_forced_apply(n, f->partner, f->order, f->count, to);
  FusCost a, b;
  fus_cost(g, cl, &a);
  fus_cost(g, to, &b);
  f->parts++;
  f->moved += moves > 0;
  if (!fus_legal(g, to, NULL) || (moves > 0 ? b.objective >= a.objective : memcmp(to, cl, sizeof(int) * (size_t)n) != 0))
    f->bad++;
  for (int m = 0; m < n; m++)
    if (f->partner[m] >= 0 && to[m] != to[f->partner[m]]) f->bad++;
}

/* The (kernels, arrays, traversals) of each partition, 3 ints each. */
typedef struct {
  int *t, n;
} Terms;

static void add_terms(const FusGraph *g, const int *cl, void *ctx) {
  Terms *T = ctx;
  FusCost c;
  fus_cost(g, cl, &c);
  T->t[3 * T->n] = c.kernels, T->t[3 * T->n + 1] = c.arrays, T->t[3 * T->n + 2] = c.traversals;
  T->n++;
}

int main(void) {
  /* The branch on arrays (ILP.md, "Branching") keeps every partition that
   * could beat the incumbent: whatever the node's bound, kernel floor,
   * incumbent and LP solution, each legal partition of a small region that
   * the node holds (cost >= bound, kernels >= klo) and that costs less than
   * the incumbent has at most a arrays or at most thi traversals (none, for
   * thi = -1). The parameters are drawn around the region's own costs. */
  {
    int cases = 0, branched = 0, lost = 0;
    int *t = nz_xmalloc(sizeof(int) * 3 * 30000);
    uint64_t r = 88172645463325252ull;
#define NEXT() (r ^= r << 13, r ^= r >> 7, r ^= r << 17, r)
    for (int reg = 0; reg < 80; reg++) {
      FusGraph *g = fus_graph_random((uint64_t)(6100 + reg), 3 + reg % 6);
      FusWeights w = fus_cost_weights(g);
      int cl[16];
      Terms T = {t, 0};
      each_legal(g, cl, 0, 0, add_terms, &T);
      int nt = T.n;
      for (int trial = 0; trial < 200; trial++) {
        /* The incumbent, the node's bound and kernel floor, the LP's terms. */
        const int *p = &t[3 * (int)(NEXT() % (uint64_t)nt)], *q = &t[3 * (int)(NEXT() % (uint64_t)nt)];
        double best = w.kernels * p[0] + w.arrays * p[1] + w.traversals * p[2] + (double)(NEXT() % 3);
        double bound = w.kernels * q[0] + w.arrays * q[1] + w.traversals * q[2] - (double)(NEXT() % 400);
        int klo = q[0] - (int)(NEXT() % 2);
        double as = q[1] + 0.05 + 0.9 * (double)(NEXT() % 1000) / 1000, ts = (double)(NEXT() % 40);
        int a, thi;
        cases++;
        if (!fus_cg_array_branch(w, bound, klo, best, as, ts, &a, &thi)) continue;
        branched++;
        for (int x = 0; x < nt; x++) {
          const int *c = &t[3 * x];
          double cost = w.kernels * c[0] + w.arrays * c[1] + w.traversals * c[2];
          if (cost < bound || cost > best - 1 || c[0] < klo) continue; /* not in the node, or no better */
          if (c[1] > a && (thi < 0 || c[2] > thi)) lost++;
        }
      }
      fus_graph_free(g);
    }
#undef NEXT
    free(t);
    printf("  branch on arrays: %d of %d cases branched\n", branched, cases);
    CHECK("branch on arrays keeps every better partition", lost == 0 && branched > 500);
  }
  /* Forced pairs (ILP.md): every optimal partition of a small region fuses
   * them, so ilp-cg may make each one atom at the root. */
  {
    int pairs = 0, nopt = 0, bad = 0;
    ApplyCheck ac = {0}; /* and any legal partition, joined (below) */
    for (int r = 1; r <= 600; r++) {
      FusGraph *g = fus_graph_random((uint64_t)(7300 + r), 3 + r % 7);
      char *apart = fus_apart(g);
      int partner[9], order[9], best[9], cl[9];
      int np = fus_forced_partners(g, apart, partner, order);
      if (np > 0) {
        ForcedCheck f = {partner, fus_exhaustive(g, best, NULL), 0, 0};
        each_legal(g, cl, 0, 0, check_forced, &f);
        nopt += f.nopt, bad += f.bad;
        pairs += np;
        ac.partner = partner, ac.order = order, ac.count = np;
        each_legal(g, cl, 0, 0, check_apply, &ac);
      }
      free(apart);
      fus_graph_free(g);
    }
    printf("  %d forced pairs in 600 regions of 3-9 invocations; %d optimal partitions checked\n", pairs, nopt);
    CHECK("every optimal partition fuses the forced pairs", bad == 0 && pairs >= 50);
    /* And any legal partition that splits them has a cheaper legal one that
     * does not (fus_forced_apply, which ilp-cg applies to every partition it
     * is offered, and ilp-lazy and ilp-decomp to their greedy start). */
    printf("  forced moves: %d of %d legal partitions moved\n", ac.moved, ac.parts);
    CHECK("joining forced pairs keeps a partition legal and makes it cheaper", ac.bad == 0 && ac.moved > 1000);
  }
  /* The same on larger regions, where atoms nest (a join of atoms that
   * earlier joins built: the moves must take whole atoms), over random legal
   * partitions (random merges kept while legal). */
  {
    ApplyCheck f = {0};
    int nested = 0;
    uint64_t r = 0x2545F4914F6CDD1Dull;
#define NEXT() (r ^= r << 13, r ^= r >> 7, r ^= r << 17, r)
    for (int reg = 0; reg < 4000; reg++) {
      int n = 16 + reg % 16;
      FusGraph *g = fus_graph_random((uint64_t)(9100 + reg), n);
      char *apart = fus_apart(g);
      int partner[32], order[32], cl[32], size[32];
      f.partner = partner, f.order = order;
      f.count = fus_forced_partners(g, apart, partner, order);
      for (int i = 0; i < n; i++) size[i] = 1;
      int here = 0;
      for (int t = 0; t < f.count; t++) {
        here += size[order[t]] > 1 || size[partner[order[t]]] > 1;
        size[partner[order[t]]] += size[order[t]];
      }
      nested += here;
      for (int trial = 0; trial < (here ? 200 : reg % 10 ? 0 : 20) && f.count > 0; trial++) {
        for (int i = 0; i < n; i++) cl[i] = i;
        for (int m = 0; m < 3 * n; m++) {
          int a = cl[NEXT() % (uint64_t)n], b = cl[NEXT() % (uint64_t)n], keep[32];
          if (a == b) continue;
          memcpy(keep, cl, sizeof(int) * (size_t)n);
          for (int i = 0; i < n; i++)
            if (cl[i] == b) cl[i] = a;
          if (!fus_legal(g, cl, NULL)) memcpy(cl, keep, sizeof(int) * (size_t)n);
        }
        check_apply(g, cl, &f);
      }
      free(apart);
      fus_graph_free(g);
    }
#undef NEXT
    printf("  forced moves: %d of %d partitions of 16-31 invocations moved (%d nested joins)\n", f.moved, f.parts,
           nested);
    CHECK("joining forced pairs, nested atoms: legal, cheaper, every pair fused",
          f.bad == 0 && f.moved > 1000 && nested >= 40);
  }
  /* Why the conditions that random regions rarely exercise are there: m's
   * output is live out (fusing m with c saves no array), or reaches c only as
   * a scalar. Either way the optimum keeps m with its twin x, which shares
   * its reads, and c alone; forcing m with c would lose it. */
  {
    static const char *const regions[] = {"m MAP(n): a*, b* -> O; x MAP(n): a*, b* -> X; c REDUCE(n): O* -> $p; out O X $p",
                                          "m REDUCE(n): a*, b* -> $s; x REDUCE(n): a*, b* -> $u; c ONCE: $s -> $t; out $t $u"};
    for (int r = 0; r < 2; r++) {
      FusGraph *g = fus_graph_parse(regions[r], "forced");
      char *apart = fus_apart(g);
      int partner[3], best[3];
      fus_forced_partners(g, apart, partner, NULL);
      double opt = fus_exhaustive(g, best, NULL), t2 = 0;
      CHECK(r ? "a scalar into c: no forced pair, m and c apart at the optimum"
              : "a live-out output: no forced pair, m and c apart at the optimum",
            partner[0] == -1 && best[0] == best[1] && best[0] != best[2]);
      CHECK("and ilp-cg == exhaustive", fus_run_proven(g, "ilp-cg", FUS_GLPK, &t2) == opt);
      free(apart);
      fus_graph_free(g);
    }
  }

  /* Small regions against exhaustive search (seeds of their own). */
  int bad = 0, regions = 0;
  double t = 0;
  for (int r = 1; r <= 300; r++) {
    int n = 1 + r % 10;
    FusGraph *g = fus_graph_random((uint64_t)(9100 + r), n);
    int best[10];
    double opt = fus_exhaustive(g, best, NULL);
    /* The solver only runs the restricted-master heuristic: both must agree. */
    if (fus_run_proven(g, "ilp-cg", r % 2 ? FUS_GLPK : FUS_CBC, &t) != opt) bad++;
    regions++;
    fus_graph_free(g);
  }
  printf("  %d regions of 1-10 invocations, %.3f s\n", regions, t);
  CHECK("ilp-cg == exhaustive", bad == 0);

  /* Medium regions: the same optimum as ilp-decomp where both prove one. */
  int bad_med = 0, compared = 0;
  double td = 0, tc = 0;
  for (int r = 1; r <= 12; r++) {
    FusGraph *g = fus_graph_random((uint64_t)(500 + r), 18 + 3 * r);
    double a = fus_run_proven(g, "ilp-decomp", FUS_GLPK, &td), b = fus_run_proven(g, "ilp-cg", FUS_GLPK, &tc);
    if (a >= 0 && b >= 0) {
      compared++;
      if (a != b) bad_med++;
    }
    fus_graph_free(g);
  }
  printf("  %d medium regions (21-54 invocations) compared; ilp-decomp %.3f s, ilp-cg %.3f s\n", compared, td, tc);
  CHECK("ilp-cg == ilp-decomp on medium regions", bad_med == 0 && compared >= 9);

  /* a, d fuse only with each other (REDUCE over n), b, c likewise (over m);
   * fusing both pairs makes the cycle {a,d} -> {b,c} -> {a,d}. */
  {
    FusGraph *g = fus_graph_parse(FUS_CROSS_REGION, "cross");
    int best[4];
    double opt = fus_exhaustive(g, best, NULL), t2 = 0;
    CHECK("cross cycle: ilp-cg (glpk) == exhaustive", fus_run_proven(g, "ilp-cg", FUS_GLPK, &t2) == opt);
    CHECK("cross cycle: ilp-cg (cbc) == exhaustive", fus_run_proven(g, "ilp-cg", FUS_CBC, &t2) == opt);
    fus_graph_free(g);
  }
  /* {p,s} and {r,q} as two clusters form a cycle (p -> r, s -> q), but all
   * four MAPs over n make one legal cluster, the optimum. */
  {
    FusGraph *g = fus_graph_parse("p MAP(n): x* -> A\n"
                                  "s MAP(n): x* -> B\n"
                                  "r MAP(n): A* -> C\n"
                                  "q MAP(n): B* -> D\n"
                                  "out C D\n",
                                  "merge");
    int best[4];
    double opt = fus_exhaustive(g, best, NULL), t2 = 0;
    FusCost c;
    fus_cost(g, best, &c);
    CHECK("merge: one kernel at the optimum", c.kernels == 1);
    CHECK("merge: ilp-cg == exhaustive", fus_run_proven(g, "ilp-cg", FUS_GLPK, &t2) == opt);
    fus_graph_free(g);
  }
  /* Large regions under a small work limit: the search stops, the last
   * heuristics (rounding, the restricted master, its repair) run, and the
   * schedule is legal (fus_schedule checks) and no worse than greedy. */
  {
    int worse = 0, runs = 0;
    for (int r = 1; r <= 4; r++) {
      FusGraph *g = fus_graph_random((uint64_t)(800 + r), 120 + 30 * r);
      FusOptions o;
      fus_test_options(&o);
      o.work_limit = 400000; /* counted, not timed: the same stop on any machine */
      FusSchedule sc, gr;
      if (fus_schedule(g, "ilp-cg", &o, &sc) != 0 || fus_schedule(g, "greedy-down", &o, &gr) != 0) {
        worse++;
        fus_graph_free(g);
        continue;
      }
      FusCost a, b;
      fus_cost(g, sc.cl, &a);
      fus_cost(g, gr.cl, &b);
      if (a.objective > b.objective || a.objective != sc.solver_objective) worse++;
      runs++;
      fus_schedule_free(&sc);
      fus_schedule_free(&gr);
      fus_graph_free(g);
    }
    CHECK("large regions under a work limit of 400000: legal, no worse than greedy", worse == 0 && runs == 4);
  }
  nz_intern_free_all();
  return 0;
}
