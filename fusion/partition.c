/* partition.c — fusion partitions (cl[i] = cluster of invocation i): the
 * canonical numbering every scheduler's result is put into, and printing. */
#include "fusion.h"

int fus_partition_canon(int n, int *cl) {
  /* Map ids to 0..k-1 by first appearance. Schedulers use ids in [0, n) or
   * thereabouts, so a table indexed by id is enough; negative ids are a bug. */
  int maxid = 0;
  for (int i = 0; i < n; i++) {
    if (cl[i] < 0) nz_die("fus_partition_canon: negative cluster id %d", cl[i]);
    if (cl[i] > maxid) maxid = cl[i];
  }
  int *map = nz_xmalloc(sizeof(int) * ((size_t)maxid + 1));
  for (int c = 0; c <= maxid; c++) map[c] = -1;
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (map[cl[i]] < 0) map[cl[i]] = k++;
    cl[i] = map[cl[i]];
  }
  free(map);
  return k;
}

void fus_partition_print(NzBuf *b, const FusGraph *g, const int *cl) {
  int n = g->ninv;
  int *c = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  memcpy(c, cl, sizeof(int) * (size_t)n);
  int k = fus_partition_canon(n, c);
  /* members by cluster, each in increasing order (a counting sort: scanning
   * the region once per cluster took 0.2 s at 30000 invocations) */
  int *start = nz_xcalloc((size_t)k + 1, sizeof(int)), *mem = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) start[c[i] + 1]++;
  for (int x = 0; x < k; x++) start[x + 1] += start[x];
  for (int i = 0; i < n; i++) mem[start[c[i]]++] = i;
  for (int x = 0, m = 0; x < k; x++) {
    nz_buf_puts(b, x ? " {" : "{");
    for (int first = 1; m < start[x]; m++, first = 0) nz_buf_printf(b, "%s%s", first ? "" : ", ", g->inv[mem[m]].name);
    nz_buf_puts(b, "}");
  }
  free(start), free(mem), free(c);
}

int fus_uf_find(int *parent, int a) {
  while (parent[a] != a) a = parent[a] = parent[parent[a]];
  return a;
}
