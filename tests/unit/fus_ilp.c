/* fus_ilp.c — the reference ILP is exact: on random regions of up to 8
 * invocations (and 10 of 10) its optimum, per group (`ilp`) and for the whole
 * region at once (`ilp-mono`, `ilp-bare`), with GLPK and with CBC, equals the
 * least cost over all legal partitions found by exhaustive enumeration, and the
 * partition it recovers from equal o is legal and costs exactly that; so does
 * every tightening of the group model alone. Every legal partition is a
 * feasible point of each model at exactly its cost. Also: --dump-ilp writes a
 * CPLEX LP file that GLPK reads back to the same optimum, groups whose optima
 * form a cycle together are merged, and a time limit still yields a legal
 * schedule with an honest status. */
#include "fusion.h"
#include "fus_run.h"
#include "unit.h"

#include <glpk.h>
#include <unistd.h>

static int check_sched(const FusGraph *g, const char *sched, FusSolver s, double opt, int *maxv, int *maxc,
                       double *secs, long *nodes) {
  FusOptions o;
  fus_test_options(&o);
  o.solver = s;
  FusSchedule sc;
  if (fus_schedule(g, sched, &o, &sc) != 0) return 0;
  FusCost c;
  fus_cost(g, sc.cl, &c);
  int ok = sc.status == FUS_ST_OPTIMAL && c.objective == opt && sc.solver_objective > opt - 0.5 &&
           sc.solver_objective < opt + 0.5;
  if (!ok) {
    NzBuf b = {0};
    fus_graph_print(&b, g);
    fus_partition_print(&b, g, sc.cl);
    printf("  %s (%s): status %s, cost %.0f, solver %.1f, exhaustive %.0f\n%s\n", sched, s == FUS_CBC ? "cbc" : "glpk",
           fus_status_name(sc.status), c.objective, sc.solver_objective, opt, b.s);
    nz_buf_free(&b);
  }
  if (sc.nvars > *maxv) *maxv = sc.nvars;
  if (sc.nconstraints > *maxc) *maxc = sc.nconstraints;
  *secs += sc.solve_seconds;
  if (sc.nodes > 0) *nodes += sc.nodes;
  fus_schedule_free(&sc);
  return ok;
}

static int check_solver(const FusGraph *g, FusSolver s, double opt, int *maxv, int *maxc, double *secs, long *nodes) {
  return check_sched(g, "ilp", s, opt, maxv, maxc, secs, nodes);
}

/* Every partition of g (restricted growth strings); for each legal one the
 * assignment of ILP.md's proof must satisfy every row with objective = cost. */
static void every_partition(const FusGraph *g, const FusIlp *m, int *cl, int i, int k, long *legal, long *bad) {
  if (i == g->ninv) {
    if (!fus_legal(g, cl, NULL)) return;
    (*legal)++;
    double *x = nz_xcalloc((size_t)m->ncols + 1, sizeof(double)), obj = -1;
    FusCost c;
    fus_cost(g, cl, &c);
    NzBuf why = {0};
    fus_ilp_assign(m, g, cl, x);
    if (!fus_ilp_feasible(m, x, &obj, &why) || obj != c.objective) {
      if (*bad == 0) printf("  assignment: %s (objective %.0f, cost %.0f)\n", why.s ? why.s : "", obj, c.objective);
      (*bad)++;
    }
    nz_buf_free(&why);
    free(x);
    return;
  }
  for (int x = 0; x <= k; x++) {
    cl[i] = x;
    every_partition(g, m, cl, i + 1, x == k ? k + 1 : k, legal, bad);
  }
}

/* The group model with given tightenings, for fus_sched_decomposed. */
static int tight_flags;
static FusIlp *build_tight(const FusGroup *G, FusWeights w, void **aux) {
  *aux = NULL;
  return fus_ilp_build_group(G, w, tight_flags);
}

/* Runs the group model with tightenings t; 1 if proven optimal at cost opt. */
static int check_tight(const FusGraph *g, int t, FusSolver s, double opt) {
  FusGroupModel gm = fus_ilp_group;
  gm.build = build_tight;
  tight_flags = t;
  FusOptions o;
  fus_test_options(&o);
  o.solver = s;
  FusSchedule sc = {0};
  sc.n = g->ninv;
  sc.cl = nz_xcalloc((size_t)g->ninv + 1, sizeof(int));
  fus_sched_decomposed(g, &o, &sc, &gm);
  FusCost c;
  fus_cost(g, sc.cl, &c);
  int ok = sc.status == FUS_ST_OPTIMAL && c.objective == opt && fus_legal(g, sc.cl, NULL);
  if (!ok) printf("  tightenings %d (%s): status %s, cost %.0f, exhaustive %.0f\n", t, s == FUS_CBC ? "cbc" : "glpk",
                  fus_status_name(sc.status), c.objective, opt);
  free(sc.cl);
  return ok;
}

/* Every legal partition P of g, restricted to group G (others alone), must be
 * a feasible point of G's model whose objective is the group's part of the
 * cost: its clusters' kernels, the arrays its members produce that are
 * materialised, and its members' reads that count. */
static void every_restriction(const FusGraph *g, const FusGroup *G, const FusIlp *m, int *cl, int i, int k,
                              long *checked, long *bad) {
  int n = g->ninv;
  if (i == n) {
    if (!fus_legal(g, cl, NULL)) return;
    int q[8];
    for (int j = 0; j < n; j++) q[j] = G->lid[j] >= 0 ? n + cl[j] : j;
    fus_partition_canon(n, q);
    FusWeights w = fus_cost_weights(g);
    double want = 0;
    for (int j = 0; j < n; j++) {
      int first = G->lid[j] >= 0;
      for (int e = 0; e < j && first; e++) first = q[e] != q[j];
      want += first * w.kernels;
    }
    for (int v = 0; v < g->nvar; v++) {
      const FusVar *x = &g->var[v];
      if (!x->is_array) continue;
      if (x->producer >= 0 && G->lid[x->producer] >= 0 && (x->live_out || x->nconsumers > 0)) {
        int mat = x->live_out;
        for (int u = 0; u < x->nconsumers; u++) mat |= q[x->consumers[u]] != q[x->producer];
        want += mat * w.arrays;
      }
      for (int u = 0; u < x->nconsumers; u++) {
        int r = x->consumers[u], counts = G->lid[r] >= 0 && !(x->producer >= 0 && q[x->producer] == q[r]);
        for (int e = 0; e < u && counts; e++) counts = q[x->consumers[e]] != q[r];
        want += counts * w.traversals;
      }
    }
    (*checked)++;
    double *x = nz_xcalloc((size_t)m->ncols + 1, sizeof(double)), obj = -1;
    NzBuf why = {0};
    int legal = fus_legal(g, q, &why);
    if (legal) fus_ilp_group_assign(G, NULL, m, q, x);
    if (!legal || !fus_ilp_feasible(m, x, &obj, &why) || obj != want) {
      if (*bad == 0) printf("  group assignment: %s (objective %.0f, want %.0f)\n", why.s ? why.s : "", obj, want);
      (*bad)++;
    }
    nz_buf_free(&why);
    free(x);
    return;
  }
  for (int x = 0; x <= k; x++) {
    cl[i] = x;
    every_restriction(g, G, m, cl, i + 1, x == k ? k + 1 : k, checked, bad);
  }
}

static int find(int *parent, int a) {
  while (parent[a] != a) a = parent[a] = parent[parent[a]];
  return a;
}

/* every_restriction for each group of g: the whole region as one group, and
 * each component of the fusable graph with at least two members. */
static void check_groups(const FusGraph *g, int tight, long *checked, long *bad) {
  int n = g->ninv, mem[8], lid[8], comp[8], cl[8];
  char *apart = fus_apart(g);
  for (int i = 0; i < n; i++) comp[i] = i;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (!apart[i * n + j]) comp[find(comp, i)] = find(comp, j);
  for (int r = -1; r < n; r++) {
    int ng = 0;
    for (int i = 0; i < n; i++) {
      int in = r < 0 || find(comp, i) == r;
      lid[i] = in ? ng : -1;
      if (in) mem[ng++] = i;
    }
    if (ng < 2 || (r >= 0 && ng == n)) continue;
    FusGroup G = {g, n, apart, ng, mem, lid, NULL};
    FusIlp *m = fus_ilp_build_group(&G, fus_cost_weights(g), tight);
    every_restriction(g, &G, m, cl, 0, 0, checked, bad);
    fus_ilp_free(m);
  }
  free(apart);
}

int main(void) {
  enum { REGIONS = 240 };
  int bad_glpk = 0, bad_cbc = 0, bad_mono = 0, bad_tight = 0, bad_bare = 0, bad_lazy = 0, bad_greedy = 0, fused = 0,
      greedy_worse = 0;
  int maxv = 0, maxc = 0, big = 0;
  double tg = 0, tc = 0, tl = 0;
  long ng = 0, nc = 0, legal_total = 0;
  for (int r = 1; r <= REGIONS; r++) {
    int n = 1 + r % 8;
    FusGraph *g = fus_graph_random((uint64_t)r, n);
    int *best = nz_xmalloc(sizeof(int) * (size_t)n);
    long nlegal;
    double opt = fus_exhaustive(g, best, &nlegal);
    legal_total += nlegal;
    FusCost none;
    fus_cost_before(g, &none);
    fused += opt < none.objective;
    big += n == 8;
    if (!check_solver(g, FUS_GLPK, opt, &maxv, &maxc, &tg, &ng)) bad_glpk++;
    if (!check_solver(g, FUS_CBC, opt, &maxv, &maxc, &tc, &nc)) bad_cbc++;
    /* The whole region at once, on every other region (ilp-bare on the rest);
     * CBC on every fourth (each CBC solve forks, slow under ASan). */
    if (r % 2 == 1) {
      int v0 = 0, c0 = 0;
      double t0 = 0;
      long n0 = 0;
      if (!check_sched(g, "ilp-mono", FUS_GLPK, opt, &v0, &c0, &t0, &n0)) bad_mono++;
      if (r % 4 == 1 && !check_sched(g, "ilp-mono", FUS_CBC, opt, &v0, &c0, &t0, &n0)) bad_mono++;
    }
    /* Each tightening of the group model alone, and none, on every fourth. */
    if (r % 4 == 0) {
      static const int tights[] = {0, FUS_TIGHT_M, FUS_TIGHT_APART, FUS_TIGHT_OBOUNDS, FUS_TIGHT_ARRAYS,
                                   FUS_TIGHT_CONSEC, FUS_TIGHT_THIRD, FUS_TIGHT_CONVEX, FUS_TIGHT_TRANS,
                                   FUS_TIGHT_NOTFIRST, FUS_TIGHT_REP, FUS_TIGHT_CROSS, FUS_TIGHT_ALL};
      for (size_t t = 0; t < sizeof tights / sizeof *tights; t++)
        if (!check_tight(g, tights[t], FUS_GLPK, opt)) bad_tight++;
    }
    /* The variant without ordering variables, on every region. */
    {
      int v0 = 0, c0 = 0;
      long n0 = 0;
      if (!check_sched(g, "ilp-lazy", FUS_GLPK, opt, &v0, &c0, &tl, &n0)) bad_lazy++;
      if (!check_sched(g, "ilp-lazy", FUS_CBC, opt, &v0, &c0, &tl, &n0)) bad_lazy++;
    }
    /* The model without its implied rows, on every other region. */
    if (r % 2 == 0) {
      int v0 = 0, c0 = 0;
      double t0 = 0;
      long n0 = 0;
      if (!check_sched(g, "ilp-bare", FUS_GLPK, opt, &v0, &c0, &t0, &n0)) bad_bare++;
      if (!check_sched(g, "ilp-bare", FUS_CBC, opt, &v0, &c0, &t0, &n0)) bad_bare++;
    }
    const char *greedy[] = {"greedy-down", "greedy-up", "none"};
    for (int k = 0; k < 3; k++) {
      FusOptions o;
      fus_test_options(&o);
      FusSchedule sc;
      fus_schedule(g, greedy[k], &o, &sc); /* the driver dies on an illegal partition */
      FusCost c;
      fus_cost(g, sc.cl, &c);
      if (c.objective < opt) bad_greedy++;
      if (k < 2 && c.objective > opt) greedy_worse++;
      fus_schedule_free(&sc);
    }
    free(best);
    fus_graph_free(g);
  }
  printf("  %d regions (%d of 8 invocations), %ld legal partitions in all; %d with a fusion; greedy worse %d times\n",
         REGIONS, big, legal_total, fused, greedy_worse);
  printf("  largest instance: %d variables, %d constraints; solve time glpk %.3f s (%ld nodes), cbc %.3f s (%ld nodes)\n",
         maxv, maxc, tg, ng, tc, nc);
  /* The first half of the proof, directly: every legal partition is a feasible
   * point of the ILP whose objective is its cost. */
  long assigned = 0, bad_assign = 0;
  for (int r = 1; r <= 120; r++) {
    FusGraph *g = fus_graph_random((uint64_t)r, 1 + r % 7);
    for (int implied = 0; implied < 2; implied++) {
      FusIlp *m = fus_ilp_build_variant(g, implied);
      int cl[8];
      every_partition(g, m, cl, 0, 0, &assigned, &bad_assign);
      fus_ilp_free(m);
    }
    fus_graph_free(g);
  }
  printf("  %ld legal partitions assigned\n", assigned);
  CHECK("every legal partition is feasible at its cost (ilp-mono, ilp-bare)", bad_assign == 0 && assigned > 600);
  /* The same for the group model: the whole region as one group and every
   * component, without tightenings and with all of them. */
  long checked = 0, bad_group = 0;
  for (int r = 1; r <= 120; r++) {
    FusGraph *g = fus_graph_random((uint64_t)r, 1 + r % 7);
    check_groups(g, 0, &checked, &bad_group);
    check_groups(g, FUS_TIGHT_ALL, &checked, &bad_group);
    fus_graph_free(g);
  }
  printf("  %ld restrictions to groups assigned\n", checked);
  CHECK("every legal partition restricted to a group is feasible at its cost there (ilp)",
        bad_group == 0 && checked > 1000);
  /* A few larger ones (10 invocations: up to 115,975 partitions each). */
  long legal10 = 0;
  for (int r = 1; r <= 10; r++) {
    FusGraph *g = fus_graph_random((uint64_t)(5000 + r), 10);
    int best[10];
    long nl;
    double opt = fus_exhaustive(g, best, &nl);
    legal10 += nl;
    if (!check_solver(g, FUS_GLPK, opt, &maxv, &maxc, &tg, &ng)) bad_glpk++;
    if (!check_solver(g, FUS_CBC, opt, &maxv, &maxc, &tc, &nc)) bad_cbc++;
    int v0 = 0, c0 = 0;
    long n0 = 0;
    double t0 = 0;
    if (!check_sched(g, "ilp-mono", FUS_GLPK, opt, &v0, &c0, &t0, &n0)) bad_mono++;
    if (!check_sched(g, "ilp-mono", FUS_CBC, opt, &v0, &c0, &t0, &n0)) bad_mono++;
    if (!check_sched(g, "ilp-lazy", FUS_GLPK, opt, &v0, &c0, &tl, &n0)) bad_lazy++;
    if (!check_sched(g, "ilp-lazy", FUS_CBC, opt, &v0, &c0, &tl, &n0)) bad_lazy++;
    fus_graph_free(g);
  }
  printf("  10 regions of 10 invocations: %ld legal partitions; totals now glpk %.3f s, cbc %.3f s\n", legal10, tg, tc);
  CHECK("ILP(glpk) == exhaustive", bad_glpk == 0);
  CHECK("ILP(cbc) == exhaustive", bad_cbc == 0);
  CHECK("ILP for the whole region == exhaustive (glpk, cbc)", bad_mono == 0);
  CHECK("ILP without implied rows == exhaustive (glpk, cbc)", bad_bare == 0);
  CHECK("each tightening of the group model alone == exhaustive (glpk)", bad_tight == 0);
  printf("  ilp-lazy: %.3f s in all\n", tl);
  CHECK("ilp-lazy == exhaustive (glpk, cbc)", bad_lazy == 0);
  CHECK("no heuristic beats the optimum", bad_greedy == 0);
  CHECK("the sample is not trivial", fused > REGIONS / 2 && greedy_worse > 0 && big >= 25);

  /* --dump-ilp: a CPLEX LP file GLPK reads back to the same optimum. */
  {
    FusGraph *g = fus_graph_random(4242, 8);
    int best[8];
    double opt = fus_exhaustive(g, best, NULL);
    char dir[] = "/tmp/fus_ilpXXXXXX";
    int made = mkdtemp(dir) != NULL;
    char path[64], path2[80];
    snprintf(path, sizeof path, "%s/region.lp", dir);
    snprintf(path2, sizeof path2, "%s.1", path);
    FusOptions o;
    fus_test_options(&o);
    o.dump_ilp = path;
    FusSchedule sc;
    int rc = fus_schedule(g, "ilp-mono", &o, &sc);
    fus_schedule_free(&sc);
    rc |= fus_schedule(g, "ilp-mono", &o, &sc); /* a second instance goes to region.lp.1 */
    fus_schedule_free(&sc);
    FILE *f = fopen(path, "r");
    char text[4096] = {0};
    if (f) {
      size_t got = fread(text, 1, sizeof text - 1, f);
      text[got] = 0;
      fclose(f);
    }
    CHECK("dump-ilp writes CPLEX LP", made && rc == 0 && strstr(text, "Minimize") && strstr(text, "Subject To") &&
                                          strstr(text, "kernel_1"));
    CHECK("dump-ilp numbers later instances", access(path2, R_OK) == 0);
    glp_term_out(GLP_OFF);
    glp_prob *lp = glp_create_prob();
    double back = -1;
    if (glp_read_lp(lp, NULL, path) == 0) {
      glp_iocp parm;
      glp_init_iocp(&parm);
      parm.presolve = GLP_ON;
      parm.msg_lev = GLP_MSG_OFF;
      if (glp_intopt(lp, &parm) == 0) back = glp_mip_obj_val(lp);
    }
    glp_delete_prob(lp);
    glp_free_env();
    CHECK("dumped instance solves to the exhaustive optimum", back == opt);
    unlink(path);
    unlink(path2);
    rmdir(dir);
    fus_graph_free(g);
  }

  /* ilp-lazy on a region whose relaxation without cuts fuses a cycle: a -> b
   * and c -> d are gathers (not fusable), {a, d} and {b, c} are each fusable
   * horizontally, but together they feed each other. The dump shows the cut. */
  {
    FusGraph *g = fus_graph_parse("a MAP(n): x* -> A; c MAP(m): y* -> C; b MAP(m): y*, A -> B; d MAP(n): x*, C -> D\n"
                                  "out B D",
                                  "cross");
    int best[4];
    double opt = fus_exhaustive(g, best, NULL);
    char dir[] = "/tmp/fus_lazyXXXXXX";
    char path[64];
    int made = mkdtemp(dir) != NULL;
    snprintf(path, sizeof path, "%s/lazy.lp", dir);
    int ok = made;
    for (int s = 0; s < 2; s++) {
      FusOptions o;
      fus_test_options(&o);
      o.solver = s ? FUS_CBC : FUS_GLPK;
      o.dump_ilp = path;
      FusSchedule sc;
      fus_schedule(g, "ilp-lazy", &o, &sc);
      FusCost c;
      fus_cost(g, sc.cl, &c);
      ok &= c.objective == opt && c.kernels == 3 && sc.status == FUS_ST_OPTIMAL;
      fus_schedule_free(&sc);
      FILE *f = fopen(path, "r");
      char text[8192] = {0};
      if (f) {
        text[fread(text, 1, sizeof text - 1, f)] = 0;
        fclose(f);
      }
      ok &= strstr(text, "cycle_cut_0") != NULL;
      unlink(path);
    }
    rmdir(dir);
    CHECK("ilp-lazy cuts a two-cluster cycle", ok);
    fus_graph_free(g);
  }

  /* `ilp` on a region whose groups' separate optima form a cycle together:
   * a, d fuse only with each other (REDUCE over n), b, c likewise (over m);
   * a -> b and c -> d are incompatible, so fusing both pairs makes the cycle
   * {a,d} -> {b,c} -> {a,d}. The groups are merged and the optimum fuses one
   * pair (3 kernels, by exhaustive search). */
  {
    FusGraph *g = fus_graph_parse(FUS_CROSS_REGION, "cross");
    int best[4], both[4] = {0, 1, 1, 0};
    double opt = fus_exhaustive(g, best, NULL);
    FusCost c;
    fus_cost(g, best, &c);
    int v0 = 0, c0 = 0;
    double t0 = 0;
    long n0 = 0;
    CHECK("cross-group cycle: the separate optima are illegal together, 3 kernels at the optimum",
          !fus_legal(g, both, NULL) && c.kernels == 3);
    CHECK("cross-group cycle: ilp == exhaustive (glpk, cbc)",
          check_sched(g, "ilp", FUS_GLPK, opt, &v0, &c0, &t0, &n0) &&
              check_sched(g, "ilp", FUS_CBC, opt, &v0, &c0, &t0, &n0));
    fus_graph_free(g);
  }

  /* Medium regions (beyond exhaustive search): `ilp` proves the same optimum
   * as ilp-lazy, an independent formulation. */
  {
    int bad = 0, compared = 0;
    double ti = 0, tl2 = 0;
    for (int r = 1; r <= 4; r++) {
      FusGraph *g = fus_graph_random((uint64_t)(900 + r), 16 + 3 * r);
      FusOptions o;
      fus_test_options(&o);
      FusSchedule a, b;
      fus_schedule(g, "ilp", &o, &a);
      fus_schedule(g, "ilp-lazy", &o, &b);
      FusCost ca, cb;
      fus_cost(g, a.cl, &ca);
      fus_cost(g, b.cl, &cb);
      ti += a.solve_seconds, tl2 += b.solve_seconds;
      if (a.status == FUS_ST_OPTIMAL && b.status == FUS_ST_OPTIMAL) {
        compared++;
        if (ca.objective != cb.objective) {
          printf("  region %d: ilp %.0f, ilp-lazy %.0f\n", r, ca.objective, cb.objective);
          bad++;
        }
      }
      fus_schedule_free(&a);
      fus_schedule_free(&b);
      fus_graph_free(g);
    }
    printf("  4 medium regions (19-28 invocations): ilp %.3f s, ilp-lazy %.3f s\n", ti, tl2);
    CHECK("ilp == ilp-lazy on medium regions", bad == 0 && compared == 4);
  }

  /* A limit far too small for a large region: still a legal schedule, and
   * the status says what happened. By work (one branch-and-bound node), the
   * outcome is fixed: not proven. By time (1 ms), it depends on the machine,
   * so every honest status is accepted; the schedule must be legal
   * (fus_schedule dies otherwise) and come from the exact scheduler. */
  {
    FusGraph *g = fus_graph_random(99, 80);
    for (int k = 0; k < 8; k++) {
      const char *sched = k % 4 < 2 ? "ilp" : "ilp-mono";
      int by_time = k >= 4;
      /* CBC's root on the whole-region model takes 15-30 s even for one
       * node (its cuts and heuristics): not by work there. */
      if (!by_time && k == 3) continue;
      FusOptions o;
      fus_test_options(&o);
      o.solver = k % 2 ? FUS_CBC : FUS_GLPK;
      if (by_time) o.time_limit = 0.001, o.work_limit = 0;
      else o.work_limit = 1;
      FusSchedule sc;
      int rc = fus_schedule(g, sched, &o, &sc); /* dies if illegal */
      printf("  %s, 80 invocations, %s, %s: status %s, %d variables, %d constraints, build %.3f s, solve %.3f s\n",
             by_time ? "time limit 1 ms" : "work limit 1 node", sched, k % 2 ? "cbc" : "glpk",
             fus_status_name(sc.status), sc.nvars, sc.nconstraints, sc.build_seconds, sc.solve_seconds);
      char name[64];
      snprintf(name, sizeof name, "%s (%s, %s)", by_time ? "time limit" : "work limit", sched, k % 2 ? "cbc" : "glpk");
      CHECK(name, rc == 0 && sc.status != FUS_ST_GREEDY && (by_time || sc.status != FUS_ST_OPTIMAL));
      fus_schedule_free(&sc);
    }
    fus_graph_free(g);
  }
  nz_intern_free_all();
  return 0;
}
