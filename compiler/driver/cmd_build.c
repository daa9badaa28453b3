/* cmd_build.c — the compiled path: `nessie build`, `nessie emit --stage=c`,
 * `nessie lcu run --compiled` and `nessie run PROG.nesl --target=c`. A λcu
 * program is checked, fused by the chosen scheduler (none by default), turned
 * into C (compiler/codegen/) and compiled against the runtime (runtime/). */
#include <unistd.h>

#include "cg.h"
#include "driver.h"

/* NESL -> λcu: not available until flattening lowers NESL (branch flatten);
 * returns NULL after saying so, or the checked λcu program. */
LcuProgram *drv_nesl_lower(const char *path, int *rc) {
  fprintf(stderr,
          "nessie: compiling NESL (%s) is not available yet: flattening does not lower NESL to λcu "
          "yet. λcu programs compile today: nessie build FILE.lcu\n",
          path);
  *rc = NZ_EXIT_INTERNAL;
  return NULL;
}

static int ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && !strcmp(s + n - m, suf);
}

/* Parses, checks and fuses FILE (.lcu, or .nesl through drv_nesl_lower). */
static LcuProgram *load_fused(const char *file, DrvFuse *fo, NzBuf *report, NzSource **src, int *rc) {
  *src = NULL;
  *rc = NZ_EXIT_OK;
  if (ends_with(file, ".nesl")) return drv_nesl_lower(file, rc);
  *src = nz_source_read(file);
  if (!*src) {
    *rc = NZ_EXIT_USER;
    return NULL;
  }
  LcuProgram *p = lcu_parse(*src);
  if (!p || lcu_check(p) != 0) {
    if (p) lcu_program_free(p);
    *rc = NZ_EXIT_USER;
    return NULL;
  }
  if (strcmp(fo->scheduler, "none") && (*rc = drv_fuse(p, fo, report)) != NZ_EXIT_OK) {
    lcu_program_free(p);
    return NULL;
  }
  return p;
}

int drv_gen_c(const LcuProgram *p, const char *report, int profile, NzBuf *out) {
  return cg_program(p, &cg_target_c, report, profile, out);
}

int drv_run_compiled(const LcuProgram *p, const char *report, char **argv_rest, int nrest) {
  NzBuf c = {0};
  int rc = drv_gen_c(p, report, 0, &c);
  char *bin = NULL;
  CgBuildOpts o;
  cg_build_defaults(&o);
  if (rc == NZ_EXIT_OK) rc = cg_compile_cached(c.s, &o, &bin);
  nz_buf_free(&c);
  if (rc != NZ_EXIT_OK) {
    free(bin);
    return rc;
  }
  char **av = nz_xcalloc((size_t)nrest + 2, sizeof(char *));
  av[0] = bin;
  for (int i = 0; i < nrest; i++) av[i + 1] = argv_rest[i];
  fflush(stdout);
  fflush(stderr);
  execv(bin, av);
  nz_error("cannot run the compiled program '%s'", bin);
  free(av);
  free(bin);
  return NZ_EXIT_INTERNAL;
}

static void usage(FILE *f) {
  fputs("usage: nessie build FILE.lcu|PROG.nesl [-o OUT] [--target=c|cuda] [--scheduler=S] [--profile]\n"
        "                    [--cc=CC] [--cflags=FLAGS] [--keep-c] [--cuda-arch=sm_XX]\n"
        "       nessie emit FILE.lcu|PROG.nesl --stage=c|cuda [--scheduler=S] [--profile]\n"
        "The binary takes main's arguments like `nessie lcu run` (literals, or --random-inputs\n"
        "[--seed=S] [--max-len=N]); --profile makes it write nessie-profile.csv (or $NESSIE_PROFILE).\n"
        "FLAGS default to -O2 ($NESSIE_CFLAGS); the compiler is cc ($NESSIE_CC).\n"
        "--target=cuda writes OUT.cu and compiles it with nvcc ($NESSIE_NVCC, $NESSIE_NVCCFLAGS,\n"
        "default -O3) where found (the .cu is kept).\n",
        f);
}

/* `nessie build ...` and `nessie emit ... --stage=c` (emit = 1). */
int drv_cmd_build(int argc, char **argv, int emit) {
  const char *file = NULL, *out = NULL;
  int profile = 0, cuda = 0; /* CUDA target: marked lines */
  CgCudaOpts co;
  cg_cuda_defaults(&co);
  DrvFuse fo;
  drv_fuse_defaults(&fo);
  CgBuildOpts o;
  cg_build_defaults(&o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r = drv_fuse_option(&fo, a);
    if (r < 0) return NZ_EXIT_USAGE;
    if (r > 0) continue;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return NZ_EXIT_OK;
    } else if (!strcmp(a, "-o") && !emit) {
      if (++i >= argc) {
        usage(stderr);
        return NZ_EXIT_USAGE;
      }
      out = argv[i];
    } else if (!strncmp(a, "--target=", 9)) {
      cuda = !strcmp(a + 9, "cuda"); /* CUDA */
      if (strcmp(a + 9, "c") && !cuda) {
        fprintf(stderr, "nessie: unknown target '%s' (c or cuda)\n", a + 9);
        return NZ_EXIT_USAGE;
      }
    } else if (!strncmp(a, "--cuda-arch=", 12) && !emit) { /* CUDA */
      co.arch = a + 12;
    } else if (!strcmp(a, "--stage=cuda") && emit) { /* CUDA */
      cuda = 1;
    } else if (!strcmp(a, "--stage=c") && emit) {
    } else if (!strncmp(a, "--stage=", 8) && emit) {
      fprintf(stderr, "nessie emit: stage '%s' is not available for this input\n", a + 8);
      return NZ_EXIT_USAGE;
    } else if (!strcmp(a, "--profile")) {
      profile = 1;
    } else if (!strncmp(a, "--cc=", 5) && !emit) {
      o.cc = a + 5;
    } else if (!strncmp(a, "--cflags=", 9) && !emit) {
      o.cflags = a + 9;
    } else if (!strcmp(a, "--keep-c") && !emit) {
      o.keep_c = 1;
    } else if (a[0] == '-') {
      fprintf(stderr, "nessie %s: unknown option '%s'\n", emit ? "emit" : "build", a);
      usage(stderr);
      return NZ_EXIT_USAGE;
    } else if (!file) {
      file = a;
    } else {
      usage(stderr);
      return NZ_EXIT_USAGE;
    }
  }
  if (!file) {
    usage(stderr);
    return NZ_EXIT_USAGE;
  }
  NzSource *src;
  NzBuf report = {0}, c = {0};
  int rc;
  LcuProgram *p = load_fused(file, &fo, &report, &src, &rc);
  if (p) rc = cuda ? cg_program(p, &cg_target_cuda, report.s, profile, &c) : drv_gen_c(p, report.s, profile, &c);
  if (p && rc == NZ_EXIT_OK) {
    if (emit) {
      fputs(c.s, stdout);
    } else {
      char def[4096];
      if (!out) { /* FILE without its directory and extension */
        const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
        snprintf(def, sizeof def, "%s", base);
        char *dot = strrchr(def, '.');
        if (dot && dot != def) *dot = 0;
        out = def;
      }
      rc = cuda ? cg_cuda_compile(c.s, out, &co) : cg_compile(c.s, out, &o);
    }
  }
  nz_buf_free(&c);
  nz_buf_free(&report);
  if (p) lcu_program_free(p);
  nz_source_free(src);
  return rc;
}

/* `nessie run PROG.nesl --target=c ...`: compile (cached) and run. */
int drv_cmd_run_target(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (argv[i][0] != '-') {
      int rc;
      NzSource *src = NULL;
      DrvFuse fo;
      drv_fuse_defaults(&fo);
      LcuProgram *p = load_fused(argv[i], &fo, NULL, &src, &rc);
      if (!p) return rc;
      rc = drv_run_compiled(p, NULL, argv + i + 1, 0);
      lcu_program_free(p);
      nz_source_free(src);
      return rc;
    }
  usage(stderr);
  return NZ_EXIT_USAGE;
}
