/* lcu_check.c — the λcu checker: types every expression, resolves names to
 * frame slots, call/run targets and overloaded primitives, and enforces the
 * IR's invariants (compiler/lcu/README.md "Types and checker rules").
 *
 * Frame layouts it assigns (the interpreter and code generators rely on them):
 *   function  [params] [every let binder, in textual order, no reuse]
 *   kernel    [params] [each SOAC's binders, in order]
 *   thunk     [captures, in `using` order] [params] [every let binder in its body]
 * It rewrites every annotation on each run, so passes that rewrite the IR can
 * simply call it again. Errors never stop it: an erroneous expression gets a
 * NULL type, and nothing is reported about NULL types, so one mistake gives one
 * message. */
#include "lcu.h"

typedef struct {
  const char *name;
  const LcuType *ty;
  int slot;
} Sym;

/* A stack of bindings, indexed by name (NzScopeIndex): a generated region
 * of 30,000 invocations is one function with 30,000 nested lets, and
 * walking the stack for each lookup made checking it quadratic
 * (nessie-bench --scheduler=greedy-down on one took 3.5 s, now 2.3;
 * `nessie lcu check` 0.79 s, now 0.50). */
typedef struct {
  NZ_VEC(Sym) s;
  NzScopeIndex ix;
} Scope;

/* A top-level name: the first kernel and the first function of that name. */
typedef struct {
  const char *name;
  LcuKernel *k;
  LcuFunc *f;
} Top;

typedef struct {
  LcuProgram *p;
  NzArena *tmp; /* message strings */
  Top *tops;    /* open addressing on the interned pointer; generated programs have many kernels */
  size_t ntops; /* a power of two */
  int errors;
  /* The frame being checked: a function body or a thunk. */
  Scope scope;
  int nslots;
  int in_thunk;
  /* In a kernel: its parameters and the binders of earlier SOACs. */
  LcuKernel *kernel;
  Scope kscope;
} Ck;

NZ_PRINTF(3, 4) static void err(Ck *ck, NzLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  nz_verror_at(loc, fmt, ap);
  va_end(ap);
  ck->errors++;
}

/* Constructors built outside the parser may leave locations empty. */
static NzLoc or_loc(NzLoc a, NzLoc b) { return a.line > 0 ? a : b; }

static const char *ts(Ck *ck, const LcuType *t) {
  if (!t) return "?";
  NzBuf b = {0};
  lcu_type_print(&b, t);
  char *s = nz_strndup(ck->tmp, b.s, b.len);
  nz_buf_free(&b);
  return s;
}

static const char *plural(int n, const char *one, const char *many) { return n == 1 ? one : many; }

/* The slot of name (interned), claimed for it if `add`; NULL if absent and
 * not added. Only declarations add: a lookup of an undefined name must not
 * fill the table (it is sized for the declarations; a program calling more
 * undefined kernels than that looped here). */
static Top *top(Ck *ck, const char *name, int add) {
  size_t h = ((uintptr_t)name >> 4) * 0x9E3779B97F4A7C15ull;
  for (size_t i = h & (ck->ntops - 1);; i = (i + 1) & (ck->ntops - 1)) {
    if (ck->tops[i].name == name) return &ck->tops[i];
    if (!ck->tops[i].name) {
      if (!add) return NULL;
      ck->tops[i].name = name;
      return &ck->tops[i];
    }
  }
}

static LcuKernel *find_kernel(Ck *ck, const char *name) {
  Top *t = top(ck, name, 0);
  return t ? t->k : NULL;
}
static LcuFunc *find_func(Ck *ck, const char *name) {
  Top *t = top(ck, name, 0);
  return t ? t->f : NULL;
}

/* ------------------------------------------------------------ type shapes */

/* A value a thunk may compute: a base type or a flat tuple of base types. */
static int is_scalar(const LcuType *t) {
  if (t->kind == LT_TUPLE) {
    for (int i = 0; i < t->n; i++)
      if (!lcu_type_is_base(t->elems[i])) return 0;
    return 1;
  }
  return lcu_type_is_base(t);
}

static int is_flat(const LcuType *t) {
  if (t->kind != LT_TUPLE) return 1;
  for (int i = 0; i < t->n; i++)
    if (t->elems[i]->kind == LT_TUPLE) return 0;
  return 1;
}

/* Declared types come from the parser, whose grammar allows nested tuples. */
/* A declared type must be present and flat. `what` names the declaration for the
 * messages: a format with up to two names, formatted only when there is an error (the
 * checker runs after every pass, over thousands of kernels). */
static int check_decl_type(Ck *ck, const LcuType *t, NzLoc loc, const char *what, const char *a,
                           const char *b) {
  if (t && is_flat(t)) return 1;
  const char *w = nz_sprintf(ck->tmp, what, a, b);
  if (!t)
    err(ck, loc, "%s has no type", w);
  else
    err(ck, loc, "%s has type %s, but tuples must be flat (no tuple inside a tuple)", w, ts(ck, t));
  return 0;
}

/* ----------------------------------------------------------------- scopes */

/* The latest binding of name among the first n of the scope, or NULL. */
static Sym *lookup(Scope *sc, int n, const char *name) {
  int i = nz_scope_find(&sc->ix, name, n);
  return i >= 0 ? &sc->s.v[i] : NULL;
}

static void scope_push(Scope *sc, const char *name, const LcuType *ty, int slot) {
  Sym s = {name, ty, slot};
  nz_vec_push(sc->s, s);
  nz_scope_push(&sc->ix, name);
}

/* Drops the bindings above the first n. */
static void scope_pop_to(Scope *sc, int n) {
  sc->s.n = n;
  nz_scope_pop_to(&sc->ix, n);
}

static void scope_free(Scope *sc) {
  nz_vec_free(sc->s);
  nz_scope_free(&sc->ix);
}

/* Binds b in the current frame with a fresh slot. */
static void bind(Ck *ck, LcuBinder *b, const LcuType *ty) {
  b->ty = ty;
  b->slot = ck->nslots++;
  scope_push(&ck->scope, b->name, ty, b->slot);
}

/* Reports the second of two equal names among bs[0..n). */
static void check_distinct(Ck *ck, const LcuBinder *bs, int n, const char *what) {
  for (int i = 1; i < n; i++)
    for (int j = 0; j < i; j++)
      if (bs[i].name == bs[j].name) {
        err(ck, bs[i].loc, "'%s' appears twice in %s", bs[i].name, what);
        break;
      }
}

/* ------------------------------------------------------------- primitives */

// clang-format off
/* Operand classes of lcu_prims.def. */
typedef enum {
  K_NUM, K_INT, K_FLOAT, K_BOOL, K_CHAR, K_ORD, K_EQ, K_BOOLINT, K_SEGDES, K_LEN, K_INTARR, K_CHARARR, K_ANY, K_FLOATARR, K_BOOLARR, K_SEGTEXT, K_NUMARR
} Kls;
/* Result: R_OP is the operand type (the one recorded in opty). */
typedef enum { R_OP, R_BOOL, R_INT, R_FLOAT, R_CHAR, R_UNIT, R_SEGDES, R_INTARR, R_SEGTEXT, R_FLOATS_FLAGS, R_IO, R_OP_FLAGS } Res;

typedef struct {
  Kls k[3];
  int same; /* bit i: operand i has the shared type (the one opty records) */
  Res res;
} Sig;

static Sig prim_sig(LcuPrim p) {
  Sig s = {{K_ANY, K_ANY, K_ANY}, 0, R_OP};
#define SIG(a, b, c, m, r) (s = (Sig){{a, b, c}, m, r})
  switch (p) {
  case LP_ADD: case LP_SUB: case LP_MUL: case LP_DIV: SIG(K_NUM, K_NUM, 0, 3, R_OP); break;
  case LP_MOD: case LP_LSHIFT: case LP_RSHIFT: SIG(K_INT, K_INT, 0, 3, R_OP); break;
  case LP_NEG: case LP_ABS: SIG(K_NUM, 0, 0, 1, R_OP); break;
  case LP_EQ: case LP_NE: SIG(K_EQ, K_EQ, 0, 3, R_BOOL); break;
  case LP_LT: case LP_LE: case LP_GT: case LP_GE: SIG(K_ORD, K_ORD, 0, 3, R_BOOL); break;
  case LP_ANDALSO: case LP_ORELSE: SIG(K_BOOL, K_BOOL, 0, 3, R_OP); break;
  case LP_NOT: SIG(K_BOOLINT, 0, 0, 1, R_OP); break;
  case LP_AND: case LP_OR: case LP_XOR: SIG(K_BOOLINT, K_BOOLINT, 0, 3, R_OP); break;
  case LP_MIN: case LP_MAX: SIG(K_ORD, K_ORD, 0, 3, R_OP); break;
  case LP_SQRT: case LP_EXP: case LP_LN: case LP_SIN: case LP_COS: case LP_TAN:
  case LP_ASIN: case LP_ACOS: case LP_ATAN: case LP_SINH: case LP_COSH: case LP_TANH:
    SIG(K_FLOAT, 0, 0, 1, R_OP);
    break;
  case LP_POW: SIG(K_FLOAT, K_FLOAT, 0, 3, R_OP); break;
  case LP_I2F: SIG(K_INT, 0, 0, 1, R_FLOAT); break;
  case LP_TRUNC: case LP_FLOOR: case LP_CEIL: case LP_ROUND: SIG(K_FLOAT, 0, 0, 1, R_INT); break;
  case LP_C2I: SIG(K_CHAR, 0, 0, 1, R_INT); break;
  case LP_FHASH: SIG(K_FLOAT, 0, 0, 1, R_INT); break;
  case LP_I2C: SIG(K_INT, 0, 0, 1, R_CHAR); break;
  case LP_B2I: SIG(K_BOOL, 0, 0, 1, R_INT); break;
  case LP_SELECT: SIG(K_BOOL, K_ANY, K_ANY, 6, R_OP); break;
  case LP_LENGTH: SIG(K_LEN, 0, 0, 1, R_INT); break;
  case LP_SEG_START: case LP_SEG_LEN: case LP_SEG_OF: SIG(K_SEGDES, K_INT, 0, 1, R_INT); break;
  case LP_SEG_TOTAL: SIG(K_SEGDES, 0, 0, 1, R_INT); break;
  case LP_MAKE_SEGDES: SIG(K_INTARR, 0, 0, 1, R_SEGDES); break;
  case LP_SEG_LENGTHS: SIG(K_SEGDES, 0, 0, 1, R_INTARR); break;
  case LP_PRINT: SIG(K_ANY, 0, 0, 1, R_UNIT); break;
  case LP_FAIL_IF: SIG(K_BOOL, K_CHARARR, 0, 1, R_UNIT); break;
  case LP_SHOW: SIG(K_CHARARR, K_ANY, 0, 2, R_UNIT); break;
  case LP_FORMAT: SIG(K_CHARARR, K_INT, K_ANY, 4, R_SEGTEXT); break;
  case LP_FLOAT_TEXT: SIG(K_FLOATARR, K_INTARR, K_BOOLARR, 1, R_SEGTEXT); break;
  case LP_PARSE_FLOAT: SIG(K_SEGDES, K_CHARARR, 0, 1, R_FLOATS_FLAGS); break;
  case LP_PRINT_CHARS: SIG(K_CHARARR, 0, 0, 1, R_UNIT); break;
  case LP_READ_OBJECT: SIG(K_CHARARR, K_SEGTEXT, K_ANY, 4, R_OP_FLAGS); break;
  case LP_OPEN_FILE: case LP_WRITE_STREAM: SIG(K_CHARARR, K_INT, 0, 1, R_IO); break;
  case LP_CLOSE_FILE: case LP_READ_CHAR: SIG(K_INT, 0, 0, 1, R_IO); break;
  case LP_READ_FILE: case LP_GETENV: SIG(K_CHARARR, 0, 0, 1, R_IO); break;
  case LP_SHELL: SIG(K_CHARARR, K_CHARARR, 0, 1, R_IO); break;
  case LP_SPAWN: SIG(K_CHARARR, K_INTARR, 0, 1, R_IO); break;
  case LP_RAND: SIG(K_NUM, 0, 0, 1, R_OP); break;
  case LP_RAND_VEC: SIG(K_NUMARR, 0, 0, 1, R_OP); break;
  case LP_RAND_SEED: SIG(K_INT, 0, 0, 1, R_BOOL); break;
  case LP_TIMER: SIG(0, 0, 0, 0, R_FLOAT); break;
  case LP_FAIL_IF_G: SIG(K_BOOL, K_CHARARR, K_FLOAT, 1, R_UNIT); break;
  case LP_SORT_PERM: SIG(K_SEGDES, K_FLOATARR, 0, 1, R_INTARR); break;
  case LP__COUNT: nz_die("prim_sig: LP__COUNT is not a primitive");
  }
#undef SIG
  return s;
}
// clang-format on

static int in_class(Kls k, const LcuType *t) {
  switch (k) {
  case K_NUM: return t->kind == LT_INT || t->kind == LT_FLOAT;
  case K_INT: return t->kind == LT_INT;
  case K_FLOAT: return t->kind == LT_FLOAT;
  case K_BOOL: return t->kind == LT_BOOL;
  case K_CHAR: return t->kind == LT_CHAR;
  case K_ORD: return t->kind == LT_INT || t->kind == LT_FLOAT || t->kind == LT_CHAR;
  case K_EQ: return lcu_type_is_base(t);
  case K_BOOLINT: return t->kind == LT_BOOL || t->kind == LT_INT;
  case K_SEGDES: return t->kind == LT_SEGDES;
  case K_LEN: return t->kind == LT_ARRAY || t->kind == LT_SEGDES;
  case K_INTARR: return t == lcu_type_array(LT_INT);
  case K_CHARARR: return t == lcu_type_array(LT_CHAR);
  case K_ANY: return 1;
  case K_FLOATARR: return t == lcu_type_array(LT_FLOAT);
  case K_BOOLARR: return t == lcu_type_array(LT_BOOL);
  case K_SEGTEXT: return t->kind == LT_TUPLE && t->n == 2 && t->elems[0]->kind == LT_SEGDES &&
                         t->elems[1] == lcu_type_array(LT_CHAR);
  case K_NUMARR: return t == lcu_type_array(LT_INT) || t == lcu_type_array(LT_FLOAT);
  }
  return 0;
}

static const char *class_name(Kls k) {
  static const char *names[] = {
      [K_NUM] = "int or float",
      [K_INT] = "int",
      [K_FLOAT] = "float",
      [K_BOOL] = "bool",
      [K_CHAR] = "char",
      [K_ORD] = "int, float or char",
      [K_EQ] = "bool, char, int or float",
      [K_BOOLINT] = "bool or int",
      [K_SEGDES] = "segdes",
      [K_LEN] = "an array or a segdes",
      [K_INTARR] = "[int]",
      [K_CHARARR] = "[char]",
      [K_ANY] = "a value",
      [K_FLOATARR] = "[float]",
      [K_BOOLARR] = "[bool]",
      [K_SEGTEXT] = "(segdes, [char])",
      [K_NUMARR] = "[int] or [float]",
  };
  return names[k];
}

static const char *operand_name(Ck *ck, int arity, int i) {
  return arity == 1 ? "its operand" : nz_sprintf(ck->tmp, "operand %d", i + 1);
}

static const LcuType *check_prim(Ck *ck, LcuExpr *e, const LcuType **at) {
  const LcuPrimInfo *info = lcu_prim_info(e->prim);
  const char *what = info->sym ? "operator" : "primitive";
  const char *nm = info->sym ? info->sym : info->name;
  if (ck->in_thunk && (info->flags & LPF_CPU)) {
    err(ck, e->loc, "primitive '%s' is CPU-only and cannot be used in a kernel", info->name);
    return NULL;
  }
  if (info->arity >= 0 && e->nargs != info->arity) {
    err(ck, e->loc, "%s '%s' takes %d %s, but %d %s given", what, nm, info->arity,
        plural(info->arity, "operand", "operands"), e->nargs, plural(e->nargs, "is", "are"));
    return NULL;
  }
  Sig s = prim_sig(e->prim);
  int ok = 1, first_same = -1;
  const LcuType *op = NULL; /* the shared operand type */
  for (int i = 0; i < e->nargs && i < 3; i++) {
    const LcuType *t = at[i];
    if (!t) {
      ok = 0;
      continue;
    }
    if (!in_class(s.k[i], t)) {
      err(ck, or_loc(e->args[i]->loc, e->loc), "%s '%s' needs %s, but %s is %s", what, nm,
          class_name(s.k[i]), operand_name(ck, e->nargs, i), ts(ck, t));
      ok = 0;
      continue;
    }
    if (!(s.same & (1 << i))) continue;
    if (!op) {
      op = t;
      first_same = i;
    } else if (t != op) {
      err(ck, or_loc(e->args[i]->loc, e->loc),
          "%s '%s' needs operands of one type, but operand %d is %s and operand %d is %s", what, nm,
          first_same + 1, ts(ck, op), i + 1, ts(ck, t));
      ok = 0;
    }
  }
  if (ok && !op && e->nargs == 0) op = lcu_type_unit(); /* timer(): no operand */
  e->opty = ok ? op : NULL;
  switch (s.res) {
  case R_OP: return ok ? op : NULL;
  case R_BOOL: return lcu_type_base(LT_BOOL);
  case R_INT: return lcu_type_base(LT_INT);
  case R_FLOAT: return lcu_type_base(LT_FLOAT);
  case R_CHAR: return lcu_type_base(LT_CHAR);
  case R_UNIT: return lcu_type_unit();
  case R_SEGDES: return lcu_type_base(LT_SEGDES);
  case R_INTARR: return lcu_type_array(LT_INT);
  case R_SEGTEXT: {
    const LcuType *st[2] = {lcu_type_base(LT_SEGDES), lcu_type_array(LT_CHAR)};
    return lcu_type_tuple(2, st);
  }
  case R_IO: return lcu_io_result(e->prim);
  case R_OP_FLAGS: { /* the operand's components, then [bool] */
    if (!ok) return NULL;
    int n = lcu_type_arity(op);
    const LcuType **t = nz_xmalloc(sizeof *t * (size_t)(n + 1));
    for (int i = 0; i < n; i++) t[i] = lcu_type_component(op, i);
    t[n] = lcu_type_array(LT_BOOL);
    const LcuType *r = lcu_type_tuple(n + 1, t);
    free(t);
    return r;
  }
  case R_FLOATS_FLAGS: {
    const LcuType *ft[2] = {lcu_type_array(LT_FLOAT), lcu_type_array(LT_BOOL)};
    return lcu_type_tuple(2, ft);
  }
  }
  return NULL;
}

/* ------------------------------------------------------------ expressions */

static const LcuType *check_expr(Ck *ck, LcuExpr *e, int array_ok);

/* Skips lets to the expression that gives a body its value (for error locations). */
static const LcuExpr *tail_of(const LcuExpr *e) {
  while (e->kind == LE_LET && e->nargs == 2 && e->args[1]) e = e->args[1];
  return e;
}

static void check_args(Ck *ck, LcuExpr *e, const LcuBinder *params, int nparams, const char *kind,
                       const char *name) {
  if (e->nargs != nparams)
    err(ck, e->loc, "%s '%s' takes %d %s, but %d %s given", kind, name, nparams,
        plural(nparams, "argument", "arguments"), e->nargs, plural(e->nargs, "is", "are"));
  for (int i = 0; i < e->nargs; i++) {
    const LcuType *t = check_expr(ck, e->args[i], 1);
    if (i < nparams && t && params[i].ty && t != params[i].ty)
      err(ck, or_loc(e->args[i]->loc, e->loc), "argument %d of %s '%s' must be %s, but it is %s",
          i + 1, kind, name, ts(ck, params[i].ty), ts(ck, t));
  }
}

static const LcuType *check_var(Ck *ck, LcuExpr *e, int array_ok) {
  Sym *s = lookup(&ck->scope, ck->scope.s.n, e->name);
  if (!s) {
    if (ck->in_thunk && lookup(&ck->kscope, ck->kscope.s.n, e->name))
      err(ck, e->loc, "'%s' is a kernel variable that is not in the thunk's using list", e->name);
    else
      err(ck, e->loc, "unknown variable '%s'", e->name);
    return NULL;
  }
  e->slot = s->slot;
  if (ck->in_thunk && !array_ok && s->ty && !is_scalar(s->ty)) {
    err(ck, e->loc, "'%s' is %s, but a thunk computes scalars: index it or pass it to a primitive",
        e->name, ts(ck, s->ty));
    return NULL;
  }
  return s->ty;
}

static const LcuType *check_let(Ck *ck, LcuExpr *e) {
  if (e->nargs != 2) nz_die("lcu_check: let with %d operands", e->nargs);
  /* Binders get their slots in textual order, before those of the rhs. */
  int base = ck->nslots;
  ck->nslots += e->nbinds;
  const LcuType *rt = check_expr(ck, e->args[0], 0);
  check_distinct(ck, e->binds, e->nbinds, "the names bound by let");
  int mark = ck->scope.s.n, after = ck->nslots;
  ck->nslots = base;
  if (e->nbinds == 1) {
    bind(ck, &e->binds[0], rt);
  } else {
    int n = rt ? lcu_type_arity(rt) : e->nbinds;
    if (rt && (n != e->nbinds || (rt->kind != LT_TUPLE && e->nbinds != 1))) {
      err(ck, e->loc, "let binds %d %s, but the right-hand side is %s", e->nbinds,
          plural(e->nbinds, "name", "names"), ts(ck, rt));
      rt = NULL;
    }
    for (int i = 0; i < e->nbinds; i++)
      bind(ck, &e->binds[i], rt ? lcu_type_component(rt, i) : NULL);
  }
  ck->nslots = after;
  const LcuType *bt = check_expr(ck, e->args[1], 0);
  scope_pop_to(&ck->scope, mark);
  return bt;
}

static const LcuType *check_expr_kind(Ck *ck, LcuExpr *e, int array_ok) {
  switch (e->kind) {
  case LE_INT: return lcu_type_base(LT_INT);
  case LE_FLOAT: return lcu_type_base(LT_FLOAT);
  case LE_BOOL: return lcu_type_base(LT_BOOL);
  case LE_CHAR: return lcu_type_base(LT_CHAR);
  case LE_VAR: return check_var(ck, e, array_ok);

  case LE_ARRAY: {
    if (ck->in_thunk) err(ck, e->loc, "array literals are CPU-only and cannot be used in a kernel");
    if (e->nargs == 0) {
      /* The parser stored the element type of `[] int` in opty. */
      if (!e->opty || !lcu_type_is_base(e->opty)) {
        err(ck, e->loc, "an empty array literal needs a base element type, e.g. [] int");
        return NULL;
      }
      return ck->in_thunk ? NULL : lcu_type_array(e->opty->kind);
    }
    const LcuType *el = NULL;
    int ok = 1, first = 0;
    for (int i = 0; i < e->nargs; i++) {
      const LcuType *t = check_expr(ck, e->args[i], 0);
      if (!t) {
        ok = 0;
      } else if (!lcu_type_is_base(t)) {
        err(ck, or_loc(e->args[i]->loc, e->loc),
            "array elements must be bool, char, int or float, but element %d is %s", i + 1,
            ts(ck, t));
        ok = 0;
      } else if (!el) {
        el = t;
        first = i;
      } else if (t != el) {
        err(ck, or_loc(e->args[i]->loc, e->loc),
            "array elements must have one type, but element %d is %s and element %d is %s",
            first + 1, ts(ck, el), i + 1, ts(ck, t));
        ok = 0;
      }
    }
    e->opty = ok ? el : NULL;
    return ok && !ck->in_thunk ? lcu_type_array(el->kind) : NULL;
  }

  case LE_PRIM: {
    const LcuType *at[3] = {NULL, NULL, NULL};
    for (int i = 0; i < e->nargs; i++) {
      const LcuType *t = check_expr(ck, e->args[i], 1);
      if (i < 3) at[i] = t;
    }
    const LcuType *t = check_prim(ck, e, at);
    if (ck->in_thunk && t && !is_scalar(t)) {
      const LcuPrimInfo *info = lcu_prim_info(e->prim);
      err(ck, e->loc, "'%s' gives %s here, but a thunk computes scalars",
          info->sym ? info->sym : info->name, ts(ck, t));
      return NULL;
    }
    return t;
  }

  case LE_IF: {
    if (e->nargs != 3) nz_die("lcu_check: if with %d operands", e->nargs);
    const LcuType *c = check_expr(ck, e->args[0], 0);
    if (c && c->kind != LT_BOOL)
      err(ck, or_loc(e->args[0]->loc, e->loc), "the condition of if must be bool, but it is %s",
          ts(ck, c));
    const LcuType *a = check_expr(ck, e->args[1], 0);
    const LcuType *b = check_expr(ck, e->args[2], 0);
    if (a && b && a != b) {
      err(ck, e->loc, "the branches of if must have one type, but then gives %s and else gives %s",
          ts(ck, a), ts(ck, b));
      return NULL;
    }
    return a ? a : b;
  }

  case LE_LET: return check_let(ck, e);

  case LE_TUPLE: {
    const LcuType **el = NZ_NEWN(ck->tmp, const LcuType *, e->nargs ? e->nargs : 1);
    int ok = 1;
    for (int i = 0; i < e->nargs; i++) {
      el[i] = check_expr(ck, e->args[i], 0);
      if (!el[i]) {
        ok = 0;
      } else if (el[i]->kind == LT_TUPLE) {
        err(ck, or_loc(e->args[i]->loc, e->loc),
            "tuples must be flat, but component %d of this tuple is the tuple %s", i + 1,
            ts(ck, el[i]));
        ok = 0;
      }
    }
    if (e->nargs == 1) {
      err(ck, e->loc, "a tuple cannot have exactly one component (it is that component)");
      return NULL;
    }
    return ok ? lcu_type_tuple(e->nargs, el) : NULL;
  }

  case LE_INDEX: {
    if (e->nargs != 2) nz_die("lcu_check: index with %d operands", e->nargs);
    const LcuType *a = check_expr(ck, e->args[0], 1);
    const LcuType *i = check_expr(ck, e->args[1], 0);
    if (i && i->kind != LT_INT)
      err(ck, or_loc(e->args[1]->loc, e->loc), "an index must be int, but it is %s", ts(ck, i));
    if (!a) return NULL;
    if (a->kind != LT_ARRAY) {
      err(ck, or_loc(e->args[0]->loc, e->loc), "only arrays can be indexed, but this is %s%s",
          ts(ck, a), a->kind == LT_SEGDES ? " (use seg_start, seg_len or seg_lengths)" : "");
      return NULL;
    }
    return lcu_type_base(a->elem);
  }

  case LE_CALL: {
    LcuFunc *f = find_func(ck, e->name);
    e->target = f;
    if (ck->in_thunk) {
      err(ck, e->loc, "a kernel cannot call the CPU function '%s'", e->name);
      f = NULL;
    } else if (!f && find_kernel(ck, e->name)) {
      err(ck, e->loc, "'%s' is a kernel: invoke it with run %s(...)", e->name, e->name);
    } else if (!f) {
      err(ck, e->loc, "unknown function '%s'", e->name);
    }
    if (f) {
      check_args(ck, e, f->params, f->nparams, "function", e->name);
      return f->ret;
    }
    for (int i = 0; i < e->nargs; i++) check_expr(ck, e->args[i], 1);
    return NULL;
  }

  case LE_RUN: {
    LcuKernel *k = find_kernel(ck, e->name);
    e->target = k;
    if (ck->in_thunk) {
      err(ck, e->loc, "a kernel cannot run the kernel '%s'", e->name);
      k = NULL;
    } else if (!k && find_func(ck, e->name)) {
      err(ck, e->loc, "'%s' is a function, not a kernel: call it without run", e->name);
    } else if (!k) {
      err(ck, e->loc, "unknown kernel '%s'", e->name);
    }
    if (k) {
      check_args(ck, e, k->params, k->nparams, "kernel", e->name);
      return k->ret;
    }
    for (int i = 0; i < e->nargs; i++) check_expr(ck, e->args[i], 1);
    return NULL;
  }
  }
  nz_die("lcu_check: expression kind %d", (int)e->kind);
}

/* array_ok: in a thunk, an array or segdes variable may appear here (an
 * operand of indexing or of a primitive); everywhere else a thunk computes
 * scalars. At CPU level every value is allowed. */
static const LcuType *check_expr(Ck *ck, LcuExpr *e, int array_ok) {
  if (!e) nz_die("lcu_check: missing expression");
  e->ty = NULL;
  e->slot = -1;
  e->target = NULL;
  if (e->kind == LE_PRIM) e->opty = NULL;
  e->ty = check_expr_kind(ck, e, array_ok);
  return e->ty;
}

/* ---------------------------------------------------------------- kernels */

static Sym *kernel_var(Ck *ck, const char *name) {
  return lookup(&ck->kscope, ck->kscope.s.n, name);
}

/* Resolves a size or PERMUTE's output length; seg: the SOAC iterates over a segdes. */
static void check_size(Ck *ck, LcuSoac *s, LcuSize *z, int seg, const char *what) {
  const char *sn = lcu_soac_name(s->kind);
  NzLoc loc = or_loc(z->loc, s->loc);
  z->slot = -1;
  switch (z->kind) {
  case LZ_NONE: err(ck, loc, "%s needs %s", sn, what); return;
  case LZ_LIT:
    if (seg)
      err(ck, loc, "%s iterates over a segment descriptor, but its size is the literal %d", sn,
          (int)z->lit);
    else if (z->lit < 0)
      err(ck, loc, "%s of %s is negative (%d)", what, sn, (int)z->lit);
    return;
  case LZ_VAR:
  case LZ_LEN: {
    Sym *v = kernel_var(ck, z->name);
    if (!v) {
      err(ck, loc, "unknown variable '%s' in %s of %s (not a parameter or an earlier binder)",
          z->name, what, sn);
      return;
    }
    z->slot = v->slot;
    if (!v->ty) return;
    if (z->kind == LZ_LEN) {
      if (seg)
        err(ck, loc, "%s iterates over a segment descriptor: write (%s), not (#%s)", sn, z->name,
            z->name);
      else if (v->ty->kind != LT_ARRAY && v->ty->kind != LT_SEGDES)
        err(ck, loc, "'#' needs an array or a segdes, but '%s' is %s", z->name, ts(ck, v->ty));
    } else if (seg && v->ty->kind != LT_SEGDES) {
      err(ck, loc, "%s iterates over a segment descriptor, but '%s' is %s", sn, z->name,
          ts(ck, v->ty));
    } else if (!seg && v->ty->kind != LT_INT) {
      err(ck, loc, "%s of %s must be int, but '%s' is %s", what, sn, z->name, ts(ck, v->ty));
    }
    return;
  }
  }
}

/* Checks a thunk in its own frame. nparams < 0: unknown (an earlier error);
 * ptys[i] (may be NULL) types parameter i; index: the parameters are indices
 * (typed int even when there are too many). Returns the body's type. */
static const LcuType *check_thunk(Ck *ck, LcuSoac *s, LcuThunk *t, const char *role, int nparams,
                                  const LcuType *const *ptys, int index) {
  const char *sn = lcu_soac_name(s->kind);
  scope_pop_to(&ck->scope, 0);
  ck->nslots = 0;
  ck->in_thunk = 1;
  check_distinct(ck, t->usings, t->nusing, "the using list");
  for (int i = 0; i < t->nusing; i++) {
    LcuBinder *u = &t->usings[i];
    Sym *v = kernel_var(ck, u->name);
    u->slot = v ? v->slot : -1;
    u->ty = v ? v->ty : NULL;
    if (!v)
      err(ck, or_loc(u->loc, t->loc),
          "the using list names '%s', which is not a parameter of kernel '%s' or a name bound by "
          "an earlier SOAC",
          u->name, ck->kernel->name);
    scope_push(&ck->scope, u->name, u->ty, ck->nslots++);
  }
  if (nparams >= 0 && t->nparams != nparams) {
    const char *why =
        index ? (nparams == 0 ? "" : " (the index)") : " (one per component of the values)";
    const char *count = nparams ? nz_sprintf(ck->tmp, "%d", nparams) : "no";
    err(ck, t->loc, "%s%s takes %s %s%s, but it has %d", sn, role, count,
        plural(nparams, "parameter", "parameters"), why, t->nparams);
  }
  check_distinct(ck, t->params, t->nparams, "the thunk's parameters");
  for (int i = 0; i < t->nparams; i++) {
    LcuBinder *b = &t->params[i];
    if (lookup(&ck->scope, t->nusing, b->name))
      err(ck, or_loc(b->loc, t->loc), "thunk parameter '%s' has the name of a captured variable",
          b->name);
    const LcuType *ty = index ? lcu_type_base(LT_INT) : (i < nparams && ptys ? ptys[i] : NULL);
    bind(ck, b, ty);
  }
  const LcuType *bt = check_expr(ck, t->body, 0);
  t->nslots = ck->nslots;
  ck->in_thunk = 0;
  return bt;
}

static const char *components(Ck *ck, const LcuType *t) {
  int n = lcu_type_arity(t);
  return nz_sprintf(ck->tmp, "%d %s (%s)", n, plural(n, "component", "components"), ts(ck, t));
}

static void check_soac(Ck *ck, LcuSoac *s) {
  const char *sn = lcu_soac_name(s->kind);
  LcuSoacKind k = s->kind;
  int seg = k == LS_SEGREDUCE || k == LS_SEGSCAN;
  int two = k == LS_PERMUTE || k == LS_FILTER || k == LS_PARTITION;
  int reduces = k == LS_REDUCE || k == LS_SCAN || seg;
  for (int i = 0; i < s->nbinds; i++) s->binds[i].ty = NULL, s->binds[i].slot = -1;

  /* Shape: thunks, operators, sizes. */
  int want = two ? 2 : 1;
  if (s->nthunks != want || !s->thunks[0] || (want == 2 && !s->thunks[1])) {
    err(ck, s->loc, "%s takes %d %s, but has %d", sn, want, plural(want, "thunk", "thunks"),
        s->nthunks);
  }
  if (!reduces && s->nrops)
    err(ck, s->loc, "%s takes no reduction operators, but has %d", sn, s->nrops);

  /* Thunks. */
  const LcuType *int_t = lcu_type_base(LT_INT);
  const LcuType *vt = NULL, *t2 = NULL;
  LcuThunk *th0 = s->nthunks >= 1 ? s->thunks[0] : NULL;
  LcuThunk *th1 = s->nthunks >= 2 ? s->thunks[1] : NULL;
  if (th0) {
    vt = k == LS_ONCE ? check_thunk(ck, s, th0, "'s thunk", 0, NULL, 1)
                      : check_thunk(ck, s, th0, two ? "'s value thunk" : "'s thunk", 1, &int_t, 1);
  }
  if (th1 && two) {
    if (k == LS_PERMUTE) {
      t2 = check_thunk(ck, s, th1, "'s index thunk", 1, &int_t, 1);
      if (t2 && t2 != int_t)
        err(ck, or_loc(tail_of(th1->body)->loc, th1->loc),
            "PERMUTE's index thunk must return int, but returns %s", ts(ck, t2));
    } else {
      int n = vt ? lcu_type_arity(vt) : -1;
      const LcuType **ptys = NZ_NEWN(ck->tmp, const LcuType *, n > 0 ? n : 1);
      for (int i = 0; i < n; i++) ptys[i] = lcu_type_component(vt, i);
      t2 = check_thunk(ck, s, th1, "'s predicate", n, ptys, 0);
      if (t2 && t2->kind != LT_BOOL)
        err(ck, or_loc(tail_of(th1->body)->loc, th1->loc),
            "%s's predicate must return bool, but returns %s", sn, ts(ck, t2));
    }
  } else if (th1) {
    t2 = check_thunk(ck, s, th1, "'s extra thunk", -1, NULL, 1);
  }

  /* Sizes come after the thunks in the text, and so do their messages. */
  if (k == LS_ONCE) {
    s->size.slot = -1;
    if (s->size.kind != LZ_NONE) err(ck, or_loc(s->size.loc, s->loc), "ONCE takes no size");
  } else {
    check_size(ck, s, &s->size, seg, "the size");
  }
  s->outlen.slot = -1;
  if (s->outlen.kind != LZ_NONE) {
    if (k == LS_PERMUTE)
      check_size(ck, s, &s->outlen, 0, "the output length");
    else
      err(ck, or_loc(s->outlen.loc, s->loc), "only PERMUTE takes an output length (into)");
  }

  /* Reduction operators, one per component of the thunk's value. */
  int arity = vt ? lcu_type_arity(vt) : -1;
  if (reduces && vt) {
    if (s->nrops != arity)
      err(ck, s->loc, "%s has %d reduction %s, but its thunk returns %s", sn, s->nrops,
          plural(s->nrops, "operator", "operators"), components(ck, vt));
    for (int i = 0; i < s->nrops && i < arity; i++) {
      LcuTypeKind want_k = lcu_rop_elem(s->rops[i]);
      const LcuType *c = lcu_type_component(vt, i);
      if (s->rops[i] == LR_ID ? !lcu_type_is_base(c) : c->kind != want_k) {
        const char *need = s->rops[i] == LR_ID ? "a base type" : ts(ck, lcu_type_base(want_k));
        if (arity == 1)
          err(ck, s->loc, "operator %s needs %s, but the thunk returns %s",
              lcu_rop_name(s->rops[i]), need, ts(ck, c));
        else
          err(ck, s->loc, "operator %s needs %s, but component %d of the thunk is %s",
              lcu_rop_name(s->rops[i]), need, i + 1, ts(ck, c));
      }
    }
  }

  /* Binders. */
  if (vt) {
    int nb = k == LS_PARTITION ? 2 * arity : arity;
    if (s->nbinds != nb) {
      if (k == LS_PARTITION)
        err(ck, s->loc,
            "PARTITION binds %d %s, but needs %d (kept and rejected arrays for the %s of its "
            "thunk)",
            s->nbinds, plural(s->nbinds, "name", "names"), nb, components(ck, vt));
      else
        err(ck, s->loc, "%s binds %d %s, but its thunk returns %s", sn, s->nbinds,
            plural(s->nbinds, "name", "names"), components(ck, vt));
    }
    for (int i = 0; i < s->nbinds && i < nb; i++) {
      int c = i % arity;
      const LcuType *ct = lcu_type_component(vt, c);
      const LcuType *ty = NULL;
      if (!lcu_type_is_base(ct))
        ty = NULL; /* already reported: thunks compute scalars */
      else if (k == LS_ONCE)
        ty = ct;
      else if (k == LS_REDUCE)
        ty = c >= s->nrops ? NULL : s->rops[c] == LR_ID ? lcu_type_array(ct->kind) : ct;
      else
        ty = lcu_type_array(ct->kind);
      s->binds[i].ty = ty;
    }
  }

  /* Binders enter the kernel frame; they may not shadow. */
  check_distinct(ck, s->binds, s->nbinds, "the names bound by a SOAC");
  for (int i = 0; i < s->nbinds; i++) {
    LcuBinder *b = &s->binds[i];
    Sym *old = kernel_var(ck, b->name);
    if (old)
      err(ck, or_loc(b->loc, s->loc),
          "'%s' is already bound in kernel '%s' (SOAC binders cannot shadow)", b->name,
          ck->kernel->name);
    b->slot = ck->kernel->nslots++;
    scope_push(&ck->kscope, b->name, b->ty, b->slot);
  }
}

static void check_kernel(Ck *ck, LcuKernel *k) {
  ck->kernel = k;
  scope_pop_to(&ck->kscope, 0);
  k->nslots = 0;
  check_distinct(ck, k->params, k->nparams, "the kernel's parameters");
  for (int i = 0; i < k->nparams; i++) {
    LcuBinder *b = &k->params[i];
    int ok = check_decl_type(ck, b->ty, or_loc(b->loc, k->loc), "parameter '%s' of kernel '%s'", b->name, k->name);
    if (ok && b->ty->kind == LT_TUPLE) {
      err(ck, or_loc(b->loc, k->loc),
          "parameter '%s' of kernel '%s' is the tuple %s, but kernel parameters are scalars, arrays or segdes",
          b->name, k->name, ts(ck, b->ty));
      ok = 0;
    }
    b->slot = k->nslots++;
    scope_push(&ck->kscope, b->name, ok ? b->ty : NULL, b->slot); /* NULL: no errors about its uses */
  }
  int ret_ok = check_decl_type(ck, k->ret, k->loc, "the result of kernel '%s'", k->name, NULL);
  for (int i = 0; i < k->nsoacs; i++) check_soac(ck, &k->soacs[i]);

  const LcuType **rt = NZ_NEWN(ck->tmp, const LcuType *, k->nrets ? k->nrets : 1);
  int ok = 1;
  for (int i = 0; i < k->nrets; i++) {
    LcuBinder *r = &k->rets[i];
    Sym *v = kernel_var(ck, r->name);
    r->slot = v ? v->slot : -1;
    r->ty = rt[i] = v ? v->ty : NULL;
    if (!v)
      err(ck, or_loc(r->loc, k->loc), "kernel '%s' returns unknown variable '%s'", k->name,
          r->name);
    if (!rt[i]) ok = 0;
  }
  if (ok && ret_ok) {
    int n = lcu_type_arity(k->ret);
    if (n != k->nrets) {
      err(ck, k->nrets ? or_loc(k->rets[0].loc, k->loc) : k->loc,
          "kernel '%s' is declared -> %s (%d %s), but returns %d %s", k->name, ts(ck, k->ret), n,
          plural(n, "value", "values"), k->nrets, plural(k->nrets, "value", "values"));
    } else {
      for (int i = 0; i < n; i++)
        if (rt[i] != lcu_type_component(k->ret, i))
          err(ck, or_loc(k->rets[i].loc, k->loc),
              "kernel '%s' is declared -> %s, so result %d must be %s, but '%s' is %s", k->name,
              ts(ck, k->ret), i + 1, ts(ck, lcu_type_component(k->ret, i)), k->rets[i].name,
              ts(ck, rt[i]));
    }
  }
  ck->kernel = NULL;
}

/* -------------------------------------------------------------- functions */

static void check_func(Ck *ck, LcuFunc *f) {
  scope_pop_to(&ck->scope, 0);
  ck->nslots = 0;
  ck->in_thunk = 0;
  check_distinct(ck, f->params, f->nparams, "the function's parameters");
  for (int i = 0; i < f->nparams; i++) {
    LcuBinder *b = &f->params[i];
    check_decl_type(ck, b->ty, or_loc(b->loc, f->loc), "parameter '%s' of function '%s'", b->name, f->name);
    bind(ck, b, b->ty);
  }
  int ret_ok = check_decl_type(ck, f->ret, f->loc, "the result of function '%s'", f->name, NULL);
  const LcuType *bt = f->body ? check_expr(ck, f->body, 1) : NULL;
  if (!f->body) err(ck, f->loc, "function '%s' has no body", f->name);
  f->nslots = ck->nslots;
  if (bt && ret_ok && bt != f->ret)
    err(ck, or_loc(tail_of(f->body)->loc, f->loc),
        "function '%s' is declared -> %s, but its body gives %s", f->name, ts(ck, f->ret),
        ts(ck, bt));
}

/* ---------------------------------------------------------------- program */

static int loc_before(NzLoc a, NzLoc b) {
  return a.line < b.line || (a.line == b.line && a.col < b.col);
}

/* Fills the table of top-level names, reporting duplicates at the later
 * definition; calls and runs resolve to the first one. */
static void check_names(Ck *ck) {
  LcuProgram *p = ck->p;
  ck->ntops = 16;
  while (ck->ntops < 2 * (size_t)(p->nkernels + p->nfuncs)) ck->ntops *= 2;
  ck->tops = nz_xcalloc(ck->ntops, sizeof(Top));
  for (int i = 0; i < p->nkernels; i++) {
    LcuKernel *k = p->kernels[i];
    Top *t = top(ck, k->name, 1);
    if (t->k)
      err(ck, k->loc, "kernel '%s' is already defined at line %d", k->name, t->k->loc.line);
    else
      t->k = k;
  }
  for (int i = 0; i < p->nfuncs; i++) {
    LcuFunc *f = p->funcs[i];
    Top *t = top(ck, f->name, 1);
    if (t->f) {
      err(ck, f->loc, "function '%s' is already defined at line %d", f->name, t->f->loc.line);
      continue;
    }
    t->f = f;
    if (!t->k) continue;
    if (loc_before(t->k->loc, f->loc))
      err(ck, f->loc, "function '%s' has the name of the kernel defined at line %d", f->name,
          t->k->loc.line);
    else
      err(ck, t->k->loc, "kernel '%s' has the name of the function defined at line %d", f->name,
          f->loc.line);
  }
}

int lcu_check(LcuProgram *p) {
  Ck ck = {0};
  ck.p = p;
  ck.tmp = nz_arena_new();
  check_names(&ck);
  /* Kernels and functions in file order, so messages come out in order. */
  int ki = 0, fi = 0;
  while (ki < p->nkernels || fi < p->nfuncs) {
    if (fi >= p->nfuncs ||
        (ki < p->nkernels && !loc_before(p->funcs[fi]->loc, p->kernels[ki]->loc)))
      check_kernel(&ck, p->kernels[ki++]);
    else
      check_func(&ck, p->funcs[fi++]);
  }
  if (!find_func(&ck, nz_intern_cstr("main"))) {
    NzLoc loc = {p->src, 1, 1};
    if (p->src)
      err(&ck, loc, "the program has no function main");
    else {
      nz_error("the program has no function main");
      ck.errors++;
    }
  }
  scope_free(&ck.scope);
  scope_free(&ck.kscope);
  free(ck.tops);
  nz_arena_free(ck.tmp);
  return ck.errors;
}

/* Whether e reads variable x (interned); a let that binds x again counts as a read,
 * which only makes lcu_permute_scatter more careful. */
static bool reads_var(const LcuExpr *e, const char *x) {
  if (!e) return false;
  if (e->kind == LE_VAR && e->name == x) return true;
  if (e->kind == LE_LET)
    for (int b = 0; b < e->nbinds; b++)
      if (e->binds[b].name == x) return true;
  for (int k = 0; k < e->nargs; k++)
    if (reads_var(e->args[k], x)) return true;
  return false;
}

LcuScatter lcu_permute_scatter(const LcuSoac *s) {
  if (s->kind != LS_PERMUTE || s->outlen.kind == LZ_NONE) return LCU_SCATTER_ORDERED;
  const LcuThunk *tv = s->thunks[0];
  if (tv->nparams != 1) return LCU_SCATTER_ORDERED;
  const char *ix = tv->params[0].name;
  const LcuExpr *b = tv->body;
  /* thunks hold no effects (no CPU primitives in kernels), so a value that does not
   * read the index is the same for every element */
  if (!reads_var(b, ix)) return LCU_SCATTER_SAME;
  if (b->ty && b->ty->kind == LT_INT && b->kind == LE_PRIM && b->prim == LP_ADD && b->nargs == 2) {
    const LcuExpr *x = b->args[0], *k = b->args[1];
    if (x->kind == LE_INT) x = b->args[1], k = b->args[0];
    if (x->kind == LE_VAR && x->name == ix && k->kind == LE_INT && k->lit.i == 1)
      return LCU_SCATTER_MAX; /* i + 1 < 2^31 for every index: no wrap */
  }
  return LCU_SCATTER_ORDERED;
}
