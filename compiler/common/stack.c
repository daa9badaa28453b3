/* stack.c — running a tool's main on a big stack. The compiler's passes
 * (parser, checker, printer, fusion, interpreter) recurse along a program's
 * let chains, and a region of tens of thousands of invocations is one such
 * chain: with the default 8 MB stack, 60,000 lets crashed `nessie lcu check`.
 * The tools therefore run on a thread with a 1 GB stack (reserved, committed
 * only as used); the parser bounds chains (lcu_parse.c, MAX_CHAIN) so that
 * no input can use all of it. */
#include "nessie.h"

#include <pthread.h>

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
