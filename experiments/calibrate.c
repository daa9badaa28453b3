/* calibrate.c — `nessie-bench --calibrate`: measures this machine's cost-model
 * weights (issue 38; fusion/README.md "Cost models") on code the compiler
 * generates. It writes a λcu program of single-SOAC kernels that read r = 1..3
 * arrays and write w = 0..2 (a REDUCE writes none), builds it unfused with
 * `nessie build --scheduler=none`, runs it at several sizes (repetitions
 * interleaved: every size once per round), reads each kernel's row of the
 * runtime profile (launches, elements, seconds), keeps the least seconds of
 * each kernel and size over the rounds, and fits
 *
 *   seconds = launch * launches + pass * elements + write * written + read * read
 *
 * (written, read: elements times the kernel's arrays written, read) by
 * non-negative least squares (fus_nnls). The cost file goes to --out (default
 * stdout); the fit's quality goes to stderr. */
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calibrate.h"
#include "fusion.h"

enum { MAXR = 3, MAXW = 2, CALLS = 3 };

/* The kernel table: name k_R_W; w = 0 is a REDUCE. */
static void write_program(NzBuf *b) {
  nz_buf_printf(b, "// nessie-bench --calibrate: single-SOAC kernels reading r arrays, writing w\n");
  nz_buf_printf(b, "kernel gen(n : int) -> ([float], [float], [float]) {\n"
                   "  let a = MAP { i => i2f(i %% 1000) * 0.001 } (n)\n"
                   "  let b = MAP { i => i2f(i %% 997) * 0.002 } (n)\n"
                   "  let c = MAP { i => i2f(i %% 991) * 0.003 } (n)\n"
                   "  return a, b, c\n}\n");
  static const char *in[MAXR] = {"a", "b", "c"};
  for (int r = 1; r <= MAXR; r++)
    for (int w = 0; w <= MAXW; w++) {
      NzBuf sum = {0}, use = {0}, params = {0};
      for (int k = 0; k < r; k++) {
        nz_buf_printf(&sum, "%s%s[i]", k ? " + " : "", in[k]);
        nz_buf_printf(&use, "%s%s", k ? ", " : "", in[k]);
        nz_buf_printf(&params, "%s%s : [float]", k ? ", " : "", in[k]);
      }
      if (w == 0) {
        nz_buf_printf(b, "kernel k_%d_0(%s) -> float {\n  let s = REDUCE { i => %s using %s } (fadd) (#a)\n  return s\n}\n", r,
                      params.s, sum.s, use.s);
      } else {
        nz_buf_printf(b, "kernel k_%d_%d(%s) -> (%s) {\n  let %s = MAP { i => (", r, w, params.s,
                      w == 1 ? "[float]" : "[float], [float]", w == 1 ? "o1" : "o1, o2");
        for (int o = 0; o < w; o++) nz_buf_printf(b, "%s(%s) * %d.5", o ? ", " : "", sum.s, o + 1);
        nz_buf_printf(b, ") using %s } (#a)\n  return %s\n}\n", use.s, w == 1 ? "o1" : "o1, o2");
      }
      nz_buf_free(&sum), nz_buf_free(&use), nz_buf_free(&params);
    }
  /* main: every kernel CALLS times; each array result is read by one checksum
   * REDUCE (k_1_0), so nothing is dead. */
  nz_buf_printf(b, "function main(n : int) -> float {\n  let (a, b, c) = run gen(n) in\n");
  int t = 0;
  for (int call = 0; call < CALLS; call++)
    for (int r = 1; r <= MAXR; r++)
      for (int w = 0; w <= MAXW; w++, t++) {
        const char *args = r == 1 ? "a" : r == 2 ? "a, b" : "a, b, c";
        if (w == 0) nz_buf_printf(b, "  let s%d = run k_%d_0(%s) in\n", t, r, args);
        else if (w == 1) nz_buf_printf(b, "  let o%d = run k_%d_1(%s) in\n  let s%d = run k_1_0(o%d) in\n", t, r, args, t, t);
        else
          nz_buf_printf(b, "  let (o%d, p%d) = run k_%d_2(%s) in\n  let s%d = run k_1_0(o%d) in\n  let q%d = run k_1_0(p%d) in\n", t, t, r,
                        args, t, t, t, t);
      }
  nz_buf_printf(b, "  ");
  for (int k = 0; k < t; k++) nz_buf_printf(b, k % (MAXW + 1) == MAXW ? "%ss%d + q%d" : "%ss%d", k ? " + " : "", k, k);
  nz_buf_printf(b, "\n}\n");
}

static int run_cmd(char *const argv[], const char *env_profile, const char *out_path) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (env_profile) setenv("NESSIE_PROFILE", env_profile, 1);
    if (out_path) {
      FILE *f = freopen(out_path, "w", stdout);
      if (!f) _exit(127);
    }
    execv(argv[0], argv);
    fprintf(stderr, "nessie-bench: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int st;
  if (waitpid(pid, &st, 0) < 0) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

typedef struct {
  int r, w;
  double launches, elems, written, read, seconds;
} Row;
typedef NZ_VEC(Row) Rows;

/* Appends the profile's kernel rows (k_R_W only) to rows. */
static int read_profile(const char *path, Rows *rows) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    FusProfileRow row;
    int r, w;
    if (fus_profile_row(line, &row) != 1 || sscanf(row.kernel, "k_%d_%d", &r, &w) != 2) continue;
    Row x = {r, w, row.launches, row.elements, row.elements * w, row.elements * r, row.seconds};
    nz_vec_push(*rows, x);
  }
  fclose(f);
  return 0;
}

int calibrate_main(const CalibrateOpts *o) {
  char dir[] = "/tmp/nessie-calibrate-XXXXXX";
  if (!mkdtemp(dir)) {
    fprintf(stderr, "nessie-bench: --calibrate: cannot create a temporary directory: %s\n", strerror(errno));
    return NZ_EXIT_USER;
  }
  char src[64], exe[64], prof[64], out[64];
  snprintf(src, sizeof src, "%s/cal.lcu", dir);
  snprintf(exe, sizeof exe, "%s/cal", dir);
  snprintf(prof, sizeof prof, "%s/profile.csv", dir);
  snprintf(out, sizeof out, "%s/out.txt", dir);
  int rc = NZ_EXIT_USER;
  Rows rows = {0};
  NzBuf prog = {0};
  write_program(&prog);
  FILE *f = fopen(src, "w");
  if (!f || fputs(prog.s, f) == EOF || fclose(f) != 0) {
    fprintf(stderr, "nessie-bench: --calibrate: cannot write %s\n", src);
    goto done;
  }
  char *build[] = {(char *)o->nessie, "build", src, "-o", exe, "--scheduler=none", NULL};
  if (run_cmd(build, NULL, NULL) != 0) {
    fprintf(stderr, "nessie-bench: --calibrate: `%s build %s` failed\n", o->nessie, src);
    goto done;
  }
  for (int rep = 0; rep < o->reps; rep++)
    for (int s = 0; s < o->nsizes; s++) {
      char n[32];
      snprintf(n, sizeof n, "%lld", o->sizes[s]);
      char *runv[] = {exe, n, NULL};
      unlink(prof);
      if (run_cmd(runv, prof, out) != 0 || read_profile(prof, &rows) != 0) {
        fprintf(stderr, "nessie-bench: --calibrate: the calibration program failed at n = %s\n", n);
        goto done;
      }
    }
  /* One row per kernel and size: the least seconds over the rounds. Another
   * process on the machine only ever adds time, so the minimum is the
   * measurement least disturbed by it (a fit on every round's row, at load
   * 1-2, had a median relative error of 36 %). */
  int m = 0;
  for (int i = 0; i < (int)rows.n; i++) {
    const Row *x = &rows.v[i];
    int k = 0;
    while (k < m && !(rows.v[k].r == x->r && rows.v[k].w == x->w && rows.v[k].launches == x->launches &&
                      rows.v[k].elems == x->elems))
      k++;
    if (k == m) rows.v[m++] = *x;
    else if (x->seconds < rows.v[k].seconds) rows.v[k].seconds = x->seconds;
  }
  double *A = nz_xmalloc(sizeof(double) * 4 * (size_t)(m ? m : 1)), *y = nz_xmalloc(sizeof(double) * (size_t)(m ? m : 1));
  for (int i = 0; i < m; i++) {
    const Row *x = &rows.v[i];
    /* Rows weighed by 1/seconds: relative error, so that the small sizes
     * (where launches show) count as much as the big ones. */
    double wt = 1 / fmax(x->seconds, 1e-7);
    A[i * 4 + 0] = x->launches * wt, A[i * 4 + 1] = x->elems * wt, A[i * 4 + 2] = x->written * wt,
              A[i * 4 + 3] = x->read * wt;
    y[i] = x->seconds * wt;
  }
  double c[4];
  if (fus_nnls(m, 4, A, y, c) != 0) {
    fprintf(stderr, "nessie-bench: --calibrate: the fit is degenerate (%d rows)\n", m);
    free(A), free(y);
    goto done;
  }
  /* Quality: the median relative error of the fitted times. */
  double *rel = nz_xmalloc(sizeof(double) * (size_t)(m ? m : 1));
  for (int i = 0; i < m; i++) {
    const Row *x = &rows.v[i];
    double fit = c[0] * x->launches + c[1] * x->elems + c[2] * x->written + c[3] * x->read;
    rel[i] = fabs(fit - x->seconds) / fmax(x->seconds, 1e-9);
  }
  for (int i = 1; i < m; i++)
    for (int j = i; j > 0 && rel[j] < rel[j - 1]; j--) {
      double t = rel[j];
      rel[j] = rel[j - 1], rel[j - 1] = t;
    }
  fprintf(stderr, "nessie-bench: --calibrate: %d kernel rows (%d sizes, the least of %d rounds); median relative error "
                  "%.1f %%, 90th percentile %.1f %%\n",
          m, o->nsizes, o->reps, 100 * rel[m / 2], 100 * rel[(m * 9) / 10]);
  free(rel), free(A), free(y);
  FusCostModel cm = {.launch = c[0], .pass = c[1], .write = c[2], .read = c[3], .default_size = o->default_size};
  char host[256] = "this machine";
  gethostname(host, sizeof host - 1);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const char *threads = getenv("OMP_NUM_THREADS");
  char comment[512];
  snprintf(comment, sizeof comment,
           "fitted by nessie-bench --calibrate on %s (%ld cores, OMP_NUM_THREADS=%s), %d kernel rows", host, cores,
           threads ? threads : "unset", m);
  NzBuf text = {0};
  fus_cost_model_print(&text, &cm, comment);
  FILE *dst = o->out ? fopen(o->out, "w") : stdout;
  if (!dst || fputs(text.s, dst) == EOF || (o->out && fclose(dst) != 0)) {
    fprintf(stderr, "nessie-bench: --calibrate: cannot write %s\n", o->out ? o->out : "stdout");
    nz_buf_free(&text);
    goto done;
  }
  if (!o->out && fflush(stdout) != 0) goto done;
  nz_buf_free(&text);
  rc = NZ_EXIT_OK;
done:
  unlink(src), unlink(exe), unlink(prof), unlink(out);
  rmdir(dir);
  nz_buf_free(&prog);
  nz_vec_free(rows);
  return rc;
}
