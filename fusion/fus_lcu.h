/* fus_lcu.h — fusion on λcu programs: preparing CPU code so that each control
 * region is a pure dataflow graph of single-SOAC kernel invocations, building
 * the region graphs the schedulers work on, and rewriting a region by a
 * partition into fused kernels (paper §9). Prefix: fus_lcu_. */
#ifndef FUS_LCU_H
#define FUS_LCU_H

#include "fusion.h"

/* ---------------------------------------------------------- fus_names.c */
/* Names that are unique in a program, and expression utilities the rewriter
 * shares (renaming copies, free variables, substitution of array reads). */
typedef struct FusNames FusNames;
FusNames *fus_names_new(const LcuProgram *p); /* knows every name used in p */
FusNames *fus_names_empty(void);               /* also a plain set of names */
int fus_names_has(const FusNames *n, const char *s);
void fus_names_add(FusNames *n, const char *s);
void fus_names_free(FusNames *n);
const char *fus_fresh(FusNames *n, const char *base); /* interned, never used before */

/* A renaming: parallel arrays from[i] -> to[i] (interned names). */
typedef struct {
  int n, cap;
  const char **from, **to;
} FusRen;
void fus_ren_add(FusRen *r, const char *from, const char *to);
const char *fus_ren_get(const FusRen *r, const char *name); /* NULL if absent */
void fus_ren_free(FusRen *r);

/* Deep copy of e in which every variable bound inside e gets a fresh name and
 * free variables are renamed by ren (unmapped ones kept). */
LcuExpr *fus_copy_fresh(LcuProgram *p, FusNames *names, const LcuExpr *e, const FusRen *ren);
/* Free variables of e in order of first occurrence (interned names). */
int fus_free_vars(const LcuExpr *e, const char ***out);
/* The same, leaving out the subexpression stop (the node itself: its
 * occurrences are not entered); NULL: all of e. */
int fus_free_vars_before(const LcuExpr *e, const LcuExpr *stop, const char ***out);
/* Does e contain #x? */
int fus_uses_length(const LcuExpr *e, const char *x);
/* Does name occur free in e? */
int fus_occurs(const LcuExpr *e, const char *name);
/* Recomputes a thunk's `using` list from its body's free variables. */
void fus_recapture(LcuProgram *p, LcuThunk *t);

/* ----------------------------------------------------------- fus_prep.c */
/* Normalises every CPU function for fusion, in place, and re-checks:
 *  - let-bound names become unique within each function;
 *  - a `run` in tail position is bound by a let; run arguments become variables;
 *  - kernels with several SOACs that are invoked from CPU code are split into
 *    one kernel per SOAC (the unfused form the paper's fusion starts from);
 *  - scalar CPU code that depends on a kernel result of its region is lifted
 *    into a ONCE kernel (paper §9.1);
 *  - a REDUCE (int/bool operators) over the flat elements of a segment
 *    descriptor that a SEGREDUCE of the function also reduces becomes a
 *    SEGREDUCE and a REDUCE of its segments, which a schedule may fuse with
 *    the other SEGREDUCE (n-body's checks beside its force sums).
 * Returns the number of errors (0 on success). */
int fus_lcu_prepare(LcuProgram *p);
/* After fusion: undoes prepare's split of a flat REDUCE over a segmented space into a
 * SEGREDUCE and a REDUCE of its segments where no schedule joined the SEGREDUCE. */
void fus_lcu_unsplit_flat_reduces(LcuProgram *p);

/* How a let in CPU code takes part in a region: a kernel invocation (run of a
 * single-SOAC kernel with variable arguments), pure scalar code (liftable into
 * ONCE), or anything else, which ends the region. */
enum { FUS_LET_INV, FUS_LET_SCALAR, FUS_LET_BARRIER };
int fus_lcu_let_kind(const LcuExpr *let);

/* ----------------------------------------------------------- fus_shape.c */
/* Each invocation's iteration space as a polynomial in its function's
 * parameters and unknowns (expr[i], text in `out`: "#bodies_99^2"), and its
 * value where the polynomial is a constant (value[i], else -1). One FusShapes
 * serves the regions of a program in order (it keeps what it derived about
 * the current function). */
struct FusLcuRegion;
typedef struct FusShapes FusShapes;
FusShapes *fus_shapes_new(void);
void fus_shapes_region(FusShapes *s, const struct FusLcuRegion *r, const char **expr, double *value, NzArena *out);
void fus_shapes_free(FusShapes *s);

/* ---------------------------------------------------------- fus_region.c */
typedef struct {
  LcuExpr *let; /* `let defs = run k(vars) in ...` */
  LcuKernel *kernel;
} FusLcuInv;

/* A control region: a maximal stretch of lets in one CPU function with no
 * branch, call or command, holding at least one kernel invocation. Scalar lets
 * that do not depend on the region's results ("transparent") may sit between
 * invocations; rewriting hoists them to the front. */
typedef struct FusLcuRegion {
  LcuFunc *func;
  LcuExpr **head; /* the slot holding the region's first let */
  int nlets;      /* lets in the region, invocations and transparent ones */
  int ninv;
  FusLcuInv *inv;   /* in program order, numbered as in graph */
  FusGraph *graph;  /* finished */
  int index;        /* region number in the program */
} FusLcuRegion;

typedef struct {
  int n;
  FusLcuRegion *r;
} FusLcuRegions;

/* Regions of a prepared, checked program, each with its dataflow graph. */
FusLcuRegions *fus_lcu_regions(LcuProgram *p);
void fus_lcu_regions_free(FusLcuRegions *rs);

/* --------------------------------------------------------- fus_rewrite.c */
/* Replaces the region's invocations by one invocation per cluster of the
 * (legal) partition cl, each running a new kernel in which the SOAC rewrite
 * rules have been applied; arrays no consumer outside the cluster needs are
 * no longer materialised. Region pointers are invalid afterwards; call
 * lcu_check once all regions are rewritten. Returns 0, or -1 after printing
 * an internal error. */
int fus_lcu_rewrite(LcuProgram *p, FusNames *names, FusLcuRegion *r, const int *cl);

/* Applies the SOAC rewrite rules inside one kernel until none applies:
 * vertical (MAP into any SOAC but ONCE, FILTER into FILTER or REDUCE, PERMUTE
 * into REDUCE, ONCE into ONCE) and horizontal (same SOAC, same size) merges,
 * then removes dead SOACs and dead components. Exposed for unit tests. */
void fus_lcu_fuse_kernel(LcuProgram *p, FusNames *names, LcuKernel *k);
/* Removes kernels no `run` refers to (left behind by splitting and fusion). */
void fus_lcu_drop_unused_kernels(LcuProgram *p);

/* ------------------------------------------------------------ fus_cse.c */

/* Computes each value of a fused thunk once: floats lets, splits tuple lets,
 * propagates copies, and reuses an enclosing let of the same expression. */
void fus_lcu_share_thunk(LcuProgram *p, FusNames *names, LcuThunk *t);

#endif
