/* flan_lower.c — monomorphic NESL forms (compiler/mono/) to λcu: functions inlined or
 * made CPU functions, flattening of apply-to-each into contexts of lifted values, CPU
 * functions for scalar control and recursion (flan.h; compiler/flan/README.md). */
#include "flan_int.h"

/* ------------------------------------------------------------ utilities */

void flan_unsupported(Fl *F, NzLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  NzBuf b = {0};
  nz_buf_puts(&b, "not supported by the flattener yet: ");
  char tmp[512];
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  nz_buf_puts(&b, tmp);
  va_end(ap);
  if (loc.src) nz_error_at(loc, "%s", b.s);
  else nz_error("%s", b.s);
  nz_buf_free(&b);
  longjmp(F->fail, 1);
}

const char *flan_fresh(Fl *F, const char *prefix) {
  return nz_intern_numbered(prefix, strlen(prefix), (unsigned long)++F->counter);
}

FlComp *flan_comps(Fl *F, int n) { return NZ_NEWN(F->a, FlComp, n > 0 ? n : 1); }

LcuExpr *flan_v(Fl *F, FlComp c) { return lcu_var(F->p, c.name, F->uloc); }

/* ------------------------------------------------------------ rand's order */

/* The AST interpreter runs an apply-to-each's elements one after the other, so their
 * random draws come in element order, each element's draws together. Lifted code keeps
 * that order when the elements of an apply-to-each (its root context, nested contexts
 * included) make their draws through one rand_vec; anything else (two draws per element,
 * a draw in each branch of a conditional, a drawing recursive function called per
 * element, rand_seed per element) makes the apply-to-each run its elements one by one
 * (lower_each_serial). Found while lowering, so the form is lowered again with what was
 * learnt: the apply-to-each expressions to run one by one, the functions that draw. */
static NZ_VEC(NlExpr *) serial_each;
static NZ_VEC(const NlDecl *) draw_decls; /* source functions */

static bool in_set(void *const *v, int n, const void *x) {
  for (int i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

void flan_note_draw(Fl *F, int w) {
  F->any_draw = F->fn_draws = true;
  FlCtx *c = F->ctx;
  if (!c || !w) return;
  while (c->parent) c = c->parent;
  c->draws += w;
}

static FlBlk *blk_new(Fl *F) {
  FlBlk *b = nz_xcalloc(1, sizeof *b);
  nz_vec_push(F->blks, b);
  return b;
}

void flan_emitn(Fl *F, FlBlk *b, int n, const LcuType **tys, FlComp *out, LcuExpr *rhs) {
  FlBind x;
  x.n = n;
  x.b = lcu_binders(F->p, n);
  for (int i = 0; i < n; i++) {
    out[i].name = flan_fresh(F, "t");
    out[i].ty = tys[i];
    x.b[i] = lcu_binder(out[i].name, NULL, F->uloc);
  }
  x.rhs = rhs;
  flan_defer_before(F, b, &x);
  nz_vec_push(b->v, x);
}

FlComp flan_emit(Fl *F, FlBlk *b, const LcuType *ty, LcuExpr *rhs) {
  FlComp c;
  flan_emitn(F, b, 1, &ty, &c, rhs);
  return c;
}

static LcuExpr *tuple_of(Fl *F, int n, const FlComp *c) {
  if (n == 1) return flan_v(F, c[0]);
  LcuExpr **a = lcu_exprs(F->p, n);
  for (int i = 0; i < n; i++) a[i] = flan_v(F, c[i]);
  return lcu_tuple(F->p, n, a, F->uloc);
}

static LcuExpr *blk_close(Fl *F, FlBlk *b, LcuExpr *result) {
  flan_defer_flush(F, b);
  LcuExpr *e = result;
  for (int i = b->v.n - 1; i >= 0; i--)
    e = lcu_let(F->p, b->v.v[i].n, b->v.v[i].b, b->v.v[i].rhs, e, F->uloc);
  return e;
}

FlComp flan_int_lit(Fl *F, int32_t k) {
  return flan_emit(F, F->blk, lcu_type_base(LT_INT), lcu_int(F->p, k, F->uloc));
}

/* Number of rows of a vector whose first component is c: the size the SOAC that made
 * it ran over when known (so that fusion sees equal iteration spaces), else #c. */
FlComp flan_rows(Fl *F, FlComp c) {
  for (int i = F->shapes.n - 1; i >= 0; i--)
    if (F->shapes.v[i].src->name == c.name) return *F->shapes.v[i].dst;
  LcuExpr *v = flan_v(F, c);
  return flan_emit(F, F->blk, lcu_type_base(LT_INT), lcu_prim(F->p, LP_LENGTH, 1, &v, F->uloc));
}

static int nc(FlVal v) { return flan_ncomp(v.t, v.ctx != NULL); }

static FlCtx *ctx_new(Fl *F, FlCtx *parent, int kind) {
  FlCtx *c = NZ_NEW(F->a, FlCtx);
  c->parent = parent;
  c->kind = kind;
  c->blk = F->blk;
  nz_vec_push(F->ctxs, c);
  return c;
}

/* ------------------------------------------------- lifting and derivation */

/* v, lifted in an ancestor of c, brought to c: rows replicated per segment (CX_SEG)
 * or packed (CX_PACK). The code goes to c's block, and is cached there. */
FlVal flan_derive(Fl *F, FlVal v, FlCtx *c) {
  if (!v.ctx || v.ctx == c) return v;
  if (flan_ncomp(v.t, true) == 0) return (FlVal){v.t, c, NULL};
  if (!c || !c->parent) nz_die("flan: a lifted value outside its context");
  for (int i = 0; i < c->cache.n; i++)
    if (c->cache.v[i].src == v.c && c->cache.v[i].t == v.t) return (FlVal){v.t, c, c->cache.v[i].dst};
  FlVal up = flan_derive(F, v, c->parent);
  FlBlk *saved = F->blk;
  F->blk = c->blk;
  FlVal r = {v.t, c, flan_comps(F, nc(v))};
  FlComp *srcs[1] = {up.c};
  if (c->kind == CX_PACK) {
    flan_gather(F, v.t, 1, srcs, NULL, c->idx, c->n, r.c);
  } else {
    FlKb k;
    flan_kb_init(&k, F);
    LcuExpr *a[2] = {flan_kc(&k, c->sd), flan_kix(&k)};
    FlComp owner = flan_kb_map1(&k, c->n, lcu_prim(F->p, LP_SEG_OF, 2, a, F->uloc), LT_INT);
    flan_gather(F, v.t, 1, srcs, NULL, owner, c->n, r.c);
  }
  F->blk = saved;
  FlCache e = {v.c, r.c, v.t};
  nz_vec_push(c->cache, e);
  return r;
}

/* An unlifted value as one row of a vector (vrep with one element). */
FlComp *flan_row_wrap(Fl *F, FlVal v) {
  FlComp *out = flan_comps(F, flan_ncomp(v.t, true));
  LcuProgram *p = F->p;
  int k = 0;
  switch (v.t->k) {
  case FT_PAIR: {
    FlVal a = {v.t->a, NULL, v.c}, b = {v.t->b, NULL, v.c + flan_ncomp(v.t->a, false)};
    FlComp *ra = flan_row_wrap(F, a), *rb = flan_row_wrap(F, b);
    int na = flan_ncomp(v.t->a, true), nb = flan_ncomp(v.t->b, true);
    memcpy(out, ra, sizeof(FlComp) * (size_t)na);
    memcpy(out + na, rb, sizeof(FlComp) * (size_t)nb);
    return out;
  }
  case FT_SEQ: {
    FlComp n = flan_rows(F, v.c[0]);
    LcuExpr *lit = lcu_expr_new(p, LE_ARRAY, F->uloc);
    lit->nargs = 1;
    lit->args = lcu_exprs(p, 1);
    lit->args[0] = flan_v(F, n);
    out[k++] = flan_emit(F, F->blk, lcu_type_base(LT_SEGDES), lcu_prim(p, LP_MAKE_SEGDES, 1, &lit, F->uloc));
    memcpy(out + k, v.c, sizeof(FlComp) * (size_t)flan_ncomp(v.t, false));
    return out;
  }
  default: {
    LcuExpr *lit = lcu_expr_new(p, LE_ARRAY, F->uloc);
    lit->nargs = 1;
    lit->args = lcu_exprs(p, 1);
    lit->args[0] = flan_v(F, v.c[0]);
    out[0] = flan_emit(F, F->blk, lcu_type_array(flan_ty_lcu_base(v.t)), lit);
    return out;
  }
  }
}

/* An unlifted value replicated over the elements of c (lifted values are derived). */
FlVal flan_lift(Fl *F, FlVal v, FlCtx *c) {
  if (v.ctx) return flan_derive(F, v, c);
  if (flan_ncomp(v.t, true) == 0) return (FlVal){v.t, c, NULL};
  FlVal r = {v.t, c, flan_comps(F, flan_ncomp(v.t, true))};
  if (flan_ty_is_base(v.t)) {
    FlKb k;
    flan_kb_init(&k, F);
    r.c[0] = flan_kb_map1(&k, c->n, flan_kc(&k, v.c[0]), flan_ty_lcu_base(v.t));
    return r;
  }
  FlComp *row = flan_row_wrap(F, v);
  FlKb k;
  flan_kb_init(&k, F);
  FlComp zero = flan_kb_map1(&k, c->n, lcu_int(F->p, 0, F->uloc), LT_INT);
  FlComp *srcs[1] = {row};
  flan_gather(F, v.t, 1, srcs, NULL, zero, c->n, r.c);
  return r;
}

/* ------------------------------------------------------------ expressions */

static FlVal lower(Fl *F, NlExpr *e);

static FlVal split_a(FlVal v) { return (FlVal){v.t->a, v.ctx, v.c}; }
static FlVal split_b(FlVal v) {
  return (FlVal){v.t->b, v.ctx, v.c + flan_ncomp(v.t->a, v.ctx != NULL)};
}

static void bind_pat(Fl *F, NlPat *q, FlVal v) {
  switch (q->k) {
  case P_VAR:
    if (q->slot < 0 || q->slot >= F->nslots) nz_die("flan: pattern slot out of range");
    F->slots[q->slot] = v;
    return;
  case P_PAIR:
    bind_pat(F, q->a, split_a(v));
    bind_pat(F, q->b, split_b(v));
    return;
  case P_CON: bind_pat(F, q->a, v); return;
  }
}

static FlVal lower(Fl *F, NlExpr *e);

/* A pattern bound to a tuple expression component by component, so that an unlifted
 * component is not lifted with a lifted one (as the interpreter's bind_expr). */
static void bind_expr(Fl *F, NlPat *q, NlExpr *e) {
  if (q->k == P_PAIR && e->k == E_PAIR) {
    bind_expr(F, q->a, e->a);
    bind_expr(F, q->b, e->b);
  } else {
    bind_pat(F, q, lower(F, e));
  }
}

static const FlTy *ty(Fl *F, NlType *t, NzLoc loc) {
  const FlTy *r = flan_ty_of(t);
  if (!r) flan_unsupported(F, loc, "a value of function type");
  return r;
}

/* A literal scalar. */
static FlVal scalar_lit(Fl *F, const FlTy *t, LcuExpr *e) {
  FlVal r = {t, NULL, flan_comps(F, 1)};
  r.c[0] = flan_emit(F, F->blk, lcu_type_base(flan_ty_lcu_base(t)), e);
  return r;
}

/* Both values in the same context (the deeper one's), lifting as needed. */
static FlCtx *join_ctx(Fl *F, FlVal *a, int n) {
  FlCtx *c = NULL;
  for (int i = 0; i < n; i++)
    if (a[i].ctx) c = F->ctx;
  if (c)
    for (int i = 0; i < n; i++) a[i] = flan_lift(F, a[i], c);
  return c;
}

static FlVal concat_vals(Fl *F, const FlTy *t, FlVal a, FlVal b) {
  FlVal two[2] = {a, b};
  FlCtx *c = join_ctx(F, two, 2);
  FlVal r = {t, c, NULL};
  int na = nc(two[0]), nb = nc(two[1]);
  r.c = flan_comps(F, na + nb);
  memcpy(r.c, two[0].c, sizeof(FlComp) * (size_t)na);
  memcpy(r.c + na, two[1].c, sizeof(FlComp) * (size_t)nb);
  return r;
}

/* A top-level value read by this form: a parameter of main, or (inside a function)
 * its value as a literal. */
static FlVal global_val(Fl *F, int g, NlExpr *e);
static FlVal call(Fl *F, NlExpr *e);
static FlVal lower_if(Fl *F, NlExpr *e);
static FlVal lower_each(Fl *F, NlExpr *e);
static FlVal lower_seq(Fl *F, NlExpr *e);

/* ------------------------------------------------------------ closures */

/* A closure made inside a context is a vector of closures, one per element: its tag
 * (rep of a function: one int) is the element's index there, and the lifted values its
 * body reads are kept in that context (cap_derive). A call reads them at the tag's rows
 * (cap_rows), wherever the closures went since (a sequence of closures, a permutation). */
typedef FlVal (*FlCapFn)(Fl *F, FlVal v, void *arg);
static FlVal cap_pass(Fl *F, FlVal v, void *arg); /* every value read, lifted or not */

static void cap_walk(Fl *F, NlExpr *e, int depth, FlVal **orig, FlVal **nf, int *mx, int nups, FlCapFn fn,
                     void *arg) {
  if (!e) return;
  if (e->k == E_VAR && e->vk == VK_LOCAL && e->up > depth && e->up - depth - 1 < nups) {
    int k = e->up - depth - 1;
    if (!nf && e->slot > mx[k]) mx[k] = e->slot;
    if (nf) {
      FlVal v = orig[k][e->slot];
      if (v.t && (v.ctx || fn == cap_pass) && nf[k][e->slot].c == v.c) nf[k][e->slot] = fn(F, v, arg);
    }
  }
  int d = e->k == E_LAMBDA ? depth + 1 : depth;
  cap_walk(F, e->a, d, orig, nf, mx, nups, fn, arg);
  cap_walk(F, e->b, d, orig, nf, mx, nups, fn, arg);
  cap_walk(F, e->c, d, orig, nf, mx, nups, fn, arg);
  if (e->xs)
    for (int i = 0; i < e->n; i++) cap_walk(F, e->xs[i], d, orig, nf, mx, nups, fn, arg);
}

/* l's frames with fn applied to every lifted value its body reads. */
static FlVal **cap_frames(Fl *F, struct FlLambda *l, FlCapFn fn, void *arg) {
  int *mx = NZ_NEWN(F->a, int, l->nups);
  for (int k = 0; k < l->nups; k++) mx[k] = -1;
  cap_walk(F, l->e->a, 0, l->ups, NULL, mx, l->nups, fn, arg);
  FlVal **nf = NZ_NEWN(F->a, FlVal *, l->nups);
  for (int k = 0; k < l->nups; k++) {
    nf[k] = l->ups[k];
    if (mx[k] < 0) continue;
    nf[k] = NZ_NEWN(F->a, FlVal, mx[k] + 1);
    memcpy(nf[k], l->ups[k], sizeof(FlVal) * (size_t)(mx[k] + 1));
  }
  cap_walk(F, l->e->a, 0, l->ups, nf, mx, l->nups, fn, arg);
  return nf;
}

static FlVal cap_derive(Fl *F, FlVal v, void *arg) {
  (void)arg;
  return flan_derive(F, v, F->ctx);
}

static FlVal cap_rows(Fl *F, FlVal v, void *arg) {
  FlVal a[2] = {{flan_ty_seq(v.t), NULL, v.c}, *(FlVal *)arg};
  return flan_prim(F, "__elt", 2, a, v.t, F->uloc);
}

/* l's body reads variables around it (what a closure captures). */
static bool lambda_reads_frames(Fl *F, struct FlLambda *l) {
  int *mx = NZ_NEWN(F->a, int, l->nups > 0 ? l->nups : 1);
  for (int k = 0; k < l->nups; k++) mx[k] = -1;
  cap_walk(F, l->e->a, 0, l->ups, NULL, mx, l->nups, cap_pass, NULL);
  for (int k = 0; k < l->nups; k++)
    if (mx[k] >= 0) return true;
  return false;
}

/* The creation of lambda fnid that function value fv (NULL: not known) stands for. One
 * that reads nothing around it is the same closure wherever it was made: the newest.
 * Otherwise only those made in the λcu function being built can be called here; the
 * one whose tag fv is, else the only one. NULL if none, or (*several set) if several
 * could be (refused by the caller, after freeing what it holds). */
static const char *several_closures = "a call of one of several closures made by one lambda expression";
static struct FlLambda *find_lambda(Fl *F, int fnid, const FlVal *fv, bool *several) {
  struct FlLambda *only = NULL;
  int n = 0;
  *several = false;
  for (int i = F->lambdas.n - 1; i >= 0; i--) {
    struct FlLambda *l = &F->lambdas.v[i];
    if (l->fnid != fnid) continue;
    if (!lambda_reads_frames(F, l)) return l;
    if (i < F->lam_base) continue;
    if (fv && l->tag && fv->c[0].name == l->tag) return l;
    only = l;
    n++;
  }
  *several = n > 1;
  return n > 1 ? NULL : only;
}

static FlVal lower(Fl *F, NlExpr *e) {
  LcuProgram *p = F->p;
  NzLoc L = F->uloc;
  switch (e->k) {
  case E_INT: return scalar_lit(F, flan_ty_base(FT_INT), lcu_int(p, e->ival, L));
  case E_FLOAT: return scalar_lit(F, flan_ty_base(FT_FLOAT), lcu_float(p, e->fval, L));
  case E_BOOL: return scalar_lit(F, flan_ty_base(FT_BOOL), lcu_bool(p, e->ival, L));
  case E_CHAR: return scalar_lit(F, flan_ty_base(FT_CHAR), lcu_char(p, (unsigned char)e->ival, L));
  case E_STRING: {
    LcuExpr *lit = lcu_expr_new(p, LE_ARRAY, L);
    lit->opty = lcu_type_base(LT_CHAR);
    lit->nargs = e->slen;
    lit->args = lcu_exprs(p, e->slen);
    for (int i = 0; i < e->slen; i++) lit->args[i] = lcu_char(p, (unsigned char)e->name[i], L);
    FlVal r = {flan_ty_seq(flan_ty_base(FT_CHAR)), NULL, flan_comps(F, 1)};
    r.c[0] = flan_emit(F, F->blk, lcu_type_array(LT_CHAR), lit);
    return r;
  }
  case E_VAR:
    if (e->vk == VK_LOCAL) {
      if (e->up > F->nups) flan_unsupported(F, e->loc, "a variable of an enclosing function");
      FlVal v = e->up ? F->ups[e->up - 1][e->slot] : F->slots[e->slot];
      if (!v.t) nz_die("flan: unbound slot %d", e->slot);
      return v.ctx ? flan_derive(F, v, F->ctx) : v;
    }
    return global_val(F, e->slot, e);
  case E_PAIR: {
    FlVal a = lower(F, e->a), b = lower(F, e->b);
    return concat_vals(F, ty(F, e->ty, e->loc), a, b);
  }
  case E_CALL: return call(F, e);
  case E_IF: return lower_if(F, e);
  case E_LET:
    for (int i = 0; i < e->n; i++) bind_expr(F, e->pats[i], e->xs[i]);
    return lower(F, e->a);
  case E_SEQ: return lower_seq(F, e);
  case E_EMPTY: {
    const FlTy *t = ty(F, e->ty, e->loc);
    FlVal r = {t, NULL, flan_comps(F, flan_ncomp(t, false))};
    flan_empty(F, t->a, r.c);
    return r;
  }
  case E_RANGE: {
    NzLoc saved = F->uloc;
    FlVal a[3];
    a[0] = lower(F, e->a);
    a[2] = lower(F, e->b);
    a[1] = e->c ? lower(F, e->c) : scalar_lit(F, flan_ty_base(FT_INT), lcu_int(p, 1, L));
    if (e->user) F->uloc = e->loc;
    FlVal r = flan_prim(F, "__iseq", 3, a, ty(F, e->ty, e->loc), F->uloc);
    F->uloc = saved;
    return r;
  }
  case E_EACH: return lower_each(F, e);
  case E_LAMBDA: {
    const FlTy *t = ty(F, e->ty, e->loc);
    struct FlLambda l = {t->fnid, e, NULL, F->nups + 1, F->ctx, NULL};
    l.ups = NZ_NEWN(F->a, FlVal *, l.nups);
    l.ups[0] = NZ_NEWN(F->a, FlVal, F->nslots > 0 ? F->nslots : 1);
    memcpy(l.ups[0], F->slots, sizeof(FlVal) * (size_t)F->nslots);
    for (int i = 0; i < F->nups; i++) l.ups[i + 1] = F->ups[i];
    if (!F->ctx) {
      FlVal r = scalar_lit(F, t, lcu_int(p, t->fnid, L)); /* its tag */
      l.tag = r.c[0].name;
      nz_vec_push(F->lambdas, l);
      return r;
    }
    /* a closure per element: what it reads, in this context; its tag, the element */
    l.ups = cap_frames(F, &l, cap_derive, NULL);
    FlKb k;
    flan_kb_init(&k, F);
    FlVal r = {t, F->ctx, flan_comps(F, 1)};
    r.c[0] = flan_kb_map1(&k, F->ctx->n, flan_kix(&k), LT_INT);
    l.tag = r.c[0].name;
    nz_vec_push(F->lambdas, l);
    return r;
  }
  case E_TIME: {
    /* (e, seconds): the timer read before and after e's code (CPU effects keep it between) */
    FlComp t0 = flan_emit(F, F->blk, lcu_type_base(LT_FLOAT), lcu_prim(p, LP_TIMER, 0, NULL, L));
    FlVal v = lower(F, e->a);
    FlComp t1 = flan_emit(F, F->blk, lcu_type_base(LT_FLOAT), lcu_prim(p, LP_TIMER, 0, NULL, L));
    FlVal secs = scalar_lit(F, flan_ty_base(FT_FLOAT), lcu_prim2(p, LP_SUB, flan_v(F, t1), flan_v(F, t0), L));
    return concat_vals(F, ty(F, e->ty, e->loc), v, secs);
  }
  }
  nz_die("flan: bad expression kind %d", e->k);
}

/* Sequence literal: k unlifted values gathered from k one-row vectors; lifted ones
 * interleaved, row j*k+s coming from element s's row j. */
static FlVal lower_seq(Fl *F, NlExpr *e) {
  const FlTy *t = ty(F, e->ty, e->loc);
  int k = e->n;
  FlVal *xs = NZ_NEWN(F->a, FlVal, k);
  for (int i = 0; i < k; i++) xs[i] = lower(F, e->xs[i]);
  FlCtx *c = join_ctx(F, xs, k);
  LcuProgram *p = F->p;
  NzLoc L = F->uloc;
  FlComp **srcs = NZ_NEWN(F->a, FlComp *, k);
  if (!c) {
    FlVal r = {t, NULL, flan_comps(F, flan_ncomp(t, false))};
    if (flan_ty_is_base(t->a)) {
      LcuExpr *lit = lcu_expr_new(p, LE_ARRAY, L);
      lit->nargs = k;
      lit->args = lcu_exprs(p, k);
      for (int i = 0; i < k; i++) lit->args[i] = flan_v(F, xs[i].c[0]);
      r.c[0] = flan_emit(F, F->blk, lcu_type_array(flan_ty_lcu_base(t->a)), lit);
      return r;
    }
    for (int i = 0; i < k; i++) srcs[i] = flan_row_wrap(F, xs[i]);
    FlComp n = flan_int_lit(F, k);
    FlKb kb;
    flan_kb_init(&kb, F);
    FlComp sel = flan_kb_map1(&kb, n, flan_kix(&kb), LT_INT);
    flan_kb_init(&kb, F);
    FlComp zero = flan_kb_map1(&kb, n, lcu_int(p, 0, L), LT_INT);
    flan_gather(F, t->a, k, srcs, &sel, zero, n, r.c);
    return r;
  }
  FlVal r = {t, c, flan_comps(F, flan_ncomp(t, true))};
  for (int i = 0; i < k; i++) srcs[i] = xs[i].c;
  FlKb kb;
  flan_kb_init(&kb, F);
  FlComp lens = flan_kb_map1(&kb, c->n, lcu_int(p, k, L), LT_INT);
  LcuExpr *lv = flan_v(F, lens);
  r.c[0] = flan_emit(F, F->blk, lcu_type_base(LT_SEGDES), lcu_prim(p, LP_MAKE_SEGDES, 1, &lv, L));
  LcuExpr *sv = flan_v(F, r.c[0]);
  FlComp tot = flan_emit(F, F->blk, lcu_type_base(LT_INT), lcu_prim(p, LP_SEG_TOTAL, 1, &sv, L));
  flan_kb_init(&kb, F);
  FlComp sel = flan_kb_map1(&kb, tot, lcu_prim2(p, LP_MOD, flan_kix(&kb), lcu_int(p, k, L), L), LT_INT);
  flan_kb_init(&kb, F);
  FlComp src = flan_kb_map1(&kb, tot, lcu_prim2(p, LP_DIV, flan_kix(&kb), lcu_int(p, k, L), L), LT_INT);
  flan_gather(F, t->a, k, srcs, &sel, src, tot, r.c + 1);
  return r;
}

/* ---------------------------------------------------------- conditionals */

/* e lowered into block b in context c (lifted to c when lift is set). */
static FlVal lower_branch(Fl *F, NlExpr *e, FlCtx *c, FlBlk *b, bool lift) {
  FlBlk *sb = F->blk;
  FlCtx *sc = F->ctx;
  int nlam = F->lambdas.n;
  F->blk = b;
  F->ctx = c;
  FlVal v = lower(F, e);
  if (lift && c) v = flan_lift(F, v, c);
  F->blk = sb;
  F->ctx = sc;
  /* The lambdas made in the branch read its variables, which end with it: unless its
   * value holds functions, nothing after it calls them (a serial apply-to-each later
   * passes the lambdas made so far to its function, and must not pass these). */
  if (!flan_ty_has_fn(v.t)) F->lambdas.n = nlam;
  return v;
}

static LcuExpr *close_val(Fl *F, FlBlk *b, FlVal v) { return blk_close(F, b, tuple_of(F, nc(v), v.c)); }

/* e is __error("literal"): the basis' argument checks (zip, <-, take, split, ...) */
static bool error_call(Fl *F, NlExpr *e) {
  if (e->k != E_CALL || e->a->k != E_VAR || e->a->vk != VK_GLOBAL || e->b->k != E_STRING) return false;
  const NlVal *v = &F->env->globals.v[e->a->slot].val;
  return v->k == V_FN && v->fn->k == FN_PRIM && !strcmp(v->fn->prim->name, "__error");
}

/* `if c then __error(s) else x` (or the mirror) is the check `c` before x, deferred
 * (flan_defer.c) instead of a branch: x runs on every row, so the fault ends no
 * region. As __error itself, it faults only where some row of the context takes
 * that branch. */
static bool lower_if_error(Fl *F, NlExpr *e, FlVal c, FlVal *out) {
  int eb = error_call(F, e->b) ? 1 : error_call(F, e->c) ? 2 : 0;
  if (!eb) return false;
  LcuProgram *p = F->p;
  NzLoc L = F->uloc;
  NlExpr *err = eb == 1 ? e->b : e->c;
  NzLoc eloc = err->user ? err->loc : F->uloc;
  LcuExpr *bad;
  if (c.ctx) {
    FlKb k;
    flan_kb_init(&k, F);
    LcuExpr *ci = lcu_index(p, flan_kc(&k, c.c[0]), flan_kix(&k), L);
    c.c[0] = flan_any(&k, F->ctx->n, eb == 1 ? ci : lcu_prim(p, LP_NOT, 1, &ci, L));
    bad = flan_v(F, c.c[0]);
  } else {
    bad = flan_v(F, c.c[0]);
    if (eb == 2) bad = lcu_prim(p, LP_NOT, 1, &bad, L);
    if (F->ctx) bad = lcu_prim2(p, LP_ANDALSO, bad, lcu_prim2(p, LP_GT, flan_v(F, F->ctx->n), lcu_int(p, 0, L), L), L);
  }
  FlComp b = flan_emit(F, F->blk, lcu_type_base(LT_BOOL), bad);
  FlVal msg = lower(F, err->b);
  LcuExpr *a[2] = {flan_v(F, b), flan_v(F, msg.c[0])};
  flan_defer_push(F, F->blk, lcu_prim(p, LP_FAIL_IF, 2, a, eloc));
  *out = lower(F, eb == 1 ? e->c : e->b);
  return true;
}

static FlVal lower_if(Fl *F, NlExpr *e) {
  const FlTy *t = ty(F, e->ty, e->loc);
  FlVal c = lower(F, e->a);
  LcuProgram *p = F->p;
  NzLoc L = F->uloc;
  FlVal r0;
  if (lower_if_error(F, e, c, &r0)) return r0;
  if (!c.ctx) {
    /* a CPU branch; both sides lifted if either is */
    FlBlk *bt = blk_new(F), *be = blk_new(F);
    FlVal tv = lower_branch(F, e->b, F->ctx, bt, false);
    FlVal ev = lower_branch(F, e->c, F->ctx, be, false);
    if (tv.ctx && !ev.ctx) {
      FlBlk *sb = F->blk;
      F->blk = be;
      ev = flan_lift(F, ev, F->ctx);
      F->blk = sb;
    } else if (ev.ctx && !tv.ctx) {
      FlBlk *sb = F->blk;
      F->blk = bt;
      tv = flan_lift(F, tv, F->ctx);
      F->blk = sb;
    }
    LcuExpr *te = close_val(F, bt, tv), *ee = close_val(F, be, ev);
    int n = nc(tv);
    FlVal r = {t, tv.ctx, flan_comps(F, n)};
    const LcuType *tys[n > 0 ? n : 1];
    flan_comp_types(t, tv.ctx != NULL, tys);
    flan_emitn(F, F->blk, n, tys, r.c, lcu_if(p, flan_v(F, c.c[0]), te, ee, L));
    return r;
  }
  /* split the index space: each branch runs on its part, skipped when empty */
  FlCtx *C = F->ctx;
  FlKb k;
  flan_kb_init(&k, F);
  FlComp it = flan_kb_filter_index(&k, C->n, lcu_index(p, flan_kc(&k, c.c[0]), flan_kix(&k), L));
  flan_kb_init(&k, F);
  FlComp ie = flan_kb_filter_index(
      &k, C->n, lcu_prim(p, LP_NOT, 1, (LcuExpr *[]){lcu_index(p, flan_kc(&k, c.c[0]), flan_kix(&k), L)}, L));
  FlComp nt = flan_rows(F, it), ne = flan_rows(F, ie);
  int n = flan_ncomp(t, true);
  const LcuType *tys[n > 0 ? n : 1];
  flan_comp_types(t, true, tys);
  FlComp *res[2];
  for (int br = 0; br < 2; br++) {
    FlComp cnt = br ? ne : nt;
    FlBlk *b = blk_new(F);
    FlCtx *X = ctx_new(F, C, CX_PACK);
    X->blk = b;
    X->idx = br ? ie : it;
    X->n = cnt;
    LcuExpr *body = close_val(F, b, lower_branch(F, br ? e->c : e->b, X, b, true));
    FlBlk *eb = blk_new(F);
    FlBlk *sb = F->blk;
    F->blk = eb;
    FlComp *em = flan_comps(F, n);
    flan_empty(F, t, em);
    F->blk = sb;
    LcuExpr *empty = blk_close(F, eb, tuple_of(F, n, em));
    LcuExpr *z = lcu_prim2(p, LP_EQ, flan_v(F, cnt), lcu_int(p, 0, L), L);
    res[br] = flan_comps(F, n);
    flan_emitn(F, F->blk, n, tys, res[br], lcu_if(p, z, empty, body, L));
  }
  /* merge: element i comes from the then-part at rank(i) or the else-part */
  flan_kb_init(&k, F);
  FlComp cnts = flan_kb_fold(&k, LS_SCAN, C->n,
                             lcu_prim(p, LP_B2I, 1, (LcuExpr *[]){lcu_index(p, flan_kc(&k, c.c[0]), flan_kix(&k), L)}, L),
                             LR_IADD, LT_INT);
  flan_kb_init(&k, F);
  LcuExpr *f = lcu_index(p, flan_kc(&k, c.c[0]), flan_kix(&k), L);
  LcuExpr *sel = lcu_if(p, f, lcu_int(p, 0, L), lcu_int(p, 1, L), L);
  FlComp selc = flan_kb_map1(&k, C->n, sel, LT_INT);
  flan_kb_init(&k, F);
  f = lcu_index(p, flan_kc(&k, c.c[0]), flan_kix(&k), L);
  LcuExpr *ci = lcu_index(p, flan_kc(&k, cnts), flan_kix(&k), L);
  LcuExpr *src = lcu_if(p, f, lcu_prim2(p, LP_SUB, ci, lcu_int(p, 1, L), L),
                        lcu_prim2(p, LP_SUB, flan_kix(&k), lcu_expr_copy(p, ci), L), L);
  FlComp srcc = flan_kb_map1(&k, C->n, src, LT_INT);
  FlVal r = {t, C, flan_comps(F, n)};
  flan_gather(F, t, 2, res, &selc, srcc, C->n, r.c);
  return r;
}

/* -------------------------------------------------------- apply-to-each */

static const char gen_msg[] = "Length mismatch in an apply-to-each.";

/* vrep(t) has no segment descriptor */
static bool flat(const FlTy *t) {
  int nc = flan_ncomp(t, true);
  const LcuType *tys[nc > 0 ? nc : 1];
  flan_comp_types(t, true, tys);
  for (int c = 0; c < nc; c++)
    if (tys[c]->kind == LT_SEGDES) return false;
  return true;
}

/* The common length of the ng unlifted generators g (checked equal). With defer, and
 * generators of flat elements (no segment descriptor), the check is deferred and
 * g[1..] are replaced by copies of g[0]'s length that read 0 past their own end, so
 * that the body never reads outside them (flan_defer.c). */
static FlComp gen_length(Fl *F, FlVal *g, int ng, NzLoc eloc, bool defer) {
  LcuProgram *p = F->p;
  NzLoc L = F->uloc;
  FlComp n = flan_rows(F, g[0].c[0]);
  if (ng == 1) return n;
  FlComp *ns = NZ_NEWN(F->a, FlComp, ng);
  LcuExpr *bad = NULL;
  for (int i = 1; i < ng; i++) {
    ns[i] = flan_rows(F, g[i].c[0]);
    if (ns[i].name == n.name) continue; /* the same size: equal */
    LcuExpr *d = lcu_prim2(p, LP_NE, flan_v(F, n), flan_v(F, ns[i]), L);
    bad = bad ? lcu_prim2(p, LP_OR, bad, d, L) : d;
    defer &= flat(g[i].t->a);
  }
  if (!bad) return n;
  FlComp b = flan_emit(F, F->blk, lcu_type_base(LT_BOOL), bad);
  if (!defer) {
    flan_check(F, b, gen_msg, eloc);
    return n;
  }
  flan_check_defer(F, b, gen_msg, eloc);
  for (int i = 1; i < ng; i++) {
    if (ns[i].name == n.name) continue;
    int nc = flan_ncomp(g[i].t->a, true);
    FlComp *c = flan_comps(F, nc);
    for (int j = 0; j < nc; j++) {
      FlKb k;
      flan_kb_init(&k, F);
      LcuTypeKind et = g[i].c[j].ty->elem;
      LcuExpr *in = lcu_prim2(p, LP_LT, flan_kix(&k), flan_kc(&k, ns[i]), L);
      LcuExpr *e = lcu_if(p, in, lcu_index(p, flan_kc(&k, g[i].c[j]), flan_kix(&k), L), flan_zero(F, et), L);
      c[j] = flan_kb_map1(&k, n, e, et);
    }
    g[i].c = c;
  }
  return n;
}

/* The same inside a context: every row of the generators g (lifted in outer) has the
 * first's length (generators with one segment descriptor do). Deferred for flat
 * generators: g[1..] are replaced by copies over C's elements (the first's), element
 * off of row o reading 0 where the generator's row o is shorter. */
static void seg_gen_check(Fl *F, FlVal *g, int ng, FlCtx *outer, FlCtx *C, NzLoc eloc) {
  LcuProgram *p = F->p;
  NzLoc L = F->uloc;
  FlKb k;
  flan_kb_init(&k, F);
  LcuExpr *bad = NULL;
  bool defer = true;
  for (int i = 1; i < ng; i++) {
    if (g[i].c[0].name == g[0].c[0].name) continue;
    LcuExpr *a[2] = {flan_kc(&k, g[0].c[0]), flan_kix(&k)};
    LcuExpr *b[2] = {flan_kc(&k, g[i].c[0]), flan_kix(&k)};
    LcuExpr *d = lcu_prim2(p, LP_NE, lcu_prim(p, LP_SEG_LEN, 2, a, L), lcu_prim(p, LP_SEG_LEN, 2, b, L), L);
    bad = bad ? lcu_prim2(p, LP_OR, bad, d, L) : d;
    defer &= flat(g[i].t->a);
  }
  if (!bad) {
    flan_kb_free(&k);
    return;
  }
  FlComp any = flan_any(&k, outer->n, bad);
  if (!defer) {
    flan_check(F, any, gen_msg, eloc);
    return;
  }
  flan_check_defer(F, any, gen_msg, eloc);
  for (int i = 1; i < ng; i++) {
    if (g[i].c[0].name == g[0].c[0].name) continue;
    int nc = flan_ncomp(g[i].t->a, true);
    FlComp *c = flan_comps(F, nc + 1);
    c[0] = g[i].c[0];
    for (int j = 0; j < nc; j++) c[1 + j] = flan_rows_like(F, g[0].c[0], g[i].c[0], g[i].c[1 + j], C->n);
    g[i].c = c;
  }
}

static FlVal lower_each_serial(Fl *F, NlExpr *e);

static FlVal lower_each(Fl *F, NlExpr *e) {
  if (!F->ctx && in_set((void *const *)serial_each.v, serial_each.n, e)) return lower_each_serial(F, e);
  const FlTy *t = ty(F, e->ty, e->loc);
  LcuProgram *p = F->p;
  NzLoc L = F->uloc, eloc = e->user ? e->loc : F->uloc;
  int ng = e->n;
  FlVal *g = NZ_NEWN(F->a, FlVal, ng);
  for (int i = 0; i < ng; i++) g[i] = lower(F, e->xs[i]);
  FlCtx *outer = F->ctx;
  FlCtx *C;
  if (!outer) {
    for (int i = 0; i < ng; i++)
      if (g[i].ctx) nz_die("flan: lifted generator at the unlifted level");
    C = ctx_new(F, NULL, CX_TOP);
    C->n = gen_length(F, g, ng, eloc, true);
    for (int i = 0; i < ng; i++) bind_pat(F, e->pats[i], (FlVal){g[i].t->a, C, g[i].c});
  } else {
    join_ctx(F, g, ng);
    for (int i = 0; i < ng; i++) g[i] = flan_lift(F, g[i], outer);
    C = ctx_new(F, outer, CX_SEG);
    C->sd = g[0].c[0];
    LcuExpr *sv = flan_v(F, C->sd);
    C->n = flan_emit(F, F->blk, lcu_type_base(LT_INT), lcu_prim(p, LP_SEG_TOTAL, 1, &sv, L));
    if (ng > 1) seg_gen_check(F, g, ng, outer, C, eloc);
    for (int i = 0; i < ng; i++) bind_pat(F, e->pats[i], (FlVal){g[i].t->a, C, g[i].c + 1});
  }
  FlCtx *saved = F->ctx;
  F->ctx = C;
  FlCtx *B = C;
  FlComp flags = {0};
  if (e->b) {
    FlVal s = flan_lift(F, lower(F, e->b), C);
    flags = s.c[0];
    FlKb k;
    flan_kb_init(&k, F);
    B = ctx_new(F, C, CX_PACK);
    B->idx = flan_kb_filter_index(&k, C->n, lcu_index(p, flan_kc(&k, flags), flan_kix(&k), L));
    B->n = flan_rows(F, B->idx);
    F->ctx = B;
  }
  FlVal body = flan_lift(F, lower(F, e->a), B);
  F->ctx = saved;
  int nb = flan_ncomp(t->a, true);
  if (!outer) {
    if (C->draws > 1) { /* the draws would not come in element order: again, one by one */
      nz_vec_push(serial_each, e);
      longjmp(F->fail, 2);
    }
    FlVal r = {t, NULL, flan_comps(F, nb)};
    memcpy(r.c, body.c, sizeof(FlComp) * (size_t)nb);
    return r;
  }
  FlVal r = {t, outer, flan_comps(F, nb + 1)};
  if (e->b) {
    FlKb k;
    flan_kb_init(&k, F);
    LcuExpr *b = lcu_prim(p, LP_B2I, 1, (LcuExpr *[]){lcu_index(p, flan_kc(&k, flags), flan_kix(&k), L)}, L);
    FlComp lens = flan_kb_fold(&k, LS_SEGREDUCE, C->sd, b, LR_IADD, LT_INT);
    LcuExpr *lv = flan_v(F, lens);
    r.c[0] = flan_emit(F, F->blk, lcu_type_base(LT_SEGDES), lcu_prim(p, LP_MAKE_SEGDES, 1, &lv, L));
  } else {
    r.c[0] = C->sd;
  }
  memcpy(r.c + 1, body.c, sizeof(FlComp) * (size_t)nb);
  return r;
}

/* The slots of the current frame that e reads (lambdas inside e read it `up` frames out). */
static void frame_reads(NlExpr *e, int depth, bool *used, int nslots, bool *outer) {
  if (!e) return;
  if (e->k == E_VAR && e->vk == VK_LOCAL) {
    if (e->up == depth && e->slot >= 0 && e->slot < nslots) used[e->slot] = true;
    if (e->up > depth) *outer = true;
  }
  int d = e->k == E_LAMBDA ? depth + 1 : depth;
  frame_reads(e->a, d, used, nslots, outer);
  frame_reads(e->b, d, used, nslots, outer);
  frame_reads(e->c, d, used, nslots, outer);
  if (e->xs && e->k != E_LAMBDA)
    for (int i = 0; i < e->n; i++) frame_reads(e->xs[i], d, used, nslots, outer);
}

/* Clears the slots that patterns inside e bind (they are not captures). */
static void pat_unuse(NlPat *q, bool *used, int nslots) {
  if (!q) return;
  if (q->k == P_VAR && q->slot >= 0 && q->slot < nslots) used[q->slot] = false;
  pat_unuse(q->a, used, nslots);
  if (q->k == P_PAIR) pat_unuse(q->b, used, nslots);
}

static void bound_unuse(NlExpr *e, bool *used, int nslots) {
  if (!e || e->k == E_LAMBDA) return; /* a lambda's patterns bind its own frame */
  if ((e->k == E_LET || e->k == E_EACH) && e->pats)
    for (int i = 0; i < e->n; i++) pat_unuse(e->pats[i], used, nslots);
  bound_unuse(e->a, used, nslots);
  bound_unuse(e->b, used, nslots);
  bound_unuse(e->c, used, nslots);
  if (e->xs)
    for (int i = 0; i < e->n; i++) bound_unuse(e->xs[i], used, nslots);
}

/* The state of the function body being lowered: saved around an inlined call or a
 * lambda body, whose own frame replaces it meanwhile. */
typedef struct {
  FlVal *slots;
  int nslots;
  NzLoc uloc;
  FlVal **ups;
  int nups;
  const char *fn_name;
} FlFrame;

static FlFrame frame_save(const Fl *F) {
  return (FlFrame){F->slots, F->nslots, F->uloc, F->ups, F->nups, F->fn_name};
}

static void frame_restore(Fl *F, const FlFrame *s) {
  F->slots = s->slots;
  F->nslots = s->nslots;
  F->uloc = s->uloc;
  F->ups = s->ups;
  F->nups = s->nups;
  F->fn_name = s->fn_name;
}

/* Back to the caller's state (saved) after building another λcu function, keeping what
 * the pass shares across functions. */
static void restore_caller(Fl *F, Fl *saved) {
  saved->any_draw = F->any_draw;
  saved->counter = F->counter;
  saved->insts = F->insts;
  saved->ctxs = F->ctxs;
  saved->blks = F->blks;
  saved->inlining = F->inlining;
  saved->shapes = F->shapes;
  saved->lambdas = F->lambdas;
  *F = *saved;
}

typedef NZ_VEC(LcuBinder) FlParams;
typedef NZ_VEC(LcuExpr *) FlArgs;

/* v passed to the function being built: fresh parameters for its components (params),
 * the caller's components as arguments (args); the value inside (a lifted one keeps
 * its context, whose other names it must not use there: a closure's captures). */
static FlVal pass_val(Fl *F, FlVal v, FlParams *params, FlArgs *args, NzLoc loc) {
  int n = flan_ncomp(v.t, v.ctx != NULL);
  FlVal r = {v.t, v.ctx, flan_comps(F, n)};
  for (int j = 0; j < n; j++) {
    r.c[j].name = flan_fresh(F, "cap");
    r.c[j].ty = v.c[j].ty;
    nz_vec_push(*params, lcu_binder(r.c[j].name, r.c[j].ty, loc));
    nz_vec_push(*args, flan_v(F, v.c[j]));
  }
  return r;
}

typedef NZ_VEC(int) FlIds;

typedef struct {
  FlParams *params;
  FlArgs *args;
  NzLoc loc;
  NzBuf *key; /* if set: the passed values' types, lifted or not (an instance's key) */
  FlIds *ids; /* if set: the closures named by the passed values' types, added */
} FlPass;

static void fn_ids(const FlTy *t, FlIds *ids) {
  if (t->a) fn_ids(t->a, ids);
  if (t->b) fn_ids(t->b, ids);
  if (t->k != FT_FN || t->fnid < 0) return;
  for (int i = 0; i < ids->n; i++)
    if (ids->v[i] == t->fnid) return;
  nz_vec_push(*ids, t->fnid);
}

static FlVal cap_pass(Fl *F, FlVal v, void *arg) {
  FlPass *pp = arg;
  if (pp->key) nz_buf_printf(pp->key, "%s%s;", v.t->key, v.ctx ? "^" : "");
  if (pp->ids) fn_ids(v.t, pp->ids);
  return pass_val(F, v, pp->params, pp->args, pp->loc);
}

/* The closures a recursive function's arguments name (by the identities in their types,
 * and in the types of what those closures read): what each reads is passed to the
 * function as more parameters (params; the caller's values in args), and a copy that
 * reads the parameters is pushed on F->lambdas for the function's body. key gets what
 * was passed (the instance depends on it). False if a closure is one of several
 * (find_lambda). Never longjmps: the caller holds params, args and key. */
static bool pass_lambdas(Fl *F, const FlVal *lv, int nl, FlParams *params, FlArgs *args, NzBuf *key, NzLoc loc) {
  FlIds ids = {0};
  for (int i = 0; i < nl; i++) fn_ids(lv[i].t, &ids);
  int top = F->lambdas.n;
  FlPass pp = {params, args, loc, key, &ids};
  for (int j = 0; j < ids.n; j++) {
    const FlVal *fv = NULL; /* an argument that is the closure itself names its creation */
    for (int i = 0; i < nl && !fv; i++)
      if (lv[i].t->k == FT_FN && lv[i].t->fnid == ids.v[j]) fv = &lv[i];
    int pushed = F->lambdas.n;
    F->lambdas.n = top; /* the copies pushed so far are not candidates */
    bool several;
    struct FlLambda *found = find_lambda(F, ids.v[j], fv, &several);
    F->lambdas.n = pushed;
    if (several) {
      nz_vec_free(ids);
      return false;
    }
    if (!found) continue; /* a named function: nothing to pass */
    struct FlLambda l = *found;
    l.tag = NULL;
    nz_buf_printf(key, "|lam%d:", l.fnid);
    l.ups = cap_frames(F, &l, cap_pass, &pp);
    nz_vec_push(F->lambdas, l);
  }
  nz_vec_free(ids);
  return true;
}

static NlGlobal *fn_global(NlEnv *env, int fnid);

/* A closure made inside a recursive function and returned from it: a call outside
 * would resolve it to another creation of its expression (F->lambdas keeps none made
 * inside: what they read is named there). Refused when the closure reads variables
 * around it (one that reads none is the same closure wherever it was made). */
static void escaping_closure(Fl *F, const FlTy *rt, const FlVal *lv, int nl, NzLoc loc) {
  FlIds in = {0}, out = {0};
  for (int i = 0; i < nl; i++) fn_ids(lv[i].t, &in);
  fn_ids(rt, &out);
  bool bad = false;
  for (int j = 0; j < out.n && !bad; j++) {
    bool passed = fn_global(F->env, out.v[j]) != NULL;
    for (int i = 0; i < in.n; i++) passed |= in.v[i] == out.v[j];
    for (int i = F->lambdas.n - 1; i >= 0 && !passed; i--)
      if (F->lambdas.v[i].fnid == out.v[j]) {
        bad = lambda_reads_frames(F, &F->lambdas.v[i]);
        break;
      }
  }
  nz_vec_free(in);
  nz_vec_free(out);
  if (bad) flan_unsupported(F, loc, "a closure made inside a recursive function and returned from it");
}

static LcuExpr *call_of(Fl *F, const char *fname, FlArgs *args) {
  LcuExpr **av = lcu_exprs(F->p, args->n);
  memcpy(av, args->v, sizeof(LcuExpr *) * (size_t)args->n);
  return lcu_call(F->p, fname, args->n, av, F->uloc);
}

/* An apply-to-each at the unlifted level whose elements run one after the other (rand's
 * order, above): a CPU function each(lo, hi, captures) that lowers the body unlifted for
 * element lo when hi = lo + 1, and otherwise joins the vectors of the two halves, left
 * half first (log n deep, n log n data movement). */
static FlVal lower_each_serial(Fl *F, NlExpr *e) {
  const FlTy *t = ty(F, e->ty, e->loc);
  LcuProgram *p = F->p;
  NzLoc L = F->uloc, eloc = e->user ? e->loc : F->uloc;
  int ng = e->n, nb = flan_ncomp(t->a, true);
  bool *used = NZ_NEWN(F->a, bool, F->nslots > 0 ? F->nslots : 1), outer = false;
  frame_reads(e->a, 0, used, F->nslots, &outer);
  frame_reads(e->b, 0, used, F->nslots, &outer);
  bound_unuse(e, used, F->nslots);
  if (nb == 0 || outer || F->nups)
    flan_unsupported(F, e->loc, "an apply-to-each whose elements must run one by one here (random draws, prints)");
  FlVal *g = NZ_NEWN(F->a, FlVal, ng);
  for (int i = 0; i < ng; i++) g[i] = lower(F, e->xs[i]);
  FlComp n = gen_length(F, g, ng, eloc, false);
  const char *fname = flan_fresh(F, "each");
  FlParams params = {0};
  FlArgs args = {0}, rargs = {0};
  FlComp lo = {flan_fresh(F, "lo"), lcu_type_base(LT_INT)}, hi = {flan_fresh(F, "hi"), lcu_type_base(LT_INT)};
  nz_vec_push(params, lcu_binder(lo.name, lo.ty, e->loc));
  nz_vec_push(params, lcu_binder(hi.name, hi.ty, e->loc));
  nz_vec_push(args, flan_v(F, flan_int_lit(F, 0)));
  nz_vec_push(args, flan_v(F, n));
  FlVal *gp = NZ_NEWN(F->a, FlVal, ng);
  for (int i = 0; i < ng; i++) gp[i] = pass_val(F, g[i], &params, &args, e->loc);
  FlVal *slots = NZ_NEWN(F->a, FlVal, F->nslots > 0 ? F->nslots : 1);
  for (int i = 0; i < F->nslots; i++)
    if (used[i] && F->slots[i].t && !F->slots[i].ctx) slots[i] = pass_val(F, F->slots[i], &params, &args, e->loc);
  /* the lambdas made so far, with what they read passed too (the body may call them) */
  int nlam = F->lambdas.n;
  FlPass pp = {&params, &args, e->loc, NULL, NULL};
  for (int i = F->lam_base; i < nlam; i++) {
    struct FlLambda l = F->lambdas.v[i];
    l.ups = cap_frames(F, &l, cap_pass, &pp);
    nz_vec_push(F->lambdas, l);
  }
  LcuExpr *call = call_of(F, fname, &args);

  Fl saved = *F;
  F->slots = slots;
  F->ctx = NULL;
  F->in_main = false;
  F->fn_draws = false;
  F->lam_base = nlam;
  LcuFunc *fn = lcu_func_add(p, fname, e->loc);
  fn->nparams = params.n;
  fn->params = lcu_binders(p, params.n);
  memcpy(fn->params, params.v, sizeof(LcuBinder) * (size_t)params.n);
  nz_vec_free(params); /* lowering the body may longjmp (flan_note_draw, unsupported) */
  nz_vec_free(args);
  const LcuType *tys[nb];
  flan_comp_types(t->a, true, tys);
  fn->ret = lcu_type_tuple(nb, tys);
  FlBlk *b0 = blk_new(F), *bone = blk_new(F), *bsplit = blk_new(F), *bempty = blk_new(F);
  /* no element: the empty vector */
  F->blk = bempty;
  FlComp *em = flan_comps(F, nb);
  flan_empty(F, t->a, em);
  /* one element: the body, as one row (none when the sieve drops it) */
  F->blk = bone;
  for (int i = 0; i < ng; i++) {
    FlVal a2[2] = {gp[i], {flan_ty_base(FT_INT), NULL, &lo}};
    bind_pat(F, e->pats[i], flan_prim(F, "__elt", 2, a2, gp[i].t->a, L));
  }
  LcuExpr *one;
  if (e->b) {
    FlVal keep = lower(F, e->b);
    FlBlk *bt = blk_new(F), *be = blk_new(F);
    F->blk = bt;
    FlVal v = lower(F, e->a);
    LcuExpr *te = blk_close(F, bt, tuple_of(F, nb, flan_row_wrap(F, v)));
    F->blk = be;
    FlComp *none = flan_comps(F, nb);
    flan_empty(F, t->a, none);
    LcuExpr *ee = blk_close(F, be, tuple_of(F, nb, none));
    F->blk = bone;
    FlComp *r1 = flan_comps(F, nb);
    flan_emitn(F, bone, nb, tys, r1, lcu_if(p, flan_v(F, keep.c[0]), te, ee, L));
    one = blk_close(F, bone, tuple_of(F, nb, r1));
  } else {
    FlVal v = lower(F, e->a);
    one = blk_close(F, bone, tuple_of(F, nb, flan_row_wrap(F, v)));
  }
  /* more: the halves, joined */
  F->blk = bsplit;
  FlComp half = flan_emit(F, bsplit, lcu_type_base(LT_INT),
                          lcu_prim2(p, LP_DIV, lcu_prim2(p, LP_SUB, flan_v(F, hi), flan_v(F, lo), L), lcu_int(p, 2, L), L));
  FlComp mid = flan_emit(F, bsplit, lcu_type_base(LT_INT), lcu_prim2(p, LP_ADD, flan_v(F, lo), flan_v(F, half), L));
  FlComp *parts[2];
  for (int h = 0; h < 2; h++) {
    nz_vec_push(rargs, flan_v(F, h ? mid : lo));
    nz_vec_push(rargs, flan_v(F, h ? hi : mid));
    for (int i = 2; i < fn->nparams; i++) nz_vec_push(rargs, lcu_var(p, fn->params[i].name, L));
    parts[h] = flan_comps(F, nb);
    flan_emitn(F, bsplit, nb, tys, parts[h], call_of(F, fname, &rargs));
    rargs.n = 0;
  }
  FlComp na = flan_rows(F, parts[0][0]), nb2 = flan_rows(F, parts[1][0]);
  FlComp tot = flan_emit(F, bsplit, lcu_type_base(LT_INT), lcu_prim2(p, LP_ADD, flan_v(F, na), flan_v(F, nb2), L));
  FlKb k;
  flan_kb_init(&k, F);
  LcuExpr *first = lcu_prim2(p, LP_LT, flan_kix(&k), flan_kc(&k, na), L);
  FlComp sel = flan_kb_map1(&k, tot, lcu_if(p, first, lcu_int(p, 0, L), lcu_int(p, 1, L), L), LT_INT);
  flan_kb_init(&k, F);
  first = lcu_prim2(p, LP_LT, flan_kix(&k), flan_kc(&k, na), L);
  LcuExpr *src = lcu_if(p, first, flan_kix(&k), lcu_prim2(p, LP_SUB, flan_kix(&k), flan_kc(&k, na), L), L);
  FlComp srcc = flan_kb_map1(&k, tot, src, LT_INT);
  FlComp *joined = flan_comps(F, nb);
  flan_gather(F, t->a, 2, parts, &sel, srcc, tot, joined);
  LcuExpr *split = blk_close(F, bsplit, tuple_of(F, nb, joined));
  F->blk = b0;
  FlComp len = flan_emit(F, b0, lcu_type_base(LT_INT), lcu_prim2(p, LP_SUB, flan_v(F, hi), flan_v(F, lo), L));
  LcuExpr *body = lcu_if(p, lcu_prim2(p, LP_LE, flan_v(F, len), lcu_int(p, 0, L), L), blk_close(F, bempty, tuple_of(F, nb, em)),
                         lcu_if(p, lcu_prim2(p, LP_EQ, flan_v(F, len), lcu_int(p, 1, L), L), one, split, L), L);
  fn->body = blk_close(F, b0, body);
  nz_vec_free(rargs);
  bool drew = F->fn_draws;
  restore_caller(F, &saved);
  F->lambdas.n = nlam; /* the copies and the lambdas made inside name its variables */
  F->fn_draws |= drew;
  FlVal r = {t, NULL, flan_comps(F, nb)};
  flan_emitn(F, F->blk, nb, tys, r.c, call);
  return r;
}

/* ------------------------------------------------------------ functions */

static int count_leaves(NlPat *q) {
  return q->k == P_VAR ? 1 : q->k == P_PAIR ? count_leaves(q->a) + count_leaves(q->b) : count_leaves(q->a);
}

static void leaves_of(NlPat *q, FlVal v, FlVal *out, int *k) {
  switch (q->k) {
  case P_VAR: out[(*k)++] = v; return;
  case P_PAIR:
    leaves_of(q->a, split_a(v), out, k);
    leaves_of(q->b, split_b(v), out, k);
    return;
  case P_CON: leaves_of(q->a, v, out, k); return;
  }
}

static void leaf_pats(NlPat *q, NlPat **out, int *k) {
  if (q->k == P_VAR) out[(*k)++] = q;
  else if (q->k == P_PAIR) {
    leaf_pats(q->a, out, k);
    leaf_pats(q->b, out, k);
  } else leaf_pats(q->a, out, k);
}

typedef NZ_VEC(const NlDecl *) FlDecls;

/* Visits e's expressions and, once each, those of the user functions it calls by name
 * (the definitions the names have now, NESL.md 4.6), until visit returns true. The
 * name of a called function is not visited as a value. Calls of function values are
 * not followed. */
static bool walk_named(Fl *F, const NlExpr *e, FlDecls *seen, bool (*visit)(Fl *, const NlExpr *, void *), void *arg) {
  if (!e) return false;
  if (visit(F, e, arg)) return true;
  if (e->k == E_CALL && e->a->k == E_VAR && e->a->vk == VK_GLOBAL) {
    const NlGlobal *g = &F->env->globals.v[e->a->slot];
    if (g->val.k == V_FN && g->val.fn->k == FN_USER && g->val.fn->decl && g->val.fn->decl->body &&
        !in_set((void *const *)seen->v, seen->n, g->val.fn->decl)) {
      nz_vec_push(*seen, g->val.fn->decl);
      if (walk_named(F, g->val.fn->decl->body, seen, visit, arg)) return true;
    }
    return walk_named(F, e->b, seen, visit, arg);
  }
  if (walk_named(F, e->a, seen, visit, arg) || walk_named(F, e->b, seen, visit, arg) ||
      walk_named(F, e->c, seen, visit, arg))
    return true;
  if (e->xs)
    for (int i = 0; i < e->n; i++)
      if (walk_named(F, e->xs[i], seen, visit, arg)) return true;
  return false;
}

/* a call of target by name */
static bool calls_target(Fl *F, const NlExpr *e, void *target) {
  if (e->k != E_CALL || e->a->k != E_VAR || e->a->vk != VK_GLOBAL) return false;
  const NlGlobal *g = &F->env->globals.v[e->a->slot];
  return g->val.k == V_FN && g->val.fn->k == FN_USER && g->val.fn->decl == target;
}

/* A named function used as a value: registered (flan_fn_register). Done over a
 * recursive function's body before it is lowered: a dispatch on a datatype's function
 * field (call_dispatch) early in the body must know those met later in it, which may
 * reach it through the recursion. */
static bool register_value(Fl *F, const NlExpr *e, void *arg) {
  (void)arg;
  if (e->k != E_VAR || e->vk != VK_GLOBAL) return false;
  const NlGlobal *g = &F->env->globals.v[e->slot];
  NlType *gt = g->val.k == V_FN ? nesl_type_resolve(g->ty) : NULL;
  NlType *id = gt && gt->k == TY_FUN && gt->fnid ? nesl_type_resolve(gt->fnid) : NULL;
  if (id && id->k == TY_FNID && id->id >= 0) flan_fn_register(id->id, g->val);
  return false;
}

/* Whether source function src calls itself through named calls; recursion through
 * function values is met while inlining (F->inlining) instead. Memoised per form (the
 * names' definitions may change between forms). */
static NZ_VEC(struct RecMemo { const NlDecl *d; bool rec; }) rec_memo;
static FlDecls unrolled; /* recursive functions whose first level a main inlined */

static bool recursive_fn(Fl *F, const NlDecl *src) {
  for (int i = 0; i < rec_memo.n; i++)
    if (rec_memo.v[i].d == src) return rec_memo.v[i].rec;
  FlDecls seen = {0};
  bool rec = walk_named(F, src->body, &seen, calls_target, (void *)src);
  nz_vec_free(seen);
  struct RecMemo m = {src, rec};
  nz_vec_push(rec_memo, m);
  return rec;
}

/* The λcu function for d (mono's definition of what the call of source function src
 * runs); lifted leaves in mask (then its first parameter is the context's size); then
 * the parameters xp, what the closures F->lambdas[lam0..] read (pass_lambdas, described
 * by xkey). */
static const char *instance(Fl *F, NlDecl *d, const NlDecl *src, uint64_t mask, const FlTy *rt, NzLoc uloc, int nxp,
                            const LcuBinder *xp, const char *xkey, int lam0) {
  bool user = d->body && d->body->user;
  NzBuf key = {0};
  nz_buf_printf(&key, "%p|%llx", (void *)d, (unsigned long long)mask);
  if (xkey[0]) nz_buf_printf(&key, "|%s", xkey);
  if (!user && uloc.src) nz_buf_printf(&key, "|%s:%d:%d", uloc.src->name, uloc.line, uloc.col);
  const char *k = nz_intern_cstr(key.s);
  nz_buf_free(&key);
  for (int i = 0; i < F->insts.n; i++)
    if (F->insts.v[i].key == k) return F->insts.v[i].fname;
  NzBuf nm = {0};
  for (const char *s = src->name; *s; s++) nz_buf_putc(&nm, (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || (*s >= 'A' && *s <= 'Z') ? *s : '_');
  if (mask) nz_buf_puts(&nm, "_lifted");
  const char *fname = flan_fresh(F, nm.s[0] == '_' ? nm.s + 1 : nm.s);
  nz_buf_free(&nm);
  FlInst in = {k, fname, false};
  nz_vec_push(F->insts, in);

  /* save the caller's state */
  Fl saved = *F;
  F->nslots = d->nslots;
  F->slots = NZ_NEWN(F->a, FlVal, d->nslots > 0 ? d->nslots : 1);
  F->blk = blk_new(F);
  F->ctx = NULL;
  F->in_main = false;
  F->in_lifted_fn = mask != 0;
  F->ups = NULL;
  F->nups = 0;
  F->fn_name = src->name;
  F->fn_draws = false;
  F->lam_base = lam0;
  nz_vec_push(F->inlining, src);
  if (user) F->uloc = d->body->loc;
  else F->uloc = uloc;
  LcuFunc *fn = lcu_func_add(F->p, fname, d->loc);
  int nl = count_leaves(d->pat);
  NlPat **lp = NZ_NEWN(F->a, NlPat *, nl);
  int kk = 0;
  leaf_pats(d->pat, lp, &kk);
  NZ_VEC(LcuBinder) params = {0};
  FlCtx *C = NULL;
  if (mask) {
    C = ctx_new(F, NULL, CX_TOP);
    C->n.name = flan_fresh(F, "n");
    C->n.ty = lcu_type_base(LT_INT);
    nz_vec_push(params, lcu_binder(C->n.name, C->n.ty, d->loc));
  }
  for (int i = 0; i < nl; i++) {
    const FlTy *lt = ty(F, lp[i]->ty, lp[i]->loc);
    bool lifted = (mask >> i) & 1;
    int n = flan_ncomp(lt, lifted);
    FlVal v = {lt, lifted ? C : NULL, flan_comps(F, n)};
    const LcuType *tys[n > 0 ? n : 1];
    flan_comp_types(lt, lifted, tys);
    for (int j = 0; j < n; j++) {
      v.c[j].name = flan_fresh(F, lp[i]->name);
      v.c[j].ty = tys[j];
      nz_vec_push(params, lcu_binder(v.c[j].name, tys[j], d->loc));
    }
    bind_pat(F, lp[i], v);
  }
  for (int i = 0; i < nxp; i++) nz_vec_push(params, xp[i]);
  fn->nparams = params.n;
  fn->params = lcu_binders(F->p, params.n);
  memcpy(fn->params, params.v, sizeof(LcuBinder) * (size_t)params.n);
  nz_vec_free(params);
  F->ctx = C;
  FlDecls seen = {0};
  walk_named(F, d->body, &seen, register_value, NULL);
  nz_vec_free(seen);
  FlVal r = lower(F, d->body);
  if (C) r = flan_lift(F, r, C);
  int n = nc(r);
  const LcuType *rts[n > 0 ? n : 1];
  flan_comp_types(rt, C != NULL, rts);
  fn->ret = lcu_type_tuple(n, rts);
  fn->body = blk_close(F, F->blk, tuple_of(F, n, r.c));
  F->inlining.n--;
  bool drew = F->fn_draws;
  for (int i = 0; i < F->insts.n; i++)
    if (F->insts.v[i].key == k) F->insts.v[i].draws = drew;
  restore_caller(F, &saved);
  if (drew && !in_set((void *const *)draw_decls.v, draw_decls.n, src)) {
    /* calls made before this was known (its own, inside contexts) must know it */
    nz_vec_push(draw_decls, src);
    longjmp(F->fail, 2);
  }
  return fname;
}

static void leaves_of(NlPat *q, FlVal v, FlVal *out, int *k);

/* The leaves of pattern q for argument expression e, a tuple lowered per component. */
static void arg_leaves(Fl *F, NlPat *q, NlExpr *e, FlVal *out, int *k) {
  if (q->k == P_PAIR && e->k == E_PAIR) {
    arg_leaves(F, q->a, e->a, out, k);
    arg_leaves(F, q->b, e->b, out, k);
  } else {
    leaves_of(q, lower(F, e), out, k);
  }
}

/* A call of source function src (the definition its name has now, NESL.md 4.6) at the
 * type arguments targs (its global's TY_GEN 0..ntargs-1): inlined, or a call of a CPU
 * function, either way the code of mono's definition of it (mono_callee). The source
 * function is what recursion and random draws are known by (its instances share that). */
static FlVal call_user(Fl *F, NlExpr *e, const NlDecl *src, NlType **targs, int ntargs) {
  NlDecl *d = mono_callee(F->mono, src, targs, ntargs);
  if (!d) flan_unsupported(F, e->loc, "%s has no monomorphic definition at this type", src->name);
  int nl = count_leaves(d->pat);
  if (nl > 64) flan_unsupported(F, e->loc, "a function with more than 64 parameters");
  FlVal *lv = NZ_NEWN(F->a, FlVal, nl);
  int k = 0;
  arg_leaves(F, d->pat, e->b, lv, &k);
  uint64_t mask = 0;
  for (int i = 0; i < nl; i++)
    if (lv[i].ctx) {
      mask |= (uint64_t)1 << i;
      lv[i] = flan_derive(F, lv[i], F->ctx);
    }
  const FlTy *rt = ty(F, e->ty, e->loc);
  /* A function that is not recursive (not already being inlined) is inlined: its
   * body is lowered in the caller's context, so that fusion sees across the call. A
   * recursive one is a call, except at the program's first call of it at the unlifted
   * level of a form's main, where its first level is inlined (the arguments' sharing
   * stays visible: barnes_hut's bh(ps, ps, box) ran 12 % faster under ilp-cg).
   * Inlining the first level at every call site multiplied the code by the call sites
   * (p3_karatsuba: 121,829 lines of C, 46,552 now), for little fusion: the body is
   * behind the test that ends the recursion. */
  bool rec = F->inlining.n >= 48;
  if (!rec && recursive_fn(F, src)) {
    rec = !F->in_main || F->ctx || in_set((void *const *)unrolled.v, unrolled.n, src);
    if (!rec) nz_vec_push(unrolled, src);
  }
  for (int i = 0; i < F->inlining.n && !rec; i++) rec = F->inlining.v[i] == src;
  if (!rec) {
    FlFrame saved = frame_save(F);
    F->fn_name = src->name;
    F->ups = NULL;
    F->nups = 0;
    F->nslots = d->nslots;
    F->slots = NZ_NEWN(F->a, FlVal, d->nslots > 0 ? d->nslots : 1);
    if (d->body->user) F->uloc = d->body->loc;
    NlPat **lp = NZ_NEWN(F->a, NlPat *, nl);
    int kk = 0;
    leaf_pats(d->pat, lp, &kk);
    for (int i = 0; i < nl; i++) bind_pat(F, lp[i], lv[i]);
    nz_vec_push(F->inlining, src);
    FlVal r = lower(F, d->body);
    F->inlining.n--;
    frame_restore(F, &saved);
    r.t = rt;
    return r;
  }
  escaping_closure(F, rt, lv, nl, e->loc);
  /* what the closures passed read: into the arena before anything may longjmp */
  FlParams xpv = {0};
  FlArgs xav = {0};
  NzBuf kb = {0};
  int lam0 = F->lambdas.n;
  bool one = pass_lambdas(F, lv, nl, &xpv, &xav, &kb, e->loc);
  int nxp = xpv.n, nxa = xav.n;
  LcuBinder *xp = lcu_binders(F->p, nxp > 0 ? nxp : 1);
  LcuExpr **xargs = lcu_exprs(F->p, nxa > 0 ? nxa : 1);
  if (nxp) memcpy(xp, xpv.v, sizeof(LcuBinder) * (size_t)nxp);
  if (nxa) memcpy(xargs, xav.v, sizeof(LcuExpr *) * (size_t)nxa);
  const char *xkey = nz_intern_cstr(kb.s ? kb.s : "");
  nz_vec_free(xpv);
  nz_vec_free(xav);
  nz_buf_free(&kb);
  if (!one) flan_unsupported(F, e->loc, several_closures);
  const char *fname = instance(F, d, src, mask, rt, F->uloc, nxp, xp, xkey, lam0);
  F->lambdas.n = lam0; /* the copies, and the closures made inside, name its variables */
  bool drew = in_set((void *const *)draw_decls.v, draw_decls.n, src);
  for (int i = 0; i < F->insts.n && !drew; i++) drew = F->insts.v[i].fname == fname && F->insts.v[i].draws;
  if (drew) flan_note_draw(F, F->ctx ? 2 : 0); /* per element: only one by one keeps the order */
  NZ_VEC(LcuExpr *) args = {0};
  if (mask) nz_vec_push(args, flan_v(F, F->ctx->n));
  for (int i = 0; i < nl; i++)
    for (int j = 0; j < nc(lv[i]); j++) nz_vec_push(args, flan_v(F, lv[i].c[j]));
  for (int i = 0; i < nxa; i++) nz_vec_push(args, xargs[i]);
  LcuExpr **av = lcu_exprs(F->p, args.n);
  memcpy(av, args.v, sizeof(LcuExpr *) * (size_t)args.n);
  LcuExpr *c = lcu_call(F->p, fname, args.n, av, F->uloc);
  FlVal r = {rt, mask ? F->ctx : NULL, NULL};
  int n = nc(r);
  r.c = flan_comps(F, n);
  const LcuType *tys[n > 0 ? n : 1];
  flan_comp_types(rt, mask != 0, tys);
  flan_emitn(F, F->blk, n, tys, r.c, c);
  nz_vec_free(args);
  return r;
}

/* The components of a prim's argument tuple (right-nested pairs). */
static int split_args(FlVal v, int arity, FlVal *out) {
  for (int i = 0; i < arity - 1; i++) {
    if (v.t->k != FT_PAIR) return 0;
    out[i] = split_a(v);
    v = split_b(v);
  }
  out[arity - 1] = v;
  return 1;
}

/* For a local sequence variable lifted in an ancestor of the current context: its
 * value there (*src) and, per element of the current context, the row of src it
 * stands for. Lets #a and a[i] read an outer sequence without copying it into every
 * element (which would cost its length per element). 0 if x is not such a variable. */
static int outer_rows(Fl *F, NlExpr *x, FlVal *src, FlComp *map) {
  if (x->k != E_VAR || x->vk != VK_LOCAL || x->up != 0) return 0;
  FlVal v = F->slots[x->slot];
  if (!v.t || !v.ctx || v.ctx == F->ctx || v.t->k != FT_SEQ || !F->ctx) return 0;
  FlCtx *path[256];
  int n = 0;
  for (FlCtx *c = F->ctx; c != v.ctx; c = c->parent) {
    if (!c || n == 256) return 0;
    path[n++] = c;
  }
  bool have = false;
  FlComp m = {0};
  for (int i = n - 1; i >= 0; i--) {
    FlCtx *c = path[i];
    FlKb k;
    flan_kb_init(&k, F);
    LcuExpr *step;
    if (c->kind == CX_PACK) {
      step = lcu_index(F->p, flan_kc(&k, c->idx), flan_kix(&k), F->uloc);
    } else {
      LcuExpr *a[2] = {flan_kc(&k, c->sd), flan_kix(&k)};
      step = lcu_prim(F->p, LP_SEG_OF, 2, a, F->uloc);
    }
    if (have) step = lcu_index(F->p, flan_kc(&k, m), step, F->uloc);
    FlBlk *saved = F->blk;
    F->blk = c->blk; /* the context's own block, as derivations */
    m = flan_kb_map1(&k, c->n, step, LT_INT);
    F->blk = saved;
    have = true;
  }
  *src = v;
  *map = m;
  return 1;
}

/* The newest global function whose type has identity fnid (NESL.md 3.4), or NULL. */
static NlGlobal *fn_global(NlEnv *env, int fnid) {
  for (int gi = env->globals.n - 1; gi >= 0; gi--) {
    NlGlobal *g = &env->globals.v[gi];
    NlType *gt = nesl_type_resolve(g->ty);
    if (!gt || gt->k != TY_FUN || !gt->fnid) continue;
    NlType *id = nesl_type_resolve(gt->fnid);
    if (id && id->k == TY_FNID && id->id == fnid && g->val.k == V_FN) return g;
  }
  return NULL;
}

/* A form's value holding functions: each must be a named one, whose value the driver
 * gets back from its identity (flan_fn_register; a closure would need its frames). */
static void register_fns(Fl *F, const FlTy *t, NzLoc loc) {
  if (t->a) register_fns(F, t->a, loc);
  if (t->b) register_fns(F, t->b, loc);
  if (t->k != FT_FN || t->fnid < 0) return; /* a datatype's field: registered when made */
  NlGlobal *g = fn_global(F->env, t->fnid);
  if (!g) flan_unsupported(F, loc, "a top-level value holding an anonymous function");
  flan_fn_register(t->fnid, g->val);
}

/* Named function g called with an argument of type at giving rt: its type arguments
 * (args, sized mono_ngen(g->ty)), or false if it cannot be. */
static bool fits_call(Fl *F, NlGlobal *g, NlType *at, NlType *rt, NlType ***args, int *nargs) {
  if (g->val.k != V_FN) return false;
  *nargs = mono_ngen(g->ty);
  *args = NZ_NEWN(F->a, NlType *, *nargs > 0 ? *nargs : 1);
  return mono_match_call(g->ty, at, rt, *args, *nargs);
}

static NlExpr *syn_expr(Fl *F, NlExprKind k, NzLoc loc, NlType *t) {
  NlExpr *x = NZ_NEW(F->a, NlExpr);
  x->k = k;
  x->loc = loc;
  x->ty = t;
  x->ek = -1;
  return x;
}

/* A local variable of the current frame, in a new slot holding v. */
static NlExpr *syn_slot(Fl *F, FlVal v, NzLoc loc, NlType *t) {
  FlVal *ns = NZ_NEWN(F->a, FlVal, F->nslots + 1);
  memcpy(ns, F->slots, sizeof(FlVal) * (size_t)F->nslots);
  ns[F->nslots] = v;
  F->slots = ns;
  NlExpr *x = syn_expr(F, E_VAR, loc, t);
  x->vk = VK_LOCAL;
  x->slot = F->nslots++;
  return x;
}

/* A constructor's argument of type at becoming its field types ft: a function that a
 * field holds as any function of its type must be a named one (call_dispatch finds it
 * by its identity; a lambda's tag is not always its identity). */
static void con_fields(Fl *F, const FlTy *at, const FlTy *ft, NzLoc loc) {
  if (!at || !ft) return;
  if (ft->k == FT_FN && ft->fnid < 0 && at->k == FT_FN && at->fnid >= 0 && !fn_global(F->env, at->fnid))
    flan_unsupported(F, loc, "an anonymous function held in a datatype");
  con_fields(F, at->a, ft->a, loc);
  con_fields(F, at->b, ft->b, loc);
}

/* A constructor applied to e's argument: its representation is the argument's. */
static FlVal construct(Fl *F, NlExpr *e) {
  FlVal r = lower(F, e->b);
  const FlTy *rt = ty(F, e->ty, e->loc);
  con_fields(F, r.t, rt, e->loc);
  r.t = rt;
  return r;
}

/* A call of a function held in a datatype's field (its type says only its argument and
 * result types; its tag is the function's identity): a dispatch on the tag over the
 * named functions of that type met as values so far (flan_fn_registered; a value can
 * only hold a function that was met as a value before), written as the NESL
 * `if g == f1 then f1(x) else if ... else if g == fk then fk(x) else error` and
 * lowered as such, so that a lifted call splits its rows by function. The last test is
 * a deferred check (lower_if_error) whose failure would be an internal error. */
static FlVal call_dispatch(Fl *F, NlExpr *e, FlVal fv) {
  NZ_VEC(int) ids = {0};
  for (int i = 0; i < flan_fn_nregistered(); i++) {
    int id = flan_fn_registered(i), nargs;
    NlGlobal *g = fn_global(F->env, id);
    NlType **args;
    if (g && fits_call(F, g, e->b->ty, e->ty, &args, &nargs)) nz_vec_push(ids, id);
  }
  if (!ids.n) {
    nz_vec_free(ids);
    flan_unsupported(F, e->loc, "calling a function held in a datatype (no named function of its type met)");
  }
  FlFrame saved = frame_save(F);
  NzLoc L = F->uloc;
  if (fv.ctx) fv = flan_derive(F, fv, F->ctx);
  NlExpr *arg = syn_slot(F, lower(F, e->b), e->loc, e->b->ty);
  NlExpr *err = syn_expr(F, E_CALL, e->loc, e->ty);
  err->a = syn_expr(F, E_VAR, e->loc, NULL);
  err->a->vk = VK_GLOBAL;
  err->a->slot = nesl_global_lookup(F->env, nz_intern_cstr("__error"));
  static const char msg[] = "internal error: a function held in a datatype that the flattener did not meet";
  err->b = syn_expr(F, E_STRING, e->loc, NULL);
  err->b->name = msg;
  err->b->slen = (int)strlen(msg);
  if (err->a->slot < 0) nz_die("flan: no __error in the basis");
  NlExpr *chain = err;
  for (int i = ids.n - 1; i >= 0; i--) {
    int id = ids.v[i];
    LcuExpr *eq;
    FlVal c = {flan_ty_base(FT_BOOL), fv.ctx, flan_comps(F, 1)};
    if (fv.ctx) {
      FlKb k;
      flan_kb_init(&k, F);
      eq = lcu_prim2(F->p, LP_EQ, lcu_index(F->p, flan_kc(&k, fv.c[0]), flan_kix(&k), L), lcu_int(F->p, id, L), L);
      c.c[0] = flan_kb_map1(&k, F->ctx->n, eq, LT_BOOL);
    } else {
      eq = lcu_prim2(F->p, LP_EQ, flan_v(F, fv.c[0]), lcu_int(F->p, id, L), L);
      c.c[0] = flan_emit(F, F->blk, lcu_type_base(LT_BOOL), eq);
    }
    FlVal fn = {flan_ty_fn(id), NULL, flan_comps(F, 1)};
    fn.c[0] = flan_int_lit(F, id);
    NlExpr *call = syn_expr(F, E_CALL, e->loc, e->ty);
    call->a = syn_slot(F, fn, e->loc, NULL);
    call->b = arg;
    NlExpr *ife = syn_expr(F, E_IF, e->loc, e->ty);
    ife->a = syn_slot(F, c, e->loc, NULL);
    ife->b = call;
    ife->c = chain;
    chain = ife;
  }
  nz_vec_free(ids);
  FlVal r = lower(F, chain);
  frame_restore(F, &saved);
  return r;
}

/* A call of a function value (a parameter, a lambda): the function is known from the
 * identity in its type. */
static FlVal call_value(Fl *F, NlExpr *e) {
  NlExpr *fe = e->a;
  FlVal fv = lower(F, fe);
  if (fv.t->k != FT_FN) flan_unsupported(F, e->loc, "calling a value that is not a known function");
  if (fv.t->fnid < 0) return call_dispatch(F, e, fv);
  bool several;
  struct FlLambda *l = find_lambda(F, fv.t->fnid, &fv, &several);
  if (several) flan_unsupported(F, e->loc, several_closures);
  if (l) {
    NlExpr *lam = l->e;
    FlVal arg = lower(F, e->b);
    FlVal **ups = l->ups;
    if (l->ctx) { /* made per element of l->ctx: what it reads comes from the tag's rows */
      FlVal tag = {flan_ty_base(FT_INT), fv.ctx, fv.c};
      if (tag.ctx) tag = flan_derive(F, tag, F->ctx);
      ups = cap_frames(F, l, cap_rows, &tag);
    }
    FlFrame saved = frame_save(F);
    F->nslots = lam->nslots;
    F->slots = NZ_NEWN(F->a, FlVal, lam->nslots > 0 ? lam->nslots : 1);
    F->ups = ups;
    F->nups = l->nups;
    bind_pat(F, lam->pats[0], arg);
    FlVal r = lower(F, lam->a);
    frame_restore(F, &saved);
    return r;
  }
  /* a named function: the newest global of that identity */
  NlGlobal *g = fn_global(F->env, fv.t->fnid);
  if (g) {
    NlFn *fn = g->val.fn;
    const FlTy *rt = ty(F, e->ty, e->loc);
    if (fn->k == FN_PRIM) {
      FlVal a[8];
      int ar = fn->prim->arity, i = 0;
      NlExpr *x = e->b;
      for (; i < ar - 1 && x->k == E_PAIR; i++, x = x->b) a[i] = lower(F, x->a);
      FlVal last = lower(F, x);
      for (; i < ar - 1; i++) {
        a[i] = split_a(last);
        last = split_b(last);
      }
      a[ar - 1] = last;
      for (i = 0; i < ar; i++) a[i] = a[i].ctx ? flan_derive(F, a[i], F->ctx) : a[i];
      return flan_prim(F, fn->prim->name, ar, a, rt, F->uloc);
    }
    if (fn->k == FN_CON) return construct(F, e);
    NlDecl *d = fn->decl;
    NlType **args;
    int nargs;
    if (!d || !d->body || !fits_call(F, g, e->b->ty, e->ty, &args, &nargs))
      flan_unsupported(F, e->loc, "calling this function value");
    return call_user(F, e, d, args, nargs);
  }
  flan_unsupported(F, e->loc, "calling this function value");
}

static FlVal call(Fl *F, NlExpr *e) {
  NlExpr *fe = e->a;
  if (fe->k != E_VAR || fe->vk != VK_GLOBAL || F->env->globals.v[fe->slot].val.k != V_FN) {
    NzLoc saved = F->uloc;
    if (e->user) F->uloc = e->loc;
    FlVal r = call_value(F, e);
    F->uloc = saved;
    return r;
  }
  NlGlobal *g = &F->env->globals.v[fe->slot];
  if (g->val.k != V_FN) flan_unsupported(F, e->loc, "calling %s before it is defined", g->name);
  NlFn *fn = g->val.fn;
  NzLoc saved = F->uloc;
  if (e->user) F->uloc = e->loc;
  FlVal r;
  switch (fn->k) {
  case FN_PRIM: {
    FlVal src;
    FlComp map;
    bool len = !strcmp(fn->prim->name, "__length"), elt = !strcmp(fn->prim->name, "__elt");
    if ((len || elt) && outer_rows(F, len ? e->b : e->b->a, &src, &map)) {
      FlVal idx = {0};
      if (elt) idx = lower(F, e->b->b);
      if (elt && idx.ctx) idx = flan_derive(F, idx, F->ctx);
      r = flan_prim_rows(F, fn->prim->name, src, map, idx, ty(F, e->ty, e->loc), F->uloc);
      break;
    }
    FlVal a[8];
    int ar = fn->prim->arity, i = 0;
    NlExpr *x = e->b;
    if (ar > 8) nz_die("flan: bad primitive arity");
    for (; i < ar - 1 && x->k == E_PAIR; i++, x = x->b) a[i] = lower(F, x->a);
    if (!split_args(lower(F, x), ar - i, a + i)) nz_die("flan: bad primitive arity");
    for (int i = 0; i < fn->prim->arity; i++) a[i] = a[i].ctx ? flan_derive(F, a[i], F->ctx) : a[i];
    r = flan_prim(F, fn->prim->name, fn->prim->arity, a, ty(F, e->ty, e->loc), F->uloc);
    break;
  }
  case FN_CON: r = construct(F, e); break;
  case FN_USER:
    if (!fn->decl->body) flan_unsupported(F, e->loc, "%s has no definition", g->name);
    r = call_user(F, e, fn->decl, fe->inst, fe->ninst);
    break;
  default: flan_unsupported(F, e->loc, "calling a function value");
  }
  F->uloc = saved;
  return r;
}

/* --------------------------------------------------------- top-level values */

LcuExpr *flan_const_expr(LcuProgram *p, const LcuValue *v, const LcuType *t, NzLoc L) {
  switch (t->kind) {
  case LT_INT: return lcu_int(p, v->u.i, L);
  case LT_FLOAT: return lcu_float(p, v->u.f, L);
  case LT_BOOL: return lcu_bool(p, v->u.b, L);
  case LT_CHAR: return lcu_char(p, v->u.c, L);
  case LT_ARRAY: {
    LcuExpr *lit = lcu_expr_new(p, LE_ARRAY, L);
    const LcuArray *a = v->u.arr;
    lit->opty = lcu_type_base(t->elem);
    lit->nargs = (int)a->len;
    lit->args = lcu_exprs(p, lit->nargs);
    for (int i = 0; i < lit->nargs; i++) {
      LcuValue x = {0};
      switch (t->elem) {
      case LT_INT: x.u.i = a->d.i[i]; break;
      case LT_FLOAT: x.u.f = a->d.f[i]; break;
      case LT_BOOL: x.u.b = a->d.b[i]; break;
      default: x.u.c = a->d.b[i]; break;
      }
      lit->args[i] = flan_const_expr(p, &x, lcu_type_base(t->elem), L);
    }
    return lit;
  }
  case LT_SEGDES: {
    LcuExpr *lit = lcu_expr_new(p, LE_ARRAY, L);
    const LcuSegdes *s = v->u.sd;
    lit->opty = lcu_type_base(LT_INT);
    lit->nargs = (int)s->nsegs;
    lit->args = lcu_exprs(p, lit->nargs);
    for (int i = 0; i < lit->nargs; i++) lit->args[i] = lcu_int(p, s->lens[i], L);
    return lcu_prim(p, LP_MAKE_SEGDES, 1, &lit, L);
  }
  default: nz_die("flan: constant of a tuple type");
  }
}

static FlVal global_val(Fl *F, int g, NlExpr *e) {
  NlGlobal *gl = &F->env->globals.v[g];
  const FlTy *t = ty(F, e->ty, e->loc);
  if (t->k == FT_FN) { /* its tag, the identity; the driver gets the value back by it */
    NlType *gt = nesl_type_resolve(gl->ty);
    NlType *id = gt && gt->k == TY_FUN && gt->fnid ? nesl_type_resolve(gt->fnid) : NULL;
    int fnid = id && id->k == TY_FNID ? id->id : t->fnid;
    if (gl->val.k == V_FN && fnid >= 0) flan_fn_register(fnid, gl->val);
    return scalar_lit(F, t, lcu_int(F->p, fnid, F->uloc));
  }
  if (gl->val.k == V_FN || !gl->defined)
    flan_unsupported(F, e->loc, "%s used as a value", gl->name);
  int n = flan_ncomp(t, false);
  if (F->in_main && g >= F->env->nbasis) {
    for (int i = 0; i < F->gslot.n; i++)
      if (F->gslot.v[i] == g) return F->gval.v[i];
    FlVal v = {t, NULL, flan_comps(F, n)};
    const LcuType *tys[n > 0 ? n : 1];
    flan_comp_types(t, false, tys);
    for (int i = 0; i < n; i++) {
      v.c[i].name = flan_fresh(F, gl->name);
      v.c[i].ty = tys[i];
    }
    nz_vec_push(F->gslot, g);
    nz_vec_push(F->gval, v);
    return v;
  }
  /* inside a function, and the basis's values: the value itself, as literals */
  LcuValue *vals = nz_xcalloc((size_t)n, sizeof(LcuValue));
  flan_value_to_lcu(gl->val, t, vals);
  const LcuType *tys[n > 0 ? n : 1];
  flan_comp_types(t, false, tys);
  FlVal v = {t, NULL, flan_comps(F, n)};
  for (int i = 0; i < n; i++) {
    v.c[i] = flan_emit(F, F->blk, tys[i], flan_const_expr(F->p, &vals[i], tys[i], F->uloc));
    lcu_value_release(vals[i]);
  }
  free(vals);
  return v;
}

/* ------------------------------------------------------------------ forms */

/* Names stay unique across the forms of a run, so that their programs can be joined
 * into one (nessie emit). */
static int name_counter;

FlProgram *flan_lower_form(NlEnv *env, MonoProgram *mono, NlDecl *d) {
  Fl *F = nz_xcalloc(1, sizeof *F);
  F->env = env;
  F->mono = mono;
  F->counter = name_counter;
  F->a = nz_arena_new();
  F->p = lcu_program_new(d->loc.src);
  FlProgram *fp = NULL;
  int start = name_counter;
  rec_memo.n = 0; /* the names' definitions may have changed since the last form */
  int nunrolled = unrolled.n;
  int rc = setjmp(F->fail);
  if (rc == 0) {
    F->nslots = d->nslots;
    F->slots = NZ_NEWN(F->a, FlVal, d->nslots > 0 ? d->nslots : 1);
    F->blk = blk_new(F);
    F->uloc = d->body->loc;
    F->in_main = true;
    F->fn_name = "top";
    const FlTy *rt = ty(F, d->body->ty, d->body->loc);
    register_fns(F, rt, d->body->loc);
    FlVal r = lower(F, d->body);
    if (F->any_draw) { /* the AST interpreter reseeds before every top-level form */
      FlBlk *b = F->blk;
      LcuExpr *zero = lcu_int(F->p, 0, F->uloc);
      flan_emit(F, b, lcu_type_base(LT_BOOL), lcu_prim(F->p, LP_RAND_SEED, 1, &zero, F->uloc));
      FlBind seed = b->v.v[b->v.n - 1];
      memmove(b->v.v + 1, b->v.v, sizeof(FlBind) * (size_t)(b->v.n - 1));
      b->v.v[0] = seed;
    }
    int n = nc(r);
    LcuFunc *m = lcu_func_add(F->p, "main", d->loc);
    m->body = blk_close(F, F->blk, tuple_of(F, n, r.c));
    const LcuType *rts[n > 0 ? n : 1];
    flan_comp_types(rt, false, rts);
    m->ret = lcu_type_tuple(n, rts);
    int np = 0;
    for (int i = 0; i < F->gval.n; i++) np += flan_ncomp(F->gval.v[i].t, false);
    m->nparams = np;
    m->params = lcu_binders(F->p, np);
    fp = nz_xcalloc(1, sizeof *fp);
    fp->lcu = F->p;
    fp->result = rt;
    fp->nglobals = F->gval.n;
    fp->globals = nz_xcalloc((size_t)(F->gval.n + 1), sizeof(int));
    fp->gtys = nz_xcalloc((size_t)(F->gval.n + 1), sizeof(FlTy *));
    np = 0;
    for (int i = 0; i < F->gval.n; i++) {
      fp->globals[i] = F->gslot.v[i];
      fp->gtys[i] = F->gval.v[i].t;
      for (int j = 0; j < flan_ncomp(F->gval.v[i].t, false); j++)
        m->params[np++] = lcu_binder(F->gval.v[i].c[j].name, F->gval.v[i].c[j].ty, d->loc);
    }
  } else {
    lcu_program_free(F->p);
  }
  name_counter = F->counter;
  for (int i = 0; i < F->ctxs.n; i++) nz_vec_free(F->ctxs.v[i]->cache);
  for (int i = 0; i < F->blks.n; i++) {
    nz_vec_free(F->blks.v[i]->v);
    nz_vec_free(F->blks.v[i]->defer);
    nz_vec_free(F->blks.v[i]->taint);
    free(F->blks.v[i]);
  }
  nz_vec_free(F->ctxs);
  nz_vec_free(F->blks);
  nz_vec_free(F->insts);
  nz_vec_free(F->inlining);
  nz_vec_free(F->shapes);
  nz_vec_free(F->lambdas);
  nz_vec_free(F->gslot);
  nz_vec_free(F->gval);
  nz_arena_free(F->a);
  free(F);
  if (rc == 2) { /* learnt how rand must be lowered here: again (flan_note_draw) */
    name_counter = start;
    unrolled.n = nunrolled;
    return flan_lower_form(env, mono, d);
  }
  return fp;
}

void flan_program_free(FlProgram *fp) {
  if (!fp) return;
  lcu_program_free(fp->lcu);
  free(fp->globals);
  free(fp->gtys);
  free(fp);
}
