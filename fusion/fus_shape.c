/* fus_shape.c — symbolic sizes of a region's iteration spaces (issue 38): each
 * invocation's space as a polynomial in its function's parameters and in the
 * unknowns of its CPU code, and its value where the polynomial is a constant
 * (a benchmark's `bench(1500)` after the Flan optimiser's constants), so that a
 * sized cost model knows n-body's pair arrays are n^2 without running it.
 *
 * The abstract value of a CPU variable: a scalar's value; an array's length and,
 * when every element provably holds the same value, that value ("uniform"); a
 * segment descriptor's segment count, element total and, when uniform, the
 * segments' length. Rules: literals; + - * of ints; #x; seg_total; make_segdes(v)
 * (segments #v, total #v * v's uniform element, segment length v's element);
 * [x] literals; a kernel's results by its SOAC (MAP, SCAN, PERMUTE, REDUCE id: the
 * space; SEGREDUCE: the segments; SEGSCAN: the total; FILTER, PARTITION: unknown);
 * a MAP's elements by evaluating its thunk with the index unknown (uniform when
 * the index does not occur); an iadd REDUCE of a uniform value v is space * v;
 * ONCE by its thunk. Anything else is an unknown named after its variable
 * ("#v" for a length), so expressions stay symbolic; a value that depends on
 * the index of a thunk is no value at all. */
#include <math.h>

#include "fus_lcu.h"

enum { MAXT = 8, MAXD = 4 };
typedef struct {
  double coef;
  int deg;
  const char *sym[MAXD]; /* sorted by strcmp; repeated for powers */
} Term;
typedef struct {
  int n; /* 0 terms: the constant 0 */
  Term t[MAXT];
} Poly; /* NULL: not known */

typedef struct {
  int kind; /* 0 unknown, 1 scalar, 2 array, 3 segdes */
  const Poly *val, *len, *elem;
  const Poly *segs, *total, *seglen;
} Shape;

struct FusShapes {
  const LcuFunc *func; /* whose lets are indexed */
  NzArena *A;
  /* CPU lets of the function: name -> (rhs, component); names are unique per
   * function after fus_lcu_prepare */
  NzScopeIndex lets;
  NZ_VEC(const LcuExpr *) lrhs;
  NZ_VEC(int) lcomp;
  /* memo of shape_of, by name */
  NzScopeIndex memo;
  NZ_VEC(Shape) mshape;
  int depth;
};
typedef struct FusShapes Sh;

static const char *INDEX = "\001i"; /* the thunk's index: never a CPU name */

static Poly *pconst(Sh *s, double c) {
  Poly *p = NZ_NEW(s->A, Poly);
  p->n = c != 0;
  if (c != 0) p->t[0].coef = c, p->t[0].deg = 0;
  return p;
}
static Poly *psym(Sh *s, const char *name) {
  Poly *p = NZ_NEW(s->A, Poly);
  p->n = 1, p->t[0].coef = 1, p->t[0].deg = 1, p->t[0].sym[0] = name;
  return p;
}
static int same_mono(const Term *a, const Term *b) {
  if (a->deg != b->deg) return 0;
  for (int k = 0; k < a->deg; k++)
    if (strcmp(a->sym[k], b->sym[k])) return 0;
  return 1;
}
static Poly *add_term(Poly *p, const Term *t) {
  if (!p) return NULL;
  for (int k = 0; k < p->n; k++)
    if (same_mono(&p->t[k], t)) {
      p->t[k].coef += t->coef;
      if (p->t[k].coef == 0) p->t[k] = p->t[--p->n];
      return p;
    }
  if (t->coef == 0) return p;
  if (p->n == MAXT) return NULL;
  p->t[p->n++] = *t;
  return p;
}
static const Poly *padd(Sh *s, const Poly *a, const Poly *b, double sign) {
  if (!a || !b) return NULL;
  Poly *p = NZ_NEW(s->A, Poly);
  *p = *a;
  for (int k = 0; k < b->n && p; k++) {
    Term t = b->t[k];
    t.coef *= sign;
    p = add_term(p, &t);
  }
  return p;
}
static const Poly *pmul(Sh *s, const Poly *a, const Poly *b) {
  if (!a || !b) return NULL;
  Poly *p = NZ_NEW(s->A, Poly);
  for (int i = 0; i < a->n && p; i++)
    for (int j = 0; j < b->n && p; j++) {
      const Term *x = &a->t[i], *y = &b->t[j];
      if (x->deg + y->deg > MAXD) return NULL;
      Term t = {x->coef * y->coef, 0, {0}};
      int u = 0, v = 0;
      while (u < x->deg || v < y->deg) /* merge the sorted symbol lists */
        t.sym[t.deg++] = v >= y->deg || (u < x->deg && strcmp(x->sym[u], y->sym[v]) <= 0) ? x->sym[u++] : y->sym[v++];
      p = add_term(p, &t);
    }
  return p;
}
static int has_index(const Poly *p) {
  for (int k = 0; p && k < p->n; k++)
    for (int d = 0; d < p->t[k].deg; d++)
      if (p->t[k].sym[d] == INDEX) return 1;
  return 0;
}
static int pconstant(const Poly *p, double *v) {
  if (!p) return 0;
  double c = 0;
  for (int k = 0; k < p->n; k++) {
    if (p->t[k].deg) return 0;
    c += p->t[k].coef;
  }
  *v = c;
  return 1;
}
static int peq(Sh *s, const Poly *a, const Poly *b) {
  const Poly *d = padd(s, a, b, -1);
  return d && d->n == 0;
}

static void pprint(NzBuf *b, const Poly *p) {
  if (!p) {
    nz_buf_printf(b, "?");
    return;
  }
  if (p->n == 0) nz_buf_printf(b, "0");
  for (int k = 0; k < p->n; k++) {
    const Term *t = &p->t[k];
    double c = t->coef;
    if (k) nz_buf_printf(b, c < 0 ? " - " : " + "), c = fabs(c);
    if (t->deg == 0 || c != 1) nz_buf_printf(b, "%.15g%s", c, t->deg ? "*" : "");
    for (int d = 0; d < t->deg;) {
      int e = d;
      while (e < t->deg && !strcmp(t->sym[e], t->sym[d])) e++;
      nz_buf_printf(b, "%s%s", d ? "*" : "", t->sym[d]);
      if (e - d > 1) nz_buf_printf(b, "^%d", e - d);
      d = e;
    }
  }
}

/* ------------------------------------------------------------ CPU values */

static Shape shape_of(Sh *s, const char *name, const LcuType *ty);

static Shape unknown_named(Sh *s, const char *name, const LcuType *ty) {
  Shape v = {0};
  if (!ty) return v;
  if (ty->kind == LT_ARRAY) v.kind = 2, v.len = psym(s, nz_sprintf(s->A, "#%s", name));
  else if (ty->kind == LT_SEGDES)
    v.kind = 3, v.segs = psym(s, nz_sprintf(s->A, "#%s", name)), v.total = psym(s, nz_sprintf(s->A, "total(%s)", name));
  else if (ty->kind == LT_INT) v.kind = 1, v.val = psym(s, name);
  return v;
}

static void index_lets(Sh *s, const LcuExpr *e) {
  if (e->kind == LE_LET)
    for (int b = 0; b < e->nbinds; b++) {
      nz_scope_push(&s->lets, e->binds[b].name);
      nz_vec_push(s->lrhs, e->args[0]);
      nz_vec_push(s->lcomp, e->nbinds > 1 ? b : -1);
    }
  for (int i = 0; i < e->nargs; i++) index_lets(s, e->args[i]);
}

/* A thunk's value, with the kernel's parameters bound to the run's arguments
 * (env: names and shapes) and the index param the symbol INDEX. */
typedef struct {
  int n;
  const char **name;
  const Shape *shape;
} Env;

static Shape thunk_expr(Sh *s, const LcuExpr *e, Env *env);

/* Binds name to v, innermost; pop by restoring env->n. */
static void env_push(Env *env, const char *name, Shape v) {
  env->name = nz_xrealloc(env->name, sizeof(char *) * (size_t)(env->n + 1));
  env->shape = nz_xrealloc((void *)env->shape, sizeof(Shape) * (size_t)(env->n + 1));
  env->name[env->n] = name;
  ((Shape *)env->shape)[env->n++] = v;
}

static const Poly *scalar(Shape v) { return v.kind == 1 ? v.val : NULL; }

static Shape mk_scalar(const Poly *p) {
  Shape v = {0};
  if (p) v.kind = 1, v.val = p;
  return v;
}

/* An int or bool primitive of known operands: + - * as polynomials; / by a
 * constant (1, or exactly when both are constants), comparisons, && || ! of
 * constants (booleans are 0 and 1). NULL when not known. */
static const Poly *fold(Sh *s, LcuPrim op, const Poly *a, const Poly *b) {
  double x = 0, y = 0;
  int ca = pconstant(a, &x), cb = b ? pconstant(b, &y) : 0;
  switch (op) {
  case LP_ADD: return padd(s, a, b, 1);
  case LP_SUB: return padd(s, a, b, -1);
  case LP_MUL: return pmul(s, a, b);
  case LP_DIV:
    if (cb && y == 1) return a;
    return ca && cb && y != 0 ? pconst(s, trunc(x / y)) : NULL;
  case LP_NEG: return a ? pmul(s, a, pconst(s, -1)) : NULL;
  case LP_EQ: return ca && cb ? pconst(s, x == y) : a && b && peq(s, a, b) ? pconst(s, 1) : NULL;
  case LP_NE: return ca && cb ? pconst(s, x != y) : a && b && peq(s, a, b) ? pconst(s, 0) : NULL;
  case LP_LT: return ca && cb ? pconst(s, x < y) : NULL;
  case LP_LE: return ca && cb ? pconst(s, x <= y) : NULL;
  case LP_GT: return ca && cb ? pconst(s, x > y) : NULL;
  case LP_GE: return ca && cb ? pconst(s, x >= y) : NULL;
  case LP_ANDALSO: return ca && !x ? pconst(s, 0) : ca && cb ? pconst(s, x && y) : NULL;
  case LP_ORELSE: return ca && x ? pconst(s, 1) : ca && cb ? pconst(s, x || y) : NULL;
  case LP_NOT: return ca ? pconst(s, !x) : NULL;
  default: return NULL;
  }
}

static int foldable(const LcuExpr *e) {
  const LcuType *t = e->opty ? e->opty : e->ty;
  return t && (t->kind == LT_INT || t->kind == LT_BOOL) && e->nargs >= 1 && e->nargs <= 2;
}

static Shape thunk_expr(Sh *s, const LcuExpr *e, Env *env) {
  Shape none = {0};
  switch (e->kind) {
  case LE_INT: return mk_scalar(pconst(s, e->lit.i));
  case LE_BOOL: return mk_scalar(pconst(s, e->lit.b != 0));
  case LE_VAR:
    for (int k = env->n - 1; k >= 0; k--)
      if (env->name[k] == e->name) return env->shape[k];
    return none;
  case LE_LET: {
    if (e->nbinds != 1) return none;
    env_push(env, e->binds[0].name, thunk_expr(s, e->args[0], env));
    Shape r = thunk_expr(s, e->args[1], env);
    env->n--;
    return r;
  }
  case LE_INDEX: {
    Shape a = thunk_expr(s, e->args[0], env);
    return a.kind == 2 && a.elem ? mk_scalar(a.elem) : none;
  }
  case LE_PRIM: {
    if (e->prim == LP_SEG_LEN && e->nargs == 2) {
      Shape d = thunk_expr(s, e->args[0], env);
      return d.kind == 3 && d.seglen ? mk_scalar(d.seglen) : none;
    }
    if (e->prim == LP_SEG_TOTAL && e->nargs == 1) {
      Shape d = thunk_expr(s, e->args[0], env);
      return d.kind == 3 ? mk_scalar(d.total) : none;
    }
    if (e->prim == LP_LENGTH && e->nargs == 1) {
      Shape a = thunk_expr(s, e->args[0], env);
      return mk_scalar(a.kind == 2 ? a.len : a.kind == 3 ? a.segs : NULL);
    }
    if (!foldable(e)) return none;
    const Poly *a = scalar(thunk_expr(s, e->args[0], env));
    const Poly *b = e->nargs == 2 ? scalar(thunk_expr(s, e->args[1], env)) : NULL;
    return mk_scalar(fold(s, e->prim, a, b));
  }
  default: return none;
  }
}

/* Component b of a tuple-valued thunk body: the tuple's b-th expression
 * under the lets before it. */
static Shape thunk_component(Sh *s, const LcuExpr *e, int b, Env *env) {
  Shape none = {0};
  if (e->kind == LE_LET && e->nbinds == 1) {
    int n = env->n;
    env_push(env, e->binds[0].name, thunk_expr(s, e->args[0], env));
    Shape r = thunk_component(s, e->args[1], b, env);
    env->n = n;
    return r;
  }
  return e->kind == LE_TUPLE && b < e->nargs ? thunk_expr(s, e->args[b], env) : none;
}

/* Binds a kernel's parameters to the shapes of a run's arguments. */
static void bind_params(Sh *s, const LcuKernel *k, const LcuExpr *run, Env *env) {
  for (int a = 0; a < k->nparams && a < run->nargs; a++)
    env_push(env, k->params[a].name,
             run->args[a]->kind == LE_VAR ? shape_of(s, run->args[a]->name, run->args[a]->ty) : (Shape){0});
}

static const Poly *size_of(Sh *s, const LcuSize *z, Env *env, int seg) {
  Shape v;
  switch (z->kind) {
  case LZ_LIT: return pconst(s, z->lit);
  case LZ_VAR:
    for (int k = env->n - 1; k >= 0; k--)
      if (env->name[k] == z->name) {
        v = env->shape[k];
        return seg ? (v.kind == 3 ? v.total : NULL) : scalar(v);
      }
    return NULL;
  case LZ_LEN:
    for (int k = env->n - 1; k >= 0; k--)
      if (env->name[k] == z->name) {
        v = env->shape[k];
        return v.kind == 2 ? v.len : v.kind == 3 ? v.segs : NULL;
      }
    return NULL;
  default: return NULL;
  }
}

/* The space of a kernel's first SOAC run with `run`'s arguments. */
static const Poly *run_space(Sh *s, const LcuExpr *run, const LcuKernel *k) {
  Env env = {0};
  bind_params(s, k, run, &env);
  const LcuSoac *q = &k->soacs[0];
  const Poly *p = q->kind == LS_ONCE ? pconst(s, 1) : size_of(s, &q->size, &env, q->kind == LS_SEGREDUCE || q->kind == LS_SEGSCAN);
  free(env.name), free((void *)env.shape);
  return p;
}

/* Component `comp` of `run k(args)` (-1: the only one). */
static Shape run_result(Sh *s, const char *name, const LcuExpr *run, int comp) {
  const LcuKernel *k = run->target;
  Shape v = {0};
  if (!k || comp >= k->nrets) return v;
  const char *ret = k->rets[comp < 0 ? 0 : comp].name;
  Env env = {0};
  bind_params(s, k, run, &env);
  for (int q = 0; q < k->nsoacs; q++) {
    const LcuSoac *so = &k->soacs[q];
    int b = 0;
    while (b < so->nbinds && so->binds[b].name != ret) b++;
    if (b < so->nbinds) {
      int seg = so->kind == LS_SEGREDUCE || so->kind == LS_SEGSCAN;
      const Poly *sp = so->kind == LS_ONCE ? NULL : size_of(s, &so->size, &env, seg);
      const LcuType *bt = so->binds[b].ty;
      Shape elem = {0}; /* the component's value in the (tuple) thunk body */
      if (so->thunks[0] && (so->kind == LS_MAP || so->kind == LS_ONCE || so->kind == LS_REDUCE)) {
        const LcuThunk *t = so->thunks[0];
        int n = env.n; /* the thunk's names go on top of the kernel's, popped after */
        if (t->nparams == 1) env_push(&env, t->params[0].name, mk_scalar(psym(s, INDEX)));
        if (so->nbinds > 1) elem = thunk_component(s, t->body, b, &env);
        else elem = thunk_expr(s, t->body, &env);
        env.n = n;
        if (elem.kind == 1 && has_index(elem.val)) elem.kind = 0, elem.val = NULL;
      }
      switch (so->kind) {
      case LS_ONCE: v = elem; break;
      case LS_MAP:
        v.kind = 2, v.len = sp, v.elem = elem.kind == 1 ? elem.val : NULL;
        break;
      case LS_SCAN: v.kind = 2, v.len = sp; break;
      case LS_PERMUTE:
        v.kind = 2, v.len = so->outlen.kind != LZ_NONE ? size_of(s, &so->outlen, &env, 0) : sp;
        break;
      case LS_REDUCE:
        if (bt && bt->kind == LT_ARRAY) v.kind = 2, v.len = sp; /* id */
        else if (so->rops[b] == LR_IADD && elem.kind == 1) v = mk_scalar(pmul(s, sp, elem.val));
        break;
      case LS_SEGREDUCE:
        for (int k2 = env.n - 1; k2 >= 0; k2--)
          if (so->size.kind == LZ_VAR && env.name[k2] == so->size.name && env.shape[k2].kind == 3) {
            v.kind = 2, v.len = env.shape[k2].segs;
            break;
          }
        break;
      case LS_SEGSCAN: v.kind = 2, v.len = sp; break;
      default: break; /* FILTER, PARTITION: not known before they run */
      }
      break;
    }
  }
  free(env.name), free((void *)env.shape);
  if (v.kind == 0 || (v.kind == 2 && !v.len) || (v.kind == 1 && !v.val)) return unknown_named(s, name, run->ty ? lcu_type_component(run->ty, comp < 0 ? 0 : comp) : NULL);
  return v;
}

static Shape eval_cpu(Sh *s, const char *name, const LcuExpr *e, int comp) {
  Shape none = unknown_named(s, name, e->ty ? (comp >= 0 ? lcu_type_component(e->ty, comp) : e->ty) : NULL);
  switch (e->kind) {
  case LE_INT: return mk_scalar(pconst(s, e->lit.i));
  case LE_BOOL: return mk_scalar(pconst(s, e->lit.b != 0));
  case LE_VAR: return shape_of(s, e->name, e->ty);
  case LE_RUN: return run_result(s, name, e, comp);
  case LE_ARRAY: {
    Shape v = {2, NULL, pconst(s, e->nargs), NULL, NULL, NULL, NULL};
    for (int k = 0; k < e->nargs; k++) {
      Shape x = eval_cpu(s, name, e->args[k], -1);
      const Poly *p = scalar(x);
      if (!p || (k && !peq(s, p, v.elem))) {
        v.elem = NULL;
        break;
      }
      if (!k) v.elem = p;
    }
    return v;
  }
  case LE_PRIM: {
    if (e->prim == LP_LENGTH && e->nargs == 1 && e->args[0]->kind == LE_VAR) {
      Shape a = shape_of(s, e->args[0]->name, e->args[0]->ty);
      const Poly *p = a.kind == 2 ? a.len : a.kind == 3 ? a.segs : NULL;
      return p ? mk_scalar(p) : none;
    }
    if (e->prim == LP_SEG_TOTAL && e->nargs == 1 && e->args[0]->kind == LE_VAR) {
      Shape d = shape_of(s, e->args[0]->name, e->args[0]->ty);
      return d.kind == 3 && d.total ? mk_scalar(d.total) : none;
    }
    if (e->prim == LP_MAKE_SEGDES && e->nargs == 1) {
      Shape v = eval_cpu(s, name, e->args[0], -1);
      if (v.kind != 2) return none;
      Shape d = {3, NULL, NULL, NULL, v.len, v.elem ? pmul(s, v.len, v.elem) : NULL, v.elem};
      if (!d.total) d.total = psym(s, nz_sprintf(s->A, "total(%s)", name));
      return d;
    }
    if (foldable(e)) {
      const Poly *a = scalar(eval_cpu(s, name, e->args[0], -1));
      const Poly *b = e->nargs == 2 ? scalar(eval_cpu(s, name, e->args[1], -1)) : NULL;
      const Poly *p = fold(s, e->prim, a, b);
      if (p) return mk_scalar(p);
    }
    return none;
  }
  case LE_IF: {
    double c;
    const Poly *cond = scalar(eval_cpu(s, name, e->args[0], -1));
    if (pconstant(cond, &c)) return eval_cpu(s, name, e->args[c != 0 ? 1 : 2], comp);
    Shape a = eval_cpu(s, name, e->args[1], comp), b = eval_cpu(s, name, e->args[2], comp);
    if (a.kind == 1 && b.kind == 1 && peq(s, a.val, b.val)) return a;
    return none;
  }
  default: return none;
  }
}

static Shape shape_of(Sh *s, const char *name, const LcuType *ty) {
  int m = nz_scope_find(&s->memo, name, s->memo.n);
  if (m >= 0) return s->mshape.v[m];
  Shape v = {0};
  int k = nz_scope_find(&s->lets, name, s->lets.n);
  if (k >= 0 && s->depth < 200) {
    s->depth++;
    v = eval_cpu(s, name, s->lrhs.v[k], s->lcomp.v[k]);
    s->depth--;
  }
  if (k < 0 || v.kind == 0) v = unknown_named(s, name, ty); /* a parameter, or not known */
  nz_scope_push(&s->memo, name);
  nz_vec_push(s->mshape, v);
  return v;
}

FusShapes *fus_shapes_new(void) {
  Sh *s = nz_xcalloc(1, sizeof *s);
  s->A = nz_arena_new();
  return s;
}

void fus_shapes_free(FusShapes *s) {
  if (!s) return;
  nz_scope_free(&s->lets), nz_scope_free(&s->memo);
  nz_vec_free(s->lrhs), nz_vec_free(s->lcomp), nz_vec_free(s->mshape);
  nz_arena_free(s->A);
  free(s);
}

void fus_shapes_region(FusShapes *s, const FusLcuRegion *r, const char **expr, double *value, NzArena *out) {
  if (s->func != r->func) { /* a new function: its lets, an empty memo */
    nz_scope_pop_to(&s->lets, 0), nz_scope_pop_to(&s->memo, 0);
    s->lrhs.n = s->lcomp.n = s->mshape.n = 0;
    s->func = r->func;
    index_lets(s, r->func->body);
  }
  for (int i = 0; i < r->ninv; i++) {
    const LcuExpr *run = r->inv[i].let->args[0];
    const Poly *p = run_space(s, run, r->inv[i].kernel);
    NzBuf b = {0};
    pprint(&b, p);
    expr[i] = nz_strndup(out, b.s, strlen(b.s));
    nz_buf_free(&b);
    if (!pconstant(p, &value[i]) || value[i] < 0) value[i] = -1;
  }
}
