/* nesl_prims.c — the primitive set under the NESL basis (basis/README.md): scalar
 * operations, the sequence primitives of NESL.md §6.4, the type-generic functions that
 * need a case on the type (eql, hash, identity, @), and I/O. Everything else in the basis
 * is NESL source over these. Each primitive receives its argument tuple's components. */
#include "nesl.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#define A0 a[0]
#define A1 a[1]
#define A2 a[2]
#define A3 a[3]

static NlVal vint(int32_t i) { return (NlVal){.k = V_INT, .i = i}; }
static NlVal vbool(bool b) { return (NlVal){.k = V_BOOL, .i = b}; }
static NlVal vchar(int c) { return (NlVal){.k = V_CHAR, .i = c & 255}; }
static NlVal vfloat(double f) {
  NlVal v = {.k = V_FLOAT};
  v.f = f;
  return v;
}
static NlVal vseq(NlSeq *s) {
  NlVal v = {.k = V_SEQ};
  v.s = s;
  return v;
}
static double fl(NlVal v) { return v.k == V_FLOAT ? v.f : (double)v.i; }
static bool isf(NlVal x, NlVal y) { return x.k == V_FLOAT || y.k == V_FLOAT; }
static int32_t wrap(int64_t x) { return (int32_t)(uint32_t)(uint64_t)x; }

static NlVal str_val(const char *s, size_t n) {
  NlSeq *q = nesl_seq_new(EK_CHAR, (int)n);
  memcpy(q->b, s, n);
  return vseq(q);
}
static char *cstr(NlVal s) { /* a NUL-terminated copy in the run-time heap */
  char *c = nesl_rt_alloc((size_t)s.s->n + 1);
  memcpy(c, s.s->b, (size_t)s.s->n);
  c[s.s->n] = 0;
  return c;
}

/* ---------- scalars ---------- */
static NlVal p_add(NlVal *a) { return isf(A0, A1) ? vfloat(fl(A0) + fl(A1)) : vint(wrap((int64_t)A0.i + A1.i)); }
static NlVal p_sub(NlVal *a) { return isf(A0, A1) ? vfloat(fl(A0) - fl(A1)) : vint(wrap((int64_t)A0.i - A1.i)); }
static NlVal p_mul(NlVal *a) { return isf(A0, A1) ? vfloat(fl(A0) * fl(A1)) : vint(wrap((int64_t)A0.i * A1.i)); }
static NlVal p_div(NlVal *a) {
  if (isf(A0, A1)) {
    if (fl(A1) == 0) nesl_rt_error("Divide by zero.");
    return vfloat(fl(A0) / fl(A1));
  }
  if (A1.i == 0) nesl_rt_error("Divide by zero.");
  if (A1.i == -1) return vint(wrap(-(int64_t)A0.i));
  return vint(A0.i / A1.i);
}
static NlVal p_neg(NlVal *a) { return A0.k == V_FLOAT ? vfloat(-A0.f) : vint(wrap(-(int64_t)A0.i)); }
static int cmp(NlVal x, NlVal y) {
  if (isf(x, y)) return fl(x) < fl(y) ? -1 : fl(x) > fl(y) ? 1 : 0;
  return x.i < y.i ? -1 : x.i > y.i;
}
static NlVal p_eq(NlVal *a) { return vbool(isf(A0, A1) ? fl(A0) == fl(A1) : A0.i == A1.i); }
static NlVal p_ne(NlVal *a) { return vbool(isf(A0, A1) ? fl(A0) != fl(A1) : A0.i != A1.i); }
static NlVal p_lt(NlVal *a) { return vbool(cmp(A0, A1) < 0 && !(isf(A0, A1) && (isnan(fl(A0)) || isnan(fl(A1))))); }
static NlVal p_gt(NlVal *a) { return vbool(isf(A0, A1) ? fl(A0) > fl(A1) : A0.i > A1.i); }
static NlVal p_le(NlVal *a) { return vbool(isf(A0, A1) ? fl(A0) <= fl(A1) : A0.i <= A1.i); }
static NlVal p_ge(NlVal *a) { return vbool(isf(A0, A1) ? fl(A0) >= fl(A1) : A0.i >= A1.i); }
static NlVal p_not(NlVal *a) { return A0.k == V_BOOL ? vbool(!A0.i) : vint(~A0.i); }
static NlVal p_and(NlVal *a) { return A0.k == V_BOOL ? vbool(A0.i && A1.i) : vint(A0.i & A1.i); }
static NlVal p_or(NlVal *a) { return A0.k == V_BOOL ? vbool(A0.i || A1.i) : vint(A0.i | A1.i); }
static NlVal p_xor(NlVal *a) { return A0.k == V_BOOL ? vbool(A0.i != A1.i) : vint(A0.i ^ A1.i); }
static NlVal p_rem(NlVal *a) {
  if (A1.i == 0) nesl_rt_error("Divide by zero in function REM.");
  if (A1.i == -1) return vint(0);
  return vint(A0.i % A1.i);
}
static NlVal p_mod(NlVal *a) {
  if (A1.i == 0) nesl_rt_error("Divide by zero in function MOD.");
  if (A1.i == -1) return vint(0);
  int32_t r = A0.i % A1.i;
  if (r != 0 && ((r < 0) != (A1.i < 0))) r += A1.i;
  return vint(r);
}
static NlVal p_lshift(NlVal *a) { return vint(A1.i >= 32 || A1.i < 0 ? 0 : (int32_t)((uint32_t)A0.i << A1.i)); }
static NlVal p_rshift(NlVal *a) { return vint(A1.i >= 32 || A1.i < 0 ? (A0.i < 0 ? -1 : 0) : A0.i >> A1.i); }
static NlVal p_sqrt(NlVal *a) {
  if (A0.f < 0) nesl_rt_error("Sqrt of negative number.");
  return vfloat(sqrt(A0.f));
}
static NlVal p_ln(NlVal *a) {
  if (A0.f < 0) nesl_rt_error("Ln of negative number.");
  return vfloat(log(A0.f));
}
#define F1(name, expr)                                                                         \
  static NlVal name(NlVal *a) { return vfloat(expr); }
F1(p_exp, exp(A0.f))
F1(p_sin, sin(A0.f))
F1(p_cos, cos(A0.f))
F1(p_tan, tan(A0.f))
F1(p_asin, asin(A0.f))
F1(p_acos, acos(A0.f))
F1(p_atan, atan(A0.f))
F1(p_sinh, sinh(A0.f))
F1(p_cosh, cosh(A0.f))
F1(p_tanh, tanh(A0.f))
F1(p_float, (double)A0.i)
static int32_t f2i(double x) {
  if (!(x > -2147483649.0 && x < 2147483648.0)) nesl_rt_error("Float %g does not fit in an int.", x);
  return (int32_t)x;
}
static NlVal p_btoi(NlVal *a) { return vint(A0.i); }
static NlVal p_ceil(NlVal *a) { return vint(f2i(ceil(A0.f))); }
static NlVal p_floor(NlVal *a) { return vint(f2i(floor(A0.f))); }
static NlVal p_trunc(NlVal *a) { return vint(f2i(trunc(A0.f))); }
/* Round to nearest, halves away from zero (the reference's (int)(x + 0.5) is wrong for
 * negative numbers; NESL.md §4.3 asks a new implementation to round to nearest). */
static NlVal p_round(NlVal *a) { return vint(f2i(round(A0.f))); }
static NlVal p_code_char(NlVal *a) { return vchar(A0.i); }
static NlVal p_char_code(NlVal *a) { return vint(A0.i); }

/* rand: compiler/common/rand.c (shared with the λcu interpreter and the runtime),
 * reseeded before every top-level form (as the reference does). */
void nesl_prims_reseed(void) { nz_rand_seed(0); }
static NlVal p_rand(NlVal *a) {
  if (A0.k == V_FLOAT) {
    if (!(A0.f > 0)) nesl_rt_error("Rand only works with positive numbers.");
    return vfloat(nz_rand_float(A0.f));
  }
  if (A0.i <= 0) nesl_rt_error("Rand only works with positive numbers.");
  return vint(nz_rand_int(A0.i));
}
static NlVal p_rand_seed(NlVal *a) {
  nz_rand_seed(A0.i);
  return vbool(true);
}

/* ---------- sequences ---------- */
static int esz(const NlSeq *s) { return nesl_esize(s->ek); }
static unsigned char *eptr(const NlSeq *s, int i) { return (unsigned char *)s->v + (size_t)i * (size_t)esz(s); }

static NlVal p_length(NlVal *a) { return vint(A0.s->n); }
static NlVal p_dist(NlVal *a) {
  int n = A1.i < 0 ? 0 : A1.i;
  int ek = A0.k <= V_CHAR ? (int)A0.k : EK_BOXED; /* V_INT..V_CHAR match EK_INT..EK_CHAR */
  NlSeq *s = nesl_seq_new(ek, n);
  for (int i = 0; i < n; i++) nesl_seq_set(s, i, A0);
  return vseq(s);
}
static NlVal p_iseq(NlVal *a) {
  int32_t s = A0.i, d = A1.i, e = A2.i;
  if (d < 1 || s > e) nesl_rt_error("In [s:e:l], e must be >= to s, and l must be positive.");
  int64_t n = ((int64_t)e - s + d - 1) / d;
  if (n > (1 << 29)) nesl_rt_error("Sequence too long (%lld elements).", (long long)n);
  NlSeq *q = nesl_seq_new(EK_INT, (int)n);
  for (int64_t i = 0; i < n; i++) q->i[i] = (int32_t)(s + i * d);
  return vseq(q);
}
static NlVal p_elt(NlVal *a) {
  if (A1.i < 0 || A1.i >= A0.s->n) nesl_rt_error("Sequence reference (a[i]) out of bounds.");
  return nesl_seq_get(A0.s, A1.i);
}
static NlSeq *copy_seq(const NlSeq *s) {
  NlSeq *r = nesl_seq_new(s->ek, s->n);
  memcpy(r->v, s->v, (size_t)s->n * (size_t)esz(s));
  return r;
}
static NlVal p_rep(NlVal *a) {
  NlSeq *r = copy_seq(A0.s);
  if (A2.i >= 0 && A2.i < r->n) nesl_seq_set(r, A2.i, A1);
  return vseq(r);
}

/* scans and reductions, by operator */
enum { OP_ADD, OP_MUL, OP_MAX, OP_MIN, OP_OR, OP_AND, OP_XOR };
static NlVal identity_of(int op, int ek) {
  bool f = ek == EK_FLOAT;
  switch (op) {
  case OP_ADD: return f ? vfloat(0) : vint(0);
  case OP_MUL: return f ? vfloat(1) : vint(1);
  case OP_MAX:
    return f ? vfloat(-(double)1e36f) : ek == EK_CHAR ? vchar(0) : vint(INT32_MIN);
  case OP_MIN:
    return f ? vfloat((double)1e36f) : ek == EK_CHAR ? vchar(255) : vint(INT32_MAX);
  case OP_OR:
  case OP_XOR: return ek == EK_BOOL ? vbool(false) : vint(0);
  case OP_AND: return ek == EK_BOOL ? vbool(true) : vint(-1);
  }
  return vint(0);
}
static NlVal combine(int op, NlVal x, NlVal y) {
  NlVal a[2] = {x, y};
  switch (op) {
  case OP_ADD: return p_add(a);
  case OP_MUL: return p_mul(a);
  case OP_MAX: return cmp(x, y) >= 0 ? x : y;
  case OP_MIN: return cmp(x, y) <= 0 ? x : y;
  case OP_OR: return p_or(a);
  case OP_AND: return p_and(a);
  default: return p_xor(a);
  }
}
static NlVal scan(int op, NlSeq *s) {
  NlSeq *r = nesl_seq_new(s->ek, s->n);
  if (s->ek == EK_INT && op == OP_ADD) {
    uint32_t acc = 0;
    for (int i = 0; i < s->n; i++) {
      r->i[i] = (int32_t)acc;
      acc += (uint32_t)s->i[i];
    }
    return vseq(r);
  }
  if (s->ek == EK_FLOAT && op == OP_ADD) {
    double acc = 0;
    for (int i = 0; i < s->n; i++) {
      r->f[i] = acc;
      acc += s->f[i];
    }
    return vseq(r);
  }
  NlVal acc = identity_of(op, s->ek);
  for (int i = 0; i < s->n; i++) {
    nesl_seq_set(r, i, acc);
    acc = combine(op, acc, nesl_seq_get(s, i));
  }
  return vseq(r);
}
static NlVal reduce(int op, NlSeq *s) {
  if (s->ek == EK_INT && op == OP_ADD) {
    uint32_t acc = 0;
    for (int i = 0; i < s->n; i++) acc += (uint32_t)s->i[i];
    return vint((int32_t)acc);
  }
  if (s->ek == EK_FLOAT && op == OP_ADD) {
    double acc = 0;
    for (int i = 0; i < s->n; i++) acc += s->f[i];
    return vfloat(acc);
  }
  NlVal acc = identity_of(op, s->ek);
  for (int i = 0; i < s->n; i++) acc = combine(op, acc, nesl_seq_get(s, i));
  return acc;
}
#define SCANRED(op, OPC)                                                                       \
  static NlVal p_##op##_scan(NlVal *a) { return scan(OPC, A0.s); }                           \
  static NlVal p_##op##_reduce(NlVal *a) { return reduce(OPC, A0.s); }
SCANRED(plus, OP_ADD)
SCANRED(mult, OP_MUL)
SCANRED(max, OP_MAX)
SCANRED(min, OP_MIN)
SCANRED(or, OP_OR)
SCANRED(and, OP_AND)
SCANRED(xor, OP_XOR)

static NlVal p_permute(NlVal *a) {
  NlSeq *v = A0.s, *ix = A1.s;
  if (v->n != ix->n) nesl_rt_error("Bad arguments to function PERMUTE.");
  /* The indices must be a permutation: a repeated one is reported as one out of range
   * (the reference does not check, and the flattened paths would otherwise differ), so
   * every path gives the same message. The marks live in a buffer kept between calls
   * (an error longjmps out of here). */
  static uint64_t *seen;
  static size_t nseen;
  size_t words = ((size_t)v->n + 63) / 64;
  if (words > nseen) {
    seen = nz_xrealloc(seen, words * sizeof *seen);
    nseen = words;
  }
  if (words) memset(seen, 0, words * sizeof *seen); /* seen is NULL until a first non-empty permute */
  for (int k = 0; k < v->n; k++) {
    int j = ix->i[k];
    if (j < 0 || j >= v->n || (seen[j >> 6] >> (j & 63) & 1)) nesl_rt_error("Bad arguments to function PERMUTE.");
    seen[j >> 6] |= (uint64_t)1 << (j & 63);
  }
  NlSeq *r = nesl_seq_new(v->ek, v->n);
  int sz = esz(v);
  for (int k = 0; k < v->n; k++) memcpy(eptr(r, ix->i[k]), eptr(v, k), (size_t)sz);
  return vseq(r);
}
static NlVal p_read(NlVal *a) {
  NlSeq *v = A0.s, *ix = A1.s;
  NlSeq *r = nesl_seq_new(v->ek, ix->n);
  int sz = esz(v);
  for (int k = 0; k < ix->n; k++) {
    int j = ix->i[k];
    if (j < 0 || j >= v->n) nesl_rt_error("Index out of bounds for function ->.");
    memcpy(eptr(r, k), eptr(v, j), (size_t)sz);
  }
  return vseq(r);
}
/* put(v, i, d): d with d[i[k]] = v[k]. Out-of-range indices are ignored (unchecked in
 * the reference); write checks them in the basis. */
static NlVal p_put(NlVal *a) {
  NlSeq *v = A0.s, *ix = A1.s, *d = A2.s;
  NlSeq *r = copy_seq(d);
  if (v->n && d->ek != v->ek) { /* d of unknown kind (empty-built); rebuild */
    r = nesl_seq_new(v->ek, d->n);
    for (int i = 0; i < d->n; i++) nesl_seq_set(r, i, nesl_seq_get(d, i));
  }
  int n = v->n < ix->n ? v->n : ix->n;
  for (int k = 0; k < n; k++) {
    int j = ix->i[k];
    if (j >= 0 && j < r->n) nesl_seq_set(r, j, nesl_seq_get(v, k));
  }
  return vseq(r);
}
/* append(a, b): a ++ b, copied whole. A sequence built empty-first may be boxed while the
 * other holds scalars; then the scalar kind wins and elements are copied one by one. */
static NlVal p_append(NlVal *a) {
  NlSeq *x = A0.s, *y = A1.s;
  if (x->n == 0) return A1;
  if (y->n == 0) return A0;
  int ek = x->ek == EK_BOXED ? y->ek : x->ek;
  NlSeq *r = nesl_seq_new(ek, x->n + y->n);
  if (x->ek == ek && y->ek == ek) {
    memcpy(r->v, x->v, (size_t)x->n * (size_t)esz(x));
    memcpy(eptr(r, x->n), y->v, (size_t)y->n * (size_t)esz(y));
  } else {
    for (int i = 0; i < x->n; i++) nesl_seq_set(r, i, nesl_seq_get(x, i));
    for (int i = 0; i < y->n; i++) nesl_seq_set(r, x->n + i, nesl_seq_get(y, i));
  }
  return vseq(r);
}
static NlVal p_pack(NlVal *a) {
  NlSeq *v = A0.s;
  int m = 0;
  NlVal *tmp = nesl_rt_alloc(sizeof(NlVal) * (size_t)(v->n ? v->n : 1));
  for (int k = 0; k < v->n; k++)
    if (v->v[k].p->b.i) tmp[m++] = v->v[k].p->a;
  return nesl_seq_from_vals(tmp, m, -1);
}
/* pack over two sequences (values, flags): keeps unboxed storage */
static NlVal p_pack2(NlVal *a) {
  NlSeq *v = A0.s, *f = A1.s;
  if (v->n != f->n) nesl_rt_error("Length mismatch in function PACK.");
  int m = 0;
  for (int k = 0; k < f->n; k++) m += f->b[k] != 0;
  NlSeq *r = nesl_seq_new(v->ek, m);
  int sz = esz(v);
  m = 0;
  for (int k = 0; k < f->n; k++)
    if (f->b[k]) memcpy(eptr(r, m++), eptr(v, k), (size_t)sz);
  return vseq(r);
}

static NlSeq *rank_src;
static int rank_cmp_up(const void *x, const void *y) {
  int i = *(const int *)x, j = *(const int *)y;
  int c = cmp(nesl_seq_get(rank_src, i), nesl_seq_get(rank_src, j));
  return c ? c : (i > j) - (i < j);
}
static int rank_cmp_down(const void *x, const void *y) {
  int i = *(const int *)x, j = *(const int *)y;
  int c = cmp(nesl_seq_get(rank_src, j), nesl_seq_get(rank_src, i));
  return c ? c : (i > j) - (i < j);
}
static NlVal rank(NlSeq *s, bool up) {
  int *ord = nesl_rt_alloc(sizeof(int) * (size_t)(s->n ? s->n : 1));
  for (int i = 0; i < s->n; i++) ord[i] = i;
  rank_src = s;
  qsort(ord, (size_t)s->n, sizeof(int), up ? rank_cmp_up : rank_cmp_down);
  NlSeq *r = nesl_seq_new(EK_INT, s->n);
  for (int i = 0; i < s->n; i++) r->i[ord[i]] = i;
  return vseq(r);
}
static NlVal p_rank(NlVal *a) { return rank(A0.s, true); }
static NlVal p_rank_down(NlVal *a) { return rank(A0.s, false); }

static NlVal p_partition(NlVal *a) {
  NlSeq *v = A0.s, *c = A1.s;
  int64_t tot = 0;
  for (int i = 0; i < c->n; i++) {
    if (c->i[i] < 0) nesl_rt_error("Length mismatch in function PARTITION.");
    tot += c->i[i];
  }
  if (tot != v->n) nesl_rt_error("Length mismatch in function PARTITION.");
  NlSeq *r = nesl_seq_new(EK_BOXED, c->n);
  int off = 0, sz = esz(v);
  for (int i = 0; i < c->n; i++) {
    NlSeq *p = nesl_seq_new(v->ek, c->i[i]);
    memcpy(p->v, eptr(v, off), (size_t)c->i[i] * (size_t)sz);
    off += c->i[i];
    r->v[i] = vseq(p);
  }
  return vseq(r);
}
static NlVal p_flatten(NlVal *a) {
  NlSeq *v = A0.s;
  int64_t tot = 0;
  int ek = -1;
  for (int i = 0; i < v->n; i++) {
    tot += v->v[i].s->n;
    if (v->v[i].s->n && ek < 0) ek = v->v[i].s->ek;
  }
  if (tot > INT32_MAX) nesl_rt_error("Sequence too long.");
  if (ek < 0) ek = v->n ? v->v[0].s->ek : EK_BOXED;
  NlSeq *r = nesl_seq_new(ek, (int)tot);
  int off = 0, sz = nesl_esize(ek);
  for (int i = 0; i < v->n; i++) {
    NlSeq *p = v->v[i].s;
    memcpy(eptr(r, off), p->v, (size_t)p->n * (size_t)sz);
    off += p->n;
  }
  (void)sz;
  return vseq(r);
}

/* ---------- type-generic ---------- */
static bool eql(NlVal x, NlVal y) {
  switch (x.k) {
  case V_FLOAT: return fl(x) == fl(y);
  case V_FN: return true;
  case V_PAIR: return eql(x.p->a, y.p->a) && eql(x.p->b, y.p->b);
  case V_SEQ:
    if (x.s->n != y.s->n) return false;
    for (int i = 0; i < x.s->n; i++)
      if (!eql(nesl_seq_get(x.s, i), nesl_seq_get(y.s, i))) return false;
    return true;
  default: return y.k == V_FLOAT ? fl(x) == y.f : x.i == y.i;
  }
}
static NlVal p_eql(NlVal *a) { return vbool(eql(A0, A1)); }
static uint32_t hash(NlVal x) {
  switch (x.k) {
  case V_FLOAT: {
    uint64_t u;
    double d = x.f == 0 ? 0 : x.f;
    memcpy(&u, &d, 8);
    return (uint32_t)(u ^ (u >> 32));
  }
  case V_FN: return 7;
  case V_PAIR: return hash(x.p->a) + 991892311u * hash(x.p->b);
  case V_SEQ: {
    uint32_t h = (uint32_t)x.s->n;
    for (int i = 0; i < x.s->n; i++) h = h * 31u + hash(nesl_seq_get(x.s, i));
    return h;
  }
  default: return (uint32_t)x.i;
  }
}
static NlVal p_hash(NlVal *a) {
  if (A1.i < 1) nesl_rt_error("The second argument for the function HASH must be positive.");
  return vint((int32_t)((hash(A0) & 0x7fffffffu) % (uint32_t)A1.i));
}
static NlVal identity(NlVal x) {
  switch (x.k) {
  case V_FLOAT: return vfloat(0);
  case V_PAIR: {
    NlVal a = identity(x.p->a);
    return nesl_mk_pair(a, identity(x.p->b));
  }
  case V_SEQ: return vseq(nesl_seq_new(x.s->ek, 0));
  case V_FN: return x;
  default: {
    NlVal r = x;
    r.i = 0;
    return r;
  }
  }
}
static NlVal p_identity(NlVal *a) { return identity(A0); }
/* n identity values of v's element type (for unpack) */
static NlVal p_identity_seq(NlVal *a) {
  int n = A1.i < 0 ? 0 : A1.i;
  if (A0.s->n) {
    NlVal x[2] = {identity(nesl_seq_get(A0.s, 0)), vint(n)};
    return p_dist(x);
  }
  NlSeq *r = nesl_seq_new(A0.s->ek, n);
  if (A0.s->ek == EK_BOXED) {
    for (int i = 0; i < n; i++) r->v[i] = vseq(nesl_seq_new(EK_BOXED, 0));
  } else {
    memset(r->v, 0, (size_t)n * (size_t)esz(r));
  }
  return vseq(r);
}
static NlVal p_string(NlVal *a) {
  NzBuf b = {0};
  nesl_value_string(&b, A0);
  NlVal r = str_val(b.s ? b.s : "", b.len);
  nz_buf_free(&b);
  return r;
}
static NlVal p_float_string(NlVal *a) {
  if (A2.i && A1.i > 8) nesl_rt_error("In function exp_string, digits_after_point is too large.");
  NzBuf b = {0};
  nesl_float_string(&b, A0.f, A2.i ? (A1.i < 0 ? 1 : A1.i + 1) : 8, A2.i);
  NlVal r = str_val(b.s ? b.s : "", b.len);
  nz_buf_free(&b);
  return r;
}
static NlVal p_parse_float(NlVal *a) {
  double x;
  bool whole = nz_parse_float((const char *)A0.s->b, A0.s->n, &x);
  return nesl_mk_pair(vfloat(x), vbool(whole));
}

/* ---------- I/O ---------- */
static NlVal p_print_string(NlVal *a) {
  fwrite(A0.s->b, 1, (size_t)A0.s->n, stdout);
  return vbool(true);
}
static NlVal p_error(NlVal *a) {
  nesl_rt_error("%s", cstr(A0));
}
static NlVal ok_msg(bool ok, const char *msg) {
  return nesl_mk_pair(vbool(ok), str_val(msg, strlen(msg)));
}
/* Streams, files and processes: compiler/common/sysio.c, shared with λcu and the runtime
 * (one table of open streams per process). */
static NlVal p_open(NlVal *a) {
  const char *msg;
  int fd = nz_io_open(cstr(A0), A1.i, &msg);
  return nesl_mk_pair(vint(fd), ok_msg(fd >= 0, msg));
}
static NlVal p_close(NlVal *a) {
  const char *msg;
  bool ok = nz_io_close(A0.i, &msg);
  return ok_msg(ok, msg);
}
static NlVal p_write_stream(NlVal *a) {
  const char *msg;
  bool ok = nz_io_write(A1.i, A0.s->b, (size_t)A0.s->n, &msg);
  return ok_msg(ok, msg);
}
static NlVal p_read_char(NlVal *a) {
  const char *msg;
  bool ok;
  int c = nz_io_read_char(A0.i, &ok, &msg);
  return nesl_mk_pair(vchar(c), ok_msg(ok, msg));
}
static NlVal p_read_file(NlVal *a) {
  const char *msg;
  NzBuf b = {0};
  bool ok = nz_io_read_file(cstr(A0), &b, &msg);
  NlVal r = str_val(b.s ? b.s : "", b.len);
  nz_buf_free(&b);
  return nesl_mk_pair(r, ok_msg(ok, msg));
}
static NlVal p_getenv(NlVal *a) {
  const char *v = getenv(cstr(A0));
  return v ? str_val(v, strlen(v)) : str_val("", 0);
}
static NlVal p_shell(NlVal *a) {
  NzBuf b = {0};
  nz_io_shell(cstr(A0), A1.s->b, (size_t)A1.s->n, &b);
  NlVal r = str_val(b.s ? b.s : "", b.len);
  nz_buf_free(&b);
  return r;
}
static NlVal p_spawn(NlVal *a) {
  int want[3] = {A1.i, A2.i, A3.i}, got[3];
  const char *msg;
  bool ok = nz_io_spawn(cstr(A0), want, got, &msg);
  NlVal fds = nesl_mk_pair(vint(got[0]), nesl_mk_pair(vint(got[1]), vint(got[2])));
  return nesl_mk_pair(fds, ok_msg(ok, msg));
}

/* ---------- object files: a self-describing text form of any value ---------- */
/* i<int> f<float> b<0|1> c<code> S<elemkind> <n> elems... P a b F (a function) */
static void obj_write(NzBuf *b, NlVal v) {
  switch (v.k) {
  case V_INT: nz_buf_printf(b, "i%d ", v.i); return;
  case V_FLOAT: nz_buf_printf(b, "f%.17g ", v.f); return;
  case V_BOOL: nz_buf_printf(b, "b%d ", v.i); return;
  case V_CHAR: nz_buf_printf(b, "c%d ", v.i); return;
  case V_FN: nz_buf_puts(b, "F "); return;
  case V_PAIR:
    nz_buf_puts(b, "P ");
    obj_write(b, v.p->a);
    obj_write(b, v.p->b);
    return;
  case V_SEQ:
    nz_buf_printf(b, "S%d %d ", v.s->ek, v.s->n);
    for (int i = 0; i < v.s->n; i++) obj_write(b, nesl_seq_get(v.s, i));
    return;
  }
}
static NlVal p_write_object_str(NlVal *a) {
  NzBuf b = {0};
  obj_write(&b, A0);
  NlVal r = str_val(b.s ? b.s : "", b.len);
  nz_buf_free(&b);
  return r;
}
/* Parse one value, checking it against the shape of the witness w (when known). */
static bool obj_read(const char **pp, const NlVal *w, NlVal *out) {
  const char *p = *pp;
  while (*p == ' ' || *p == '\n') p++;
  char tag = *p++;
  char *end;
  switch (tag) {
  case 'i':
  case 'b':
  case 'c': {
    long x = strtol(p, &end, 10);
    if (end == p) return false;
    int k = tag == 'i' ? V_INT : tag == 'b' ? V_BOOL : V_CHAR;
    if (w && w->k != k) return false;
    *out = (NlVal){.k = k, .i = (int32_t)x};
    p = end;
    break;
  }
  case 'f': {
    double x = strtod(p, &end);
    if (end == p || (w && w->k != V_FLOAT)) return false;
    *out = vfloat(x);
    p = end;
    break;
  }
  case 'F':
    if (!w || w->k != V_FN) return false;
    *out = *w;
    break;
  case 'P': {
    if (w && w->k != V_PAIR) return false;
    NlVal x, y;
    if (!obj_read(&p, w ? &w->p->a : NULL, &x) || !obj_read(&p, w ? &w->p->b : NULL, &y))
      return false;
    *out = nesl_mk_pair(x, y);
    break;
  }
  case 'S': {
    long ek = strtol(p, &end, 10);
    if (end == p || ek < EK_INT || ek > EK_BOXED) return false;
    p = end;
    long n = strtol(p, &end, 10);
    if (end == p || n < 0 || n > (1L << 28)) return false;
    p = end;
    if (w && (w->k != V_SEQ || (w->s->ek != EK_BOXED && w->s->ek != ek))) return false;
    NlVal ew, *ewp = NULL;
    if (w && w->s->n) {
      ew = nesl_seq_get(w->s, 0);
      ewp = &ew;
    }
    NlSeq *s = nesl_seq_new((int)ek, (int)n);
    for (long i = 0; i < n; i++) {
      NlVal x;
      if (!obj_read(&p, ewp, &x)) return false;
      if ((int)ek != EK_BOXED ? x.k != (int)ek : x.k <= V_CHAR) return false;
      nesl_seq_set(s, (int)i, x);
    }
    *out = vseq(s);
    break;
  }
  default: return false;
  }
  *pp = p;
  return true;
}
static NlVal p_read_object_str(NlVal *a) {
  const char *p = cstr(A1);
  NlVal v;
  if (!obj_read(&p, &A0, &v)) return nesl_mk_pair(identity(A0), vbool(false));
  return nesl_mk_pair(v, vbool(true));
}

/* ---------- the table ---------- */
#define NUM2 "(a, a) -> a :: (a in number)"
#define CMP2 "(a, a) -> bool :: (a in ordinal)"
#define LOG2 "(a, a) -> a :: (a in logical)"
#define FF "float -> float"
#define SC(t) "[a] -> [a] :: (a in " t ")"
#define RD(t) "[a] -> a :: (a in " t ")"
const NlPrim nesl_prims[] = {
    {"__add", NUM2, 2, p_add},
    {"__sub", NUM2, 2, p_sub},
    {"__mul", NUM2, 2, p_mul},
    {"__div", NUM2, 2, p_div},
    {"__neg", "a -> a :: (a in number)", 1, p_neg},
    {"__eq", CMP2, 2, p_eq},
    {"__ne", CMP2, 2, p_ne},
    {"__lt", CMP2, 2, p_lt},
    {"__gt", CMP2, 2, p_gt},
    {"__le", CMP2, 2, p_le},
    {"__ge", CMP2, 2, p_ge},
    {"__not", "a -> a :: (a in logical)", 1, p_not},
    {"__and", LOG2, 2, p_and},
    {"__or", LOG2, 2, p_or},
    {"__xor", LOG2, 2, p_xor},
    {"__rem", "(int, int) -> int", 2, p_rem},
    {"__mod", "(int, int) -> int", 2, p_mod},
    {"__lshift", "(int, int) -> int", 2, p_lshift},
    {"__rshift", "(int, int) -> int", 2, p_rshift},
    {"__sqrt", FF, 1, p_sqrt},
    {"__ln", FF, 1, p_ln},
    {"__exp", FF, 1, p_exp},
    {"__sin", FF, 1, p_sin},
    {"__cos", FF, 1, p_cos},
    {"__tan", FF, 1, p_tan},
    {"__asin", FF, 1, p_asin},
    {"__acos", FF, 1, p_acos},
    {"__atan", FF, 1, p_atan},
    {"__sinh", FF, 1, p_sinh},
    {"__cosh", FF, 1, p_cosh},
    {"__tanh", FF, 1, p_tanh},
    {"__float", "int -> float", 1, p_float},
    {"__btoi", "bool -> int", 1, p_btoi},
    {"__ceil", "float -> int", 1, p_ceil},
    {"__floor", "float -> int", 1, p_floor},
    {"__trunc", "float -> int", 1, p_trunc},
    {"__round", "float -> int", 1, p_round},
    {"__code_char", "int -> char", 1, p_code_char},
    {"__char_code", "char -> int", 1, p_char_code},
    {"__rand", "a -> a :: (a in number)", 1, p_rand},
    {"__rand_seed", "int -> bool", 1, p_rand_seed},
    {"__length", "[a] -> int :: (a in any)", 1, p_length},
    {"__dist", "(a, int) -> [a] :: (a in any)", 2, p_dist},
    {"__iseq", "(int, int, int) -> [int]", 3, p_iseq},
    {"__elt", "([a], int) -> a :: (a in any)", 2, p_elt},
    {"__rep", "([a], a, int) -> [a] :: (a in any)", 3, p_rep},
    {"__plus_scan", SC("number"), 1, p_plus_scan},
    {"__mult_scan", SC("number"), 1, p_mult_scan},
    {"__max_scan", SC("ordinal"), 1, p_max_scan},
    {"__min_scan", SC("ordinal"), 1, p_min_scan},
    {"__or_scan", SC("logical"), 1, p_or_scan},
    {"__and_scan", SC("logical"), 1, p_and_scan},
    {"__xor_scan", SC("logical"), 1, p_xor_scan},
    {"__sum", RD("number"), 1, p_plus_reduce},
    {"__product", RD("number"), 1, p_mult_reduce},
    {"__max_val", RD("ordinal"), 1, p_max_reduce},
    {"__min_val", RD("ordinal"), 1, p_min_reduce},
    {"__any", RD("logical"), 1, p_or_reduce},
    {"__all", RD("logical"), 1, p_and_reduce},
    {"__parity", RD("logical"), 1, p_xor_reduce},
    {"__permute", "([a], [int]) -> [a] :: (a in any)", 2, p_permute},
    {"__read", "([a], [int]) -> [a] :: (a in any)", 2, p_read},
    {"__put", "([a], [int], [a]) -> [a] :: (a in any)", 3, p_put},
    {"__append", "([a], [a]) -> [a] :: (a in any)", 2, p_append},
    {"__pack", "[(a, bool)] -> [a] :: (a in any)", 1, p_pack},
    {"__pack2", "([a], [bool]) -> [a] :: (a in any)", 2, p_pack2},
    {"__rank", "[a] -> [int] :: (a in ordinal)", 1, p_rank},
    {"__rank_down", "[a] -> [int] :: (a in ordinal)", 1, p_rank_down},
    {"__partition", "([a], [int]) -> [[a]] :: (a in any)", 2, p_partition},
    {"__flatten", "[[a]] -> [a] :: (a in any)", 1, p_flatten},
    {"__eql", "(a, a) -> bool :: (a in any)", 2, p_eql},
    {"__hash", "(a, int) -> int :: (a in any)", 2, p_hash},
    {"__identity", "a -> a :: (a in any)", 1, p_identity},
    {"__identity_seq", "([a], int) -> [a] :: (a in any)", 2, p_identity_seq},
    {"__string", "a -> [char] :: (a in any)", 1, p_string},
    {"__float_string", "(float, int, bool) -> [char]", 3, p_float_string},
    {"__parse_float", "[char] -> (float, bool)", 1, p_parse_float},
    {"__print_string", "[char] -> bool", 1, p_print_string},
    {"__error", "[char] -> a :: (a in any)", 1, p_error},
    {"__open", "([char], int) -> (int, bool, [char])", 2, p_open},
    {"__close", "int -> (bool, [char])", 1, p_close},
    {"__write_stream", "([char], int) -> (bool, [char])", 2, p_write_stream},
    {"__read_char", "int -> (char, bool, [char])", 1, p_read_char},
    {"__read_file", "[char] -> ([char], bool, [char])", 1, p_read_file},
    {"__getenv", "[char] -> [char]", 1, p_getenv},
    {"__write_object_str", "a -> [char] :: (a in any)", 1, p_write_object_str},
    {"__read_object_str", "(a, [char]) -> (a, bool) :: (a in any)", 2, p_read_object_str},
    {"__shell", "([char], [char]) -> [char]", 2, p_shell},
    {"__spawn", "([char], int, int, int) -> ((int, int, int), bool, [char])", 4, p_spawn},
};
const int nesl_nprims = (int)(sizeof nesl_prims / sizeof *nesl_prims);

/* ---------- loading ---------- */
int nesl_load_basis(NlEnv *env) {
  for (int i = 0; i < nesl_nprims; i++) {
    const NlPrim *p = &nesl_prims[i];
    int g = nesl_global_add(env, nz_intern_cstr(p->name), nesl_type_from_string(env, p->type));
    NlFn *fn = nesl_rt_alloc(sizeof *fn);
    fn->k = FN_PRIM;
    fn->prim = p;
    env->globals.v[g].val.k = V_FN;
    env->globals.v[g].val.fn = fn;
    env->globals.v[g].defined = true;
    /* file and process I/O is serial only (NESL.md 4.7) */
    static const char *serial[] = {"__open", "__close", "__read_char", "__read_file", "__shell",
                                   "__spawn", "__rand_seed", NULL};
    for (int k = 0; serial[k]; k++)
      if (!strcmp(p->name, serial[k])) env->globals.v[g].serial = true;
  }
  for (int f = 0; f < nesl_basis_nfiles; f++) {
    NzSource *src = nz_source_from_string(nesl_basis_files[f].name, nesl_basis_files[f].text);
    nz_vec_push(env->sources, src);
    NlDecl **ds;
    int n;
    nesl_parse(src, env->arena, false, &ds, &n);
    for (int i = 0; i < n; i++) {
      if (ds[i]->k == D_ERROR) nesl_report_error(ds[i]);
      if (ds[i]->k == D_ERROR || !nesl_check_decl(env, ds[i]) ||
          !nesl_eval_decl(env, ds[i], false)) {
        free(ds);
        return 0;
      }
    }
    free(ds);
  }
  env->basis_done = true;
  env->nbasis = env->globals.n;
  return 1;
}
