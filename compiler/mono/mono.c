/* mono.c — the monomorphisation pass (mono.h; compiler/mono/README.md).
 *
 * Every runnable form and every non-generic function is copied with each expression's
 * type made ground (a type variable left free by the checker becomes int, the
 * flattener's choice; a free function identity becomes "any function"). A reference to a
 * generic function that has a body (user or basis) asks for the instance of its type
 * variables at that place (matched from the reference's ground type, so recursive calls
 * inside a body, which the checker does not instantiate, find their instance too) and is
 * renamed to it. Instances are made from a worklist: copying an instance's body with its
 * variables bound may ask for more. */
#include "mono.h"

#define R nesl_type_resolve
/* Polymorphic recursion (a generic signature-only declaration called at a bigger type
 * inside the recursion through it) makes instances at ever bigger types: the pass stops
 * at an instance whose type arguments have more than MONO_MAX_SIZE nodes. */
enum { MONO_MAX_INSTS = 20000, MONO_MAX_NAME = 400, MONO_MAX_SIZE = 300 };

typedef struct {
  NlType **vars; /* the generic function's NlDecl.gvars (unbound checker variables) */
  NlType **args; /* what each stands for here */
  int n;
} Subst;

typedef struct {
  const char *name, *argkey;
  int root;
} NameUse;

typedef struct {
  int id;
  const char *name;
  int global; /* the named function it is, or -1 (a lambda) */
} FnName;

/* The pass's state, kept in the program between mono_add calls (MonoProgram.st). */
typedef struct MonoState {
  MonoProgram *p;
  NlEnv *env;
  NlType *t_int;
  NZ_VEC(NameUse) names;
  NZ_VEC(FnName) fnames; /* which function each TY_FNID is (for instance names) */
  int noted;             /* env->globals[0..noted) are in fnames */
  NzScopeIndex keys;     /* entry i: insts[i]'s key (mono_find) */
  int made;              /* insts[0..made) have their definitions */
  NZ_VEC(struct MonoCopy { const NlDecl *orig; NlDecl *copy; }) copies; /* mono_add's functions */
  bool in_basis; /* copying a basis function's body */
  bool failed;
} M;

/* ---------- types ---------- */
static NlType *ty_new(NzArena *a, NlTyKind k) {
  NlType *t = NZ_NEW(a, NlType);
  t->k = k;
  return t;
}

static NlType *ty_data(NzArena *a, NlDatatype *dt, int nargs) {
  NlType *t = ty_new(a, TY_DATA);
  t->dt = dt;
  t->nargs = nargs;
  t->args = NZ_NEWN(a, NlType *, nargs ? nargs : 1);
  return t;
}

static NlType *ground(M *m, NlType *t, const Subst *s);

/* A function identity under s: a TY_FNID, or NULL (any function). */
static NlType *ground_fnid(NlType *f, const Subst *s) {
  f = R(f);
  if (!f) return NULL;
  if (f->k == TY_FNID) return f;
  if (f->k == TY_VAR && s)
    for (int i = 0; i < s->n; i++)
      if (s->vars[i] == f) return s->args[i];
  return NULL;
}

static NlType *ground(M *m, NlType *t, const Subst *s) {
  NzArena *a = m->p->arena;
  t = R(t);
  if (!t) return m->t_int;
  switch (t->k) {
  case TY_INT: case TY_FLOAT: case TY_BOOL: case TY_CHAR: case TY_FNID: return t;
  case TY_VAR:
    if (s)
      for (int i = 0; i < s->n; i++)
        if (s->vars[i] == t) return s->args[i] ? s->args[i] : m->t_int;
    return m->t_int; /* free: any type of its class does; int is in every class */
  case TY_GEN: return m->t_int;
  case TY_SEQ: {
    NlType *r = ty_new(a, TY_SEQ);
    r->a = ground(m, t->a, s);
    return r;
  }
  case TY_PAIR:
  case TY_FUN: {
    NlType *r = ty_new(a, t->k);
    r->a = ground(m, t->a, s);
    r->b = ground(m, t->b, s);
    if (t->k == TY_FUN) r->fnid = ground_fnid(t->fnid, s);
    return r;
  }
  case TY_DATA: {
    NlType *r = ty_data(a, t->dt, t->nargs);
    for (int i = 0; i < t->nargs; i++) r->args[i] = ground(m, t->args[i], s);
    return r;
  }
  }
  return m->t_int;
}

NlType *mono_subst_gen(NzArena *a, NlType *t, NlType **args, int nargs) {
  t = R(t);
  switch (t->k) {
  case TY_GEN: return t->id < nargs ? args[t->id] : t;
  case TY_SEQ: {
    NlType *r = ty_new(a, TY_SEQ);
    r->a = mono_subst_gen(a, t->a, args, nargs);
    return r;
  }
  case TY_PAIR:
  case TY_FUN: {
    NlType *r = ty_new(a, t->k);
    r->a = mono_subst_gen(a, t->a, args, nargs);
    r->b = mono_subst_gen(a, t->b, args, nargs);
    if (t->k == TY_FUN && t->fnid) {
      NlType *f = R(t->fnid);
      r->fnid = f->k == TY_GEN ? (f->id < nargs ? args[f->id] : NULL) : f->k == TY_FNID ? f : NULL;
    }
    return r;
  }
  case TY_DATA: {
    NlType *r = ty_data(a, t->dt, t->nargs);
    for (int i = 0; i < t->nargs; i++) r->args[i] = mono_subst_gen(a, t->args[i], args, nargs);
    return r;
  }
  default: return t;
  }
}

int mono_ngen(NlType *t) {
  t = R(t);
  if (!t) return 0;
  int m = 0;
  switch (t->k) {
  case TY_GEN: return t->id + 1;
  case TY_SEQ: return mono_ngen(t->a);
  case TY_PAIR:
  case TY_FUN: {
    int x = mono_ngen(t->a), y = mono_ngen(t->b);
    m = x > y ? x : y;
    if (t->k == TY_FUN && t->fnid) {
      int z = mono_ngen(t->fnid);
      if (z > m) m = z;
    }
    return m;
  }
  case TY_DATA:
    for (int i = 0; i < t->nargs; i++) {
      int x = mono_ngen(t->args[i]);
      if (x > m) m = x;
    }
    return m;
  default: return 0;
  }
}

static bool match_rec(NlType *g, NlType *t, NlType **args, bool *set, int n) {
  g = R(g);
  t = R(t);
  if (g->k == TY_GEN) {
    if (g->id >= n) return false;
    if (!set[g->id]) {
      set[g->id] = true;
      args[g->id] = t;
      return true;
    }
    return mono_type_fits(args[g->id], t);
  }
  if (!t || g->k != t->k) return false;
  switch (g->k) {
  case TY_SEQ: return match_rec(g->a, t->a, args, set, n);
  case TY_PAIR: return match_rec(g->a, t->a, args, set, n) && match_rec(g->b, t->b, args, set, n);
  case TY_FUN: {
    if (!match_rec(g->a, t->a, args, set, n) || !match_rec(g->b, t->b, args, set, n)) return false;
    NlType *f = g->fnid ? R(g->fnid) : NULL;
    if (f && f->k == TY_GEN && f->id < n && !set[f->id]) { /* the argument's identity */
      set[f->id] = true;
      args[f->id] = t->fnid ? R(t->fnid) : NULL;
    }
    return true;
  }
  case TY_DATA:
    if (g->dt != t->dt) return false;
    for (int i = 0; i < g->nargs; i++)
      if (!match_rec(g->args[i], t->args[i], args, set, n)) return false;
    return true;
  default: return true;
  }
}

bool mono_match(NlType *g, NlType *t, NlType **args, int nargs) {
  bool set[nargs > 0 ? nargs : 1];
  memset(set, 0, sizeof set);
  return match_rec(g, t, args, set, nargs);
}

bool mono_match_call(NlType *g, NlType *arg, NlType *res, NlType **args, int nargs) {
  g = R(g);
  if (!g || g->k != TY_FUN) return false;
  bool set[nargs > 0 ? nargs : 1];
  memset(set, 0, sizeof set);
  return match_rec(g->a, arg, args, set, nargs) && match_rec(g->b, res, args, set, nargs);
}

static bool fnid_fits(NlType *want, NlType *t) {
  want = want ? R(want) : NULL;
  t = t ? R(t) : NULL;
  if (!want) return true; /* any function of the type */
  if (!t) return false;
  return want->k == TY_FNID && t->k == TY_FNID && want->id == t->id;
}

bool mono_type_fits(NlType *want, NlType *t) {
  want = R(want);
  t = R(t);
  if (!want || !t) return want == t;
  if (want->k != t->k) return false;
  switch (want->k) {
  case TY_SEQ: return mono_type_fits(want->a, t->a);
  case TY_PAIR: return mono_type_fits(want->a, t->a) && mono_type_fits(want->b, t->b);
  case TY_FUN:
    return mono_type_fits(want->a, t->a) && mono_type_fits(want->b, t->b) &&
           fnid_fits(want->fnid, t->fnid);
  case TY_DATA:
    if (want->dt != t->dt) return false;
    for (int i = 0; i < want->nargs; i++)
      if (!mono_type_fits(want->args[i], t->args[i])) return false;
    return true;
  case TY_FNID: return want->id == t->id;
  case TY_VAR: case TY_GEN: return false; /* not ground */
  default: return true;
  }
}

/* ---------- keys and names ---------- */
static void key_type(NzBuf *b, NlType *t) {
  t = t ? R(t) : NULL;
  if (!t) {
    nz_buf_puts(b, "#?");
    return;
  }
  switch (t->k) {
  case TY_INT: nz_buf_putc(b, 'i'); return;
  case TY_FLOAT: nz_buf_putc(b, 'f'); return;
  case TY_BOOL: nz_buf_putc(b, 'b'); return;
  case TY_CHAR: nz_buf_putc(b, 'c'); return;
  case TY_SEQ:
    nz_buf_putc(b, '[');
    key_type(b, t->a);
    nz_buf_putc(b, ']');
    return;
  case TY_PAIR:
  case TY_FUN:
    nz_buf_putc(b, '(');
    key_type(b, t->a);
    nz_buf_puts(b, t->k == TY_PAIR ? "," : "->");
    key_type(b, t->b);
    if (t->k == TY_FUN) key_type(b, t->fnid);
    nz_buf_putc(b, ')');
    return;
  case TY_DATA:
    nz_buf_printf(b, "%s@%p(", t->dt->name, (void *)t->dt);
    for (int i = 0; i < t->nargs; i++) {
      if (i) nz_buf_putc(b, ',');
      key_type(b, t->args[i]);
    }
    nz_buf_putc(b, ')');
    return;
  case TY_FNID: nz_buf_printf(b, "#%d", t->id); return;
  default: nz_buf_putc(b, '?'); return;
  }
}

const char *mono_key(int global, NlType **args, int nargs) {
  NzBuf b = {0};
  nz_buf_printf(&b, "%d:", global);
  for (int i = 0; i < nargs; i++) {
    if (i) nz_buf_putc(&b, ';');
    key_type(&b, args[i]);
  }
  const char *k = nz_intern(b.s, b.len);
  nz_buf_free(&b);
  return k;
}

int mono_find(const MonoProgram *p, const char *key) {
  return nz_scope_find(&p->st->keys, key, p->st->keys.n); /* keys are interned */
}

static int fn_global(M *m, int id) {
  for (int i = 0; i < m->fnames.n; i++)
    if (m->fnames.v[i].id == id) return m->fnames.v[i].global;
  return -1;
}

static const char *fn_name(M *m, int id) {
  for (int i = 0; i < m->fnames.n; i++)
    if (m->fnames.v[i].id == id) return m->fnames.v[i].name;
  return NULL;
}

/* A type as part of an identifier: int, seq_int, tup_int_float, fn_int_to_int, a
 * datatype's name with its arguments, a function identity as the function's name. */
static void mangle(M *m, NzBuf *b, NlType *t) {
  t = t ? R(t) : NULL;
  if (!t) {
    nz_buf_puts(b, "anyfn");
    return;
  }
  switch (t->k) {
  case TY_INT: nz_buf_puts(b, "int"); return;
  case TY_FLOAT: nz_buf_puts(b, "float"); return;
  case TY_BOOL: nz_buf_puts(b, "bool"); return;
  case TY_CHAR: nz_buf_puts(b, "char"); return;
  case TY_SEQ:
    nz_buf_puts(b, "seq_");
    mangle(m, b, t->a);
    return;
  case TY_PAIR:
    nz_buf_puts(b, "tup_");
    mangle(m, b, t->a);
    nz_buf_putc(b, '_');
    mangle(m, b, t->b);
    return;
  case TY_FUN:
    nz_buf_puts(b, "fn_");
    mangle(m, b, t->a);
    nz_buf_puts(b, "_to_");
    mangle(m, b, t->b);
    return;
  case TY_DATA:
    nz_buf_puts(b, t->dt->name);
    for (int i = 0; i < t->nargs; i++) {
      nz_buf_putc(b, '_');
      mangle(m, b, t->args[i]);
    }
    return;
  case TY_FNID: {
    const char *n = fn_name(m, t->id);
    if (n) nz_buf_puts(b, n);
    else nz_buf_printf(b, "fn%d", t->id);
    return;
  }
  default: nz_buf_puts(b, "var"); return;
  }
}

/* The TY_GEN indices of t in order of first appearance in the printed type (argument
 * before result; not the order in which nesl_type_str names them, which is NESL's and
 * may change without renaming instances): with fnids set, those that stand for a
 * function's identity, else the others. */
static void gen_order(NlType *t, int *order, int *k, int n, bool fnids) {
  t = R(t);
  if (!t) return;
  switch (t->k) {
  case TY_GEN:
    if (fnids) return;
    for (int i = 0; i < *k; i++)
      if (order[i] == t->id) return;
    if (*k < n && t->id < n) order[(*k)++] = t->id;
    return;
  case TY_SEQ: gen_order(t->a, order, k, n, fnids); return;
  case TY_PAIR:
  case TY_FUN:
    if (t->k == TY_FUN && fnids && t->fnid && R(t->fnid)->k == TY_GEN) {
      int id = R(t->fnid)->id;
      bool seen = false;
      for (int i = 0; i < *k; i++) seen |= order[i] == id;
      if (!seen && *k < n && id < n) order[(*k)++] = id;
    }
    gen_order(t->a, order, k, n, fnids);
    gen_order(t->b, order, k, n, fnids);
    return;
  case TY_DATA:
    for (int i = 0; i < t->nargs; i++) gen_order(t->args[i], order, k, n, fnids);
    return;
  default: return;
  }
}

static int chain_root(NlEnv *env, int g) {
  while (env->globals.v[g].older >= 0) g = env->globals.v[g].older;
  return g;
}

/* The instance's name: NAME__ARG__..., the same for the same-typed redefinitions of a
 * function (so that the copies replace each other as the originals do, NESL.md 4.6),
 * never a name the program or the basis defines or another instance has. */
static const char *inst_name(M *m, int g, NlType **args, int n) {
  int root = chain_root(m->env, g);
  const char *argkey = mono_key(-1, args, n);
  for (int i = 0; i < m->names.n; i++)
    if (m->names.v[i].root == root && m->names.v[i].argkey == argkey) return m->names.v[i].name;
  NzBuf b = {0};
  nz_buf_puts(&b, m->env->globals.v[g].name);
  int order[n > 0 ? n : 1], k = 0;
  gen_order(m->env->globals.v[g].ty, order, &k, n, true);
  gen_order(m->env->globals.v[g].ty, order, &k, n, false);
  for (int i = 0; i < k; i++) {
    nz_buf_puts(&b, "__");
    mangle(m, &b, args[order[i]]);
  }
  if (n == 0) nz_buf_puts(&b, "__basis"); /* a copy of a non-generic basis function */
  if (b.len > MONO_MAX_NAME) { /* a deep type: a shorter name, made unique below */
    b.len = MONO_MAX_NAME;
    b.s[b.len] = 0;
  }
  size_t base = b.len;
  const char *name = NULL;
  for (int k = 1;; k++) {
    b.len = base;
    b.s[b.len] = 0;
    if (k > 1) nz_buf_printf(&b, "_%d", k);
    name = nz_intern(b.s, b.len);
    bool taken = nesl_global_lookup(m->env, name) >= 0;
    for (int i = 0; i < m->names.n && !taken; i++) taken = m->names.v[i].name == name;
    if (!taken) break;
  }
  nz_buf_free(&b);
  NameUse u = {name, argkey, root};
  nz_vec_push(m->names, u);
  return name;
}

/* ---------- the worklist ---------- */
static bool has_body(NlEnv *env, int g) {
  NlDecl *d = env->globals.v[g].decl;
  return d && d->k == D_FUN && d->body;
}

/* Does redefinition h replace g (same name, same type, NESL.md 4.6)? */
static bool replaces(NlEnv *env, int h, int g) {
  for (int x = env->globals.v[h].older; x >= 0; x = env->globals.v[x].older)
    if (x == g) return true;
  return false;
}

static int type_size(NlType *t, int limit) {
  t = t ? R(t) : NULL;
  if (!t || limit <= 0) return 1;
  switch (t->k) {
  case TY_SEQ: return 1 + type_size(t->a, limit - 1);
  case TY_PAIR:
  case TY_FUN: {
    int a = type_size(t->a, limit - 1);
    return 1 + a + type_size(t->b, limit - 1 - a);
  }
  case TY_DATA: {
    int s = 1;
    for (int i = 0; i < t->nargs && s <= limit; i++) s += type_size(t->args[i], limit - s);
    return s;
  }
  default: return 1;
  }
}

static int request(M *m, int g, NlType **args, int n) {
  MonoProgram *p = m->p;
  if (m->failed) return -1;
  int size = 0;
  for (int i = 0; i < n && size <= MONO_MAX_SIZE; i++) size += type_size(args[i], MONO_MAX_SIZE + 1 - size);
  if (size > MONO_MAX_SIZE || p->insts.n >= MONO_MAX_INSTS) {
    NlDecl *d = m->env->globals.v[g].decl;
    nz_error_at(d->loc, "monomorphisation: %s would need %s (polymorphic recursion through a "
                "signature-only declaration cannot be monomorphised)", d->name,
                size > MONO_MAX_SIZE ? "an instance at a type of more than 300 nodes"
                                     : "more than 20000 instances");
    m->failed = true;
    return -1;
  }
  const char *key = mono_key(g, args, n);
  int i = mono_find(p, key);
  if (i >= 0) return i;
  MonoInst in = {0};
  in.global = g;
  in.nargs = n;
  in.args = NZ_NEWN(p->arena, NlType *, n ? n : 1);
  if (n) memcpy(in.args, args, sizeof(NlType *) * (size_t)n);
  in.key = key;
  in.name = inst_name(m, g, args, n);
  in.ty = mono_subst_gen(p->arena, m->env->globals.v[g].ty, in.args, n);
  in.basis = g < m->env->nbasis;
  nz_vec_push(p->insts, in);
  nz_scope_push(&m->keys, key);
  int r = p->insts.n - 1;
  /* a later same-typed redefinition replaces g also where g is called: its copy too */
  for (int h = g + 1; h < m->env->globals.n; h++)
    if (m->env->globals.v[h].name == m->env->globals.v[g].name && replaces(m->env, h, g) &&
        has_body(m->env, h))
      request(m, h, args, n);
  return r;
}

static NlExpr *copy_expr(M *m, const NlExpr *e, const Subst *s);

static NlPat *copy_pat(M *m, const NlPat *q, const Subst *s) {
  if (!q) return NULL;
  NlPat *c = NZ_NEW(m->p->arena, NlPat);
  *c = *q;
  c->ty = ground(m, q->ty, s);
  c->a = copy_pat(m, q->a, s);
  c->b = copy_pat(m, q->b, s);
  return c;
}

/* A global reference at its ground type: the instance's name for a generic function. */
static void ref_global(M *m, NlExpr *c) {
  NlGlobal *gl = &m->env->globals.v[c->slot];
  int n = mono_ngen(gl->ty);
  c->inst = NULL;
  c->ninst = 0;
  if (n == 0) {
    /* a basis instance may stand after the program's definitions (a datatype it waits
       for): a non-generic basis function it calls that the program redefines is copied
       too (NAME__basis), so that the name means the basis's function there */
    if (m->in_basis && c->slot < m->env->nbasis && !c->op && has_body(m->env, c->slot) &&
        nesl_global_lookup(m->env, gl->name) >= m->env->nbasis) {
      int i = request(m, c->slot, NULL, 0);
      if (i >= 0) c->name = m->p->insts.v[i].name;
    }
    return;
  }
  NlType **args = NZ_NEWN(m->p->arena, NlType *, n);
  if (!mono_match(gl->ty, c->ty, args, n)) {
    NzBuf a = {0}, b = {0};
    nesl_type_str(&a, gl->ty);
    nesl_type_str(&b, c->ty);
    nz_error_at(c->loc, "monomorphisation: %s : %s used at %s (a bug)", gl->name, a.s, b.s);
    nz_buf_free(&a);
    nz_buf_free(&b);
    m->failed = true;
    return;
  }
  c->inst = args;
  c->ninst = n;
  if (!has_body(m->env, c->slot)) return; /* a primitive, constructor or value: a leaf */
  int i = request(m, c->slot, args, n);
  if (i < 0) return;
  c->name = m->p->insts.v[i].name;
  c->op = false; /* `a ++ b` is a call of append's instance */
  /* its exact type: a reference made before the definition, through a signature-only
     declaration, does not know the function's identity */
  c->ty = m->p->insts.v[i].ty;
}

/* A call of a parameter (or other local) whose ground type says it is one named
 * function (NESL.md 3.4) becomes a direct call of that function (its instance for a
 * generic one): the instance keyed by the function is first-order. Not for a lambda (a
 * closure may hold values of where it was made), nor for a function whose name the
 * program defines again with another type (the printed call names it). */
static void direct_call(M *m, NlExpr *c) {
  NlExpr *f = c->a;
  if (f->k != E_VAR || f->vk != VK_LOCAL) return;
  NlType *t = R(f->ty);
  NlType *id = t && t->k == TY_FUN && t->fnid ? R(t->fnid) : NULL;
  if (!id || id->k != TY_FNID) return;
  int g = fn_global(m, id->id);
  if (g < 0 || !has_body(m->env, g)) return;
  for (int h = g + 1; h < m->env->globals.n; h++)
    if (m->env->globals.v[h].name == m->env->globals.v[g].name && !replaces(m->env, h, g)) return;
  NlExpr *v = NZ_NEW(m->p->arena, NlExpr);
  *v = *f;
  v->vk = VK_GLOBAL;
  v->slot = g;
  v->up = 0;
  v->op = false;
  v->name = m->env->globals.v[g].name;
  ref_global(m, v);
  c->a = v;
}

static NlExpr *copy_expr(M *m, const NlExpr *e, const Subst *s) {
  if (!e) return NULL;
  NzArena *a = m->p->arena;
  NlExpr *c = NZ_NEW(a, NlExpr);
  *c = *e;
  c->cached = NULL;
  c->ty = ground(m, e->ty, s);
  c->a = copy_expr(m, e->a, s);
  c->b = copy_expr(m, e->b, s);
  c->c = copy_expr(m, e->c, s);
  if (e->xs) {
    c->xs = NZ_NEWN(a, NlExpr *, e->n ? e->n : 1);
    for (int i = 0; i < e->n; i++) c->xs[i] = copy_expr(m, e->xs[i], s);
  }
  if (e->pats) {
    c->pats = NZ_NEWN(a, NlPat *, e->n ? e->n : 1);
    for (int i = 0; i < e->n; i++) c->pats[i] = copy_pat(m, e->pats[i], s);
  }
  if (e->k == E_VAR && e->vk == VK_GLOBAL) ref_global(m, c);
  if (e->k == E_CALL) direct_call(m, c);
  return c;
}

/* The syntactic type of a ground type (an instance's signature). */
static NlTyX *tyx_of(M *m, NlType *t) {
  NzArena *a = m->p->arena;
  NlTyX *x = NZ_NEW(a, NlTyX);
  t = R(t);
  switch (t->k) {
  case TY_SEQ:
    x->k = TX_SEQ;
    x->a = tyx_of(m, t->a);
    return x;
  case TY_PAIR:
  case TY_FUN:
    x->k = t->k == TY_PAIR ? TX_PAIR : TX_FUN;
    x->a = tyx_of(m, t->a);
    x->b = tyx_of(m, t->b);
    return x;
  case TY_DATA:
    x->k = TX_NAME;
    x->name = t->dt->name;
    x->nargs = t->nargs;
    x->args = NZ_NEWN(a, NlTyX *, t->nargs ? t->nargs : 1);
    for (int i = 0; i < t->nargs; i++) x->args[i] = tyx_of(m, t->args[i]);
    return x;
  default:
    x->k = TX_NAME;
    x->name = t->k == TY_FLOAT ? "float" : t->k == TY_BOOL ? "bool" : t->k == TY_CHAR ? "char" : "int";
    return x;
  }
}

static void make_instance(M *m, int i) {
  MonoInst in = m->p->insts.v[i]; /* a copy: copying the body may grow insts */
  NlDecl *od = m->env->globals.v[in.global].decl;
  if (od->ngvars != in.nargs) {
    nz_error_at(od->loc, "monomorphisation: %s has %d type variables, its type %d (a bug)",
                od->name, od->ngvars, in.nargs);
    m->failed = true;
    return;
  }
  Subst s = {od->gvars, in.args, in.nargs};
  m->in_basis = in.basis;
  NlDecl *d = NZ_NEW(m->p->arena, NlDecl);
  *d = *od;
  d->name = in.name;
  d->pat = copy_pat(m, od->pat, &s);
  d->body = copy_expr(m, od->body, &s);
  d->sig = tyx_of(m, in.ty);
  d->ctx = NULL;
  d->nctx = 0;
  d->ty = in.ty;
  d->gvars = NULL;
  d->ngvars = 0;
  d->global = -1;
  m->p->insts.v[i].decl = d;
  m->in_basis = false;
}

/* A monomorphic form: a copy with ground types and instances called. */
static NlDecl *copy_form(M *m, NlDecl *od) {
  NlDecl *d = NZ_NEW(m->p->arena, NlDecl);
  *d = *od;
  d->pat = copy_pat(m, od->pat, NULL);
  d->body = copy_expr(m, od->body, NULL);
  return d;
}

/* ---------- function names (for instance names) ---------- */
static void note_lambdas(M *m, const NlExpr *e) {
  if (!e) return;
  if (e->k == E_LAMBDA && e->ty && R(e->ty)->k == TY_FUN) {
    NlType *f = R(R(e->ty)->fnid);
    if (f && f->k == TY_FNID) {
      FnName fn = {f->id, nz_sprintf(m->p->arena, "lam%d_%d", e->loc.line, e->loc.col), -1};
      nz_vec_push(m->fnames, fn);
    }
  }
  note_lambdas(m, e->a);
  note_lambdas(m, e->b);
  note_lambdas(m, e->c);
  if (e->xs)
    for (int i = 0; i < e->n; i++) note_lambdas(m, e->xs[i]);
}

/* The named functions among the globals defined since the last call. */
static void note_globals(M *m) {
  NlEnv *env = m->env;
  for (int g = m->noted; g < env->globals.n; g++) {
    NlType *t = R(env->globals.v[g].ty);
    NlType *f = t && t->k == TY_FUN && t->fnid ? R(t->fnid) : NULL;
    if (f && f->k == TY_FNID) {
      FnName fn = {f->id, env->globals.v[g].name, g};
      nz_vec_push(m->fnames, fn);
    }
    if (g < env->nbasis && has_body(env, g)) note_lambdas(m, env->globals.v[g].decl->body);
  }
  m->noted = env->globals.n;
}

static void note_names(M *m, NlDecl **ds, int n) {
  note_globals(m);
  for (int i = 0; i < n; i++)
    if (ds[i]->k == D_FUN || ds[i]->k == D_BIND || ds[i]->k == D_EXPR) note_lambdas(m, ds[i]->body);
}

/* ---------- the program ---------- */
static bool is_generic_fun(NlEnv *env, NlDecl *d) {
  return d->k == D_FUN && d->global >= 0 && mono_ngen(env->globals.v[d->global].ty) > 0;
}

static void add_form(MonoProgram *p, MonoFormKind k, NlDecl *d, int inst) {
  MonoForm f = {k, d, inst};
  nz_vec_push(p->forms, f);
}

/* The last of the program's forms that define a datatype t mentions (-1: none; the
 * basis's datatypes are there from the start). */
static int type_pos(NlEnv *env, const int *dtform, NlType *t) {
  t = t ? R(t) : NULL;
  if (!t) return -1;
  int m = -1, x;
  switch (t->k) {
  case TY_SEQ: return type_pos(env, dtform, t->a);
  case TY_PAIR:
  case TY_FUN:
    m = type_pos(env, dtform, t->a);
    x = type_pos(env, dtform, t->b);
    return m > x ? m : x;
  case TY_DATA:
    for (int j = 0; j < env->datatypes.n; j++)
      if (env->datatypes.v[j] == t->dt) m = dtform[j];
    for (int i = 0; i < t->nargs; i++)
      if ((x = type_pos(env, dtform, t->args[i])) > m) m = x;
    return m;
  default: return -1;
  }
}

/* The last of the forms after which the functions whose identities t holds can be
 * called (-1: none): their definitions, or the signature-only declarations before them
 * (mutual recursion passes a declared function as a value before its body). */
static int fn_pos(M *m, const int *callpos, NlType *t) {
  t = t ? R(t) : NULL;
  if (!t) return -1;
  int a, b;
  switch (t->k) {
  case TY_SEQ: return fn_pos(m, callpos, t->a);
  case TY_PAIR:
  case TY_FUN:
    a = fn_pos(m, callpos, t->a);
    b = fn_pos(m, callpos, t->b);
    if (b > a) a = b;
    if (t->k == TY_FUN && (b = fn_pos(m, callpos, t->fnid)) > a) a = b;
    return a;
  case TY_DATA:
    a = -1;
    for (int i = 0; i < t->nargs; i++)
      if ((b = fn_pos(m, callpos, t->args[i])) > a) a = b;
    return a;
  case TY_FNID: {
    int g = fn_global(m, t->id);
    return g >= m->env->nbasis ? callpos[g] : -1;
  }
  default: return -1;
  }
}

typedef struct {
  int *def_at, *sig_at; /* after which form (-1: first; sig_at -2: none) */
  bool *group;          /* sig_at is a group's: declared once, before the definitions */
  NzScopeIndex seen;    /* instance names declared or defined so far */
} Place;

static void emit_at(MonoProgram *p, Place *pl, int at) {
  for (int k = 0; k < p->insts.n; k++) {
    if (pl->sig_at[k] != at) continue;
    const char *name = p->insts.v[k].name;
    if (pl->group[k] && nz_scope_find(&pl->seen, name, pl->seen.n) >= 0) continue;
    add_form(p, MF_INST_SIG, p->insts.v[k].decl, k);
    nz_scope_push(&pl->seen, name);
  }
  /* The instances of the function defined here first, then those that waited for it (a
   * group, declared above): `scan_op__add__int` calls `add__int`. */
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < p->insts.n; k++)
      if (pl->def_at[k] == at && pl->group[k] == (pass == 1)) {
        add_form(p, MF_INST, p->insts.v[k].decl, k);
        nz_scope_push(&pl->seen, p->insts.v[k].name);
      }
}

/* The program in print order. A user generic function's instances follow its definition,
 * so that the names in their bodies mean what they mean in the original, and a
 * signature-only declaration of it (recursion through it) is followed by theirs. Basis
 * instances come first, declared and then defined: they read only the basis. An
 * instance whose type holds a datatype the program defines later waits for it: it is
 * defined after that datatype, in a group declared first. */
static void order_forms(M *m, NlDecl **ds, int n, NlDecl **copy) {
  MonoProgram *p = m->p;
  NlEnv *env = m->env;
  int ni = p->insts.n, ng = env->globals.n;
  int *dtform = nz_xmalloc(sizeof(int) * (size_t)(env->datatypes.n + 1));
  int *bodypos = nz_xmalloc(sizeof(int) * (size_t)(ng + 1));
  int *sigpos = nz_xmalloc(sizeof(int) * (size_t)(ng + 1));
  int *fwdpos = nz_xmalloc(sizeof(int) * (size_t)(ng + 1));
  int *callpos = nz_xmalloc(sizeof(int) * (size_t)(ng + 1));
  for (int j = 0; j < env->datatypes.n; j++) dtform[j] = -1;
  for (int g = 0; g < ng; g++) bodypos[g] = sigpos[g] = fwdpos[g] = -1;
  for (int i = 0; i < n; i++) {
    NlDecl *d = ds[i];
    if (d->k == D_DATA)
      for (int j = 0; j < env->datatypes.n; j++)
        if (env->datatypes.v[j]->global == d->global) dtform[j] = i;
    if (d->k == D_FUN && d->body && d->global >= 0) bodypos[d->global] = i;
    if (is_generic_fun(env, d) && !d->body && sigpos[d->global] < 0) sigpos[d->global] = i;
    if (d->k == D_FUN && !d->body && d->global >= 0 && fwdpos[d->global] < 0) fwdpos[d->global] = i;
  }
  for (int g = 0; g < ng; g++)
    callpos[g] = fwdpos[g] >= 0 && fwdpos[g] < bodypos[g] ? fwdpos[g] : bodypos[g];
  Place pl = {0};
  pl.def_at = nz_xmalloc(sizeof(int) * (size_t)(ni + 1));
  pl.sig_at = nz_xmalloc(sizeof(int) * (size_t)(ni + 1));
  pl.group = nz_xcalloc((size_t)(ni + 1), sizeof(bool));
  for (int k = 0; k < ni; k++) {
    const MonoInst *in = &p->insts.v[k];
    NlType *ft = R(in->ty); /* its own identity aside: the functions of its arguments */
    int dp = type_pos(env, dtform, in->ty), fp = ft->k == TY_FUN ? fn_pos(m, callpos, ft->a) : -1;
    if (fp > dp) dp = fp; /* a named function it calls directly (direct_call) */
    int h = in->basis ? -1 : bodypos[in->global];
    pl.def_at[k] = h > dp ? h : dp;
    if (in->basis || pl.def_at[k] > h) {
      pl.sig_at[k] = pl.def_at[k];
      pl.group[k] = true;
    } else {
      int sp = sigpos[in->global];
      pl.sig_at[k] = sp < 0 ? -2 : sp > dp ? sp : dp;
    }
  }
  emit_at(p, &pl, -1);
  for (int i = 0; i < n; i++) {
    add_form(p, copy[i] ? MF_MONO : MF_KEEP, copy[i] ? copy[i] : ds[i], -1);
    emit_at(p, &pl, i);
  }
  nz_scope_free(&pl.seen);
  free(pl.def_at);
  free(pl.sig_at);
  free(pl.group);
  free(dtform);
  free(bodypos);
  free(sigpos);
  free(fwdpos);
  free(callpos);
}

MonoProgram *mono_new(NlEnv *env) {
  MonoProgram *p = nz_xcalloc(1, sizeof *p);
  p->env = env;
  p->arena = nz_arena_new();
  M *m = p->st = nz_xcalloc(1, sizeof *m);
  m->p = p;
  m->env = env;
  m->t_int = ty_new(p->arena, TY_INT);
  return p;
}

/* Makes the instances asked for so far (each copy may ask for more); in the pipeline's
 * use (forms), each becomes a form as it is made. */
static void make_instances(M *m, bool forms) {
  for (; m->made < m->p->insts.n && !m->failed; m->made++) {
    make_instance(m, m->made);
    if (forms && !m->failed) add_form(m->p, MF_INST, m->p->insts.v[m->made].decl, m->made);
  }
}

MonoProgram *mono_program(NlEnv *env, NlDecl **ds, int n) {
  MonoProgram *p = mono_new(env);
  M *m = p->st;
  note_names(m, ds, n);
  /* the forms: monomorphic copies, or kept */
  NlDecl **copy = nz_xcalloc((size_t)(n ? n : 1), sizeof *copy);
  for (int i = 0; i < n; i++) {
    NlDecl *d = ds[i];
    bool mono = (d->k == D_FUN && d->body && !is_generic_fun(env, d)) ||
                ((d->k == D_BIND || d->k == D_EXPR) && d->ty && mono_ngen(d->ty) == 0);
    if (mono) copy[i] = copy_form(m, d);
  }
  make_instances(m, false);
  if (!m->failed) order_forms(m, ds, n, copy);
  free(copy);
  if (m->failed) {
    mono_free(p);
    return NULL;
  }
  return p;
}

NlDecl *mono_add(MonoProgram *p, NlDecl *d) {
  M *m = p->st;
  if (m->failed) return NULL;
  note_globals(m);
  if (d->k == D_FUN || d->k == D_BIND || d->k == D_EXPR) note_lambdas(m, d->body);
  NlDecl *c = NULL;
  /* a runnable form is copied also when its own type is generic (mono_program keeps it
     for its printed type): the flattener lowers the copy, every type made ground */
  if ((d->k == D_FUN && d->body && !is_generic_fun(m->env, d)) || ((d->k == D_BIND || d->k == D_EXPR) && d->body)) {
    c = copy_form(m, d);
    if (d->k == D_FUN) {
      struct MonoCopy x = {d, c};
      nz_vec_push(m->copies, x);
    }
  }
  add_form(p, c ? MF_MONO : MF_KEEP, c ? c : d, -1);
  make_instances(m, true);
  return m->failed ? NULL : c ? c : d;
}

NlDecl *mono_callee(MonoProgram *p, const NlDecl *decl, NlType **args, int nargs) {
  M *m = p->st;
  if (m->failed || !decl || decl->k != D_FUN || !decl->body || decl->global < 0) return NULL;
  int g = decl->global, n = mono_ngen(m->env->globals.v[g].ty);
  if (n == 0 && g >= m->env->nbasis) { /* a user function: its form's copy */
    for (int i = m->copies.n - 1; i >= 0; i--)
      if (m->copies.v[i].orig == decl) return m->copies.v[i].copy;
    return NULL;
  }
  if (n != nargs) return NULL;
  int i = request(m, g, args, n); /* a non-generic basis function: its copy NAME__basis */
  make_instances(m, true);
  return i < 0 || m->failed ? NULL : p->insts.v[i].decl;
}

void mono_free(MonoProgram *p) {
  if (!p) return;
  M *m = p->st;
  nz_vec_free(m->names);
  nz_vec_free(m->fnames);
  nz_vec_free(m->copies);
  nz_scope_free(&m->keys);
  free(m);
  nz_vec_free(p->insts);
  nz_vec_free(p->forms);
  nz_arena_free(p->arena);
  free(p);
}
