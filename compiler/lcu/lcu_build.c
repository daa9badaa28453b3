/* lcu_build.c — constructors for λcu nodes; every producer of λcu (parser,
 * lowering, fusion, generators) builds through these. */
#include "lcu.h"

#include <stdint.h>

LcuProgram *lcu_program_new(const NzSource *src) {
  NzArena *a = nz_arena_new();
  LcuProgram *p = NZ_NEW(a, LcuProgram);
  p->arena = a;
  p->src = src;
  return p;
}

void lcu_program_free(LcuProgram *p) {
  if (!p) return;
  free(p->kernels);
  free(p->funcs);
  free(p->kix);
  nz_arena_free(p->arena);
}

LcuBinder *lcu_binders(LcuProgram *p, int n) {
  LcuBinder *b = NZ_NEWN(p->arena, LcuBinder, n ? n : 1);
  for (int i = 0; i < n; i++) b[i].slot = -1;
  return b;
}

LcuExpr **lcu_exprs(LcuProgram *p, int n) { return NZ_NEWN(p->arena, LcuExpr *, n ? n : 1); }

LcuBinder lcu_binder(const char *name, const LcuType *ty, NzLoc loc) {
  LcuBinder b = {nz_intern_cstr(name), loc, ty, -1};
  return b;
}

LcuExpr *lcu_expr_new(LcuProgram *p, LcuExprKind k, NzLoc loc) {
  LcuExpr *e = NZ_NEW(p->arena, LcuExpr);
  e->kind = k;
  e->loc = loc;
  e->slot = -1;
  return e;
}

LcuExpr *lcu_int(LcuProgram *p, int32_t v, NzLoc loc) {
  LcuExpr *e = lcu_expr_new(p, LE_INT, loc);
  e->lit.i = v;
  return e;
}

LcuExpr *lcu_float(LcuProgram *p, double v, NzLoc loc) {
  LcuExpr *e = lcu_expr_new(p, LE_FLOAT, loc);
  e->lit.f = v;
  return e;
}

LcuExpr *lcu_bool(LcuProgram *p, int v, NzLoc loc) {
  LcuExpr *e = lcu_expr_new(p, LE_BOOL, loc);
  e->lit.b = v != 0;
  return e;
}

LcuExpr *lcu_char(LcuProgram *p, unsigned char v, NzLoc loc) {
  LcuExpr *e = lcu_expr_new(p, LE_CHAR, loc);
  e->lit.c = v;
  return e;
}

LcuExpr *lcu_var(LcuProgram *p, const char *name, NzLoc loc) {
  LcuExpr *e = lcu_expr_new(p, LE_VAR, loc);
  e->name = nz_intern_cstr(name);
  return e;
}

static LcuExpr *with_args(LcuProgram *p, LcuExprKind k, int n, LcuExpr **args, NzLoc loc) {
  LcuExpr *e = lcu_expr_new(p, k, loc);
  e->nargs = n;
  e->args = lcu_exprs(p, n);
  for (int i = 0; i < n; i++) e->args[i] = args[i];
  return e;
}

LcuExpr *lcu_prim(LcuProgram *p, LcuPrim op, int nargs, LcuExpr **args, NzLoc loc) {
  LcuExpr *e = with_args(p, LE_PRIM, nargs, args, loc);
  e->prim = op;
  return e;
}

LcuExpr *lcu_prim2(LcuProgram *p, LcuPrim op, LcuExpr *a, LcuExpr *b, NzLoc loc) {
  LcuExpr *args[2] = {a, b};
  return lcu_prim(p, op, 2, args, loc);
}

LcuExpr *lcu_if(LcuProgram *p, LcuExpr *c, LcuExpr *t, LcuExpr *e, NzLoc loc) {
  LcuExpr *args[3] = {c, t, e};
  return with_args(p, LE_IF, 3, args, loc);
}

LcuExpr *lcu_let(LcuProgram *p, int nbinds, LcuBinder *binds, LcuExpr *rhs, LcuExpr *body,
                 NzLoc loc) {
  LcuExpr *args[2] = {rhs, body};
  LcuExpr *e = with_args(p, LE_LET, 2, args, loc);
  e->nbinds = nbinds;
  e->binds = lcu_binders(p, nbinds);
  for (int i = 0; i < nbinds; i++) {
    e->binds[i] = binds[i];
    e->binds[i].name = nz_intern_cstr(binds[i].name);
  }
  return e;
}

LcuExpr *lcu_let1(LcuProgram *p, const char *name, LcuExpr *rhs, LcuExpr *body, NzLoc loc) {
  LcuBinder b = lcu_binder(name, NULL, loc);
  return lcu_let(p, 1, &b, rhs, body, loc);
}

LcuExpr *lcu_tuple(LcuProgram *p, int n, LcuExpr **elems, NzLoc loc) {
  if (n == 1) return elems[0];
  return with_args(p, LE_TUPLE, n, elems, loc);
}

LcuExpr *lcu_index(LcuProgram *p, LcuExpr *arr, LcuExpr *idx, NzLoc loc) {
  LcuExpr *args[2] = {arr, idx};
  return with_args(p, LE_INDEX, 2, args, loc);
}

LcuExpr *lcu_call(LcuProgram *p, const char *f, int nargs, LcuExpr **args, NzLoc loc) {
  LcuExpr *e = with_args(p, LE_CALL, nargs, args, loc);
  e->name = nz_intern_cstr(f);
  return e;
}

LcuExpr *lcu_run(LcuProgram *p, const char *k, int nargs, LcuExpr **args, NzLoc loc) {
  LcuExpr *e = with_args(p, LE_RUN, nargs, args, loc);
  e->name = nz_intern_cstr(k);
  return e;
}

LcuThunk *lcu_thunk_new(LcuProgram *p, int nparams, LcuBinder *params, LcuExpr *body,
                        int nusing, LcuBinder *usings, NzLoc loc) {
  LcuThunk *t = NZ_NEW(p->arena, LcuThunk);
  t->loc = loc;
  t->nparams = nparams;
  t->params = lcu_binders(p, nparams);
  for (int i = 0; i < nparams; i++) {
    t->params[i] = params[i];
    t->params[i].name = nz_intern_cstr(params[i].name);
  }
  t->body = body;
  t->nusing = nusing;
  t->usings = lcu_binders(p, nusing);
  for (int i = 0; i < nusing; i++) {
    t->usings[i] = usings[i];
    t->usings[i].name = nz_intern_cstr(usings[i].name);
  }
  return t;
}

LcuKernel *lcu_kernel_add(LcuProgram *p, const char *name, NzLoc loc) {
  LcuKernel *k = NZ_NEW(p->arena, LcuKernel);
  k->loc = loc;
  k->name = nz_intern_cstr(name);
  p->kernels = nz_xrealloc(p->kernels, sizeof(LcuKernel *) * (size_t)(p->nkernels + 1));
  p->kernels[p->nkernels++] = k;
  return k;
}

LcuFunc *lcu_func_add(LcuProgram *p, const char *name, NzLoc loc) {
  LcuFunc *f = NZ_NEW(p->arena, LcuFunc);
  f->loc = loc;
  f->name = nz_intern_cstr(name);
  p->funcs = nz_xrealloc(p->funcs, sizeof(LcuFunc *) * (size_t)(p->nfuncs + 1));
  p->funcs[p->nfuncs++] = f;
  return f;
}

/* Kernels grow one SOAC at a time; the array is re-allocated in the arena
 * when full, at twice the size (re-allocating it for every SOAC made a
 * kernel of k SOACs cost k^2/2 of them: 91 MB for a fused kernel of 2000),
 * so callers must not hold a LcuSoac* across this call. */
LcuSoac *lcu_kernel_add_soac(LcuProgram *p, LcuKernel *k, LcuSoacKind kind, NzLoc loc) {
  if (k->nsoacs == k->capsoacs) {
    k->capsoacs = k->capsoacs ? 2 * k->capsoacs : 4;
    LcuSoac *s = NZ_NEWN(p->arena, LcuSoac, k->capsoacs);
    if (k->nsoacs) memcpy(s, k->soacs, sizeof(LcuSoac) * (size_t)k->nsoacs);
    k->soacs = s;
  }
  LcuSoac *n = &k->soacs[k->nsoacs++];
  n->kind = kind;
  n->loc = loc;
  return n;
}

/* The index behind lcu_find_kernel: a linear search per lookup made fusion's
 * preparation quadratic (a third of barnes_hut's compile time). Kernels are
 * appended (the index takes the new ones), removed or renamed (a lookup that
 * misses or finds another name falls back to the linear search, and a hit
 * there rebuilds the index), so the index is only ever a hint. */
static unsigned kix_hash(const char *name, int cap) {
  uintptr_t x = (uintptr_t)name;
  x ^= x >> 17, x *= 0x9E3779B97F4A7C15ull, x ^= x >> 29;
  return (unsigned)x & (unsigned)(cap - 1);
}

static void kix_insert(LcuProgram *p, int i) {
  unsigned h = kix_hash(p->kernels[i]->name, p->kix_cap);
  while (p->kix[h]) h = (h + 1) & (unsigned)(p->kix_cap - 1);
  p->kix[h] = i + 1;
}

static void kix_sync(LcuProgram *p, int rebuild) {
  if (!rebuild && p->kix && p->kix_n <= p->nkernels && 2 * p->nkernels <= p->kix_cap) {
    for (int i = p->kix_n; i < p->nkernels; i++) kix_insert(p, i);
    p->kix_n = p->nkernels;
    return;
  }
  int cap = 64;
  while (cap < 2 * p->nkernels + 2) cap *= 2;
  free(p->kix);
  p->kix = nz_xcalloc((size_t)cap, sizeof(int));
  p->kix_cap = cap;
  for (int i = 0; i < p->nkernels; i++) kix_insert(p, i);
  p->kix_n = p->nkernels;
}

LcuKernel *lcu_find_kernel(const LcuProgram *cp, const char *name) {
  LcuProgram *p = (LcuProgram *)cp; /* the index is a cache */
  name = nz_intern_cstr(name);
  if (p->kix_n != p->nkernels || !p->kix) kix_sync(p, p->kix_n > p->nkernels);
  for (unsigned h = kix_hash(name, p->kix_cap); p->kix[h]; h = (h + 1) & (unsigned)(p->kix_cap - 1)) {
    int i = p->kix[h] - 1;
    if (i < p->nkernels && p->kernels[i]->name == name) return p->kernels[i];
  }
  for (int i = 0; i < p->nkernels; i++)
    if (p->kernels[i]->name == name) {
      kix_sync(p, 1);
      return p->kernels[i];
    }
  return NULL;
}

LcuFunc *lcu_find_func(const LcuProgram *p, const char *name) {
  name = nz_intern_cstr(name);
  for (int i = 0; i < p->nfuncs; i++)
    if (p->funcs[i]->name == name) return p->funcs[i];
  return NULL;
}

LcuFunc *lcu_main(const LcuProgram *p) { return lcu_find_func(p, "main"); }

LcuExpr *lcu_expr_copy(LcuProgram *p, const LcuExpr *e) {
  if (!e) return NULL;
  LcuExpr *c = NZ_NEW(p->arena, LcuExpr);
  *c = *e;
  c->last = 0; /* a copy may land where the original's last use is not one */
  if (e->nargs) {
    c->args = lcu_exprs(p, e->nargs);
    for (int i = 0; i < e->nargs; i++) c->args[i] = lcu_expr_copy(p, e->args[i]);
  }
  if (e->nbinds) {
    c->binds = lcu_binders(p, e->nbinds);
    memcpy(c->binds, e->binds, sizeof(LcuBinder) * (size_t)e->nbinds);
  }
  return c;
}

LcuThunk *lcu_thunk_copy(LcuProgram *p, const LcuThunk *t) {
  LcuThunk *c = lcu_thunk_new(p, t->nparams, t->params, lcu_expr_copy(p, t->body), t->nusing,
                              t->usings, t->loc);
  c->nslots = t->nslots;
  return c;
}
