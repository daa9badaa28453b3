/* flan_prims.c — the NESL primitives (basis/README.md) on unlifted and lifted values.
 * Scalar primitives are CPU expressions, or one MAP when lifted. Sequence primitives
 * are written once, lifted (over n rows of vrep); an unlifted call runs them on one
 * row, except the flat cases that have a direct kernel. */
#include "flan_int.h"
#include <float.h>

#define P (F->p)
#define L (F->uloc)

static const LcuType *tint(void) { return lcu_type_base(LT_INT); }
static LcuExpr *ix(FlKb *k, FlComp a) { return lcu_index(k->F->p, flan_kc(k, a), flan_kix(k), k->loc); }
static LcuExpr *at(FlKb *k, FlComp a, LcuExpr *i) { return lcu_index(k->F->p, flan_kc(k, a), i, k->loc); }
static LcuExpr *iv(Fl *F, int v) { return lcu_int(P, v, L); }
static LcuExpr *p2(Fl *F, LcuPrim op, LcuExpr *a, LcuExpr *b) { return lcu_prim2(P, op, a, b, L); }
static LcuExpr *p1(Fl *F, LcuPrim op, LcuExpr *a) { return lcu_prim(P, op, 1, &a, L); }
static LcuExpr *cp(Fl *F, LcuExpr *e) { return lcu_expr_copy(P, e); }
static LcuExpr *seg(FlKb *k, LcuPrim op, FlComp sd, LcuExpr *i) {
  LcuExpr *a[2] = {flan_kc(k, sd), i};
  return lcu_prim(k->F->p, op, 2, a, k->loc);
}
static FlComp cpu(Fl *F, const LcuType *t, LcuExpr *e) { return flan_emit(F, F->blk, t, e); }
static FlComp mksd(Fl *F, FlComp lens) { return cpu(F, lcu_type_base(LT_SEGDES), p1(F, LP_MAKE_SEGDES, flan_v(F, lens))); }
static FlComp total(Fl *F, FlComp sd) { return cpu(F, tint(), p1(F, LP_SEG_TOTAL, flan_v(F, sd))); }

/* ------------------------------------------------------------- scalars */

typedef struct {
  const char *name;
  LcuPrim op;
  int arity;
} ScalarPrim;
static const ScalarPrim scalars[] = {
    {"__add", LP_ADD, 2}, {"__sub", LP_SUB, 2}, {"__mul", LP_MUL, 2}, {"__div", LP_DIV, 2},
    {"__neg", LP_NEG, 1}, {"__eq", LP_EQ, 2}, {"__ne", LP_NE, 2}, {"__lt", LP_LT, 2},
    {"__gt", LP_GT, 2}, {"__le", LP_LE, 2}, {"__ge", LP_GE, 2}, {"__not", LP_NOT, 1},
    {"__and", LP_AND, 2}, {"__or", LP_OR, 2}, {"__xor", LP_XOR, 2}, {"__rem", LP_MOD, 2},
    {"__mod", LP_MOD, 2}, {"__lshift", LP_LSHIFT, 2}, {"__rshift", LP_RSHIFT, 2},
    {"__sqrt", LP_SQRT, 1}, {"__ln", LP_LN, 1}, {"__exp", LP_EXP, 1}, {"__sin", LP_SIN, 1},
    {"__cos", LP_COS, 1}, {"__tan", LP_TAN, 1}, {"__asin", LP_ASIN, 1}, {"__acos", LP_ACOS, 1},
    {"__atan", LP_ATAN, 1}, {"__sinh", LP_SINH, 1}, {"__cosh", LP_COSH, 1}, {"__tanh", LP_TANH, 1},
    {"__float", LP_I2F, 1}, {"__btoi", LP_B2I, 1}, {"__ceil", LP_CEIL, 1}, {"__floor", LP_FLOOR, 1},
    {"__trunc", LP_TRUNC, 1}, {"__round", LP_ROUND, 1}, {"__code_char", LP_I2C, 1},
    {"__char_code", LP_C2I, 1},
};

static LcuExpr *zero_of(Fl *F, const FlTy *t) {
  return t->k == FT_FLOAT ? lcu_float(P, 0.0, L) : lcu_int(P, 0, L);
}

/* The expression of a scalar primitive on operand expressions x (used once each,
 * except mod's, which are copied). */
static LcuExpr *scalar_expr(Fl *F, const ScalarPrim *sp, LcuExpr **x) {
  if (!strcmp(sp->name, "__mod")) {
    const char *r = flan_fresh(F, "r");
    LcuExpr *rv = lcu_var(P, r, L);
    LcuExpr *wrong = p2(F, LP_ANDALSO, p2(F, LP_NE, rv, iv(F, 0)),
                        p2(F, LP_NE, p2(F, LP_LT, cp(F, rv), iv(F, 0)), p2(F, LP_LT, cp(F, x[1]), iv(F, 0))));
    LcuExpr *body = lcu_if(P, wrong, p2(F, LP_ADD, cp(F, rv), cp(F, x[1])), cp(F, rv), L);
    return lcu_let1(P, r, p2(F, LP_MOD, x[0], x[1]), body, L);
  }
  if (!strcmp(sp->name, "__code_char")) /* the AST interpreter keeps the low 8 bits */
    return p1(F, LP_I2C, p2(F, LP_AND, x[0], iv(F, 255)));
  return sp->arity == 1 ? p1(F, sp->op, x[0]) : p2(F, sp->op, x[0], x[1]);
}

/* float -> int (ceil, floor, trunc, round): the AST interpreter's fault when the rounded
 * value is not an int, "Float %g does not fit in an int.", checked before λcu's own
 * (whose message differs). Whether it fits, as bounds on the operand (nan fails all):
 * NULL if sp is not a conversion. */
static LcuExpr *f2i_ok(Fl *F, const ScalarPrim *sp, LcuExpr *x) {
  static const struct {
    const char *name;
    double lo, hi;
    bool lo_in, hi_in; /* lo <= x (else lo < x), x <= hi (else x < hi) */
  } b[] = {
      {"__floor", -2147483648.0, 2147483648.0, true, false},
      {"__ceil", -2147483649.0, 2147483647.0, false, true},
      {"__trunc", -2147483649.0, 2147483648.0, false, false},
      {"__round", -2147483648.5, 2147483647.5, false, false}, /* halves away from zero */
  };
  for (size_t i = 0; i < sizeof b / sizeof *b; i++) {
    if (strcmp(b[i].name, sp->name)) continue;
    LcuExpr *lo = p2(F, b[i].lo_in ? LP_GE : LP_GT, x, lcu_float(P, b[i].lo, L));
    LcuExpr *hi = p2(F, b[i].hi_in ? LP_LE : LP_LT, cp(F, x), lcu_float(P, b[i].hi, L));
    return p2(F, LP_ANDALSO, lo, hi);
  }
  return NULL;
}

static void f2i_check(Fl *F, const ScalarPrim *sp, FlVal a, NzLoc loc) {
  static const char msg[] = "Float %g does not fit in an int.";
  LcuExpr *args[3];
  LcuExpr *m = lcu_expr_new(P, LE_ARRAY, loc);
  m->nargs = (int)strlen(msg);
  m->args = lcu_exprs(P, m->nargs);
  for (int i = 0; i < m->nargs; i++) m->args[i] = lcu_char(P, (unsigned char)msg[i], loc);
  if (!a.ctx) {
    args[0] = flan_v(F, cpu(F, lcu_type_base(LT_BOOL), p1(F, LP_NOT, f2i_ok(F, sp, flan_v(F, a.c[0])))));
    args[2] = flan_v(F, a.c[0]);
  } else {
    /* the first element that does not fit (the interpreter runs them in order) */
    FlComp n = F->ctx->n;
    FlKb k;
    flan_kb_init(&k, F);
    FlComp bad = flan_kb_map1(&k, n, p1(F, LP_NOT, f2i_ok(F, sp, ix(&k, a.c[0]))), LT_BOOL);
    flan_kb_init(&k, F);
    FlComp any = flan_any(&k, n, ix(&k, bad));
    flan_kb_init(&k, F);
    FlComp first = flan_kb_fold(&k, LS_REDUCE, n, lcu_if(P, ix(&k, bad), flan_kix(&k), iv(F, INT32_MAX), L),
                                LR_IMIN, LT_INT);
    LcuExpr *xv = lcu_if(P, flan_v(F, any), lcu_index(P, flan_v(F, a.c[0]), flan_v(F, first), L),
                         lcu_float(P, 0.0, L), L);
    args[0] = flan_v(F, any);
    args[2] = flan_v(F, cpu(F, lcu_type_base(LT_FLOAT), xv));
  }
  args[1] = m;
  cpu(F, lcu_type_unit(), lcu_prim(P, LP_FAIL_IF_G, 3, args, loc));
}

/* A fault condition of a scalar primitive, or NULL. */
static LcuExpr *scalar_bad(Fl *F, const ScalarPrim *sp, LcuExpr **x, const FlTy **ts, const char **msg) {
  const char *n = sp->name;
  if (!strcmp(n, "__div")) {
    *msg = "Divide by zero.";
    return p2(F, LP_EQ, x[1], zero_of(F, ts[1]));
  }
  if (!strcmp(n, "__rem") || !strcmp(n, "__mod")) {
    *msg = n[2] == 'r' ? "Divide by zero in function REM." : "Divide by zero in function MOD.";
    return p2(F, LP_EQ, x[1], iv(F, 0));
  }
  if (!strcmp(n, "__sqrt") || !strcmp(n, "__ln")) {
    *msg = n[2] == 's' ? "Sqrt of negative number." : "Ln of negative number.";
    return p2(F, LP_LT, x[0], lcu_float(P, 0.0, L));
  }
  return NULL;
}

/* The divisor of an integer div, rem or mod whose check is deferred: 1 where it is 0,
 * so that the code does not fault before the check reports (flan_defer.c). */
static void safe_divisor(Fl *F, const ScalarPrim *sp, const FlTy **ts, LcuExpr **x) {
  if (sp->op != LP_MOD && !(sp->op == LP_DIV && ts[1]->k != FT_FLOAT)) return;
  x[1] = lcu_if(P, p2(F, LP_EQ, x[1], iv(F, 0)), iv(F, 1), cp(F, x[1]), L);
}

static FlVal scalar_prim(Fl *F, const ScalarPrim *sp, FlVal *a, const FlTy *rt, NzLoc loc) {
  FlVal r = {rt, NULL, flan_comps(F, 1)};
  const FlTy *ts[2] = {a[0].t, sp->arity > 1 ? a[1].t : NULL};
  bool lifted = a[0].ctx || (sp->arity > 1 && a[1].ctx);
  const char *msg = NULL;
  if (sp->op == LP_CEIL || sp->op == LP_FLOOR || sp->op == LP_TRUNC || sp->op == LP_ROUND) f2i_check(F, sp, a[0], loc);
  if (!lifted) {
    LcuExpr *x[2], *y[2];
    for (int i = 0; i < sp->arity; i++) {
      x[i] = flan_v(F, a[i].c[0]);
      y[i] = flan_v(F, a[i].c[0]);
    }
    LcuExpr *bad = scalar_bad(F, sp, y, ts, &msg);
    if (bad) {
      flan_check_defer(F, cpu(F, lcu_type_base(LT_BOOL), bad), msg, loc);
      safe_divisor(F, sp, ts, x);
    }
    F->defer_safe = bad != NULL;
    r.c[0] = cpu(F, lcu_type_base(flan_ty_lcu_base(rt)), scalar_expr(F, sp, x));
    F->defer_safe = false;
    return r;
  }
  FlCtx *C = F->ctx;
  r.ctx = C;
  LcuExpr *x[2], *y[2];
  FlKb k;
  flan_kb_init(&k, F);
  for (int i = 0; i < sp->arity; i++) y[i] = a[i].ctx ? ix(&k, a[i].c[0]) : flan_kc(&k, a[i].c[0]);
  LcuExpr *bad = scalar_bad(F, sp, y, ts, &msg);
  if (bad) flan_check_defer(F, flan_any(&k, C->n, bad), msg, loc);
  else flan_kb_free(&k);
  flan_kb_init(&k, F);
  for (int i = 0; i < sp->arity; i++) x[i] = a[i].ctx ? ix(&k, a[i].c[0]) : flan_kc(&k, a[i].c[0]);
  if (bad) safe_divisor(F, sp, ts, x);
  F->defer_safe = bad != NULL;
  r.c[0] = flan_kb_map1(&k, C->n, scalar_expr(F, sp, x), flan_ty_lcu_base(rt));
  F->defer_safe = false;
  return r;
}

/* --------------------------------------------------------- scans, reductions */

enum { OP_ADD, OP_MUL, OP_MAX, OP_MIN, OP_OR, OP_AND, OP_XOR };
static const struct {
  const char *scan, *red;
  int op;
} folds[] = {
    {"__plus_scan", "__sum", OP_ADD}, {"__mult_scan", "__product", OP_MUL},
    {"__max_scan", "__max_val", OP_MAX}, {"__min_scan", "__min_val", OP_MIN},
    {"__or_scan", "__any", OP_OR}, {"__and_scan", "__all", OP_AND},
    {"__xor_scan", "__parity", OP_XOR},
};

static LcuRop rop_of(int op, FlTyKind k) {
  bool f = k == FT_FLOAT, b = k == FT_BOOL;
  switch (op) {
  case OP_ADD: return f ? LR_FADD : LR_IADD;
  case OP_MUL: return f ? LR_FMUL : LR_IMUL;
  case OP_MAX: return f ? LR_FMAX : LR_IMAX;
  case OP_MIN: return f ? LR_FMIN : LR_IMIN;
  case OP_OR: return b ? LR_BOR : LR_IOR;
  case OP_AND: return b ? LR_BAND : LR_IAND;
  default: return b ? LR_BXOR : LR_IXOR;
  }
}

/* NESL's identity (nesl_prims.c identity_of), as an expression of the element type. */
static LcuExpr *ident(Fl *F, int op, FlTyKind k) {
  switch (op) {
  case OP_ADD: return k == FT_FLOAT ? lcu_float(P, 0, L) : iv(F, 0);
  case OP_MUL: return k == FT_FLOAT ? lcu_float(P, 1, L) : iv(F, 1);
  case OP_MAX:
    return k == FT_FLOAT ? lcu_float(P, -(double)1e36f, L) : k == FT_CHAR ? lcu_char(P, 0, L) : iv(F, INT32_MIN);
  case OP_MIN:
    return k == FT_FLOAT ? lcu_float(P, (double)1e36f, L) : k == FT_CHAR ? lcu_char(P, 255, L) : iv(F, INT32_MAX);
  case OP_OR:
  case OP_XOR: return k == FT_BOOL ? lcu_bool(P, 0, L) : iv(F, 0);
  default: return k == FT_BOOL ? lcu_bool(P, 1, L) : iv(F, -1);
  }
}

/* Element j of data as the fold's operand type (chars fold as ints). */
static LcuExpr *fold_in(FlKb *k, FlComp data, FlTyKind ek) {
  LcuExpr *x = ix(k, data);
  return ek == FT_CHAR ? lcu_prim(k->F->p, LP_C2I, 1, &x, k->loc) : x;
}
static LcuExpr *fold_out(Fl *F, LcuExpr *x, FlTyKind ek) { return ek == FT_CHAR ? p1(F, LP_I2C, x) : x; }
static LcuTypeKind fold_ty(FlTyKind ek) {
  return ek == FT_CHAR ? LT_INT : flan_ty_lcu_base(flan_ty_base(ek));
}

/* Segmented exclusive scan of base data over sd. */
static FlComp seg_scan(Fl *F, int op, FlTyKind ek, FlComp sd, FlComp data) {
  FlKb k;
  flan_kb_init(&k, F);
  FlComp incl = flan_kb_fold(&k, LS_SEGSCAN, sd, fold_in(&k, data, ek), rop_of(op, ek == FT_CHAR ? FT_INT : ek), fold_ty(ek));
  FlComp tot = total(F, sd);
  flan_kb_init(&k, F);
  LcuExpr *first = p2(F, LP_EQ, flan_kix(&k), seg(&k, LP_SEG_START, sd, seg(&k, LP_SEG_OF, sd, flan_kix(&k))));
  LcuExpr *prev = fold_out(F, at(&k, incl, p2(F, LP_SUB, flan_kix(&k), iv(F, 1))), ek);
  return flan_kb_map1(&k, tot, lcu_if(P, first, ident(F, op, ek), prev, L), flan_ty_lcu_base(flan_ty_base(ek)));
}

static FlComp seg_reduce(Fl *F, int op, FlTyKind ek, FlComp sd, FlComp data) {
  FlKb k;
  flan_kb_init(&k, F);
  FlComp r = flan_kb_fold(&k, LS_SEGREDUCE, sd, fold_in(&k, data, ek), rop_of(op, ek == FT_CHAR ? FT_INT : ek), fold_ty(ek));
  if (ek != FT_CHAR && !(ek == FT_FLOAT && (op == OP_MAX || op == OP_MIN))) return r;
  /* NESL's identities differ (1e36 for floats), and chars fold as ints */
  FlComp ns = cpu(F, tint(), p1(F, LP_LENGTH, flan_v(F, sd)));
  flan_kb_init(&k, F);
  LcuExpr *v = fold_out(F, ix(&k, r), ek);
  LcuExpr *e = lcu_if(P, p2(F, LP_EQ, seg(&k, LP_SEG_LEN, sd, flan_kix(&k)), iv(F, 0)), ident(F, op, ek), v, L);
  return flan_kb_map1(&k, ns, e, flan_ty_lcu_base(flan_ty_base(ek)));
}

/* ------------------------------------------------------ lifted sequences */

/* Arguments in vrep form over n rows; a sequence argument is [sd] ++ vrep(elem). */
typedef struct {
  Fl *F;
  FlComp n;
  FlComp **a;
  const FlTy **t;
  const FlTy *rt;
  NzLoc loc;
  FlComp *out;
} Args;

static void bad_if(Fl *F, FlKb *k, FlComp n, LcuExpr *bad, const char *msg, NzLoc loc) {
  flan_check(F, flan_any(k, n, bad), msg, loc);
}

/* source index of row o's element at offset off */
static void lp_length(Args *A) {
  Fl *F = A->F;
  FlKb k;
  flan_kb_init(&k, F);
  A->out[0] = flan_kb_map1(&k, A->n, seg(&k, LP_SEG_LEN, A->a[0][0], flan_kix(&k)), LT_INT);
}

static void lp_dist(Args *A) {
  Fl *F = A->F;
  FlKb k;
  flan_kb_init(&k, F);
  FlComp lens = flan_kb_map1(&k, A->n, p2(F, LP_MAX, ix(&k, A->a[1][0]), iv(F, 0)), LT_INT);
  FlComp sd = mksd(F, lens), tot = total(F, sd);
  flan_kb_init(&k, F);
  FlComp owner = flan_kb_map1(&k, tot, seg(&k, LP_SEG_OF, sd, flan_kix(&k)), LT_INT);
  A->out[0] = sd;
  flan_gather(F, A->t[0], 1, &A->a[0], NULL, owner, tot, A->out + 1);
}

/* [s:e:d]: its fault, and its length, 0 where it faults (so the check can be
 * deferred: the length is computed before the check and never garbage) */
static const char iseq_msg[] = "In [s:e:l], e must be >= to s, and l must be positive.";
static LcuExpr *iseq_bad(Fl *F, LcuExpr *s, LcuExpr *d, LcuExpr *e) {
  return p2(F, LP_ORELSE, p2(F, LP_LT, d, iv(F, 1)), p2(F, LP_GT, s, e));
}
static LcuExpr *iseq_len(Fl *F, LcuExpr *bad, LcuExpr *s, LcuExpr *d, LcuExpr *e) {
  LcuExpr *len = p2(F, LP_DIV, p2(F, LP_SUB, p2(F, LP_ADD, p2(F, LP_SUB, e, s), d), iv(F, 1)), cp(F, d));
  return lcu_if(P, bad, iv(F, 0), len, L);
}

static void lp_iseq(Args *A) {
  Fl *F = A->F;
  FlComp s = A->a[0][0], d = A->a[1][0], e = A->a[2][0];
  FlKb k;
  flan_kb_init(&k, F);
  FlComp bad = flan_any(&k, A->n, iseq_bad(F, ix(&k, s), ix(&k, d), ix(&k, e)));
  flan_kb_init(&k, F);
  LcuExpr *len = iseq_len(F, iseq_bad(F, ix(&k, s), ix(&k, d), ix(&k, e)), ix(&k, s), ix(&k, d), ix(&k, e));
  F->defer_safe = true;
  FlComp lens = flan_kb_map1(&k, A->n, len, LT_INT);
  F->defer_safe = false;
  flan_check_defer(F, bad, iseq_msg, A->loc);
  FlComp sd = mksd(F, lens), tot = total(F, sd);
  flan_kb_init(&k, F);
  const char *o = flan_fresh(F, "o");
  LcuExpr *ov = lcu_var(P, o, L);
  LcuExpr *val = p2(F, LP_ADD, at(&k, s, ov),
                    p2(F, LP_MUL, p2(F, LP_SUB, flan_kix(&k), seg(&k, LP_SEG_START, sd, cp(F, ov))), at(&k, d, cp(F, ov))));
  A->out[0] = sd;
  A->out[1] = flan_kb_map1(&k, tot, lcu_let1(P, o, seg(&k, LP_SEG_OF, sd, flan_kix(&k)), val, L), LT_INT);
}

/* i out of [0, len) */
static LcuExpr *out_of(Fl *F, LcuExpr *i, LcuExpr *len) {
  return p2(F, LP_ORELSE, p2(F, LP_LT, i, iv(F, 0)), p2(F, LP_GE, cp(F, i), len));
}

/* An index whose check is deferred (a[i], ->): the check (idx out of [0, len) in any
 * of the n rows), and one MAP that reads data at pos, or 0 where the index is out of
 * bounds; data NULL: the row pos itself, or -1 (flan_gather_guarded's empty row). So
 * nothing faults before the check reports. */
typedef LcuExpr *(*EltFn)(FlKb *, void *);
static FlComp checked_at(Fl *F, FlComp n, const FlComp *data, EltFn len, EltFn pos, EltFn idx, void *ctx,
                         LcuTypeKind et, const char *msg, NzLoc loc) {
  FlKb k;
  flan_kb_init(&k, F);
  flan_check_defer(F, flan_any(&k, n, out_of(F, idx(&k, ctx), len(&k, ctx))), msg, loc);
  flan_kb_init(&k, F);
  LcuExpr *at_pos = data ? at(&k, *data, pos(&k, ctx)) : pos(&k, ctx);
  LcuExpr *body = lcu_if(P, out_of(F, idx(&k, ctx), len(&k, ctx)), data ? flan_zero(F, et) : iv(F, -1), at_pos, L);
  return flan_kb_map1(&k, n, body, data ? et : LT_INT);
}

/* a[i] or a -> i of elements of type t over n rows: base elements directly, others
 * through the rows checked_at gives */
static void checked_read(Fl *F, const FlTy *t, FlComp n, FlComp *data, EltFn len, EltFn pos, EltFn idx, void *ctx,
                         const char *msg, NzLoc loc, FlComp *out) {
  if (flan_ty_is_base(t)) {
    out[0] = checked_at(F, n, data, len, pos, idx, ctx, flan_ty_lcu_base(t), msg, loc);
    return;
  }
  FlComp rows = checked_at(F, n, NULL, len, pos, idx, ctx, LT_INT, msg, loc);
  flan_gather_guarded(F, t, data, rows, n, out);
}

static const char elt_msg[] = "Sequence reference (a[i]) out of bounds.";
static const char read_msg[] = "Index out of bounds for function ->.";

typedef struct {
  Fl *F;
  FlComp sd, map, i, na;
  bool lifted_i, shared;
  FlComp sdi; /* read: the index sequences' descriptor */
} EltCtx;
/* rows of an enclosing sequence (flan_prim_rows): row map[j] of sd */
static LcuExpr *rows_len(FlKb *k, void *c) {
  EltCtx *e = c;
  return seg(k, LP_SEG_LEN, e->sd, ix(k, e->map));
}
static LcuExpr *rows_idx(FlKb *k, void *c) {
  EltCtx *e = c;
  return e->lifted_i ? ix(k, e->i) : flan_kc(k, e->i);
}
static LcuExpr *rows_pos(FlKb *k, void *c) {
  EltCtx *e = c;
  Fl *F = e->F;
  return p2(F, LP_ADD, seg(k, LP_SEG_START, e->sd, ix(k, e->map)), rows_idx(k, c));
}
/* a[i] per row (elt_common): row j of sd, or the one shared sequence of length na */
static LcuExpr *own_len(FlKb *k, void *c) {
  EltCtx *e = c;
  return e->shared ? flan_kc(k, e->na) : seg(k, LP_SEG_LEN, e->sd, flan_kix(k));
}
static LcuExpr *own_idx(FlKb *k, void *c) { return ix(k, ((EltCtx *)c)->i); }
static LcuExpr *own_pos(FlKb *k, void *c) {
  EltCtx *e = c;
  Fl *F = e->F;
  return e->shared ? own_idx(k, c) : p2(F, LP_ADD, seg(k, LP_SEG_START, e->sd, flan_kix(k)), own_idx(k, c));
}
/* a -> i per element j of the index sequences: row seg_of(sdi, j) of sd, or the
 * shared sequence */
static LcuExpr *read_row(FlKb *k, EltCtx *e) { return seg(k, LP_SEG_OF, e->sdi, flan_kix(k)); }
static LcuExpr *read_len(FlKb *k, void *c) {
  EltCtx *e = c;
  return e->shared ? flan_kc(k, e->na) : seg(k, LP_SEG_LEN, e->sd, read_row(k, e));
}
static LcuExpr *read_pos(FlKb *k, void *c) {
  EltCtx *e = c;
  Fl *F = e->F;
  return e->shared ? own_idx(k, c) : p2(F, LP_ADD, seg(k, LP_SEG_START, e->sd, read_row(k, e)), own_idx(k, c));
}

/* a[i] per row; shared: a is one unlifted sequence (its vrep, no segdes) */
static void elt_common(Args *A, bool shared) {
  Fl *F = A->F;
  FlComp *a = A->a[0], i = A->a[1][0];
  FlComp na = {0};
  if (shared) na = flan_rows(F, a[0]);
  EltCtx c = {F, shared ? na : a[0], {0}, i, na, true, shared, {0}};
  checked_read(F, A->t[0]->a, A->n, shared ? a : a + 1, own_len, own_pos, own_idx, &c, elt_msg, A->loc, A->out);
}
static void lp_elt(Args *A) { elt_common(A, false); }

FlVal flan_prim_rows(Fl *F, const char *name, FlVal src, FlComp map, FlVal i, const FlTy *rt, NzLoc loc) {
  NzLoc saved = F->uloc;
  F->uloc = loc;
  FlCtx *C = F->ctx;
  FlComp sd = src.c[0];
  FlVal r = {rt, C, flan_comps(F, flan_ncomp(rt, true))};
  if (!strcmp(name, "__length")) {
    FlKb k;
    flan_kb_init(&k, F);
    r.c[0] = flan_kb_map1(&k, C->n, seg(&k, LP_SEG_LEN, sd, ix(&k, map)), LT_INT);
  } else {
    EltCtx c = {F, sd, map, i.c[0], {0}, i.ctx != NULL, false, {0}};
    checked_read(F, rt, C->n, src.c + 1, rows_len, rows_pos, rows_idx, &c, elt_msg, loc, r.c);
  }
  F->uloc = saved;
  return r;
}

static void read_common(Args *A, bool shared) {
  Fl *F = A->F;
  FlComp *a = A->a[0], sdi = A->a[1][0], idx = A->a[1][1];
  FlComp tot = total(F, sdi);
  FlComp na = {0};
  if (shared) na = flan_rows(F, a[0]);
  EltCtx c = {F, shared ? na : a[0], {0}, idx, na, true, shared, sdi};
  A->out[0] = sdi;
  checked_read(F, A->t[0]->a, tot, shared ? a : a + 1, read_len, read_pos, own_idx, &c, read_msg, A->loc, A->out + 1);
}
static void lp_read(Args *A) { read_common(A, false); }

static void lp_rep(Args *A) {
  Fl *F = A->F;
  FlComp sd = A->a[0][0], i = A->a[2][0];
  FlComp tot = total(F, sd);
  const char *o = flan_fresh(F, "o");
  FlKb k;
  flan_kb_init(&k, F);
  LcuExpr *ov = lcu_var(P, o, L);
  LcuExpr *hit = p2(F, LP_EQ, p2(F, LP_SUB, flan_kix(&k), seg(&k, LP_SEG_START, sd, ov)), at(&k, i, cp(F, ov)));
  LcuExpr *pr[2] = {lcu_if(P, hit, iv(F, 1), iv(F, 0), L), lcu_if(P, cp(F, hit), cp(F, ov), flan_kix(&k), L)};
  LcuExpr *body = lcu_let1(P, o, seg(&k, LP_SEG_OF, sd, flan_kix(&k)), lcu_tuple(P, 2, pr, L), L);
  const LcuType *it[2] = {tint(), tint()};
  FlComp ss[2];
  flan_kb_map(&k, tot, body, 2, it, ss);
  FlComp *srcs[2] = {A->a[0] + 1, A->a[1]};
  A->out[0] = sd;
  flan_gather(F, A->t[0]->a, 2, srcs, &ss[0], ss[1], tot, A->out + 1);
}

static void lp_append(Args *A) {
  Fl *F = A->F;
  FlComp sa = A->a[0][0], sb = A->a[1][0];
  FlKb k;
  flan_kb_init(&k, F);
  FlComp lens = flan_kb_map1(&k, A->n, p2(F, LP_ADD, seg(&k, LP_SEG_LEN, sa, flan_kix(&k)), seg(&k, LP_SEG_LEN, sb, flan_kix(&k))), LT_INT);
  FlComp sd = mksd(F, lens), tot = total(F, sd);
  flan_kb_init(&k, F);
  const char *o = flan_fresh(F, "o"), *off = flan_fresh(F, "off");
  LcuExpr *ov = lcu_var(P, o, L), *offv = lcu_var(P, off, L);
  LcuExpr *in_a = p2(F, LP_LT, offv, seg(&k, LP_SEG_LEN, sa, cp(F, ov)));
  LcuExpr *pr[2] = {lcu_if(P, in_a, iv(F, 0), iv(F, 1), L),
                    lcu_if(P, cp(F, in_a), p2(F, LP_ADD, seg(&k, LP_SEG_START, sa, cp(F, ov)), cp(F, offv)),
                           p2(F, LP_SUB, p2(F, LP_ADD, seg(&k, LP_SEG_START, sb, cp(F, ov)), cp(F, offv)), seg(&k, LP_SEG_LEN, sa, cp(F, ov))), L)};
  LcuExpr *body = lcu_let1(P, off, p2(F, LP_SUB, flan_kix(&k), seg(&k, LP_SEG_START, sd, cp(F, ov))), lcu_tuple(P, 2, pr, L), L);
  body = lcu_let1(P, o, seg(&k, LP_SEG_OF, sd, flan_kix(&k)), body, L);
  const LcuType *it[2] = {tint(), tint()};
  FlComp ss[2];
  flan_kb_map(&k, tot, body, 2, it, ss);
  FlComp *srcs[2] = {A->a[0] + 1, A->a[1] + 1};
  A->out[0] = sd;
  flan_gather(F, A->t[0]->a, 2, srcs, &ss[0], ss[1], tot, A->out + 1);
}

/* keep the elements of (sd, data) whose flag is set */
static void pack_by(Args *A, const FlTy *et, FlComp sd, FlComp *data, FlComp flags) {
  Fl *F = A->F;
  FlKb k;
  flan_kb_init(&k, F);
  FlComp lens = flan_kb_fold(&k, LS_SEGREDUCE, sd, p1(F, LP_B2I, ix(&k, flags)), LR_IADD, LT_INT);
  FlComp tot = total(F, sd);
  flan_kb_init(&k, F);
  FlComp idx = flan_kb_filter_index(&k, tot, ix(&k, flags));
  A->out[0] = mksd(F, lens);
  flan_gather(F, et, 1, &data, NULL, idx, flan_rows(F, idx), A->out + 1);
}

static void lp_pack(Args *A) {
  const FlTy *pt = A->t[0]->a; /* (a, bool) */
  int na = flan_ncomp(pt->a, true);
  pack_by(A, pt->a, A->a[0][0], A->a[0] + 1, A->a[0][1 + na]);
}

/* pack(v, flags) per row: its length check deferred, the flags read over v's elements
 * (F past the end of a shorter row), unless both have one descriptor */
static void lp_pack2(Args *A) {
  Fl *F = A->F;
  FlComp sv = A->a[0][0], sf = A->a[1][0], flags = A->a[1][1];
  if (sv.name != sf.name) {
    FlKb k;
    flan_kb_init(&k, F);
    FlComp bad = flan_any(&k, A->n, p2(F, LP_NE, seg(&k, LP_SEG_LEN, sv, flan_kix(&k)), seg(&k, LP_SEG_LEN, sf, flan_kix(&k))));
    flan_check_defer(F, bad, "Length mismatch in function PACK.", A->loc);
    flags = flan_rows_like(F, sv, sf, flags, total(F, sv));
  }
  pack_by(A, A->t[0]->a, sv, A->a[0] + 1, flags);
}

/* The right-hand side that bound c alone (names are fresh), or NULL. */
static const LcuExpr *def_of(Fl *F, FlComp c) {
  for (int b = F->blks.n - 1; b >= 0; b--) {
    const FlBlk *blk = F->blks.v[b];
    for (int i = 0; i < blk->v.n; i++)
      if (blk->v.v[i].n == 1 && blk->v.v[i].b[0].name == c.name) return blk->v.v[i].rhs;
  }
  return NULL;
}

/* Whether A has one row (an unlifted call, flan_prim_rows' literal 1): each row then
 * starts at 0 and its length is the total, so per-element segment lookups go. */
static bool one_row(Args *A) {
  const LcuExpr *rows = def_of(A->F, A->n);
  return rows && rows->kind == LE_INT && rows->lit.i == 1;
}

/* permute's scatter over rows: element off of row o goes to row o's element i[off]
 * (0 for an index out of the row or past i's row), writing source index + 1. */
static FlComp permute_rows(FlKb *k, Args *A, FlComp tv) {
  Fl *F = A->F;
  FlComp sv = A->a[0][0], si = A->a[1][0], idx = A->a[1][1];
  const char *o = flan_fresh(F, "o"), *off = flan_fresh(F, "off"), *d = flan_fresh(F, "d");
  LcuExpr *ov = lcu_var(P, o, L), *offv = lcu_var(P, off, L), *dv = lcu_var(P, d, L);
  LcuExpr *in_i = p2(F, LP_LT, offv, seg(k, LP_SEG_LEN, si, ov));
  LcuExpr *dget = lcu_if(P, in_i, at(k, idx, p2(F, LP_ADD, seg(k, LP_SEG_START, si, cp(F, ov)), cp(F, offv))), iv(F, -1), L);
  LcuExpr *dst = lcu_if(P, out_of(F, dv, seg(k, LP_SEG_LEN, sv, cp(F, ov))), iv(F, 0),
                        p2(F, LP_ADD, seg(k, LP_SEG_START, sv, cp(F, ov)), cp(F, dv)), L);
  dst = lcu_let1(P, d, dget, dst, L);
  dst = lcu_let1(P, off, p2(F, LP_SUB, flan_kix(k), seg(k, LP_SEG_START, sv, cp(F, ov))), dst, L);
  dst = lcu_let1(P, o, seg(k, LP_SEG_OF, sv, flan_kix(k)), dst, L);
  return flan_kb_permute(k, tv, p2(F, LP_ADD, flan_kix(k), iv(F, 1)), dst, &tv, LT_INT);
}

/* permute(v, i) per row. Every check is deferred: the scatter runs over v's elements
 * (element off of row o goes to i's element off of that row), so a row whose lengths
 * differ or an index out of bounds only writes position 0 of v's own elements (no
 * element at all if v has none), and every position the gather reads exists. The
 * scatter writes source index + 1 (positions never written hold 0): with the lengths
 * equal and the indices in range, a position left at 0 means that two indices of a row
 * collided, which is the same error (as the AST interpreter reports it); an unwritten
 * position gathers its own element meanwhile. One sequential pass over the inverse. */
static void lp_permute(Args *A) {
  Fl *F = A->F;
  FlComp sv = A->a[0][0], si = A->a[1][0], idx = A->a[1][1];
  static const char msg[] = "Bad arguments to function PERMUTE.";
  FlKb k;
  flan_kb_init(&k, F);
  FlComp bad = flan_any(&k, A->n, p2(F, LP_NE, seg(&k, LP_SEG_LEN, sv, flan_kix(&k)), seg(&k, LP_SEG_LEN, si, flan_kix(&k))));
  flan_check_defer(F, bad, msg, A->loc);
  FlComp ti = total(F, si), tv = total(F, sv);
  flan_kb_init(&k, F);
  bool one = one_row(A);
  LcuExpr *len = one ? flan_kc(&k, ti) : seg(&k, LP_SEG_LEN, si, seg(&k, LP_SEG_OF, si, flan_kix(&k)));
  flan_check_defer(F, flan_any(&k, ti, out_of(F, ix(&k, idx), len)), msg, A->loc);
  flan_kb_init(&k, F);
  FlComp inv;
  if (one) {
    /* one row: element j goes to i[j] (0 for an index out of [0, tv), or past i's
     * end, which the checks report) */
    const char *d = flan_fresh(F, "d");
    LcuExpr *dv = lcu_var(P, d, L);
    LcuExpr *dst = lcu_if(P, out_of(F, dv, flan_kc(&k, tv)), iv(F, 0), cp(F, dv), L);
    dst = lcu_let1(P, d, lcu_if(P, p2(F, LP_LT, flan_kix(&k), flan_kc(&k, ti)), ix(&k, idx), iv(F, -1), L), dst, L);
    inv = flan_kb_permute(&k, tv, p2(F, LP_ADD, flan_kix(&k), iv(F, 1)), dst, &tv, LT_INT);
  } else
    inv = permute_rows(&k, A, tv);
  flan_kb_init(&k, F);
  flan_check_defer(F, flan_any(&k, tv, p2(F, LP_EQ, ix(&k, inv), iv(F, 0))), msg, A->loc);
  flan_kb_init(&k, F);
  LcuExpr *src = lcu_if(P, p2(F, LP_GT, ix(&k, inv), iv(F, 0)), p2(F, LP_SUB, ix(&k, inv), iv(F, 1)), flan_kix(&k), L);
  FlComp from = flan_kb_map1(&k, tv, src, LT_INT);
  A->out[0] = sv;
  FlComp *data = A->a[0] + 1;
  flan_gather(F, A->t[0]->a, 1, &data, NULL, from, tv, A->out + 1);
}

/* The value every element of c has when c was made by a MAP whose body is a literal
 * or a captured scalar (what __dist(v, n) makes), as an expression for kernel builder
 * k (capturing that scalar; k NULL: only whether there is one); else NULL. */
static LcuExpr *uniform_value(Fl *F, FlKb *k, FlComp c) {
  const LcuExpr *rhs = def_of(F, c);
  if (!rhs || rhs->kind != LE_RUN) return NULL;
  const LcuKernel *K = lcu_find_kernel(P, rhs->name);
  if (!K || K->nsoacs != 1 || K->soacs[0].kind != LS_MAP || K->soacs[0].nbinds != 1) return NULL;
  LcuExpr *e = K->soacs[0].thunks[0]->body;
  switch (e->kind) {
  case LE_INT: case LE_FLOAT: case LE_BOOL: case LE_CHAR: return cp(F, e);
  case LE_VAR:
    /* a kernel parameter is named after the CPU variable it captures */
    for (int j = 0; j < K->nparams; j++)
      if (K->params[j].name == e->name && K->params[j].ty && K->params[j].ty->kind != LT_ARRAY &&
          K->params[j].ty->kind != LT_SEGDES) {
        FlComp v = {e->name, K->params[j].ty};
        return k ? flan_kc(k, v) : cp(F, e);
      }
    return NULL;
  default: return NULL;
  }
}

/* put's destinations, for builder k: element off of row o of v goes to d's element
 * i[off] of that row, or to the spare slot td when i is short or i[off] is outside
 * d's row (the checks are the callers'). */
static LcuExpr *put_dest(FlKb *k, Args *A, FlComp td) {
  Fl *F = A->F;
  FlComp sv = A->a[0][0], si = A->a[1][0], idx = A->a[1][1], sdd = A->a[2][0];
  if (one_row(A)) {
    /* one row (an unlifted put: primes' `<-`): every row starts at 0, so no
     * per-element segment lookups; i's length is its total */
    const char *d = flan_fresh(F, "d");
    LcuExpr *dv = lcu_var(P, d, L);
    FlComp ti = total(F, si);
    LcuExpr *in_d = p2(F, LP_ANDALSO, p2(F, LP_GE, dv, iv(F, 0)), p2(F, LP_LT, cp(F, dv), flan_kc(k, td)));
    LcuExpr *dst = lcu_let1(P, d, ix(k, idx), lcu_if(P, in_d, cp(F, dv), flan_kc(k, td), L), L);
    return lcu_if(P, p2(F, LP_LT, flan_kix(k), flan_kc(k, ti)), dst, flan_kc(k, td), L);
  }
  const char *o = flan_fresh(F, "o"), *off = flan_fresh(F, "off"), *d = flan_fresh(F, "d");
  LcuExpr *ov = lcu_var(P, o, L), *offv = lcu_var(P, off, L), *dv = lcu_var(P, d, L);
  LcuExpr *ok = p2(F, LP_ANDALSO, p2(F, LP_LT, offv, seg(k, LP_SEG_LEN, si, ov)),
                   p2(F, LP_ANDALSO, p2(F, LP_GE, dv, iv(F, 0)), p2(F, LP_LT, cp(F, dv), seg(k, LP_SEG_LEN, sdd, cp(F, ov)))));
  LcuExpr *dest = lcu_if(P, ok, p2(F, LP_ADD, seg(k, LP_SEG_START, sdd, cp(F, ov)), cp(F, dv)), flan_kc(k, td), L);
  LcuExpr *dget = lcu_if(P, p2(F, LP_LT, cp(F, offv), seg(k, LP_SEG_LEN, si, cp(F, ov))),
                         at(k, idx, p2(F, LP_ADD, seg(k, LP_SEG_START, si, cp(F, ov)), cp(F, offv))), iv(F, -1), L);
  dest = lcu_let1(P, d, dget, dest, L);
  dest = lcu_let1(P, off, p2(F, LP_SUB, flan_kix(k), seg(k, LP_SEG_START, sv, cp(F, ov))), dest, L);
  return lcu_let1(P, o, seg(k, LP_SEG_OF, sv, flan_kix(k)), dest, L);
}

/* put(v, i, d) per row: the last write to a position wins (the highest source index).
 * A scatter of source index + 1 into an array one spare slot longer finds each
 * position's winner (0: unwritten), then a gather takes v's or d's element. When every
 * element of v is provably the same (a flat scalar replicated: primes' dist(f, n)) any
 * writer gives the same array: the scatter only marks the positions written (a
 * PERMUTE every back end runs as a plain scatter, lcu_permute_scatter) and one MAP
 * selects the value or d's element. */
static void lp_put(Args *A) {
  Fl *F = A->F;
  FlComp sv = A->a[0][0], sdd = A->a[2][0];
  FlComp tv = total(F, sv), td = total(F, sdd);
  FlComp td1 = cpu(F, tint(), p2(F, LP_ADD, flan_v(F, td), iv(F, 1)));
  FlKb k;
  FlTyKind vk = A->t[0]->a->k;
  if ((vk == FT_INT || vk == FT_FLOAT || vk == FT_BOOL || vk == FT_CHAR) && uniform_value(F, NULL, A->a[0][1])) {
    flan_kb_init(&k, F);
    FlComp w = flan_kb_permute(&k, tv, lcu_bool(P, 1, L), put_dest(&k, A, td), &td1, LT_BOOL);
    flan_kb_init(&k, F);
    LcuExpr *e = lcu_if(P, ix(&k, w), uniform_value(F, &k, A->a[0][1]), ix(&k, A->a[2][1]), L);
    A->out[0] = sdd;
    A->out[1] = flan_kb_map1(&k, td, e, flan_ty_lcu_base(A->t[0]->a));
    return;
  }
  flan_kb_init(&k, F);
  FlComp w = flan_kb_permute(&k, tv, p2(F, LP_ADD, flan_kix(&k), iv(F, 1)), put_dest(&k, A, td), &td1, LT_INT);
  flan_kb_init(&k, F);
  LcuExpr *wi = ix(&k, w);
  LcuExpr *pr[2] = {lcu_if(P, p2(F, LP_GT, wi, iv(F, 0)), iv(F, 0), iv(F, 1), L),
                    lcu_if(P, p2(F, LP_GT, ix(&k, w), iv(F, 0)), p2(F, LP_SUB, ix(&k, w), iv(F, 1)), flan_kix(&k), L)};
  const LcuType *it[2] = {tint(), tint()};
  FlComp ss[2];
  flan_kb_map(&k, td, lcu_tuple(P, 2, pr, L), 2, it, ss);
  FlComp *srcs[2] = {A->a[0] + 1, A->a[2] + 1};
  A->out[0] = sdd;
  flan_gather(F, A->t[0]->a, 2, srcs, &ss[0], ss[1], td, A->out + 1);
}

static void lp_partition(Args *A) {
  Fl *F = A->F;
  FlComp sv = A->a[0][0], sc = A->a[1][0], cnt = A->a[1][1];
  FlComp tc = total(F, sc);
  FlKb k;
  flan_kb_init(&k, F);
  bad_if(F, &k, tc, p2(F, LP_LT, ix(&k, cnt), iv(F, 0)), "Length mismatch in function PARTITION.", A->loc);
  flan_kb_init(&k, F);
  FlComp sums = flan_kb_fold(&k, LS_SEGREDUCE, sc, ix(&k, cnt), LR_IADD, LT_INT);
  flan_kb_init(&k, F);
  bad_if(F, &k, A->n, p2(F, LP_NE, ix(&k, sums), seg(&k, LP_SEG_LEN, sv, flan_kix(&k))),
         "Length mismatch in function PARTITION.", A->loc);
  A->out[0] = sc;
  A->out[1] = mksd(F, cnt);
  int nd = flan_ncomp(A->t[0]->a, true);
  memcpy(A->out + 2, A->a[0] + 1, sizeof(FlComp) * (size_t)nd);
}

static void lp_flatten(Args *A) {
  Fl *F = A->F;
  FlComp so = A->a[0][0], sm = A->a[0][1];
  FlKb k;
  flan_kb_init(&k, F);
  FlComp lens = flan_kb_fold(&k, LS_SEGREDUCE, so, seg(&k, LP_SEG_LEN, sm, flan_kix(&k)), LR_IADD, LT_INT);
  A->out[0] = mksd(F, lens);
  int nd = flan_ncomp(A->t[0]->a->a, true);
  memcpy(A->out + 1, A->a[0] + 2, sizeof(FlComp) * (size_t)nd);
}

static void lp_scan_or_reduce(Args *A, int op, bool scan) {
  Fl *F = A->F;
  FlTyKind ek = A->t[0]->a->k;
  if (scan) {
    A->out[0] = A->a[0][0];
    A->out[1] = seg_scan(F, op, ek, A->a[0][0], A->a[0][1]);
  } else {
    A->out[0] = seg_reduce(F, op, ek, A->a[0][0], A->a[0][1]);
  }
}

/* n rows of t's zero (nesl_prims.c identity): 0, 0.0, F, the char 0, empty sequences */
static void zero_vec(Fl *F, const FlTy *t, FlComp n, FlComp *out) {
  switch (t->k) {
  case FT_PAIR:
    zero_vec(F, t->a, n, out);
    zero_vec(F, t->b, n, out + flan_ncomp(t->a, true));
    return;
  case FT_SEQ: {
    FlKb k;
    flan_kb_init(&k, F);
    out[0] = mksd(F, flan_kb_map1(&k, n, iv(F, 0), LT_INT));
    flan_empty(F, t->a, out + 1);
    return;
  }
  default: {
    FlKb k;
    flan_kb_init(&k, F);
    LcuExpr *z = t->k == FT_FLOAT ? lcu_float(P, 0, L) : t->k == FT_BOOL ? lcu_bool(P, 0, L)
                 : t->k == FT_CHAR ? lcu_char(P, 0, L) : iv(F, 0);
    out[0] = flan_kb_map1(&k, n, z, flan_ty_lcu_base(t));
    return;
  }
  }
}

static void lp_identity(Args *A) { zero_vec(A->F, A->t[0], A->n, A->out); }

static void lp_identity_seq(Args *A) {
  Fl *F = A->F;
  FlKb k;
  flan_kb_init(&k, F);
  FlComp lens = flan_kb_map1(&k, A->n, p2(F, LP_MAX, ix(&k, A->a[1][0]), iv(F, 0)), LT_INT);
  A->out[0] = mksd(F, lens);
  zero_vec(F, A->t[0]->a, total(F, A->out[0]), A->out + 1);
}

/* Row-wise structural equality of two vectors of t over n rows (bool vector). */
static FlComp eql_rec(Fl *F, const FlTy *t, FlComp *x, FlComp *y, FlComp n) {
  FlKb k;
  switch (t->k) {
  case FT_PAIR: {
    int na = flan_ncomp(t->a, true);
    FlComp a = eql_rec(F, t->a, x, y, n), b = eql_rec(F, t->b, x + na, y + na, n);
    flan_kb_init(&k, F);
    return flan_kb_map1(&k, n, p2(F, LP_ANDALSO, ix(&k, a), ix(&k, b)), LT_BOOL);
  }
  case FT_SEQ: {
    /* rows of equal lengths compare their elements; the others are unequal */
    flan_kb_init(&k, F);
    FlComp same = flan_kb_map1(&k, n, p2(F, LP_EQ, seg(&k, LP_SEG_LEN, x[0], flan_kix(&k)), seg(&k, LP_SEG_LEN, y[0], flan_kix(&k))), LT_BOOL);
    flan_kb_init(&k, F);
    FlComp idx = flan_kb_filter_index(&k, n, ix(&k, same));
    FlComp m = flan_rows(F, idx);
    int nc = flan_ncomp(t, true);
    FlComp *xs = flan_comps(F, nc), *ys = flan_comps(F, nc);
    flan_gather(F, t, 1, &x, NULL, idx, m, xs);
    flan_gather(F, t, 1, &y, NULL, idx, m, ys);
    FlComp tot = total(F, xs[0]);
    FlComp el = eql_rec(F, t->a, xs + 1, ys + 1, tot);
    flan_kb_init(&k, F);
    FlComp rows = flan_kb_fold(&k, LS_SEGREDUCE, xs[0], ix(&k, el), LR_BAND, LT_BOOL);
    flan_kb_init(&k, F);
    FlComp cnt = flan_kb_fold(&k, LS_SCAN, n, p1(F, LP_B2I, ix(&k, same)), LR_IADD, LT_INT);
    flan_kb_init(&k, F);
    LcuExpr *e = lcu_if(P, ix(&k, same), at(&k, rows, p2(F, LP_SUB, ix(&k, cnt), iv(F, 1))), lcu_bool(P, 0, L), L);
    return flan_kb_map1(&k, n, e, LT_BOOL);
  }
  default:
    flan_kb_init(&k, F);
    return flan_kb_map1(&k, n, p2(F, LP_EQ, ix(&k, x[0]), ix(&k, y[0])), LT_BOOL);
  }
}

/* NESL's hash (nesl_prims.c) of each row, as a wrapping int. */
static FlComp hash_rec(Fl *F, const FlTy *t, FlComp *x, FlComp n) {
  FlKb k;
  switch (t->k) {
  case FT_PAIR: {
    FlComp a = hash_rec(F, t->a, x, n), b = hash_rec(F, t->b, x + flan_ncomp(t->a, true), n);
    flan_kb_init(&k, F);
    return flan_kb_map1(&k, n, p2(F, LP_ADD, ix(&k, a), p2(F, LP_MUL, iv(F, 991892311), ix(&k, b))), LT_INT);
  }
  case FT_SEQ: {
    /* h = len * 31^len + sum of hash(e_j) * 31^(len - 1 - j) */
    FlComp sd = x[0], tot = total(F, sd);
    FlComp he = hash_rec(F, t->a, x + 1, tot);
    flan_kb_init(&k, F);
    FlComp maxl = flan_kb_fold(&k, LS_REDUCE, n, seg(&k, LP_SEG_LEN, sd, flan_kix(&k)), LR_IMAX, LT_INT);
    FlComp np = cpu(F, tint(), p2(F, LP_ADD, p2(F, LP_MAX, flan_v(F, maxl), iv(F, 0)), iv(F, 1)));
    flan_kb_init(&k, F);
    FlComp pw = flan_kb_fold(&k, LS_SCAN, np, lcu_if(P, p2(F, LP_EQ, flan_kix(&k), iv(F, 0)), iv(F, 1), iv(F, 31), L), LR_IMUL, LT_INT);
    flan_kb_init(&k, F);
    const char *o = flan_fresh(F, "o");
    LcuExpr *ov = lcu_var(P, o, L);
    LcuExpr *e = p2(F, LP_SUB, p2(F, LP_SUB, seg(&k, LP_SEG_LEN, sd, ov), p2(F, LP_SUB, flan_kix(&k), seg(&k, LP_SEG_START, sd, cp(F, ov)))), iv(F, 1));
    LcuExpr *term = lcu_let1(P, o, seg(&k, LP_SEG_OF, sd, flan_kix(&k)), p2(F, LP_MUL, ix(&k, he), at(&k, pw, e)), L);
    FlComp sums = flan_kb_fold(&k, LS_SEGREDUCE, sd, term, LR_IADD, LT_INT);
    flan_kb_init(&k, F);
    LcuExpr *len = seg(&k, LP_SEG_LEN, sd, flan_kix(&k));
    LcuExpr *h = p2(F, LP_ADD, p2(F, LP_MUL, len, at(&k, pw, cp(F, len))), ix(&k, sums));
    return flan_kb_map1(&k, n, h, LT_INT);
  }
  default: {
    flan_kb_init(&k, F);
    LcuExpr *v = ix(&k, x[0]);
    if (t->k == FT_FLOAT) v = p1(F, LP_FHASH, v);
    else if (t->k == FT_CHAR) v = p1(F, LP_C2I, v);
    else if (t->k == FT_BOOL) v = p1(F, LP_B2I, v);
    return flan_kb_map1(&k, n, v, LT_INT);
  }
  }
}

static void lp_hash(Args *A) {
  Fl *F = A->F;
  FlComp l = A->a[1][0];
  FlKb k;
  flan_kb_init(&k, F);
  FlComp bad = flan_any(&k, A->n, p2(F, LP_LT, ix(&k, l), iv(F, 1)));
  flan_check_defer(F, bad, "The second argument for the function HASH must be positive.", A->loc);
  FlComp h = hash_rec(F, A->t[0], A->a[0], A->n);
  flan_kb_init(&k, F);
  /* the check is deferred: a bound below 1 divides by 1 meanwhile */
  LcuExpr *m = lcu_if(P, p2(F, LP_LT, ix(&k, l), iv(F, 1)), iv(F, 1), ix(&k, l), L);
  F->defer_safe = true;
  A->out[0] = flan_kb_map1(&k, A->n, p2(F, LP_MOD, p2(F, LP_AND, ix(&k, h), iv(F, 0x7fffffff)), m), LT_INT);
  F->defer_safe = false;
}

static void lp_eql(Args *A) { A->out[0] = eql_rec(A->F, A->t[0], A->a[0], A->a[1], A->n); }

/* Stable ranks within segments (rank, rank_down). Ints, chars and bools: a segmented
 * LSD radix sort, one bit per pass (32 passes of a split); floats: the CPU primitive
 * sort_perm (a comparison sort per segment, n log n). */
static void lp_rank_dir(Args *A, bool down) {
  Fl *F = A->F;
  FlComp sd = A->a[0][0], x = A->a[0][1];
  FlTyKind ek = A->t[0]->a->k;
  FlComp tot = total(F, sd);
  FlKb k;
  A->out[0] = sd;
  if (ek == FT_FLOAT) { /* sorted by sort_perm (rank_down: of the negated values) */
    FlComp xs = x;
    if (down) {
      flan_kb_init(&k, F);
      xs = flan_kb_map1(&k, tot, p1(F, LP_NEG, ix(&k, x)), LT_FLOAT);
    }
    LcuExpr *sa[2] = {flan_v(F, sd), flan_v(F, xs)};
    FlComp perm = cpu(F, lcu_type_array(LT_INT), lcu_prim(P, LP_SORT_PERM, 2, sa, L));
    flan_kb_init(&k, F);
    LcuExpr *r = p2(F, LP_SUB, flan_kix(&k), seg(&k, LP_SEG_START, sd, seg(&k, LP_SEG_OF, sd, flan_kix(&k))));
    A->out[1] = flan_kb_permute(&k, tot, r, ix(&k, perm), NULL, LT_INT);
    return;
  }
  /* keys as ints whose unsigned order is the wanted order */
  flan_kb_init(&k, F);
  LcuExpr *key = ix(&k, x);
  if (ek == FT_CHAR) key = p1(F, LP_C2I, key);
  if (ek == FT_BOOL) key = p1(F, LP_B2I, key);
  if (down) key = p1(F, LP_NOT, key);
  key = p2(F, LP_XOR, key, iv(F, INT32_MIN));
  FlComp keys = flan_kb_map1(&k, tot, key, LT_INT);
  flan_kb_init(&k, F);
  FlComp orig = flan_kb_map1(&k, tot, flan_kix(&k), LT_INT);
  /* the 32 passes are a recursive CPU function, one pass per call: the code stays
   * small and each pass is a fusion region of its own */
  const char *fname = flan_fresh(F, "radix_pass");
  LcuFunc *fn = lcu_func_add(P, fname, L);
  const LcuType *pt[5] = {tint(), lcu_type_base(LT_SEGDES), tint(), lcu_type_array(LT_INT), lcu_type_array(LT_INT)};
  const char *pn[5] = {"b", "sd", "tot", "keys", "orig"};
  FlComp par[5];
  fn->nparams = 5;
  fn->params = lcu_binders(P, 5);
  for (int i = 0; i < 5; i++) {
    par[i].name = flan_fresh(F, pn[i]);
    par[i].ty = pt[i];
    fn->params[i] = lcu_binder(par[i].name, pt[i], L);
  }
  fn->ret = lcu_type_array(LT_INT);
  FlBlk *saved_blk = F->blk;
  FlBlk *blk = nz_xcalloc(1, sizeof *blk);
  F->blk = blk;
  {
    FlComp b = par[0], psd = par[1], ptot = par[2], pkeys = par[3], porig = par[4];
    flan_kb_init(&k, F);
    LcuExpr *bit = p2(F, LP_AND, p2(F, LP_RSHIFT, ix(&k, pkeys), flan_kc(&k, b)), iv(F, 1));
    FlComp one = flan_kb_map1(&k, ptot, bit, LT_INT);
    flan_kb_init(&k, F);
    FlComp ones = flan_kb_fold(&k, LS_SEGSCAN, psd, ix(&k, one), LR_IADD, LT_INT);
    flan_kb_init(&k, F);
    FlComp nones = flan_kb_fold(&k, LS_SEGREDUCE, psd, ix(&k, one), LR_IADD, LT_INT);
    flan_kb_init(&k, F);
    const char *o = flan_fresh(F, "o");
    LcuExpr *ov = lcu_var(P, o, L);
    LcuExpr *off = p2(F, LP_SUB, flan_kix(&k), seg(&k, LP_SEG_START, psd, ov));
    LcuExpr *onesb = p2(F, LP_SUB, ix(&k, ones), ix(&k, one)); /* ones before j */
    LcuExpr *zeros = p2(F, LP_SUB, seg(&k, LP_SEG_LEN, psd, cp(F, ov)), at(&k, nones, cp(F, ov)));
    LcuExpr *dst = lcu_if(P, p2(F, LP_EQ, ix(&k, one), iv(F, 1)), p2(F, LP_ADD, zeros, onesb),
                          p2(F, LP_SUB, off, cp(F, onesb)), L);
    dst = p2(F, LP_ADD, seg(&k, LP_SEG_START, psd, cp(F, ov)), dst);
    dst = lcu_let1(P, o, seg(&k, LP_SEG_OF, psd, flan_kix(&k)), dst, L);
    FlComp pos = flan_kb_map1(&k, ptot, dst, LT_INT);
    flan_kb_init(&k, F);
    FlComp k2 = flan_kb_permute(&k, ptot, ix(&k, pkeys), ix(&k, pos), NULL, LT_INT);
    flan_kb_init(&k, F);
    FlComp o2 = flan_kb_permute(&k, ptot, ix(&k, porig), ix(&k, pos), NULL, LT_INT);
    LcuExpr *a[5] = {p2(F, LP_ADD, flan_v(F, b), iv(F, 1)), flan_v(F, psd), flan_v(F, ptot), flan_v(F, k2), flan_v(F, o2)};
    LcuExpr *els = lcu_call(P, fname, 5, a, L); /* (it read 5 arguments from an empty array) */
    flan_defer_flush(F, blk);
    for (int i = blk->v.n - 1; i >= 0; i--) els = lcu_let(P, blk->v.v[i].n, blk->v.v[i].b, blk->v.v[i].rhs, els, L);
    fn->body = lcu_if(P, p2(F, LP_EQ, flan_v(F, b), iv(F, 32)), flan_v(F, porig), els, L);
  }
  nz_vec_free(blk->v);
  nz_vec_free(blk->defer);
  nz_vec_free(blk->taint);
  free(blk);
  F->blk = saved_blk;
  {
    LcuExpr *a[5] = {iv(F, 0), flan_v(F, sd), flan_v(F, tot), flan_v(F, keys), flan_v(F, orig)};
    orig = cpu(F, lcu_type_array(LT_INT), lcu_call(P, fname, 5, a, L));
  }
  /* position p holds original element orig[p]: its rank is p - start(segment) */
  flan_kb_init(&k, F);
  LcuExpr *r = p2(F, LP_SUB, flan_kix(&k), seg(&k, LP_SEG_START, sd, seg(&k, LP_SEG_OF, sd, flan_kix(&k))));
  A->out[1] = flan_kb_permute(&k, tot, r, ix(&k, orig), NULL, LT_INT);
}
static void lp_rank(Args *A) { lp_rank_dir(A, false); }
static void lp_rank_down(Args *A) { lp_rank_dir(A, true); }

static void lp_string(Args *A) { flan_text_format(A->F, 's', A->n, A->a[0], A->t[0], A->out, A->loc); }
static void lp_object_str(Args *A) { flan_text_format(A->F, 'o', A->n, A->a[0], A->t[0], A->out, A->loc); }
static void lp_read_object_str(Args *A) { flan_text_read_object(A->F, A->n, A->a, A->t[0], A->out, A->loc); }
static void lp_float_string(Args *A) { flan_text_float(A->F, A->n, A->a, A->out, A->loc); }
static void lp_parse_float(Args *A) { flan_text_parse_float(A->F, A->a[0], A->out, A->loc); }
static void lp_print_string(Args *A) { flan_text_print(A->F, A->n, A->a[0], A->out, A->loc); }

typedef void (*LiftedFn)(Args *);
static const struct {
  const char *name;
  LiftedFn fn;
} seqprims[] = {
    {"__length", lp_length}, {"__dist", lp_dist}, {"__iseq", lp_iseq}, {"__elt", lp_elt},
    {"__rep", lp_rep}, {"__append", lp_append}, {"__pack", lp_pack}, {"__pack2", lp_pack2},
    {"__permute", lp_permute}, {"__read", lp_read}, {"__put", lp_put},
    {"__partition", lp_partition}, {"__flatten", lp_flatten}, {"__identity", lp_identity},
    {"__identity_seq", lp_identity_seq}, {"__eql", lp_eql}, {"__rank", lp_rank},
    {"__rank_down", lp_rank_down}, {"__hash", lp_hash},
    {"__string", lp_string}, {"__write_object_str", lp_object_str}, {"__float_string", lp_float_string},
    {"__parse_float", lp_parse_float}, {"__print_string", lp_print_string},
    {"__read_object_str", lp_read_object_str},
};

/* The one row of a vector as an unlifted value. */
static int unrow(Fl *F, const FlTy *t, FlComp *c, FlComp *out) {
  switch (t->k) {
  case FT_PAIR: {
    int na = unrow(F, t->a, c, out);
    unrow(F, t->b, c + flan_ncomp(t->a, true), out + na);
    return flan_ncomp(t, false);
  }
  case FT_SEQ: {
    int n = flan_ncomp(t, false);
    memcpy(out, c + 1, sizeof(FlComp) * (size_t)n);
    return n;
  }
  default:
    out[0] = cpu(F, lcu_type_base(flan_ty_lcu_base(t)), lcu_index(P, flan_v(F, c[0]), iv(F, 0), L));
    return 1;
  }
}

static FlVal error_prim(Fl *F, FlVal *a, const FlTy *rt, NzLoc loc) {
  FlComp bad, text = a[0].c[0];
  if (F->ctx) bad = cpu(F, lcu_type_base(LT_BOOL), p2(F, LP_GT, flan_v(F, F->ctx->n), iv(F, 0)));
  else bad = cpu(F, lcu_type_base(LT_BOOL), lcu_bool(P, 1, L));
  /* A message per element: the first element's (row 0; none if no row). In a recursive
   * function called per element, a later element may fail at a shallower level, before
   * the one the interpreter (element after element) reports: there the apply-to-each
   * runs its elements one by one, as for rand's order (flan_note_draw). */
  if (a[0].ctx && F->in_lifted_fn) flan_note_draw(F, 2);
  if (a[0].ctx) {
    LcuExpr *s0[2] = {flan_v(F, a[0].c[0]), iv(F, 0)};
    FlComp len = cpu(F, lcu_type_base(LT_INT), lcu_if(P, flan_v(F, bad), lcu_prim(P, LP_SEG_LEN, 2, s0, L), iv(F, 0), L));
    FlKb k;
    flan_kb_init(&k, F);
    text = flan_kb_map1(&k, len, lcu_index(P, flan_kc(&k, a[0].c[1]), flan_kix(&k), L), LT_CHAR);
  }
  LcuExpr *msg[2] = {flan_v(F, bad), flan_v(F, text)};
  cpu(F, lcu_type_unit(), lcu_prim(P, LP_FAIL_IF, 2, msg, loc));
  /* never used: a value of the right shape */
  FlVal r = {rt, F->ctx, flan_comps(F, flan_ncomp(rt, F->ctx != NULL))};
  if (F->ctx) {
    flan_empty(F, rt, r.c);
    return r;
  }
  FlComp *rows = flan_comps(F, flan_ncomp(rt, true));
  flan_empty(F, rt, rows);
  int n = flan_ncomp(rt, false);
  const LcuType *tys[n > 0 ? n : 1];
  flan_comp_types(rt, false, tys);
  /* scalars: zero; sequences: empty */
  int k = 0;
  (void)k;
  for (int i = 0; i < n; i++) {
    if (tys[i]->kind == LT_ARRAY || tys[i]->kind == LT_SEGDES) continue;
    LcuExpr *z = tys[i]->kind == LT_FLOAT ? lcu_float(P, 0, L) : tys[i]->kind == LT_BOOL ? lcu_bool(P, 0, L)
                 : tys[i]->kind == LT_CHAR ? lcu_char(P, 0, L) : iv(F, 0);
    r.c[i] = cpu(F, tys[i], z);
  }
  /* sequence components come from the empty vector of the whole type */
  FlComp *tmp = flan_comps(F, n);
  unrow(F, rt, rows, tmp);
  for (int i = 0; i < n; i++)
    if (tys[i]->kind == LT_ARRAY || tys[i]->kind == LT_SEGDES) r.c[i] = tmp[i];
  return r;
}

/* rand(v), rand_seed(n): CPU primitives with an effect on the generator's state. Inside
 * a context every element draws, even with a bound that does not depend on it (as the
 * AST interpreter): the bounds are lifted and rand_vec draws them in element order. */
static FlVal rand_prim(Fl *F, bool seed, FlVal *a, const FlTy *rt) {
  FlVal r = {rt, NULL, flan_comps(F, 1)};
  LcuPrim op = seed ? LP_RAND_SEED : LP_RAND;
  if (!F->ctx) {
    flan_note_draw(F, 0);
    r.c[0] = cpu(F, lcu_type_base(flan_ty_lcu_base(rt)), p1(F, op, flan_v(F, a[0].c[0])));
    return r;
  }
  r.ctx = F->ctx;
  if (seed) { /* reseeding per element: only running the elements one by one is right */
    flan_note_draw(F, 2);
    FlKb k;
    flan_kb_init(&k, F);
    r.c[0] = flan_kb_map1(&k, F->ctx->n, lcu_bool(P, 1, L), LT_BOOL);
    return r;
  }
  flan_note_draw(F, 1);
  FlVal v = flan_lift(F, a[0], F->ctx);
  r.c[0] = cpu(F, lcu_type_array(flan_ty_lcu_base(rt)), p1(F, LP_RAND_VEC, flan_v(F, v.c[0])));
  return r;
}

static bool flat_unlifted(Fl *F, const char *name, FlVal *args, const FlTy *rt, NzLoc loc, FlVal *out) {
  FlVal r = {rt, NULL, flan_comps(F, flan_ncomp(rt, false))};
  FlKb k;
  if (!strcmp(name, "__length")) {
    r.c[0] = flan_rows(F, args[0].c[0]);
    *out = r;
    return true;
  }
  for (size_t i = 0; i < sizeof folds / sizeof *folds; i++) {
    bool scan = !strcmp(folds[i].scan, name);
    if (!scan && strcmp(folds[i].red, name)) continue;
    FlTyKind ek = args[0].t->a->k;
    int op = folds[i].op;
    FlComp x = args[0].c[0];
    FlComp n = flan_rows(F, x);
    flan_kb_init(&k, F);
    LcuRop rop = rop_of(op, ek == FT_CHAR ? FT_INT : ek);
    if (scan) {
      FlComp incl = flan_kb_fold(&k, LS_SCAN, n, fold_in(&k, x, ek), rop, fold_ty(ek));
      flan_kb_init(&k, F);
      LcuExpr *e = lcu_if(P, p2(F, LP_EQ, flan_kix(&k), iv(F, 0)), ident(F, op, ek),
                          fold_out(F, at(&k, incl, p2(F, LP_SUB, flan_kix(&k), iv(F, 1))), ek), L);
      r.c[0] = flan_kb_map1(&k, n, e, flan_ty_lcu_base(flan_ty_base(ek)));
    } else {
      FlComp v = flan_kb_fold(&k, LS_REDUCE, n, fold_in(&k, x, ek), rop, fold_ty(ek));
      LcuExpr *e = fold_out(F, flan_v(F, v), ek);
      if (ek == FT_CHAR || (ek == FT_FLOAT && (op == OP_MAX || op == OP_MIN)))
        e = lcu_if(P, p2(F, LP_EQ, flan_v(F, n), iv(F, 0)), ident(F, op, ek), e, L);
      r.c[0] = cpu(F, lcu_type_base(flan_ty_lcu_base(rt)), e);
    }
    *out = r;
    return true;
  }
  if (!strcmp(name, "__dist") && flan_ty_is_base(args[0].t)) {
    FlComp n = cpu(F, tint(), p2(F, LP_MAX, flan_v(F, args[1].c[0]), iv(F, 0)));
    flan_kb_init(&k, F);
    r.c[0] = flan_kb_map1(&k, n, flan_kc(&k, args[0].c[0]), flan_ty_lcu_base(args[0].t));
    *out = r;
    return true;
  }
  if (!strcmp(name, "__iseq")) {
    LcuExpr *x[3];
    for (int i = 0; i < 3; i++) x[i] = flan_v(F, args[i].c[0]);
    FlComp bad = cpu(F, lcu_type_base(LT_BOOL), iseq_bad(F, x[0], x[1], x[2]));
    F->defer_safe = true;
    FlComp len = cpu(F, tint(), iseq_len(F, flan_v(F, bad), cp(F, x[0]), cp(F, x[1]), cp(F, x[2])));
    F->defer_safe = false;
    flan_check_defer(F, bad, iseq_msg, loc);
    flan_kb_init(&k, F);
    r.c[0] = flan_kb_map1(&k, len, p2(F, LP_ADD, flan_kc(&k, args[0].c[0]), p2(F, LP_MUL, flan_kix(&k), flan_kc(&k, args[1].c[0]))), LT_INT);
    *out = r;
    return true;
  }
  if (!strcmp(name, "__append") && flan_ty_is_base(rt->a)) {
    /* one MAP choosing the source by the index (the lifted append makes segment
     * descriptors and gathers: `[x] ++ f(n - 1)` built lists many times slower) */
    FlComp a = args[0].c[0], b = args[1].c[0];
    FlComp na = flan_rows(F, a), nb = flan_rows(F, b);
    FlComp n = cpu(F, tint(), p2(F, LP_ADD, flan_v(F, na), flan_v(F, nb)));
    flan_kb_init(&k, F);
    LcuExpr *in_a = p2(F, LP_LT, flan_kix(&k), flan_kc(&k, na));
    LcuExpr *e = lcu_if(P, in_a, at(&k, a, flan_kix(&k)), at(&k, b, p2(F, LP_SUB, flan_kix(&k), flan_kc(&k, na))), L);
    r.c[0] = flan_kb_map1(&k, n, e, flan_ty_lcu_base(rt->a));
    *out = r;
    return true;
  }
  if (!strcmp(name, "__elt") && flan_ty_is_base(rt)) {
    FlComp a = args[0].c[0], i = args[1].c[0];
    FlComp n = flan_rows(F, a);
    LcuExpr *bad = p2(F, LP_ORELSE, p2(F, LP_LT, flan_v(F, i), iv(F, 0)), p2(F, LP_GE, flan_v(F, i), flan_v(F, n)));
    FlComp b = cpu(F, lcu_type_base(LT_BOOL), bad);
    flan_check_defer(F, b, "Sequence reference (a[i]) out of bounds.", loc);
    LcuTypeKind et = flan_ty_lcu_base(rt);
    r.c[0] = cpu(F, lcu_type_base(et), lcu_if(P, flan_v(F, b), flan_zero(F, et), lcu_index(P, flan_v(F, a), flan_v(F, i), L), L));
    *out = r;
    return true;
  }
  return false;
}

FlVal flan_prim(Fl *F, const char *name, int nargs, FlVal *args, const FlTy *rt, NzLoc loc) {
  NzLoc saved = F->uloc;
  F->uloc = loc;
  FlVal r = {0};
  for (size_t i = 0; i < sizeof scalars / sizeof *scalars; i++)
    if (!strcmp(scalars[i].name, name)) {
      r = scalar_prim(F, &scalars[i], args, rt, loc);
      F->uloc = saved;
      return r;
    }
  if (!strcmp(name, "__rand") || !strcmp(name, "__rand_seed")) {
    r = rand_prim(F, name[6] == '_', args, rt);
    F->uloc = saved;
    return r;
  }
  if (!strcmp(name, "__error")) {
    r = error_prim(F, args, rt, loc);
    F->uloc = saved;
    return r;
  }
  if (F->ctx && !strcmp(name, "__print_string")) args[0] = flan_text_print_arg(F, args[0], loc);
  if (flan_text_io(F, name, nargs, args, rt, loc, &r)) {
    F->uloc = saved;
    return r;
  }
  bool lifted = false;
  for (int i = 0; i < nargs; i++) lifted |= args[i].ctx != NULL;
  /* flat fast paths at the unlifted level: one unsegmented SOAC */
  if (!lifted && flat_unlifted(F, name, args, rt, loc, &r)) {
    F->uloc = saved;
    return r;
  }
  LiftedFn fn = NULL;
  int op = -1;
  bool scan = false;
  for (size_t i = 0; i < sizeof seqprims / sizeof *seqprims; i++)
    if (!strcmp(seqprims[i].name, name)) fn = seqprims[i].fn;
  for (size_t i = 0; i < sizeof folds / sizeof *folds; i++) {
    if (!strcmp(folds[i].scan, name)) op = folds[i].op, scan = true;
    if (!strcmp(folds[i].red, name)) op = folds[i].op;
  }
  if (!fn && op < 0) flan_unsupported(F, loc, "the primitive %s", name);
  Args A = {0};
  A.F = F;
  A.loc = loc;
  A.rt = rt;
  A.t = NZ_NEWN(F->a, const FlTy *, nargs);
  A.a = NZ_NEWN(F->a, FlComp *, nargs);
  bool shared = lifted && (fn == lp_elt || fn == lp_read) && !args[0].ctx;
  for (int i = 0; i < nargs; i++) {
    A.t[i] = args[i].t;
    if (!lifted) A.a[i] = flan_row_wrap(F, args[i]);
    else if (shared && i == 0) A.a[i] = args[i].c;
    else A.a[i] = flan_lift(F, args[i], F->ctx).c;
  }
  A.n = lifted ? F->ctx->n : flan_int_lit(F, 1);
  FlComp *out = flan_comps(F, flan_ncomp(rt, true));
  A.out = out;
  if (shared) (fn == lp_elt ? elt_common : read_common)(&A, true);
  else if (fn) fn(&A);
  else lp_scan_or_reduce(&A, op, scan);
  if (lifted) {
    r = (FlVal){rt, F->ctx, out};
  } else {
    r = (FlVal){rt, NULL, flan_comps(F, flan_ncomp(rt, false))};
    unrow(F, rt, out, r.c);
  }
  F->uloc = saved;
  return r;
}
