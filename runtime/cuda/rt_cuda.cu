/* rt_cuda.cu — device selection, checked calls and counted device memory (rt_cuda.h). */
#include "rt_cuda.h"
#include "rt_cupti.h"
#include <stdio.h>
#include <stdlib.h>

static char device_name[256];
static RtCudaMem mem;

void rt_cuda_check(cudaError_t e, const char *what, const char *file, int line) {
  if (e == cudaSuccess) return;
  fprintf(stderr, "error: CUDA: %s failed at %s:%d: %s\n", what, file, line, cudaGetErrorString(e));
  exit(1);
}

void rt_cuda_init(int profile, int nkernels) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    fprintf(stderr,
            "error: no CUDA-capable GPU is available (%s); this program was built with "
            "--target=cuda: build it with --target=c to run on the CPU\n",
            e != cudaSuccess ? cudaGetErrorString(e) : "no device found");
    exit(1);
  }
  /* cudaGetDeviceCount initialises the driver without creating a context: CUPTI
   * starts here, before the context it must observe exists. */
  if (profile && rt_cupti_start(nkernels) != 0) {
    fputs("error: --profile needs CUPTI, which could not start (see above)\n", stderr);
    exit(1);
  }
  RT_CUDA(cudaSetDevice(0));
  cudaDeviceProp p;
  RT_CUDA(cudaGetDeviceProperties(&p, 0));
  snprintf(device_name, sizeof device_name, "%s", p.name);
}

const char *rt_cuda_device_name(void) { return device_name; }

void *rt_cuda_alloc(size_t bytes) {
  if (!bytes) return NULL;
  void *p = NULL;
  cudaError_t e = cudaMalloc(&p, bytes);
  if (e != cudaSuccess) {
    fprintf(stderr, "error: out of device memory allocating %zu bytes (%s)\n", bytes,
            cudaGetErrorString(e));
    exit(1);
  }
  mem.allocated += (int64_t)bytes;
  mem.live += (int64_t)bytes;
  if (mem.live > mem.peak) mem.peak = mem.live;
  return p;
}

void rt_cuda_free(void *p, size_t bytes) {
  if (!p) return;
  RT_CUDA(cudaFree(p));
  mem.live -= (int64_t)bytes;
}

RtCudaMem rt_cuda_mem(void) { return mem; }
