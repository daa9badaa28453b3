/* cupti_smoke.cu — the CUDA runtime and its CUPTI profile on their own: one kernel
 * and one memset inside a bracket, one memcpy outside. On a GPU it prints the
 * per-bracket counts (tests/sh/cuda_runtime.sh checks them); without one, the
 * runtime's "no CUDA-capable GPU" error and exit 1. */
#include "rt_cuda.h"
#include "rt_cupti.h"
#include <stdio.h>

__global__ void twice(const int *__restrict__ in, int *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

int main(void) {
  rt_cuda_init(1, 1);
  const int n = 1 << 20;
  int *a = (int *)rt_cuda_alloc(n * sizeof(int)), *b = (int *)rt_cuda_alloc(n * sizeof(int));
  rt_cupti_enter(0);
  RT_CUDA(cudaMemset(a, 0, n * sizeof(int)));
  twice<<<(n + 255) / 256, 256>>>(a, b, n);
  RT_CUDA(cudaGetLastError());
  rt_cupti_leave();
  int x = 1;
  RT_CUDA(cudaMemcpy(&x, b + 7, sizeof x, cudaMemcpyDeviceToHost));
  const RtCuptiTotals *t = rt_cupti_totals();
  printf("device %s\n", rt_cuda_device_name());
  printf("bracket: kernels %lld memsets %lld memset_bytes %lld memcpys %lld time>0 %d\n",
         (long long)t[0].gpu_kernels, (long long)t[0].memsets, (long long)t[0].memset_bytes,
         (long long)t[0].memcpys, t[0].kernel_seconds > 0);
  printf("outside: kernels %lld memcpys %lld memcpy_bytes %lld\n", (long long)t[1].gpu_kernels,
         (long long)t[1].memcpys, (long long)t[1].memcpy_bytes);
  printf("value %d, peak %lld\n", x, (long long)rt_cuda_mem().peak);
  rt_cuda_free(a, n * sizeof(int));
  rt_cuda_free(b, n * sizeof(int));
  rt_cupti_stop();
  return 0;
}
