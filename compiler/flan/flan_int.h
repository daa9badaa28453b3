/* flan_int.h — state shared by the flattener's files (not part of flan.h's interface). */
#ifndef FLAN_INT_H
#define FLAN_INT_H
#include "flan.h"
#include <setjmp.h>

/* One λcu variable: a component of a value. */
typedef struct {
  const char *name;
  const LcuType *ty;
} FlComp;

typedef struct FlCtx FlCtx;
/* A value: unlifted (ctx NULL: rep(t), flan_ncomp(t, 0) components) or lifted in an
 * apply-to-each context (vrep(t) with one row per element of ctx). */
typedef struct {
  const FlTy *t;
  FlCtx *ctx;
  FlComp *c;
} FlVal;

/* A block of CPU lets under construction. */
typedef struct {
  int n;
  LcuBinder *b;
  LcuExpr *rhs;
} FlBind;
typedef struct {
  NZ_VEC(FlBind) v;
  /* deferred checks (flan_defer.c): fail_ifs that run at the end of the stretch of
   * fusable lets they are in, and the names bound since the first of them */
  NZ_VEC(FlBind) defer;
  NZ_VEC(const char *) taint;
  int stretch; /* v[stretch..]: the lets since the first of them */
} FlBlk;

/* An iteration context: n elements. CX_TOP has no parent (an apply-to-each at the
 * unlifted level, or a lifted function's own context); CX_SEG's elements are the
 * concatenated segments of sd over its parent's elements; CX_PACK's are the parent's
 * elements at positions idx. Lifted values of an ancestor are brought down on first
 * use (replicated by segment, or packed) and cached. */
enum { CX_TOP, CX_SEG, CX_PACK };
typedef struct {
  FlComp *src, *dst;
  const FlTy *t; /* a pair and its first component share src: the type tells them apart */
} FlCache;
struct FlCtx {
  FlCtx *parent;
  int kind;
  FlComp n, sd, idx;
  FlBlk *blk; /* the block current when the context was opened: derivations go there */
  NZ_VEC(FlCache) cache;
  int prints; /* on a root context: lifted print sites inside it (flan_text.c) */
  int draws; /* a root context: the random draws its elements make (flan_note_draw) */
};

typedef struct {
  const char *key, *fname;
  bool draws; /* its code calls rand or rand_seed */
} FlInst;

typedef struct {
  NlEnv *env;
  MonoProgram *mono; /* what each call runs: its instance (mono_callee) */
  LcuProgram *p;
  NzArena *a;
  int counter;
  /* the function being compiled */
  FlVal *slots;
  int nslots;
  FlCtx *ctx;
  FlBlk *blk;
  NzLoc uloc; /* where a fault in the code being compiled is reported */
  const char *fn_name; /* the NESL function whose code is being lowered (kernel names) */
  bool in_main;
  bool in_lifted_fn; /* compiling a lifted instance (its own context has n rows) */
  NZ_VEC(FlInst) insts;
  NZ_VEC(const NlDecl *) inlining; /* the source functions being lowered (recursion) */
  NZ_VEC(FlCache) shapes;
  /* lambdas met so far: identity, expression, and the types of the code around it */
  NZ_VEC(struct FlLambda {
    int fnid;
    NlExpr *e;
    FlVal **ups; /* the frames around it, innermost first (a copy, as at run time) */
    int nups;
    FlCtx *ctx; /* made in this context: its tag is the element's index there */
    const char *tag; /* the name of the tag it was made with (NULL: a copy passed in) */
  }) lambdas;
  int lam_base; /* lambdas[lam_base..] were made in the λcu function being built */
  FlVal **ups; /* the enclosing frames of the lambda body being lowered */
  int nups;
  NZ_VEC(FlCtx *) ctxs;   /* to free their caches */
  NZ_VEC(FlBlk *) blks;
  /* top-level values read by main */
  NZ_VEC(int) gslot;
  NZ_VEC(FlVal) gval;
  jmp_buf fail; /* longjmp 1: unsupported; 2: lower the form again (flan_note_draw) */
  /* rand: the form draws (main reseeds first); the function being compiled draws */
  bool any_draw, fn_draws;
  bool defer_safe; /* the lets being emitted are fault-free while checks are deferred */
} Fl;

/* flan_lower.c */
/* A rand or rand_seed: w is 1 for one draw per element of the current context, in
 * element order (rand_vec), more when the elements' draws would not come in the AST
 * interpreter's order (the apply-to-each then runs its elements one by one). */
void flan_note_draw(Fl *F, int w);
NZ_NORETURN void flan_unsupported(Fl *F, NzLoc loc, const char *fmt, ...) NZ_PRINTF(3, 4);
const char *flan_fresh(Fl *F, const char *prefix);
FlComp flan_emit(Fl *F, FlBlk *b, const LcuType *ty, LcuExpr *rhs);
void flan_emitn(Fl *F, FlBlk *b, int n, const LcuType **tys, FlComp *out, LcuExpr *rhs);
LcuExpr *flan_v(Fl *F, FlComp c);
FlVal flan_derive(Fl *F, FlVal v, FlCtx *c);
FlVal flan_lift(Fl *F, FlVal v, FlCtx *c);
FlComp *flan_comps(Fl *F, int n);
FlComp flan_int_lit(Fl *F, int32_t k);
FlComp flan_rows(Fl *F, FlComp first);
/* An unlifted value as the one row of a vector (vrep, one element). */
FlComp *flan_row_wrap(Fl *F, FlVal v);

/* flan_ops.c: one-SOAC kernels (F->blk receives the run) */
typedef struct {
  Fl *F;
  NZ_VEC(FlComp) caps;
  const char *ix; /* the index parameter */
  NzLoc loc;
} FlKb;
void flan_kb_init(FlKb *k, Fl *F);
LcuExpr *flan_kc(FlKb *k, FlComp c); /* a captured variable */
LcuExpr *flan_kix(FlKb *k);          /* the index parameter */
/* MAP body (n): one array per component of the body (elem types tys). */
void flan_kb_map(FlKb *k, FlComp n, LcuExpr *body, int nout, const LcuType **tys, FlComp *out);
FlComp flan_kb_map1(FlKb *k, FlComp n, LcuExpr *body, LcuTypeKind elem);
/* REDUCE / SCAN / SEGREDUCE / SEGSCAN with one component and operator. size is an int
 * (REDUCE, SCAN) or a segdes (SEG*). */
FlComp flan_kb_fold(FlKb *k, LcuSoacKind kind, FlComp size, LcuExpr *body, LcuRop rop,
                    LcuTypeKind elem);
/* FILTER of the index space by a bool body: the kept indices. */
FlComp flan_kb_filter_index(FlKb *k, FlComp n, LcuExpr *flag);
/* PERMUTE value body to index body (n) into (m) (m NULL: a permutation). */
FlComp flan_kb_permute(FlKb *k, FlComp n, LcuExpr *val, LcuExpr *dst, const FlComp *into,
                       LcuTypeKind elem);
void flan_kb_free(FlKb *k);

/* Vector helpers over representations */
/* Rows src[i] of the vector vrep(t) held in srcs[sel[i]] (sel NULL: one source), for
 * i < nout: the general data movement every nested primitive is built from. */
void flan_gather(Fl *F, const FlTy *t, int nsrc, FlComp **srcs, FlComp *sel, FlComp src,
                 FlComp nout, FlComp *out);
/* The same from one source, where src[i] < 0 gives an empty row (zeros, empty
 * sequences): the data movement of an index whose check is deferred (flan_defer.c). */
void flan_gather_guarded(Fl *F, const FlTy *t, FlComp *data, FlComp src, FlComp nout, FlComp *out);
/* The flat data of rows sdi over the n elements of sd0 (n = seg_total(sd0)): element
 * off of row o is sdi's element off of row o, or 0 past that row's end (an argument
 * of another length, while the check of the lengths is deferred). */
FlComp flan_rows_like(Fl *F, FlComp sd0, FlComp sdi, FlComp data, FlComp n);
/* 0, 0.0, F or the char 0 */
LcuExpr *flan_zero(Fl *F, LcuTypeKind t);
/* An empty vector of t. */
void flan_empty(Fl *F, const FlTy *t, FlComp *out);
/* fail_if(bad, msg) at loc */
void flan_check(Fl *F, FlComp bad, const char *msg, NzLoc loc);
/* flan_defer.c: the same check, deferred to the end of the stretch of fusable lets it
 * is in (the code after it must not fault where it fails: see flan_defer.c) */
void flan_check_defer(Fl *F, FlComp bad, const char *msg, NzLoc loc);
/* b receives rhs: runs b's deferred checks first where rhs may not run before them */
void flan_defer_before(Fl *F, FlBlk *b, FlBind *x);
/* b's deferred checks, now (at the end of a block) */
void flan_defer_flush(Fl *F, FlBlk *b);
void flan_defer_push(Fl *F, FlBlk *b, LcuExpr *fail);
/* any(body over n) as a bool */
FlComp flan_any(FlKb *k, FlComp n, LcuExpr *body);

/* flan_prims.c */
FlVal flan_prim(Fl *F, const char *name, int nargs, FlVal *args, const FlTy *rt, NzLoc loc);
/* __length(a) or __elt(a, i) where a's rows are rows map[r] of src (a lifted
 * sequence of an enclosing context); i unlifted or lifted in the current one. */
FlVal flan_prim_rows(Fl *F, const char *name, FlVal src, FlComp map, FlVal i, const FlTy *rt, NzLoc loc);

/* flan_text.c: the text primitives over n rows (vrep operands and results) */
/* __string (mode 's') or __write_object_str (mode 'o') of the vector a of t's */
void flan_text_format(Fl *F, char mode, FlComp n, FlComp *a, const FlTy *t, FlComp *out, NzLoc loc);
/* __read_object_str(w, s) of n rows: out is vrep(t) ++ [bool] */
void flan_text_read_object(Fl *F, FlComp n, FlComp **a, const FlTy *t, FlComp *out, NzLoc loc);
void flan_text_float(Fl *F, FlComp n, FlComp **a, FlComp *out, NzLoc loc); /* __float_string */
void flan_text_parse_float(Fl *F, FlComp *a, FlComp *out, NzLoc loc);       /* __parse_float */
void flan_text_print(Fl *F, FlComp n, FlComp *a, FlComp *out, NzLoc loc);   /* __print_string */
/* __print_string in the current context: its text lifted there if it is not, so that
 * every row prints; where rows would print in another order than the AST interpreter's
 * (element by element), the apply-to-each is noted to run one by one (flan_note_draw) */
FlVal flan_text_print_arg(Fl *F, FlVal s, NzLoc loc);
/* __open, __close, ... __spawn (unlifted): false if name is none of them */
bool flan_text_io(Fl *F, const char *name, int nargs, FlVal *args, const FlTy *rt, NzLoc loc, FlVal *out);

#endif
