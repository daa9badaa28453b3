/* soac_test.cu — runtime/cuda/rt_soac.cuh against sequential host loops, on inputs
 * that reach the edges: empty inputs, one tile, many tiles with a ragged last one,
 * empty and long segments, every kind of PERMUTE fault, a thunk fault at two
 * indices (the smaller must be reported). Needs a GPU to run; tests/sh/cuda_runtime.sh
 * builds it everywhere nvcc is, and runs it where a GPU is. Prints "ok NAME" or
 * "not ok NAME: ..." per check, like tests/unit. */
#include "rt_soac.cuh"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

static int failed;
static void check(bool ok, const char *name, const char *fmt = "", long long a = 0, long long b = 0) {
  if (ok) printf("ok %s\n", name);
  else {
    printf("not ok %s: ", name);
    printf(fmt, a, b);
    printf("\n");
    failed = 1;
  }
}

struct Pair {
  double s;
  int m;
};
struct PairOp {
  __device__ __host__ Pair operator()(Pair a, Pair b) const { return Pair{a.s + b.s, a.m > b.m ? a.m : b.m}; }
};
struct AddI {
  __device__ __host__ int operator()(int a, int b) const { return a + b; }
};
struct AddD {
  __device__ __host__ double operator()(double a, double b) const { return a + b; }
};

/* Thunks over device inputs. */
struct Sq {
  const int *x;
  __device__ Pair operator()(int i) const { return Pair{x[i] * 0.25, x[i] * x[i]}; }
};
struct Get {
  const int *x;
  __device__ int operator()(int i) const { return x[i]; }
};
struct Checked { /* x[i] / y[i], faulting (code 7) where y[i] == 0 */
  const int *x, *y;
  __device__ int operator()(int i) const {
    if (y[i] == 0) {
      rt_cu_raise(i, 7, 3, x[i], 0, 0);
      return 0;
    }
    return x[i] / y[i];
  }
};
struct Odd {
  __device__ bool operator()(int i, int v) const { return v & 1; }
};
struct StI {
  int *out;
  __device__ void operator()(int i, int v) const { out[i] = v; }
};
struct StP {
  double *s;
  int *m;
  __device__ void operator()(int i, Pair v) const { s[i] = v.s, m[i] = v.m; }
};

struct Rev { /* reversal: a permutation */
  int n;
  __device__ int operator()(int i) const { return n - 1 - i; }
};
struct Dup { /* 900 and 5000 both go to 3: the collision is found at 5000 */
  __device__ int operator()(int i) const { return i == 900 || i == 5000 ? 3 : i == 3 ? 900 : i; }
};

static int *up(const std::vector<int> &v) {
  int *d = (int *)rt_cuda_alloc(v.size() * sizeof(int) + sizeof(int));
  if (!v.empty()) RT_CUDA(cudaMemcpy(d, v.data(), v.size() * sizeof(int), cudaMemcpyHostToDevice));
  return d;
}
template <class T> static std::vector<T> down(const T *d, size_t n) {
  std::vector<T> v(n);
  if (n) RT_CUDA(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

static std::vector<int> random_ints(size_t n, unsigned seed) {
  std::vector<int> v(n);
  for (size_t i = 0; i < n; i++) v[i] = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 201 - 100;
  return v;
}

int main(void) {
  rt_cuda_init(0, 0);
  rt_cu_fault_clear();
  const size_t sizes[] = {0, 1, 255, 2048, 2049, 100003};
  for (size_t n : sizes) {
    std::vector<int> x = random_ints(n, (unsigned)n + 1);
    int *dx = up(x);
    /* REDUCE of a tuple (fadd, imax) fused with its thunk */
    Pair want{0.0, -2147483647 - 1};
    for (size_t i = 0; i < n; i++) want = PairOp{}(want, Pair{x[i] * 0.25, x[i] * x[i]});
    Pair got = rt_cu_reduce(Sq{dx}, (int64_t)n, PairOp{}, Pair{0.0, -2147483647 - 1});
    check(got.s == want.s && got.m == want.m, "reduce pair", "n=%lld m=%lld", (long long)n, got.m);
    /* SCAN */
    int *out = (int *)rt_cuda_alloc(n * sizeof(int) + 4);
    rt_cu_scan(Get{dx}, (int64_t)n, AddI{}, 0, StI{out});
    std::vector<int> s = down(out, n);
    int acc = 0, ok = 1;
    for (size_t i = 0; i < n; i++) ok &= s[i] == (acc += x[i]);
    check(ok, "scan iadd", "n=%lld", (long long)n);
    /* FILTER and PARTITION (stable) */
    RtCuScratch<int> *pre;
    int64_t k = rt_cu_split_count(Get{dx}, Odd{}, (int64_t)n, &pre);
    int *kept = (int *)rt_cuda_alloc(n * sizeof(int) + 4), *rej = (int *)rt_cuda_alloc(n * sizeof(int) + 4);
    rt_cu_split(Get{dx}, Odd{}, (int64_t)n, pre, StI{kept}, StI{rej}, 1);
    std::vector<int> hk = down(kept, (size_t)k), hr = down(rej, n - (size_t)k), wk, wr;
    for (int v : x) (v & 1 ? wk : wr).push_back(v);
    check(hk == wk && hr == wr, "partition stable", "n=%lld kept=%lld", (long long)n, (long long)k);
    /* PERMUTE: reversal is a permutation */
    int f = rt_cu_permute(Get{dx}, Rev{(int)n}, (int64_t)n, (int64_t)n, 0, StI{out});
    std::vector<int> p = down(out, n);
    ok = !f;
    for (size_t i = 0; i < n; i++) ok &= p[n - 1 - i] == x[i];
    check(ok, "permute reverse", "n=%lld", (long long)n);
    rt_cuda_free(kept, n * sizeof(int) + 4);
    rt_cuda_free(rej, n * sizeof(int) + 4);
    rt_cuda_free(out, n * sizeof(int) + 4);
    rt_cuda_free(dx, n * sizeof(int) + 4);
  }
  /* Segments: many short (with empty ones), then a few long. */
  for (int shape = 0; shape < 2; shape++) {
    std::vector<int> lens;
    unsigned seed = 9;
    for (int s = 0; s < (shape ? 3 : 5000); s++)
      lens.push_back(shape ? 40000 + s : (int)((seed = seed * 1103515245u + 12345u) >> 16) % 5);
    std::vector<long long> starts(1, 0);
    std::vector<int> segof;
    for (size_t s = 0; s < lens.size(); s++) {
      starts.push_back(starts.back() + lens[s]);
      for (int k = 0; k < lens[s]; k++) segof.push_back((int)s);
    }
    size_t total = segof.size();
    std::vector<int> x = random_ints(total, 5);
    int *dx = up(x), *dl = up(lens), *dsegof = up(segof);
    int64_t *dst = (int64_t *)rt_cuda_alloc(starts.size() * sizeof(int64_t));
    RT_CUDA(cudaMemcpy(dst, starts.data(), starts.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
    RtCuSegdes sd{(int64_t)lens.size(), (int64_t)total, dl, dst, dsegof};
    int *out = (int *)rt_cuda_alloc(total * sizeof(int) + 4), *red = (int *)rt_cuda_alloc(lens.size() * sizeof(int));
    rt_cu_segscan(Get{dx}, sd, AddI{}, 0, StI{out});
    rt_cu_segreduce(Get{dx}, sd, AddI{}, 0, StI{red});
    std::vector<int> hs = down(out, total), hr = down(red, lens.size());
    int ok = 1;
    for (size_t s = 0; s < lens.size(); s++) {
      int acc = 0;
      for (long long i = starts[s]; i < starts[s + 1]; i++) ok &= hs[i] == (acc += x[i]);
      ok &= hr[s] == acc;
    }
    check(ok, shape ? "segscan/segreduce few long segments" : "segscan/segreduce many short segments");
  }
  /* Faults: the smallest faulting index is reported, with its details. */
  {
    std::vector<int> x = random_ints(10000, 3), y(10000, 1);
    y[7777] = 0, y[4242] = 0;
    int *dx = up(x), *dy = up(y);
    int *out = (int *)rt_cuda_alloc(10000 * sizeof(int));
    rt_cu_scan(Checked{dx, dy}, 10000, AddI{}, 0, StI{out});
    long long at = rt_cu_fault_index();
    RtCuFault r = rt_cu_fault_detail(Checked{dx, dy}, at);
    check(at == 4242 && r.code == 7 && r.a == x[4242], "fault at the smallest index", "at=%lld code=%lld", at, r.code);
    int f = rt_cu_permute(Get{dx}, Dup{}, 10000, 10000, 0, StI{out});
    int kind = 0;
    long long d = -1, j = -1, i = -1;
    if (f) rt_cu_permute_fault(Dup{}, 10000, 10000, 0, &kind, &d, &j, &i);
    check(f && kind == 2 && d == 3 && j == 3 - 3 + 900 && i == 5000, "permute collision reported in index order",
          "j=%lld i=%lld", j, f ? i : -1);
  }
  printf("%s\n", failed ? "FAILED" : "all passed");
  return failed;
}
