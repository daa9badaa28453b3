/* rt_fault.c — run-time faults with the λcu interpreter's messages
 * ("file:line:col: error: what", the source line and a caret; exit 1). In a
 * parallel loop the fault of the lowest iteration is kept until the loop ends
 * (nessie_rt.h), which is the fault a sequential run meets first. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "nessie.h"
#include "nessie_rt.h"
#include "rt_internal.h"

volatile int rt_fault_pending;
volatile int64_t rt_fault_iter = INT64_MAX;
static int fault_loc;
static char fault_msg[512];
char *rt_stack_limit;
int64_t rt_depth;
int64_t rt_max_depth = NZ_MAX_DEPTH_DEFAULT;

static void report(int loc, const char *msg) {
  fflush(stdout);
  const RtProgram *p = rt_current;
  const RtLoc *l = p && loc >= 0 ? &p->locs[loc] : NULL;
  if (l) {
    fprintf(stderr, "%s:%d:%d: error: %s\n", p->program, l->line, l->col, msg);
    const char *t = l->text;
    fprintf(stderr, "  %s\n  ", t);
    int n = (int)strlen(t);
    for (int i = 1; i < l->col && i - 1 < n; i++) fputc(t[i - 1] == '\t' ? '\t' : ' ', stderr);
    fputs("^\n", stderr);
  } else {
    fprintf(stderr, "%s: error: %s\n", p ? p->program : "nessie", msg);
  }
  fflush(stderr);
  exit(1);
}

static void vfault(int64_t it, int loc, const char *fmt, va_list ap) {
  if (it < 0) {
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    report(loc, msg);
  }
  if (it >= rt_fault_iter) return; /* a lower iteration already faulted */
#pragma omp critical(rt_fault)
  {
    if (it < rt_fault_iter) {
      vsnprintf(fault_msg, sizeof fault_msg, fmt, ap);
      fault_loc = loc;
      rt_fault_iter = it;
      rt_fault_pending = 1;
    }
  }
}

void rt_fault(int64_t it, int loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfault(it, loc, fmt, ap);
  va_end(ap);
}

void rt_fault_report(void) { report(fault_loc, fault_msg); }

void rt_fault_index(int64_t it, int loc, int32_t i, int64_t len) {
  rt_fault(it, loc, "index %d out of range for an array of length %lld", i, (long long)len);
}

void rt_fault_f2i(int64_t it, int loc, const char *name, double x) {
  char num[64];
  rt_float_text(num, sizeof num, x);
  rt_fault(it, loc, "%s(%s) is outside the int range", name, num);
}

void rt_fault_negative_size(int loc, const char *name, int64_t n) {
  rt_fault(-1, loc, "the size (%s) is negative: %lld", name, (long long)n);
}

void rt_fault_permute_range(int64_t it, int loc, int32_t d, int64_t m) {
  rt_fault(it, loc, "PERMUTE destination %d (from source index %lld) out of range for length %lld", d,
           (long long)it, (long long)m);
}

void rt_fault_permute_collide(int64_t it, int loc, int32_t d, int64_t first) {
  rt_fault(it, loc,
           "PERMUTE destination %d written from source indices %lld and %lld (without 'into', the "
           "destinations must be a permutation)",
           d, (long long)first, (long long)it);
}

void rt_fault_deep(int loc) {
  if (rt_depth > rt_max_depth) rt_fault(-1, loc, NZ_DEEP_MSG, (long long)rt_max_depth);
  rt_fault(-1, loc, NZ_STACK_MSG);
}
