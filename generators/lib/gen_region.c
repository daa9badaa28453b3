/* gen_region.c — turns a plan (gen_plan.c) into a λcu program: one kernel per
 * invocation applying its one SOAC, and `main` running them in order and
 * returning every result nobody reads. Thunk bodies are random but safe:
 * reads at the thunk's own index into arrays of the iterated length, guarded
 * reads in ONCE, literal non-zero divisors, valid permutations, and floats
 * kept bounded (convex combinations; fadd sums of values squashed into [-1, 1]
 * and rounded to multiples of 2^-10, which makes every sum exact). */
#include "gen_plan.h"

static const NzLoc noloc = {0};

typedef struct {
  LcuProgram *p;
  GenPlan *P;
  int indexed;         /* the thunk has an index parameter `i` */
  const char *idx;     /* its name */
  NZ_VEC(LcuBinder) using; /* captures, in order of first use */
  int ntemps;          /* thunk-local names t1, t2, ... */
  int no_copy;         /* never return a bare read (a MAP copying an array is dull) */
} Tx;

static void capture(Tx *t, const char *name) {
  name = nz_intern_cstr(name);
  for (int k = 0; k < t->using.n; k++)
    if (t->using.v[k].name == name) return;
  nz_vec_push(t->using, lcu_binder(name, NULL, noloc));
}

static const char *temp(Tx *t) {
  char b[16];
  snprintf(b, sizeof b, "t%d", ++t->ntemps);
  return nz_intern_cstr(b);
}

static LcuExpr *var(Tx *t, const char *name) { return lcu_var(t->p, name, noloc); }
static LcuExpr *ilit(Tx *t, int v) { return lcu_int(t->p, v, noloc); }
static LcuExpr *flit(Tx *t, double v) { return lcu_float(t->p, v, noloc); }
static LcuExpr *bin(Tx *t, LcuPrim op, LcuExpr *a, LcuExpr *b) { return lcu_prim2(t->p, op, a, b, noloc); }
static LcuExpr *un(Tx *t, LcuPrim op, LcuExpr *a) { return lcu_prim(t->p, op, 1, &a, noloc); }
static LcuExpr *zero(Tx *t, LcuTypeKind k) { return k == LT_INT ? ilit(t, 0) : flit(t, 0.0); }
static LcuExpr *len(Tx *t, const char *a) { return un(t, LP_LENGTH, var(t, a)); }

/* let t = e in i2f(round(t / (1.0 + abs(t)) * 1024.0)) / 1024.0: a multiple of
 * 2^-10 in [-1, 1]. Sums of such values stay below the array length and are
 * exact in a double whatever the order of addition (below 2^43 terms), so
 * fusions that reorder a sum (PERMUTE into REDUCE) or a parallel backend
 * cannot change a generated program's result in the last bit. */
static LcuExpr *squash(Tx *t, LcuExpr *e) {
  const char *n = temp(t);
  LcuExpr *sq = bin(t, LP_DIV, var(t, n), bin(t, LP_ADD, flit(t, 1.0), un(t, LP_ABS, var(t, n))));
  LcuExpr *q = un(t, LP_I2F, un(t, LP_ROUND, bin(t, LP_MUL, sq, flit(t, 1024.0))));
  return lcu_let1(t->p, n, e, bin(t, LP_DIV, q, flit(t, 1024.0)), noloc);
}

/* The value v as seen from the thunk: a[i] for an array of the iterated class,
 * `if #a > 0 then a[#a - 1] else 0` in a ONCE, a scalar as itself. */
static LcuExpr *read_val(Tx *t, int v) {
  GenVal *x = &t->P->vals.v[v];
  capture(t, x->name);
  if (!x->is_array) return var(t, x->name);
  if (t->indexed) return lcu_index(t->p, var(t, x->name), var(t, t->idx), noloc);
  LcuExpr *last = lcu_index(t->p, var(t, x->name), bin(t, LP_SUB, len(t, x->name), ilit(t, 1)), noloc);
  return lcu_if(t->p, bin(t, LP_GT, len(t, x->name), ilit(t, 0)), last, zero(t, x->elem), noloc);
}

static LcuExpr *convert(Tx *t, LcuExpr *e, LcuTypeKind from, LcuTypeKind to) {
  if (from == to) return e;
  if (to == LT_FLOAT) /* ints wrap to anything: keep three digits */
    return bin(t, LP_MUL, un(t, LP_I2F, bin(t, LP_MOD, e, ilit(t, 1000))), flit(t, 0.1));
  if (gen_chance(t->P, 0.5)) return un(t, LP_B2I, bin(t, LP_GT, e, flit(t, 0.0)));
  return un(t, LP_TRUNC, bin(t, LP_MUL, un(t, LP_SIN, e), flit(t, 100.0)));
}

static LcuExpr *combine(Tx *t, LcuExpr *a, LcuExpr *b, LcuTypeKind ty) {
  GenPlan *P = t->P;
  if (ty == LT_FLOAT) {
    switch (gen_below(P, 5)) { /* each at most max(|a|, |b|) */
    case 0: return bin(t, LP_MUL, bin(t, LP_ADD, a, b), flit(t, 0.5));
    case 1: return bin(t, LP_MAX, a, b);
    case 2: return bin(t, LP_MIN, a, b);
    case 3: return bin(t, LP_SUB, bin(t, LP_MUL, a, flit(t, 0.75)), bin(t, LP_MUL, b, flit(t, 0.25)));
    default: { /* let ta = a in let tb = b in if ta > tb then ta else tb * 0.5 */
      const char *ta = temp(t), *tb = temp(t);
      LcuExpr *c = lcu_if(t->p, bin(t, LP_GT, var(t, ta), var(t, tb)), var(t, ta),
                          bin(t, LP_MUL, var(t, tb), flit(t, 0.5)), noloc);
      return lcu_let1(t->p, ta, a, lcu_let1(t->p, tb, b, c, noloc), noloc);
    }
    }
  }
  switch (gen_below(P, 6)) { /* ints wrap: anything without division by a variable */
  case 0: return bin(t, LP_ADD, a, b);
  case 1: return bin(t, LP_SUB, a, b);
  case 2: return bin(t, LP_ADD, bin(t, LP_MUL, a, ilit(t, 3)), b);
  case 3: return bin(t, LP_MAX, a, b);
  case 4: return bin(t, LP_MIN, a, b);
  default: return bin(t, LP_XOR, a, b);
  }
}

static LcuExpr *unary(Tx *t, LcuExpr *e, LcuTypeKind ty) {
  if (ty == LT_FLOAT) {
    switch (gen_below(t->P, 5)) {
    case 0: return bin(t, LP_MUL, un(t, LP_SIN, e), flit(t, 10.0));
    case 1: return un(t, LP_SQRT, un(t, LP_ABS, e));
    case 2: return bin(t, LP_ADD, bin(t, LP_MUL, e, flit(t, 0.5)), flit(t, 1.0));
    case 3: return bin(t, LP_SUB, un(t, LP_ABS, e), flit(t, 1.0));
    default: return un(t, LP_NEG, e);
    }
  }
  switch (gen_below(t->P, 5)) {
  case 0: return bin(t, LP_MOD, e, ilit(t, 97));
  case 1: return bin(t, LP_ADD, bin(t, LP_MUL, e, ilit(t, 7)), ilit(t, 1));
  case 2: return bin(t, LP_DIV, e, ilit(t, 3));
  case 3: return lcu_prim2(t->p, LP_RSHIFT, e, ilit(t, 1), noloc);
  default: return bin(t, LP_SUB, e, ilit(t, 1));
  }
}

/* An expression of type ty over values vs[0..n): each read, converted, folded. */
static LcuExpr *value_expr(Tx *t, const int *vs, int n, LcuTypeKind ty) {
  LcuExpr *e = NULL;
  for (int k = 0; k < n; k++) {
    GenVal *x = &t->P->vals.v[vs[k]];
    LcuExpr *r = convert(t, read_val(t, vs[k]), x->elem, ty);
    e = e ? combine(t, e, r, ty) : r;
  }
  if (!e) nz_die("gen: a thunk over no values");
  if ((n == 1 && t->no_copy) || gen_chance(t->P, n == 1 ? 0.6 : 0.4)) e = unary(t, e, ty);
  return e;
}

/* FILTER and PARTITION predicates over the value v, maybe comparing with
 * captured scalars. */
static LcuExpr *predicate(Tx *t, const char *v, LcuTypeKind ty, const int *scalars, int ns) {
  if (ns) {
    LcuExpr *s = value_expr(t, scalars, ns, ty);
    return bin(t, gen_chance(t->P, 0.5) ? LP_GT : LP_LE, var(t, v), s);
  }
  if (ty == LT_FLOAT) {
    switch (gen_below(t->P, 4)) {
    case 0: return bin(t, LP_GT, var(t, v), flit(t, 0.0));
    case 1: return bin(t, LP_LT, var(t, v), flit(t, 2.5));
    case 2: return bin(t, LP_GT, un(t, LP_SIN, var(t, v)), flit(t, 0.0));
    default: return bin(t, LP_NE, var(t, v), flit(t, 0.0));
    }
  }
  switch (gen_below(t->P, 4)) {
  case 0: return bin(t, LP_EQ, bin(t, LP_MOD, var(t, v), ilit(t, 2)), ilit(t, 0));
  case 1: return bin(t, LP_GT, var(t, v), ilit(t, 0));
  case 2: return bin(t, LP_NE, bin(t, LP_MOD, var(t, v), ilit(t, 3)), ilit(t, 1));
  default: return bin(t, LP_LT, var(t, v), ilit(t, 10));
  }
}

static void tx_init(Tx *t, LcuProgram *p, GenPlan *P, int indexed) {
  memset(t, 0, sizeof *t); /* every Tx ends in tx_thunk, which frees the captures */
  t->p = p;
  t->P = P;
  t->indexed = indexed;
  t->idx = "i";
}

/* The thunk { param => body using captures } ({ () => body } without param). */
static LcuThunk *tx_thunk(Tx *t, const char *param, LcuExpr *body) {
  LcuBinder b = lcu_binder(param ? param : "i", NULL, noloc);
  LcuThunk *th = lcu_thunk_new(t->p, param ? 1 : 0, &b, body, t->using.n, t->using.v, noloc);
  nz_vec_free(t->using);
  return th;
}

/* The kernel for node n: parameters are the values it reads. */
static void emit_kernel(LcuProgram *p, GenPlan *P, int n) {
  GenNode *g = &P->nodes.v[n];
  char kname[24];
  snprintf(kname, sizeof kname, "k%d", n + 1);
  LcuKernel *k = lcu_kernel_add(p, kname, noloc);
  k->nparams = g->nin;
  k->params = lcu_binders(p, g->nin);
  for (int a = 0; a < g->nin; a++) {
    GenVal *x = &P->vals.v[g->in[a]];
    k->params[a] = lcu_binder(x->name, x->is_array ? lcu_type_array(x->elem) : lcu_type_base(x->elem), noloc);
  }
  const LcuType *outs[2];
  for (int o = 0; o < g->nout; o++) {
    GenVal *r = &P->vals.v[g->out[o]];
    outs[o] = r->is_array ? lcu_type_array(r->elem) : lcu_type_base(r->elem);
  }
  k->ret = lcu_type_tuple(g->nout, outs);

  LcuSoac s = {0};
  s.kind = g->kind;
  s.size.slot = s.outlen.slot = -1;
  s.nthunks = 1;
  const char *primary = P->vals.v[g->in[0]].name;
  if (g->kind != LS_ONCE) {
    s.size.kind = LZ_LEN;
    s.size.name = nz_intern_cstr(primary);
  }
  Tx t;
  switch (g->kind) {
  case LS_ONCE:
    tx_init(&t, p, P, 0);
    s.thunks[0] = tx_thunk(&t, NULL, value_expr(&t, g->in, g->nin, g->ty));
    break;
  case LS_MAP:
    tx_init(&t, p, P, 1);
    t.no_copy = 1;
    s.thunks[0] = tx_thunk(&t, "i", value_expr(&t, g->in, g->nin, g->ty));
    break;
  case LS_PERMUTE: {
    tx_init(&t, p, P, 1);
    s.thunks[0] = tx_thunk(&t, "i", value_expr(&t, g->in, g->nin, g->ty));
    /* a true permutation of [0, #p): reversal or rotation (#p > 0 whenever it runs) */
    tx_init(&t, p, P, 1);
    capture(&t, primary);
    LcuExpr *dst;
    if (gen_chance(P, 0.5))
      dst = bin(&t, LP_SUB, bin(&t, LP_SUB, len(&t, primary), ilit(&t, 1)), var(&t, "i"));
    else
      dst = bin(&t, LP_MOD, bin(&t, LP_ADD, var(&t, "i"), ilit(&t, 1 + gen_below(P, 7))), len(&t, primary));
    s.thunks[1] = tx_thunk(&t, "i", dst);
    s.nthunks = 2;
    break;
  }
  case LS_REDUCE:
  case LS_SCAN: {
    tx_init(&t, p, P, 1);
    LcuExpr *e = value_expr(&t, g->in, g->nin, g->ty);
    LcuRop rop;
    if (g->ty == LT_INT) {
      static const LcuRop irops[] = {LR_IADD, LR_IMAX, LR_IMIN, LR_IXOR};
      rop = irops[gen_below(P, 4)];
    } else if (g->kind == LS_SCAN && gen_chance(P, 0.4)) {
      rop = gen_chance(P, 0.5) ? LR_FMAX : LR_FMIN; /* a REDUCE would give ±inf on empty input */
    } else {
      rop = LR_FADD;
      e = squash(&t, e);
    }
    s.thunks[0] = tx_thunk(&t, "i", e);
    s.nrops = 1;
    s.rops = NZ_NEWN(p->arena, LcuRop, 1);
    s.rops[0] = rop;
    break;
  }
  case LS_FILTER:
  case LS_PARTITION: {
    /* arrays feed the value thunk; scalars the value or (half the time) the predicate */
    int *vals = nz_xmalloc(sizeof(int) * (size_t)g->nin), *sc = nz_xmalloc(sizeof(int) * (size_t)g->nin);
    int nv = 0, ns = 0;
    for (int a = 0; a < g->nin; a++) {
      if (a > 0 && !P->vals.v[g->in[a]].is_array && gen_chance(P, 0.5)) sc[ns++] = g->in[a];
      else vals[nv++] = g->in[a];
    }
    tx_init(&t, p, P, 1);
    s.thunks[0] = tx_thunk(&t, "i", value_expr(&t, vals, nv, g->ty));
    tx_init(&t, p, P, 0);
    s.thunks[1] = tx_thunk(&t, "v", predicate(&t, "v", g->ty, sc, ns));
    s.nthunks = 2;
    free(vals);
    free(sc);
    break;
  }
  default: nz_die("gen: cannot emit %s", lcu_soac_name(g->kind));
  }
  LcuSoac *d = lcu_kernel_add_soac(p, k, s.kind, noloc);
  *d = s;
  d->nbinds = g->nout;
  d->binds = lcu_binders(p, g->nout);
  k->nrets = g->nout;
  k->rets = lcu_binders(p, g->nout);
  for (int o = 0; o < g->nout; o++) {
    d->binds[o] = lcu_binder(P->vals.v[g->out[o]].name, NULL, noloc);
    k->rets[o] = lcu_binder(P->vals.v[g->out[o]].name, NULL, noloc);
  }
}

static const LcuType *val_type(const GenVal *x) {
  return x->is_array ? lcu_type_array(x->elem) : lcu_type_base(x->elem);
}

static void emit_main(LcuProgram *p, GenPlan *P) {
  LcuFunc *f = lcu_func_add(p, "main", noloc);
  NZ_VEC(int) ins = {0};
  NZ_VEC(int) sinks = {0};
  for (int v = 0; v < P->vals.n; v++) {
    GenVal *x = &P->vals.v[v];
    if (x->producer < 0 && x->nconsumers) nz_vec_push(ins, v);
    if (x->producer >= 0 && !x->nconsumers) nz_vec_push(sinks, v);
  }
  f->nparams = ins.n;
  f->params = lcu_binders(p, ins.n);
  for (int a = 0; a < ins.n; a++) {
    GenVal *x = &P->vals.v[ins.v[a]];
    f->params[a] = lcu_binder(x->name, val_type(x), noloc);
  }
  const LcuType **rt = nz_xmalloc(sizeof(LcuType *) * (size_t)(sinks.n ? sinks.n : 1));
  LcuExpr **re = lcu_exprs(p, sinks.n);
  for (int k = 0; k < sinks.n; k++) {
    GenVal *x = &P->vals.v[sinks.v[k]];
    rt[k] = val_type(x);
    re[k] = lcu_var(p, x->name, noloc);
  }
  f->ret = lcu_type_tuple(sinks.n, rt);
  LcuExpr *body = lcu_tuple(p, sinks.n, re, noloc);
  for (int n = P->nodes.n - 1; n >= 0; n--) {
    GenNode *g = &P->nodes.v[n];
    LcuExpr **args = lcu_exprs(p, g->nin);
    for (int a = 0; a < g->nin; a++) args[a] = lcu_var(p, P->vals.v[g->in[a]].name, noloc);
    char kname[24];
    snprintf(kname, sizeof kname, "k%d", n + 1);
    LcuExpr *run = lcu_run(p, kname, g->nin, args, noloc);
    LcuBinder bs[2];
    for (int o = 0; o < g->nout; o++) bs[o] = lcu_binder(P->vals.v[g->out[o]].name, NULL, noloc);
    body = lcu_let(p, g->nout, bs, run, body, noloc);
  }
  f->body = body;
  free(rt);
  nz_vec_free(ins);
  nz_vec_free(sinks);
}

static void fill_stats(const GenPlan *P, GenStats *st) {
  memset(st, 0, sizeof *st);
  st->invocations = P->nodes.n;
  for (int n = 0; n < P->nodes.n; n++) {
    const GenNode *g = &P->nodes.v[n];
    st->per_kind[g->kind]++;
    if (g->level + 1 > st->depth) st->depth = g->level + 1;
    if (g->nin > st->max_fanin) st->max_fanin = g->nin;
  }
  for (int v = 0; v < P->vals.n; v++) {
    const GenVal *x = &P->vals.v[v];
    if (x->producer < 0 && x->nconsumers) st->inputs++;
    if (x->producer >= 0 && !x->nconsumers) st->outputs++;
    if (x->producer >= 0 && x->nconsumers > st->max_fanout) st->max_fanout = x->nconsumers;
    if (x->nconsumers >= 2) st->shared_values++;
  }
}

LcuProgram *gen_region_stats(const GenSpec *spec, GenStats *st) {
  char *err = NULL;
  if (gen_spec_validate(spec, &err) != 0) nz_die("gen_region: invalid spec: %s", err);
  GenPlan P;
  gen_plan_build(&P, spec);
  LcuProgram *p = lcu_program_new(NULL);
  for (int n = 0; n < P.nodes.n; n++) emit_kernel(p, &P, n);
  emit_main(p, &P);
  if (st) fill_stats(&P, st);
  gen_plan_free(&P);
  return p;
}

LcuProgram *gen_region(const GenSpec *spec) { return gen_region_stats(spec, NULL); }

void gen_stats_print(NzBuf *b, const GenStats *st) {
  nz_buf_printf(b, "// invocations %d, depth %d, inputs %d, outputs %d\n", st->invocations,
                st->depth, st->inputs, st->outputs);
  nz_buf_printf(b, "// max fan-in %d, max fan-out %d, values read twice or more %d\n",
                st->max_fanin, st->max_fanout, st->shared_values);
  nz_buf_puts(b, "//");
  for (int k = 0; k < LS__COUNT; k++)
    if (st->per_kind[k]) nz_buf_printf(b, " %s %d", lcu_soac_name((LcuSoacKind)k), st->per_kind[k]);
  nz_buf_putc(b, '\n');
}
