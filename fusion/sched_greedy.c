/* sched_greedy.c — the greedy strategies of paper §8.1: impose an order on
 * fusion opportunities and take them in that order, skipping any that earlier
 * choices made impossible (each tentative merge is tested with the legality
 * checker's fus_legal_merge).
 *   greedy-down: invocations by topological level from the sources (longest
 *     path from an input-only invocation, then program order); each one tries
 *     to absorb its consumers in program order, the breadth-first sweep of
 *     the paper (after [BR12]).
 *   greedy-up: the same from the leaves (level by longest path to a sink,
 *     then reverse program order); each one tries to absorb its producers,
 *     latest first (after [RLK14]).
 * Then both make one horizontal sweep in the same order: every independent,
 * horizontally compatible pair whose clusters differ tries to merge. */
#include "fusion.h"

typedef struct {
  int key, idx;
} Ord;

static int cmp_ord(const void *a, const void *b) {
  const Ord *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Clusters with member lists, so a merge that fails on an incompatible pair
 * costs |A|*|B| pair checks instead of a scan of the region; only merges that
 * pass the pair rule pay for fus_legal_merge's acyclicity check. */
typedef struct {
  int *cl, *next, *head, *tail;
} State;

static void try_merge(const FusGraph *g, State *S, int a, int b) {
  int ca = S->cl[a], cb = S->cl[b];
  if (ca == cb) return;
  for (int i = S->head[ca]; i >= 0; i = S->next[i])
    for (int j = S->head[cb]; j >= 0; j = S->next[j])
      if (!fus_pair_ok(g, i, j, NULL)) return;
  if (!fus_legal_merge(g, S->cl, ca, cb, NULL)) return;
  for (int j = S->head[cb]; j >= 0; j = S->next[j]) S->cl[j] = ca;
  S->next[S->tail[ca]] = S->head[cb];
  S->tail[ca] = S->tail[cb];
  S->head[cb] = S->tail[cb] = -1;
}

/* Distinct producers (in the region) of invocation i, in decreasing order. */
static int producers(const FusGraph *g, int i, int *buf) {
  int n = 0;
  for (int u = 0; u < g->inv[i].nuses; u++) {
    int p = g->var[g->inv[i].uses[u].var].producer;
    if (p < 0) continue;
    int k = 0;
    while (k < n && buf[k] != p) k++;
    if (k == n) buf[n++] = p;
  }
  for (int a = 1; a < n; a++) /* insertion sort, decreasing */
    for (int b = a; b > 0 && buf[b] > buf[b - 1]; b--) {
      int t = buf[b];
      buf[b] = buf[b - 1];
      buf[b - 1] = t;
    }
  return n;
}

static void greedy(const FusGraph *g, int *cl, int down) {
  int n = g->ninv;
  Ord *ord = nz_xmalloc(sizeof(Ord) * (size_t)(n ? n : 1));
  int *level = nz_xcalloc((size_t)(n ? n : 1), sizeof(int));
  int *buf = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  State S = {cl, nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1)), nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1)),
             nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1))};
  for (int i = 0; i < n; i++) {
    cl[i] = S.head[i] = S.tail[i] = i;
    S.next[i] = -1;
  }
  if (down) {
    for (int i = 0; i < n; i++) { /* program order is topological */
      int np = producers(g, i, buf);
      for (int k = 0; k < np; k++)
        if (level[buf[k]] + 1 > level[i]) level[i] = level[buf[k]] + 1;
    }
  } else {
    for (int i = n - 1; i >= 0; i--) {
      int np = producers(g, i, buf);
      for (int k = 0; k < np; k++)
        if (level[i] + 1 > level[buf[k]]) level[buf[k]] = level[i] + 1;
    }
  }
  for (int i = 0; i < n; i++) ord[i] = (Ord){level[i], down ? i : -i};
  qsort(ord, (size_t)n, sizeof(Ord), cmp_ord);
  for (int o = 0; o < n; o++) ord[o].idx = down ? ord[o].idx : -ord[o].idx;

  for (int o = 0; o < n; o++) {
    int i = ord[o].idx;
    if (down) {
      /* Consumers of i, in program order (duplicates are harmless). */
      for (int d = 0; d < g->inv[i].ndefs; d++) {
        const FusVar *x = &g->var[g->inv[i].defs[d]];
        for (int c = 0; c < x->nconsumers; c++) try_merge(g, &S, i, x->consumers[c]);
      }
    } else {
      int np = producers(g, i, buf);
      for (int k = 0; k < np; k++) try_merge(g, &S, i, buf[k]);
    }
  }
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++) {
      int i = ord[a].idx, j = ord[b].idx;
      if (cl[i] != cl[j] && fus_indep(g, i, j) && fus_hcompat(g, i, j, NULL)) try_merge(g, &S, i, j);
    }
  free(ord);
  free(level);
  free(buf);
  free(S.next);
  free(S.head);
  free(S.tail);
}

int fus_sched_greedy_down(const FusGraph *g, FusOptions *opt, FusSchedule *out) {
  greedy(g, out->cl, 1);
  out->status = FUS_ST_GREEDY;
  return 0;
}

int fus_sched_greedy_up(const FusGraph *g, FusOptions *opt, FusSchedule *out) {
  greedy(g, out->cl, 0);
  out->status = FUS_ST_GREEDY;
  return 0;
}
