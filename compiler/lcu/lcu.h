/* lcu.h — the λcu intermediate representation (paper §5–§6): its types, the
 * constructors that build it, and the interface of every lcu_*.c file, in
 * sections named after the file that implements them. Prefix: lcu_.
 *
 * A program is a list of kernels and CPU functions. Kernels apply SOACs to
 * thunks; CPU functions orchestrate with let/if/calls/`run k(...)`. The text
 * form is documented in compiler/lcu/README.md; lcu_print.c and lcu_parse.c
 * round-trip it. */
#ifndef LCU_H
#define LCU_H

#include "nessie.h"

/* ------------------------------------------------------------------ types */

typedef enum {
  LT_BOOL,
  LT_CHAR,
  LT_INT,   /* 32-bit two's complement, wrapping + - * */
  LT_FLOAT, /* IEEE double (DESIGN.md: NESL floats are doubles) */
  LT_ARRAY, /* flat array of one base type */
  LT_SEGDES,
  LT_TUPLE, /* flat tuple; 0 elements is unit; never 1 element */
} LcuTypeKind;

/* Types are hash-consed: two types are equal iff their pointers are. */
typedef struct LcuType {
  LcuTypeKind kind;
  LcuTypeKind elem; /* LT_ARRAY: LT_BOOL..LT_FLOAT */
  int n;            /* LT_TUPLE */
  const struct LcuType **elems;
} LcuType;

const LcuType *lcu_type_base(LcuTypeKind k); /* LT_BOOL..LT_FLOAT, LT_SEGDES */
const LcuType *lcu_type_array(LcuTypeKind elem);
/* n == 1 returns elems[0]: 1-tuples are their element (paper §6.1). */
const LcuType *lcu_type_tuple(int n, const LcuType *const *elems);
const LcuType *lcu_type_unit(void);
int lcu_type_is_base(const LcuType *t); /* bool, char, int, float */
int lcu_type_arity(const LcuType *t);   /* components: tuple size, else 1 */
const LcuType *lcu_type_component(const LcuType *t, int i);
void lcu_type_print(NzBuf *b, const LcuType *t); /* int, [float], segdes, (int, [bool]) */

/* ------------------------------------------------------------ primitives */

/* Scalar primitives shared by thunks and CPU code; CPU-only ones are marked in
 * the table (lcu_prim_info). Overloaded ones (+, <, max, ...) are resolved by the
 * checker, which records the operand type in LcuExpr.opty. */
typedef enum {
#define LCU_PRIM(id, name, sym, arity, flags) id,
#include "lcu_prims.def"
#undef LCU_PRIM
  LP__COUNT
} LcuPrim;

enum {
  LPF_INFIX = 1,   /* printed as `a sym b` (or `sym a` for arity 1) */
  LPF_CPU = 2,     /* only in CPU code (commands, segdes construction, ...) */
  LPF_EFFECT = 4,  /* has a side effect (print) */
};

typedef struct {
  const char *name; /* call form: max(a, b); also the parse name */
  const char *sym;  /* infix/prefix symbol or NULL */
  int arity;        /* -1: variadic */
  int flags;
} LcuPrimInfo;
const LcuPrimInfo *lcu_prim_info(LcuPrim p);
int lcu_prim_lookup(const char *name); /* by call-form name; -1 if none */

/* ---------------------------------------------------- reduction operators */

typedef enum {
  LR_IADD, LR_IMUL, LR_IMAX, LR_IMIN, LR_IAND, LR_IOR, LR_IXOR,
  LR_FADD, LR_FMUL, LR_FMAX, LR_FMIN,
  LR_BAND, LR_BOR, LR_BXOR,
  LR_ID,
  LR__COUNT
} LcuRop;
const char *lcu_rop_name(LcuRop r);
int lcu_rop_lookup(const char *name); /* -1 if none */
/* Element type a rop combines (LT_INT, LT_FLOAT, LT_BOOL); LT_TUPLE for id (any base type). */
LcuTypeKind lcu_rop_elem(LcuRop r);

/* ------------------------------------------------------------ expressions */

/* A name bound by let, a parameter, a SOAC binder, or a thunk parameter.
 * slot is the frame index assigned by the checker (-1 before checking). */
typedef struct {
  const char *name; /* interned */
  NzLoc loc;
  const LcuType *ty; /* declared (parameters) or inferred by the checker */
  int slot;
} LcuBinder;

typedef enum {
  LE_INT, LE_FLOAT, LE_BOOL, LE_CHAR, /* literals (lit) */
  LE_ARRAY, /* [a, b, ...] literal, CPU only; empty needs elem type: `[] int` */
  LE_VAR,   /* name, slot */
  LE_PRIM,  /* prim(args) */
  LE_IF,    /* if args[0] then args[1] else args[2] */
  LE_LET,   /* let binds = args[0] in args[1]; nbinds > 1 destructures a tuple */
  LE_TUPLE, /* (args...), nargs != 1; () is unit */
  LE_INDEX, /* args[0][args[1]] */
  LE_CALL,  /* name(args), CPU function call, CPU only */
  LE_RUN,   /* run name(args), kernel invocation, CPU only */
} LcuExprKind;

typedef struct LcuExpr LcuExpr;
struct LcuExpr {
  LcuExprKind kind;
  NzLoc loc;
  const LcuType *ty;   /* result type, set by the checker */
  const LcuType *opty; /* LE_PRIM: resolved operand type; LE_ARRAY: elem type */
  union {
    int32_t i;
    double f;
    int b;
    unsigned char c;
  } lit;
  LcuPrim prim;
  const char *name; /* LE_VAR, LE_CALL, LE_RUN (interned) */
  int slot;         /* LE_VAR: frame slot (checker) */
  void *target;     /* LE_CALL: LcuFunc*, LE_RUN: LcuKernel* (checker) */
  int nargs;
  LcuExpr **args;
  int nbinds; /* LE_LET */
  LcuBinder *binds;
  int last; /* LE_VAR in CPU code: no later use of the variable on this path
               (lcu_mark_last_uses), so its value may be moved, not copied */
};

/* ----------------------------------------------------------------- thunks */

/* { i => body using xs }: params is 1 index for MAP-like SOACs, 0 for ONCE
 * (written `{ () => ... }`), and one per component of the value thunk for a
 * FILTER/PARTITION predicate (`{ (x, f) => ... }`). Captured variables are
 * listed in `using`; the checker enforces that every free variable is. */
typedef struct {
  NzLoc loc;
  int nparams;
  LcuBinder *params;
  LcuExpr *body;
  int nusing;
  LcuBinder *usings; /* name, loc; slot = the kernel-frame slot of the capture */
  /* Checker: thunk frame layout is [captures (nusing)] [params] [locals];
   * a LE_VAR in body indexes this frame. nslots is its size. */
  int nslots;
} LcuThunk;

/* ------------------------------------------------------------------ SOACs */

typedef enum {
  LS_ONCE,      /* ONCE Λ                        -> scalars */
  LS_MAP,       /* MAP Λ (n)                      -> arrays of n */
  LS_PERMUTE,   /* PERMUTE Λv Λi (n) [into (m)]   -> arrays of m (default n) */
  LS_REDUCE,    /* REDUCE Λ (rops) (n)            -> scalar, or array for id */
  LS_SCAN,      /* SCAN Λ (rops) (n)              -> inclusive scans, n each */
  LS_FILTER,    /* FILTER Λv Λp (n)               -> arrays of kept values */
  LS_PARTITION, /* PARTITION Λv Λp (n)            -> kept..., rejected... */
  LS_SEGREDUCE, /* SEGREDUCE Λ (rops) (sd)        -> arrays of #sd (one per segment) */
  LS_SEGSCAN,   /* SEGSCAN Λ (rops) (sd)          -> per-segment inclusive scans */
  LS__COUNT
} LcuSoacKind;
const char *lcu_soac_name(LcuSoacKind k);
int lcu_soac_lookup(const char *name); /* -1 if none */

/* The iteration space of a SOAC, or PERMUTE's output length:
 *   (n)   an int variable       (#xs)  length of an array / segments of a segdes
 *   (42)  an int literal        (sd)   a segdes variable (segmented SOACs) */
typedef enum { LZ_NONE, LZ_LIT, LZ_VAR, LZ_LEN } LcuSizeKind;
typedef struct {
  LcuSizeKind kind;
  NzLoc loc;
  int32_t lit;
  const char *name;
  int slot; /* kernel-frame slot (checker) */
} LcuSize;

typedef struct {
  NzLoc loc;
  LcuSoacKind kind;
  int nbinds; /* let a, b = ... */
  LcuBinder *binds;
  int nthunks; /* 1, or 2 for PERMUTE/FILTER/PARTITION */
  LcuThunk *thunks[2];
  int nrops; /* REDUCE/SCAN/SEG*: one per component of the thunk's result */
  LcuRop *rops;
  LcuSize size;   /* iteration space; LZ_NONE for ONCE */
  LcuSize outlen; /* PERMUTE only; LZ_NONE means same as size */
  int space;      /* fusion's bookkeeping: its region graph's iteration space + 1, flat
                  * elements for SEG* (0: unknown); equal nonzero values, equal spaces */
} LcuSoac;

/* ---------------------------------------------------- kernels, functions */

typedef struct {
  NzLoc loc;
  const char *name;
  int nparams;
  LcuBinder *params;
  const LcuType *ret; /* declared result type */
  int nsoacs, capsoacs; /* capsoacs: room in soacs (lcu_kernel_add_soac) */
  LcuSoac *soacs;
  int nrets; /* return a, b */
  LcuBinder *rets; /* name, loc; slot: frame slot (checker) */
  int nslots; /* checker: [params] [soac binders] */
} LcuKernel;

typedef struct {
  NzLoc loc;
  const char *name;
  int nparams;
  LcuBinder *params;
  const LcuType *ret;
  LcuExpr *body;
  int nslots; /* checker: [params] [let-bound locals] */
} LcuFunc;

typedef struct {
  NzArena *arena; /* owns every node */
  const NzSource *src;
  int nkernels;
  LcuKernel **kernels;
  int nfuncs;
  LcuFunc **funcs;
  /* lcu_find_kernel's index (a cache, private to lcu_build.c): open addressing
   * on the interned name, kix[h] = kernel index + 1 (0 empty), over the first
   * kix_n kernels. */
  int *kix, kix_cap, kix_n;
} LcuProgram;

/* ----------------------------------------------------------- lcu_build.c */
/* Constructors: every node is built through these (parser, lowering, fusion,
 * generators), never by filling structs by hand. */
LcuProgram *lcu_program_new(const NzSource *src);
void lcu_program_free(LcuProgram *p);
LcuExpr *lcu_expr_new(LcuProgram *p, LcuExprKind k, NzLoc loc);
LcuExpr *lcu_int(LcuProgram *p, int32_t v, NzLoc loc);
LcuExpr *lcu_float(LcuProgram *p, double v, NzLoc loc);
LcuExpr *lcu_bool(LcuProgram *p, int v, NzLoc loc);
LcuExpr *lcu_char(LcuProgram *p, unsigned char v, NzLoc loc);
LcuExpr *lcu_var(LcuProgram *p, const char *name, NzLoc loc);
LcuExpr *lcu_prim(LcuProgram *p, LcuPrim op, int nargs, LcuExpr **args, NzLoc loc);
LcuExpr *lcu_prim2(LcuProgram *p, LcuPrim op, LcuExpr *a, LcuExpr *b, NzLoc loc);
LcuExpr *lcu_if(LcuProgram *p, LcuExpr *c, LcuExpr *t, LcuExpr *e, NzLoc loc);
LcuExpr *lcu_let(LcuProgram *p, int nbinds, LcuBinder *binds, LcuExpr *rhs, LcuExpr *body, NzLoc loc);
LcuExpr *lcu_let1(LcuProgram *p, const char *name, LcuExpr *rhs, LcuExpr *body, NzLoc loc);
LcuExpr *lcu_tuple(LcuProgram *p, int n, LcuExpr **elems, NzLoc loc);
LcuExpr *lcu_index(LcuProgram *p, LcuExpr *arr, LcuExpr *idx, NzLoc loc);
LcuExpr *lcu_call(LcuProgram *p, const char *f, int nargs, LcuExpr **args, NzLoc loc);
LcuExpr *lcu_run(LcuProgram *p, const char *k, int nargs, LcuExpr **args, NzLoc loc);
LcuBinder lcu_binder(const char *name, const LcuType *ty, NzLoc loc);
LcuThunk *lcu_thunk_new(LcuProgram *p, int nparams, LcuBinder *params, LcuExpr *body,
                        int nusing, LcuBinder *usings, NzLoc loc);
LcuKernel *lcu_kernel_add(LcuProgram *p, const char *name, NzLoc loc);
LcuFunc *lcu_func_add(LcuProgram *p, const char *name, NzLoc loc);
LcuSoac *lcu_kernel_add_soac(LcuProgram *p, LcuKernel *k, LcuSoacKind kind, NzLoc loc);
LcuKernel *lcu_find_kernel(const LcuProgram *p, const char *name);
LcuFunc *lcu_find_func(const LcuProgram *p, const char *name);
/* Deep copies into p's arena (used by fusion to clone thunks). */
LcuExpr *lcu_expr_copy(LcuProgram *p, const LcuExpr *e);
LcuThunk *lcu_thunk_copy(LcuProgram *p, const LcuThunk *t);
/* Arena array helpers. */
LcuBinder *lcu_binders(LcuProgram *p, int n);
LcuExpr **lcu_exprs(LcuProgram *p, int n);

/* ----------------------------------------------------------- lcu_print.c */
/* The canonical text form; lcu_parse(lcu_print(p)) prints identically. */
void lcu_print_program(NzBuf *b, const LcuProgram *p);
void lcu_print_kernel(NzBuf *b, const LcuKernel *k);
void lcu_print_func(NzBuf *b, const LcuFunc *f);
void lcu_print_expr(NzBuf *b, const LcuExpr *e);
void lcu_print_thunk(NzBuf *b, const LcuThunk *t);
void lcu_print_soac(NzBuf *b, const LcuSoac *s);

/* ----------------------------------------------------------- lcu_parse.c */
/* Parses a whole program. On a syntax error prints
 * "file:line:col: error: expected X, found Y" and returns NULL. */
LcuProgram *lcu_parse(const NzSource *src);

/* ----------------------------------------------------------- lcu_check.c */
/* Type-checks, resolves names to slots, and checks the IR's invariants:
 * types and arities, scoping, `using` lists, reduction operators matching
 * thunk outputs, no run/calls/CPU prims in kernels, flat tuples, a `main`.
 * Annotates the program in place (ty, opty, slot, target, nslots). Returns
 * the number of errors (each printed with its location). Idempotent: passes
 * that rewrite the IR call it again. */
/* lcu_dedupe.c: merges CPU functions that are the same code (equal checked
 * bodies, callees that are the same code), keeping each class's first, and
 * drops the kernels only the others ran. The program must have been checked
 * (it compares frame slots); it stays checked. Returns how many functions
 * were dropped. */
int lcu_dedupe_functions(LcuProgram *p);
int lcu_check(LcuProgram *p);

/* How a PERMUTE into (a checked one) may settle several writes to one position;
 * the interpreter's rule is that the highest source index wins (README). Every
 * back end asks the same question, so that the cheap schemes agree with it. */
typedef enum {
  LCU_SCATTER_ORDERED, /* general: the winner must be found */
  LCU_SCATTER_SAME,    /* the value thunk does not read its index: the writes to a
                          position store one value, in any order (dist(v, n) <- ...) */
  LCU_SCATTER_MAX,     /* one int value, the index + 1 (put's and permute's): the highest
                          index writes the largest value, so the maximum per position
                          is the winner's, and 0 is never written */
} LcuScatter;
LcuScatter lcu_permute_scatter(const LcuSoac *s);

/* ----------------------------------------------------------- lcu_value.c */
/* Run-time values of the λcu interpreter. Arrays and segment descriptors
 * are reference counted; scalars are unboxed. */
typedef struct LcuArray {
  int refs;
  LcuTypeKind elem; /* LT_BOOL..LT_FLOAT; LT_INT also for segdes lengths */
  int64_t len;
  union {
    unsigned char *b; /* bool and char */
    int32_t *i;
    double *f;
  } d;
} LcuArray;

typedef struct LcuSegdes {
  int refs;
  int64_t nsegs, total;
  int32_t *lens;   /* nsegs */
  int64_t *starts; /* nsegs + 1, starts[nsegs] == total */
  int32_t *segof;  /* total: segment of each element */
} LcuSegdes;

typedef struct LcuValue LcuValue;
struct LcuValue {
  LcuTypeKind kind; /* LT_TUPLE values hold n components in tup */
  union {
    int32_t i;
    double f;
    int b;
    unsigned char c;
    LcuArray *arr;
    LcuSegdes *sd;
    struct {
      int n;
      LcuValue *elems; /* heap, owned */
    } tup;
  } u;
};

LcuArray *lcu_array_new(LcuTypeKind elem, int64_t len); /* zero-filled, refs = 1 */
LcuSegdes *lcu_segdes_new(const int32_t *lens, int64_t nsegs); /* NULL if a length < 0 */
void lcu_value_retain(LcuValue v);
void lcu_value_release(LcuValue v);
LcuValue lcu_value_int(int32_t v);
LcuValue lcu_value_float(double v);
LcuValue lcu_value_bool(int v);
LcuValue lcu_value_char(unsigned char v);
/* A tuple taking ownership of elems[0..n) (n == 1 returns elems[0]). Tuples
 * are never shared, so lcu_value_retain refuses them; duplicate a value with
 * lcu_value_copy (retains arrays and segdes, copies a tuple's block). */
LcuValue lcu_value_tuple(int n, const LcuValue *elems);
LcuValue lcu_value_copy(LcuValue v);
/* Stable printed form (compiler/lcu/README.md): 3, -2.5, 1.0E-4, T, F, `a,
 * [1, 2], segdes[2, 0, 1], (1, [T, F]). */
void lcu_value_print(NzBuf *b, LcuValue v);
void lcu_float_print(NzBuf *b, double f); /* shortest round-trip, NESL layout */
/* ------------------------------------------------------------ lcu_show.c */
/* The `show` primitive: appends to b the line described by text[0..len) (layout in
 * compiler/lcu/README.md) with the NESL value held in the flat components comps[0..n).
 * Returns 0, or -1 (nothing appended) if the text or the components are malformed. */
int lcu_show(NzBuf *b, const char *text, size_t len, const LcuValue *comps, int n);
/* The `format` primitive: appends to b the text of each of the n rows of the vector of
 * NESL values held in comps[0..ncomps), as text[0..len) says (compiler/lcu/README.md),
 * and each row's length to lens[0..n). Returns 0, or -1 if the text or the components
 * are malformed. */
int lcu_format(NzBuf *b, int32_t *lens, const char *text, size_t len, int64_t n, const LcuValue *comps,
               int ncomps);
/* The `read_object` primitive: each segment of cs (sd's) read as NESL's object string
 * of a value described by text[0..len) (a `show` DESC): out[0..k) receives the vector
 * of the values (k = the components of that vector), out[k] a [bool] saying which rows
 * held one (a row that does not is the type's identity: zeros, empty sequences).
 * Returns -1 (out untouched) if the description is malformed, does not take nout
 * components, or sd does not fit cs. */
int lcu_read_objects(const char *text, size_t len, const LcuSegdes *sd, const LcuArray *cs, LcuValue *out,
                     int nout);
/* ------------------------------------------------------------- lcu_io.c */
/* The I/O primitives (open_file ... spawn, compiler/lcu/README.md) on the NESL streams
 * of compiler/common/sysio.c: lcu_io_result is the result type, lcu_io_call runs one
 * on borrowed operands and returns a new value (the interpreter and the runtime). */
const LcuType *lcu_io_result(LcuPrim op);
LcuValue lcu_io_call(LcuPrim op, const LcuValue *args);
/* The `float_text` primitive: NESL's float_string (sci 0: 8 significant digits) or
 * exp_string (sci 1: digits after the point) of x[r] for r < n, as lcu_format. */
void lcu_float_text(NzBuf *b, int32_t *lens, const double *x, const int32_t *digits, const unsigned char *sci,
                    int64_t n);
/* Parses a literal of the given type (command-line arguments): ints, floats,
 * T/F/t/f/true/false, `a or 'a', [..], segdes[..], (..). Returns 0 on success,
 * else prints "argument N: ..." and returns -1. */
/* A segdes[...] literal may describe at most this many elements in all
 * (its tables take 4 bytes per element): larger ones are refused before
 * anything is allocated. */
#define LCU_SEGDES_MAX_TOTAL 100000000LL
int lcu_value_parse(const char *text, const LcuType *ty, LcuValue *out, const char *what);
/* A random value of type ty; arrays have lengths in [0, maxlen]. */
typedef struct {
  uint64_t state;
  int64_t maxlen;
} LcuRng;
LcuValue lcu_value_random(LcuRng *rng, const LcuType *ty);
/* --max-len's bound (lcu run and compiled programs): arrays of random inputs are at
 * most this long (nested arrays multiply it); 10^7 floats are 80 MB, and more is no
 * test input. */
#define LCU_RANDOM_MAX_LEN 10000000LL

/* ----------------------------------------------------------- lcu_interp.c */
/* Runs main(args) of a checked program (paper §6). On a run-time fault prints
 * "file:line:col: error: ..." and returns 1 with *result untouched; returns 0
 * on success, the caller owns *result. */
/* lcu_lastuse.c: sets LcuExpr.last on every variable occurrence of every CPU
 * function's body (idempotent; run it after the last rewrite of the program). */
void lcu_mark_last_uses(const LcuProgram *p);
int lcu_run_main(const LcuProgram *p, int nargs, const LcuValue *args, LcuValue *result);
LcuFunc *lcu_main(const LcuProgram *p);
/* Work counters of the interpreter, accumulated over every run: SOAC applications
 * and the elements of their iteration spaces (ONCE counts 1; a segmented SOAC its
 * flat elements), the measure of work complexity (compiler/flan/README.md). */
typedef struct {
  int64_t soacs, elements;
} LcuStats;
extern LcuStats lcu_stats;

#endif
