/* nesl.h — the NESL front end: tokens, AST, types, run-time values, and the interface
 * of every nesl_*.c file (one file per phase: lex, parse, check, interp, prims, print).
 * External names carry the prefix nesl_ (functions) or Nl (types). */
#ifndef NESL_H
#define NESL_H
#include "nessie.h"
#include <stdbool.h>

/* ================= nesl_lex.c: tokens ================= */
typedef enum {
  T_EOF, T_INT, T_FLOAT, T_CHAR, T_STRING, T_IDENT,
  /* keywords */
  T_FUNCTION, T_DATATYPE, T_IF, T_THEN, T_ELSE, T_LET, T_IN, T_AND, T_OR, T_XOR, T_NOR, T_NAND,
  /* punctuation */
  T_LP, T_RP, T_LB, T_RB, T_LC, T_RC, T_COMMA, T_SEMI, T_DOLLAR, T_COLON, T_BAR, T_EQ, T_LT,
  T_GT, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_CARET, T_HASH, T_AT,
  T_ARROW, T_LARROW, T_PLUSPLUS, T_EQEQ, T_NE, T_LE, T_GE, T_COLONCOLON, T_BARBAR, T_DARROW,
  T_COLONEQ, T_BAREQ, T_AMPEQ, T_GTGT,
  T_ERROR, /* a lexical error (s: the message); always the last token */
  T_NTOKS
} NlTok;

typedef struct {
  NlTok k;
  NzLoc loc;
  const char *s; /* identifier (lower-cased, interned) or string contents */
  int slen;      /* string length */
  int64_t i;     /* integer or character code */
  double f;
} NlToken;

/* Tokenise src into *out (heap array, caller frees). A lexical error ends the tokens
 * with a T_ERROR token (not reported here) and returns 0; otherwise the last token is
 * T_EOF and the result 1. The parser reports a T_ERROR only when it reaches it, after
 * the forms before it. */
int nesl_lex(const NzSource *src, NlToken **out, int *n);
const char *nesl_tok_name(NlTok k); /* "')'", "'then'", ... */

/* ================= nesl_parse.c: AST ================= */
typedef struct NlType NlType;
typedef struct NlDatatype NlDatatype;
typedef struct NlFn NlFn;
typedef struct NlSeq NlSeq;

/* Syntactic types (signatures, [] T, datatype fields). */
typedef enum { TX_NAME, TX_SEQ, TX_PAIR, TX_FUN } NlTyXKind;
typedef struct NlTyX {
  NlTyXKind k;
  NzLoc loc;
  const char *name; /* TX_NAME: int, float, ..., a type variable or a datatype */
  struct NlTyX *a, *b;
  struct NlTyX **args; /* TX_NAME applied to arguments */
  int nargs;
} NlTyX;

typedef struct {
  const char *var, *cls;
  NzLoc loc;
} NlCtxEntry;

typedef enum { P_VAR, P_PAIR, P_CON } NlPatKind;
typedef struct NlPat {
  NlPatKind k;
  NzLoc loc;
  const char *name; /* variable, or constructor name */
  struct NlPat *a, *b;
  int slot;         /* P_VAR: frame slot (resolved by the checker) */
  NlType *ty;       /* type of the matched value (checker) */
} NlPat;

typedef enum {
  E_INT, E_FLOAT, E_BOOL, E_CHAR, E_STRING, E_VAR, E_PAIR, E_CALL, E_IF, E_LET, E_SEQ, E_EMPTY,
  E_RANGE, E_EACH, E_LAMBDA, E_TIME
} NlExprKind;

/* How a variable reference was resolved. */
enum { VK_UNRESOLVED, VK_LOCAL, VK_GLOBAL };

typedef struct NlExpr {
  NlExprKind k;
  NzLoc loc;
  int32_t ival;       /* E_INT, E_CHAR, E_BOOL */
  double fval;        /* E_FLOAT */
  const char *name;   /* E_VAR (interned); E_STRING contents */
  int slen;           /* E_STRING */
  bool op;            /* E_VAR: an operator; resolves against the basis, never user names */
  struct NlExpr *a, *b, *c; /* PAIR a,b; CALL fn=a arg=b; IF a b c; RANGE a b [c];
                               LET/EACH body a, EACH sieve b; LAMBDA body a; TIME a */
  struct NlExpr **xs; /* SEQ elements; LET right-hand sides; EACH generator sequences */
  NlPat **pats;       /* LET patterns; EACH generator patterns; LAMBDA pats[0] */
  int n;              /* number of xs / pats */
  NlTyX *tyx;         /* E_EMPTY */
  /* filled by the checker */
  int vk, up, slot;   /* E_VAR: VK_LOCAL (frames up, slot) or VK_GLOBAL (slot = global) */
  int nslots;         /* E_LAMBDA: size of its frame */
  NlType *ty;         /* type of the expression (EACH, SEQ, EMPTY use it at run time) */
  int ek;             /* element kind hint for sequence builders (NlElemKind), -1 unknown */
  bool user;          /* comes from the user's program (run-time errors point here) */
  NlSeq *cached;      /* E_STRING, E_EMPTY: the (immutable) value, built once */
  NlType **inst;      /* E_VAR of a generic global: what its TY_GEN i stands for here */
  int ninst;
  bool tail;          /* E_CALL: the result of a function body (through lets and ifs) */
} NlExpr;

typedef enum { D_FUN, D_DATA, D_BIND, D_EXPR, D_LOAD, D_IGNORED, D_SET, D_ERROR } NlDeclKind;
typedef struct NlDecl {
  NlDeclKind k;
  NzLoc loc;
  const char *name;   /* D_FUN, D_DATA; D_LOAD file name; D_ERROR the message */
  NlPat *pat;         /* D_FUN parameters; D_BIND pattern */
  NlExpr *body;       /* D_FUN body (NULL: signature only); D_BIND, D_EXPR expression */
  NlTyX *sig;         /* D_FUN signature (function type) */
  NlCtxEntry *ctx;    /* D_FUN / D_DATA context */
  int nctx;
  NlTyX **fields;     /* D_DATA field types */
  int nfields;        /* D_DATA: number of fields; D_SET: the value (set print_length N) */
  /* filled by the checker */
  int nslots;         /* frame size for the body */
  int global;         /* D_FUN, D_DATA: global slot defined */
  NlType *ty;         /* type to print */
  NlType **gvars;     /* D_FUN: the body's type variables that became TY_GEN 0, 1, ... */
  int ngvars;
} NlDecl;

/* Parse a whole source into *decls (a heap array the caller frees; the AST lives in
 * arena). `user` marks expressions as user code. A lexical or syntax error keeps the
 * forms before it: they are followed by one D_ERROR form, not yet reported, and the
 * result is 0. NESL reads a file form by form, so callers run the earlier forms and
 * then report the error (nesl_report_error) when they reach it. */
int nesl_parse(const NzSource *src, NzArena *arena, bool user, NlDecl ***decls, int *ndecls);
void nesl_report_error(const NlDecl *d); /* a D_ERROR form: file:line:col: error: ... */
void nesl_pat_str(NzBuf *b, const NlPat *p);
/* Parse a type with an optional "::" context (the primitive table's type strings). */
int nesl_parse_type(const NzSource *src, NzArena *arena, NlTyX **t, NlCtxEntry **ctx, int *nctx);

/* ================= nesl_check.c: types ================= */
typedef enum {
  TY_INT, TY_FLOAT, TY_BOOL, TY_CHAR, TY_SEQ, TY_PAIR, TY_FUN, TY_DATA, TY_VAR, TY_GEN,
  TY_FNID /* the identity of one function (NESL.md 3.4), in NlType.fnid of a TY_FUN */
} NlTyKind;
/* Type classes, NESL.md §3.2. */
typedef enum { CL_ANY, CL_SCALAR, CL_ORDINAL, CL_NUMBER, CL_LOGICAL } NlClass;

struct NlType {
  NlTyKind k;
  NlType *a, *b;       /* SEQ element; PAIR components; FUN argument, result */
  NlDatatype *dt;      /* DATA */
  NlType **args;       /* DATA type arguments */
  int nargs;
  NlType *ref;         /* VAR: bound to (union-find) */
  int cls;             /* VAR, GEN: class */
  int id;              /* VAR: unique id; GEN: index of the quantified variable; FNID: which */
  NlType *fnid;        /* FUN: which function (a FNID, or a VAR/GEN standing for one);
                          NULL: any function of this type (datatype fields) */
};

struct NlDatatype {
  const char *name;
  int nparams;
  NlType *fields; /* field tuple type, over TY_GEN 0..nparams-1 */
  int global;     /* constructor's global slot */
};

/* ================= run-time values ================= */
typedef enum { V_INT, V_FLOAT, V_BOOL, V_CHAR, V_SEQ, V_PAIR, V_FN } NlValKind;
/* Sequences of scalars are stored unboxed; everything else as an array of NlVal. */
typedef enum { EK_INT, EK_FLOAT, EK_BOOL, EK_CHAR, EK_BOXED } NlElemKind;

typedef struct NlPairV NlPairV;
typedef struct NlVal {
  int32_t k;
  union {
    int32_t i; /* V_INT, V_BOOL (0/1), V_CHAR (0..255) */
    double f;
    NlSeq *s;
    NlPairV *p;
    NlFn *fn;
  };
} NlVal;

struct NlSeq {
  int ek;  /* NlElemKind */
  int n;
  union {
    int32_t *i;
    double *f;
    uint8_t *b; /* bool and char */
    NlVal *v;
  };
};
struct NlPairV {
  NlVal a, b;
};

/* A global: a basis primitive, a function, a datatype constructor or a top-level value. */
typedef struct NlPrim NlPrim;
typedef struct {
  const char *name;
  NlType *ty;      /* generic (may contain TY_GEN) */
  NlVal val;
  bool defined;    /* has a value (false for signature-only declarations) */
  bool serial;     /* does file or process I/O: may not be called in an apply-to-each */
  NlDecl *decl;    /* D_FUN defining it */
  int older;       /* an earlier user definition of the name with the same type, which
                      this one replaces for the code compiled before (-1: none) */
} NlGlobal;

typedef struct NlEnv {
  NzArena *arena;   /* AST and types, freed at the end */
  NZ_VEC(NlGlobal) globals;
  NZ_VEC(NlDatatype *) datatypes;
  NZ_VEC(NzSource *) sources;
  bool basis_done;  /* operators resolve only to basis names once the basis is loaded */
  int nbasis;       /* globals [0, nbasis) are the primitives and the basis */
  int next_var;
} NlEnv;

NlEnv *nesl_env_new(void);
void nesl_env_free(NlEnv *env);
/* Index of the newest global called name (interned), or -1. Before the basis is done,
 * and for user names, the newest definition wins. */
int nesl_global_lookup(NlEnv *env, const char *name);
int nesl_global_add(NlEnv *env, const char *name, NlType *ty);
/* Typecheck one top-level form, resolving names; reports errors, returns 0 on error. */
int nesl_check_decl(NlEnv *env, NlDecl *d);
/* Parse a type written in NESL syntax ("(a, a) -> a :: (a in number)") into a generic
 * type; used for the primitive table. */
NlType *nesl_type_from_string(NlEnv *env, const char *s);
NlType *nesl_type_resolve(NlType *t); /* follow VAR bindings */
/* nesl_verify.c: the invariants of checked form d (the `ast` stage's checker, `--check`):
 * types everywhere, variables resolved into their frames or to globals. Returns the
 * number of violations, each one line appended to err. */
int nesl_verify_decl(const NlEnv *env, const NlDecl *d, NzBuf *err);

/* ================= nesl_print.c: printing ================= */
void nesl_type_str(NzBuf *b, NlType *t); /* NESL syntax, with ":: (a in number)" context */
void nesl_value_print(NzBuf *b, NlVal v, NlType *t); /* top-level printer, NESL.md §4.8 */
extern int nesl_print_length; /* elements of a sequence printed (set print_length N) */
void nesl_value_string(NzBuf *b, NlVal v);           /* `@v`, NESL.md §4.9 */
void nesl_float_top(NzBuf *b, double x);             /* float at top level */
void nesl_float_string(NzBuf *b, double x, int digits, bool force_sci); /* float_string */
/* A checked top-level form printed back as NESL source, its type in a comment before it
 * (fully parenthesised; parses back to the same program). */
void nesl_decl_print(NzBuf *b, const NlDecl *d);

/* ================= nesl_interp.c: evaluation ================= */
/* Evaluate a checked top-level form; prints its result line when print is set. Returns 0
 * after a run-time error (message printed). Runs on the caller's stack: callers use
 * nesl_run_on_big_stack. */
int nesl_eval_decl(NlEnv *env, NlDecl *d, bool print);
/* The value of a D_BIND or D_EXPR form computed elsewhere (the λcu interpreter):
 * defines its globals and prints its result line like nesl_eval_decl. */
void nesl_define_value(NlEnv *env, NlDecl *d, NlVal v, bool print);
/* Run fn(arg) on a thread with a stack large enough for deep NESL recursion. */
int nesl_run_on_big_stack(int (*fn)(void *), void *arg);
/* Raise a run-time error at the innermost user-code location; does not return. */
NZ_NORETURN void nesl_rt_error(const char *fmt, ...) NZ_PRINTF(1, 2);
void nesl_rt_reset(void); /* free every run-time allocation (at exit) */
/* Run-time objects are garbage-collected (mark-sweep, precise roots: globals, live
 * frames, and the temporaries the evaluator registers). Collection happens only on
 * entry to a NESL function, so C code that does not call back into the evaluator
 * (primitives) may hold unrooted pointers. */
void *nesl_rt_alloc(size_t n);
void nesl_rt_pin(void *p); /* never collect this object (values cached in the AST) */
NlSeq *nesl_seq_new(int ek, int n);
NlVal nesl_seq_get(const NlSeq *s, int i);
void nesl_seq_set(NlSeq *s, int i, NlVal v);
NlVal nesl_mk_pair(NlVal a, NlVal b);
NlVal nesl_apply(NlVal fn, NlVal arg); /* may collect: the caller must not hold unrooted values */
NlVal nesl_seq_from_vals(const NlVal *v, int n, int ek_hint); /* ek_hint -1: from values */
int nesl_esize(int ek);
void nesl_set_loc(NzLoc loc); /* where the next run-time error is reported */

/* ================= nesl_prims.c: primitives ================= */
/* A primitive receives the components of its argument tuple (arity of them). */
typedef NlVal (*NlPrimFn)(NlVal *args);
struct NlPrim {
  const char *name; /* "__add", ... */
  const char *type; /* NESL type syntax */
  int arity;        /* components of the argument tuple */
  NlPrimFn fn;
};
struct NlFn {
  int k; /* FN_PRIM, FN_USER, FN_LAMBDA, FN_CON */
  const NlPrim *prim;
  NlDecl *decl;
  NlExpr *lambda;
  struct NlFrame *frame; /* lambda: captured frames */
};
enum { FN_PRIM, FN_USER, FN_LAMBDA, FN_CON };
typedef struct NlFrame {
  NlVal *slots;
  int n;
  struct NlFrame *up;        /* enclosing frames (a lambda's captured copies) */
  struct NlFrame *prev_live; /* the next older frame on the evaluation stack (GC roots) */
  /* A call of a generic function: decl's gvars[i] stands for inst[i], a type of the
   * calling code, which frame caller resolves in turn (inst NULL: not known); kinds[i]
   * caches the element kind that gives (NL_KIND_UNSET until asked). The interpreter
   * needs this only for sequences whose element type is a type variable. */
  const NlDecl *decl;
  NlType **inst;
  struct NlFrame *caller;
  signed char *kinds;
} NlFrame;
enum { NL_KIND_UNSET = -3 };

extern const NlPrim nesl_prims[];
extern const int nesl_nprims;
void nesl_prims_reseed(void); /* reseed rand (before every top-level form, like NESL) */
int nesl_elem_kind_of_type(NlType *t); /* NlElemKind, or -1 when not known statically */

/* ================= generated: the embedded basis (basis/ *.nesl) ================= */
typedef struct {
  const char *name, *text;
} NlBasisFile;
extern const NlBasisFile nesl_basis_files[];
extern const int nesl_basis_nfiles;

/* Load the primitive table and the basis into env. Returns 0 on error. */
int nesl_load_basis(NlEnv *env);

#endif
