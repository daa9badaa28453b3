/* nesl_parse.c — NESL 3.1 parser (NESL.md §2): top-level forms, and expressions by a
 * Pratt parser with the reference's binding powers (§2.3). Operators become calls of
 * operator variables (E_VAR with op set) that the checker resolves against the basis. */
#include "nesl.h"
#include <setjmp.h>

typedef struct {
  const NzSource *src;
  NzArena *A;
  NlToken *t;
  int n, i;
  bool user;
  int depth; /* nesting of the tree being built: bounded so later recursive passes
                cannot overflow the stack on absurd input */
  jmp_buf fail;
  bool defer;        /* keep the error for a D_ERROR form instead of reporting it */
  NzLoc err_loc;     /* the kept error */
  const char *err_msg;
  NZ_VEC(NlDecl *) decls; /* the forms parsed (in P: they survive the longjmp) */
} P;

enum { MAX_NESTING = 2000, MAX_CHAIN = 100000 }; /* MAX_CHAIN: also in the message in expr() */

/* The parser's temporary vectors live in the AST arena: a syntax error longjmps out of
 * any of them, and nothing has to be freed on the way. */
static NzArena *parse_arena;
#undef nz_vec_push
#define nz_vec_push(vec, x)                                                                \
  do {                                                                                     \
    if ((vec).n == (vec).cap) {                                                            \
      int nc_ = (vec).cap ? 2 * (vec).cap : 8;                                             \
      void *nv_ = nz_alloc(parse_arena, sizeof(*(vec).v) * (size_t)nc_);                   \
      if ((vec).n) memcpy(nv_, (vec).v, sizeof(*(vec).v) * (size_t)(vec).n);               \
      (vec).v = nv_;                                                                       \
      (vec).cap = nc_;                                                                     \
    }                                                                                      \
    (vec).v[(vec).n++] = (x);                                                              \
  } while (0)

static NlToken *peek(P *p) { return &p->t[p->i]; }
static NlToken *peek2(P *p) { return &p->t[p->i + 1 < p->n ? p->i + 1 : p->i]; }
static NlToken *next(P *p) {
  NlToken *t = &p->t[p->i];
  if (p->i < p->n - 1) p->i++;
  return t;
}
static bool at(P *p, NlTok k) { return peek(p)->k == k; }
static bool accept(P *p, NlTok k) {
  if (!at(p, k)) return false;
  next(p);
  return true;
}

static void describe(NzBuf *b, NlToken *t) {
  switch (t->k) {
  case T_IDENT: nz_buf_printf(b, "identifier '%s'", t->s); break;
  case T_INT: nz_buf_printf(b, "integer %lld", (long long)t->i); break;
  case T_FLOAT: nz_buf_printf(b, "float %g", t->f); break;
  case T_STRING: nz_buf_puts(b, "a string"); break;
  case T_CHAR: nz_buf_printf(b, "character `%c", (char)t->i); break;
  default: nz_buf_puts(b, nesl_tok_name(t->k));
  }
}

/* Stop at an error: report it, or keep it for the D_ERROR form (p->defer). A lexical error
 * under the parser's feet is the one reported, whatever the parser expected there. */
NZ_NORETURN static void fail_msg(P *p, NzLoc loc, const char *msg) {
  if (peek(p)->k == T_ERROR) {
    loc = peek(p)->loc;
    msg = peek(p)->s;
  }
  if (p->defer) {
    p->err_loc = loc;
    p->err_msg = nz_sprintf(p->A, "%s", msg);
  } else {
    nz_error_at(loc, "%s", msg);
  }
  longjmp(p->fail, 1);
}
NZ_NORETURN static void fail_expected(P *p, const char *what) {
  NzBuf b = {0};
  describe(&b, peek(p));
  char *msg = nz_sprintf(p->A, "expected %s, found %s", what, b.s);
  nz_buf_free(&b);
  fail_msg(p, peek(p)->loc, msg);
}
NZ_NORETURN static void fail_at(P *p, NzLoc loc, const char *msg, const char *arg) {
  fail_msg(p, loc, nz_sprintf(p->A, msg, arg));
}

static NlToken *expect(P *p, NlTok k) {
  if (!at(p, k)) fail_expected(p, nesl_tok_name(k));
  return next(p);
}

static bool is_end(P *p) { return at(p, T_SEMI) || at(p, T_DOLLAR); }
static void expect_end(P *p) {
  if (!is_end(p)) fail_expected(p, "';' or '$'");
  next(p);
}

/* ---------- constructors ---------- */
static NlExpr *mk(P *p, NlExprKind k, NzLoc loc) {
  NlExpr *e = NZ_NEW(p->A, NlExpr);
  e->k = k;
  e->loc = loc;
  e->user = p->user;
  e->ek = -1;
  return e;
}
static NlExpr *mk_var(P *p, const char *name, NzLoc loc, bool op) {
  NlExpr *e = mk(p, E_VAR, loc);
  e->name = nz_intern_cstr(name);
  e->op = op;
  return e;
}
static NlExpr *mk_pair(P *p, NlExpr *a, NlExpr *b, NzLoc loc) {
  NlExpr *e = mk(p, E_PAIR, loc);
  e->a = a;
  e->b = b;
  return e;
}
static NlExpr *mk_call(P *p, NlExpr *f, NlExpr *arg, NzLoc loc) {
  NlExpr *e = mk(p, E_CALL, loc);
  e->a = f;
  e->b = arg;
  return e;
}
static NlExpr *mk_op2(P *p, const char *op, NlExpr *a, NlExpr *b, NzLoc loc) {
  return mk_call(p, mk_var(p, op, loc, true), mk_pair(p, a, b, loc), loc);
}
static NlPat *mk_pat(P *p, NlPatKind k, NzLoc loc) {
  NlPat *q = NZ_NEW(p->A, NlPat);
  q->k = k;
  q->loc = loc;
  return q;
}

/* ---------- types ---------- */
static NlTyX *type_exp(P *p);
static NlTyX *type_arrow(P *p);
static NlTyX *mk_tyx(P *p, NlTyXKind k, NzLoc loc) {
  NlTyX *t = NZ_NEW(p->A, NlTyX);
  t->k = k;
  t->loc = loc;
  return t;
}
static NlTyX *type_prim(P *p) {
  NlToken *t = peek(p);
  if (p->depth + 1 > MAX_NESTING) fail_at(p, t->loc, "type nested too deeply%s", "");
  if (accept(p, T_LB)) {
    NlTyX *x = mk_tyx(p, TX_SEQ, t->loc);
    p->depth++;
    x->a = type_prim(p);
    p->depth--;
    expect(p, T_RB);
    return x;
  }
  if (accept(p, T_LP)) {
    p->depth++;
    NlTyX *x = type_exp(p);
    p->depth--;
    expect(p, T_RP);
    return x;
  }
  if (at(p, T_IDENT)) {
    next(p);
    NlTyX *x = mk_tyx(p, TX_NAME, t->loc);
    x->name = t->s;
    if (accept(p, T_LP)) {
      NZ_VEC(NlTyX *) v = {0};
      do nz_vec_push(v, type_arrow(p));
      while (accept(p, T_COMMA));
      expect(p, T_RP);
      x->args = NZ_NEWN(p->A, NlTyX *, v.n);
      memcpy(x->args, v.v, sizeof(NlTyX *) * (size_t)v.n);
      x->nargs = v.n;
    }
    return x;
  }
  fail_expected(p, "a type");
}
static NlTyX *type_arrow(P *p) {
  NlTyX *a = type_prim(p);
  if (at(p, T_ARROW)) {
    NzLoc loc = next(p)->loc;
    NlTyX *x = mk_tyx(p, TX_FUN, loc);
    x->a = a;
    p->depth++;
    x->b = type_arrow(p);
    p->depth--;
    return x;
  }
  return a;
}
static NlTyX *type_exp(P *p) {
  NlTyX *a = type_arrow(p);
  if (at(p, T_COMMA)) {
    NzLoc loc = next(p)->loc;
    NlTyX *x = mk_tyx(p, TX_PAIR, loc);
    x->a = a;
    p->depth++;
    x->b = type_exp(p);
    p->depth--;
    return x;
  }
  return a;
}

/* context ::= "(" typebind {";" typebind} ")" | typebind {"," typebind} */
static void context(P *p, NlCtxEntry **out, int *n) {
  NZ_VEC(NlCtxEntry) v = {0};
  bool paren = accept(p, T_LP);
  for (;;) {
    NlToken *var = peek(p);
    if (!at(p, T_IDENT)) {
      fail_expected(p, "a type variable");
    }
    next(p);
    if (!at(p, T_IN)) {
      fail_expected(p, "'in'");
    }
    next(p);
    NlToken *cls = peek(p);
    if (!at(p, T_IDENT)) {
      fail_expected(p, "a type class (any, number, ordinal, logical, scalar)");
    }
    next(p);
    NlCtxEntry e = {var->s, cls->s, var->loc};
    nz_vec_push(v, e);
    /* unparenthesised, `;` separates type bindings only if one follows (`b in ...`); the
     * reference always takes it so and runs into the next form (NESL.md 8.2) */
    if (paren ? accept(p, T_SEMI)
              : (at(p, T_SEMI) && peek2(p)->k == T_IDENT && p->i + 2 < p->n &&
                 p->t[p->i + 2].k == T_IN && (next(p), 1)))
      continue;
    break;
  }
  if (paren && !at(p, T_RP)) {
    fail_expected(p, "')'");
  }
  if (paren) next(p);
  *out = NZ_NEWN(p->A, NlCtxEntry, v.n);
  memcpy(*out, v.v, sizeof(NlCtxEntry) * (size_t)v.n);
  *n = v.n;
}

/* ---------- patterns ---------- */
static NlPat *pattern(P *p);
static NlPat *pat_atom(P *p) {
  NlToken *t = peek(p);
  if (accept(p, T_LP)) {
    NlPat *q = pattern(p);
    expect(p, T_RP);
    return q;
  }
  if (at(p, T_IDENT)) {
    next(p);
    if (accept(p, T_LP)) {
      NlPat *q = mk_pat(p, P_CON, t->loc);
      q->name = t->s;
      q->a = pattern(p);
      expect(p, T_RP);
      return q;
    }
    NlPat *q = mk_pat(p, P_VAR, t->loc);
    q->name = t->s;
    return q;
  }
  fail_expected(p, "a pattern");
}
static NlPat *pattern(P *p) {
  if (++p->depth > MAX_NESTING) fail_at(p, peek(p)->loc, "pattern nested too deeply%s", "");
  NlPat *a = pat_atom(p);
  if (at(p, T_COMMA)) {
    NzLoc loc = next(p)->loc;
    NlPat *q = mk_pat(p, P_PAIR, loc);
    q->a = a;
    q->b = pattern(p);
    a = q;
  }
  p->depth--;
  return a;
}

/* An expression already parsed that turns out to be a pattern (top-level bindings,
 * lambdas, apply-to-each generators without a body). */
static NlPat *expr_to_pat(P *p, NlExpr *e) {
  if (e->k == E_VAR && !e->op) {
    NlPat *q = mk_pat(p, P_VAR, e->loc);
    q->name = e->name;
    return q;
  }
  if (e->k == E_PAIR) {
    NlPat *q = mk_pat(p, P_PAIR, e->loc);
    q->a = expr_to_pat(p, e->a);
    q->b = expr_to_pat(p, e->b);
    return q;
  }
  if (e->k == E_CALL && e->a->k == E_VAR && !e->a->op) {
    NlPat *q = mk_pat(p, P_CON, e->loc);
    q->name = e->a->name;
    q->a = expr_to_pat(p, e->b);
    return q;
  }
  fail_at(p, e->loc, "this expression is not a pattern%s", "");
}

static NlExpr *pat_to_expr(P *p, NlPat *q) {
  switch (q->k) {
  case P_VAR: return mk_var(p, q->name, q->loc, false);
  case P_PAIR: return mk_pair(p, pat_to_expr(p, q->a), pat_to_expr(p, q->b), q->loc);
  case P_CON: return mk_call(p, mk_var(p, q->name, q->loc, false), pat_to_expr(p, q->a), q->loc);
  }
  return NULL;
}

/* ---------- expressions ---------- */
static NlExpr *expr(P *p, int rbp);

static int lbp(NlTok k) {
  switch (k) {
  case T_COMMA: return 4;
  case T_DARROW: return 5;
  case T_OR: case T_NOR: case T_XOR: return 7;
  case T_AND: case T_NAND: return 8;
  case T_EQEQ: case T_NE: case T_LT: case T_GT: case T_LE: case T_GE: return 10;
  case T_PLUS: case T_MINUS: case T_PLUSPLUS: return 20;
  case T_STAR: case T_SLASH: case T_BARBAR: return 21;
  case T_CARET: return 22;
  case T_LARROW: return 23;
  case T_ARROW: return 24;
  case T_LB: case T_LP: return 30;
  default: return 0;
  }
}

static const char *binop_name(NlTok k) {
  switch (k) {
  case T_OR: return "or";
  case T_NOR: return "nor";
  case T_XOR: return "xor";
  case T_AND: return "and";
  case T_NAND: return "nand";
  case T_EQEQ: return "==";
  case T_NE: return "/=";
  case T_LT: return "<";
  case T_GT: return ">";
  case T_LE: return "<=";
  case T_GE: return ">=";
  case T_PLUS: return "+";
  case T_MINUS: return "-";
  case T_PLUSPLUS: return "++";
  case T_STAR: return "*";
  case T_SLASH: return "/";
  case T_BARBAR: return "||";
  case T_CARET: return "^";
  case T_LARROW: return "<-";
  case T_ARROW: return "->";
  default: return NULL;
  }
}

static NlExpr **vec_to_arena(P *p, NlExpr **v, int n) {
  NlExpr **r = NZ_NEWN(p->A, NlExpr *, n ? n : 1);
  if (n) memcpy(r, v, sizeof(NlExpr *) * (size_t)n);
  return r;
}
static NlPat **pvec_to_arena(P *p, NlPat **v, int n) {
  NlPat **r = NZ_NEWN(p->A, NlPat *, n ? n : 1);
  if (n) memcpy(r, v, sizeof(NlPat *) * (size_t)n);
  return r;
}

/* "{" [ "*" ] exp ":" rbinds [ "|" exp ] "}"  |  "{" rbinds [ "|" exp ] "}" */
static NlExpr *apply_each(P *p, NzLoc loc) {
  NlExpr *e = mk(p, E_EACH, loc);
  accept(p, T_STAR);
  NZ_VEC(NlPat *) pv = {0};
  NZ_VEC(NlExpr *) gv = {0};
  NlExpr *first = expr(p, 0);
  NlExpr *body = NULL;
  bool have_body = false;
  if (accept(p, T_COLON)) {
    body = first;
    have_body = true;
  } else {
    /* first was the first generator's pattern */
    NlPat *q = expr_to_pat(p, first);
    NlExpr *g;
    if (accept(p, T_IN)) {
      g = expr(p, 0);
    } else if (q->k == P_VAR) {
      g = mk_var(p, q->name, q->loc, false);
    } else {
      fail_expected(p, "'in'");
    }
    nz_vec_push(pv, q);
    nz_vec_push(gv, g);
    body = pat_to_expr(p, q);
    if (!accept(p, T_SEMI)) goto sieve;
  }
  for (;;) {
    NlPat *q = pattern(p);
    NlExpr *g;
    if (accept(p, T_IN))
      g = expr(p, 0);
    else if (q->k == P_VAR)
      g = mk_var(p, q->name, q->loc, false);
    else
      fail_expected(p, "'in'");
    nz_vec_push(pv, q);
    nz_vec_push(gv, g);
    if (!accept(p, T_SEMI)) break;
  }
sieve:
  (void)have_body;
  if (accept(p, T_BAR)) e->b = expr(p, 0);
  if (!at(p, T_RC)) {
    fail_expected(p, "'}'");
  }
  next(p);
  e->a = body;
  e->n = pv.n;
  e->pats = pvec_to_arena(p, pv.v, pv.n);
  e->xs = vec_to_arena(p, gv.v, gv.n);
  return e;
}

static NlExpr *sequence(P *p, NzLoc loc) {
  if (accept(p, T_RB)) {
    NlExpr *e = mk(p, E_EMPTY, loc);
    e->tyx = type_prim(p);
    return e;
  }
  NlExpr *first = expr(p, 4);
  if (accept(p, T_COLON)) {
    NlExpr *e = mk(p, E_RANGE, loc);
    e->a = first;
    e->b = expr(p, 0);
    if (accept(p, T_COLON)) e->c = expr(p, 0);
    expect(p, T_RB);
    return e;
  }
  NZ_VEC(NlExpr *) v = {0};
  nz_vec_push(v, first);
  while (accept(p, T_COMMA)) nz_vec_push(v, expr(p, 4));
  if (!at(p, T_RB)) {
    fail_expected(p, "',' or ']'");
  }
  next(p);
  NlExpr *e = mk(p, E_SEQ, loc);
  e->n = v.n;
  e->xs = vec_to_arena(p, v.v, v.n);
  return e;
}

static NlExpr *let_expr(P *p, NzLoc loc) {
  NZ_VEC(NlPat *) pv = {0};
  NZ_VEC(NlExpr *) ev = {0};
  for (;;) {
    NlPat *q = pattern(p);
    if (!at(p, T_EQ)) {
      fail_expected(p, "'='");
    }
    next(p);
    nz_vec_push(pv, q);
    nz_vec_push(ev, expr(p, 0));
    if (accept(p, T_SEMI)) {
      if (at(p, T_IN)) break;
      continue;
    }
    break;
  }
  if (!at(p, T_IN)) {
    fail_expected(p, "'in' or ';'");
  }
  next(p);
  NlExpr *e = mk(p, E_LET, loc);
  e->n = pv.n;
  e->pats = pvec_to_arena(p, pv.v, pv.n);
  e->xs = vec_to_arena(p, ev.v, ev.n);
  e->a = expr(p, 0);
  return e;
}

static NlExpr *prefix(P *p) {
  NlToken *t = next(p);
  NlExpr *e;
  switch (t->k) {
  case T_INT:
    if (t->i > 2147483647) fail_at(p, t->loc, "integer literal out of range%s", "");
    e = mk(p, E_INT, t->loc);
    e->ival = (int32_t)t->i;
    return e;
  case T_FLOAT:
    e = mk(p, E_FLOAT, t->loc);
    e->fval = t->f;
    return e;
  case T_CHAR:
    e = mk(p, E_CHAR, t->loc);
    e->ival = (int32_t)t->i;
    return e;
  case T_STRING:
    e = mk(p, E_STRING, t->loc);
    e->name = t->s;
    e->slen = t->slen;
    return e;
  case T_IDENT:
    if (t->s == nz_intern_cstr("t") || t->s == nz_intern_cstr("f")) {
      e = mk(p, E_BOOL, t->loc);
      e->ival = t->s[0] == 't';
      return e;
    }
    if (t->s == nz_intern_cstr("time") && at(p, T_LP)) {
      next(p);
      e = mk(p, E_TIME, t->loc);
      e->a = expr(p, 0);
      expect(p, T_RP);
      return e;
    }
    return mk_var(p, t->s, t->loc, false);
  case T_LP:
    e = expr(p, 0);
    expect(p, T_RP);
    return e;
  case T_IF:
    e = mk(p, E_IF, t->loc);
    e->a = expr(p, 0);
    expect(p, T_THEN);
    e->b = expr(p, 0);
    expect(p, T_ELSE);
    e->c = expr(p, 0);
    return e;
  case T_LET: return let_expr(p, t->loc);
  case T_LB: return sequence(p, t->loc);
  case T_LC: return apply_each(p, t->loc);
  case T_HASH: return mk_call(p, mk_var(p, "#", t->loc, true), expr(p, 25), t->loc);
  case T_AT: return mk_call(p, mk_var(p, "@", t->loc, true), expr(p, 25), t->loc);
  case T_MINUS: {
    if (at(p, T_INT) && peek(p)->i == 2147483648LL) { /* -2147483648 is min_int */
      NlToken *n = next(p);
      e = mk(p, E_INT, t->loc);
      e->ival = INT32_MIN;
      (void)n;
      return e;
    }
    NlExpr *x = expr(p, 25);
    if (x->k == E_INT && x->ival != INT32_MIN) { /* fold literals: -2147483648 works */
      x->ival = -x->ival;
      x->loc = t->loc;
      return x;
    }
    if (x->k == E_FLOAT) {
      x->fval = -x->fval;
      x->loc = t->loc;
      return x;
    }
    return mk_call(p, mk_var(p, "negate", t->loc, true), x, t->loc);
  }
  default:
    if (t != peek(p)) p->i--; /* next() does not move past the last token */
    fail_expected(p, "an expression");
  }
}

/* Juxtaposition (NESL.md 8.2): in the reference an operand followed by a token that starts
 * another operand is a call, `sin 1.0` is sin(1.0). It binds like a call, left to right,
 * and takes one atom as its argument. Only on one line, so that a form missing its
 * terminator is still reported where the next line starts. */
static bool juxtaposed(P *p) {
  switch (peek(p)->k) {
  case T_INT: case T_FLOAT: case T_CHAR: case T_STRING: case T_IDENT: case T_LC: break;
  default: return false;
  }
  return p->i > 0 && p->t[p->i - 1].loc.line == peek(p)->loc.line;
}

static NlExpr *expr(P *p, int rbp) {
  int depth0 = p->depth;
  if (++p->depth > MAX_NESTING) fail_at(p, peek(p)->loc, "expression nested too deeply%s", "");
  NlExpr *left = prefix(p);
  /* Depth is nesting, not length: a left-associative chain `1 + 1 + ... + 1`
   * is flat to its reader, however long. Its tree is as deep as the chain,
   * which the later passes recurse along (on the interpreter's big stack), so
   * a chain has a bound of its own, far above any program's. Calls by
   * juxtaposition (`f a b`) are links of the same chain. */
  long chain = 0;
  for (;;) {
    if (rbp < lbp(T_LP) && juxtaposed(p)) {
      if (++chain > MAX_CHAIN)
        fail_at(p, peek(p)->loc, "expression too long (more than 100000 operators in a chain)%s", "");
      left = mk_call(p, left, prefix(p), left->loc);
      continue;
    }
    if (lbp(peek(p)->k) <= rbp) break;
    NlToken *t = next(p);
    if (++chain > MAX_CHAIN) fail_at(p, t->loc, "expression too long (more than 100000 operators in a chain)%s", "");
    switch (t->k) {
    case T_COMMA: left = mk_pair(p, left, expr(p, 3), t->loc); break;
    case T_DARROW: {
      NlExpr *e = mk(p, E_LAMBDA, t->loc);
      e->pats = NZ_NEWN(p->A, NlPat *, 1);
      e->pats[0] = expr_to_pat(p, left);
      e->n = 1;
      e->a = expr(p, 4);
      left = e;
      break;
    }
    case T_LB: {
      NlExpr *i = expr(p, 0);
      expect(p, T_RB);
      left = mk_op2(p, "elt", left, i, t->loc);
      break;
    }
    case T_LP: {
      if (at(p, T_RP)) fail_expected(p, "an argument (NESL has no nullary calls)");
      NlExpr *arg = expr(p, 0);
      expect(p, T_RP);
      left = mk_call(p, left, arg, left->loc);
      break;
    }
    case T_ARROW: left = mk_op2(p, "->", left, expr(p, 23), t->loc); break;
    default: {
      const char *op = binop_name(t->k);
      if (!op) nz_die("parser: no operator for token %s", nesl_tok_name(t->k));
      left = mk_op2(p, op, left, expr(p, lbp(t->k)), t->loc);
    }
    }
  }
  p->depth = depth0;
  return left;
}

/* ---------- top level ---------- */
static const char *command_words[] = {"help", "exit", "lisp", "describe", "apropos", "set",
                                      "show", "shell", "dump", "edit", "defconfig", NULL};

static NlDecl *mk_decl(P *p, NlDeclKind k, NzLoc loc) {
  NlDecl *d = NZ_NEW(p->A, NlDecl);
  d->k = k;
  d->loc = loc;
  return d;
}

static NlDecl *fundef(P *p, NzLoc loc) {
  NlDecl *d = mk_decl(p, D_FUN, loc);
  NlToken *name = peek(p);
  if (!at(p, T_IDENT)) fail_expected(p, "a function name");
  next(p);
  d->name = name->s;
  if (accept(p, T_LP)) {
    if (at(p, T_RP)) fail_expected(p, "a parameter pattern (NESL has no nullary functions)");
    d->pat = pattern(p);
    expect(p, T_RP);
  } else if (at(p, T_IDENT)) {
    d->pat = mk_pat(p, P_VAR, peek(p)->loc);
    d->pat->name = next(p)->s;
  } else {
    fail_expected(p, "'('");
  }
  accept(p, T_STRING);
  if (accept(p, T_COLON)) {
    d->sig = type_exp(p);
    if (accept(p, T_COLONCOLON)) context(p, &d->ctx, &d->nctx);
    accept(p, T_STRING);
  }
  if (accept(p, T_EQ)) {
    d->body = expr(p, 0);
  } else if (!d->sig) {
    fail_expected(p, "'=' or ':'");
  }
  expect_end(p);
  return d;
}

static NlDecl *datadef(P *p, NzLoc loc) {
  NlDecl *d = mk_decl(p, D_DATA, loc);
  NlToken *name = peek(p);
  if (!at(p, T_IDENT)) fail_expected(p, "a datatype name");
  next(p);
  d->name = name->s;
  expect(p, T_LP);
  NZ_VEC(NlTyX *) v = {0};
  do nz_vec_push(v, type_arrow(p));
  while (accept(p, T_COMMA));
  if (!at(p, T_RP)) {
    fail_expected(p, "')'");
  }
  next(p);
  d->fields = NZ_NEWN(p->A, NlTyX *, v.n);
  memcpy(d->fields, v.v, sizeof(NlTyX *) * (size_t)v.n);
  d->nfields = v.n;
  if (accept(p, T_COLONCOLON)) context(p, &d->ctx, &d->nctx);
  expect_end(p);
  return d;
}

static NlDecl *toplevel(P *p) {
  NlToken *t = peek(p);
  if (accept(p, T_FUNCTION)) return fundef(p, t->loc);
  if (accept(p, T_DATATYPE)) return datadef(p, t->loc);
  if (t->k == T_IDENT && t->s == nz_intern_cstr("load") && peek2(p)->k == T_STRING) {
    next(p);
    NlDecl *d = mk_decl(p, D_LOAD, t->loc);
    d->name = next(p)->s;
    expect_end(p);
    return d;
  }
  if (t->k == T_IDENT) {
    for (int i = 0; command_words[i]; i++)
      if (t->s == nz_intern_cstr(command_words[i])) {
        /* Interactive commands have no meaning in a batch run: skip to the terminator. */
        NlDecl *d = mk_decl(p, D_IGNORED, t->loc);
        d->name = t->s;
        next(p);
        /* except `set print_length N`, which changes how results print */
        if (t->s == nz_intern_cstr("set") && at(p, T_IDENT) &&
            peek(p)->s == nz_intern_cstr("print_length") && peek2(p)->k == T_INT) {
          next(p);
          d->k = D_SET;
          d->name = nz_intern_cstr("print_length");
          d->nfields = (int)next(p)->i;
        }
        while (!is_end(p) && !at(p, T_EOF) && !at(p, T_ERROR)) next(p);
        expect_end(p);
        return d;
      }
  }
  NlExpr *e = expr(p, 0);
  if (accept(p, T_EQ)) {
    NlDecl *d = mk_decl(p, D_BIND, t->loc);
    d->pat = expr_to_pat(p, e);
    d->body = expr(p, 0);
    expect_end(p);
    return d;
  }
  NlDecl *d = mk_decl(p, D_EXPR, t->loc);
  d->body = e;
  expect_end(p);
  return d;
}

int nesl_parse(const NzSource *src, NzArena *arena, bool user, NlDecl ***decls, int *ndecls) {
  P p = {0};
  p.src = src;
  p.A = arena;
  p.user = user;
  p.defer = true;
  parse_arena = arena;
  nesl_lex(src, &p.t, &p.n); /* a lexical error is a T_ERROR token at its place */
  int ok = 1;
  if (setjmp(p.fail)) {
    NlDecl *d = mk_decl(&p, D_ERROR, p.err_loc);
    d->name = p.err_msg;
    nz_vec_push(p.decls, d);
    ok = 0;
  } else {
    while (!at(&p, T_EOF)) {
      NlDecl *d = toplevel(&p);
      nz_vec_push(p.decls, d);
    }
  }
  free(p.t);
  int n = p.decls.n;
  *decls = nz_xmalloc(sizeof(NlDecl *) * (size_t)(n ? n : 1));
  if (n) memcpy(*decls, p.decls.v, sizeof(NlDecl *) * (size_t)n);
  *ndecls = n;
  return ok;
}

void nesl_report_error(const NlDecl *d) { nz_error_at(d->loc, "%s", d->name); }

void nesl_pat_str(NzBuf *b, const NlPat *q) {
  switch (q->k) {
  case P_VAR: nz_buf_puts(b, q->name); break;
  case P_PAIR:
    nz_buf_putc(b, '(');
    nesl_pat_str(b, q->a);
    for (q = q->b; q->k == P_PAIR; q = q->b) {
      nz_buf_puts(b, ", ");
      nesl_pat_str(b, q->a);
    }
    nz_buf_puts(b, ", ");
    nesl_pat_str(b, q);
    nz_buf_putc(b, ')');
    break;
  case P_CON:
    nz_buf_printf(b, "%s(", q->name);
    if (q->a->k == P_PAIR) {
      NzBuf t = {0};
      nesl_pat_str(&t, q->a);
      nz_buf_printf(b, "%.*s", (int)t.len - 2, t.s + 1);
      nz_buf_free(&t);
    } else {
      nesl_pat_str(b, q->a);
    }
    nz_buf_putc(b, ')');
    break;
  }
}

int nesl_parse_type(const NzSource *src, NzArena *arena, NlTyX **t, NlCtxEntry **ctx, int *nctx) {
  P p = {0};
  p.src = src;
  p.A = arena;
  parse_arena = arena;
  nesl_lex(src, &p.t, &p.n); /* a T_ERROR token fails in type_exp */
  if (setjmp(p.fail)) {
    free(p.t);
    return 0;
  }
  *t = type_exp(&p);
  *nctx = 0;
  *ctx = NULL;
  if (accept(&p, T_COLONCOLON)) context(&p, ctx, nctx);
  if (!at(&p, T_EOF)) fail_expected(&p, "end of type");
  free(p.t);
  return 1;
}
