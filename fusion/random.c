/* random.c — random regions for property tests (ILP against exhaustive search,
 * greedy legality): mixed SOACs over a small pool of symbolic sizes (some
 * unknown, to exercise the shared-input proxy), chains and fan-out over recent
 * arrays, scalars flowing between REDUCE/ONCE and the rest, random live-outs. */
#include "fusion.h"

typedef struct {
  uint64_t s;
} Rng;

static uint64_t next(Rng *r) { /* splitmix64 */
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static int below(Rng *r, int n) { return (int)(next(r) % (uint64_t)n); }
static int chance(Rng *r, int percent) { return below(r, 100) < percent; }

static LcuSoacKind pick_soac(Rng *r) {
  static const struct {
    LcuSoacKind k;
    int w;
  } table[] = {{LS_MAP, 44}, {LS_REDUCE, 11}, {LS_FILTER, 9}, {LS_ONCE, 8},     {LS_PERMUTE, 8},
               {LS_SCAN, 6}, {LS_SEGREDUCE, 5}, {LS_SEGSCAN, 5}, {LS_PARTITION, 4}};
  int total = 0;
  for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) total += table[t].w;
  int x = below(r, total);
  for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) {
    if (x < table[t].w) return table[t].k;
    x -= table[t].w;
  }
  return LS_MAP;
}

FusGraph *fus_graph_random(uint64_t seed, int n) {
  Rng r = {seed * 2654435761u + 1};
  FusGraph *g = fus_graph_new();
  NZ_VEC(int) arrays = {0};  /* available array variables */
  NZ_VEC(int) scalars = {0}; /* available scalar variables */
  NZ_VEC(int) len = {0};     /* len.v[var]: length's size id, FUS_UNKNOWN */
  char name[32];
  int sizes[3] = {fus_graph_size(g, "n"), fus_graph_size(g, "m"), fus_graph_size(g, "p")};
  int ninputs = 1 + below(&r, 3);
  for (int k = 0; k < ninputs; k++) {
    snprintf(name, sizeof name, "x%d", k);
    int v = fus_graph_var(g, name, 1);
    while (len.n <= v) nz_vec_push(len, FUS_UNKNOWN);
    len.v[v] = chance(&r, 10) ? FUS_UNKNOWN : sizes[chance(&r, 60) ? 0 : below(&r, 3)];
    nz_vec_push(arrays, v);
  }
  {
    int v = fus_graph_var(g, "$c", 0);
    while (len.n <= v) nz_vec_push(len, FUS_UNKNOWN);
    nz_vec_push(scalars, v);
  }
  FusUse uses[8];
  int defs[4];
  for (int i = 0; i < n; i++) {
    LcuSoacKind k = pick_soac(&r);
    int nu = 0, nd = 0, size = FUS_UNKNOWN;
    if (k == LS_ONCE) {
      uses[nu++] = (FusUse){scalars.v[below(&r, scalars.n)], 0};
      if (chance(&r, 40)) uses[nu++] = (FusUse){scalars.v[scalars.n - 1 - below(&r, scalars.n < 3 ? scalars.n : 3)], 0};
      if (chance(&r, 25)) uses[nu++] = (FusUse){arrays.v[below(&r, arrays.n)], 0};
    } else {
      /* The iterated input, biased towards recent arrays to make chains. */
      int a = chance(&r, 70) ? arrays.v[arrays.n - 1 - below(&r, arrays.n < 4 ? arrays.n : 4)]
                             : arrays.v[below(&r, arrays.n)];
      size = len.v[a];
      uses[nu++] = (FusUse){a, 1};
      int extra = below(&r, 3);
      for (int e = 0; e < extra; e++) {
        int b = arrays.v[below(&r, arrays.n)];
        int same = size != FUS_UNKNOWN && len.v[b] == size;
        uses[nu++] = (FusUse){b, same && chance(&r, 80)};
      }
      if (chance(&r, 25)) uses[nu++] = (FusUse){scalars.v[below(&r, scalars.n)], 0};
    }
    int outs = 1;
    int is_array = 1, outlen = size;
    switch (k) {
    case LS_ONCE: is_array = 0; break;
    case LS_REDUCE: is_array = chance(&r, 10); break;
    case LS_MAP: outs = chance(&r, 20) ? 2 : 1; break;
    case LS_PERMUTE: outlen = chance(&r, 75) ? size : sizes[below(&r, 3)]; break;
    case LS_FILTER:
    case LS_PARTITION:
    case LS_SEGREDUCE:
      /* A fresh length, known to be its own (or, sometimes, unknown). */
      snprintf(name, sizeof name, "#%d", i);
      outlen = chance(&r, 25) ? FUS_UNKNOWN : fus_graph_size(g, name);
      outs = k == LS_PARTITION ? 2 : 1;
      break;
    default: break;
    }
    for (int o = 0; o < outs; o++) {
      snprintf(name, sizeof name, is_array ? "%c%d" : "$%c%d", "abcd"[o], i);
      int v = fus_graph_var(g, name, is_array);
      while (len.n <= v) nz_vec_push(len, FUS_UNKNOWN);
      len.v[v] = is_array ? outlen : FUS_UNKNOWN;
      defs[nd++] = v;
      if (is_array)
        nz_vec_push(arrays, v);
      else
        nz_vec_push(scalars, v);
    }
    snprintf(name, sizeof name, "k%d", i);
    fus_graph_inv(g, name, k, size, nu, uses, nd, defs);
  }
  /* Live-outs: some results at random; most of what nobody reads (the rest is
   * dead code, which a region may contain). */
  for (int v = 0; v < g->nvar; v++) {
    if (g->var[v].producer < 0) continue;
    int read = 0;
    for (int i = 0; i < g->ninv && !read; i++) read = fus_uses(g, i, v) >= 0;
    if (chance(&r, read ? 20 : 80)) fus_graph_live_out(g, v);
  }
  nz_vec_free(arrays);
  nz_vec_free(scalars);
  nz_vec_free(len);
  if (fus_graph_finish(g) != 0) nz_die("fus_graph_random: inconsistent graph");
  return g;
}
