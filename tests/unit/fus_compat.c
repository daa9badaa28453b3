/* fus_compat.c — the compatibility relations: the vertical SOAC table against
 * an independently written list (paper §8.5 plus the documented extensions),
 * the elementwise condition, horizontal compatibility with symbolic sizes and
 * the shared-iterated-input proxy. */
#include "fusion.h"
#include "unit.h"

int main(void) {
  /* Allowed vertical pairs, written out by hand from the paper's sentence
   * "MAP flowing into any SOAC but ONCE, between FILTERs, between REDUCE and
   * subsequent ONCE, and FILTER or PERMUTE flowing into REDUCE", plus
   * ONCE->ONCE and SEGREDUCE->ONCE (compat.c explains why). */
  static const char *allowed[] = {
      "MAP>MAP",       "MAP>PERMUTE", "MAP>REDUCE",     "MAP>SCAN",  "MAP>FILTER",
      "MAP>PARTITION", "MAP>SEGREDUCE", "MAP>SEGSCAN",  "FILTER>FILTER", "FILTER>REDUCE",
      "PERMUTE>REDUCE", "REDUCE>ONCE", "SEGREDUCE>ONCE", "ONCE>ONCE", NULL};
  int mismatches = 0, count = 0;
  char pair[64];
  for (int p = 0; p < LS__COUNT; p++)
    for (int c = 0; c < LS__COUNT; c++) {
      snprintf(pair, sizeof pair, "%s>%s", lcu_soac_name((LcuSoacKind)p), lcu_soac_name((LcuSoacKind)c));
      int want = 0;
      for (int k = 0; allowed[k]; k++) want |= strcmp(allowed[k], pair) == 0;
      int got = fus_soac_vcompat((LcuSoacKind)p, (LcuSoacKind)c);
      count += got;
      if (got != want) {
        printf("  vertical %s: got %d, want %d\n", pair, got, want);
        mismatches++;
      }
      int elem = fus_soac_elementwise((LcuSoacKind)p, (LcuSoacKind)c);
      if (elem != (want && c != LS_ONCE)) {
        printf("  elementwise %s: got %d\n", pair, elem);
        mismatches++;
      }
      /* the same SOAC, or a MAP beside a segmented reduction (compat.c) */
      int seg = (p == LS_MAP && (c == LS_SEGREDUCE || c == LS_SEGSCAN)) || (c == LS_MAP && (p == LS_SEGREDUCE || p == LS_SEGSCAN));
      if (fus_soac_hcompat((LcuSoacKind)p, (LcuSoacKind)c) != (p == c || seg)) mismatches++;
    }
  CHECK("vertical table", mismatches == 0 && count == 14);
  CHECK("paper rows", fus_soac_vcompat(LS_MAP, LS_REDUCE) && !fus_soac_vcompat(LS_MAP, LS_ONCE) &&
                          fus_soac_vcompat(LS_REDUCE, LS_ONCE) && !fus_soac_vcompat(LS_REDUCE, LS_MAP) &&
                          !fus_soac_vcompat(LS_SCAN, LS_MAP) && !fus_soac_vcompat(LS_FILTER, LS_MAP));

  FusGraph *g = fus_graph_parse("a MAP(n): x* -> A\n"
                                "b MAP(n): A* -> B\n"        /* elementwise consumer */
                                "c MAP(n): x*, A -> C\n"     /* gathers from A */
                                "d REDUCE(n): A* -> $d\n"
                                "e ONCE: $d -> $e\n"
                                "f MAP(m): y* -> F\n"        /* other space */
                                "g MAP(?): x* -> G\n"        /* unknown size, shares x */
                                "h MAP(?): z* -> H\n"        /* unknown size, nothing shared */
                                "i MAP(n): y, x* -> I\n"     /* shares y only as a gather */
                                "j MAP(?): y* -> J\n"
                                "k MAP(?): y -> K\n"
                                "l ONCE: $c -> $l\n",
                                "compat");
  if (!g) return 1;
  NzBuf why = {0};
  CHECK("MAP into elementwise MAP", fus_vcompat(g, 0, 1, NULL));
  CHECK("MAP into gathering MAP", !fus_vcompat(g, 0, 2, &why) && strstr(why.s, "does not read elementwise"));
  why.len = 0;
  CHECK("MAP into REDUCE", fus_vcompat(g, 0, 3, NULL));
  CHECK("REDUCE into ONCE", fus_vcompat(g, 3, 4, NULL));
  CHECK("same symbolic size", fus_same_space(g, 0, 8) && fus_hcompat(g, 0, 8, NULL));
  CHECK("different symbolic size", !fus_same_space(g, 0, 5) && !fus_hcompat(g, 0, 5, &why) &&
                                       strstr(why.s, "different spaces (n, m)"));
  why.len = 0;
  CHECK("unknown size, shared iterated input", fus_same_space(g, 0, 6) && fus_same_space(g, 6, 0));
  CHECK("unknown size, nothing shared", !fus_same_space(g, 0, 7) && !fus_hcompat(g, 0, 7, &why) &&
                                            strstr(why.s, "not known to be equal"));
  why.len = 0;
  CHECK("proxy ignores gathers", !fus_same_space(g, 9, 10) && !fus_same_space(g, 6, 10));
  CHECK("proxy on iterated input", fus_same_space(g, 5, 9));
  CHECK("different SOACs", !fus_hcompat(g, 0, 3, &why) && strstr(why.s, "different SOACs"));
  CHECK("ONCE pairs share a space", fus_hcompat(g, 4, 11, NULL));
  CHECK("pair rule: into uses vertical", !fus_pair_ok(g, 0, 2, NULL) && fus_pair_ok(g, 1, 0, NULL));
  CHECK("pair rule: path through others is left to acyclicity", fus_pair_ok(g, 0, 4, NULL));
  CHECK("pair rule: independent uses horizontal", fus_pair_ok(g, 0, 8, NULL) && !fus_pair_ok(g, 0, 5, NULL));
  nz_buf_free(&why);
  fus_graph_free(g);
  nz_intern_free_all();
  return 0;
}
