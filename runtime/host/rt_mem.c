/* rt_mem.c — the runtime's one allocator (byte counters for the profile) and
 * the arrays and segment descriptors built on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nessie_rt.h"

int64_t rt_bytes_allocated, rt_bytes_live, rt_bytes_peak;
void (*rt_dev_free_hook)(void *dev); /* CUDA runtime only */

/* Each block carries its size in a 16-byte header, so rt_free can count. */
typedef union {
  size_t n;
  max_align_t align;
} Hdr;

/* The interpreter's message (compiler/common/arena.c), exit 1. */
static void out_of_memory(size_t count, size_t size) {
  fflush(stdout);
  if (size) fprintf(stderr, "nessie: error: out of memory allocating %zu x %zu bytes\n", count, size);
  else fprintf(stderr, "nessie: error: out of memory allocating %zu bytes\n", count);
  exit(1);
}

static void *counted(Hdr *h, size_t n) {
  if (!h) out_of_memory(n, 0);
  h->n = n;
  rt_bytes_allocated += (int64_t)n;
  rt_bytes_live += (int64_t)n;
  if (rt_bytes_live > rt_bytes_peak) rt_bytes_peak = rt_bytes_live;
  return h + 1;
}

/* The pool: freed blocks of RT_POOL_MIN bytes or more wait, per size class, for the
 * next allocation of their class. A recursion makes arrays of nearly the same sizes
 * at every level (quicksort: about n keys per level); above glibc's mmap threshold
 * (32 MB at most) each malloc is a fresh mapping whose every page faults when first
 * written (10^7 keys: 773,000 faults, a fifth of the CPU time). A class spans an
 * eighth of a power of two and its blocks are allocated at the class's top size, so
 * any block of the class fits any request of it. The pool keeps at most as many bytes
 * as the program has live (64 MB at least), so memory stays within about twice the
 * peak; the byte counters count what the program asked for, pooled or not.
 * NESSIE_RT_POOL=0 turns it off; so does AddressSanitizer, which must see each block
 * freed to catch a use after free. */
#define RT_POOL_MIN ((size_t)1 << 20)
#define RT_POOL_CLASSES 512
typedef struct PoolBlock {
  struct PoolBlock *next;
} PoolBlock;
static PoolBlock *pool[RT_POOL_CLASSES];
static size_t pool_bytes;
static int pool_on = -1;

#if defined(__SANITIZE_ADDRESS__)
#define RT_POOL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RT_POOL_SANITIZED 1
#endif
#endif

static int pool_enabled(void) {
  if (pool_on < 0) {
#ifdef RT_POOL_SANITIZED
    pool_on = 0;
#else
    const char *e = getenv("NESSIE_RT_POOL");
    pool_on = !(e && e[0] == '0' && !e[1]);
#endif
  }
  return pool_on;
}

/* The class of a block of n bytes (n >= RT_POOL_MIN) and the bytes its blocks hold. */
static int pool_class(size_t n, size_t *top) {
  int e = 63 - __builtin_clzll((unsigned long long)n); /* 2^e <= n < 2^(e+1) */
  size_t step = (size_t)1 << (e - 3);
  size_t k = (n - ((size_t)1 << e) + step - 1) / step; /* 0..8 eighths above 2^e */
  *top = ((size_t)1 << e) + k * step;
  return (e - 20) * 9 + (int)k;
}

/* A block for n bytes plus the header, from the pool when one of its class waits. */
static Hdr *raw_alloc(size_t n, int zero) {
  if (n < RT_POOL_MIN || !pool_enabled()) return zero ? calloc(1, sizeof(Hdr) + n) : malloc(sizeof(Hdr) + n);
  size_t top;
  int c = pool_class(n, &top);
  if (c >= RT_POOL_CLASSES) return zero ? calloc(1, sizeof(Hdr) + n) : malloc(sizeof(Hdr) + n);
  PoolBlock *b = NULL;
#pragma omp critical(rt_pool)
  {
    b = pool[c];
    if (b) {
      pool[c] = b->next;
      pool_bytes -= top;
    }
  }
  if (b) {
    if (zero) memset(b, 0, sizeof(Hdr) + n);
    return (Hdr *)b;
  }
  return zero ? calloc(1, sizeof(Hdr) + top) : malloc(sizeof(Hdr) + top);
}

static void raw_free(Hdr *h) {
  size_t n = h->n, top;
  int c = n >= RT_POOL_MIN && pool_enabled() ? pool_class(n, &top) : RT_POOL_CLASSES;
  if (c < RT_POOL_CLASSES) {
    int kept = 0;
#pragma omp critical(rt_pool)
    {
      size_t room = rt_bytes_live > (int64_t)64 << 20 ? (size_t)rt_bytes_live : (size_t)64 << 20;
      if (pool_bytes + top <= room) {
        PoolBlock *b = (PoolBlock *)h;
        b->next = pool[c];
        pool[c] = b;
        pool_bytes += top;
        kept = 1;
      }
    }
    if (kept) return;
  }
  free(h);
}

void *rt_alloc(size_t n) {
  if (n > SIZE_MAX / 2) return counted(NULL, n);
  return counted(raw_alloc(n, 0), n);
}

void *rt_calloc(size_t n) {
  if (n > SIZE_MAX / 2) return counted(NULL, n);
  return counted(raw_alloc(n, 1), n);
}

void rt_free(void *p) {
  if (!p) return;
  Hdr *h = (Hdr *)p - 1;
  rt_bytes_live -= (int64_t)h->n;
  raw_free(h);
}

static size_t elem_size(int elem) { return elem == RT_FLOAT ? 8 : elem == RT_INT || elem == RT_FLOAT32 ? 4 : 1; }

static RtArr *arr_new(int elem, int64_t len, int zero) {
  size_t count = (size_t)(len > 0 ? len : 1), size = elem_size(elem);
  if (len < 0 || (uint64_t)len > SIZE_MAX / 16) out_of_memory(count, size);
  Hdr *h = raw_alloc(count * size, zero);
  if (!h) out_of_memory(count, size);
  RtArr *a = rt_alloc(sizeof *a);
  a->refs = 1;
  a->len = len;
  a->elem = elem;
  a->dev = NULL;
  a->d = counted(h, count * size);
  return a;
}

RtArr *rt_arr_new(int elem, int64_t len) { return arr_new(elem, len, 0); }
RtArr *rt_arr_zeroed(int elem, int64_t len) { return arr_new(elem, len, 1); }

void rt_arr_free(RtArr *a) {
  if (a->dev && rt_dev_free_hook) rt_dev_free_hook(a->dev);
  rt_free(a->d);
  rt_free(a);
}

RtSeg *rt_seg_from_lens(const int32_t *lens, int64_t nsegs) {
  RtSeg *s = rt_alloc(sizeof *s);
  s->refs = 1;
  s->nsegs = nsegs;
  s->lens = rt_alloc(sizeof(int32_t) * (size_t)(nsegs ? nsegs : 1));
  s->starts = rt_alloc(sizeof(int64_t) * (size_t)(nsegs + 1));
  s->segof = NULL;
  s->dev = NULL;
  int64_t at = 0;
  for (int64_t j = 0; j < nsegs; j++) {
    s->lens[j] = lens[j];
    s->starts[j] = at;
    at += lens[j];
  }
  s->starts[nsegs] = at;
  s->total = at;
  return s;
}

/* Threads of a parallel loop may get here at once (seg_of in a thunk whose segdes the
 * kernel did not prepare): the table is filled first and published after, so no thread
 * reads a half-built one; a thread that loses the race frees its copy. */
void rt_seg_need_segof(RtSeg *s) {
  /* one segment (an unlifted primitive's rows, primes' put): rt_seg_of answers 0
   * without a table of total entries */
  if (s->nsegs == 1 || __atomic_load_n(&s->segof, __ATOMIC_ACQUIRE)) return;
  int32_t *t = rt_alloc(sizeof(int32_t) * (size_t)(s->total ? s->total : 1));
  int64_t nsegs = s->nsegs;
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < nsegs; j++)
    for (int64_t i = s->starts[j]; i < s->starts[j + 1]; i++) t[i] = (int32_t)j;
  int32_t *none = NULL;
  if (!__atomic_compare_exchange_n(&s->segof, &none, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) rt_free(t);
}

void rt_seg_free(RtSeg *s) {
  if (s->dev && rt_dev_free_hook) rt_dev_free_hook(s->dev);
  rt_free(s->lens);
  rt_free(s->starts);
  rt_free(s->segof);
  rt_free(s);
}
