/* lcu_show.c — the `show` primitive: prints a NESL value held as flat λcu components
 * (the representation of compiler/flan/flan.h) in NESL's top-level format, so that a
 * compiled NESL program prints what the AST interpreter prints. Shared by the λcu
 * interpreter and the runtime (runtime/host/rt_io.c); the layout of the text operand is
 * in compiler/lcu/README.md ("Primitives added for NESL"). */
#include "lcu.h"

/* SHOW_TOP: NESL's top-level lines (show); SHOW_STRING: `@` (NESL's string of any value);
 * SHOW_OBJECT: NESL's object strings (write_object). */
enum { SHOW_TOP, SHOW_STRING, SHOW_OBJECT };
typedef struct {
  NzBuf *b;
  int plen; /* print_length: elements of a non-char sequence printed */
  int mode;
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
static void fmt_val(Show *s, const char *d, const LcuValue *c, int vec, int64_t i);

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
  if (s->mode != SHOW_TOP) {
    fmt_val(s, d, c, vec, i);
    return;
  }
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
    Show s = {b, atoi(f[1]), SHOW_TOP};
    nz_buf_puts(b, f[2]);
    if (*f[0]) show_val(&s, f[0], comps, 0, 0);
    for (const char *q = f[3]; q < t + len; q++) nz_buf_putc(b, *q); /* may hold NUL characters */
    rc = 0;
  }
  free(t);
  return rc;
}

/* ------------------------------------------- `@` and object strings (format) */

/* The element kind of a sequence of d in NESL's object strings (nesl.h's NlElemKind:
 * int, float, bool, char, else boxed). */
static int obj_elem_kind(const char *d) {
  while (*d == 'd') d = strchr(d, ';') + 1;
  switch (*d) {
  case 'i': return 0;
  case 'f': return 1;
  case 'b': return 2;
  case 'c': return 3;
  default: return 4;
  }
}

/* Like show_val, in the layout of `@` (the AST interpreter's nesl_value_string: bools
 * t/f, floats as float_string, chars of a sequence one by one, a datatype as its fields,
 * no print length) or of object strings (write_object: tagged scalars, S<kind> <n>
 * sequences, P pairs). */
static void fmt_val(Show *s, const char *d, const LcuValue *c, int vec, int64_t i) {
  bool obj = s->mode == SHOW_OBJECT;
  switch (*d) {
  case 'i': nz_buf_printf(s->b, obj ? "i%d " : "%d", vec ? c->u.arr->d.i[i] : c->u.i); return;
  case 'f': {
    double x = vec ? c->u.arr->d.f[i] : c->u.f;
    if (obj) nz_buf_printf(s->b, "f%.17g ", x);
    else nz_float_string(s->b, x, 8, false);
    return;
  }
  case 'b': {
    int x = vec ? c->u.arr->d.b[i] : c->u.b;
    if (obj) nz_buf_printf(s->b, "b%d ", x ? 1 : 0);
    else nz_buf_puts(s->b, x ? "t" : "f");
    return;
  }
  case 'c': {
    unsigned char x = vec ? c->u.arr->d.b[i] : c->u.c;
    if (obj) nz_buf_printf(s->b, "c%d ", x);
    else nz_buf_printf(s->b, "`%c", (char)x);
    return;
  }
  case 'n':
  case 'N': nz_buf_puts(s->b, obj ? "F " : "function"); return;
  case '[': {
    const LcuValue *ec = vec ? c + 1 : c;
    int64_t lo = vec ? c->u.sd->starts[i] : 0, n = vec ? c->u.sd->lens[i] : vrows(d + 1, c);
    if (obj) nz_buf_printf(s->b, "S%d %lld ", obj_elem_kind(d + 1), (long long)n);
    else nz_buf_putc(s->b, '[');
    for (int64_t j = 0; j < n; j++) {
      if (j && !obj) nz_buf_puts(s->b, ", ");
      fmt_val(s, d + 1, ec, 1, lo + j);
    }
    if (!obj) nz_buf_putc(s->b, ']');
    return;
  }
  case '(': {
    const char *bd = desc_end(d + 1);
    const LcuValue *bc = c + ncomp(d + 1, vec);
    if (obj) {
      nz_buf_puts(s->b, "P ");
      fmt_val(s, d + 1, c, vec, i);
      fmt_val(s, bd, bc, vec, i);
      return;
    }
    /* (a, (b, c)) prints as (a, b, c), one level deep, as nesl_value_string does */
    nz_buf_putc(s->b, '(');
    fmt_val(s, d + 1, c, vec, i);
    nz_buf_puts(s->b, ", ");
    while (*bd == 'd') bd = strchr(bd, ';') + 1;
    if (*bd == '(') {
      fmt_val(s, bd + 1, bc, vec, i);
      nz_buf_puts(s->b, ", ");
      fmt_val(s, desc_end(bd + 1), bc + ncomp(bd + 1, vec), vec, i);
    } else {
      fmt_val(s, bd, bc, vec, i);
    }
    nz_buf_putc(s->b, ')');
    return;
  }
  case 'd': fmt_val(s, strchr(d, ';') + 1, c, vec, i); return;
  }
}

int lcu_format(NzBuf *b, int32_t *lens, const char *text, size_t len, int64_t n, const LcuValue *comps,
               int ncomps) {
  /* MODE DESC: mode 's' (`@`) or 'o' (object strings), then the value's description */
  if (len < 2 || (text[0] != 's' && text[0] != 'o') || n < 0) return -1;
  char *d = nz_xmalloc(len);
  memcpy(d, text + 1, len - 1);
  d[len - 1] = 0;
  int k = 0, rc = -1;
  int64_t rows;
  if (desc_end(d) && !*desc_end(d) && valid(d, comps, ncomps, &k, 1, &rows) == 0 && k == ncomps &&
      (rows < 0 || rows == n)) {
    Show s = {b, 0, text[0] == 'o' ? SHOW_OBJECT : SHOW_STRING};
    for (int64_t r = 0; r < n; r++) {
      size_t before = b->len;
      fmt_val(&s, d, comps, 1, r);
      lens[r] = (int32_t)(b->len - before);
    }
    rc = 0;
  }
  free(d);
  return rc;
}

void lcu_float_text(NzBuf *b, int32_t *lens, const double *x, const int32_t *digits, const unsigned char *sci,
                    int64_t n) {
  for (int64_t r = 0; r < n; r++) {
    size_t before = b->len;
    /* __float_string(x, d, sci) of the AST interpreter (nesl_prims.c) */
    nz_float_string(b, x[r], sci[r] ? (digits[r] < 0 ? 1 : digits[r] + 1) : 8, sci[r] != 0);
    lens[r] = (int32_t)(b->len - before);
  }
}

/* ------------------------------------------------ object strings read back */

/* One growing column of the vector being read: elements of a base type, or the
 * segment lengths of a segdes. */
typedef struct {
  LcuTypeKind kind; /* LT_BOOL..LT_FLOAT, or LT_SEGDES */
  NzBuf b;
  int64_t n;
} Col;

typedef struct {
  const char *p, *end;
  Col *cols;
} Rd;

static void col_push(Col *c, const void *x, size_t size) {
  for (size_t i = 0; i < size; i++) nz_buf_putc(&c->b, ((const char *)x)[i]);
  c->n++;
}

static size_t kind_size(LcuTypeKind k) { return k == LT_FLOAT ? 8 : k == LT_INT || k == LT_SEGDES ? 4 : 1; }

/* Columns of the vector of d from cols[k] on: their kinds. */
static int col_kinds(const char *d, Col *cols, int k) {
  switch (*d) {
  case 'n': return k;
  case '[': cols[k].kind = LT_SEGDES; return col_kinds(d + 1, cols, k + 1);
  case '(': return col_kinds(desc_end(d + 1), cols, col_kinds(d + 1, cols, k));
  case 'd': return col_kinds(strchr(d, ';') + 1, cols, k);
  default: cols[k].kind = base_kind(*d); return k + 1;
  }
}

static void rd_space(Rd *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n')) r->p++;
}

/* An integer (a float when fl) at r->p, as strtol / strtod would read it. */
static bool rd_num(Rd *r, bool fl, long *i, double *f) {
  char tmp[64];
  size_t n = 0;
  while (r->p < r->end && (*r->p == ' ' || (*r->p >= '\t' && *r->p <= '\r'))) r->p++; /* as strtol */
  while (r->p + n < r->end && n < sizeof tmp - 1 && r->p[n] != ' ' && r->p[n] != '\n') n++;
  memcpy(tmp, r->p, n);
  tmp[n] = 0;
  char *e;
  if (fl) *f = strtod(tmp, &e);
  else *i = strtol(tmp, &e, 10);
  if (e == tmp) return false;
  r->p += e - tmp;
  return true;
}

/* Appends one value of d, read from the text, as a row of the columns from cols[k] on;
 * false if the text does not hold a value of d (NESL's read_object). */
static bool rd_val(Rd *r, const char *d, int k) {
  while (*d == 'd') d = strchr(d, ';') + 1;
  rd_space(r);
  if (r->p >= r->end) return false;
  char tag = *r->p++;
  long x;
  double f;
  switch (*d) {
  case 'i': case 'b': case 'c': {
    if (tag != *d || !rd_num(r, false, &x, NULL)) return false;
    if (*d == 'i') {
      int32_t v = (int32_t)x;
      col_push(&r->cols[k], &v, 4);
    } else {
      unsigned char v = *d == 'b' ? x != 0 : (unsigned char)x;
      col_push(&r->cols[k], &v, 1);
    }
    return true;
  }
  case 'f':
    if (tag != 'f' || !rd_num(r, true, NULL, &f)) return false;
    col_push(&r->cols[k], &f, 8);
    return true;
  case 'n': return tag == 'F';
  case '(':
    return tag == 'P' && rd_val(r, d + 1, k) && rd_val(r, desc_end(d + 1), k + ncomp(d + 1, 1));
  case '[': {
    long ek, n;
    if (tag != 'S' || !rd_num(r, false, &ek, NULL)) return false;
    rd_space(r);
    if (!rd_num(r, false, &n, NULL) || n < 0 || n > (1L << 28)) return false;
    int want = obj_elem_kind(d + 1);
    if (ek != want && !(want == 4 && ek == 4)) return false;
    int32_t len = (int32_t)n;
    col_push(&r->cols[k], &len, 4);
    for (long j = 0; j < n; j++)
      if (!rd_val(r, d + 1, k + 1)) return false;
    return true;
  }
  }
  return false;
}

/* Appends the identity of d (zeros, empty sequences; NESL's identity) as a row. */
static void rd_zero(const char *d, Col *cols, int k) {
  static const char zero[8];
  switch (*d) {
  case 'n': return;
  case '[': col_push(&cols[k], zero, 4); return;
  case '(':
    rd_zero(d + 1, cols, k);
    rd_zero(desc_end(d + 1), cols, k + ncomp(d + 1, 1));
    return;
  case 'd': rd_zero(strchr(d, ';') + 1, cols, k); return;
  default: col_push(&cols[k], zero, kind_size(cols[k].kind)); return;
  }
}

int lcu_read_objects(const char *text, size_t len, const LcuSegdes *sd, const LcuArray *cs, LcuValue *out,
                     int nout) {
  char *d = nz_xmalloc(len + 1);
  memcpy(d, text, len);
  d[len] = 0;
  if (!desc_end(d) || *desc_end(d) || sd->total != cs->len || ncomp(d, 1) != nout) {
    free(d);
    return -1;
  }
  int nc = ncomp(d, 1);
  Col *cols = nz_xcalloc((size_t)(nc ? nc : 1), sizeof *cols);
  col_kinds(d, cols, 0);
  size_t *mark = nz_xcalloc((size_t)(nc ? nc : 1), sizeof *mark);
  int64_t *nmark = nz_xcalloc((size_t)(nc ? nc : 1), sizeof *nmark);
  LcuArray *ok = lcu_array_new(LT_BOOL, sd->nsegs);
  for (int64_t row = 0; row < sd->nsegs; row++) {
    for (int k = 0; k < nc; k++) mark[k] = cols[k].b.len, nmark[k] = cols[k].n;
    Rd r = {(const char *)cs->d.b + sd->starts[row], (const char *)cs->d.b + sd->starts[row] + sd->lens[row], cols};
    ok->d.b[row] = rd_val(&r, d, 0);
    if (ok->d.b[row]) continue;
    /* the identity of the type instead (zeros, empty sequences), as the AST interpreter */
    for (int k = 0; k < nc; k++) cols[k].b.len = mark[k], cols[k].n = nmark[k];
    rd_zero(d, cols, 0);
  }
  for (int k = 0; k < nc; k++) {
    if (cols[k].kind == LT_SEGDES) {
      out[k] = (LcuValue){.kind = LT_SEGDES, .u.sd = lcu_segdes_new((const int32_t *)cols[k].b.s, cols[k].n)};
    } else {
      LcuArray *a = lcu_array_new(cols[k].kind, cols[k].n);
      if (cols[k].b.len) memcpy(a->d.b, cols[k].b.s, cols[k].b.len);
      out[k] = (LcuValue){.kind = LT_ARRAY, .u.arr = a};
    }
    nz_buf_free(&cols[k].b);
  }
  out[nc] = (LcuValue){.kind = LT_ARRAY, .u.arr = ok};
  free(cols);
  free(mark);
  free(nmark);
  free(d);
  return 0;
}
