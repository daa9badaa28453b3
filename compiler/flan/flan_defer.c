/* flan_defer.c — checks that do not split fusion regions.
 *
 * A check is `fail_if(bad, msg)`, a CPU effect, so fusion ends a region at it. A
 * deferred check (flan_check_defer) is instead kept aside in its block and emitted
 * when the block next receives a let that might not run before it, or at the
 * block's end: the fail_ifs then run in source order after a stretch of fusable
 * lets, so the first one that fails is the one the AST interpreter reports
 * (message, location), as before. The lets of the stretch run on data a failed
 * check would have stopped, so they must not fault, loop or have an effect
 * there; a let may join the stretch when
 *   - it is a kernel run or CPU scalar code with no call, no CPU-only primitive
 *     (effects, make_segdes, fail_if), no float -> int or int -> char
 *     conversion (λcu's own faults), and no integer division or remainder by
 *     anything but a non-zero literal, unless the code was built fault-free for
 *     its deferred check (F->defer_safe: NESL's div, rem, mod divide by 1 where
 *     the divisor is 0, and a float division or sqrt only makes NaN or inf);
 *   - no iteration space of its kernel was computed inside the stretch (a size
 *     from garbage could be negative or huge: the name bound by every let of the
 *     stretch is tainted), except the clean sizes #x, seg_total(sd), a literal,
 *     c + 1 of a clean c (put's spare slot) and make_segdes(lens) of lengths
 *     computed before the first pending check, or of a literal array of names
 *     bound before it and non-negative literals (such a make_segdes may join the
 *     stretch; every other one waits, so a segment descriptor never holds a
 *     garbage length).
 * Everything else (calls, which may not terminate; prints; conditionals whose
 * branches run kernels) runs the deferred checks first. Indexing inside kernels
 * must not fault on garbage either: the flattener's own gathers index by shapes,
 * which garbage data do not change (every value keeps as many rows as its shape
 * says), and an index whose check is deferred is guarded where it is used:
 * a[i] and a -> i read 0 or an empty row where the index is bad
 * (flan_gather_guarded), permute scatters over the values' own positions and
 * sends a bad destination to position 0, a range whose check fails is empty, the
 * other generators of an apply-to-each whose length check is pending are copies
 * of the first one's length, and the basis' `if c then __error(s) else x` checks
 * c and runs x, whose own checks guard it (flan_prims.c, flan_lower.c). A NESL
 * index whose check is not deferred runs the pending checks before it. */
#include "flan_int.h"

static bool tainted(const FlBlk *b, const char *name) {
  for (int i = 0; i < b->taint.n; i++)
    if (b->taint.v[i] == name) return true;
  return false;
}

static bool conversion(LcuPrim p) {
  return p == LP_TRUNC || p == LP_FLOOR || p == LP_CEIL || p == LP_ROUND || p == LP_I2C;
}

/* e may run on garbage data without faulting, looping or an effect. */
static bool harmless(const Fl *F, const LcuExpr *e) {
  switch (e->kind) {
  case LE_CALL:
  case LE_RUN:
    return false;
  case LE_PRIM:
    if (lcu_prim_info(e->prim)->flags & LPF_CPU) return false;
    if (conversion(e->prim)) return false;
    if ((e->prim == LP_DIV || e->prim == LP_MOD) && !F->defer_safe &&
        !(e->args[1]->kind == LE_INT && e->args[1]->lit.i != 0))
      return false;
    break;
  default:
    break;
  }
  for (int i = 0; i < e->nargs; i++)
    if (!harmless(F, e->args[i])) return false;
  return true;
}

static bool size_ok(const FlBlk *b, const LcuSize *z) {
  return z->kind != LZ_VAR || !tainted(b, z->name);
}

static bool kernel_ok(const Fl *F, const FlBlk *b, const LcuExpr *run) {
  const LcuKernel *k = lcu_find_kernel(F->p, run->name);
  if (!k) return false;
  for (int s = 0; s < k->nsoacs; s++) {
    const LcuSoac *so = &k->soacs[s];
    if (!size_ok(b, &so->size) || !size_ok(b, &so->outlen)) return false;
    for (int t = 0; t < so->nthunks; t++)
      if (!harmless(F, so->thunks[t]->body)) return false;
  }
  return true;
}

/* make_segdes(lens) of lengths computed before the first pending check: the segment
 * descriptor the program builds whether or not a check fails (the flattener's
 * lengths are never negative: max(l, 0), sums of lengths, or guarded by their own
 * check, which the code computing them does not wait for, flan_prims.c). */
/* e is a literal >= 0 or a name bound before the stretch */
static bool old_len(const FlBlk *b, const LcuExpr *e) {
  if (e->kind == LE_INT) return e->lit.i >= 0;
  if (e->kind != LE_VAR) return false;
  for (int i = b->stretch; i < b->v.n; i++)
    for (int j = 0; j < b->v.v[i].n; j++)
      if (b->v.v[i].b[j].name == e->name) return false;
  return true;
}
static bool clean_segdes(const FlBlk *b, const LcuExpr *rhs) {
  if (rhs->kind != LE_PRIM || rhs->prim != LP_MAKE_SEGDES) return false;
  const LcuExpr *a = rhs->args[0];
  if (a->kind == LE_VAR) return !tainted(b, a->name);
  /* [#x]: a row of an unlifted sequence whose length is known before the stretch
   * (one computed inside it, though clean, would make fusion hoist the make_segdes
   * into the middle of the stretch and split it there) */
  if (a->kind != LE_ARRAY) return false;
  for (int i = 0; i < a->nargs; i++)
    if (!old_len(b, a->args[i])) return false;
  return true;
}

/* v + 1 of a clean v (a spare slot past a size, lp_put) */
static bool clean_succ(const FlBlk *b, const LcuExpr *rhs) {
  return rhs->kind == LE_PRIM && rhs->prim == LP_ADD && rhs->args[0]->kind == LE_VAR &&
         !tainted(b, rhs->args[0]->name) && rhs->args[1]->kind == LE_INT && rhs->args[1]->lit.i == 1;
}

/* A let whose value is never a garbage size: #x, seg_total(sd), a literal, a clean
 * segment descriptor, one more than a clean value. */
static bool shape_let(const FlBlk *b, const LcuExpr *rhs) {
  return (rhs->kind == LE_PRIM && (rhs->prim == LP_LENGTH || rhs->prim == LP_SEG_TOTAL)) ||
         rhs->kind == LE_INT || clean_segdes(b, rhs) || clean_succ(b, rhs);
}

void flan_defer_flush(Fl *F, FlBlk *b) {
  (void)F;
  for (int i = 0; i < b->defer.n; i++) nz_vec_push(b->v, b->defer.v[i]);
  b->defer.n = 0;
  b->taint.n = 0;
}

void flan_defer_before(Fl *F, FlBlk *b, FlBind *x) {
  if (!b->defer.n) return;
  bool ok = x->rhs->kind == LE_RUN ? kernel_ok(F, b, x->rhs) : clean_segdes(b, x->rhs) || harmless(F, x->rhs);
  if (!ok) {
    flan_defer_flush(F, b);
    return;
  }
  if (!shape_let(b, x->rhs))
    for (int i = 0; i < x->n; i++) nz_vec_push(b->taint, x->b[i].name);
}

void flan_defer_push(Fl *F, FlBlk *b, LcuExpr *fail) {
  if (!b->defer.n) b->stretch = b->v.n;
  FlBind x;
  x.n = 1;
  x.b = lcu_binders(F->p, 1);
  x.b[0] = lcu_binder(flan_fresh(F, "t"), NULL, F->uloc);
  x.rhs = fail;
  nz_vec_push(b->defer, x);
}
