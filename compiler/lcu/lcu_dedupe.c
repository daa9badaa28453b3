/* lcu_dedupe.c — one CPU function for each piece of code the program holds
 * twice (issue 39; compiler/lcu/README.md, "Duplicate functions").
 *
 * Each top-level form is flattened on its own, so a function used by several
 * forms (a lifted merge_sort, a lifted count_less) is specialised once per
 * form; the joined program (driver/cmd_nesl.c, join_forms) then holds copies
 * that differ only in their names. This pass finds them and keeps one.
 *
 * Two functions are the same code when their checked bodies are equal node
 * for node: kinds, literals, primitives, types, frame slots (the checker's,
 * so binders' names do not matter), source locations (so every fault message
 * stays the same), and callees that are themselves the same code. Kernels
 * compare the same way (their SOACs, thunks, sizes and reduction operators);
 * a kernel is never merged itself (fusion copies a kernel run at several
 * sites anyway, and the code generator already shares equal kernel bodies),
 * only compared, for the functions that run it.
 *
 * Functions may call each other and themselves, so "the same code" is a
 * greatest fixed point: start with every function in one class, split each
 * class by its members' bodies under the current classes of their callees,
 * and repeat until no class splits (partition refinement, as in DFA
 * minimisation). Then calls go to each class's first function, the others
 * are dropped, and so are the kernels only they ran. */
#include "lcu.h"

#include <stdint.h>

typedef struct {
  const void *ptr;
  int idx;
} PtrIdx;

/* A key: raw bytes (compared with memcmp; printing them cost a third of a
 * front end's time on large programs). */
typedef struct {
  char *s;
  size_t len, cap;
} Key;

static void put(Key *b, const void *x, size_t n) {
  if (b->len + n > b->cap) {
    b->cap = b->cap ? 2 * b->cap : 256;
    while (b->len + n > b->cap) b->cap *= 2;
    b->s = nz_xrealloc(b->s, b->cap);
  }
  memcpy(b->s + b->len, x, n);
  b->len += n;
}

typedef struct {
  Key b;
  PtrIdx *kmap, *fmap; /* sorted by ptr */
  int nk, nf;
  const int *kcls, *fcls;
} Dd;

static int by_ptr(const void *x, const void *y) {
  uintptr_t a = (uintptr_t)((const PtrIdx *)x)->ptr, b = (uintptr_t)((const PtrIdx *)y)->ptr;
  return a < b ? -1 : a > b;
}

static int lookup(const PtrIdx *m, int n, const void *p) {
  PtrIdx key = {p, 0};
  const PtrIdx *r = bsearch(&key, m, (size_t)n, sizeof *m, by_ptr);
  return r ? r->idx : -1;
}

static void put_int(Key *b, long v) { put(b, &v, sizeof v); }
static void put_loc(Key *b, NzLoc l) {
  put(b, &l.src, sizeof l.src);
  put_int(b, l.line);
  put_int(b, l.col);
}
/* A type by its structure (not every type is interned). */
static void put_ty(Key *b, const LcuType *t) {
  if (!t) {
    put_int(b, -1);
    return;
  }
  put_int(b, t->kind);
  put_int(b, t->elem);
  put_int(b, t->n);
  for (int i = 0; i < t->n && t->kind == LT_TUPLE; i++) put_ty(b, t->elems[i]);
}
static void put_binders(Key *b, int n, const LcuBinder *x) {
  put_int(b, n);
  for (int i = 0; i < n; i++) {
    put_int(b, x[i].slot);
    put_ty(b, x[i].ty);
    put_loc(b, x[i].loc);
  }
}
static void put_size(Key *b, const LcuSize *z) {
  put_int(b, z->kind);
  put_int(b, z->lit);
  put_int(b, z->slot);
}

static void put_expr(Dd *d, const LcuExpr *e) {
  Key *b = &d->b;
  put_int(b, e->kind);
  put_loc(b, e->loc);
  put_ty(b, e->ty);
  put_ty(b, e->opty);
  switch (e->kind) {
  case LE_INT: put_int(b, e->lit.i); break;
  case LE_FLOAT: put(b, &e->lit.f, sizeof e->lit.f); break;
  case LE_BOOL: put_int(b, e->lit.b); break;
  case LE_CHAR: put_int(b, e->lit.c); break;
  case LE_VAR:
    put_int(b, e->slot);
    put_int(b, e->last);
    break;
  case LE_PRIM: put_int(b, (long)e->prim); break;
  case LE_CALL: {
    int f = lookup(d->fmap, d->nf, e->target);
    put_int(b, f < 0 ? -1 : d->fcls[f]);
    break;
  }
  case LE_RUN: {
    int k = lookup(d->kmap, d->nk, e->target);
    put_int(b, k < 0 ? -1 : d->kcls[k]);
    break;
  }
  default: break;
  }
  put_binders(b, e->nbinds, e->binds);
  put_int(b, e->nargs);
  for (int i = 0; i < e->nargs; i++) put_expr(d, e->args[i]);
}

static void put_thunk(Dd *d, const LcuThunk *t) {
  if (!t) {
    put_int(&d->b, -1);
    return;
  }
  put_loc(&d->b, t->loc);
  put_binders(&d->b, t->nparams, t->params);
  put_binders(&d->b, t->nusing, t->usings);
  put_int(&d->b, t->nslots);
  put_expr(d, t->body);
}

static void put_kernel(Dd *d, const LcuKernel *k) {
  Key *b = &d->b;
  put_loc(b, k->loc);
  put_binders(b, k->nparams, k->params);
  put_ty(b, k->ret);
  put_int(b, k->nsoacs);
  for (int s = 0; s < k->nsoacs; s++) {
    const LcuSoac *q = &k->soacs[s];
    put_int(b, q->kind);
    put_loc(b, q->loc);
    put_binders(b, q->nbinds, q->binds);
    put_int(b, q->nthunks);
    for (int t = 0; t < q->nthunks; t++) put_thunk(d, q->thunks[t]);
    put_int(b, q->nrops);
    for (int r = 0; r < q->nrops; r++) put_int(b, q->rops[r]);
    put_size(b, &q->size);
    put_size(b, &q->outlen);
    put_int(b, q->space);
  }
  put_binders(b, k->nrets, k->rets);
  put_int(b, k->nslots);
}

static void put_func(Dd *d, const LcuFunc *f) {
  put_loc(&d->b, f->loc);
  put_binders(&d->b, f->nparams, f->params);
  put_ty(&d->b, f->ret);
  put_int(&d->b, f->nslots);
  put_expr(d, f->body);
}

/* Classes from keys: cls[i] = the class of (old[i], key[i]); returns how many. */
typedef struct {
  int old;
  const Key *key;
  int idx;
} Keyed;

static int keycmp(const Key *a, const Key *b) {
  if (a->len != b->len) return a->len < b->len ? -1 : 1;
  return a->len ? memcmp(a->s, b->s, a->len) : 0;
}

static int by_key(const void *x, const void *y) {
  const Keyed *a = x, *b = y;
  if (a->old != b->old) return a->old < b->old ? -1 : 1;
  int c = keycmp(a->key, b->key);
  return c ? c : a->idx - b->idx;
}

static int classify(int n, const int *old, const Key *key, int *cls) {
  Keyed *v = nz_xmalloc(sizeof(Keyed) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) v[i] = (Keyed){old ? old[i] : 0, &key[i], i};
  qsort(v, (size_t)n, sizeof *v, by_key);
  int nc = 0;
  for (int i = 0; i < n; i++) {
    if (i > 0 && (v[i].old != v[i - 1].old || keycmp(v[i].key, v[i - 1].key))) nc++;
    cls[v[i].idx] = nc;
  }
  free(v);
  return n ? nc + 1 : 0;
}

static Key take(Key *b) {
  Key k = *b;
  *b = (Key){0};
  return k;
}

static void redirect(LcuExpr *e, const PtrIdx *fmap, int nf, const int *rep, LcuFunc **funcs) {
  if (e->kind == LE_CALL) {
    int f = lookup(fmap, nf, e->target);
    if (f >= 0 && rep[f] != f) e->target = funcs[rep[f]], e->name = funcs[rep[f]]->name;
  }
  for (int i = 0; i < e->nargs; i++) redirect(e->args[i], fmap, nf, rep, funcs);
}

static void mark_runs(const LcuExpr *e, const PtrIdx *kmap, int nk, char *used) {
  if (e->kind == LE_RUN) {
    int k = lookup(kmap, nk, e->target);
    if (k >= 0) used[k] = 1;
  }
  for (int i = 0; i < e->nargs; i++) mark_runs(e->args[i], kmap, nk, used);
}

int lcu_dedupe_functions(LcuProgram *p) {
  int nk = p->nkernels, nf = p->nfuncs;
  if (nf < 2) return 0;
  Dd d = {0};
  d.nk = nk, d.nf = nf;
  d.kmap = nz_xmalloc(sizeof(PtrIdx) * (size_t)(nk ? nk : 1));
  d.fmap = nz_xmalloc(sizeof(PtrIdx) * (size_t)nf);
  for (int k = 0; k < nk; k++) d.kmap[k] = (PtrIdx){p->kernels[k], k};
  for (int f = 0; f < nf; f++) d.fmap[f] = (PtrIdx){p->funcs[f], f};
  qsort(d.kmap, (size_t)nk, sizeof(PtrIdx), by_ptr);
  qsort(d.fmap, (size_t)nf, sizeof(PtrIdx), by_ptr);
  /* Kernels: one round (they call nothing). */
  Key *key = nz_xmalloc(sizeof(Key) * (size_t)(nk > nf ? nk : nf));
  int *kcls = nz_xmalloc(sizeof(int) * (size_t)(nk ? nk : 1));
  for (int k = 0; k < nk; k++) {
    put_kernel(&d, p->kernels[k]);
    key[k] = take(&d.b);
  }
  classify(nk, NULL, key, kcls);
  for (int k = 0; k < nk; k++) free(key[k].s);
  d.kcls = kcls;
  /* Functions: refine from one class until stable. main is its own class
   * (the runtime calls it by name). */
  int *cls = nz_xcalloc((size_t)nf, sizeof(int)), *next = nz_xmalloc(sizeof(int) * (size_t)nf);
  for (int f = 0; f < nf; f++) cls[f] = !strcmp(p->funcs[f]->name, "main");
  int ncls = 0;
  for (;;) {
    d.fcls = cls;
    for (int f = 0; f < nf; f++) {
      put_func(&d, p->funcs[f]);
      key[f] = take(&d.b);
    }
    int n2 = classify(nf, cls, key, next);
    for (int f = 0; f < nf; f++) free(key[f].s);
    memcpy(cls, next, sizeof(int) * (size_t)nf);
    if (n2 == ncls) break;
    ncls = n2;
  }
  /* Each class's first function represents it. */
  int *rep = nz_xmalloc(sizeof(int) * (size_t)nf), *first = nz_xmalloc(sizeof(int) * (size_t)(ncls ? ncls : 1));
  for (int c = 0; c < ncls; c++) first[c] = -1;
  for (int f = 0; f < nf; f++) {
    if (first[cls[f]] < 0) first[cls[f]] = f;
    rep[f] = first[cls[f]];
  }
  int dropped = 0;
  if (ncls < nf) {
    char *used = nz_xcalloc((size_t)(nk ? nk : 1), 1);
    LcuFunc **orig = nz_xmalloc(sizeof(LcuFunc *) * (size_t)nf); /* indices as the maps have them */
    memcpy(orig, p->funcs, sizeof(LcuFunc *) * (size_t)nf);
    int m = 0;
    for (int f = 0; f < nf; f++) {
      if (rep[f] != f) continue;
      redirect(orig[f]->body, d.fmap, nf, rep, orig);
      mark_runs(orig[f]->body, d.kmap, nk, used);
      p->funcs[m++] = orig[f];
    }
    free(orig);
    dropped = nf - m;
    p->nfuncs = m;
    m = 0;
    for (int k = 0; k < nk; k++)
      if (used[k]) p->kernels[m++] = p->kernels[k];
    p->nkernels = m;
    free(used);
  }
  free(rep), free(first), free(cls), free(next), free(key), free(kcls);
  free(d.kmap), free(d.fmap);
  free(d.b.s);
  return dropped;
}
