/* rt_cuda.h — the host side of the CUDA runtime that generated .cu programs link:
 * device selection (a clear error and exit 1 where there is no GPU), checked CUDA
 * calls, device memory through one place that counts bytes allocated, live and
 * peak, and the CUPTI profile's start and flush (rt_cupti.h). */
#ifndef RT_CUDA_H
#define RT_CUDA_H
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Selects device 0. Without a usable GPU prints why and exits 1. With profile set,
 * starts CUPTI recording for kernel ids 0..nkernels-1 first (CUPTI must see the
 * context being created). */
void rt_cuda_init(int profile, int nkernels);
const char *rt_cuda_device_name(void);

/* Every CUDA call goes through RT_CUDA: on failure it prints
 * "error: CUDA: <call> failed at FILE:LINE: <reason>" and exits 1. */
#define RT_CUDA(call) rt_cuda_check((call), #call, __FILE__, __LINE__)
void rt_cuda_check(cudaError_t e, const char *what, const char *file, int line);

/* Device memory. rt_cuda_alloc of 0 bytes returns NULL; a failed allocation is a
 * run-time fault ("out of device memory allocating N bytes"), exit 1. */
void *rt_cuda_alloc(size_t bytes);
void rt_cuda_free(void *p, size_t bytes);
typedef struct {
  int64_t allocated, live, peak; /* bytes */
} RtCudaMem;
RtCudaMem rt_cuda_mem(void);

#ifdef __cplusplus
}
#endif
#endif
