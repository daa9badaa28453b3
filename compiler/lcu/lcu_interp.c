/* lcu_interp.c — the reference interpreter of λcu (paper §6, with the decisions
 * of compiler/lcu/README.md "Semantics"): CPU code over boxed, reference-counted
 * values; kernels SOAC by SOAC; thunk bodies over unboxed scalar cells.
 *
 * Faults (bad subscript, division by zero, ...) print at the offending
 * expression and longjmp to lcu_run_main, which then releases everything the
 * run still held: every live frame is on a list, values between two
 * sub-evaluations sit on a temporary stack, and per-SOAC scratch blocks are
 * recorded, so an aborted run leaks nothing. */
#include "lcu.h"
#include <math.h>
#include <setjmp.h>

/* Unwinding after a fault. GCC's and clang's builtin setjmp/longjmp bypass
 * libc (whose longjmp ASan intercepts and, from more than 64 MB deep in a
 * runaway recursion, refuses to clean up after, with a warning); under ASan
 * we unpoison the abandoned part of the stack ourselves. */
#if defined(__GNUC__)
typedef void *LcuJmp[5];
#define LCU_SETJMP(b) __builtin_setjmp(b)
#define LCU_LONGJMP(b) __builtin_longjmp(b, 1)
#else
typedef jmp_buf LcuJmp;
#define LCU_SETJMP(b) setjmp(b)
#define LCU_LONGJMP(b) longjmp(b, 1)
#endif
#if defined(__SANITIZE_ADDRESS__)
#define LCU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LCU_ASAN 1
#endif
#endif
#ifdef LCU_ASAN
#include <sanitizer/asan_interface.h>
#if defined(__clang__)
#define LCU_NO_ASAN __attribute__((no_sanitize_address, noinline))
#else /* noipa: GCC would otherwise find out that fault never returns */
#define LCU_NO_ASAN __attribute__((no_sanitize_address, noipa))
#endif
#else
#define LCU_NO_ASAN
#endif

/* Kept out of eval so that eval's own frame, which deep λcu recursion
 * multiplies, stays small. */
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* An unboxed scalar, or a borrowed array/segdes captured by a thunk. `p`
 * points at the components of a tuple-valued thunk local (see thunk_open). */
typedef union Cell {
  int32_t i;
  double f;
  int b;
  unsigned char c;
  LcuArray *arr;
  LcuSegdes *sd;
  union Cell *p;
} Cell;

/* A CPU-function or kernel frame: owned values, one per checker slot. */
typedef struct Frame {
  struct Frame *prev;
  int n;
  LcuValue v[];
} Frame;

typedef struct {
  const LcuProgram *prog;
  LcuJmp fault;
  Frame *frames;           /* innermost first */
  NZ_VEC(LcuValue) temps;  /* owned values in flight */
  NZ_VEC(void *) scratch;  /* thunk frames of the SOACs being evaluated */
  char *stack_top;         /* frame address where the run started */
  size_t stack_room;       /* C stack the run may use before it is a fault */
  int64_t depth;           /* nested λcu calls */
} Interp;

NZ_NORETURN LCU_NO_ASAN static void unwind(Interp *I) {
#ifdef LCU_ASAN
  char *here = __builtin_frame_address(0);
  if (here < I->stack_top) __asan_unpoison_memory_region(here, (size_t)(I->stack_top - here));
#endif
  LCU_LONGJMP(I->fault);
}

/* Under ASan, fault is not declared noreturn: ASan would otherwise call
 * __asan_handle_no_return at every call site (see above). */
#ifdef LCU_ASAN
#define FAULT_NORETURN
#else
#define FAULT_NORETURN NZ_NORETURN
#endif
FAULT_NORETURN NZ_PRINTF(3, 4) LCU_NO_ASAN static void fault(Interp *I, NzLoc loc, const char *fmt,
                                                            ...) {
  va_list ap;
  va_start(ap, fmt);
  nz_verror_at(loc, fmt, ap);
  va_end(ap);
  unwind(I);
}

/* ----------------------------------------------------------------- frames */

static Frame *frame_push(Interp *I, int n) {
  Frame *f = nz_xcalloc(1, sizeof(Frame) + sizeof(LcuValue) * (size_t)(n > 0 ? n : 1));
  f->n = n; /* zero-filled slots are scalars: releasing them is a no-op */
  f->prev = I->frames;
  I->frames = f;
  return f;
}

static void frame_pop(Interp *I, Frame *f) {
  if (I->frames != f) nz_die("lcu interpreter: frames popped out of order");
  I->frames = f->prev;
  for (int i = 0; i < f->n; i++) lcu_value_release(f->v[i]);
  free(f);
}

static void set_slot(Frame *f, int slot, LcuValue v) {
  if (slot < 0 || slot >= f->n) nz_die("lcu interpreter: slot %d outside a frame of %d", slot, f->n);
  lcu_value_release(f->v[slot]);
  f->v[slot] = v;
}

static void *scratch_alloc(Interp *I, size_t n) {
  void *p = nz_xcalloc(1, n);
  nz_vec_push(I->scratch, p);
  return p;
}

/* Frees the scratch blocks allocated since mark. */
static void scratch_release(Interp *I, int mark) {
  while (I->scratch.n > mark) free(I->scratch.v[--I->scratch.n]);
}

/* -------------------------------------------------------- cells and values */

static Cell cell_of(LcuValue v) {
  Cell c;
  switch (v.kind) {
  case LT_BOOL: c.b = v.u.b; break;
  case LT_CHAR: c.c = v.u.c; break;
  case LT_INT: c.i = v.u.i; break;
  case LT_FLOAT: c.f = v.u.f; break;
  case LT_ARRAY: c.arr = v.u.arr; break;
  case LT_SEGDES: c.sd = v.u.sd; break;
  default: nz_die("lcu interpreter: a tuple where a scalar or array was expected");
  }
  return c;
}

static LcuValue value_of(LcuTypeKind k, Cell c) {
  switch (k) {
  case LT_BOOL: return lcu_value_bool(c.b);
  case LT_CHAR: return lcu_value_char(c.c);
  case LT_INT: return lcu_value_int(c.i);
  case LT_FLOAT: return lcu_value_float(c.f);
  default: nz_die("lcu interpreter: value_of on a non-scalar kind %d", (int)k);
  }
}

static inline Cell load(const LcuArray *a, int64_t i) {
  Cell c;
  switch (a->elem) {
  case LT_BOOL: c.b = a->d.b[i]; break;
  case LT_CHAR: c.c = a->d.b[i]; break;
  case LT_INT: c.i = a->d.i[i]; break;
  default: c.f = a->d.f[i]; break;
  }
  return c;
}

static inline void store(LcuArray *a, int64_t i, Cell c) {
  switch (a->elem) {
  case LT_BOOL: a->d.b[i] = (unsigned char)(c.b != 0); break;
  case LT_CHAR: a->d.b[i] = c.c; break;
  case LT_INT: a->d.i[i] = c.i; break;
  default: a->d.f[i] = c.f; break;
  }
}

static LcuValue array_value(LcuArray *a) {
  LcuValue v = {.kind = LT_ARRAY};
  v.u.arr = a;
  return v;
}

/* ------------------------------------------------------------- primitives */

/* The operand kind of an overloaded primitive: the checker's opty, or the
 * first argument's type for trees built by hand. */
static LcuTypeKind opkind(const LcuExpr *e) {
  return e->opty ? e->opty->kind : e->args[0]->ty->kind;
}

static int32_t float_to_int(Interp *I, const LcuExpr *e, double x, double r) {
  if (!(r >= -2147483648.0 && r <= 2147483647.0)) {
    NzBuf b = {0};
    lcu_float_print(&b, x);
    char msg[96];
    snprintf(msg, sizeof msg, "%s", b.s);
    nz_buf_free(&b);
    fault(I, e->loc, "%s(%s) is outside the int range", lcu_prim_info(e->prim)->name, msg);
  }
  return (int32_t)r;
}

static Cell cmp(int v) {
  Cell c;
  c.b = v;
  return c;
}

/* X OP Y on two cells of base kind k. */
#define CMP_OP(k, X, Y, OP)                                                                  \
  ((k) == LT_INT     ? (X).i OP (Y).i                                                        \
   : (k) == LT_FLOAT ? (X).f OP (Y).f                                                        \
   : (k) == LT_CHAR  ? (X).c OP (Y).c                                                        \
                     : ((X).b != 0) OP ((Y).b != 0))

/* Every scalar primitive, on already evaluated operands (short-circuit
 * operators are handled by the callers before they get here). */
static Cell prim_apply(Interp *I, const LcuExpr *e, const Cell *a) {
  Cell r;
  r.f = 0;
  switch (e->prim) {
  case LP_ADD:
    if (opkind(e) == LT_INT) r.i = (int32_t)((uint32_t)a[0].i + (uint32_t)a[1].i);
    else r.f = a[0].f + a[1].f;
    break;
  case LP_SUB:
    if (opkind(e) == LT_INT) r.i = (int32_t)((uint32_t)a[0].i - (uint32_t)a[1].i);
    else r.f = a[0].f - a[1].f;
    break;
  case LP_MUL:
    if (opkind(e) == LT_INT) r.i = (int32_t)((uint32_t)a[0].i * (uint32_t)a[1].i);
    else r.f = a[0].f * a[1].f;
    break;
  case LP_DIV:
    if (opkind(e) != LT_INT) {
      r.f = a[0].f / a[1].f;
    } else if (a[1].i == 0) {
      fault(I, e->loc, "integer division by zero");
    } else {
      r.i = a[1].i == -1 ? (int32_t)(0u - (uint32_t)a[0].i) : a[0].i / a[1].i;
    }
    break;
  case LP_MOD:
    if (a[1].i == 0) fault(I, e->loc, "integer modulo by zero");
    r.i = a[1].i == -1 ? 0 : a[0].i % a[1].i;
    break;
  case LP_NEG:
    if (opkind(e) == LT_INT) r.i = (int32_t)(0u - (uint32_t)a[0].i);
    else r.f = -a[0].f;
    break;
  case LP_EQ: r = cmp(CMP_OP(opkind(e), a[0], a[1], ==)); break;
  case LP_NE: r = cmp(CMP_OP(opkind(e), a[0], a[1], !=)); break;
  case LP_LT: r = cmp(CMP_OP(opkind(e), a[0], a[1], <)); break;
  case LP_LE: r = cmp(CMP_OP(opkind(e), a[0], a[1], <=)); break;
  case LP_GT: r = cmp(CMP_OP(opkind(e), a[0], a[1], >)); break;
  case LP_GE: r = cmp(CMP_OP(opkind(e), a[0], a[1], >=)); break;
  case LP_ANDALSO: r.b = a[0].b && a[1].b; break;
  case LP_ORELSE: r.b = a[0].b || a[1].b; break;
  case LP_NOT:
    if (opkind(e) == LT_INT) r.i = ~a[0].i;
    else r.b = !a[0].b;
    break;
  case LP_AND:
    if (opkind(e) == LT_INT) r.i = a[0].i & a[1].i;
    else r.b = a[0].b && a[1].b;
    break;
  case LP_OR:
    if (opkind(e) == LT_INT) r.i = a[0].i | a[1].i;
    else r.b = a[0].b || a[1].b;
    break;
  case LP_XOR:
    if (opkind(e) == LT_INT) r.i = a[0].i ^ a[1].i;
    else r.b = (a[0].b != 0) != (a[1].b != 0);
    break;
  case LP_LSHIFT: /* counts outside 0..31 clamp to 32, as PTX's shl does */
    r.i = (uint32_t)a[1].i >= 32 ? 0 : (int32_t)((uint32_t)a[0].i << a[1].i);
    break;
  case LP_RSHIFT:
    r.i = (uint32_t)a[1].i >= 32 ? (a[0].i < 0 ? -1 : 0) : a[0].i >> a[1].i;
    break;
  case LP_MIN:
  case LP_MAX: {
    LcuTypeKind k = opkind(e);
    int mx = e->prim == LP_MAX;
    if (k == LT_FLOAT) r.f = mx ? fmax(a[0].f, a[1].f) : fmin(a[0].f, a[1].f);
    else if (mx) r = CMP_OP(k, a[0], a[1], >=) ? a[0] : a[1];
    else r = CMP_OP(k, a[0], a[1], <=) ? a[0] : a[1];
    break;
  }
  case LP_ABS:
    if (opkind(e) == LT_INT) r.i = a[0].i < 0 ? (int32_t)(0u - (uint32_t)a[0].i) : a[0].i;
    else r.f = fabs(a[0].f);
    break;
  case LP_SQRT: r.f = sqrt(a[0].f); break;
  case LP_EXP: r.f = exp(a[0].f); break;
  case LP_LN: r.f = log(a[0].f); break;
  case LP_SIN: r.f = sin(a[0].f); break;
  case LP_COS: r.f = cos(a[0].f); break;
  case LP_TAN: r.f = tan(a[0].f); break;
  case LP_ASIN: r.f = asin(a[0].f); break;
  case LP_ACOS: r.f = acos(a[0].f); break;
  case LP_ATAN: r.f = atan(a[0].f); break;
  case LP_SINH: r.f = sinh(a[0].f); break;
  case LP_COSH: r.f = cosh(a[0].f); break;
  case LP_TANH: r.f = tanh(a[0].f); break;
  case LP_POW: r.f = pow(a[0].f, a[1].f); break;
  case LP_I2F: r.f = (double)a[0].i; break;
  case LP_TRUNC: r.i = float_to_int(I, e, a[0].f, trunc(a[0].f)); break;
  case LP_FLOOR: r.i = float_to_int(I, e, a[0].f, floor(a[0].f)); break;
  case LP_CEIL: r.i = float_to_int(I, e, a[0].f, ceil(a[0].f)); break;
  case LP_ROUND: r.i = float_to_int(I, e, a[0].f, round(a[0].f)); break; /* halves away from 0 */
  case LP_C2I: r.i = a[0].c; break;
  case LP_FHASH: {
    double d = a[0].f == 0 ? 0 : a[0].f;
    uint64_t u;
    memcpy(&u, &d, 8);
    r.i = (int32_t)(uint32_t)(u ^ (u >> 32));
    break;
  }
  case LP_I2C:
    if (a[0].i < 0 || a[0].i > 255) fault(I, e->loc, "i2c(%d): a char code is 0..255", a[0].i);
    r.c = (unsigned char)a[0].i;
    break;
  case LP_B2I: r.i = a[0].b != 0; break;
  case LP_SELECT: r = a[0].b ? a[1] : a[2]; break;
  case LP_LENGTH:
    r.i = opkind(e) == LT_SEGDES ? (int32_t)a[0].sd->nsegs : (int32_t)a[0].arr->len;
    break;
  case LP_SEG_START:
    if (a[1].i < 0 || a[1].i > a[0].sd->nsegs)
      fault(I, e->loc, "seg_start: segment %d out of range (%lld segments)", a[1].i,
            (long long)a[0].sd->nsegs);
    r.i = (int32_t)a[0].sd->starts[a[1].i];
    break;
  case LP_SEG_LEN:
    if (a[1].i < 0 || a[1].i >= a[0].sd->nsegs)
      fault(I, e->loc, "seg_len: segment %d out of range (%lld segments)", a[1].i,
            (long long)a[0].sd->nsegs);
    r.i = a[0].sd->lens[a[1].i];
    break;
  case LP_SEG_OF:
    if (a[1].i < 0 || a[1].i >= a[0].sd->total)
      fault(I, e->loc, "seg_of: element %d out of range (%lld elements)", a[1].i,
            (long long)a[0].sd->total);
    r.i = a[0].sd->segof[a[1].i];
    break;
  case LP_SEG_TOTAL: r.i = (int32_t)a[0].sd->total; break;
  default:
    nz_die("lcu interpreter: primitive %s outside CPU code", lcu_prim_info(e->prim)->name);
  }
  return r;
}

/* ------------------------------------------------------------ thunk bodies */

static void evn(Interp *I, const LcuExpr *e, Cell *fr, Cell *out);

static inline Cell subscript(Interp *I, const LcuExpr *e, const LcuArray *a, int32_t i) {
  if (i < 0 || i >= a->len)
    fault(I, e->loc, "index %d out of range for an array of length %lld", i, (long long)a->len);
  return load(a, i);
}

static Cell ev(Interp *I, const LcuExpr *e, Cell *fr);

/* Variables and int literals are most operands: read them without a call. */
static inline Cell ev_leaf(Interp *I, const LcuExpr *e, Cell *fr) {
  if (e->kind == LE_VAR) return fr[e->slot];
  if (e->kind == LE_INT) {
    Cell c;
    c.i = e->lit.i;
    return c;
  }
  return ev(I, e, fr);
}

/* A non-tuple expression of a thunk body (or a scalar at CPU level). */
static Cell ev(Interp *I, const LcuExpr *e, Cell *fr) {
  Cell r;
  switch (e->kind) {
  case LE_INT: r.i = e->lit.i; return r;
  case LE_FLOAT: r.f = e->lit.f; return r;
  case LE_BOOL: r.b = e->lit.b; return r;
  case LE_CHAR: r.c = e->lit.c; return r;
  case LE_VAR: return fr[e->slot];
  case LE_INDEX: {
    Cell a = ev_leaf(I, e->args[0], fr);
    Cell i = ev_leaf(I, e->args[1], fr);
    return subscript(I, e, a.arr, i.i);
  }
  case LE_IF: return ev(I, e->args[ev(I, e->args[0], fr).b ? 1 : 2], fr);
  case LE_LET:
    if (e->nbinds == 1 && e->binds[0].ty->kind == LT_TUPLE) {
      evn(I, e->args[0], fr, fr[e->binds[0].slot].p);
    } else if (e->nbinds == 1) {
      fr[e->binds[0].slot] = ev(I, e->args[0], fr);
    } else {
      Cell tmp[e->nbinds];
      evn(I, e->args[0], fr, tmp);
      for (int k = 0; k < e->nbinds; k++) fr[e->binds[k].slot] = tmp[k];
    }
    return ev(I, e->args[1], fr);
  case LE_PRIM: {
    if (e->prim == LP_ANDALSO) {
      r.b = ev(I, e->args[0], fr).b && ev(I, e->args[1], fr).b;
      return r;
    }
    if (e->prim == LP_ORELSE) {
      r.b = ev(I, e->args[0], fr).b || ev(I, e->args[1], fr).b;
      return r;
    }
    Cell a[3];
    for (int k = 0; k < e->nargs && k < 3; k++) a[k] = ev_leaf(I, e->args[k], fr);
    /* the usual int operators without the general dispatch */
    if (e->nargs == 2 && opkind(e) == LT_INT) {
      switch (e->prim) {
      case LP_ADD: r.i = (int32_t)((uint32_t)a[0].i + (uint32_t)a[1].i); return r;
      case LP_SUB: r.i = (int32_t)((uint32_t)a[0].i - (uint32_t)a[1].i); return r;
      case LP_MUL: r.i = (int32_t)((uint32_t)a[0].i * (uint32_t)a[1].i); return r;
      case LP_LT: r.b = a[0].i < a[1].i; return r;
      case LP_LE: r.b = a[0].i <= a[1].i; return r;
      case LP_GT: r.b = a[0].i > a[1].i; return r;
      case LP_GE: r.b = a[0].i >= a[1].i; return r;
      case LP_EQ: r.b = a[0].i == a[1].i; return r;
      case LP_NE: r.b = a[0].i != a[1].i; return r;
      default: break;
      }
    }
    return prim_apply(I, e, a);
  }
  default:
    nz_die("lcu interpreter: %s expression in a thunk", e->kind == LE_TUPLE ? "tuple" : "CPU-only");
  }
}

/* Any expression of a thunk body: writes its arity(ty) components to out. */
static void evn(Interp *I, const LcuExpr *e, Cell *fr, Cell *out) {
  int n = lcu_type_arity(e->ty);
  if (e->ty->kind != LT_TUPLE) {
    out[0] = ev(I, e, fr);
    return;
  }
  switch (e->kind) {
  case LE_TUPLE:
    for (int k = 0; k < e->nargs; k++) out[k] = ev(I, e->args[k], fr);
    return;
  case LE_VAR: memcpy(out, fr[e->slot].p, sizeof(Cell) * (size_t)n); return;
  case LE_IF: evn(I, e->args[ev(I, e->args[0], fr).b ? 1 : 2], fr, out); return;
  case LE_LET:
    if (e->nbinds == 1 && e->binds[0].ty->kind == LT_TUPLE) {
      evn(I, e->args[0], fr, fr[e->binds[0].slot].p);
    } else if (e->nbinds == 1) {
      fr[e->binds[0].slot] = ev(I, e->args[0], fr);
    } else {
      Cell tmp[e->nbinds];
      evn(I, e->args[0], fr, tmp);
      for (int k = 0; k < e->nbinds; k++) fr[e->binds[k].slot] = tmp[k];
    }
    evn(I, e->args[1], fr, out);
    return;
  case LE_PRIM:
    if (e->prim == LP_SELECT) { /* both branches evaluated, as the primitive says */
      Cell c = ev(I, e->args[0], fr), other[n];
      evn(I, e->args[1], fr, c.b ? out : other);
      evn(I, e->args[2], fr, c.b ? other : out);
      return;
    }
    break;
  default: break;
  }
  nz_die("lcu interpreter: unexpected tuple-valued expression in a thunk");
}

/* Thunk frames: [captures][params][locals] as laid out by the checker, then
 * room for the components of tuple-valued single-binder lets, whose slot
 * holds a pointer to that room. */
typedef struct {
  const LcuThunk *t;
  Cell *fr;
  int nout; /* components of the body's result */
} TApp;

static int count_wide(const LcuExpr *e) {
  if (!e) return 0;
  int n = 0;
  if (e->kind == LE_LET && e->nbinds == 1 && e->binds[0].ty->kind == LT_TUPLE)
    n += e->binds[0].ty->n;
  for (int k = 0; k < e->nargs; k++) n += count_wide(e->args[k]);
  return n;
}

static void place_wide(const LcuExpr *e, Cell *fr, Cell **next) {
  if (e->kind == LE_LET && e->nbinds == 1 && e->binds[0].ty->kind == LT_TUPLE) {
    fr[e->binds[0].slot].p = *next;
    *next += e->binds[0].ty->n;
  }
  for (int k = 0; k < e->nargs; k++) place_wide(e->args[k], fr, next);
}

/* Captures are copied into the thunk frame once per SOAC application. */
static void thunk_open(Interp *I, TApp *a, const LcuThunk *t, Frame *kf) {
  int wide = count_wide(t->body);
  a->t = t;
  a->fr = scratch_alloc(I, sizeof(Cell) * (size_t)(t->nslots + wide + 1));
  a->nout = lcu_type_arity(t->body->ty);
  for (int i = 0; i < t->nusing; i++) a->fr[i] = cell_of(kf->v[t->usings[i].slot]);
  Cell *next = a->fr + t->nslots;
  place_wide(t->body, a->fr, &next);
}

/* Λ(i) into out[0..nout). */
static inline void thunk_at(Interp *I, const TApp *a, int64_t i, Cell *out) {
  if (a->t->nparams) a->fr[a->t->params[0].slot].i = (int32_t)i;
  if (a->nout == 1 && a->t->body->ty->kind != LT_TUPLE) out[0] = ev(I, a->t->body, a->fr);
  else evn(I, a->t->body, a->fr, out);
}

/* ------------------------------------------------------------------ SOACs */

static Cell rop_identity(LcuRop r) {
  Cell c;
  c.f = 0;
  switch (r) {
  case LR_IADD: case LR_IOR: case LR_IXOR: c.i = 0; break;
  case LR_IMUL: c.i = 1; break;
  case LR_IAND: c.i = -1; break;
  case LR_IMAX: c.i = INT32_MIN; break;
  case LR_IMIN: c.i = INT32_MAX; break;
  case LR_FADD: c.f = 0.0; break;
  case LR_FMUL: c.f = 1.0; break;
  case LR_FMAX: c.f = -INFINITY; break;
  case LR_FMIN: c.f = INFINITY; break;
  case LR_BAND: c.b = 1; break;
  case LR_BOR: case LR_BXOR: c.b = 0; break;
  default: nz_die("lcu interpreter: no identity for %s", lcu_rop_name(r));
  }
  return c;
}

static inline Cell rop_apply(LcuRop r, Cell a, Cell b) {
  Cell c;
  switch (r) {
  case LR_IADD: c.i = (int32_t)((uint32_t)a.i + (uint32_t)b.i); break;
  case LR_IMUL: c.i = (int32_t)((uint32_t)a.i * (uint32_t)b.i); break;
  case LR_IMAX: c.i = a.i > b.i ? a.i : b.i; break;
  case LR_IMIN: c.i = a.i < b.i ? a.i : b.i; break;
  case LR_IAND: c.i = a.i & b.i; break;
  case LR_IOR: c.i = a.i | b.i; break;
  case LR_IXOR: c.i = a.i ^ b.i; break;
  case LR_FADD: c.f = a.f + b.f; break;
  case LR_FMUL: c.f = a.f * b.f; break;
  case LR_FMAX: c.f = fmax(a.f, b.f); break;
  case LR_FMIN: c.f = fmin(a.f, b.f); break;
  case LR_BAND: c.b = a.b && b.b; break;
  case LR_BOR: c.b = a.b || b.b; break;
  case LR_BXOR: c.b = (a.b != 0) != (b.b != 0); break;
  default: nz_die("lcu interpreter: %s is not a combining operator", lcu_rop_name(r));
  }
  return c;
}

static int64_t soac_size(Interp *I, const LcuSize *z, Frame *kf) {
  int64_t n;
  switch (z->kind) {
  case LZ_LIT: n = z->lit; break;
  case LZ_VAR: {
    LcuValue v = kf->v[z->slot];
    if (v.kind == LT_INT) n = v.u.i;
    else if (v.kind == LT_SEGDES) n = v.u.sd->total;
    else nz_die("lcu interpreter: size variable %s is not an int", z->name);
    break;
  }
  case LZ_LEN: {
    LcuValue v = kf->v[z->slot];
    if (v.kind == LT_ARRAY) n = v.u.arr->len;
    else if (v.kind == LT_SEGDES) n = v.u.sd->nsegs;
    else nz_die("lcu interpreter: #%s of a non-array", z->name);
    break;
  }
  default: nz_die("lcu interpreter: SOAC without a size");
  }
  if (n < 0) fault(I, z->loc, "the size (%s) is negative: %lld", z->name ? z->name : "?", (long long)n);
  return n;
}

static LcuSegdes *soac_segdes(const LcuSize *z, Frame *kf) {
  if (z->kind != LZ_VAR || kf->v[z->slot].kind != LT_SEGDES)
    nz_die("lcu interpreter: segmented SOAC over a non-segdes size");
  return kf->v[z->slot].u.sd;
}

/* New output array for component k of thunk t's result, owned by binder
 * slot `slot` of the kernel frame from the start (so a fault releases it). */
static LcuArray *out_array(const LcuThunk *t, int k, int64_t len, Frame *kf, int slot) {
  LcuArray *a = lcu_array_new(lcu_type_component(t->body->ty, k)->kind, len);
  set_slot(kf, slot, array_value(a));
  return a;
}

static void shrink(LcuArray *a, int64_t len) {
  a->len = len;
  size_t sz = a->elem == LT_FLOAT ? 8 : a->elem == LT_INT ? 4 : 1;
  a->d.b = nz_xrealloc(a->d.b, sz * (size_t)(len ? len : 1));
}

LcuStats lcu_stats;

NOINLINE static void run_soac(Interp *I, const LcuSoac *s, Frame *kf) {
  lcu_stats.soacs++;
  lcu_stats.elements += s->size.kind == LZ_NONE ? 1 : soac_size(I, &s->size, kf);
  int mark = I->scratch.n;
  TApp ta, tb;
  thunk_open(I, &ta, s->thunks[0], kf);
  if (s->nthunks > 1) thunk_open(I, &tb, s->thunks[1], kf);
  int nc = ta.nout;
  /* per-component state: the thunk's values, accumulators, output arrays */
  Cell *v = scratch_alloc(I, sizeof(Cell) * (size_t)(nc + 1));
  Cell *acc = scratch_alloc(I, sizeof(Cell) * (size_t)(nc + 1));
  LcuArray **out = scratch_alloc(I, sizeof(LcuArray *) * (size_t)(2 * nc + 1));
  const LcuThunk *t = s->thunks[0];
  switch (s->kind) {
  case LS_ONCE:
    thunk_at(I, &ta, 0, v);
    for (int k = 0; k < nc; k++)
      set_slot(kf, s->binds[k].slot, value_of(lcu_type_component(t->body->ty, k)->kind, v[k]));
    break;
  case LS_MAP: {
    int64_t n = soac_size(I, &s->size, kf);
    for (int k = 0; k < nc; k++) out[k] = out_array(t, k, n, kf, s->binds[k].slot);
    if (nc == 1 && t->nparams == 1 && t->body->ty->kind != LT_TUPLE) {
      /* the common case, kept tight */
      Cell *ix = &ta.fr[t->params[0].slot];
      const LcuExpr *body = t->body;
      LcuArray *o = out[0];
      for (int64_t i = 0; i < n; i++) {
        ix->i = (int32_t)i;
        store(o, i, ev(I, body, ta.fr));
      }
    } else {
      for (int64_t i = 0; i < n; i++) {
        thunk_at(I, &ta, i, v);
        for (int k = 0; k < nc; k++) store(out[k], i, v[k]);
      }
    }
    break;
  }
  case LS_PERMUTE: {
    int64_t n = soac_size(I, &s->size, kf);
    int64_t m = s->outlen.kind == LZ_NONE ? n : soac_size(I, &s->outlen, kf);
    for (int k = 0; k < nc; k++) out[k] = out_array(t, k, m, kf, s->binds[k].slot);
    /* Without `into` the destinations must be a permutation of [0, n)
     * (NESL's permute; README): a collision is a fault, as fusion relies
     * on it (PERMUTE into REDUCE reduces the values in source order). */
    int32_t *from = s->outlen.kind == LZ_NONE ? scratch_alloc(I, sizeof(int32_t) * (size_t)(n ? n : 1)) : NULL;
    for (int64_t i = 0; i < n; i++) {
      Cell d;
      thunk_at(I, &ta, i, v);
      thunk_at(I, &tb, i, &d);
      if (d.i < 0 || d.i >= m)
        fault(I, s->thunks[1]->loc,
              "PERMUTE destination %d (from source index %lld) out of range for length %lld", d.i,
              (long long)i, (long long)m);
      if (from) {
        if (from[d.i])
          fault(I, s->thunks[1]->loc,
                "PERMUTE destination %d written from source indices %d and %lld (without 'into', the "
                "destinations must be a permutation)",
                d.i, from[d.i] - 1, (long long)i);
        from[d.i] = (int32_t)i + 1;
      }
      for (int k = 0; k < nc; k++) store(out[k], d.i, v[k]);
    }
    break;
  }
  case LS_REDUCE:
  case LS_SCAN: {
    int64_t n = soac_size(I, &s->size, kf);
    int scan = s->kind == LS_SCAN;
    for (int k = 0; k < nc; k++) {
      if (s->rops[k] == LR_ID || scan) out[k] = out_array(t, k, n, kf, s->binds[k].slot);
      if (s->rops[k] != LR_ID) acc[k] = rop_identity(s->rops[k]);
    }
    if (nc == 1 && t->nparams == 1 && t->body->ty->kind != LT_TUPLE && s->rops[0] != LR_ID) {
      Cell *ix = &ta.fr[t->params[0].slot], a = acc[0];
      const LcuExpr *body = t->body;
      LcuRop r = s->rops[0];
      for (int64_t i = 0; i < n; i++) {
        ix->i = (int32_t)i;
        a = rop_apply(r, a, ev(I, body, ta.fr));
        if (scan) store(out[0], i, a);
      }
      acc[0] = a;
    } else {
      for (int64_t i = 0; i < n; i++) {
        thunk_at(I, &ta, i, v);
        for (int k = 0; k < nc; k++) {
          if (s->rops[k] == LR_ID) {
            store(out[k], i, v[k]);
          } else {
            acc[k] = rop_apply(s->rops[k], acc[k], v[k]);
            if (scan) store(out[k], i, acc[k]);
          }
        }
      }
    }
    if (!scan)
      for (int k = 0; k < nc; k++)
        if (s->rops[k] != LR_ID)
          set_slot(kf, s->binds[k].slot, value_of(lcu_type_component(t->body->ty, k)->kind, acc[k]));
    break;
  }
  case LS_FILTER:
  case LS_PARTITION: {
    int64_t n = soac_size(I, &s->size, kf), kept = 0, rej = 0;
    int part = s->kind == LS_PARTITION;
    const LcuThunk *pt = s->thunks[1];
    for (int k = 0; k < nc; k++) {
      out[k] = out_array(t, k, n, kf, s->binds[k].slot);
      if (part) out[nc + k] = out_array(t, k, n, kf, s->binds[nc + k].slot);
    }
    for (int64_t i = 0; i < n; i++) {
      thunk_at(I, &ta, i, v);
      for (int k = 0; k < pt->nparams && k < nc; k++) tb.fr[pt->params[k].slot] = v[k];
      if (ev(I, pt->body, tb.fr).b) {
        for (int k = 0; k < nc; k++) store(out[k], kept, v[k]);
        kept++;
      } else if (part) {
        for (int k = 0; k < nc; k++) store(out[nc + k], rej, v[k]);
        rej++;
      }
    }
    for (int k = 0; k < nc; k++) {
      shrink(out[k], kept);
      if (part) shrink(out[nc + k], rej);
    }
    break;
  }
  case LS_SEGREDUCE:
  case LS_SEGSCAN: {
    const LcuSegdes *sd = soac_segdes(&s->size, kf);
    int scan = s->kind == LS_SEGSCAN;
    for (int k = 0; k < nc; k++) {
      int flat = s->rops[k] == LR_ID || scan;
      out[k] = out_array(t, k, flat ? sd->total : sd->nsegs, kf, s->binds[k].slot);
    }
    for (int64_t j = 0; j < sd->nsegs; j++) {
      for (int k = 0; k < nc; k++)
        if (s->rops[k] != LR_ID) acc[k] = rop_identity(s->rops[k]);
      for (int64_t i = sd->starts[j]; i < sd->starts[j + 1]; i++) {
        thunk_at(I, &ta, i, v);
        for (int k = 0; k < nc; k++) {
          if (s->rops[k] == LR_ID) {
            store(out[k], i, v[k]);
          } else {
            acc[k] = rop_apply(s->rops[k], acc[k], v[k]);
            if (scan) store(out[k], i, acc[k]);
          }
        }
      }
      if (!scan)
        for (int k = 0; k < nc; k++)
          if (s->rops[k] != LR_ID) store(out[k], j, acc[k]);
    }
    break;
  }
  default: nz_die("lcu interpreter: bad SOAC kind %d", (int)s->kind);
  }
  scratch_release(I, mark);
}

/* Runs kernel k in frame kf (its parameters already bound); returns the
 * values named by `return`, a tuple when there are several. */
NOINLINE static LcuValue run_kernel(Interp *I, const LcuKernel *k, Frame *kf) {
  for (int i = 0; i < k->nsoacs; i++) run_soac(I, &k->soacs[i], kf);
  if (k->nrets == 1) return lcu_value_copy(kf->v[k->rets[0].slot]);
  LcuValue *vals = nz_xmalloc(sizeof(LcuValue) * (size_t)(k->nrets ? k->nrets : 1));
  for (int i = 0; i < k->nrets; i++) vals[i] = lcu_value_copy(kf->v[k->rets[i].slot]);
  LcuValue t = lcu_value_tuple(k->nrets, vals);
  free(vals);
  return t;
}

/* ---------------------------------------------------------------- CPU code */

static void temp_push(Interp *I, LcuValue v) { nz_vec_push(I->temps, v); }

static LcuValue temp_pop(Interp *I) {
  if (I->temps.n == 0) nz_die("lcu interpreter: temporary stack underflow");
  return I->temps.v[--I->temps.n];
}

static LcuValue eval(Interp *I, const LcuExpr *e, Frame *f);

/* The CPU-only and rarely used cases live in their own functions so that
 * eval's C frame, which deep λcu recursion multiplies, stays small. */

NOINLINE static LcuValue prim_print(Interp *I, const LcuExpr *e, Frame *f) {
  LcuValue v = eval(I, e->args[0], f);
  NzBuf b = {0};
  lcu_value_print(&b, v);
  nz_buf_putc(&b, '\n');
  fwrite(b.s, 1, b.len, stdout); /* by length: a '\0' char is printed too */
  nz_buf_free(&b);
  lcu_value_release(v);
  return lcu_value_tuple(0, NULL);
}

NOINLINE static LcuValue prim_show(Interp *I, const LcuExpr *e, Frame *f) {
  LcuValue t = eval(I, e->args[0], f);
  temp_push(I, t);
  LcuValue v = eval(I, e->args[1], f);
  temp_push(I, v);
  int n = v.kind == LT_TUPLE ? v.u.tup.n : 1;
  NzBuf b = {0};
  if (lcu_show(&b, (const char *)t.u.arr->d.b, (size_t)t.u.arr->len, v.kind == LT_TUPLE ? v.u.tup.elems : &v,
               n) != 0) {
    nz_buf_free(&b);
    fault(I, e->loc, "show: the value does not match the description '%.*s'", (int)t.u.arr->len,
          (const char *)t.u.arr->d.b);
  }
  fwrite(b.s, 1, b.len, stdout); /* by length: a '\0' char is printed too */
  nz_buf_free(&b);
  lcu_value_release(temp_pop(I));
  lcu_value_release(temp_pop(I));
  return lcu_value_tuple(0, NULL);
}

/* (segdes, [char]): n rows of text, row r of length lens[r], concatenated in b. */
static LcuValue seg_text(const int32_t *lens, int64_t n, const NzBuf *b) {
  LcuArray *cs = lcu_array_new(LT_CHAR, (int64_t)b->len);
  if (b->len) memcpy(cs->d.b, b->s, b->len);
  LcuValue v[2] = {{.kind = LT_SEGDES}, array_value(cs)};
  v[0].u.sd = lcu_segdes_new(lens, n);
  return lcu_value_tuple(2, v);
}

/* Faults if n rows of text of b->len characters in all do not fit a segdes. */
static void text_fits(Interp *I, const LcuExpr *e, int32_t *lens, NzBuf *b) {
  if (b->len <= INT32_MAX) return;
  free(lens);
  nz_buf_free(b);
  fault(I, e->loc, "%s: more than 2147483647 characters of text", lcu_prim_info(e->prim)->name);
}

NOINLINE static LcuValue prim_format(Interp *I, const LcuExpr *e, Frame *f) {
  LcuValue t = eval(I, e->args[0], f);
  temp_push(I, t);
  int32_t n = eval(I, e->args[1], f).u.i;
  LcuValue v = eval(I, e->args[2], f);
  temp_push(I, v);
  int32_t *lens = nz_xmalloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
  NzBuf b = {0};
  if (lcu_format(&b, lens, (const char *)t.u.arr->d.b, (size_t)t.u.arr->len, n,
                 v.kind == LT_TUPLE ? v.u.tup.elems : &v, v.kind == LT_TUPLE ? v.u.tup.n : 1) != 0) {
    free(lens);
    nz_buf_free(&b);
    fault(I, e->loc, "format: %d rows of the value do not match the description '%.*s'", n,
          (int)t.u.arr->len, (const char *)t.u.arr->d.b);
  }
  text_fits(I, e, lens, &b);
  LcuValue r = seg_text(lens, n, &b);
  free(lens);
  nz_buf_free(&b);
  lcu_value_release(temp_pop(I));
  lcu_value_release(temp_pop(I));
  return r;
}

NOINLINE static LcuValue prim_float_text(Interp *I, const LcuExpr *e, Frame *f) {
  for (int k = 0; k < 3; k++) temp_push(I, eval(I, e->args[k], f));
  const LcuValue *a = &I->temps.v[I->temps.n - 3];
  int64_t n = a[0].u.arr->len;
  if (a[1].u.arr->len != n || a[2].u.arr->len != n)
    fault(I, e->loc, "float_text: arrays of lengths %lld, %lld and %lld", (long long)n,
          (long long)a[1].u.arr->len, (long long)a[2].u.arr->len);
  int32_t *lens = nz_xmalloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
  NzBuf b = {0};
  lcu_float_text(&b, lens, a[0].u.arr->d.f, a[1].u.arr->d.i, a[2].u.arr->d.b, n);
  text_fits(I, e, lens, &b);
  LcuValue r = seg_text(lens, n, &b);
  free(lens);
  nz_buf_free(&b);
  for (int k = 0; k < 3; k++) lcu_value_release(temp_pop(I));
  return r;
}

NOINLINE static LcuValue prim_parse_float(Interp *I, const LcuExpr *e, Frame *f) {
  LcuValue sdv = eval(I, e->args[0], f);
  temp_push(I, sdv);
  LcuValue cv = eval(I, e->args[1], f);
  temp_push(I, cv);
  const LcuSegdes *sd = sdv.u.sd;
  if (sd->total != cv.u.arr->len)
    fault(I, e->loc, "parse_float: a segdes of %lld elements over %lld characters", (long long)sd->total,
          (long long)cv.u.arr->len);
  LcuArray *xs = lcu_array_new(LT_FLOAT, sd->nsegs), *ok = lcu_array_new(LT_BOOL, sd->nsegs);
  for (int64_t r = 0; r < sd->nsegs; r++)
    ok->d.b[r] = nz_parse_float((const char *)cv.u.arr->d.b + sd->starts[r], sd->lens[r], &xs->d.f[r]);
  lcu_value_release(temp_pop(I));
  lcu_value_release(temp_pop(I));
  LcuValue v[2] = {array_value(xs), array_value(ok)};
  return lcu_value_tuple(2, v);
}

NOINLINE static LcuValue prim_print_chars(Interp *I, const LcuExpr *e, Frame *f) {
  LcuValue v = eval(I, e->args[0], f);
  fwrite(v.u.arr->d.b, 1, (size_t)v.u.arr->len, stdout);
  lcu_value_release(v);
  return lcu_value_tuple(0, NULL);
}

NOINLINE static LcuValue prim_io(Interp *I, const LcuExpr *e, Frame *f) {
  for (int k = 0; k < e->nargs; k++) temp_push(I, eval(I, e->args[k], f));
  LcuValue r = lcu_io_call(e->prim, &I->temps.v[I->temps.n - e->nargs]);
  for (int k = 0; k < e->nargs; k++) lcu_value_release(temp_pop(I));
  return r;
}

NOINLINE static LcuValue prim_read_object(Interp *I, const LcuExpr *e, Frame *f) {
  for (int k = 0; k < 3; k++) temp_push(I, eval(I, e->args[k], f));
  const LcuValue *a = &I->temps.v[I->temps.n - 3];
  int n = lcu_type_arity(e->opty);
  LcuValue *out = nz_xcalloc((size_t)n + 1, sizeof *out);
  if (lcu_read_objects((const char *)a[0].u.arr->d.b, (size_t)a[0].u.arr->len, a[1].u.tup.elems[0].u.sd,
                       a[1].u.tup.elems[1].u.arr, out, n) != 0) {
    free(out);
    fault(I, e->loc, "read_object: the description '%.*s' does not fit the operands", (int)a[0].u.arr->len,
          (const char *)a[0].u.arr->d.b);
  }
  for (int k = 0; k < 3; k++) lcu_value_release(temp_pop(I));
  LcuValue r = lcu_value_tuple(n + 1, out);
  free(out);
  return r;
}

NOINLINE static LcuValue prim_fail_if(Interp *I, const LcuExpr *e, Frame *f) {
  LcuValue c = eval(I, e->args[0], f);
  LcuValue m = eval(I, e->args[1], f);
  if (c.u.b) {
    temp_push(I, m);
    fault(I, e->loc, "%.*s", (int)m.u.arr->len, (const char *)m.u.arr->d.b);
  }
  lcu_value_release(m);
  return lcu_value_tuple(0, NULL);
}

/* rand, rand_vec, rand_seed, timer: the generator of compiler/common/rand.c (the AST
 * interpreter's), its state global, draws in index order. */
NOINLINE static LcuValue prim_rand(Interp *I, const LcuExpr *e, Frame *f) {
  LcuValue v = eval(I, e->args[0], f);
  switch (e->prim) {
  case LP_RAND_SEED: nz_rand_seed(v.u.i); return lcu_value_bool(1);
  case LP_RAND:
    if (v.kind == LT_FLOAT ? !(v.u.f > 0) : v.u.i <= 0) fault(I, e->loc, "Rand only works with positive numbers.");
    return v.kind == LT_FLOAT ? lcu_value_float(nz_rand_float(v.u.f)) : lcu_value_int(nz_rand_int(v.u.i));
  default: break;
  }
  temp_push(I, v);
  const LcuArray *a = v.u.arr;
  LcuArray *r = lcu_array_new(a->elem, a->len);
  for (int64_t j = 0; j < a->len; j++) {
    if (a->elem == LT_FLOAT ? !(a->d.f[j] > 0) : a->d.i[j] <= 0) {
      lcu_value_release(array_value(r));
      fault(I, e->loc, "Rand only works with positive numbers.");
    }
    if (a->elem == LT_FLOAT) r->d.f[j] = nz_rand_float(a->d.f[j]);
    else r->d.i[j] = nz_rand_int(a->d.i[j]);
  }
  lcu_value_release(temp_pop(I));
  return array_value(r);
}

NOINLINE static LcuValue prim_fail_if_g(Interp *I, const LcuExpr *e, Frame *f) {
  LcuValue c = eval(I, e->args[0], f);
  LcuValue m = eval(I, e->args[1], f);
  temp_push(I, m);
  LcuValue x = eval(I, e->args[2], f);
  if (c.u.b) {
    NzBuf b = {0};
    nz_msg_g(&b, (const char *)m.u.arr->d.b, (size_t)m.u.arr->len, x.u.f);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", b.s ? b.s : "");
    nz_buf_free(&b);
    fault(I, e->loc, "%s", msg);
  }
  lcu_value_release(temp_pop(I));
  return lcu_value_tuple(0, NULL);
}

NOINLINE static LcuValue prim_sort_perm(Interp *I, const LcuExpr *e, Frame *f) {
  LcuValue sd = eval(I, e->args[0], f);
  temp_push(I, sd);
  LcuValue x = eval(I, e->args[1], f);
  temp_push(I, x);
  if (x.u.arr->len != sd.u.sd->total)
    fault(I, e->loc, "sort_perm: %lld elements for a segdes of %lld", (long long)x.u.arr->len,
          (long long)sd.u.sd->total);
  LcuArray *r = lcu_array_new(LT_INT, x.u.arr->len);
  nz_sort_perm(sd.u.sd->starts, sd.u.sd->nsegs, x.u.arr->d.f, r->d.i);
  lcu_value_release(temp_pop(I));
  lcu_value_release(temp_pop(I));
  return array_value(r);
}

NOINLINE static LcuValue prim_make_segdes(Interp *I, const LcuExpr *e, Frame *f) {
  LcuValue v = eval(I, e->args[0], f);
  temp_push(I, v);
  const LcuArray *a = v.u.arr;
  int64_t total = 0;
  for (int64_t j = 0; j < a->len; j++) {
    if (a->d.i[j] < 0)
      fault(I, e->loc, "make_segdes: negative segment length %d at position %lld", a->d.i[j],
            (long long)j);
    total += a->d.i[j];
  }
  if (total > INT32_MAX)
    fault(I, e->loc, "make_segdes: %lld elements in all, more than an int can index",
          (long long)total);
  LcuValue r = {.kind = LT_SEGDES};
  r.u.sd = lcu_segdes_new(a->d.i, a->len);
  lcu_value_release(temp_pop(I));
  return r;
}

NOINLINE static LcuValue prim_seg_lengths(Interp *I, const LcuExpr *e, Frame *f) {
  LcuValue v = eval(I, e->args[0], f);
  LcuArray *a = lcu_array_new(LT_INT, v.u.sd->nsegs);
  if (a->len) memcpy(a->d.i, v.u.sd->lens, sizeof(int32_t) * (size_t)a->len);
  lcu_value_release(v);
  return array_value(a);
}

NOINLINE static LcuValue prim_select(Interp *I, const LcuExpr *e, Frame *f) {
  for (int k = 0; k < 3; k++) temp_push(I, eval(I, e->args[k], f));
  LcuValue no = temp_pop(I), yes = temp_pop(I), c = temp_pop(I);
  if (!c.u.b) {
    LcuValue t = yes;
    yes = no;
    no = t;
  }
  lcu_value_release(no);
  return yes;
}

/* Scalar primitives (and #, seg_*): operands wait on the temporary stack. */
NOINLINE static LcuValue prim_generic(Interp *I, const LcuExpr *e, Frame *f) {
  if (e->nargs > 3) nz_die("lcu interpreter: primitive with %d operands", e->nargs);
  int base = I->temps.n;
  for (int k = 0; k < e->nargs; k++) temp_push(I, eval(I, e->args[k], f));
  Cell a[3];
  for (int k = 0; k < e->nargs; k++) a[k] = cell_of(I->temps.v[base + k]);
  Cell r = prim_apply(I, e, a);
  while (I->temps.n > base) lcu_value_release(temp_pop(I));
  return value_of(e->ty->kind, r);
}

NOINLINE static LcuValue eval_array(Interp *I, const LcuExpr *e, Frame *f) {
  LcuTypeKind k = e->opty ? e->opty->kind : e->ty->elem;
  LcuArray *a = lcu_array_new(k, e->nargs);
  temp_push(I, array_value(a));
  for (int i = 0; i < e->nargs; i++) store(a, i, cell_of(eval(I, e->args[i], f)));
  return temp_pop(I);
}

NOINLINE static LcuValue eval_tuple(Interp *I, const LcuExpr *e, Frame *f) {
  int base = I->temps.n;
  for (int k = 0; k < e->nargs; k++) temp_push(I, eval(I, e->args[k], f));
  LcuValue t = lcu_value_tuple(e->nargs, e->nargs ? I->temps.v + base : NULL); /* (): temps may be unallocated */
  I->temps.n = base;
  return t;
}

NOINLINE static LcuValue eval_index(Interp *I, const LcuExpr *e, Frame *f) {
  LcuValue a = eval(I, e->args[0], f);
  temp_push(I, a);
  int32_t i = eval(I, e->args[1], f).u.i;
  Cell c = subscript(I, e, a.u.arr, i);
  LcuTypeKind k = a.u.arr->elem;
  lcu_value_release(temp_pop(I));
  return value_of(k, c);
}

NOINLINE static void bind_let(Interp *I, const LcuExpr *e, Frame *f, LcuValue v) {
  if (e->nbinds == 1) {
    set_slot(f, e->binds[0].slot, v);
    return;
  }
  if (v.kind != LT_TUPLE || v.u.tup.n != e->nbinds)
    nz_die("lcu interpreter: let destructures %d names from a non-matching value", e->nbinds);
  for (int k = 0; k < e->nbinds; k++) set_slot(f, e->binds[k].slot, v.u.tup.elems[k]);
  free(v.u.tup.elems);
}

/* A call: the callee's frame is on the frame list while its arguments are
 * evaluated into it, so a fault there releases them. */
NOINLINE static LcuValue eval_call(Interp *I, const LcuExpr *e, Frame *f) {
  const LcuFunc *fn = e->target;
  if (!fn) nz_die("lcu interpreter: unresolved call of %s", e->name);
  /* A runaway recursion is the program's error, not a crash. The frame
   * address is the real stack even where ASan moves locals elsewhere. */
  char *here = __builtin_frame_address(0);
  size_t used = here < I->stack_top ? (size_t)(I->stack_top - here) : (size_t)(here - I->stack_top);
  if (I->depth >= nz_max_depth()) fault(I, e->loc, NZ_DEEP_MSG, (long long)nz_max_depth());
  if (used > I->stack_room) fault(I, e->loc, NZ_STACK_MSG);
  Frame *nf = frame_push(I, fn->nslots);
  for (int k = 0; k < e->nargs; k++) set_slot(nf, k, eval(I, e->args[k], f));
  I->depth++;
  LcuValue r = eval(I, fn->body, nf);
  I->depth--;
  temp_push(I, r);
  frame_pop(I, nf);
  return temp_pop(I);
}

NOINLINE static LcuValue eval_run(Interp *I, const LcuExpr *e, Frame *f) {
  const LcuKernel *k = e->target;
  if (!k) nz_die("lcu interpreter: unresolved kernel %s", e->name);
  Frame *kf = frame_push(I, k->nslots);
  for (int i = 0; i < e->nargs; i++) set_slot(kf, i, eval(I, e->args[i], f));
  LcuValue r = run_kernel(I, k, kf);
  temp_push(I, r);
  frame_pop(I, kf);
  return temp_pop(I);
}

/* Evaluates a CPU expression to an owned value. let bodies and if branches
 * are tail positions and loop instead of recursing. */
static LcuValue eval(Interp *I, const LcuExpr *e, Frame *f) {
  for (;;) {
    switch (e->kind) {
    case LE_INT: return lcu_value_int(e->lit.i);
    case LE_FLOAT: return lcu_value_float(e->lit.f);
    case LE_BOOL: return lcu_value_bool(e->lit.b);
    case LE_CHAR: return lcu_value_char(e->lit.c);
    case LE_VAR:
      if (e->slot < 0 || e->slot >= f->n) nz_die("lcu interpreter: unresolved variable %s", e->name);
      if (e->last) { /* its last use: the value moves out, so it dies with its consumer */
        LcuValue v = f->v[e->slot];
        f->v[e->slot] = (LcuValue){0};
        return v;
      }
      return lcu_value_copy(f->v[e->slot]);
    case LE_ARRAY: return eval_array(I, e, f);
    case LE_PRIM:
      switch (e->prim) {
      case LP_ANDALSO:
      case LP_ORELSE: {
        int a = eval(I, e->args[0], f).u.b;
        if (e->prim == LP_ANDALSO ? !a : a) return lcu_value_bool(a);
        e = e->args[1]; /* its value is the result: a tail position */
        continue;
      }
      case LP_PRINT: return prim_print(I, e, f);
      case LP_FAIL_IF: return prim_fail_if(I, e, f);
      case LP_FAIL_IF_G: return prim_fail_if_g(I, e, f);
      case LP_SORT_PERM: return prim_sort_perm(I, e, f);
      case LP_SHOW: return prim_show(I, e, f);
      case LP_FORMAT: return prim_format(I, e, f);
      case LP_FLOAT_TEXT: return prim_float_text(I, e, f);
      case LP_PARSE_FLOAT: return prim_parse_float(I, e, f);
      case LP_PRINT_CHARS: return prim_print_chars(I, e, f);
      case LP_READ_OBJECT: return prim_read_object(I, e, f);
      case LP_OPEN_FILE: case LP_CLOSE_FILE: case LP_WRITE_STREAM: case LP_READ_CHAR:
      case LP_READ_FILE: case LP_GETENV: case LP_SHELL: case LP_SPAWN: return prim_io(I, e, f);
      case LP_MAKE_SEGDES: return prim_make_segdes(I, e, f);
      case LP_SEG_LENGTHS: return prim_seg_lengths(I, e, f);
      case LP_SELECT: return prim_select(I, e, f);
      case LP_RAND:
      case LP_RAND_VEC:
      case LP_RAND_SEED: return prim_rand(I, e, f);
      case LP_TIMER: return lcu_value_float(nz_now());
      default: return prim_generic(I, e, f);
      }
    case LE_IF: e = e->args[eval(I, e->args[0], f).u.b ? 1 : 2]; continue;
    case LE_LET:
      bind_let(I, e, f, eval(I, e->args[0], f));
      e = e->args[1];
      continue;
    case LE_TUPLE: return eval_tuple(I, e, f);
    case LE_INDEX: return eval_index(I, e, f);
    case LE_CALL: return eval_call(I, e, f);
    case LE_RUN: return eval_run(I, e, f);
    }
    nz_die("lcu interpreter: bad expression kind %d", (int)e->kind);
  }
}

/* ------------------------------------------------------------------- main */

typedef struct {
  const LcuProgram *p;
  int nargs;
  const LcuValue *args;
  LcuValue result;
  int rc;
  size_t stack; /* usable C stack of the thread running it */
} Run;

static void run_body(Run *r) {
  const LcuFunc *m = lcu_main(r->p);
  if (!m) nz_die("lcu_run_main: no function main");
  if (m->nparams != r->nargs)
    nz_die("lcu_run_main: main takes %d arguments, %d given", m->nparams, r->nargs);
  /* On the heap: its fields change between setjmp and longjmp. */
  Interp *I = nz_xcalloc(1, sizeof *I);
  I->prog = r->p;
  I->stack_top = __builtin_frame_address(0);
  I->stack_room = r->stack;
  if (LCU_SETJMP(I->fault)) {
    while (I->frames) frame_pop(I, I->frames);
    while (I->temps.n) lcu_value_release(temp_pop(I));
    scratch_release(I, 0);
    r->rc = 1;
  } else {
    Frame *f = frame_push(I, m->nslots > m->nparams ? m->nslots : m->nparams);
    for (int i = 0; i < r->nargs; i++) set_slot(f, i, lcu_value_copy(r->args[i]));
    r->result = eval(I, m->body, f);
    frame_pop(I, f);
    if (I->temps.n || I->scratch.n) nz_die("lcu interpreter: values left over after main");
    r->rc = 0;
  }
  nz_vec_free(I->temps);
  nz_vec_free(I->scratch);
  free(I);
}

static void run_on_stack(void *arg, size_t room) {
  Run *r = arg;
  r->stack = room;
  run_body(r);
}

/* Deeply recursive λcu functions recurse in eval, so the run gets its own
 * thread with a big stack (nz_run_on_stack: the recursion rule); the margin it
 * keeps is for the SOACs and primitives called at the deepest point. */
int lcu_run_main(const LcuProgram *p, int nargs, const LcuValue *args, LcuValue *result) {
  lcu_mark_last_uses(p);
  Run r = {p, nargs, args, {0}, 0, 0};
  nz_run_on_stack(run_on_stack, &r);
  nz_stdout_flush();
  if (r.rc == 0) *result = r.result;
  return r.rc;
}
