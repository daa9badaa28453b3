/* fus_names.c — fresh names and the expression utilities fusion rewriting is
 * built from: renaming copies, free variables. Names are interned strings. */
#include "fus_lcu.h"

struct FusNames {
  const char **slot; /* open addressing on the interned pointer */
  size_t cap, count;
  unsigned long counter;
};

static size_t hptr(const char *s) { return (size_t)(((uintptr_t)s >> 4) * 0x9E3779B97F4A7C15ull); }

int fus_names_has(const FusNames *n, const char *s) {
  if (!n->cap) return 0;
  for (size_t i = hptr(s) & (n->cap - 1);; i = (i + 1) & (n->cap - 1)) {
    if (!n->slot[i]) return 0;
    if (n->slot[i] == s) return 1;
  }
}

void fus_names_add(FusNames *n, const char *s) {
  if (!s || fus_names_has(n, s)) return;
  if (2 * (n->count + 1) > n->cap) {
    const char **old = n->slot;
    size_t oldcap = n->cap;
    n->cap = n->cap ? 2 * n->cap : 256;
    n->slot = nz_xcalloc(n->cap, sizeof *n->slot);
    n->count = 0;
    for (size_t i = 0; i < oldcap; i++)
      if (old[i]) fus_names_add(n, old[i]);
    free(old);
  }
  size_t i = hptr(s) & (n->cap - 1);
  while (n->slot[i]) i = (i + 1) & (n->cap - 1);
  n->slot[i] = s;
  n->count++;
}

static void add_binders(FusNames *n, int nb, const LcuBinder *b) {
  for (int i = 0; i < nb; i++) fus_names_add(n, b[i].name);
}

static void add_expr(FusNames *n, const LcuExpr *e) {
  if (!e) return;
  if (e->name) fus_names_add(n, e->name);
  add_binders(n, e->nbinds, e->binds);
  for (int i = 0; i < e->nargs; i++) add_expr(n, e->args[i]);
}

static void add_thunk(FusNames *n, const LcuThunk *t) {
  add_binders(n, t->nparams, t->params);
  add_binders(n, t->nusing, t->usings);
  add_expr(n, t->body);
}

FusNames *fus_names_empty(void) {
  FusNames *n = nz_xcalloc(1, sizeof *n);
  return n;
}

FusNames *fus_names_new(const LcuProgram *p) {
  FusNames *n = fus_names_empty();
  fus_names_add(n, nz_intern_cstr("main"));
  for (int k = 0; k < p->nkernels; k++) {
    const LcuKernel *K = p->kernels[k];
    fus_names_add(n, K->name);
    add_binders(n, K->nparams, K->params);
    add_binders(n, K->nrets, K->rets);
    for (int s = 0; s < K->nsoacs; s++) {
      const LcuSoac *S = &K->soacs[s];
      add_binders(n, S->nbinds, S->binds);
      for (int t = 0; t < S->nthunks; t++) add_thunk(n, S->thunks[t]);
      if (S->size.name) fus_names_add(n, S->size.name);
    }
  }
  for (int f = 0; f < p->nfuncs; f++) {
    fus_names_add(n, p->funcs[f]->name);
    add_binders(n, p->funcs[f]->nparams, p->funcs[f]->params);
    add_expr(n, p->funcs[f]->body);
  }
  return n;
}

void fus_names_free(FusNames *n) {
  if (!n) return;
  free(n->slot);
  free(n);
}

/* base_N with the smallest N not used yet; a trailing _digits of base is
 * dropped first so fresh names of fresh names stay short. */
const char *fus_fresh(FusNames *n, const char *base) {
  size_t len = strlen(base);
  size_t cut = len;
  while (cut > 0 && base[cut - 1] >= '0' && base[cut - 1] <= '9') cut--;
  if (cut > 0 && cut < len && base[cut - 1] == '_') len = cut - 1;
  if (len == 0 || len > 40) len = len ? 40 : 0;
  for (;;) {
    const char *s = len ? nz_intern_numbered(base, len, ++n->counter) : nz_intern_numbered("t", 1, ++n->counter);
    if (!fus_names_has(n, s)) {
      fus_names_add(n, s);
      return s;
    }
  }
}

void fus_ren_add(FusRen *r, const char *from, const char *to) {
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 8;
    r->from = nz_xrealloc(r->from, sizeof(char *) * (size_t)r->cap);
    r->to = nz_xrealloc(r->to, sizeof(char *) * (size_t)r->cap);
  }
  r->from[r->n] = from;
  r->to[r->n] = to;
  r->n++;
}

/* The latest mapping wins, so a scope can push over an outer one. */
const char *fus_ren_get(const FusRen *r, const char *name) {
  for (int i = r->n - 1; i >= 0; i--)
    if (r->from[i] == name) return r->to[i];
  return NULL;
}

void fus_ren_free(FusRen *r) {
  free(r->from);
  free(r->to);
  r->from = r->to = NULL;
  r->n = r->cap = 0;
}

static LcuExpr *copy_fresh(LcuProgram *p, FusNames *names, const LcuExpr *e, FusRen *ren) {
  LcuExpr *c = lcu_expr_new(p, e->kind, e->loc);
  *c = *e;
  if (e->kind == LE_VAR) {
    const char *to = fus_ren_get(ren, e->name);
    if (to) c->name = to;
    return c;
  }
  if (e->nargs) c->args = lcu_exprs(p, e->nargs);
  if (e->kind == LE_LET) {
    c->args[0] = copy_fresh(p, names, e->args[0], ren);
    c->binds = lcu_binders(p, e->nbinds);
    int mark = ren->n;
    for (int i = 0; i < e->nbinds; i++) {
      c->binds[i] = e->binds[i];
      c->binds[i].name = fus_fresh(names, e->binds[i].name);
      fus_ren_add(ren, e->binds[i].name, c->binds[i].name);
    }
    c->args[1] = copy_fresh(p, names, e->args[1], ren);
    ren->n = mark;
    return c;
  }
  for (int i = 0; i < e->nargs; i++) c->args[i] = copy_fresh(p, names, e->args[i], ren);
  return c;
}

LcuExpr *fus_copy_fresh(LcuProgram *p, FusNames *names, const LcuExpr *e, const FusRen *ren) {
  FusRen r = {0};
  if (ren)
    for (int i = 0; i < ren->n; i++) fus_ren_add(&r, ren->from[i], ren->to[i]);
  LcuExpr *c = copy_fresh(p, names, e, &r);
  fus_ren_free(&r);
  return c;
}

/* Bound names (a scope stack) and the free ones found so far (a set, in
 * order), both indexed by name: a lookup walking them made this quadratic
 * in a thunk of k merged siblings, a chain of k lets. */
typedef struct {
  NzScopeIndex bound, out;
  const LcuExpr *stop; /* not entered (fus_free_vars_before) */
} FreeAcc;

static void free_vars(const LcuExpr *e, FreeAcc *a) {
  if (e == a->stop) return;
  if (e->kind == LE_VAR) {
    if (nz_scope_find(&a->bound, e->name, a->bound.n) < 0 && nz_scope_find(&a->out, e->name, a->out.n) < 0)
      nz_scope_push(&a->out, e->name);
    return;
  }
  if (e->kind == LE_LET) {
    free_vars(e->args[0], a);
    int mark = a->bound.n;
    for (int i = 0; i < e->nbinds; i++) nz_scope_push(&a->bound, e->binds[i].name);
    free_vars(e->args[1], a);
    nz_scope_pop_to(&a->bound, mark);
    return;
  }
  for (int i = 0; i < e->nargs; i++) free_vars(e->args[i], a);
}

int fus_free_vars(const LcuExpr *e, const char ***out) { return fus_free_vars_before(e, NULL, out); }

int fus_free_vars_before(const LcuExpr *e, const LcuExpr *stop, const char ***out) {
  FreeAcc a = {{0}, {0}, stop};
  free_vars(e, &a);
  int n = a.out.n;
  *out = nz_xmalloc(sizeof(const char *) * (size_t)(n ? n : 1));
  if (n) memcpy(*out, a.out.names, sizeof(const char *) * (size_t)n);
  nz_scope_free(&a.bound);
  nz_scope_free(&a.out);
  return n;
}

int fus_occurs(const LcuExpr *e, const char *name) {
  const char **fv;
  int n = fus_free_vars(e, &fv);
  int found = 0;
  for (int i = 0; i < n && !found; i++) found = fv[i] == name;
  free(fv);
  return found;
}

int fus_uses_length(const LcuExpr *e, const char *x) {
  if (e->kind == LE_PRIM && e->prim == LP_LENGTH && e->args[0]->kind == LE_VAR && e->args[0]->name == x) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (fus_uses_length(e->args[i], x)) return 1;
  return 0;
}

/* Recomputes a thunk's `using` list from its body's free variables. */
void fus_recapture(LcuProgram *p, LcuThunk *t) {
  const char **fv;
  int n = fus_free_vars(t->body, &fv), m = 0;
  t->usings = lcu_binders(p, n);
  for (int i = 0; i < n; i++) {
    int is_param = 0;
    for (int q = 0; q < t->nparams; q++) is_param |= t->params[q].name == fv[i];
    if (!is_param) t->usings[m++] = lcu_binder(fv[i], NULL, t->loc);
  }
  t->nusing = m;
  free(fv);
}
