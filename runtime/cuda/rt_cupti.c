/* rt_cupti.c — CUPTI activity recording for the CUDA runtime (rt_cupti.h).
 * Records arrive in buffers CUPTI fills asynchronously; kernel, memcpy and memset
 * records carry a correlation id, and an EXTERNAL_CORRELATION record maps that id
 * to the λcu kernel id pushed by rt_cupti_enter. Both are kept until
 * rt_cupti_totals joins them, since the two kinds of record may come in any order. */
#include "rt_cupti.h"
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RT_CUPTI_BUF (8u << 20)
#define RT_CUPTI_ALIGN 8

typedef struct {
  uint32_t corr;
  uint8_t what; /* 0 kernel, 1 memcpy, 2 memset */
  uint64_t bytes;
  uint64_t ns;
} Act;

/* CUPTI writes an external-correlation record only with the record of the API call it
 * tags, so the runtime API's records are enabled too (and skipped when read): without
 * them no activity is attributed to its λcu kernel (seen on an H200, CUDA 13.0). */
static const CUpti_ActivityKind kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_RUNTIME};
#define NKINDS (sizeof kinds / sizeof *kinds)

static struct {
  int on, nids;
  Act *acts;
  size_t nacts, capacts;
  /* correlation id -> external id + 1 (0: none), open addressing */
  uint32_t *ckey;
  uint64_t *cval;
  size_t ncorr, capcorr;
  RtCuptiTotals *tot;
} S;

static void *grow(void *p, size_t *cap, size_t elem) {
  size_t n = *cap ? *cap * 2 : 1024;
  void *q = realloc(p, n * elem);
  if (!q) {
    fputs("error: out of memory while recording the CUPTI profile\n", stderr);
    exit(1);
  }
  *cap = n;
  return q;
}

static void corr_put(uint32_t c, uint64_t ext);

static void corr_rehash(void) {
  uint32_t *ok = S.ckey;
  uint64_t *ov = S.cval;
  size_t on = S.capcorr;
  S.capcorr = on ? on * 2 : 4096;
  S.ckey = calloc(S.capcorr, sizeof *S.ckey);
  S.cval = calloc(S.capcorr, sizeof *S.cval);
  if (!S.ckey || !S.cval) {
    fputs("error: out of memory while recording the CUPTI profile\n", stderr);
    exit(1);
  }
  S.ncorr = 0;
  for (size_t i = 0; i < on; i++)
    if (ov[i]) corr_put(ok[i], ov[i] - 1);
  free(ok);
  free(ov);
}

static void corr_put(uint32_t c, uint64_t ext) {
  if (2 * (S.ncorr + 1) > S.capcorr) corr_rehash();
  size_t m = S.capcorr - 1, i = (c * 2654435761u) & m;
  while (S.cval[i] && S.ckey[i] != c) i = (i + 1) & m;
  if (!S.cval[i]) S.ncorr++;
  S.ckey[i] = c;
  S.cval[i] = ext + 1;
}

static int64_t corr_get(uint32_t c) {
  if (!S.capcorr) return -1;
  size_t m = S.capcorr - 1, i = (c * 2654435761u) & m;
  while (S.cval[i]) {
    if (S.ckey[i] == c) return (int64_t)(S.cval[i] - 1);
    i = (i + 1) & m;
  }
  return -1;
}

static void add_act(uint32_t corr, int what, uint64_t bytes, uint64_t start, uint64_t end) {
  if (S.nacts == S.capacts) S.acts = grow(S.acts, &S.capacts, sizeof *S.acts);
  S.acts[S.nacts++] = (Act){corr, (uint8_t)what, bytes, end > start ? end - start : 0};
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *maxrecords) {
  void *p = aligned_alloc(RT_CUPTI_ALIGN, RT_CUPTI_BUF);
  *buf = p;
  *size = p ? RT_CUPTI_BUF : 0;
  *maxrecords = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
                                      size_t valid) {
  (void)ctx, (void)stream, (void)size;
  CUpti_Activity *r = NULL;
  while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)r;
      add_act(k->correlationId, 0, 0, k->start, k->end);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      CUpti_ActivityMemcpy6 *m = (CUpti_ActivityMemcpy6 *)r;
      add_act(m->correlationId, 1, m->bytes, m->start, m->end);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      CUpti_ActivityMemset4 *m = (CUpti_ActivityMemset4 *)r;
      add_act(m->correlationId, 2, m->bytes, m->start, m->end);
      break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      CUpti_ActivityExternalCorrelation *e = (CUpti_ActivityExternalCorrelation *)r;
      if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
        corr_put(e->correlationId, e->externalId);
      break;
    }
    default: break;
    }
  }
  free(buf);
}

static int check(CUptiResult r, const char *what) {
  if (r == CUPTI_SUCCESS) return 0;
  const char *msg = NULL;
  cuptiGetResultString(r, &msg);
  fprintf(stderr, "error: CUPTI: %s failed: %s\n", what, msg ? msg : "unknown error");
  return -1;
}

int rt_cupti_start(int nids) {
  if (S.on) return 0;
  if (check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
            "registering activity buffers"))
    return -1;
  for (size_t i = 0; i < NKINDS; i++)
    if (check(cuptiActivityEnable(kinds[i]), "enabling an activity kind")) return -1;
  S.nids = nids < 0 ? 0 : nids;
  S.tot = calloc((size_t)S.nids + 1, sizeof *S.tot);
  if (!S.tot) {
    fputs("error: out of memory while starting the CUPTI profile\n", stderr);
    return -1;
  }
  S.on = 1;
  return 0;
}

void rt_cupti_enter(int id) {
  if (S.on) cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, (uint64_t)id);
}

void rt_cupti_leave(void) {
  uint64_t last;
  if (S.on) cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

const RtCuptiTotals *rt_cupti_totals(void) {
  if (!S.on) return NULL;
  cuptiActivityFlushAll(1); /* forced: also the records of activities still in flight */
  if (getenv("NESSIE_CUPTI_DEBUG")) { /* what CUPTI delivered, when the profile looks wrong */
    size_t n[3] = {0}, zero = 0, matched = 0;
    for (size_t i = 0; i < S.nacts; i++) {
      n[S.acts[i].what]++;
      zero += S.acts[i].ns == 0;
      matched += corr_get(S.acts[i].corr) >= 0;
    }
    fprintf(stderr, "CUPTI: %zu kernel, %zu memcpy, %zu memset records (%zu of zero duration), %zu correlated, %zu correlation records\n",
            n[0], n[1], n[2], zero, matched, S.ncorr);
  }
  for (size_t i = 0; i < S.nacts; i++) {
    const Act *a = &S.acts[i];
    int64_t id = corr_get(a->corr);
    RtCuptiTotals *t = &S.tot[id >= 0 && id < S.nids ? id : S.nids];
    double s = (double)a->ns * 1e-9;
    if (a->what == 0) t->gpu_kernels++, t->kernel_seconds += s;
    else if (a->what == 1) t->memcpys++, t->memcpy_bytes += (int64_t)a->bytes, t->memcpy_seconds += s;
    else t->memsets++, t->memset_bytes += (int64_t)a->bytes, t->memset_seconds += s;
  }
  S.nacts = 0; /* counted: a second call adds only what came since */
  return S.tot;
}

void rt_cupti_stop(void) {
  if (!S.on) return;
  cuptiActivityFlushAll(1);
  for (size_t i = 0; i < NKINDS; i++) cuptiActivityDisable(kinds[i]);
  free(S.acts);
  free(S.ckey);
  free(S.cval);
  free(S.tot);
  memset(&S, 0, sizeof S);
}
