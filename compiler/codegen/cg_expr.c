/* cg_expr.c — what every target emits the same way: C names and types,
 * the primitive table, expressions in A-normal form (thunk bodies and CPU
 * code), CPU functions with reference-counted arrays, and the location table.
 *
 * Ownership in CPU code: every array/segdes atom an expression yields owns one
 * reference; a `let` variable owns its value and releases it when its scope
 * ends, unless its last use (LcuExpr.last, lcu_lastuse.c) moved the reference
 * out and left NULL behind. A CPU function owns its parameters as it owns its
 * lets (the caller hands over a reference per argument, so an argument can
 * die inside the callee: a recursion does not keep every level's arrays);
 * kernel parameters are borrowed. Results are handed back owned through
 * out-pointers. */
#include <math.h>
#include <stdarg.h>

#include "cg.h"

/* ------------------------------------------------------------- helpers */

const char *cg_fmt(Cg *cg, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const char *s = nz_vsprintf(cg->arena, fmt, ap);
  va_end(ap);
  return s;
}

void cg_line(CgScope *s, const char *fmt, ...) {
  for (int i = 0; i < s->ind; i++) nz_buf_puts(s->b, "  ");
  va_list ap;
  va_start(ap, fmt);
  nz_buf_vprintf(s->b, fmt, ap);
  va_end(ap);
  nz_buf_putc(s->b, '\n');
}

const char *cg_tmp(Cg *cg) { return cg_fmt(cg, "v%d", ++cg->tmp); }

/* The one place λcu's float gets its C type: double (NESL's float), or float
 * under the --float32 experiment (cg->float32). */
const char *cg_ctype(const Cg *cg, const LcuType *t) {
  switch (t->kind) {
  case LT_BOOL:
  case LT_CHAR: return "uint8_t";
  case LT_INT: return "int32_t";
  case LT_FLOAT: return cg->float32 ? "float" : "double";
  case LT_ARRAY: return "RtArr *";
  case LT_SEGDES: return "RtSeg *";
  default: nz_die("cg_ctype: a tuple has no C type");
  }
}

const char *cg_zero(const Cg *cg, const LcuType *t) {
  return t->kind == LT_ARRAY || t->kind == LT_SEGDES ? "NULL" : t->kind == LT_FLOAT ? (cg->float32 ? "0.0f" : "0.0") : "0";
}

const char *cg_rt_elem(const Cg *cg, LcuTypeKind k) {
  switch (k) {
  case LT_BOOL: return "RT_BOOL";
  case LT_CHAR: return "RT_CHAR";
  case LT_INT: return "RT_INT";
  default: return cg->float32 ? "RT_FLOAT32" : "RT_FLOAT";
  }
}

static const char *elem_ctype(const Cg *cg, LcuTypeKind k) { return cg_ctype(cg, lcu_type_base(k)); }

const char *cg_comp_name(Cg *cg, const char *base, const LcuType *ty, int k) {
  if (ty->kind != LT_TUPLE) return base;
  return cg_fmt(cg, "%s_%d", base, k);
}

int cg_loc_index(Cg *cg, NzLoc loc) {
  for (int i = cg->locs.n - 1; i >= 0 && i >= cg->locs.n - 64; i--)
    if (cg->locs.v[i].line == loc.line && cg->locs.v[i].col == loc.col) return i;
  nz_vec_push(cg->locs, loc);
  return cg->locs.n - 1;
}

const char *cg_loc(Cg *cg, NzLoc loc) {
  int i = cg_loc_index(cg, loc);
  if (!cg->klocs) return cg_fmt(cg, "%d", i);
  int r = 0;
  while (r < cg->klocs->n && cg->klocs->v[r] != i) r++;
  if (r == cg->klocs->n) nz_vec_push(*cg->klocs, i);
  return cg_fmt(cg, "lc[%d]", r);
}

const char *cg_buf_take(Cg *cg, NzBuf *b) {
  const char *s = nz_strndup(cg->arena, b->s ? b->s : "", b->len);
  nz_buf_free(b);
  return s;
}

const char *cg_type_text(Cg *cg, const LcuType *t) {
  NzBuf b = {0};
  lcu_type_print(&b, t);
  return cg_buf_take(cg, &b);
}

/* The same as a C string literal. */
const char *cg_type_lit(Cg *cg, const LcuType *t) { return cg_c_string_text(cg, cg_type_text(cg, t)); }

static int is_ref(const LcuType *t) { return t->kind == LT_ARRAY || t->kind == LT_SEGDES; }

/* --------------------------------------------------------------- scopes */

static void name_binder(CgScope *s, const LcuBinder *b, const char *suffix) {
  if (b->slot < 0 || b->slot >= s->nslots) nz_die("codegen: binder %s without a slot", b->name);
  s->name[b->slot] = cg_fmt(s->cg, "%s_%s%d", s->cg->canon ? "x" : cg_cid(s->cg, b->name), suffix, b->slot);
  s->ty[b->slot] = b->ty;
}

static void name_lets(CgScope *s, const LcuExpr *e, const char *suffix) {
  if (!e) return;
  if (e->kind == LE_LET)
    for (int k = 0; k < e->nbinds; k++) name_binder(s, &e->binds[k], suffix);
  for (int k = 0; k < e->nargs; k++) name_lets(s, e->args[k], suffix);
}

static void scope_init(CgScope *s, Cg *cg, int nslots, NzBuf *b) {
  memset(s, 0, sizeof *s);
  s->cg = cg;
  s->b = b;
  s->ind = 1;
  s->it = "-1";
  s->nslots = nslots;
  s->name = NZ_NEWN(cg->arena, const char *, nslots + 1);
  s->ty = NZ_NEWN(cg->arena, const LcuType *, nslots + 1);
}

void cg_scope_func(CgScope *s, Cg *cg, const LcuFunc *f, NzBuf *b) {
  scope_init(s, cg, f->nslots > f->nparams ? f->nslots : f->nparams, b);
  for (int i = 0; i < f->nparams; i++) name_binder(s, &f->params[i], "");
  name_lets(s, f->body, "");
}

void cg_scope_kernel(CgScope *s, Cg *cg, const LcuKernel *k, NzBuf *b) {
  scope_init(s, cg, k->nslots > k->nparams ? k->nslots : k->nparams, b);
  for (int i = 0; i < k->nparams; i++) name_binder(s, &k->params[i], "");
  for (int i = 0; i < k->nsoacs; i++)
    for (int j = 0; j < k->soacs[i].nbinds; j++) name_binder(s, &k->soacs[i].binds[j], "");
}

void cg_scope_thunk(CgScope *s, const CgScope *ks, const LcuThunk *t, int tid, const char *it) {
  scope_init(s, ks->cg, t->nslots > t->nusing + t->nparams ? t->nslots : t->nusing + t->nparams, ks->b);
  s->ind = ks->ind;
  s->thunk = 1;
  s->it = it;
  for (int i = 0; i < t->nusing; i++) {
    s->name[i] = ks->name[t->usings[i].slot];
    s->ty[i] = ks->ty[t->usings[i].slot];
  }
  const char *suffix = cg_fmt(ks->cg, "%dt", tid);
  for (int i = 0; i < t->nparams; i++) name_binder(s, &t->params[i], suffix);
  name_lets(s, t->body, suffix);
}

/* ---------------------------------------------------------------- atoms */

static CgAtoms atoms(Cg *cg, int n) {
  CgAtoms a = {n, NZ_NEWN(cg->arena, const char *, n + 1)};
  return a;
}

static CgAtoms atom1(Cg *cg, const char *v) {
  CgAtoms a = atoms(cg, 1);
  a.v[0] = v;
  return a;
}

/* Releases the reference-counted components of a value (CPU code only). */
void cg_release_atoms(CgScope *s, const LcuType *ty, const CgAtoms *a) {
  if (s->thunk) return;
  for (int k = 0; k < a->n; k++) {
    const LcuType *ct = lcu_type_component(ty, k);
    if (ct->kind == LT_ARRAY) cg_line(s, "rt_release(%s);", a->v[k]);
    else if (ct->kind == LT_SEGDES) cg_line(s, "rt_seg_release(%s);", a->v[k]);
  }
}

/* A fresh temporary holding the C expression rhs. */
static const char *bind_tmp(CgScope *s, const LcuType *ty, const char *rhs) {
  const char *t = cg_tmp(s->cg);
  const char *ct = cg_ctype(s->cg, ty);
  cg_line(s, "%s%s%s = %s;", ct, ct[strlen(ct) - 1] == '*' ? "" : " ", t, rhs);
  return t;
}

static void decl(CgScope *s, const LcuType *ty, const char *name, const char *init) {
  const char *ct = cg_ctype(s->cg, ty);
  cg_line(s, "%s%s%s RT_UNUSED = %s;", ct, ct[strlen(ct) - 1] == '*' ? "" : " ", name, init);
}

/* An array atom's length and typed data, in either kind of scope. */
static const char *arr_len(CgScope *s, const char *a) {
  return s->thunk ? cg_fmt(s->cg, "%s_n", a) : cg_fmt(s->cg, "%s->len", a);
}
static const char *arr_data(CgScope *s, const char *a, LcuTypeKind elem) {
  return s->thunk ? cg_fmt(s->cg, "%s_d", a) : cg_fmt(s->cg, "((%s *)RT_HOST(%s)->d)", elem_ctype(s->cg, elem), a);
}

/* ------------------------------------------------------------ literals */

/* A float literal: the double's 17 digits, or under --float32 the nearest float's
 * 9 digits with an `f` suffix, so no expression is promoted to double. */
static const char *float_lit(Cg *cg, double f) {
  if (isnan(f)) return "NAN";
  if (isinf(f)) return f > 0 ? "INFINITY" : "(-INFINITY)";
  char buf[64];
  if (cg->float32 && isinf((float)f)) return f > 0 ? "INFINITY" : "(-INFINITY)"; /* beyond FLT_MAX */
  snprintf(buf, sizeof buf, cg->float32 ? "%.9g" : "%.17g", cg->float32 ? (double)(float)f : f);
  if (!strpbrk(buf, ".e")) strcat(buf, ".0");
  if (cg->float32) strcat(buf, "f");
  return f < 0 || (f == 0 && signbit(f)) ? cg_fmt(cg, "(%s)", buf) : cg_fmt(cg, "%s", buf);
}

static const char *int_lit(Cg *cg, int32_t v) {
  if (v == INT32_MIN) return "INT32_MIN";
  return v < 0 ? cg_fmt(cg, "(%d)", v) : cg_fmt(cg, "%d", v);
}

/* ----------------------------------------------------------- primitives */

/* One entry per primitive, by its name in lcu_prims.def: a template per
 * operand kind (%0 %1 %2 the operands, %I the iteration, %L the location; %F
 * is `f` under --float32 and nothing otherwise, for the C math library's
 * single-precision names, %D the C type of float), or
 * a handler for the ones that need more (short circuits, tuples, reference
 * counts). A new primitive is one entry here and, if the runtime must help,
 * one function in nessie_rt.h. Entries are matched by name so that a rule may
 * precede its primitive (fhash and fail_if come with NESL lowering). */
typedef void (*CgPrimFn)(CgScope *s, const LcuExpr *e, CgAtoms *out);
typedef struct {
  const char *prim;
  const char *i, *f, *other; /* operand kind int, float, anything else */
  CgPrimFn fn;
} CgPrimRule;

static void p_shortcircuit(CgScope *s, const LcuExpr *e, CgAtoms *out);
static void p_select(CgScope *s, const LcuExpr *e, CgAtoms *out);
static void p_length(CgScope *s, const LcuExpr *e, CgAtoms *out);
static void p_print(CgScope *s, const LcuExpr *e, CgAtoms *out);
static void p_segdes_conv(CgScope *s, const LcuExpr *e, CgAtoms *out);
static void p_fail_if(CgScope *s, const LcuExpr *e, CgAtoms *out);
static void p_show(CgScope *s, const LcuExpr *e, CgAtoms *out);
static void p_text(CgScope *s, const LcuExpr *e, CgAtoms *out);
static void p_io(CgScope *s, const LcuExpr *e, CgAtoms *out);
static void p_read_object(CgScope *s, const LcuExpr *e, CgAtoms *out);
static void p_sort_perm(CgScope *s, const LcuExpr *e, CgAtoms *out);

static const CgPrimRule prim_rules[] = {
    {"add", "rt_iadd(%0, %1)", "(%0 + %1)", NULL, NULL},
    {"sub", "rt_isub(%0, %1)", "(%0 - %1)", NULL, NULL},
    {"mul", "rt_imul(%0, %1)", "(%0 * %1)", NULL, NULL},
    {"div", "rt_idiv(%0, %1, %I, %L)", "(%0 / %1)", NULL, NULL},
    {"mod", "rt_imod(%0, %1, %I, %L)", NULL, NULL, NULL},
    {"neg", "rt_ineg(%0)", "(-%0)", NULL, NULL},
    {"eq", "(%0 == %1)", "(%0 == %1)", "(%0 == %1)", NULL},
    {"ne", "(%0 != %1)", "(%0 != %1)", "(%0 != %1)", NULL},
    {"lt", "(%0 < %1)", "(%0 < %1)", "(%0 < %1)", NULL},
    {"le", "(%0 <= %1)", "(%0 <= %1)", "(%0 <= %1)", NULL},
    {"gt", "(%0 > %1)", "(%0 > %1)", "(%0 > %1)", NULL},
    {"ge", "(%0 >= %1)", "(%0 >= %1)", "(%0 >= %1)", NULL},
    {"andalso", NULL, NULL, NULL, p_shortcircuit},
    {"orelse", NULL, NULL, NULL, p_shortcircuit},
    {"not", "(~%0)", NULL, "(uint8_t)!%0", NULL},
    {"and", "(%0 & %1)", NULL, "(uint8_t)(%0 & %1)", NULL},
    {"or", "(%0 | %1)", NULL, "(uint8_t)(%0 | %1)", NULL},
    {"xor", "(%0 ^ %1)", NULL, "(uint8_t)(%0 ^ %1)", NULL},
    {"lshift", "rt_shl(%0, %1)", NULL, NULL, NULL},
    {"rshift", "rt_shr(%0, %1)", NULL, NULL, NULL},
    {"min", "(%0 <= %1 ? %0 : %1)", "fmin%F(%0, %1)", "(%0 <= %1 ? %0 : %1)", NULL},
    {"max", "(%0 >= %1 ? %0 : %1)", "fmax%F(%0, %1)", "(%0 >= %1 ? %0 : %1)", NULL},
    {"abs", "rt_iabs(%0)", "fabs%F(%0)", NULL, NULL},
    {"sqrt", NULL, "sqrt%F(%0)", NULL, NULL},
    {"exp", NULL, "exp%F(%0)", NULL, NULL},
    {"ln", NULL, "log%F(%0)", NULL, NULL},
    {"sin", NULL, "sin%F(%0)", NULL, NULL},
    {"cos", NULL, "cos%F(%0)", NULL, NULL},
    {"tan", NULL, "tan%F(%0)", NULL, NULL},
    {"asin", NULL, "asin%F(%0)", NULL, NULL},
    {"acos", NULL, "acos%F(%0)", NULL, NULL},
    {"atan", NULL, "atan%F(%0)", NULL, NULL},
    {"sinh", NULL, "sinh%F(%0)", NULL, NULL},
    {"cosh", NULL, "cosh%F(%0)", NULL, NULL},
    {"tanh", NULL, "tanh%F(%0)", NULL, NULL},
    {"pow", NULL, "pow%F(%0, %1)", NULL, NULL},
    {"i2f", "((%D)%0)", NULL, NULL, NULL},
    {"trunc", NULL, "rt_f2i%F(%0, trunc%F(%0), \"trunc\", %I, %L)", NULL, NULL},
    {"floor", NULL, "rt_f2i%F(%0, floor%F(%0), \"floor\", %I, %L)", NULL, NULL},
    {"ceil", NULL, "rt_f2i%F(%0, ceil%F(%0), \"ceil\", %I, %L)", NULL, NULL},
    {"round", NULL, "rt_f2i%F(%0, round%F(%0), \"round\", %I, %L)", NULL, NULL},
    {"c2i", NULL, NULL, "((int32_t)%0)", NULL},
    {"i2c", "rt_i2c(%0, %I, %L)", NULL, NULL, NULL},
    {"b2i", NULL, NULL, "((int32_t)%0)", NULL},
    {"select", NULL, NULL, NULL, p_select},
    {"length", NULL, NULL, NULL, p_length},
    {"seg_start", NULL, NULL, "rt_seg_start(%0, %1, %I, %L)", NULL},
    {"seg_len", NULL, NULL, "rt_seg_len(%0, %1, %I, %L)", NULL},
    {"seg_of", NULL, NULL, "rt_seg_of(%0, %1, %I, %L)", NULL},
    {"seg_total", NULL, NULL, "((int32_t)%0->total)", NULL},
    {"make_segdes", NULL, NULL, NULL, p_segdes_conv},
    {"seg_lengths", NULL, NULL, NULL, p_segdes_conv},
    {"print", NULL, NULL, NULL, p_print},
    {"fhash", NULL, "rt_fhash(%0)", NULL, NULL},
    {"fail_if", NULL, NULL, NULL, p_fail_if},
    {"show", NULL, NULL, NULL, p_show},
    {"format", NULL, NULL, NULL, p_text},
    {"float_text", NULL, NULL, NULL, p_text},
    {"parse_float", NULL, NULL, NULL, p_text},
    {"print_chars", NULL, NULL, NULL, p_text},
    {"read_object", NULL, NULL, NULL, p_read_object},
    {"open_file", NULL, NULL, NULL, p_io},
    {"close_file", NULL, NULL, NULL, p_io},
    {"write_stream", NULL, NULL, NULL, p_io},
    {"read_char", NULL, NULL, NULL, p_io},
    {"read_file", NULL, NULL, NULL, p_io},
    {"getenv", NULL, NULL, NULL, p_io},
    {"shell", NULL, NULL, NULL, p_io},
    {"spawn", NULL, NULL, NULL, p_io},
    {"rand", "rt_rand_int(%0, %L)", "rt_rand_float(%0, %L)", NULL, NULL},
    {"rand_vec", NULL, NULL, NULL, p_segdes_conv},
    {"rand_seed", "rt_rand_seed(%0)", NULL, NULL, NULL},
    {"timer", "rt_timer()", NULL, NULL, NULL},
    {"fail_if_g", NULL, NULL, NULL, p_fail_if},
    {"sort_perm", NULL, NULL, NULL, p_sort_perm},
};

static const CgPrimRule *prim_rule(LcuPrim p) {
  const char *name = lcu_prim_info(p)->name;
  for (size_t i = 0; i < sizeof prim_rules / sizeof prim_rules[0]; i++)
    if (!strcmp(prim_rules[i].prim, name)) return &prim_rules[i];
  return NULL;
}

static LcuTypeKind opkind(const LcuExpr *e) {
  return e->opty ? e->opty->kind : e->nargs ? e->args[0]->ty->kind : LT_INT;
}

static const char *expand(CgScope *s, const char *tpl, const CgAtoms *a, const LcuExpr *e) {
  NzBuf b = {0};
  for (const char *p = tpl; *p; p++) {
    if (*p != '%') {
      nz_buf_putc(&b, *p);
      continue;
    }
    p++;
    if (*p >= '0' && *p <= '2') nz_buf_puts(&b, a->v[*p - '0']);
    else if (*p == 'I') nz_buf_puts(&b, s->it);
    else if (*p == 'L') nz_buf_puts(&b, cg_loc(s->cg, e->loc));
    else if (*p == 'F') nz_buf_puts(&b, s->cg->float32 ? "f" : "");
    else if (*p == 'D') nz_buf_puts(&b, cg_ctype(s->cg, lcu_type_base(LT_FLOAT)));
    else nz_die("codegen: bad template %s", tpl);
  }
  const char *r = nz_strndup(s->cg->arena, b.s ? b.s : "", b.len);
  nz_buf_free(&b);
  return r;
}

int cg_seg_of_current(const CgScope *s, const LcuExpr *e) {
  return s->seg_cur && e->args[0]->kind == LE_VAR && e->args[0]->name == s->seg_sd && e->args[1]->kind == LE_VAR &&
         e->args[1]->name == s->seg_idx;
}

static void emit_prim(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  const CgPrimRule *r = prim_rule(e->prim);
  if (!r) nz_die("codegen: no rule for primitive %s", lcu_prim_info(e->prim)->name);
  if (r->fn) {
    r->fn(s, e, out);
    return;
  }
  if (e->prim == LP_SEG_OF && cg_seg_of_current(s, e)) {
    *out = atom1(s->cg, cg_fmt(s->cg, "((int32_t)%s)", s->seg_cur));
    return;
  }
  LcuTypeKind k = opkind(e);
  const char *tpl = k == LT_INT && r->i ? r->i : k == LT_FLOAT && r->f ? r->f : r->other;
  if (!tpl) tpl = r->i ? r->i : r->f;
  if (!tpl) nz_die("codegen: primitive %s on this type", lcu_prim_info(e->prim)->name);
  CgAtoms a = atoms(s->cg, e->nargs);
  for (int k2 = 0; k2 < e->nargs; k2++) {
    CgAtoms x;
    cg_expr(s, e->args[k2], &x);
    a.v[k2] = x.v[0];
  }
  *out = atom1(s->cg, bind_tmp(s, e->ty, expand(s, tpl, &a, e)));
  for (int k2 = 0; k2 < e->nargs; k2++) {
    CgAtoms x = atom1(s->cg, a.v[k2]);
    cg_release_atoms(s, e->args[k2]->ty, &x);
  }
}

static void p_shortcircuit(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms a, b;
  cg_expr(s, e->args[0], &a);
  const char *r = cg_tmp(s->cg);
  cg_line(s, "uint8_t %s = %s;", r, a.v[0]);
  cg_line(s, "if (%s%s) {", e->prim == LP_ANDALSO ? "" : "!", r);
  s->ind++;
  cg_expr(s, e->args[1], &b);
  cg_line(s, "%s = %s;", r, b.v[0]);
  s->ind--;
  cg_line(s, "}");
  *out = atom1(s->cg, r);
}

/* Both branches evaluated, as the primitive says; one result kept. */
static void p_select(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms c, y, n;
  cg_expr(s, e->args[0], &c);
  cg_expr(s, e->args[1], &y);
  cg_expr(s, e->args[2], &n);
  *out = atoms(s->cg, y.n);
  for (int k = 0; k < y.n; k++) {
    const LcuType *ct = lcu_type_component(e->ty, k);
    out->v[k] = bind_tmp(s, ct, cg_fmt(s->cg, "%s ? %s : %s", c.v[0], y.v[k], n.v[k]));
    if (!s->thunk && is_ref(ct))
      cg_line(s, "rt_%srelease(%s ? %s : %s);", ct->kind == LT_SEGDES ? "seg_" : "", c.v[0], n.v[k],
              y.v[k]);
  }
}

static void p_length(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms a;
  cg_expr(s, e->args[0], &a);
  const char *len = opkind(e) == LT_SEGDES ? cg_fmt(s->cg, "%s->nsegs", a.v[0]) : arr_len(s, a.v[0]);
  *out = atom1(s->cg, bind_tmp(s, e->ty, cg_fmt(s->cg, "(int32_t)%s", len)));
  cg_release_atoms(s, e->args[0]->ty, &a);
}

/* The components of a value as an array of RtCell (host arrays); returns its name. */
static const char *cells_of(CgScope *s, const LcuType *ty, const CgAtoms *a) {
  const char *c = cg_tmp(s->cg);
  cg_line(s, "RtCell %s[%d];", c, a->n ? a->n : 1);
  for (int k = 0; k < a->n; k++) {
    LcuTypeKind ck = lcu_type_component(ty, k)->kind;
    const char *f = ck == LT_INT ? "i" : ck == LT_FLOAT ? "f" : ck == LT_ARRAY ? "a" : ck == LT_SEGDES ? "s" : "b";
    cg_line(s, ck == LT_ARRAY ? "%s[%d].%s = RT_HOST(%s);" : "%s[%d].%s = %s;", c, k, f, a->v[k]);
  }
  return c;
}

static void p_print(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms a;
  cg_expr(s, e->args[0], &a);
  const LcuType *ty = e->args[0]->ty;
  const char *c = cells_of(s, ty, &a);
  cg_line(s, "rt_print(%s, %s);", cg_type_lit(s->cg, ty), c);
  cg_release_atoms(s, ty, &a);
  *out = atoms(s->cg, 0);
}

/* show(text, v): v's cells printed by the runtime as the text describes. */
static void p_show(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms t, a;
  cg_expr(s, e->args[0], &t);
  cg_expr(s, e->args[1], &a);
  const LcuType *ty = e->args[1]->ty;
  const char *c = cells_of(s, ty, &a);
  cg_line(s, "rt_show(RT_HOST(%s), %s, %s, %d, %s);", t.v[0], cg_type_lit(s->cg, ty), c, a.n,
          cg_loc(s->cg, e->loc));
  cg_release_atoms(s, e->args[0]->ty, &t);
  cg_release_atoms(s, ty, &a);
  *out = atoms(s->cg, 0);
}

/* The text primitives (format, float_text, parse_float, print_chars): runtime calls
 * (rt_io.c) on borrowed operands; a pair of results comes back through pointers. */
static void p_text(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms a[3];
  for (int k = 0; k < e->nargs; k++) cg_expr(s, e->args[k], &a[k]);
  const char *loc = cg_loc(s->cg, e->loc);
  *out = atoms(s->cg, lcu_type_arity(e->ty));
  for (int k = 0; k < out->n; k++) out->v[k] = bind_tmp(s, lcu_type_component(e->ty, k), "NULL");
  switch (e->prim) {
  case LP_FORMAT: {
    const LcuType *ty = e->args[2]->ty;
    const char *c = cells_of(s, ty, &a[2]);
    cg_line(s, "rt_format(RT_HOST(%s), %s, %s, %s, %d, &%s, &%s, %s);", a[0].v[0], a[1].v[0],
            cg_type_lit(s->cg, ty), c, a[2].n, out->v[0], out->v[1], loc);
    break;
  }
  case LP_FLOAT_TEXT:
    cg_line(s, "rt_float_format(RT_HOST(%s), RT_HOST(%s), RT_HOST(%s), &%s, &%s, %s);", a[0].v[0], a[1].v[0],
            a[2].v[0], out->v[0], out->v[1], loc);
    break;
  case LP_PARSE_FLOAT:
    cg_line(s, "rt_parse_float(%s, RT_HOST(%s), &%s, &%s, %s);", a[0].v[0], a[1].v[0], out->v[0], out->v[1], loc);
    break;
  default: cg_line(s, "rt_print_chars(RT_HOST(%s));", a[0].v[0]); break;
  }
  for (int k = 0; k < e->nargs; k++) cg_release_atoms(s, e->args[k]->ty, &a[k]);
}

/* The I/O primitives: rt_io_call runs one by name (compiler/lcu/lcu_io.c) on the
 * operands' cells (borrowed) and writes the result's cells (new references). */
/* The result cells r[0..n) of a runtime call as the atoms of a value of type ty. */
static void atoms_of_cells(CgScope *s, const LcuType *ty, const char *r, CgAtoms *out) {
  int n = lcu_type_arity(ty);
  *out = atoms(s->cg, n);
  for (int k = 0; k < n; k++) {
    LcuTypeKind ck = lcu_type_component(ty, k)->kind;
    const char *fld = ck == LT_INT ? "i" : ck == LT_FLOAT ? "f" : ck == LT_ARRAY ? "a" : ck == LT_SEGDES ? "s" : "b";
    out->v[k] = bind_tmp(s, lcu_type_component(ty, k), cg_fmt(s->cg, "%s[%d].%s", r, k, fld));
  }
}

/* read_object(text, (sd, cs), w): only w's type matters (the result's). */
static void p_read_object(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms t, st, w;
  cg_expr(s, e->args[0], &t);
  cg_expr(s, e->args[1], &st);
  cg_expr(s, e->args[2], &w);
  const char *r = cg_tmp(s->cg);
  int n = lcu_type_arity(e->ty);
  cg_line(s, "RtCell %s[%d];", r, n);
  cg_line(s, "rt_read_objects(RT_HOST(%s), %s, RT_HOST(%s), %s, %d, %s);", t.v[0], st.v[0], st.v[1], r, n,
          cg_loc(s->cg, e->loc));
  atoms_of_cells(s, e->ty, r, out);
  cg_release_atoms(s, e->args[0]->ty, &t);
  cg_release_atoms(s, e->args[1]->ty, &st);
  cg_release_atoms(s, e->args[2]->ty, &w);
}

static void p_io(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms a[2], all = atoms(s->cg, e->nargs);
  const LcuType *tys[2];
  for (int k = 0; k < e->nargs; k++) {
    cg_expr(s, e->args[k], &a[k]);
    all.v[k] = a[k].v[0];
    tys[k] = e->args[k]->ty;
  }
  const LcuType *aty = lcu_type_tuple(e->nargs, tys);
  const char *c = cells_of(s, aty, &all);
  const char *r = cg_tmp(s->cg);
  int n = lcu_type_arity(e->ty);
  cg_line(s, "RtCell %s[%d];", r, n);
  cg_line(s, "rt_io_call(%s, %s, %s, %s);", cg_c_string_text(s->cg, lcu_prim_info(e->prim)->name),
          cg_type_lit(s->cg, aty), c, r);
  atoms_of_cells(s, e->ty, r, out);
  for (int k = 0; k < e->nargs; k++) cg_release_atoms(s, e->args[k]->ty, &a[k]);
}

/* fail_if(flag, message): a fault whose text is the [char] message; fail_if_g(flag,
 * message, x): the message's %g is x. */
static void p_fail_if(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms c, m, x;
  cg_expr(s, e->args[0], &c);
  cg_expr(s, e->args[1], &m);
  if (e->prim == LP_FAIL_IF_G) {
    cg_expr(s, e->args[2], &x);
    cg_line(s, "if (%s) rt_fail_message_g(%s, %s, %s);", c.v[0], m.v[0], x.v[0], cg_loc(s->cg, e->loc));
  } else {
    cg_line(s, "if (%s) rt_fail_message(%s, %s);", c.v[0], m.v[0], cg_loc(s->cg, e->loc));
  }
  cg_release_atoms(s, e->args[1]->ty, &m);
  *out = atoms(s->cg, 0);
}

/* make_segdes(lens), seg_lengths(sd) and rand_vec(a): a new value from a borrowed one. */
static void p_segdes_conv(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms a;
  cg_expr(s, e->args[0], &a);
  const char *call = e->prim == LP_MAKE_SEGDES
                         ? cg_fmt(s->cg, "rt_make_segdes(RT_HOST(%s), %s)", a.v[0], cg_loc(s->cg, e->loc))
                     : e->prim == LP_RAND_VEC
                         ? cg_fmt(s->cg, "rt_rand_vec(RT_HOST(%s), %s)", a.v[0], cg_loc(s->cg, e->loc))
                         : cg_fmt(s->cg, "rt_seg_lengths(%s)", a.v[0]);
  *out = atom1(s->cg, bind_tmp(s, e->ty, call));
  cg_release_atoms(s, e->args[0]->ty, &a);
}

/* sort_perm(sd, xs): a new [int] from borrowed operands. */
static void p_sort_perm(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms sd, x;
  cg_expr(s, e->args[0], &sd);
  cg_expr(s, e->args[1], &x);
  const char *call = cg_fmt(s->cg, "rt_sort_perm(%s, RT_HOST(%s), %s)", sd.v[0], x.v[0], cg_loc(s->cg, e->loc));
  *out = atom1(s->cg, bind_tmp(s, e->ty, call));
  cg_release_atoms(s, e->args[0]->ty, &sd);
  cg_release_atoms(s, e->args[1]->ty, &x);
}

/* ------------------------------------------------------------ expressions */

/* The variables of binder slot `slot`, one per component. */
static CgAtoms slot_atoms(CgScope *s, int slot) {
  const LcuType *ty = s->ty[slot];
  int n = lcu_type_arity(ty);
  CgAtoms a = atoms(s->cg, n);
  for (int k = 0; k < n; k++) a.v[k] = cg_comp_name(s->cg, s->name[slot], ty, k);
  return a;
}

static void emit_var(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  if (e->slot < 0 || e->slot >= s->nslots || !s->name[e->slot])
    nz_die("codegen: unresolved variable %s", e->name);
  *out = slot_atoms(s, e->slot);
  if (s->thunk) return;
  if (e->last) { /* its last use (lcu_lastuse.c): the reference moves to the consumer */
    for (int k = 0; k < out->n; k++) {
      const LcuType *ct = lcu_type_component(s->ty[e->slot], k);
      if (is_ref(ct)) {
        const char *v = out->v[k];
        out->v[k] = bind_tmp(s, ct, v);
        cg_line(s, "%s = NULL;", v);
      }
    }
    return;
  }
  for (int k = 0; k < out->n; k++) { /* a new reference for the consumer */
    const LcuType *ct = lcu_type_component(s->ty[e->slot], k);
    if (is_ref(ct)) {
      out->v[k] = bind_tmp(s, ct, out->v[k]);
      cg_line(s, "rt_%sretain(%s);", ct->kind == LT_SEGDES ? "seg_" : "", out->v[k]);
    }
  }
}

static void emit_index(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms a, i;
  cg_expr(s, e->args[0], &a);
  cg_expr(s, e->args[1], &i);
  LcuTypeKind el = e->args[0]->ty->elem;
  const LcuExpr *x = e->args[0], *j = e->args[1];
  /* the SOAC's own index into an array known to be long enough (cg_ix_facts) */
  int safe = s->ixsafe && j->kind == LE_VAR && j->slot == s->ixslot && x->kind == LE_VAR && x->slot >= 0 &&
             x->slot < s->nslots && s->ixsafe[x->slot];
  const char *ix = safe ? i.v[0]
                        : cg_fmt(s->cg, "rt_ix(%s, %s, %s, %s)", i.v[0], arr_len(s, a.v[0]), s->it, cg_loc(s->cg, e->loc));
  *out = atom1(s->cg, bind_tmp(s, e->ty, cg_fmt(s->cg, "%s[%s]", arr_data(s, a.v[0], el), ix)));
  cg_release_atoms(s, e->args[0]->ty, &a);
}

static void emit_array(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  LcuTypeKind el = e->opty ? e->opty->kind : e->ty->elem;
  const char *t = bind_tmp(s, e->ty, cg_fmt(s->cg, "rt_arr_new(%s, %d)", cg_rt_elem(s->cg, el), e->nargs));
  int lits = e->nargs > 0;
  for (int k = 0; k < e->nargs && lits; k++) lits = e->args[k]->kind >= LE_INT && e->args[k]->kind <= LE_CHAR;
  if (lits) { /* a table: one statement per element made the C compiler quadratic in a string's length */
    cg_line(s, "{");
    cg_line(s, "  static const %s lit[] = {", elem_ctype(s->cg, el));
    NzBuf row = {0};
    for (int k = 0; k < e->nargs; k++) {
      CgAtoms x;
      cg_expr(s, e->args[k], &x);
      nz_buf_printf(&row, "%s,%s", x.v[0], k % 16 == 15 || k == e->nargs - 1 ? "" : " ");
      if (k % 16 == 15 || k == e->nargs - 1) {
        cg_line(s, "    %s", row.s);
        row.len = 0;
      }
    }
    nz_buf_free(&row);
    cg_line(s, "  };");
    cg_line(s, "  memcpy(%s->d, lit, sizeof lit);", t);
    cg_line(s, "}");
    *out = atom1(s->cg, t);
    return;
  }
  for (int k = 0; k < e->nargs; k++) {
    CgAtoms x;
    cg_expr(s, e->args[k], &x);
    cg_line(s, "((%s *)%s->d)[%d] = %s;", elem_ctype(s->cg, el), t, k, x.v[0]);
  }
  *out = atom1(s->cg, t);
}

static void emit_if(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms c;
  cg_expr(s, e->args[0], &c);
  int n = lcu_type_arity(e->ty);
  *out = atoms(s->cg, n);
  for (int k = 0; k < n; k++) {
    const LcuType *ct = lcu_type_component(e->ty, k);
    out->v[k] = cg_tmp(s->cg);
    decl(s, ct, out->v[k], cg_zero(s->cg, ct));
  }
  for (int br = 1; br <= 2; br++) {
    cg_line(s, br == 1 ? "if (%s) {" : "} else {", c.v[0]);
    s->ind++;
    CgAtoms r;
    cg_expr(s, e->args[br], &r);
    for (int k = 0; k < n; k++) cg_line(s, "%s = %s;", out->v[k], r.v[k]);
    s->ind--;
  }
  cg_line(s, "}");
}

static void emit_let(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  CgAtoms r;
  cg_expr(s, e->args[0], &r);
  int at = 0;
  for (int b = 0; b < e->nbinds; b++) {
    const LcuBinder *bd = &e->binds[b];
    CgAtoms v = slot_atoms(s, bd->slot);
    for (int k = 0; k < v.n; k++) decl(s, lcu_type_component(bd->ty, k), v.v[k], r.v[at++]);
  }
  cg_expr(s, e->args[1], out);
  for (int b = e->nbinds - 1; b >= 0; b--) {
    CgAtoms v = slot_atoms(s, e->binds[b].slot);
    cg_release_atoms(s, e->binds[b].ty, &v);
  }
}

static void emit_tuple(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  *out = atoms(s->cg, lcu_type_arity(e->ty));
  int at = 0;
  for (int k = 0; k < e->nargs; k++) {
    CgAtoms x;
    cg_expr(s, e->args[k], &x);
    for (int j = 0; j < x.n; j++) out->v[at++] = x.v[j];
  }
}

/* Calls of CPU functions (owned arguments) and kernels (borrowed arguments):
 * owned results. */
static void emit_call(CgScope *s, const LcuExpr *e, const char *callee, const LcuType *ret, CgAtoms *out) {
  NzBuf call = {0};
  nz_buf_printf(&call, "%s(", callee);
  CgAtoms *args = NZ_NEWN(s->cg->arena, CgAtoms, e->nargs + 1);
  int first = 1;
  for (int k = 0; k < e->nargs; k++) {
    cg_expr(s, e->args[k], &args[k]);
    for (int j = 0; j < args[k].n; j++) {
      nz_buf_printf(&call, "%s%s", first ? "" : ", ", args[k].v[j]);
      first = 0;
    }
  }
  int n = lcu_type_arity(ret);
  *out = atoms(s->cg, n);
  for (int k = 0; k < n; k++) {
    const LcuType *ct = lcu_type_component(ret, k);
    out->v[k] = cg_tmp(s->cg);
    decl(s, ct, out->v[k], cg_zero(s->cg, ct));
    nz_buf_printf(&call, "%s&%s", first ? "" : ", ", out->v[k]);
    first = 0;
  }
  nz_buf_puts(&call, ");");
  /* a runaway recursion is a fault at the call, as in the interpreter */
  int cpu_call = e->kind == LE_CALL;
  if (cpu_call) cg_line(s, "rt_enter(%s);", cg_loc(s->cg, e->loc));
  cg_line(s, "%s", call.s);
  if (cpu_call) cg_line(s, "rt_leave();");
  nz_buf_free(&call);
  if (cpu_call) return; /* the callee owns its arguments */
  for (int k = 0; k < e->nargs; k++) cg_release_atoms(s, e->args[k]->ty, &args[k]);
}

void cg_expr(CgScope *s, const LcuExpr *e, CgAtoms *out) {
  Cg *cg = s->cg;
  switch (e->kind) {
  case LE_INT: *out = atom1(cg, int_lit(cg, e->lit.i)); return;
  case LE_FLOAT: *out = atom1(cg, float_lit(cg, e->lit.f)); return;
  case LE_BOOL: *out = atom1(cg, e->lit.b ? "1" : "0"); return;
  case LE_CHAR: *out = atom1(cg, cg_fmt(cg, "%d", e->lit.c)); return;
  case LE_VAR: emit_var(s, e, out); return;
  case LE_ARRAY: emit_array(s, e, out); return;
  case LE_PRIM: emit_prim(s, e, out); return;
  case LE_IF: emit_if(s, e, out); return;
  case LE_LET: emit_let(s, e, out); return;
  case LE_TUPLE: emit_tuple(s, e, out); return;
  case LE_INDEX: emit_index(s, e, out); return;
  case LE_CALL: {
    const LcuFunc *f = e->target;
    emit_call(s, e, cg_func_cname(cg, f), f->ret, out);
    return;
  }
  case LE_RUN: {
    const LcuKernel *k = e->target;
    emit_call(s, e, cg_kernel_cname(cg, k), k->ret, out);
    return;
  }
  }
  nz_die("codegen: bad expression kind %d", (int)e->kind);
}

/* ------------------------------------------------- functions and kernels */

const char *cg_kernel_cname(Cg *cg, const LcuKernel *k) { return cg_fmt(cg, "%s_kernel", cg_cid(cg, k->name)); }
const char *cg_func_cname(Cg *cg, const LcuFunc *f) { return cg_fmt(cg, "%s_fn", cg_cid(cg, f->name)); }

/* Parameter i's base C name (canon: only its slot, for cg_c.c's sharing key). */
static const char *param_base(Cg *cg, const LcuBinder *p) {
  return cg_fmt(cg, "%s_%d", cg->canon ? "x" : cg_cid(cg, p->name), p->slot);
}

static void proto(Cg *cg, NzBuf *b, const char *name, const char *lead, int np, const LcuBinder *ps,
                  const LcuType *ret) {
  nz_buf_printf(b, "static void %s(", name);
  int first = 1;
  if (lead) nz_buf_puts(b, lead), first = 0;
  for (int i = 0; i < np; i++)
    for (int k = 0; k < lcu_type_arity(ps[i].ty); k++) {
      const char *ct = cg_ctype(cg, lcu_type_component(ps[i].ty, k));
      nz_buf_printf(b, "%sRT_UNUSED %s%s%s", first ? "" : ", ", ct, ct[strlen(ct) - 1] == '*' ? "" : " ",
                    cg_comp_name(cg, param_base(cg, &ps[i]), ps[i].ty, k));
      first = 0;
    }
  for (int k = 0; k < lcu_type_arity(ret); k++) {
    const char *ct = cg_ctype(cg, lcu_type_component(ret, k));
    nz_buf_printf(b, "%s%s%s*out%d", first ? "" : ", ", ct, ct[strlen(ct) - 1] == '*' ? "" : " ", k);
    first = 0;
  }
  if (first) nz_buf_puts(b, "void");
  nz_buf_putc(b, ')');
}

void cg_kernel_proto(Cg *cg, NzBuf *b, const LcuKernel *k) {
  proto(cg, b, cg_kernel_cname(cg, k), NULL, k->nparams, k->params, k->ret);
}

void cg_kernel_body_proto(Cg *cg, NzBuf *b, const LcuKernel *k, const char *fn, const CgSizes *sizes) {
  NzBuf lead = {0};
  nz_buf_puts(&lead, "RtKernelStat *st, RT_UNUSED int kx");
  if (cg->target->body_locs) nz_buf_puts(&lead, ", RT_UNUSED const int *lc");
  for (int i = 0; i < sizes->n; i++) nz_buf_printf(&lead, ", const char *sz%d", i);
  proto(cg, b, fn, lead.s, k->nparams, k->params, k->ret);
  nz_buf_free(&lead);
}

const char *cg_size_name(Cg *cg, CgSizes *sizes, const LcuSize *z) {
  nz_vec_push(*sizes, z->name ? z->name : "?");
  return cg_fmt(cg, "sz%d", sizes->n - 1);
}

static void kernel_args(Cg *cg, NzBuf *b, const LcuKernel *k) {
  const char *sep = "";
  for (int i = 0; i < k->nparams; i++)
    for (int c = 0; c < lcu_type_arity(k->params[i].ty); c++, sep = ", ")
      nz_buf_printf(b, "%s%s", sep, cg_comp_name(cg, param_base(cg, &k->params[i]), k->params[i].ty, c));
  for (int c = 0; c < lcu_type_arity(k->ret); c++, sep = ", ") nz_buf_printf(b, "%sout%d", sep, c);
}

void cg_kernel_shared(Cg *cg, const LcuKernel *k, int index, CgBodyFn body) {
  NzBuf *b = &cg->body;
  const char *kn = cg_cid(cg, k->name);
  nz_buf_printf(b, "/* kernel %s (cluster: %s):", cg_c_comment_text(cg, k->name), cg_c_comment_text(cg, cg->clusters[index]));
  for (int i = 0; i < k->nsoacs; i++) nz_buf_printf(b, " %s", lcu_soac_name(k->soacs[i].kind));
  nz_buf_puts(b, " */\n");
  nz_buf_printf(b, "static RtKernelStat %s_stat = {%s, %s, %d, 0, 0, 0, 0.0};\n", kn, cg_c_string_text(cg, k->name),
                cg_c_string_text(cg, cg->clusters[index]), k->nsoacs);
  NzBuf key = {0};
  CgSizes sizes = {0};
  CgLocs locs = {0};
  cg->canon = 1;
  if (cg->target->body_locs) cg->klocs = &locs;
  body(cg, k, &key, "body", &sizes);
  cg->canon = 0;
  uint64_t h = nz_fnv1a(NZ_FNV_SEED, key.s, key.len);
  const char *fn = NULL;
  for (int i = 0; i < cg->shares.n && !fn; i++)
    if (cg->shares.v[i].h == h && !strcmp(cg->shares.v[i].key, key.s)) fn = cg->shares.v[i].fn;
  if (fn) nz_buf_printf(b, "/* (its body is %s) */\n", fn);
  else { /* the body again, with the binders' own names */
    fn = cg_fmt(cg, "%s_body", kn);
    size_t len = strlen(key.s) + 1;
    CgShare sh = {h, memcpy(nz_alloc(cg->arena, len), key.s, len), fn};
    nz_vec_push(cg->shares, sh);
    sizes.n = locs.n = 0;
    body(cg, k, b, fn, &sizes);
  }
  cg->klocs = NULL;
  nz_buf_free(&key);
  if (locs.n) {
    nz_buf_printf(b, "static const int %s_lc[] = {", kn);
    for (int i = 0; i < locs.n; i++) nz_buf_printf(b, "%s%d", i ? ", " : "", locs.v[i]);
    nz_buf_puts(b, "};\n");
  }
  cg_kernel_proto(cg, b, k);
  nz_buf_printf(b, " {\n  %s(&%s_stat, %d", fn, kn, index);
  if (cg->target->body_locs) nz_buf_printf(b, ", %s", locs.n ? cg_fmt(cg, "%s_lc", kn) : "NULL");
  for (int i = 0; i < sizes.n; i++) nz_buf_printf(b, ", %s", cg_c_string_text(cg, sizes.v[i]));
  if (k->nparams || lcu_type_arity(k->ret)) nz_buf_puts(b, ", ");
  kernel_args(cg, b, k);
  nz_buf_puts(b, ");\n}\n\n");
  nz_vec_free(sizes);
  nz_vec_free(locs);
}

void cg_func_proto(Cg *cg, NzBuf *b, const LcuFunc *f) {
  proto(cg, b, cg_func_cname(cg, f), NULL, f->nparams, f->params, f->ret);
}

void cg_func(Cg *cg, const LcuFunc *f) {
  NzBuf *b = &cg->body;
  nz_buf_printf(b, "/* function %s */\n", cg_c_comment_text(cg, f->name));
  cg_func_proto(cg, b, f);
  nz_buf_puts(b, " {\n");
  CgScope s;
  cg_scope_func(&s, cg, f, b);
  cg->tmp = 0;
  CgAtoms r;
  cg_expr(&s, f->body, &r);
  for (int k = 0; k < r.n; k++) cg_line(&s, "*out%d = %s;", k, r.v[k]);
  for (int i = f->nparams - 1; i >= 0; i--) { /* what no last use moved out */
    CgAtoms v = slot_atoms(&s, f->params[i].slot);
    cg_release_atoms(&s, f->params[i].ty, &v);
  }
  nz_buf_puts(b, "}\n\n");
}

/* A kernel's end (every target): each result handed out with a new reference,
 * then the kernel's own arrays released. */
void cg_kernel_results(CgScope *ks, const LcuKernel *k) {
  for (int i = 0; i < k->nrets; i++) {
    const LcuBinder *r = &k->rets[i];
    const LcuType *ty = ks->ty[r->slot];
    const char *v = ks->name[r->slot];
    if (ty->kind == LT_ARRAY) cg_line(ks, "rt_retain(%s);", v);
    if (ty->kind == LT_SEGDES) cg_line(ks, "rt_seg_retain(%s);", v);
    cg_line(ks, "*out%d = %s;", i, v);
  }
  for (int i = 0; i < k->nsoacs; i++)
    for (int j = 0; j < k->soacs[i].nbinds; j++) {
      const LcuBinder *bd = &k->soacs[i].binds[j];
      if (bd->ty->kind == LT_ARRAY) cg_line(ks, "rt_release(%s);", ks->name[bd->slot]);
    }
}

/* ---------------------------------------------------- reduction operators */

const char *cg_rop_identity(const Cg *cg, LcuRop r) {
  switch (r) {
  case LR_IADD: case LR_IOR: case LR_IXOR: return "0";
  case LR_IMUL: return "1";
  case LR_IAND: return "(-1)";
  case LR_IMAX: return "INT32_MIN";
  case LR_IMIN: return "INT32_MAX";
  case LR_FADD: return cg->float32 ? "0.0f" : "0.0";
  case LR_FMUL: return cg->float32 ? "1.0f" : "1.0";
  case LR_FMAX: return "(-INFINITY)";
  case LR_FMIN: return "INFINITY";
  case LR_BAND: return "1";
  case LR_BOR: case LR_BXOR: return "0";
  default: nz_die("codegen: no identity for %s", lcu_rop_name(r));
  }
}

const char *cg_rop_apply(Cg *cg, LcuRop r, const char *a, const char *b) {
  switch (r) {
  case LR_IADD: return cg_fmt(cg, "rt_iadd(%s, %s)", a, b);
  case LR_IMUL: return cg_fmt(cg, "rt_imul(%s, %s)", a, b);
  case LR_IMAX: return cg_fmt(cg, "(%s > %s ? %s : %s)", a, b, a, b);
  case LR_IMIN: return cg_fmt(cg, "(%s < %s ? %s : %s)", a, b, a, b);
  case LR_IAND: case LR_BAND: return cg_fmt(cg, "(%s & %s)", a, b);
  case LR_IOR: case LR_BOR: return cg_fmt(cg, "(%s | %s)", a, b);
  case LR_IXOR: case LR_BXOR: return cg_fmt(cg, "(%s ^ %s)", a, b);
  case LR_FADD: return cg_fmt(cg, "(%s + %s)", a, b);
  case LR_FMUL: return cg_fmt(cg, "(%s * %s)", a, b);
  case LR_FMAX: return cg_fmt(cg, cg->float32 ? "fmaxf(%s, %s)" : "fmax(%s, %s)", a, b);
  case LR_FMIN: return cg_fmt(cg, cg->float32 ? "fminf(%s, %s)" : "fmin(%s, %s)", a, b);
  default: nz_die("codegen: %s does not combine", lcu_rop_name(r));
  }
}
