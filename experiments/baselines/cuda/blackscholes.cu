// blackscholes.cu — Black-Scholes call and put prices, one thread per option, with
// the inputs and formulas of experiments/programs/blackscholes.nesl (seed 0: its
// generator); result: the sum of the call prices (thrust::reduce). The kernel and the
// reduction are timed (CUDA events). Compile: nvcc -O2 blackscholes.cu -o blackscholes.
#include "../c/suite.h"
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <vector>

__device__ double cnd(double d) {
  double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
  double poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
  double w = 1.0 - exp(-(d * d) / 2.0) / sqrt(2.0 * 3.141592653589793) * poly;
  return d < 0.0 ? 1.0 - w : w;
}

__global__ void price(long n, const double *s, const double *x, const double *t, double *call,
                      double *put) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double r = 0.02, v = 0.30;
  double sq = v * sqrt(t[i]);
  double d1 = (log(s[i] / x[i]) + (r + v * v / 2.0) * t[i]) / sq, d2 = d1 - sq;
  double disc = x[i] * exp(-r * t[i]);
  call[i] = s[i] * cnd(d1) - disc * cnd(d2);
  put[i] = disc * cnd(-d2) - s[i] * cnd(-d1);
}

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "options");
  std::vector<double> s(n), x(n), t(n);
  for (long i = 0; i < n; i++) {
    s[i] = 5.0 + 25.0 * suite_unit(i);
    x[i] = 1.0 + 99.0 * suite_unit(i + 1);
    t[i] = 0.25 + 9.75 * suite_unit(i + 2);
  }
  thrust::device_vector<double> ds(s.begin(), s.end()), dx(x.begin(), x.end()),
      dt(t.begin(), t.end()), call(n), put(n);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  price<<<(unsigned)((n + 255) / 256), 256>>>(
      n, thrust::raw_pointer_cast(ds.data()), thrust::raw_pointer_cast(dx.data()),
      thrust::raw_pointer_cast(dt.data()), thrust::raw_pointer_cast(call.data()),
      thrust::raw_pointer_cast(put.data()));
  double r = thrust::reduce(call.begin(), call.end(), 0.0);
  cudaEventRecord(e1);
  cudaEventSynchronize(e1);
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  suite_report_float(r, ms / 1000.0);
  return 0;
}
