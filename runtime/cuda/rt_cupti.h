/* rt_cupti.h — per-kernel GPU timing for compiled CUDA programs through CUPTI's
 * activity API (activity records with device timestamps, not host-polled events).
 *
 * The generated host code brackets everything it launches for one λcu kernel with
 * rt_cupti_enter(id) / rt_cupti_leave(): CUPTI's external correlation tags every
 * CUDA activity created in between (our own kernels, the kernels CUB launches,
 * memcpys, memsets) with that id, so a CUB scan that runs three device kernels is
 * still one λcu kernel in the profile. Activities outside any bracket go to id -1. */
#ifndef RT_CUPTI_H
#define RT_CUPTI_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int64_t gpu_kernels;        /* device kernels executed (a CUB call may run several) */
  int64_t memcpys, memsets;
  int64_t memcpy_bytes, memset_bytes;
  double kernel_seconds;      /* sum of device kernel durations (end - start) */
  double memcpy_seconds, memset_seconds;
} RtCuptiTotals;

/* Enables recording for ids 0..nids-1. Returns 0, or -1 after printing why
 * (CUPTI missing, no device, ...) on stderr. Call before the first CUDA call. */
int rt_cupti_start(int nids);
void rt_cupti_enter(int id);
void rt_cupti_leave(void);
/* Flushes CUPTI's buffers (waiting for outstanding records) and returns the
 * totals per id (the array has nids entries; entry nids holds activities that
 * ran outside every bracket). Valid until rt_cupti_stop. Safe to call more than
 * once and from an exit path (a run-time fault): later calls add nothing new. */
const RtCuptiTotals *rt_cupti_totals(void);
void rt_cupti_stop(void);

#ifdef __cplusplus
}
#endif

#endif
