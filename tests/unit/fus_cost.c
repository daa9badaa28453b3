/* fus_cost.c — the cost model on hand-computed examples: kernels, materialised
 * arrays, traversals (shared reads once, fused producer reads none), scalars
 * and dead arrays not counted, the weights and the lexicographic objective. */
#include "fusion.h"
#include "unit.h"

static int is(const FusGraph *g, const int *cl, int k, int a, int t) {
  FusCost c;
  fus_cost(g, cl, &c);
  if (c.kernels != k || c.arrays != a || c.traversals != t)
    printf("  got kernels %d arrays %d traversals %d\n", c.kernels, c.arrays, c.traversals);
  return c.kernels == k && c.arrays == a && c.traversals == t;
}

int main(void) {
  /* P produces A for C (elementwise) and R; C also reads y; B and $s live out.
   * Unfused: 3 kernels; A and B materialised; reads x, A+y, A = 4. */
  FusGraph *g = fus_graph_parse("P MAP(n): x* -> A; C MAP(n): A*, y* -> B; R REDUCE(n): A* -> $s; out B $s", "ex1");
  if (!g) return 1;
  FusCost before;
  fus_cost_before(g, &before);
  CHECK("ex1 before", before.kernels == 3 && before.arrays == 2 && before.traversals == 4);
  CHECK("ex1 singletons", is(g, (int[]){0, 1, 2}, 3, 2, 4));
  /* {P,C}{R}: A still needed by R; reads: x, y (A is produced inside) + A = 3. */
  CHECK("ex1 P+C", is(g, (int[]){0, 0, 1}, 2, 2, 3));
  /* {P,R}{C}: A needed by C; reads x + A, y = 3. */
  CHECK("ex1 P+R", is(g, (int[]){0, 1, 0}, 2, 2, 3));
  /* Weights: T0 = 4, A0 = 2: W_t = 1, W_a = 5, W_k = 15. */
  FusWeights w = fus_cost_weights(g);
  CHECK("ex1 weights", w.traversals == 1 && w.arrays == 5 && w.kernels == 15);
  CHECK("ex1 objective", before.objective == 3 * 15 + 2 * 5 + 4);
  fus_graph_free(g);

  /* Horizontal: both read x, K2 also gathers z. Fused: x read once. */
  g = fus_graph_parse("K1 MAP(n): x* -> A; K2 MAP(n): x*, z -> B; out A B", "ex2");
  if (!g) return 1;
  CHECK("ex2 singletons", is(g, (int[]){0, 1}, 2, 2, 3));
  CHECK("ex2 fused", is(g, (int[]){0, 0}, 1, 2, 2));
  fus_graph_free(g);

  /* Vertical chain with a dead second output D and a live-out tail:
   * unfused: A materialised (read by C), B live out; D dead: not counted. */
  g = fus_graph_parse("P MAP(n): x* -> A, D; C MAP(n): A* -> B; out B", "ex3");
  if (!g) return 1;
  CHECK("ex3 singletons", is(g, (int[]){0, 1}, 2, 2, 2));
  CHECK("ex3 fused", is(g, (int[]){0, 0}, 1, 1, 1));
  fus_graph_free(g);

  /* Three readers of x in one cluster count one read; a fourth outside one more.
   * Scalars ($c) are never counted. */
  g = fus_graph_parse("a MAP(n): x*, $c -> A; b MAP(n): x* -> B; c MAP(n): x* -> C; d MAP(n): x* -> D; out A B C D",
                      "ex4");
  if (!g) return 1;
  CHECK("ex4 three fused", is(g, (int[]){0, 0, 0, 1}, 2, 4, 2));
  CHECK("ex4 all fused", is(g, (int[]){0, 0, 0, 0}, 1, 4, 1));
  /* Lexicographic: fewer kernels wins whatever the arrays and reads. */
  FusCost c1, c2;
  fus_cost(g, (int[]){0, 0, 0, 0}, &c1);
  fus_cost(g, (int[]){0, 0, 1, 1}, &c2);
  CHECK("ex4 objective order", c1.objective < c2.objective);
  fus_graph_free(g);

  /* An array read by two consumers, one fused with the producer: materialised;
   * both consumers fused with it: eliminated. */
  g = fus_graph_parse("p MAP(n): x* -> A; q MAP(n): A* -> B; r MAP(n): A*, B* -> C; out C", "ex5");
  if (!g) return 1;
  CHECK("ex5 partial", is(g, (int[]){0, 0, 1}, 2, 3, 3));
  CHECK("ex5 all", is(g, (int[]){0, 0, 0}, 1, 1, 1));
  fus_graph_free(g);
  nz_intern_free_all();
  return 0;
}
