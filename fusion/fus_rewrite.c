/* fus_rewrite.c — fusion rewriting (paper §9), the same for every scheduler:
 * each cluster of a region's partition becomes one invocation of a new kernel
 * holding its members' SOACs, in which the SOAC rules then combine thunks
 * (‡A, paper §9.2) until no rule applies, and dead SOACs and components go.
 *
 * Rules (P produces A, C consumes it, both in one kernel):
 *   MAP → any SOAC but ONCE: A[e] in C's thunks becomes P's body at e; when C
 *     reads A only at its own index over P's space, P's body is bound once at
 *     the top of C's thunk (the paper's ‡A). #A becomes P's size.
 *   FILTER → REDUCE: C iterates over P's space, reducing P's value where P's
 *     predicate holds and the operators' identities elsewhere (FILTER-REDUCE).
 *   FILTER → FILTER: one FILTER over P's space whose value thunk also returns
 *     P's predicate, which the new predicate checks first. The paper's rule
 *     passes an index to the predicate; §6 gives predicates the values, so we
 *     carry the flag as one more (dead) output component instead.
 *   PERMUTE → REDUCE: reducing a permutation is reducing its values in source
 *     order (operators are commutative; `id` is excluded by the graph). Only a
 *     PERMUTE without `into`, whose destinations must be a permutation (λcu
 *     README); a destination fault of the PERMUTE (out of range, or two
 *     sources on one position) is no longer detected.
 *   ONCE → ONCE: one thunk computing both.
 *   REDUCE → ONCE (and SEGREDUCE → ONCE): no thunk-level rule; both SOACs stay
 *     in the kernel, the ONCE running after the reduction completes.
 *   Horizontal: MAPs, REDUCEs, SCANs, ONCEs, SEGREDUCEs, SEGSCANs over the same
 *     size with no dependence between them become one SOAC returning both
 *     tuples (reduction operators concatenated). FILTER, PARTITION and PERMUTE
 *     siblings stay two SOACs in one kernel (one launch, two outputs). A MAP
 *     beside a REDUCE, SCAN or SEG* over the same (flat) elements joins it as
 *     components with the `id` operator, which yield the whole array.
 *   Last, each thunk of a fused kernel computes each value once (fus_cse.c).
 * The region's dataflow graph decides which pairs may share a cluster (see
 * fusion/compat.c and the `iter` flags set in fus_region.c); the preconditions
 * checked here mirror those, so a legal partition always rewrites. */
#include <limits.h>
#include <math.h>

#include "fus_lcu.h"

/* --------------------------------------------------------------- helpers */

static int size_equal(const LcuSize *a, const LcuSize *b) {
  if (a->kind != b->kind) return 0;
  switch (a->kind) {
  case LZ_LIT: return a->lit == b->lit;
  case LZ_VAR:
  case LZ_LEN: return a->name == b->name;
  default: return 1;
  }
}

static int captures(const LcuThunk *t, const char *x) {
  for (int u = 0; u < t->nusing; u++)
    if (t->usings[u].name == x) return 1;
  return 0;
}

static int soac_refs(const LcuSoac *s, const char *x) {
  for (int t = 0; t < s->nthunks; t++)
    if (captures(s->thunks[t], x)) return 1;
  if ((s->size.kind == LZ_VAR || s->size.kind == LZ_LEN) && s->size.name == x) return 1;
  if ((s->outlen.kind == LZ_VAR || s->outlen.kind == LZ_LEN) && s->outlen.name == x) return 1;
  return 0;
}

static int binder_index(const LcuSoac *s, const char *x) {
  for (int b = 0; b < s->nbinds; b++)
    if (s->binds[b].name == x) return b;
  return -1;
}

/* A size as an expression inside a thunk. */
static LcuExpr *size_expr(LcuProgram *p, const LcuSize *z, NzLoc loc) {
  switch (z->kind) {
  case LZ_LIT: return lcu_int(p, z->lit, loc);
  case LZ_VAR: return lcu_var(p, z->name, loc);
  case LZ_LEN: {
    LcuExpr *v = lcu_var(p, z->name, loc);
    return lcu_prim(p, LP_LENGTH, 1, &v, loc);
  }
  default: nz_die("size_expr: no size");
  }
}

static LcuExpr *zero_of(LcuProgram *p, LcuTypeKind k, NzLoc loc) {
  switch (k) {
  case LT_BOOL: return lcu_bool(p, 0, loc);
  case LT_CHAR: return lcu_char(p, 0, loc);
  case LT_INT: return lcu_int(p, 0, loc);
  case LT_FLOAT: return lcu_float(p, 0.0, loc);
  default: nz_die("zero_of: not a base type");
  }
}

static LcuExpr *identity_of(LcuProgram *p, LcuRop r, NzLoc loc) {
  switch (r) {
  case LR_IADD: case LR_IOR: case LR_IXOR: return lcu_int(p, 0, loc);
  case LR_IMUL: return lcu_int(p, 1, loc);
  case LR_IAND: return lcu_int(p, -1, loc);
  case LR_IMAX: return lcu_int(p, INT32_MIN, loc);
  case LR_IMIN: return lcu_int(p, INT32_MAX, loc);
  case LR_FADD: return lcu_float(p, 0.0, loc);
  case LR_FMUL: return lcu_float(p, 1.0, loc);
  case LR_FMAX: return lcu_float(p, -HUGE_VAL, loc);
  case LR_FMIN: return lcu_float(p, HUGE_VAL, loc);
  case LR_BAND: return lcu_bool(p, 1, loc);
  case LR_BOR: case LR_BXOR: return lcu_bool(p, 0, loc);
  default: nz_die("identity_of: %s has no identity", lcu_rop_name(r));
  }
}

static LcuBinder *fresh_binders(LcuProgram *p, FusNames *names, int n, const char *base, NzLoc loc) {
  LcuBinder *b = lcu_binders(p, n);
  for (int i = 0; i < n; i++) b[i] = lcu_binder(fus_fresh(names, base), NULL, loc);
  return b;
}

/* A copy of thunk t's body evaluated at index/params `args` (fresh locals). */
static LcuExpr *body_at(LcuProgram *p, FusNames *names, const LcuThunk *t, int n, const char *const *args) {
  FusRen ren = {0};
  for (int i = 0; i < n && i < t->nparams; i++) fus_ren_add(&ren, t->params[i].name, args[i]);
  LcuExpr *e = fus_copy_fresh(p, names, t->body, &ren);
  fus_ren_free(&ren);
  return e;
}

/* Number of components a thunk returns (its SOAC's view of it). */
static int thunk_arity(const LcuSoac *s) {
  switch (s->kind) {
  case LS_PARTITION: return s->nbinds / 2;
  case LS_REDUCE: case LS_SCAN: case LS_SEGREDUCE: case LS_SEGSCAN: return s->nrops;
  default: return s->nbinds;
  }
}

/* ------------------------------------------------ substitution of A reads */

typedef struct {
  LcuProgram *p;
  FusNames *names;
  const LcuSoac *prod; /* a MAP: its outputs are being replaced */
  const char *idx;     /* bind-at-top mode: reads A[idx] become the bound values */
  const char **bound;  /* names bound at the top, per output of prod */
} Subst;

static int prod_output(const Subst *s, const LcuExpr *v) {
  return v->kind == LE_VAR ? binder_index(s->prod, v->name) : -1;
}

static LcuExpr *subst(Subst *s, LcuExpr *e) {
  LcuProgram *p = s->p;
  if (e->kind == LE_PRIM && e->prim == LP_LENGTH && prod_output(s, e->args[0]) >= 0)
    return size_expr(p, &s->prod->size, e->loc);
  if (e->kind == LE_INDEX && prod_output(s, e->args[0]) >= 0) {
    int k = prod_output(s, e->args[0]);
    LcuExpr *ix = subst(s, e->args[1]);
    if (s->idx && ix->kind == LE_VAR && ix->name == s->idx) return lcu_var(p, s->bound[k], e->loc);
    /* Elsewhere: recompute P's element at that index. */
    const LcuThunk *t = s->prod->thunks[0];
    int n = thunk_arity(s->prod);
    const char *q = fus_fresh(s->names, "q");
    LcuBinder *bs = fresh_binders(p, s->names, n, "v", e->loc);
    LcuExpr *val = body_at(p, s->names, t, 1, &q);
    LcuExpr *in = lcu_let(p, n, bs, val, lcu_var(p, bs[k].name, e->loc), e->loc);
    return lcu_let1(p, q, ix, in, e->loc);
  }
  for (int i = 0; i < e->nargs; i++) e->args[i] = subst(s, e->args[i]);
  return e;
}

/* ------------------------------------------------------------ the rules */

static int is_index_thunk(const LcuSoac *s, int t) {
  if (s->kind == LS_ONCE) return 0;
  if ((s->kind == LS_FILTER || s->kind == LS_PARTITION) && t == 1) return 0;
  return s->thunks[t]->nparams == 1;
}

static int same_space(const LcuSoac *c, const LcuSoac *p) {
  if (size_equal(&c->size, &p->size)) return 1;
  return c->size.kind == LZ_LEN && binder_index(p, c->size.name) >= 0;
}

/* MAP P into C: substitute P's outputs in every thunk of C. */
static void rule_map(LcuProgram *p, FusNames *names, const LcuSoac *P, LcuSoac *C) {
  int n = thunk_arity(P);
  for (int t = 0; t < C->nthunks; t++) {
    LcuThunk *th = C->thunks[t];
    int uses = 0;
    for (int b = 0; b < P->nbinds; b++) uses |= captures(th, P->binds[b].name);
    if (!uses) continue;
    Subst s = {p, names, P, NULL, NULL};
    LcuBinder *top = NULL;
    if (is_index_thunk(C, t) && same_space(C, P)) {
      top = fresh_binders(p, names, n, "a", th->loc);
      s.idx = th->params[0].name;
      s.bound = nz_xcalloc((size_t)n, sizeof(char *));
      for (int k = 0; k < n; k++) s.bound[k] = top[k].name;
    }
    LcuExpr *body = subst(&s, th->body);
    if (top) {
      LcuExpr *val = body_at(p, names, P->thunks[0], 1, &th->params[0].name);
      body = lcu_let(p, n, top, val, body, th->loc);
      free(s.bound);
    }
    th->body = body;
    fus_recapture(p, th);
  }
  if (C->size.kind == LZ_LEN && binder_index(P, C->size.name) >= 0) C->size = P->size;
  if (C->outlen.kind == LZ_LEN && binder_index(P, C->outlen.name) >= 0) C->outlen = P->size;
}

/* Replaces reads P_out[idx] in e by bound values (FILTER/PERMUTE producers:
 * the graph guarantees idx appears nowhere else and #A is not used). */
static LcuExpr *subst_aligned(LcuProgram *p, const LcuSoac *P, const char *idx, const LcuBinder *vals, LcuExpr *e) {
  if (e->kind == LE_INDEX && e->args[0]->kind == LE_VAR && binder_index(P, e->args[0]->name) >= 0 &&
      e->args[1]->kind == LE_VAR && e->args[1]->name == idx)
    return lcu_var(p, vals[binder_index(P, e->args[0]->name) % thunk_arity(P)].name, e->loc);
  for (int i = 0; i < e->nargs; i++) e->args[i] = subst_aligned(p, P, idx, vals, e->args[i]);
  return e;
}

/* let (a...) = Pv(j) in let ok = Pp(a...) in <body(a...)> */
static LcuExpr *filtered(LcuProgram *p, FusNames *names, const LcuSoac *P, const char *j, const LcuBinder *a,
                         const char *ok, LcuExpr *inner, NzLoc loc) {
  int n = thunk_arity(P);
  const char **an = nz_xcalloc((size_t)n, sizeof(char *));
  for (int k = 0; k < n; k++) an[k] = a[k].name;
  LcuExpr *pred = body_at(p, names, P->thunks[1], n, an);
  free(an);
  LcuExpr *e = lcu_let1(p, ok, pred, inner, loc);
  return lcu_let(p, n, (LcuBinder *)a, body_at(p, names, P->thunks[0], 1, &j), e, loc);
}

/* FILTER P into REDUCE C over #A. */
static void rule_filter_reduce(LcuProgram *p, FusNames *names, const LcuSoac *P, LcuSoac *C) {
  LcuThunk *th = C->thunks[0];
  NzLoc loc = th->loc;
  int n = thunk_arity(P);
  LcuBinder *a = fresh_binders(p, names, n, "a", loc);
  const char *j = fus_fresh(names, "j"), *ok = fus_fresh(names, "ok");
  LcuExpr *val = subst_aligned(p, P, th->params[0].name, a, th->body);
  LcuExpr **ids = lcu_exprs(p, C->nrops);
  for (int r = 0; r < C->nrops; r++) ids[r] = identity_of(p, C->rops[r], loc);
  LcuExpr *sel = lcu_if(p, lcu_var(p, ok, loc), val, lcu_tuple(p, C->nrops, ids, loc), loc);
  th->body = filtered(p, names, P, j, a, ok, sel, loc);
  th->params = lcu_binders(p, 1);
  th->params[0] = lcu_binder(j, NULL, loc);
  fus_recapture(p, th);
  C->size = P->size;
  C->space = P->space;
}

/* FILTER P into FILTER C over #A. */
static void rule_filter_filter(LcuProgram *p, FusNames *names, const LcuSoac *P, LcuSoac *C) {
  LcuThunk *tv = C->thunks[0], *tp = C->thunks[1];
  NzLoc loc = tv->loc;
  int n = thunk_arity(P), m = thunk_arity(C);
  LcuBinder *a = fresh_binders(p, names, n, "a", loc);
  LcuBinder *c = fresh_binders(p, names, m, "c", loc);
  const char *j = fus_fresh(names, "j"), *ok = fus_fresh(names, "ok");
  /* value thunk: if ok then (C's values, true) else (zeros, false) */
  LcuExpr *cv = subst_aligned(p, P, tv->params[0].name, a, tv->body);
  LcuExpr **yes = lcu_exprs(p, m + 1), **no = lcu_exprs(p, m + 1);
  for (int k = 0; k < m; k++) {
    yes[k] = lcu_var(p, c[k].name, loc);
    no[k] = zero_of(p, C->binds[k].ty->elem, loc);
  }
  yes[m] = lcu_bool(p, 1, loc);
  no[m] = lcu_bool(p, 0, loc);
  LcuExpr *then = lcu_let(p, m, c, cv, lcu_tuple(p, m + 1, yes, loc), loc);
  LcuExpr *sel = lcu_if(p, lcu_var(p, ok, loc), then, lcu_tuple(p, m + 1, no, loc), loc);
  tv->body = filtered(p, names, P, j, a, ok, sel, loc);
  tv->nparams = 1;
  tv->params = lcu_binders(p, 1);
  tv->params[0] = lcu_binder(j, NULL, loc);
  fus_recapture(p, tv);
  /* predicate: (b..., okp) => okp && C's predicate on b... */
  LcuBinder *b = fresh_binders(p, names, m + 1, "b", loc);
  const char **bn = nz_xcalloc((size_t)m, sizeof(char *));
  for (int k = 0; k < m; k++) bn[k] = b[k].name;
  LcuExpr *cp = body_at(p, names, tp, m, bn);
  free(bn);
  tp->body = lcu_prim2(p, LP_ANDALSO, lcu_var(p, b[m].name, loc), cp, loc);
  tp->nparams = m + 1;
  tp->params = b;
  fus_recapture(p, tp);
  /* one more output: the flags, all true, never read */
  LcuBinder *nb = lcu_binders(p, C->nbinds + 1);
  memcpy(nb, C->binds, sizeof(LcuBinder) * (size_t)C->nbinds);
  nb[C->nbinds] = lcu_binder(fus_fresh(names, "kept"), lcu_type_array(LT_BOOL), loc);
  C->binds = nb;
  C->nbinds++;
  C->size = P->size;
  C->space = P->space;
}

/* PERMUTE P into REDUCE C over #A. */
static void rule_permute_reduce(LcuProgram *p, FusNames *names, const LcuSoac *P, LcuSoac *C) {
  LcuThunk *th = C->thunks[0];
  NzLoc loc = th->loc;
  int n = thunk_arity(P);
  LcuBinder *a = fresh_binders(p, names, n, "a", loc);
  const char *j = fus_fresh(names, "j");
  LcuExpr *val = subst_aligned(p, P, th->params[0].name, a, th->body);
  th->body = lcu_let(p, n, a, body_at(p, names, P->thunks[0], 1, &j), val, loc);
  th->params = lcu_binders(p, 1);
  th->params[0] = lcu_binder(j, NULL, loc);
  fus_recapture(p, th);
  C->size = P->size;
  C->space = P->space;
}

/* ONCE P into ONCE C: C computes P's values first. */
static void rule_once_once(LcuProgram *p, FusNames *names, const LcuSoac *P, LcuSoac *C) {
  LcuThunk *th = C->thunks[0];
  int n = P->nbinds;
  LcuBinder *s = fresh_binders(p, names, n, "s", th->loc);
  FusRen ren = {0};
  for (int k = 0; k < n; k++) fus_ren_add(&ren, P->binds[k].name, s[k].name);
  LcuExpr *body = fus_copy_fresh(p, names, th->body, &ren);
  fus_ren_free(&ren);
  th->body = lcu_let(p, n, s, body_at(p, names, P->thunks[0], 0, NULL), body, th->loc);
  fus_recapture(p, th);
}

static int has_id(const LcuSoac *s) {
  for (int r = 0; r < s->nrops; r++)
    if (s->rops[r] == LR_ID) return 1;
  return 0;
}

static int check_strict(const LcuExpr *e, const LcuSoac *P, const char *idx) {
  if (e->kind == LE_INDEX && e->args[0]->kind == LE_VAR && binder_index(P, e->args[0]->name) >= 0)
    return e->args[1]->kind == LE_VAR && e->args[1]->name == idx;
  if (e->kind == LE_VAR) return e->name != idx && binder_index(P, e->name) < 0;
  for (int i = 0; i < e->nargs; i++)
    if (!check_strict(e->args[i], P, idx)) return 0;
  return 1;
}

/* May a FILTER/PERMUTE rule fuse P into C: C iterates over P's output, and
 * its (first) thunk reads P's outputs only as A[i] at its own index i, which
 * appears nowhere else, and never asks for #A. */
static int strict_ok(const LcuSoac *P, const LcuSoac *C) {
  int over_a = C->size.kind == LZ_LEN && binder_index(P, C->size.name) >= 0;
  /* a PERMUTE's output is as long as its space (sizes are canonicalised) */
  if (!over_a && !(P->kind == LS_PERMUTE && size_equal(&C->size, &P->size))) return 0;
  const LcuThunk *th = C->thunks[0];
  if (th->nparams != 1) return 0;
  for (int b = 0; b < P->nbinds; b++)
    if (fus_uses_length(th->body, P->binds[b].name)) return 0;
  return check_strict(th->body, P, th->params[0].name);
}

/* Tries a vertical rule for producer P into consumer C (C reads P); pass 0 holds the
 * FILTER/PERMUTE rules, which need C's index untouched by MAP inlining. */
static int try_vertical(LcuProgram *p, FusNames *names, LcuSoac *P, LcuSoac *C, int pass) {
  if (pass == 0 && P->kind == LS_FILTER && C->kind == LS_REDUCE && !has_id(C) && strict_ok(P, C)) {
    rule_filter_reduce(p, names, P, C);
    return 1;
  }
  if (pass == 0 && P->kind == LS_FILTER && C->kind == LS_FILTER && strict_ok(P, C)) {
    for (int b = 0; b < P->nbinds; b++)
      if (captures(C->thunks[1], P->binds[b].name)) return 0;
    rule_filter_filter(p, names, P, C);
    return 1;
  }
  if (pass == 0 && P->kind == LS_PERMUTE && P->outlen.kind == LZ_NONE && C->kind == LS_REDUCE && !has_id(C) &&
      strict_ok(P, C)) {
    rule_permute_reduce(p, names, P, C);
    return 1;
  }
  if (pass == 1 && P->kind == LS_MAP && C->kind != LS_ONCE) {
    rule_map(p, names, P, C);
    return 1;
  }
  if (pass == 1 && P->kind == LS_ONCE && C->kind == LS_ONCE) {
    rule_once_once(p, names, P, C);
    return 1;
  }
  return 0;
}

static int mergeable_kind(LcuSoacKind k) {
  return k == LS_MAP || k == LS_REDUCE || k == LS_SCAN || k == LS_ONCE || k == LS_SEGREDUCE || k == LS_SEGSCAN;
}

/* May MAP M join sibling R, a REDUCE or SCAN, as components with the `id`
 * operator (which yield the whole array, as the MAP does)? Then one pass
 * computes both: a deferred check's reduction and the MAP that computes its
 * operand no longer write and read the operand's array. */
static int map_joins(const LcuSoac *M, const LcuSoac *R) {
  if (M->kind != LS_MAP) return 0;
  if (R->kind == LS_REDUCE || R->kind == LS_SCAN) return size_equal(&M->size, &R->size);
  /* a segmented SOAC iterates over its flat elements, which the region
   * graph equated with the MAP's space (sizes alone cannot say it) */
  return (R->kind == LS_SEGREDUCE || R->kind == LS_SEGSCAN) && M->space && M->space == R->space;
}

/* MAP M becomes a SOAC like R whose components all have the `id` operator. */
static void as_id_components(LcuProgram *p, LcuSoac *M, const LcuSoac *R) {
  LcuSoacKind k = R->kind;
  if (k == LS_SEGREDUCE || k == LS_SEGSCAN) M->size = R->size;
  M->kind = k;
  M->nrops = M->nbinds;
  M->rops = NZ_NEWN(p->arena, LcuRop, M->nbinds);
  for (int b = 0; b < M->nbinds; b++) M->rops[b] = LR_ID;
}

/* A copy of the spine of e (the let nodes of its body chain; right-hand
 * sides are shared) with its tail replaced by `tail`. */
static LcuExpr *respine(LcuProgram *p, const LcuExpr *e, LcuExpr *tail) {
  if (e->kind != LE_LET) return tail;
  return lcu_let(p, e->nbinds, e->binds, e->args[0], respine(p, e->args[1], tail), e->loc);
}

/* Can B's body, instantiated at index j, go at the tail of A's body e? No
 * name that the spine's lets bind may be j or a variable B captures. */
static const LcuExpr *spine_tail(const LcuExpr *e, const LcuThunk *tb, const char *j) {
  for (; e->kind == LE_LET; e = e->args[1])
    for (int b = 0; b < e->nbinds; b++)
      if (e->binds[b].name == j || captures(tb, e->binds[b].name)) return NULL;
  return e;
}

/* The thunks merge_horizontal built, each with the last let of its body's
 * spine (`let y = ... in (tuple)`), which the next merge into the same
 * thunk extends in place instead of copying the spine, and the SOAC's
 * binder and operator arrays, which grow by doubling. */
typedef struct {
  const LcuThunk *t;
  LcuExpr *last;
  LcuBinder *binds;
  LcuRop *rops;
  int bcap, rcap;
  /* The thunk's free variables, kept so that an in-place merge adds B's
   * instead of collecting the whole body's again (which made k merged
   * siblings cost k^2: 30000 siblings took minutes). They are the names
   * free in the spine before the final tuple, in order (fvs, and as a set),
   * then those the tuple reads first (fvt; its entries carry over, so these
   * stay). Valid while t's body and using list are the ones recorded here:
   * every rule that rewrites a body re-captures the thunk, which replaces
   * the list, and dead-code elimination replaces the body. */
  const LcuExpr *body;
  const LcuBinder *usings;
  const char **fvs, **fvt;
  int nfvs, capfvs, nfvt;
  NzScopeIndex fvset;
  NzScopeIndex spine; /* the names the spine's lets bind (spine_tail's question) */
  LcuBinder *us; /* the using list's buffer (arena), capus entries */
  int capus;
  LcuExpr **targs; /* the final tuple's entries (arena), tcap of them: an in-place merge appends */
  int tcap;
} HTail;
typedef NZ_VEC(HTail) HTails;

static void htail_fv_free(HTail *h) {
  free(h->fvs), free(h->fvt);
  nz_scope_free(&h->fvset);
  nz_scope_free(&h->spine);
  h->fvs = h->fvt = NULL;
  h->nfvs = h->capfvs = h->nfvt = 0;
  h->body = NULL, h->usings = NULL;
}

static void htails_free(HTails *ht) {
  for (int k = 0; k < ht->n; k++) htail_fv_free(&ht->v[k]);
  nz_vec_free(*ht);
}

/* t's using list from h's free variables: fvs, then fvt less fvs, less t's
 * parameters; written to h's buffer. */
static void htail_usings(LcuProgram *p, HTail *h, LcuThunk *t) {
  if (h->nfvs + h->nfvt > h->capus) {
    h->capus = 2 * (h->nfvs + h->nfvt);
    h->us = lcu_binders(p, h->capus);
  }
  int m = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < (pass ? h->nfvt : h->nfvs); i++) {
      const char *x = pass ? h->fvt[i] : h->fvs[i];
      if (pass && nz_scope_find(&h->fvset, x, h->fvset.n) >= 0) continue;
      int is_param = 0;
      for (int q = 0; q < t->nparams; q++) is_param |= t->params[q].name == x;
      if (!is_param) h->us[m++] = lcu_binder(x, NULL, t->loc);
    }
  t->usings = h->us;
  t->nusing = m;
  h->body = t->body;
  h->usings = t->usings;
}

/* Collects t's free variables afresh into h (its spine ends in h->last). */
static void htail_fv_init(LcuProgram *p, HTail *h, LcuThunk *t) {
  htail_fv_free(h);
  const char **all;
  int n = fus_free_vars(t->body, &all);
  h->nfvs = h->capfvs = fus_free_vars_before(t->body, h->last->args[1], &h->fvs);
  for (int i = 0; i < h->nfvs; i++) {
    if (i >= n || all[i] != h->fvs[i]) nz_die("fusion: the spine's free variables are not a prefix of the body's");
    nz_scope_push(&h->fvset, h->fvs[i]);
  }
  for (const LcuExpr *e = t->body; e->kind == LE_LET; e = e->args[1])
    for (int b = 0; b < e->nbinds; b++) nz_scope_push(&h->spine, e->binds[b].name);
  h->nfvt = n - h->nfvs;
  h->fvt = nz_xmalloc(sizeof(const char *) * (size_t)(h->nfvt ? h->nfvt : 1));
  if (h->nfvt) memcpy(h->fvt, all + h->nfvs, sizeof(const char *) * (size_t)h->nfvt);
  free(all);
  htail_usings(p, h, t);
}

/* B's body bb went in before the tuple of t (in place): its free variables
 * join the spine's. None is bound by the spine (spine_tail). */
static void htail_fv_add(LcuProgram *p, HTail *h, LcuThunk *t, const LcuExpr *bb) {
  for (int b = 0; b < h->last->nbinds; b++) nz_scope_push(&h->spine, h->last->binds[b].name);
  const char **fb;
  int n = fus_free_vars(bb, &fb);
  for (int i = 0; i < n; i++) {
    if (nz_scope_find(&h->fvset, fb[i], h->fvset.n) >= 0) continue;
    if (h->nfvs == h->capfvs) {
      h->capfvs = h->capfvs ? 2 * h->capfvs : 8;
      h->fvs = nz_xrealloc(h->fvs, sizeof(const char *) * (size_t)h->capfvs);
    }
    h->fvs[h->nfvs++] = fb[i];
    nz_scope_push(&h->fvset, fb[i]);
  }
  free(fb);
  htail_usings(p, h, t);
}

static HTail *find_tail(HTails *ht, const LcuThunk *t) {
  for (int k = 0; k < ht->n; k++)
    if (ht->v[k].t == t) return &ht->v[k];
  return NULL;
}

/* Is h's record of t's body current (see HTail)? Then its spine is the one
 * recorded, extended in place by merges, and ends at h->last. */
static int htail_current(const HTail *h, const LcuThunk *t) {
  return h && h->body && h->body == t->body && h->usings == t->usings;
}

/* The last let of t's spine if merge_horizontal made it and it is still
 * there, still ending in the tuple of t's na components; else NULL. */
static LcuExpr *own_tail(HTails *ht, const LcuThunk *t, int na) {
  HTail *h = find_tail(ht, t);
  if (!h) return NULL;
  const LcuExpr *e = t->body;
  while (e->kind == LE_LET && e != h->last) e = e->args[1];
  if (e != h->last || h->last->args[1]->kind != LE_TUPLE || h->last->args[1]->nargs != na) return NULL;
  return h->last;
}

/* A's binders and reduction operators get B's, appended. */
static void merge_outputs(LcuProgram *p, HTail *h, LcuSoac *A, const LcuSoac *B) {
  int nb = A->nbinds + B->nbinds, nr = A->nrops + B->nrops;
  if (A->binds != h->binds || nb > h->bcap) {
    h->bcap = 2 * nb;
    h->binds = lcu_binders(p, h->bcap);
    memcpy(h->binds, A->binds, sizeof(LcuBinder) * (size_t)A->nbinds);
  }
  memcpy(h->binds + A->nbinds, B->binds, sizeof(LcuBinder) * (size_t)B->nbinds);
  A->binds = h->binds;
  A->nbinds = nb;
  if (A->nrops || B->nrops) {
    if (A->rops != h->rops || nr > h->rcap) {
      h->rcap = 2 * nr;
      h->rops = NZ_NEWN(p->arena, LcuRop, h->rcap);
      memcpy(h->rops, A->rops, sizeof(LcuRop) * (size_t)A->nrops);
    }
    memcpy(h->rops + A->nrops, B->rops, sizeof(LcuRop) * (size_t)B->nrops);
    A->rops = h->rops;
    A->nrops = nr;
  }
}

/* Horizontal: A and B become one SOAC in A's place. B's body, instantiated
 * at A's index, goes at the tail of A's body: when that tail is the tuple of
 * A's components (A is itself a merge, or returns a tuple literal), the
 * tuple gets B's components, so a kernel of k merged siblings has a body of
 * k lets, not k nested destructurings of 1, 2, ..., k-1 components: that
 * was quadratic in size and in time (500 sibling MAPs: 1.8 s and 0.5 GB to
 * fuse, 1000: 29 s and 4 GB to fuse and run). A's body is not copied. When
 * A's thunk is one this built (ht), its spine is extended in place; else
 * the spine is copied (respine) and the new thunk noted. Copying it, and
 * the binders, at every merge of a group of k siblings allocated memory
 * quadratic in k (4000 siblings: 0.8 GB). */
static void merge_horizontal(LcuProgram *p, FusNames *names, HTails *ht, LcuSoac *A, const LcuSoac *B) {
  NzLoc loc = A->thunks[0]->loc;
  int na = thunk_arity(A), nb = thunk_arity(B);
  int np = A->kind == LS_ONCE ? 0 : 1;
  LcuThunk *ta = A->thunks[0];
  const LcuThunk *tb = B->thunks[0];
  const char *j = np ? ta->params[0].name : NULL;
  /* spine_tail and own_tail walk the spine; a current record answers both
   * from its sets (walking thousands of lets per merge was most of fusing
   * 10000 siblings) */
  HTail *h0 = find_tail(ht, ta);
  int cur = htail_current(h0, ta), clash = np && captures(tb, j);
  if (cur && !clash) {
    clash = j && nz_scope_find(&h0->spine, j, h0->spine.n) >= 0;
    for (int u = 0; u < tb->nusing && !clash; u++) clash = nz_scope_find(&h0->spine, tb->usings[u].name, h0->spine.n) >= 0;
  }
  const LcuExpr *tail = clash ? NULL : cur ? h0->last->args[1] : spine_tail(ta->body, tb, j);
  LcuBinder *y = fresh_binders(p, names, nb, "y", loc);
  LcuExpr *mine = !tail ? NULL
                  : cur ? (tail->kind == LE_TUPLE && tail->nargs == na ? h0->last : NULL)
                        : own_tail(ht, ta, na),
          *body = NULL, *last, *bb = NULL;
  if (!tail) { /* a name clash: both bodies copied at a fresh index, side by side */
    j = np ? fus_fresh(names, "j") : NULL;
    LcuBinder *x = fresh_binders(p, names, na, "x", loc);
    LcuExpr **all = lcu_exprs(p, na + nb);
    for (int k = 0; k < na; k++) all[k] = lcu_var(p, x[k].name, loc);
    for (int k = 0; k < nb; k++) all[na + k] = lcu_var(p, y[k].name, loc);
    last = lcu_let(p, nb, y, body_at(p, names, tb, np, &j), lcu_tuple(p, na + nb, all, loc), loc);
    body = lcu_let(p, na, x, body_at(p, names, ta, np, &j), last, loc);
  } else {
    bb = body_at(p, names, tb, np, &j);
    const LcuExpr *tup = mine ? mine->args[1] : tail;
    if (mine && tup->kind == LE_TUPLE && tup->nargs == na) {
      /* in place: the same thunk, one more let, and the tuple's entries
       * appended to a buffer that grows by doubling (a new array of all of
       * them per merge was quadratic: 4300 siblings, 150 MB) */
      if (tup->args != h0->targs || na + nb > h0->tcap) {
        h0->tcap = 2 * (na + nb);
        LcuExpr **buf = lcu_exprs(p, h0->tcap);
        memcpy(buf, tup->args, sizeof(LcuExpr *) * (size_t)na);
        h0->targs = buf;
      }
      for (int k = 0; k < nb; k++) h0->targs[na + k] = lcu_var(p, y[k].name, loc);
      LcuExpr *nt = lcu_expr_new(p, LE_TUPLE, loc);
      nt->nargs = na + nb;
      nt->args = h0->targs;
      last = lcu_let(p, nb, y, bb, nt, loc);
      mine->args[1] = last;
    } else if (tup->kind == LE_TUPLE && tup->nargs == na) {
      LcuExpr **all = lcu_exprs(p, na + nb);
      for (int k = 0; k < na; k++) all[k] = tup->args[k];
      for (int k = 0; k < nb; k++) all[na + k] = lcu_var(p, y[k].name, loc);
      last = lcu_let(p, nb, y, bb, lcu_tuple(p, na + nb, all, loc), loc);
      body = respine(p, ta->body, last);
    } else {
      LcuExpr **all = lcu_exprs(p, na + nb);
      LcuBinder *x = fresh_binders(p, names, na, "x", loc);
      for (int k = 0; k < na; k++) all[k] = lcu_var(p, x[k].name, loc);
      for (int k = 0; k < nb; k++) all[na + k] = lcu_var(p, y[k].name, loc);
      last = lcu_let(p, nb, y, bb, lcu_tuple(p, na + nb, all, loc), loc);
      body = lcu_let(p, na, x, ta->body, last, loc);
    }
  }
  HTail *h = find_tail(ht, ta);
  if (body) { /* a new thunk */
    LcuBinder jb = lcu_binder(j ? j : "j", NULL, loc);
    LcuThunk *t = lcu_thunk_new(p, np, &jb, body, 0, NULL, loc);
    HTail fresh = {.t = t,
                   .last = last,
                   .binds = h ? h->binds : NULL,
                   .rops = h ? h->rops : NULL,
                   .bcap = h ? h->bcap : 0,
                   .rcap = h ? h->rcap : 0};
    if (h) {
      htail_fv_free(h);
      *h = fresh;
    } else {
      nz_vec_push(*ht, fresh);
      h = &ht->v[ht->n - 1];
    }
    A->thunks[0] = ta = t;
    htail_fv_init(p, h, ta);
  } else {
    h->last = last;
    if (h->body == ta->body && h->usings == ta->usings) htail_fv_add(p, h, ta, bb);
    else htail_fv_init(p, h, ta);
  }
  merge_outputs(p, h, A, B);
}

/* ------------------------------------------------- kernel-level passes */

typedef NZ_VEC(LcuSoac) SoacVec;

/* Who reads whom inside a kernel: prod[start[c] .. start[c+1]) lists, in
 * ascending order and once each, the SOACs whose binders SOAC c refers to
 * (c reads an output of q). Built from a map of binder names, in time linear in the
 * names: testing every pair of SOACs this way, for every rule tried and every
 * merge, made fusing a kernel of k siblings cost about k^4 binder
 * comparisons (2000 siblings: 4.7 s). */
typedef struct {
  int n, *start, *prod;
} Deps;

static void deps_free(Deps *d) {
  free(d->start), free(d->prod);
  *d = (Deps){0};
}

/* Notes in buf the SOAC binding x (owner[entry of x in ix]), if any and not c. */
static void note_ref(const NzScopeIndex *ix, const int *owner, const char *x, int c, int *buf, int *nb) {
  int e = x ? nz_scope_find(ix, x, ix->n) : -1;
  if (e >= 0 && owner[e] != c) buf[(*nb)++] = owner[e];
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static void deps_build(Deps *d, const SoacVec *v) {
  int n = v->n, nbind = 0, nref = 0;
  for (int i = 0; i < n; i++) {
    nbind += v->v[i].nbinds;
    for (int t = 0; t < v->v[i].nthunks; t++) nref += v->v[i].thunks[t]->nusing;
    nref += 2;
  }
  NzScopeIndex ix = {0}; /* binder names (unique in a kernel) */
  int *owner = nz_xmalloc(sizeof(int) * (size_t)(nbind ? nbind : 1));
  for (int i = 0; i < n; i++)
    for (int b = 0; b < v->v[i].nbinds; b++) {
      owner[ix.n] = i;
      nz_scope_push(&ix, v->v[i].binds[b].name);
    }
  d->n = n;
  d->start = nz_xmalloc(sizeof(int) * (size_t)(n + 1));
  d->prod = nz_xmalloc(sizeof(int) * (size_t)(nref ? nref : 1));
  int m = 0;
  for (int c = 0; c < n; c++) {
    const LcuSoac *s = &v->v[c];
    int *buf = d->prod + m, nb = 0;
    d->start[c] = m;
    for (int t = 0; t < s->nthunks; t++)
      for (int u = 0; u < s->thunks[t]->nusing; u++) note_ref(&ix, owner, s->thunks[t]->usings[u].name, c, buf, &nb);
    if (s->size.kind == LZ_VAR || s->size.kind == LZ_LEN) note_ref(&ix, owner, s->size.name, c, buf, &nb);
    if (s->outlen.kind == LZ_VAR || s->outlen.kind == LZ_LEN) note_ref(&ix, owner, s->outlen.name, c, buf, &nb);
    qsort(buf, (size_t)nb, sizeof(int), cmp_int);
    int k = 0;
    for (int x = 0; x < nb; x++)
      if (k == 0 || buf[k - 1] != buf[x]) buf[k++] = buf[x];
    m += k;
  }
  d->start[n] = m;
  nz_scope_free(&ix);
  free(owner);
}

/* A min-heap of ints (the stable topological orders below). */
static void heap_push(int *heap, int *nh, int x) {
  int k = (*nh)++;
  for (; k > 0 && heap[(k - 1) / 2] > x; k = (k - 1) / 2) heap[k] = heap[(k - 1) / 2];
  heap[k] = x;
}

static int heap_pop(int *heap, int *nh) {
  int top = heap[0], last = heap[--*nh], k = 0;
  for (;;) { /* sift last down from the root */
    int c = 2 * k + 1;
    if (c >= *nh) break;
    if (c + 1 < *nh && heap[c + 1] < heap[c]) c++;
    if (heap[c] >= last) break;
    heap[k] = heap[c], k = c;
  }
  if (*nh > 0) heap[k] = last;
  return top;
}

/* Stable topological order (a merged SOAC may need its sibling's inputs):
 * repeatedly the first SOAC, in the current order, whose producers are all
 * placed (a heap of the ready ones by position). */
static void toposort(SoacVec *v) {
  int n = v->n;
  Deps d;
  deps_build(&d, v);
  int *indeg = nz_xcalloc((size_t)(n ? n : 1), sizeof(int)), *cstart = nz_xcalloc((size_t)n + 1, sizeof(int));
  int *cons = nz_xmalloc(sizeof(int) * (size_t)(d.start[n] ? d.start[n] : 1)), *heap = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int c = 0; c < n; c++) {
    indeg[c] = d.start[c + 1] - d.start[c];
    for (int e = d.start[c]; e < d.start[c + 1]; e++) cstart[d.prod[e] + 1]++;
  }
  for (int q = 0; q < n; q++) cstart[q + 1] += cstart[q];
  int *fill = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  memcpy(fill, cstart, sizeof(int) * (size_t)(n ? n : 1));
  for (int c = 0; c < n; c++)
    for (int e = d.start[c]; e < d.start[c + 1]; e++) cons[fill[d.prod[e]]++] = c;
  int nh = 0;
  for (int i = 0; i < n; i++)
    if (!indeg[i]) heap_push(heap, &nh, i);
  SoacVec out = {0};
  while (nh > 0) {
    int pick = heap_pop(heap, &nh);
    nz_vec_push(out, v->v[pick]);
    for (int e = cstart[pick]; e < cstart[pick + 1]; e++)
      if (--indeg[cons[e]] == 0) heap_push(heap, &nh, cons[e]);
  }
  if (out.n != n) nz_die("fusion: cyclic SOAC dependences inside a fused kernel");
  free(indeg), free(cstart), free(cons), free(heap), free(fill);
  deps_free(&d);
  nz_vec_free(*v);
  *v = out;
}

/* Adds the names SOAC s reads (what soac_refs tests for) to the set. */
static void add_refs(NzScopeIndex *live, const LcuSoac *s) {
  for (int t = 0; t < s->nthunks; t++)
    for (int u = 0; u < s->thunks[t]->nusing; u++) nz_scope_push(live, s->thunks[t]->usings[u].name);
  if (s->size.kind == LZ_VAR || s->size.kind == LZ_LEN) nz_scope_push(live, s->size.name);
  if (s->outlen.kind == LZ_VAR || s->outlen.kind == LZ_LEN) nz_scope_push(live, s->outlen.name);
}

static int in_set(const NzScopeIndex *live, const char *x) { return nz_scope_find(live, x, INT_MAX) >= 0; }

/* Drops SOACs nothing reads and unread components of tuple-producing SOACs
 * whose components are independent (MAP, ONCE, REDUCE, SCAN, SEG*). One
 * pass from the last SOAC back, with the set of names the kernel returns
 * or a kept later SOAC reads (asking every later SOAC for every binder made
 * this quadratic in a kernel's SOACs, and it runs after every merge: a
 * fused cluster of 1400 invocations spent 2 s here). */
static void dead_code(LcuProgram *p, FusNames *names, const LcuKernel *k, SoacVec *v) {
  NzScopeIndex live = {0};
  for (int r = 0; r < k->nrets; r++) nz_scope_push(&live, k->rets[r].name);
  int kept = v->n; /* v[kept..n) holds the SOACs kept so far, in order */
  for (int i = v->n - 1; i >= 0; i--) {
    LcuSoac *s = &v->v[i];
    int nlive = 0;
    for (int b = 0; b < s->nbinds; b++) nlive += in_set(&live, s->binds[b].name);
    if (nlive == 0) continue;
    if (nlive < s->nbinds && mergeable_kind(s->kind)) {
      LcuThunk *t = s->thunks[0];
      int n = s->nbinds;
      LcuBinder *c = fresh_binders(p, names, n, "c", t->loc);
      LcuExpr **keep = lcu_exprs(p, nlive);
      LcuBinder *nb = lcu_binders(p, nlive);
      LcuRop *nr = s->nrops ? NZ_NEWN(p->arena, LcuRop, nlive) : NULL;
      int m = 0;
      for (int b = 0; b < n; b++) {
        if (!in_set(&live, s->binds[b].name)) continue;
        keep[m] = lcu_var(p, c[b].name, t->loc);
        nb[m] = s->binds[b];
        if (nr) nr[m] = s->rops[b];
        m++;
      }
      t->body = lcu_let(p, n, c, t->body, lcu_tuple(p, nlive, keep, t->loc), t->loc);
      s->binds = nb;
      s->nbinds = nlive;
      if (nr) {
        s->rops = nr;
        s->nrops = nlive;
      }
    }
    add_refs(&live, s);
    v->v[--kept] = *s;
  }
  memmove(v->v, v->v + kept, sizeof(LcuSoac) * (size_t)(v->n - kept));
  v->n -= kept;
  nz_scope_free(&live);
}

/* An int list per SOAC (horizontal's producers and consumers). */
typedef struct {
  int *v, n, cap;
} IdList;

static void idl_add(IdList *l, int x) { /* once */
  for (int i = 0; i < l->n; i++)
    if (l->v[i] == x) return;
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 4;
    l->v = nz_xrealloc(l->v, sizeof(int) * (size_t)l->cap);
  }
  l->v[l->n++] = x;
}

static void idl_drop(IdList *l, int x) {
  for (int i = 0; i < l->n; i++)
    if (l->v[i] == x) {
      l->v[i] = l->v[--l->n];
      return;
    }
}

/* Sets in bits every SOAC that depends on s, transitively (cons: consumers). */
static void descendants(const IdList *cons, int s, uint64_t *bits, int *stack) {
  int sp = 0;
  stack[sp++] = s;
  while (sp > 0) {
    int x = stack[--sp];
    for (int i = 0; i < cons[x].n; i++) {
      int c = cons[x].v[i];
      if (bits[c >> 6] >> (c & 63) & 1) continue;
      bits[c >> 6] |= (uint64_t)1 << (c & 63);
      stack[sp++] = c;
    }
  }
}

/* The horizontal merges of a kernel whose vertical rules are done: the
 * first pair (a, b) in order, of one mergeable kind and space, b not
 * depending on a, merges B into A; then the SOACs are put in stable
 * topological order again, and so on until no pair is left. This is what
 * fus_lcu_fuse_kernel's loop did one merge per round, rebuilding the
 * dependences, their closure and the order each time (k siblings cost
 * k^2 log k; 30000 siblings took minutes); here they are kept up to date
 * across merges, and the rounds it skips found nothing to do:
 *  - no vertical rule applies after a horizontal merge: the merged SOAC is
 *    a MAP, REDUCE, SCAN, ONCE or SEG* like its parts, so it is never a
 *    FILTER/PERMUTE producer, MAP and ONCE edges were fused already, and a
 *    FILTER/PERMUTE into a merged REDUCE needs no identity element and a
 *    strict read in both parts' bodies, which the parts alone failed;
 *  - dead-code elimination had left every binder live, and a merge keeps
 *    every reader of every binder (after the merged SOAC, in the order);
 *  - SOACs before a had no partner, and a merge only adds dependences, so
 *    they still have none: the scan goes on from a, and from b when the
 *    merged SOAC stays at a. It stays unless B read a SOAC placed between
 *    A and B; then the order is rebuilt (toposort) and the scan resumes at
 *    a, whose prefix the stable order keeps.
 * The merged SOAC's descendants are its parts' (no descendant of one part
 * reaches the other: they are independent). */
static void horizontal(LcuProgram *p, FusNames *names, HTails *ht, SoacVec *v) {
  int start = 0;
  for (int again = 1; again;) {
    again = 0;
    int n = v->n, W = (n + 63) / 64;
    Deps d;
    deps_build(&d, v);
    IdList *prod = nz_xcalloc((size_t)(n ? n : 1), sizeof(IdList)), *cons = nz_xcalloc((size_t)(n ? n : 1), sizeof(IdList));
    for (int c = 0; c < n; c++)
      for (int e = d.start[c]; e < d.start[c + 1]; e++) {
        idl_add(&prod[c], d.prod[e]);
        idl_add(&cons[d.prod[e]], c);
      }
    deps_free(&d);
    char *dead = nz_xcalloc((size_t)(n ? n : 1), 1);
    uint64_t *da = nz_xmalloc(sizeof(uint64_t) * (size_t)(W ? W : 1)), *db = nz_xmalloc(sizeof(uint64_t) * (size_t)(W ? W : 1));
    int *stack = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int a = start; a < n && !again; a++) {
      if (dead[a]) continue;
      memset(da, 0, sizeof(uint64_t) * (size_t)W);
      descendants(cons, a, da, stack);
      for (int b = a + 1; b < n && !again; b++) {
        if (dead[b]) continue;
        LcuSoac *A = &v->v[a], *B = &v->v[b];
        int joins = map_joins(A, B) || map_joins(B, A);
        if (!(A->kind == B->kind && mergeable_kind(A->kind)) && !joins) continue;
        if (A->kind != LS_ONCE && !joins && !size_equal(&A->size, &B->size)) continue;
        if (da[b >> 6] >> (b & 63) & 1) continue;
        int moves = 0; /* B reads a SOAC placed after A: the merged one moves */
        for (int i = 0; i < prod[b].n; i++) moves |= prod[b].v[i] > a;
        memset(db, 0, sizeof(uint64_t) * (size_t)W);
        descendants(cons, b, db, stack);
        for (int w = 0; w < W; w++) da[w] |= db[w];
        if (map_joins(A, B)) as_id_components(p, A, B);
        else if (map_joins(B, A)) as_id_components(p, B, A);
        merge_horizontal(p, names, ht, A, B);
        dead[b] = 1;
        for (int i = 0; i < prod[b].n; i++) {
          int q = prod[b].v[i];
          idl_drop(&cons[q], b);
          idl_add(&cons[q], a);
          idl_add(&prod[a], q);
        }
        for (int i = 0; i < cons[b].n; i++) {
          int c = cons[b].v[i];
          idl_drop(&prod[c], b);
          idl_add(&prod[c], a);
          idl_add(&cons[a], c);
        }
        if (moves) again = 1, start = a;
      }
    }
    int m = 0, resume = start; /* drop the merged-away SOACs, in order */
    for (int x = 0; x < n; x++) {
      if (x == resume) start = m; /* the scan resumes at the same SOAC */
      if (!dead[x]) v->v[m++] = v->v[x];
    }
    v->n = m;
    if (again) toposort(v);
    for (int x = 0; x < n; x++) free(prod[x].v), free(cons[x].v);
    free(prod), free(cons), free(dead), free(da), free(db), free(stack);
  }
}

void fus_lcu_fuse_kernel(LcuProgram *p, FusNames *names, LcuKernel *k) {
  SoacVec v = {0};
  HTails ht = {0};
  for (int i = 0; i < k->nsoacs; i++) nz_vec_push(v, k->soacs[i]);
  for (int changed = 1; changed;) {
    changed = 0;
    dead_code(p, names, k, &v);
    /* vertical: FILTER/PERMUTE rules first (they need C's index untouched) */
    Deps d;
    deps_build(&d, &v);
    for (int pass = 0; pass < 2 && !changed; pass++)
      for (int c = 0; c < v.n && !changed; c++)
        for (int e = d.start[c]; e < d.start[c + 1] && !changed; e++) {
          int q = d.prod[e];
          if (q < c && try_vertical(p, names, &v.v[q], &v.v[c], pass)) changed = 1;
        }
    if (changed) {
      deps_free(&d);
      continue;
    }
    deps_free(&d);
    horizontal(p, names, &ht, &v);
  }
  dead_code(p, names, k, &v);
  for (int i = 0; i < v.n; i++)
    for (int t = 0; t < v.v[i].nthunks; t++) {
      fus_lcu_share_thunk(p, names, v.v[i].thunks[t]);
      fus_recapture(p, v.v[i].thunks[t]);
    }
  k->soacs = NZ_NEWN(p->arena, LcuSoac, v.n ? v.n : 1);
  memcpy(k->soacs, v.v, sizeof(LcuSoac) * (size_t)v.n);
  k->nsoacs = k->capsoacs = v.n;
  htails_free(&ht);
  nz_vec_free(v);
}

/* ------------------------------------------------------ region rewrite */

static LcuThunk *copy_thunk(LcuProgram *p, FusNames *names, const LcuThunk *t, const FusRen *map) {
  FusRen ren = {0};
  for (int i = 0; i < map->n; i++) fus_ren_add(&ren, map->from[i], map->to[i]);
  LcuBinder *params = lcu_binders(p, t->nparams);
  for (int i = 0; i < t->nparams; i++) {
    params[i] = lcu_binder(fus_fresh(names, t->params[i].name), NULL, t->loc);
    fus_ren_add(&ren, t->params[i].name, params[i].name);
  }
  LcuExpr *body = fus_copy_fresh(p, names, t->body, &ren);
  fus_ren_free(&ren);
  LcuThunk *c = lcu_thunk_new(p, t->nparams, params, body, 0, NULL, t->loc);
  fus_recapture(p, c);
  return c;
}

static LcuSize map_size(LcuSize z, const FusRen *map) {
  if (z.kind == LZ_VAR || z.kind == LZ_LEN) {
    const char *to = fus_ren_get(map, z.name);
    if (to) z.name = to;
  }
  return z;
}

typedef struct {
  int n;
  int *member; /* invocation indices, program order */
} Cluster;

int fus_lcu_rewrite(LcuProgram *p, FusNames *names, FusLcuRegion *r, const int *cl) {
  const FusGraph *g = r->graph;
  int n = r->ninv, ncl = 0;
  for (int i = 0; i < n; i++)
    if (cl[i] + 1 > ncl) ncl = cl[i] + 1;
  Cluster *C = nz_xcalloc((size_t)ncl, sizeof *C);
  for (int i = 0; i < n; i++) {
    Cluster *c = &C[cl[i]];
    c->member = nz_xrealloc(c->member, sizeof(int) * (size_t)(c->n + 1));
    c->member[c->n++] = i;
  }
  /* The region's lets: transparent scalar lets keep their order in front. */
  NZ_VEC(LcuExpr *) scalars = {0};
  LcuExpr *e = *r->head, *after = NULL;
  for (int l = 0; l < r->nlets; l++) {
    if (fus_lcu_let_kind(e) == FUS_LET_SCALAR) nz_vec_push(scalars, e);
    after = e->args[1];
    e = e->args[1];
  }
  /* Cluster order: topological in the contracted graph, earliest first
   * (the least-numbered cluster whose producers are placed: Kahn's order
   * with a heap). Testing every cluster against every pair of invocations
   * for each place was quartic: 4000 unfused siblings took 33 s. */
  int *order = nz_xcalloc((size_t)ncl + 1, sizeof(int));
  int *indeg = nz_xcalloc((size_t)ncl + 1, sizeof(int)), *heap = nz_xmalloc(sizeof(int) * ((size_t)ncl + 1));
  NZ_VEC(int) *succ = nz_xcalloc((size_t)ncl + 1, sizeof *succ);
  for (int v = 0; v < g->nvar; v++) {
    int q = g->var[v].producer;
    if (q < 0) continue;
    for (int u = 0; u < g->var[v].nconsumers; u++) {
      int a = cl[q], b = cl[g->var[v].consumers[u]];
      if (a == b) continue;
      nz_vec_push(succ[a], b);
      indeg[b]++;
    }
  }
  int nh = 0, nplaced = 0, nonempty = 0;
  for (int c = 0; c < ncl; c++)
    if (C[c].n > 0) {
      nonempty++;
      if (indeg[c] == 0) heap_push(heap, &nh, c);
    }
  while (nh > 0) {
    int pick = heap_pop(heap, &nh);
    order[nplaced++] = pick;
    for (int e = 0; e < succ[pick].n; e++)
      if (--indeg[succ[pick].v[e]] == 0) heap_push(heap, &nh, succ[pick].v[e]);
  }
  for (int c = 0; c < ncl; c++) nz_vec_free(succ[c]);
  free(succ), free(indeg), free(heap);
  if (nplaced < nonempty) {
    nz_error("fusion: the partition of region %d contracts to a cycle", r->index);
    free(order);
    for (int c = 0; c < ncl; c++) free(C[c].member);
    free(C);
    nz_vec_free(scalars);
    return -1;
  }
  /* One let per cluster. */
  LcuExpr **lets = nz_xcalloc((size_t)ncl, sizeof(LcuExpr *));
  for (int c = 0; c < ncl; c++) {
    Cluster *cc = &C[c];
    if (cc->n == 1) {
      lets[c] = r->inv[cc->member[0]].let;
      continue;
    }
    const FusLcuInv *first = &r->inv[cc->member[0]];
    NzLoc loc = first->let->loc;
    LcuKernel *k = lcu_kernel_add(p, fus_fresh(names, "fused"), first->kernel->loc);
    NZ_VEC(LcuBinder) params = {0};
    NZ_VEC(LcuBinder) outs = {0};
    /* One size atom per symbolic iteration space of the graph (the first
     * member's), so that equal spaces are also syntactically equal here. */
    LcuSize *rep = nz_xcalloc((size_t)(g->nsize + 1), sizeof(LcuSize));
    NZ_VEC(const LcuType *) outty = {0};
    for (int m = 0; m < cc->n; m++) {
      const FusLcuInv *inv = &r->inv[cc->member[m]];
      const LcuExpr *run = inv->let->args[0];
      const LcuKernel *mk = inv->kernel;
      FusRen map = {0};
      for (int a = 0; a < run->nargs; a++) {
        const char *arg = run->args[a]->name;
        fus_ren_add(&map, mk->params[a].name, arg);
        int v = fus_graph_find_var(g, arg), internal = 0;
        if (v >= 0 && g->var[v].producer >= 0 && cl[g->var[v].producer] == c) internal = 1;
        int dup = 0;
        for (int q = 0; q < params.n; q++) dup |= params.v[q].name == arg;
        if (!internal && !dup) nz_vec_push(params, lcu_binder(arg, mk->params[a].ty, loc));
      }
      const LcuSoac *s = &mk->soacs[0];
      for (int b = 0; b < s->nbinds; b++) {
        const char *def = NULL;
        for (int q = 0; q < mk->nrets; q++)
          if (mk->rets[q].name == s->binds[b].name) def = inv->let->binds[q].name;
        fus_ren_add(&map, s->binds[b].name, def ? def : fus_fresh(names, s->binds[b].name));
      }
      LcuSoac *ns = lcu_kernel_add_soac(p, k, s->kind, s->loc);
      *ns = *s;
      for (int t = 0; t < s->nthunks; t++) ns->thunks[t] = copy_thunk(p, names, s->thunks[t], &map);
      ns->binds = lcu_binders(p, s->nbinds);
      for (int b = 0; b < s->nbinds; b++) {
        ns->binds[b] = s->binds[b];
        ns->binds[b].name = fus_ren_get(&map, s->binds[b].name);
      }
      ns->size = map_size(s->size, &map);
      ns->outlen = map_size(s->outlen, &map);
      int sid = g->inv[cc->member[m]].size;
      ns->space = sid >= 0 && sid < g->nsize ? sid + 1 : 0;
      if (sid >= 0 && sid < g->nsize && s->kind != LS_ONCE && s->kind != LS_SEGREDUCE && s->kind != LS_SEGSCAN) {
        if (rep[sid].kind == LZ_NONE)
          rep[sid] = ns->size;
        else
          ns->size = rep[sid];
      }
      fus_ren_free(&map);
      /* Results needed outside the cluster. */
      for (int q = 0; q < inv->let->nbinds; q++) {
        const char *def = inv->let->binds[q].name;
        int v = fus_graph_find_var(g, def), needed = v < 0;
        if (v >= 0) {
          needed = g->var[v].live_out;
          for (int u = 0; u < g->var[v].nconsumers; u++) needed |= cl[g->var[v].consumers[u]] != c;
        }
        if (needed) {
          nz_vec_push(outs, lcu_binder(def, NULL, loc));
          nz_vec_push(outty, lcu_type_component(mk->ret, q));
        }
      }
    }
    if (outs.n == 0) { /* nothing read later: keep the last member's results */
      const FusLcuInv *inv = &r->inv[cc->member[cc->n - 1]];
      for (int q = 0; q < inv->let->nbinds; q++) {
        nz_vec_push(outs, lcu_binder(inv->let->binds[q].name, NULL, loc));
        nz_vec_push(outty, lcu_type_component(inv->kernel->ret, q));
      }
    }
    k->nparams = params.n;
    k->params = lcu_binders(p, params.n);
    if (params.n) memcpy(k->params, params.v, sizeof(LcuBinder) * (size_t)params.n); /* none: all literals */
    k->nrets = outs.n;
    k->rets = lcu_binders(p, outs.n);
    memcpy(k->rets, outs.v, sizeof(LcuBinder) * (size_t)outs.n);
    k->ret = lcu_type_tuple(outty.n, outty.v);
    fus_lcu_fuse_kernel(p, names, k);
    /* Inputs only a vanished SOAC read (e.g. a MAP's size) are dropped. */
    int kept = 0;
    for (int a = 0; a < params.n; a++) {
      int used = 0;
      for (int q = 0; q < k->nsoacs && !used; q++) used = soac_refs(&k->soacs[q], params.v[a].name);
      for (int q = 0; q < k->nrets && !used; q++) used = k->rets[q].name == params.v[a].name;
      if (used) params.v[kept++] = params.v[a];
    }
    params.n = kept;
    k->nparams = kept;
    if (kept) memcpy(k->params, params.v, sizeof(LcuBinder) * (size_t)kept);
    LcuExpr **args = lcu_exprs(p, params.n);
    for (int a = 0; a < params.n; a++) args[a] = lcu_var(p, params.v[a].name, loc);
    LcuBinder *bs = lcu_binders(p, outs.n);
    memcpy(bs, outs.v, sizeof(LcuBinder) * (size_t)outs.n);
    for (int b = 0; b < outs.n; b++) bs[b].slot = -1;
    lets[c] = lcu_let(p, outs.n, bs, lcu_run(p, k->name, params.n, args, loc), NULL, loc);
    nz_vec_free(params);
    nz_vec_free(outs);
    free(rep);
    nz_vec_free(outty);
  }
  /* Relink: scalars, clusters in order, then what followed the region. */
  LcuExpr **slot = r->head;
  for (int i = 0; i < scalars.n; i++) {
    *slot = scalars.v[i];
    slot = &scalars.v[i]->args[1];
  }
  for (int o = 0; o < nplaced; o++) {
    LcuExpr *l = lets[order[o]];
    if (!l) continue;
    *slot = l;
    slot = &l->args[1];
  }
  *slot = after;
  free(lets);
  free(order);
  for (int c = 0; c < ncl; c++) free(C[c].member);
  free(C);
  nz_vec_free(scalars);
  return 0;
}

static void mark_runs(const LcuExpr *e, FusNames *used) {
  if (e->kind == LE_RUN) fus_names_add(used, e->name);
  for (int i = 0; i < e->nargs; i++) mark_runs(e->args[i], used);
}

void fus_lcu_drop_unused_kernels(LcuProgram *p) {
  FusNames *used = fus_names_empty();
  for (int f = 0; f < p->nfuncs; f++) mark_runs(p->funcs[f]->body, used);
  int m = 0;
  for (int k = 0; k < p->nkernels; k++)
    if (fus_names_has(used, p->kernels[k]->name)) p->kernels[m++] = p->kernels[k];
  p->nkernels = m;
  fus_names_free(used);
}
