/* fus_graph.c — the region dataflow graph: text form, into, transitive
 * closure and independence, and rejection of malformed regions. */
#include "fusion.h"
#include "unit.h"

static int inv(const FusGraph *g, const char *name) {
  for (int i = 0; i < g->ninv; i++)
    if (strcmp(g->inv[i].name, name) == 0) return i;
  return -1;
}

int main(void) {
  FusGraph *g = fus_graph_parse("P MAP(n): x* -> A\n"
                                "C MAP(n): A*, y -> B   # a gather from y\n"
                                "D REDUCE(n): B* -> $s; E MAP(n): x* -> Z\n"
                                "F ONCE: $s, $c -> $t\n"
                                "out $t, Z",
                                "graph1");
  CHECK("parse", g != NULL);
  if (!g) return 1;
  int P = inv(g, "P"), C = inv(g, "C"), D = inv(g, "D"), E = inv(g, "E"), F = inv(g, "F");
  CHECK("invocations", g->ninv == 5 && P == 0 && F == 4);
  CHECK("into direct", fus_into(g, P, C) && fus_into(g, C, D) && fus_into(g, D, F));
  CHECK("into not transitive", !fus_into(g, P, D) && !fus_into(g, P, F));
  CHECK("path transitive", fus_path(g, P, D) && fus_path(g, P, F) && !fus_path(g, D, P));
  CHECK("indep", fus_indep(g, P, E) && fus_indep(g, E, F) && !fus_indep(g, P, F) && !fus_indep(g, P, P));
  int y = fus_graph_find_var(g, "y"), A = fus_graph_find_var(g, "A"), s = fus_graph_find_var(g, "$s");
  CHECK("iterated and gathered uses", fus_uses(g, C, A) == 1 && fus_uses(g, C, y) == 0 && fus_uses(g, P, y) == -1);
  CHECK("inputs and scalars", g->var[y].producer == -1 && g->var[y].is_array && !g->var[s].is_array);
  CHECK("consumers", g->var[A].nconsumers == 1 && g->var[A].consumers[0] == C);
  CHECK("live out", g->var[fus_graph_find_var(g, "Z")].live_out && !g->var[A].live_out);
  CHECK("sizes", g->inv[P].size == g->inv[E].size && g->inv[P].size != FUS_UNKNOWN);

  /* Printing gives the text form back (it parses to the same printout). */
  NzBuf b1 = {0}, b2 = {0};
  fus_graph_print(&b1, g);
  FusGraph *g2 = fus_graph_parse(b1.s, "reprint");
  if (g2) fus_graph_print(&b2, g2);
  CHECK("print round trip", g2 && strcmp(b1.s, b2.s) == 0);
  CHECK("print form", strstr(b1.s, "C MAP(n): A*, y -> B\n") != NULL);
  nz_buf_free(&b1);
  nz_buf_free(&b2);
  fus_graph_free(g2);
  fus_graph_free(g);

  /* A 4-node diamond: closure through two routes. */
  g = fus_graph_parse("a MAP(n): x* -> A; b MAP(n): A* -> B; c MAP(n): A* -> C; d MAP(n): B*, C* -> D", "diamond");
  CHECK("diamond", g && fus_path(g, 0, 3) && fus_indep(g, 1, 2) && !fus_into(g, 0, 3));
  fus_graph_free(g);

  /* Built through the API (as from λcu): scalars named without '$' print with
   * one, so the printout parses back to the same kinds. */
  g = fus_graph_new();
  int xs = fus_graph_var(g, "xs", 1), sum = fus_graph_var(g, "sum", 0), ys = fus_graph_var(g, "ys", 1);
  fus_graph_inv(g, "k1", LS_REDUCE, fus_graph_size(g, "#xs"), 1, (FusUse[]){{xs, 1}}, 1, (int[]){sum});
  fus_graph_inv(g, "k2", LS_MAP, fus_graph_size(g, "#xs"), 2, (FusUse[]){{xs, 1}, {sum, 0}}, 1, (int[]){ys});
  fus_graph_live_out(g, ys);
  CHECK("api graph", fus_graph_finish(g) == 0 && fus_into(g, 0, 1));
  fus_graph_print(&b1, g);
  CHECK("api print", strcmp(b1.s, "k1 REDUCE(#xs): xs* -> $sum\nk2 MAP(#xs): xs*, $sum -> ys\nout ys\n") == 0);
  g2 = fus_graph_parse(b1.s, "api");
  CHECK("api reparse", g2 && !g2->var[fus_graph_find_var(g2, "$sum")].is_array && g2->inv[1].size == g2->inv[0].size);
  nz_buf_free(&b1);
  fus_graph_free(g2);
  fus_graph_free(g);

  /* Malformed regions are rejected with a message (stderr), not a crash. */
  fprintf(stderr, "(the following errors are expected)\n");
  CHECK("reject double definition", fus_graph_parse("a MAP(n): x* -> A; b MAP(n): x* -> A", "bad1") == NULL);
  CHECK("reject use before definition", fus_graph_parse("a MAP(n): B* -> A; b MAP(n): x* -> B", "bad2") == NULL);
  CHECK("reject unknown SOAC", fus_graph_parse("a LOOP(n): x -> A", "bad3") == NULL);
  CHECK("reject missing size", fus_graph_parse("a MAP: x -> A", "bad4") == NULL);
  nz_intern_free_all();
  return 0;
}
