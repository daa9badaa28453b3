/* fus_legal.c — the legality checker: accepts legal partitions, rejects an
 * incompatible fused pair, a cycle through an unfused middle kernel, a cycle
 * between two clusters with no single middle, horizontal fusion over different
 * iteration spaces; fus_legal_merge agrees with fus_legal on random merges. */
#include "fusion.h"
#include "unit.h"

static int legal(const FusGraph *g, const int *cl, const char *want) {
  NzBuf why = {0};
  int ok = fus_legal(g, cl, &why);
  int good = want == NULL ? ok : (!ok && why.s && strstr(why.s, want) != NULL);
  if (!good) printf("  got %s: %s\n", ok ? "legal" : "illegal", why.s ? why.s : "");
  nz_buf_free(&why);
  return good;
}

int main(void) {
  FusGraph *g = fus_graph_parse("a MAP(n): x* -> A\n"
                                "b MAP(n): A* -> B\n"
                                "c REDUCE(n): B* -> $c\n"
                                "d MAP(n): $c, B* -> D\n"
                                "out D",
                                "chain");
  if (!g) return 1;
  CHECK("singletons legal", legal(g, (int[]){0, 1, 2, 3}, NULL));
  CHECK("MAP MAP REDUCE fused", legal(g, (int[]){0, 0, 0, 1}, NULL));
  CHECK("REDUCE into MAP rejected", legal(g, (int[]){0, 1, 2, 2}, "c (REDUCE) flows into d (MAP): REDUCE into MAP is not fusable"));
  CHECK("all fused rejected", legal(g, (int[]){0, 0, 0, 0}, "REDUCE into MAP"));
  /* b and d fused around the unfused c: b -> c -> d. */
  CHECK("cycle through unfused middle",
        legal(g, (int[]){0, 1, 2, 1}, "cycle in the contracted graph: b and d are fused but c, on a dataflow path between them, is not"));
  fus_graph_free(g);

  /* Two clusters feeding each other, no single middle invocation:
   * a -> b and c -> d, clusters {a, d} and {b, c}. */
  g = fus_graph_parse("a MAP(n): x* -> A; c MAP(n): y* -> C; b MAP(n): A* -> B; d MAP(n): C* -> D; out B D", "cross");
  if (!g) return 1;
  CHECK("cross legal split", legal(g, (int[]){0, 1, 0, 1}, NULL));
  CHECK("two-cluster cycle", legal(g, (int[]){0, 1, 1, 0}, "cycle in the contracted graph through the clusters of"));
  CHECK("all four fused", legal(g, (int[]){0, 0, 0, 0}, NULL));
  fus_graph_free(g);

  g = fus_graph_parse("a MAP(n): x* -> A; b MAP(m): y* -> B; c REDUCE(n): x* -> $c; d MAP(?): z* -> D\n"
                      "e MAP(?): x* -> E; f MAP(n): x*, B -> F; out A B $c D E F",
                      "horizontal");
  if (!g) return 1;
  CHECK("horizontal same space", legal(g, (int[]){0, 1, 2, 3, 4, 0}, NULL));
  CHECK("horizontal different spaces", legal(g, (int[]){0, 0, 2, 3, 4, 5}, "iterate over different spaces (n, m)"));
  CHECK("horizontal different SOACs", legal(g, (int[]){0, 1, 0, 3, 4, 5}, "apply different SOACs"));
  CHECK("horizontal unknown size, no shared input", legal(g, (int[]){0, 1, 2, 0, 4, 5}, "not known to be equal"));
  CHECK("horizontal unknown size, shared iterated input", legal(g, (int[]){0, 1, 2, 3, 0, 5}, NULL));
  fus_graph_free(g);

  g = fus_graph_parse("a MAP(n): x* -> A; b MAP(n): x*, A -> B; out B", "gather");
  CHECK("vertical needs an elementwise read", g && legal(g, (int[]){0, 0}, "does not read elementwise"));
  fus_graph_free(g);

  /* fus_legal_merge == fus_legal after the merge, from random legal states. */
  int disagree = 0, merges = 0, tries = 0;
  for (uint64_t seed = 1; seed <= 150; seed++) {
    g = fus_graph_random(seed, 4 + (int)(seed % 9));
    int n = g->ninv, *cl = nz_xmalloc(sizeof(int) * (size_t)n), *tmp = nz_xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) cl[i] = i;
    uint64_t r = seed * 7919;
    for (int step = 0; step < 3 * n; step++) {
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      int a = (int)((r >> 33) % (uint64_t)n), b = (int)((r >> 13) % (uint64_t)n);
      if (cl[a] == cl[b]) continue;
      tries++;
      int m = fus_legal_merge(g, cl, cl[a], cl[b], NULL);
      for (int i = 0; i < n; i++) tmp[i] = cl[i] == cl[b] ? cl[a] : cl[i];
      if (m != fus_legal(g, tmp, NULL)) disagree++;
      if (m) {
        memcpy(cl, tmp, sizeof(int) * (size_t)n);
        merges++;
      }
    }
    free(cl);
    free(tmp);
    fus_graph_free(g);
  }
  printf("  legal_merge: %d tries, %d merges\n", tries, merges);
  CHECK("legal_merge agrees with legal", disagree == 0 && merges > 50 && merges < tries);
  nz_intern_free_all();
  return 0;
}
