/* cg.h — code generation from checked (fused or unfused) λcu. Prefix: cg_.
 *
 * What every target shares lives in cg_expr.c: C names for λcu binders, C
 * types, the table of primitives, scalar and thunk expressions emitted in
 * A-normal form (one statement per operation, so faults happen in the
 * interpreter's order), CPU functions (let/if/tuples/calls/`run`, with the
 * reference counting of arrays), the table of source locations that faults
 * print, and main's entry glue. A target (cg_c.c: C11 + OpenMP) supplies the
 * kernels through CgTarget and assembles the file. compiler/codegen/README.md
 * says how a second target plugs in. */
#ifndef CG_H
#define CG_H

#include "lcu.h"

typedef struct Cg Cg;

/* A value in emitted code: one C expression per component (arity of its
 * type). Atoms are variables or literals, free of side effects; array and
 * segdes atoms in CPU code own one reference. */
typedef struct {
  int n;
  const char **v;
} CgAtoms;

/* The frame being emitted: a CPU function, a kernel, or a thunk. */
typedef struct CgScope {
  Cg *cg;
  NzBuf *b;
  int ind;              /* indentation in two-space steps */
  int thunk;            /* inside a thunk: arrays are captures, no reference counts */
  const char *it;       /* the iteration of a fault: "-1" outside parallel loops */
  int nslots;
  const char **name;    /* C base name of each frame slot */
  const LcuType **ty;   /* type of each frame slot */
  /* a thunk whose parameter (slot ixslot) is its SOAC's index in [0, n): ixsafe[u]
   * set when capture u is an array of at least n elements (cg_ix_facts), so that
   * u[ixslot] needs no bounds check; NULL: none known */
  int ixslot;
  const uint8_t *ixsafe;
  /* Inside a segmented loop's thunk: seg_of(seg_sd, seg_idx), the segment of
   * the element being visited, is the loop's segment variable seg_cur (no
   * lookup, no per-element segment index). NULL elsewhere. */
  const char *seg_sd, *seg_idx, *seg_cur;
} CgScope;

/* A target: emits a kernel as a C function with the signature of
 * cg_kernel_proto (borrowed inputs, owned outputs through pointers). */
enum { CG_GLUE_INCLUDES, CG_GLUE_ENTRY };
typedef struct {
  const char *name;
  void (*kernel)(Cg *cg, const LcuKernel *k, int index);
  /* CUDA target (NULL for C): writes the file's includes (CG_GLUE_INCLUDES,
   * instead of the default ones) and lines at the start of the entry glue
   * (CG_GLUE_ENTRY); a target with glue gets main's array results passed
   * through RT_HOST before they are printed. */
  void (*glue)(Cg *cg, NzBuf *out, int where);
  /* Kernel bodies take their fault locations as a parameter (const int *lc,
   * cg->klocs), so kernels that differ only there share a body too. */
  int body_locs;
} CgTarget;

/* A kernel body already emitted (cg_kernel_shared): its text with binders named by slot
 * (the key), and the C function that holds it. */
typedef NZ_VEC(int) CgLocs;
typedef struct {
  uint64_t h;
  const char *key, *fn;
} CgShare;

struct Cg {
  const LcuProgram *p;
  const CgTarget *target;
  NzArena *arena;
  NzBuf body;            /* kernels and functions */
  NZ_VEC(NzLoc) locs;    /* fault locations, indexed by the `loc` of rt_fault */
  int tmp;               /* temporaries v1, v2, ... */
  int canon;             /* binders named x_<slot>, functors K_...: the sharing key */
  NZ_VEC(CgShare) shares; /* kernel bodies emitted so far (cg_kernel_shared) */
  CgLocs *klocs;         /* set: locations are the body's parameter lc[] (cg_loc) */
  int profile;           /* the program writes its profile CSV by default */
  int float32;           /* --float32: λcu's float is C's float (CG_FLOAT32; README) */
  const char *profile_path;
  /* per kernel: the invocations fused into it (profile's cluster column) */
  const char **clusters;
  /* per kernel (cg_ix_facts): nsoacs rows of nslots flags, row i's slot x set when
   * array x has at least as many elements as SOAC i's iteration space at every run */
  uint8_t **ixsafe;
};

/* ------------------------------------------------------------ cg_expr.c */
/* int32_t, double (float under --float32), uint8_t, RtArr *, RtSeg * */
const char *cg_ctype(const Cg *cg, const LcuType *t);
const char *cg_zero(const Cg *cg, const LcuType *t);       /* 0, 0.0, NULL */
const char *cg_rt_elem(const Cg *cg, LcuTypeKind k); /* RT_INT, ..., RT_FLOAT or RT_FLOAT32 */
const char *cg_comp_name(Cg *cg, const char *base, const LcuType *ty, int k);
int cg_loc_index(Cg *cg, NzLoc loc);           /* index in the location table */
/* C text of loc's index: "12", or inside a C kernel body "lc[r]" (cg->klocs) */
const char *cg_loc(Cg *cg, NzLoc loc);
const char *cg_tmp(Cg *cg);                    /* a fresh temporary name */
void cg_line(CgScope *s, const char *fmt, ...) NZ_PRINTF(2, 3);
const char *cg_fmt(Cg *cg, const char *fmt, ...) NZ_PRINTF(2, 3);
const char *cg_buf_take(Cg *cg, NzBuf *b); /* b's text copied into the arena; b freed */
/* Names of a frame's slots: "<λcu name>_<slot>"; thunk slots "<name>_<tid>t<slot>"
 * (tid numbers the thunks of a kernel), so no two frames in scope collide. */
void cg_scope_func(CgScope *s, Cg *cg, const LcuFunc *f, NzBuf *b);
void cg_scope_kernel(CgScope *s, Cg *cg, const LcuKernel *k, NzBuf *b);
/* A thunk's scope inside kernel scope ks: captures are the kernel's variables. */
void cg_scope_thunk(CgScope *s, const CgScope *ks, const LcuThunk *t, int tid, const char *it);
/* Is e, a seg_of, the segment of the element a segmented loop visits (seg_cur)? */
int cg_seg_of_current(const CgScope *s, const LcuExpr *e);
/* Emits e's statements; *out gets its atoms. */
void cg_expr(CgScope *s, const LcuExpr *e, CgAtoms *out);
/* Declares atoms' components as fresh variables set to them (for values that
 * must outlive a block). */
void cg_release_atoms(CgScope *s, const LcuType *ty, const CgAtoms *a);
/* Prototype of a kernel or function: "static void NAME(T a, ..., T *out0, ...)". */
void cg_kernel_proto(Cg *cg, NzBuf *b, const LcuKernel *k);
/* Shared kernel bodies (cg_prog.c). A target emits kernel k as a body
 * function, `static void FN(RtKernelStat *st, int kx, const char *sz0, ...,
 * <k's parameters>)` (cg_kernel_body_proto; st: k's profile record, kx: k's
 * index in the program, szN: the λcu name of its N-th checked size, from
 * cg_size_name), and cg_kernel_shared emits the function cg_kernel_proto
 * declares, which calls it. Kernels whose bodies differ only in the names of
 * their binders (cg->canon), and with target->body_locs in their fault
 * locations (then `const int *lc` follows kx), share one body: flattened
 * programs inline the same basis code at many sites, hundreds of identical
 * kernels. */
typedef NZ_VEC(const char *) CgSizes;
typedef void (*CgBodyFn)(Cg *cg, const LcuKernel *k, NzBuf *b, const char *fn, CgSizes *sizes);
void cg_kernel_shared(Cg *cg, const LcuKernel *k, int index, CgBodyFn body);
void cg_kernel_body_proto(Cg *cg, NzBuf *b, const LcuKernel *k, const char *fn, const CgSizes *sizes);
const char *cg_size_name(Cg *cg, CgSizes *sizes, const LcuSize *z); /* "szN" for size z, recorded */
void cg_func_proto(Cg *cg, NzBuf *b, const LcuFunc *f);
const char *cg_kernel_cname(Cg *cg, const LcuKernel *k);
void cg_ix_facts(Cg *cg); /* fills cg->ixsafe (cg_prog.c) */
const char *cg_func_cname(Cg *cg, const LcuFunc *f);
void cg_func(Cg *cg, const LcuFunc *f);
/* A kernel's results handed out (a new reference each), its own arrays released. */
void cg_kernel_results(CgScope *ks, const LcuKernel *k);
/* Reduction operators: identity and a ⊕ b as C expressions over atoms. */
const char *cg_rop_identity(const Cg *cg, LcuRop r);
const char *cg_rop_apply(Cg *cg, LcuRop r, const char *a, const char *b);
/* The type text the runtime parses ("(int, [float])"). */
const char *cg_type_text(Cg *cg, const LcuType *t);
const char *cg_type_lit(Cg *cg, const LcuType *t); /* the same as a C string literal */
/* Whole-program assembly shared by targets: prelude comment, includes,
 * prototypes, kernels (through the target), functions, location table,
 * profile table and rt_main glue. flags: CG_PROFILE (the binary writes its
 * profile CSV by default), CG_FLOAT32 (the --float32 experiment: λcu's float is
 * C's 32-bit float; README). Returns 0, or prints why and returns an exit status. */
enum { CG_PROFILE = 1, CG_FLOAT32 = 2 };
int cg_program(const LcuProgram *p, const CgTarget *t, const char *clusters_report, int flags, NzBuf *out);

/* ------------------------------------------------------------ cg_text.c */
/* Every byte from outside the compiler reaches generated code through these. */
void cg_c_string(NzBuf *b, const char *s, size_t n);  /* a C string literal of s */
const char *cg_c_string_text(Cg *cg, const char *s);  /* the same, as text */
void cg_c_comment(NzBuf *b, const char *s);           /* s made safe inside a comment */
const char *cg_c_comment_text(Cg *cg, const char *s);
const char *cg_cid(Cg *cg, const char *name);          /* a λcu name as a C identifier */

/* ------------------------------------------------------------- cg_c.c */
extern const CgTarget cg_target_c;

/* ---------------------------------------------------------- cg_cuda.c */
extern const CgTarget cg_target_cuda;

/* ----------------------------------------------------- cg_cuda_build.c */
typedef struct {
  const char *nvcc;   /* NESSIE_NVCC, else found like .ci/find-cuda; NULL if none */
  const char *flags;  /* NESSIE_NVCCFLAGS, default -O3 */
  const char *arch;   /* --cuda-arch=sm_XX, or NULL for nvcc's default */
  const char *const *srcs; /* the program's source files, which no output may replace (NULL-ended) */
} CgCudaOpts;
void cg_cuda_defaults(CgCudaOpts *o);
/* Writes OUT.cu (kept) and compiles it with nvcc against the runtime (C part
 * and runtime/cuda, CUPTI linked). Without nvcc it writes OUT.cu, says so and
 * returns 0. */
int cg_cuda_compile(const char *text, const char *out, const CgCudaOpts *o);

/* ----------------------------------------------------------- cg_build.c */
typedef struct {
  const char *cc;     /* C compiler (NESSIE_CC, else cc) */
  const char *cflags; /* optimisation and extra flags (default -O2) */
  int keep_c;         /* also keep the .c next to the binary */
  const char *const *srcs; /* the program's source files, which no output may replace (NULL-ended) */
} CgBuildOpts;
void cg_build_defaults(CgBuildOpts *o);
/* Compiles C text into the executable `out`, linking the runtime found next to
 * the running nessie binary. Returns 0, else prints the compiler's output and
 * returns an exit status. */
int cg_compile(const char *ctext, const char *out, const CgBuildOpts *o);
/* The cached binary for ctext (compiled on a miss); path in *bin (malloc'd). */
int cg_compile_cached(const char *ctext, const CgBuildOpts *o, char **bin);
/* Whether a build may write OUT (and OUT followed by companion, ".c" or ".cu", if not
 * NULL): absent or regular files, none of srcs. 0, or an exit status after a message. */
int cg_outputs_ok(const char *out, const char *companion, const char *const *srcs);
/* A new empty file beside path (malloc'd name), or NULL after a message; and
 * tmp renamed to out (0, or an exit status after a message; tmp removed). */
char *cg_temp_beside(const char *path);
int cg_install(const char *tmp, const char *out);
/* Where the runtime lives: DIR with include/nessie_rt.h and libnessie_rt.a. */
const char *cg_runtime_dir(void);

#endif
