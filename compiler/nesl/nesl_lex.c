/* nesl_lex.c — NESL 3.1 tokens (NESL.md §1): case-folded identifiers, %...% comments,
 * backquote characters, backslash-quoted strings, longest-match operators. The whole
 * source is tokenised up front into an array, which a lexical error ends with a T_ERROR
 * token: the forms before the error still run, as when NESL reads a file. */
#include "nesl.h"
#include <ctype.h>
#include <stdarg.h>

static const char *tok_names[T_NTOKS] = {
    [T_EOF] = "end of file", [T_INT] = "integer", [T_FLOAT] = "float",
    [T_CHAR] = "character", [T_STRING] = "string", [T_IDENT] = "identifier",
    [T_FUNCTION] = "'function'", [T_DATATYPE] = "'datatype'", [T_IF] = "'if'",
    [T_THEN] = "'then'", [T_ELSE] = "'else'", [T_LET] = "'let'", [T_IN] = "'in'",
    [T_AND] = "'and'", [T_OR] = "'or'", [T_XOR] = "'xor'", [T_NOR] = "'nor'",
    [T_NAND] = "'nand'", [T_LP] = "'('", [T_RP] = "')'", [T_LB] = "'['", [T_RB] = "']'",
    [T_LC] = "'{'", [T_RC] = "'}'", [T_COMMA] = "','", [T_SEMI] = "';'", [T_DOLLAR] = "'$'",
    [T_COLON] = "':'", [T_BAR] = "'|'", [T_EQ] = "'='", [T_LT] = "'<'", [T_GT] = "'>'",
    [T_PLUS] = "'+'", [T_MINUS] = "'-'", [T_STAR] = "'*'", [T_SLASH] = "'/'",
    [T_CARET] = "'^'", [T_HASH] = "'#'", [T_AT] = "'@'", [T_ARROW] = "'->'",
    [T_LARROW] = "'<-'", [T_PLUSPLUS] = "'++'", [T_EQEQ] = "'=='", [T_NE] = "'/='",
    [T_LE] = "'<='", [T_GE] = "'>='", [T_COLONCOLON] = "'::'", [T_BARBAR] = "'||'",
    [T_DARROW] = "'=>'", [T_COLONEQ] = "':='", [T_BAREQ] = "'|='", [T_AMPEQ] = "'&='",
    [T_GTGT] = "'>>'", [T_ERROR] = "a lexical error",
};

const char *nesl_tok_name(NlTok k) { return k < T_NTOKS && tok_names[k] ? tok_names[k] : "?"; }

static const struct {
  const char *s;
  NlTok k;
} keywords[] = {{"function", T_FUNCTION}, {"datatype", T_DATATYPE}, {"if", T_IF},
                {"then", T_THEN},         {"else", T_ELSE},         {"let", T_LET},
                {"in", T_IN},             {"and", T_AND},           {"or", T_OR},
                {"xor", T_XOR},           {"nor", T_NOR},           {"nand", T_NAND}};

static const struct {
  const char *s;
  NlTok k;
} ops[] = {{"->", T_ARROW},  {"<-", T_LARROW},     {"++", T_PLUSPLUS}, {"==", T_EQEQ},
           {"/=", T_NE},     {"<=", T_LE},         {">=", T_GE},       {"::", T_COLONCOLON},
           {"||", T_BARBAR}, {"=>", T_DARROW},     {":=", T_COLONEQ},  {"|=", T_BAREQ},
           {"&=", T_AMPEQ},  {">>", T_GTGT},       {"(", T_LP},        {")", T_RP},
           {"[", T_LB},      {"]", T_RB},          {"{", T_LC},        {"}", T_RC},
           {",", T_COMMA},   {";", T_SEMI},        {"$", T_DOLLAR},    {":", T_COLON},
           {"|", T_BAR},     {"=", T_EQ},          {"<", T_LT},        {">", T_GT},
           {"+", T_PLUS},    {"-", T_MINUS},       {"*", T_STAR},      {"/", T_SLASH},
           {"^", T_CARET},   {"#", T_HASH},        {"@", T_AT}};

/* The message of a lexical error, interned (it lives as long as the tokens' names). */
NZ_PRINTF(1, 2) static const char *lex_msg(const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return nz_intern_cstr(msg);
}

int nesl_lex(const NzSource *src, NlToken **out, int *nout) {
  NZ_VEC(NlToken) v = {0};
  const char *s = src->text, *end = s + src->len;
  const char *p = s, *linestart = s;
  int line = 1;
#define LOC_AT(q) ((NzLoc){src, line, (int)((q) - linestart) + 1})
/* a lexical error ends the tokens with a T_ERROR token */
#define FAIL_LOC(where, ...)                                                                   \
  do {                                                                                     \
    NlToken e_ = {0};                                                                      \
    e_.k = T_ERROR;                                                                        \
    e_.loc = (where);                                                                      \
    e_.s = lex_msg(__VA_ARGS__);                                                           \
    nz_vec_push(v, e_);                                                                    \
    *out = v.v;                                                                            \
    *nout = v.n;                                                                           \
    return 0;                                                                              \
  } while (0)
#define FAIL(q, ...) FAIL_LOC(LOC_AT(q), __VA_ARGS__)
  for (;;) {
    /* whitespace and comments */
    while (p < end) {
      if (*p == '\n') {
        line++;
        linestart = ++p;
      } else if (isspace((unsigned char)*p)) {
        p++;
      } else if (*p == '%') {
        const char *start = p;
        int sline = line;
        const char *sls = linestart;
        p++;
        while (p < end && *p != '%') {
          if (*p == '\n') {
            line++;
            linestart = p + 1;
          }
          p++;
        }
        if (p >= end)
          FAIL_LOC(((NzLoc){src, sline, (int)(start - sls) + 1}), "unterminated comment");
        p++;
      } else {
        break;
      }
    }
    NlToken t = {0};
    t.loc = LOC_AT(p);
    if (p >= end) {
      t.k = T_EOF;
      nz_vec_push(v, t);
      break;
    }
    unsigned char c = (unsigned char)*p;
    if (isalpha(c) || c == '_') {
      const char *q = p;
      char buf[256];
      size_t n = 0;
      while (q < end && (isalnum((unsigned char)*q) || *q == '_')) {
        if (n < sizeof buf - 1) buf[n++] = (char)tolower((unsigned char)*q);
        q++;
      }
      if (q - p > 200) FAIL(p, "identifier too long");
      buf[n] = 0;
      t.k = T_IDENT;
      for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
        if (!strcmp(buf, keywords[i].s)) t.k = keywords[i].k;
      t.s = nz_intern(buf, n);
      p = q;
    } else if (isdigit(c) || (c == '.' && p + 1 < end && isdigit((unsigned char)p[1]))) {
      const char *q = p;
      bool isfloat = false;
      while (q < end && isdigit((unsigned char)*q)) q++;
      if (q < end && *q == '.') {
        isfloat = true;
        q++;
        while (q < end && isdigit((unsigned char)*q)) q++;
      }
      if (q < end && (*q == 'e' || *q == 'E')) {
        const char *r = q + 1;
        if (r < end && (*r == '+' || *r == '-')) r++;
        if (r < end && isdigit((unsigned char)*r)) {
          isfloat = true;
          while (r < end && isdigit((unsigned char)*r)) r++;
          q = r;
        }
      }
      if (q < end && (isalpha((unsigned char)*q) || *q == '_'))
        FAIL(q, "a number must not be directly followed by a letter");
      char buf[128];
      if (q - p >= (long)sizeof buf) FAIL(p, "number literal too long");
      memcpy(buf, p, (size_t)(q - p));
      buf[q - p] = 0;
      if (isfloat) {
        t.k = T_FLOAT;
        t.f = strtod(buf, NULL);
      } else {
        t.k = T_INT;
        unsigned long long x = strtoull(buf, NULL, 10);
        if (q - p > 10 || x > 2147483648ULL) FAIL(p, "integer literal %s is out of range", buf);
        t.i = (int64_t)x;
      }
      p = q;
    } else if (c == '`') {
      if (p + 1 >= end) FAIL(p, "a backquote must be followed by a character");
      t.k = T_CHAR;
      t.i = (unsigned char)p[1];
      if (p[1] == '\n') {
        line++;
        linestart = p + 2;
      }
      p += 2;
    } else if (c == '"') {
      NzBuf b = {0};
      const char *q = p + 1;
      int sline = line;
      const char *sls = linestart;
      while (q < end && *q != '"') {
        if (*q == '\\' && q + 1 < end) q++;
        if (*q == '\n') {
          line++;
          linestart = q + 1;
        }
        nz_buf_putc(&b, *q);
        q++;
      }
      if (q >= end) {
        nz_buf_free(&b);
        FAIL_LOC(((NzLoc){src, sline, (int)(p - sls) + 1}), "unterminated string");
      }
      t.k = T_STRING;
      t.s = nz_intern(b.s ? b.s : "", b.len);
      t.slen = (int)b.len;
      nz_buf_free(&b);
      p = q + 1;
    } else {
      size_t i;
      for (i = 0; i < sizeof ops / sizeof *ops; i++) {
        size_t l = strlen(ops[i].s);
        if ((size_t)(end - p) >= l && !memcmp(p, ops[i].s, l)) break;
      }
      if (i == sizeof ops / sizeof *ops) {
        if (isprint(c))
          FAIL(p, "unexpected character '%c'", c);
        else
          FAIL(p, "unexpected character (code %d)", c);
      }
      t.k = ops[i].k;
      p += strlen(ops[i].s);
    }
    nz_vec_push(v, t);
  }
  *out = v.v;
  *nout = v.n;
  return 1;
#undef FAIL
#undef FAIL_LOC
#undef LOC_AT
}
