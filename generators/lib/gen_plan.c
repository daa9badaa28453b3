/* gen_plan.c — the shape of a synthetic region, per family: which invocations
 * exist, which SOAC each applies, and which values each reads. Types and
 * length classes are tracked so that gen_region.c can emit thunks that never
 * fault: every array read is at the thunk's own index into an array of the
 * iterated length class (ONCE reads arrays behind a length guard). */
#include "gen_plan.h"

#include <limits.h>

/* ------------------------------------------------------------------ PRNG */

uint64_t gen_rand(GenPlan *P) { /* splitmix64: tiny, and the same on every platform */
  uint64_t z = (P->rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int gen_below(GenPlan *P, int n) { return n <= 1 ? 0 : (int)(gen_rand(P) % (uint64_t)n); }

int gen_chance(GenPlan *P, double p) {
  return (double)(gen_rand(P) >> 11) * (1.0 / 9007199254740992.0) < p;
}

/* ------------------------------------------------------- values and nodes */

static int is_array_soac(LcuSoacKind k) { return k != LS_ONCE && k != LS_REDUCE; }

static int new_input(GenPlan *P) {
  GenVal v = {0};
  int idx = P->vals.n;
  /* inputs alternate float and int, so both element types occur with sizes >= 2 */
  int nin = 0;
  for (int i = 0; i < P->vals.n; i++) nin += P->vals.v[i].producer < 0;
  snprintf(v.name, sizeof v.name, "x%d", nin);
  v.is_array = 1;
  v.elem = nin % 2 == 0 ? LT_FLOAT : LT_INT;
  v.cls = P->nclasses++;
  v.producer = -1;
  v.level = -1;
  nz_vec_push(P->vals, v);
  return idx;
}

static GenVal *val(GenPlan *P, int v) { return &P->vals.v[v]; }

/* The result type: mostly the iterated input's, sometimes converted, so that
 * int and float dataflow mix even when every input is a float. */
static LcuTypeKind pick_type(GenPlan *P, int primary) {
  LcuTypeKind t = val(P, primary)->elem;
  if (gen_chance(P, 0.25)) t = t == LT_INT ? LT_FLOAT : LT_INT;
  return t;
}

/* Appends invocation kind(in...) and its results; returns its index. The
 * first `counted` inputs already count this invocation among their consumers
 * (reserved while planning a level). */
static int add_node_counted(GenPlan *P, LcuSoacKind kind, int nin, const int *in, int counted) {
  GenNode n = {0};
  n.kind = kind;
  n.nin = nin;
  n.in = nz_xmalloc(sizeof(int) * (size_t)nin);
  n.level = 0;
  for (int k = 0; k < nin; k++) {
    n.in[k] = in[k];
    GenVal *v = val(P, in[k]);
    if (k >= counted) v->nconsumers++;
    if (v->level + 1 > n.level) n.level = v->level + 1;
  }
  if (kind != LS_ONCE && !val(P, in[0])->is_array)
    nz_die("gen: %s iterating over a scalar", lcu_soac_name(kind));
  n.ty = pick_type(P, in[0]);
  int id = P->nodes.n;
  n.nout = kind == LS_PARTITION ? 2 : 1;
  for (int o = 0; o < n.nout; o++) {
    GenVal r = {0};
    r.is_array = is_array_soac(kind);
    snprintf(r.name, sizeof r.name, "%c%d", !r.is_array ? 's' : o ? 'b' : 'a', id + 1);
    r.elem = n.ty;
    r.producer = id;
    r.level = n.level;
    if (kind == LS_FILTER || kind == LS_PARTITION) r.cls = P->nclasses++;
    else if (r.is_array) r.cls = val(P, in[0])->cls;
    else r.cls = -1;
    n.out[o] = P->vals.n;
    nz_vec_push(P->vals, r);
  }
  nz_vec_push(P->nodes, n);
  return id;
}

static int add_node(GenPlan *P, LcuSoacKind kind, int nin, const int *in) {
  return add_node_counted(P, kind, nin, in, 0);
}

/* The first result of node n (call as first_out(P, add_node(...)): never
 * index P->nodes.v around add_node, which may move it). */
static int first_out(GenPlan *P, int n) { return P->nodes.v[n].out[0]; }

/* One result of node n, at random (PARTITION has two). */
static int some_output(GenPlan *P, int n) {
  GenNode *g = &P->nodes.v[n];
  return g->out[gen_below(P, g->nout)];
}

/* A SOAC drawn by the mix weights, optionally restricted to `allowed`
 * (a bit per gen_kinds index); MAP when the restriction leaves no weight. */
static LcuSoacKind pick_kind(GenPlan *P, unsigned allowed) {
  int total = 0;
  for (int k = 0; k < GEN_NKINDS; k++)
    if (allowed >> k & 1) total += P->spec->mix[k];
  if (total == 0) return LS_MAP;
  int r = gen_below(P, total);
  for (int k = 0; k < GEN_NKINDS; k++) {
    if (!(allowed >> k & 1)) continue;
    if (r < P->spec->mix[k]) return gen_kinds[k];
    r -= P->spec->mix[k];
  }
  nz_die("gen: pick_kind fell off the mix");
}

static unsigned kind_bit(LcuSoacKind k) {
  for (int i = 0; i < GEN_NKINDS; i++)
    if (gen_kinds[i] == k) return 1u << i;
  return 0;
}

/* ----------------------------------------- plan_random's value index

   plan_random picks values from large candidate sets (a level's arrays, every
   eligible earlier value) with one rule (pick_open_view), and building those lists
   for every invocation made the generator quadratic (30000 invocations: 3.3-4.7
   s). The index answers the same questions in logarithmic time, with the
   same answers in the same order, so the plans and the random stream are
   unchanged: values are kept in categories (all, arrays, scalars, arrays of
   one length class), each an increasing list of value indices with Fenwick
   trees counting its fresh and used values by position. */

enum { ST_FULL, ST_FRESH, ST_USED };

typedef struct {
  int n, cap;
  int *val;   /* value indices, increasing */
  int *fw[2]; /* 1-based Fenwick trees over positions: fresh, used */
} Cat;

typedef struct {
  Cat all, arr, scal;
  Cat *cls;
  int ncls;
  int *st, *pos_kind, *pos_cls, nv, capv; /* per value: state, position in arr or scal, in its class */
} GenIndex;

static int fw_prefix(const int *fw, int p) { /* sum of positions 1..p */
  int r = 0;
  for (; p > 0; p -= p & -p) r += fw[p];
  return r;
}

static void fw_add(int *fw, int n, int p, int d) {
  for (; p <= n; p += p & -p) fw[p] += d;
}

static int state_of(GenPlan *P, int v) {
  const GenVal *x = val(P, v);
  if (x->producer >= 0 && x->nconsumers >= P->spec->fanout) return ST_FULL;
  return x->nconsumers ? ST_USED : ST_FRESH;
}

/* Appends value v in state st; returns its position. */
static int cat_append(Cat *c, int v, int st) {
  if (c->n + 2 > c->cap) {
    c->cap = c->cap ? 2 * c->cap : 64;
    c->val = nz_xrealloc(c->val, sizeof(int) * (size_t)c->cap);
    for (int s = 0; s < 2; s++) c->fw[s] = nz_xrealloc(c->fw[s], sizeof(int) * (size_t)c->cap);
  }
  int p = ++c->n; /* the node at p covers positions (p - lowbit(p), p] */
  c->val[p - 1] = v;
  for (int s = 0; s < 2; s++)
    c->fw[s][p] = (st == s + 1) + fw_prefix(c->fw[s], p - 1) - fw_prefix(c->fw[s], p - (p & -p));
  return p - 1;
}

static void cat_change(Cat *c, int pos, int from, int to) {
  if (from != ST_FULL) fw_add(c->fw[from - 1], c->n, pos + 1, -1);
  if (to != ST_FULL) fw_add(c->fw[to - 1], c->n, pos + 1, 1);
}

static int cat_lower(const Cat *c, int x) { /* first position whose value index is >= x */
  int lo = 0, hi = c->n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (c->val[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static void cat_free(Cat *c) { free(c->val), free(c->fw[0]), free(c->fw[1]); }

static void ix_add(GenPlan *P, GenIndex *ix, int v) {
  if (v >= ix->capv) {
    ix->capv = 2 * (v + 1);
    ix->st = nz_xrealloc(ix->st, sizeof(int) * (size_t)ix->capv);
    ix->pos_kind = nz_xrealloc(ix->pos_kind, sizeof(int) * (size_t)ix->capv);
    ix->pos_cls = nz_xrealloc(ix->pos_cls, sizeof(int) * (size_t)ix->capv);
  }
  const GenVal *x = val(P, v);
  int st = ix->st[v] = state_of(P, v);
  cat_append(&ix->all, v, st);
  ix->pos_kind[v] = cat_append(x->is_array ? &ix->arr : &ix->scal, v, st);
  ix->pos_cls[v] = -1;
  if (x->is_array) {
    if (x->cls >= ix->ncls) {
      int n = 2 * (x->cls + 1);
      ix->cls = nz_xrealloc(ix->cls, sizeof(Cat) * (size_t)n);
      memset(ix->cls + ix->ncls, 0, sizeof(Cat) * (size_t)(n - ix->ncls));
      ix->ncls = n;
    }
    ix->pos_cls[v] = cat_append(&ix->cls[x->cls], v, st);
  }
  ix->nv = v + 1;
}

/* v's readers changed. */
static void ix_touch(GenPlan *P, GenIndex *ix, int v) {
  int from = ix->st[v], to = state_of(P, v);
  if (from == to) return;
  ix->st[v] = to;
  const GenVal *x = val(P, v);
  cat_change(&ix->all, v, from, to);
  cat_change(x->is_array ? &ix->arr : &ix->scal, ix->pos_kind[v], from, to);
  if (x->is_array) cat_change(&ix->cls[x->cls], ix->pos_cls[v], from, to);
}

static void ix_free(GenIndex *ix) {
  cat_free(&ix->all), cat_free(&ix->arr), cat_free(&ix->scal);
  for (int c = 0; c < ix->ncls; c++) cat_free(&ix->cls[c]);
  free(ix->cls), free(ix->st), free(ix->pos_kind), free(ix->pos_cls);
}

/* A candidate list as the picking rule sees it: the values at positions [lo, hi) of
 * one or two categories, in increasing value order, less the values in ex. */
typedef struct {
  int nparts;
  struct {
    const Cat *c;
    int lo, hi;
  } part[2];
  const int *ex;
  int nex;
} View;

/* Is value v among the view's parts (ignoring ex)? */
static int view_has(const GenIndex *ix, const View *w, int v) {
  for (int q = 0; q < w->nparts; q++) {
    const Cat *c = w->part[q].c;
    int pos = c == &ix->all ? v : c == &ix->arr || c == &ix->scal ? ix->pos_kind[v] : ix->pos_cls[v];
    if (pos >= 0 && pos < c->n && c->val[pos] == v && pos >= w->part[q].lo && pos < w->part[q].hi) return 1;
  }
  return 0;
}

/* How many of the view's values with index <= x (all: x = INT_MAX) are in state st. */
static int view_count(const GenIndex *ix, const View *w, int st, int x) {
  int n = 0;
  for (int q = 0; q < w->nparts; q++) {
    const Cat *c = w->part[q].c;
    int lo = w->part[q].lo, hi = w->part[q].hi;
    if (x != INT_MAX) {
      int u = cat_lower(c, x + 1);
      if (u < hi) hi = u;
    }
    if (hi > lo) n += fw_prefix(c->fw[st - 1], hi) - fw_prefix(c->fw[st - 1], lo);
  }
  for (int e = 0; e < w->nex; e++)
    if (w->ex[e] <= x && ix->st[w->ex[e]] == st && view_has(ix, w, w->ex[e])) n--;
  return n;
}

/* The k-th (from 0) of the view's values in state st, by value index. */
static int view_select(const GenIndex *ix, const View *w, int st, int k) {
  int lo = 0, hi = ix->nv - 1; /* the answer is the least x with count(<= x) > k */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (view_count(ix, w, st, mid) > k) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/* Picks one of the view's values that still has room: fewer than `fanout`
 * readers (inputs always have room). Among those, with probability `shared`
 * one that already has a reader (a sibling: a horizontal opportunity), else a
 * fresh one, each uniformly in value order. Returns -1 when none has room. */
static int pick_open_view(GenPlan *P, const GenIndex *ix, const View *w) {
  int nf = view_count(ix, w, ST_FRESH, INT_MAX), nu = view_count(ix, w, ST_USED, INT_MAX);
  if (!nf && !nu) return -1;
  int want_used = gen_chance(P, P->spec->shared);
  int used = (want_used && nu) || !nf;
  return view_select(ix, w, used ? ST_USED : ST_FRESH, gen_below(P, used ? nu : nf));
}

/* pick_open_view over positions [lo, hi) of one category, or when all are at
 * their fan-out, any of them. */
static int pick_value_range(GenPlan *P, const GenIndex *ix, const Cat *c, int lo, int hi) {
  if (hi <= lo) nz_die("gen: pick_value from nothing");
  View w = {1, {{c, lo, hi}}, NULL, 0};
  int r = pick_open_view(P, ix, &w);
  return r >= 0 ? r : c->val[lo + gen_below(P, hi - lo)];
}

/* Adds up to `want` more inputs to in[0..*nin) (at most `cap` in all), from
 * the values eligible as extra inputs of an invocation of `kind` at a level
 * whose values start at index vstart: ONCE any earlier value (arrays behind
 * a guard), the others arrays of the iterated class and scalars; always from
 * lower levels, so the invocation stays at its level. While some eligible
 * result has no reader yet, one more is added even beyond `want`: results
 * should have readers, not all end up as the region's outputs. */
static void add_extras(GenPlan *P, const GenIndex *ix, LcuSoacKind kind, int vstart, int *in, int *nin, int want,
                       int cap) {
  View w = {0};
  if (kind == LS_ONCE) {
    w.nparts = 1;
    w.part[0].c = &ix->all, w.part[0].lo = 0, w.part[0].hi = vstart;
  } else {
    int cls = val(P, in[0])->cls;
    w.nparts = 1;
    w.part[0].c = &ix->scal, w.part[0].lo = 0, w.part[0].hi = cat_lower(&ix->scal, vstart);
    if (cls < ix->ncls) {
      w.nparts = 2;
      w.part[1].c = &ix->cls[cls], w.part[1].lo = 0, w.part[1].hi = cat_lower(&ix->cls[cls], vstart);
    }
  }
  w.ex = in, w.nex = *nin;
  /* orphans: produced values without a reader, so fresh ones less the inputs */
  int orphans = view_count(ix, &w, ST_FRESH, INT_MAX);
  for (int r = 0; r < P->spec->sizes && r < vstart; r++) {
    int ex = 0;
    for (int e = 0; e < *nin; e++) ex |= in[e] == r;
    if (!ex && ix->st[r] == ST_FRESH && view_has(ix, &w, r)) orphans--;
  }
  if (orphans && want < 1) want = 1;
  for (; want > 0 && *nin < cap; want--) {
    w.nex = *nin; /* extras are optional: never beyond fanout */
    int v = pick_open_view(P, ix, &w);
    if (v < 0) break;
    in[(*nin)++] = v;
  }
}

/* ---------------------------------------------------------------- random */

/* A layered DAG: `chain` levels, each invocation at level d reads one result
 * of level d-1 (so the depth is exactly `chain`) and up to fanin-1 more values
 * from lower levels. Level 0 reads the inputs. No level is more than `fanout`
 * times as wide as the one before, and each level first reserves its level d-1
 * reads, then adds extras only where there is room: so no result gets more
 * than `fanout` readers. */
static void plan_random(GenPlan *P) {
  const GenSpec *s = P->spec;
  int N = s->kernels, L = s->chain ? s->chain : (N < 4 ? N : 4);
  GenIndex ix = {0};
  int *roots = nz_xmalloc(sizeof(int) * (size_t)s->sizes);
  for (int r = 0; r < s->sizes; r++) ix_add(P, &ix, roots[r] = new_input(P));
  /* Level widths: each invocation beyond the first per level goes to a level
   * drawn among those with room (level 0, or not yet fanout times as wide as
   * the one before), the room[] list in level order. The levels with room
   * are a Fenwick tree of flags, so drawing costs log L, not L. */
  int *cnt = nz_xcalloc((size_t)L, sizeof(int)), *fw = nz_xcalloc((size_t)L + 1, sizeof(int));
  char *has = nz_xcalloc((size_t)L, 1);
  for (int d = 0; d < L; d++) cnt[d] = 1;
#define ROOM(d) ((d) == 0 || (long)cnt[d] + 1 <= (long)s->fanout * cnt[(d) - 1])
#define SET_ROOM(d)                                                                                                    \
  do {                                                                                                                 \
    int r_ = ROOM(d);                                                                                                  \
    if (r_ != has[d]) fw_add(fw, L, (d) + 1, r_ - has[d]), has[d] = (char)r_;                                         \
  } while (0)
  for (int d = 0; d < L; d++) SET_ROOM(d);
  for (int j = L; j < N; j++) {
    int k = gen_below(P, fw_prefix(fw, L)), d = 0; /* level 0 always has room */
    for (int step = 1 << 30; step > 0; step >>= 1) /* the k-th level with room: Fenwick descent */
      if (d + step <= L && fw[d + step] <= k) d += step, k -= fw[d];
    cnt[d]++;
    SET_ROOM(d);
    if (d + 1 < L) SET_ROOM(d + 1);
  }
#undef ROOM
#undef SET_ROOM
  free(fw), free(has);
  int maxn = N, cap = s->fanin + 1;
  LcuSoacKind *kinds = nz_xmalloc(sizeof(LcuSoacKind) * (size_t)maxn);
  int *ins = nz_xmalloc(sizeof(int) * (size_t)maxn * (size_t)cap), *nins = nz_xmalloc(sizeof(int) * (size_t)maxn);
  int prev_first = 0; /* first node of level d-1 */
  for (int d = 0; d < L; d++) {
    int first = P->nodes.n;
    /* level d-1's values are the indices [vlo, vhi): nodes append their
     * results in order, level by level */
    int vhi = P->vals.n, vlo = d > 0 ? P->nodes.v[prev_first].out[0] : vhi;
    int alo = cat_lower(&ix.arr, vlo), ahi = cat_lower(&ix.arr, vhi);
    /* pass 1: every invocation of the level reserves the reads that pin its level */
    for (int m = 0; m < cnt[d]; m++) {
      LcuSoacKind kind = pick_kind(P, ~0u);
      int *in = ins + (size_t)m * (size_t)cap, nin = 0;
      if (d == 0) {
        in[nin++] = pick_value_range(P, &ix, &ix.all, roots[0], roots[0] + s->sizes); /* inputs come first */
      } else {
        View arrs = {1, {{&ix.arr, alo, ahi}}, NULL, 0};
        int a = kind == LS_ONCE ? -1 : pick_open_view(P, &ix, &arrs);
        if (kind != LS_ONCE && a < 0 && s->fanin < 2)
          kind = LS_ONCE; /* only ONCE reads a lone scalar within fanin=1 */
        if (kind == LS_ONCE) {
          in[nin++] = pick_value_range(P, &ix, &ix.all, vlo, vhi);
        } else if (a >= 0) {
          in[nin++] = a;
        } else {
          /* no level d-1 array with room: iterate over an older array (inputs
           * always have room) and read a level d-1 value as a capture */
          in[nin++] = pick_value_range(P, &ix, &ix.arr, 0, alo);
          in[nin++] = pick_value_range(P, &ix, &ix.all, vlo, vhi);
        }
      }
      for (int k = 0; k < nin; k++) {
        val(P, in[k])->nconsumers++;
        ix_touch(P, &ix, in[k]);
      }
      kinds[m] = kind;
      nins[m] = nin;
    }
    /* pass 2: extras where there is room, then the invocations themselves */
    for (int m = 0; m < cnt[d]; m++) {
      int *in = ins + (size_t)m * (size_t)cap, nin = nins[m], want = 1 + gen_below(P, s->fanin);
      add_extras(P, &ix, kinds[m], vhi, in, &nin, want - nin, s->fanin);
      int id = add_node_counted(P, kinds[m], nin, in, nins[m]);
      for (int k = nins[m]; k < nin; k++) ix_touch(P, &ix, in[k]);
      for (int o = 0; o < P->nodes.v[id].nout; o++) ix_add(P, &ix, P->nodes.v[id].out[o]);
    }
    prev_first = first;
  }
  ix_free(&ix);
  free(kinds);
  free(ins);
  free(nins);
  free(cnt);
  free(roots);
}

/* ----------------------------------------------------------------- chain */

/* ceil(kernels/chain) independent chains; each link reads only the previous
 * link's result (plus the chain's latest array when that result is a scalar
 * and the link iterates). Chain j starts from input j % sizes. */
static void plan_chain(GenPlan *P) {
  const GenSpec *s = P->spec;
  int N = s->kernels, L = s->chain ? s->chain : N;
  int nchains = (N + L - 1) / L;
  int nroots = nchains < s->sizes ? nchains : s->sizes;
  int *roots = nz_xmalloc(sizeof(int) * (size_t)nroots);
  for (int r = 0; r < nroots; r++) roots[r] = new_input(P);
  for (int j = 0; j < nchains; j++) {
    int len = N - j * L < L ? N - j * L : L;
    int prev = roots[j % nroots], lastarr = prev;
    for (int t = 0; t < len; t++) {
      LcuSoacKind kind = pick_kind(P, ~0u);
      int in[2], nin = 0;
      if (kind != LS_ONCE && !val(P, prev)->is_array) in[nin++] = lastarr;
      in[nin++] = prev;
      int n = add_node(P, kind, nin, in);
      prev = some_output(P, n);
      if (val(P, prev)->is_array) lastarr = prev;
    }
  }
  free(roots);
}

/* -------------------------------------------------------------- siblings */

/* `chain` groups (default 1) of siblings: every member of group 0 reads input
 * x0; every member of group g reads the array of group g-1's first member,
 * a MAP. Maximal horizontal opportunities among same-SOAC siblings. */
static void plan_siblings(GenPlan *P) {
  const GenSpec *s = P->spec;
  int N = s->kernels, L = s->chain ? s->chain : 1;
  int shared = new_input(P);
  for (int g = 0; g < L; g++) {
    int members = N / L + (g < N % L);
    int next = -1;
    for (int m = 0; m < members; m++) {
      LcuSoacKind kind = m == 0 && g + 1 < L ? LS_MAP : pick_kind(P, ~0u);
      int n = add_node(P, kind, 1, &shared);
      if (m == 0) next = P->nodes.v[n].out[0];
    }
    shared = next;
  }
}

/* --------------------------------------------------------------- diamond */

/* A top MAP, then diamonds: branches reading the top (MAP, PERMUTE, REDUCE or
 * SCAN by the mix), joined by a MAP reading every branch; the join is the next
 * diamond's top. Depth 2*diamonds+1. */
static void plan_diamond(GenPlan *P) {
  const GenSpec *s = P->spec;
  int N = s->kernels;
  int x = new_input(P);
  int top = first_out(P, add_node(P, LS_MAP, 1, &x));
  if (N == 1) return;
  if (N == 2) {
    add_node(P, pick_kind(P, kind_bit(LS_MAP) | kind_bit(LS_PERMUTE) | kind_bit(LS_REDUCE) |
                                 kind_bit(LS_SCAN)),
             1, &top);
    return;
  }
  int D;
  if (s->chain) {
    D = (s->chain - 1) / 2;
  } else {
    int w = s->fanin < 2 ? 2 : s->fanin;
    D = (N - 1) / (w + 1);
    if (D < 1) D = 1;
  }
  int B = N - 1 - D; /* branches in all; validation and the choice of D keep B >= D */
  unsigned allowed = kind_bit(LS_MAP) | kind_bit(LS_PERMUTE) | kind_bit(LS_REDUCE) | kind_bit(LS_SCAN);
  for (int d = 0; d < D; d++) {
    int w = B / D + (d < B % D);
    int *in = nz_xmalloc(sizeof(int) * (size_t)(w + 1));
    int nin = 1, firstarr = -1;
    for (int b = 0; b < w; b++) {
      int n = add_node(P, pick_kind(P, allowed), 1, &top);
      int o = P->nodes.v[n].out[0];
      if (val(P, o)->is_array && firstarr < 0) firstarr = o;
      else in[nin++] = o;
    }
    in[0] = firstarr >= 0 ? firstarr : top; /* the join iterates over the top's class */
    top = first_out(P, add_node(P, LS_MAP, nin, in));
    free(in);
  }
}

/* ------------------------------------------------------------------ trap */

/* The greedy trap (paper §8.1), explained in generators/README.md. A gadget
 * over its own input x, in this program order:
 *   M  = MAP(x)                 m
 *   R  = REDUCE(m, x)           M's nearest consumer, and a sibling of R2 (both read x)
 *   C1 = MAP(m), C2.. = FILTER, Cc = REDUCE      the chain M should fuse with
 *   R2 = REDUCE(x)              R's horizontal partner
 * R and C1 are siblings of different SOACs, so M fuses with one of them only.
 * Greedy takes M+R first (top-down: R is M's first consumer; bottom-up: R is
 * a leaf next to M, the chain reaches M last) and ends with {M,R} {C1..Cc}
 * {R2}, 3 kernels, where {M,C1..Cc} {R,R2} needs 2. Kernels left over after
 * the last whole gadget are more REDUCEs over the first gadget's input. */
static void plan_trap(GenPlan *P) {
  const GenSpec *s = P->spec;
  int N = s->kernels, L = s->chain ? s->chain : 4;
  if (L + 2 > N) L = N - 2;
  int G = N / (L + 2), left = N - G * (L + 2);
  int x0 = -1;
  for (int j = 0; j < G; j++) {
    int x = new_input(P);
    if (j == 0) x0 = x;
    int m = first_out(P, add_node(P, LS_MAP, 1, &x));
    int rin[2] = {m, x};
    add_node(P, LS_REDUCE, 2, rin);
    int c = L - 1, prev = m;
    for (int t = 1; t <= c; t++) {
      LcuSoacKind kind = t == 1 ? LS_MAP : t == c ? LS_REDUCE : LS_FILTER;
      prev = first_out(P, add_node(P, kind, 1, &prev));
    }
    add_node(P, LS_REDUCE, 1, &x);
  }
  for (int k = 0; k < left; k++) add_node(P, LS_REDUCE, 1, &x0); /* neutral: more R2s */
}

/* ----------------------------------------------------------------------- */

void gen_plan_build(GenPlan *P, const GenSpec *spec) {
  memset(P, 0, sizeof *P);
  P->spec = spec;
  /* mix the seed once so that nearby seeds give unrelated streams */
  P->rng = spec->seed ^ 0x6E65737369652D67ull; /* "nessie-g" */
  gen_rand(P);
  switch (spec->family) {
  case GEN_RANDOM: plan_random(P); break;
  case GEN_CHAIN: plan_chain(P); break;
  case GEN_SIBLINGS: plan_siblings(P); break;
  case GEN_DIAMOND: plan_diamond(P); break;
  case GEN_TRAP: plan_trap(P); break;
  default: nz_die("gen: unknown family %d", (int)spec->family);
  }
  if (P->nodes.n != spec->kernels)
    nz_die("gen: family %s made %d invocations, not %d", gen_family_name(spec->family),
           P->nodes.n, spec->kernels);
}

void gen_plan_free(GenPlan *P) {
  for (int n = 0; n < P->nodes.n; n++) free(P->nodes.v[n].in);
  nz_vec_free(P->nodes);
  nz_vec_free(P->vals);
}
