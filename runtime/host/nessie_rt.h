/* nessie_rt.h — the runtime library that compiled λcu programs link against
 * (the C back end; runtime/README.md). Prefix: rt_. Everything a generated
 * program uses is declared here; it includes nothing of the compiler.
 *
 * Values: a flat array is an RtArr (reference counted, immutable once built),
 * a segment descriptor an RtSeg; scalars are int32_t (int), double (float),
 * uint8_t (bool, 0 or 1, and char); under --float32 float is C's float and a
 * float array's elements are floats (RT_FLOAT32), while cells (RtCell.f) stay
 * double. Tuples never exist at run time: generated
 * code keeps one C variable per component.
 *
 * Faults: rt_fault(it, loc, ...) with it < 0 prints the interpreter's message
 * and exits 1 at once (sequential code). Inside a parallel loop `it` is the
 * iteration (element) being evaluated: the fault of the lowest iteration is
 * kept, the loop runs to its end on dummy values, and rt_fault_check() after
 * the loop reports it, so the message is the one a sequential run gives. */
#ifndef NESSIE_RT_H
#define NESSIE_RT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#define RT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define RT_UNUSED __attribute__((unused)) /* generated names a program may not read */
#else
#define RT_UNUSED
#define RT_UNLIKELY(x) (x)
#define RT_PRINTF(a, b)
#endif

/* CUDA back end (runtime/cuda, cg_cuda.c): the same header compiled by nvcc.
 * RT_HD marks the scalar helpers that thunks call on the device too; there a
 * fault goes to rt_cu_raise (the failing element's index and the message's
 * code and operands, RT_FC_*), and the host prints it later through the
 * rt_fault functions below, so both back ends give the same message. In C
 * (and in host code) RT_RAISE is the host call itself. */
#if defined(__CUDACC__)
#define RT_HD __host__ __device__
static __device__ void rt_cu_raise(long long i, int code, int loc, long long a, long long b, long long c);
#else
#define RT_HD
#endif
#if defined(__CUDA_ARCH__)
#define RT_RAISE(host, i, code, loc, a, b, c) rt_cu_raise(i, code, loc, a, b, c)
#else
#define RT_RAISE(host, i, code, loc, a, b, c) host
#endif
enum { RT_FC_NONE, RT_FC_IDIV, RT_FC_IMOD, RT_FC_F2I, RT_FC_I2C, RT_FC_INDEX, RT_FC_SEG_START, RT_FC_SEG_LEN,
       RT_FC_SEG_OF };
/* CPU code reads an array's elements only through RT_HOST(a) (the CUDA
 * runtime copies a device-resident array back first; in C it is `a`). */
#ifndef RT_HOST
#define RT_HOST(a) (a)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- values */

enum { RT_BOOL, RT_CHAR, RT_INT, RT_FLOAT }; /* element kinds, as LcuTypeKind */
/* A float array of a program built with --float32 (compiler/codegen/README.md):
 * 4-byte floats. Not an LcuTypeKind; the runtime's boundary (rt_io.c) widens it to
 * doubles for printing and the λcu value code, and narrows float arrays it makes. */
enum { RT_FLOAT32 = 8 };

typedef struct RtArr {
  int64_t refs;
  int64_t len;
  int elem;
  void *d; /* len elements (room for at least one) */
  void *dev; /* CUDA: the device copy (NULL in C); d may then be stale (runtime/cuda) */
} RtArr;

typedef struct RtSeg {
  int64_t refs;
  int64_t nsegs, total;
  int32_t *lens;   /* nsegs */
  int64_t *starts; /* nsegs + 1; starts[nsegs] == total */
  int32_t *segof;  /* total entries, built on demand (rt_seg_need_segof) */
  void *dev;       /* CUDA: the device copy (NULL in C) */
} RtSeg;

/* One component of a value crossing the runtime boundary (main's arguments
 * and result, print): the type string says which field. */
typedef union {
  int32_t i;
  double f;
  uint8_t b; /* bool and char */
  RtArr *a;
  RtSeg *s;
} RtCell;

/* ------------------------------------------------ memory (rt_mem.c) */

/* Every block of the runtime and of generated code comes from here; the
 * counters feed the profile (bytes allocated, live and peak). Allocation
 * failure is the fault "out of memory", exit 1. */
void *rt_alloc(size_t n);
void *rt_calloc(size_t n);
void rt_free(void *p);
extern int64_t rt_bytes_allocated, rt_bytes_live, rt_bytes_peak;

RtArr *rt_arr_new(int elem, int64_t len);      /* uninitialised elements */
RtArr *rt_arr_zeroed(int elem, int64_t len);   /* zero-filled */
void rt_arr_free(RtArr *a);
RtSeg *rt_seg_from_lens(const int32_t *lens, int64_t nsegs); /* lens >= 0, checked by caller */
void rt_seg_free(RtSeg *s);
void rt_seg_need_segof(RtSeg *s); /* before a parallel loop that uses seg_of */

/* CUDA: frees an array's or segdes's device copy (set by runtime/cuda). */
extern void (*rt_dev_free_hook)(void *dev);

static inline void rt_retain(RtArr *a) { a->refs++; }
static inline void rt_release(RtArr *a) {
  if (a && --a->refs == 0) rt_arr_free(a);
}
static inline void rt_seg_retain(RtSeg *s) { s->refs++; }
static inline void rt_seg_release(RtSeg *s) {
  if (s && --s->refs == 0) rt_seg_free(s);
}

/* ------------------------------------------------- faults (rt_fault.c) */

typedef struct {
  int line, col;
  const char *text; /* the source line, for the caret display */
} RtLoc;

void rt_fault(int64_t it, int loc, const char *fmt, ...) RT_PRINTF(3, 4);
extern volatile int rt_fault_pending;
void rt_fault_report(void); /* prints the kept fault, exits 1 */
static inline void rt_fault_check(void) {
  if (RT_UNLIKELY(rt_fault_pending)) rt_fault_report();
}
/* The iteration of the kept fault (INT64_MAX if none): loops may stop past it. */
extern volatile int64_t rt_fault_iter;
void rt_fault_index(int64_t it, int loc, int32_t i, int64_t len);
void rt_fault_f2i(int64_t it, int loc, const char *name, double x);
void rt_fault_negative_size(int loc, const char *name, int64_t n);
void rt_fault_permute_range(int64_t it, int loc, int32_t d, int64_t m);
void rt_fault_permute_collide(int64_t it, int loc, int32_t d, int64_t first);

/* Runaway recursion in CPU code: functions call rt_enter/rt_leave. More than
 * rt_max_depth nested calls, or a stack that runs out first, is a fault with the
 * interpreters' messages (the recursion rule, compiler/nesl/README.md). */
extern char *rt_stack_limit;
extern int64_t rt_depth, rt_max_depth;
void rt_fault_deep(int loc);
static inline void rt_enter(int loc) {
  if (RT_UNLIKELY(++rt_depth > rt_max_depth || (char *)__builtin_frame_address(0) < rt_stack_limit))
    rt_fault_deep(loc);
}
static inline void rt_leave(void) { rt_depth--; }

/* ------------------------------------------- scalar primitives (inline) */

static inline RT_HD int32_t rt_iadd(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline RT_HD int32_t rt_isub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static inline RT_HD int32_t rt_imul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
static inline RT_HD int32_t rt_ineg(int32_t a) { return (int32_t)(0u - (uint32_t)a); }
static inline RT_HD int32_t rt_iabs(int32_t a) { return a < 0 ? rt_ineg(a) : a; }
static inline RT_HD int32_t rt_idiv(int32_t a, int32_t b, int64_t it, int loc) {
  if (RT_UNLIKELY(b == 0)) {
    RT_RAISE(rt_fault(it, loc, "integer division by zero"), it, RT_FC_IDIV, loc, 0, 0, 0);
    return 0;
  }
  return b == -1 ? rt_ineg(a) : a / b;
}
static inline RT_HD int32_t rt_imod(int32_t a, int32_t b, int64_t it, int loc) {
  if (RT_UNLIKELY(b == 0)) {
    RT_RAISE(rt_fault(it, loc, "integer modulo by zero"), it, RT_FC_IMOD, loc, 0, 0, 0);
    return 0;
  }
  return b == -1 ? 0 : a % b;
}
static inline RT_HD int32_t rt_shl(int32_t a, int32_t n) {
  return (uint32_t)n >= 32 ? 0 : (int32_t)((uint32_t)a << n);
}
static inline RT_HD int32_t rt_shr(int32_t a, int32_t n) {
  return (uint32_t)n >= 32 ? (a < 0 ? -1 : 0) : a >> n;
}
/* float -> int conversions: r is trunc/floor/ceil/round of x. */
static inline RT_HD int32_t rt_f2i(double x, double r, const char *name, int64_t it, int loc) {
  if (RT_UNLIKELY(!(r >= -2147483648.0 && r <= 2147483647.0))) {
    RT_RAISE(rt_fault_f2i(it, loc, name, x), it, RT_FC_F2I, loc, name[0], __double_as_longlong(x), 0);
    return 0;
  }
  return (int32_t)r;
}
/* The same under --float32: r is truncf/floorf/... of x, checked in float (a fault's
 * message shows x widened to double; on the device c = 1 says b holds float bits). */
static inline RT_HD int32_t rt_f2if(float x, float r, const char *name, int64_t it, int loc) {
  if (RT_UNLIKELY(!(r >= -2147483648.0f && r < 2147483648.0f))) {
    RT_RAISE(rt_fault_f2i(it, loc, name, x), it, RT_FC_F2I, loc, name[0], __float_as_int(x), 1);
    return 0;
  }
  return (int32_t)r;
}
static inline RT_HD uint8_t rt_i2c(int32_t a, int64_t it, int loc) {
  if (RT_UNLIKELY(a < 0 || a > 255)) {
    RT_RAISE(rt_fault(it, loc, "i2c(%d): a char code is 0..255", a), it, RT_FC_I2C, loc, a, 0, 0);
    return 0;
  }
  return (uint8_t)a;
}
/* A checked subscript: i itself, or 0 after recording the fault. */
static inline RT_HD int64_t rt_ix(int32_t i, int64_t len, int64_t it, int loc) {
  if (RT_UNLIKELY((uint64_t)(int64_t)i >= (uint64_t)len)) {
    RT_RAISE(rt_fault_index(it, loc, i, len), it, RT_FC_INDEX, loc, i, len, 0);
    return 0;
  }
  return i;
}
static inline int32_t rt_seg_start(const RtSeg *s, int32_t j, int64_t it, int loc) {
  if (RT_UNLIKELY(j < 0 || j > s->nsegs)) {
    rt_fault(it, loc, "seg_start: segment %d out of range (%lld segments)", j, (long long)s->nsegs);
    return 0;
  }
  return (int32_t)s->starts[j];
}
static inline int32_t rt_seg_len(const RtSeg *s, int32_t j, int64_t it, int loc) {
  if (RT_UNLIKELY(j < 0 || j >= s->nsegs)) {
    rt_fault(it, loc, "seg_len: segment %d out of range (%lld segments)", j, (long long)s->nsegs);
    return 0;
  }
  return s->lens[j];
}
static inline int32_t rt_seg_of(const RtSeg *s, int32_t i, int64_t it, int loc) {
  if (RT_UNLIKELY(i < 0 || i >= s->total)) {
    rt_fault(it, loc, "seg_of: element %d out of range (%lld elements)", i, (long long)s->total);
    return 0;
  }
  if (s->nsegs == 1) return 0; /* an unlifted sequence's: no table (rt_seg_need_segof) */
  const int32_t *so = __atomic_load_n(&s->segof, __ATOMIC_ACQUIRE);
  if (RT_UNLIKELY(!so)) { /* CPU code, or a segdes the kernel did not prepare */
    rt_seg_need_segof((RtSeg *)s);
    so = __atomic_load_n(&s->segof, __ATOMIC_ACQUIRE);
  }
  return so[i];
}

/* fhash(x): the low word xor the high word of x's bits, -0.0 as 0.0 (NESL's hash). */
static inline int32_t rt_fhash(double x) {
  double d = x == 0 ? 0 : x;
  uint64_t u;
  memcpy(&u, &d, 8);
  return (int32_t)(uint32_t)(u ^ (u >> 32));
}

/* CPU-only primitives (rt_io.c). The argument is borrowed. */
void rt_fail_message(const RtArr *msg, int loc); /* fail_if: the fault's text is msg */
void rt_fail_message_g(const RtArr *msg, double x, int loc); /* fail_if_g: msg's %g is x */
RtSeg *rt_make_segdes(const RtArr *lens, int loc);
RtArr *rt_seg_lengths(const RtSeg *s);
/* rand, rand_vec, rand_seed, timer (NESL's generator, compiler/common/rand.c; one
 * global state, draws in index order; a bound <= 0 is a fault at loc). */
int32_t rt_rand_int(int32_t v, int loc);
double rt_rand_float(double v, int loc);
RtArr *rt_rand_vec(const RtArr *bounds, int loc);
uint8_t rt_rand_seed(int32_t n);
double rt_timer(void);
/* sort_perm(sd, xs): per segment, the stable sorting permutation of xs (borrowed). */
RtArr *rt_sort_perm(const RtSeg *sd, const RtArr *xs, int loc);
/* print(v): `type` is the λcu type text of v ("(int, [float])"), cells its
 * components; prints the value and a newline like the interpreter. */
void rt_print(const char *type, const RtCell *cells);
/* show(text, v): the NESL value v (ncells cells of λcu type `type`) printed as text
 * describes (compiler/lcu/lcu_show.c); a mismatch is a fault at loc. */
void rt_show(const RtArr *text, const char *type, const RtCell *cells, int ncells, int loc);
/* The text primitives of NESL (compiler/lcu/README.md): new (segdes, [char]) or
 * ([float], [bool]) results through the pointers; the operands are borrowed.
 * format(text, n, v): n rows of v (ncells cells of λcu type `type`) as text. */
void rt_format(const RtArr *text, int32_t n, const char *type, const RtCell *cells, int ncells, RtSeg **sd,
               RtArr **chars, int loc);
void rt_float_format(const RtArr *x, const RtArr *digits, const RtArr *sci, RtSeg **sd, RtArr **chars, int loc);
void rt_parse_float(const RtSeg *sd, const RtArr *chars, RtArr **xs, RtArr **ok, int loc);
void rt_print_chars(const RtArr *chars);
/* read_object(text, (sd, cs), w): the nres cells of the values read and their flags. */
void rt_read_objects(const RtArr *text, const RtSeg *sd, const RtArr *cs, RtCell *res, int nres, int loc);
/* The I/O primitive `name` (open_file ... spawn) on the cells of its operands (of λcu
 * type `argtype`, borrowed); its result's cells (new references) go to res. */
void rt_io_call(const char *name, const char *argtype, const RtCell *args, RtCell *res);

/* ------------------------------------------- parallel loops (rt_par.c) */

/* Reductions, scans and segmented operations split the iteration space into
 * blocks of rt_block elements (NESSIE_RT_BLOCK, default 16384): each block is
 * folded left to right, and block results are combined left to right, so the
 * result depends on n and rt_block only, never on the number of threads. */
extern int64_t rt_block;
static inline int64_t rt_nblocks(int64_t n) { return n <= 0 ? 0 : (n + rt_block - 1) / rt_block; }
/* First segment a block starting at flat position lo must visit: the one
 * holding lo, or the first (empty ones included) starting at lo. */
int64_t rt_seg_first(const RtSeg *s, int64_t lo);
/* dst[b] = max(dst[b], i), atomically (PERMUTE ... into: the last write wins). */
static inline void rt_atomic_max(int64_t *dst, int64_t i) {
  int64_t cur = __atomic_load_n(dst, __ATOMIC_RELAXED);
  while (cur < i && !__atomic_compare_exchange_n(dst, &cur, i, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}
/* The same on an int array (a PERMUTE whose value is its index + k, cg_c.c). */
static inline void rt_atomic_max_i32(int32_t *dst, int32_t v) {
  int32_t cur = __atomic_load_n(dst, __ATOMIC_RELAXED);
  while (cur < v && !__atomic_compare_exchange_n(dst, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}
/* Returns the old flag and sets it. */
static inline int rt_atomic_mark(uint8_t *flag) { return __atomic_exchange_n(flag, 1, __ATOMIC_RELAXED); }

/* ------------------------------------------------ profile (rt_prof.c) */

typedef struct {
  const char *kernel, *cluster;
  int soacs;
  int64_t launches, elements, bytes;
  double seconds;
} RtKernelStat;
double rt_now(void);
/* Called at a kernel's end with its start time and the allocation counter then. */
void rt_prof_kernel(RtKernelStat *k, int64_t elements, double t0, int64_t bytes0);

/* ------------------------------------------------ programs (rt_io.c) */

typedef struct {
  const char *program; /* the source file, as in messages */
  const RtLoc *locs;
  int nparams;
  const char *const *param_names;
  const char *const *param_types; /* λcu type text of each main parameter */
  const char *result_type;
  int nparam_cells, nresult_cells;
  void (*entry)(const RtCell *args, RtCell *result);
  RtKernelStat *const *kernels;
  int nkernels;
  const char *profile_default; /* CSV path when built with --profile, else NULL */
  int float32;                 /* built with --float32: float arrays are RT_FLOAT32 */
} RtProgram;

/* The generated main: parses main's arguments (literals, or --random-inputs
 * [--seed=S] [--max-len=N] as `nessie lcu run`), runs the program on a thread
 * with a large stack, prints the result, writes the profile. */
int rt_main(int argc, char **argv, const RtProgram *p);

/* The profile CSV's writer (rt_prof.c), shared by both back ends: the CUDA
 * runtime sets the backend and device columns and, through rt_prof_fill, puts
 * CUPTI's kernel times into the table before it is written. */
extern const char *rt_prof_backend, *rt_prof_device;
extern void (*rt_prof_fill)(const RtProgram *p);
int rt_prof_write(const RtProgram *p, const char *path, double wall);

#ifdef __cplusplus
}
#endif

#endif
