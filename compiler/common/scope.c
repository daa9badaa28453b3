/* scope.c — a stack of bindings indexed by name (NzScopeIndex, nessie.h).
 * The checkers keep their bindings on a stack (λcu's Sym, NESL's Local)
 * and this index beside it: per (interned) name its latest entry, per entry
 * the earlier entry of the same name. A lookup is one probe and a short
 * walk instead of a walk down the whole stack, which made checking a long
 * chain of lets quadratic (λcu: a generated region of 30,000 invocations
 * is one function with 30,000 nested lets). */
#include "nessie.h"

static size_t slot_of(const NzScopeIndex *x, const char *name) {
  size_t h = ((uintptr_t)name >> 4) * 0x9E3779B97F4A7C15ull;
  size_t i = h & (x->hcap - 1);
  while (x->h[i].name && x->h[i].name != name) i = (i + 1) & (x->hcap - 1);
  return i;
}

void nz_scope_push(NzScopeIndex *x, const char *name) {
  if ((x->used + 1) * 2 > x->hcap) { /* grow: rehash the names seen */
    NzScopeSlot *old = x->h;
    size_t oldcap = x->hcap;
    x->hcap = oldcap ? oldcap * 2 : 64;
    x->h = nz_xcalloc(x->hcap, sizeof *x->h);
    for (size_t i = 0; i < oldcap; i++)
      if (old[i].name) x->h[slot_of(x, old[i].name)] = old[i];
    free(old);
  }
  NzScopeSlot *s = &x->h[slot_of(x, name)];
  if (!s->name) {
    s->name = name, s->top = -1;
    x->used++;
  }
  if (x->n == x->cap) {
    x->cap = x->cap ? 2 * x->cap : 64;
    x->prev = nz_xrealloc(x->prev, sizeof(int) * (size_t)x->cap);
    x->names = nz_xrealloc(x->names, sizeof(const char *) * (size_t)x->cap);
  }
  x->prev[x->n] = s->top;
  x->names[x->n] = name;
  s->top = x->n++;
}

int nz_scope_find(const NzScopeIndex *x, const char *name, int limit) {
  if (!x->hcap) return -1;
  const NzScopeSlot *s = &x->h[slot_of(x, name)];
  if (!s->name) return -1;
  int i = s->top;
  while (i >= limit) i = x->prev[i];
  return i;
}

void nz_scope_pop_to(NzScopeIndex *x, int n) {
  while (x->n > n) {
    x->n--;
    x->h[slot_of(x, x->names[x->n])].top = x->prev[x->n];
  }
}

void nz_scope_free(NzScopeIndex *x) {
  free(x->prev), free(x->names), free(x->h);
  *x = (NzScopeIndex){0};
}
