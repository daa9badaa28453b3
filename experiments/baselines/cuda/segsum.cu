// segsum.cu — segmented reduction with cub::DeviceSegmentedReduce::Sum: N segments,
// segment s holding 1 + int(s) mod 8 integers int(8s + j + 3) mod 9 - 4 (the rows of
// experiments/programs/spmv.nesl; int(i) is suite.h's generator); result: the sum over
// segments of (s mod 7) * sum(segment). The reduction is timed (CUDA events).
// Compile: nvcc -O2 segsum.cu -o segsum.
#include "../c/suite.h"
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/device_vector.h>
#include <vector>

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "segments");
  std::vector<int> offsets(n + 1);
  offsets[0] = 0;
  for (long s = 0; s < n; s++) offsets[s + 1] = offsets[s] + 1 + suite_int(s) % 8;
  std::vector<long long> vals(offsets[n]);
  for (long s = 0; s < n; s++)
    for (int k = offsets[s]; k < offsets[s + 1]; k++)
      vals[k] = suite_int(8 * s + (k - offsets[s]) + 3) % 9 - 4;
  thrust::device_vector<long long> dv(vals.begin(), vals.end()), dsum(n);
  thrust::device_vector<int> doff(offsets.begin(), offsets.end());
  const int *off = thrust::raw_pointer_cast(doff.data());
  void *tmp = nullptr;
  size_t bytes = 0;
  cub::DeviceSegmentedReduce::Sum(tmp, bytes, thrust::raw_pointer_cast(dv.data()),
                                  thrust::raw_pointer_cast(dsum.data()), (int)n, off, off + 1);
  cudaMalloc(&tmp, bytes);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  cub::DeviceSegmentedReduce::Sum(tmp, bytes, thrust::raw_pointer_cast(dv.data()),
                                  thrust::raw_pointer_cast(dsum.data()), (int)n, off, off + 1);
  cudaEventRecord(e1);
  cudaEventSynchronize(e1);
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  std::vector<long long> sums(n);
  thrust::copy(dsum.begin(), dsum.end(), sums.begin());
  long long r = 0;
  for (long s = 0; s < n; s++) r += (s % 7) * sums[s];
  cudaFree(tmp);
  suite_report_int(r, ms / 1000.0);
  return 0;
}
