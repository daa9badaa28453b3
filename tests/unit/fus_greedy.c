/* fus_greedy.c — greedy scheduling "shoots itself in the foot" (paper §8.1): a
 * region where the ILP beats both greedy-down and greedy-up under the one cost
 * model. Two independent gadgets over different sizes:
 *   over n: P (MAP) feeds R1 (REDUCE) and C (MAP); R2 (REDUCE) is independent.
 *     greedy-down fuses P with its first consumer R1, which forbids C (R1 and C
 *     are independent and differ); then nothing else fits: 3 kernels.
 *     Optimal: {P, C} and {R1, R2} (horizontal REDUCEs): 2 kernels.
 *   over m: S (REDUCE) reads Y1 (MAP) and Y2 (PERMUTE); Z (PERMUTE) is
 *     independent. greedy-up fuses S with its latest producer Y2 first, which
 *     forbids Y1; Z cannot join: 3 kernels. Optimal: {Y1, S} and {Y2, Z}: 2.
 * Each greedy gets one gadget right: 5 kernels each, the ILP 4. */
#include "fusion.h"
#include "unit.h"

static const char *trap = "P MAP(n): x* -> A\n"
                          "R2 REDUCE(n): x* -> $r2\n"
                          "R1 REDUCE(n): A* -> $r1\n"
                          "C MAP(n): A* -> B\n"
                          "Y1 MAP(m): y* -> A1\n"
                          "Y2 PERMUTE(m): y* -> A2\n"
                          "Z PERMUTE(m): y* -> A3\n"
                          "S REDUCE(m): A1*, A2* -> $s\n"
                          "out $r1 $r2 B A3 $s\n";

static int kernels(const FusGraph *g, const char *sched, FusSolver solver, double *obj, NzBuf *desc) {
  FusOptions o;
  fus_options_default(&o);
  o.solver = solver;
  FusSchedule s;
  if (fus_schedule(g, sched, &o, &s) != 0) return -1;
  FusCost c;
  fus_cost(g, s.cl, &c);
  *obj = c.objective;
  nz_buf_printf(desc, "  %-12s %-7s kernels %d arrays %d traversals %d objective %.0f: ", sched,
                fus_status_name(s.status), c.kernels, c.arrays, c.traversals, c.objective);
  fus_partition_print(desc, g, s.cl);
  nz_buf_puts(desc, "\n");
  fus_schedule_free(&s);
  return c.kernels;
}

int main(void) {
  FusGraph *g = fus_graph_parse(trap, "trap");
  if (!g) return 1;
  NzBuf d = {0};
  double od, ou, og, oc, best;
  int kd = kernels(g, "greedy-down", FUS_GLPK, &od, &d);
  int ku = kernels(g, "greedy-up", FUS_GLPK, &ou, &d);
  int kg = kernels(g, "ilp", FUS_GLPK, &og, &d);
  int kc = kernels(g, "ilp", FUS_CBC, &oc, &d);
  int bestcl[8];
  best = fus_exhaustive(g, bestcl, NULL);
  printf("%s", d.s);
  CHECK("greedy-down: 5 kernels", kd == 5);
  CHECK("greedy-up: 5 kernels", ku == 5);
  CHECK("ilp: 4 kernels (glpk, cbc)", kg == 4 && kc == 4);
  CHECK("ilp beats both greedy schedules", og < od && og < ou && oc == og);
  CHECK("ilp is the exhaustive optimum", og == best);
  /* The partitions and their costs, computed by hand. Arrays: A and the
   * live-outs B, A3 in all three, plus whichever of A1, A2 is not fused with S
   * (A2 for down and ilp, A1 for up). Reads per cluster:
   *   down: {P,R1} x | {R2} x | {C} A | {Y1,S} y A2 | {Y2,Z} y        = 6
   *   up:   {P,C} x | {R2,R1} x A | {Y1} y | {Y2,S} y A1 | {Z} y      = 7
   *   ilp:  {P,C} x | {R2,R1} x A | {Y1,S} y A2 | {Y2,Z} y            = 6 */
  CHECK("greedy-down's choice", strstr(d.s, "greedy-down  greedy  kernels 5 arrays 4 traversals 6 objective 346: "
                                            "{P, R1} {R2} {C} {Y1, S} {Y2, Z}"));
  CHECK("greedy-up's choice", strstr(d.s, "greedy-up    greedy  kernels 5 arrays 4 traversals 7 objective 347: "
                                          "{P, C} {R2, R1} {Y1} {Y2, S} {Z}"));
  CHECK("the ILP's choice", strstr(d.s, "ilp          optimal kernels 4 arrays 4 traversals 6 objective 286: "
                                        "{P, C} {R2, R1} {Y1, S} {Y2, Z}"));
  /* Weights: 9 reads unfused (x x A A, y y y A1 A2), 5 arrays (A B A1 A2 A3):
   * W_a = 10, W_k = 10 * 6 = 60; 4*60 + 4*10 + 6 = 286. */
  FusWeights w = fus_cost_weights(g);
  CHECK("weights", w.arrays == 10 && w.kernels == 60);
  nz_buf_free(&d);
  fus_graph_free(g);

  /* The incremental acyclicity check makes the same decisions as the legality
   * checker's fus_legal_merge, on random regions of up to 160 invocations,
   * and four of 300 to 900 (where merges lift levels in long cascades and
   * giant clusters' neighbour lists are compacted lazily). */
  int differ = 0, illegal = 0, merged = 0;
  for (uint64_t seed = 1; seed <= 124; seed++) {
    int n = seed <= 120 ? 3 + (int)(seed * 37 % 158) : 300 + 200 * (int)(seed - 121);
    g = fus_graph_random(seed + 1000, n);
    int *fast = nz_xmalloc(sizeof(int) * (size_t)n), *ref = nz_xmalloc(sizeof(int) * (size_t)n);
    for (int down = 0; down < 2; down++) {
      fus_greedy(g, fast, down, 0);
      fus_greedy(g, ref, down, 1);
      int kf = fus_partition_canon(n, fast), kr = fus_partition_canon(n, ref);
      differ += kf != kr || memcmp(fast, ref, sizeof(int) * (size_t)n) != 0;
      illegal += !fus_legal(g, fast, NULL);
      merged += n - kf;
    }
    free(fast);
    free(ref);
    fus_graph_free(g);
  }
  printf("  incremental vs reference greedy: %d merges in all\n", merged);
  CHECK("incremental greedy == legality-checker greedy", differ == 0 && illegal == 0 && merged > 1000);

  /* The same from random starts: clusters of several SOACs, which greedy's
   * own phases rarely leave for the horizontal sweep, so that its filters
   * (sched_greedy.c, horizontal_sweep) meet pairs they must not skip. */
  differ = illegal = merged = 0;
  uint64_t rng = 12345;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    int n = 4 + (int)(seed * 29 % 60);
    g = fus_graph_random(seed + 5000, n);
    int *start = nz_xmalloc(sizeof(int) * (size_t)n), *fast = nz_xmalloc(sizeof(int) * (size_t)n),
        *ref = nz_xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
      rng = rng * 6364136223846793005ull + 1442695040888963407ull;
      start[i] = (int)((rng >> 33) % (uint64_t)(1 + n / 3));
    }
    for (int down = 0; down < 2; down++) {
      fus_greedy_seeded(g, fast, down, 0, start);
      fus_greedy_seeded(g, ref, down, 1, start);
      int kf = fus_partition_canon(n, fast), kr = fus_partition_canon(n, ref);
      differ += kf != kr || memcmp(fast, ref, sizeof(int) * (size_t)n) != 0;
      illegal += !fus_legal(g, fast, NULL);
      merged += n - kf;
    }
    free(start), free(fast), free(ref);
    fus_graph_free(g);
  }
  printf("  from random starts: %d merges in all, %d schedules differ\n", merged, differ);
  CHECK("incremental greedy == legality-checker greedy, from random starts", differ == 0 && illegal == 0 && merged > 1000);
  nz_intern_free_all();
  return 0;
}
