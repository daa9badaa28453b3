/* nessie-bench — runs fusion schedulers over λcu programs and generated
 * regions and reports, per region, the DESIGN.md metrics plus solver
 * statistics, as a table, CSV or JSON (column names are stable: scripts and
 * the plots in results/ depend on them). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calibrate.h"
#include "fus_lcu.h"
#include "gen.h"

static const char *usage_text =
    "usage: nessie-bench [OPTIONS] INPUT...\n"
    "Runs fusion schedulers over each INPUT's control regions and reports, per region,\n"
    "kernels/arrays/traversals before and after fusion, the cost model's objective,\n"
    "the scheduler's status and time, and ILP statistics.\n"
    "INPUT: a .lcu file, or a generator spec gen:kernels=40,chain=4,seed=7\n"
    "       (keys: nessie-gen --help), or a .nesl program (its λcu program: every\n"
    "       runnable form, as `nessie emit PROG.nesl --stage=lcu` writes it)\n"
    "  --scheduler=S[,S...]   strategies (listed below)\n"
    "                         (default ilp; every ilp* runs once per --solver)\n"
    "  --solver=glpk|cbc[,..] ILP solver(s) (default glpk)\n"
    "  --time-limit=SEC       per ILP solve (default 10); on expiry the best feasible\n"
    "                         schedule, else the greedy one, and the status says so\n"
    "  --work-limit=N         bound each exact search by counted work instead (nodes per\n"
    "                         ILP solve; ilp-cg: its work units); alone, without\n"
    "                         --time-limit, it turns the time limit off: runs repeat\n"
    "  --strict-float         no fusion that reorders a float reduction\n"
    "  --format=table|csv|json  (default table)\n"
    "  --dot=DIR [--png]      draw every region's clusters (DIR/INPUT-rN-SCHED.dot/.svg)\n"
    "  --dot-scalars          draw input scalars as nodes (default: folded into their users' labels)\n"
    "  --dot-time-limit=SEC   per picture (default 60); past it only the .dot is kept\n"
    "  --dump-ilp=DIR         write every ILP instance as DIR/INPUT-rN-SOLVER.lp\n"
    "  --run                  also run each program unfused and fused (random inputs,\n"
    "                         --seed) and report whether the results agree\n"
    "  --seed=S               random inputs for --run (default 1)\n"
    "  --jobs=N               worker processes (default 1)\n"
    "  --no-header            CSV without its header line (appending to a file)\n"
    "  --cost=unit|FILE       the cost model the schedulers minimise and the objective\n"
    "                         columns report (default unit; FILE from --calibrate)\n"
    "usage: nessie-bench --calibrate [--out=FILE] [--calibrate-sizes=N,N...] [--reps=R]\n"
    "Fits the sized cost model's weights on this machine (generated kernels, unfused,\n"
    "profiled at each size, R interleaved rounds; default sizes 1000,10000,100000,\n"
    "1000000, R = 3) and writes the cost file to FILE (default stdout).\n";

typedef struct {
  const char **schedulers;
  int nsched;
  FusSolver solvers[2];
  int nsolvers;
  double time_limit, dot_limit;
  long long work_limit;
  int time_given, strict_float;
  const char *format;
  const char *dot_dir, *ilp_dir;
  int png, dot_scalars, run, jobs, header;
  long long seed;
  FusCostModel cost;
} Opts;

/* One unit of work: an input with one scheduler (and solver, for ilp). */
typedef struct {
  const char *input;
  const char *sched;
  FusSolver solver;
} Task;

/* Column names: the stable interface of the CSV and JSON formats. */
static const char *columns[] = {"input",          "region",          "function",      "scheduler",
                                "solver",         "invocations",     "kernels_before", "kernels_after",
                                "arrays_before",  "arrays_after",    "traversals_before",
                                "traversals_after", "objective_before", "objective",   "status",
                                "solve_seconds",  "build_seconds",   "variables",     "constraints",
                                "nodes",          "run"};
enum { NCOL = sizeof columns / sizeof columns[0] };

/* Which columns are numbers (unquoted in JSON, right-aligned in tables). */
static int numeric(int c) { return c == 1 || (c >= 5 && c <= 13) || (c >= 15 && c <= 19); }

static const char *solver_name(FusSolver s) { return s == FUS_CBC ? "cbc" : "glpk"; }

/* A file-name-safe rendering of an input. */
static void safe_name(char *out, size_t n, const char *in) {
  const char *b = strrchr(in, '/');
  b = b ? b + 1 : in;
  size_t i = 0;
  for (; *b && i + 1 < n; b++) out[i++] = (isalnum((unsigned char)*b) || *b == '.' || *b == '-') ? *b : '_';
  out[i] = 0;
}

/* The λcu program of a NESL file: `nessie emit FILE --stage=lcu` (the whole file, its
 * forms joined; the nessie next to this binary), or NULL after its message. */
static char *nesl_to_lcu(const char *input) {
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 16);
  if (len <= 0) len = 0;
  self[len] = 0;
  char *slash = strrchr(self, '/');
  if (slash) strcpy(slash + 1, "nessie");
  else strcpy(self, "nessie");
  int fd[2];
  if (pipe(fd) != 0) {
    fprintf(stderr, "nessie-bench: %s: pipe: %s\n", input, strerror(errno));
    return NULL;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "nessie-bench: %s: fork: %s\n", input, strerror(errno));
    close(fd[0]);
    close(fd[1]);
    return NULL;
  }
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    execl(self, self, "emit", input, "--stage=lcu", (char *)NULL);
    fprintf(stderr, "nessie-bench: cannot run %s: %s\n", self, strerror(errno));
    _exit(3);
  }
  close(fd[1]);
  NzBuf b = {0};
  char chunk[65536];
  ssize_t r;
  while ((r = read(fd[0], chunk, sizeof chunk)) != 0) {
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    nz_buf_printf(&b, "%.*s", (int)r, chunk);
  }
  close(fd[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    fprintf(stderr, "nessie-bench: %s: `nessie emit --stage=lcu` failed (its message above)\n", input);
    nz_buf_free(&b);
    return NULL;
  }
  return b.s ? b.s : strdup("");
}

/* Loads an input as a checked program, or prints why not and returns NULL. */
static LcuProgram *load(const char *input, NzSource **src) {
  *src = NULL;
  if (!strncmp(input, "gen:", 4)) {
    GenSpec spec;
    gen_spec_default(&spec);
    char *err = NULL;
    if (gen_spec_parse(input, &spec, &err) != 0) {
      fprintf(stderr, "nessie-bench: %s: %s\n", input, err);
      free(err);
      return NULL;
    }
    LcuProgram *p = gen_region(&spec);
    if (lcu_check(p) != 0) {
      fprintf(stderr, "nessie-bench: %s: the generated program does not check (a generator bug)\n", input);
      lcu_program_free(p);
      return NULL;
    }
    return p;
  }
  size_t n = strlen(input);
  if (n > 5 && !strcmp(input + n - 5, ".nesl")) {
    char *text = nesl_to_lcu(input);
    if (!text) return NULL;
    *src = nz_source_from_string(input, text);
    free(text);
  } else {
    *src = nz_source_read(input);
  }
  if (!*src) return NULL;
  LcuProgram *p = lcu_parse(*src);
  if (p && lcu_check(p) != 0) {
    lcu_program_free(p);
    p = NULL;
  }
  return p;
}

/* Runs main with random inputs; the printed result or the error text. */
static char *run_program(const LcuProgram *p, long long seed) {
  LcuFunc *m = lcu_main(p);
  LcuRng rng = {(uint64_t)seed * 0x9E3779B97F4A7C15ull + 1, 10};
  LcuValue *args = nz_xcalloc((size_t)(m->nparams ? m->nparams : 1), sizeof(LcuValue));
  for (int i = 0; i < m->nparams; i++) args[i] = lcu_value_random(&rng, m->params[i].ty);
  LcuValue res;
  NzBuf b = {0};
  /* Faults print on stderr; compare only whether both fault. */
  if (lcu_run_main(p, m->nparams, args, &res) != 0) {
    nz_buf_puts(&b, "<fault>");
  } else {
    lcu_value_print(&b, res);
    lcu_value_release(res);
  }
  for (int i = 0; i < m->nparams; i++) lcu_value_release(args[i]);
  free(args);
  return b.s ? b.s : nz_xstrdup("");
}

typedef struct {
  char *cell[NCOL];
} Row;

typedef NZ_VEC(Row) Rows;

static void set(Row *r, int c, const char *fmt, ...) NZ_PRINTF(3, 4);
static void set(Row *r, int c, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  free(r->cell[c]);
  r->cell[c] = nz_xmalloc((size_t)n + 1);
  vsnprintf(r->cell[c], (size_t)n + 1, fmt, ap2);
  va_end(ap2);
}

/* Does one task; appends its rows. Returns 0, or -1 after an error message. */
static int do_task(const Opts *o, const Task *t, Rows *rows) {
  NzSource *src;
  LcuProgram *p = load(t->input, &src);
  if (!p) return -1;
  char *before = o->run ? run_program(p, o->seed) : NULL;
  int rc = 0;
  if (fus_lcu_prepare(p) != 0) {
    fprintf(stderr, "nessie-bench: %s: preparing regions failed (a bug)\n", t->input);
    rc = -1;
  }
  FusLcuRegions *rs = rc ? NULL : fus_lcu_regions(p);
  FusNames *names = rc ? NULL : fus_names_new(p);
  char safe[256];
  safe_name(safe, sizeof safe, t->input);
  int is_ilp = !strncmp(t->sched, "ilp", 3); /* ilp and its variants take a solver */
  for (int i = 0; rs && i < rs->n && rc == 0; i++) {
    FusLcuRegion *r = &rs->r[i];
    FusOptions opt;
    fus_options_default(&opt);
    opt.solver = t->solver;
    opt.time_limit = o->work_limit > 0 && !o->time_given ? 0 : o->time_limit;
    opt.work_limit = o->work_limit;
    opt.strict_float = o->strict_float;
    r->graph->strict_float = o->strict_float;
    fus_graph_set_model(r->graph, &o->cost, NULL); /* sizes: the model's default */
    char lp[4096];
    if (o->ilp_dir && is_ilp) {
      snprintf(lp, sizeof lp, "%s/%s-r%d-%s.lp", o->ilp_dir, safe, i, solver_name(t->solver));
      opt.dump_ilp = lp;
    }
    FusSchedule s;
    if (fus_schedule(r->graph, t->sched, &opt, &s) != 0) {
      fprintf(stderr, "nessie-bench: %s: region %d: scheduler %s failed\n", t->input, i, t->sched);
      rc = -1;
      break;
    }
    FusCost cb, ca;
    fus_cost_before(r->graph, &cb);
    fus_cost(r->graph, s.cl, &ca);
    Row row = {0};
    set(&row, 0, "%s", t->input);
    set(&row, 1, "%d", i);
    set(&row, 2, "%s", r->func->name);
    set(&row, 3, "%s", t->sched);
    set(&row, 4, "%s", is_ilp ? solver_name(t->solver) : "-");
    set(&row, 5, "%d", r->ninv);
    set(&row, 6, "%d", cb.kernels);
    set(&row, 7, "%d", ca.kernels);
    set(&row, 8, "%d", cb.arrays);
    set(&row, 9, "%d", ca.arrays);
    set(&row, 10, "%d", cb.traversals);
    set(&row, 11, "%d", ca.traversals);
    set(&row, 12, "%.17g", cb.objective);
    set(&row, 13, "%.17g", ca.objective);
    set(&row, 14, "%s", fus_status_name(s.status));
    set(&row, 15, "%.6f", s.solve_seconds);
    set(&row, 16, "%.6f", is_ilp ? s.build_seconds : 0.0);
    set(&row, 17, "%d", is_ilp ? s.nvars : 0);
    set(&row, 18, "%d", is_ilp ? s.nconstraints : 0);
    set(&row, 19, "%ld", is_ilp ? s.nodes : -1L);
    set(&row, 20, "%s", o->run ? "pending" : "-");
    nz_vec_push(*rows, row);
    if (o->dot_dir) {
      char base[4096], title[1024];
      snprintf(base, sizeof base, "%s/%s-r%d-%s", o->dot_dir, safe, i, t->sched);
      snprintf(title, sizeof title, "%s, region %d (%s), %s%s%s: kernels %d -> %d, arrays %d -> %d", t->input, i,
               r->func->name, t->sched, is_ilp ? "/" : "", is_ilp ? solver_name(t->solver) : "", cb.kernels,
               ca.kernels, cb.arrays, ca.arrays);
      if (fus_dot_write(r->graph, s.cl, title, base, (o->png ? FUS_DOT_PNG : 0) | (o->dot_scalars ? FUS_DOT_SCALARS : 0),
                        o->dot_limit) != 0)
        rc = -1;
    }
    if (o->run && fus_lcu_rewrite(p, names, r, s.cl) != 0) rc = -1;
    fus_schedule_free(&s);
  }
  if (o->run && rc == 0) {
    fus_lcu_drop_unused_kernels(p);
    const char *verdict;
    char *after = NULL;
    if (lcu_check(p) != 0) {
      verdict = "fused-program-fails-check";
    } else {
      after = run_program(p, o->seed);
      verdict = strcmp(before, after) == 0 ? "same" : "DIFFERENT";
    }
    for (int i = 0; i < rows->n; i++)
      if (!strcmp(rows->v[i].cell[20], "pending")) set(&rows->v[i], 20, "%s", verdict);
    free(after);
  }
  free(before);
  fus_lcu_regions_free(rs);
  fus_names_free(names);
  lcu_program_free(p);
  nz_source_free(src);
  return rc;
}

/* ------------------------------------------------------------- output */

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 32)
      fprintf(f, "\\u%04x", *s);
    else
      fputc(*s, f);
  }
  fputc('"', f);
}

static void csv_cell(FILE *f, const char *s) {
  if (strpbrk(s, ",\"\n")) {
    fputc('"', f);
    for (; *s; s++) {
      if (*s == '"') fputc('"', f);
      fputc(*s, f);
    }
    fputc('"', f);
  } else {
    fputs(s, f);
  }
}

static void print_rows(const Opts *o, const Rows *rows) {
  if (!strcmp(o->format, "csv")) {
    if (o->header)
      for (int c = 0; c < NCOL; c++) printf("%s%s", c ? "," : "", columns[c]);
    if (o->header) putchar('\n');
    for (int i = 0; i < rows->n; i++) {
      for (int c = 0; c < NCOL; c++) {
        if (c) putchar(',');
        csv_cell(stdout, rows->v[i].cell[c]);
      }
      putchar('\n');
    }
  } else if (!strcmp(o->format, "json")) {
    printf("[");
    for (int i = 0; i < rows->n; i++) {
      printf("%s\n  {", i ? "," : "");
      for (int c = 0; c < NCOL; c++) {
        printf("%s\"%s\": ", c ? ", " : "", columns[c]);
        if (numeric(c))
          fputs(rows->v[i].cell[c], stdout);
        else
          json_str(stdout, rows->v[i].cell[c]);
      }
      printf("}");
    }
    printf("%s]\n", rows->n ? "\n" : "");
  } else {
    /* table: the columns a person reads, aligned */
    static const int shown[] = {0, 1, 3, 4, 6, 7, 8, 9, 10, 11, 13, 14, 15, 17, 18, 19, 20};
    static const char *head[] = {"input", "region", "scheduler", "solver", "k.before", "k.after", "arr.before",
                                 "arr.after", "trav.before", "trav.after", "objective", "status", "seconds",
                                 "vars", "rows", "nodes", "run"};
    enum { NS = sizeof shown / sizeof shown[0] };
    int w[NS];
    for (int c = 0; c < NS; c++) {
      w[c] = (int)strlen(head[c]);
      for (int i = 0; i < rows->n; i++) {
        int l = (int)strlen(rows->v[i].cell[shown[c]]);
        if (l > w[c]) w[c] = l;
      }
    }
    for (int c = 0; c < NS; c++) printf("%s%-*s", c ? "  " : "", w[c], head[c]);
    putchar('\n');
    for (int i = 0; i < rows->n; i++) {
      for (int c = 0; c < NS; c++) {
        const char *s = rows->v[i].cell[shown[c]];
        if (numeric(shown[c]))
          printf("%s%*s", c ? "  " : "", w[c], s);
        else
          printf("%s%-*s", c ? "  " : "", w[c], s);
      }
      putchar('\n');
    }
  }
  nz_stdout_flush();
}

/* Rows travel from workers to the parent as lines of tab-separated cells. */
static void write_rows(FILE *f, const Rows *rows) {
  for (int i = 0; i < rows->n; i++) {
    for (int c = 0; c < NCOL; c++) {
      if (c) fputc('\t', f);
      for (const char *s = rows->v[i].cell[c]; *s; s++) fputc(*s == '\t' || *s == '\n' ? ' ' : *s, f);
    }
    fputc('\n', f);
  }
}

static void read_rows(FILE *f, Rows *rows) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, f)) > 0) {
    if (line[n - 1] == '\n') line[--n] = 0;
    Row r = {0};
    char *p = line;
    for (int c = 0; c < NCOL; c++) {
      char *tab = c + 1 < NCOL ? strchr(p, '\t') : NULL;
      if (tab) *tab = 0;
      r.cell[c] = nz_xstrdup(p);
      p = tab ? tab + 1 : p + strlen(p);
    }
    nz_vec_push(*rows, r);
  }
  free(line);
}

static void progress(int done, int total) {
  if (!isatty(2) || total <= 1) return;
  int width = 40, fill = total ? done * width / total : width;
  fprintf(stderr, "\r[%.*s%*s] %d/%d", fill, "########################################", width - fill, "", done,
          total);
  if (done == total) fputc('\n', stderr);
  fflush(stderr);
}

/* Runs the tasks on `jobs` worker processes; rows come back in task order. */
static int run_tasks(const Opts *o, const Task *tasks, int ntasks, Rows *rows) {
  int jobs = o->jobs < 1 ? 1 : o->jobs;
  if (jobs > ntasks) jobs = ntasks;
  int errors = 0;
  if (jobs <= 1) {
    for (int t = 0; t < ntasks; t++) {
      if (do_task(o, &tasks[t], rows) != 0) errors++;
      progress(t + 1, ntasks);
    }
    return errors;
  }
  /* Each task's rows go to its own temporary file; a pipe reports progress. */
  char dir[] = "/tmp/nessie-bench-XXXXXX";
  if (!mkdtemp(dir)) {
    fprintf(stderr, "nessie-bench: cannot create a temporary directory: %s\n", strerror(errno));
    return ntasks;
  }
  int pfd[2];
  if (pipe(pfd) != 0) {
    fprintf(stderr, "nessie-bench: pipe: %s\n", strerror(errno));
    return ntasks;
  }
  pid_t *pids = nz_xcalloc((size_t)jobs, sizeof(pid_t));
  nz_stdout_flush();
  fflush(stderr);
  for (int w = 0; w < jobs; w++) {
    pid_t pid = fork();
    if (pid < 0) {
      fprintf(stderr, "nessie-bench: fork: %s\n", strerror(errno));
      jobs = w;
      break;
    }
    if (pid == 0) {
      close(pfd[0]);
      int bad = 0;
      for (int t = w; t < ntasks; t += jobs) {
        Rows mine = {0};
        char path[256];
        snprintf(path, sizeof path, "%s/%d", dir, t);
        int rc = do_task(o, &tasks[t], &mine);
        NzOutFile out; /* complete or absent: the parent counts a missing file as an error */
        FILE *f = nz_out_open(&out, path);
        if (f) {
          write_rows(f, &mine);
          if (nz_out_close(&out) != 0) bad = 1;
        } else {
          bad = 1;
        }
        if (rc) bad = 1;
        for (int i = 0; i < mine.n; i++)
          for (int c = 0; c < NCOL; c++) free(mine.v[i].cell[c]);
        nz_vec_free(mine);
        char one = rc ? 'x' : '.';
        if (write(pfd[1], &one, 1) < 0) bad = 1;
      }
      _exit(bad);
    }
    pids[w] = pid;
  }
  close(pfd[1]);
  char c;
  int done = 0;
  while (read(pfd[0], &c, 1) == 1) progress(++done, ntasks);
  close(pfd[0]);
  for (int w = 0; w < jobs; w++) {
    int st;
    if (waitpid(pids[w], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) errors++;
  }
  free(pids);
  for (int t = 0; t < ntasks; t++) {
    char path[256];
    snprintf(path, sizeof path, "%s/%d", dir, t);
    FILE *f = fopen(path, "r");
    if (f) {
      read_rows(f, rows);
      fclose(f);
      unlink(path);
    } else {
      errors++;
    }
  }
  rmdir(dir);
  return errors;
}

/* ------------------------------------------------------------- main */

static int split_list(char *s, const char ***out) {
  int n = 0;
  const char **v = NULL;
  for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
    v = nz_xrealloc(v, sizeof(char *) * (size_t)(n + 1));
    v[n++] = tok;
  }
  *out = v;
  return n;
}

static int make_dir(const char *d, const char *opt) {
  struct stat st;
  if (stat(d, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
  if (mkdir(d, 0777) == 0) return 0;
  fprintf(stderr, "nessie-bench: %s=%s: cannot create the directory: %s\n", opt, d, strerror(errno));
  return -1;
}

static int bench_main(int argc, char **argv) {
  nz_progname = "nessie-bench";
  nz_output_init();
  Opts o = {0};
  o.format = "table";
  o.time_limit = 10;
  o.dot_limit = FUS_DOT_TIME_LIMIT;
  o.jobs = 1;
  o.header = 1;
  o.seed = 1;
  o.cost = fus_cost_unit;
  int calibrate = 0;
  CalibrateOpts co = {.reps = 5, .default_size = 1000, .sizes = {1000, 10000, 100000, 1000000}, .nsizes = 4};
  char *sched_arg = NULL, *solver_arg = NULL;
  NZ_VEC(const char *) inputs = {0};
  const char **sv = NULL;
  int rc = NZ_EXIT_USAGE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage_text, stdout);
      fus_schedulers_help(stdout);
      rc = NZ_EXIT_OK;
      goto done;
    } else if (!strncmp(a, "--scheduler=", 12)) {
      free(sched_arg);
      sched_arg = nz_xstrdup(a + 12);
    } else if (!strncmp(a, "--solver=", 9)) {
      free(solver_arg);
      solver_arg = nz_xstrdup(a + 9);
    } else if ((r = nz_opt_seconds(a, "--time-limit", NZ_SECONDS_MAX, &o.time_limit)) != 0) {
      if (r < 0) goto done;
      o.time_given = 1;
    } else if ((r = nz_opt_ll(a, "--work-limit", 1, FUS_WORK_LIMIT_MAX, &o.work_limit)) != 0) {
      if (r < 0) goto done;
    } else if (!strcmp(a, "--strict-float")) {
      o.strict_float = 1;
    } else if (!strncmp(a, "--format=", 9)) {
      o.format = a + 9;
      if (strcmp(o.format, "table") && strcmp(o.format, "csv") && strcmp(o.format, "json")) goto bad_value;
    } else if (!strncmp(a, "--dot=", 6)) {
      o.dot_dir = a + 6;
    } else if (!strcmp(a, "--png")) {
      o.png = 1;
    } else if (!strcmp(a, "--dot-scalars")) {
      o.dot_scalars = 1;
    } else if ((r = nz_opt_seconds(a, "--dot-time-limit", NZ_SECONDS_MAX, &o.dot_limit)) != 0) {
      if (r < 0) goto done;
    } else if (!strncmp(a, "--dump-ilp=", 11)) {
      o.ilp_dir = a + 11;
    } else if (!strcmp(a, "--run")) {
      o.run = 1;
    } else if (!strcmp(a, "--no-header")) {
      o.header = 0;
    } else if (!strcmp(a, "--calibrate")) {
      calibrate = 1;
    } else if (!strncmp(a, "--out=", 6) && a[6]) {
      co.out = a + 6;
    } else if ((r = nz_opt_int(a, "--reps", 1, 100, &co.reps)) != 0) {
      if (r < 0) goto done;
    } else if (!strncmp(a, "--calibrate-sizes=", 18)) {
      co.nsizes = 0;
      for (const char *p = a + 18; *p;) {
        char *end;
        errno = 0;
        long long n = strtoll(p, &end, 10);
        if (end == p || errno || n < 1 || n > 100000000 || co.nsizes == 16 || (*end && *end != ',')) goto bad_value;
        co.sizes[co.nsizes++] = n;
        p = *end ? end + 1 : end;
      }
      if (co.nsizes < 2) goto bad_value;
    } else if (!strncmp(a, "--cost=", 7)) {
      if (!strcmp(a + 7, "unit")) o.cost = fus_cost_unit;
      else if (fus_cost_model_load(a + 7, &o.cost) != 0) goto done;
    } else if ((r = nz_opt_ll(a, "--seed", 0, INT64_MAX, &o.seed)) != 0) {
      if (r < 0) goto done;
    } else if ((r = nz_opt_int(a, "--jobs", 1, 256, &o.jobs)) != 0) {
      if (r < 0) goto done;
    } else if (a[0] == '-') {
      fprintf(stderr, "nessie-bench: unknown option '%s' (--help lists them)\n", a);
      goto done;
    } else {
      nz_vec_push(inputs, a);
    }
    continue;
  bad_value:
    fprintf(stderr, "nessie-bench: bad value in '%s' (--help)\n", a);
    goto done;
  }
  if (calibrate) {
    if (inputs.n) {
      fprintf(stderr, "nessie-bench: --calibrate takes no INPUT\n");
      goto done;
    }
    /* The compiler beside this binary (bin/nessie next to bin/nessie-bench). */
    static char nessie[4096];
    ssize_t len = readlink("/proc/self/exe", nessie, sizeof nessie - 16);
    char *slash = len > 0 ? (nessie[len] = 0, strrchr(nessie, '/')) : NULL;
    if (!slash) {
      fprintf(stderr, "nessie-bench: --calibrate: cannot find the nessie compiler beside this program\n");
      goto done;
    }
    strcpy(slash + 1, "nessie");
    co.nessie = nessie;
    rc = calibrate_main(&co);
    goto done;
  }
  if (!sched_arg) sched_arg = nz_xstrdup("ilp");
  o.nsched = split_list(sched_arg, &o.schedulers);
  if (o.nsched == 0) {
    fprintf(stderr, "nessie-bench: --scheduler= names no scheduler\n");
    goto done;
  }
  for (int s = 0; s < o.nsched; s++)
    if (!fus_scheduler_find(o.schedulers[s])) {
      fprintf(stderr, "nessie-bench: unknown scheduler '%s'; one of:", o.schedulers[s]);
      for (const FusScheduler *f = fus_schedulers; f->name; f++) fprintf(stderr, " %s", f->name);
      fputc('\n', stderr);
      goto done;
    }
  if (!solver_arg) solver_arg = nz_xstrdup("glpk");
  int nsv = split_list(solver_arg, &sv);
  if (nsv == 0) {
    fprintf(stderr, "nessie-bench: --solver= names no solver (glpk, cbc)\n");
    goto done;
  }
  for (int s = 0; s < nsv; s++) {
    if (o.nsolvers == 2) goto bad_solver;
    if (!strcmp(sv[s], "glpk"))
      o.solvers[o.nsolvers++] = FUS_GLPK;
    else if (!strcmp(sv[s], "cbc"))
      o.solvers[o.nsolvers++] = FUS_CBC;
    else {
    bad_solver:
      fprintf(stderr, "nessie-bench: unknown solver '%s' (glpk, cbc)\n", sv[s]);
      goto done;
    }
  }
  if (inputs.n == 0) {
    fputs(usage_text, stderr);
    goto done;
  }
  if (o.png && !o.dot_dir) nz_warning("--png does nothing without --dot=DIR");
  int any_ilp = 0;
  for (int s = 0; s < o.nsched; s++) any_ilp |= !strncmp(o.schedulers[s], "ilp", 3);
  if (o.ilp_dir && !any_ilp) nz_warning("--dump-ilp does nothing without an ilp* scheduler");
  if ((o.dot_dir && make_dir(o.dot_dir, "--dot") != 0) || (o.ilp_dir && make_dir(o.ilp_dir, "--dump-ilp") != 0)) {
    rc = NZ_EXIT_USER;
    goto done;
  }
  NZ_VEC(Task) tasks = {0};
  for (int i = 0; i < inputs.n; i++)
    for (int s = 0; s < o.nsched; s++) {
      int is_ilp = !strncmp(o.schedulers[s], "ilp", 3);
      for (int v = 0; v < (is_ilp ? o.nsolvers : 1); v++) {
        Task t = {inputs.v[i], o.schedulers[s], o.solvers[v]};
        nz_vec_push(tasks, t);
      }
    }
  Rows rows = {0};
  int errors = run_tasks(&o, tasks.v, tasks.n, &rows);
  if (rows.n > 0 || strcmp(o.format, "table")) print_rows(&o, &rows);
  for (int i = 0; i < rows.n; i++)
    for (int c = 0; c < NCOL; c++) free(rows.v[i].cell[c]);
  nz_vec_free(rows);
  nz_vec_free(tasks);
  if (errors) fprintf(stderr, "nessie-bench: %d task%s failed\n", errors, errors == 1 ? "" : "s");
  rc = errors ? NZ_EXIT_USER : NZ_EXIT_OK;
done:
  nz_vec_free(inputs);
  free(o.schedulers);
  free(sv);
  free(sched_arg);
  free(solver_arg);
  nz_intern_free_all();
  return nz_stdout_finish(rc); /* a write error on stdout is an error (output.c) */
}

/* On a 1 GB stack: the passes recurse along let chains (stack.c). */
int main(int argc, char **argv) { return nz_main_on_big_stack(bench_main, argc, argv); }
