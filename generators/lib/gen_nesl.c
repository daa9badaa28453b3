/* gen_nesl.c — random NESL programs that always type-check, terminate quickly and
 * compute the same thing on every correct implementation: the operations that could
 * fail are guarded (indices through mod, divisions by non-zero literals), floats stay
 * multiples of small powers of two so no sum depends on its order, recursion has a
 * decreasing measure, and an estimate of the work bounds what a form may call.
 * A seed-chosen fraction of programs ends with one deliberate run-time error. */
#include "gen_nesl.h"
#include <ctype.h>

typedef enum { NT_INT, NT_FLOAT, NT_BOOL, NT_CHAR, NT_SEQ, NT_PAIR } NTyK;
typedef struct NTy {
  NTyK k;
  const struct NTy *a, *b; /* element of a sequence; components of a pair */
} NTy;

static const NTy T_INT = {NT_INT, 0, 0}, T_FLOAT = {NT_FLOAT, 0, 0}, T_BOOL = {NT_BOOL, 0, 0},
                 T_CHAR = {NT_CHAR, 0, 0};

typedef struct {
  const char *name;
  const NTy *t;
  bool top_only; /* `it`: not visible inside function bodies */
} Var;

typedef enum { FK_PLAIN, FK_QSORT, FK_DC, FK_COUNT } FunKind;
typedef struct {
  const char *name;
  int nargs;
  const NTy *arg[3];
  const NTy *ret;
  FunKind kind;
  double cost; /* estimated work of one call */
} Fun;

typedef struct {
  uint64_t rng;
  GenNeslOpts o;
  NzArena *ar;
  NzBuf *out;
  NZ_VEC(Var) env;
  NZ_VEC(Fun) funs;
  int fresh;
  int nfun, cnames; /* functions named so far; whether fun_name uses C-hostile names */
  double mult; /* estimated instances of the code being generated (apply-to-each nesting) */
  double cost; /* estimated work of the current form so far */
  bool in_fun;
  int nrec; /* recursive functions defined */
} G;

enum { EACH_FACTOR = 6 }; /* assumed elements per apply-to-each, for the work estimate */

/* ---------------------------------------------------------------- randomness */

static uint64_t next(G *g) { /* splitmix64 */
  uint64_t z = (g->rng += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static int rnd(G *g, int n) { return n <= 1 ? 0 : (int)(next(g) % (uint64_t)n); }
static bool chance(G *g, int pct) { return rnd(g, 100) < pct; }

/* ---------------------------------------------------------------- types */

static const NTy *seq_of(G *g, const NTy *a) {
  NTy *t = NZ_NEW(g->ar, NTy);
  t->k = NT_SEQ;
  t->a = a;
  return t;
}
static const NTy *pair_of(G *g, const NTy *a, const NTy *b) {
  NTy *t = NZ_NEW(g->ar, NTy);
  t->k = NT_PAIR;
  t->a = a;
  t->b = b;
  return t;
}
static bool ty_eq(const NTy *x, const NTy *y) {
  if (x->k != y->k) return false;
  if (x->k == NT_SEQ) return ty_eq(x->a, y->a);
  if (x->k == NT_PAIR) return ty_eq(x->a, y->a) && ty_eq(x->b, y->b);
  return true;
}
static int sdepth(const NTy *t) {
  if (t->k == NT_SEQ) return 1 + sdepth(t->a);
  if (t->k == NT_PAIR) {
    int a = sdepth(t->a), b = sdepth(t->b);
    return a > b ? a : b;
  }
  return 0;
}
static bool room(G *g, const NTy *t) { return sdepth(t) < g->o.seq_depth; } /* [t] allowed */

static const NTy *rand_scalar(G *g) {
  int r = rnd(g, 100);
  return r < 45 ? &T_INT : r < 65 ? &T_FLOAT : r < 83 ? &T_BOOL : &T_CHAR;
}
static const NTy *rand_num(G *g) { return chance(g, 60) ? &T_INT : &T_FLOAT; }
static const NTy *rand_ord(G *g) { return chance(g, 20) ? &T_CHAR : rand_num(g); }

/* A type with at most sd levels of sequence nesting and about `size` nodes. */
static const NTy *rand_type(G *g, int sd, int size) {
  int r = rnd(g, 100);
  if (size > 1 && sd > 0 && r < 40) return seq_of(g, rand_type(g, sd - 1, size - 1));
  if (size > 2 && r >= 40 && r < 55)
    return pair_of(g, rand_type(g, sd, size / 2), rand_type(g, sd, size / 2));
  return rand_scalar(g);
}
/* An element type u such that [u] is within the nesting limit. */
static const NTy *rand_elem(G *g) { return rand_type(g, g->o.seq_depth - 1, 4); }

/* ---------------------------------------------------------------- output */

static void P(G *g, const char *s) { nz_buf_puts(g->out, s); }
NZ_PRINTF(2, 3) static void PF(G *g, const char *fmt, ...) {
  char tmp[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  nz_buf_puts(g->out, tmp);
}

static void put_type(G *g, const NTy *t) {
  switch (t->k) {
  case NT_INT: P(g, "int"); break;
  case NT_FLOAT: P(g, "float"); break;
  case NT_BOOL: P(g, "bool"); break;
  case NT_CHAR: P(g, "char"); break;
  case NT_SEQ:
    P(g, "[");
    put_type(g, t->a);
    P(g, "]");
    break;
  case NT_PAIR:
    P(g, "(");
    put_type(g, t->a);
    P(g, ", ");
    put_type(g, t->b);
    P(g, ")");
    break;
  }
}

static void lit_int(G *g, int v) {
  if (v < 0) PF(g, "(-%d)", -v);
  else PF(g, "%d", v);
}
/* q quarters: exactly representable, printed the way NESL writes float literals. */
static void lit_float(G *g, int q) {
  char s[32];
  snprintf(s, sizeof s, "%.2f", (q < 0 ? -q : q) / 4.0);
  size_t n = strlen(s);
  if (s[n - 1] == '0') s[n - 1] = 0;
  if (q < 0) PF(g, "(-%s)", s);
  else P(g, s);
}
static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
static void lit_char(G *g) { PF(g, "`%c", letters[rnd(g, (int)sizeof letters - 1)]); }
/* Strings and comments carry text that is hostile to C (trigraphs, comment ends and
 * starts, quotes, backslashes, format directives): it must reach generated C only
 * escaped. (Written with "?\?" here: this file is C too.) */
static const char *const hostile[] = {"?\?/", "*/", "/" "*", "?\?=", "?\?!", "%d%s", "\\\\", "\\\"}}; int x;"};
#define NHOSTILE ((int)(sizeof hostile / sizeof *hostile))
static void lit_string(G *g) {
  static const char *words[] = {"a", "nesl", "Seq", "x y", "data", "par", "", "z9", "Q", "\\\"q"};
  int n = rnd(g, 4);
  P(g, "\"");
  for (int i = 0; i < n; i++) {
    if (i) P(g, " ");
    int w = rnd(g, 10 + NHOSTILE);
    P(g, w < 10 ? words[w] : hostile[w - 10]);
  }
  P(g, "\"");
}
/* The end of a line that may fault (its text is embedded in the compiled program):
 * a comment of hostile text, chosen without drawing from the random stream. */
static void hostile_eol(G *g) {
  const char *h = hostile[g->fresh % NHOSTILE];
  PF(g, " %% %s ?\?/\"*/ %%\n", strchr(h, '%') ? "?\?/" : h);
}

/* ---------------------------------------------------------------- environment */

static const char *fresh(G *g, const char *pfx) { return nz_sprintf(g->ar, "%s%d", pfx, ++g->fresh); }
/* A function's name: the first functions of a batch's first program take names that are C keywords,
 * C library or runtime symbols and names shaped like generated C's (none is NESL's),
 * then fresh ones; the random stream is not drawn from. */
static const char *fun_name(G *g, const char *pfx) {
  static const char *const cnames[] = {"static", "register", "printf", "rt_alloc", "nessie_locs",
                                       "main_fn", "x_1", "int32_t", "volatile", "memcpy"};
  int k = g->nfun++;
  const char *f = fresh(g, pfx);
  return g->cnames && k < (int)(sizeof cnames / sizeof *cnames) ? cnames[k] : f;
}
static int push_var(G *g, const char *name, const NTy *t) {
  int n = g->env.n;
  nz_vec_push(g->env, ((Var){name, t, false}));
  return n;
}
static void pop_to(G *g, int n) { g->env.n = n; }
static bool shadowed(G *g, int i) {
  for (int j = i + 1; j < g->env.n; j++)
    if (g->env.v[j].name == g->env.v[i].name) return true;
  return false;
}
static bool usable(G *g, int i) { return !(g->in_fun && g->env.v[i].top_only) && !shadowed(g, i); }
static const Var *pick_var(G *g, const NTy *t) {
  int c = 0;
  for (int i = 0; i < g->env.n; i++)
    if (ty_eq(g->env.v[i].t, t) && usable(g, i)) c++;
  if (!c) return NULL;
  int k = rnd(g, c);
  for (int i = 0; i < g->env.n; i++)
    if (ty_eq(g->env.v[i].t, t) && usable(g, i) && k-- == 0) return &g->env.v[i];
  return NULL;
}
static const Var *pick_seq_var(G *g) {
  int c = 0;
  for (int i = 0; i < g->env.n; i++)
    if (g->env.v[i].t->k == NT_SEQ && usable(g, i)) c++;
  if (!c) return NULL;
  int k = rnd(g, c);
  for (int i = 0; i < g->env.n; i++)
    if (g->env.v[i].t->k == NT_SEQ && usable(g, i) && k-- == 0) return &g->env.v[i];
  return NULL;
}

/* ---------------------------------------------------------------- expressions */

static void ex(G *g, const NTy *t, int d);

static void leaf(G *g, const NTy *t) {
  if (chance(g, 55)) {
    const Var *v = pick_var(g, t);
    if (v) {
      P(g, v->name);
      return;
    }
  }
  switch (t->k) {
  case NT_INT: lit_int(g, rnd(g, 26) - 5); return;
  case NT_FLOAT: lit_float(g, rnd(g, 65) - 32); return;
  case NT_BOOL: P(g, chance(g, 50) ? "t" : "f"); return;
  case NT_CHAR: lit_char(g); return;
  case NT_SEQ:
    if (t->a->k == NT_CHAR && chance(g, 60)) {
      lit_string(g);
      return;
    }
    if (chance(g, 12)) {
      P(g, "[] ");
      put_type(g, t->a);
      return;
    }
    P(g, "[");
    for (int i = 0, n = 1 + rnd(g, 3); i < n; i++) {
      if (i) P(g, ", ");
      leaf(g, t->a);
    }
    P(g, "]");
    return;
  case NT_PAIR:
    P(g, "(");
    leaf(g, t->a);
    P(g, ", ");
    leaf(g, t->b);
    P(g, ")");
    return;
  }
}

/* Generates e at a multiplied instance count (inside an apply-to-each body). */
static void ex_in_each(G *g, const NTy *t, int d) {
  double m = g->mult;
  g->mult *= EACH_FACTOR;
  ex(g, t, d);
  g->mult = m;
}

/* "(let NAME = E in " with NAME bound to type t afterwards; returns the env mark. */
static int open_let(G *g, const char *name, const NTy *t, int d) {
  PF(g, "(let %s = ", name);
  ex(g, t, d);
  P(g, " in ");
  return push_var(g, name, t);
}

static bool call_fun(G *g, const NTy *t, int d) {
  int c = 0;
  for (int i = 0; i < g->funs.n; i++)
    if (ty_eq(g->funs.v[i].ret, t) && g->mult * g->funs.v[i].cost <= g->o.work) c++;
  if (!c) return false;
  int k = rnd(g, c);
  const Fun *f = NULL;
  for (int i = 0; i < g->funs.n && !f; i++)
    if (ty_eq(g->funs.v[i].ret, t) && g->mult * g->funs.v[i].cost <= g->o.work && k-- == 0)
      f = &g->funs.v[i];
  g->cost += g->mult * f->cost;
  PF(g, "%s(", f->name);
  for (int i = 0; i < f->nargs; i++) {
    if (i) P(g, ", ");
    if (f->kind == FK_COUNT && i == 0) { /* the measure: at most 3 levels of recursion */
      P(g, "mod(");
      ex(g, &T_INT, d - 1);
      P(g, ", 4)");
    } else {
      ex(g, f->arg[i], d - 1);
    }
  }
  P(g, ")");
  return true;
}

/* Forms of any type. */
static bool ex_common(G *g, const NTy *t, int d) {
  switch (rnd(g, 7)) {
  case 0: {
    const Var *v = pick_var(g, t);
    if (!v) return false;
    P(g, v->name);
    return true;
  }
  case 1:
    P(g, "(if ");
    ex(g, &T_BOOL, d - 1);
    P(g, " then ");
    ex(g, t, d - 1);
    P(g, " else ");
    ex(g, t, d - 1);
    P(g, ")");
    return true;
  case 2: {
    const NTy *u = rand_type(g, g->o.seq_depth, 5);
    int mark = g->env.n;
    if (u->k == NT_PAIR && chance(g, 60)) {
      const char *a = fresh(g, "v"), *b = fresh(g, "v");
      PF(g, "(let (%s, %s) = ", a, b);
      ex(g, u, d - 1);
      P(g, " in ");
      push_var(g, a, u->a);
      push_var(g, b, u->b);
    } else {
      const char *a = fresh(g, "v");
      PF(g, "(let %s = ", a);
      ex(g, u, d - 1);
      push_var(g, a, u);
      if (chance(g, 40)) { /* a second binding that may use the first */
        const NTy *w = rand_type(g, g->o.seq_depth, 4);
        const char *b = fresh(g, "v");
        PF(g, "; %s = ", b);
        ex(g, w, d - 1);
        push_var(g, b, w);
      }
      P(g, " in ");
    }
    ex(g, t, d - 1);
    P(g, ")");
    pop_to(g, mark);
    return true;
  }
  case 3: return call_fun(g, t, d);
  case 4: { /* guarded indexing */
    if (!room(g, t)) return false;
    const char *v = fresh(g, "v");
    int mark = open_let(g, v, seq_of(g, t), d - 1);
    PF(g, "if #%s == 0 then ", v);
    ex(g, t, d - 1);
    PF(g, " else %s[", v);
    if (chance(g, 25)) {
      PF(g, "#%s - 1", v);
    } else {
      P(g, "mod(");
      ex(g, &T_INT, d - 1);
      PF(g, ", #%s)", v);
    }
    P(g, "])");
    pop_to(g, mark);
    return true;
  }
  case 5: {
    const NTy *u = rand_type(g, g->o.seq_depth, 3);
    bool first = chance(g, 50);
    P(g, first ? "first(" : "rest(");
    ex(g, first ? pair_of(g, t, u) : pair_of(g, u, t), d - 1);
    P(g, ")");
    return true;
  }
  default: { /* a pattern let over a freshly built pair, swapped */
    const NTy *u = rand_type(g, g->o.seq_depth, 3);
    const char *a = fresh(g, "v"), *b = fresh(g, "v");
    PF(g, "(let (%s, %s) = (", a, b);
    ex(g, u, d - 1);
    P(g, ", ");
    ex(g, t, d - 1);
    P(g, ") in ");
    int mark = push_var(g, a, u);
    push_var(g, b, t);
    ex(g, t, d - 1);
    P(g, ")");
    pop_to(g, mark);
    return true;
  }
  }
}

/* "f(E)" for a one-argument function on type a. */
static void call1(G *g, const char *f, const NTy *a, int d) {
  PF(g, "%s(", f);
  ex(g, a, d);
  P(g, ")");
}
/* "(E1 op E2)" */
static void binop(G *g, const char *op, const NTy *a, int d) {
  P(g, "(");
  ex(g, a, d);
  PF(g, " %s ", op);
  ex(g, a, d);
  P(g, ")");
}
/* "f(E1, E2)" */
static void call2(G *g, const char *f, const NTy *a, int d) {
  PF(g, "%s(", f);
  ex(g, a, d);
  P(g, ", ");
  ex(g, a, d);
  P(g, ")");
}

/* `(let v = S in if #v == 0 then DEFAULT else F(v))` for an F that needs a non-empty v */
static void guarded_reduce(G *g, const char *f, const NTy *elem, const NTy *t, int d) {
  const char *v = fresh(g, "v");
  int mark = open_let(g, v, seq_of(g, elem), d - 1);
  PF(g, "if #%s == 0 then ", v);
  ex(g, t, d - 1);
  if (!strcmp(f, "kth_smallest")) {
    PF(g, " else kth_smallest(%s, mod(", v);
    ex(g, &T_INT, d - 1);
    PF(g, ", #%s)))", v);
  } else {
    PF(g, " else %s(%s))", f, v);
  }
  pop_to(g, mark);
}

static bool ex_int(G *g, int d) {
  static const char *logic[] = {"and", "or", "xor"};
  switch (rnd(g, 17)) {
  case 0: binop(g, chance(g, 50) ? "+" : "-", &T_INT, d - 1); return true;
  case 1:
    P(g, "(rem(");
    ex(g, &T_INT, d - 1);
    PF(g, ", 100) * ");
    lit_int(g, rnd(g, 7) - 3);
    P(g, ")");
    return true;
  case 2: call2(g, chance(g, 50) ? "max" : "min", &T_INT, d - 1); return true;
  case 3:
    P(g, "#");
    if (chance(g, 30)) {
      const Var *v = pick_seq_var(g);
      if (v) {
        P(g, v->name);
        return true;
      }
    }
    P(g, "(");
    ex(g, seq_of(g, rand_elem(g)), d - 1);
    P(g, ")");
    return true;
  case 4: call1(g, "sum", seq_of(g, &T_INT), d - 1); return true;
  case 5: call1(g, "count", seq_of(g, &T_BOOL), d - 1); return true;
  case 6:
    PF(g, "%s(", chance(g, 50) ? "rem" : "mod");
    ex(g, &T_INT, d - 1);
    P(g, ", ");
    lit_int(g, chance(g, 50) ? 1 + rnd(g, 9) : -1 - rnd(g, 9));
    P(g, ")");
    return true;
  case 7:
    P(g, "(");
    ex(g, &T_INT, d - 1);
    P(g, " / ");
    lit_int(g, chance(g, 70) ? 1 + rnd(g, 9) : -1 - rnd(g, 9));
    P(g, ")");
    return true;
  case 8:
    if (chance(g, 50)) call1(g, "char_code", &T_CHAR, d - 1);
    else call1(g, "btoi", &T_BOOL, d - 1);
    return true;
  case 9: {
    static const char *fl[] = {"floor", "ceil", "trunc", "round"};
    PF(g, "%s(min(max(", fl[rnd(g, 4)]); /* in int range: NESL's conversions fail outside */
    ex(g, &T_FLOAT, d - 1);
    P(g, ", (-100000.0)), 100000.0))");
    return true;
  }
  case 10: {
    const NTy *u = rand_elem(g);
    P(g, "find(");
    ex(g, u, d - 1);
    P(g, ", ");
    ex(g, seq_of(g, u), d - 1);
    P(g, ")");
    return true;
  }
  case 11: {
    static const char *red[] = {"max_val", "min_val", "median", "kth_smallest"};
    if (chance(g, 30)) guarded_reduce(g, chance(g, 50) ? "max_index" : "min_index", rand_ord(g), &T_INT, d);
    else guarded_reduce(g, red[rnd(g, 4)], &T_INT, &T_INT, d);
    return true;
  }
  case 12: {
    const char *x = fresh(g, "e");
    PF(g, "%s({mod(%s, 3) - 1 : %s in ", chance(g, 50) ? "product" : "sum", x, x);
    ex(g, seq_of(g, &T_INT), d - 1);
    P(g, "})");
    return true;
  }
  case 13:
    if (chance(g, 50)) {
      P(g, "rshift(");
      ex(g, &T_INT, d - 1);
    } else {
      P(g, "lshift(mod(");
      ex(g, &T_INT, d - 1);
      P(g, ", 1000)");
    }
    PF(g, ", %d)", rnd(g, 4));
    return true;
  case 14: /* through rem, so a parameter used here is an int, not a logical-class type
               variable that a numeric use elsewhere would contradict */
    if (chance(g, 25)) {
      P(g, "not(rem(");
      ex(g, &T_INT, d - 1);
      P(g, ", 64))");
    } else {
      P(g, "(rem(");
      ex(g, &T_INT, d - 1);
      PF(g, ", 64) %s rem(", logic[rnd(g, 3)]);
      ex(g, &T_INT, d - 1);
      P(g, ", 64))");
    }
    return true;
  case 15:
    if (chance(g, 25)) { /* rand: the order of draws (inside apply-to-each too) */
      P(g, "rand(1 + abs(rem(");
      ex(g, &T_INT, d - 1);
      P(g, ", 50)))");
      return true;
    }
    call1(g, chance(g, 50) ? "abs" : "negate", &T_INT, d - 1);
    return true;
  default: {
    static const char *lg[] = {"any", "all", "parity"};
    const char *x = fresh(g, "e");
    PF(g, "%s({rem(%s, 8) : %s in ", lg[rnd(g, 3)], x, x);
    ex(g, seq_of(g, &T_INT), d - 1);
    P(g, "})");
    return true;
  }
  }
}

static bool ex_float(G *g, int d) {
  static const int mulq[] = {2, 8, -4, 1, 6, -8, 12}; /* quarters: 0.5, 2.0, -1.0, ... */
  static const int divq[] = {8, 16, -2, 1};
  switch (rnd(g, 11)) {
  case 0: binop(g, chance(g, 50) ? "+" : "-", &T_FLOAT, d - 1); return true;
  case 1:
  case 2: {
    bool mul = rnd(g, 2);
    P(g, "(");
    ex(g, &T_FLOAT, d - 1);
    P(g, mul ? " * " : " / ");
    lit_float(g, mul ? mulq[rnd(g, 7)] : divq[rnd(g, 4)]);
    P(g, ")");
    return true;
  }
  case 3: call1(g, "float", &T_INT, d - 1); return true;
  case 4: call1(g, "sum", seq_of(g, &T_FLOAT), d - 1); return true;
  case 5: call2(g, chance(g, 50) ? "max" : "min", &T_FLOAT, d - 1); return true;
  case 6: { /* transcendental functions, quantised back to exact values */
    int k = rnd(g, 3);
    P(g, k == 0 ? "(float(floor(sqrt(min(abs(" : k == 1 ? "(float(round(sin(" : "(float(round(exp(min(");
    ex(g, &T_FLOAT, d - 1);
    P(g, k == 0 ? "), 1.0e6)) * 4.0)) / 4.0)" : k == 1 ? ") * 8.0)) / 8.0)" : ", 4.0)) * 2.0)) / 2.0)");
    return true;
  }
  case 7: {
    static const char *red[] = {"max_val", "min_val", "median", "kth_smallest"};
    guarded_reduce(g, red[rnd(g, 4)], &T_FLOAT, &T_FLOAT, d);
    return true;
  }
  case 8: call1(g, chance(g, 50) ? "abs" : "negate", &T_FLOAT, d - 1); return true;
  case 9:
    P(g, "(-");
    ex(g, &T_FLOAT, d - 1);
    P(g, ")");
    return true;
  default:
    P(g, "(float(");
    ex(g, &T_INT, d - 1);
    P(g, ") / 4.0)");
    return true;
  }
}

static bool ex_bool(G *g, int d) {
  static const char *cmp[] = {"<", ">", "<=", ">=", "==", "/="};
  static const char *logic[] = {"and", "or", "xor", "nand", "nor"};
  switch (rnd(g, 10)) {
  case 0:
  case 1: binop(g, cmp[rnd(g, 6)], rand_ord(g), d - 1); return true;
  case 2: call2(g, "eql", rand_type(g, g->o.seq_depth, 4), d - 1); return true;
  case 3: call1(g, "not", &T_BOOL, d - 1); return true;
  case 4: binop(g, logic[rnd(g, 5)], &T_BOOL, d - 1); return true;
  case 5: {
    static const char *lg[] = {"any", "all", "parity"};
    call1(g, lg[rnd(g, 3)], seq_of(g, &T_BOOL), d - 1);
    return true;
  }
  case 6: call1(g, chance(g, 50) ? "evenp" : "oddp", &T_INT, d - 1); return true;
  case 7: {
    static const char *pr[] = {"plusp", "minusp", "zerop"};
    call1(g, pr[rnd(g, 3)], rand_num(g), d - 1);
    return true;
  }
  case 8:
    P(g, "(#(");
    ex(g, seq_of(g, rand_elem(g)), d - 1);
    PF(g, ") > %d)", rnd(g, 4));
    return true;
  default:
    if (chance(g, 50)) call1(g, "digitp", &T_CHAR, d - 1);
    else call2(g, "string_eql", seq_of(g, &T_CHAR), d - 1);
    return true;
  }
}

static bool ex_char(G *g, int d) {
  switch (rnd(g, 3)) {
  case 0:
    P(g, "code_char(97 + mod(");
    ex(g, &T_INT, d - 1);
    P(g, ", 26))");
    return true;
  case 1: call1(g, chance(g, 50) ? "lowercase" : "uppercase", &T_CHAR, d - 1); return true;
  default: call2(g, chance(g, 50) ? "max" : "min", &T_CHAR, d - 1); return true;
  }
}

/* Apply-to-each producing t = [a]: one generator (optionally a tuple pattern), several
 * generators of one length, the body-less filter form, and the `{e : x}` shorthand;
 * with or without a sieve. */
static void each(G *g, const NTy *t, int d) {
  const NTy *a = t->a;
  int mode = rnd(g, 10), mark = g->env.n;
  if (mode == 9) {
    const Var *sv = pick_seq_var(g);
    if (sv) { /* {BODY : v} — v, a sequence outside, is its element inside */
      const char *name = sv->name;
      const NTy *u = sv->t->a;
      P(g, "{");
      push_var(g, name, u);
      ex_in_each(g, a, d - 1);
      PF(g, " : %s", name);
      if (chance(g, 30)) {
        P(g, " | ");
        ex_in_each(g, &T_BOOL, d - 1);
      }
      P(g, "}");
      pop_to(g, mark);
      return;
    }
    mode = 0;
  }
  if (mode == 8) { /* {x in S | SIEVE} */
    const char *x = fresh(g, "e");
    PF(g, "{%s in ", x);
    ex(g, t, d - 1);
    P(g, " | ");
    push_var(g, x, a);
    ex_in_each(g, &T_BOOL, d - 1);
    P(g, "}");
    pop_to(g, mark);
    return;
  }
  const NTy *u = chance(g, 30) ? a : rand_elem(g);
  if (mode >= 6) { /* (let v = S in {BODY : x in v; y in SAME-LENGTH(v)}) */
    const char *v = fresh(g, "v"), *x = fresh(g, "e"), *y = fresh(g, "e");
    open_let(g, v, seq_of(g, u), d - 1);
    int k = rnd(g, 5);
    const NTy *w = k == 1 ? &T_INT : k == 4 ? rand_elem(g) : u;
    int inner = g->env.n;
    push_var(g, x, u);
    push_var(g, y, w);
    P(g, "{");
    ex_in_each(g, a, d - 1);
    pop_to(g, inner);
    PF(g, " : %s in %s; %s in ", x, v, y);
    switch (k) {
    case 0: P(g, v); break;
    case 1: PF(g, "[0 : #%s]", v); break;
    case 2: PF(g, "reverse(%s)", v); break;
    case 3: PF(g, "rotate(%s, %d)", v, rnd(g, 5)); break;
    default: {
      const char *z = fresh(g, "e");
      P(g, "{");
      push_var(g, z, u);
      ex_in_each(g, w, d - 1);
      pop_to(g, inner);
      PF(g, " : %s in %s}", z, v);
    }
    }
    if (chance(g, 25)) {
      P(g, " | ");
      push_var(g, x, u);
      push_var(g, y, w);
      ex_in_each(g, &T_BOOL, d - 1);
      pop_to(g, inner);
    }
    P(g, "})");
    pop_to(g, mark);
    return;
  }
  /* {BODY : PAT in S | SIEVE} */
  char pat[64];
  if (u->k == NT_PAIR && chance(g, 50)) {
    const char *x1 = fresh(g, "e"), *x2 = fresh(g, "e");
    snprintf(pat, sizeof pat, "(%s, %s)", x1, x2);
    push_var(g, x1, u->a);
    push_var(g, x2, u->b);
  } else {
    const char *x = fresh(g, "e");
    snprintf(pat, sizeof pat, "%s", x);
    push_var(g, x, u);
  }
  int nv = g->env.n;
  P(g, "{");
  ex_in_each(g, a, d - 1);
  PF(g, " : %s in ", pat);
  Var saved[2];
  int ns = nv - mark;
  memcpy(saved, &g->env.v[mark], sizeof(Var) * (size_t)ns);
  pop_to(g, mark); /* the generator's expression is outside the braces' scope */
  ex(g, seq_of(g, u), d - 1);
  if (chance(g, 30)) {
    for (int i = 0; i < ns; i++) push_var(g, saved[i].name, saved[i].t);
    P(g, " | ");
    ex_in_each(g, &T_BOOL, d - 1);
    pop_to(g, mark);
  }
  P(g, "}");
}

/* Sequence-producing forms specific to the element type. */
static bool ex_seq_special(G *g, const NTy *t, int d) {
  const NTy *a = t->a;
  switch (a->k) {
  case NT_INT:
    switch (rnd(g, 10)) {
    case 0: {
      int k = rnd(g, 12) - 4;
      P(g, "[");
      lit_int(g, k);
      P(g, " : ");
      lit_int(g, k);
      P(g, " + mod(");
      ex(g, &T_INT, d - 1);
      if (chance(g, 50)) {
        P(g, ", 12) : 1 + mod(");
        ex(g, &T_INT, d - 1);
        P(g, ", 3)]");
      } else {
        P(g, ", 8)]");
      }
      return true;
    }
    case 1:
      P(g, "index(mod(");
      ex(g, &T_INT, d - 1);
      P(g, ", 8))");
      return true;
    case 2: {
      static const char *sc[] = {"plus_scan", "max_scan", "min_scan", "sort"};
      call1(g, sc[rnd(g, 4)], t, d - 1);
      return true;
    }
    case 3: call1(g, chance(g, 50) ? "rank" : "rank_down", seq_of(g, rand_num(g)), d - 1); return true;
    case 4:
      P(g, "[0 : #(");
      ex(g, seq_of(g, rand_elem(g)), d - 1);
      P(g, ")]");
      return true;
    case 5: call1(g, chance(g, 50) ? "enumerate" : "pack_index", seq_of(g, &T_BOOL), d - 1); return true;
    case 6: {
      const char *x = fresh(g, "e");
      PF(g, "mult_scan({mod(%s, 3) - 1 : %s in ", x, x);
      ex(g, t, d - 1);
      P(g, "})");
      return true;
    }
    case 7: {
      const NTy *u = rand_scalar(g);
      P(g, "search_for_subseqs([");
      ex(g, u, d - 1);
      P(g, "], ");
      ex(g, seq_of(g, u), d - 1);
      P(g, ")");
      return true;
    }
    case 8: {
      const char *x = fresh(g, "e");
      PF(g, "{%s : %s in ", x, x);
      ex(g, t, d - 1);
      PF(g, " | evenp(%s)}", x);
      return true;
    }
    default: return false;
    }
  case NT_FLOAT: {
    /* a float max/min scan starts with -/+1.0e36 (NESL.md 4.3): dropped (after a snoc,
     * so the length stays), since sums over it would depend on their order */
    static const char *sc[] = {"plus_scan", "drop(max_scan(snoc", "drop(min_scan(snoc", "sort"};
    int k = rnd(g, 4);
    if (k == 1 || k == 2) {
      PF(g, "%s(", sc[k]);
      ex(g, t, d - 1);
      P(g, ", ");
      ex(g, a, d - 1);
      P(g, ")), 1)");
    } else {
      call1(g, sc[k], t, d - 1);
    }
    return true;
  }
  case NT_BOOL: {
    static const char *sc[] = {"or_scan", "and_scan", "xor_scan"};
    call1(g, sc[rnd(g, 3)], t, d - 1);
    return true;
  }
  case NT_CHAR:
    switch (rnd(g, 4)) {
    case 0: lit_string(g); return true;
    case 1:
      P(g, "@(");
      ex(g, rand_type(g, 2, 4), d - 1);
      P(g, ")");
      return true;
    case 2:
      P(g, "(");
      ex(g, t, d - 1);
      P(g, " || ");
      lit_int(g, rnd(g, 17) - 8);
      P(g, ")");
      return true;
    default: call1(g, "int_string", &T_INT, d - 1); return true;
    }
  case NT_SEQ: {
    const NTy *b = a->a;
    switch (rnd(g, 6)) {
    case 0: {
      const char *v = fresh(g, "v"), *k = fresh(g, "v");
      int mark = open_let(g, v, a, d - 1);
      P(g, "let ");
      PF(g, "%s = mod(", k);
      ex(g, &T_INT, d - 1);
      PF(g, ", #%s + 1) in partition(%s, [%s, #%s - %s]))", v, v, k, v, k);
      pop_to(g, mark);
      return true;
    }
    case 1: call1(g, "bottop", a, d - 1); return true;
    case 2: {
      const char *v = fresh(g, "v"), *x = fresh(g, "e");
      int mark = open_let(g, v, a, d - 1);
      PF(g, "split(%s, {", v);
      push_var(g, x, b);
      ex_in_each(g, &T_BOOL, d - 1);
      PF(g, " : %s in %s}))", x, v);
      pop_to(g, mark);
      return true;
    }
    case 3: {
      const char *x = fresh(g, "e");
      PF(g, "transpose({dist(%s, %d) : %s in ", x, 1 + rnd(g, 3), x);
      ex(g, a, d - 1);
      P(g, "})");
      return true;
    }
    case 4:
      P(g, "group_by(");
      ex(g, a, d - 1);
      P(g, ", 1 + mod(");
      ex(g, &T_INT, d - 1);
      P(g, ", 3))");
      return true;
    default:
      if (b->k != NT_CHAR) return false;
      call1(g, "wordify", a, d - 1);
      return true;
    }
  }
  case NT_PAIR: {
    const NTy *p = a->a, *q = a->b;
    if (p->k == NT_INT && q->k == NT_SEQ && chance(g, 50)) {
      const NTy *u = rand_elem(g);
      const char *x = fresh(g, "e");
      P(g, "int_collect({(mod(");
      int mark = push_var(g, x, u);
      ex_in_each(g, &T_INT, d - 1);
      P(g, ", 3), ");
      ex_in_each(g, q->a, d - 1);
      PF(g, ") : %s in ", x);
      pop_to(g, mark);
      ex(g, seq_of(g, u), d - 1);
      P(g, "})");
      return true;
    }
    const char *v = fresh(g, "v"), *x = fresh(g, "e");
    int mark = open_let(g, v, seq_of(g, p), d - 1);
    PF(g, "zip(%s, {", v);
    push_var(g, x, p);
    ex_in_each(g, q, d - 1);
    PF(g, " : %s in %s}))", x, v);
    pop_to(g, mark);
    return true;
  }
  }
  return false;
}

static bool ex_seq(G *g, const NTy *t, int d) {
  const NTy *a = t->a;
  int mark = g->env.n;
  switch (rnd(g, 20)) {
  case 0:
    if (a->k == NT_CHAR && chance(g, 50)) {
      lit_string(g);
      return true;
    }
    P(g, "[");
    for (int i = 0, n = 1 + rnd(g, 4); i < n; i++) {
      if (i) P(g, ", ");
      ex(g, a, d - 1);
    }
    P(g, "]");
    return true;
  case 1:
  case 2:
  case 3:
  case 4: each(g, t, d); return true;
  case 5: binop(g, "++", t, d - 1); return true;
  case 6: {
    const char *v = fresh(g, "v");
    open_let(g, v, t, d - 1);
    PF(g, "%s(%s, mod(", chance(g, 50) ? "take" : "drop", v);
    ex(g, &T_INT, d - 1);
    PF(g, ", #%s + 1)))", v);
    pop_to(g, mark);
    return true;
  }
  case 7: {
    static const char *f[] = {"reverse", "odd_elts", "even_elts"};
    if (chance(g, 30)) {
      P(g, "rotate(");
      ex(g, t, d - 1);
      P(g, ", ");
      ex(g, &T_INT, d - 1);
      P(g, ")");
    } else {
      call1(g, f[rnd(g, 3)], t, d - 1);
    }
    return true;
  }
  case 8:
    if (!room(g, t)) return false;
    call1(g, "flatten", seq_of(g, t), d - 1);
    return true;
  case 9:
    P(g, "dist(");
    ex(g, a, d - 1);
    P(g, chance(g, 80) ? ", 1 + mod(" : ", mod(");
    ex(g, &T_INT, d - 1);
    P(g, ", 4))");
    return true;
  case 10: {
    const char *v = fresh(g, "v");
    open_let(g, v, t, d - 1);
    if (chance(g, 30)) {
      PF(g, "permute(%s, reverse([0 : #%s])))", v, v);
    } else {
      const char *x = fresh(g, "e");
      PF(g, "permute(%s, %s({", v, chance(g, 50) ? "rank" : "rank_down");
      push_var(g, x, a);
      ex_in_each(g, chance(g, 70) ? &T_INT : &T_FLOAT, d - 1);
      PF(g, " : %s in %s})))", x, v);
    }
    pop_to(g, mark);
    return true;
  }
  case 11: { /* gather */
    const char *v = fresh(g, "v"), *x = fresh(g, "e");
    const NTy *u = rand_elem(g);
    open_let(g, v, t, d - 1);
    bool arrow = chance(g, 50);
    if (arrow) PF(g, "if #%s == 0 then %s else %s -> {mod(", v, v, v);
    else PF(g, "if #%s == 0 then %s else read(%s, {mod(", v, v, v);
    int inner = push_var(g, x, u);
    ex_in_each(g, &T_INT, d - 1);
    pop_to(g, inner);
    PF(g, ", #%s) : %s in ", v, x);
    ex(g, seq_of(g, u), d - 1);
    P(g, arrow ? "})" : "}))");
    pop_to(g, mark);
    return true;
  }
  case 12: { /* pack */
    const char *v = fresh(g, "v"), *x = fresh(g, "e");
    open_let(g, v, t, d - 1);
    PF(g, "pack({(%s, ", x);
    push_var(g, x, a);
    ex_in_each(g, &T_BOOL, d - 1);
    PF(g, ") : %s in %s}))", x, v);
    pop_to(g, mark);
    return true;
  }
  case 13: {
    const char *v = fresh(g, "v"), *lo = fresh(g, "v");
    open_let(g, v, t, d - 1);
    PF(g, "let %s = mod(", lo);
    ex(g, &T_INT, d - 1);
    PF(g, ", #%s + 1) in subseq(%s, %s, %s + mod(", v, v, lo, lo);
    push_var(g, lo, &T_INT);
    ex(g, &T_INT, d - 1);
    PF(g, ", #%s - %s + 1)))", v, lo);
    pop_to(g, mark);
    return true;
  }
  case 14: {
    const char *v = fresh(g, "v");
    open_let(g, v, t, d - 1);
    PF(g, "if #%s == 0 then %s else rep(%s, ", v, v, v);
    ex(g, a, d - 1);
    P(g, ", mod(");
    ex(g, &T_INT, d - 1);
    PF(g, ", #%s)))", v);
    pop_to(g, mark);
    return true;
  }
  case 15:
    if (chance(g, 50)) {
      P(g, "cons(");
      ex(g, a, d - 1);
      P(g, ", ");
      ex(g, t, d - 1);
    } else {
      P(g, "snoc(");
      ex(g, t, d - 1);
      P(g, ", ");
      ex(g, a, d - 1);
    }
    P(g, ")");
    return true;
  case 16: {
    const char *v = fresh(g, "v");
    open_let(g, v, t, d - 1);
    if (a->k == NT_INT && chance(g, 50)) { /* a sequence of closures, called in another order */
      const char *fn = fresh(g, "fn"), *x = fresh(g, "x"), *y = fresh(g, "y"), *e = fresh(g, "e");
      PF(g, "{%s(%s) : %s in {(%s => %s * %d + %s) : %s in %s}; %s in reverse(%s)})", fn, x, fn, y, y,
         rnd(g, 5) - 2, e, e, v, x, v);
    } else {
      PF(g, "interleave(%s, reverse(%s)))", v, v);
    }
    pop_to(g, mark);
    return true;
  }
  default: return ex_seq_special(g, t, d);
  }
}

static bool ex_pair(G *g, const NTy *t, int d) {
  const NTy *a = t->a, *b = t->b;
  switch (rnd(g, 5)) {
  case 0:
    if (a->k != NT_SEQ || b->k != NT_SEQ) return false;
    call1(g, "unzip", seq_of(g, pair_of(g, a->a, b->a)), d - 1);
    return true;
  case 1: {
    if (b->k != NT_SEQ || !ty_eq(b->a, a)) return false;
    const char *v = fresh(g, "v");
    int mark = open_let(g, v, b, d - 1);
    PF(g, "if #%s == 0 then (", v);
    ex(g, a, d - 1);
    PF(g, ", %s) else head_rest(%s))", v, v);
    pop_to(g, mark);
    return true;
  }
  case 2:
    if (!ty_eq(a, seq_of(g, &T_INT)) || !ty_eq(b, a)) return false;
    call1(g, "split_index", seq_of(g, &T_BOOL), d - 1);
    return true;
  default:
    P(g, "(");
    ex(g, a, d - 1);
    P(g, ", ");
    ex(g, b, d - 1);
    P(g, ")");
    return true;
  }
}

static void ex(G *g, const NTy *t, int d) {
  g->cost += g->mult;
  if (d <= 0 || g->cost > g->o.work) {
    leaf(g, t);
    return;
  }
  for (int tries = 0; tries < 12; tries++) {
    bool ok = false;
    if (chance(g, 22)) {
      ok = ex_common(g, t, d);
    } else {
      switch (t->k) {
      case NT_INT: ok = ex_int(g, d); break;
      case NT_FLOAT: ok = ex_float(g, d); break;
      case NT_BOOL: ok = ex_bool(g, d); break;
      case NT_CHAR: ok = ex_char(g, d); break;
      case NT_SEQ: ok = ex_seq(g, t, d); break;
      case NT_PAIR: ok = ex_pair(g, t, d); break;
      }
    }
    if (ok) return;
  }
  leaf(g, t);
}

/* ---------------------------------------------------------------- top-level forms */

static void add_fun(G *g, const char *name, int nargs, const NTy **args, const NTy *ret, FunKind k,
                    double cost) {
  Fun f = {name, nargs, {NULL, NULL, NULL}, ret, k, cost};
  for (int i = 0; i < nargs; i++) f.arg[i] = args[i];
  nz_vec_push(g->funs, f);
}

static void begin_body(G *g) {
  g->in_fun = true;
  g->mult = 1;
  g->cost = 0;
}
static double end_body(G *g, int mark) {
  g->in_fun = false;
  pop_to(g, mark);
  return g->cost + 1;
}

static void plain_function(G *g) {
  const char *name = fun_name(g, "fun");
  int nargs = 1 + rnd(g, 3), mark = g->env.n;
  const NTy *args[3];
  const NTy *ret = rand_type(g, g->o.seq_depth, 6);
  begin_body(g);
  PF(g, "function %s(", name);
  for (int i = 0; i < nargs; i++) {
    args[i] = rand_type(g, g->o.seq_depth, 5);
    if (i) P(g, ", ");
    if (args[i]->k == NT_PAIR && chance(g, 40)) {
      const char *a = fresh(g, "p"), *b = fresh(g, "p");
      PF(g, "(%s, %s)", a, b);
      push_var(g, a, args[i]->a);
      push_var(g, b, args[i]->b);
    } else {
      const char *a = fresh(g, "p");
      P(g, a);
      push_var(g, a, args[i]);
    }
  }
  P(g, ") =\n  ");
  ex(g, ret, g->o.depth);
  P(g, " $\n");
  add_fun(g, name, nargs, args, ret, FK_PLAIN, end_body(g, mark));
}

/* Quicksort on an ordinal type, or on pairs keyed by an int first component. */
static void qsort_function(G *g) {
  const char *f = fun_name(g, "rec");
  bool keyed = chance(g, 35), down = chance(g, 30);
  const NTy *e = keyed ? pair_of(g, &T_INT, rand_type(g, g->o.seq_depth - 1, 3)) : rand_ord(g);
  const char *lt = down ? ">" : "<", *gt = down ? "<" : ">";
  PF(g, "function %s(a) =\n  if #a < 2 then a\n", f);
  if (keyed) {
    PF(g,
       "  else let (pk, pv) = a[#a / 2];\n"
       "           lo = {(k, w) in a | k %s pk};\n"
       "           eq = {(k, w) in a | k == pk};\n"
       "           hi = {(k, w) in a | k %s pk};\n",
       lt, gt);
  } else {
    PF(g,
       "  else let p = a[#a / 2];\n"
       "           lo = {x in a | x %s p};\n"
       "           eq = {x in a | x == p};\n"
       "           hi = {x in a | x %s p};\n",
       lt, gt);
  }
  PF(g, "           r = {%s(v) : v in [lo, hi]}\n       in r[0] ++ eq ++ r[1] $\n", f);
  const NTy *s = seq_of(g, e);
  add_fun(g, f, 1, &s, s, FK_QSORT, 200);
}

/* Divide and conquer over bottop halves; the halves are solved inside an apply-to-each,
 * sometimes with a conditional that solves small halves directly. */
static void dc_function(G *g) {
  const char *f = fun_name(g, "rec");
  const NTy *u = rand_type(g, g->o.seq_depth - 2, 3), *s = seq_of(g, u);
  const NTy *r = rand_type(g, g->o.seq_depth, 4);
  int mark = g->env.n, d = g->o.depth - 1;
  begin_body(g);
  PF(g, "function %s(a) =\n  if #a < 2 then ", f);
  push_var(g, "a", s);
  ex(g, r, d);
  P(g, "\n  else let h = bottop(a);\n           r = {");
  if (chance(g, 40)) {
    int m2 = push_var(g, "v", s);
    P(g, "if ");
    ex_in_each(g, &T_BOOL, d);
    PF(g, " then %s(v) else ", f);
    ex_in_each(g, r, d);
    pop_to(g, m2);
  } else {
    PF(g, "%s(v)", f);
  }
  P(g, " : v in h};\n           x = r[0];\n           y = r[1]\n       in ");
  push_var(g, "x", r);
  push_var(g, "y", r);
  ex(g, r, d);
  P(g, " $\n");
  double c = end_body(g, mark);
  add_fun(g, f, 1, &s, r, FK_DC, 20 * c);
}

/* Recursion on a counter with a two-way apply-to-each at each level. */
static void count_function(G *g) {
  const char *f = fun_name(g, "rec");
  const NTy *x = rand_type(g, g->o.seq_depth, 4), *r = rand_type(g, g->o.seq_depth, 4);
  int mark = g->env.n, d = g->o.depth - 1;
  begin_body(g);
  PF(g, "function %s(n, x) =\n  if n <= 0 then ", f);
  push_var(g, "n", &T_INT);
  push_var(g, "x", x);
  ex(g, r, d);
  P(g, "\n  else let r = {");
  int m2 = push_var(g, "i", &T_INT);
  bool cond = chance(g, 40);
  if (cond) {
    P(g, "if ");
    ex_in_each(g, &T_BOOL, d);
    P(g, " then ");
  }
  PF(g, "%s(n - 1, ", f);
  ex_in_each(g, x, d);
  P(g, ")");
  if (cond) {
    P(g, " else ");
    ex_in_each(g, r, d);
  }
  pop_to(g, m2);
  P(g, " : i in [0 : 2]};\n           y = r[0];\n           z = r[1]\n       in ");
  push_var(g, "y", r);
  push_var(g, "z", r);
  ex(g, r, d);
  P(g, " $\n");
  double c = end_body(g, mark);
  const NTy *args[2] = {&T_INT, x};
  add_fun(g, f, 2, args, r, FK_COUNT, 16 * c);
}

static const Var *pick_it(G *g) {
  const char *it = nz_intern_cstr("it");
  for (int i = 0; i < g->env.n; i++)
    if (g->env.v[i].name == it) return &g->env.v[i];
  return NULL;
}

static void set_it(G *g, const NTy *t) {
  const char *it = nz_intern_cstr("it");
  for (int i = 0; i < g->env.n; i++)
    if (g->env.v[i].name == it) {
      g->env.v[i].t = t;
      return;
    }
  nz_vec_push(g->env, ((Var){it, t, true}));
}

static void begin_form(G *g) {
  g->mult = 1;
  g->cost = 0;
}

static void top_expression(G *g) {
  begin_form(g);
  const NTy *t = rand_type(g, g->o.seq_depth, 6);
  ex(g, t, g->o.depth);
  P(g, " $");
  hostile_eol(g);
  set_it(g, t);
}

/* A recursive function applied inside an apply-to-each, maybe behind a conditional. */
static void top_recursive_use(G *g) {
  int c = 0;
  for (int i = 0; i < g->funs.n; i++) c += g->funs.v[i].kind != FK_PLAIN;
  const Fun *f = NULL;
  for (int i = 0, k = rnd(g, c); i < g->funs.n && !f; i++)
    if (g->funs.v[i].kind != FK_PLAIN && k-- == 0) f = &g->funs.v[i];
  begin_form(g);
  const char *x = fresh(g, "e");
  bool cond = chance(g, 35);
  int mark = g->env.n;
  P(g, "{");
  if (f->kind == FK_COUNT) push_var(g, x, &T_INT);
  else push_var(g, x, f->arg[0]);
  g->mult = EACH_FACTOR;
  if (cond) {
    P(g, "if ");
    ex(g, &T_BOOL, 2);
    P(g, " then ");
  }
  if (f->kind == FK_COUNT) {
    PF(g, "%s(mod(%s, 4), ", f->name, x);
    ex(g, f->arg[1], 2);
    P(g, ")");
  } else {
    PF(g, "%s(%s)", f->name, x);
  }
  if (cond) {
    P(g, " else ");
    ex(g, f->ret, 2);
  }
  g->mult = 1;
  pop_to(g, mark);
  PF(g, " : %s in ", x);
  if (f->kind == FK_COUNT) {
    PF(g, "[0 : %d]", 1 + rnd(g, 5));
  } else if (chance(g, 50)) { /* a literal of a few inputs, so the recursion has work */
    P(g, "[");
    for (int i = 0, k = 2 + rnd(g, 3); i < k; i++) {
      if (i) P(g, ", ");
      ex(g, f->arg[0], g->o.depth - 1);
    }
    P(g, "]");
  } else {
    ex(g, seq_of(g, f->arg[0]), g->o.depth);
  }
  P(g, "} $\n");
  set_it(g, seq_of(g, f->ret));
}

static void top_binding(G *g) {
  begin_form(g);
  const NTy *t = rand_type(g, g->o.seq_depth, 5);
  if (t->k == NT_PAIR && chance(g, 50)) {
    const char *a = fresh(g, "g"), *b = fresh(g, "g");
    PF(g, "(%s, %s) = ", a, b);
    ex(g, t, g->o.depth);
    P(g, " $\n");
    push_var(g, a, t->a);
    push_var(g, b, t->b);
  } else {
    const char *a = fresh(g, "g");
    PF(g, "%s = ", a);
    ex(g, t, g->o.depth);
    P(g, " $\n");
    push_var(g, a, t);
  }
}

/* The deliberate failure: one failing site, reached for sure, inside an apply-to-each
 * (over i in [0 : n], n >= 1), either at top level or in a function called from an
 * apply-to-each. Everything around it is total, so every correct implementation stops
 * with the same message at the same place. */
static void error_body(G *g, GenNeslErr kind, const char *i, const char *n) {
  int d = 2;
  switch (kind) {
  case GEN_NESL_ERR_INDEX: {
    const char *w = fresh(g, "v");
    int mark = open_let(g, w, seq_of(g, rand_elem(g)), d);
    PF(g, "%s[#%s + mod(", w, w);
    ex(g, &T_INT, d);
    P(g, ", 2)])");
    pop_to(g, mark);
    break;
  }
  case GEN_NESL_ERR_LENGTH: {
    const char *w = fresh(g, "v"), *x = fresh(g, "e"), *y = fresh(g, "e");
    const NTy *u = rand_elem(g), *r = rand_elem(g);
    int mark = open_let(g, w, seq_of(g, u), d);
    P(g, "{");
    push_var(g, x, u);
    push_var(g, y, &T_INT);
    ex(g, r, d);
    PF(g, " : %s in %s; %s in [0 : #%s + 1]})", x, w, y, w);
    pop_to(g, mark);
    break;
  }
  default:
    if (chance(g, 50)) {
      P(g, "(");
      ex(g, &T_INT, d);
      PF(g, " / (%s - (%s - 1)))", i, n);
    } else {
      P(g, "(");
      ex(g, &T_FLOAT, d);
      PF(g, " / float(%s - (%s - 1)))", i, n);
    }
  }
}

static void error_form(G *g, GenNeslErr kind) {
  begin_form(g);
  int mark = g->env.n, n = 1 + rnd(g, 3);
  const char *i = fresh(g, "e");
  if (chance(g, 50)) {
    const char *f = fresh(g, "fail"), *pn = fresh(g, "p");
    begin_body(g);
    PF(g, "function %s(%s) = {", f, pn);
    push_var(g, pn, &T_INT);
    push_var(g, i, &T_INT);
    error_body(g, kind, i, pn);
    PF(g, " : %s in [0 : %s]} $", i, pn);
    hostile_eol(g);
    end_body(g, mark);
    const char *j = fresh(g, "e");
    PF(g, "{%s(%s) : %s in [1 : %d]} $", f, j, j, 1 + n);
    hostile_eol(g);
  } else {
    char nb[16];
    snprintf(nb, sizeof nb, "%d", n);
    P(g, "{");
    push_var(g, i, &T_INT);
    error_body(g, kind, i, nb);
    PF(g, " : %s in [0 : %d]} $", i, n);
    hostile_eol(g);
    pop_to(g, mark);
  }
}

typedef enum { F_QSORT, F_DC, F_COUNT, F_REC_USE, F_BINDING, F_FUNCTION, F_EXPRESSION, F_ERROR } FormKind;

/* Whether text calls a function named in --avoid (NAME followed by "(", or "@("). */
static bool avoided(G *g, const char *text) {
  for (const char *a = g->o.avoid; a && *a;) {
    size_t n = strcspn(a, ",");
    for (const char *p = text; (p = strstr(p, "(")) != NULL; p++) {
      if ((size_t)(p - text) >= n && !strncmp(p - n, a, n) &&
          (p - n == text || !(isalnum((unsigned char)p[-n - 1]) || p[-n - 1] == '_')))
        return true;
    }
    a += n + (a[n] == ',');
  }
  return false;
}

/* One top-level form; with --avoid, a form that calls an avoided function is drawn
 * again (up to 20 times, the random stream going on), else left out. */
static void form(G *g, FormKind k, GenNeslErr err) {
  for (int tries = 0; tries < 20; tries++) {
    size_t len = g->out->len;
    int nf = g->funs.n, ne = g->env.n;
    const Var *itv = pick_it(g);
    const NTy *it = itv ? itv->t : NULL;
    switch (k) {
    case F_QSORT: qsort_function(g); break;
    case F_DC: dc_function(g); break;
    case F_COUNT: count_function(g); break;
    case F_REC_USE: top_recursive_use(g); break;
    case F_BINDING: top_binding(g); break;
    case F_FUNCTION: plain_function(g); break;
    case F_EXPRESSION: top_expression(g); break;
    case F_ERROR: error_form(g, err); break;
    }
    if (!g->o.avoid || !avoided(g, g->out->s + len)) return;
    g->out->len = len;
    g->out->s[len] = 0;
    g->funs.n = nf;
    g->env.n = ne;
    if (it) set_it(g, it);
    else if ((itv = pick_it(g)) != NULL) g->env.n = (int)(itv - g->env.v); /* `it` was new */
  }
}

void gen_nesl_default(GenNeslOpts *o) {
  *o = (GenNeslOpts){.seed = 1, .forms = 8, .depth = 4, .seq_depth = 3, .errors = 15, .work = 20000};
}

const char *gen_nesl_err_name(GenNeslErr e) {
  switch (e) {
  case GEN_NESL_ERR_INDEX: return "index";
  case GEN_NESL_ERR_LENGTH: return "length";
  case GEN_NESL_ERR_DIVZERO: return "divzero";
  default: return "none";
  }
}

/* One program; names are numbered from *fresh on (so programs of a batch do not clash);
 * keep_error false drops the final failing form (the rest is unchanged). */
static GenNeslErr program(const GenNeslOpts *o, NzBuf *out, int *fresh, bool keep_error) {
  G g = {0};
  g.o = *o;
  g.fresh = *fresh;
  g.cnames = *fresh == 0; /* the first program of a batch: no other program reuses them */
  if (g.o.seq_depth < 2) g.o.seq_depth = 2;
  g.rng = o->seed;
  g.ar = nz_arena_new();
  g.out = out;
  GenNeslErr err = GEN_NESL_ERR_NONE;
  if (chance(&g, o->errors)) err = (GenNeslErr)(1 + rnd(&g, 3));
  PF(&g, "%% nessie-neslgen --seed=%llu --forms=%d --depth=%d --seq-depth=%d --errors=%d --work=%g",
     (unsigned long long)o->seed, o->forms, o->depth, g.o.seq_depth, o->errors, o->work);
  if (o->avoid) PF(&g, " --avoid=%s", o->avoid);
  if (err && !keep_error) {
    P(&g, " (its final error form is left out: not last in the batch) %\n");
    err = GEN_NESL_ERR_NONE;
  } else {
    PF(&g, " (ends with: %s) %%\n", err ? gen_nesl_err_name(err) : "no error");
  }
  /* One recursive function of some kind always comes first, so every program has one. */
  int first = rnd(&g, 3);
  form(&g, first == 0 ? F_QSORT : first == 1 ? F_DC : F_COUNT, err);
  form(&g, F_REC_USE, err);
  for (int k = 0; k < o->forms; k++) {
    int r = rnd(&g, 100), w = rnd(&g, 3);
    form(&g,
         r < 15   ? F_BINDING
         : r < 35 ? F_FUNCTION
         : r < 45 ? (w == 0 ? F_QSORT : w == 1 ? F_DC : F_COUNT)
         : r < 60 ? F_REC_USE
                  : F_EXPRESSION,
         err);
  }
  form(&g, F_EXPRESSION, err);
  if (err) form(&g, F_ERROR, err);
  nz_vec_free(g.env);
  nz_vec_free(g.funs);
  nz_arena_free(g.ar);
  *fresh = g.fresh;
  return err;
}

GenNeslErr gen_nesl_program(const GenNeslOpts *o, NzBuf *out) {
  int fresh = 0;
  return program(o, out, &fresh, true);
}

GenNeslErr gen_nesl_batch(const GenNeslOpts *o, int count, NzBuf *out) {
  int fresh = 0;
  GenNeslErr e = GEN_NESL_ERR_NONE;
  for (int i = 0; i < count; i++) {
    GenNeslOpts oi = *o;
    oi.seed = o->seed + (uint64_t)i;
    e = program(&oi, out, &fresh, i == count - 1);
  }
  return e;
}
