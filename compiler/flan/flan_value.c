/* flan_value.c — NESL run-time values to and from their λcu representation (flan.h). */
#include "flan.h"

static int ek_of(const FlTy *t) {
  switch (t->k) {
  case FT_INT: return EK_INT;
  case FT_FLOAT: return EK_FLOAT;
  case FT_BOOL: return EK_BOOL;
  case FT_CHAR: return EK_CHAR;
  default: return EK_BOXED;
  }
}

static LcuValue arr_value(LcuArray *a) {
  LcuValue v = {.kind = LT_ARRAY};
  v.u.arr = a;
  return v;
}

/* Function values by identity (a function has no components: its type names it). */
static NZ_VEC(struct FnVal { int fnid; NlVal v; }) fnvals;

void flan_fn_register(int fnid, NlVal v) {
  for (int i = 0; i < fnvals.n; i++)
    if (fnvals.v[i].fnid == fnid) {
      fnvals.v[i].v = v;
      return;
    }
  struct FnVal x = {fnid, v};
  nz_vec_push(fnvals, x);
}

int flan_fn_nregistered(void) { return fnvals.n; }
int flan_fn_registered(int i) { return fnvals.v[i].fnid; }

static NlVal fn_value(int fnid) {
  for (int i = 0; i < fnvals.n; i++)
    if (fnvals.v[i].fnid == fnid) return fnvals.v[i].v;
  nz_die("flan: a function value of identity %d was not registered", fnid);
}

/* A named function's tag: its identity. */
static int32_t fn_tag(NlVal v, const FlTy *t) {
  if (t->fnid >= 0) return t->fnid;
  for (int i = 0; i < fnvals.n; i++)
    if (fnvals.v[i].v.fn == v.fn) return fnvals.v[i].fnid;
  nz_die("flan: a function value that was not registered");
}

static void vec_to_lcu(const NlVal *xs, int n, const FlTy *e, LcuValue *out);

static int to_lcu(NlVal v, const FlTy *t, LcuValue *out) {
  switch (t->k) {
  case FT_FN: out[0] = lcu_value_int(fn_tag(v, t)); return 1;
  case FT_INT: out[0] = lcu_value_int(v.i); return 1;
  case FT_FLOAT: out[0] = lcu_value_float(v.k == V_FLOAT ? v.f : v.i); return 1;
  case FT_BOOL: out[0] = lcu_value_bool(v.i); return 1;
  case FT_CHAR: out[0] = lcu_value_char((unsigned char)v.i); return 1;
  case FT_PAIR: {
    int n = to_lcu(v.p->a, t->a, out);
    return n + to_lcu(v.p->b, t->b, out + n);
  }
  case FT_SEQ: {
    int n = v.s->n;
    NlVal *xs = nz_xmalloc(sizeof(NlVal) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) xs[i] = nesl_seq_get(v.s, i);
    vec_to_lcu(xs, n, t->a, out);
    free(xs);
    return flan_ncomp(t, false);
  }
  }
  return 0;
}

static void vec_to_lcu(const NlVal *xs, int n, const FlTy *e, LcuValue *out) {
  switch (e->k) {
  case FT_PAIR: {
    NlVal *a = nz_xmalloc(sizeof(NlVal) * (size_t)(n ? n : 1));
    NlVal *b = nz_xmalloc(sizeof(NlVal) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
      a[i] = xs[i].p->a;
      b[i] = xs[i].p->b;
    }
    vec_to_lcu(a, n, e->a, out);
    vec_to_lcu(b, n, e->b, out + flan_ncomp(e->a, true));
    free(a);
    free(b);
    return;
  }
  case FT_SEQ: {
    int32_t *lens = nz_xmalloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    int64_t tot = 0;
    for (int i = 0; i < n; i++) tot += lens[i] = xs[i].s->n;
    NlVal *all = nz_xmalloc(sizeof(NlVal) * (size_t)(tot ? tot : 1));
    int64_t k = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < lens[i]; j++) all[k++] = nesl_seq_get(xs[i].s, j);
    out[0].kind = LT_SEGDES;
    out[0].u.sd = lcu_segdes_new(lens, n);
    vec_to_lcu(all, (int)tot, e->a, out + 1);
    free(lens);
    free(all);
    return;
  }
  default: {
    LcuArray *a = lcu_array_new(flan_ty_lcu_base(e), n);
    for (int i = 0; i < n; i++) {
      NlVal x = xs[i];
      switch (e->k) {
      case FT_INT: a->d.i[i] = x.i; break;
      case FT_FN: a->d.i[i] = fn_tag(x, e); break;
      case FT_FLOAT: a->d.f[i] = x.k == V_FLOAT ? x.f : x.i; break;
      default: a->d.b[i] = (unsigned char)x.i; break;
      }
    }
    out[0] = arr_value(a);
    return;
  }
  }
}

void flan_value_to_lcu(NlVal v, const FlTy *t, LcuValue *out) { to_lcu(v, t, out); }

static NlVal scalar(const FlTy *t, LcuValue c) {
  NlVal r = {0};
  switch (t->k) {
  case FT_INT: r.k = V_INT; r.i = c.u.i; break;
  case FT_FLOAT: r.k = V_FLOAT; r.f = c.u.f; break;
  case FT_BOOL: r.k = V_BOOL; r.i = c.u.b != 0; break;
  default: r.k = V_CHAR; r.i = c.u.c; break;
  }
  return r;
}

/* Rows [start, start + count) of the vector vrep(e) held in comps. */
static void vec_from(const LcuValue *comps, const FlTy *e, int64_t start, int64_t count, NlVal *out) {
  switch (e->k) {
  case FT_PAIR: {
    NlVal *a = nz_xmalloc(sizeof(NlVal) * (size_t)(count ? count : 1));
    NlVal *b = nz_xmalloc(sizeof(NlVal) * (size_t)(count ? count : 1));
    vec_from(comps, e->a, start, count, a);
    vec_from(comps + flan_ncomp(e->a, true), e->b, start, count, b);
    for (int64_t i = 0; i < count; i++) out[i] = nesl_mk_pair(a[i], b[i]);
    free(a);
    free(b);
    return;
  }
  case FT_SEQ: {
    const LcuSegdes *sd = comps[0].u.sd;
    for (int64_t i = 0; i < count; i++) {
      int64_t s = sd->starts[start + i], l = sd->lens[start + i];
      NlVal *xs = nz_xmalloc(sizeof(NlVal) * (size_t)(l ? l : 1));
      vec_from(comps + 1, e->a, s, l, xs);
      out[i] = nesl_seq_from_vals(xs, (int)l, ek_of(e->a));
      free(xs);
    }
    return;
  }
  default: {
    const LcuArray *a = comps[0].u.arr;
    for (int64_t i = 0; i < count; i++) {
      LcuValue c = {0};
      if (e->k == FT_FN) {
        out[i] = fn_value(e->fnid >= 0 ? e->fnid : a->d.i[start + i]);
        continue;
      }
      switch (e->k) {
      case FT_INT: c.u.i = a->d.i[start + i]; break;
      case FT_FLOAT: c.u.f = a->d.f[start + i]; break;
      case FT_BOOL: c.u.b = a->d.b[start + i]; break;
      default: c.u.c = a->d.b[start + i]; break;
      }
      out[i] = scalar(e, c);
    }
    return;
  }
  }
}

static int64_t rows(const LcuValue *comps) {
  return comps[0].kind == LT_SEGDES ? comps[0].u.sd->nsegs : comps[0].u.arr->len;
}

NlVal flan_value_from_lcu(const LcuValue *comps, const FlTy *t) {
  switch (t->k) {
  case FT_FN: return fn_value(t->fnid >= 0 ? t->fnid : comps[0].u.i);
  case FT_PAIR: {
    NlVal a = flan_value_from_lcu(comps, t->a);
    NlVal b = flan_value_from_lcu(comps + flan_ncomp(t->a, false), t->b);
    return nesl_mk_pair(a, b);
  }
  case FT_SEQ: {
    int64_t n = rows(comps);
    NlVal *xs = nz_xmalloc(sizeof(NlVal) * (size_t)(n ? n : 1));
    vec_from(comps, t->a, 0, n, xs);
    NlVal r = nesl_seq_from_vals(xs, (int)n, ek_of(t->a));
    free(xs);
    return r;
  }
  default: return scalar(t, comps[0]);
  }
}
