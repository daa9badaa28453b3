/* cmd_build.c — the compiled path: `nessie build`, `nessie emit --stage=c`,
 * `nessie lcu run --compiled` and `nessie run PROG.nesl --target=c`. A λcu
 * program is checked, fused by the chosen scheduler (none by default), turned
 * into C (compiler/codegen/) and compiled against the runtime (runtime/). */
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cg.h"
#include "driver.h"

static int ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && !strcmp(s + n - m, suf);
}

/* What the compiled path does with a checked λcu program (BuildJob.use). */
typedef struct BuildJob BuildJob;
struct BuildJob {
  DrvFuse fo;
  int (*use)(BuildJob *b, LcuProgram *p, const char *report);
  /* build and emit */
  const char *file, *out;
  int emit, profile, cuda;
  int float32; /* --float32: the back ends' experiment switch (compiler/codegen/README.md) */
  CgBuildOpts o;
  CgCudaOpts co;
  /* run --target=c */
  char **rest;
  int nrest, wait;
};

/* Fuses p by the chosen scheduler (none by default), then hands it to b->use. */
static int fuse_and_use(LcuProgram *p, void *ctx) {
  BuildJob *b = ctx;
  NzBuf report = {0};
  int rc = NZ_EXIT_OK;
  if (strcmp(b->fo.scheduler, "none")) rc = drv_fuse(p, &b->fo, &report);
  if (rc == NZ_EXIT_OK) rc = b->use(b, p, report.s);
  nz_buf_free(&report);
  return rc;
}

/* FILE (.lcu, or a NESL program flattened with every form's output shown) through
 * fuse_and_use. defer (run --target=c): a NESL program's type or syntax error is
 * reported after the forms before it ran, as `nessie run` does. */
static int with_program(const char *file, const char *expr, BuildJob *b, int defer) {
  if (ends_with(file, ".nesl")) return drv_nesl_compile(file, expr, defer, fuse_and_use, b);
  NzSource *src = nz_source_read(file);
  if (!src) return NZ_EXIT_USER;
  LcuProgram *p = lcu_parse(src);
  int rc = NZ_EXIT_USER;
  if (p && lcu_check(p) == 0) rc = fuse_and_use(p, b);
  if (p) lcu_program_free(p);
  nz_source_free(src);
  return rc;
}

int drv_gen_c(const LcuProgram *p, const char *report, int flags, NzBuf *out) {
  return cg_program(p, &cg_target_c, report, flags, out);
}

int drv_run_compiled(const LcuProgram *p, const char *report, char **argv_rest, int nrest, int wait, int flags) {
  NzBuf c = {0};
  int rc = drv_gen_c(p, report, flags, &c);
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
  nz_stdout_flush();
  fflush(stderr);
  pid_t pid = wait ? fork() : 0;
  if (pid == 0) {
    execv(bin, av);
    nz_error("cannot run the compiled program '%s'", bin);
    if (wait) _exit(NZ_EXIT_INTERNAL);
  }
  int st = 0;
  rc = NZ_EXIT_INTERNAL;
  if (pid > 0 && waitpid(pid, &st, 0) == pid) rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  else if (pid < 0) nz_error("cannot start the compiled program: %s", strerror(errno));
  free(av);
  free(bin);
  return rc;
}

static void usage(FILE *f) {
  fputs("usage: nessie build FILE.lcu|PROG.nesl [-o OUT] [--target=c|cuda] [--scheduler=S] [--profile]\n"
        "                    [--cc=CC] [--cflags=FLAGS] [--keep-c] [--cuda-arch=sm_XX] [--float32]\n"
        "       nessie emit FILE.lcu|PROG.nesl --stage=c|cuda [--scheduler=S] [--profile] [--float32]\n"
        "--float32 (build, emit, run --target=c): λcu's float becomes C's 32-bit float, an\n"
        "experiment that changes results (NESL's float is a double).\n"
        "The binary takes main's arguments like `nessie lcu run` (literals, or --random-inputs\n"
        "[--seed=S] [--max-len=N]); --profile makes it write nessie-profile.csv (or $NESSIE_PROFILE).\n"
        "FLAGS default to -O2 ($NESSIE_CFLAGS); the compiler is cc ($NESSIE_CC).\n"
        "--target=cuda writes OUT.cu and compiles it with nvcc ($NESSIE_NVCC, $NESSIE_NVCCFLAGS,\n"
        "default -O3) where found (the .cu is kept).\n",
        f);
}

/* build: the C (or CUDA) text of p, printed (emit) or compiled to b->out. */
static int build_use(BuildJob *b, LcuProgram *p, const char *report) {
  NzBuf c = {0};
  int flags = (b->profile ? CG_PROFILE : 0) | (b->float32 ? CG_FLOAT32 : 0);
  int rc = b->cuda ? cg_program(p, &cg_target_cuda, report, flags, &c) : drv_gen_c(p, report, flags, &c);
  if (rc == NZ_EXIT_OK) {
    if (b->emit) {
      fputs(c.s, stdout);
    } else {
      char def[4096];
      const char *out = b->out;
      if (!out) { /* FILE without its directory and extension */
        const char *base = strrchr(b->file, '/') ? strrchr(b->file, '/') + 1 : b->file;
        snprintf(def, sizeof def, "%s", base);
        char *dot = strrchr(def, '.');
        if (dot && dot != def) *dot = 0;
        out = def;
      }
      rc = b->cuda ? cg_cuda_compile(c.s, out, &b->co) : cg_compile(c.s, out, &b->o);
    }
  }
  nz_buf_free(&c);
  return rc;
}

/* `nessie build ...` and `nessie emit ... --stage=c` (emit = 1). */
int drv_cmd_build(int argc, char **argv, int emit) {
  BuildJob b = {.emit = emit, .use = build_use};
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
    } else if (!strcmp(a, "--float32")) {
      b.float32 = 1;
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
  static const char *srcs[2];
  srcs[0] = file;
  o.srcs = co.srcs = srcs;
  /* a bad -o is a bad command line, said before any work */
  int orc = !emit && out ? cg_outputs_ok(out, cuda ? ".cu" : o.keep_c ? ".c" : NULL, srcs) : NZ_EXIT_OK;
  if (orc != NZ_EXIT_OK) return orc;
  b.file = file;
  b.out = out;
  b.profile = profile;
  b.cuda = cuda;
  b.co = co;
  b.fo = fo;
  b.o = o;
  return with_program(file, NULL, &b, 0);
}

static int run_use(BuildJob *b, LcuProgram *p, const char *report) {
  return drv_run_compiled(p, report, b->rest, b->nrest, b->wait, b->float32 ? CG_FLOAT32 : 0);
}

/* `nessie run PROG.nesl --target=c [--scheduler=S ...]`: compile (cached) and run; a
 * NESL program's front-end error comes after the output of the forms before it. */
int drv_cmd_run_target(int argc, char **argv) {
  BuildJob b = {.use = run_use, .wait = 1};
  drv_fuse_defaults(&b.fo);
  const char *file = NULL, *expr = NULL;
  int keep_going = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r = drv_fuse_option(&b.fo, a);
    if (r < 0) return NZ_EXIT_USAGE;
    if (r > 0 || !strcmp(a, "--target=c")) continue;
    if (!strcmp(a, "--keep-going")) {
      keep_going = DRV_KEEP_GOING;
      continue;
    }
    if (!strcmp(a, "--float32")) {
      b.float32 = 1;
      continue;
    }
    if (!strcmp(a, "-e") && i + 1 < argc) {
      expr = argv[++i];
      continue;
    }
    if (a[0] == '-' || file) {
      fprintf(stderr, "nessie run --target=c: unexpected argument '%s'\n", a);
      fputs("usage: nessie run PROG.nesl|FILE.lcu --target=c [-e EXPR] [--scheduler=S] [--float32] [--keep-going]\n", stderr);
      return NZ_EXIT_USAGE;
    }
    file = a;
  }
  if (!file) {
    fputs("usage: nessie run PROG.nesl|FILE.lcu --target=c [-e EXPR] [--scheduler=S] [--float32] [--keep-going]\n", stderr);
    return NZ_EXIT_USAGE;
  }
  if (expr && !ends_with(file, ".nesl")) {
    fputs("nessie run --target=c: -e is for NESL programs\n", stderr);
    return NZ_EXIT_USAGE;
  }
  if (keep_going && !ends_with(file, ".nesl")) {
    fputs("nessie run --target=c: --keep-going is for NESL programs\n", stderr);
    return NZ_EXIT_USAGE;
  }
  return with_program(file, expr, &b, DRV_DEFER | keep_going);
}
