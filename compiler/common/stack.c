/* stack.c — running a tool's main on a big stack. The compiler's passes
 * (parser, checker, printer, fusion, interpreter) recurse along a program's
 * let chains, and a region of tens of thousands of invocations is one such
 * chain: with the default 8 MB stack, 60,000 lets crashed `nessie lcu check`.
 * The tools therefore run on a thread with a 1 GB stack (reserved, committed
 * only as used); the parser bounds chains (lcu_parse.c, MAX_CHAIN) so that
 * no input can use all of it. */
#include "nessie.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int (*fn)(int, char **);
  int argc;
  char **argv;
  int rc;
} MainCall;

static void *call_main(void *arg) {
  MainCall *m = arg;
  m->rc = m->fn(m->argc, m->argv);
  return NULL;
}

int nz_main_on_big_stack(int (*fn)(int, char **), int argc, char **argv) {
  MainCall m = {fn, argc, argv, 0};
  pthread_attr_t attr;
  pthread_t th;
  if (pthread_attr_init(&attr) == 0) {
    int ok = pthread_attr_setstacksize(&attr, NZ_BIG_STACK) == 0 && pthread_create(&th, &attr, call_main, &m) == 0;
    pthread_attr_destroy(&attr);
    if (ok) {
      pthread_join(th, NULL);
      return m.rc;
    }
  }
  return fn(argc, argv); /* no thread: the caller's stack, within its rlimit */
}

/* ---- the recursion rule of running programs (compiler/nesl/README.md) ----
 * The AST interpreter, the λcu interpreter and compiled programs count nested
 * function calls the same way and stop a program past nz_max_depth() of them
 * with NZ_DEEP_MSG; each runs the program on a stack big enough for that many
 * calls of ordinary functions (nz_run_on_stack), and a stack that runs out
 * first (little memory, a raised limit) is NZ_STACK_MSG, not a crash. */

static int64_t max_depth;

int64_t nz_max_depth(void) {
  if (max_depth) return max_depth;
  const char *s = getenv("NESSIE_MAX_DEPTH");
  int64_t v = NZ_MAX_DEPTH_DEFAULT;
  if (s && *s) {
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || *end || end == s || x < 1 || x > NZ_MAX_DEPTH_MAX) {
      fprintf(stderr, "error: NESSIE_MAX_DEPTH must be an integer from 1 to %lld, not '%s'\n",
              (long long)NZ_MAX_DEPTH_MAX, s);
      exit(NZ_EXIT_USAGE);
    }
    v = x;
  }
  return max_depth = v;
}

typedef struct {
  void (*fn)(void *, size_t);
  void *arg;
  size_t room;
} StackCall;

static void *call_on_stack(void *p) {
  StackCall *c = p;
  c->fn(c->arg, c->room);
  return NULL;
}

size_t nz_run_on_stack(void (*fn)(void *, size_t), void *arg) {
  static const size_t sizes[] = {(size_t)4 << 30, (size_t)1 << 30, (size_t)256 << 20, (size_t)64 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    pthread_attr_t attr;
    pthread_t th;
    if (pthread_attr_init(&attr)) break;
    /* an eighth (at most 64 MB) stays for the frames below the deepest check */
    size_t keep = sizes[i] / 8 < ((size_t)64 << 20) ? sizes[i] / 8 : (size_t)64 << 20;
    StackCall c = {fn, arg, sizes[i] - keep};
    int ok = pthread_attr_setstacksize(&attr, sizes[i]) == 0 && pthread_create(&th, &attr, call_on_stack, &c) == 0;
    pthread_attr_destroy(&attr);
    if (ok) {
      pthread_join(th, NULL);
      return c.room;
    }
  }
  /* no thread: half of the caller's stack (its size, else the rlimit) */
  size_t size = (size_t)8 << 20;
  pthread_attr_t self;
  if (pthread_getattr_np(pthread_self(), &self) == 0) {
    size_t s;
    if (pthread_attr_getstacksize(&self, &s) == 0) size = s;
    pthread_attr_destroy(&self);
  }
  fn(arg, size / 2);
  return size / 2;
}
