/* nesl_interp.c — the reference AST interpreter: NESL's nested semantics evaluated
 * directly on the checked AST (variables already resolved to frame slots and globals).
 * Sequences of scalars are unboxed; run-time values live until exit in a bump heap.
 * Deep recursion is handled by running on a thread with a very large stack. */
#include "nesl.h"
#include <setjmp.h>
#include <stdarg.h>

/* ---------- run-time heap: a precise mark-sweep collector ---------- */
/* Every run-time object has this header in front of it; all objects are on one list. */
typedef struct Obj {
  struct Obj *next;
  uint64_t info; /* size << 2 | pinned << 1 | mark */
} Obj;
static Obj *all_objs;
static size_t bytes_since_gc, bytes_live, gc_threshold = (size_t)64 << 20;
static NlFrame *live_frames; /* innermost live frame; frames link through prev_live */
static NZ_VEC(NlVal *) roots; /* temporaries held in C locals across evaluation */
static NlEnv *E;

static void root_push(NlVal *v) { nz_vec_push(roots, v); }
#define UNROOT(k) (roots.n -= (k))

void *nesl_rt_alloc(size_t n) {
  Obj *o = nz_xmalloc(sizeof(Obj) + n);
  if (n <= 64) memset(o + 1, 0, n); /* small records (functions, frames) start zeroed */
  o->next = all_objs;
  o->info = (uint64_t)n << 2;
  all_objs = o;
  bytes_since_gc += n + sizeof(Obj);
  return o + 1;
}

void nesl_rt_pin(void *p) { ((Obj *)p - 1)->info |= 2; }

void nesl_rt_reset(void) {
  while (all_objs) {
    Obj *n = all_objs->next;
    free(all_objs);
    all_objs = n;
  }
  nz_vec_free(roots);
  bytes_since_gc = bytes_live = 0;
}

/* Set the mark; false if it was already set. */
static bool mark_obj(void *p) {
  Obj *o = (Obj *)p - 1;
  if (o->info & 1) return false;
  o->info |= 1;
  return true;
}
static void mark_val(NlVal v);
static void mark_frames(NlFrame *fr) { /* heap frame copies (lambda closures) */
  while (fr && mark_obj(fr)) {
    for (int i = 0; i < fr->n; i++) mark_val(fr->slots[i]);
    fr = fr->up;
  }
}
static void mark_val(NlVal v) {
  for (;;) {
    switch (v.k) {
    case V_SEQ:
      if (mark_obj(v.s) && v.s->ek == EK_BOXED)
        for (int i = 0; i < v.s->n; i++) mark_val(v.s->v[i]);
      return;
    case V_PAIR:
      if (!mark_obj(v.p)) return;
      mark_val(v.p->a);
      v = v.p->b; /* iterate down right-nested tuples */
      continue;
    case V_FN:
      if (mark_obj(v.fn) && v.fn->frame) mark_frames(v.fn->frame);
      return;
    default: return;
    }
  }
}

static void gc(void) {
  for (int i = 0; i < E->globals.n; i++) mark_val(E->globals.v[i].val);
  for (NlFrame *f = live_frames; f; f = f->prev_live) {
    for (int i = 0; i < f->n; i++) mark_val(f->slots[i]);
    mark_frames(f->up);
  }
  for (int i = 0; i < roots.n; i++) mark_val(*roots.v[i]);
  Obj **pp = &all_objs;
  bytes_live = 0;
  while (*pp) {
    Obj *o = *pp;
    if (o->info & 3) {
      o->info &= ~(uint64_t)1;
      bytes_live += (size_t)(o->info >> 2) + sizeof(Obj);
      pp = &o->next;
    } else {
      *pp = o->next;
      free(o);
    }
  }
  bytes_since_gc = 0;
  gc_threshold = bytes_live > ((size_t)32 << 20) ? 2 * bytes_live : ((size_t)64 << 20);
}

/* NESL_GC_STRESS=1 collects on every function entry (to test the rooting discipline). */
static int gc_stress = -1;
static inline void maybe_gc(void) {
  if (gc_stress < 0) gc_stress = getenv("NESL_GC_STRESS") != NULL;
  if (bytes_since_gc > gc_threshold || (gc_stress && bytes_since_gc > 0)) gc();
}

/* ---------- sequences ---------- */
int nesl_esize(int ek) {
  switch (ek) {
  case EK_INT: return 4;
  case EK_FLOAT: return 8;
  case EK_BOOL:
  case EK_CHAR: return 1;
  default: return (int)sizeof(NlVal);
  }
}

NlSeq *nesl_seq_new(int ek, int n) {
  if (n > (1 << 29)) nesl_rt_error("Sequence too long (%d elements).", n);
  NlSeq *s = nesl_rt_alloc(sizeof(NlSeq) + (size_t)nesl_esize(ek) * (size_t)(n > 0 ? n : 0));
  s->ek = ek;
  s->n = n;
  s->v = (NlVal *)(s + 1);
  if (ek == EK_BOXED && n > 0) memset(s->v, 0, sizeof(NlVal) * (size_t)n);
  return s;
}

NlVal nesl_seq_get(const NlSeq *s, int i) {
  NlVal v;
  switch (s->ek) {
  case EK_INT: v.k = V_INT; v.i = s->i[i]; return v;
  case EK_FLOAT: v.k = V_FLOAT; v.f = s->f[i]; return v;
  case EK_BOOL: v.k = V_BOOL; v.i = s->b[i]; return v;
  case EK_CHAR: v.k = V_CHAR; v.i = s->b[i]; return v;
  default: return s->v[i];
  }
}

void nesl_seq_set(NlSeq *s, int i, NlVal v) {
  switch (s->ek) {
  case EK_INT: s->i[i] = v.i; break;
  case EK_FLOAT: s->f[i] = v.k == V_FLOAT ? v.f : (double)v.i; break;
  case EK_BOOL:
  case EK_CHAR: s->b[i] = (uint8_t)v.i; break;
  default: s->v[i] = v;
  }
}

static int ek_of_val(NlVal v) {
  switch (v.k) {
  case V_INT: return EK_INT;
  case V_FLOAT: return EK_FLOAT;
  case V_BOOL: return EK_BOOL;
  case V_CHAR: return EK_CHAR;
  default: return EK_BOXED;
  }
}

NlVal nesl_seq_from_vals(const NlVal *v, int n, int ek) {
  if (ek < 0) ek = n ? ek_of_val(v[0]) : EK_BOXED;
  NlSeq *s = nesl_seq_new(ek, n);
  for (int i = 0; i < n; i++) nesl_seq_set(s, i, v[i]);
  NlVal r = {.k = V_SEQ};
  r.s = s;
  return r;
}

NlVal nesl_mk_pair(NlVal a, NlVal b) {
  NlPairV *p = nesl_rt_alloc(sizeof *p);
  p->a = a;
  p->b = b;
  NlVal r = {.k = V_PAIR};
  r.p = p;
  return r;
}

int nesl_elem_kind_of_type(NlType *t) {
  t = nesl_type_resolve(t);
  if (!t) return -1;
  switch (t->k) {
  case TY_INT: return EK_INT;
  case TY_FLOAT: return EK_FLOAT;
  case TY_BOOL: return EK_BOOL;
  case TY_CHAR: return EK_CHAR;
  case TY_VAR:
  case TY_GEN: return -1;
  default: return EK_BOXED;
  }
}

/* ---------- errors ---------- */
static NzLoc cur_loc;
static jmp_buf *rt_jmp;

void nesl_set_loc(NzLoc loc) { cur_loc = loc; }

void nesl_rt_error(const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  nz_error_at(cur_loc, "%s", msg);
  if (!rt_jmp) nz_die("run-time error outside evaluation: %s", msg);
  longjmp(*rt_jmp, 1);
}

/* ---------- evaluation ---------- */
static NlVal eval(NlExpr *e, NlFrame *fr);

static void bind_val(NlPat *q, NlVal v, NlFrame *fr) {
  switch (q->k) {
  case P_VAR: fr->slots[q->slot] = v; return;
  case P_PAIR:
    if (v.k != V_PAIR) nz_die("pattern: tuple expected");
    bind_val(q->a, v.p->a, fr);
    bind_val(q->b, v.p->b, fr);
    return;
  case P_CON: bind_val(q->a, v, fr); return;
  }
}

/* Bind a pattern to an expression without building the tuple when both are tuples. */
static void bind_expr(NlPat *q, NlExpr *e, NlFrame *efr, NlFrame *fr) {
  if (q->k == P_PAIR && e->k == E_PAIR) {
    bind_expr(q->a, e->a, efr, fr);
    bind_expr(q->b, e->b, efr, fr);
  } else {
    bind_val(q, eval(e, efr), fr);
  }
}

/* Define global g, and the earlier same-typed definitions it replaces (NlGlobal.older). */
static void set_global(int g, NlVal v) {
  for (; g >= 0; g = E->globals.v[g].older) {
    E->globals.v[g].val = v;
    E->globals.v[g].defined = true;
  }
}

static void bind_global(NlPat *q, NlVal v) {
  switch (q->k) {
  case P_VAR: set_global(q->slot, v); return;
  case P_PAIR:
    bind_global(q->a, v.p->a);
    bind_global(q->b, v.p->b);
    return;
  case P_CON: bind_global(q->a, v); return;
  }
}

static NlVal call_prim(const NlPrim *p, NlVal arg) {
  NlVal a[8];
  for (int i = 0; i < p->arity - 1; i++) {
    if (arg.k != V_PAIR) nz_die("primitive %s: tuple argument expected", p->name);
    a[i] = arg.p->a;
    arg = arg.p->b;
  }
  a[p->arity - 1] = arg;
  return p->fn(a);
}

static NlVal call_prim_expr(const NlPrim *p, NlExpr *arg, NlFrame *fr) {
  NlVal a[8];
  int i = 0;
  int nroots = 0;
  while (i < p->arity - 1 && arg->k == E_PAIR) {
    a[i] = eval(arg->a, fr);
    if (a[i].k > V_CHAR) { /* scalars hold no heap object */
      root_push(&a[i]);
      nroots++;
    }
    i++;
    arg = arg->b;
  }
  NlVal rest = eval(arg, fr);
  UNROOT(nroots);
  for (; i < p->arity - 1; i++) {
    a[i] = rest.p->a;
    rest = rest.p->b;
  }
  a[p->arity - 1] = rest;
  return p->fn(a);
}

/* Where the evaluator's stack starts and how deep it may grow (nesl_run_on_big_stack);
 * how many calls of NESL functions are running (the recursion rule, nz_max_depth). */
static char *stack_base;
static size_t stack_limit;
static int64_t call_depth;

/* drop: the caller's frame when the call is its function's result (NlExpr.tail);
 * its values die once the argument is bound, not when the callee returns. */
static NlVal run_body(NlFn *fn, NlPat *pat, NlExpr *body, int nslots, NlExpr *arge, NlVal argv,
                      NlFrame *efr, NlFrame *up, NlType **inst, NlFrame *drop) {
  char probe;
  if (fn->k == FN_USER && call_depth >= nz_max_depth())
    nesl_rt_error(NZ_DEEP_MSG, (long long)nz_max_depth());
  if (stack_base && (size_t)(stack_base - &probe) > stack_limit) nesl_rt_error(NZ_STACK_MSG);
  NlVal slots[nslots > 0 ? nslots : 1];
  memset(slots, 0, sizeof slots);
  NlFrame nf = {.slots = slots, .n = nslots, .up = up, .prev_live = live_frames};
  int ngv = fn->k == FN_USER ? fn->decl->ngvars : 0;
  signed char kinds[ngv > 0 ? ngv : 1];
  if (fn->k == FN_USER) {
    nf.decl = fn->decl;
    if (efr && efr->decl == fn->decl && (!inst || inst == efr->inst)) {
      /* a recursive call: the body's variables mean what they mean in the caller */
      nf.inst = efr->inst;
      nf.caller = efr->caller;
      nf.kinds = efr->kinds;
    } else {
      nf.inst = inst;
      nf.caller = efr;
      memset(kinds, NL_KIND_UNSET, sizeof kinds);
      nf.kinds = kinds;
    }
  }
  if (!arge) {
    /* argv is not rooted: bind it before anything can collect */
    bind_val(pat, argv, &nf);
  }
  live_frames = &nf;
  maybe_gc();
  if (arge) bind_expr(pat, arge, efr, &nf);
  if (drop) memset(drop->slots, 0, sizeof(NlVal) * (size_t)drop->n);
  call_depth += fn->k == FN_USER;
  NlVal r = eval(body, &nf);
  call_depth -= fn->k == FN_USER;
  live_frames = nf.prev_live;
  return r;
}

/* Apply function value f to an argument given as an expression (arge, evaluated in efr)
 * or as a value (argv, when arge is NULL). inst: the instantiation of f's generic type at
 * a direct call of a global (NlExpr.inst), or NULL. */
static NlVal apply(NlVal f, NlExpr *arge, NlVal argv, NlFrame *efr, NlType **inst, NlFrame *drop) {
  NlFn *fn = f.fn;
  switch (fn->k) {
  case FN_PRIM: return arge ? call_prim_expr(fn->prim, arge, efr) : call_prim(fn->prim, argv);
  case FN_USER:
    return run_body(fn, fn->decl->pat, fn->decl->body, fn->decl->nslots, arge, argv, efr, NULL,
                    inst, drop);
  case FN_LAMBDA:
    return run_body(fn, fn->lambda->pats[0], fn->lambda->a, fn->lambda->nslots, arge, argv, efr,
                    fn->frame, NULL, NULL);
  case FN_CON: return arge ? eval(arge, efr) : argv;
  }
  nz_die("bad function value");
}

NlVal nesl_apply(NlVal f, NlVal arg) { return apply(f, NULL, arg, NULL, NULL, NULL); }

/* The element kind of values of type t in frame fr, following the type variables of a
 * generic function to what they stand for at its call (NlFrame.decl); -1 if unknown.
 * Each frame resolves each of its variables once (NlFrame.kinds). */
static int dyn_kind(NlType *t, NlFrame *fr) {
  t = nesl_type_resolve(t);
  if (!t) return -1;
  if (t->k != TY_VAR) return nesl_elem_kind_of_type(t);
  while (fr && !fr->decl) fr = fr->up;
  if (!fr || !fr->kinds) return -1;
  int i = 0;
  while (i < fr->decl->ngvars && fr->decl->gvars[i] != t) i++;
  if (i == fr->decl->ngvars) return -1;
  if (fr->kinds[i] == NL_KIND_UNSET)
    fr->kinds[i] = (signed char)(fr->inst && fr->inst[i] ? dyn_kind(fr->inst[i], fr->caller) : -1);
  return fr->kinds[i];
}

static NlFrame *copy_frames(NlFrame *fr) {
  if (!fr) return NULL;
  NlFrame *c = nesl_rt_alloc(sizeof *c + sizeof(NlVal) * (size_t)fr->n);
  c->n = fr->n;
  c->slots = (NlVal *)(c + 1);
  memcpy(c->slots, fr->slots, sizeof(NlVal) * (size_t)fr->n);
  c->prev_live = NULL;
  c->up = NULL;
  c->up = copy_frames(fr->up);
  /* the frame's caller will be gone when the closure runs: its types are not known */
  c->decl = NULL;
  c->inst = NULL;
  c->caller = NULL;
  c->kinds = NULL;
  return c;
}

static NlVal eval_each2(NlExpr *e, NlFrame *fr, NlSeq **g);

/* The element kind of the sequence e builds (elem: its element type): known statically
 * (cached in e->ek), or else from what the generic function's variables stand for in
 * this call; -1 if neither. */
static int elem_kind(NlExpr *e, NlType *elem, NlFrame *fr) {
  if (e->ek == -1) {
    int k = nesl_elem_kind_of_type(elem);
    e->ek = k < 0 ? -2 : k;
  }
  return e->ek >= 0 ? e->ek : dyn_kind(elem, fr);
}

static NlVal mk_seqval(NlSeq *s) {
  NlVal r = {.k = V_SEQ};
  r.s = s;
  return r;
}

static NlVal eval_each(NlExpr *e, NlFrame *fr) {
  NlVal gv[64];
  NlSeq *g[64] = {0};
  for (int i = 0; i < e->n; i++) {
    gv[i] = eval(e->xs[i], fr);
    g[i] = gv[i].s;
    root_push(&gv[i]);
  }
  NlVal r = eval_each2(e, fr, g);
  UNROOT(e->n);
  return r;
}

static NlVal eval_each2(NlExpr *e, NlFrame *fr, NlSeq **g) {
  int n = g[0]->n;
  for (int i = 1; i < e->n; i++)
    if (g[i]->n != n) {
      if (e->user) cur_loc = e->loc;
      nesl_rt_error("Length mismatch in an apply-to-each.");
    }
  NlType *rt = nesl_type_resolve(e->ty);
  int ek = elem_kind(e, rt && rt->k == TY_SEQ ? rt->a : NULL, fr);
  bool known = ek >= 0;
  NlSeq *out = nesl_seq_new(known ? ek : EK_BOXED, n);
  NlVal outv = mk_seqval(out);
  root_push(&outv);
  int m = 0;
  NlPat *p0 = e->pats[0];
  NlExpr *body = e->a, *sieve = e->b;
  if (e->n == 1 && p0->k == P_VAR && !sieve && known && ek != EK_BOXED) {
    /* the common case: {f(x) : x in s} producing scalars */
    NlSeq *s = g[0];
    int slot = p0->slot;
    for (int k = 0; k < n; k++) {
      fr->slots[slot] = nesl_seq_get(s, k);
      NlVal v = eval(body, fr);
      switch (ek) {
      case EK_INT: out->i[k] = v.i; break;
      case EK_FLOAT: out->f[k] = v.k == V_FLOAT ? v.f : v.i; break;
      default: out->b[k] = (uint8_t)v.i;
      }
    }
    UNROOT(1);
    return mk_seqval(out);
  }
  for (int k = 0; k < n; k++) {
    for (int i = 0; i < e->n; i++) {
      NlPat *q = e->pats[i];
      NlVal x = nesl_seq_get(g[i], k);
      if (q->k == P_VAR)
        fr->slots[q->slot] = x;
      else
        bind_val(q, x, fr);
    }
    if (sieve && !eval(sieve, fr).i) continue;
    NlVal v = eval(body, fr);
    nesl_seq_set(out, m++, v);
  }
  out->n = m;
  UNROOT(1);
  if (!known) {
    if (m > 0 && out->v[0].k <= V_CHAR) {
      /* an int among floats is the zero of a reduction over an unknown empty sequence */
      int k = ek_of_val(out->v[0]);
      for (int i = 1; i < m && k == EK_INT; i++)
        if (out->v[i].k == V_FLOAT) k = EK_FLOAT;
      return nesl_seq_from_vals(out->v, m, k);
    }
    if (m == 0) {
      /* unknown element type: borrow it from a generator of the same element type */
      NlType *bt = nesl_type_resolve(body->ty);
      for (int i = 0; i < e->n; i++)
        if (nesl_type_resolve(e->pats[i]->ty) == bt) out->ek = g[i]->ek;
    }
  }
  return mk_seqval(out);
}

/* A value built where its element type was not known at run time (an empty sequence
 * from a primitive such as pack or flatten, or the int zero of a reduction over such a
 * sequence) gets its kind from the type of the call: its static type when ground, else
 * (empty sequences only: ints are too frequent to resolve each) what the generic
 * function's variables stand for in this call. */
static NlVal fix_unknown(NlExpr *e, NlVal r, NlFrame *fr) {
  if (e->ek == -1) {
    int k = nesl_elem_kind_of_type(e->ty);
    e->ek = k < 0 ? -2 : k;
  }
  if (r.k == V_INT) {
    if (e->ek == EK_FLOAT) {
      double d = r.i;
      r.k = V_FLOAT;
      r.f = d;
    }
    return r;
  }
  NlType *t = nesl_type_resolve(e->ty);
  if (t && t->k == TY_SEQ) {
    int k = dyn_kind(t->a, fr);
    if (k >= 0 && k != EK_BOXED) r.s = nesl_seq_new(k, 0);
  }
  return r;
}

static NlVal eval(NlExpr *e, NlFrame *fr) {
  NlVal r = {0};
  switch (e->k) {
  case E_INT: r.k = V_INT; r.i = e->ival; return r;
  case E_FLOAT: r.k = V_FLOAT; r.f = e->fval; return r;
  case E_BOOL: r.k = V_BOOL; r.i = e->ival; return r;
  case E_CHAR: r.k = V_CHAR; r.i = e->ival; return r;
  case E_STRING:
    if (!e->cached) {
      e->cached = nesl_seq_new(EK_CHAR, e->slen);
      memcpy(e->cached->b, e->name, (size_t)e->slen);
      nesl_rt_pin(e->cached);
    }
    return mk_seqval(e->cached);
  case E_VAR:
    if (e->vk == VK_LOCAL) {
      NlFrame *f = fr;
      for (int i = 0; i < e->up; i++) f = f->up;
      return f->slots[e->slot];
    } else {
      NlGlobal *g = &E->globals.v[e->slot];
      if (!g->defined) {
        if (e->user) cur_loc = e->loc;
        nesl_rt_error("%s is declared but has no definition yet", g->name);
      }
      return g->val;
    }
  case E_PAIR: {
    NlVal a = eval(e->a, fr);
    bool heap = a.k > V_CHAR;
    if (heap) root_push(&a);
    NlVal b = eval(e->b, fr);
    if (heap) UNROOT(1);
    return nesl_mk_pair(a, b);
  }
  case E_CALL: {
    NzLoc saved = cur_loc;
    if (e->user) cur_loc = e->loc;
    NlExpr *fe = e->a;
    if (fe->k == E_VAR && fe->vk == VK_GLOBAL && E->globals.v[fe->slot].val.k == V_FN &&
        E->globals.v[fe->slot].val.fn->k == FN_PRIM) {
      /* the common case: an operator or basis primitive (primitives are never redefined
       * in place, so the global's value is stable) */
      r = call_prim_expr(E->globals.v[fe->slot].val.fn->prim, e->b, fr);
    } else {
      NlVal f = eval(fe, fr);
      bool rooted = fe->k != E_VAR; /* a variable's value is rooted by its frame or global */
      if (rooted) root_push(&f);
      /* a tail call of a global lets the caller's frame go (a local function value
       * must stay rooted by it) */
      bool global = fe->k == E_VAR && fe->vk == VK_GLOBAL;
      r = apply(f, e->b, r, fr, global ? fe->inst : NULL, e->tail && global ? fr : NULL);
      if (rooted) UNROOT(1);
    }
    cur_loc = saved;
    if ((r.k == V_INT || (r.k == V_SEQ && r.s->n == 0 && r.s->ek == EK_BOXED)) && e->ty)
      r = fix_unknown(e, r, fr);
    return r;
  }
  case E_IF: return eval(eval(e->a, fr).i ? e->b : e->c, fr);
  case E_LET:
    for (int i = 0; i < e->n; i++) bind_expr(e->pats[i], e->xs[i], fr, fr);
    return eval(e->a, fr);
  case E_SEQ: {
    NlType *t = nesl_type_resolve(e->ty);
    int ek = elem_kind(e, t && t->k == TY_SEQ ? t->a : NULL, fr);
    NlVal sv = {.k = V_INT};
    root_push(&sv);
    for (int i = 0; i < e->n; i++) {
      NlVal v = eval(e->xs[i], fr);
      if (i == 0) sv = mk_seqval(nesl_seq_new(ek >= 0 ? ek : ek_of_val(v), e->n));
      nesl_seq_set(sv.s, i, v);
    }
    UNROOT(1);
    return sv;
  }
  case E_EMPTY:
    if (!e->cached) {
      NlType *t = nesl_type_resolve(e->ty);
      int ek = nesl_elem_kind_of_type(t->a);
      e->cached = nesl_seq_new(ek < 0 ? EK_BOXED : ek, 0);
      nesl_rt_pin(e->cached);
    }
    return mk_seqval(e->cached);
  case E_RANGE: {
    int32_t s = eval(e->a, fr).i, en = eval(e->b, fr).i, d = e->c ? eval(e->c, fr).i : 1;
    if (d < 1 || s > en) {
      if (e->user) cur_loc = e->loc;
      nesl_rt_error("In [s:e:l], e must be >= to s, and l must be positive.");
    }
    int64_t n = ((int64_t)en - s + d - 1) / d;
    if (n > (1 << 29)) nesl_rt_error("Sequence too long (%lld elements).", (long long)n);
    NlSeq *q = nesl_seq_new(EK_INT, (int)n);
    for (int64_t i = 0; i < n; i++) q->i[i] = (int32_t)(s + i * d);
    return mk_seqval(q);
  }
  case E_EACH: return eval_each(e, fr);
  case E_LAMBDA: {
    NlFn *fn = nesl_rt_alloc(sizeof *fn);
    fn->k = FN_LAMBDA;
    fn->lambda = e;
    fn->frame = copy_frames(fr);
    r.k = V_FN;
    r.fn = fn;
    return r;
  }
  case E_TIME: {
    double t0 = nz_now();
    NlVal v = eval(e->a, fr);
    NlVal secs = {.k = V_FLOAT};
    secs.f = nz_now() - t0;
    return nesl_mk_pair(v, secs);
  }
  }
  nz_die("eval: bad expression kind %d", e->k);
}

/* ---------- top level ---------- */
static NlVal fn_value(int k, NlDecl *d) {
  NlFn *fn = nesl_rt_alloc(sizeof *fn);
  fn->k = k;
  fn->decl = d;
  NlVal v = {.k = V_FN};
  v.fn = fn;
  return v;
}

static void print_result(const char *lhs, NlVal v, NlType *t) {
  NzBuf b = {0};
  nz_buf_printf(&b, "%s = ", lhs);
  nesl_value_print(&b, v, t);
  nz_buf_puts(&b, " : ");
  nesl_type_str(&b, t);
  nz_buf_putc(&b, '\n');
  fwrite(b.s, 1, b.len, stdout); /* strings may hold NUL characters */
  nz_buf_free(&b);
}

static int eval_decl(NlEnv *env, NlDecl *d, bool print) {
  switch (d->k) {
  case D_FUN:
    if (!d->body) return 1;
    set_global(d->global, fn_value(FN_USER, d));
    if (print) print_result(d->name, env->globals.v[d->global].val, d->ty);
    return 1;
  case D_DATA:
    env->globals.v[d->global].val = fn_value(FN_CON, d);
    env->globals.v[d->global].defined = true;
    if (print) print_result(d->name, env->globals.v[d->global].val, d->ty);
    return 1;
  case D_BIND:
  case D_EXPR: {
    NlVal slots[d->nslots > 0 ? d->nslots : 1];
    memset(slots, 0, sizeof slots);
    NlFrame fr = {.slots = slots, .n = d->nslots, .prev_live = live_frames};
    live_frames = &fr;
    cur_loc = d->body->loc;
    NlVal v = eval(d->body, &fr);
    live_frames = fr.prev_live;
    if (d->k == D_BIND) {
      bind_global(d->pat, v);
      if (print) {
        NzBuf b = {0};
        nesl_pat_str(&b, d->pat);
        print_result(b.s, v, d->ty);
        nz_buf_free(&b);
      }
    } else {
      set_global(d->global, v);
      if (print) print_result("it", v, d->ty);
    }
    return 1;
  }
  default: return 1;
  }
}

void nesl_define_value(NlEnv *env, NlDecl *d, NlVal v, bool print) {
  E = env;
  if (d->k == D_BIND) {
    bind_global(d->pat, v);
    if (print) {
      NzBuf b = {0};
      nesl_pat_str(&b, d->pat);
      print_result(b.s, v, d->ty);
      nz_buf_free(&b);
    }
  } else {
    set_global(d->global, v);
    if (print) print_result("it", v, d->ty);
  }
  fflush(stdout);
}

int nesl_eval_decl(NlEnv *env, NlDecl *d, bool print) {
  jmp_buf jb, *saved = rt_jmp;
  NlFrame *saved_frames = live_frames;
  int saved_roots = roots.n;
  int64_t saved_depth = call_depth;
  E = env;
  rt_jmp = &jb;
  nesl_prims_reseed();
  if (setjmp(jb)) {
    rt_jmp = saved;
    live_frames = saved_frames;
    roots.n = saved_roots;
    call_depth = saved_depth;
    return 0;
  }
  int ok = eval_decl(env, d, print);
  nz_stdout_flush();
  rt_jmp = saved;
  return ok;
}

/* ---------- a big stack ---------- */
typedef struct {
  int (*fn)(void *);
  void *arg;
  int rc;
} Thunk;

static void on_stack(void *p, size_t room) {
  Thunk *t = p;
  char base;
  stack_base = &base;
  stack_limit = room;
  t->rc = t->fn(t->arg);
  stack_base = NULL;
}

int nesl_run_on_big_stack(int (*fn)(void *), void *arg) {
  Thunk t = {fn, arg, 0};
  nz_run_on_stack(on_stack, &t);
  return t.rc;
}
