/* lcu_check.c (unit) — builds small λcu programs with the constructors of
 * lcu_build.c and checks what lcu_check annotates (types, opty, slots, targets,
 * frame sizes) and that broken programs are rejected with the right message. */
#include <dirent.h>
#include <unistd.h>

#include "lcu.h"
#include "unit.h"

static NzLoc L0;

/* ---- building helpers ---- */

static const LcuType *T(LcuTypeKind k) { return lcu_type_base(k); }
static const LcuType *A(LcuTypeKind k) { return lcu_type_array(k); }
static const LcuType *TUP2(const LcuType *a, const LcuType *b) {
  const LcuType *e[2] = {a, b};
  return lcu_type_tuple(2, e);
}
static LcuExpr *V(LcuProgram *p, const char *n) { return lcu_var(p, n, L0); }
static LcuExpr *I(LcuProgram *p, int v) { return lcu_int(p, v, L0); }
static LcuExpr *F(LcuProgram *p, double v) { return lcu_float(p, v, L0); }
static LcuExpr *P2(LcuProgram *p, LcuPrim op, LcuExpr *a, LcuExpr *b) {
  return lcu_prim2(p, op, a, b, L0);
}
static LcuExpr *P1(LcuProgram *p, LcuPrim op, LcuExpr *a) { return lcu_prim(p, op, 1, &a, L0); }
static LcuExpr *IX(LcuProgram *p, const char *arr, LcuExpr *i) {
  return lcu_index(p, V(p, arr), i, L0);
}
static LcuExpr *LET(LcuProgram *p, const char *x, LcuExpr *rhs, LcuExpr *body) {
  return lcu_let1(p, x, rhs, body, L0);
}
static LcuExpr *TUPLE2(LcuProgram *p, LcuExpr *a, LcuExpr *b) {
  LcuExpr *e[2] = {a, b};
  return lcu_tuple(p, 2, e, L0);
}

/* Binders from a space-separated list of names, untyped. */
static int names(LcuProgram *p, const char *list, LcuBinder **out) {
  LcuBinder *b = lcu_binders(p, (int)strlen(list) / 2 + 1); /* names are space-separated */
  int n = 0;
  char buf[64];
  const char *s = list;
  while (*s) {
    while (*s == ' ') s++;
    if (!*s) break;
    int len = 0;
    while (s[len] && s[len] != ' ') len++;
    snprintf(buf, sizeof buf, "%.*s", len, s);
    b[n++] = lcu_binder(buf, NULL, L0);
    s += len;
  }
  *out = b;
  return n;
}

/* { params => body using usings } */
static LcuThunk *TH(LcuProgram *p, const char *params, LcuExpr *body, const char *usings) {
  LcuBinder *pb, *ub;
  int np = names(p, params, &pb), nu = names(p, usings, &ub);
  return lcu_thunk_new(p, np, pb, body, nu, ub, L0);
}

static void params(LcuProgram *p, LcuBinder **out, int *n, int count, const char **nm,
                   const LcuType **ty) {
  *out = lcu_binders(p, count);
  for (int i = 0; i < count; i++) (*out)[i] = lcu_binder(nm[i], ty[i], L0);
  *n = count;
}

static LcuKernel *kernel(LcuProgram *p, const char *name, int np, const char **nm,
                         const LcuType **ty, const LcuType *ret) {
  LcuKernel *k = lcu_kernel_add(p, name, L0);
  params(p, &k->params, &k->nparams, np, nm, ty);
  k->ret = ret;
  return k;
}

static LcuSize SZ(LcuSizeKind kind, const char *name, int lit) {
  LcuSize z = {kind, L0, lit, name ? nz_intern_cstr(name) : NULL, -1};
  return z;
}

/* Appends a SOAC; returns its index (pointers move as SOACs are added). */
static int soac(LcuProgram *p, LcuKernel *k, LcuSoacKind kind, const char *binds, LcuThunk *t0,
                LcuThunk *t1, const char *rops, LcuSize size) {
  LcuSoac *s = lcu_kernel_add_soac(p, k, kind, L0);
  s->nbinds = names(p, binds, &s->binds);
  s->thunks[0] = t0;
  s->thunks[1] = t1;
  s->nthunks = t1 ? 2 : 1;
  LcuBinder *rb;
  s->nrops = names(p, rops, &rb);
  s->rops = NZ_NEWN(p->arena, LcuRop, s->nrops ? s->nrops : 1);
  for (int i = 0; i < s->nrops; i++) s->rops[i] = (LcuRop)lcu_rop_lookup(rb[i].name);
  s->size = size;
  s->outlen = SZ(LZ_NONE, NULL, 0);
  return k->nsoacs - 1;
}

static void rets(LcuProgram *p, LcuKernel *k, const char *list) {
  k->nrets = names(p, list, &k->rets);
}

static LcuFunc *func(LcuProgram *p, const char *name, int np, const char **nm, const LcuType **ty,
                     const LcuType *ret, LcuExpr *body) {
  LcuFunc *f = lcu_func_add(p, name, L0);
  params(p, &f->params, &f->nparams, np, nm, ty);
  f->ret = ret;
  f->body = body;
  return f;
}

static void trivial_main(LcuProgram *p) { func(p, "main", 0, NULL, NULL, T(LT_INT), I(p, 0)); }

/* stderr into a temporary file, and back (returning what was written). */
static FILE *capture_file;
static int saved_stderr;

static void capture_begin(void) {
  fflush(stderr);
  capture_file = tmpfile();
  saved_stderr = dup(2);
  dup2(fileno(capture_file), 2);
}

static void capture_end(char *buf, size_t n) {
  fflush(stderr);
  dup2(saved_stderr, 2);
  close(saved_stderr);
  rewind(capture_file);
  size_t got = fread(buf, 1, n - 1, capture_file);
  buf[got] = 0;
  fclose(capture_file);
}

/* Runs lcu_check with stderr captured into buf; returns the error count. */
static int check_capture(LcuProgram *p, char *buf, size_t n) {
  capture_begin();
  int errs = lcu_check(p);
  capture_end(buf, n);
  return errs;
}

/* A bad program must give exactly `want` errors and mention `msg`. */
static void expect_error(const char *name, LcuProgram *p, int want, const char *msg) {
  char buf[8192];
  int errs = check_capture(p, buf, sizeof buf);
  if (errs == want && strstr(buf, msg)) {
    printf("ok %s\n", name);
  } else {
    printf("not ok %s: %d errors (wanted %d), looked for \"%s\" in: %s\n", name, errs, want, msg,
           buf);
    unit_failures++;
  }
  lcu_program_free(p);
}

/* ---- well-typed programs ---- */

/* The README's dot product: kernel frame, thunk frames, using slots, run target. */
static void test_dot(void) {
  LcuProgram *p = lcu_program_new(NULL);
  const char *kn[] = {"xs", "ys"};
  const LcuType *kt[] = {A(LT_FLOAT), A(LT_FLOAT)};
  LcuKernel *k = kernel(p, "dot", 2, kn, kt, T(LT_FLOAT));
  LcuExpr *mul = P2(p, LP_MUL, IX(p, "xs", V(p, "i")), IX(p, "ys", V(p, "i")));
  soac(p, k, LS_MAP, "prods", TH(p, "i", mul, "ys xs"), NULL, "", SZ(LZ_LEN, "xs", 0));
  LcuExpr *rd = IX(p, "prods", V(p, "j"));
  soac(p, k, LS_REDUCE, "s", TH(p, "j", rd, "prods"), NULL, "fadd", SZ(LZ_LEN, "prods", 0));
  rets(p, k, "s");
  LcuExpr *args[2] = {V(p, "a"), V(p, "b")};
  LcuExpr *run = lcu_run(p, "dot", 2, args, L0);
  LcuExpr *body = LET(p, "r", run, V(p, "r"));
  const LcuType *mt[] = {A(LT_FLOAT), A(LT_FLOAT)};
  const char *mn[] = {"a", "b"};
  LcuFunc *m = func(p, "main", 2, mn, mt, T(LT_FLOAT), body);

  for (int round = 0; round < 2; round++) { /* idempotent: the same every time */
    char nm[64];
#define C(what, cond)                                                                              \
  do {                                                                                             \
    snprintf(nm, sizeof nm, "dot.%s.%d", what, round);                                             \
    CHECK(nm, cond);                                                                               \
  } while (0)
    C("no errors", lcu_check(p) == 0);
    LcuSoac *s0 = &k->soacs[0], *s1 = &k->soacs[1];
    C("kernel nslots", k->nslots == 4);
    C("param slots", k->params[0].slot == 0 && k->params[1].slot == 1);
    C("binder slots", s0->binds[0].slot == 2 && s1->binds[0].slot == 3);
    C("binder types", s0->binds[0].ty == A(LT_FLOAT) && s1->binds[0].ty == T(LT_FLOAT));
    C("size slots", s0->size.slot == 0 && s1->size.slot == 2);
    C("ret slot", k->rets[0].slot == 3 && k->rets[0].ty == T(LT_FLOAT));
    LcuThunk *t = s0->thunks[0];
    C("using slots", t->usings[0].slot == 1 && t->usings[1].slot == 0);
    C("using types", t->usings[0].ty == A(LT_FLOAT) && t->usings[1].ty == A(LT_FLOAT));
    C("thunk frame", t->nslots == 3 && t->params[0].slot == 2 && t->params[0].ty == T(LT_INT));
    /* xs is captured second, so it is thunk slot 1; ys slot 0. */
    C("thunk var slots", mul->args[0]->args[0]->slot == 1 && mul->args[1]->args[0]->slot == 0 &&
                             mul->args[0]->args[1]->slot == 2);
    C("mul opty", mul->opty == T(LT_FLOAT) && mul->ty == T(LT_FLOAT));
    C("index type", mul->args[0]->ty == T(LT_FLOAT));
    C("reduce thunk frame",
      s1->thunks[0]->nslots == 2 && rd->args[0]->slot == 0 && rd->args[1]->slot == 1);
    C("run target", run->target == k && run->ty == T(LT_FLOAT));
    C("func frame", m->nslots == 3 && body->binds[0].slot == 2 && body->binds[0].ty == T(LT_FLOAT));
    C("func var slots", args[0]->slot == 0 && args[1]->slot == 1 && body->args[1]->slot == 2);
#undef C
  }
  lcu_program_free(p);
}

/* Let slots in a function: every binder gets a fresh slot, in textual order,
 * at any depth, with no reuse across branches. */
static void test_func_slots(void) {
  LcuProgram *p = lcu_program_new(NULL);
  /* let a = (let b = x in b) in
   *   if a < 3 then (let c = a in c) else (let (d, e) = (a, 2.5) in d) */
  LcuExpr *inner = LET(p, "b", V(p, "x"), V(p, "b"));
  LcuExpr *lt = P2(p, LP_LT, V(p, "a"), I(p, 3));
  LcuExpr *th = LET(p, "c", V(p, "a"), V(p, "c"));
  LcuBinder de[2] = {lcu_binder("d", NULL, L0), lcu_binder("e", NULL, L0)};
  LcuExpr *el = lcu_let(p, 2, de, TUPLE2(p, V(p, "a"), F(p, 2.5)), V(p, "d"), L0);
  LcuExpr *body = LET(p, "a", inner, lcu_if(p, lt, th, el, L0));
  const char *nm[] = {"x"};
  const LcuType *ty[] = {T(LT_INT)};
  LcuFunc *m = func(p, "main", 1, nm, ty, T(LT_INT), body);
  CHECK("slots.no errors", lcu_check(p) == 0);
  CHECK("slots.nslots", m->nslots == 6);
  CHECK("slots.a b c",
        body->binds[0].slot == 1 && inner->binds[0].slot == 2 && th->binds[0].slot == 3);
  CHECK("slots.d e", el->binds[0].slot == 4 && el->binds[1].slot == 5);
  CHECK("slots.d e types", el->binds[0].ty == T(LT_INT) && el->binds[1].ty == T(LT_FLOAT));
  CHECK("slots.tuple type", el->args[0]->ty == TUP2(T(LT_INT), T(LT_FLOAT)));
  CHECK("slots.lt opty", lt->opty == T(LT_INT) && lt->ty == T(LT_BOOL));
  CHECK("slots.var refs",
        inner->args[1]->slot == 2 && lt->args[0]->slot == 1 && el->args[1]->slot == 4);
  CHECK("slots.if type", body->args[1]->ty == T(LT_INT) && body->ty == T(LT_INT));
  lcu_program_free(p);
}

/* Functions call each other in any order, recursively. */
static void test_calls(void) {
  LcuProgram *p = lcu_program_new(NULL);
  LcuExpr *a1 = V(p, "n");
  LcuExpr *c1 = lcu_call(p, "odd", 1, &a1, L0);
  LcuExpr *a2 = P2(p, LP_SUB, V(p, "n"), I(p, 1));
  LcuExpr *c2 = lcu_call(p, "even", 1, &a2, L0);
  const char *nm[] = {"n"};
  const LcuType *ty[] = {T(LT_INT)};
  LcuFunc *m = func(p, "main", 1, nm, ty, T(LT_BOOL), c1);
  LcuExpr *a3 = P2(p, LP_SUB, V(p, "n"), I(p, 1));
  LcuFunc *even = func(p, "even", 1, nm, ty, T(LT_BOOL),
                       lcu_if(p, P2(p, LP_EQ, V(p, "n"), I(p, 0)), lcu_bool(p, 1, L0),
                              lcu_call(p, "odd", 1, &a3, L0), L0));
  LcuFunc *odd = func(p, "odd", 1, nm, ty, T(LT_BOOL), c2);
  CHECK("calls.no errors", lcu_check(p) == 0);
  CHECK("calls.targets", c1->target == odd && c2->target == even);
  CHECK("calls.types", c1->ty == T(LT_BOOL) && m->nslots == 1 && even->nslots == 1);
  lcu_program_free(p);
}

/* The thunk frame: captures, then params, then lets; captured kernel slots. */
static void test_thunk_frame(void) {
  LcuProgram *p = lcu_program_new(NULL);
  const char *kn[] = {"xs", "n"};
  const LcuType *kt[] = {A(LT_INT), T(LT_INT)};
  LcuKernel *k = kernel(p, "k", 2, kn, kt, A(LT_INT));
  /* MAP { i => let t = xs[i] in let u = t + n in u using n, xs } (n) */
  LcuExpr *add = P2(p, LP_ADD, V(p, "t"), V(p, "n"));
  LcuExpr *inner = LET(p, "u", add, V(p, "u"));
  LcuExpr *outer = LET(p, "t", IX(p, "xs", V(p, "i")), inner);
  soac(p, k, LS_MAP, "ys", TH(p, "i", outer, "n xs"), NULL, "", SZ(LZ_VAR, "n", 0));
  rets(p, k, "ys");
  trivial_main(p);
  CHECK("thunk.no errors", lcu_check(p) == 0);
  LcuThunk *t = k->soacs[0].thunks[0];
  CHECK("thunk.nslots", t->nslots == 5);
  CHECK("thunk.capture kernel slots", t->usings[0].slot == 1 && t->usings[1].slot == 0);
  CHECK("thunk.capture types", t->usings[0].ty == T(LT_INT) && t->usings[1].ty == A(LT_INT));
  CHECK("thunk.param slot", t->params[0].slot == 2);
  CHECK("thunk.let slots", outer->binds[0].slot == 3 && inner->binds[0].slot == 4);
  CHECK("thunk.var slots", outer->args[0]->args[0]->slot == 1 &&
                               outer->args[0]->args[1]->slot == 2 && add->args[0]->slot == 3 &&
                               add->args[1]->slot == 0 && inner->args[1]->slot == 4);
  CHECK("thunk.size slot", k->soacs[0].size.slot == 1);
  CHECK("thunk.binder", k->soacs[0].binds[0].ty == A(LT_INT) && k->soacs[0].binds[0].slot == 2);
  lcu_program_free(p);
}

/* opty of overloaded and conversion primitives. */
static void test_opty(void) {
  LcuProgram *p = lcu_program_new(NULL);
  LcuExpr *sq = P1(p, LP_SQRT, F(p, 2.0));
  LcuExpr *len = P1(p, LP_LENGTH, V(p, "xs"));
  LcuExpr *nsegs = P1(p, LP_LENGTH, V(p, "sd"));
  LcuExpr *nt = P1(p, LP_NOT, lcu_bool(p, 0, L0));
  LcuExpr *bnot = P1(p, LP_NOT, I(p, 5));
  LcuExpr *i2f = P1(p, LP_I2F, I(p, 5));
  LcuExpr *lt = P2(p, LP_LT, lcu_char(p, 'a', L0), lcu_char(p, 'b', L0));
  LcuExpr *mx = P2(p, LP_MAX, F(p, 1.0), F(p, 2.0));
  LcuExpr *ss = P2(p, LP_SEG_START, V(p, "sd"), I(p, 0));
  LcuExpr *sel3[3] = {lcu_bool(p, 1, L0), V(p, "xs"), V(p, "xs")};
  LcuExpr *sel = lcu_prim(p, LP_SELECT, 3, sel3, L0);
  LcuExpr *pr = P1(p, LP_PRINT, TUPLE2(p, I(p, 1), V(p, "xs")));
  LcuExpr *emp = lcu_expr_new(p, LE_ARRAY, L0);
  emp->opty = T(LT_CHAR);
  LcuExpr *arr = lcu_expr_new(p, LE_ARRAY, L0);
  arr->nargs = 2;
  arr->args = lcu_exprs(p, 2);
  arr->args[0] = I(p, 1);
  arr->args[1] = I(p, 2);
  /* print's result is unit, which cannot sit in a flat tuple: it is let-bound below. */
  LcuExpr *all[] = {sq, len, nsegs, nt, bnot, i2f, lt, mx, ss, sel, I(p, 0), emp, arr};
  int n = (int)(sizeof all / sizeof *all);
  LcuExpr *t = lcu_tuple(p, n, all, L0);
  const char *nm[] = {"xs", "sd"};
  const LcuType *ty[] = {A(LT_INT), T(LT_SEGDES)};
  const LcuType *rt[] = {T(LT_FLOAT), T(LT_INT),  T(LT_INT),   T(LT_BOOL), T(LT_INT),
                         T(LT_FLOAT), T(LT_BOOL), T(LT_FLOAT), T(LT_INT),  A(LT_INT),
                         T(LT_INT),   A(LT_CHAR), A(LT_INT)};
  LcuExpr *body = LET(p, "u", pr, t);
  func(p, "main", 2, nm, ty, lcu_type_tuple(n, rt), body);
  CHECK("opty.no errors", lcu_check(p) == 0);
  CHECK("opty.sqrt", sq->opty == T(LT_FLOAT) && sq->ty == T(LT_FLOAT));
  CHECK("opty.length array", len->opty == A(LT_INT) && len->ty == T(LT_INT));
  CHECK("opty.length segdes", nsegs->opty == T(LT_SEGDES) && nsegs->ty == T(LT_INT));
  CHECK("opty.not bool", nt->opty == T(LT_BOOL) && nt->ty == T(LT_BOOL));
  CHECK("opty.not int", bnot->opty == T(LT_INT) && bnot->ty == T(LT_INT));
  CHECK("opty.i2f", i2f->opty == T(LT_INT) && i2f->ty == T(LT_FLOAT));
  CHECK("opty.lt char", lt->opty == T(LT_CHAR) && lt->ty == T(LT_BOOL));
  CHECK("opty.max float", mx->opty == T(LT_FLOAT) && mx->ty == T(LT_FLOAT));
  CHECK("opty.seg_start", ss->opty == T(LT_SEGDES) && ss->ty == T(LT_INT));
  CHECK("opty.select", sel->opty == A(LT_INT) && sel->ty == A(LT_INT));
  CHECK("opty.print", pr->opty == TUP2(T(LT_INT), A(LT_INT)) && pr->ty == lcu_type_unit());
  CHECK("opty.empty array kept", emp->opty == T(LT_CHAR) && emp->ty == A(LT_CHAR));
  CHECK("opty.array literal", arr->opty == T(LT_INT) && arr->ty == A(LT_INT));
  CHECK("opty.again", lcu_check(p) == 0 && emp->opty == T(LT_CHAR) && len->opty == A(LT_INT));
  lcu_program_free(p);
}

/* Binder types of every SOAC. */
static void test_soac_binders(void) {
  LcuProgram *p = lcu_program_new(NULL);
  const char *kn[] = {"xs", "fs", "sd", "n"};
  const LcuType *kt[] = {A(LT_INT), A(LT_FLOAT), T(LT_SEGDES), T(LT_INT)};
  const LcuType *rt[] = {T(LT_INT), A(LT_FLOAT)};
  LcuKernel *k = kernel(p, "k", 4, kn, kt, lcu_type_tuple(2, rt));
#define PAIR TUPLE2(p, IX(p, "xs", V(p, "i")), IX(p, "fs", V(p, "i")))
  int s_once = soac(p, k, LS_ONCE, "o1 o2", TH(p, "", TUPLE2(p, I(p, 1), lcu_char(p, 'c', L0)), ""),
                    NULL, "", SZ(LZ_NONE, NULL, 0));
  int s_red = soac(p, k, LS_REDUCE, "r1 r2", TH(p, "i", PAIR, "xs fs"), NULL, "imax id",
                   SZ(LZ_LEN, "xs", 0));
  int s_scan = soac(p, k, LS_SCAN, "c1 c2", TH(p, "i", PAIR, "xs fs"), NULL, "iadd fmul",
                    SZ(LZ_VAR, "n", 0));
  LcuExpr *pred = P2(p, LP_GT, V(p, "a"), I(p, 0));
  int s_part = soac(p, k, LS_PARTITION, "k1 k2 j1 j2", TH(p, "i", PAIR, "xs fs"),
                    TH(p, "a b", pred, ""), "", SZ(LZ_LIT, NULL, 3));
  int s_filt = soac(p, k, LS_FILTER, "f1", TH(p, "i", IX(p, "fs", V(p, "i")), "fs"),
                    TH(p, "v", P2(p, LP_LT, V(p, "v"), F(p, 0.5)), ""), "", SZ(LZ_LEN, "fs", 0));
  int s_sred = soac(p, k, LS_SEGREDUCE, "g1 g2", TH(p, "i", PAIR, "xs fs"), NULL, "iadd id",
                    SZ(LZ_VAR, "sd", 0));
  int s_sscan = soac(p, k, LS_SEGSCAN, "h1", TH(p, "i", IX(p, "xs", V(p, "i")), "xs"), NULL, "imin",
                     SZ(LZ_VAR, "sd", 0));
  int s_perm = soac(p, k, LS_PERMUTE, "q1", TH(p, "i", IX(p, "fs", V(p, "i")), "fs"),
                    TH(p, "i", P2(p, LP_SUB, V(p, "n"), V(p, "i")), "n"), "", SZ(LZ_LEN, "fs", 0));
  k->soacs[s_perm].outlen = SZ(LZ_LEN, "xs", 0);
  rets(p, k, "r1 q1");
  trivial_main(p);
  CHECK("soacs.no errors", lcu_check(p) == 0);
  LcuBinder *b;
#define BT(i, j) (k->soacs[i].binds[j].ty)
  CHECK("soacs.ONCE", BT(s_once, 0) == T(LT_INT) && BT(s_once, 1) == T(LT_CHAR));
  CHECK("soacs.REDUCE", BT(s_red, 0) == T(LT_INT) && BT(s_red, 1) == A(LT_FLOAT));
  CHECK("soacs.SCAN", BT(s_scan, 0) == A(LT_INT) && BT(s_scan, 1) == A(LT_FLOAT));
  CHECK("soacs.PARTITION", BT(s_part, 0) == A(LT_INT) && BT(s_part, 1) == A(LT_FLOAT) &&
                               BT(s_part, 2) == A(LT_INT) && BT(s_part, 3) == A(LT_FLOAT));
  LcuThunk *pt = k->soacs[s_part].thunks[1];
  CHECK("soacs.predicate params", pt->params[0].ty == T(LT_INT) &&
                                      pt->params[1].ty == T(LT_FLOAT) && pt->nslots == 2 &&
                                      pred->args[0]->slot == 0);
  CHECK("soacs.FILTER", BT(s_filt, 0) == A(LT_FLOAT));
  CHECK("soacs.SEGREDUCE", BT(s_sred, 0) == A(LT_INT) && BT(s_sred, 1) == A(LT_FLOAT) &&
                               k->soacs[s_sred].thunks[0]->params[0].ty == T(LT_INT));
  CHECK("soacs.SEGSCAN", BT(s_sscan, 0) == A(LT_INT) && k->soacs[s_sscan].size.slot == 2);
  CHECK("soacs.PERMUTE", BT(s_perm, 0) == A(LT_FLOAT) && k->soacs[s_perm].outlen.slot == 0 &&
                             k->soacs[s_perm].size.slot == 1);
  b = k->soacs[s_perm].binds;
  CHECK("soacs.slots", k->soacs[s_once].binds[0].slot == 4 && k->soacs[s_red].binds[1].slot == 7 &&
                           k->soacs[s_part].binds[3].slot == 13 && b[0].slot == 18 &&
                           k->nslots == 19);
  CHECK("soacs.rets", k->rets[0].slot == 6 && k->rets[1].slot == 18);
  CHECK("soacs.once frame", k->soacs[s_once].thunks[0]->nslots == 0);
  CHECK("soacs.again", lcu_check(p) == 0 && k->nslots == 19 && BT(s_red, 1) == A(LT_FLOAT));
#undef BT
#undef PAIR
  lcu_program_free(p);
}

/* ---- broken programs ---- */

/* A kernel k(xs : [int], fs : [float], n : int, sd : segdes) -> [int] with one
 * SOAC, ys = MAP thunk (size), returning ys, and main. */
static LcuProgram *one_soac(LcuSoacKind kind, const char *binds, LcuThunk *(*mk)(LcuProgram *),
                            const char *rops, LcuSize size, const LcuType *ret) {
  LcuProgram *p = lcu_program_new(NULL);
  const char *kn[] = {"xs", "fs", "n", "sd"};
  const LcuType *kt[] = {A(LT_INT), A(LT_FLOAT), T(LT_INT), T(LT_SEGDES)};
  LcuKernel *k = kernel(p, "k", 4, kn, kt, ret);
  soac(p, k, kind, binds, mk(p), NULL, rops, size);
  rets(p, k, binds);
  trivial_main(p);
  return p;
}

static LcuThunk *mk_pair(LcuProgram *p) {
  return TH(p, "i", TUPLE2(p, IX(p, "xs", V(p, "i")), IX(p, "fs", V(p, "i"))), "xs fs");
}
static LcuThunk *mk_xs(LcuProgram *p) { return TH(p, "i", IX(p, "xs", V(p, "i")), "xs"); }
static LcuThunk *mk_notusing(LcuProgram *p) { return TH(p, "i", IX(p, "xs", V(p, "i")), "fs"); }
static LcuThunk *mk_array(LcuProgram *p) { return TH(p, "i", V(p, "xs"), "xs"); }
static LcuThunk *mk_float_idx(LcuProgram *p) { return TH(p, "i", IX(p, "xs", F(p, 1.0)), "xs"); }
static LcuThunk *mk_print(LcuProgram *p) { return TH(p, "i", P1(p, LP_PRINT, V(p, "i")), ""); }
static LcuThunk *mk_run(LcuProgram *p) { return TH(p, "i", lcu_run(p, "k", 0, NULL, L0), ""); }
static LcuThunk *mk_twice(LcuProgram *p) { return TH(p, "i", IX(p, "xs", V(p, "i")), "xs xs"); }
static LcuThunk *mk_bad_using(LcuProgram *p) { return TH(p, "i", V(p, "i"), "i2"); }
static LcuThunk *mk_two_params(LcuProgram *p) { return TH(p, "i j", V(p, "i"), ""); }
static LcuThunk *mk_seg_len(LcuProgram *p) { return TH(p, "i", P1(p, LP_LENGTH, V(p, "n")), "n"); }
static LcuThunk *mk_nested(LcuProgram *p) {
  return TH(p, "i", TUPLE2(p, TUPLE2(p, V(p, "i"), V(p, "i")), V(p, "i")), "");
}

static void test_errors(void) {
  expect_error("err.rop type",
               one_soac(LS_REDUCE, "a b", mk_pair, "iadd iadd", SZ(LZ_LEN, "xs", 0),
                        TUP2(T(LT_INT), T(LT_FLOAT))),
               1, "operator iadd needs int, but component 2 of the thunk is float");
  expect_error("err.rop count",
               one_soac(LS_REDUCE, "a b", mk_pair, "iadd", SZ(LZ_LEN, "xs", 0),
                        TUP2(T(LT_INT), T(LT_FLOAT))),
               1, "REDUCE has 1 reduction operator, but its thunk returns 2 components");
  expect_error("err.binder count",
               one_soac(LS_MAP, "a", mk_pair, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "MAP binds 1 name, but its thunk returns 2 components ((int, float))");
  expect_error("err.not in using",
               one_soac(LS_MAP, "a", mk_notusing, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "'xs' is a kernel variable that is not in the thunk's using list");
  expect_error("err.thunk returns array",
               one_soac(LS_MAP, "a", mk_array, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "'xs' is [int], but a thunk computes scalars");
  expect_error("err.index not int",
               one_soac(LS_MAP, "a", mk_float_idx, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "an index must be int, but it is float");
  expect_error("err.cpu prim in kernel",
               one_soac(LS_MAP, "a", mk_print, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "primitive 'print' is CPU-only");
  expect_error("err.run in kernel",
               one_soac(LS_ONCE, "a", mk_run, "", SZ(LZ_NONE, NULL, 0), A(LT_INT)), 2,
               "a kernel cannot run the kernel 'k'"); /* and ONCE's thunk takes no parameters */
  expect_error("err.using twice",
               one_soac(LS_MAP, "a", mk_twice, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "'xs' appears twice in the using list");
  expect_error("err.using non-kernel",
               one_soac(LS_MAP, "a", mk_bad_using, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "the using list names 'i2', which is not a parameter of kernel 'k'");
  expect_error("err.map two params",
               one_soac(LS_MAP, "a", mk_two_params, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "MAP's thunk takes 1 parameter (the index), but it has 2");
  expect_error("err.length of int",
               one_soac(LS_MAP, "a", mk_seg_len, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "operator '#' needs an array or a segdes, but its operand is int");
  expect_error("err.nested tuple",
               one_soac(LS_ONCE, "a b", mk_nested, "", SZ(LZ_NONE, NULL, 0), A(LT_INT)), 2,
               "tuples must be flat"); /* and ONCE's thunk takes no parameters */
  expect_error("err.size not int", one_soac(LS_MAP, "a", mk_xs, "", SZ(LZ_LEN, "n", 0), A(LT_INT)),
               1, "'#' needs an array or a segdes, but 'n' is int");
  expect_error("err.size float", one_soac(LS_MAP, "a", mk_xs, "", SZ(LZ_VAR, "fs", 0), A(LT_INT)),
               1, "the size of MAP must be int, but 'fs' is [float]");
  expect_error("err.seg size",
               one_soac(LS_SEGSCAN, "a", mk_xs, "iadd", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "SEGSCAN iterates over a segment descriptor, but 'n' is int");
  expect_error("err.kernel result",
               one_soac(LS_MAP, "a", mk_xs, "", SZ(LZ_VAR, "n", 0), A(LT_FLOAT)), 1,
               "kernel 'k' is declared -> [float], so result 1 must be [float], but 'a' is [int]");
  expect_error("err.shadow", one_soac(LS_MAP, "xs", mk_xs, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "'xs' is already bound in kernel 'k'");

  /* No main, and duplicate names. */
  LcuProgram *p = lcu_program_new(NULL);
  func(p, "f", 0, NULL, NULL, T(LT_INT), I(p, 1));
  expect_error("err.no main", p, 1, "the program has no function main");
  p = lcu_program_new(NULL);
  trivial_main(p);
  trivial_main(p);
  expect_error("err.duplicate function", p, 1, "function 'main' is already defined");

  p = lcu_program_new(NULL);
  trivial_main(p);
  rets(p, kernel(p, "k", 0, NULL, NULL, lcu_type_unit()), "");
  rets(p, kernel(p, "k", 0, NULL, NULL, lcu_type_unit()), "");
  expect_error("err.duplicate kernel", p, 1, "kernel 'k' is already defined");
  p = lcu_program_new(NULL);
  trivial_main(p);
  rets(p, kernel(p, "main", 0, NULL, NULL, lcu_type_unit()), "");
  expect_error("err.kernel named like a function", p, 1, "has the name of the");
  p = lcu_program_new(NULL);
  rets(p, kernel(p, "main", 0, NULL, NULL, lcu_type_unit()), "");
  expect_error("err.main is a kernel", p, 1, "the program has no function main");

  /* Several independent errors in one function, each reported once. */
  p = lcu_program_new(NULL);
  LcuExpr *bad1 = P2(p, LP_ADD, I(p, 1), F(p, 2.0));             /* int + float */
  LcuExpr *bad2 = lcu_if(p, I(p, 1), V(p, "nope"), I(p, 2), L0); /* int cond; unknown var */
  LcuExpr *uses = P2(p, LP_MUL, V(p, "x"), I(p, 3));             /* x : NULL type, no cascade */
  LcuExpr *body = LET(p, "x", bad1, LET(p, "y", bad2, uses));
  func(p, "main", 0, NULL, NULL, T(LT_FLOAT), body);
  expect_error("err.several", p, 3, "unknown variable 'nope'");

  /* Calls: arity and argument types; a kernel called like a function. */
  p = lcu_program_new(NULL);
  const char *nm[] = {"a"};
  const LcuType *ty[] = {T(LT_INT)};
  func(p, "f", 1, nm, ty, T(LT_INT), V(p, "a"));
  LcuExpr *fa = F(p, 1.0);
  func(p, "main", 0, NULL, NULL, T(LT_INT), lcu_call(p, "f", 1, &fa, L0));
  expect_error("err.call arg", p, 1, "argument 1 of function 'f' must be int, but it is float");
  p = lcu_program_new(NULL);
  func(p, "main", 0, NULL, NULL, T(LT_INT), lcu_call(p, "f", 0, NULL, L0));
  expect_error("err.unknown function", p, 1, "unknown function 'f'");
  p = lcu_program_new(NULL);
  func(p, "main", 0, NULL, NULL, T(LT_INT), F(p, 1.0));
  expect_error("err.main result", p, 1,
               "function 'main' is declared -> int, but its body gives float");
}

/* ---- every golden program: annotations complete, consistent, idempotent ---- */

/* A frame: the name bound at each slot; bad counts violations. */
typedef struct {
  const char **names;
  int n, bad, untyped;
} Frame;

static Frame frame_new(int n) {
  Frame f = {nz_xcalloc((size_t)(n > 0 ? n : 1), sizeof(char *)), n, n < 0, 0};
  return f;
}

static void frame_bind(Frame *f, int slot, const char *name) {
  if (slot < 0 || slot >= f->n || f->names[slot])
    f->bad++; /* out of range, or a slot bound twice */
  else
    f->names[slot] = name;
}

static int frame_has(const Frame *f, int slot, const char *name) {
  return slot >= 0 && slot < f->n && f->names[slot] == name;
}

static void frame_lets(Frame *f, const LcuExpr *e) {
  for (int i = 0; i < e->nbinds; i++) frame_bind(f, e->binds[i].slot, e->binds[i].name);
  for (int i = 0; i < e->nargs; i++) frame_lets(f, e->args[i]);
}

/* Every slot bound once; every variable reads a slot holding its name; every
 * expression typed. */
static void frame_vars(Frame *f, const LcuExpr *e) {
  if (!e->ty) f->untyped++;
  if (e->kind == LE_VAR && !frame_has(f, e->slot, e->name)) f->bad++;
  if (e->kind == LE_PRIM && !e->opty) f->untyped++;
  for (int i = 0; i < e->nargs; i++) frame_vars(f, e->args[i]);
}

static int frame_done(Frame *f, const LcuExpr *body) {
  frame_lets(f, body);
  for (int i = 0; i < f->n; i++)
    if (!f->names[i]) f->bad++;
  frame_vars(f, body);
  free(f->names);
  return f->bad + f->untyped;
}

/* Violations of the frame layout in a checked program. */
static int layout_violations(const LcuProgram *p) {
  int bad = 0;
  for (int i = 0; i < p->nfuncs; i++) {
    const LcuFunc *fn = p->funcs[i];
    Frame f = frame_new(fn->nslots);
    for (int j = 0; j < fn->nparams; j++) frame_bind(&f, fn->params[j].slot, fn->params[j].name);
    bad += frame_done(&f, fn->body);
  }
  for (int i = 0; i < p->nkernels; i++) {
    const LcuKernel *k = p->kernels[i];
    Frame kf = frame_new(k->nslots);
    for (int j = 0; j < k->nparams; j++) frame_bind(&kf, k->params[j].slot, k->params[j].name);
    for (int s = 0; s < k->nsoacs; s++)
      for (int j = 0; j < k->soacs[s].nbinds; j++)
        frame_bind(&kf, k->soacs[s].binds[j].slot, k->soacs[s].binds[j].name);
    for (int j = 0; j < kf.n; j++)
      if (!kf.names[j]) bad++;
    for (int j = 0; j < k->nrets; j++)
      if (!frame_has(&kf, k->rets[j].slot, k->rets[j].name)) bad++;
    for (int s = 0; s < k->nsoacs; s++) {
      const LcuSoac *so = &k->soacs[s];
      const LcuSize *zs[2] = {&so->size, &so->outlen};
      for (int z = 0; z < 2; z++)
        if ((zs[z]->kind == LZ_VAR || zs[z]->kind == LZ_LEN) &&
            !frame_has(&kf, zs[z]->slot, zs[z]->name))
          bad++;
      for (int t = 0; t < so->nthunks; t++) {
        const LcuThunk *th = so->thunks[t];
        Frame tf = frame_new(th->nslots);
        for (int j = 0; j < th->nusing; j++) {
          if (!frame_has(&kf, th->usings[j].slot, th->usings[j].name) || !th->usings[j].ty) bad++;
          frame_bind(&tf, j, th->usings[j].name);
        }
        for (int j = 0; j < th->nparams; j++) {
          frame_bind(&tf, th->params[j].slot, th->params[j].name);
          if (!th->params[j].ty) bad++;
        }
        bad += frame_done(&tf, th->body);
      }
    }
    free(kf.names);
  }
  return bad;
}

/* Every annotation, printed, to compare two runs of the checker. */
static void dig_binders(NzBuf *d, const LcuBinder *b, int n) {
  for (int i = 0; i < n; i++) {
    nz_buf_printf(d, " %s@%d:", b[i].name, b[i].slot);
    if (b[i].ty) lcu_type_print(d, b[i].ty);
  }
}

static void dig_expr(NzBuf *d, const LcuExpr *e) {
  nz_buf_printf(d, "<%d ", (int)e->kind);
  if (e->ty) lcu_type_print(d, e->ty);
  nz_buf_putc(d, ' ');
  if (e->opty) lcu_type_print(d, e->opty);
  nz_buf_printf(d, " %d %p", e->slot, e->target);
  dig_binders(d, e->binds, e->nbinds);
  for (int i = 0; i < e->nargs; i++) dig_expr(d, e->args[i]);
  nz_buf_putc(d, '>');
}

static void digest(NzBuf *d, const LcuProgram *p) {
  for (int i = 0; i < p->nfuncs; i++) {
    nz_buf_printf(d, "F%d", p->funcs[i]->nslots);
    dig_binders(d, p->funcs[i]->params, p->funcs[i]->nparams);
    dig_expr(d, p->funcs[i]->body);
  }
  for (int i = 0; i < p->nkernels; i++) {
    const LcuKernel *k = p->kernels[i];
    nz_buf_printf(d, "K%d", k->nslots);
    dig_binders(d, k->params, k->nparams);
    dig_binders(d, k->rets, k->nrets);
    for (int s = 0; s < k->nsoacs; s++) {
      const LcuSoac *so = &k->soacs[s];
      nz_buf_printf(d, "S%d %d", so->size.slot, so->outlen.slot);
      dig_binders(d, so->binds, so->nbinds);
      for (int t = 0; t < so->nthunks; t++) {
        nz_buf_printf(d, "T%d", so->thunks[t]->nslots);
        dig_binders(d, so->thunks[t]->usings, so->thunks[t]->nusing);
        dig_binders(d, so->thunks[t]->params, so->thunks[t]->nparams);
        dig_expr(d, so->thunks[t]->body);
      }
    }
  }
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs from the repository root (tests/run.sh does). */
static void test_goldens(void) {
  DIR *dir = opendir("tests/lcu");
  if (!dir) {
    printf("not ok goldens: cannot open tests/lcu (run from the repository root)\n");
    unit_failures++;
    return;
  }
  NZ_VEC(char *) files = {0};
  struct dirent *de;
  while ((de = readdir(dir))) {
    size_t n = strlen(de->d_name);
    if (n > 4 && !strcmp(de->d_name + n - 4, ".lcu")) nz_vec_push(files, nz_xstrdup(de->d_name));
  }
  closedir(dir);
  qsort(files.v, (size_t)files.n, sizeof(char *), by_name);
  int checked = 0;
  for (int i = 0; i < files.n; i++) {
    char path[512], name[600], buf[4096];
    snprintf(path, sizeof path, "tests/lcu/%s", files.v[i]);
    NzSource *src = nz_source_read(path);
    capture_begin();
    LcuProgram *p = src ? lcu_parse(src) : NULL;
    capture_end(buf, sizeof buf);
    if (!p) { /* syntax-error goldens are the parser's business */
      nz_source_free(src);
      free(files.v[i]);
      continue;
    }
    int errs = check_capture(p, buf, sizeof buf);
    int is_err_test = !strncmp(files.v[i], "check_err_", 10);
    snprintf(name, sizeof name, "goldens.%s", files.v[i]);
    if (is_err_test) {
      CHECK(name, errs > 0);
    } else if (errs == 0) {
      checked++;
      NzBuf d1 = {0}, d2 = {0};
      digest(&d1, p);
      int again = lcu_check(p);
      digest(&d2, p);
      int same = d1.len == d2.len && memcmp(d1.s, d2.s, d1.len) == 0;
      int viol = layout_violations(p);
      CHECK(name, again == 0 && same && viol == 0);
      nz_buf_free(&d1);
      nz_buf_free(&d2);
    }
    lcu_program_free(p);
    nz_source_free(src);
    free(files.v[i]);
  }
  nz_vec_free(files);
  CHECK("goldens.some checked", checked >= 2);
}

/* ---- malformed trees: errors, never a crash ---- */

static LcuThunk *mk_unit(LcuProgram *p) { return TH(p, "i", lcu_tuple(p, 0, NULL, L0), ""); }
static LcuThunk *mk_select_arrays(LcuProgram *p) {
  LcuExpr *a[3] = {lcu_bool(p, 1, L0), V(p, "xs"), V(p, "xs")};
  return TH(p, "i", lcu_index(p, lcu_prim(p, LP_SELECT, 3, a, L0), V(p, "i"), L0), "xs");
}
static LcuThunk *mk_if_arrays(LcuProgram *p) {
  LcuExpr *c = lcu_if(p, lcu_bool(p, 1, L0), V(p, "xs"), V(p, "xs"), L0);
  return TH(p, "i", lcu_index(p, c, V(p, "i"), L0), "xs");
}
static LcuThunk *mk_array_lit(LcuProgram *p) {
  LcuExpr *e = lcu_expr_new(p, LE_ARRAY, L0);
  e->opty = T(LT_INT);
  return TH(p, "i", lcu_index(p, e, V(p, "i"), L0), "");
}
static LcuThunk *mk_let_array(LcuProgram *p) {
  return TH(p, "i", LET(p, "ys", V(p, "xs"), IX(p, "ys", V(p, "i"))), "xs");
}
static LcuThunk *mk_segdes_index(LcuProgram *p) { return TH(p, "i", IX(p, "sd", V(p, "i")), "sd"); }
static LcuThunk *mk_param_shadows(LcuProgram *p) { return TH(p, "n", V(p, "n"), "n"); }

static void test_malformed(void) {
  const LcuType *u = lcu_type_unit();
  /* Zero-component thunk results: no binder, operator or predicate fits. */
  expect_error("bad.reduce unit",
               one_soac(LS_REDUCE, "a", mk_unit, "iadd", SZ(LZ_VAR, "n", 0), A(LT_INT)), 2,
               "REDUCE has 1 reduction operator, but its thunk returns 0 components (())");
  expect_error("bad.map unit", one_soac(LS_MAP, "a", mk_unit, "", SZ(LZ_VAR, "n", 0), u), 1,
               "MAP binds 1 name, but its thunk returns 0 components");
  LcuProgram *p = one_soac(LS_PARTITION, "a", mk_unit, "", SZ(LZ_VAR, "n", 0), u);
  p->kernels[0]->soacs[0].thunks[1] = TH(p, "", lcu_bool(p, 1, L0), "");
  p->kernels[0]->soacs[0].nthunks = 2;
  expect_error("bad.partition unit", p, 1, "PARTITION binds 1 name, but needs 0");
  /* Shapes the parser never builds. */
  p = one_soac(LS_FILTER, "a", mk_xs, "", SZ(LZ_VAR, "n", 0), A(LT_INT));
  expect_error("bad.filter one thunk", p, 1, "FILTER takes 2 thunks, but has 1");
  p = one_soac(LS_MAP, "a", mk_xs, "iadd", SZ(LZ_NONE, NULL, 0), A(LT_INT));
  expect_error("bad.map no size, rops", p, 2, "MAP needs the size");
  p = one_soac(LS_ONCE, "a", mk_xs, "", SZ(LZ_VAR, "n", 0), A(LT_INT));
  p->kernels[0]->soacs[0].outlen = SZ(LZ_LIT, NULL, 3);
  /* ONCE's thunk has a parameter, a size, an output length, and binds an int as [int]. */
  expect_error("bad.once size and into", p, 4, "only PERMUTE takes an output length");
  p = one_soac(LS_MAP, "a", mk_xs, "", SZ(LZ_VAR, "m", 0), A(LT_INT));
  expect_error("bad.unknown size", p, 1, "unknown variable 'm' in the size of MAP");
  p = one_soac(LS_SEGREDUCE, "a", mk_xs, "iadd", SZ(LZ_LIT, NULL, 4), A(LT_INT));
  expect_error("bad.seg literal", p, 1, "but its size is the literal 4");
  /* Arrays where a thunk computes scalars. */
  expect_error("bad.select arrays",
               one_soac(LS_MAP, "a", mk_select_arrays, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "'select' gives [int] here, but a thunk computes scalars");
  expect_error("bad.if arrays",
               one_soac(LS_MAP, "a", mk_if_arrays, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 2,
               "'xs' is [int], but a thunk computes scalars");
  expect_error("bad.array literal in thunk",
               one_soac(LS_MAP, "a", mk_array_lit, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "array literals are CPU-only");
  expect_error("bad.let array in thunk",
               one_soac(LS_MAP, "a", mk_let_array, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "'xs' is [int], but a thunk computes scalars");
  expect_error("bad.index segdes",
               one_soac(LS_MAP, "a", mk_segdes_index, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "only arrays can be indexed, but this is segdes");
  expect_error("bad.param shadows capture",
               one_soac(LS_MAP, "a", mk_param_shadows, "", SZ(LZ_VAR, "n", 0), A(LT_INT)), 1,
               "thunk parameter 'n' has the name of a captured variable");
  /* Declarations: nested tuples, tuple kernel parameters, 1-tuples, empty literals. */
  const LcuType *pair = TUP2(T(LT_INT), T(LT_INT));
  const LcuType *nested = TUP2(pair, T(LT_INT));
  p = lcu_program_new(NULL);
  const char *nm[] = {"q"};
  const LcuType *ty[] = {nested};
  func(p, "main", 1, nm, ty, T(LT_INT), I(p, 0));
  expect_error("bad.nested param", p, 1, "has type ((int, int), int), but tuples must be flat");
  p = lcu_program_new(NULL);
  trivial_main(p);
  const LcuType *kty[] = {pair};
  LcuKernel *k = kernel(p, "k", 1, nm, kty, pair);
  rets(p, k, "q");
  expect_error("bad.tuple kernel param", p, 1, "but kernel parameters are scalars");
  p = lcu_program_new(NULL);
  LcuExpr *one = lcu_expr_new(p, LE_TUPLE, L0);
  one->nargs = 1;
  one->args = lcu_exprs(p, 1);
  one->args[0] = I(p, 1);
  func(p, "main", 0, NULL, NULL, T(LT_INT), one);
  expect_error("bad.one-tuple", p, 1, "a tuple cannot have exactly one component");
  p = lcu_program_new(NULL);
  func(p, "main", 0, NULL, NULL, A(LT_INT), lcu_expr_new(p, LE_ARRAY, L0));
  expect_error("bad.empty literal", p, 1, "an empty array literal needs a base element type");
  p = lcu_program_new(NULL);
  LcuExpr *mixed = lcu_expr_new(p, LE_ARRAY, L0);
  mixed->nargs = 2;
  mixed->args = lcu_exprs(p, 2);
  mixed->args[0] = I(p, 1);
  mixed->args[1] = F(p, 1.0);
  func(p, "main", 0, NULL, NULL, A(LT_INT), mixed);
  expect_error("bad.mixed literal", p, 1,
               "array elements must have one type, but element 1 is int and element 2 is float");
  p = lcu_program_new(NULL);
  LcuExpr *bad_arity = lcu_prim(p, LP_MAX, 1, (LcuExpr *[]){I(p, 1)}, L0);
  func(p, "main", 0, NULL, NULL, T(LT_INT), bad_arity);
  expect_error("bad.prim arity", p, 1, "primitive 'max' takes 2 operands, but 1 is given");
}

int main(void) {
  test_dot();
  test_func_slots();
  test_calls();
  test_thunk_frame();
  test_opty();
  test_soac_binders();
  test_errors();
  test_malformed();
  test_goldens();
  nz_intern_free_all();
  return 0;
}
