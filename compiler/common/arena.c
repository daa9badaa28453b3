/* arena.c — bump allocator for compiler phases, checked malloc, string buffers. */
#include "nessie.h"

typedef struct Chunk {
  struct Chunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
} Chunk;

struct NzArena {
  Chunk *head;
};

/* Running out of memory is a limit of the machine, not a bug: a program that
 * asks for a huge array gets "nessie: error: out of memory ..." and exit 1,
 * like any other error a user's input can cause (DESIGN.md's exit codes). */
NZ_NORETURN static void out_of_memory(const char *what, size_t n, size_t sz) {
  if (sz)
    nz_error("out of memory %s %zu x %zu bytes", what, n, sz);
  else
    nz_error("out of memory %s %zu bytes", what, n);
  exit(1);
}

void *nz_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) out_of_memory("allocating", n, 0);
  return p;
}

void *nz_xcalloc(size_t n, size_t sz) {
  void *p = calloc(n ? n : 1, sz ? sz : 1);
  if (!p) out_of_memory("allocating", n, sz);
  return p;
}

void *nz_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) out_of_memory("reallocating", n, 0);
  return q;
}

char *nz_xstrdup(const char *s) {
  size_t n = strlen(s);
  char *p = nz_xmalloc(n + 1);
  memcpy(p, s, n + 1);
  return p;
}

NzArena *nz_arena_new(void) { return nz_xcalloc(1, sizeof(NzArena)); }

void nz_arena_free(NzArena *a) {
  if (!a) return;
  for (Chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  free(a);
}

void *nz_alloc(NzArena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  Chunk *c = a->head;
  if (!c || c->cap - c->used < n) {
    size_t cap = n > 60000 ? n : 64000;
    c = nz_xmalloc(sizeof(Chunk) + cap);
    c->used = 0;
    c->cap = cap;
    c->next = a->head;
    a->head = c;
  }
  void *p = c->data + c->used;
  c->used += n;
  memset(p, 0, n);
  return p;
}

char *nz_strndup(NzArena *a, const char *s, size_t n) {
  char *p = nz_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

/* Formats once into a stack buffer; only longer text is formatted a second
 * time, into its own space (names are short, and printf is a compiler's
 * hot path: a tenth of the instructions of a NESL compile did it twice). */
enum { SHORT_TEXT = 256 };

char *nz_vsprintf(NzArena *a, const char *fmt, va_list ap) {
  va_list ap2;
  char tmp[SHORT_TEXT];
  va_copy(ap2, ap);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  char *p = nz_alloc(a, (size_t)n + 1);
  if (n < SHORT_TEXT) memcpy(p, tmp, (size_t)n + 1);
  else vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}

char *nz_sprintf(NzArena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = nz_vsprintf(a, fmt, ap);
  va_end(ap);
  return p;
}

static void buf_reserve(NzBuf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1) cap *= 2;
  b->s = nz_xrealloc(b->s, cap);
  b->cap = cap;
}

void nz_buf_putc(NzBuf *b, char c) {
  buf_reserve(b, 1);
  b->s[b->len++] = c;
  b->s[b->len] = 0;
}

void nz_buf_puts(NzBuf *b, const char *s) {
  size_t n = strlen(s);
  buf_reserve(b, n);
  memcpy(b->s + b->len, s, n + 1);
  b->len += n;
}

void nz_buf_vprintf(NzBuf *b, const char *fmt, va_list ap) {
  va_list ap2;
  char tmp[SHORT_TEXT];
  va_copy(ap2, ap);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  buf_reserve(b, (size_t)n);
  if (n < SHORT_TEXT) memcpy(b->s + b->len, tmp, (size_t)n + 1);
  else vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  b->len += (size_t)n;
}

void nz_buf_printf(NzBuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  nz_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

void nz_buf_free(NzBuf *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
}
