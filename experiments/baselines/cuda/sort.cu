// sort.cu — sort of N int keys on the device with thrust::sort (a radix sort for
// integer keys), the keys of experiments/programs/quicksort.nesl for seed 0; result:
// sum of s[i] * (i mod 7) (suite.h), as the C sorting baselines. The sort is timed
// (CUDA events). Compile: nvcc -O2 sort.cu -o sort.
#include "../c/suite.h"
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <vector>

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "keys");
  std::vector<int32_t> keys(n);
  for (long i = 0; i < n; i++) keys[i] = suite_int(i);
  thrust::device_vector<int32_t> d(keys.begin(), keys.end());
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  thrust::sort(d.begin(), d.end());
  cudaEventRecord(e1);
  cudaEventSynchronize(e1);
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  thrust::copy(d.begin(), d.end(), keys.begin());
  suite_report_int(suite_sorted_checksum(keys.data(), n), ms / 1000.0);
  return 0;
}
