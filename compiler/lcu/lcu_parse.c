/* lcu_parse.c — lexer and recursive-descent parser for λcu's text form
 * (grammar in compiler/lcu/README.md). Stops at the first syntax error with
 * "file:line:col: error: expected X, found Y". */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>

#include "lcu.h"

/* ---------------------------------------------------------------- lexer */

typedef enum {
  T_EOF, T_NAME, T_INT, T_FLOAT, T_CHAR,
  T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_LBRACE, T_RBRACE,
  T_COMMA, T_COLON, T_EQ, T_ARROW /* -> */, T_DARROW /* => */,
  T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT,
  T_EQEQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_ANDAND, T_OROR, T_BANG, T_HASH,
} TokKind;

typedef struct {
  TokKind kind;
  NzLoc loc;
  const char *start;
  int len;
  const char *name; /* T_NAME: interned */
  int64_t ival;     /* T_INT (unsigned magnitude), T_CHAR */
  double fval;      /* T_FLOAT */
} Tok;

typedef struct {
  const NzSource *src;
  const char *p, *end;
  int line;
  const char *line_start;
  Tok tok;  /* current token */
  Tok peek; /* one token of lookahead */
  int has_peek;
  LcuProgram *prog;
  int depth; /* nesting of the expression or type being parsed (nest) */
  int chain; /* lets and else-branches enclosing the expression being parsed */
  jmp_buf fail;
} Parser;

/* Nesting is bounded, with an error, so that this parser and the recursive
 * passes after it (checker, printer, interpreter, fusion) cannot overflow the
 * stack on absurd input (a fuzzed "[[[[..." did). A chain of lets, the
 * shape of a long region, is not nesting: a let's body is parsed at the
 * let's own depth. */
enum { MAX_NESTING = 1000 };

/* A chain still makes every pass recurse once per let. The tools run on a
 * 1 GB stack (stack.c), where 1.5 million lets were checked, printed, run
 * and fused; a longer chain is an error rather than a stack overflow. */
enum { MAX_CHAIN = 1000000 };


/* Growable arrays in the program's arena: a syntax error longjmps out of
 * any depth, and the arena is freed with the program, so nothing leaks. */
#define AVEC(T) struct { T *v; int n, cap; }
#define avec_push(ps, vec, x)                                                        \
  do {                                                                               \
    if ((vec).n == (vec).cap) {                                                      \
      int cap_ = (vec).cap ? 2 * (vec).cap : 4;                                      \
      void *nv_ = nz_alloc((ps)->prog->arena, sizeof(*(vec).v) * (size_t)cap_);     \
      if ((vec).n) memcpy(nv_, (vec).v, sizeof(*(vec).v) * (size_t)(vec).n);        \
      (vec).v = nv_;                                                                 \
      (vec).cap = cap_;                                                              \
    }                                                                                \
    (vec).v[(vec).n++] = (x);                                                        \
  } while (0)

static NzLoc here(Parser *ps) {
  NzLoc l = {ps->src, ps->line, (int)(ps->p - ps->line_start) + 1};
  return l;
}

NZ_NORETURN static void fail_at(Parser *ps, NzLoc loc, const char *fmt, ...) NZ_PRINTF(3, 4);
static void fail_at(Parser *ps, NzLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  nz_verror_at(loc, fmt, ap);
  va_end(ap);
  longjmp(ps->fail, 1);
}
static void chain_step(Parser *ps, NzLoc loc) {
  if (++ps->chain > MAX_CHAIN) fail_at(ps, loc, "more than %d lets or else-branches in one chain", MAX_CHAIN);
}

static void nest(Parser *ps, int by) {
  ps->depth += by;
  if (ps->depth > MAX_NESTING) fail_at(ps, ps->tok.loc, "nested more than %d deep", MAX_NESTING);
}

static void skip_space(Parser *ps) {
  for (;;) {
    while (ps->p < ps->end && isspace((unsigned char)*ps->p)) {
      if (*ps->p == '\n') {
        ps->line++;
        ps->line_start = ps->p + 1;
      }
      ps->p++;
    }
    if (ps->p + 1 < ps->end && ps->p[0] == '/' && ps->p[1] == '/') {
      while (ps->p < ps->end && *ps->p != '\n') ps->p++;
      continue;
    }
    return;
  }
}

/* Reads one character of a char literal body, handling escapes. */
static int lex_char_body(Parser *ps, NzLoc start) {
  if (ps->p >= ps->end || *ps->p == '\n') fail_at(ps, start, "unterminated character literal");
  int c = (unsigned char)*ps->p++;
  if (c != '\\') return c;
  if (ps->p >= ps->end) fail_at(ps, start, "unterminated character literal");
  c = (unsigned char)*ps->p++;
  switch (c) {
  case 'n': return '\n';
  case 't': return '\t';
  case 'r': return '\r';
  case '0': return 0;
  case '\\': return '\\';
  case '\'': return '\'';
  case 'x': {
    int v = 0, n = 0;
    while (n < 2 && ps->p < ps->end && isxdigit((unsigned char)*ps->p)) {
      char h = *ps->p++;
      v = v * 16 + (isdigit((unsigned char)h) ? h - '0' : (tolower(h) - 'a' + 10));
      n++;
    }
    if (n == 0) fail_at(ps, start, "expected hex digits after '\\x'");
    return v;
  }
  default:
    fail_at(ps, start, "unknown escape '\\%c' in character literal", c);
  }
}

static Tok lex(Parser *ps) {
  skip_space(ps);
  Tok t = {0};
  t.loc = here(ps);
  t.start = ps->p;
  if (ps->p >= ps->end) {
    t.kind = T_EOF;
    return t;
  }
  const char *s = ps->p;
  char c = *s;
  if (isalpha((unsigned char)c) || c == '_') {
    while (ps->p < ps->end && (isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '\''))
      ps->p++;
    t.kind = T_NAME;
    t.name = nz_intern(s, (size_t)(ps->p - s));
    if (!strcmp(t.name, "inf") || !strcmp(t.name, "nan")) { /* float literals, e.g. fmax's identity */
      t.kind = T_FLOAT;
      t.fval = t.name[0] == 'i' ? HUGE_VAL : NAN;
    }
  } else if (isdigit((unsigned char)c)) {
    while (ps->p < ps->end && isdigit((unsigned char)*ps->p)) ps->p++;
    int is_float = 0;
    if (ps->p + 1 < ps->end && *ps->p == '.' && isdigit((unsigned char)ps->p[1])) {
      is_float = 1;
      ps->p++;
      while (ps->p < ps->end && isdigit((unsigned char)*ps->p)) ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
      const char *q = ps->p + 1;
      if (q < ps->end && (*q == '+' || *q == '-')) q++;
      if (q < ps->end && isdigit((unsigned char)*q)) {
        is_float = 1;
        ps->p = q;
        while (ps->p < ps->end && isdigit((unsigned char)*ps->p)) ps->p++;
      }
    }
    char buf[128];
    size_t n = (size_t)(ps->p - s);
    if (n >= sizeof buf) fail_at(ps, t.loc, "numeric literal too long");
    memcpy(buf, s, n);
    buf[n] = 0;
    if (is_float) {
      t.kind = T_FLOAT;
      t.fval = strtod(buf, NULL);
    } else {
      t.kind = T_INT;
      errno = 0;
      unsigned long long v = strtoull(buf, NULL, 10);
      if (errno || v > 2147483648ull) fail_at(ps, t.loc, "integer literal %s does not fit in 32 bits", buf);
      t.ival = (int64_t)v;
    }
  } else if (c == '\'') {
    ps->p++;
    t.kind = T_CHAR;
    t.ival = lex_char_body(ps, t.loc);
    if (ps->p >= ps->end || *ps->p != '\'') fail_at(ps, t.loc, "unterminated character literal");
    ps->p++;
  } else {
    static const struct {
      const char *s;
      TokKind k;
    } ops[] = {{"->", T_ARROW}, {"=>", T_DARROW}, {"==", T_EQEQ}, {"!=", T_NE},   {"<=", T_LE},
               {">=", T_GE},    {"&&", T_ANDAND}, {"||", T_OROR}, {"(", T_LPAREN}, {")", T_RPAREN},
               {"[", T_LBRACK}, {"]", T_RBRACK},  {"{", T_LBRACE}, {"}", T_RBRACE}, {",", T_COMMA},
               {":", T_COLON},  {"=", T_EQ},      {"+", T_PLUS},   {"-", T_MINUS}, {"*", T_STAR},
               {"/", T_SLASH},  {"%", T_PERCENT}, {"<", T_LT},     {">", T_GT},    {"!", T_BANG},
               {"#", T_HASH}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
      size_t n = strlen(ops[i].s);
      if ((size_t)(ps->end - s) >= n && memcmp(s, ops[i].s, n) == 0) {
        ps->p += n;
        t.kind = ops[i].k;
        t.len = (int)n;
        return t;
      }
    }
    if (isprint((unsigned char)c))
      fail_at(ps, t.loc, "unexpected character '%c'", c);
    else
      fail_at(ps, t.loc, "unexpected byte 0x%02x", (unsigned char)c);
  }
  t.len = (int)(ps->p - s);
  return t;
}

static void advance(Parser *ps) {
  if (ps->has_peek) {
    ps->tok = ps->peek;
    ps->has_peek = 0;
  } else {
    ps->tok = lex(ps);
  }
}

static Tok *peek(Parser *ps) {
  if (!ps->has_peek) {
    ps->peek = lex(ps);
    ps->has_peek = 1;
  }
  return &ps->peek;
}

/* A description of the current token for "found ..." messages. */
static const char *describe(Parser *ps, const Tok *t) {
  switch (t->kind) {
  case T_EOF: return "end of file";
  case T_NAME: return nz_sprintf(ps->prog->arena, "'%s'", t->name);
  case T_INT: return nz_sprintf(ps->prog->arena, "integer %.*s", t->len, t->start);
  case T_FLOAT: return nz_sprintf(ps->prog->arena, "float %.*s", t->len, t->start);
  case T_CHAR: return nz_sprintf(ps->prog->arena, "character %.*s", t->len, t->start);
  default: return nz_sprintf(ps->prog->arena, "'%.*s'", t->len, t->start);
  }
}

NZ_NORETURN static void expected(Parser *ps, const char *what) {
  fail_at(ps, ps->tok.loc, "expected %s, found %s", what, describe(ps, &ps->tok));
}

static const char *const keywords[] = {"inf", "nan", "kernel", "function", "let", "in",   "if",     "then",
                                       "else",   "run",      "return", "using", "into", "true",
                                       "false",  "bool",     "char", "int",   "float",  "segdes"};

static int is_kw(const Tok *t, const char *kw) { return t->kind == T_NAME && strcmp(t->name, kw) == 0; }

static int is_keyword_name(const char *name) {
  for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
    if (strcmp(keywords[i], name) == 0) return 1;
  return 0;
}

static int accept(Parser *ps, TokKind k) {
  if (ps->tok.kind != k) return 0;
  advance(ps);
  return 1;
}

static void expect(Parser *ps, TokKind k, const char *what) {
  if (!accept(ps, k)) expected(ps, what);
}

static int accept_kw(Parser *ps, const char *kw) {
  if (!is_kw(&ps->tok, kw)) return 0;
  advance(ps);
  return 1;
}

static void expect_kw(Parser *ps, const char *kw) {
  if (!accept_kw(ps, kw)) expected(ps, nz_sprintf(ps->prog->arena, "'%s'", kw));
}

/* A variable or declaration name: not a keyword. */
static const char *expect_name(Parser *ps, const char *what, NzLoc *loc) {
  if (ps->tok.kind != T_NAME || is_keyword_name(ps->tok.name)) expected(ps, what);
  const char *n = ps->tok.name;
  if (loc) *loc = ps->tok.loc;
  advance(ps);
  return n;
}

/* ---------------------------------------------------------------- types */

static const LcuType *parse_base_type(Parser *ps, const char *what) {
  static const char *names[] = {"bool", "char", "int", "float"};
  for (int k = 0; k <= LT_FLOAT; k++)
    if (accept_kw(ps, names[k])) return lcu_type_base((LcuTypeKind)k);
  expected(ps, what);
}

static const LcuType *parse_type(Parser *ps) {
  if (accept_kw(ps, "segdes")) return lcu_type_base(LT_SEGDES);
  if (accept(ps, T_LBRACK)) {
    const LcuType *e = parse_base_type(ps, "an element type (bool, char, int or float)");
    expect(ps, T_RBRACK, "']'");
    return lcu_type_array(e->kind);
  }
  if (accept(ps, T_LPAREN)) {
    AVEC(const LcuType *) elems = {0};
    nest(ps, 1);
    if (!accept(ps, T_RPAREN)) {
      do avec_push(ps, elems, parse_type(ps));
      while (accept(ps, T_COMMA));
      expect(ps, T_RPAREN, "',' or ')'");
    }
    nest(ps, -1);
    const LcuType *t = lcu_type_tuple(elems.n, elems.v);
    return t;
  }
  return parse_base_type(ps, "a type");
}

/* ------------------------------------------------------------- binders */

/* NAME | '(' [NAME {',' NAME}] ')' | NAME {',' NAME}; allow_empty permits '()'. */
static int parse_binders(Parser *ps, LcuBinder **out, int allow_empty) {
  AVEC(LcuBinder) v = {0};
  LcuBinder b;
  if (accept(ps, T_LPAREN)) {
    if (ps->tok.kind == T_RPAREN && allow_empty) {
      advance(ps);
    } else {
      do {
        b.name = expect_name(ps, "a variable name", &b.loc);
        b.ty = NULL;
        b.slot = -1;
        avec_push(ps, v, b);
      } while (accept(ps, T_COMMA));
      expect(ps, T_RPAREN, "',' or ')'");
    }
  } else {
    do {
      b.name = expect_name(ps, "a variable name", &b.loc);
      b.ty = NULL;
      b.slot = -1;
      avec_push(ps, v, b);
    } while (accept(ps, T_COMMA));
  }
  LcuBinder *arr = lcu_binders(ps->prog, v.n);
  if (v.n) memcpy(arr, v.v, sizeof(LcuBinder) * (size_t)v.n);
  int n = v.n;
  *out = arr;
  return n;
}

/* ---------------------------------------------------------- expressions */

static LcuExpr *parse_expr(Parser *ps);
static LcuExpr *parse_inner(Parser *ps);

static int parse_args(Parser *ps, LcuExpr ***out) {
  AVEC(LcuExpr *) v = {0};
  expect(ps, T_LPAREN, "'('");
  if (!accept(ps, T_RPAREN)) {
    do avec_push(ps, v, parse_inner(ps));
    while (accept(ps, T_COMMA));
    expect(ps, T_RPAREN, "',' or ')'");
  }
  LcuExpr **arr = lcu_exprs(ps->prog, v.n);
  if (v.n) memcpy(arr, v.v, sizeof(LcuExpr *) * (size_t)v.n);
  int n = v.n;
  *out = arr;
  return n;
}

static LcuExpr *parse_atom(Parser *ps) {
  LcuProgram *p = ps->prog;
  Tok t = ps->tok;
  switch (t.kind) {
  case T_INT:
    advance(ps);
    if (t.ival > INT32_MAX) fail_at(ps, t.loc, "integer literal %.*s does not fit in 32 bits", t.len, t.start);
    return lcu_int(p, (int32_t)t.ival, t.loc);
  case T_FLOAT:
    advance(ps);
    return lcu_float(p, t.fval, t.loc);
  case T_CHAR:
    advance(ps);
    return lcu_char(p, (unsigned char)t.ival, t.loc);
  case T_LPAREN: {
    advance(ps);
    if (accept(ps, T_RPAREN)) return lcu_tuple(p, 0, NULL, t.loc);
    AVEC(LcuExpr *) v = {0};
    do avec_push(ps, v, parse_inner(ps));
    while (accept(ps, T_COMMA));
    expect(ps, T_RPAREN, "',' or ')'");
    LcuExpr *e = v.n == 1 ? v.v[0] : lcu_tuple(p, v.n, v.v, t.loc);
    return e;
  }
  case T_LBRACK: {
    advance(ps);
    LcuExpr *e = lcu_expr_new(p, LE_ARRAY, t.loc);
    if (accept(ps, T_RBRACK)) {
      e->opty = parse_base_type(ps, "the element type of an empty array literal ([] int)");
      return e;
    }
    AVEC(LcuExpr *) v = {0};
    do avec_push(ps, v, parse_inner(ps));
    while (accept(ps, T_COMMA));
    expect(ps, T_RBRACK, "',' or ']'");
    e->nargs = v.n;
    e->args = lcu_exprs(p, v.n);
    memcpy(e->args, v.v, sizeof(LcuExpr *) * (size_t)v.n);
    return e;
  }
  case T_NAME:
    if (is_kw(&t, "true") || is_kw(&t, "false")) {
      advance(ps);
      return lcu_bool(p, is_kw(&t, "true"), t.loc);
    }
    if (is_kw(&t, "run")) {
      advance(ps);
      NzLoc kl;
      const char *k = expect_name(ps, "a kernel name after 'run'", &kl);
      LcuExpr **args;
      int n = parse_args(ps, &args);
      return lcu_run(p, k, n, args, t.loc);
    }
    if (is_keyword_name(t.name)) expected(ps, "an expression");
    advance(ps);
    if (ps->tok.kind == T_LPAREN) {
      LcuExpr **args;
      int n = parse_args(ps, &args);
      int prim = lcu_prim_lookup(t.name);
      if (prim >= 0) return lcu_prim(p, (LcuPrim)prim, n, args, t.loc);
      return lcu_call(p, t.name, n, args, t.loc);
    }
    return lcu_var(p, t.name, t.loc);
  default:
    expected(ps, "an expression");
  }
}

static LcuExpr *parse_postfix(Parser *ps) {
  LcuExpr *e = parse_atom(ps);
  while (ps->tok.kind == T_LBRACK) {
    NzLoc loc = ps->tok.loc;
    advance(ps);
    LcuExpr *idx = parse_inner(ps);
    expect(ps, T_RBRACK, "']'");
    e = lcu_index(ps->prog, e, idx, loc);
  }
  return e;
}

static LcuExpr *parse_unary(Parser *ps) {
  Tok t = ps->tok;
  LcuPrim op;
  if (t.kind == T_MINUS) op = LP_NEG;
  else if (t.kind == T_BANG) op = LP_NOT;
  else if (t.kind == T_HASH) op = LP_LENGTH;
  else return parse_postfix(ps);
  advance(ps);
  /* A minus directly before a number literal is part of the literal, so
   * -2147483648 parses and negative literals print and re-parse the same. */
  if (op == LP_NEG && ps->tok.kind == T_INT && peek(ps)->kind != T_LBRACK) {
    Tok n = ps->tok;
    advance(ps);
    return lcu_int(ps->prog, (int32_t)(uint32_t)(-(uint64_t)n.ival), t.loc);
  }
  if (op == LP_NEG && ps->tok.kind == T_FLOAT) {
    Tok n = ps->tok;
    advance(ps);
    return lcu_float(ps->prog, -n.fval, t.loc);
  }
  nest(ps, 1);
  LcuExpr *a = parse_unary(ps);
  nest(ps, -1);
  return lcu_prim(ps->prog, op, 1, &a, t.loc);
}

/* Binary operator levels, loosest first; all left-associative. */
static const struct {
  TokKind tok;
  LcuPrim prim;
  int level;
} binops[] = {
    {T_OROR, LP_ORELSE, 1}, {T_ANDAND, LP_ANDALSO, 2}, {T_EQEQ, LP_EQ, 3}, {T_NE, LP_NE, 3},
    {T_LT, LP_LT, 3},       {T_LE, LP_LE, 3},          {T_GT, LP_GT, 3},   {T_GE, LP_GE, 3},
    {T_PLUS, LP_ADD, 4},    {T_MINUS, LP_SUB, 4},      {T_STAR, LP_MUL, 5}, {T_SLASH, LP_DIV, 5},
    {T_PERCENT, LP_MOD, 5},
};

static int binop_of(TokKind k) {
  for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
    if (binops[i].tok == k) return (int)i;
  return -1;
}

static LcuExpr *parse_binary(Parser *ps, int level) {
  if (level > 5) return parse_unary(ps);
  LcuExpr *lhs = parse_binary(ps, level + 1);
  for (;;) {
    int i = binop_of(ps->tok.kind);
    if (i < 0 || binops[i].level != level) return lhs;
    NzLoc loc = ps->tok.loc;
    advance(ps);
    LcuExpr *rhs = parse_binary(ps, level + 1);
    lhs = lcu_prim2(ps->prog, binops[i].prim, lhs, rhs, loc);
  }
}

/* Every expression inside another is one level deeper (nest), except a
 * let's body and an if's else branch: chains, not nesting. */
static LcuExpr *parse_inner(Parser *ps) {
  nest(ps, 1);
  LcuExpr *e = parse_expr(ps);
  nest(ps, -1);
  return e;
}

static LcuExpr *parse_expr(Parser *ps) {
  Tok t = ps->tok;
  if (accept_kw(ps, "let")) {
    LcuBinder *bs;
    int n = parse_binders(ps, &bs, 1);
    expect(ps, T_EQ, "'='");
    LcuExpr *rhs = parse_inner(ps);
    expect_kw(ps, "in");
    chain_step(ps, t.loc);
    LcuExpr *body = parse_expr(ps);
    ps->chain--;
    LcuExpr *e = lcu_let(ps->prog, n, bs, rhs, body, t.loc);
    return e;
  }
  if (accept_kw(ps, "if")) {
    LcuExpr *c = parse_inner(ps);
    expect_kw(ps, "then");
    LcuExpr *a = parse_inner(ps);
    expect_kw(ps, "else");
    chain_step(ps, t.loc);
    LcuExpr *b = parse_expr(ps);
    ps->chain--;
    return lcu_if(ps->prog, c, a, b, t.loc);
  }
  return parse_binary(ps, 1);
}

/* --------------------------------------------------------- thunks, SOACs */

static LcuThunk *parse_thunk(Parser *ps) {
  NzLoc loc = ps->tok.loc;
  expect(ps, T_LBRACE, "'{' starting a thunk");
  LcuBinder *params;
  int np = parse_binders(ps, &params, 1);
  expect(ps, T_DARROW, "'=>'");
  LcuExpr *body = parse_expr(ps);
  LcuBinder *usings = NULL;
  int nu = 0;
  if (accept_kw(ps, "using")) nu = parse_binders(ps, &usings, 0);
  expect(ps, T_RBRACE, "'using' or '}' ending the thunk");
  return lcu_thunk_new(ps->prog, np, params, body, nu, usings, loc);
}

static LcuSize parse_size(Parser *ps, int allow_segdes) {
  LcuSize z = {0};
  z.slot = -1;
  z.loc = ps->tok.loc;
  expect(ps, T_LPAREN, allow_segdes ? "'(' and a segment descriptor" : "'(' starting a size");
  if (ps->tok.kind == T_INT) {
    if (ps->tok.ival > INT32_MAX) fail_at(ps, ps->tok.loc, "size does not fit in 32 bits");
    z.kind = LZ_LIT;
    z.lit = (int32_t)ps->tok.ival;
    advance(ps);
  } else if (accept(ps, T_HASH)) {
    z.kind = LZ_LEN;
    z.name = expect_name(ps, "an array name after '#'", NULL);
  } else if (ps->tok.kind == T_NAME && !is_keyword_name(ps->tok.name)) {
    z.kind = LZ_VAR;
    z.name = ps->tok.name;
    advance(ps);
  } else {
    expected(ps, "a size: an integer, a variable or '#' and an array");
  }
  expect(ps, T_RPAREN, "')' ending the size");
  return z;
}

static void parse_rops(Parser *ps, LcuSoac *s) {
  AVEC(LcuRop) v = {0};
  expect(ps, T_LPAREN, "'(' starting the reduction operators");
  do {
    int r = ps->tok.kind == T_NAME ? lcu_rop_lookup(ps->tok.name) : -1;
    if (r < 0) {
      expected(ps, "a reduction operator (iadd, imul, imax, imin, iand, ior, ixor, fadd, fmul, "
                   "fmax, fmin, band, bor, bxor, id)");
    }
    avec_push(ps, v, (LcuRop)r);
    advance(ps);
  } while (accept(ps, T_COMMA));
  expect(ps, T_RPAREN, "',' or ')'");
  s->nrops = v.n;
  s->rops = NZ_NEWN(ps->prog->arena, LcuRop, v.n);
  memcpy(s->rops, v.v, sizeof(LcuRop) * (size_t)v.n);
}

static void parse_soacbind(Parser *ps, LcuKernel *k) {
  NzLoc loc = ps->tok.loc;
  expect_kw(ps, "let");
  LcuBinder *bs;
  int nb = parse_binders(ps, &bs, 0);
  expect(ps, T_EQ, "'='");
  int kind = ps->tok.kind == T_NAME ? lcu_soac_lookup(ps->tok.name) : -1;
  if (kind < 0)
    expected(ps, "a SOAC (ONCE, MAP, PERMUTE, REDUCE, SCAN, FILTER, PARTITION, SEGREDUCE, SEGSCAN)");
  NzLoc sloc = ps->tok.loc;
  advance(ps);
  /* Parse into a local, then append: lcu_kernel_add_soac may move the array. */
  LcuSoac s = {0};
  s.kind = (LcuSoacKind)kind;
  s.nthunks = 1;
  s.thunks[0] = parse_thunk(ps);
  s.size.slot = s.outlen.slot = -1;
  switch (s.kind) {
  case LS_ONCE:
    break;
  case LS_MAP:
    s.size = parse_size(ps, 0);
    break;
  case LS_PERMUTE:
    s.nthunks = 2;
    s.thunks[1] = parse_thunk(ps);
    s.size = parse_size(ps, 0);
    if (accept_kw(ps, "into")) s.outlen = parse_size(ps, 0);
    break;
  case LS_FILTER:
  case LS_PARTITION:
    s.nthunks = 2;
    s.thunks[1] = parse_thunk(ps);
    s.size = parse_size(ps, 0);
    break;
  case LS_REDUCE:
  case LS_SCAN:
    parse_rops(ps, &s);
    s.size = parse_size(ps, 0);
    break;
  case LS_SEGREDUCE:
  case LS_SEGSCAN:
    parse_rops(ps, &s);
    s.size = parse_size(ps, 1);
    break;
  default:
    nz_die("parse_soacbind: SOAC kind %d", kind);
  }
  LcuSoac *d = lcu_kernel_add_soac(ps->prog, k, s.kind, sloc);
  *d = s;
  d->loc = loc;
  d->nbinds = nb;
  d->binds = bs;
}

/* ----------------------------------------------------------- top level */

static int parse_params(Parser *ps, LcuBinder **out) {
  AVEC(LcuBinder) v = {0};
  expect(ps, T_LPAREN, "'(' starting the parameters");
  if (!accept(ps, T_RPAREN)) {
    do {
      LcuBinder b = {0};
      b.slot = -1;
      b.name = expect_name(ps, "a parameter name", &b.loc);
      expect(ps, T_COLON, "':' and the parameter's type");
      b.ty = parse_type(ps);
      avec_push(ps, v, b);
    } while (accept(ps, T_COMMA));
    expect(ps, T_RPAREN, "',' or ')'");
  }
  LcuBinder *arr = lcu_binders(ps->prog, v.n);
  if (v.n) memcpy(arr, v.v, sizeof(LcuBinder) * (size_t)v.n);
  int n = v.n;
  *out = arr;
  return n;
}

static void parse_kernel(Parser *ps) {
  NzLoc loc = ps->tok.loc, nloc;
  advance(ps); /* kernel */
  const char *name = expect_name(ps, "a kernel name", &nloc);
  LcuKernel *k = lcu_kernel_add(ps->prog, name, nloc);
  k->loc = loc;
  k->nparams = parse_params(ps, &k->params);
  expect(ps, T_ARROW, "'->' and the result type");
  k->ret = parse_type(ps);
  expect(ps, T_LBRACE, "'{' starting the kernel body");
  while (is_kw(&ps->tok, "let")) parse_soacbind(ps, k);
  if (!accept_kw(ps, "return")) expected(ps, "'let' or 'return'");
  AVEC(LcuBinder) v = {0};
  do {
    LcuBinder b = {0};
    b.slot = -1;
    b.name = expect_name(ps, "a variable name to return", &b.loc);
    avec_push(ps, v, b);
  } while (accept(ps, T_COMMA));
  k->nrets = v.n;
  k->rets = lcu_binders(ps->prog, v.n);
  memcpy(k->rets, v.v, sizeof(LcuBinder) * (size_t)v.n);
  expect(ps, T_RBRACE, "'}' ending the kernel");
}

static void parse_function(Parser *ps) {
  NzLoc loc = ps->tok.loc, nloc;
  advance(ps); /* function */
  const char *name = expect_name(ps, "a function name", &nloc);
  if (lcu_prim_lookup(name) >= 0)
    fail_at(ps, nloc, "'%s' is a primitive and cannot name a function", name);
  LcuFunc *f = lcu_func_add(ps->prog, name, nloc);
  f->loc = loc;
  f->nparams = parse_params(ps, &f->params);
  expect(ps, T_ARROW, "'->' and the result type");
  f->ret = parse_type(ps);
  expect(ps, T_LBRACE, "'{' starting the function body");
  f->body = parse_expr(ps);
  expect(ps, T_RBRACE, "'}' ending the function");
}

LcuProgram *lcu_parse(const NzSource *src) {
  Parser ps = {0};
  ps.src = src;
  ps.p = src->text;
  ps.end = src->text + src->len;
  ps.line = 1;
  ps.line_start = src->text;
  ps.prog = lcu_program_new(src);
  if (setjmp(ps.fail)) {
    lcu_program_free(ps.prog);
    return NULL;
  }
  advance(&ps);
  while (ps.tok.kind != T_EOF) {
    if (is_kw(&ps.tok, "kernel"))
      parse_kernel(&ps);
    else if (is_kw(&ps.tok, "function"))
      parse_function(&ps);
    else
      expected(&ps, "'kernel' or 'function'");
  }
  return ps.prog;
}
