/* flan_type.c — monomorphic types and their λcu representation (flan.h). */
#include "flan.h"

static NZ_VEC(FlTy *) all_types;

static const FlTy *intern_fn(FlTyKind k, const FlTy *a, const FlTy *b, int fnid) {
  for (int i = 0; i < all_types.n; i++) {
    FlTy *t = all_types.v[i];
    if (t->k == k && t->a == a && t->b == b && t->fnid == fnid) return t;
  }
  FlTy *t = nz_xcalloc(1, sizeof *t);
  t->k = k;
  t->a = a;
  t->b = b;
  t->fnid = fnid;
  NzBuf s = {0};
  static const char *names[] = {"int", "float", "bool", "char"};
  if (k <= FT_CHAR) nz_buf_puts(&s, names[k]);
  else if (k == FT_SEQ) nz_buf_printf(&s, "[%s]", a->key);
  else if (k == FT_FN && fnid < 0) nz_buf_puts(&s, "fn#?");
  else if (k == FT_FN) nz_buf_printf(&s, "fn#%d", fnid);
  else nz_buf_printf(&s, "(%s, %s)", a->key, b->key);
  t->key = nz_intern_cstr(s.s);
  nz_buf_free(&s);
  nz_vec_push(all_types, t);
  return t;
}

static const FlTy *intern(FlTyKind k, const FlTy *a, const FlTy *b) { return intern_fn(k, a, b, 0); }
const FlTy *flan_ty_fn(int fnid) { return intern_fn(FT_FN, NULL, NULL, fnid); }
int flan_ty_has_fn(const FlTy *t) {
  return t->k == FT_FN || (t->a && flan_ty_has_fn(t->a)) || (t->b && flan_ty_has_fn(t->b));
}
const FlTy *flan_ty_base(FlTyKind k) { return intern(k, NULL, NULL); }
const FlTy *flan_ty_seq(const FlTy *a) { return intern(FT_SEQ, a, NULL); }
const FlTy *flan_ty_pair(const FlTy *a, const FlTy *b) { return intern(FT_PAIR, a, b); }
int flan_ty_is_base(const FlTy *t) { return t->k <= FT_CHAR || t->k == FT_FN; }

LcuTypeKind flan_ty_lcu_base(const FlTy *t) {
  switch (t->k) {
  case FT_INT: return LT_INT;
  case FT_FLOAT: return LT_FLOAT;
  case FT_BOOL: return LT_BOOL;
  case FT_CHAR: return LT_CHAR;
  case FT_FN: return LT_INT; /* its tag */
  default: nz_die("flan: %s is not a base type", t->key);
  }
}

/* args: a datatype's type arguments, what its fields' TY_GEN i stand for */
static const FlTy *ty_of(NlType *t, const FlTy *const *args, int nargs) {
  t = nesl_type_resolve(t);
  if (!t) return flan_ty_base(FT_INT);
  switch (t->k) {
  case TY_INT: return flan_ty_base(FT_INT);
  case TY_FLOAT: return flan_ty_base(FT_FLOAT);
  case TY_BOOL: return flan_ty_base(FT_BOOL);
  case TY_CHAR: return flan_ty_base(FT_CHAR);
  case TY_SEQ: {
    const FlTy *a = ty_of(t->a, args, nargs);
    return a ? flan_ty_seq(a) : NULL;
  }
  case TY_FUN: {
    if (!t->fnid) return flan_ty_fn(-1); /* a datatype field: any function of its type */
    const FlTy *id = ty_of(t->fnid, args, nargs);
    return id && id->k == FT_FN ? id : NULL;
  }
  case TY_FNID: return flan_ty_fn(t->id);
  case TY_PAIR: {
    const FlTy *a = ty_of(t->a, args, nargs), *b = ty_of(t->b, args, nargs);
    return a && b ? flan_ty_pair(a, b) : NULL;
  }
  case TY_DATA: {
    const FlTy *fa[t->nargs > 0 ? t->nargs : 1];
    for (int i = 0; i < t->nargs; i++)
      if (!(fa[i] = ty_of(t->args[i], args, nargs))) return NULL;
    return ty_of(t->dt->fields, fa, t->nargs);
  }
  case TY_GEN:
    if (t->id < nargs && args[t->id]) return args[t->id];
    return flan_ty_base(FT_INT);
  case TY_VAR: return flan_ty_base(FT_INT);
  default: return NULL;
  }
}

const FlTy *flan_ty_of(NlType *t) { return ty_of(t, NULL, 0); }

int flan_ncomp(const FlTy *t, bool vec) {
  switch (t->k) {
  case FT_PAIR: return flan_ncomp(t->a, vec) + flan_ncomp(t->b, vec);
  case FT_SEQ: return vec ? 1 + flan_ncomp(t->a, true) : flan_ncomp(t->a, true);
  default: return 1;
  }
}

static int comp_types(const FlTy *t, bool vec, const LcuType **out) {
  switch (t->k) {
  case FT_PAIR: {
    int n = comp_types(t->a, vec, out);
    return n + comp_types(t->b, vec, out + n);
  }
  case FT_SEQ:
    if (!vec) return comp_types(t->a, true, out);
    out[0] = lcu_type_base(LT_SEGDES);
    return 1 + comp_types(t->a, true, out + 1);
  default:
    out[0] = vec ? lcu_type_array(flan_ty_lcu_base(t)) : lcu_type_base(flan_ty_lcu_base(t));
    return 1;
  }
}

void flan_comp_types(const FlTy *t, bool vec, const LcuType **out) { comp_types(t, vec, out); }
