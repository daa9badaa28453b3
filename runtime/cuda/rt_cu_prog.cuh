/* rt_cu_prog.cuh — what a generated .cu program (compiler/codegen/cg_cuda.c) uses
 * besides the SOAC templates: arrays and segment descriptors that live on the
 * device, the start of the CUDA runtime and its CUPTI profile, per-kernel
 * brackets, and the host side of device faults. Included once, by the generated
 * file, after `#define RT_HOST(a) rt_cu_host(a)`; everything is static to it.
 *
 * Residence. An RtArr's `dev` (NULL in the C back end) points to an RtCuDev
 * holding its device copy. A kernel's output is created on the device only
 * (d == NULL); CPU code reaches elements only through RT_HOST(a), which copies
 * it back once (arrays are immutable, so both copies then stay valid). A
 * host-only array (main's arguments, literals) is uploaded the first time a
 * kernel reads it. Segment descriptors are built on the host (make_segdes) and
 * uploaded, with their segment map, the first time a kernel uses them. Scalars
 * from REDUCE and ONCE come back through device memory, since CPU code and the
 * next SOAC's launch size need them on the host. */
#ifndef RT_CU_PROG_CUH
#define RT_CU_PROG_CUH
#include <stdio.h>
#include <stdlib.h>

#include "rt_soac.cuh"
#include "nessie_rt.h"
#include "rt_cupti.h"

typedef struct {
  void *p;          /* device block */
  size_t bytes;
  RtCuSegdes hdr;   /* segdes: the host's view of the device copy */
  RtCuSegdes *dhdr; /* segdes: the same header in device memory (what thunks read) */
} RtCuDev;

/* The program being run: rt_io.c's rt_current (runtime/host/rt_internal.h). */
extern "C" const RtProgram *rt_current;

static inline size_t rt_cu_esize(int elem) {
  return elem == RT_FLOAT ? 8 : elem == RT_INT || elem == RT_FLOAT32 ? 4 : 1;
}

static inline void rt_cu_dev_free(void *d) {
  RtCuDev *v = (RtCuDev *)d;
  rt_cuda_free(v->p, v->bytes);
  free(v);
}

static inline RtCuDev *rt_cu_dev_new(size_t bytes) {
  RtCuDev *v = (RtCuDev *)calloc(1, sizeof *v);
  if (!v) {
    fputs("error: out of memory\n", stderr);
    exit(1);
  }
  v->bytes = bytes ? bytes : 1;
  v->p = rt_cuda_alloc(v->bytes);
  return v;
}

/* ------------------------------------------------------- start and profile */

static int rt_cu_started, rt_cu_profiling, rt_cu_written;

static inline void rt_cu_fill(const RtProgram *p) {
  rt_cu_written = 1;
  if (!rt_cu_started) return;
  (void)cudaDeviceSynchronize(); /* unchecked: this also runs on the way out of a CUDA error */
  const RtCuptiTotals *t = rt_cupti_totals();
  for (int i = 0; t && i < p->nkernels; i++) p->kernels[i]->seconds = t[i].kernel_seconds;
  rt_bytes_peak = rt_cuda_mem().peak; /* the (total) row: the device's peak */
}

/* Exit through a run-time fault: the profile is still written, with the kernels
 * that ran (CUPTI's buffers flushed by rt_cu_fill). */
static inline void rt_cu_at_exit(void) {
  if (!rt_cu_profiling || rt_cu_written || !rt_current) return;
  const char *path = getenv("NESSIE_PROFILE");
  if (!path || !*path) path = rt_current->profile_default;
  if (path) rt_prof_write(rt_current, path, 0.0);
}

/* Called by the generated entry before main runs: no CUDA call yet (a program
 * whose kernels never run needs no GPU). */
static inline void rt_cu_program(void) {
  rt_prof_backend = "cuda";
  rt_prof_device = "none (no kernel ran)";
  rt_prof_fill = rt_cu_fill;
  rt_dev_free_hook = rt_cu_dev_free;
}

/* The first kernel starts the device (and CUPTI before it, when profiling). */
static inline void rt_cu_start(void) {
  const RtProgram *p = rt_current;
  const char *path = getenv("NESSIE_PROFILE");
  rt_cu_profiling = (path && *path) || (p && p->profile_default);
  rt_cuda_init(rt_cu_profiling, p ? p->nkernels : 0);
  rt_prof_device = rt_cuda_device_name();
  rt_cu_fault_clear();
  rt_cu_started = 1;
  atexit(rt_cu_at_exit); /* after the CUDA runtime's own: runs before its teardown */
}

static inline int64_t rt_cu_kernel_begin(int id) {
  if (!rt_cu_started) rt_cu_start();
  rt_cupti_enter(id);
  return rt_cuda_mem().allocated;
}

static inline void rt_cu_kernel_end(RtKernelStat *k, int64_t elements, int64_t bytes0) {
  RT_CUDA(cudaGetLastError());
  rt_cupti_leave();
  k->launches++;
  k->elements += elements;
  k->bytes += rt_cuda_mem().allocated - bytes0;
}

/* ------------------------------------------------------------------ arrays */

/* A new array that lives on the device only; zeroed if asked (PERMUTE into). */
static inline RtArr *rt_cu_arr_new(int elem, int64_t len, int zero) {
  RtArr *a = (RtArr *)rt_alloc(sizeof *a);
  a->refs = 1;
  a->len = len;
  a->elem = elem;
  a->d = NULL;
  RtCuDev *v = rt_cu_dev_new(rt_cu_esize(elem) * (size_t)(len > 0 ? len : 1));
  if (zero) RT_CUDA(cudaMemset(v->p, 0, v->bytes));
  a->dev = v;
  return a;
}

/* The device copy of a (uploaded on first use). */
static inline void *rt_cu_dev(RtArr *a) {
  if (!a->dev) {
    RtCuDev *v = rt_cu_dev_new(rt_cu_esize(a->elem) * (size_t)(a->len > 0 ? a->len : 1));
    if (a->len > 0) RT_CUDA(cudaMemcpy(v->p, a->d, rt_cu_esize(a->elem) * (size_t)a->len, cudaMemcpyHostToDevice));
    a->dev = v;
  }
  return ((RtCuDev *)a->dev)->p;
}

/* a with a current host copy (copied back on first use). */
static inline RtArr *rt_cu_host(RtArr *a) {
  if (a && !a->d) {
    size_t n = rt_cu_esize(a->elem) * (size_t)(a->len > 0 ? a->len : 1);
    a->d = rt_alloc(n);
    if (a->len > 0)
      RT_CUDA(cudaMemcpy(a->d, ((RtCuDev *)a->dev)->p, rt_cu_esize(a->elem) * (size_t)a->len,
                         cudaMemcpyDeviceToHost));
  }
  return a;
}

/* A segment descriptor's device copy: one block with lens, starts and the segment
 * map, and its header. */
static inline RtCuDev *rt_cu_seg(RtSeg *s) {
  if (!s->dev) {
    rt_seg_need_segof(s);
    size_t nl = sizeof(int32_t) * (size_t)(s->nsegs + 1), ns = sizeof(int64_t) * (size_t)(s->nsegs + 1);
    size_t no = sizeof(int32_t) * (size_t)(s->total + 1);
    nl = (nl + 7) & ~(size_t)7;
    RtCuDev *v = rt_cu_dev_new(sizeof(RtCuSegdes) + ns + nl + no);
    char *base = (char *)v->p;
    int64_t *starts = (int64_t *)(base + sizeof(RtCuSegdes));
    int32_t *lens = (int32_t *)((char *)starts + ns), *segof = (int32_t *)((char *)lens + nl);
    v->hdr = RtCuSegdes{s->nsegs, s->total, lens, starts, segof};
    v->dhdr = (RtCuSegdes *)base;
    RT_CUDA(cudaMemcpy(v->dhdr, &v->hdr, sizeof v->hdr, cudaMemcpyHostToDevice));
    RT_CUDA(cudaMemcpy(starts, s->starts, sizeof(int64_t) * (size_t)(s->nsegs + 1), cudaMemcpyHostToDevice));
    if (s->nsegs) RT_CUDA(cudaMemcpy(lens, s->lens, sizeof(int32_t) * (size_t)s->nsegs, cudaMemcpyHostToDevice));
    /* one segment has no host table (rt_seg_need_segof): its map is all 0 */
    if (s->total && !s->segof) RT_CUDA(cudaMemset(segof, 0, sizeof(int32_t) * (size_t)s->total));
    else if (s->total) RT_CUDA(cudaMemcpy(segof, s->segof, sizeof(int32_t) * (size_t)s->total, cudaMemcpyHostToDevice));
    s->dev = v;
  }
  return (RtCuDev *)s->dev;
}

/* ----------------------------------------------- segdes primitives on the device */

static inline __device__ int32_t rt_seg_start(const RtCuSegdes *s, int32_t j, int64_t it, int loc) {
  if (j < 0 || j > s->nsegs) {
    rt_cu_raise(it, RT_FC_SEG_START, loc, j, s->nsegs, 0);
    return 0;
  }
  return (int32_t)s->starts[j];
}
static inline __device__ int32_t rt_seg_len(const RtCuSegdes *s, int32_t j, int64_t it, int loc) {
  if (j < 0 || j >= s->nsegs) {
    rt_cu_raise(it, RT_FC_SEG_LEN, loc, j, s->nsegs, 0);
    return 0;
  }
  return s->lens[j];
}
static inline __device__ int32_t rt_seg_of(const RtCuSegdes *s, int32_t i, int64_t it, int loc) {
  if (i < 0 || i >= s->total) {
    rt_cu_raise(it, RT_FC_SEG_OF, loc, i, s->total, 0);
    return 0;
  }
  return s->segof[i];
}

/* ------------------------------------------------------------------ faults */

/* Prints a device fault with the interpreter's message (the rt_fault functions
 * of the C back end) and exits 1. */
static inline void rt_cu_report(RtCuFault f) {
  long long a = f.a, b = f.b;
  switch (f.code) {
  case RT_FC_IDIV: rt_fault(-1, f.loc, "integer division by zero"); break;
  case RT_FC_IMOD: rt_fault(-1, f.loc, "integer modulo by zero"); break;
  case RT_FC_F2I: { /* c = 1: b holds a float's bits (rt_f2if, --float32) */
    double x;
    if (f.c == 1) {
      int32_t bits = (int32_t)b;
      float xf;
      memcpy(&xf, &bits, sizeof xf);
      x = xf;
    } else {
      memcpy(&x, &b, sizeof x);
    }
    rt_fault_f2i(-1, f.loc, a == 't' ? "trunc" : a == 'f' ? "floor" : a == 'c' ? "ceil" : "round", x);
    break;
  }
  case RT_FC_I2C: rt_fault(-1, f.loc, "i2c(%d): a char code is 0..255", (int)a); break;
  case RT_FC_INDEX: rt_fault_index(-1, f.loc, (int32_t)a, b); break;
  case RT_FC_SEG_START: rt_fault(-1, f.loc, "seg_start: segment %d out of range (%lld segments)", (int)a, b); break;
  case RT_FC_SEG_LEN: rt_fault(-1, f.loc, "seg_len: segment %d out of range (%lld segments)", (int)a, b); break;
  case RT_FC_SEG_OF: rt_fault(-1, f.loc, "seg_of: element %d out of range (%lld elements)", (int)a, b); break;
  default: break;
  }
  fprintf(stderr, "error: a kernel faulted, but re-running the element found no fault (code %d)\n", f.code);
  exit(3);
}

/* After a SOAC whose thunks can fault: the first faulting element, re-evaluated
 * by f in detail mode, is reported. */
template <class F> static inline void rt_cu_check(F f) {
  long long i = rt_cu_fault_index();
  if (i >= 0) rt_cu_report(rt_cu_fault_detail(f, i));
}

/* ONCE's results come back through device memory. */
template <class T> static inline T rt_cu_fetch(const T *dev) {
  T v;
  RT_CUDA(cudaMemcpy(&v, dev, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

#endif
