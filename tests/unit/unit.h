/* unit.h — the tiny unit-test protocol read by tests/run.sh: one line per check,
 * "ok NAME" or "not ok NAME: why"; the process exits 0 unless it crashed. */
#ifndef UNIT_H
#define UNIT_H
#include <stdio.h>

static int unit_failures;

#define CHECK(name, cond)                                                        \
  do {                                                                           \
    if (cond)                                                                    \
      printf("ok %s\n", (name));                                                 \
    else {                                                                       \
      printf("not ok %s: %s (%s:%d)\n", (name), #cond, __FILE__, __LINE__);      \
      unit_failures++;                                                           \
    }                                                                            \
  } while (0)

#endif
