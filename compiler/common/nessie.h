/* nessie.h — utilities shared by every part of the compiler: arenas, growable
 * vectors, interned strings, source files and diagnostics, exit codes.
 * Prefix: nz_. Every module header includes this one. */
#ifndef NESSIE_H
#define NESSIE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exit statuses (DESIGN.md "Command lines"). */
enum { NZ_EXIT_OK = 0, NZ_EXIT_USER = 1, NZ_EXIT_USAGE = 2, NZ_EXIT_INTERNAL = 3 };

#if defined(__GNUC__)
#define NZ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define NZ_NORETURN __attribute__((noreturn))
#else
#define NZ_PRINTF(a, b)
#define NZ_NORETURN
#endif

/* ---- arena.c: bump allocation, freed all at once at the end of a phase ---- */
typedef struct NzArena NzArena;
NzArena *nz_arena_new(void);
void nz_arena_free(NzArena *a);
void *nz_alloc(NzArena *a, size_t n); /* zero-filled, 16-byte aligned */
char *nz_strndup(NzArena *a, const char *s, size_t n);
char *nz_sprintf(NzArena *a, const char *fmt, ...) NZ_PRINTF(2, 3);
char *nz_vsprintf(NzArena *a, const char *fmt, va_list ap);
#define NZ_NEW(arena, T) ((T *)nz_alloc((arena), sizeof(T)))
#define NZ_NEWN(arena, T, n) ((T *)nz_alloc((arena), sizeof(T) * (size_t)(n)))

/* Checked malloc family: out of memory is an internal error (exit 3). */
void *nz_xmalloc(size_t n);
void *nz_xcalloc(size_t n, size_t sz);
void *nz_xrealloc(void *p, size_t n);
char *nz_xstrdup(const char *s);

/* Growable vector of any element type, heap-backed:
 *   NZ_VEC(int) v = {0}; nz_vec_push(v, 3); ... free(v.v);            */
#define NZ_VEC(T) struct { T *v; int n, cap; }
#define nz_vec_push(vec, x)                                                        \
  do {                                                                             \
    if ((vec).n == (vec).cap) {                                                    \
      (vec).cap = (vec).cap ? 2 * (vec).cap : 8;                                   \
      (vec).v = nz_xrealloc((vec).v, sizeof(*(vec).v) * (size_t)(vec).cap);        \
    }                                                                              \
    (vec).v[(vec).n++] = (x);                                                      \
  } while (0)
#define nz_vec_free(vec) (free((vec).v), (vec).v = NULL, (vec).n = (vec).cap = 0)

/* Growable string buffer. */
typedef struct {
  char *s;
  size_t len, cap;
} NzBuf;
void nz_buf_putc(NzBuf *b, char c);
void nz_buf_puts(NzBuf *b, const char *s);
void nz_buf_printf(NzBuf *b, const char *fmt, ...) NZ_PRINTF(2, 3);
void nz_buf_vprintf(NzBuf *b, const char *fmt, va_list ap);
void nz_buf_free(NzBuf *b);

/* ---- scope.c: a stack of bindings indexed by (interned) name. Entries are
 * numbered 0..n-1 as pushed; the caller keeps their payloads in a stack of
 * its own, pushed and popped in step. ---- */
typedef struct {
  const char *name;
  int top; /* the name's latest entry, -1 when none */
} NzScopeSlot;
typedef struct {
  int n, cap;
  int *prev;          /* per entry: the earlier entry of the same name, or -1 */
  const char **names; /* per entry */
  NzScopeSlot *h;     /* open addressing on the pointer; keeps every name seen */
  size_t hcap, used;
} NzScopeIndex;
void nz_scope_push(NzScopeIndex *x, const char *name);
int nz_scope_find(const NzScopeIndex *x, const char *name, int limit); /* latest entry < limit, or -1 */
void nz_scope_pop_to(NzScopeIndex *x, int n);
void nz_scope_free(NzScopeIndex *x);

/* ---- stack.c: runs fn(argc, argv) on a thread with a 1 GB stack (the tools'
 * mains: the passes recurse along let chains) and returns its result ---- */
#define NZ_BIG_STACK ((size_t)1 << 30)
int nz_main_on_big_stack(int (*fn)(int, char **), int argc, char **argv);
/* The recursion rule of running programs, the same on every path: at most
 * nz_max_depth() nested function calls (NESSIE_MAX_DEPTH, default 10^6; a bad value
 * exits 2), past which a program stops with NZ_DEEP_MSG (one %lld: the limit); a stack
 * that runs out first is NZ_STACK_MSG. nz_run_on_stack runs fn(arg, room) on a thread
 * with the largest stack of 4 GB, 1 GB, 256 MB, 64 MB it can have (room: the bytes fn
 * may use) and returns room. */
#define NZ_MAX_DEPTH_DEFAULT 1000000
#define NZ_MAX_DEPTH_MAX 100000000
#define NZ_DEEP_MSG "Recursion too deep: more than %lld nested function calls."
#define NZ_STACK_MSG "Recursion too deep: the stack is exhausted."
int64_t nz_max_depth(void);
size_t nz_run_on_stack(void (*fn)(void *, size_t), void *arg);

/* ---- clock.c: seconds on a monotonic clock, for time limits and reports ---- */
double nz_now(void);

/* ---- rand.c: NESL's random numbers (NESL.md 4.4), one global state ---- */
/* nz_rand_seed(0) is the initial state (the AST interpreter's reseed before a form). A
 * draw with v <= 0 is the caller's fault ("Rand only works with positive numbers."): it
 * returns 0 and draws nothing. */
void nz_rand_seed(int32_t n);
int32_t nz_rand_int(int32_t v);   /* in [0, v) */
double nz_rand_float(double v);   /* in [0, v) */
/* fail_if_g's message: msg (len bytes) with its first %g replaced by x as C's %g. */
void nz_msg_g(NzBuf *b, const char *msg, size_t len, double x);

/* ---- sortperm.c: perm[p] = the index of the element at sorted position p of its
 * segment (starts[0..nsegs], starts[nsegs] the total; stable, by < and >) ---- */
void nz_sort_perm(const int64_t *starts, int64_t nsegs, const double *x, int32_t *perm);

/* ---- floatfmt.c: NESL's float layout (NESL.md §4.8): fixed notation for
 * exponents -3..6, else 1.5E-7; inf, -inf, nan. sig significant digits
 * (NESL prints 15), or 0 for the shortest that reads back as x (which also
 * keeps the sign of -0.0). ---- */
void nz_float_print(NzBuf *b, double x, int sig);
/* NESL's float_string / exp_string layout (NESL.md §4.9): `digits` significant digits;
 * force_sci: always d.ddde+n. Shared by the AST interpreter, λcu and the runtime. */
void nz_float_string(NzBuf *b, double x, int digits, bool force_sci);
/* parse_float of s[0..n) (NESL.md 5.15): *x is the value of the longest prefix with the
 * number syntax (0.0 if none); returns whether that prefix is the whole string. */
bool nz_parse_float(const char *s, int n, double *x);

/* ---- sysio.c: NESL's streams, files and processes (NESL.md 5.16), one table per
 * process shared by the AST interpreter, λcu and the runtime. Streams: 0..2 standard,
 * 3..63 files. msg: "" or why it failed (static text). ---- */
int nz_io_open(const char *name, int mode, const char **msg); /* mode 0 read, 1 write, 2 append; -1 on failure */
bool nz_io_close(int fd, const char **msg);
bool nz_io_write(int fd, const void *s, size_t n, const char **msg);
int nz_io_read_char(int fd, bool *ok, const char **msg); /* the char, 0 at the end */
bool nz_io_read_file(const char *name, NzBuf *out, const char **msg);
void nz_io_shell(const char *cmd, const void *in, size_t n, NzBuf *out); /* cmd's output with input in */
/* `sh -c cmd` with stdin, stdout, stderr on the streams want[k], or new pipes for -1 */
bool nz_io_spawn(const char *cmd, const int want[3], int got[3], const char **msg);

/* ---- intern.c: interned strings compare with == and live until exit ---- */
/* FNV-1a over n bytes, from h (NZ_FNV_SEED to start): the one string hash */
#define NZ_FNV_SEED 1469598103934665603ull
uint64_t nz_fnv1a(uint64_t h, const void *s, size_t n);
const char *nz_intern(const char *s, size_t n);
const char *nz_intern_cstr(const char *s);
/* "BASE_N" interned, from the first len bytes of base (fresh names: snprintf
 * was a tenth of a compile's instructions) */
const char *nz_intern_numbered(const char *base, size_t len, unsigned long n);
void nz_intern_free_all(void); /* at exit, so leak checkers stay quiet */

/* ---- options.c: strict numeric options. nz_parse_*: the whole string is a
 * number in [lo, hi] (no overflow, no trailing text): 0, else -1. nz_opt_*:
 * arg is "NAME=VALUE"? 1 (value in *out), 0 if arg is not that option, -1
 * after "PROG: NAME wants an integer from LO to HI, not 'V'" on stderr (the
 * caller exits NZ_EXIT_USAGE). Seconds are positive and at most hi. ---- */
int nz_parse_ll(const char *s, long long lo, long long hi, long long *out);
int nz_parse_double(const char *s, double lo, double hi, double *out);
int nz_opt_ll(const char *arg, const char *name, long long lo, long long hi, long long *out);
int nz_opt_int(const char *arg, const char *name, int lo, int hi, int *out);
int nz_opt_seconds(const char *arg, const char *name, double hi, double *out);
#define NZ_SECONDS_MAX 31536000.0 /* a year: the largest time limit accepted */

/* ---- output.c: checked output. Write errors (a full disk, a closed pipe)
 * are errors, reported with a message; files appear complete or not at all.
 *   nz_output_init()      at the start of main: SIGPIPE ignored, so a closed
 *                         pipe is a write error (EPIPE) like any other
 *   nz_stdout_finish(rc)  at the end of main: flushes and closes stdout; on a
 *                         write error prints why and returns NZ_EXIT_USER
 *                         (rc when rc already reports a failure), else rc
 *   nz_stdout_flush()     fflush(stdout) that remembers the first write
 *                         error's cause for nz_stdout_finish's message
 *   nz_out_open/close     a file written as PATH.tmpPID and renamed to PATH by
 *                         nz_out_close once flushed and closed without error
 *                         (0; else the temporary is removed, a message, -1);
 *                         a PATH that exists and is not a regular file (a
 *                         device, a FIFO) is written directly
 *   nz_out_discard        abandons the file (the temporary is removed)
 *   nz_out_temp_name/nz_out_commit_name  the same for writers that open the
 *                         file themselves (GLPK's glp_write_lp): the name to
 *                         write (malloc'ed; NULL: write PATH directly), then
 *                         rename it if ok, else remove it ---- */
typedef struct {
  FILE *f;
  const char *path;
  char *tmp;
} NzOutFile;
void nz_output_init(void);
int nz_stdout_finish(int rc);
int nz_stdout_flush(void);
FILE *nz_out_open(NzOutFile *o, const char *path); /* NULL after a message */
int nz_out_close(NzOutFile *o);
void nz_out_discard(NzOutFile *o);
char *nz_out_temp_name(const char *path);
int nz_out_commit_name(const char *tmp, const char *path, int ok);

/* ---- source.c: source files and diagnostics ---- */
typedef struct NzSource {
  const char *name; /* as given on the command line */
  char *text;       /* NUL-terminated contents */
  size_t len;
} NzSource;

/* A position in a source; line and col are 1-based, col counts bytes. */
typedef struct {
  const NzSource *src;
  int line, col;
} NzLoc;

/* NULL (and a message) if unreadable, larger than NZ_SOURCE_MAX bytes (endless
 * input such as /dev/zero stops there) or holding a NUL byte. _at reports at
 * `from` (the form that asked for the file) when from.src is set. */
#define NZ_SOURCE_MAX (64 << 20)
NzSource *nz_source_read(const char *path);
NzSource *nz_source_read_at(const char *path, NzLoc from);
NzSource *nz_source_from_string(const char *name, const char *text);
void nz_source_free(NzSource *s);

/* "file:line:col: error: msg", then the offending source line and a caret,
 * on stderr. Counts errors in nz_error_count. */
extern int nz_error_count;
void nz_error_at(NzLoc loc, const char *fmt, ...) NZ_PRINTF(2, 3);
void nz_verror_at(NzLoc loc, const char *fmt, va_list ap);
void nz_note_at(NzLoc loc, const char *fmt, ...) NZ_PRINTF(2, 3);
/* An error with no source position: "nessie: error: msg". */
void nz_error(const char *fmt, ...) NZ_PRINTF(1, 2);
/* "nessie: warning: msg" (not counted as an error). */
void nz_warning(const char *fmt, ...) NZ_PRINTF(1, 2);
/* An impossible state: "nessie: internal error: msg", exit 3. */
NZ_NORETURN void nz_die(const char *fmt, ...) NZ_PRINTF(1, 2);

/* Program name used in messages without a location (default "nessie"). */
extern const char *nz_progname;

#endif
