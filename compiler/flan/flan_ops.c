/* flan_ops.c — the vector operations of flattened code, each one λcu kernel with one
 * SOAC run from the CPU (the unfused form the fusion schedulers start from), and the
 * general row gather that moves nested data. */
#include "flan_int.h"

void flan_kb_init(FlKb *k, Fl *F) {
  memset(k, 0, sizeof *k);
  k->F = F;
  k->loc = F->uloc;
  k->ix = flan_fresh(F, "i");
}

void flan_kb_free(FlKb *k) { nz_vec_free(k->caps); }

LcuExpr *flan_kc(FlKb *k, FlComp c) {
  int i;
  for (i = 0; i < k->caps.n; i++)
    if (k->caps.v[i].name == c.name) break;
  if (i == k->caps.n) nz_vec_push(k->caps, c);
  return lcu_var(k->F->p, c.name, k->loc);
}

LcuExpr *flan_kix(FlKb *k) { return lcu_var(k->F->p, k->ix, k->loc); }

static LcuSize size_of(FlKb *k, FlComp c) {
  flan_kc(k, c);
  LcuSize z = {0};
  z.kind = LZ_VAR;
  z.loc = k->loc;
  z.name = c.name;
  z.slot = -1;
  return z;
}

static LcuBinder *usings(FlKb *k) {
  LcuBinder *u = lcu_binders(k->F->p, k->caps.n);
  for (int i = 0; i < k->caps.n; i++) u[i] = lcu_binder(k->caps.v[i].name, NULL, k->loc);
  return u;
}

/* Adds the kernel (its one SOAC in s) and emits `let outs = run K(caps)`. */
static void finish(FlKb *k, LcuSoac s, int nout, const LcuType **tys, FlComp *out) {
  Fl *F = k->F;
  LcuProgram *p = F->p;
  /* named after the NESL function and line it comes from, so that fusion's reports
   * and pictures point at the source: qsort_l8_k_123 */
  NzBuf nm = {0};
  for (const char *c = F->fn_name ? F->fn_name : "top"; *c; c++)
    nz_buf_putc(&nm, (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ? *c : '_');
  nz_buf_printf(&nm, "_l%d_k", k->loc.line);
  LcuKernel *K = lcu_kernel_add(p, flan_fresh(F, nm.s[0] == '_' ? nm.s + 1 : nm.s), k->loc);
  nz_buf_free(&nm);
  K->nparams = k->caps.n;
  K->params = lcu_binders(p, k->caps.n);
  for (int i = 0; i < k->caps.n; i++) K->params[i] = lcu_binder(k->caps.v[i].name, k->caps.v[i].ty, k->loc);
  for (int t = 0; t < s.nthunks; t++) {
    s.thunks[t]->nusing = k->caps.n;
    s.thunks[t]->usings = usings(k);
  }
  s.nbinds = nout;
  s.binds = lcu_binders(p, nout);
  K->nrets = nout;
  K->rets = lcu_binders(p, nout);
  for (int o = 0; o < nout; o++) {
    out[o].name = flan_fresh(F, "t");
    out[o].ty = tys[o];
    s.binds[o] = lcu_binder(out[o].name, NULL, k->loc);
    K->rets[o] = lcu_binder(out[o].name, NULL, k->loc);
  }
  K->ret = lcu_type_tuple(nout, tys);
  LcuSoac *d = lcu_kernel_add_soac(p, K, s.kind, k->loc);
  *d = s;
  LcuExpr **args = lcu_exprs(p, k->caps.n);
  for (int i = 0; i < k->caps.n; i++) args[i] = lcu_var(p, k->caps.v[i].name, k->loc);
  LcuExpr *run = lcu_run(p, K->name, k->caps.n, args, k->loc);
  /* the kernel's binders are local to it: the CPU gets fresh names */
  FlComp *cpu = flan_comps(F, nout);
  flan_emitn(F, F->blk, nout, tys, cpu, run);
  memcpy(out, cpu, sizeof(FlComp) * (size_t)nout);
  flan_kb_free(k);
}

static LcuThunk *index_thunk(FlKb *k, LcuExpr *body) {
  LcuBinder *ps = lcu_binders(k->F->p, 1);
  ps[0] = lcu_binder(k->ix, lcu_type_base(LT_INT), k->loc);
  return lcu_thunk_new(k->F->p, 1, ps, body, 0, NULL, k->loc);
}

/* out has n elements: remembered for flan_rows */
static void shape(Fl *F, FlComp *out, FlComp n) {
  FlComp *a = flan_comps(F, 2);
  a[0] = *out;
  a[1] = n;
  FlCache c = {a, a + 1, NULL};
  nz_vec_push(F->shapes, c);
}

void flan_kb_map(FlKb *k, FlComp n, LcuExpr *body, int nout, const LcuType **tys, FlComp *out) {
  LcuSoac s = {0};
  s.loc = k->loc;
  s.kind = LS_MAP;
  s.nthunks = 1;
  s.thunks[0] = index_thunk(k, body);
  s.size = size_of(k, n);
  const LcuType *at[nout > 0 ? nout : 1];
  for (int i = 0; i < nout; i++) at[i] = lcu_type_array(tys[i]->kind);
  Fl *F = k->F;
  finish(k, s, nout, at, out);
  for (int i = 0; i < nout; i++) shape(F, &out[i], n);
}

FlComp flan_kb_map1(FlKb *k, FlComp n, LcuExpr *body, LcuTypeKind elem) {
  const LcuType *t = lcu_type_base(elem);
  FlComp out;
  flan_kb_map(k, n, body, 1, &t, &out);
  return out;
}

FlComp flan_kb_fold(FlKb *k, LcuSoacKind kind, FlComp size, LcuExpr *body, LcuRop rop,
                    LcuTypeKind elem) {
  LcuSoac s = {0};
  s.loc = k->loc;
  s.kind = kind;
  s.nthunks = 1;
  s.thunks[0] = index_thunk(k, body);
  s.size = size_of(k, size);
  s.nrops = 1;
  s.rops = NZ_NEWN(k->F->p->arena, LcuRop, 1);
  s.rops[0] = rop;
  const LcuType *t = kind == LS_REDUCE && rop != LR_ID ? lcu_type_base(elem) : lcu_type_array(elem);
  FlComp out;
  Fl *F = k->F;
  finish(k, s, 1, &t, &out);
  if (kind == LS_SCAN) shape(F, &out, size);
  return out;
}

FlComp flan_kb_filter_index(FlKb *k, FlComp n, LcuExpr *flag) {
  Fl *F = k->F;
  LcuProgram *p = F->p;
  LcuSoac s = {0};
  s.loc = k->loc;
  s.kind = LS_FILTER;
  s.nthunks = 2;
  LcuExpr *pair[2] = {flan_kix(k), flag};
  s.thunks[0] = index_thunk(k, lcu_tuple(p, 2, pair, k->loc));
  LcuBinder *ps = lcu_binders(p, 2);
  const char *v = flan_fresh(F, "v"), *f = flan_fresh(F, "f");
  ps[0] = lcu_binder(v, lcu_type_base(LT_INT), k->loc);
  ps[1] = lcu_binder(f, lcu_type_base(LT_BOOL), k->loc);
  s.thunks[1] = lcu_thunk_new(p, 2, ps, lcu_var(p, f, k->loc), 0, NULL, k->loc);
  s.size = size_of(k, n);
  const LcuType *t[2] = {lcu_type_array(LT_INT), lcu_type_array(LT_BOOL)};
  FlComp out[2];
  finish(k, s, 2, t, out);
  return out[0];
}

FlComp flan_kb_permute(FlKb *k, FlComp n, LcuExpr *val, LcuExpr *dst, const FlComp *into,
                       LcuTypeKind elem) {
  LcuSoac s = {0};
  s.loc = k->loc;
  s.kind = LS_PERMUTE;
  s.nthunks = 2;
  s.thunks[0] = index_thunk(k, val);
  s.thunks[1] = index_thunk(k, dst);
  s.size = size_of(k, n);
  if (into) s.outlen = size_of(k, *into);
  const LcuType *t = lcu_type_array(elem);
  FlComp out;
  finish(k, s, 1, &t, &out);
  return out;
}

FlComp flan_any(FlKb *k, FlComp n, LcuExpr *body) {
  return flan_kb_fold(k, LS_REDUCE, n, body, LR_BOR, LT_BOOL);
}

static LcuExpr *fail_expr(Fl *F, FlComp bad, const char *msg, NzLoc loc) {
  LcuProgram *p = F->p;
  LcuExpr *m = lcu_expr_new(p, LE_ARRAY, loc);
  int len = (int)strlen(msg);
  m->nargs = len;
  m->args = lcu_exprs(p, len);
  for (int i = 0; i < len; i++) m->args[i] = lcu_char(p, (unsigned char)msg[i], loc);
  LcuExpr *a[2] = {flan_v(F, bad), m};
  return lcu_prim(p, LP_FAIL_IF, 2, a, loc);
}

void flan_check(Fl *F, FlComp bad, const char *msg, NzLoc loc) {
  flan_emit(F, F->blk, lcu_type_unit(), fail_expr(F, bad, msg, loc));
}

void flan_check_defer(Fl *F, FlComp bad, const char *msg, NzLoc loc) {
  flan_defer_push(F, F->blk, fail_expr(F, bad, msg, loc));
}

void flan_empty(Fl *F, const FlTy *t, FlComp *out) {
  int n = flan_ncomp(t, true);
  const LcuType *tys[n > 0 ? n : 1];
  flan_comp_types(t, true, tys);
  LcuProgram *p = F->p;
  for (int i = 0; i < n; i++) {
    LcuExpr *e = lcu_expr_new(p, LE_ARRAY, F->uloc);
    if (tys[i]->kind == LT_SEGDES) {
      e->opty = lcu_type_base(LT_INT);
      e = lcu_prim(p, LP_MAKE_SEGDES, 1, &e, F->uloc);
    } else {
      e->opty = lcu_type_base(tys[i]->elem);
    }
    out[i] = flan_emit(F, F->blk, tys[i], e);
  }
}

/* a chain `if sel == 0 then e0 else if sel == 1 ...` */
static LcuExpr *choose(FlKb *k, LcuExpr *(*mk)(FlKb *, FlComp *, int, void *), int nsrc,
                       FlComp **srcs, int ci, FlComp *sel, LcuExpr *selix, void *arg) {
  Fl *F = k->F;
  LcuExpr *e = mk(k, srcs[nsrc - 1], ci, arg);
  for (int s = nsrc - 2; s >= 0; s--) {
    LcuExpr *c = lcu_prim2(F->p, LP_EQ, lcu_index(F->p, flan_kc(k, *sel), selix, k->loc),
                           lcu_int(F->p, s, k->loc), k->loc);
    e = lcu_if(F->p, c, mk(k, srcs[s], ci, arg), e, k->loc);
  }
  return e;
}

typedef struct {
  LcuExpr *at; /* index expression */
} ElArg;
static LcuExpr *elem_at(FlKb *k, FlComp *src, int ci, void *arg) {
  ElArg *a = arg;
  return lcu_index(k->F->p, flan_kc(k, src[ci]), lcu_expr_copy(k->F->p, a->at), k->loc);
}
static LcuExpr *seg_len_at(FlKb *k, FlComp *src, int ci, void *arg) {
  ElArg *a = arg;
  LcuExpr *x[2] = {flan_kc(k, src[ci]), lcu_expr_copy(k->F->p, a->at)};
  return lcu_prim(k->F->p, LP_SEG_LEN, 2, x, k->loc);
}
static LcuExpr *seg_start_at(FlKb *k, FlComp *src, int ci, void *arg) {
  ElArg *a = arg;
  LcuExpr *x[2] = {flan_kc(k, src[ci]), lcu_expr_copy(k->F->p, a->at)};
  return lcu_prim(k->F->p, LP_SEG_START, 2, x, k->loc);
}

/* guarded: e, or z where the row index src[i] is negative (no row) */
static LcuExpr *guard(FlKb *k, bool guarded, FlComp src, LcuExpr *z, LcuExpr *e) {
  if (!guarded) return e;
  LcuProgram *p = k->F->p;
  LcuExpr *neg = lcu_prim2(p, LP_LT, lcu_index(p, flan_kc(k, src), flan_kix(k), k->loc), lcu_int(p, 0, k->loc), k->loc);
  return lcu_if(p, neg, z, e, k->loc);
}

LcuExpr *flan_zero(Fl *F, LcuTypeKind t) {
  switch (t) {
  case LT_FLOAT: return lcu_float(F->p, 0.0, F->uloc);
  case LT_BOOL: return lcu_bool(F->p, 0, F->uloc);
  case LT_CHAR: return lcu_char(F->p, 0, F->uloc);
  default: return lcu_int(F->p, 0, F->uloc);
  }
}

static int gather_rec(Fl *F, const FlTy *t, int nsrc, FlComp **srcs, int ci, FlComp *sel,
                      FlComp src, FlComp nout, FlComp *out, bool guarded) {
  LcuProgram *p = F->p;
  NzLoc L = F->uloc;
  switch (t->k) {
  case FT_PAIR: {
    int a = gather_rec(F, t->a, nsrc, srcs, ci, sel, src, nout, out, guarded);
    return a + gather_rec(F, t->b, nsrc, srcs, ci + a, sel, src, nout, out + a, guarded);
  }
  case FT_SEQ: {
    /* lengths of the chosen segments, their descriptor, then the elements (a
     * guarded row is empty: the elements' sources are rows that exist) */
    FlKb k;
    flan_kb_init(&k, F);
    ElArg at = {lcu_index(p, flan_kc(&k, src), flan_kix(&k), L)};
    LcuExpr *len = guard(&k, guarded, src, lcu_int(p, 0, L), choose(&k, seg_len_at, nsrc, srcs, ci, sel, flan_kix(&k), &at));
    FlComp lens = flan_kb_map1(&k, nout, len, LT_INT);
    LcuExpr *lv = flan_v(F, lens);
    out[0] = flan_emit(F, F->blk, lcu_type_base(LT_SEGDES), lcu_prim(p, LP_MAKE_SEGDES, 1, &lv, L));
    LcuExpr *sdv = flan_v(F, out[0]);
    FlComp tot = flan_emit(F, F->blk, lcu_type_base(LT_INT), lcu_prim(p, LP_SEG_TOTAL, 1, &sdv, L));
    /* for element j of output segment o: the source segment's start + j - start(o) */
    flan_kb_init(&k, F);
    const char *o = flan_fresh(F, "o");
    LcuExpr *so[2] = {flan_kc(&k, out[0]), flan_kix(&k)};
    LcuExpr *ov = lcu_var(p, o, L);
    ElArg at2 = {lcu_index(p, flan_kc(&k, src), ov, L)};
    LcuExpr *start = choose(&k, seg_start_at, nsrc, srcs, ci, sel, lcu_var(p, o, L), &at2);
    LcuExpr *so2[2] = {flan_kc(&k, out[0]), lcu_var(p, o, L)};
    LcuExpr *pos = lcu_prim2(p, LP_ADD, start,
                             lcu_prim2(p, LP_SUB, flan_kix(&k), lcu_prim(p, LP_SEG_START, 2, so2, L), L), L);
    FlComp s2[2];
    int ns = sel ? 2 : 1;
    const LcuType *it[2] = {lcu_type_base(LT_INT), lcu_type_base(LT_INT)};
    LcuExpr *body;
    if (sel) {
      LcuExpr *pr[2] = {lcu_index(p, flan_kc(&k, *sel), lcu_var(p, o, L), L), pos};
      body = lcu_tuple(p, 2, pr, L);
    } else {
      body = pos;
    }
    body = lcu_let1(p, o, lcu_prim(p, LP_SEG_OF, 2, so, L), body, L);
    flan_kb_map(&k, tot, body, ns, it, s2);
    return 1 + gather_rec(F, t->a, nsrc, srcs, ci + 1, sel ? &s2[0] : NULL, s2[ns - 1], tot, out + 1, false);
  }
  default: {
    FlKb k;
    flan_kb_init(&k, F);
    ElArg at = {lcu_index(p, flan_kc(&k, src), flan_kix(&k), L)};
    LcuTypeKind et = flan_ty_lcu_base(t);
    LcuExpr *e = guard(&k, guarded, src, flan_zero(F, et), choose(&k, elem_at, nsrc, srcs, ci, sel, flan_kix(&k), &at));
    out[0] = flan_kb_map1(&k, nout, e, et);
    return 1;
  }
  }
}

void flan_gather(Fl *F, const FlTy *t, int nsrc, FlComp **srcs, FlComp *sel, FlComp src,
                 FlComp nout, FlComp *out) {
  gather_rec(F, t, nsrc, srcs, 0, nsrc > 1 ? sel : NULL, src, nout, out, false);
}

void flan_gather_guarded(Fl *F, const FlTy *t, FlComp *data, FlComp src, FlComp nout, FlComp *out) {
  gather_rec(F, t, 1, &data, 0, NULL, src, nout, out, true);
}

FlComp flan_rows_like(Fl *F, FlComp sd0, FlComp sdi, FlComp data, FlComp n) {
  LcuProgram *p = F->p;
  NzLoc L = F->uloc;
  FlKb k;
  flan_kb_init(&k, F);
  const char *o = flan_fresh(F, "o"), *off = flan_fresh(F, "off");
  LcuExpr *x[2] = {flan_kc(&k, sd0), flan_kix(&k)};
  LcuExpr *y[2] = {flan_kc(&k, sdi), lcu_var(p, o, L)};
  LcuExpr *in = lcu_prim2(p, LP_LT, lcu_var(p, off, L), lcu_prim(p, LP_SEG_LEN, 2, y, L), L);
  LcuExpr *z[2] = {flan_kc(&k, sdi), lcu_var(p, o, L)};
  LcuExpr *pos = lcu_prim2(p, LP_ADD, lcu_prim(p, LP_SEG_START, 2, z, L), lcu_var(p, off, L), L);
  LcuTypeKind et = data.ty->elem;
  LcuExpr *e = lcu_if(p, in, lcu_index(p, flan_kc(&k, data), pos, L), flan_zero(F, et), L);
  LcuExpr *w[2] = {flan_kc(&k, sd0), lcu_var(p, o, L)};
  e = lcu_let1(p, off, lcu_prim2(p, LP_SUB, flan_kix(&k), lcu_prim(p, LP_SEG_START, 2, w, L), L), e, L);
  e = lcu_let1(p, o, lcu_prim(p, LP_SEG_OF, 2, x, L), e, L);
  return flan_kb_map1(&k, n, e, et);
}
