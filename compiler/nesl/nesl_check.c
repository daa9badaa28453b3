/* nesl_check.c — NESL type inference (NESL.md §3): Hindley–Milner with class-constrained
 * type variables (any ⊃ scalar ⊃ ordinal ⊃ number, scalar ⊃ logical), generalisation only
 * at top-level definitions, datatypes as nominal records. It also resolves every variable
 * to a frame slot or a global, which is what the interpreter runs on. */
#include "nesl.h"
#include <ctype.h>

/* ---------- types ---------- */
static NlEnv *g_env; /* the environment whose arena holds types being built */

static NlType *ty_new(NlTyKind k) {
  NlType *t = NZ_NEW(g_env->arena, NlType);
  t->k = k;
  return t;
}
static NlType *ty_base(NlTyKind k) { return ty_new(k); }
static NlType *ty_seq(NlType *a) {
  NlType *t = ty_new(TY_SEQ);
  t->a = a;
  return t;
}
static NlType *ty_pair(NlType *a, NlType *b) {
  NlType *t = ty_new(TY_PAIR);
  t->a = a;
  t->b = b;
  return t;
}
static NlType *ty_var(int cls);
/* A function type; its identity is unknown (a fresh variable) until unified. */
static NlType *ty_fun(NlType *a, NlType *b) {
  NlType *t = ty_new(TY_FUN);
  t->a = a;
  t->b = b;
  t->fnid = ty_var(CL_ANY);
  return t;
}
/* The identity of one particular function (a global, a lambda, a constructor). */
static NlType *ty_fnid(void) {
  NlType *t = ty_new(TY_FNID);
  t->id = ++g_env->next_var;
  return t;
}
static NlType *ty_var(int cls) {
  NlType *t = ty_new(TY_VAR);
  t->cls = cls;
  t->id = ++g_env->next_var;
  return t;
}

NlType *nesl_type_resolve(NlType *t) {
  while (t && t->k == TY_VAR && t->ref) t = t->ref;
  return t;
}
#define R nesl_type_resolve

static bool class_has(int cls, NlTyKind k) {
  switch (cls) {
  case CL_ANY: return true;
  case CL_SCALAR: return k == TY_INT || k == TY_FLOAT || k == TY_CHAR || k == TY_BOOL;
  case CL_ORDINAL: return k == TY_INT || k == TY_FLOAT || k == TY_CHAR;
  case CL_NUMBER: return k == TY_INT || k == TY_FLOAT;
  case CL_LOGICAL: return k == TY_INT || k == TY_BOOL;
  }
  return false;
}
/* Does class a contain class b? */
static bool class_sub(int a, int b) {
  if (a == b || a == CL_ANY) return true;
  if (a == CL_SCALAR) return b != CL_ANY;
  if (a == CL_ORDINAL) return b == CL_NUMBER;
  return false;
}

static bool occurs(NlType *v, NlType *t) {
  t = R(t);
  if (t == v) return true;
  switch (t->k) {
  case TY_SEQ: return occurs(v, t->a);
  case TY_PAIR:
  case TY_FUN: return occurs(v, t->a) || occurs(v, t->b);
  case TY_DATA:
    for (int i = 0; i < t->nargs; i++)
      if (occurs(v, t->args[i])) return true;
    return false;
  default: return false;
  }
}

/* Bind var v to t, respecting v's class. */
static bool bind_var(NlType *v, NlType *t) {
  if (t->k == TY_VAR) {
    if (class_sub(v->cls, t->cls)) {
      v->ref = t;
      return true;
    }
    if (class_sub(t->cls, v->cls)) {
      t->ref = v;
      return true;
    }
    return false;
  }
  if (!class_has(v->cls, t->k)) return false;
  if (occurs(v, t)) return false;
  v->ref = t;
  return true;
}

static bool unify(NlType *a, NlType *b) {
  a = R(a);
  b = R(b);
  if (a == b) return true;
  if (a->k == TY_VAR) return bind_var(a, b);
  if (b->k == TY_VAR) return bind_var(b, a);
  if (a->k != b->k) return false;
  switch (a->k) {
  case TY_SEQ: return unify(a->a, b->a);
  case TY_PAIR:
  case TY_FUN:
    /* NESL.md 3.4: two different functions never have the same type */
    if (a->fnid && b->fnid && !unify(a->fnid, b->fnid)) return false;
    return unify(a->a, b->a) && unify(a->b, b->b);
  case TY_FNID: return a->id == b->id;
  case TY_DATA:
    if (a->dt != b->dt) return false;
    for (int i = 0; i < a->nargs; i++)
      if (!unify(a->args[i], b->args[i])) return false;
    return true;
  default: return true;
  }
}

/* Instantiate a generic type: TY_GEN i becomes fresh[i]. */
static NlType *inst_rec(NlType *t, NlType **fresh) {
  t = R(t);
  switch (t->k) {
  case TY_GEN:
    if (!fresh[t->id]) fresh[t->id] = ty_var(t->cls);
    return fresh[t->id];
  case TY_SEQ: return ty_seq(inst_rec(t->a, fresh));
  case TY_PAIR: return ty_pair(inst_rec(t->a, fresh), inst_rec(t->b, fresh));
  case TY_FUN: {
    NlType *f = ty_fun(inst_rec(t->a, fresh), inst_rec(t->b, fresh));
    f->fnid = t->fnid ? inst_rec(t->fnid, fresh) : NULL;
    return f;
  }
  case TY_DATA: {
    NlType *d = ty_new(TY_DATA);
    d->dt = t->dt;
    d->nargs = t->nargs;
    d->args = NZ_NEWN(g_env->arena, NlType *, t->nargs ? t->nargs : 1);
    for (int i = 0; i < t->nargs; i++) d->args[i] = inst_rec(t->args[i], fresh);
    return d;
  }
  default: return t;
  }
}
static int max_gen(NlType *t) {
  t = R(t);
  switch (t->k) {
  case TY_GEN: return t->id;
  case TY_SEQ: return max_gen(t->a);
  case TY_PAIR:
  case TY_FUN: {
    int a = max_gen(t->a), b = max_gen(t->b);
    int c = t->k == TY_FUN && t->fnid ? max_gen(t->fnid) : -1;
    a = a > b ? a : b;
    return a > c ? a : c;
  }
  case TY_DATA: {
    int m = -1;
    for (int i = 0; i < t->nargs; i++) {
      int x = max_gen(t->args[i]);
      if (x > m) m = x;
    }
    return m;
  }
  default: return -1;
  }
}
/* Instantiate t; when inst is given, *inst gets the fresh variable of each TY_GEN index
 * (an arena array; NULL when t is not generic) and *ninst their number. */
static NlType *instantiate_as(NlType *t, NlType ***inst, int *ninst) {
  int n = max_gen(t) + 1;
  if (inst) {
    *inst = NULL;
    *ninst = 0;
  }
  if (n <= 0) return t;
  NlType **fresh =
      inst ? NZ_NEWN(g_env->arena, NlType *, n) : nz_xcalloc((size_t)n, sizeof *fresh);
  NlType *r = inst_rec(t, fresh);
  if (inst) {
    *inst = fresh;
    *ninst = n;
  } else {
    free(fresh);
  }
  return r;
}
static NlType *instantiate(NlType *t) { return instantiate_as(t, NULL, NULL); }

/* Generalise: every unbound variable becomes TY_GEN (numbered in order of appearance). */
typedef NZ_VEC(NlType *) TyVec;
static NlType *gen_rec(NlType *t, TyVec *vars, int *n) {
  t = R(t);
  switch (t->k) {
  case TY_VAR: {
    int i;
    for (i = 0; i < *n; i++)
      if (vars->v[i] == t) break;
    if (i == *n) {
      nz_vec_push(*vars, t);
      (*n)++;
    }
    NlType *g = ty_new(TY_GEN);
    g->id = i;
    g->cls = t->cls;
    return g;
  }
  case TY_SEQ: return ty_seq(gen_rec(t->a, vars, n));
  case TY_PAIR: return ty_pair(gen_rec(t->a, vars, n), gen_rec(t->b, vars, n));
  case TY_FUN: {
    NlType *f = ty_fun(gen_rec(t->a, vars, n), gen_rec(t->b, vars, n));
    f->fnid = t->fnid ? gen_rec(t->fnid, vars, n) : NULL;
    return f;
  }
  case TY_DATA: {
    NlType *d = ty_new(TY_DATA);
    d->dt = t->dt;
    d->nargs = t->nargs;
    d->args = NZ_NEWN(g_env->arena, NlType *, t->nargs ? t->nargs : 1);
    for (int i = 0; i < t->nargs; i++) d->args[i] = gen_rec(t->args[i], vars, n);
    return d;
  }
  default: return t;
  }
}
static NlType *generalize(NlType *t) {
  TyVec vars = {0};
  int n = 0;
  NlType *r = gen_rec(t, &vars, &n);
  nz_vec_free(vars);
  return r;
}
/* Generalise a function's type, keeping in d which variable became which TY_GEN (the
 * interpreter resolves the body's types through them, NlDecl.gvars). */
static NlType *generalize_fun(NlType *t, NlDecl *d) {
  TyVec vars = {0};
  int n = 0;
  NlType *r = gen_rec(t, &vars, &n);
  d->ngvars = n;
  d->gvars = n ? NZ_NEWN(g_env->arena, NlType *, n) : NULL;
  if (n) memcpy(d->gvars, vars.v, sizeof(NlType *) * (size_t)n);
  nz_vec_free(vars);
  return r;
}

/* ---------- environment ---------- */
NlEnv *nesl_env_new(void) {
  NlEnv *e = nz_xcalloc(1, sizeof *e);
  e->arena = nz_arena_new();
  return e;
}
void nesl_env_free(NlEnv *e) {
  if (!e) return;
  for (int i = 0; i < e->sources.n; i++) nz_source_free(e->sources.v[i]);
  nz_vec_free(e->sources);
  nz_vec_free(e->globals);
  nz_vec_free(e->datatypes);
  nz_arena_free(e->arena);
  free(e);
}

int nesl_global_lookup(NlEnv *env, const char *name) {
  for (int i = env->globals.n - 1; i >= 0; i--)
    if (env->globals.v[i].name == name) return i;
  return -1;
}
static int basis_lookup(NlEnv *env, const char *name) {
  int hi = env->basis_done ? env->nbasis : env->globals.n;
  for (int i = hi - 1; i >= 0; i--)
    if (env->globals.v[i].name == name) return i;
  return -1;
}
int nesl_global_add(NlEnv *env, const char *name, NlType *ty) {
  NlGlobal g = {0};
  g.name = name;
  g.ty = ty;
  g.older = -1;
  nz_vec_push(env->globals, g);
  return env->globals.n - 1;
}

/* NESL.md 4.6: a user function or global redefined with the same type replaces the old
 * definition everywhere, also in the functions defined before (the reference calls
 * globals by name); with a new type, earlier functions keep the old one. Returns the
 * earlier definition that global g replaces, or -1. */
static int same_typed_older(NlEnv *env, int g) {
  if (!env->basis_done) return -1;
  for (int i = g - 1; i >= env->nbasis; i--) {
    if (env->globals.v[i].name != env->globals.v[g].name) continue;
    NzBuf a = {0}, b = {0};
    nesl_type_str(&a, env->globals.v[i].ty);
    nesl_type_str(&b, env->globals.v[g].ty);
    bool same = !strcmp(a.s, b.s);
    nz_buf_free(&a);
    nz_buf_free(&b);
    return same ? i : -1;
  }
  return -1;
}
static NlDatatype *datatype_lookup(NlEnv *env, const char *name) {
  for (int i = env->datatypes.n - 1; i >= 0; i--)
    if (env->datatypes.v[i]->name == name) return env->datatypes.v[i];
  return NULL;
}

/* Operators resolve to these basis names (never to user redefinitions). */
static const char *op_target(const char *op) {
  static const char *map[][2] = {
      {"+", "__add"},   {"-", "__sub"},     {"*", "__mul"},     {"/", "__div"},
      {"==", "__eq"},   {"/=", "__ne"},     {"<", "__lt"},      {">", "__gt"},
      {"<=", "__le"},   {">=", "__ge"},     {"and", "__and"},   {"or", "__or"},
      {"xor", "__xor"}, {"nor", "__nor"}, {"nand", "__nand"},   {"^", "__power"},
      {"++", "append"}, {"||", "__pad"},    {"->", "__read"},   {"<-", "write"},
      {"#", "__length"}, {"@", "__string"}, {"negate", "__neg"}, {"elt", "__elt"},
  };
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (!strcmp(op, map[i][0])) return map[i][1];
  return op;
}

/* ---------- checker state ---------- */
typedef struct {
  const char *name;
  NlType *ty;
  int depth, slot;
} Local;

typedef struct {
  NlEnv *env;
  NZ_VEC(Local) scope;
  NzScopeIndex ix; /* scope's entries by name (a lookup is one probe, not a walk) */
  int depth;
  int nslots[64]; /* per frame depth */
  int in_each;      /* inside the body or sieve of an apply-to-each */
  bool serial_seen; /* the form refers to a serial-only global (NESL.md 4.7) */
  bool failed;
} C;

static void type_err(C *c, NzLoc loc, const char *what, NlType *expected, NlType *found) {
  NzBuf a = {0}, b = {0};
  nesl_type_str(&a, expected);
  nesl_type_str(&b, found);
  nz_error_at(loc, "type mismatch in %s: expected %s, found %s%s", what, a.s, b.s,
              strcmp(a.s, b.s) ? ""
                               : " (different functions: in NESL a function's type includes "
                                 "which function it is)");
  nz_buf_free(&a);
  nz_buf_free(&b);
  c->failed = true;
}

static int new_slot(C *c) { return c->nslots[c->depth]++; }

static void push_local(C *c, const char *name, NlType *ty, int slot) {
  Local l = {name, ty, c->depth, slot};
  nz_vec_push(c->scope, l);
  nz_scope_push(&c->ix, name);
}

/* Drops the locals above the first n. */
static void pop_locals(C *c, int n) {
  c->scope.n = n;
  nz_scope_pop_to(&c->ix, n);
}

static int class_of(const char *name) {
  if (!strcmp(name, "any")) return CL_ANY;
  if (!strcmp(name, "scalar")) return CL_SCALAR;
  if (!strcmp(name, "ordinal")) return CL_ORDINAL;
  if (!strcmp(name, "number")) return CL_NUMBER;
  if (!strcmp(name, "logical")) return CL_LOGICAL;
  return -1;
}

/* Type variables named in a context or met in a signature. */
typedef struct {
  const char *name[64];
  NlType *ty[64];
  int n;
  bool gen;      /* produce TY_GEN (datatype fields) rather than fresh variables */
  bool implicit; /* unknown lower-case names become `any` variables */
} TyVars;

static NlType *conv_type(C *c, NlTyX *x, TyVars *tv) {
  switch (x->k) {
  case TX_SEQ: {
    NlType *a = conv_type(c, x->a, tv);
    return a ? ty_seq(a) : NULL;
  }
  case TX_PAIR:
  case TX_FUN: {
    NlType *a = conv_type(c, x->a, tv), *b = a ? conv_type(c, x->b, tv) : NULL;
    if (!b) return NULL;
    if (x->k == TX_PAIR) return ty_pair(a, b);
    NlType *f = ty_fun(a, b);
    if (tv->gen) f->fnid = NULL; /* a datatype field holds any function of its type */
    return f;
  }
  case TX_NAME: break;
  }
  const char *n = x->name;
  if (x->nargs == 0) {
    if (!strcmp(n, "int")) return ty_base(TY_INT);
    if (!strcmp(n, "float")) return ty_base(TY_FLOAT);
    if (!strcmp(n, "bool")) return ty_base(TY_BOOL);
    if (!strcmp(n, "char")) return ty_base(TY_CHAR);
    for (int i = 0; i < tv->n; i++)
      if (tv->name[i] == n) return tv->ty[i];
  }
  NlDatatype *dt = datatype_lookup(c->env, n);
  if (dt) {
    if (x->nargs != dt->nparams) {
      nz_error_at(x->loc, "datatype %s takes %d type argument%s, not %d", n, dt->nparams,
                  dt->nparams == 1 ? "" : "s", x->nargs);
      c->failed = true;
      return NULL;
    }
    NlType *d = ty_new(TY_DATA);
    d->dt = dt;
    d->nargs = x->nargs;
    d->args = NZ_NEWN(c->env->arena, NlType *, x->nargs ? x->nargs : 1);
    for (int i = 0; i < x->nargs; i++)
      if (!(d->args[i] = conv_type(c, x->args[i], tv))) return NULL;
    return d;
  }
  if (tv->implicit && x->nargs == 0 && tv->n < 64) {
    tv->name[tv->n] = n;
    tv->ty[tv->n] = ty_var(CL_ANY);
    return tv->ty[tv->n++];
  }
  nz_error_at(x->loc, "unknown type '%s'", n);
  c->failed = true;
  return NULL;
}

static bool read_context(C *c, NlCtxEntry *ctx, int n, TyVars *tv) {
  for (int i = 0; i < n; i++) {
    int cl = class_of(ctx[i].cls);
    if (cl < 0) {
      nz_error_at(ctx[i].loc, "unknown type class '%s' (any, number, ordinal, logical, scalar)",
                  ctx[i].cls);
      c->failed = true;
      return false;
    }
    if (tv->n >= 63) {
      nz_error_at(ctx[i].loc, "too many type variables");
      c->failed = true;
      return false;
    }
    tv->name[tv->n] = ctx[i].var;
    if (tv->gen) {
      NlType *g = ty_new(TY_GEN);
      g->id = tv->n;
      g->cls = cl;
      tv->ty[tv->n] = g;
    } else {
      tv->ty[tv->n] = ty_var(cl);
    }
    tv->n++;
  }
  return true;
}

/* ---------- patterns ---------- */
static bool is_special_name(const char *n) {
  return n == nz_intern_cstr("t") || n == nz_intern_cstr("f") || n == nz_intern_cstr("time");
}

static bool check_repeats(C *c, NlPat *q, const char **seen, int *n) {
  switch (q->k) {
  case P_VAR:
    if (is_special_name(q->name)) {
      nz_error_at(q->loc, "'%s' cannot be bound", q->name);
      c->failed = true;
      return false;
    }
    for (int i = 0; i < *n; i++)
      if (seen[i] == q->name) {
        nz_error_at(q->loc, "the variable %s is repeated in a pattern", q->name);
        c->failed = true;
        return false;
      }
    if (*n < 256) seen[(*n)++] = q->name;
    return true;
  case P_PAIR: return check_repeats(c, q->a, seen, n) && check_repeats(c, q->b, seen, n);
  case P_CON: return check_repeats(c, q->a, seen, n);
  }
  return true;
}

/* Match pattern q against type t, declaring its variables (frame slots, or globals when
 * global is set). */
static bool bind_pat(C *c, NlPat *q, NlType *t, bool global) {
  q->ty = t;
  switch (q->k) {
  case P_VAR:
    if (global) {
      q->slot = nesl_global_add(c->env, q->name, t);
    } else {
      q->slot = new_slot(c);
      push_local(c, q->name, t, q->slot);
    }
    return true;
  case P_PAIR: {
    NlType *a = ty_var(CL_ANY), *b = ty_var(CL_ANY);
    NlType *p = ty_pair(a, b);
    if (!unify(t, p)) {
      type_err(c, q->loc, "pattern", p, t);
      return false;
    }
    return bind_pat(c, q->a, a, global) && bind_pat(c, q->b, b, global);
  }
  case P_CON: {
    NlDatatype *dt = datatype_lookup(c->env, q->name);
    if (!dt) {
      nz_error_at(q->loc, "'%s' is not a datatype constructor", q->name);
      c->failed = true;
      return false;
    }
    NlType *fresh[64] = {0};
    /* the fresh variables get their classes from the field type's GENs */
    NlType *fields = inst_rec(dt->fields, fresh);
    NlType *d = ty_new(TY_DATA);
    d->dt = dt;
    d->nargs = dt->nparams;
    d->args = NZ_NEWN(c->env->arena, NlType *, dt->nparams ? dt->nparams : 1);
    for (int i = 0; i < dt->nparams; i++) d->args[i] = fresh[i] ? fresh[i] : ty_var(CL_ANY);
    if (!unify(t, d)) {
      type_err(c, q->loc, "pattern", d, t);
      return false;
    }
    return bind_pat(c, q->a, fields, global);
  }
  }
  return false;
}

static bool bind_pattern(C *c, NlPat *q, NlType *t, bool global) {
  const char *seen[256];
  int n = 0;
  if (!check_repeats(c, q, seen, &n)) return false;
  return bind_pat(c, q, t, global);
}

/* ---------- expressions ---------- */
static NlType *check(C *c, NlExpr *e);

static NlType *check_var(C *c, NlExpr *e) {
  if (!e->op) {
    int i = nz_scope_find(&c->ix, e->name, c->scope.n);
    if (i >= 0) {
      Local *l = &c->scope.v[i];
      e->vk = VK_LOCAL;
      e->up = c->depth - l->depth;
      e->slot = l->slot;
      return l->ty;
    }
  }
  int g = e->op ? basis_lookup(c->env, nz_intern_cstr(op_target(e->name)))
                : nesl_global_lookup(c->env, e->name);
  if (g < 0) {
    if (e->op)
      nz_error_at(e->loc, "operator '%s' is not defined by the basis", e->name);
    else if (e->name == nz_intern_cstr("pair")) /* reserved in the reference (NESL.md 1.5) */
      nz_error_at(e->loc, "'pair' is reserved in NESL: write a pair as (a, b)");
    else
      nz_error_at(e->loc, "undefined variable '%s'", e->name);
    c->failed = true;
    return NULL;
  }
  e->vk = VK_GLOBAL;
  e->slot = g;
  if (c->env->globals.v[g].serial) {
    if (c->in_each) {
      char up[256];
      size_t i;
      for (i = 0; e->name[i] && i < sizeof up - 1; i++) up[i] = (char)toupper((unsigned char)e->name[i]);
      up[i] = 0;
      nz_error_at(e->loc, "Cannot call %s in parallel.", up);
      c->failed = true;
      return NULL;
    }
    c->serial_seen = true;
  }
  return instantiate_as(c->env->globals.v[g].ty, &e->inst, &e->ninst);
}

static const char *callee_name(NlExpr *f) {
  return f->k == E_VAR ? f->name : "a function";
}

static NlType *check_each_body(C *c, NlExpr *e);

static NlType *check_each(C *c, NlExpr *e) {
  int mark = c->scope.n;
  NlType *gts[256];
  if (e->n > 64) {
    nz_error_at(e->loc, "too many generators");
    c->failed = true;
    return NULL;
  }
  for (int i = 0; i < e->n; i++)
    if (!(gts[i] = check(c, e->xs[i]))) return NULL;
  for (int i = 0; i < e->n; i++) {
    NlType *el = ty_var(CL_ANY);
    NlType *s = ty_seq(el);
    if (!unify(gts[i], s)) {
      type_err(c, e->xs[i]->loc, "generator of an apply-to-each", s, gts[i]);
      return NULL;
    }
    if (!bind_pattern(c, e->pats[i], el, false)) return NULL;
  }
  c->in_each++;
  NlType *bt = check_each_body(c, e);
  c->in_each--;
  if (!bt) return NULL;
  pop_locals(c, mark);
  return ty_seq(bt);
}

static NlType *check_each_body(C *c, NlExpr *e) {
  if (e->b) {
    NlType *st = check(c, e->b);
    if (!st) return NULL;
    NlType *bt = ty_base(TY_BOOL);
    if (!unify(st, bt)) {
      type_err(c, e->b->loc, "sieve of an apply-to-each", bt, st);
      return NULL;
    }
  }
  NlType *bt = check(c, e->a);
  if (!bt) return NULL;
  e->a->ty = bt;
  return bt;
}

static NlType *check(C *c, NlExpr *e) {
  NlType *t = NULL;
  switch (e->k) {
  case E_INT: t = ty_base(TY_INT); break;
  case E_FLOAT: t = ty_base(TY_FLOAT); break;
  case E_BOOL: t = ty_base(TY_BOOL); break;
  case E_CHAR: t = ty_base(TY_CHAR); break;
  case E_STRING: t = ty_seq(ty_base(TY_CHAR)); break;
  case E_VAR: t = check_var(c, e); break;
  case E_PAIR: {
    NlType *a = check(c, e->a);
    NlType *b = a ? check(c, e->b) : NULL;
    if (b) t = ty_pair(a, b);
    break;
  }
  case E_CALL: {
    NlType *f = check(c, e->a);
    if (!f) return NULL;
    NlType *arg = check(c, e->b);
    if (!arg) return NULL;
    NlType *fr = R(f);
    if (fr->k == TY_FUN) {
      if (!unify(fr->a, arg)) {
        NzBuf what = {0};
        nz_buf_printf(&what, "argument of %s", callee_name(e->a));
        type_err(c, e->b->loc, what.s, fr->a, arg);
        nz_buf_free(&what);
        return NULL;
      }
      t = fr->b;
    } else {
      NlType *res = ty_var(CL_ANY);
      NlType *want = ty_fun(arg, res);
      if (!unify(f, want)) {
        type_err(c, e->a->loc,
                 "call (not a function; NESL reads `a b` as the call a(b): is an operator or "
                 "a terminator missing?)",
                 want, f);
        return NULL;
      }
      t = res;
    }
    break;
  }
  case E_IF: {
    NlType *ct = check(c, e->a);
    if (!ct) return NULL;
    NlType *bt = ty_base(TY_BOOL);
    if (!unify(ct, bt)) {
      type_err(c, e->a->loc, "condition of if", bt, ct);
      return NULL;
    }
    NlType *a = check(c, e->b);
    NlType *b = a ? check(c, e->c) : NULL;
    if (!b) return NULL;
    if (!unify(a, b)) {
      type_err(c, e->c->loc, "else branch (both branches of if must have the same type)", a, b);
      return NULL;
    }
    t = a;
    break;
  }
  case E_LET: {
    int mark = c->scope.n;
    for (int i = 0; i < e->n; i++) {
      NlType *vt = check(c, e->xs[i]);
      if (!vt || !bind_pattern(c, e->pats[i], vt, false)) return NULL;
    }
    t = check(c, e->a);
    pop_locals(c, mark);
    break;
  }
  case E_SEQ: {
    NlType *el = check(c, e->xs[0]);
    if (!el) return NULL;
    for (int i = 1; i < e->n; i++) {
      NlType *x = check(c, e->xs[i]);
      if (!x) return NULL;
      if (!unify(el, x)) {
        type_err(c, e->xs[i]->loc, "sequence element (all elements must have the same type)",
                 el, x);
        return NULL;
      }
    }
    t = ty_seq(el);
    break;
  }
  case E_EMPTY: {
    TyVars tv = {0};
    NlType *el = conv_type(c, e->tyx, &tv);
    if (el) t = ty_seq(el);
    break;
  }
  case E_RANGE: {
    NlExpr *parts[3] = {e->a, e->b, e->c};
    for (int i = 0; i < 3; i++) {
      if (!parts[i]) continue;
      NlType *x = check(c, parts[i]);
      if (!x) return NULL;
      NlType *it = ty_base(TY_INT);
      if (!unify(x, it)) {
        type_err(c, parts[i]->loc, "range bound", it, x);
        return NULL;
      }
    }
    t = ty_seq(ty_base(TY_INT));
    break;
  }
  case E_EACH: t = check_each(c, e); break;
  case E_LAMBDA: {
    if (c->depth >= 63) {
      nz_error_at(e->loc, "anonymous functions nested too deeply");
      c->failed = true;
      return NULL;
    }
    int mark = c->scope.n;
    c->depth++;
    c->nslots[c->depth] = 0;
    NlType *arg = ty_var(CL_ANY);
    NlType *body = NULL;
    if (bind_pattern(c, e->pats[0], arg, false)) body = check(c, e->a);
    e->nslots = c->nslots[c->depth];
    c->depth--;
    pop_locals(c, mark);
    if (body) {
      t = ty_fun(arg, body);
      t->fnid = ty_fnid();
    }
    break;
  }
  case E_TIME: {
    NlType *a = check(c, e->a);
    if (a) t = ty_pair(a, ty_base(TY_FLOAT));
    break;
  }
  }
  e->ty = t;
  return t;
}

/* The calls whose value is the function's (NlExpr.tail): once their argument
 * is evaluated the caller's frame is dead, and the interpreter lets it go, so a
 * recursive loop keeps one step's values, not every step's. */
static void mark_tail_calls(NlExpr *e) {
  switch (e->k) {
  case E_CALL: e->tail = true; return;
  case E_IF: mark_tail_calls(e->b); mark_tail_calls(e->c); return;
  case E_LET: mark_tail_calls(e->a); return;
  default: return;
  }
}

/* ---------- top level ---------- */
static int check_fun(C *c, NlDecl *d) {
  NlEnv *env = c->env;
  if (is_special_name(d->name)) {
    nz_error_at(d->loc, "'%s' cannot be defined (it is a special symbol)", d->name);
    return 0;
  }
  NlType *sig = NULL;
  if (d->sig) {
    TyVars tv = {0};
    tv.implicit = true;
    if (!read_context(c, d->ctx, d->nctx, &tv)) return 0;
    sig = conv_type(c, d->sig, &tv);
    if (!sig) return 0;
    if (sig->k != TY_FUN) {
      nz_error_at(d->sig->loc, "the signature of %s is not a function type", d->name);
      return 0;
    }
  }
  /* A body for an earlier signature-only declaration fills the same global. */
  int g = nesl_global_lookup(env, d->name);
  bool forward = g >= 0 && !env->globals.v[g].defined && env->globals.v[g].decl &&
                 !env->globals.v[g].decl->body && d->body;
  /* A signature-only declaration names one particular function: its identity is that
   * function's (never a variable, which the printer would list, NESL.md 3.4), and the
   * definition that fills it keeps it. */
  if (!d->body) {
    sig->fnid = ty_fnid();
    g = nesl_global_add(env, d->name, generalize(sig));
    env->globals.v[g].decl = d;
    d->global = g;
    d->ty = env->globals.v[g].ty;
    return 1;
  }
  NlType *ft = ty_fun(ty_var(CL_ANY), ty_var(CL_ANY));
  ft->fnid = forward ? R(env->globals.v[g].ty)->fnid : ty_fnid();
  if (sig && !unify(ft, sig)) nz_die("signature is a function type");
  if (forward) {
    NlType *old = instantiate(env->globals.v[g].ty);
    if (!unify(ft, old)) {
      type_err(c, d->loc, "definition of a declared function", old, ft);
      return 0;
    }
    env->globals.v[g].ty = ft;
  } else {
    g = nesl_global_add(env, d->name, ft);
  }
  env->globals.v[g].decl = d;
  d->global = g;
  c->depth = 0;
  c->nslots[0] = 0;
  pop_locals(c, 0);
  NlType *arg = R(ft)->a, *res = R(ft)->b;
  if (!bind_pattern(c, d->pat, arg, false)) return 0;
  NlType *bt = check(c, d->body);
  if (!bt) return 0;
  mark_tail_calls(d->body);
  if (!unify(res, bt)) {
    NzBuf what = {0};
    nz_buf_printf(&what, "result of %s", d->name);
    type_err(c, d->body->loc, what.s, res, bt);
    nz_buf_free(&what);
    return 0;
  }
  d->nslots = c->nslots[0];
  pop_locals(c, 0);
  env->globals.v[g].serial = c->serial_seen;
  env->globals.v[g].ty = generalize_fun(ft, d);
  if (!forward) env->globals.v[g].older = same_typed_older(env, g);
  d->ty = env->globals.v[g].ty;
  return 1;
}

static bool mentions(NlTyX *x, const char *name) {
  if (!x) return false;
  if (x->k == TX_NAME) {
    if (x->name == name) return true;
    for (int i = 0; i < x->nargs; i++)
      if (mentions(x->args[i], name)) return true;
    return false;
  }
  return mentions(x->a, name) || mentions(x->b, name);
}

static int check_data(C *c, NlDecl *d) {
  NlEnv *env = c->env;
  if (is_special_name(d->name)) {
    nz_error_at(d->loc, "'%s' cannot be defined (it is a special symbol)", d->name);
    return 0;
  }
  for (int i = 0; i < d->nfields; i++)
    if (mentions(d->fields[i], d->name)) {
      nz_error_at(d->fields[i]->loc, "recursive types are not permitted (%s)", d->name);
      return 0;
    }
  TyVars tv = {0};
  tv.gen = true;
  if (!read_context(c, d->ctx, d->nctx, &tv)) return 0;
  NlType *fields = NULL;
  for (int i = d->nfields - 1; i >= 0; i--) {
    NlType *f = conv_type(c, d->fields[i], &tv);
    if (!f) return 0;
    fields = fields ? ty_pair(f, fields) : f;
  }
  NlDatatype *dt = NZ_NEW(env->arena, NlDatatype);
  dt->name = d->name;
  dt->nparams = tv.n;
  dt->fields = fields;
  NlType *dty = ty_new(TY_DATA);
  dty->dt = dt;
  dty->nargs = tv.n;
  dty->args = NZ_NEWN(env->arena, NlType *, tv.n ? tv.n : 1);
  for (int i = 0; i < tv.n; i++) dty->args[i] = tv.ty[i];
  nz_vec_push(env->datatypes, dt);
  NlType *ct = ty_fun(fields, dty);
  ct->fnid = ty_fnid();
  int g = nesl_global_add(env, d->name, ct);
  dt->global = g;
  d->global = g;
  d->ty = env->globals.v[g].ty;
  return 1;
}

int nesl_check_decl(NlEnv *env, NlDecl *d) {
  g_env = env;
  C c = {0};
  c.env = env;
  int ok = 1;
  switch (d->k) {
  case D_FUN: ok = check_fun(&c, d); break;
  case D_DATA: ok = check_data(&c, d); break;
  case D_BIND:
  case D_EXPR: {
    NlType *t = check(&c, d->body);
    if (!t) {
      ok = 0;
      break;
    }
    d->nslots = c.nslots[0];
    d->ty = generalize(t);
    if (d->k == D_BIND) {
      if (!bind_pattern(&c, d->pat, t, true)) {
        ok = 0;
        break;
      }
      /* the globals get generic types */
      NlPat *stack[256];
      int sp = 0;
      stack[sp++] = d->pat;
      while (sp) {
        NlPat *q = stack[--sp];
        if (q->k == P_VAR) {
          env->globals.v[q->slot].ty = generalize(q->ty);
          env->globals.v[q->slot].older = same_typed_older(env, q->slot);
        } else if (sp < 254) {
          if (q->a) stack[sp++] = q->a;
          if (q->b) stack[sp++] = q->b;
        }
      }
    } else {
      d->global = nesl_global_add(env, nz_intern_cstr("it"), d->ty);
      env->globals.v[d->global].older = same_typed_older(env, d->global);
    }
    break;
  }
  default: break;
  }
  nz_vec_free(c.scope);
  nz_scope_free(&c.ix);
  if (c.failed) ok = 0;
  return ok;
}

NlType *nesl_type_from_string(NlEnv *env, const char *s) {
  g_env = env;
  NzSource *src = nz_source_from_string("<primitive type>", s);
  NlTyX *x;
  NlCtxEntry *ctx;
  int n;
  NlType *t = NULL;
  if (nesl_parse_type(src, env->arena, &x, &ctx, &n)) {
    C c = {0};
    c.env = env;
    TyVars tv = {0};
    tv.gen = true;
    if (read_context(&c, ctx, n, &tv)) t = conv_type(&c, x, &tv);
    nz_vec_free(c.scope);
    nz_scope_free(&c.ix);
  }
  nz_source_free(src);
  if (!t) nz_die("bad primitive type '%s'", s);
  if (t->k == TY_FUN) t->fnid = ty_fnid();
  return t;
}
