/* mono.h — monomorphisation of checked NESL programs (prefix mono_, types Mono*).
 *
 * The pass (mono.c) reads the checked forms of a program (nesl.h) and writes a monomorphic
 * program over the same AST node types: every generic function (user or basis) that a
 * computation reaches is copied once per ground instance of its type variables (the
 * identity of a function-typed argument included, NESL.md 3.4), under a fresh name that
 * says what it is (`take__int`, `map__sin__float__float`), and every reference is renamed
 * to its instance. Types stay NESL types (datatypes stay datatypes). mono_check.c checks
 * the result's invariants; mono_print.c prints it as NESL that `nessie check` and
 * `nessie run` take. compiler/mono/README.md describes the choices. */
#ifndef MONO_H
#define MONO_H
#include "nesl.h"

/* One specialised copy of a generic function. */
typedef struct {
  const char *name; /* fresh, interned: NAME__ARG__ARG... */
  int global;       /* the generic global (NlEnv.globals) it copies */
  NlType **args;    /* ground types of the global's TY_GEN 0..nargs-1; for a variable
                       that stands for a function identity: a TY_FNID, or NULL (any
                       function of the type: a datatype field's function) */
  int nargs;
  const char *key;  /* interned text of (global, args): equal keys, same instance */
  NlType *ty;       /* the instance's ground function type */
  NlDecl *decl;     /* the copy: D_FUN named name, its signature the ground type */
  bool basis;       /* copies a basis function (printed before the user's forms) */
} MonoInst;

typedef enum {
  MF_KEEP,     /* the original form, unchanged: a generic function's definition (kept
                  for its `name = fn : type` line; only its instances are called), a
                  form whose own type is generic, a datatype, a command */
  MF_MONO,     /* a monomorphic copy of a runnable form or a non-generic function */
  MF_INST,     /* the definition of insts[inst] */
  MF_INST_SIG  /* a signature-only declaration of insts[inst] (recursion before it) */
} MonoFormKind;

typedef struct {
  MonoFormKind k;
  NlDecl *d; /* KEEP: the original; MONO: the copy; INST, INST_SIG: insts[inst].decl */
  int inst;
} MonoForm;

typedef struct MonoState MonoState;
typedef struct {
  NlEnv *env;      /* the checked program's environment (globals, datatypes) */
  NzArena *arena;  /* the copies and their types */
  NZ_VEC(MonoInst) insts;
  NZ_VEC(MonoForm) forms; /* mono_program: in program order, basis instances first;
                             mono_add: as made (each instance right after it is made) */
  MonoState *st;   /* the pass's state (mono.c) */
  int checked_insts, checked_forms; /* mono_check_new has checked insts, forms [0, these) */
} MonoProgram;

/* Monomorphises the checked forms ds[0..n) of env (D_LOAD forms already expanded in
 * place), in print order (`emit --stage=mono`). NULL after an error (a message
 * printed): a polymorphic recursion that makes instances without end. */
MonoProgram *mono_program(NlEnv *env, NlDecl **ds, int n);
void mono_free(MonoProgram *p);

/* The pipeline's use (compiler/driver/cmd_nesl.c): the forms one at a time, each as it
 * is checked, and the flattener (compiler/flan/) asks for what each call runs. */
MonoProgram *mono_new(NlEnv *env);
/* Monomorphises the next checked form d: returns its copy for a runnable form (also one
 * whose own type is generic: every free type variable becomes int) or a non-generic
 * function, else d itself (kept); the instances the copy calls are made. NULL after an
 * error (a message printed). */
NlDecl *mono_add(MonoProgram *p, NlDecl *d);
/* The monomorphic definition that a call of decl (a user or basis function with a body)
 * runs at the type arguments args (ground types of its global's TY_GEN 0..nargs-1, a
 * reference's NlExpr.inst in a copy): the instance, made now if need be; for a
 * non-generic function (nargs 0) its form's copy, or for a basis one its copy
 * NAME__basis. Made now: decl may be a same-typed redefinition (NESL.md 4.6) that came
 * after the copy that calls it. NULL if there is none (an error, or a function
 * mono_add was not given). */
NlDecl *mono_callee(MonoProgram *p, const NlDecl *decl, NlType **args, int nargs);
/* Index of the instance with key, or -1. */
int mono_find(const MonoProgram *p, const char *key);
/* The interned key of (global, args). */
const char *mono_key(int global, NlType **args, int nargs);
/* Ground function type of global g's generic type with TY_GEN i := args[i]. */
NlType *mono_subst_gen(NzArena *a, NlType *t, NlType **args, int nargs);
/* Matches generic type g (TY_GEN i) against ground type t, filling args[i] (sized
 * max TY_GEN + 1, zeroed by the caller). False when they do not fit. */
bool mono_match(NlType *g, NlType *t, NlType **args, int nargs);
/* The same for a call of a function of generic type g with an argument of type arg
 * giving res (the function's own identity not compared). */
bool mono_match_call(NlType *g, NlType *arg, NlType *res, NlType **args, int nargs);
int mono_ngen(NlType *t); /* max TY_GEN index + 1 */
/* Structural equality of ground types; a NULL function identity on the side of want
 * (a datatype field's function type) accepts any. */
bool mono_type_fits(NlType *want, NlType *t);

/* mono_check.c: the invariants (compiler/mono/README.md). Returns the number of
 * violations; each is appended to err as one line. mono_check_new checks what was added
 * since its last call (the pipeline's check after each form). */
int mono_check(const MonoProgram *p, NzBuf *err);
int mono_check_new(MonoProgram *p, NzBuf *err);

/* mono_print.c: the program as NESL source (each instance preceded by a comment that
 * says what it specialises). */
void mono_print(NzBuf *b, const MonoProgram *p);

#endif
