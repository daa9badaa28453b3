/* fus_dot.c — DOT output through Graphviz: a region with its ILP schedule
 * becomes BASE.dot (one cluster_ subgraph per fusion cluster labelled with its
 * SOACs and arrays, invocations labelled with SOAC and the input scalars they use,
 * edges with arrays, eliminated arrays dashed, a legend) and is rendered to SVG
 * and PNG; with FUS_DOT_SCALARS input scalars are nodes with dotted edges. */
#include "fusion.h"
#include "unit.h"

#include <graphviz/cgraph.h>
#include <sys/stat.h>
#include <unistd.h>

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  NzBuf b = {0};
  int c;
  while ((c = fgetc(f)) != EOF) nz_buf_putc(&b, (char)c);
  fclose(f);
  return b.s;
}

static long size_of(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

int main(void) {
  FusGraph *g = fus_graph_parse("Y1 MAP(m): y*, $k -> A1\n"
                                "Y2 PERMUTE(m): y* -> A2\n"
                                "Z PERMUTE(m): y*, $k -> A3\n"
                                "S REDUCE(m): A1*, A2* -> $s\n"
                                "out A3 $s\n",
                                "dot");
  if (!g) return 1;
  FusOptions o;
  fus_options_default(&o);
  FusSchedule s;
  fus_schedule(g, "ilp", &o, &s); /* {Y1, S} {Y2, Z} */
  char dir[] = "/tmp/fus_dotXXXXXX";
  if (!mkdtemp(dir)) return 1;
  char base[64], path[80];
  snprintf(base, sizeof base, "%s/region0", dir);
  int rc = fus_dot_write(g, s.cl, "region 0 (ilp)", base, FUS_DOT_PNG, FUS_DOT_TIME_LIMIT);
  CHECK("dot write", rc == 0);
  snprintf(path, sizeof path, "%s.dot", base);
  char *dot = slurp(path);
  CHECK("dot file", dot != NULL);
  if (dot) {
    CHECK("one Graphviz cluster per fusion cluster",
          strstr(dot, "subgraph cluster_0") && strstr(dot, "subgraph cluster_1") && !strstr(dot, "cluster_2"));
    CHECK("nodes labelled with SOAC", strstr(dot, "Y2\\nPERMUTE (m)") && strstr(dot, "S\\nREDUCE (m)"));
    CHECK("edges labelled with arrays", strstr(dot, "label=A2"));
    /* A1 (Y1 -> S inside one cluster, not live out) is eliminated: dashed;
     * A2 crosses clusters: solid. */
    char *a1 = strstr(dot, "label=A1"), *a2 = strstr(dot, "label=A2");
    CHECK("eliminated array dashed", a1 && strstr(a1, "dashed") && strstr(a1, "dashed") < strchr(a1, ']'));
    CHECK("materialised array solid", a2 && (!strstr(a2, "dashed") || strstr(a2, "dashed") > strchr(a2, ']')));
    CHECK("input scalars folded into their users' labels",
          strstr(dot, "Y1\\nMAP (m)\\nuses: $k") && strstr(dot, "Z\\nPERMUTE (m)\\nuses: $k") &&
              !strstr(dot, "label=\"$k\""));
    CHECK("clusters labelled with SOACs and arrays",
          strstr(dot, "MAP REDUCE\\nover m\\narrays in: y, A2\\narrays out: -") &&
              strstr(dot, "PERMUTE x2\\nover m\\narrays in: y\\narrays out: A2, A3"));
    /* $s (a scalar REDUCE makes, live out) leaves dotted, as the legend says */
    char *o = strstr(dot, "label=\"$s\"");
    CHECK("scalar live out dotted", o && strstr(o, "dotted") && strstr(o, "dotted") < strchr(o, ']'));
    CHECK("a legend", strstr(dot, "cluster_legend") && strstr(dot, "dashed grey edge"));
    free(dot);
  }
  /* the .dot file itself reads back as DOT (cgraph's reader), for `dot -Tpdf` and friends */
  FILE *df = fopen(path, "r");
  Agraph_t *back = df ? agread(df, NULL) : NULL;
  CHECK("dot file parses", back && agnnodes(back) >= 4);
  if (back) agclose(back);
  if (df) fclose(df);
  snprintf(path, sizeof path, "%s.svg", base);
  char *svg = slurp(path);
  CHECK("svg rendered", svg && strstr(svg, "<svg") && strstr(svg, "PERMUTE"));
  free(svg);
  unlink(path);
  snprintf(path, sizeof path, "%s.png", base);
  CHECK("png rendered", size_of(path) > 100);
  unlink(path);
  snprintf(path, sizeof path, "%s.dot", base);
  unlink(path);
  /* Without a schedule: every invocation its own cluster. */
  rc = fus_dot_write(g, NULL, "unfused", base, 0, FUS_DOT_TIME_LIMIT);
  dot = slurp(path);
  CHECK("unfused drawing", rc == 0 && dot && strstr(dot, "cluster_3") && !strstr(dot, "style=dashed"));
  free(dot);
  /* FUS_DOT_SCALARS: as before the legend, input scalars drawn with dotted edges */
  rc = fus_dot_write(g, NULL, "unfused", base, FUS_DOT_SCALARS, FUS_DOT_TIME_LIMIT);
  dot = slurp(path);
  CHECK("scalars drawn", rc == 0 && dot && strstr(dot, "label=\"$k\"") && strstr(dot, "style=dotted") &&
                             !strstr(dot, "uses: $k"));
  free(dot);
  unlink(path);
  snprintf(path, sizeof path, "%s.svg", base);
  unlink(path);
  rmdir(dir);
  fus_schedule_free(&s);
  fus_graph_free(g);
  nz_intern_free_all();
  return 0;
}
