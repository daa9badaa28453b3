/* graph.c — a control region's dataflow graph: invocations, the variables they
 * use and define, the `into` relation and its transitive closure (dataflow
 * independence), plus a small text form for tests and experiments. */
#include "fusion.h"

#include <ctype.h>

FusGraph *fus_graph_new(void) {
  FusGraph *g = nz_xcalloc(1, sizeof *g);
  g->arena = nz_arena_new();
  return g;
}

void fus_graph_free(FusGraph *g) {
  if (!g) return;
  for (int i = 0; i < g->ninv; i++) {
    free(g->inv[i].uses);
    free(g->inv[i].defs);
  }
  for (int v = 0; v < g->nvar; v++) free(g->var[v].consumers);
  free(g->inv);
  free(g->var);
  free(g->size_names);
  free(g->vhash);
  free(g->into);
  free(g->path);
  nz_arena_free(g->arena);
  free(g);
}

static void not_finished(const FusGraph *g, const char *what) {
  if (g->finished) nz_die("fusion graph: %s after fus_graph_finish", what);
}

int fus_graph_size(FusGraph *g, const char *name) {
  for (int s = 0; s < g->nsize; s++)
    if (strcmp(g->size_names[s], name) == 0) return s;
  if (g->nsize == g->capsize) {
    g->capsize = g->capsize ? 2 * g->capsize : 8;
    g->size_names = nz_xrealloc(g->size_names, sizeof(char *) * (size_t)g->capsize);
  }
  g->size_names[g->nsize] = nz_strndup(g->arena, name, strlen(name));
  return g->nsize++;
}

static size_t name_hash(const char *s) { return (size_t)nz_fnv1a(NZ_FNV_SEED, s, strlen(s)); }

/* The slot of `name` in the variable index: its entry, or the empty slot
 * where it would go. */
static size_t var_slot(const FusGraph *g, const char *name) {
  size_t h = name_hash(name) & (size_t)(g->vhcap - 1);
  while (g->vhash[h] && strcmp(g->var[g->vhash[h] - 1].name, name) != 0) h = (h + 1) & (size_t)(g->vhcap - 1);
  return h;
}

int fus_graph_find_var(const FusGraph *g, const char *name) {
  if (!g->vhcap) return -1;
  size_t h = var_slot(g, name);
  return g->vhash[h] - 1;
}

int fus_graph_var(FusGraph *g, const char *name, int is_array) {
  int v = fus_graph_find_var(g, name);
  if (v >= 0) return v;
  not_finished(g, "new variable");
  if (g->nvar == g->capvar) {
    g->capvar = g->capvar ? 2 * g->capvar : 16;
    g->var = nz_xrealloc(g->var, sizeof(FusVar) * (size_t)g->capvar);
  }
  FusVar *x = &g->var[g->nvar];
  memset(x, 0, sizeof *x);
  x->name = nz_strndup(g->arena, name, strlen(name));
  x->is_array = is_array;
  x->producer = -1;
  if ((g->nvar + 1) * 2 > g->vhcap) { /* the index at most half full */
    free(g->vhash);
    g->vhcap = g->vhcap ? 2 * g->vhcap : 64;
    g->vhash = nz_xcalloc((size_t)g->vhcap, sizeof(int));
    for (int v = 0; v < g->nvar; v++) g->vhash[var_slot(g, g->var[v].name)] = v + 1;
  }
  g->vhash[var_slot(g, x->name)] = g->nvar + 1;
  return g->nvar++;
}

void fus_graph_live_out(FusGraph *g, int var) {
  if (var < 0 || var >= g->nvar) nz_die("fus_graph_live_out: no variable %d", var);
  g->var[var].live_out = 1;
}

int fus_graph_inv(FusGraph *g, const char *name, LcuSoacKind soac, int size, int nuses,
                  const FusUse *uses, int ndefs, const int *defs) {
  not_finished(g, "new invocation");
  if (g->ninv == g->capinv) {
    g->capinv = g->capinv ? 2 * g->capinv : 16;
    g->inv = nz_xrealloc(g->inv, sizeof(FusInv) * (size_t)g->capinv);
  }
  int id = g->ninv++;
  FusInv *I = &g->inv[id];
  I->name = nz_strndup(g->arena, name, strlen(name));
  I->soac = soac;
  I->float_reduce = 0;
  I->size = soac == LS_ONCE ? FUS_UNKNOWN : size;
  /* Distinct uses; a variable used both ways counts as iterated only if every
   * use is (a gather somewhere forbids elementwise fusion). */
  I->uses = nz_xmalloc(sizeof(FusUse) * (size_t)(nuses ? nuses : 1));
  I->nuses = 0;
  for (int u = 0; u < nuses; u++) {
    if (uses[u].var < 0 || uses[u].var >= g->nvar) nz_die("fus_graph_inv: bad use %d", uses[u].var);
    int k = 0;
    while (k < I->nuses && I->uses[k].var != uses[u].var) k++;
    if (k < I->nuses)
      I->uses[k].iter = I->uses[k].iter && uses[u].iter;
    else
      I->uses[I->nuses++] = uses[u];
  }
  I->defs = nz_xmalloc(sizeof(int) * (size_t)(ndefs ? ndefs : 1));
  I->ndefs = ndefs;
  for (int d = 0; d < ndefs; d++) {
    int v = defs[d];
    if (v < 0 || v >= g->nvar) nz_die("fus_graph_inv: bad def %d", v);
    if (g->var[v].producer >= 0)
      nz_die("fus_graph_inv: %s defined twice in a region", g->var[v].name);
    g->var[v].producer = id;
    I->defs[d] = v;
  }
  return id;
}

static uint64_t *row(const FusGraph *g, uint64_t *m, int i) { return m + (size_t)i * (size_t)g->words; }
static int bit(const FusGraph *g, const uint64_t *m, int i, int j) {
  return (int)((m[(size_t)i * (size_t)g->words + (size_t)(j >> 6)] >> (j & 63)) & 1u);
}

int fus_graph_finish(FusGraph *g) {
  if (g->finished) return 0;
  for (int i = 0; i < g->ninv; i++)
    for (int u = 0; u < g->inv[i].nuses; u++) {
      int v = g->inv[i].uses[u].var;
      if (g->var[v].producer >= i) {
        nz_error("fusion graph: %s uses %s before it is defined", g->inv[i].name, g->var[v].name);
        return -1;
      }
    }
  /* Consumers, in increasing invocation order (we scan invocations in order). */
  for (int i = 0; i < g->ninv; i++)
    for (int u = 0; u < g->inv[i].nuses; u++) {
      FusVar *x = &g->var[g->inv[i].uses[u].var];
      x->consumers = nz_xrealloc(x->consumers, sizeof(int) * (size_t)(x->nconsumers + 1));
      x->consumers[x->nconsumers++] = i;
    }
  g->words = (g->ninv + 63) / 64;
  if (g->words == 0) g->words = 1;
  size_t cells = (size_t)g->words * (size_t)(g->ninv ? g->ninv : 1);
  g->into = nz_xcalloc(cells, sizeof(uint64_t));
  g->path = nz_xcalloc(cells, sizeof(uint64_t));
  for (int v = 0; v < g->nvar; v++) {
    int p = g->var[v].producer;
    if (p < 0) continue;
    for (int c = 0; c < g->var[v].nconsumers; c++) {
      int j = g->var[v].consumers[c];
      row(g, g->into, p)[j >> 6] |= (uint64_t)1 << (j & 63);
    }
  }
  /* Closure in reverse topological order: path(i) = ∪ over successors j of
   * {j} ∪ path(j). Successors come from i's row of into a word at a time,
   * and every bit of row j lies at j or after, so the union starts at j's
   * word (testing every bit of every row was most of building a graph of
   * 30000 invocations: 0.3 s, now 0.03 s). */
  for (int i = g->ninv - 1; i >= 0; i--) {
    uint64_t *pi = row(g, g->path, i);
    const uint64_t *ii = row(g, g->into, i);
    for (int w = i >> 6; w < g->words; w++) pi[w] = ii[w];
    for (int x = i >> 6; x < g->words; x++)
      for (uint64_t b = ii[x]; b; b &= b - 1) {
        int j = x * 64 + __builtin_ctzll(b);
        const uint64_t *pj = row(g, g->path, j);
        for (int w = j >> 6; w < g->words; w++) pi[w] |= pj[w];
      }
  }
  g->finished = 1;
  return 0;
}

static void need_finished(const FusGraph *g) {
  if (!g->finished) nz_die("fusion graph queried before fus_graph_finish");
}

int fus_into(const FusGraph *g, int i, int j) {
  need_finished(g);
  return bit(g, g->into, i, j);
}

int fus_path(const FusGraph *g, int i, int j) {
  need_finished(g);
  return bit(g, g->path, i, j);
}

int fus_indep(const FusGraph *g, int i, int j) {
  return i != j && !fus_path(g, i, j) && !fus_path(g, j, i);
}

int fus_uses(const FusGraph *g, int i, int v) {
  const FusInv *I = &g->inv[i];
  for (int u = 0; u < I->nuses; u++)
    if (I->uses[u].var == v) return I->uses[u].iter;
  return -1;
}

/* ------------------------------------------------------------ text form */

typedef struct {
  const char *s, *what;
  int line;
  char tok[128];
} Lex;

static void skip_space(Lex *L) {
  for (;;) {
    while (*L->s == ' ' || *L->s == '\t' || *L->s == '\r') L->s++;
    if (*L->s == '#') {
      while (*L->s && *L->s != '\n') L->s++;
      continue;
    }
    return;
  }
}

static int is_name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '\''; }

/* Reads a name into L->tok; 0 if none here. */
static int lex_name(Lex *L) {
  skip_space(L);
  size_t n = 0;
  while (is_name_char(*L->s) && n + 1 < sizeof L->tok) L->tok[n++] = *L->s++;
  L->tok[n] = 0;
  return n > 0;
}

static int lex_char(Lex *L, char c) {
  skip_space(L);
  if (*L->s != c) return 0;
  L->s++;
  return 1;
}

static int lex_arrow(Lex *L) {
  skip_space(L);
  if (L->s[0] == '-' && L->s[1] == '>') {
    L->s += 2;
    return 1;
  }
  return 0;
}

static int at_end_of_stmt(Lex *L) {
  skip_space(L);
  return *L->s == 0 || *L->s == '\n' || *L->s == ';';
}

static FusGraph *parse_fail(Lex *L, FusGraph *g, const char *msg) {
  fprintf(stderr, "%s:%d: error: %s\n", L->what, L->line, msg);
  fus_graph_free(g);
  return NULL;
}

FusGraph *fus_graph_parse(const char *text, const char *what) {
  FusGraph *g = fus_graph_new();
  Lex L = {.s = text, .what = what, .line = 1};
  NZ_VEC(FusUse) uses = {0};
  NZ_VEC(int) defs = {0};
  NZ_VEC(int) outs = {0};
  FusGraph *result = g;
  char err[256];
  for (;;) {
    skip_space(&L);
    if (*L.s == 0) break;
    if (*L.s == '\n' || *L.s == ';') {
      if (*L.s == '\n') L.line++;
      L.s++;
      continue;
    }
    if (!lex_name(&L)) {
      snprintf(err, sizeof err, "expected an invocation name or 'out', found '%c'", *L.s);
      result = parse_fail(&L, g, err);
      break;
    }
    if (strcmp(L.tok, "out") == 0) {
      while (!at_end_of_stmt(&L)) {
        lex_char(&L, ',');
        if (!lex_name(&L)) {
          result = parse_fail(&L, g, "expected a variable after 'out'");
          goto done;
        }
        nz_vec_push(outs, fus_graph_var(g, L.tok, L.tok[0] != '$'));
      }
      continue;
    }
    char name[128];
    snprintf(name, sizeof name, "%s", L.tok);
    if (!lex_name(&L) || lcu_soac_lookup(L.tok) < 0) {
      snprintf(err, sizeof err, "expected a SOAC (MAP, REDUCE, ...) after %s", name);
      result = parse_fail(&L, g, err);
      break;
    }
    LcuSoacKind soac = (LcuSoacKind)lcu_soac_lookup(L.tok);
    int size = FUS_UNKNOWN;
    if (soac != LS_ONCE) {
      if (!lex_char(&L, '(')) {
        result = parse_fail(&L, g, "expected '(' and a size after the SOAC");
        break;
      }
      while (*L.s == ' ' || *L.s == '\t') L.s++;
      int len_of = *L.s == '#'; /* (#xs): '#' is not a comment here */
      if (len_of) L.s++;
      if (!len_of && lex_char(&L, '?'))
        size = FUS_UNKNOWN;
      else if (lex_name(&L)) {
        char sz[130];
        snprintf(sz, sizeof sz, "%s%s", len_of ? "#" : "", L.tok);
        size = fus_graph_size(g, sz);
      }
      else {
        result = parse_fail(&L, g, "expected a size name or '?'");
        break;
      }
      if (!lex_char(&L, ')')) {
        result = parse_fail(&L, g, "expected ')' after the size");
        break;
      }
    }
    if (!lex_char(&L, ':')) {
      result = parse_fail(&L, g, "expected ':' before the uses");
      break;
    }
    uses.n = defs.n = 0;
    while (!lex_arrow(&L)) {
      lex_char(&L, ',');
      if (!lex_name(&L)) {
        result = parse_fail(&L, g, "expected a variable or '->'");
        goto done;
      }
      int v = fus_graph_var(g, L.tok, L.tok[0] != '$');
      int iter = lex_char(&L, '*');
      nz_vec_push(uses, ((FusUse){v, iter}));
    }
    while (!at_end_of_stmt(&L)) {
      lex_char(&L, ',');
      if (!lex_name(&L)) {
        result = parse_fail(&L, g, "expected a defined variable");
        goto done;
      }
      int v = fus_graph_var(g, L.tok, L.tok[0] != '$');
      if (g->var[v].producer >= 0) {
        snprintf(err, sizeof err, "%s is defined twice", L.tok);
        result = parse_fail(&L, g, err);
        goto done;
      }
      for (int u = 0; u < g->ninv; u++)
        if (fus_uses(g, u, v) >= 0) {
          snprintf(err, sizeof err, "%s is used before it is defined", L.tok);
          result = parse_fail(&L, g, err);
          goto done;
        }
      nz_vec_push(defs, v);
    }
    fus_graph_inv(g, name, soac, size, uses.n, uses.v, defs.n, defs.v);
  }
  if (!result) goto done; /* a `break` out of the loop after parse_fail freed g */
  for (int k = 0; k < outs.n; k++) fus_graph_live_out(g, outs.v[k]);
  if (fus_graph_finish(g) != 0) {
    fus_graph_free(g);
    result = NULL;
  }
done:
  nz_vec_free(uses);
  nz_vec_free(defs);
  nz_vec_free(outs);
  return result;
}

/* A variable as the text form spells it: scalars carry a '$' (graphs built
 * from λcu name them without one), so printing and parsing keep is_array. */
static void put_var(NzBuf *b, const FusVar *x) {
  nz_buf_printf(b, "%s%s", !x->is_array && x->name[0] != '$' ? "$" : "", x->name);
}

void fus_graph_print(NzBuf *b, const FusGraph *g) {
  for (int i = 0; i < g->ninv; i++) {
    const FusInv *I = &g->inv[i];
    nz_buf_printf(b, "%s %s", I->name, lcu_soac_name(I->soac));
    if (I->soac != LS_ONCE)
      nz_buf_printf(b, "(%s)", I->size == FUS_UNKNOWN ? "?" : g->size_names[I->size]);
    nz_buf_puts(b, ":");
    for (int u = 0; u < I->nuses; u++) {
      nz_buf_puts(b, u ? ", " : " ");
      put_var(b, &g->var[I->uses[u].var]);
      if (I->uses[u].iter) nz_buf_putc(b, '*');
    }
    nz_buf_puts(b, " ->");
    for (int d = 0; d < I->ndefs; d++) {
      nz_buf_puts(b, d ? ", " : " ");
      put_var(b, &g->var[I->defs[d]]);
    }
    nz_buf_puts(b, "\n");
  }
  int any = 0;
  for (int v = 0; v < g->nvar; v++)
    if (g->var[v].live_out) {
      nz_buf_puts(b, any ? " " : "out ");
      put_var(b, &g->var[v]);
      any = 1;
    }
  if (any) nz_buf_puts(b, "\n");
}
