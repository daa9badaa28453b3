/* nesl_verify.c — the invariants of a checked form, the `ast` stage's checker (`nessie
 * run|emit --check`; compiler/README.md): what the later stages read of the checked AST
 * without looking again. Every expression and pattern has a type; every variable is
 * resolved, a local one to a slot of a frame around it (the form's or function's frame,
 * one more per enclosing lambda), a global one to a global that exists; every pattern
 * variable binds a slot of its frame. */
#include "nesl.h"

typedef struct {
  const NlEnv *env;
  NzBuf *err;
  int bad;
  int frames[256]; /* the frame sizes around the expression, innermost last */
  int depth;
} V;

static void fail(V *v, NzLoc loc, const char *what, const char *name) {
  if (loc.src) nz_buf_printf(v->err, "%s:%d:%d: ", loc.src->name, loc.line, loc.col);
  nz_buf_printf(v->err, "ast check: %s%s%s\n", what, name ? " " : "", name ? name : "");
  v->bad++;
}

/* global: a top-level binding's pattern, whose variables are globals */
static void verify_pat(V *v, const NlPat *q, bool global) {
  if (!q) return;
  if (!q->ty) fail(v, q->loc, "a pattern without a type:", q->name);
  int limit = global ? v->env->globals.n : v->frames[v->depth - 1];
  if (q->k == P_VAR && (q->slot < 0 || q->slot >= limit))
    fail(v, q->loc, global ? "a top-level variable that is no global:" : "a pattern variable outside its frame:",
         q->name);
  verify_pat(v, q->a, global);
  if (q->k == P_PAIR) verify_pat(v, q->b, global);
}

static void verify_expr(V *v, const NlExpr *e) {
  if (!e) return;
  if (!e->ty) fail(v, e->loc, "an expression without a type", NULL);
  if (e->k == E_VAR) {
    if (e->vk == VK_LOCAL) {
      if (e->up < 0 || e->up >= v->depth || e->slot < 0 || e->slot >= v->frames[v->depth - 1 - e->up])
        fail(v, e->loc, "a local variable outside the frames around it:", e->name);
    } else if (e->vk == VK_GLOBAL) {
      if (e->slot < 0 || e->slot >= v->env->globals.n) fail(v, e->loc, "a reference to no global:", e->name);
    } else {
      fail(v, e->loc, "an unresolved variable:", e->name);
    }
  }
  bool frame = e->k == E_LAMBDA;
  if (frame) {
    if (v->depth == (int)(sizeof v->frames / sizeof v->frames[0])) return; /* deeper: not checked */
    v->frames[v->depth++] = e->nslots;
  }
  if (e->pats)
    for (int i = 0; i < e->n; i++) verify_pat(v, e->pats[i], false);
  verify_expr(v, e->a);
  verify_expr(v, e->b);
  verify_expr(v, e->c);
  if (e->xs)
    for (int i = 0; i < e->n; i++) verify_expr(v, e->xs[i]);
  if (frame) v->depth--;
}

int nesl_verify_decl(const NlEnv *env, const NlDecl *d, NzBuf *err) {
  V v = {env, err, 0, {d->nslots}, 1};
  if ((d->k == D_FUN || d->k == D_DATA) && (d->global < 0 || d->global >= env->globals.n))
    fail(&v, d->loc, "a definition of no global:", d->name);
  if ((d->k == D_FUN && d->body) || d->k == D_BIND || d->k == D_EXPR) {
    if (!d->ty) fail(&v, d->loc, "a form without a type", NULL);
    verify_pat(&v, d->pat, d->k == D_BIND);
    verify_expr(&v, d->body);
  }
  return v.bad;
}
