/* lcu_tables.c — the fixed vocabularies of λcu: hash-consed types, primitives,
 * reduction operators and SOAC names. */
#include "lcu.h"

/* ---- types ---- */

static LcuType base_types[LT_TUPLE];
static LcuType array_types[LT_FLOAT + 1];
static int types_ready;

typedef struct TupleType {
  struct TupleType *next;
  LcuType t;
} TupleType;
static TupleType *tuples; /* few distinct tuple types exist; a list is enough */

static void init_types(void) {
  if (types_ready) return;
  for (int k = 0; k < LT_TUPLE; k++) base_types[k].kind = (LcuTypeKind)k;
  for (int k = 0; k <= LT_FLOAT; k++) {
    array_types[k].kind = LT_ARRAY;
    array_types[k].elem = (LcuTypeKind)k;
  }
  types_ready = 1;
}

const LcuType *lcu_type_base(LcuTypeKind k) {
  init_types();
  if (k > LT_FLOAT && k != LT_SEGDES) nz_die("lcu_type_base: not a base type (%d)", (int)k);
  return &base_types[k];
}

const LcuType *lcu_type_array(LcuTypeKind elem) {
  init_types();
  if (elem > LT_FLOAT) nz_die("lcu_type_array: arrays hold base types only (%d)", (int)elem);
  return &array_types[elem];
}

const LcuType *lcu_type_tuple(int n, const LcuType *const *elems) {
  if (n == 1) return elems[0];
  for (TupleType *t = tuples; t; t = t->next) {
    if (t->t.n != n) continue;
    int same = 1;
    for (int i = 0; i < n && same; i++) same = t->t.elems[i] == elems[i];
    if (same) return &t->t;
  }
  TupleType *t = nz_xcalloc(1, sizeof *t);
  t->t.kind = LT_TUPLE;
  t->t.n = n;
  t->t.elems = nz_xcalloc((size_t)(n ? n : 1), sizeof(LcuType *));
  for (int i = 0; i < n; i++) t->t.elems[i] = elems[i];
  t->next = tuples;
  tuples = t;
  return &t->t;
}

const LcuType *lcu_type_unit(void) { return lcu_type_tuple(0, NULL); }

int lcu_type_is_base(const LcuType *t) { return t->kind <= LT_FLOAT; }

int lcu_type_arity(const LcuType *t) { return t->kind == LT_TUPLE ? t->n : 1; }

const LcuType *lcu_type_component(const LcuType *t, int i) {
  if (t->kind == LT_TUPLE) return t->elems[i];
  if (i != 0) nz_die("lcu_type_component: index %d of a non-tuple", i);
  return t;
}

static const char *base_name[] = {"bool", "char", "int", "float"};

void lcu_type_print(NzBuf *b, const LcuType *t) {
  switch (t->kind) {
  case LT_BOOL: case LT_CHAR: case LT_INT: case LT_FLOAT:
    nz_buf_puts(b, base_name[t->kind]);
    break;
  case LT_ARRAY:
    nz_buf_printf(b, "[%s]", base_name[t->elem]);
    break;
  case LT_SEGDES:
    nz_buf_puts(b, "segdes");
    break;
  case LT_TUPLE:
    nz_buf_putc(b, '(');
    for (int i = 0; i < t->n; i++) {
      if (i) nz_buf_puts(b, ", ");
      lcu_type_print(b, t->elems[i]);
    }
    nz_buf_putc(b, ')');
    break;
  }
}

/* ---- primitives ---- */

static const LcuPrimInfo prims[] = {
#define LCU_PRIM(id, name, sym, arity, flags) {name, sym, arity, flags},
#include "lcu_prims.def"
#undef LCU_PRIM
};

const LcuPrimInfo *lcu_prim_info(LcuPrim p) {
  if ((unsigned)p >= LP__COUNT) nz_die("lcu_prim_info: bad primitive %d", (int)p);
  return &prims[p];
}

int lcu_prim_lookup(const char *name) {
  for (int i = 0; i < LP__COUNT; i++)
    if (strcmp(prims[i].name, name) == 0) return i;
  return -1;
}

/* ---- reduction operators ---- */

static const struct {
  const char *name;
  LcuTypeKind elem;
} rops[LR__COUNT] = {
    [LR_IADD] = {"iadd", LT_INT},   [LR_IMUL] = {"imul", LT_INT},   [LR_IMAX] = {"imax", LT_INT},
    [LR_IMIN] = {"imin", LT_INT},   [LR_IAND] = {"iand", LT_INT},   [LR_IOR] = {"ior", LT_INT},
    [LR_IXOR] = {"ixor", LT_INT},   [LR_FADD] = {"fadd", LT_FLOAT}, [LR_FMUL] = {"fmul", LT_FLOAT},
    [LR_FMAX] = {"fmax", LT_FLOAT}, [LR_FMIN] = {"fmin", LT_FLOAT}, [LR_BAND] = {"band", LT_BOOL},
    [LR_BOR] = {"bor", LT_BOOL},    [LR_BXOR] = {"bxor", LT_BOOL},  [LR_ID] = {"id", LT_TUPLE},
};

const char *lcu_rop_name(LcuRop r) {
  if ((unsigned)r >= LR__COUNT) nz_die("lcu_rop_name: bad operator %d", (int)r);
  return rops[r].name;
}

int lcu_rop_lookup(const char *name) {
  for (int i = 0; i < LR__COUNT; i++)
    if (strcmp(rops[i].name, name) == 0) return i;
  return -1;
}

/* LT_TUPLE stands for "any base type" (id). */
LcuTypeKind lcu_rop_elem(LcuRop r) { return rops[r].elem; }

/* ---- SOACs ---- */

static const char *soac_names[LS__COUNT] = {
    [LS_ONCE] = "ONCE",     [LS_MAP] = "MAP",         [LS_PERMUTE] = "PERMUTE",
    [LS_REDUCE] = "REDUCE", [LS_SCAN] = "SCAN",       [LS_FILTER] = "FILTER",
    [LS_PARTITION] = "PARTITION", [LS_SEGREDUCE] = "SEGREDUCE", [LS_SEGSCAN] = "SEGSCAN",
};

const char *lcu_soac_name(LcuSoacKind k) {
  if ((unsigned)k >= LS__COUNT) nz_die("lcu_soac_name: bad SOAC %d", (int)k);
  return soac_names[k];
}

int lcu_soac_lookup(const char *name) {
  for (int i = 0; i < LS__COUNT; i++)
    if (strcmp(soac_names[i], name) == 0) return i;
  return -1;
}
