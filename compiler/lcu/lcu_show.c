/* lcu_show.c — the `show` primitive: prints a NESL value held as flat λcu components
 * (the representation of compiler/flan/flan.h) in NESL's top-level format, so that a
 * compiled NESL program prints what the AST interpreter prints. Shared by the λcu
 * interpreter and the runtime (runtime/host/rt_io.c); the layout of the text operand is
 * in compiler/lcu/README.md ("Primitives added for NESL"). */
#include "lcu.h"

typedef struct {
  NzBuf *b;
  int plen; /* print_length: elements of a non-char sequence printed */
} Show;

/* The end of the type descriptor at d; NULL if malformed. */
static const char *desc_end(const char *d) {
  switch (*d) {
  case 'i': case 'f': case 'b': case 'c': case 'n': case 'N': return d + 1;
  case '[': return desc_end(d + 1);
  case '(': {
    const char *a = desc_end(d + 1);
    return a ? desc_end(a) : NULL;
  }
  case 'd': {
    const char *semi = strchr(d, ';');
    return semi ? desc_end(semi + 1) : NULL;
  }
  default: return NULL;
  }
}

static LcuTypeKind base_kind(char c) {
  return c == 'i' || c == 'N' ? LT_INT : c == 'f' ? LT_FLOAT : c == 'b' ? LT_BOOL : LT_CHAR;
}

/* Checks that c[*k..] holds the components of a value (vec = 0) or of a vector of
 * values (vec = 1) described by d, advancing *k; a vector's row count goes to *rows
 * (-1: any, for a vector of functions). Returns 0 if they match. */
static int valid(const char *d, const LcuValue *c, int n, int *k, int vec, int64_t *rows) {
  *rows = -1;
  switch (*d) {
  case 'i': case 'f': case 'b': case 'c': case 'N':
    if (*k >= n) return -1;
    if (!vec) return c[(*k)++].kind == base_kind(*d) ? 0 : -1;
    if (c[*k].kind != LT_ARRAY || c[*k].u.arr->elem != base_kind(*d)) return -1;
    *rows = c[(*k)++].u.arr->len;
    return 0;
  case 'n': return 0;
  case '[': {
    int64_t inner, want = -1;
    if (vec) {
      if (*k >= n || c[*k].kind != LT_SEGDES) return -1;
      *rows = c[*k].u.sd->nsegs;
      want = c[(*k)++].u.sd->total;
    }
    if (valid(d + 1, c, n, k, 1, &inner) != 0) return -1;
    return want >= 0 && inner >= 0 && inner != want ? -1 : 0;
  }
  case '(': {
    int64_t ra, rb;
    if (valid(d + 1, c, n, k, vec, &ra) != 0 || valid(desc_end(d + 1), c, n, k, vec, &rb) != 0) return -1;
    if (ra >= 0 && rb >= 0 && ra != rb) return -1;
    *rows = ra >= 0 ? ra : rb;
    return 0;
  }
  case 'd': return valid(strchr(d, ';') + 1, c, n, k, vec, rows);
  }
  return -1;
}

/* Components taken by d (vec as in valid). */
static int ncomp(const char *d, int vec) {
  switch (*d) {
  case 'n': return 0;
  case '[': return vec + ncomp(d + 1, 1);
  case '(': return ncomp(d + 1, vec) + ncomp(desc_end(d + 1), vec);
  case 'd': return ncomp(strchr(d, ';') + 1, vec);
  default: return 1;
  }
}

/* Rows of the vector whose components start at c (d valid). */
static int64_t vrows(const char *d, const LcuValue *c) {
  switch (*d) {
  case 'n': return 0;
  case '[': return c->u.sd->nsegs;
  case '(': return *(d + 1) == 'n' ? vrows(desc_end(d + 1), c) : vrows(d + 1, c);
  case 'd': return vrows(strchr(d, ';') + 1, c);
  default: return c->u.arr->len;
  }
}

static void show_val(Show *s, const char *d, const LcuValue *c, int vec, int64_t i);

/* Rows [lo, lo + n) of the vector of e's at c, as a NESL sequence. */
static void show_seq(Show *s, const char *e, const LcuValue *c, int64_t lo, int64_t n) {
  if (*e == 'c') {
    const unsigned char *t = c->u.arr->d.b + lo;
    nz_buf_putc(s->b, '"');
    for (int64_t j = 0; j < n; j++) {
      if (t[j] == '"' || t[j] == '\\') nz_buf_putc(s->b, '\\');
      nz_buf_putc(s->b, (char)t[j]);
    }
    nz_buf_putc(s->b, '"');
    return;
  }
  nz_buf_putc(s->b, '[');
  for (int64_t j = 0; j < n; j++) {
    if (j == s->plen) {
      nz_buf_puts(s->b, ",...");
      break;
    }
    if (j) nz_buf_puts(s->b, ", ");
    show_val(s, e, c, 1, lo + j);
  }
  nz_buf_putc(s->b, ']');
}

/* A tuple's fields without the parentheses: (a, (b, c)) prints as a, b, c. */
static void show_fields(Show *s, const char *d, const LcuValue *c, int vec, int64_t i) {
  while (*d == '(') {
    show_val(s, d + 1, c, vec, i);
    nz_buf_puts(s->b, ", ");
    c += ncomp(d + 1, vec);
    d = desc_end(d + 1);
  }
  show_val(s, d, c, vec, i);
}

/* The value (vec = 0), or row i of the vector (vec = 1), whose components start at c. */
static void show_val(Show *s, const char *d, const LcuValue *c, int vec, int64_t i) {
  switch (*d) {
  case 'i': nz_buf_printf(s->b, "%d", vec ? c->u.arr->d.i[i] : c->u.i); return;
  case 'f': nz_float_print(s->b, vec ? c->u.arr->d.f[i] : c->u.f, 15); return;
  case 'b': nz_buf_puts(s->b, (vec ? c->u.arr->d.b[i] : c->u.b) ? "T" : "F"); return;
  case 'c': nz_buf_printf(s->b, "`%c", (char)(vec ? c->u.arr->d.b[i] : c->u.c)); return;
  case 'n':
  case 'N': nz_buf_puts(s->b, "fn"); return;
  case '[':
    if (vec) show_seq(s, d + 1, c + 1, c->u.sd->starts[i], c->u.sd->lens[i]);
    else show_seq(s, d + 1, c, 0, vrows(d + 1, c));
    return;
  case '(':
    nz_buf_putc(s->b, '(');
    show_fields(s, d, c, vec, i);
    nz_buf_putc(s->b, ')');
    return;
  case 'd': {
    const char *semi = strchr(d, ';');
    nz_buf_printf(s->b, "%.*s(", (int)(semi - d - 1), d + 1);
    show_fields(s, semi + 1, c, vec, i);
    nz_buf_putc(s->b, ')');
    return;
  }
  }
}

int lcu_show(NzBuf *b, const char *text, size_t len, const LcuValue *comps, int n) {
  /* DESC \t PRINT_LENGTH \t PREFIX \t SUFFIX */
  char *t = nz_xmalloc(len + 1);
  memcpy(t, text, len);
  t[len] = 0;
  char *f[4] = {t, NULL, NULL, NULL};
  for (int i = 1; i < 4; i++) {
    f[i] = f[i - 1] ? memchr(f[i - 1], '\t', (size_t)(t + len - f[i - 1])) : NULL;
    if (f[i]) *f[i]++ = 0;
  }
  int k = 0, rc = -1;
  int64_t rows;
  if (f[3] && (!*f[0] || (desc_end(f[0]) && !*desc_end(f[0]) && valid(f[0], comps, n, &k, 0, &rows) == 0)) &&
      k == n) {
    Show s = {b, atoi(f[1])};
    nz_buf_puts(b, f[2]);
    if (*f[0]) show_val(&s, f[0], comps, 0, 0);
    for (const char *q = f[3]; q < t + len; q++) nz_buf_putc(b, *q); /* may hold NUL characters */
    rc = 0;
  }
  free(t);
  return rc;
}
