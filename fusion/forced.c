/* forced.c — pairs of invocations that every optimal partition fuses (ILP.md,
 * "Forced pairs"). Found on atoms, sets already known to be fused, until no
 * more are found: a source atom whose outputs all go to one other atom, or a
 * sink atom fed by one other atom, moves into that atom's cluster in any
 * legal partition, which stays legal and loses a materialised array. */
#include "fusion.h"

typedef struct {
  const FusGraph *g;
  const char *apart;
  int *uf;           /* atoms: union-find over invocations */
  int *start, *mem;  /* members by root at the start of a pass */
} Forced;

/* May atom a join any legal cluster that holds atom b? Every member of a
 * satisfies the pair rule with b's members and with every invocation that
 * is apart from none of them. */
static int joins(Forced *F, int a, int b) {
  const FusGraph *g = F->g;
  int n = g->ninv;
  for (int y = 0; y < n; y++) {
    int ry = fus_uf_find(F->uf, y);
    if (ry == a) continue;
    if (ry != b) {
      int with_b = 1;
      for (int e = F->start[b]; e < F->start[b + 1] && with_b; e++) with_b = !F->apart[F->mem[e] * n + y];
      if (!with_b) continue;
    }
    for (int e = F->start[a]; e < F->start[a + 1]; e++)
      if (!fus_pair_ok(g, F->mem[e], y, NULL)) return 0;
  }
  return 1;
}

/* Is some array produced in atom p, not live out, read only inside p and q,
 * and by q at least once? (It is materialised while p and q are apart, and
 * not once they are together.) */
static int saves_array(Forced *F, int p, int q) {
  const FusGraph *g = F->g;
  for (int e = F->start[p]; e < F->start[p + 1]; e++) {
    const FusInv *I = &g->inv[F->mem[e]];
    for (int d = 0; d < I->ndefs; d++) {
      const FusVar *x = &g->var[I->defs[d]];
      if (!x->is_array || x->live_out) continue;
      int inside = 1, by_q = 0;
      for (int k = 0; k < x->nconsumers && inside; k++) {
        int r = fus_uf_find(F->uf, x->consumers[k]);
        inside = r == p || r == q;
        by_q |= r == q;
      }
      if (inside && by_q) return 1;
    }
  }
  return 0;
}

/* Atom r, met from atom a: fine if it is a itself or the one other atom *b
 * met so far (which it becomes if none was); 0 if it is a second one. */
static int same_other(int a, int r, int *b) {
  if (r == a) return 1;
  if (*b >= 0 && r != *b) return 0;
  *b = r;
  return 1;
}

/* The atom that receives atom a's outputs, if a is a source: every reader
 * outside a is in that one atom, and whatever a reads from the region outside
 * itself is a scalar or a live-out array (materialised anyway). Else -1. */
static int source_partner(Forced *F, int a) {
  const FusGraph *g = F->g;
  int b = -1;
  for (int e = F->start[a]; e < F->start[a + 1]; e++) {
    const FusInv *I = &g->inv[F->mem[e]];
    for (int u = 0; u < I->nuses; u++) {
      const FusVar *x = &g->var[I->uses[u].var];
      if (x->producer >= 0 && fus_uf_find(F->uf, x->producer) != a && x->is_array && !x->live_out) return -1;
    }
    for (int d = 0; d < I->ndefs; d++) {
      const FusVar *x = &g->var[I->defs[d]];
      for (int k = 0; k < x->nconsumers; k++)
        if (!same_other(a, fus_uf_find(F->uf, x->consumers[k]), &b)) return -1;
    }
  }
  return b;
}

/* The atom that feeds atom a, if a is a sink: nothing outside a reads its
 * outputs, and everything it reads from the region outside itself comes from
 * that one atom. Else -1. */
static int sink_partner(Forced *F, int a) {
  const FusGraph *g = F->g;
  int b = -1;
  for (int e = F->start[a]; e < F->start[a + 1]; e++) {
    const FusInv *I = &g->inv[F->mem[e]];
    for (int d = 0; d < I->ndefs; d++) {
      const FusVar *x = &g->var[I->defs[d]];
      for (int k = 0; k < x->nconsumers; k++)
        if (fus_uf_find(F->uf, x->consumers[k]) != a) return -1;
    }
    for (int u = 0; u < I->nuses; u++) {
      const FusVar *x = &g->var[I->uses[u].var];
      if (x->producer >= 0 && !same_other(a, fus_uf_find(F->uf, x->producer), &b)) return -1;
    }
  }
  return b;
}

int fus_forced_partners(const FusGraph *g, const char *apart, int *partner, int *order) {
  int n = g->ninv, count = 0;
  Forced F = {g, apart, nz_xmalloc(sizeof(int) * (size_t)(n + 1)), nz_xmalloc(sizeof(int) * (size_t)(n + 2)),
              nz_xmalloc(sizeof(int) * (size_t)(n + 1))};
  char *dirty = nz_xmalloc((size_t)n + 1);
  for (int i = 0; i < n; i++) F.uf[i] = i, partner[i] = -1;
  /* The argument (a lost array outweighs the reads the move may add) is the
   * unit model's lexicographic order; under a sized model an array of n
   * elements may weigh less than the n^2 reads a move adds, so none is forced. */
  int changed = !(g->model && !g->model->unit);
  for (; changed;) {
    changed = 0;
    /* Members by root; atoms joined in this pass wait for the next one. */
    memset(F.start, 0, sizeof(int) * (size_t)(n + 2));
    for (int i = 0; i < n; i++) F.start[fus_uf_find(F.uf, i) + 1]++;
    for (int r = 0; r < n; r++) F.start[r + 1] += F.start[r];
    int *fill = nz_xmalloc(sizeof(int) * (size_t)(n + 1));
    memcpy(fill, F.start, sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) F.mem[fill[fus_uf_find(F.uf, i)]++] = i;
    free(fill);
    memset(dirty, 0, (size_t)n);
    for (int a = 0; a < n; a++) {
      if (fus_uf_find(F.uf, a) != a || dirty[a]) continue;
      int b = source_partner(&F, a);
      if (b < 0 || dirty[b] || !saves_array(&F, a, b) || !joins(&F, a, b)) {
        b = sink_partner(&F, a);
        if (b < 0 || dirty[b] || !saves_array(&F, b, a) || !joins(&F, a, b)) continue;
      }
      partner[a] = b;
      if (order) order[count] = a;
      F.uf[a] = b;
      dirty[a] = dirty[b] = 1;
      changed = 1;
      count++;
    }
  }
  free(dirty);
  free(F.uf), free(F.start), free(F.mem);
  return count;
}

/* Replays the joins in their order over the partition cl: atom a_t (the
 * invocations joined into a_t by the joins before it) moves into the cluster
 * of its partner's atom when cl has them in different clusters. Each atom
 * is whole when its turn comes (the joins before it were replayed, and a
 * move takes whole atoms, which nest; `whole` only guards that), so each
 * move is the one of the proof in ILP.md ("Forced pairs"): a legal
 * partition stays legal and gets cheaper. Returns the moves made. */
int fus_forced_apply(int n, const int *partner, const int *order, int count, int *cl) {
  int *next = nz_xmalloc(sizeof(int) * (size_t)(n + 1)), *tail = nz_xmalloc(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) next[i] = -1, tail[i] = i; /* atoms by root: lists */
  int moves = 0;
  for (int t = 0; t < count; t++) {
    int a = order[t], b = partner[a];
    int x = cl[a], y = cl[b], whole = 1;
    for (int i = a; i >= 0 && whole; i = next[i]) whole = cl[i] == x;
    for (int i = b; i >= 0 && whole; i = next[i]) whole = cl[i] == y;
    if (whole && x != y) {
      for (int i = a; i >= 0; i = next[i]) cl[i] = y;
      moves++;
    }
    next[tail[b]] = a, tail[b] = tail[a];
  }
  free(next), free(tail);
  return moves;
}
