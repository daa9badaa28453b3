/* rt_soac.cuh — the SOACs of λcu on the GPU, as templates over the thunk functors
 * that generated code defines (one struct per thunk, its captures as members, a
 * `__device__ T operator()(int i) const`). Included once by each generated .cu.
 *
 * Decisions:
 * - Fixed shape. Every reduction and scan cuts the index space into tiles of
 *   RT_CU_TILE elements, reduces each tile in a fixed order (RT_CU_BLOCK threads,
 *   RT_CU_ROUNDS strided rounds, then a block tree), and combines the tile results
 *   in a fixed order. The order depends on n alone, not on the device or the
 *   launch: a float sum is the same on every run and every GPU.
 * - The thunk runs inside the reduction and the scan (MAP fused into REDUCE reads
 *   its inputs once, no intermediate array). A scan computes its thunk twice (tile
 *   totals, then the tile's scan), reading inputs twice instead of materialising
 *   them; a segmented reduction is a segmented scan that stores only at segment
 *   ends.
 * - Faults. A thunk that finds a fault (index out of range, division by zero)
 *   calls rt_cu_raise(i, ...) with its element index and goes on with a harmless
 *   value. The launch records the smallest faulting index; the host then evaluates
 *   that one element again in detail mode to learn its fault, so the message is the
 *   one the sequential interpreter gives (the first element in index order that
 *   faults). */
#ifndef RT_SOAC_CUH
#define RT_SOAC_CUH
#include "rt_cuda.h"
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <stdint.h>

#define RT_CU_BLOCK 256
#define RT_CU_ROUNDS 8
#define RT_CU_TILE (RT_CU_BLOCK * RT_CU_ROUNDS)

/* ------------------------------------------------------------------ faults */

typedef struct {
  int code, loc; /* what (generated code's numbering) and where (its location table) */
  long long a, b, c;
} RtCuFault;

static __device__ unsigned long long rt_cu_fault_min; /* smallest faulting index, or ~0 */
static __device__ int rt_cu_detail;                    /* 1 while re-evaluating that index */
static __device__ RtCuFault rt_cu_fault_rec;

static __device__ __noinline__ void rt_cu_raise(long long i, int code, int loc, long long a, long long b,
                                                long long c) {
  if (rt_cu_detail) {
    if (rt_cu_fault_rec.code == 0) rt_cu_fault_rec = RtCuFault{code, loc, a, b, c};
  } else {
    atomicMin(&rt_cu_fault_min, (unsigned long long)i);
  }
}

static void rt_cu_fault_clear(void) {
  unsigned long long none = ~0ull;
  int zero = 0;
  RtCuFault r = {0, 0, 0, 0, 0};
  RT_CUDA(cudaMemcpyToSymbol(rt_cu_fault_min, &none, sizeof none));
  RT_CUDA(cudaMemcpyToSymbol(rt_cu_detail, &zero, sizeof zero));
  RT_CUDA(cudaMemcpyToSymbol(rt_cu_fault_rec, &r, sizeof r));
}

template <class F> __global__ void rt_cu_detail_k(F f, int i) { (void)f(i); }

/* After a launch: the smallest faulting element index, or -1. */
static long long rt_cu_fault_index(void) {
  unsigned long long m;
  RT_CUDA(cudaGetLastError());
  RT_CUDA(cudaMemcpyFromSymbol(&m, rt_cu_fault_min, sizeof m));
  return m == ~0ull ? -1 : (long long)m;
}

/* Evaluates f at element i alone in detail mode and returns the fault it raises
 * there (code 0 if none: the fault came from the SOAC itself, e.g. PERMUTE). */
template <class F> static RtCuFault rt_cu_fault_detail(F f, long long i) {
  int one = 1;
  RT_CUDA(cudaMemcpyToSymbol(rt_cu_detail, &one, sizeof one));
  rt_cu_detail_k<<<1, 1>>>(f, (int)i);
  RT_CUDA(cudaGetLastError());
  RtCuFault r;
  RT_CUDA(cudaMemcpyFromSymbol(&r, rt_cu_fault_rec, sizeof r));
  rt_cu_fault_clear();
  return r;
}

/* --------------------------------------------------------------- launches */

static inline unsigned rt_cu_tiles(int64_t n) { return (unsigned)((n + RT_CU_TILE - 1) / RT_CU_TILE); }

/* MAP and ONCE: f(i) computes element i and stores it (the functor holds the
 * output pointers). */
template <class F> __global__ void rt_cu_map_k(F f, int n) {
  int base = blockIdx.x * RT_CU_TILE + threadIdx.x;
#pragma unroll
  for (int r = 0; r < RT_CU_ROUNDS; r++) {
    int i = base + r * RT_CU_BLOCK;
    if (i < n) f(i);
  }
}

template <class F> static void rt_cu_map(F f, int64_t n) {
  if (n <= 0) return;
  rt_cu_map_k<<<rt_cu_tiles(n), RT_CU_BLOCK>>>(f, (int)n);
}

/* ----------------------------------------------------- reductions and scans */

/* Whether an operator commutes. Every λcu reduction operator does (tuples of them
 * too); the segmented operator below does not. */
template <class T, class Op> struct RtCuSegOp;
template <class Op> struct RtCuCommutes {
  static constexpr bool value = true;
};
template <class T, class Op> struct RtCuCommutes<RtCuSegOp<T, Op>> {
  static constexpr bool value = false;
};

/* Tile totals: part[b] = the reduction of f over tile b, in the fixed order. A
 * commuting operator: each thread folds its strided elements (coalesced reads), then
 * the block folds the threads'. Otherwise round by round, each round's elements in
 * index order: the strided order would combine element 256 before element 1, which
 * broke SEGSCAN and SEGREDUCE across tiles (found on an H200: tests/cuda/soac_test.cu). */
template <class T, class F, class Op> __global__ void rt_cu_tile_reduce_k(F f, int n, Op op, T id, T *part) {
  typedef cub::BlockReduce<T, RT_CU_BLOCK> BR;
  __shared__ typename BR::TempStorage ts;
  int base = blockIdx.x * RT_CU_TILE + threadIdx.x;
  T acc = id;
  if constexpr (RtCuCommutes<Op>::value) {
#pragma unroll
    for (int r = 0; r < RT_CU_ROUNDS; r++) {
      int i = base + r * RT_CU_BLOCK;
      if (i < n) acc = op(acc, f(i));
    }
    T t = BR(ts).Reduce(acc, op);
    if (threadIdx.x == 0) part[blockIdx.x] = t;
  } else {
    for (int r = 0; r < RT_CU_ROUNDS; r++) {
      int i = base + r * RT_CU_BLOCK;
      T t = BR(ts).Reduce(i < n ? f(i) : id, op);
      if (threadIdx.x == 0) acc = op(acc, t);
      __syncthreads();
    }
    if (threadIdx.x == 0) part[blockIdx.x] = acc;
  }
}

/* One block over m partial results: out = their reduction (exclusive prefixes into
 * pre, when pre is not NULL). */
template <class T, class Op> __global__ void rt_cu_part_scan_k(T *part, int m, Op op, T id, T *pre, T *out) {
  typedef cub::BlockScan<T, RT_CU_BLOCK> BS;
  __shared__ typename BS::TempStorage ts;
  T carry = id;
  for (int base = 0; base < m; base += RT_CU_BLOCK) {
    int i = base + threadIdx.x;
    T v = i < m ? part[i] : id, ex, agg;
    BS(ts).ExclusiveScan(v, ex, id, op, agg);
    if (pre && i < m) pre[i] = op(carry, ex);
    carry = op(carry, agg);
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = carry;
}

template <class T> struct RtCuScratch {
  T *p = nullptr;
  size_t bytes = 0;
  explicit RtCuScratch(size_t n) : bytes(n * sizeof(T)) { p = (T *)rt_cuda_alloc(bytes ? bytes : sizeof(T)); }
  ~RtCuScratch() { rt_cuda_free(p, bytes ? bytes : sizeof(T)); }
  RtCuScratch(const RtCuScratch &) = delete;
  RtCuScratch &operator=(const RtCuScratch &) = delete;
};

/* REDUCE: the result on the host (the caller checks rt_cu_fault_index first). */
template <class T, class F, class Op> static T rt_cu_reduce(F f, int64_t n, Op op, T id) {
  if (n <= 0) return id;
  unsigned g = rt_cu_tiles(n);
  RtCuScratch<T> part(g), out(1);
  rt_cu_tile_reduce_k<T><<<g, RT_CU_BLOCK>>>(f, (int)n, op, id, part.p);
  rt_cu_part_scan_k<T><<<1, RT_CU_BLOCK>>>(part.p, (int)g, op, id, (T *)nullptr, out.p);
  T r;
  RT_CUDA(cudaMemcpy(&r, out.p, sizeof r, cudaMemcpyDeviceToHost));
  return r;
}

/* The tile's inclusive scan, from the tile's exclusive prefix; st(i, v) stores. */
template <class T, class F, class Op, class St>
__global__ void rt_cu_tile_scan_k(F f, int n, Op op, T id, const T *pre, St st) {
  typedef cub::BlockScan<T, RT_CU_BLOCK> BS;
  __shared__ typename BS::TempStorage ts;
  int base = blockIdx.x * RT_CU_TILE + threadIdx.x;
  T carry = pre[blockIdx.x];
  for (int r = 0; r < RT_CU_ROUNDS; r++) {
    int i = base + r * RT_CU_BLOCK;
    T v = i < n ? f(i) : id, agg;
    BS(ts).InclusiveScan(v, v, op, agg);
    if (i < n) st(i, op(carry, v));
    carry = op(carry, agg);
    __syncthreads();
  }
}

/* SCAN (inclusive). */
template <class T, class F, class Op, class St> static void rt_cu_scan(F f, int64_t n, Op op, T id, St st) {
  if (n <= 0) return;
  unsigned g = rt_cu_tiles(n);
  RtCuScratch<T> part(g), pre(g), out(1);
  rt_cu_tile_reduce_k<T><<<g, RT_CU_BLOCK>>>(f, (int)n, op, id, part.p);
  rt_cu_part_scan_k<T><<<1, RT_CU_BLOCK>>>(part.p, (int)g, op, id, pre.p, out.p);
  rt_cu_tile_scan_k<T><<<g, RT_CU_BLOCK>>>(f, (int)n, op, id, pre.p, st);
}

/* ------------------------------------------------------------ segmented */

/* A segment descriptor on the device (the host runtime builds it). */
typedef struct {
  int64_t nsegs, total;
  const int32_t *lens;   /* nsegs */
  const int64_t *starts; /* nsegs + 1 */
  const int32_t *segof;  /* total */
} RtCuSegdes;

template <class T> struct RtCuSeg {
  int head;
  T v;
};

/* The segmented operator: associative on (head, value) pairs. */
template <class T, class Op> struct RtCuSegOp {
  Op op;
  __device__ RtCuSeg<T> operator()(const RtCuSeg<T> &a, const RtCuSeg<T> &b) const {
    return RtCuSeg<T>{a.head | b.head, b.head ? b.v : op(a.v, b.v)};
  }
};

/* Element i starts a segment when its segment differs from element i-1's: neighbouring
 * reads of segof, coalesced, instead of a lookup of the segment's start. */
template <class T, class F> struct RtCuSegThunk {
  F f;
  RtCuSegdes sd;
  __device__ RtCuSeg<T> operator()(int i) const {
    return RtCuSeg<T>{i == 0 || sd.segof[i - 1] != sd.segof[i], f(i)};
  }
};

template <class T, class St> struct RtCuSegStore {
  St st;
  __device__ void operator()(int i, const RtCuSeg<T> &v) const { st(i, v.v); }
};

/* SEGSCAN: inclusive, restarting at every segment start. */
template <class T, class F, class Op, class St>
static void rt_cu_segscan(F f, RtCuSegdes sd, Op op, T id, St st) {
  rt_cu_scan(RtCuSegThunk<T, F>{f, sd}, sd.total, RtCuSegOp<T, Op>{op}, RtCuSeg<T>{0, id},
             RtCuSegStore<T, St>{st});
}

/* The segmented scan's value at the last element of each segment is the segment's
 * reduction: stored there, straight into the result (no array of every element's
 * prefix, no gather after). */
template <class T, class St> struct RtCuSegEndStore {
  St st;
  RtCuSegdes sd;
  __device__ void operator()(int i, const RtCuSeg<T> &v) const {
    if (i == sd.total - 1 || sd.segof[i + 1] != sd.segof[i]) st(sd.segof[i], v.v);
  }
};

template <class T, class St> __global__ void rt_cu_seg_empty_k(RtCuSegdes sd, T id, St st) {
  int64_t s = (int64_t)blockIdx.x * RT_CU_BLOCK + threadIdx.x;
  if (s < sd.nsegs && sd.lens[s] == 0) st((int)s, id);
}

/* SEGREDUCE: one result per segment, the identity for an empty one. st(s, v). The
 * same fixed-shape segmented scan as SEGSCAN (so the same order of operations on
 * every device), storing only at segment ends; empty segments get the identity. */
template <class T, class F, class Op, class St>
static void rt_cu_segreduce(F f, RtCuSegdes sd, Op op, T id, St st) {
  if (sd.nsegs <= 0) return;
  if (sd.total > 0)
    rt_cu_scan(RtCuSegThunk<T, F>{f, sd}, sd.total, RtCuSegOp<T, Op>{op}, RtCuSeg<T>{0, id},
               RtCuSegEndStore<T, St>{st, sd});
  rt_cu_seg_empty_k<T><<<(unsigned)((sd.nsegs + RT_CU_BLOCK - 1) / RT_CU_BLOCK), RT_CU_BLOCK>>>(sd, id, st);
}

/* -------------------------------------------------- FILTER and PARTITION */

struct RtCuAdd {
  __device__ int operator()(int a, int b) const { return a + b; }
};

template <class F, class P> struct RtCuKeep {
  F f;
  P p;
  __device__ int operator()(int i) const { return p(i, f(i)) ? 1 : 0; }
};

template <class F, class P, class StK, class StR>
__global__ void rt_cu_split_k(F f, P p, int n, const int *pre, StK keep, StR rej, int rejecting) {
  typedef cub::BlockScan<int, RT_CU_BLOCK> BS;
  __shared__ typename BS::TempStorage ts;
  int base = blockIdx.x * RT_CU_TILE + threadIdx.x;
  int carry = pre[blockIdx.x];
  for (int r = 0; r < RT_CU_ROUNDS; r++) {
    int i = base + r * RT_CU_BLOCK;
    decltype(f(0)) v{};
    int k = 0, ex, agg;
    if (i < n) {
      v = f(i);
      k = p(i, v) ? 1 : 0;
    }
    BS(ts).ExclusiveScan(k, ex, 0, RtCuAdd{}, agg);
    if (i < n) {
      if (k) keep(carry + ex, v);
      else if (rejecting) rej(i - (carry + ex), v);
    }
    carry += agg;
    __syncthreads();
  }
}

/* FILTER and PARTITION in two steps, since the outputs' length is known only after
 * the predicate ran: rt_cu_split_count gives the number kept (and keeps the tile
 * prefixes in *pre, which the caller passes to rt_cu_split and frees); the caller
 * allocates the outputs, then rt_cu_split stores kept values with keep(j, v) and,
 * for PARTITION, rejected ones with rej(j, v), both in index order (stable). */
template <class F, class P> static int64_t rt_cu_split_count(F f, P p, int64_t n, RtCuScratch<int> **pre) {
  unsigned g = n > 0 ? rt_cu_tiles(n) : 1;
  RtCuScratch<int> part(g), out(1);
  *pre = new RtCuScratch<int>(g);
  if (n <= 0) return 0;
  RtCuKeep<F, P> k{f, p};
  rt_cu_tile_reduce_k<int><<<g, RT_CU_BLOCK>>>(k, (int)n, RtCuAdd{}, 0, part.p);
  rt_cu_part_scan_k<int><<<1, RT_CU_BLOCK>>>(part.p, (int)g, RtCuAdd{}, 0, (*pre)->p, out.p);
  int total;
  RT_CUDA(cudaMemcpy(&total, out.p, sizeof total, cudaMemcpyDeviceToHost));
  return total;
}

template <class F, class P, class StK, class StR>
static void rt_cu_split(F f, P p, int64_t n, RtCuScratch<int> *pre, StK keep, StR rej, int rejecting) {
  if (n > 0) rt_cu_split_k<<<rt_cu_tiles(n), RT_CU_BLOCK>>>(f, p, (int)n, pre->p, keep, rej, rejecting);
  delete pre;
}

/* ------------------------------------------------------------------ PERMUTE */

/* PERMUTE without `into`: the destinations must be a permutation of [0, n). The
 * first pass counts writes per destination and records out-of-range ones; a
 * fault (any count above one, any destination outside) is left to the caller,
 * which replays the destinations on the host in index order to report the first
 * fault the interpreter would (rt_cu_permute_fault). */
template <class FI> __global__ void rt_cu_perm_count_k(FI fi, int n, int m, int *marks, int *bad) {
  int base = blockIdx.x * RT_CU_TILE + threadIdx.x;
  for (int r = 0; r < RT_CU_ROUNDS; r++) {
    int i = base + r * RT_CU_BLOCK;
    if (i >= n) break;
    int d = fi(i);
    if (d < 0 || d >= m) *bad = 1;
    else if (marks && atomicAdd(&marks[d], 1) != 0) *bad = 1;
  }
}

/* PERMUTE with `into`: of several writes to one place the highest source index
 * wins (the interpreter's order); the winner is found with atomicMax first. */
template <class FI> __global__ void rt_cu_perm_last_k(FI fi, int n, int m, int *last) {
  int base = blockIdx.x * RT_CU_TILE + threadIdx.x;
  for (int r = 0; r < RT_CU_ROUNDS; r++) {
    int i = base + r * RT_CU_BLOCK;
    if (i >= n) break;
    int d = fi(i);
    if (d >= 0 && d < m) atomicMax(&last[d], i);
  }
}

template <class FV, class FI, class St>
__global__ void rt_cu_perm_write_k(FV fv, FI fi, int n, int m, const int *last, St st) {
  int base = blockIdx.x * RT_CU_TILE + threadIdx.x;
  for (int r = 0; r < RT_CU_ROUNDS; r++) {
    int i = base + r * RT_CU_BLOCK;
    if (i >= n) break;
    int d = fi(i);
    if (d >= 0 && d < m && (!last || last[d] == i)) st(d, fv(i));
  }
}

template <class FI> struct RtCuDest {
  FI fi;
  int *out;
  __device__ void operator()(int i) const { out[i] = fi(i); }
};

/* Returns 0, or 1 when a destination fault was found: the caller then calls
 * rt_cu_permute_fault for the details. Outputs (length m) must be zeroed by the
 * caller when general (`into`). general 2: `into` whose writes need no winner
 * (lcu_permute_scatter: equal values, or st takes the maximum). */
template <class FV, class FI, class St>
static int rt_cu_permute(FV fv, FI fi, int64_t n, int64_t m, int general, St st) {
  if (n <= 0) return 0;
  unsigned g = rt_cu_tiles(n);
  RtCuScratch<int> marks(general == 2 || m <= 0 ? 1 : m), bad(1);
  RT_CUDA(cudaMemset(bad.p, 0, sizeof(int)));
  if (general == 2) {
    rt_cu_perm_count_k<<<g, RT_CU_BLOCK>>>(fi, (int)n, (int)m, (int *)nullptr, bad.p);
  } else if (general) {
    RT_CUDA(cudaMemset(marks.p, 0xff, (size_t)(m > 0 ? m : 1) * sizeof(int))); /* -1: unwritten */
    rt_cu_perm_last_k<<<g, RT_CU_BLOCK>>>(fi, (int)n, (int)m, marks.p);
    rt_cu_perm_count_k<<<g, RT_CU_BLOCK>>>(fi, (int)n, (int)m, (int *)nullptr, bad.p);
  } else {
    RT_CUDA(cudaMemset(marks.p, 0, (size_t)(m > 0 ? m : 1) * sizeof(int)));
    rt_cu_perm_count_k<<<g, RT_CU_BLOCK>>>(fi, (int)n, (int)m, marks.p, bad.p);
  }
  int b;
  RT_CUDA(cudaMemcpy(&b, bad.p, sizeof b, cudaMemcpyDeviceToHost));
  if (b) return 1;
  rt_cu_perm_write_k<<<g, RT_CU_BLOCK>>>(fv, fi, (int)n, (int)m, general == 1 ? marks.p : (const int *)nullptr, st);
  return 0;
}

/* The interpreter's first destination fault in index order: *kind 1 out of range
 * (dest d at source i), 2 a collision (dest d written from j, then i). */
template <class FI>
static void rt_cu_permute_fault(FI fi, int64_t n, int64_t m, int general, int *kind, long long *d,
                                long long *j, long long *i) {
  RtCuScratch<int> dev(n);
  rt_cu_map(RtCuDest<FI>{fi, dev.p}, n);
  int32_t *h = (int32_t *)malloc((size_t)n * sizeof *h);
  int32_t *from = (int32_t *)calloc((size_t)(m > 0 ? m : 1), sizeof *from);
  if (!h || !from) {
    fputs("error: out of memory while reporting a PERMUTE fault\n", stderr);
    exit(1);
  }
  RT_CUDA(cudaMemcpy(h, dev.p, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost));
  *kind = 0;
  for (int64_t k = 0; k < n && !*kind; k++) {
    if (h[k] < 0 || h[k] >= m) *kind = 1, *d = h[k], *i = k;
    else if (!general && from[h[k]]) *kind = 2, *d = h[k], *j = from[h[k]] - 1, *i = k;
    else from[h[k]] = (int32_t)k + 1;
  }
  free(h);
  free(from);
}

#endif
