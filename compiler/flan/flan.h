/* flan.h — flattening NESL to λcu (Blelloch's vectorisation, Keller's formulation).
 * Prefix: flan_ (functions), Fl (types).
 *
 * The pass reads the monomorphic copies of checked NESL forms (compiler/mono/: every
 * type ground, every call of a generic function a call of its instance) and writes a
 * λcu program (lcu.h):
 *   - functions: a non-recursive call is inlined; a recursive function becomes a CPU
 *     function per instance and per use (which parameters are lifted, the closures
 *     passed, and for basis code the user location its faults report);
 *   - flattening: an apply-to-each becomes a context of n elements in which every value
 *     is lifted to its vector representation; each primitive has a lifted form built
 *     from one-SOAC kernels; conditionals split the index space, recursion becomes a
 *     lifted recursive CPU function that stops when its context is empty;
 *   - lowering: scalar control and recursion stay in CPU functions, every vector
 *     operation is one kernel with one SOAC (the unfused form fusion starts from).
 * compiler/flan/README.md describes the representation and what is not supported yet. */
#ifndef FLAN_H
#define FLAN_H
#include "lcu.h"
#include "mono.h"
#include "nesl.h"
#include <stdbool.h>

/* ---------------------------------------------------------- flan_type.c */
/* Monomorphic NESL types; interned, so equal types are equal pointers. Datatypes
 * become the tuple of their fields; (a, b, c) is (a, (b, c)) as in NESL. */
typedef enum { FT_INT, FT_FLOAT, FT_BOOL, FT_CHAR, FT_SEQ, FT_PAIR, FT_FN } FlTyKind;
typedef struct FlTy {
  FlTyKind k;
  const struct FlTy *a, *b; /* SEQ element; PAIR components */
  const char *key;          /* canonical text, interned: int, [float], (int, [char]) */
  int fnid;                 /* FT_FN: the function's identity (NESL.md 3.4; TY_FNID id) */
} FlTy;

const FlTy *flan_ty_base(FlTyKind k);
const FlTy *flan_ty_seq(const FlTy *a);
const FlTy *flan_ty_pair(const FlTy *a, const FlTy *b);
/* A function value: known statically by its identity (fnid -1: a datatype's field, any
 * function of its type). Its representation is one int, its tag: a named function's
 * identity, or (a closure made in an apply-to-each) the element's index there. */
const FlTy *flan_ty_fn(int fnid);
int flan_ty_has_fn(const FlTy *t);
/* The flat type of a ground NESL type (a monomorphic program's, compiler/mono/: a type
 * variable left is int); NULL for a function type whose identity is not known. */
const FlTy *flan_ty_of(NlType *t);
int flan_ty_is_base(const FlTy *t);
LcuTypeKind flan_ty_lcu_base(const FlTy *t);

/* Representation. A value of type t is a list of λcu components:
 *   rep(base) = [base]           rep((a, b)) = rep(a) ++ rep(b)    rep([e]) = vrep(e)
 * and a vector of n values of type e (a sequence's contents, or a lifted value):
 *   vrep(base) = [[base]]        vrep((a, b)) = vrep(a) ++ vrep(b)
 *   vrep([e])  = [segdes] ++ vrep(e)   (n segments over the concatenated elements) */
int flan_ncomp(const FlTy *t, bool vec);
/* Writes the flan_ncomp(t, vec) component types to out. */
void flan_comp_types(const FlTy *t, bool vec, const LcuType **out);

/* --------------------------------------------------------- flan_value.c */
/* Conversions between the AST interpreter's values and λcu values (top-level values
 * cross from one form to the next, results are printed by the NESL printer). */
void flan_value_to_lcu(NlVal v, const FlTy *t, LcuValue *out);       /* flan_ncomp(t, 0) */
NlVal flan_value_from_lcu(const LcuValue *comps, const FlTy *t);       /* ditto */
/* A λcu literal of one component's value (type int, float, bool, char, an array of
 * them, or segdes), as flattening writes the top-level values that functions read. */
LcuExpr *flan_const_expr(LcuProgram *p, const LcuValue *v, const LcuType *t, NzLoc L);
/* The value flan_value_from_lcu gives a function of identity fnid (a named function;
 * flan_lower_form registers the ones a form's value holds). */
void flan_fn_register(int fnid, NlVal v);
/* The identities registered so far (the named functions met as values), i < n. */
int flan_fn_nregistered(void);
int flan_fn_registered(int i);

/* --------------------------------------------------------- flan_lower.c */
typedef struct FlProgram FlProgram;
/* A λcu program for one runnable top-level form (D_EXPR or D_BIND), d its copy that
 * mono_add made: main's parameters are the components of the earlier top-level values
 * it reads, its result the components of the form's value. The functions it calls are
 * mono's (mono_callee). NULL after an error (printed: a construct the flattener does
 * not support yet is an internal error, exit 3). */
struct FlProgram {
  LcuProgram *lcu;
  int nglobals;       /* top-level values read, in main's parameter order */
  int *globals;       /* their global slots */
  const FlTy **gtys;  /* their types */
  const FlTy *result; /* the form's value type */
};
FlProgram *flan_lower_form(NlEnv *env, MonoProgram *mono, NlDecl *d);
void flan_program_free(FlProgram *fp);

/* ----------------------------------------------------------- flan_opt.c */
/* The Flan optimiser on a checked program of the flattener (constants into kernels,
 * shapes and common subexpressions by value numbering, dead code). Returns 0, or -1
 * after a bug. The result is not checked yet: lcu_check is the `lcu` stage's checker,
 * which the driver runs after it (compiler/driver/stages.c). */
typedef struct {
  int rounds, changes;
  int kernels_before, kernels_after;
} FlOptStats;
int flan_opt(LcuProgram *p, FlOptStats *st);

#endif
