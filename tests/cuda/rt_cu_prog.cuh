/* tests/cuda/rt_cu_prog.cuh — a stand-in for runtime/cuda/rt_cu_prog.cuh that lets
 * the host C++ compiler (g++ -fsyntax-only, a fraction of a second) check a
 * generated .cu: CUDA's keywords are defined away and every SOAC template calls
 * its functors once, so thunk bodies, functor members and their initialisers
 * are type-checked as C++. tests/sh/cuda_codegen.sh uses it on every test
 * program; nvcc with the real header checks a sample. Same names and
 * signatures as the real header and rt_soac.cuh (keep them in step). */
#ifndef RT_CU_PROG_CUH
#define RT_CU_PROG_CUH
#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nessie_rt.h"

typedef struct {
  int code, loc;
  long long a, b, c;
} RtCuFault;
typedef struct {
  int64_t nsegs, total;
  const int32_t *lens;
  const int64_t *starts;
  const int32_t *segof;
} RtCuSegdes;
typedef struct {
  void *p;
  size_t bytes;
  RtCuSegdes hdr;
  RtCuSegdes *dhdr;
} RtCuDev;
template <class T> struct RtCuScratch {
  T *p = nullptr;
  explicit RtCuScratch(size_t) {}
};
template <class F, class P> struct RtCuKeep {
  F f;
  P p;
  int operator()(int i) const { return p(i, f(i)) ? 1 : 0; }
};

void rt_cu_program(void);
int64_t rt_cu_kernel_begin(int id);
void rt_cu_kernel_end(RtKernelStat *k, int64_t elements, int64_t bytes0);
RtArr *rt_cu_arr_new(int elem, int64_t len, int zero);
void *rt_cu_dev(RtArr *a);
RtArr *rt_cu_host(RtArr *a);
RtCuDev *rt_cu_seg(RtSeg *s);
int32_t rt_seg_start(const RtCuSegdes *s, int32_t j, int64_t it, int loc);
int32_t rt_seg_len(const RtCuSegdes *s, int32_t j, int64_t it, int loc);
int32_t rt_seg_of(const RtCuSegdes *s, int32_t i, int64_t it, int loc);
void rt_cu_report(RtCuFault f);
long long rt_cu_fault_index(void);
template <class F> RtCuFault rt_cu_fault_detail(F f, long long i) { return (void)f((int)i), RtCuFault{0, 0, 0, 0, 0}; }
template <class F> void rt_cu_check(F f) { (void)f(0); }
template <class T> T rt_cu_fetch(const T *dev) { return *dev; }
template <class F> void rt_cu_map(F f, int64_t n) { if (n) f(0); }
template <class T, class F, class Op> T rt_cu_reduce(F f, int64_t, Op op, T id) { return op(id, f(0)); }
template <class T, class F, class Op, class St> void rt_cu_scan(F f, int64_t, Op op, T id, St st) {
  st(0, op(id, f(0)));
}
template <class T, class F, class Op, class St> void rt_cu_segscan(F f, RtCuSegdes, Op op, T id, St st) {
  st(0, op(id, f(0)));
}
template <class T, class F, class Op, class St> void rt_cu_segreduce(F f, RtCuSegdes, Op op, T id, St st) {
  st(0, op(id, f(0)));
}
template <class F, class P> int64_t rt_cu_split_count(F f, P p, int64_t, RtCuScratch<int> **) { return p(0, f(0)); }
template <class F, class P, class StK, class StR>
void rt_cu_split(F f, P p, int64_t, RtCuScratch<int> *, StK keep, StR rej, int) {
  if (p(0, f(0))) keep(0, f(0));
  else rej(0, f(0));
}
/* CUDA's atomicMax on an int (a PERMUTE into whose value is the index + 1) */
static inline int atomicMax(int *a, int v) {
  int old = *a;
  if (v > old) *a = v;
  return old;
}
template <class FV, class FI, class St> int rt_cu_permute(FV fv, FI fi, int64_t, int64_t, int, St st) {
  st(fi(0), fv(0));
  return 0;
}
template <class FI> void rt_cu_permute_fault(FI fi, int64_t, int64_t, int, int *kind, long long *d, long long *j,
                                             long long *i) {
  *kind = 0, *d = fi(0), *j = 0, *i = 0;
}
#endif
