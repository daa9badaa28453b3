/* sched_greedy.c — the greedy strategies of paper §8.1: impose an order on
 * fusion opportunities and take them in that order, skipping any that earlier
 * choices made impossible (a tentative merge must pass the legality checker's
 * pair rule and keep the contracted graph acyclic).
 *   greedy-down: invocations by topological level from the sources (longest
 *     path from an input-only invocation, then program order); each one tries
 *     to absorb its consumers in program order, the breadth-first sweep of
 *     the paper (after [BR12]).
 *   greedy-up: the same from the leaves (level by longest path to a sink,
 *     then reverse program order); each one tries to absorb its producers,
 *     latest first (after [RLK14]).
 * Then both make one horizontal sweep in the same order: every independent,
 * horizontally compatible pair whose clusters differ tries to merge.
 * Merges are checked incrementally (see State below); fus_greedy with
 * `reference` set checks each with fus_legal_merge instead. */
#include "fusion.h"

#include <limits.h>

typedef struct {
  int key, idx;
} Ord;

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

static int cmp_ord(const void *a, const void *b) {
  const Ord *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Clusters with member lists, and a level per cluster of the current
 * (acyclic) contracted graph (every edge goes to a higher level), so a
 * tentative merge costs the pairs across the two clusters plus a search of
 * the clusters levelled between them, not a pass over the region (paper
 * §8.1 greedy is meant to be cheap).
 * With `reference` set every merge is decided by the legality checker's
 * fus_legal_merge instead; the unit test checks both give the same schedule. */
typedef struct {
  const FusGraph *g;
  int *cl, *next, *head, *tail; /* cluster ids are one of their members' indices */
  int *size;                    /* members per cluster */
  int *lev;                     /* lev[cluster]: its level (see merge_acyclic) */
  int *mark[2], stamp;          /* visited marks per cluster, per search direction */
  int *found[2];                /* the clusters each search found */
  int reference;
  /* Refused merges of two clusters (open addressing, key a * n + b + 1 with
   * a < b, 0 empty), with when: the two clusters' versions then (each
   * cluster's version counts the clusters it absorbed), or FOREVER when they
   * hold an incompatible pair (clusters only grow and keep their id, so that
   * pair stays inside). A merge refused for a cycle A -> X -> ... -> B is
   * refused again until A or B absorbs a cluster: merges elsewhere contract
   * the walk but keep a cluster other than A and B on it. The horizontal
   * sweep tries a pair of clusters once per pair of their members, and
   * checking |A| x |B| pairs and the cycle search each time made greedy
   * cubic (3000 invocations: 3.3 s; now 0.02 s). Reference mode keeps no
   * memory, so the unit test's comparison checks this one too. */
  struct Bad {
    uint64_t key;
    long when;
  } *bad; /* key and when side by side: one cache miss per lookup */
  size_t nbad, capbad;
  int *ver;
  /* Per cluster, its out- (adj[1]) and in-neighbours (adj[0]) as cluster
   * ids, each once when last compacted (clean of them; a merge appends, and
   * compacts once the list has doubled); an id names a cluster that may
   * since have been absorbed, or the cluster itself, so readers resolve it
   * through cl (a cluster's id is one of its members) and skip their own. The cycle searches walk these instead of every
   * member's edges: a horizontally fused cluster of hundreds of MAPs has
   * hundreds of edges but few neighbouring clusters. */
  struct Adj {
    int *v, n, cap, clean;
  } *adj[2], lifts; /* lifts: merge_lift's stack */
  int *amark, astamp;
  /* Per cluster, the fus_space_key all members share, or -1 when they
   * differ or one is unknown. See pairs_ok. */
  int *ckey;
  /* Per cluster, the SOAC all members apply, or -1 when they apply several;
   * then w1 and w2 are two members applying different ones. The horizontal
   * sweep's filters (see there) ask for a member of another SOAC than k. */
  int *sk, *w1, *w2;
} State;

/* A member of cluster c applying another SOAC than k, or -1 if all apply k.
 * The filters skip a cluster holding a member independent of a candidate
 * that applies another SOAC; a member horizontally compatible with k all the
 * same (a MAP beside a SEG*) filters nothing: -1, and the merge is checked
 * pair by pair. */
static int other_soac_member(const State *S, int c, LcuSoacKind k) {
  int m;
  if (S->sk[c] >= 0) m = S->sk[c] == (int)k ? -1 : S->head[c];
  else m = S->g->inv[S->w1[c]].soac != k ? S->w1[c] : S->w2[c];
  return m >= 0 && fus_soac_hcompat(S->g->inv[m].soac, k) ? -1 : m;
}

#define FOREVER (-1L)

/* The versions of clusters a < b, as one value. */
static long versions(const State *S, int a, int b) {
  if (a > b) {
    int t = a;
    a = b;
    b = t;
  }
  return (long)S->ver[a] * 2147483648L + S->ver[b];
}

static size_t bad_slot(const State *S, uint64_t key) {
  size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull) & (S->capbad - 1);
  while (S->bad[h].key && S->bad[h].key != key) h = (h + 1) & (S->capbad - 1);
  return h;
}

static uint64_t bad_key(const State *S, int a, int b) {
  if (a > b) {
    int t = a;
    a = b;
    b = t;
  }
  return (uint64_t)a * (uint64_t)S->g->ninv + (uint64_t)b + 1;
}

static int known_bad(const State *S, int a, int b) {
  if (!S->capbad || S->reference) return 0;
  uint64_t key = bad_key(S, a, b);
  size_t h = bad_slot(S, key);
  return S->bad[h].key == key && (S->bad[h].when == FOREVER || S->bad[h].when == versions(S, a, b));
}

static void remember_bad(State *S, int a, int b, long when) {
  if (S->reference) return;
  if ((S->nbad + 1) * 2 > S->capbad) { /* grow, at most half full */
    struct Bad *old = S->bad;
    size_t oldcap = S->capbad;
    S->capbad = oldcap ? oldcap * 2 : 1024;
    S->bad = nz_xcalloc(S->capbad, sizeof(struct Bad));
    for (size_t h = 0; h < oldcap; h++)
      if (old[h].key) S->bad[bad_slot(S, old[h].key)] = old[h];
    free(old);
  }
  uint64_t key = bad_key(S, a, b);
  size_t h = bad_slot(S, key);
  if (!S->bad[h].key) S->bad[h].key = key, S->nbad++;
  S->bad[h].when = when;
}

/* Calls visit(S, cluster) for every cluster an edge leaves (dir = 1) or enters
 * (dir = -1) cluster c; stops early when visit returns nonzero. */
static int each_neighbour(State *S, int c, int dir, int (*visit)(State *, int, void *), void *arg) {
  const struct Adj *L = &S->adj[dir > 0][c];
  for (int t = 0; t < L->n; t++) {
    int y = S->cl[L->v[t]];
    if (y != c && visit(S, y, arg)) return 1;
  }
  return 0;
}

static void adj_push(struct Adj *L, int x) {
  if (L->n == L->cap) {
    L->cap = L->cap ? 2 * L->cap : 4;
    L->v = nz_xrealloc(L->v, sizeof(int) * (size_t)L->cap);
  }
  L->v[L->n++] = x;
}

/* Cluster a absorbed b (cl already says so): a's list gets b's, appended to
 * the longer of the two. Once it is twice as long as when last compacted it
 * is resolved to current clusters, without a itself and without repeats:
 * compacting at every merge cost a giant cluster's whole list each time a
 * small one joined it (30000 invocations: 5 million entries). */
static void adj_merge(State *S, struct Adj *L, int a, int b) {
  if (L[b].n > L[a].n) {
    struct Adj t = L[a];
    L[a] = L[b];
    L[b] = t;
  }
  for (int t = 0; t < L[b].n; t++) adj_push(&L[a], L[b].v[t]);
  free(L[b].v);
  L[b] = (struct Adj){0};
  if (L[a].n <= 2 * L[a].clean + 16) return;
  S->astamp++;
  int k = 0;
  for (int t = 0; t < L[a].n; t++) {
    int y = S->cl[L[a].v[t]];
    if (y == a || S->amark[y] == S->astamp) continue;
    S->amark[y] = S->astamp;
    L[a].v[k++] = y;
  }
  L[a].n = L[a].clean = k;
}

/* One direction of merge_acyclic's search: dir 1 forward from A through
 * clusters levelled below bound, dir -1 backward from B through those above
 * it. Reaching the other end (target) from a cluster other than the start
 * closes a cycle. */
typedef struct {
  int dir, bound, target, from_other;
  int *list, n, done; /* clusters found; how many expanded */
  int *mark;
} Search;

static int visit(State *S, int x, void *arg) {
  Search *q = arg;
  if (x == q->target) return q->from_other;
  if ((q->dir > 0 ? S->lev[x] >= q->bound : S->lev[x] <= q->bound) || q->mark[x] == S->stamp) return 0;
  q->mark[x] = S->stamp;
  q->list[q->n++] = x;
  return 0;
}

static void search_start(State *S, Search *q, int dir, int from, int bound, int target) {
  *q = (Search){dir, bound, target, 0, S->found[dir > 0], 0, 0, S->mark[dir > 0]};
  each_neighbour(S, from, dir, visit, q);
  q->from_other = 1;
}

/* Expands the next cluster found; nonzero when that closes a cycle. */
static int search_step(State *S, Search *q) {
  return each_neighbour(S, q->list[q->done++], q->dir, visit, q);
}

/* Would merging clusters a and b create a cycle? Levels answer most
 * questions without a search: every edge of the contracted graph goes from
 * a lower to a higher level, so a path a -> x -> ... -> b through another
 * cluster x climbs at least two levels. Clusters one level apart or on one
 * level (most horizontal pairs: siblings of one layer) merge at once. Else,
 * with lev[a] < lev[b], two searches run in lockstep: F, the clusters
 * reached from a below b's level, and B, those reaching b above a's. Every
 * cluster on such a path is in both, so an edge from F into b (or from a
 * into B) is found by whichever finishes first, and a finished search
 * without one means there is no path.
 * The merged cluster takes the higher level, and the lower one's
 * successors that are now not above it are lifted, and theirs in turn
 * (merge_lift). Levels only grow and the contracted graph stays acyclic,
 * so this ends. This replaced Pearce and Kelly's topological positions,
 * where every cluster has a position of its own and the searches crossed
 * every cluster positioned between the pair, however unrelated: a layer of
 * siblings spans thousands of positions but one level. On 30000
 * invocations of four layers (greedy-down), 0.44 million clusters expanded
 * instead of 1.44 million, 32 million neighbours visited instead of 42
 * million, 0.53 million lifts; the levels still reach 152, as horizontal
 * merges of unrelated clusters make the contracted graph that deep. */
static int merge_acyclic(State *S, int a, int b) {
  if (S->lev[a] > S->lev[b]) {
    int t = a;
    a = b;
    b = t;
  }
  if (S->lev[b] - S->lev[a] < 2) return 1;
  Search F, B;
  S->stamp++;
  search_start(S, &F, 1, a, S->lev[b], b);
  search_start(S, &B, -1, b, S->lev[a], a);
  for (;;) {
    if (B.done == B.n || F.done == F.n) return 1;
    if (search_step(S, &B) || search_step(S, &F)) return 0;
  }
}

/* After a merge into cluster c: lifts every successor not above its
 * predecessor's level, depth first. A cluster lifted twice is on the stack
 * twice, so the stack grows as needed. */
static void merge_lift(State *S, int c) {
  struct Adj *st = &S->lifts;
  st->n = 0;
  adj_push(st, c);
  while (st->n > 0) {
    int x = st->v[--st->n];
    const struct Adj *L = &S->adj[1][x];
    for (int t = 0; t < L->n; t++) {
      int y = S->cl[L->v[t]];
      if (y == x || S->lev[y] > S->lev[x]) continue;
      S->lev[y] = S->lev[x] + 1;
      adj_push(st, y);
    }
  }
}

/* Does every pair across clusters a and b pass the pair rule? In general
 * that is |a| x |b| checks, and the horizontal sweep of a large region tries
 * many big pairs (10000 invocations: 12 to 29 million checks). Two clusters
 * of one class need only their edges checked: two independent members of one
 * class apply one SOAC over one space (horizontally compatible), and a pair
 * joined by a path but no edge is never apart (fus_pair_ok). Those edges
 * are found from the smaller cluster, out and in: a sweep of the edges
 * leaving both clusters walked a giant horizontal cluster's thousands of
 * members at every try (30000 invocations: 23 million consumers). */
static int pairs_ok(State *S, int a, int b) {
  const FusGraph *g = S->g;
  if (S->reference || S->ckey[a] < 0 || S->ckey[a] != S->ckey[b]) {
    for (int i = S->head[a]; i >= 0; i = S->next[i])
      for (int j = S->head[b]; j >= 0; j = S->next[j])
        if (!fus_pair_ok(g, i, j, NULL)) return 0;
    return 1;
  }
  int s = S->size[a] <= S->size[b] ? a : b, o = s == a ? b : a; /* the smaller one's edges */
  for (int i = S->head[s]; i >= 0; i = S->next[i]) {
    for (int d = 0; d < g->inv[i].ndefs; d++) {
      const FusVar *x = &g->var[g->inv[i].defs[d]];
      for (int c = 0; c < x->nconsumers; c++)
        if (S->cl[x->consumers[c]] == o && !fus_vcompat(g, i, x->consumers[c], NULL)) return 0;
    }
    for (int u = 0; u < g->inv[i].nuses; u++) {
      int p = g->var[g->inv[i].uses[u].var].producer;
      if (p >= 0 && S->cl[p] == o && !fus_vcompat(g, p, i, NULL)) return 0;
    }
  }
  return 1;
}

static void try_merge(State *S, int x, int y) {
  const FusGraph *g = S->g;
  int ca = S->cl[x], cb = S->cl[y];
  if (ca == cb || known_bad(S, ca, cb)) return;
  if (!pairs_ok(S, ca, cb)) {
    remember_bad(S, ca, cb, FOREVER);
    return;
  }
  if (S->size[cb] > S->size[ca]) { /* the larger one keeps its id */
    int t = ca;
    ca = cb;
    cb = t;
  }
  /* (Reference mode does not maintain levels; which id survives does not
   * change the partition.) */
  if (S->reference ? !fus_legal_merge(g, S->cl, ca, cb, NULL) : !merge_acyclic(S, ca, cb)) {
    remember_bad(S, ca, cb, versions(S, ca, cb));
    return;
  }
  S->ver[ca]++;
  if (S->ckey[ca] != S->ckey[cb]) S->ckey[ca] = -1;
  if (S->sk[ca] >= 0 && S->sk[ca] != S->sk[cb]) {
    if (S->sk[cb] >= 0) S->w1[ca] = S->head[ca], S->w2[ca] = S->head[cb];
    else S->w1[ca] = S->w1[cb], S->w2[ca] = S->w2[cb];
    S->sk[ca] = -1;
  }
  for (int j = S->head[cb]; j >= 0; j = S->next[j]) S->cl[j] = ca;
  S->next[S->tail[ca]] = S->head[cb];
  S->tail[ca] = S->tail[cb];
  S->head[cb] = S->tail[cb] = -1;
  adj_merge(S, S->adj[0], ca, cb);
  adj_merge(S, S->adj[1], ca, cb);
  S->size[ca] += S->size[cb];
  if (!S->reference) {
    if (S->lev[cb] > S->lev[ca]) S->lev[ca] = S->lev[cb];
    merge_lift(S, ca);
  }
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

/* The horizontal sweep's lists, in sweep order: per SOAC its invocations
 * (places r = 0..n-1 grouped by SOAC, kstart[k] .. kstart[k+1]), and per
 * SOAC and known size the places of that size, and per SOAC the places of
 * unknown size (an invocation of known size s meets only sizes s and
 * unknown: on 10000 invocations of two sizes that skips three pairs in
 * four). */
typedef struct {
  int *inv, *size;             /* place -> invocation, its size */
  int *kstart;                 /* LS__COUNT + 1 */
  int *known, *knownstart;     /* places by (SOAC, size) key */
  int *knownidx;               /* place (known size) -> its index in known */
  int *unk, *unkstart;         /* places of unknown size, per SOAC */
  int *unext;                  /* place of known size -> index in unk of the first unknown one after it */
  /* Runs: per list position x (in known, in unk, and over places), an index
   * y > x such that every entry in [x, y) is in x's cluster. Clusters only
   * grow, so that stays true; run_end extends it. See horizontal_sweep. */
  int *rknown, *runk, *rall;
} Lists;

static int size_key(const FusGraph *g, int k, int s) { return k * g->nsize + s; }

static void lists_build(Lists *L, const FusGraph *g, const Ord *ord) {
  int n = g->ninv, nk = LS__COUNT * (g->nsize ? g->nsize : 1);
  size_t sz = sizeof(int) * (size_t)(n ? n : 1);
  L->inv = nz_xmalloc(sz), L->size = nz_xmalloc(sz), L->knownidx = nz_xmalloc(sz), L->unext = nz_xmalloc(sz);
  L->known = nz_xmalloc(sz), L->unk = nz_xmalloc(sz);
  L->rknown = nz_xmalloc(sz), L->runk = nz_xmalloc(sz), L->rall = nz_xmalloc(sz);
  for (int x = 0; x < n; x++) L->rknown[x] = L->runk[x] = L->rall[x] = x + 1;
  L->kstart = nz_xcalloc(LS__COUNT + 1, sizeof(int));
  L->knownstart = nz_xcalloc((size_t)nk + 1, sizeof(int));
  L->unkstart = nz_xcalloc(LS__COUNT + 1, sizeof(int));
  for (int o = 0; o < n; o++) L->kstart[g->inv[ord[o].idx].soac + 1]++;
  for (int k = 0; k < LS__COUNT; k++) L->kstart[k + 1] += L->kstart[k];
  int *fill = nz_xmalloc(sizeof(int) * (LS__COUNT + 1));
  memcpy(fill, L->kstart, sizeof(int) * (LS__COUNT + 1));
  for (int o = 0; o < n; o++) { /* stable: each SOAC's places keep the sweep order */
    int i = ord[o].idx, r = fill[g->inv[i].soac]++;
    L->inv[r] = i, L->size[r] = g->inv[i].size;
  }
  free(fill);
  for (int r = 0; r < n; r++) {
    int i = L->inv[r];
    if (L->size[r] == FUS_UNKNOWN) L->unkstart[g->inv[i].soac + 1]++;
    else L->knownstart[size_key(g, g->inv[i].soac, L->size[r]) + 1]++;
  }
  for (int k = 0; k < LS__COUNT; k++) L->unkstart[k + 1] += L->unkstart[k];
  for (int x = 0; x < nk; x++) L->knownstart[x + 1] += L->knownstart[x];
  int *kf = nz_xmalloc(sizeof(int) * ((size_t)nk + 1)), *uf = nz_xmalloc(sizeof(int) * (LS__COUNT + 1));
  memcpy(kf, L->knownstart, sizeof(int) * ((size_t)nk + 1));
  memcpy(uf, L->unkstart, sizeof(int) * (LS__COUNT + 1));
  for (int r = 0; r < n; r++) {
    int k = g->inv[L->inv[r]].soac;
    L->unext[r] = uf[k];
    if (L->size[r] == FUS_UNKNOWN) {
      L->unk[uf[k]++] = r;
      L->knownidx[r] = -1;
    } else {
      int x = kf[size_key(g, k, L->size[r])]++;
      L->known[x] = r;
      L->knownidx[r] = x;
    }
  }
  free(kf), free(uf);
}

static void lists_free(Lists *L) {
  free(L->inv), free(L->size), free(L->knownidx), free(L->unext), free(L->known), free(L->unk);
  free(L->kstart), free(L->knownstart), free(L->unkstart);
  free(L->rknown), free(L->runk), free(L->rall);
}

/* The places after place ra that the invocation there meets, in order: from
 * a list of candidates (cand, nc), or, for a known size, the places of that
 * size and of unknown size merged, or, for an unknown size (and in reference
 * mode, every), every place of its SOAC. */
typedef struct {
  const int *cand;
  int nc, c;          /* candidates */
  int p, pend, q, qend; /* known and unknown places */
  int r, rend;        /* every place */
  int from;           /* the list the last entry came from: 0 known, 1 unknown, 2 every place, 3 candidates */
} Iter;

static void iter_start(Iter *it, const Lists *L, const FusGraph *g, int ra, const int *cand, int nc, int every) {
  int k = g->inv[L->inv[ra]].soac;
  *it = (Iter){cand, nc, 0, 0, 0, 0, 0, -1, -1, 3};
  if (cand) return;
  if (every || L->size[ra] == FUS_UNKNOWN) {
    it->r = ra + 1, it->rend = L->kstart[k + 1];
    return;
  }
  it->p = L->knownidx[ra] + 1, it->pend = L->knownstart[size_key(g, k, L->size[ra]) + 1];
  it->q = L->unext[ra], it->qend = L->unkstart[k + 1];
}

static int iter_next(Iter *it, const Lists *L) {
  if (it->cand) {
    it->from = 3;
    return it->c < it->nc ? it->cand[it->c++] : -1;
  }
  if (it->r >= 0) {
    it->from = 2;
    return it->r < it->rend ? it->r++ : -1;
  }
  int a = it->p < it->pend ? L->known[it->p] : INT_MAX, b = it->q < it->qend ? L->unk[it->q] : INT_MAX;
  if (a == INT_MAX && b == INT_MAX) return -1;
  if (a < b) {
    it->from = 0;
    it->p++;
    return a;
  }
  it->from = 1;
  it->q++;
  return b;
}

/* The place at position x of a list: 0 known sizes, 1 unknown, 2 every place. */
static int place_at(const Lists *L, int list, int x) { return list == 0 ? L->known[x] : list == 1 ? L->unk[x] : x; }

/* The end of the run of entries from position x on that are all in x's
 * cluster, at most end; extends the stored runs, and points every run it
 * crossed at the end (path compression). */

static int run_end(const Lists *L, const int *cl, int list, int x, int end) {
  int *run = list == 0 ? L->rknown : list == 1 ? L->runk : L->rall;
  int c = cl[L->inv[place_at(L, list, x)]], y = x;
  while (run[y] < end && cl[L->inv[place_at(L, list, run[y])]] == c) y = run[y];
  int e = run[y] < end ? run[y] : end;
  for (int z = x; z != y;) { /* compress: every run from x to y now ends at e */
    int nz = run[z];
    run[z] = e;
    z = nz;
  }
  return e;
}

/* The entry iter_next returned last is in a cluster the sweep skips: skips
 * the rest of its run too (candidate lists have no runs). */
static void iter_skip_run(Iter *it, const Lists *L, const int *cl) {
  if (it->from == 0) it->p = run_end(L, cl, 0, it->p - 1, it->pend);
  else if (it->from == 1) it->q = run_end(L, cl, 1, it->q - 1, it->qend);
  else if (it->from == 2) it->r = run_end(L, cl, 2, it->r - 1, it->rend);
}

/* Horizontal sweep over pairs (a, b), a before b in the order: every
 * independent, horizontally compatible pair whose clusters differ tries to
 * merge. Only equal SOACs can be compatible, so each invocation walks the
 * later places of its own SOAC (Lists), in order.
 *
 * Two filters skip pairs that cannot merge, without changing a decision
 * (the reference mode keeps every pair, and walks every place of the SOAC;
 * the unit test compares the two). An
 * independent pair of different SOACs is apart, so a cluster holding a
 * member u of another SOAC than i's (k) merges with j's cluster only if u
 * and j are related by a path; and j's cluster merges with i's only if its
 * members of another SOAC than k are related to i. So:
 *  - if i's cluster has such a u, the candidates are the SOAC-k invocations
 *    later in the sweep among u's descendants and ancestors, in order;
 *  - otherwise j is skipped when a member of its cluster of another SOAC
 *    is unrelated to i.
 * Without them nearly every pair the sweep tried failed the pair rule
 * (10000 invocations: 0.25 to 0.39 million tries and 0.9 to 1.5 million
 * refused-merge lookups for about 3000 merges). */
static void horizontal_sweep(State *S, const Ord *ord, int reference) {
  const FusGraph *g = S->g;
  int n = g->ninv, W = (n + 63) / 64, *cl = S->cl;
  Lists L;
  lists_build(&L, g, ord);
  size_t sz = sizeof(int) * (size_t)(n ? n : 1);
  int *place = nz_xmalloc(sz); /* invocation -> its place */
  for (int r = 0; r < n; r++) place[L.inv[r]] = r;
  int *cand = nz_xmalloc(sz), *stack = nz_xmalloc(sz), *vis = nz_xcalloc((size_t)(n ? n : 1), sizeof(int)), vstamp = 0;
  /* seen[c] == stamp: cluster c is known not to merge with i's cluster as
   * it is now (refused, so remembered too); a merge changes i's cluster,
   * and the stamp. seen is adj_merge's mark array: a merge stamps it too,
   * and a fresh stamp follows every merge. */
  int *seen = S->amark;
  for (int a = 0; a < n; a++) {
    int i = ord[a].idx, ra = place[i];
    LcuSoacKind k = g->inv[i].soac;
    int si = g->inv[i].size, stamp = ++S->astamp;
    int u = reference ? -1 : other_soac_member(S, cl[i], k), nc = 0;
    if (u >= 0) { /* the first filter: u's relatives of SOAC k after i, in order */
      /* Relatives of i are never independent of it: u's descendants that
       * are i's are left out a word at a time, and the search of u's
       * ancestors stops at i's (their ancestors are i's too). Without that
       * the search crossed every ancestor of u for every i of a long chain
       * (10000 invocations: 0.37 s, 30000: 4.3 s). */
      const uint64_t *row = g->path + (size_t)u * (size_t)W, *rowi = g->path + (size_t)i * (size_t)W;
      for (int x = u >> 6; x < W; x++)
        for (uint64_t b = row[x] & ~rowi[x]; b; b &= b - 1) {
          int j = x * 64 + __builtin_ctzll(b);
          if (g->inv[j].soac == k && place[j] > ra) cand[nc++] = place[j];
        }
      int sp = 0;
      vis[u] = ++vstamp;
      stack[sp++] = u;
      while (sp > 0) {
        int v = stack[--sp];
        for (int e = 0; e < g->inv[v].nuses; e++) {
          int p = g->var[g->inv[v].uses[e].var].producer;
          if (p < 0 || vis[p] == vstamp) continue;
          vis[p] = vstamp;
          if (p == i || fus_path(g, p, i)) continue;
          stack[sp++] = p;
          if (g->inv[p].soac == k && place[p] > ra) cand[nc++] = place[p];
        }
      }
      qsort(cand, (size_t)nc, sizeof(int), cmp_int);
    }
    Iter it;
    iter_start(&it, &L, g, ra, u >= 0 ? cand : NULL, nc, reference);
    for (int r; (r = iter_next(&it, &L)) >= 0;) {
      /* Cheapest first: two known, different sizes are never one space. */
      if (si != FUS_UNKNOWN && L.size[r] != FUS_UNKNOWN && si != L.size[r]) continue;
      int j = L.inv[r], cj = cl[j];
      if (cj == cl[i] || seen[cj] == stamp) {
        if (!reference) iter_skip_run(&it, &L, cl);
        continue;
      }
      int v = reference ? -1 : other_soac_member(S, cj, k); /* the second filter */
      if (v >= 0 && !fus_path(g, i, v) && !fus_path(g, v, i)) {
        seen[cj] = stamp;
        iter_skip_run(&it, &L, cl);
        continue;
      }
      if (known_bad(S, cl[i], cj)) {
        seen[cj] = stamp;
        iter_skip_run(&it, &L, cl);
        continue;
      }
      if (!fus_indep(g, i, j) || !fus_hcompat(g, i, j, NULL)) continue;
      try_merge(S, i, j);
      if (cl[i] == cl[j]) stamp = ++S->astamp;
      else if (!reference) seen[cj] = stamp;
    }
  }
  free(place), free(cand), free(stack), free(vis);
  lists_free(&L);
}

void fus_greedy(const FusGraph *g, int *cl, int down, int reference) { fus_greedy_seeded(g, cl, down, reference, NULL); }

void fus_greedy_seeded(const FusGraph *g, int *cl, int down, int reference, const int *seed) {
  int n = g->ninv;
  Ord *ord = nz_xmalloc(sizeof(Ord) * (size_t)(n ? n : 1));
  int *level = nz_xcalloc((size_t)(n ? n : 1), sizeof(int));
  int *buf = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  size_t sz = sizeof(int) * (size_t)(n ? n : 1);
  State S = {.g = g, .cl = cl, .reference = reference};
  S.next = nz_xmalloc(sz), S.head = nz_xmalloc(sz), S.tail = nz_xmalloc(sz), S.size = nz_xmalloc(sz);
  for (int d = 0; d < 2; d++) S.mark[d] = nz_xcalloc((size_t)(n ? n : 1), sizeof(int)), S.found[d] = nz_xmalloc(sz);
  S.lev = nz_xcalloc((size_t)(n ? n : 1), sizeof(int));
  S.ver = nz_xcalloc((size_t)(n ? n : 1), sizeof(int));
  S.ckey = nz_xmalloc(sz);
  S.sk = nz_xmalloc(sz), S.w1 = nz_xmalloc(sz), S.w2 = nz_xmalloc(sz);
  for (int i = 0; i < n; i++) { /* program order is a topological order */
    cl[i] = S.head[i] = S.tail[i] = i;
    S.size[i] = 1;
    S.next[i] = -1;
    S.ckey[i] = fus_space_key(g, i);
    S.sk[i] = (int)g->inv[i].soac, S.w1[i] = S.w2[i] = -1;
  }
  S.amark = nz_xcalloc((size_t)(n ? n : 1), sizeof(int));
  for (int d = 0; d < 2; d++) S.adj[d] = nz_xcalloc((size_t)(n ? n : 1), sizeof(struct Adj));
  for (int i = 0; i < n; i++) { /* every edge once, from both ends */
    S.astamp++;
    for (int d = 0; d < g->inv[i].ndefs; d++) {
      const FusVar *x = &g->var[g->inv[i].defs[d]];
      for (int u = 0; u < x->nconsumers; u++) {
        int c = x->consumers[u];
        if (c == i || S.amark[c] == S.astamp) continue;
        S.amark[c] = S.astamp;
        adj_push(&S.adj[1][i], c);
        adj_push(&S.adj[0][c], i);
      }
    }
  }
  for (int i = 0; i < n; i++) { /* levels: longest paths from the sources */
    int np = producers(g, i, buf);
    for (int k = 0; k < np; k++)
      if (S.lev[buf[k]] + 1 > S.lev[i]) S.lev[i] = S.lev[buf[k]] + 1;
  }
  if (seed) /* each invocation tries to join the first of its seed cluster */
    for (int i = 0; i < n; i++)
      for (int j = 0; j < i; j++)
        if (seed[j] == seed[i]) {
          try_merge(&S, j, i);
          break;
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

  for (int o = 0; o < n && !seed; o++) { /* a seeded start goes straight to the sweep */
    int i = ord[o].idx;
    if (down) {
      /* Consumers of i, in program order (duplicates are harmless). */
      for (int d = 0; d < g->inv[i].ndefs; d++) {
        const FusVar *x = &g->var[g->inv[i].defs[d]];
        for (int c = 0; c < x->nconsumers; c++) try_merge(&S, i, x->consumers[c]);
      }
    } else {
      int np = producers(g, i, buf);
      for (int k = 0; k < np; k++) try_merge(&S, i, buf[k]);
    }
  }
  horizontal_sweep(&S, ord, reference);
  free(S.sk), free(S.w1), free(S.w2);
  free(ord);
  free(level);
  free(buf);
  free(S.next);
  free(S.head);
  free(S.tail);
  free(S.size);
  free(S.lev);
  free(S.lifts.v);
  for (int d = 0; d < 2; d++) free(S.mark[d]), free(S.found[d]);
  free(S.bad);
  free(S.ver);
  free(S.ckey);
  for (int d = 0; d < 2; d++) {
    for (int i = 0; i < n; i++) free(S.adj[d][i].v);
    free(S.adj[d]);
  }
  free(S.amark);
}

int fus_sched_greedy_down(const FusGraph *g, FusOptions *opt, FusSchedule *out) {
  fus_greedy(g, out->cl, 1, 0);
  out->status = FUS_ST_GREEDY;
  return 0;
}

int fus_sched_greedy_up(const FusGraph *g, FusOptions *opt, FusSchedule *out) {
  fus_greedy(g, out->cl, 0, 0);
  out->status = FUS_ST_GREEDY;
  return 0;
}
