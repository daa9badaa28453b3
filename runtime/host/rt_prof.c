/* rt_prof.c — per-kernel profile: launches, elements, bytes allocated and
 * time, written as the CSV of DESIGN.md "Metrics" (the CUDA back end writes
 * the same columns from CUPTI). */
#include <omp.h>
#include <stdio.h>

#include "nessie_rt.h"
#include "rt_internal.h"

const char *rt_prof_backend = "c", *rt_prof_device; /* the CUDA runtime sets them */
void (*rt_prof_fill)(const RtProgram *p);

double rt_now(void) { return omp_get_wtime(); }

void rt_prof_kernel(RtKernelStat *k, int64_t elements, double t0, int64_t bytes0) {
  k->launches++;
  k->elements += elements;
  k->bytes += rt_bytes_allocated - bytes0;
  k->seconds += rt_now() - t0;
}

/* A CSV field: quoted when it holds a comma or a quote. */
static void field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

int rt_prof_write(const RtProgram *p, const char *path, double wall) {
  FILE *f = !strcmp(path, "-") ? stdout : fopen(path, "w");
  if (!f) {
    fprintf(stderr, "cannot write the profile to '%s'\n", path);
    return -1;
  }
  if (rt_prof_fill) rt_prof_fill(p);
  char dev[256];
  if (rt_prof_device) snprintf(dev, sizeof dev, "%s", rt_prof_device);
  else snprintf(dev, sizeof dev, "cpu-%dthreads", omp_get_max_threads());
  const char *be = rt_prof_backend;
  fputs("program,backend,device,kernel,cluster,soacs,launches,elements,bytes_allocated,seconds\n", f);
  for (int i = 0; i < p->nkernels; i++) {
    const RtKernelStat *k = p->kernels[i];
    field(f, p->program);
    fprintf(f, ",%s,", be);
    field(f, dev);
    fputc(',', f);
    field(f, k->kernel);
    fputc(',', f);
    field(f, k->cluster);
    fprintf(f, ",%d,%lld,%lld,%lld,%.9f\n", k->soacs, (long long)k->launches, (long long)k->elements,
            (long long)k->bytes, k->seconds);
  }
  field(f, p->program);
  fprintf(f, ",%s,", be);
  field(f, dev);
  fprintf(f, ",(total),,0,0,0,%lld,%.9f\n", (long long)rt_bytes_peak, wall);
  if (f != stdout) fclose(f);
  return 0;
}
