/* fus_cse.c — one value, computed once, in a fused thunk (issue 37). The MAP
 * rule binds a producer's body at the top of each consumer's thunk, and the
 * horizontal merges then put those consumers side by side: n-body's pair
 * kernel computed dx three times, sqrt(r2) three times and m / (r2 sqrt r2)
 * twice per pair. This pass, run on the thunks of each fused kernel:
 *   1. floats lets out of let right-hand sides, and out of the operands of a
 *      primitive, index, tuple or condition when every operand before them
 *      is a variable or a literal (the order of evaluation is unchanged);
 *   2. splits `let (a, b) = (e1, e2)` into `let a = e1 in let b = e2`;
 *   3. propagates copies (`let a = b`) and replaces `let x = e` by x := y
 *      where an enclosing `let y = e` (the same expression, after copies)
 *      is in scope.
 * Sound because every thunk primitive is pure and deterministic: the earlier
 * let dominates the later one, so it computed the same value or faulted first
 * (the interpreter meets the same first fault, at the earlier location).
 * Binders are renamed apart first when the thunk reuses a name, so that no
 * floated let captures anything. */
#include "fus_lcu.h"

static int atomic(const LcuExpr *e) { return e->kind == LE_VAR || e->kind <= LE_CHAR; }

/* A shallow copy of e with its own argument array (bodies may be shared). */
static LcuExpr *clone(LcuProgram *p, const LcuExpr *e) {
  LcuExpr *c = lcu_expr_new(p, e->kind, e->loc);
  *c = *e;
  if (e->nargs) {
    c->args = lcu_exprs(p, e->nargs);
    memcpy(c->args, e->args, sizeof(LcuExpr *) * (size_t)e->nargs);
  }
  return c;
}

/* ------------------------------------------------------ 1-2. flattening */

/* let b = rhs in body, with rhs's own lets floated above and a tuple split. */
static LcuExpr *mk_let(LcuProgram *p, int nb, LcuBinder *b, LcuExpr *rhs, LcuExpr *body, NzLoc loc) {
  if (rhs->kind == LE_LET)
    return lcu_let(p, rhs->nbinds, rhs->binds, rhs->args[0], mk_let(p, nb, b, rhs->args[1], body, loc), rhs->loc);
  if (nb > 1 && rhs->kind == LE_TUPLE && rhs->nargs == nb) {
    LcuExpr *rest = nb == 2 ? rhs->args[1] : lcu_tuple(p, nb - 1, rhs->args + 1, rhs->loc);
    return mk_let(p, 1, b, rhs->args[0], mk_let(p, nb - 1, b + 1, rest, body, loc), loc);
  }
  return lcu_let(p, nb, b, rhs, body, loc);
}

static LcuExpr *flatten(LcuProgram *p, LcuExpr *e) {
  if (atomic(e)) return e;
  if (e->kind == LE_LET) return mk_let(p, e->nbinds, e->binds, flatten(p, e->args[0]), flatten(p, e->args[1]), e->loc);
  LcuExpr *c = clone(p, e);
  for (int i = 0; i < c->nargs; i++) c->args[i] = flatten(p, c->args[i]);
  /* operands evaluated unconditionally and first: a condition, a
   * short circuit's left operand, every operand of the others in order */
  int upto = c->kind == LE_IF || (c->kind == LE_PRIM && (c->prim == LP_ANDALSO || c->prim == LP_ORELSE)) ? 1
             : c->kind == LE_PRIM || c->kind == LE_INDEX || c->kind == LE_TUPLE             ? c->nargs
                                                                                           : 0;
  NZ_VEC(LcuExpr *) lets = {0};
  for (int i = 0; i < upto; i++) {
    while (c->args[i]->kind == LE_LET) {
      nz_vec_push(lets, c->args[i]);
      c->args[i] = c->args[i]->args[1];
    }
    if (!atomic(c->args[i])) break;
  }
  LcuExpr *r = c;
  for (int k = lets.n - 1; k >= 0; k--) r = lcu_let(p, lets.v[k]->nbinds, lets.v[k]->binds, lets.v[k]->args[0], r, lets.v[k]->loc);
  nz_vec_free(lets);
  return r;
}

/* ---------------------------------------------------------- 3. sharing */

typedef struct {
  LcuProgram *p;
  NzScopeIndex avail; /* keys of the enclosing lets' right-hand sides */
  NZ_VEC(const char *) availvar;
  NzScopeIndex sub; /* x := y */
  NZ_VEC(const char *) subto;
  NzBuf key;
} Cse;

/* The text of e as a key (variables by their interned names), or 0 when e
 * is not worth sharing or holds a binder (its names would differ). */
static int put_key(NzBuf *b, const LcuExpr *e) {
  switch (e->kind) {
  case LE_VAR: nz_buf_printf(b, "v%p", (const void *)e->name); return 1;
  case LE_INT: nz_buf_printf(b, "i%d", (int)e->lit.i); return 1;
  case LE_FLOAT: nz_buf_printf(b, "f%a", e->lit.f); return 1;
  case LE_BOOL: nz_buf_printf(b, "b%d", e->lit.b); return 1;
  case LE_CHAR: nz_buf_printf(b, "c%d", e->lit.c); return 1;
  case LE_PRIM: nz_buf_printf(b, "p%d(", (int)e->prim); break;
  case LE_INDEX: nz_buf_puts(b, "x("); break;
  case LE_TUPLE: nz_buf_puts(b, "t("); break;
  case LE_IF: nz_buf_puts(b, "?("); break;
  default: return 0;
  }
  for (int i = 0; i < e->nargs; i++) {
    if (!put_key(b, e->args[i])) return 0;
    nz_buf_putc(b, ',');
  }
  nz_buf_putc(b, ')');
  return 1;
}

static const char *key_of(Cse *c, const LcuExpr *e) {
  if (atomic(e)) return NULL;
  c->key.len = 0;
  if (!put_key(&c->key, e)) return NULL;
  return nz_intern(c->key.s, c->key.len);
}

static LcuExpr *share(Cse *c, LcuExpr *e) {
  LcuProgram *p = c->p;
  if (e->kind == LE_VAR) {
    int j = nz_scope_find(&c->sub, e->name, c->sub.n);
    return j < 0 ? e : lcu_var(p, c->subto.v[j], e->loc);
  }
  if (atomic(e)) return e;
  if (e->kind == LE_LET) {
    LcuExpr *rhs = share(c, e->args[0]);
    if (e->nbinds == 1) {
      const char *x = e->binds[0].name, *y = NULL, *k = NULL;
      if (rhs->kind == LE_VAR) y = rhs->name;
      else if ((k = key_of(c, rhs))) {
        int j = nz_scope_find(&c->avail, k, c->avail.n);
        if (j >= 0) y = c->availvar.v[j];
      }
      if (y) { /* x is y: the let goes */
        int mark = c->sub.n;
        nz_scope_push(&c->sub, x);
        nz_vec_push(c->subto, y);
        LcuExpr *body = share(c, e->args[1]);
        nz_scope_pop_to(&c->sub, mark);
        c->subto.n = mark;
        return body;
      }
      if (k) {
        int mark = c->avail.n;
        nz_scope_push(&c->avail, k);
        nz_vec_push(c->availvar, x);
        LcuExpr *body = share(c, e->args[1]);
        nz_scope_pop_to(&c->avail, mark);
        c->availvar.n = mark;
        return lcu_let(p, 1, e->binds, rhs, body, e->loc);
      }
    }
    return lcu_let(p, e->nbinds, e->binds, rhs, share(c, e->args[1]), e->loc);
  }
  LcuExpr *r = clone(p, e);
  for (int i = 0; i < r->nargs; i++) r->args[i] = share(c, r->args[i]);
  return r;
}

/* ------------------------------------------------------------- driver */

/* Does every let of e bind a name bound nowhere else, nor free, nor a parameter? */
static int names_apart(const LcuExpr *e, NzScopeIndex *seen) {
  if (e->kind == LE_LET)
    for (int b = 0; b < e->nbinds; b++) {
      if (nz_scope_find(seen, e->binds[b].name, seen->n) >= 0) return 0;
      nz_scope_push(seen, e->binds[b].name);
    }
  for (int i = 0; i < e->nargs; i++)
    if (!names_apart(e->args[i], seen)) return 0;
  return 1;
}

void fus_lcu_share_thunk(LcuProgram *p, FusNames *names, LcuThunk *t) {
  NzScopeIndex seen = {0};
  for (int q = 0; q < t->nparams; q++) nz_scope_push(&seen, t->params[q].name);
  const char **fv;
  int nfv = fus_free_vars(t->body, &fv);
  for (int i = 0; i < nfv; i++) nz_scope_push(&seen, fv[i]);
  free(fv);
  LcuExpr *body = names_apart(t->body, &seen) ? t->body : fus_copy_fresh(p, names, t->body, NULL);
  nz_scope_free(&seen);
  Cse c = {.p = p};
  t->body = share(&c, flatten(p, body));
  nz_scope_free(&c.avail);
  nz_scope_free(&c.sub);
  nz_vec_free(c.availvar);
  nz_vec_free(c.subto);
  nz_buf_free(&c.key);
}
