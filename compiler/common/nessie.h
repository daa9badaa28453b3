/* nessie.h — utilities shared by every part of the compiler: arenas, growable
 * vectors, interned strings, source files and diagnostics, exit codes.
 * Prefix: nz_. Every module header includes this one. */
#ifndef NESSIE_H
#define NESSIE_H

#include <stdarg.h>
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

/* ---- clock.c: seconds on a monotonic clock, for time limits and reports ---- */
double nz_now(void);

/* ---- floatfmt.c: NESL's float layout (NESL.md §4.8): fixed notation for
 * exponents -3..6, else 1.5E-7; inf, -inf, nan. sig significant digits
 * (NESL prints 15), or 0 for the shortest that reads back as x (which also
 * keeps the sign of -0.0). ---- */
void nz_float_print(NzBuf *b, double x, int sig);

/* ---- intern.c: interned strings compare with == and live until exit ---- */
const char *nz_intern(const char *s, size_t n);
const char *nz_intern_cstr(const char *s);
void nz_intern_free_all(void); /* at exit, so leak checkers stay quiet */

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

NzSource *nz_source_read(const char *path); /* NULL (and a message) if unreadable */
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
