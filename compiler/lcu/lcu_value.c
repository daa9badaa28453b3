/* lcu_value.c — run-time values of the λcu interpreter: reference-counted
 * arrays and segment descriptors, tuples, the stable printed form shared by
 * every backend's output, the command-line literal parser and random inputs. */
#include "lcu.h"
#include <math.h>

/* ------------------------------------------------------------ allocation */

static size_t elem_size(LcuTypeKind k) {
  switch (k) {
  case LT_BOOL: case LT_CHAR: return 1;
  case LT_INT: return 4;
  case LT_FLOAT: return 8;
  default: nz_die("lcu_array_new: arrays hold base types only (%d)", (int)k);
  }
}

LcuArray *lcu_array_new(LcuTypeKind elem, int64_t len) {
  if (len < 0) nz_die("lcu_array_new: negative length %lld", (long long)len);
  LcuArray *a = nz_xmalloc(sizeof *a);
  a->refs = 1;
  a->elem = elem;
  a->len = len;
  a->d.b = nz_xcalloc((size_t)(len ? len : 1), elem_size(elem));
  return a;
}

LcuSegdes *lcu_segdes_new(const int32_t *lens, int64_t nsegs) {
  int64_t total = 0;
  for (int64_t j = 0; j < nsegs; j++) {
    if (lens[j] < 0) return NULL;
    total += lens[j];
  }
  LcuSegdes *s = nz_xmalloc(sizeof *s);
  s->refs = 1;
  s->nsegs = nsegs;
  s->total = total;
  s->lens = nz_xmalloc(sizeof(int32_t) * (size_t)(nsegs ? nsegs : 1));
  s->starts = nz_xmalloc(sizeof(int64_t) * (size_t)(nsegs + 1));
  s->segof = nz_xmalloc(sizeof(int32_t) * (size_t)(total ? total : 1));
  int64_t at = 0;
  for (int64_t j = 0; j < nsegs; j++) {
    s->lens[j] = lens[j];
    s->starts[j] = at;
    for (int32_t k = 0; k < lens[j]; k++) s->segof[at + k] = (int32_t)j;
    at += lens[j];
  }
  s->starts[nsegs] = total;
  return s;
}

/* Tuples are never shared: each LcuValue of kind LT_TUPLE owns its component
 * block, so copying one means a fresh block (lcu_value_copy), not a retain. */
void lcu_value_retain(LcuValue v) {
  switch (v.kind) {
  case LT_ARRAY: v.u.arr->refs++; break;
  case LT_SEGDES: v.u.sd->refs++; break;
  case LT_TUPLE:
    if (v.u.tup.n) nz_die("lcu_value_retain: tuples own their components; use lcu_value_copy");
    break;
  default: break;
  }
}

void lcu_value_release(LcuValue v) {
  switch (v.kind) {
  case LT_ARRAY:
    if (--v.u.arr->refs == 0) {
      free(v.u.arr->d.b);
      free(v.u.arr);
    }
    break;
  case LT_SEGDES:
    if (--v.u.sd->refs == 0) {
      free(v.u.sd->lens);
      free(v.u.sd->starts);
      free(v.u.sd->segof);
      free(v.u.sd);
    }
    break;
  case LT_TUPLE:
    for (int i = 0; i < v.u.tup.n; i++) lcu_value_release(v.u.tup.elems[i]);
    free(v.u.tup.elems);
    break;
  default: break;
  }
}

LcuValue lcu_value_tuple(int n, const LcuValue *elems) {
  if (n == 1) return elems[0];
  LcuValue v = {.kind = LT_TUPLE};
  v.u.tup.n = n;
  v.u.tup.elems = NULL;
  if (n) {
    v.u.tup.elems = nz_xmalloc(sizeof(LcuValue) * (size_t)n);
    memcpy(v.u.tup.elems, elems, sizeof(LcuValue) * (size_t)n);
  }
  return v;
}

LcuValue lcu_value_copy(LcuValue v) {
  if (v.kind != LT_TUPLE) {
    lcu_value_retain(v);
    return v;
  }
  LcuValue c = lcu_value_tuple(v.u.tup.n, v.u.tup.elems);
  for (int i = 0; i < c.u.tup.n; i++) lcu_value_retain(c.u.tup.elems[i]);
  return c;
}

LcuValue lcu_value_int(int32_t x) {
  LcuValue v = {.kind = LT_INT};
  v.u.i = x;
  return v;
}

LcuValue lcu_value_float(double x) {
  LcuValue v = {.kind = LT_FLOAT};
  v.u.f = x;
  return v;
}

LcuValue lcu_value_bool(int x) {
  LcuValue v = {.kind = LT_BOOL};
  v.u.b = x != 0;
  return v;
}

LcuValue lcu_value_char(unsigned char x) {
  LcuValue v = {.kind = LT_CHAR};
  v.u.c = x;
  return v;
}

/* -------------------------------------------------------------- printing */

/* Shortest decimal that reads back as the same double, in NESL's layout. */
void lcu_float_print(NzBuf *b, double x) { nz_float_print(b, x, 0); }

static void print_elem(NzBuf *b, const LcuArray *a, int64_t i) {
  switch (a->elem) {
  case LT_BOOL: nz_buf_putc(b, a->d.b[i] ? 'T' : 'F'); break;
  case LT_CHAR:
    nz_buf_putc(b, '`');
    nz_buf_putc(b, (char)a->d.b[i]);
    break;
  case LT_INT: nz_buf_printf(b, "%d", a->d.i[i]); break;
  case LT_FLOAT: lcu_float_print(b, a->d.f[i]); break;
  default: nz_die("lcu_value_print: bad array element kind %d", (int)a->elem);
  }
}

void lcu_value_print(NzBuf *b, LcuValue v) {
  switch (v.kind) {
  case LT_BOOL: nz_buf_putc(b, v.u.b ? 'T' : 'F'); break;
  case LT_CHAR:
    nz_buf_putc(b, '`');
    nz_buf_putc(b, (char)v.u.c);
    break;
  case LT_INT: nz_buf_printf(b, "%d", v.u.i); break;
  case LT_FLOAT: lcu_float_print(b, v.u.f); break;
  case LT_ARRAY:
    nz_buf_putc(b, '[');
    for (int64_t i = 0; i < v.u.arr->len; i++) {
      if (i) nz_buf_puts(b, ", ");
      print_elem(b, v.u.arr, i);
    }
    nz_buf_putc(b, ']');
    break;
  case LT_SEGDES:
    nz_buf_puts(b, "segdes[");
    for (int64_t j = 0; j < v.u.sd->nsegs; j++) nz_buf_printf(b, j ? ", %d" : "%d", v.u.sd->lens[j]);
    nz_buf_putc(b, ']');
    break;
  case LT_TUPLE:
    nz_buf_putc(b, '(');
    for (int i = 0; i < v.u.tup.n; i++) {
      if (i) nz_buf_puts(b, ", ");
      lcu_value_print(b, v.u.tup.elems[i]);
    }
    nz_buf_putc(b, ')');
    break;
  }
}

/* --------------------------------------------------------------- parsing */

/* Recursive descent over the text, driven by the expected type. Errors set
 * `err` and unwind by return value; partially built values are released. */
typedef struct {
  const char *text, *p;
  const char *what;
  int failed;
} Parser;

static void skip_ws(Parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static int fail(Parser *ps, const char *expected) {
  if (!ps->failed) {
    char found[40];
    if (!*ps->p) {
      snprintf(found, sizeof found, "the end");
    } else {
      snprintf(found, sizeof found, "'%.12s%s'", ps->p, strlen(ps->p) > 12 ? "..." : "");
    }
    nz_error("%s: expected %s, found %s (at offset %d of \"%s\")", ps->what, expected, found,
             (int)(ps->p - ps->text), ps->text);
  }
  ps->failed = 1;
  return -1;
}

static int accept(Parser *ps, char c) {
  skip_ws(ps);
  if (*ps->p != c) return 0;
  ps->p++;
  return 1;
}

static int word_is(Parser *ps, const char *w) {
  size_t n = strlen(w);
  if (strncmp(ps->p, w, n)) return 0;
  char c = ps->p[n];
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
    return 0;
  ps->p += n;
  return 1;
}

static int parse_int(Parser *ps, int32_t *out) {
  skip_ws(ps);
  const char *s = ps->p;
  if (*s == '-' || *s == '+') s++;
  if (!(*s >= '0' && *s <= '9')) return fail(ps, "an int");
  while (*s >= '0' && *s <= '9') s++;
  if (*s == '.' || *s == 'e' || *s == 'E') return fail(ps, "an int (no fraction or exponent)");
  char *end;
  long long v = strtoll(ps->p, &end, 10);
  if (end != s || v < INT32_MIN || v > INT32_MAX) return fail(ps, "an int in the 32-bit range");
  ps->p = s;
  *out = (int32_t)v;
  return 0;
}

static int parse_float(Parser *ps, double *out) {
  skip_ws(ps);
  const char *s = ps->p;
  int neg = 0;
  if (*s == '-' || *s == '+') neg = *s++ == '-';
  Parser probe = *ps;
  probe.p = s;
  if (word_is(&probe, "inf")) {
    ps->p = probe.p;
    *out = neg ? -INFINITY : INFINITY;
    return 0;
  }
  if (word_is(&probe, "nan")) {
    ps->p = probe.p;
    *out = NAN;
    return 0;
  }
  /* digits [. digits] [(e|E) [sign] digits]: a plain decimal, so strtod's
   * hexadecimal and "infinity" forms are not accepted by accident. */
  int nd = 0;
  while (*s >= '0' && *s <= '9') s++, nd++;
  if (*s == '.') {
    s++;
    while (*s >= '0' && *s <= '9') s++, nd++;
  }
  if (!nd) return fail(ps, "a float");
  if (*s == 'e' || *s == 'E') {
    const char *e = s + 1;
    if (*e == '-' || *e == '+') e++;
    if (!(*e >= '0' && *e <= '9')) return fail(ps, "a float");
    while (*e >= '0' && *e <= '9') e++;
    s = e;
  }
  *out = strtod(ps->p, NULL);
  ps->p = s;
  return 0;
}

static int parse_bool(Parser *ps, int *out) {
  skip_ws(ps);
  static const char *words[] = {"true", "false", "T", "F", "t", "f"};
  for (int i = 0; i < 6; i++)
    if (word_is(ps, words[i])) {
      *out = i % 2 == 0;
      return 0;
    }
  return fail(ps, "a bool (T, F, t, f, true, false)");
}

static int parse_char(Parser *ps, unsigned char *out) {
  skip_ws(ps);
  const char *s = ps->p;
  if (s[0] == '`' && s[1]) {
    *out = (unsigned char)s[1];
    ps->p = s + 2;
    return 0;
  }
  if (s[0] == '\'' && s[1] == '\\' && s[2] && s[3] == '\'') {
    const char *esc = "n\nt\tr\r0\0\\\\''";
    for (int i = 0; i < 12; i += 2)
      if (s[2] == esc[i]) {
        *out = (unsigned char)esc[i + 1];
        ps->p = s + 4;
        return 0;
      }
  } else if (s[0] == '\'' && s[1] && s[2] == '\'') {
    *out = (unsigned char)s[1];
    ps->p = s + 3;
    return 0;
  }
  return fail(ps, "a char (`a or 'a')");
}

static int parse_value(Parser *ps, const LcuType *ty, LcuValue *out);

static int parse_array(Parser *ps, LcuTypeKind elem, LcuValue *out) {
  if (!accept(ps, '[')) return fail(ps, "'['");
  NZ_VEC(LcuValue) items = {0};
  if (!accept(ps, ']')) {
    do {
      LcuValue v;
      if (parse_value(ps, lcu_type_base(elem), &v)) {
        nz_vec_free(items);
        return -1;
      }
      nz_vec_push(items, v);
    } while (accept(ps, ','));
    if (!accept(ps, ']')) {
      nz_vec_free(items);
      return fail(ps, "',' or ']'");
    }
  }
  LcuArray *a = lcu_array_new(elem, items.n);
  for (int i = 0; i < items.n; i++) {
    switch (elem) {
    case LT_BOOL: a->d.b[i] = (unsigned char)items.v[i].u.b; break;
    case LT_CHAR: a->d.b[i] = items.v[i].u.c; break;
    case LT_INT: a->d.i[i] = items.v[i].u.i; break;
    default: a->d.f[i] = items.v[i].u.f; break;
    }
  }
  nz_vec_free(items);
  out->kind = LT_ARRAY;
  out->u.arr = a;
  return 0;
}

static int parse_segdes(Parser *ps, LcuValue *out) {
  skip_ws(ps);
  if (!word_is(ps, "segdes")) return fail(ps, "a segment descriptor segdes[n, ...]");
  if (!accept(ps, '[')) return fail(ps, "'['");
  NZ_VEC(int32_t) lens = {0};
  if (!accept(ps, ']')) {
    do {
      int32_t n;
      skip_ws(ps);
      if (*ps->p == '-' || parse_int(ps, &n)) {
        nz_vec_free(lens);
        return fail(ps, "a segment length (an int >= 0)");
      }
      nz_vec_push(lens, n);
    } while (accept(ps, ','));
    if (!accept(ps, ']')) {
      nz_vec_free(lens);
      return fail(ps, "',' or ']'");
    }
  }
  /* Refused before allocating: a descriptor's tables take 4 bytes per element. */
  int64_t total = 0;
  for (int i = 0; i < lens.n; i++) total += lens.v[i];
  if (total > LCU_SEGDES_MAX_TOTAL) {
    nz_error("%s: segdes[...] describes %lld elements, more than the limit of %lld (at offset %d of \"%.40s%s\")",
             ps->what, (long long)total, (long long)LCU_SEGDES_MAX_TOTAL, (int)(ps->p - ps->text), ps->text,
             strlen(ps->text) > 40 ? "..." : "");
    ps->failed = 1;
    nz_vec_free(lens);
    return -1;
  }
  out->kind = LT_SEGDES;
  out->u.sd = lcu_segdes_new(lens.v, lens.n);
  nz_vec_free(lens);
  return 0;
}

static int parse_value(Parser *ps, const LcuType *ty, LcuValue *out) {
  LcuValue v = {.kind = ty->kind};
  switch (ty->kind) {
  case LT_INT:
    if (parse_int(ps, &v.u.i)) return -1;
    break;
  case LT_FLOAT:
    if (parse_float(ps, &v.u.f)) return -1;
    break;
  case LT_BOOL:
    if (parse_bool(ps, &v.u.b)) return -1;
    break;
  case LT_CHAR:
    if (parse_char(ps, &v.u.c)) return -1;
    break;
  case LT_ARRAY:
    if (parse_array(ps, ty->elem, &v)) return -1;
    break;
  case LT_SEGDES:
    if (parse_segdes(ps, &v)) return -1;
    break;
  case LT_TUPLE: {
    if (!accept(ps, '(')) return fail(ps, "'(' starting a tuple");
    LcuValue *elems = nz_xcalloc((size_t)(ty->n ? ty->n : 1), sizeof(LcuValue));
    for (int i = 0; i < ty->n; i++) {
      if ((i && !accept(ps, ',') && fail(ps, "','")) || parse_value(ps, ty->elems[i], &elems[i])) {
        for (int j = 0; j < i; j++) lcu_value_release(elems[j]);
        free(elems);
        return -1;
      }
    }
    if (!accept(ps, ')')) {
      for (int j = 0; j < ty->n; j++) lcu_value_release(elems[j]);
      free(elems);
      return fail(ps, ty->n ? "')' closing the tuple" : "')' (the unit value is ())");
    }
    v.u.tup.n = ty->n;
    v.u.tup.elems = ty->n ? elems : NULL;
    if (!ty->n) free(elems);
    break;
  }
  }
  *out = v;
  return 0;
}

int lcu_value_parse(const char *text, const LcuType *ty, LcuValue *out, const char *what) {
  char tyname[128];
  NzBuf tb = {0};
  lcu_type_print(&tb, ty);
  snprintf(tyname, sizeof tyname, "%s of type %s", what, tb.s ? tb.s : "?");
  nz_buf_free(&tb);
  Parser ps = {text, text, tyname, 0};
  LcuValue v;
  if (parse_value(&ps, ty, &v)) return -1;
  skip_ws(&ps);
  if (*ps.p) {
    lcu_value_release(v);
    return fail(&ps, "the end of the value");
  }
  *out = v;
  return 0;
}

/* ------------------------------------------------------------ random values */

/* Random inputs for property tests, deterministic in rng->state (splitmix64):
 *   int    uniform in [-50, 50], so sums and products of a few stay readable;
 *   float  k / 4 with k uniform in [-200, 200]: a quarter step in [-50, 50],
 *          exact in binary so sums do not depend on the order of addition;
 *   bool   T or F with equal odds;  char  'a'..'z';
 *   array  length uniform in [0, maxlen], elements as above;
 *   segdes a number of segments uniform in [0, maxlen], each of length
 *          uniform in [0, 4] but cut so the total stays <= 2 * maxlen
 *          (so empty segments are common);
 *   tuple  its components in order. */
static uint64_t rng_next(LcuRng *r) {
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int64_t rng_range(LcuRng *r, int64_t lo, int64_t hi) {
  return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

static LcuValue random_base(LcuRng *r, LcuTypeKind k) {
  switch (k) {
  case LT_INT: return lcu_value_int((int32_t)rng_range(r, -50, 50));
  case LT_FLOAT: return lcu_value_float((double)rng_range(r, -200, 200) / 4.0);
  case LT_BOOL: return lcu_value_bool((int)(rng_next(r) >> 63));
  case LT_CHAR: return lcu_value_char((unsigned char)rng_range(r, 'a', 'z'));
  default: nz_die("random_base: not a base type (%d)", (int)k);
  }
}

LcuValue lcu_value_random(LcuRng *rng, const LcuType *ty) {
  int64_t maxlen = rng->maxlen < 0 ? 0 : rng->maxlen;
  switch (ty->kind) {
  case LT_ARRAY: {
    int64_t n = rng_range(rng, 0, maxlen);
    LcuArray *a = lcu_array_new(ty->elem, n);
    for (int64_t i = 0; i < n; i++) {
      LcuValue e = random_base(rng, ty->elem);
      switch (ty->elem) {
      case LT_BOOL: a->d.b[i] = (unsigned char)e.u.b; break;
      case LT_CHAR: a->d.b[i] = e.u.c; break;
      case LT_INT: a->d.i[i] = e.u.i; break;
      default: a->d.f[i] = e.u.f; break;
      }
    }
    LcuValue v = {.kind = LT_ARRAY};
    v.u.arr = a;
    return v;
  }
  case LT_SEGDES: {
    int64_t n = rng_range(rng, 0, maxlen), budget = 2 * maxlen;
    int32_t *lens = nz_xmalloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    for (int64_t j = 0; j < n; j++) {
      int64_t l = rng_range(rng, 0, 4);
      if (l > budget) l = budget;
      budget -= l;
      lens[j] = (int32_t)l;
    }
    LcuValue v = {.kind = LT_SEGDES};
    v.u.sd = lcu_segdes_new(lens, n);
    free(lens);
    return v;
  }
  case LT_TUPLE: {
    LcuValue v = {.kind = LT_TUPLE};
    v.u.tup.n = ty->n;
    v.u.tup.elems = ty->n ? nz_xmalloc(sizeof(LcuValue) * (size_t)ty->n) : NULL;
    for (int i = 0; i < ty->n; i++) v.u.tup.elems[i] = lcu_value_random(rng, ty->elems[i]);
    return v;
  }
  default: return random_base(rng, ty->kind);
  }
}
