/* fus_region.c — finds the control regions of a prepared λcu program and builds
 * each one's dataflow graph: invocations with their SOAC, symbolic iteration
 * space, uses (and whether each is read elementwise at the consumer's own
 * index) and defs, and the variables live after the region. */
#include "fus_lcu.h"

typedef struct {
  LcuProgram *p;
  NZ_VEC(FusLcuRegion) regs;
} Scan;

/* ---------------------------------------------------------- scanning */

typedef struct {
  LcuFunc *func;
  LcuExpr **head;
  int nlets;
  NZ_VEC(FusLcuInv) inv;
} Open;

static void close_region(Scan *sc, Open *o) {
  if (o->inv.n > 0) {
    FusLcuRegion r = {0};
    r.func = o->func;
    r.head = o->head;
    r.nlets = o->nlets;
    r.ninv = o->inv.n;
    r.inv = o->inv.v;
    r.index = sc->regs.n;
    nz_vec_push(sc->regs, r);
  } else {
    nz_vec_free(o->inv);
  }
  memset(&o->inv, 0, sizeof o->inv);
  o->head = NULL;
  o->nlets = 0;
}

static void scan_chain(Scan *sc, LcuFunc *f, LcuExpr **slot);

static void scan_expr(Scan *sc, LcuFunc *f, LcuExpr **slot) {
  LcuExpr *e = *slot;
  if (e->kind == LE_LET || e->kind == LE_IF) {
    scan_chain(sc, f, slot);
    return;
  }
  for (int i = 0; i < e->nargs; i++) scan_expr(sc, f, &e->args[i]);
}

static void scan_chain(Scan *sc, LcuFunc *f, LcuExpr **slot) {
  Open o = {0};
  o.func = f;
  for (;;) {
    LcuExpr *e = *slot;
    if (e->kind != LE_LET) {
      close_region(sc, &o);
      if (e->kind == LE_IF) {
        scan_expr(sc, f, &e->args[0]);
        scan_chain(sc, f, &e->args[1]);
        scan_chain(sc, f, &e->args[2]);
      } else {
        scan_expr(sc, f, slot);
      }
      return;
    }
    int kind = fus_lcu_let_kind(e);
    if (kind == FUS_LET_BARRIER) {
      close_region(sc, &o);
      scan_expr(sc, f, &e->args[0]);
    } else {
      if (!o.head) o.head = slot;
      o.nlets++;
      if (kind == FUS_LET_INV) {
        FusLcuInv inv = {e, e->args[0]->target};
        nz_vec_push(o.inv, inv);
      }
    }
    slot = &e->args[1];
  }
}

/* ------------------------------------------------------ access patterns */

static int binds_name(const LcuExpr *e, const char *name) {
  if (e->kind == LE_LET)
    for (int i = 0; i < e->nbinds; i++)
      if (e->binds[i].name == name) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (binds_name(e->args[i], name)) return 1;
  return 0;
}

/* Every occurrence of x in e is x[idx] or #x. */
static int aligned(const LcuExpr *e, const char *x, const char *idx) {
  if (e->kind == LE_VAR) return e->name != x;
  if (e->kind == LE_INDEX && e->args[0]->kind == LE_VAR && e->args[0]->name == x)
    return e->args[1]->kind == LE_VAR && e->args[1]->name == idx;
  if (e->kind == LE_PRIM && e->prim == LP_LENGTH && e->args[0]->kind == LE_VAR && e->args[0]->name == x)
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (!aligned(e->args[i], x, idx)) return 0;
  return 1;
}

/* idx occurs only as the subscript of x[idx]. */
static int index_clean(const LcuExpr *e, const char *x, const char *idx) {
  if (e->kind == LE_VAR) return e->name != idx;
  if (e->kind == LE_INDEX && e->args[0]->kind == LE_VAR && e->args[0]->name == x && e->args[1]->kind == LE_VAR &&
      e->args[1]->name == idx)
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (!index_clean(e->args[i], x, idx)) return 0;
  return 1;
}

static int captures(const LcuThunk *t, const char *x) {
  for (int u = 0; u < t->nusing; u++)
    if (t->usings[u].name == x) return 1;
  return 0;
}

/* Thunk t of SOAC s iterates over s's index space (not a predicate, not ONCE). */
static int index_thunk(const LcuSoac *s, int t) {
  if (s->kind == LS_ONCE) return 0;
  if ((s->kind == LS_FILTER || s->kind == LS_PARTITION) && t == 1) return 0;
  return 1;
}

/* Is kernel parameter x read elementwise, at the SOAC's own index, by every
 * thunk that captures it? With `strict`, the index must also appear nowhere
 * else (needed when x comes from a FILTER or PERMUTE, whose element positions
 * differ from the consumer's fused index). */
static int iterated(const LcuSoac *s, const char *x, int strict) {
  for (int t = 0; t < s->nthunks; t++) {
    const LcuThunk *th = s->thunks[t];
    if (!captures(th, x)) continue;
    if (!index_thunk(s, t) || th->nparams != 1) return 0;
    const char *idx = th->params[0].name;
    if (binds_name(th->body, idx) || !aligned(th->body, x, idx)) return 0;
    if (strict && (!index_clean(th->body, x, idx) || fus_uses_length(th->body, x))) return 0;
  }
  return 1;
}

/* ------------------------------------------------------- symbolic sizes */

/* The right-hand sides of a function's one-name lets, by (interned) name: the
 * names in a scope index, their expressions in a vector beside it (entry k is
 * rhs.v[k]), built on the first lookup in a function (scalar_key). */
typedef struct {
  const LcuFunc *func;
  NzScopeIndex ix;
  NZ_VEC(const LcuExpr *) rhs;
} Defs;

typedef struct {
  FusLcuRegion *r;
  FusGraph *g;
  Defs *defs;
} Ctx;

/* The invocation of the region that binds `name`, or -1. Invocations enter
 * the graph in program order, so every name a later one reads is already
 * there with its producer; the graph's variable index makes this a lookup
 * (a scan of the region per call made building 10000 invocations
 * quadratic). */
static int producer_of(const Ctx *c, const char *name) {
  int v = fus_graph_find_var(c->g, name);
  return v < 0 ? -1 : c->g->var[v].producer;
}

/* The CPU variable passed for kernel parameter `param` of invocation i. */
static const char *arg_of(const FusLcuInv *inv, const char *param) {
  const LcuKernel *k = inv->kernel;
  for (int j = 0; j < k->nparams; j++)
    if (k->params[j].name == param) return inv->let->args[0]->args[j]->name;
  return NULL;
}

static const LcuType *arg_type(const FusLcuInv *inv, const char *param) {
  const LcuKernel *k = inv->kernel;
  for (int j = 0; j < k->nparams; j++)
    if (k->params[j].name == param) return k->params[j].ty;
  return NULL;
}

static const char *size_key(Ctx *c, int i, const LcuSize *z, int depth);
static const char *var_len_key(Ctx *c, const char *name, int depth);

/* The length of CPU array variable `name`, as a key. */
static const char *var_len_key(Ctx *c, const char *name, int depth) {
  int j = producer_of(c, name);
  if (j < 0 || depth > 64) return nz_sprintf(c->g->arena, "#%s", name);
  const LcuSoac *s = &c->r->inv[j].kernel->soacs[0];
  switch (s->kind) {
  case LS_MAP:
  case LS_SCAN:
  case LS_REDUCE: /* id components */
  case LS_SEGSCAN:
    return size_key(c, j, &s->size, depth + 1);
  case LS_PERMUTE:
    return size_key(c, j, s->outlen.kind != LZ_NONE ? &s->outlen : &s->size, depth + 1);
  case LS_SEGREDUCE: {
    const char *sd = arg_of(&c->r->inv[j], s->size.name);
    return nz_sprintf(c->g->arena, "#%s", sd ? sd : "?");
  }
  default: /* FILTER, PARTITION: known only at run time */
    return nz_sprintf(c->g->arena, "#%s", name);
  }
}

static void add_lets(Defs *d, const LcuExpr *e) {
  if (e->kind == LE_LET && e->nbinds == 1) { /* names are unique per function */
    nz_scope_push(&d->ix, e->binds[0].name);
    nz_vec_push(d->rhs, e->args[0]);
  }
  for (int i = 0; i < e->nargs; i++) add_lets(d, e->args[i]);
}

/* The expression bound to `name` in the region's function, or NULL. */
static const LcuExpr *def_rhs(Ctx *c, const char *name) {
  Defs *d = c->defs;
  if (d->func != c->r->func) {
    nz_scope_pop_to(&d->ix, 0);
    d->rhs.n = 0;
    d->func = c->r->func;
    add_lets(d, c->r->func->body);
  }
  int k = nz_scope_find(&d->ix, name, d->ix.n);
  return k < 0 ? NULL : d->rhs.v[k];
}

/* An int CPU variable used as a size: follow its definition through copies,
 * literals, #x and seg_total(sd) (names are unique per function). */
static const char *scalar_key(Ctx *c, const char *a, int depth) {
  const LcuExpr *rhs = depth < 64 ? def_rhs(c, a) : NULL;
  if (!rhs) return a;
  switch (rhs->kind) {
  case LE_INT:
    return nz_sprintf(c->g->arena, "%d", (int)rhs->lit.i);
  case LE_VAR:
    return scalar_key(c, rhs->name, depth + 1);
  case LE_PRIM:
    if (rhs->args[0]->kind != LE_VAR) return a;
    if (rhs->prim == LP_SEG_TOTAL) return nz_sprintf(c->g->arena, "total(%s)", rhs->args[0]->name);
    if (rhs->prim == LP_LENGTH) {
      const LcuType *t = rhs->args[0]->ty;
      if (t && t->kind == LT_SEGDES) return nz_sprintf(c->g->arena, "#%s", rhs->args[0]->name);
      return var_len_key(c, rhs->args[0]->name, depth + 1);
    }
    return a;
  default:
    return a;
  }
}

static const char *size_key(Ctx *c, int i, const LcuSize *z, int depth) {
  const FusLcuInv *inv = &c->r->inv[i];
  const LcuSoac *s = &inv->kernel->soacs[0];
  int seg = s->kind == LS_SEGREDUCE || s->kind == LS_SEGSCAN;
  switch (z->kind) {
  case LZ_LIT:
    return nz_sprintf(c->g->arena, "%d", (int)z->lit);
  case LZ_VAR: {
    const char *a = arg_of(inv, z->name);
    if (!a) return NULL;
    if (seg && z == &s->size) return nz_sprintf(c->g->arena, "total(%s)", a);
    return scalar_key(c, a, depth);
  }
  case LZ_LEN: {
    const char *a = arg_of(inv, z->name);
    const LcuType *t = arg_type(inv, z->name);
    if (!a) return NULL;
    if (t && t->kind == LT_SEGDES) return nz_sprintf(c->g->arena, "#%s", a);
    return var_len_key(c, a, depth);
  }
  default:
    return NULL;
  }
}

/* ------------------------------------------------------------- graphs */

static void collect_vars(const LcuExpr *e, FusNames *set) {
  if (e->kind == LE_VAR) fus_names_add(set, e->name);
  for (int i = 0; i < e->nargs; i++) collect_vars(e->args[i], set);
}

static FusGraph *build_graph(FusLcuRegion *r, Defs *defs) {
  FusGraph *g = fus_graph_new();
  Ctx c = {r, g, defs};
  for (int i = 0; i < r->ninv; i++) {
    const FusLcuInv *inv = &r->inv[i];
    const LcuKernel *k = inv->kernel;
    const LcuSoac *s = &k->soacs[0];
    const LcuExpr *run = inv->let->args[0];
    NZ_VEC(FusUse) uses = {0};
    for (int a = 0; a < run->nargs; a++) {
      const char *name = run->args[a]->name;
      const LcuType *ty = k->params[a].ty;
      int v = fus_graph_var(g, name, ty->kind == LT_ARRAY);
      int pj = producer_of(&c, name), strict = 0;
      if (pj >= 0) {
        const LcuSoac *ps = &r->inv[pj].kernel->soacs[0];
        strict = ps->kind == LS_FILTER || ps->kind == LS_PARTITION || ps->kind == LS_PERMUTE;
      }
      int it = ty->kind == LT_ARRAY && iterated(s, k->params[a].name, strict);
      if (it && strict) {
        /* FILTER/PERMUTE into a consumer: it must iterate over exactly that
         * array, a PERMUTE must be a plain permutation, and no `id` reduction
         * may observe element order. */
        const LcuSoac *ps = &r->inv[pj].kernel->soacs[0];
        if (s->size.kind != LZ_LEN || arg_of(inv, s->size.name) == NULL ||
            producer_of(&c, arg_of(inv, s->size.name)) != pj)
          it = 0;
        if (ps->kind == LS_PERMUTE && ps->outlen.kind != LZ_NONE) it = 0;
        for (int q = 0; q < s->nrops; q++)
          if (s->rops[q] == LR_ID) it = 0;
      }
      int dup = 0;
      for (int q = 0; q < uses.n; q++)
        if (uses.v[q].var == v) {
          uses.v[q].iter &= it;
          dup = 1;
        }
      if (!dup) {
        FusUse u = {v, it};
        nz_vec_push(uses, u);
      }
    }
    int *defs = nz_xcalloc((size_t)inv->let->nbinds, sizeof(int));
    for (int b = 0; b < inv->let->nbinds; b++) {
      const LcuType *t = lcu_type_component(k->ret, b);
      defs[b] = fus_graph_var(g, inv->let->binds[b].name, t->kind == LT_ARRAY);
    }
    int size = FUS_UNKNOWN;
    if (s->kind != LS_ONCE) {
      const char *key = size_key(&c, i, &s->size, 0);
      if (key) size = fus_graph_size(g, key);
    }
    int id = fus_graph_inv(g, k->name, s->kind, size, uses.n, uses.v, inv->let->nbinds, defs);
    for (int q = 0; q < s->nrops; q++)
      if (s->rops[q] == LR_FADD || s->rops[q] == LR_FMUL || s->rops[q] == LR_FMAX || s->rops[q] == LR_FMIN)
        g->inv[id].float_reduce = 1;
    free(defs);
    nz_vec_free(uses);
  }
  /* Live out: defs named anywhere after the region (names are unique per
   * function, so any occurrence is a use of this definition). */
  LcuExpr *last = *r->head;
  for (int l = 1; l < r->nlets; l++) last = last->args[1];
  FusNames *after = fus_names_empty();
  collect_vars(last->args[1], after);
  for (int v = 0; v < g->nvar; v++)
    if (g->var[v].name && fus_names_has(after, nz_intern_cstr(g->var[v].name))) fus_graph_live_out(g, v);
  fus_names_free(after);
  if (fus_graph_finish(g) != 0) nz_die("region %d of %s: inconsistent dataflow graph", r->index, r->func->name);
  return g;
}

FusLcuRegions *fus_lcu_regions(LcuProgram *p) {
  Scan sc = {p, {0}};
  for (int f = 0; f < p->nfuncs; f++) scan_chain(&sc, p->funcs[f], &p->funcs[f]->body);
  FusLcuRegions *rs = nz_xcalloc(1, sizeof *rs);
  rs->n = sc.regs.n;
  rs->r = sc.regs.v;
  Defs defs = {0}; /* kept while consecutive regions share their function */
  FusShapes *sh = fus_shapes_new();
  for (int i = 0; i < rs->n; i++) {
    FusGraph *g = rs->r[i].graph = build_graph(&rs->r[i], &defs);
    g->space_expr = NZ_NEWN(g->arena, const char *, g->ninv ? g->ninv : 1);
    g->space_value = NZ_NEWN(g->arena, double, g->ninv ? g->ninv : 1);
    fus_shapes_region(sh, &rs->r[i], g->space_expr, g->space_value, g->arena);
  }
  fus_shapes_free(sh);
  nz_scope_free(&defs.ix);
  nz_vec_free(defs.rhs);
  return rs;
}

void fus_lcu_regions_free(FusLcuRegions *rs) {
  if (!rs) return;
  for (int i = 0; i < rs->n; i++) {
    free(rs->r[i].inv);
    fus_graph_free(rs->r[i].graph);
  }
  free(rs->r);
  free(rs);
}
