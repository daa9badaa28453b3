/* mono_check.c — the invariants of a monomorphic program (compiler/mono/README.md):
 *   - every expression and pattern type of a monomorphic form or instance is ground (no
 *     type variable; a function identity is known or "any function");
 *   - every instance's signature is ground, is its generic function's type with its
 *     arguments substituted, and its parameter and body have exactly those types;
 *   - no generic function that has a body is referenced: every such reference names the
 *     instance of its key, at the instance's exact type;
 *   - a reference to a primitive, constructor or value is an instance of its type;
 *   - every call's argument has exactly the callee's parameter type, and the call the
 *     callee's result type;
 *   - instance names are distinct per key and are no name the program or basis defines. */
#include "mono.h"

#define R nesl_type_resolve

typedef struct {
  const MonoProgram *p;
  NzBuf *err;
  int bad;
  const char *where;
} K;

static void fail(K *k, NzLoc loc, const char *fmt, const char *a, NlType *t1, NlType *t2) {
  NzBuf x = {0}, y = {0};
  if (t1) nesl_type_str(&x, t1);
  if (t2) nesl_type_str(&y, t2);
  if (loc.src) nz_buf_printf(k->err, "%s:%d:%d: ", loc.src->name, loc.line, loc.col);
  nz_buf_printf(k->err, "mono check (%s): ", k->where);
  nz_buf_printf(k->err, fmt, a ? a : "", x.s ? x.s : "", y.s ? y.s : "");
  nz_buf_putc(k->err, '\n');
  nz_buf_free(&x);
  nz_buf_free(&y);
  k->bad++;
}

static bool ground(NlType *t) {
  t = t ? R(t) : NULL;
  if (!t) return false;
  switch (t->k) {
  case TY_VAR: case TY_GEN: return false;
  case TY_SEQ: return ground(t->a);
  case TY_PAIR: return ground(t->a) && ground(t->b);
  case TY_FUN:
    if (t->fnid && R(t->fnid)->k != TY_FNID) return false;
    return ground(t->a) && ground(t->b);
  case TY_DATA:
    for (int i = 0; i < t->nargs; i++)
      if (!ground(t->args[i])) return false;
    return true;
  default: return true;
  }
}

static void check_pat(K *k, const NlPat *q) {
  if (!q) return;
  if (!ground(q->ty)) fail(k, q->loc, "pattern %s has type %s, not ground%s", q->name, q->ty, NULL);
  check_pat(k, q->a);
  check_pat(k, q->b);
}

static bool has_body(NlEnv *env, int g) {
  NlDecl *d = env->globals.v[g].decl;
  return d && d->k == D_FUN && d->body;
}

static void check_var(K *k, const NlExpr *e) {
  NlEnv *env = k->p->env;
  if (e->slot < 0 || e->slot >= env->globals.n) {
    fail(k, e->loc, "%s refers to no global%s%s", e->name, NULL, NULL);
    return;
  }
  const NlGlobal *g = &env->globals.v[e->slot];
  int n = mono_ngen(g->ty);
  if (n == 0) {
    if (e->ninst) fail(k, e->loc, "%s is not generic but has type arguments%s%s", e->name, NULL, NULL);
    if (!e->op && e->name != g->name) { /* a copy of a basis function (NAME__basis) */
      int i = mono_find(k->p, mono_key(e->slot, NULL, 0));
      if (i < 0 || k->p->insts.v[i].name != e->name)
        fail(k, e->loc, "%s names neither its global nor a copy of it%s%s", e->name, NULL, NULL);
    }
    return;
  }
  if (e->ninst != n) {
    fail(k, e->loc, "generic %s referenced without its type arguments%s%s", g->name, NULL, NULL);
    return;
  }
  if (!has_body(env, e->slot)) { /* a primitive, constructor or value: a leaf */
    NlType *args[n];
    memset(args, 0, sizeof args);
    if (!mono_match(g->ty, e->ty, args, n))
      fail(k, e->loc, "%s : %s used at %s", g->name, g->ty, e->ty);
    return;
  }
  int i = mono_find(k->p, mono_key(e->slot, e->inst, e->ninst));
  if (i < 0) {
    fail(k, e->loc, "generic function %s is called, not an instance of it%s%s", g->name, NULL, NULL);
    return;
  }
  const MonoInst *in = &k->p->insts.v[i];
  if (in->name != e->name) fail(k, e->loc, "the instance %s is referred to under another name%s%s", in->name, NULL, NULL);
  if (!in->decl) fail(k, e->loc, "the instance %s has no definition%s%s", in->name, NULL, NULL);
  if (!mono_type_fits(in->ty, e->ty)) fail(k, e->loc, "%s has type %s, used at %s", in->name, in->ty, e->ty);
}

static void check_expr(K *k, const NlExpr *e) {
  if (!e) return;
  if (!ground(e->ty)) fail(k, e->loc, "expression type %s%s is not ground%s", "", e->ty, NULL);
  switch (e->k) {
  case E_VAR:
    if (e->vk == VK_GLOBAL) check_var(k, e);
    break;
  case E_CALL: {
    NlType *f = R(e->a->ty);
    if (!f || f->k != TY_FUN) {
      fail(k, e->loc, "call of a non-function (%s%s)%s", "", e->a->ty, NULL);
      break;
    }
    if (!mono_type_fits(f->a, e->b->ty))
      fail(k, e->loc, "argument of %s: parameter type %s, argument type %s",
           e->a->k == E_VAR ? e->a->name : "a function", f->a, e->b->ty);
    if (!mono_type_fits(e->ty, f->b))
      fail(k, e->loc, "result of %s: call typed %s, callee returns %s",
           e->a->k == E_VAR ? e->a->name : "a function", e->ty, f->b);
    break;
  }
  default: break;
  }
  check_expr(k, e->a);
  check_expr(k, e->b);
  check_expr(k, e->c);
  if (e->xs)
    for (int i = 0; i < e->n; i++) check_expr(k, e->xs[i]);
  if (e->pats)
    for (int i = 0; i < e->n; i++) check_pat(k, e->pats[i]);
}

static void check_inst(K *k, int i) {
  const MonoProgram *p = k->p;
  const MonoInst *in = &p->insts.v[i];
  NlEnv *env = p->env;
  NzLoc none = {0};
  k->where = in->name;
  if (!in->decl || !in->decl->body) {
    fail(k, none, "instance %s has no body%s%s", in->name, NULL, NULL);
    return;
  }
  NlDecl *d = in->decl;
  if (!ground(in->ty)) fail(k, d->loc, "instance %s has type %s, not ground%s", in->name, in->ty, NULL);
  NlType *want = mono_subst_gen(p->arena, env->globals.v[in->global].ty, in->args, in->nargs);
  if (!mono_type_fits(want, in->ty) || !mono_type_fits(in->ty, want))
    fail(k, d->loc, "instance %s: type %s, its generic function's at its arguments %s", in->name, in->ty, want);
  if (mono_find(p, in->key) != i) fail(k, d->loc, "two instances of one key (%s)%s%s", in->name, NULL, NULL);
  if (nesl_global_lookup(env, in->name) >= 0)
    fail(k, d->loc, "instance name %s is a global's name%s%s", in->name, NULL, NULL);
  for (int j = 0; j < i; j++)
    if (p->insts.v[j].name == in->name) {
      const MonoInst *o = &p->insts.v[j];
      int r1 = o->global, r2 = in->global;
      while (env->globals.v[r1].older >= 0) r1 = env->globals.v[r1].older;
      while (env->globals.v[r2].older >= 0) r2 = env->globals.v[r2].older;
      if (r1 != r2) fail(k, d->loc, "instance name %s used for two functions%s%s", in->name, NULL, NULL);
    }
  NlType *t = R(in->ty);
  if (t->k != TY_FUN) {
    fail(k, d->loc, "instance %s is not a function (%s)%s", in->name, t, NULL);
    return;
  }
  if (!mono_type_fits(t->a, d->pat->ty) || !mono_type_fits(d->pat->ty, t->a))
    fail(k, d->pat->loc, "parameters of %s: signature %s, pattern %s", in->name, t->a, d->pat->ty);
  if (!mono_type_fits(t->b, d->body->ty))
    fail(k, d->body->loc, "result of %s: signature %s, body %s", in->name, t->b, d->body->ty);
  check_pat(k, d->pat);
  check_expr(k, d->body);
}

/* Instances [ifrom..) and forms [ffrom..): every instance among them defined once. */
static int check_from(const MonoProgram *p, int ifrom, int ffrom, NzBuf *err) {
  K k = {p, err, 0, NULL};
  for (int i = ifrom; i < p->insts.n; i++) check_inst(&k, i);
  int ninst = 0;
  for (int i = ffrom; i < p->forms.n; i++) {
    const MonoForm *f = &p->forms.v[i];
    if (f->k == MF_INST) ninst++;
    if (f->k != MF_MONO) continue;
    const NlDecl *d = f->d;
    k.where = d->k == D_FUN ? d->name : "a top-level form";
    if (d->k == D_FUN && !ground(d->ty))
      fail(&k, d->loc, "function %s has type %s, not ground%s", d->name, d->ty, NULL);
    check_pat(&k, d->pat);
    check_expr(&k, d->body);
  }
  k.where = "program";
  if (ninst != p->insts.n - ifrom) {
    NzLoc none = {0};
    fail(&k, none, "%s%s%s", "not every instance is defined exactly once", NULL, NULL);
  }
  return k.bad;
}

int mono_check(const MonoProgram *p, NzBuf *err) { return check_from(p, 0, 0, err); }

int mono_check_new(MonoProgram *p, NzBuf *err) {
  int bad = check_from(p, p->checked_insts, p->checked_forms, err);
  p->checked_insts = p->insts.n;
  p->checked_forms = p->forms.n;
  return bad;
}
