/* fus_prep.c — normalises CPU code before fusion so that every control region
 * is a sequence of `let defs = run k(vars)` over single-SOAC kernels, plus
 * scalar lets that do not depend on the region (paper §9.1: scalar code
 * between invocations is lifted into ONCE kernels). */
#include "fus_lcu.h"

typedef struct {
  LcuProgram *p;
  FusNames *names;
} Prep;

/* ------------------------------------------------------ classification */

static int pure_scalar_code(const LcuExpr *e) {
  switch (e->kind) {
  case LE_RUN:
  case LE_CALL:
  case LE_ARRAY:
    return 0;
  case LE_PRIM:
    if (lcu_prim_info(e->prim)->flags & LPF_CPU) return 0;
    break;
  default:
    break;
  }
  for (int i = 0; i < e->nargs; i++)
    if (!pure_scalar_code(e->args[i])) return 0;
  return 1;
}

static int scalar_type(const LcuType *t) {
  if (!t) return 0;
  if (lcu_type_is_base(t)) return 1;
  if (t->kind != LT_TUPLE || t->n == 0) return 0;
  for (int i = 0; i < t->n; i++)
    if (!lcu_type_is_base(t->elems[i])) return 0;
  return 1;
}

int fus_lcu_let_kind(const LcuExpr *let) {
  const LcuExpr *rhs = let->args[0];
  if (rhs->kind == LE_RUN) {
    const LcuKernel *k = rhs->target;
    if (!k || k->nsoacs != 1 || k->nrets != let->nbinds) return FUS_LET_BARRIER;
    for (int i = 0; i < rhs->nargs; i++)
      if (rhs->args[i]->kind != LE_VAR) return FUS_LET_BARRIER;
    /* The results must be distinct SOAC binders (no parameter passed through,
     * nothing returned twice): then a def is exactly one SOAC output. */
    const LcuSoac *s = &k->soacs[0];
    for (int r = 0; r < k->nrets; r++) {
      int found = 0;
      for (int b = 0; b < s->nbinds; b++) found |= s->binds[b].name == k->rets[r].name;
      for (int q = 0; q < r; q++) found &= k->rets[q].name != k->rets[r].name;
      if (!found) return FUS_LET_BARRIER;
    }
    return FUS_LET_INV;
  }
  if (pure_scalar_code(rhs) && scalar_type(rhs->ty) && lcu_type_arity(rhs->ty) == let->nbinds)
    return FUS_LET_SCALAR;
  return FUS_LET_BARRIER;
}

/* ------------------------------------------------- 1. unique let names */

static void uniq(Prep *pp, LcuExpr *e, FusRen *ren, FusNames *seen) {
  if (e->kind == LE_VAR) {
    const char *to = fus_ren_get(ren, e->name);
    if (to) e->name = to;
    return;
  }
  if (e->kind != LE_LET) {
    for (int i = 0; i < e->nargs; i++) uniq(pp, e->args[i], ren, seen);
    return;
  }
  uniq(pp, e->args[0], ren, seen);
  int mark = ren->n;
  for (int i = 0; i < e->nbinds; i++) {
    const char *nm = e->binds[i].name;
    if (fus_names_has(seen, nm)) {
      const char *f = fus_fresh(pp->names, nm);
      fus_ren_add(ren, nm, f);
      e->binds[i].name = f;
    }
    fus_names_add(seen, e->binds[i].name);
  }
  uniq(pp, e->args[1], ren, seen);
  ren->n = mark;
}

/* ------------------------------------- 2. runs bound by lets, var args */

static void atomize_stmt(Prep *pp, LcuExpr **slot);

static void atomize_expr(Prep *pp, LcuExpr **slot) {
  LcuExpr *e = *slot;
  if (e->kind == LE_LET || e->kind == LE_IF) {
    atomize_stmt(pp, slot);
    return;
  }
  for (int i = 0; i < e->nargs; i++) atomize_expr(pp, &e->args[i]);
}

static void atomize_stmt(Prep *pp, LcuExpr **slot) {
  LcuProgram *p = pp->p;
  for (;;) {
    LcuExpr *e = *slot;
    if (e->kind == LE_RUN) { /* tail position: bind the results, return them */
      const LcuKernel *k = e->target;
      int n = k ? k->nrets : 1;
      LcuBinder *bs = lcu_binders(p, n);
      LcuExpr **vars = lcu_exprs(p, n);
      for (int i = 0; i < n; i++) {
        bs[i] = lcu_binder(fus_fresh(pp->names, "r"), NULL, e->loc);
        vars[i] = lcu_var(p, bs[i].name, e->loc);
      }
      *slot = lcu_let(p, n, bs, e, lcu_tuple(p, n, vars, e->loc), e->loc);
      continue;
    }
    if (e->kind == LE_IF) {
      atomize_expr(pp, &e->args[0]);
      atomize_stmt(pp, &e->args[1]);
      atomize_stmt(pp, &e->args[2]);
      return;
    }
    if (e->kind != LE_LET) {
      atomize_expr(pp, slot);
      return;
    }
    LcuExpr *rhs = e->args[0];
    if (rhs->kind == LE_RUN) {
      for (int i = 0; i < rhs->nargs; i++) {
        if (rhs->args[i]->kind == LE_VAR) continue;
        LcuExpr *arg = rhs->args[i];
        const char *t = fus_fresh(pp->names, "a");
        rhs->args[i] = lcu_var(p, t, arg->loc);
        LcuExpr *bind = lcu_let1(p, t, arg, *slot, arg->loc);
        *slot = bind;
        slot = &bind->args[1];
        atomize_expr(pp, &bind->args[0]);
      }
    } else {
      atomize_expr(pp, &e->args[0]);
    }
    slot = &e->args[1];
  }
}

/* ------------------------------------------- 3. one SOAC per kernel */

/* Renames free occurrences of `from` in e (names are unique per function, so
 * nothing rebinds `from`). */
static void rename_free(LcuExpr *e, const char *from, const char *to) {
  if (e->kind == LE_VAR && e->name == from) e->name = to;
  for (int i = 0; i < e->nargs; i++) rename_free(e->args[i], from, to);
}

typedef struct {
  LcuKernel *orig;
  int n;             /* one piece per SOAC */
  LcuKernel **piece; /* piece j applies SOAC j */
} Fission;

typedef NZ_VEC(const char *) NameVec;

static void soac_refs(const LcuSoac *s, NameVec *out) {
#define ADD_REF(nm)                                                                                \
  do {                                                                                             \
    int seen_ = 0;                                                                                 \
    for (int q_ = 0; q_ < out->n; q_++) seen_ |= out->v[q_] == (nm);                               \
    if (!seen_) nz_vec_push(*out, (nm));                                                           \
  } while (0)
  for (int t = 0; t < s->nthunks; t++)
    for (int u = 0; u < s->thunks[t]->nusing; u++) ADD_REF(s->thunks[t]->usings[u].name);
  if (s->size.kind == LZ_VAR || s->size.kind == LZ_LEN) ADD_REF(s->size.name);
  if (s->outlen.kind == LZ_VAR || s->outlen.kind == LZ_LEN) ADD_REF(s->outlen.name);
#undef ADD_REF
}

static const LcuType *kernel_name_type(const LcuKernel *k, const char *name) {
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].name == name) return k->params[i].ty;
  for (int s = 0; s < k->nsoacs; s++)
    for (int b = 0; b < k->soacs[s].nbinds; b++)
      if (k->soacs[s].binds[b].name == name) return k->soacs[s].binds[b].ty;
  return NULL;
}

static Fission *fission(Prep *pp, LcuKernel *k) {
  LcuProgram *p = pp->p;
  Fission *f = nz_xcalloc(1, sizeof *f);
  f->orig = k;
  f->n = k->nsoacs;
  f->piece = nz_xcalloc((size_t)f->n, sizeof(LcuKernel *));
  for (int j = 0; j < k->nsoacs; j++) {
    const LcuSoac *s = &k->soacs[j];
    LcuKernel *pk = lcu_kernel_add(p, fus_fresh(pp->names, k->name), k->loc);
    LcuSoac *ns = lcu_kernel_add_soac(p, pk, s->kind, s->loc);
    *ns = *s;
    /* a piece captures, and takes, only what its thunks read: a name listed
     * in `using` but never read would make its producer's array look needed */
    for (int t = 0; t < s->nthunks; t++) {
      ns->thunks[t] = lcu_thunk_copy(p, s->thunks[t]);
      fus_recapture(p, ns->thunks[t]);
    }
    NameVec refs = {0};
    soac_refs(ns, &refs);
    pk->nparams = refs.n;
    pk->params = lcu_binders(p, refs.n);
    for (int i = 0; i < refs.n; i++) pk->params[i] = lcu_binder(refs.v[i], kernel_name_type(k, refs.v[i]), k->loc);
    ns->binds = lcu_binders(p, s->nbinds);
    memcpy(ns->binds, s->binds, sizeof(LcuBinder) * (size_t)s->nbinds);
    pk->nrets = s->nbinds;
    pk->rets = lcu_binders(p, s->nbinds);
    const LcuType **tys = nz_xcalloc((size_t)s->nbinds, sizeof *tys);
    for (int b = 0; b < s->nbinds; b++) {
      pk->rets[b] = lcu_binder(s->binds[b].name, NULL, s->loc);
      tys[b] = s->binds[b].ty;
    }
    pk->ret = lcu_type_tuple(s->nbinds, tys);
    free(tys);
    f->piece[j] = pk;
    nz_vec_free(refs);
  }
  return f;
}

typedef struct {
  NZ_VEC(Fission *) done;
} FissionMemo;

/* Does single-SOAC kernel k take a parameter that neither its thunks read
 * (flattening's deferred checks capture their MAP's inputs) nor its sizes or
 * results name? Splitting it drops the parameter, and with it a use that
 * kept its producer's array materialised after fusion (n-body: 18 MB). */
static int takes_unread(const LcuKernel *k) {
  const LcuSoac *s = &k->soacs[0];
  NzScopeIndex read = {0};
  for (int t = 0; t < s->nthunks; t++) {
    const char **fv;
    int n = fus_free_vars(s->thunks[t]->body, &fv);
    for (int i = 0; i < n; i++) nz_scope_push(&read, fv[i]);
    free(fv);
  }
  if (s->size.name) nz_scope_push(&read, s->size.name);
  if (s->outlen.name) nz_scope_push(&read, s->outlen.name);
  for (int r = 0; r < k->nrets; r++) nz_scope_push(&read, k->rets[r].name);
  int unread = 0;
  for (int i = 0; i < k->nparams && !unread; i++) unread = nz_scope_find(&read, k->params[i].name, read.n) < 0;
  nz_scope_free(&read);
  return unread;
}

static Fission *fission_of(Prep *pp, FissionMemo *m, LcuKernel *k) {
  for (int i = 0; i < m->done.n; i++)
    if (m->done.v[i]->orig == k) return m->done.v[i];
  Fission *f = fission(pp, k);
  nz_vec_push(m->done, f);
  return f;
}

/* Replaces `let ds = run K(args) in body` (K with 0 or several SOACs) by a
 * chain of single-SOAC invocations, binding K's results to the same names. */
static void split_invocation(Prep *pp, FissionMemo *m, LcuExpr **slot) {
  LcuProgram *p = pp->p;
  LcuExpr *let = *slot, *run = let->args[0], *body = let->args[1];
  LcuKernel *k = run->target;
  FusRen map = {0}; /* kernel-level name -> CPU name */
  for (int i = 0; i < k->nparams; i++) fus_ren_add(&map, k->params[i].name, run->args[i]->name);
  /* Results: the first return of a SOAC binder takes the def's name; a return
   * of a parameter, or a repeated one, makes the def an alias. */
  for (int r = 0; r < k->nrets; r++) {
    const char *rn = k->rets[r].name, *def = let->binds[r].name;
    const char *cur = fus_ren_get(&map, rn);
    if (cur)
      rename_free(body, def, cur);
    else
      fus_ren_add(&map, rn, def);
  }
  Fission *f = k->nsoacs ? fission_of(pp, m, k) : NULL;
  for (int j = 0; j < k->nsoacs; j++)
    for (int b = 0; b < k->soacs[j].nbinds; b++) {
      const char *bn = k->soacs[j].binds[b].name;
      if (!fus_ren_get(&map, bn)) fus_ren_add(&map, bn, fus_fresh(pp->names, bn));
    }
  LcuExpr *chain = body;
  for (int j = k->nsoacs - 1; j >= 0; j--) {
    LcuKernel *pk = f->piece[j];
    LcuExpr **args = lcu_exprs(p, pk->nparams);
    for (int i = 0; i < pk->nparams; i++) args[i] = lcu_var(p, fus_ren_get(&map, pk->params[i].name), run->loc);
    LcuBinder *bs = lcu_binders(p, pk->nrets);
    for (int b = 0; b < pk->nrets; b++) bs[b] = lcu_binder(fus_ren_get(&map, pk->rets[b].name), NULL, let->loc);
    chain = lcu_let(p, pk->nrets, bs, lcu_run(p, pk->name, pk->nparams, args, run->loc), chain, let->loc);
  }
  *slot = chain;
  fus_ren_free(&map);
}

static void split_stmt(Prep *pp, FissionMemo *m, LcuExpr **slot);

static void split_expr(Prep *pp, FissionMemo *m, LcuExpr **slot) {
  LcuExpr *e = *slot;
  if (e->kind == LE_LET || e->kind == LE_IF) {
    split_stmt(pp, m, slot);
    return;
  }
  for (int i = 0; i < e->nargs; i++) split_expr(pp, m, &e->args[i]);
}

static void split_stmt(Prep *pp, FissionMemo *m, LcuExpr **slot) {
  for (;;) {
    LcuExpr *e = *slot;
    if (e->kind == LE_IF) {
      split_expr(pp, m, &e->args[0]);
      split_stmt(pp, m, &e->args[1]);
      split_stmt(pp, m, &e->args[2]);
      return;
    }
    if (e->kind != LE_LET) {
      split_expr(pp, m, slot);
      return;
    }
    LcuExpr *rhs = e->args[0];
    const LcuKernel *k = rhs->kind == LE_RUN ? rhs->target : NULL;
    if (k && (k->nsoacs != 1 || takes_unread(k)) && k->nrets == e->nbinds) {
      int all_vars = 1;
      for (int i = 0; i < rhs->nargs; i++) all_vars &= rhs->args[i]->kind == LE_VAR;
      if (all_vars) {
        split_invocation(pp, m, slot);
        continue; /* *slot now starts the chain (or the body, for aliases) */
      }
    }
    split_expr(pp, m, &e->args[0]);
    slot = &e->args[1];
  }
}

/* ----------------------------------------- 4. lift dependent scalar code */

static const LcuType *var_type(const LcuExpr *e, const char *name) {
  if (e->kind == LE_VAR && e->name == name) return e->ty;
  for (int i = 0; i < e->nargs; i++) {
    const LcuType *t = var_type(e->args[i], name);
    if (t) return t;
  }
  return NULL;
}

/* let xs = rhs  ==>  let xs = run once_N(fvs)  with
 * kernel once_N(fvs) -> T { let rs = ONCE { () => rhs using fvs } return rs } */
static void lift(Prep *pp, LcuExpr *let) {
  LcuProgram *p = pp->p;
  LcuExpr *rhs = let->args[0];
  const char **fv;
  int nfv = fus_free_vars(rhs, &fv);
  LcuKernel *k = lcu_kernel_add(p, fus_fresh(pp->names, "once"), rhs->loc);
  k->nparams = nfv;
  k->params = lcu_binders(p, nfv);
  LcuBinder *us = lcu_binders(p, nfv);
  LcuExpr **args = lcu_exprs(p, nfv);
  for (int i = 0; i < nfv; i++) {
    k->params[i] = lcu_binder(fv[i], var_type(rhs, fv[i]), rhs->loc);
    us[i] = lcu_binder(fv[i], NULL, rhs->loc);
    args[i] = lcu_var(p, fv[i], rhs->loc);
  }
  k->ret = rhs->ty;
  int n = let->nbinds;
  LcuThunk *t = lcu_thunk_new(p, 0, NULL, rhs, nfv, us, rhs->loc);
  LcuSoac *s = lcu_kernel_add_soac(p, k, LS_ONCE, rhs->loc);
  s->nthunks = 1;
  s->thunks[0] = t;
  s->nbinds = n;
  s->binds = lcu_binders(p, n);
  k->nrets = n;
  k->rets = lcu_binders(p, n);
  for (int i = 0; i < n; i++) {
    s->binds[i] = lcu_binder(fus_fresh(pp->names, let->binds[i].name), NULL, rhs->loc);
    k->rets[i] = lcu_binder(s->binds[i].name, NULL, rhs->loc);
  }
  let->args[0] = lcu_run(p, k->name, nfv, args, rhs->loc);
  free(fv);
}

static void lift_chain(Prep *pp, LcuExpr **slot);

static void lift_expr(Prep *pp, LcuExpr **slot) {
  LcuExpr *e = *slot;
  if (e->kind == LE_LET || e->kind == LE_IF) {
    lift_chain(pp, slot);
    return;
  }
  for (int i = 0; i < e->nargs; i++) lift_expr(pp, &e->args[i]);
}

static void lift_chain(Prep *pp, LcuExpr **slot) {
  FusNames *defs = fus_names_empty(); /* results of the current region's invocations */
  for (;;) {
    LcuExpr *e = *slot;
    if (e->kind == LE_IF) {
      lift_expr(pp, &e->args[0]);
      lift_chain(pp, &e->args[1]);
      lift_chain(pp, &e->args[2]);
      break;
    }
    if (e->kind != LE_LET) {
      lift_expr(pp, slot);
      break;
    }
    int kind = fus_lcu_let_kind(e);
    if (kind == FUS_LET_SCALAR) {
      const char **fv;
      int nfv = fus_free_vars(e->args[0], &fv), dep = 0;
      for (int i = 0; i < nfv; i++) dep |= fus_names_has(defs, fv[i]);
      free(fv);
      if (dep) {
        lift(pp, e);
        kind = FUS_LET_INV;
      }
    }
    if (kind == FUS_LET_INV) {
      for (int i = 0; i < e->nbinds; i++) fus_names_add(defs, e->binds[i].name);
    } else if (kind == FUS_LET_BARRIER) {
      lift_expr(pp, &e->args[0]);
      fus_names_free(defs);
      defs = fus_names_empty();
    }
    slot = &e->args[1];
  }
  fus_names_free(defs);
}

/* ------------------------------------------ 5. hoist pure CPU barriers */

/* A barrier that only builds data on the CPU (an array literal, make_segdes,
 * seg_lengths: no call, no kernel, no effect, no control flow). */
static int pure_cpu(const LcuExpr *e) {
  switch (e->kind) {
  case LE_CALL:
  case LE_RUN:
  case LE_IF:
  case LE_LET:
    return 0;
  case LE_PRIM:
    if (lcu_prim_info(e->prim)->flags & LPF_EFFECT) return 0;
    break;
  default:
    break;
  }
  for (int i = 0; i < e->nargs; i++)
    if (!pure_cpu(e->args[i])) return 0;
  return 1;
}

static void hoist_chain(LcuExpr **slot);

static void hoist_expr(LcuExpr **slot) {
  LcuExpr *e = *slot;
  if (e->kind == LE_LET || e->kind == LE_IF) {
    hoist_chain(slot);
    return;
  }
  for (int i = 0; i < e->nargs; i++) hoist_expr(&e->args[i]);
}

static int binds_any(const LcuExpr *let, const char **names, int n) {
  for (int b = 0; b < let->nbinds; b++)
    for (int i = 0; i < n; i++)
      if (let->binds[b].name == names[i]) return 1;
  return 0;
}

/* A pure CPU barrier moves up the open region, to just after the last let that
 * binds what it reads (or the region's start): the kernels it passes join the
 * region after it. `k1; n = #x; [x]; k2` is `n = #x; [x]; k1; k2`, one region
 * (flattened code builds one-row segment descriptors between kernels). It never
 * passes a barrier, so effects, calls and checks keep their order. */
static void hoist_chain(LcuExpr **slot) {
  LcuExpr **head = NULL; /* the open region's first let */
  for (;;) {
    LcuExpr *e = *slot;
    if (e->kind == LE_IF) {
      hoist_expr(&e->args[0]);
      hoist_chain(&e->args[1]);
      hoist_chain(&e->args[2]);
      break;
    }
    if (e->kind != LE_LET) {
      hoist_expr(slot);
      break;
    }
    if (fus_lcu_let_kind(e) != FUS_LET_BARRIER) {
      if (!head) head = slot;
      slot = &e->args[1];
      continue;
    }
    if (head && pure_cpu(e->args[0])) {
      const char **fv;
      int nfv = fus_free_vars(e->args[0], &fv);
      LcuExpr **to = head; /* after the last let that binds one of fv */
      int passes = 0;      /* kernel runs between `to` and e */
      for (LcuExpr **q = head; q != slot; q = &(*q)->args[1]) {
        if (binds_any(*q, fv, nfv)) {
          to = &(*q)->args[1];
          passes = 0;
        } else if ((*q)->args[0]->kind == LE_RUN) {
          passes = 1;
        }
      }
      free(fv);
      if (passes) {
        *slot = e->args[1];
        e->args[1] = *to;
        *to = e;
        /* the region goes on after e; lets above e that run kernels stay a region */
        head = &e->args[1];
        continue; /* *slot is the let after e */
      }
    }
    hoist_expr(&e->args[0]);
    head = NULL;
    slot = &e->args[1];
  }
}

/* ------------------------- 6. reductions over a segmented space's elements */

/* A REDUCE over the flat elements of segment descriptor D (its size is
 * seg_total(D)) in a function that also runs a SEGREDUCE over D becomes a
 * SEGREDUCE over D (one value per segment) and a REDUCE over those values.
 * The first is then the same SOAC over the same space as the other
 * SEGREDUCE, so a schedule may put both, and the MAP whose values they read,
 * in one pass: n-body's deferred sqrt/division checks reduce the pair
 * kernel's n² values, and before this they were a separate pass that read
 * them back from arrays the pair kernel wrote. Only when every operator is
 * an int or bool one (regrouping is exact for them: the result, and which
 * fault is reported, stay those of the flat reduction) and none is `id`. */
typedef struct {
  NameVec total_of, total; /* `let total[i] = seg_total(total_of[i])` */
  NameVec segred;          /* segment descriptors some SEGREDUCE runs over */
} SegSpaces;

static const char *run_arg(const LcuExpr *run, const LcuKernel *k, const char *param) {
  for (int i = 0; i < k->nparams && i < run->nargs; i++)
    if (k->params[i].name == param && run->args[i]->kind == LE_VAR) return run->args[i]->name;
  return NULL;
}

static void seg_spaces(const LcuExpr *e, SegSpaces *ss) {
  if (e->kind == LE_LET && e->nbinds == 1) {
    const LcuExpr *rhs = e->args[0];
    if (rhs->kind == LE_PRIM && rhs->prim == LP_SEG_TOTAL && rhs->args[0]->kind == LE_VAR) {
      nz_vec_push(ss->total, e->binds[0].name);
      nz_vec_push(ss->total_of, rhs->args[0]->name);
    }
  }
  if (e->kind == LE_LET && e->args[0]->kind == LE_RUN) {
    const LcuKernel *k = e->args[0]->target;
    if (k && k->nsoacs == 1 && k->soacs[0].kind == LS_SEGREDUCE && k->soacs[0].size.kind == LZ_VAR) {
      const char *d = run_arg(e->args[0], k, k->soacs[0].size.name);
      if (d) nz_vec_push(ss->segred, d);
    }
  }
  for (int i = 0; i < e->nargs; i++) seg_spaces(e->args[i], ss);
}

/* The segment descriptor over whose flat elements `let ... = run K(...)`
 * (K a single REDUCE that may be split) reduces, if a SEGREDUCE runs over it. */
static const char *flat_reduce_space(const LcuExpr *let, const SegSpaces *ss) {
  const LcuExpr *run = let->args[0];
  const LcuKernel *k = run->kind == LE_RUN ? run->target : NULL;
  if (!k || k->nsoacs != 1 || k->nrets != let->nbinds) return NULL;
  const LcuSoac *s = &k->soacs[0];
  if (s->kind != LS_REDUCE || s->size.kind != LZ_VAR || s->nbinds < 1 || s->nbinds != k->nrets) return NULL;
  for (int b = 0; b < s->nbinds; b++) {
    LcuTypeKind t = lcu_rop_elem(s->rops[b]);
    if (s->rops[b] == LR_ID || (t != LT_INT && t != LT_BOOL) || k->rets[b].name != s->binds[b].name) return NULL;
  }
  const char *n = run_arg(run, k, s->size.name);
  for (int i = 0; n && i < ss->total.n; i++) {
    if (ss->total.v[i] != n) continue;
    for (int j = 0; j < ss->segred.n; j++)
      if (ss->segred.v[j] == ss->total_of.v[i]) return ss->total_of.v[i];
  }
  return NULL;
}

static LcuKernel *single_soac_kernel(Prep *pp, const char *base, LcuSoacKind kind, NzLoc loc, LcuSoac **out) {
  LcuKernel *k = lcu_kernel_add(pp->p, fus_fresh(pp->names, base), loc);
  *out = lcu_kernel_add_soac(pp->p, k, kind, loc);
  return k;
}

/* The n results of single-SOAC kernel k: its SOAC q binds fresh names after
 * s's, of types tys[b] (NULL: s's own), and k returns them. */
static void soac_results(Prep *pp, LcuKernel *k, LcuSoac *q, const LcuSoac *s, const LcuType **tys, int n) {
  q->binds = lcu_binders(pp->p, n);
  k->nrets = n;
  k->rets = lcu_binders(pp->p, n);
  for (int b = 0; b < n; b++) {
    q->binds[b] = lcu_binder(fus_fresh(pp->names, s->binds[b].name), tys ? tys[b] : s->binds[b].ty, s->loc);
    k->rets[b] = lcu_binder(q->binds[b].name, NULL, s->loc);
  }
}

/* let rs = run K(args) in body  ==>
 *   let ps = run K_seg(args, D) in let rs = run K_all(ps) in body */
static void split_flat_reduce(Prep *pp, LcuExpr *let, const char *d) {
  LcuProgram *p = pp->p;
  LcuExpr *run = let->args[0];
  const LcuKernel *k = run->target;
  const LcuSoac *s = &k->soacs[0];
  int n = s->nbinds;
  NzLoc loc = let->loc;
  const LcuType **arr = nz_xcalloc((size_t)n, sizeof *arr);
  /* K_seg: K's SOAC over D's segments, D as one more parameter */
  LcuSoac *ss;
  LcuKernel *ks = single_soac_kernel(pp, k->name, LS_SEGREDUCE, s->loc, &ss);
  const char *dp = fus_fresh(pp->names, "sd");
  ks->nparams = k->nparams + 1;
  ks->params = lcu_binders(p, ks->nparams);
  memcpy(ks->params, k->params, sizeof(LcuBinder) * (size_t)k->nparams);
  ks->params[k->nparams] = lcu_binder(dp, lcu_type_base(LT_SEGDES), loc);
  *ss = *s;
  ss->kind = LS_SEGREDUCE;
  ss->thunks[0] = lcu_thunk_copy(p, s->thunks[0]);
  ss->size = (LcuSize){LZ_VAR, s->size.loc, 0, dp, -1};
  LcuExpr **sargs = lcu_exprs(p, run->nargs + 1);
  memcpy(sargs, run->args, sizeof(LcuExpr *) * (size_t)run->nargs);
  sargs[run->nargs] = lcu_var(p, d, run->loc);
  LcuBinder *ps = lcu_binders(p, n);
  for (int b = 0; b < n; b++) arr[b] = lcu_type_array(s->binds[b].ty->kind);
  soac_results(pp, ks, ss, s, arr, n);
  for (int b = 0; b < n; b++) ps[b] = lcu_binder(fus_fresh(pp->names, let->binds[b].name), NULL, loc);
  ks->ret = lcu_type_tuple(n, arr);
  /* K_all: the REDUCE of the per-segment values */
  LcuSoac *sa;
  LcuKernel *ka = single_soac_kernel(pp, k->name, LS_REDUCE, s->loc, &sa);
  ka->nparams = n;
  ka->params = lcu_binders(p, n);
  LcuExpr **reads = lcu_exprs(p, n), **aargs = lcu_exprs(p, n);
  const char *i = fus_fresh(pp->names, "i");
  for (int b = 0; b < n; b++) {
    ka->params[b] = lcu_binder(fus_fresh(pp->names, "q"), arr[b], loc);
    reads[b] = lcu_index(p, lcu_var(p, ka->params[b].name, loc), lcu_var(p, i, loc), loc);
    aargs[b] = lcu_var(p, ps[b].name, loc);
  }
  *sa = *s;
  LcuBinder *ip = lcu_binders(p, 1);
  ip[0] = lcu_binder(i, NULL, loc);
  sa->thunks[0] = lcu_thunk_new(p, 1, ip, n == 1 ? reads[0] : lcu_tuple(p, n, reads, loc), 0, NULL, loc);
  fus_recapture(p, sa->thunks[0]);
  sa->size = (LcuSize){LZ_LEN, s->size.loc, 0, ka->params[0].name, -1};
  soac_results(pp, ka, sa, s, NULL, n);
  ka->ret = k->ret;
  LcuExpr *all = lcu_let(p, let->nbinds, let->binds, lcu_run(p, ka->name, n, aargs, run->loc), let->args[1], loc);
  let->nbinds = n;
  let->binds = ps;
  let->args[0] = lcu_run(p, ks->name, run->nargs + 1, sargs, run->loc);
  let->args[1] = all;
  free(arr);
}

static void split_flat_reduces(Prep *pp, LcuExpr *e, const SegSpaces *ss) {
  if (e->kind == LE_LET) {
    const char *d = flat_reduce_space(e, ss);
    if (d) split_flat_reduce(pp, e, d);
  }
  for (int i = 0; i < e->nargs; i++) split_flat_reduces(pp, e->args[i], ss);
}

/* After fusion: a SEGREDUCE that nothing joined (one SOAC in its kernel, int
 * or bool operators) whose values only the next let's REDUCE reads, all of
 * them in order, is one flat REDUCE over D's elements again: the split above
 * bought nothing there, and cost a launch and an array of one value per
 * segment (spmv's index checks). Also a program's own sum of segment sums. */
static int exact_rops(const LcuSoac *s) {
  for (int b = 0; b < s->nrops; b++) {
    LcuTypeKind t = lcu_rop_elem(s->rops[b]);
    if (s->rops[b] == LR_ID || (t != LT_INT && t != LT_BOOL)) return 0;
  }
  return s->nrops == s->nbinds && s->nbinds > 0;
}

/* Is thunk body e the tuple (q_0[i], ..., q_n-1[i]) of K's parameters in order? */
static int reads_params_in_order(const LcuKernel *k, const LcuThunk *t, const LcuExpr *e) {
  int n = k->nparams;
  if (t->nparams != 1 || (n == 1 ? 0 : e->kind != LE_TUPLE || e->nargs != n)) return 0;
  for (int b = 0; b < n; b++) {
    const LcuExpr *x = n == 1 ? e : e->args[b];
    if (x->kind != LE_INDEX || x->args[0]->kind != LE_VAR || x->args[0]->name != k->params[b].name ||
        x->args[1]->kind != LE_VAR || x->args[1]->name != t->params[0].name)
      return 0;
  }
  return 1;
}

static void unsplit(Prep *pp, LcuExpr *e) {
  LcuProgram *p = pp->p;
  for (; e && e->kind == LE_LET; e = e->args[1]) {
    LcuExpr *e2 = e->args[1];
    if (e->args[0]->kind != LE_RUN || !e2 || e2->kind != LE_LET || e2->args[0]->kind != LE_RUN) continue;
    const LcuKernel *ks = lcu_find_kernel(p, e->args[0]->name), *ka = lcu_find_kernel(p, e2->args[0]->name);
    if (!ks || !ka || ks->nsoacs != 1 || ka->nsoacs != 1) continue;
    const LcuSoac *s = &ks->soacs[0], *a = &ka->soacs[0];
    int n = s->nbinds;
    if (s->kind != LS_SEGREDUCE || s->size.kind != LZ_VAR || a->kind != LS_REDUCE || !exact_rops(s) ||
        !exact_rops(a) || a->nbinds != n || ks->nrets != n || e->nbinds != n || ka->nparams != n ||
        e2->args[0]->nargs != n || a->size.kind != LZ_LEN || a->size.name != ka->params[0].name ||
        !reads_params_in_order(ka, a->thunks[0], a->thunks[0]->body))
      continue;
    int ok = 1;
    for (int b = 0; b < n && ok; b++) {
      const LcuExpr *arg = e2->args[0]->args[b];
      ok = ks->rets[b].name == s->binds[b].name && s->rops[b] == a->rops[b] && arg->kind == LE_VAR &&
           arg->name == e->binds[b].name && !fus_occurs(e2->args[1], e->binds[b].name);
    }
    const char *d = ok ? run_arg(e->args[0], ks, s->size.name) : NULL;
    if (!d) continue;
    /* let nt = seg_total(D) in let rs = run K_flat(args, nt) in body */
    NzLoc loc = e->loc;
    LcuSoac *fs;
    LcuKernel *kf = single_soac_kernel(pp, ks->name, LS_REDUCE, s->loc, &fs);
    const char *np = fus_fresh(pp->names, "n"), *nt = fus_fresh(pp->names, "t");
    kf->nparams = ks->nparams + 1;
    kf->params = lcu_binders(p, kf->nparams);
    memcpy(kf->params, ks->params, sizeof(LcuBinder) * (size_t)ks->nparams);
    kf->params[ks->nparams] = lcu_binder(np, lcu_type_base(LT_INT), loc);
    *fs = *s;
    fs->kind = LS_REDUCE;
    fs->thunks[0] = lcu_thunk_copy(p, s->thunks[0]);
    fs->size = (LcuSize){LZ_VAR, s->size.loc, 0, np, -1};
    fs->binds = lcu_binders(p, n);
    kf->nrets = n;
    kf->rets = lcu_binders(p, n);
    for (int b = 0; b < n; b++) {
      fs->binds[b] = lcu_binder(a->binds[b].name, a->binds[b].ty, s->loc);
      kf->rets[b] = lcu_binder(a->binds[b].name, NULL, s->loc);
    }
    kf->ret = ka->ret;
    const LcuExpr *run = e->args[0];
    LcuExpr **args = lcu_exprs(p, run->nargs + 1);
    memcpy(args, run->args, sizeof(LcuExpr *) * (size_t)run->nargs);
    args[run->nargs] = lcu_var(p, nt, loc);
    LcuExpr **da = lcu_exprs(p, 1);
    da[0] = lcu_var(p, d, loc);
    LcuExpr *flat = lcu_let(p, e2->nbinds, e2->binds, lcu_run(p, kf->name, run->nargs + 1, args, run->loc), e2->args[1], loc);
    for (int b = 0; b < e2->nbinds; b++) flat->binds[b].slot = -1;
    LcuBinder *tb = lcu_binders(p, 1);
    tb[0] = lcu_binder(nt, NULL, loc);
    e->nbinds = 1;
    e->binds = tb;
    e->args[0] = lcu_prim(p, LP_SEG_TOTAL, 1, da, loc);
    e->args[1] = flat;
    e = flat; /* the loop goes on after it */
  }
}

/* unsplit goes down a whole chain of lets, so it runs once per chain, at its
 * head: once per let, a chain of n lets cost n^2/2 steps (100,000 lets of
 * tests/sh/lcu_long_chain.sh took 77 s under greedy-down). */
static void unsplit_all(Prep *pp, LcuExpr *e) {
  if (e && e->kind == LE_LET) unsplit(pp, e);
  for (; e && e->kind == LE_LET; e = e->args[1])
    for (int i = 0; i < e->nargs; i++)
      if (i != 1) unsplit_all(pp, e->args[i]);
  if (!e) return;
  for (int i = 0; i < e->nargs; i++) unsplit_all(pp, e->args[i]);
}

void fus_lcu_unsplit_flat_reduces(LcuProgram *p) {
  Prep pp = {p, fus_names_new(p)};
  for (int f = 0; f < p->nfuncs; f++) unsplit_all(&pp, p->funcs[f]->body);
  fus_names_free(pp.names);
}

/* ------------------------------------------------------------- driver */

int fus_lcu_prepare(LcuProgram *p) {
  if (lcu_check(p)) return 1;
  Prep pp = {p, fus_names_new(p)};
  for (int f = 0; f < p->nfuncs; f++) {
    LcuFunc *fn = p->funcs[f];
    FusNames *seen = fus_names_empty();
    for (int i = 0; i < fn->nparams; i++) fus_names_add(seen, fn->params[i].name);
    FusRen ren = {0};
    uniq(&pp, fn->body, &ren, seen);
    fus_ren_free(&ren);
    fus_names_free(seen);
    atomize_stmt(&pp, &fn->body);
  }
  int errs = lcu_check(p);
  if (!errs) {
    FissionMemo m = {0};
    int nf = p->nfuncs; /* fission adds kernels, never functions */
    for (int f = 0; f < nf; f++) split_stmt(&pp, &m, &p->funcs[f]->body);
    for (int i = 0; i < m.done.n; i++) {
      free(m.done.v[i]->piece);
      free(m.done.v[i]);
    }
    nz_vec_free(m.done);
    errs = lcu_check(p);
  }
  if (!errs) {
    int split = 0;
    for (int f = 0; f < p->nfuncs; f++) {
      SegSpaces ss = {0};
      seg_spaces(p->funcs[f]->body, &ss);
      if (ss.segred.n) split = 1, split_flat_reduces(&pp, p->funcs[f]->body, &ss);
      nz_vec_free(ss.total), nz_vec_free(ss.total_of), nz_vec_free(ss.segred);
    }
    if (split) errs = lcu_check(p);
  }
  if (!errs) {
    for (int f = 0; f < p->nfuncs; f++) hoist_chain(&p->funcs[f]->body);
    errs = lcu_check(p);
  }
  if (!errs) {
    for (int f = 0; f < p->nfuncs; f++) lift_chain(&pp, &p->funcs[f]->body);
    errs = lcu_check(p);
  }
  fus_names_free(pp.names);
  return errs;
}
