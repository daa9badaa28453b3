/* flan_opt.c — the Flan optimiser: contraction, dead code and shape analysis on the
 * flattener's output, before fusion (DESIGN.md "Pipeline": flatten → Flan → optimise →
 * lower). Flan is the subset of λcu the flattener writes (every kernel one SOAC, every
 * run's operands variables, names unique per function), so each pass here reads and
 * writes λcu and `lcu_check` is the invariant checker after it; `nessie emit
 * --stage=flan` prints the program before these passes, `--stage=lcu` after.
 *
 * Three passes, repeated while they change something (at most three rounds):
 *
 *  1. Constants into kernels. A kernel run at one site whose operand is a variable bound
 *     to a literal gets the literal in its thunks (the parameter goes); the thunks are
 *     folded; a REDUCE whose thunk became its operator's identity (a check `REDUCE bor`
 *     of `46337 == 0`) is that literal, and `fail_if` of a false literal and a CPU `if`
 *     of a literal disappear.
 *  2. Shapes and common subexpressions (global value numbering). Every CPU value gets a
 *     value number: literals by value, pure primitives by operator and operands
 *     (integer arithmetic folded), a kernel run by its kernel's text up to renaming and
 *     its operands (so two runs of equal kernels on equal operands are one). Lengths are
 *     value numbers too: `#x` of a MAP's result is the MAP's size, of a segmented
 *     reduction the segments of its descriptor, of an array literal its element count;
 *     `#sd` and `seg_total(sd)` of `make_segdes([n])` are 1 and n; the outputs of one
 *     FILTER have one length. Across CPU functions, facts about the parameters (which
 *     parameters, lengths, segment counts and totals are equal, or a literal) hold when
 *     every call site establishes them; recursive functions (the lifted quicksort) are
 *     solved by iteration from "no facts" and a fact is kept only when the sites prove
 *     it under the facts assumed, a fixpoint, so the assumption is sound by induction.
 *     Then every use of a variable is renamed to the first variable in scope holding
 *     its value number, and a let whose right-hand side is already held becomes a copy.
 *     So the sizes of kernels that iterate over equally many elements become the same
 *     variable, which is what fusion's iteration-space equality looks at
 *     (fusion/fus_region.c, size_key), and duplicated lengths, segment descriptors and
 *     kernels are computed once.
 *  3. Dead code. A let none of whose names is used and whose right-hand side cannot
 *     fault or have an effect goes; kernels no longer run go.
 *
 * Effects and faults keep their order: nothing moves, a let is only removed (dead or a
 * duplicate of a value computed before it on every path) or simplified. */
#include "flan_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ value numbers */

enum {
  VN_FRESH,  /* an unknown value (aux: a counter) */
  VN_CONST,  /* a literal: aux type kind, ptr unused, args[0..1] its bits */
  VN_PRIM,   /* aux prim, ptr operand type */
  VN_TUPLE,
  VN_ARRAY,  /* a literal array; ptr its element type */
  VN_INDEX,
  VN_PROJ,   /* component aux of args[0] */
  VN_RUN,    /* output aux of the kernel whose canonical text is ptr, on args */
  VN_LEN,    /* the length of an array, the segments of a segdes */
  VN_TOTAL,  /* the elements of a segdes */
  VN_PARAM,  /* a class of a function's parameter terms: ptr the function, aux (round, class) */
  VN_PHI,    /* the value of `if args[0] then args[1] else args[2]` */
};

typedef struct {
  int kind;
  int64_t aux;
  const void *ptr;
  int nargs, args0; /* operands: pool[args0 .. args0 + nargs) */
} VNode;

typedef struct Opt Opt;

/* One call site's view of a function's parameter terms (term t: parameter t / 3, what
 * t % 3: the value, its length or segments, its total). */
enum { T_VAL, T_LEN, T_TOTAL };

typedef struct {
  LcuFunc *f;
  int nterms;
  int *cls;        /* assumed: class of each term (the smallest term of the class) */
  int *cst;        /* assumed: the literal's value number, or -1 */
  NZ_VEC(int *) sites; /* this round's call sites: a value number per term */
  /* Its results' terms (component c's value, length, total: 3c + what), assumed and as
   * this round's analysis of its body found them: the class (the smallest term equal to
   * it), the parameter term it is (or -1), the literal it is (or -1). */
  int nrterms;
  int *rcls, *rpar, *rcst;
  int *ocls, *opar, *ocst;
} FnFacts;

struct Opt {
  LcuProgram *p;
  /* value numbers */
  NZ_VEC(VNode) nodes;
  NZ_VEC(int) pool;
  int *hash;
  size_t hcap;
  int64_t fresh;
  NZ_VEC(int) len, total; /* per value number: its length / total fact, or -1 */
  /* scope: variables (by name) and the variable first holding each value number */
  NzScopeIndex vars;
  NZ_VEC(int) varvn;
  NZ_VEC(int) avail_top; /* per value number: latest avail entry, or -1 */
  NZ_VEC(int) avail_vn, avail_prev;
  NZ_VEC(const char *) avail_name;
  /* functions */
  FnFacts *facts;
  int round;
  const char **canon; /* per kernel: its text up to renaming */
  NzScopeIndex kidx, fidx; /* kernels, functions by name (index_program) */
  NzScopeIndex ccache;      /* kernel texts computed so far, by kernel name */
  NZ_VEC(const char *) ctext;
  bool rewrite;
  int changes;
};

static uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}

static uint64_t node_hash(const Opt *o, int kind, int64_t aux, const void *ptr, int n, const int *args) {
  uint64_t h = mix((uint64_t)kind, (uint64_t)aux);
  h = mix(h, (uint64_t)(uintptr_t)ptr);
  for (int i = 0; i < n; i++) h = mix(h, (uint64_t)args[i]);
  (void)o;
  return h;
}

static void rehash(Opt *o) {
  free(o->hash);
  o->hcap = o->hcap ? o->hcap * 2 : 1024;
  o->hash = nz_xmalloc(o->hcap * sizeof(int));
  for (size_t i = 0; i < o->hcap; i++) o->hash[i] = -1;
  for (int id = 0; id < o->nodes.n; id++) {
    const VNode *v = &o->nodes.v[id];
    size_t i = node_hash(o, v->kind, v->aux, v->ptr, v->nargs, o->pool.v + v->args0) & (o->hcap - 1);
    while (o->hash[i] >= 0) i = (i + 1) & (o->hcap - 1);
    o->hash[i] = id;
  }
}

/* The value number of the node (kind, aux, ptr, args): equal nodes, equal numbers. */
static int vn_node(Opt *o, int kind, int64_t aux, const void *ptr, int n, const int *args) {
  if ((size_t)(o->nodes.n + 1) * 2 > o->hcap) rehash(o);
  size_t i = node_hash(o, kind, aux, ptr, n, args) & (o->hcap - 1);
  for (; o->hash[i] >= 0; i = (i + 1) & (o->hcap - 1)) {
    const VNode *v = &o->nodes.v[o->hash[i]];
    if (v->kind == kind && v->aux == aux && v->ptr == ptr && v->nargs == n &&
        (n == 0 || !memcmp(o->pool.v + v->args0, args, sizeof(int) * (size_t)n)))
      return o->hash[i];
  }
  VNode v = {kind, aux, ptr, n, o->pool.n};
  for (int k = 0; k < n; k++) nz_vec_push(o->pool, args[k]);
  int id = o->nodes.n;
  nz_vec_push(o->nodes, v);
  nz_vec_push(o->len, -1);
  nz_vec_push(o->total, -1);
  nz_vec_push(o->avail_top, -1);
  o->hash[i] = id;
  return id;
}

static int vn_fresh(Opt *o) { return vn_node(o, VN_FRESH, o->fresh++, NULL, 0, NULL); }

static int vn_const(Opt *o, LcuTypeKind k, int64_t bits) {
  uint64_t u = (uint64_t)bits;
  int a[2] = {(int)(int32_t)(uint32_t)u, (int)(int32_t)(uint32_t)(u >> 32)};
  return vn_node(o, VN_CONST, k, NULL, 2, a);
}
static int vn_int(Opt *o, int32_t v) { return vn_const(o, LT_INT, (int64_t)v); }
static int vn_bool(Opt *o, int b) { return vn_const(o, LT_BOOL, b != 0); }

static bool is_const(const Opt *o, int vn, LcuTypeKind k) {
  return o->nodes.v[vn].kind == VN_CONST && o->nodes.v[vn].aux == k;
}
static int32_t const_int(const Opt *o, int vn) { return o->pool.v[o->nodes.v[vn].args0]; }

/* (vn_node grows the fact tables: its result is stored after the call) */
static int vn_len(Opt *o, int x) {
  if (o->len.v[x] < 0) {
    int n = vn_node(o, VN_LEN, 0, NULL, 1, &x);
    o->len.v[x] = n;
  }
  return o->len.v[x];
}
static int vn_total(Opt *o, int x) {
  if (o->total.v[x] < 0) {
    int n = vn_node(o, VN_TOTAL, 0, NULL, 1, &x);
    o->total.v[x] = n;
  }
  return o->total.v[x];
}
/* Records that array or segdes x has length (segments) n, unless known already. */
static void set_len(Opt *o, int x, int n) {
  if (o->len.v[x] < 0) o->len.v[x] = n;
}

/* ------------------------------------------------------------------ scopes */

static int var_vn(Opt *o, const char *name) {
  int e = nz_scope_find(&o->vars, name, o->vars.n);
  return e < 0 ? -1 : o->varvn.v[e];
}

static void bind_var(Opt *o, const char *name, int vn) {
  nz_scope_push(&o->vars, name);
  nz_vec_push(o->varvn, vn);
  if (o->avail_top.v[vn] < 0) { /* the first holder of a value is its representative */
    nz_vec_push(o->avail_vn, vn);
    nz_vec_push(o->avail_name, name);
    nz_vec_push(o->avail_prev, o->avail_top.v[vn]);
    o->avail_top.v[vn] = o->avail_vn.n - 1;
  }
}

typedef struct {
  int vars, avail;
} Mark;
static Mark mark(const Opt *o) { return (Mark){o->vars.n, o->avail_vn.n}; }
static void pop_to(Opt *o, Mark m) {
  nz_scope_pop_to(&o->vars, m.vars);
  o->varvn.n = m.vars;
  while (o->avail_vn.n > m.avail) {
    int i = --o->avail_vn.n;
    o->avail_top.v[o->avail_vn.v[i]] = o->avail_prev.v[i];
  }
  o->avail_name.n = o->avail_prev.n = m.avail;
}

static const char *holder(const Opt *o, int vn) {
  int e = o->avail_top.v[vn];
  return e < 0 ? NULL : o->avail_name.v[e];
}

/* ---------------------------------------------------------------- kernels */

static const LcuSoac *soac0(const LcuKernel *k) { return k->nsoacs == 1 ? &k->soacs[0] : NULL; }

static void collect_bound(const LcuExpr *e, NzScopeIndex *set) {
  if (e->kind == LE_LET)
    for (int i = 0; i < e->nbinds; i++) nz_scope_push(set, e->binds[i].name);
  for (int i = 0; i < e->nargs; i++) collect_bound(e->args[i], set);
}

/* A kernel's text with its own name left out and every name it binds renamed by first
 * occurrence: equal texts, equal kernels. */
static const char *kernel_canon(Opt *o, const LcuKernel *k) {
  NzScopeIndex bound = {0};
  for (int i = 0; i < k->nparams; i++) nz_scope_push(&bound, k->params[i].name);
  for (int s = 0; s < k->nsoacs; s++) {
    const LcuSoac *so = &k->soacs[s];
    for (int b = 0; b < so->nbinds; b++) nz_scope_push(&bound, so->binds[b].name);
    for (int t = 0; t < so->nthunks; t++) {
      for (int q = 0; q < so->thunks[t]->nparams; q++) nz_scope_push(&bound, so->thunks[t]->params[q].name);
      collect_bound(so->thunks[t]->body, &bound);
    }
  }
  NzBuf raw = {0};
  for (int i = 0; i < k->nparams; i++) {
    lcu_type_print(&raw, k->params[i].ty);
    nz_buf_printf(&raw, " %s;", k->params[i].name);
  }
  for (int s = 0; s < k->nsoacs; s++) lcu_print_soac(&raw, &k->soacs[s]), nz_buf_putc(&raw, ';');
  for (int r = 0; r < k->nrets; r++) nz_buf_printf(&raw, " %s", k->rets[r].name);
  NzBuf out = {0};
  NzScopeIndex seen = {0};
  const char *s = raw.s ? raw.s : "";
  while (*s) {
    if (*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')) {
      const char *b = s;
      while (*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')) s++;
      const char *id = nz_intern(b, (size_t)(s - b));
      if (nz_scope_find(&bound, id, bound.n) >= 0) {
        int e = nz_scope_find(&seen, id, seen.n);
        if (e < 0) nz_scope_push(&seen, id), e = seen.n - 1;
        char num[16];
        int l = 0;
        do num[l++] = (char)('0' + e % 10), e /= 10;
        while (e);
        nz_buf_putc(&out, '$');
        while (l) nz_buf_putc(&out, num[--l]);
      } else {
        nz_buf_puts(&out, id);
      }
    } else if (*s == '\'' && s[1]) { /* a char literal: copy as is */
      nz_buf_putc(&out, *s++);
      nz_buf_putc(&out, *s++);
    } else {
      nz_buf_putc(&out, *s++);
    }
  }
  const char *c = nz_intern_cstr(out.s ? out.s : "");
  nz_buf_free(&raw), nz_buf_free(&out);
  nz_scope_free(&bound), nz_scope_free(&seen);
  return c;
}

/* Kernels and functions by (interned) name: entry i is kernels[i] / funcs[i]. */
static void index_program(Opt *o) {
  nz_scope_pop_to(&o->kidx, 0);
  nz_scope_pop_to(&o->fidx, 0);
  for (int i = 0; i < o->p->nkernels; i++) nz_scope_push(&o->kidx, o->p->kernels[i]->name);
  for (int i = 0; i < o->p->nfuncs; i++) nz_scope_push(&o->fidx, o->p->funcs[i]->name);
}

static int kernel_index(const Opt *o, const LcuKernel *k) {
  int i = nz_scope_find(&o->kidx, k->name, o->kidx.n);
  return i >= 0 && o->p->kernels[i] == k ? i : -1;
}

/* ------------------------------------------------ folding (thunks and CPU code) */

static bool lit(const LcuExpr *e) { return e->kind >= LE_INT && e->kind <= LE_CHAR; }

static int64_t lit_bits(const LcuExpr *e) {
  switch (e->kind) {
  case LE_INT: return e->lit.i;
  case LE_BOOL: return e->lit.b;
  case LE_CHAR: return e->lit.c;
  default: {
    int64_t b;
    memcpy(&b, &e->lit.f, sizeof b);
    return b;
  }
  }
}

static void become(LcuExpr *e, const LcuExpr *by) {
  const LcuType *ty = e->ty;
  *e = *by;
  if (!e->ty) e->ty = ty;
}

/* op(x, y) of two literals of one base type other than float (int: ints wrapping as
 * λcu's, no division by 0 or -1); *is_bool says whether the result is a bool. Shared
 * by the folding of thunks and the value numbering of CPU code. */
static bool fold_binary(LcuPrim op, bool is_int, int64_t x, int64_t y, int64_t *r, bool *is_bool) {
  uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
  *is_bool = true;
  switch (op) {
  case LP_EQ: *r = x == y; return true;
  case LP_NE: *r = x != y; return true;
  case LP_LT: *r = x < y; return true;
  case LP_LE: *r = x <= y; return true;
  case LP_GT: *r = x > y; return true;
  case LP_GE: *r = x >= y; return true;
  default: break;
  }
  *is_bool = false;
  if (!is_int) return false;
  switch (op) {
  case LP_ADD: *r = (int32_t)(ux + uy); return true;
  case LP_SUB: *r = (int32_t)(ux - uy); return true;
  case LP_MUL: *r = (int32_t)(ux * uy); return true;
  case LP_DIV: *r = x / (y ? y : 1); return y != 0 && y != -1;
  case LP_MOD: *r = x % (y ? y : 1); return y != 0 && y != -1;
  case LP_MIN: *r = x < y ? x : y; return true;
  case LP_MAX: *r = x > y ? x : y; return true;
  default: return false;
  }
}

/* Folds e in place where its operands are literals: integer arithmetic (wrapping, no
 * division by 0 or -1), comparisons, negation, the boolean operators and `if`. */
static void fold1(Opt *o, LcuExpr *e) {
  LcuProgram *p = o->p;
  if (e->kind == LE_IF && lit(e->args[0]) && e->args[0]->kind == LE_BOOL) {
    become(e, e->args[0]->lit.b ? e->args[1] : e->args[2]);
    o->changes++;
    return;
  }
  if (e->kind != LE_PRIM) return;
  LcuExpr *a = e->nargs > 0 ? e->args[0] : NULL, *b = e->nargs > 1 ? e->args[1] : NULL;
  if ((e->prim == LP_ANDALSO || e->prim == LP_ORELSE) && a->kind == LE_BOOL) {
    int absorb = e->prim == LP_ORELSE; /* true || x is true, false && x is false */
    if (a->lit.b == absorb) become(e, a);
    else become(e, b);
    o->changes++;
    return;
  }
  if (e->prim == LP_NOT && a->kind == LE_BOOL) {
    become(e, lcu_bool(p, !a->lit.b, e->loc));
    o->changes++;
    return;
  }
  if (e->nargs != 2 || !lit(a) || !lit(b) || a->kind != b->kind || a->kind == LE_FLOAT) return;
  int64_t v;
  bool is_bool;
  if (!fold_binary(e->prim, a->kind == LE_INT, lit_bits(a), lit_bits(b), &v, &is_bool)) return;
  LcuExpr *r = is_bool ? lcu_bool(p, (int)v, e->loc) : lcu_int(p, (int32_t)v, e->loc);
  become(e, r);
  o->changes++;
}

/* fold1 bottom-up over the whole expression (a thunk body). */
static void fold(Opt *o, LcuExpr *e) {
  for (int i = 0; i < e->nargs; i++) fold(o, e->args[i]);
  fold1(o, e);
}

/* ------------------------------------------- pass 1: constants into kernels */

typedef struct {
  NzScopeIndex names;
  NZ_VEC(LcuExpr *) lits; /* per entry: the literal the name is bound to, or NULL */
  int *sites;             /* per kernel: run sites in the program */
} Consts;

static LcuExpr *const_of(Consts *c, const LcuExpr *e) {
  if (lit(e)) return (LcuExpr *)e;
  if (e->kind != LE_VAR) return NULL;
  int i = nz_scope_find(&c->names, e->name, c->names.n);
  return i < 0 ? NULL : c->lits.v[i];
}

static void subst(LcuExpr *e, const char *name, const LcuExpr *by) {
  if (e->kind == LE_VAR && e->name == name) {
    become(e, by);
    return;
  }
  for (int i = 0; i < e->nargs; i++) subst(e->args[i], name, by);
}

/* Parameter j of kernel k (run at one site) is the literal v: substituted, removed. */
static void forget_canon(Opt *o, const LcuKernel *k) {
  int i = nz_scope_find(&o->ccache, k->name, o->ccache.n);
  if (i >= 0) o->ctext.v[i] = NULL;
}

static void specialise(Opt *o, LcuKernel *k, int j, const LcuExpr *v) {
  const char *name = k->params[j].name;
  forget_canon(o, k);
  for (int s = 0; s < k->nsoacs; s++) {
    LcuSoac *so = &k->soacs[s];
    for (int t = 0; t < so->nthunks; t++) {
      LcuThunk *th = so->thunks[t];
      subst(th->body, name, v);
      int w = 0;
      for (int u = 0; u < th->nusing; u++)
        if (th->usings[u].name != name) th->usings[w++] = th->usings[u];
      th->nusing = w;
      fold(o, th->body);
    }
    LcuSize *zs[2] = {&so->size, &so->outlen};
    for (int z = 0; z < 2; z++)
      if (zs[z]->kind == LZ_VAR && zs[z]->name == name) zs[z]->kind = LZ_LIT, zs[z]->lit = v->lit.i;
  }
  for (int q = j + 1; q < k->nparams; q++) k->params[q - 1] = k->params[q];
  k->nparams--;
}

static bool param_used_elsewhere(const LcuKernel *k, const char *name) {
  for (int r = 0; r < k->nrets; r++)
    if (k->rets[r].name == name) return true;
  return false;
}

/* The literal a one-SOAC REDUCE kernel always returns: its thunk is the identity of its
 * operator (bor of false, band of true, iadd of 0, ...), whatever its size. */
static LcuExpr *constant_reduce(Opt *o, const LcuKernel *k) {
  const LcuSoac *s = soac0(k);
  if (!s || s->kind != LS_REDUCE || s->nrops != 1 || k->nrets != 1) return NULL;
  const LcuExpr *b = s->thunks[0]->body;
  switch (s->rops[0]) {
  case LR_BOR: case LR_BXOR: return b->kind == LE_BOOL && !b->lit.b ? lcu_bool(o->p, 0, b->loc) : NULL;
  case LR_BAND: return b->kind == LE_BOOL && b->lit.b ? lcu_bool(o->p, 1, b->loc) : NULL;
  case LR_IADD: case LR_IOR: case LR_IXOR: return b->kind == LE_INT && b->lit.i == 0 ? lcu_int(o->p, 0, b->loc) : NULL;
  default: return NULL;
  }
}

static LcuExpr *unit(Opt *o, NzLoc loc) { return lcu_tuple(o->p, 0, NULL, loc); }

static bool is_fail(const LcuExpr *e) {
  return e->kind == LE_PRIM && (e->prim == LP_FAIL_IF || e->prim == LP_FAIL_IF_G);
}

static void consts_walk(Opt *o, Consts *c, LcuExpr *e) {
  if (e->kind == LE_IF) {
    LcuExpr *k = const_of(c, e->args[0]);
    if (k && k->kind == LE_BOOL) {
      become(e, k->lit.b ? e->args[1] : e->args[2]);
      o->changes++;
      consts_walk(o, c, e);
      return;
    }
  }
  if (is_fail(e)) {
    LcuExpr *k = const_of(c, e->args[0]);
    if (k && k->kind == LE_BOOL && !k->lit.b) {
      become(e, unit(o, e->loc));
      o->changes++;
      return;
    }
  }
  if (e->kind == LE_RUN) {
    LcuKernel *k = e->target;
    int ki = k ? kernel_index(o, k) : -1;
    if (ki >= 0 && c->sites[ki] == 1) {
      for (int j = e->nargs - 1; j >= 0; j--) {
        LcuExpr *v = const_of(c, e->args[j]);
        if (!v || v->kind == LE_FLOAT || param_used_elsewhere(k, k->params[j].name)) continue;
        specialise(o, k, j, v);
        for (int q = j + 1; q < e->nargs; q++) e->args[q - 1] = e->args[q];
        e->nargs--;
        o->changes++;
      }
      LcuExpr *r = constant_reduce(o, k);
      if (r) {
        become(e, r);
        c->sites[ki] = 0;
        o->changes++;
      }
    }
    return;
  }
  if (e->kind != LE_LET) {
    for (int i = 0; i < e->nargs; i++) consts_walk(o, c, e->args[i]);
    fold1(o, e);
    return;
  }
  consts_walk(o, c, e->args[0]);
  int m = c->names.n;
  LcuExpr *v = e->nbinds == 1 ? const_of(c, e->args[0]) : NULL;
  for (int i = 0; i < e->nbinds; i++) {
    nz_scope_push(&c->names, e->binds[i].name);
    nz_vec_push(c->lits, v);
  }
  consts_walk(o, c, e->args[1]);
  nz_scope_pop_to(&c->names, m);
  c->lits.n = m;
}

static void count_runs(const LcuExpr *e, Opt *o, int *sites) {
  if (e->kind == LE_RUN && e->target) {
    int ki = kernel_index(o, e->target);
    if (ki >= 0) sites[ki]++;
  }
  for (int i = 0; i < e->nargs; i++) count_runs(e->args[i], o, sites);
}

static void pass_consts(Opt *o) {
  Consts c = {0};
  c.sites = nz_xcalloc((size_t)o->p->nkernels + 1, sizeof(int));
  for (int f = 0; f < o->p->nfuncs; f++) count_runs(o->p->funcs[f]->body, o, c.sites);
  for (int f = 0; f < o->p->nfuncs; f++) consts_walk(o, &c, o->p->funcs[f]->body);
  nz_scope_free(&c.names);
  free(c.lits.v);
  free(c.sites);
}

/* ------------------------------------------- pass 2: value numbering, shapes */

static FnFacts *facts_of(Opt *o, const LcuFunc *f) {
  int i = nz_scope_find(&o->fidx, f->name, o->fidx.n);
  return i >= 0 && o->p->funcs[i] == f ? &o->facts[i] : NULL;
}

/* The value number a let's binder gets for component i of a right-hand side valued r. */
static int component(Opt *o, int r, int i, int n) {
  if (n == 1) return r;
  const VNode *v = &o->nodes.v[r];
  if (v->kind == VN_TUPLE && v->nargs == n) return o->pool.v[v->args0 + i];
  return vn_node(o, VN_PROJ, i, NULL, 1, &r);
}

static int vn_expr(Opt *o, LcuExpr *e);

/* The value numbers of the lengths of a run's outputs (one SOAC kernels). */
static void run_shapes(Opt *o, const LcuExpr *run, const int *args, const int *outs) {
  const LcuKernel *k = run->target;
  const LcuSoac *s = k ? soac0(k) : NULL;
  if (!s) return;
  int arg_of[2] = {-1, -1}; /* size, outlen: the operand's value number */
  const LcuSize *zs[2] = {&s->size, &s->outlen};
  LcuTypeKind zk[2] = {LT_INT, LT_INT};
  for (int z = 0; z < 2; z++) {
    if (zs[z]->kind == LZ_LIT) arg_of[z] = vn_int(o, zs[z]->lit);
    if (zs[z]->kind != LZ_VAR && zs[z]->kind != LZ_LEN) continue;
    for (int j = 0; j < k->nparams && j < run->nargs; j++)
      if (k->params[j].name == zs[z]->name) {
        zk[z] = k->params[j].ty->kind;
        arg_of[z] = zs[z]->kind == LZ_LEN ? vn_len(o, args[j]) : args[j];
      }
  }
  int n = arg_of[0];
  if (n < 0) return;
  int outlen = -1;
  switch (s->kind) {
  case LS_MAP:
  case LS_SCAN: outlen = zk[0] == LT_SEGDES ? -1 : n; break;
  case LS_PERMUTE: outlen = s->outlen.kind != LZ_NONE ? arg_of[1] : n; break;
  case LS_SEGSCAN: outlen = zk[0] == LT_SEGDES ? vn_total(o, n) : -1; break;
  case LS_SEGREDUCE: outlen = zk[0] == LT_SEGDES ? vn_len(o, n) : -1; break;
  case LS_FILTER: outlen = vn_node(o, VN_LEN, 1, NULL, 1, &outs[0]); break;
  default: return;
  }
  if (outlen < 0) return;
  for (int r = 0; r < k->nrets; r++) {
    for (int b = 0; b < s->nbinds; b++)
      if (s->binds[b].name == k->rets[r].name && s->binds[b].ty && s->binds[b].ty->kind == LT_ARRAY)
        set_len(o, outs[r], outlen);
  }
}

/* Records a call site of f: the value numbers of its parameter terms; returns the
 * call's value number from f's assumed return facts. */
static int call_site(Opt *o, const LcuExpr *call, const int *args) {
  FnFacts *ff = call->target ? facts_of(o, call->target) : NULL;
  if (!ff || call->nargs * 3 != ff->nterms) return vn_fresh(o);
  int *sig = nz_xmalloc(sizeof(int) * (size_t)(ff->nterms ? ff->nterms : 1));
  for (int i = 0; i < call->nargs; i++) {
    const LcuType *t = ff->f->params[i].ty;
    sig[3 * i + T_VAL] = args[i];
    sig[3 * i + T_LEN] = t->kind == LT_ARRAY || t->kind == LT_SEGDES ? vn_len(o, args[i]) : -1;
    sig[3 * i + T_TOTAL] = t->kind == LT_SEGDES ? vn_total(o, args[i]) : -1;
  }
  nz_vec_push(ff->sites, sig);
  int nr = ff->nrterms, rv[nr > 0 ? nr : 1];
  for (int t = 0; t < nr; t++) {
    if (ff->rcls[t] != t) rv[t] = rv[ff->rcls[t]];
    else if (ff->rcst[t] >= 0) rv[t] = ff->rcst[t];
    else if (ff->rpar[t] >= 0 && sig[ff->rpar[t]] >= 0) rv[t] = sig[ff->rpar[t]];
    else rv[t] = vn_fresh(o);
  }
  int nc = nr / 3, val[nc > 0 ? nc : 1];
  for (int c = 0; c < nc; c++) {
    const LcuType *t = lcu_type_component(ff->f->ret, c);
    val[c] = rv[3 * c + T_VAL];
    if (t->kind == LT_ARRAY || t->kind == LT_SEGDES) set_len(o, val[c], rv[3 * c + T_LEN]);
    if (t->kind == LT_SEGDES && o->total.v[val[c]] < 0) o->total.v[val[c]] = rv[3 * c + T_TOTAL];
  }
  return nc == 1 ? val[0] : vn_node(o, VN_TUPLE, 0, NULL, nc, val);
}

/* What the body of ff, valued ret, says of its results' terms (into ocls, opar, ocst). */
static void observe_return(Opt *o, FnFacts *ff, int ret) {
  int nr = ff->nrterms, nc = nr / 3, v[nr > 0 ? nr : 1];
  for (int c = 0; c < nc; c++) {
    const LcuType *t = lcu_type_component(ff->f->ret, c);
    int x = component(o, ret, c, nc);
    v[3 * c + T_VAL] = x;
    v[3 * c + T_LEN] = t->kind == LT_ARRAY || t->kind == LT_SEGDES ? vn_len(o, x) : -1;
    v[3 * c + T_TOTAL] = t->kind == LT_SEGDES ? vn_total(o, x) : -1;
  }
  for (int t = 0; t < nr; t++) {
    ff->ocls[t] = t, ff->opar[t] = -1, ff->ocst[t] = -1;
    if (v[t] < 0) continue;
    const VNode *n = &o->nodes.v[v[t]];
    if (n->kind == VN_CONST) ff->ocst[t] = v[t];
    if (n->kind == VN_PARAM && n->ptr == ff->f && (int)(n->aux >> 32) == o->round) ff->opar[t] = (int)(uint32_t)n->aux;
    for (int u = 0; u < t; u++)
      if (ff->ocls[u] == u && v[u] == v[t]) {
        ff->ocls[t] = u;
        break;
      }
  }
}

/* Whether the return facts assumed hold in what the body was found to return. */
static bool return_holds(const FnFacts *ff) {
  for (int t = 0; t < ff->nrterms; t++) {
    if (ff->rcst[t] >= 0 && ff->ocst[t] != ff->rcst[t]) return false;
    if (ff->rpar[t] >= 0 && ff->opar[t] != ff->rpar[t]) return false;
    if (ff->rcls[t] != t && ff->ocls[t] != ff->ocls[ff->rcls[t]]) return false;
  }
  return true;
}

/* Whether the return facts found differ from the assumed ones; then they are assumed. */
static bool adopt_return(FnFacts *ff) {
  size_t z = sizeof(int) * (size_t)ff->nrterms;
  bool changed = memcmp(ff->rcls, ff->ocls, z) || memcmp(ff->rpar, ff->opar, z) || memcmp(ff->rcst, ff->ocst, z);
  memcpy(ff->rcls, ff->ocls, z), memcpy(ff->rpar, ff->opar, z), memcpy(ff->rcst, ff->ocst, z);
  return changed;
}

/* A rewrite: the variable use e is renamed to the first variable holding its value. */
static void rename_use(Opt *o, LcuExpr *e, int vn) {
  const char *h = holder(o, vn);
  if (o->rewrite && h && h != e->name) {
    e->name = h;
    o->changes++;
  }
}

static LcuExpr *var_like(Opt *o, const char *name, const LcuType *ty, NzLoc loc) {
  LcuExpr *v = lcu_var(o->p, name, loc);
  v->ty = ty;
  return v;
}

static bool pure_prim(LcuPrim p) {
  int fl = lcu_prim_info(p)->flags;
  if (fl & LPF_EFFECT) return false;
  if (!(fl & LPF_CPU)) return true;
  return p == LP_MAKE_SEGDES || p == LP_SEG_LENGTHS;
}

static int vn_prim(Opt *o, LcuExpr *e, const int *a) {
  LcuPrim p = e->prim;
  const LcuType *t0 = e->nargs > 0 ? e->args[0]->ty : NULL;
  switch (p) {
  case LP_LENGTH: return vn_len(o, a[0]);
  case LP_SEG_TOTAL: return vn_total(o, a[0]);
  case LP_MAKE_SEGDES: {
    int sd = vn_node(o, VN_PRIM, p, NULL, 1, a);
    set_len(o, sd, vn_len(o, a[0]));
    const VNode *arr = &o->nodes.v[a[0]];
    if (arr->kind == VN_ARRAY && arr->nargs <= 1 && o->total.v[sd] < 0) {
      int t = arr->nargs ? o->pool.v[arr->args0] : vn_int(o, 0);
      o->total.v[sd] = t;
    }
    return sd;
  }
  case LP_SEG_LENGTHS: {
    const VNode *sd = &o->nodes.v[a[0]];
    if (sd->kind == VN_PRIM && sd->aux == LP_MAKE_SEGDES) return o->pool.v[sd->args0];
    int r = vn_node(o, VN_PRIM, p, NULL, 1, a);
    set_len(o, r, vn_len(o, a[0]));
    return r;
  }
  default: break;
  }
  if (e->nargs == 2 && t0 && t0->kind == LT_INT && is_const(o, a[0], LT_INT) && is_const(o, a[1], LT_INT)) {
    int64_t v;
    bool is_bool;
    if (fold_binary(p, true, const_int(o, a[0]), const_int(o, a[1]), &v, &is_bool))
      return is_bool ? vn_bool(o, (int)v) : vn_int(o, (int32_t)v);
  }
  /* x compared with itself (not a float: NaN is not equal to itself), as in a length
   * check of two lengths proved equal: a literal, so the check goes */
  if (e->nargs == 2 && a[0] == a[1] && t0 && t0->kind != LT_FLOAT && lcu_type_is_base(t0)) {
    if (p == LP_EQ || p == LP_LE || p == LP_GE) return vn_bool(o, 1);
    if (p == LP_NE || p == LP_LT || p == LP_GT) return vn_bool(o, 0);
  }
  int b[3] = {0};
  for (int i = 0; i < e->nargs && i < 3; i++) b[i] = a[i];
  if ((p == LP_ADD || p == LP_MUL || p == LP_EQ || p == LP_NE || p == LP_MIN || p == LP_MAX) && e->nargs == 2 &&
      b[0] > b[1]) { /* commutative: one order */
    int t = b[0];
    b[0] = b[1], b[1] = t;
  }
  return vn_node(o, VN_PRIM, p, e->opty, e->nargs, b);
}

/* The literal of constant value number r, in place of rhs. */
static LcuExpr *const_expr(Opt *o, int r, const LcuExpr *rhs) {
  const VNode *v = &o->nodes.v[r];
  int64_t bits = (int64_t)((uint64_t)(uint32_t)o->pool.v[v->args0] | (uint64_t)(uint32_t)o->pool.v[v->args0 + 1] << 32);
  LcuExpr *e;
  switch (v->aux) {
  case LT_INT: e = lcu_int(o->p, (int32_t)bits, rhs->loc); break;
  case LT_BOOL: e = lcu_bool(o->p, (int)bits, rhs->loc); break;
  case LT_CHAR: e = lcu_char(o->p, (unsigned char)bits, rhs->loc); break;
  default: {
    double f;
    memcpy(&f, &bits, sizeof f);
    e = lcu_float(o->p, f, rhs->loc);
  }
  }
  e->ty = rhs->ty;
  return e;
}

/* The value of `if c then a else b` (of type ty): a tuple component by component; its
 * length the same choice of the branches' lengths; `if x == k then k else x` is x. */
static int vn_phi(Opt *o, int c, int a, int b, const LcuType *ty, int depth) {
  if (a == b) return a;
  if (depth > 8) return vn_fresh(o);
  if (ty && ty->kind == LT_TUPLE) {
    int n = ty->n, v[n > 0 ? n : 1];
    for (int i = 0; i < n; i++)
      v[i] = vn_phi(o, c, component(o, a, i, n), component(o, b, i, n), ty->elems[i], depth + 1);
    return vn_node(o, VN_TUPLE, 0, NULL, n, v);
  }
  const VNode *cn = &o->nodes.v[c];
  if (cn->kind == VN_PRIM && cn->aux == LP_EQ && cn->nargs == 2) {
    int x = o->pool.v[cn->args0], y = o->pool.v[cn->args0 + 1];
    if ((a == x && b == y) || (a == y && b == x)) return b; /* if x == y then x else y */
  }
  int args[3] = {c, a, b};
  int r = vn_node(o, VN_PHI, 0, NULL, 3, args);
  if (ty && (ty->kind == LT_ARRAY || ty->kind == LT_SEGDES)) {
    int la = vn_len(o, a), lb = vn_len(o, b);
    set_len(o, r, vn_phi(o, c, la, lb, lcu_type_base(LT_INT), depth + 1));
  }
  if (ty && ty->kind == LT_SEGDES && o->total.v[r] < 0) {
    int ta = vn_total(o, a), tb = vn_total(o, b);
    int t = vn_phi(o, c, ta, tb, lcu_type_base(LT_INT), depth + 1);
    o->total.v[r] = t;
  }
  return r;
}

static int vn_args(Opt *o, LcuExpr *e, int *a) {
  for (int i = 0; i < e->nargs; i++) a[i] = vn_expr(o, e->args[i]);
  return e->nargs;
}

static int vn_expr(Opt *o, LcuExpr *e) {
  switch (e->kind) {
  case LE_INT: return vn_int(o, e->lit.i);
  case LE_BOOL: return vn_bool(o, e->lit.b);
  case LE_CHAR: return vn_const(o, LT_CHAR, e->lit.c);
  case LE_FLOAT: return vn_const(o, LT_FLOAT, lit_bits(e));
  case LE_VAR: {
    int v = var_vn(o, e->name);
    if (v < 0) return vn_fresh(o);
    rename_use(o, e, v);
    return v;
  }
  case LE_IF: {
    int c = vn_expr(o, e->args[0]);
    if (is_const(o, c, LT_BOOL)) {
      int taken = o->pool.v[o->nodes.v[c].args0] ? 1 : 2;
      if (o->rewrite) {
        become(e, e->args[taken]);
        o->changes++;
        return vn_expr(o, e);
      }
      return vn_expr(o, e->args[taken]);
    }
    int r[2];
    for (int i = 0; i < 2; i++) {
      Mark m = mark(o);
      r[i] = vn_expr(o, e->args[1 + i]);
      pop_to(o, m);
    }
    return vn_phi(o, c, r[0], r[1], e->ty, 0);
  }
  case LE_LET: {
    LcuExpr *rhs = e->args[0];
    int r = vn_expr(o, rhs);
    int n = e->nbinds;
    bool cse = rhs->kind == LE_PRIM || rhs->kind == LE_RUN || rhs->kind == LE_INDEX || rhs->kind == LE_TUPLE ||
               rhs->kind == LE_ARRAY;
    if (o->rewrite && rhs->kind == LE_PRIM && pure_prim(rhs->prim) && o->nodes.v[r].kind == VN_CONST) {
      e->args[0] = const_expr(o, r, rhs);
      o->changes++;
    } else if (o->rewrite && cse) {
      bool all = true;
      for (int i = 0; i < n; i++) all &= holder(o, component(o, r, i, n)) != NULL;
      if (all && !(rhs->kind == LE_PRIM && !pure_prim(rhs->prim))) {
        if (n == 1) {
          e->args[0] = var_like(o, holder(o, r), rhs->ty, rhs->loc);
        } else {
          LcuExpr **xs = lcu_exprs(o->p, n);
          for (int i = 0; i < n; i++)
            xs[i] = var_like(o, holder(o, component(o, r, i, n)), e->binds[i].ty, rhs->loc);
          e->args[0] = lcu_tuple(o->p, n, xs, rhs->loc);
          e->args[0]->ty = rhs->ty;
        }
        o->changes++;
      }
    }
    Mark m = mark(o);
    for (int i = 0; i < n; i++) bind_var(o, e->binds[i].name, component(o, r, i, n));
    int body = vn_expr(o, e->args[1]);
    pop_to(o, m);
    return body;
  }
  case LE_TUPLE: {
    int a[e->nargs > 0 ? e->nargs : 1];
    return vn_node(o, VN_TUPLE, 0, NULL, vn_args(o, e, a), a);
  }
  case LE_ARRAY: {
    int a[e->nargs > 0 ? e->nargs : 1];
    int r = vn_node(o, VN_ARRAY, 0, e->opty, vn_args(o, e, a), a);
    set_len(o, r, vn_int(o, e->nargs));
    return r;
  }
  case LE_INDEX: {
    int a[2];
    return vn_node(o, VN_INDEX, 0, NULL, vn_args(o, e, a), a);
  }
  case LE_PRIM: {
    int a[e->nargs > 0 ? e->nargs : 1];
    vn_args(o, e, a);
    if (is_fail(e) && is_const(o, a[0], LT_BOOL) && !o->pool.v[o->nodes.v[a[0]].args0] && o->rewrite) {
      become(e, unit(o, e->loc));
      o->changes++;
      return vn_fresh(o);
    }
    if (!pure_prim(e->prim)) return vn_fresh(o);
    return vn_prim(o, e, a);
  }
  case LE_CALL: {
    int a[e->nargs > 0 ? e->nargs : 1];
    vn_args(o, e, a);
    return call_site(o, e, a);
  }
  case LE_RUN: {
    const LcuKernel *k = e->target;
    int ki = k ? kernel_index(o, k) : -1;
    int n = e->nargs;
    int a[n > 0 ? n : 1];
    vn_args(o, e, a);
    if (ki < 0) return vn_fresh(o);
    int outs[k->nrets > 0 ? k->nrets : 1];
    for (int r = 0; r < k->nrets; r++) {
      int b[n + 1];
      memcpy(b, a, sizeof(int) * (size_t)n);
      b[n] = r;
      outs[r] = vn_node(o, VN_RUN, r, o->canon[ki], n + 1, b);
    }
    run_shapes(o, e, a, outs);
    return k->nrets == 1 ? outs[0] : vn_node(o, VN_TUPLE, 0, NULL, k->nrets, outs);
  }
  }
  return vn_fresh(o);
}

/* The parameters' value numbers under the assumed facts. */
static void bind_params(Opt *o, FnFacts *ff) {
  LcuFunc *f = ff->f;
  int cls_vn[ff->nterms > 0 ? ff->nterms : 1];
  for (int t = 0; t < ff->nterms; t++) {
    int c = ff->cls[t];
    if (ff->cst[t] >= 0) cls_vn[t] = ff->cst[t];
    else if (c != t) cls_vn[t] = cls_vn[c];
    else cls_vn[t] = vn_node(o, VN_PARAM, (int64_t)o->round << 32 | (uint32_t)t, f, 0, NULL);
  }
  for (int i = 0; i < f->nparams; i++) {
    int v = cls_vn[3 * i + T_VAL];
    const LcuType *t = f->params[i].ty;
    if (t->kind == LT_ARRAY || t->kind == LT_SEGDES) set_len(o, v, cls_vn[3 * i + T_LEN]);
    if (t->kind == LT_SEGDES && o->total.v[v] < 0) o->total.v[v] = cls_vn[3 * i + T_TOTAL];
    bind_var(o, f->params[i].name, v);
  }
}

/* The facts every site of ff establishes: terms equal (same value number) at every
 * site are one class; a term that is the same literal everywhere is that literal.
 * Returns whether they differ from the assumed ones (then ff's are replaced). */
static bool meet_sites(Opt *o, FnFacts *ff) {
  int n = ff->nterms;
  int cls[n > 0 ? n : 1], cst[n > 0 ? n : 1];
  for (int t = 0; t < n; t++) {
    cls[t] = t, cst[t] = -1;
    if (!ff->sites.n) continue;
    bool known = true;
    for (int s = 0; s < ff->sites.n; s++) known &= ff->sites.v[s][t] >= 0;
    if (!known) continue;
    int c0 = ff->sites.v[0][t];
    bool same = o->nodes.v[c0].kind == VN_CONST;
    for (int s = 1; s < ff->sites.n; s++) same &= ff->sites.v[s][t] == c0;
    if (same) cst[t] = c0;
    for (int u = 0; u < t; u++) {
      if (cls[u] != u) continue;
      bool eq = true;
      for (int s = 0; s < ff->sites.n && eq; s++) eq = ff->sites.v[s][u] == ff->sites.v[s][t];
      if (eq) {
        cls[t] = u;
        break;
      }
    }
  }
  bool changed = memcmp(cls, ff->cls, sizeof(int) * (size_t)n) || memcmp(cst, ff->cst, sizeof(int) * (size_t)n);
  memcpy(ff->cls, cls, sizeof(int) * (size_t)n);
  memcpy(ff->cst, cst, sizeof(int) * (size_t)n);
  return changed;
}

/* Whether the facts assumed hold at every site of this round (a class of the assumed
 * partition is within one class of the sites', a literal is the sites' literal). */
static bool facts_hold(Opt *o, FnFacts *ff) {
  for (int t = 0; t < ff->nterms; t++)
    for (int s = 0; s < ff->sites.n; s++) {
      const int *sig = ff->sites.v[s];
      if (ff->cst[t] >= 0 && sig[t] != ff->cst[t]) return false;
      if (ff->cls[t] != t && sig[t] != sig[ff->cls[t]]) return false;
    }
  (void)o;
  return true;
}

static void clear_sites(FnFacts *ff) {
  for (int s = 0; s < ff->sites.n; s++) free(ff->sites.v[s]);
  ff->sites.n = 0;
}

static void analyse_all(Opt *o) {
  o->round++;
  for (int i = 0; i < o->p->nfuncs; i++) clear_sites(&o->facts[i]);
  for (int i = 0; i < o->p->nfuncs; i++) {
    Mark m = mark(o);
    bind_params(o, &o->facts[i]);
    observe_return(o, &o->facts[i], vn_expr(o, o->p->funcs[i]->body));
    pop_to(o, m);
  }
}

static void no_facts(FnFacts *ff) {
  for (int t = 0; t < ff->nterms; t++) ff->cls[t] = t, ff->cst[t] = -1;
  for (int t = 0; t < ff->nrterms; t++) ff->rcls[t] = t, ff->rpar[t] = -1, ff->rcst[t] = -1;
}

/* Returns 0, or -1 if the rewrite broke an assumption (a bug: reported by the caller). */
static int pass_shapes(Opt *o) {
  int nf = o->p->nfuncs;
  o->facts = nz_xcalloc((size_t)nf + 1, sizeof(FnFacts));
  for (int i = 0; i < nf; i++) {
    FnFacts *ff = &o->facts[i];
    ff->f = o->p->funcs[i];
    ff->nterms = 3 * ff->f->nparams;
    ff->cls = nz_xmalloc(sizeof(int) * (size_t)(ff->nterms + 1));
    ff->cst = nz_xmalloc(sizeof(int) * (size_t)(ff->nterms + 1));
    ff->nrterms = 3 * lcu_type_arity(ff->f->ret);
    int **rs[6] = {&ff->rcls, &ff->rpar, &ff->rcst, &ff->ocls, &ff->opar, &ff->ocst};
    for (int q = 0; q < 6; q++) *rs[q] = nz_xmalloc(sizeof(int) * (size_t)(ff->nrterms + 1));
    no_facts(ff);
  }
  o->canon = nz_xcalloc((size_t)o->p->nkernels + 1, sizeof(char *));
  for (int k = 0; k < o->p->nkernels; k++) { /* kernels keep their text from round to round */
    const LcuKernel *kk = o->p->kernels[k];
    int i = nz_scope_find(&o->ccache, kk->name, o->ccache.n);
    if (i < 0) {
      nz_scope_push(&o->ccache, kk->name);
      nz_vec_push(o->ctext, NULL);
      i = o->ccache.n - 1;
    }
    if (!o->ctext.v[i]) o->ctext.v[i] = kernel_canon(o, kk);
    o->canon[k] = o->ctext.v[i];
  }
  /* from no facts, to the facts the sites prove, until they prove what is assumed */
  bool stable = false;
  for (int it = 0; it < 8 && !stable; it++) {
    o->rewrite = false;
    analyse_all(o);
    stable = true;
    for (int i = 0; i < nf; i++) stable &= !meet_sites(o, &o->facts[i]);
    for (int i = 0; i < nf; i++) stable &= !adopt_return(&o->facts[i]);
  }
  if (!stable)
    for (int i = 0; i < nf; i++) no_facts(&o->facts[i]);
  o->rewrite = true;
  analyse_all(o);
  int rc = 0;
  for (int i = 0; i < nf; i++) {
    if (!facts_hold(o, &o->facts[i]) || !return_holds(&o->facts[i])) {
      nz_error("flan_opt: the facts assumed for the parameters or results of %s do not hold after the rewrite",
               o->facts[i].f->name);
      rc = -1;
    }
    clear_sites(&o->facts[i]);
    free(o->facts[i].sites.v);
    free(o->facts[i].cls), free(o->facts[i].cst);
    free(o->facts[i].rcls), free(o->facts[i].rpar), free(o->facts[i].rcst);
    free(o->facts[i].ocls), free(o->facts[i].opar), free(o->facts[i].ocst);
  }
  free(o->facts), free(o->canon);
  o->facts = NULL, o->canon = NULL;
  return rc;
}

/* ------------------------------------------------------- pass 3: dead code */

typedef struct {
  NzScopeIndex names; /* one entry per name, uses in the payload */
  NZ_VEC(int) uses;
} Uses;

static int *use_count(Uses *u, const char *name) {
  int i = nz_scope_find(&u->names, name, u->names.n);
  if (i < 0) {
    nz_scope_push(&u->names, name);
    nz_vec_push(u->uses, 0);
    i = u->names.n - 1;
  }
  return &u->uses.v[i];
}

static void count_uses(Uses *u, const LcuExpr *e, int d) {
  if (e->kind == LE_VAR) *use_count(u, e->name) += d;
  for (int i = 0; i < e->nargs; i++) count_uses(u, e->args[i], d);
}

/* A thunk or scalar expression that cannot fault: no division by anything but a literal
 * other than 0 and -1, no indexing, no conversion that faults, no segment lookup. */
static bool fault_free(const LcuExpr *e) {
  if (e->kind == LE_INDEX || e->kind == LE_CALL || e->kind == LE_RUN) return false;
  if (e->kind == LE_PRIM) {
    switch (e->prim) {
    case LP_DIV:
    case LP_MOD:
      if (e->args[1]->ty && e->args[1]->ty->kind == LT_FLOAT) break;
      if (e->args[1]->kind != LE_INT || e->args[1]->lit.i == 0 || e->args[1]->lit.i == -1) return false;
      break;
    case LP_I2C: case LP_TRUNC: case LP_FLOOR: case LP_CEIL: case LP_ROUND:
    case LP_SEG_START: case LP_SEG_LEN: case LP_SEG_OF: case LP_MAKE_SEGDES:
      return false;
    default:
      if (!pure_prim(e->prim)) return false;
    }
  }
  for (int i = 0; i < e->nargs; i++)
    if (!fault_free(e->args[i])) return false;
  return true;
}

static bool kernel_fault_free(const LcuKernel *k) {
  for (int s = 0; s < k->nsoacs; s++) {
    const LcuSoac *so = &k->soacs[s];
    if (so->kind == LS_PERMUTE) return false;
    for (int t = 0; t < so->nthunks; t++)
      if (!fault_free(so->thunks[t]->body)) return false;
  }
  return true;
}

static bool removable(const LcuExpr *rhs) {
  if (rhs->kind == LE_RUN) return rhs->target && kernel_fault_free(rhs->target);
  return fault_free(rhs);
}

static void dce(Opt *o, Uses *u, LcuExpr *e) {
  for (int i = 0; i < e->nargs; i++) dce(o, u, e->args[i]);
  while (e->kind == LE_LET) {
    bool dead = true;
    for (int i = 0; i < e->nbinds && dead; i++) dead = *use_count(u, e->binds[i].name) == 0;
    if (!dead || !removable(e->args[0])) return;
    count_uses(u, e->args[0], -1);
    become(e, e->args[1]);
    o->changes++;
  }
}

static void mark_runs(const LcuExpr *e, Opt *o, bool *live) {
  if (e->kind == LE_RUN && e->target) {
    int ki = kernel_index(o, e->target);
    if (ki >= 0) live[ki] = true;
  }
  for (int i = 0; i < e->nargs; i++) mark_runs(e->args[i], o, live);
}

static void pass_dead(Opt *o) {
  for (int f = 0; f < o->p->nfuncs; f++) {
    Uses u = {0};
    count_uses(&u, o->p->funcs[f]->body, 1);
    dce(o, &u, o->p->funcs[f]->body);
    nz_scope_free(&u.names);
    free(u.uses.v);
  }
  bool *live = nz_xcalloc((size_t)o->p->nkernels + 1, sizeof(bool));
  for (int f = 0; f < o->p->nfuncs; f++) mark_runs(o->p->funcs[f]->body, o, live);
  int w = 0;
  for (int k = 0; k < o->p->nkernels; k++)
    if (live[k]) o->p->kernels[w++] = o->p->kernels[k];
    else o->changes++;
  o->p->nkernels = w;
  free(live);
}

/* ------------------------------------------------------------------ driver */

int flan_opt(LcuProgram *p, FlOptStats *st) {
  Opt o = {0};
  o.p = p;
  int rc = 0;
  FlOptStats s = {0};
  s.kernels_before = p->nkernels;
  for (int round = 0; round < 3; round++) {
    o.changes = 0;
    index_program(&o);
    pass_consts(&o);
    if (pass_shapes(&o) != 0) {
      rc = -1;
      break;
    }
    pass_dead(&o);
    s.rounds++;
    s.changes += o.changes;
    if (!o.changes) break;
  }
  s.kernels_after = p->nkernels;
  if (st) *st = s;
  nz_scope_free(&o.vars), nz_scope_free(&o.kidx), nz_scope_free(&o.fidx);
  nz_scope_free(&o.ccache), free(o.ctext.v);
  free(o.varvn.v), free(o.avail_top.v), free(o.avail_vn.v), free(o.avail_prev.v), free(o.avail_name.v);
  free(o.nodes.v), free(o.pool.v), free(o.hash), free(o.len.v), free(o.total.v);
  return rc;
}
