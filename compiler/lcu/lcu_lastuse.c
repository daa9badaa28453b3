/* lcu_lastuse.c — the last use of each variable in CPU code.
 *
 * A CPU function's variables hold reference-counted arrays. Kept until their
 * scope ends, a recursion keeps every level's arrays alive: a loop of 20,000
 * steps over 10,000 ints held 800 MB. An occurrence of a variable after which
 * no path through the function reads it again is its last use (LcuExpr.last):
 * the λcu interpreter and the generated C then move the value out of the
 * variable instead of taking a new reference, so it dies as soon as its
 * consumer (a kernel, a callee that owns its arguments) lets go of it.
 *
 * The walk goes backwards in evaluation order, which both consumers follow:
 * arguments left to right, a let's right side before its body, an if's
 * condition before one branch, andalso/orelse's second operand only sometimes.
 * Kernel bodies are not CPU code and are never marked. */
#include <stdlib.h>
#include <string.h>

#include "lcu.h"

typedef struct {
  int n;
  unsigned char *live; /* slot -> read later on this path */
  NZ_VEC(LcuExpr *) vars;
} Walk;

static unsigned char *live_copy(const Walk *w, const unsigned char *live) {
  unsigned char *c = nz_xmalloc((size_t)(w->n ? w->n : 1));
  memcpy(c, live, (size_t)w->n);
  return c;
}

static void live_join(const Walk *w, unsigned char *into, unsigned char *from) {
  for (int i = 0; i < w->n; i++) into[i] |= from[i];
  free(from);
}

/* On entry `live` is what is read after e; on exit, what is read from e on. */
static void walk(Walk *w, LcuExpr *e, unsigned char *live) {
  switch (e->kind) {
  case LE_INT: case LE_FLOAT: case LE_BOOL: case LE_CHAR: return;
  case LE_VAR:
    if (e->slot < 0 || e->slot >= w->n) nz_die("lcu_mark_last_uses: unresolved variable %s", e->name);
    e->last = !live[e->slot];
    live[e->slot] = 1;
    nz_vec_push(w->vars, e);
    return;
  case LE_IF: {
    unsigned char *other = live_copy(w, live);
    walk(w, e->args[1], live);
    walk(w, e->args[2], other);
    live_join(w, live, other);
    walk(w, e->args[0], live);
    return;
  }
  case LE_LET:
    walk(w, e->args[1], live);
    for (int b = 0; b < e->nbinds; b++) live[e->binds[b].slot] = 0;
    walk(w, e->args[0], live);
    return;
  case LE_PRIM:
    if ((e->prim == LP_ANDALSO || e->prim == LP_ORELSE) && e->nargs == 2) {
      unsigned char *second = live_copy(w, live);
      walk(w, e->args[1], second);
      live_join(w, live, second);
      walk(w, e->args[0], live);
      return;
    }
    break;
  default: break;
  }
  for (int k = e->nargs - 1; k >= 0; k--) walk(w, e->args[k], live);
}

static int by_address(const void *a, const void *b) {
  const LcuExpr *x = *(LcuExpr *const *)a, *y = *(LcuExpr *const *)b;
  return x < y ? -1 : x > y;
}

void lcu_mark_last_uses(const LcuProgram *p) {
  for (int i = 0; i < p->nfuncs; i++) {
    LcuFunc *f = p->funcs[i];
    Walk w = {f->nslots > f->nparams ? f->nslots : f->nparams, NULL, {0}};
    w.live = nz_xcalloc(1, (size_t)(w.n ? w.n : 1));
    walk(&w, f->body, w.live);
    /* a node reached twice (shared by two places) is never a move */
    if (w.vars.n > 1) qsort(w.vars.v, (size_t)w.vars.n, sizeof *w.vars.v, by_address);
    for (int k = 1; k < w.vars.n; k++)
      if (w.vars.v[k] == w.vars.v[k - 1]) w.vars.v[k]->last = w.vars.v[k - 1]->last = 0;
    free(w.live);
    nz_vec_free(w.vars);
  }
}
