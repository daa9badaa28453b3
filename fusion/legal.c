/* legal.c — the legality checker, independent of every scheduler: a partition
 * is legal iff every fused pair passes the pair rule (vertical compatibility
 * along into edges, horizontal compatibility with the same iteration space for
 * independent pairs) and the graph contracted by the clusters is acyclic, so the
 * fused kernels can be run in some order. Rejections say why, by name. */
#include "fusion.h"

/* Kahn's algorithm on the contracted graph (cl canonical, k clusters).
 * Returns 1 if acyclic; else 0 and a reason. */
static int contracted_acyclic(const FusGraph *g, const int *cl, int k, NzBuf *why) {
  int n = g->ninv;
  int *indeg = nz_xcalloc((size_t)(k ? k : 1), sizeof(int));
  /* Edge lists between clusters, duplicates allowed (they cancel in Kahn). */
  NZ_VEC(int) src = {0};
  NZ_VEC(int) dst = {0};
  for (int v = 0; v < g->nvar; v++) {
    int p = g->var[v].producer;
    if (p < 0) continue;
    for (int c = 0; c < g->var[v].nconsumers; c++) {
      int j = g->var[v].consumers[c];
      if (cl[p] == cl[j]) continue;
      nz_vec_push(src, cl[p]);
      nz_vec_push(dst, cl[j]);
      indeg[cl[j]]++;
    }
  }
  /* Out-edge index by cluster (CSR). */
  int *start = nz_xcalloc((size_t)k + 1, sizeof(int));
  for (int e = 0; e < src.n; e++) start[src.v[e] + 1]++;
  for (int c = 0; c < k; c++) start[c + 1] += start[c];
  int *fill = nz_xmalloc(sizeof(int) * ((size_t)k + 1));
  memcpy(fill, start, sizeof(int) * ((size_t)k + 1));
  int *out = nz_xmalloc(sizeof(int) * (size_t)(src.n ? src.n : 1));
  for (int e = 0; e < src.n; e++) out[fill[src.v[e]]++] = dst.v[e];
  int *queue = nz_xmalloc(sizeof(int) * (size_t)(k ? k : 1));
  int qh = 0, qt = 0;
  for (int c = 0; c < k; c++)
    if (indeg[c] == 0) queue[qt++] = c;
  while (qh < qt) {
    int c = queue[qh++];
    for (int e = start[c]; e < start[c + 1]; e++)
      if (--indeg[out[e]] == 0) queue[qt++] = out[e];
  }
  int ok = qt == k;
  if (!ok && why) {
    /* The common, readable case: a fused pair with an unfused invocation on a
     * dataflow path between them. */
    int said = 0;
    for (int i = 0; i < n && !said; i++)
      for (int j = i + 1; j < n && !said; j++) {
        if (cl[i] != cl[j] || !fus_path(g, i, j)) continue;
        for (int m = i + 1; m < j && !said; m++)
          if (cl[m] != cl[i] && fus_path(g, i, m) && fus_path(g, m, j)) {
            nz_buf_printf(why, "cycle in the contracted graph: %s and %s are fused but %s, on a dataflow path between them, is not",
                          g->inv[i].name, g->inv[j].name, g->inv[m].name);
            said = 1;
          }
      }
    if (!said) {
      nz_buf_puts(why, "cycle in the contracted graph through the clusters of");
      int first = 1;
      for (int c = 0; c < k; c++) {
        if (indeg[c] == 0) continue;
        for (int i = 0; i < n; i++)
          if (cl[i] == c) {
            nz_buf_printf(why, "%s %s", first ? "" : ",", g->inv[i].name);
            first = 0;
            break;
          }
      }
    }
  }
  free(indeg);
  free(start);
  free(fill);
  free(out);
  free(queue);
  nz_vec_free(src);
  nz_vec_free(dst);
  return ok;
}

int fus_legal(const FusGraph *g, const int *cl, NzBuf *why) {
  int n = g->ninv;
  int *c = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  memcpy(c, cl, sizeof(int) * (size_t)n);
  int k = fus_partition_canon(n, c);
  /* Members of each cluster, so the pair check costs the sum of |C|^2. */
  int *start = nz_xcalloc((size_t)k + 1, sizeof(int));
  for (int i = 0; i < n; i++) start[c[i] + 1]++;
  for (int x = 0; x < k; x++) start[x + 1] += start[x];
  int *fill = nz_xmalloc(sizeof(int) * ((size_t)k + 1));
  memcpy(fill, start, sizeof(int) * ((size_t)k + 1));
  int *mem = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) mem[fill[c[i]]++] = i;
  int ok = 1;
  for (int x = 0; x < k && ok; x++)
    for (int a = start[x]; a < start[x + 1] && ok; a++)
      for (int b = a + 1; b < start[x + 1] && ok; b++)
        if (!fus_pair_ok(g, mem[a], mem[b], why)) ok = 0;
  if (ok) ok = contracted_acyclic(g, c, k, why);
  free(start);
  free(fill);
  free(mem);
  free(c);
  return ok;
}

int fus_legal_merge(const FusGraph *g, const int *cl, int c1, int c2, NzBuf *why) {
  int n = g->ninv;
  if (c1 == c2) return 1;
  NZ_VEC(int) a = {0};
  NZ_VEC(int) b = {0};
  for (int i = 0; i < n; i++) {
    if (cl[i] == c1) nz_vec_push(a, i);
    if (cl[i] == c2) nz_vec_push(b, i);
  }
  int ok = 1;
  for (int x = 0; x < a.n && ok; x++)
    for (int y = 0; y < b.n && ok; y++)
      if (!fus_pair_ok(g, a.v[x], b.v[y], why)) ok = 0;
  nz_vec_free(a);
  nz_vec_free(b);
  if (!ok) return 0;
  int *c = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) c[i] = cl[i] == c2 ? c1 : cl[i];
  int k = fus_partition_canon(n, c);
  ok = contracted_acyclic(g, c, k, why);
  free(c);
  return ok;
}

/* Finds a cycle in the graph contracted by cl (canonical, k clusters) and
 * returns its length L: cyc_in[e], cyc_out[e] are where the cycle enters and
 * leaves its e-th cluster, and cyc_out[e] -> cyc_in[e+1 mod L] is an edge of
 * the region. 0 if acyclic. Arrays have room for k entries. */
int fus_contracted_cycle(const FusGraph *g, const int *cl, int *cyc_in, int *cyc_out) {
  int n = g->ninv, k = 0;
  for (int i = 0; i < n; i++)
    if (cl[i] + 1 > k) k = cl[i] + 1;
  int *state = nz_xcalloc((size_t)k + 1, sizeof(int)); /* 0 new, 1 on stack, 2 done */
  int *enter = nz_xmalloc(sizeof(int) * ((size_t)k + 1)), *leave = nz_xmalloc(sizeof(int) * ((size_t)k + 1));
  int *parent = nz_xmalloc(sizeof(int) * ((size_t)k + 1));
  int *stack = nz_xmalloc(sizeof(int) * ((size_t)k + 1)), *iter = nz_xmalloc(sizeof(int) * ((size_t)k + 1));
  int found = 0, from = -1, to = -1, from_u = -1, to_v = -1;
  for (int s = 0; s < k && !found; s++) {
    if (state[s]) continue;
    int sp = 0;
    stack[sp] = s, iter[sp] = 0, sp++;
    state[s] = 1;
    while (sp && !found) {
      int c = stack[sp - 1], pushed = 0;
      while (!pushed && !found && iter[sp - 1] < n) {
        int u = iter[sp - 1]++;
        if (cl[u] != c) continue;
        for (int d = 0; d < g->inv[u].ndefs && !pushed && !found; d++) {
          const FusVar *x = &g->var[g->inv[u].defs[d]];
          for (int q = 0; q < x->nconsumers && !pushed && !found; q++) {
            int v = x->consumers[q], cv = cl[v];
            if (cv == c || state[cv] == 2) continue;
            if (state[cv] == 1) {
              found = 1, from = c, to = cv, from_u = u, to_v = v;
            } else {
              state[cv] = 1, parent[cv] = c, leave[c] = u, enter[cv] = v;
              stack[sp] = cv, iter[sp] = 0, sp++;
              pushed = 1;
            }
          }
        }
        if (pushed) iter[sp - 2]--; /* revisit u: it may have more edges */
      }
      if (!pushed && !found) state[c] = 2, sp--;
    }
  }
  int len = 0;
  if (found) {
    /* Tree path to -> ... -> from, then the edge from_u -> to_v; collected
     * backwards from `from`, then reversed into forward order. */
    leave[from] = from_u;
    enter[to] = to_v;
    for (int c = from;; c = parent[c]) {
      cyc_in[len] = enter[c], cyc_out[len] = leave[c], len++;
      if (c == to) break;
    }
    for (int a = 0, b = len - 1; a < b; a++, b--) {
      int t = cyc_in[a];
      cyc_in[a] = cyc_in[b], cyc_in[b] = t;
      t = cyc_out[a];
      cyc_out[a] = cyc_out[b], cyc_out[b] = t;
    }
  }
  free(state);
  free(enter);
  free(leave);
  free(parent);
  free(stack);
  free(iter);
  return len;
}
