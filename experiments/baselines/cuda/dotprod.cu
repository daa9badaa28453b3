// dotprod.cu — dot product of two device vectors with thrust::inner_product, inputs
// as experiments/programs/dotprod.nesl for seed 0 (a[i] = i mod 7, b[i] = i mod 5 - 2),
// else uniform in [0, 1) from splitmix64; result: the dot product. Only the reduction
// on the device is timed (CUDA events). Compile: nvcc -O2 dotprod.cu -o dotprod.
#include "../c/suite.h"
#include <thrust/device_vector.h>
#include <thrust/inner_product.h>
#include <vector>

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "vector length");
  std::vector<double> a(n), b(n);
  for (long i = 0; i < n; i++) {
    a[i] = suite_seed == 0 ? (double)(i % 7) : suite_unit(2 * i);
    b[i] = suite_seed == 0 ? (double)(i % 5) - 2.0 : suite_unit(2 * i + 1);
  }
  thrust::device_vector<double> da(a.begin(), a.end()), db(b.begin(), b.end());
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  cudaEventRecord(t0);
  double r = thrust::inner_product(da.begin(), da.end(), db.begin(), 0.0);
  cudaEventRecord(t1);
  cudaEventSynchronize(t1);
  float ms = 0;
  cudaEventElapsedTime(&ms, t0, t1);
  suite_report_float(r, ms / 1000.0);
  return 0;
}
