// baseline.cu — hand-written CUDA/CUB baselines for experiments/cuda/bench.sh (a
// benchmark, not a test): the same three computations as dot.lcu,
// blackscholes.lcu and segsum.lcu on the same generated inputs, written the way
// a CUDA programmer would (one fused CUB call over a transform iterator each),
// timed with CUDA events around the measured calls only (best of 5). Prints one
// CSV line per computation: name,n,seconds,bytes,result, then a line with the
// device's name and peak memory bandwidth (from its memory clock and bus width).
//   nvcc -O3 -std=c++17 experiments/cuda/baseline.cu -o baseline && ./baseline N LEN
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                                                  \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      fprintf(stderr, "error: %s failed: %s\n", #call, cudaGetErrorString(e_));                  \
      exit(1);                                                                                    \
    }                                                                                             \
  } while (0)

__global__ void gen(int n, double *x, double *y, double *s, double *k, double *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  x[i] = (i % 1000) * 0.001; // dot.lcu's xs; segsum.lcu's values are x * 10
  y[i] = 1.0 - (i % 777) * 0.001;
  s[i] = 50.0 + i % 100;
  k[i] = 100.0 - i % 7;
  t[i] = 0.5 + 0.25 * (i % 4);
}

struct Dot {
  const double *__restrict__ x, *__restrict__ y;
  __device__ double operator()(int i) const { return x[i] * y[i]; }
};

__device__ double cnd(double d) {
  double l = fabs(d), k = 1.0 / (1.0 + 0.2316419 * l);
  double p = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
  double w = 1.0 - 0.3989422804014327 * exp(-l * l / 2.0) * p;
  return d < 0.0 ? 1.0 - w : w;
}

struct Price {
  const double *__restrict__ s, *__restrict__ k, *__restrict__ t;
  __device__ double operator()(int i) const {
    double si = s[i], xi = k[i], ti = t[i], sq = 0.25 * sqrt(ti);
    double d1 = (log(si / xi) + (0.05 + 0.25 * 0.25 / 2.0) * ti) / sq, d2 = d1 - sq;
    return si * cnd(d1) - xi * exp(-0.05 * ti) * cnd(d2);
  }
};

struct Sq {
  const double *__restrict__ v;
  __device__ double operator()(int i) const {
    double x = v[i] * 10.0;
    return x * x;
  }
};

struct Off {
  int len, n;
  __device__ int operator()(int j) const { return j * len < n ? j * len : n; }
};

template <class F> static double timed(F f, double *result, const double *dres) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  float best = 1e30f;
  for (int r = 0; r < 5; r++) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (ms < best) best = ms;
  }
  CK(cudaMemcpy(result, dres, sizeof *result, cudaMemcpyDeviceToHost));
  return best * 1e-3;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10000000, len = argc > 2 ? atoi(argv[2]) : 1000;
  if (n <= 0 || len <= 0) {
    fprintf(stderr, "usage: baseline N LEN\n");
    return 2;
  }
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    fprintf(stderr, "error: no CUDA-capable GPU is available\n");
    return 1;
  }
  double *x, *y, *s, *k, *t, *res, *segs;
  size_t bytes = sizeof(double) * (size_t)n;
  int nseg = n / len + 1;
  CK(cudaMalloc(&x, bytes));
  CK(cudaMalloc(&y, bytes));
  CK(cudaMalloc(&s, bytes));
  CK(cudaMalloc(&k, bytes));
  CK(cudaMalloc(&t, bytes));
  CK(cudaMalloc(&res, sizeof(double)));
  CK(cudaMalloc(&segs, sizeof(double) * (size_t)nseg));
  gen<<<(n + 255) / 256, 256>>>(n, x, y, s, k, t);
  CK(cudaGetLastError());
  thrust::counting_iterator<int> idx(0);
  auto dot = thrust::make_transform_iterator(idx, Dot{x, y});
  auto price = thrust::make_transform_iterator(idx, Price{s, k, t});
  auto sq = thrust::make_transform_iterator(idx, Sq{x});
  auto off = thrust::make_transform_iterator(idx, Off{len, n});
  size_t tb = 0, tb2 = 0, tb3 = 0;
  CK(cub::DeviceReduce::Sum(nullptr, tb, dot, res, n));
  CK(cub::DeviceReduce::Sum(nullptr, tb2, price, res, n));
  tb = tb > tb2 ? tb : tb2;
  CK(cub::DeviceSegmentedReduce::Sum(nullptr, tb3, sq, segs, nseg, off, off + 1));
  tb = tb > tb3 ? tb : tb3;
  void *tmp;
  CK(cudaMalloc(&tmp, tb));
  double r;
  double sec = timed([&] { CK(cub::DeviceReduce::Sum(tmp, tb, dot, res, n)); }, &r, res);
  printf("dot,%d,%.9f,%zu,%.17g\n", n, sec, 2 * bytes, r);
  sec = timed([&] { CK(cub::DeviceReduce::Sum(tmp, tb, price, res, n)); }, &r, res);
  printf("blackscholes,%d,%.9f,%zu,%.17g\n", n, sec, 3 * bytes, r);
  sec = timed([&] { CK(cub::DeviceSegmentedReduce::Sum(tmp, tb, sq, segs, nseg, off, off + 1)); }, &r, segs);
  printf("segsum,%d,%.9f,%zu,%.17g\n", n, sec, bytes + sizeof(double) * (size_t)nseg, r);
  int clk = 0, bus = 0;
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  CK(cudaDeviceGetAttribute(&clk, cudaDevAttrMemoryClockRate, 0)); // kHz
  CK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0)); // bits
  printf("device,%s,peak_bytes_per_second,%.6g\n", p.name, 2.0 * clk * 1e3 * bus / 8.0);
  return 0;
}
