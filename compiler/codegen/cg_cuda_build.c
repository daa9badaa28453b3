/* cg_cuda_build.c — turning a generated .cu into an executable: nvcc (found as
 * .ci/find-cuda finds it) compiles it with the CUDA runtime's sources
 * (DIR/nessie-rt/cuda/, copied there by make) and links the C runtime
 * (libnessie_rt.a) and CUPTI. nvcc runs without a shell (argv vector). */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cg.h"

static const char *found(const char *path) {
  return path && access(path, X_OK) == 0 ? path : NULL;
}

/* nvcc: $NESSIE_NVCC (when set, the only candidate: a path that is not an
 * executable means "no nvcc"), on PATH, $CUDA_HOME/bin, /usr/local/cuda/bin. */
static const char *find_nvcc(void) {
  static char buf[PATH_MAX];
  const char *env = getenv("NESSIE_NVCC");
  if (env && *env) return found(env);
  const char *path = getenv("PATH");
  while (path && *path) {
    const char *colon = strchr(path, ':');
    size_t n = colon ? (size_t)(colon - path) : strlen(path);
    if (n && n < sizeof buf - 6) {
      snprintf(buf, sizeof buf, "%.*s/nvcc", (int)n, path);
      if (found(buf)) return buf;
    }
    path = colon ? colon + 1 : NULL;
  }
  const char *home = getenv("CUDA_HOME");
  if (home && *home) {
    snprintf(buf, sizeof buf, "%s/bin/nvcc", home);
    if (found(buf)) return buf;
  }
  return found("/usr/local/cuda/bin/nvcc");
}

void cg_cuda_defaults(CgCudaOpts *o) {
  memset(o, 0, sizeof *o);
  o->nvcc = find_nvcc();
  const char *f = getenv("NESSIE_NVCCFLAGS");
  o->flags = f && *f ? f : "-O3";
}

/* Splits flags at spaces into av (no quoting: flags are plain words). */
static int split(NzArena *a, const char *flags, const char **av, int n) {
  const char *p = flags;
  while (*p) {
    while (*p == ' ') p++;
    const char *q = p;
    while (*q && *q != ' ') q++;
    if (q > p) av[n++] = nz_strndup(a, p, (size_t)(q - p));
    p = q;
  }
  return n;
}

int cg_cuda_compile(const char *text, const char *out, const CgCudaOpts *o) {
  char cu[PATH_MAX];
  snprintf(cu, sizeof cu, "%s.cu", out);
  int orc = cg_outputs_ok(out, ".cu", o->srcs);
  if (orc != NZ_EXIT_OK) return orc;
  FILE *f = fopen(cu, "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
    nz_error("cannot write '%s': %s", cu, strerror(errno));
    return NZ_EXIT_USER;
  }
  if (!o->nvcc) {
    fprintf(stderr,
            "nessie: wrote %s but could not compile it: no CUDA toolkit (nvcc not on PATH, not in "
            "$CUDA_HOME/bin, not in /usr/local/cuda/bin; or set NESSIE_NVCC)\n",
            cu);
    return NZ_EXIT_OK;
  }
  const char *rt = cg_runtime_dir();
  NzArena *a = nz_arena_new();
  char lib[PATH_MAX + 32];
  snprintf(lib, sizeof lib, "%s/libnessie_rt.a", rt);
  if (access(lib, R_OK) != 0) {
    nz_error("the Nessie runtime is not at %s (libnessie_rt.a): run make, or set NESSIE_RT_DIR", rt);
    nz_arena_free(a);
    return NZ_EXIT_INTERNAL;
  }
  /* the toolkit's home: CUPTI is in lib64 (or extras/CUPTI in older layouts) */
  char home[PATH_MAX];
  snprintf(home, sizeof home, "%s", o->nvcc);
  for (int up = 0; up < 2; up++) {
    char *slash = strrchr(home, '/');
    if (slash) *slash = 0;
  }
  const char *av[64];
  int n = 0;
  av[n++] = o->nvcc;
  n = split(a, o->flags, av, n);
  av[n++] = "-std=c++17";
  if (o->arch) av[n++] = nz_sprintf(a, "-arch=%s", o->arch);
  av[n++] = nz_sprintf(a, "-I%s/include", rt);
  av[n++] = nz_sprintf(a, "-I%s/cuda", rt);
  const char *cupti_inc = nz_sprintf(a, "%s/extras/CUPTI/include", home);
  int extras = access(cupti_inc, R_OK) == 0;
  if (extras) av[n++] = nz_sprintf(a, "-I%s", cupti_inc);
  av[n++] = cu;
  av[n++] = nz_sprintf(a, "%s/cuda/rt_cuda.cu", rt);
  av[n++] = nz_sprintf(a, "%s/cuda/rt_cupti.c", rt);
  char *bin = cg_temp_beside(out); /* renamed over OUT once nvcc has finished it */
  if (!bin) {
    nz_arena_free(a);
    return NZ_EXIT_USER;
  }
  av[n++] = "-o";
  av[n++] = bin;
  av[n++] = lib;
  if (extras) av[n++] = nz_sprintf(a, "-L%s/extras/CUPTI/lib64", home);
  av[n++] = "-lcupti";
  av[n++] = "-Xcompiler=-fopenmp";
#if defined(__SANITIZE_ADDRESS__) /* the sanitizer build's runtime is instrumented */
  av[n++] = "-Xcompiler=-fsanitize=address"; /* one flag each: nvcc splits -Xcompiler at commas */
  av[n++] = "-Xcompiler=-fsanitize=undefined";
#endif
  av[n++] = "-lm";
  av[n++] = "-lpthread";
  av[n] = NULL;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    execv(av[0], (char *const *)av);
    fprintf(stderr, "nessie: cannot run %s: %s\n", av[0], strerror(errno));
    _exit(127);
  }
  int st = 0, rc = NZ_EXIT_OK;
  if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    NzBuf cmd = {0};
    for (int i = 0; i < n; i++) nz_buf_printf(&cmd, "%s%s", i ? " " : "", av[i]);
    nz_error("nvcc failed on the generated program (a bug in nessie): %s", cmd.s);
    fprintf(stderr, "nessie: the generated CUDA is kept in %s\n", cu);
    nz_buf_free(&cmd);
    unlink(bin);
    rc = NZ_EXIT_INTERNAL;
  } else {
    rc = cg_install(bin, out);
  }
  free(bin);
  nz_arena_free(a);
  return rc;
}
