/* fuse.c — the fusion pipeline as the driver runs it (`nessie lcu fuse`,
 * `nessie lcu run --scheduler=S`): prepare regions, schedule each with the
 * chosen strategy, report the DESIGN.md metrics, draw, rewrite, re-check. */
#include <errno.h>
#include <sys/stat.h>

#include "driver.h"
#include "fus_lcu.h"

void drv_fuse_defaults(DrvFuse *o) {
  memset(o, 0, sizeof *o);
  o->scheduler = "none";
  o->dot_limit = FUS_DOT_TIME_LIMIT;
  o->cost = fus_cost_unit;
  fus_options_default(&o->opt);
}

/* Parses one fusion option; 1 if it was one, 0 if not ours, -1 if malformed
 * (message printed). */
int drv_fuse_option(DrvFuse *o, const char *a) {
  if (!strncmp(a, "--scheduler=", 12)) {
    o->scheduler = a + 12;
    o->scheduler_given = 1;
    if (!fus_scheduler_find(o->scheduler)) {
      fprintf(stderr, "nessie: unknown scheduler '%s'; one of:", o->scheduler);
      for (const FusScheduler *s = fus_schedulers; s->name; s++) fprintf(stderr, " %s", s->name);
      fputc('\n', stderr);
      return -1;
    }
    return 1;
  }
  if (!strncmp(a, "--solver=", 9)) {
    if (!strcmp(a + 9, "glpk"))
      o->opt.solver = FUS_GLPK;
    else if (!strcmp(a + 9, "cbc"))
      o->opt.solver = FUS_CBC;
    else {
      fprintf(stderr, "nessie: unknown solver '%s' (glpk or cbc)\n", a + 9);
      return -1;
    }
    return 1;
  }
  int r;
  if ((r = nz_opt_seconds(a, "--time-limit", NZ_SECONDS_MAX, &o->opt.time_limit)) != 0) {
    o->time_given = 1;
    return r;
  }
  long long work;
  if ((r = nz_opt_ll(a, "--work-limit", 1, FUS_WORK_LIMIT_MAX, &work)) != 0) {
    if (r > 0) o->opt.work_limit = work;
    return r;
  }
  if ((r = nz_opt_seconds(a, "--dot-time-limit", NZ_SECONDS_MAX, &o->dot_limit)) != 0) return r;
  if (!strncmp(a, "--dot=", 6)) {
    o->dot_dir = a + 6;
    return 1;
  }
  if (!strcmp(a, "--png")) {
    o->png = 1;
    return 1;
  }
  if (!strcmp(a, "--dot-scalars")) {
    o->dot_scalars = 1;
    return 1;
  }
  if (!strcmp(a, "--strict-float")) {
    o->opt.strict_float = 1;
    return 1;
  }
  if (!strncmp(a, "--cost=", 7)) {
    if (!strcmp(a + 7, "unit")) {
      o->cost = fus_cost_unit;
      return 1;
    }
    return fus_cost_model_load(a + 7, &o->cost) == 0 ? 1 : -1;
  }
  if ((r = nz_opt_ll(a, "--partition-seed", 0, INT64_MAX, &work)) != 0) {
    if (r > 0) o->opt.seed = (unsigned long long)work;
    return r;
  }
  if (!strcmp(a, "--show-spaces")) {
    o->show_spaces = 1;
    return 1;
  }
  if (!strncmp(a, "--report-cost=", 14)) {
    if (fus_cost_model_load(a + 14, &o->report_cost) != 0) return -1;
    o->report_set = !o->report_cost.unit;
    return 1;
  }
  if (!strncmp(a, "--sizes=", 8)) {
    o->sizes_path = a + 8;
    return 1;
  }
  if (!strncmp(a, "--dump-ilp=", 11)) {
    o->opt.dump_ilp = a + 11;
    return 1;
  }
  return 0;
}

static int ensure_dir(const char *dir) {
  struct stat st;
  if (stat(dir, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return 0;
    nz_error("--dot=%s: not a directory", dir);
    return -1;
  }
  if (mkdir(dir, 0777) != 0) {
    nz_error("--dot=%s: cannot create the directory", dir);
    return -1;
  }
  return 0;
}

/* Elements per launch of each kernel in a runtime profile (runtime/README.md,
 * DESIGN.md's columns): a kernel's row gives elements / (launches * soacs)
 * to each invocation its `cluster` column lists (exact for an unfused
 * profile, one invocation per kernel; an average for a fused one), and its
 * launches, how often the invocation ran (its region's runs). */
typedef struct {
  int n, cap;
  const char **name;
  double *elems, *launches;
} Sizes;

static int sizes_load(const char *path, Sizes *S) {
  FILE *f = fopen(path, "r");
  if (!f) {
    nz_error("--sizes=%s: cannot read it: %s", path, strerror(errno));
    return -1;
  }
  char line[8192];
  int lineno = 0, header = 0;
  while (fgets(line, sizeof line, f)) {
    FusProfileRow row;
    int k = fus_profile_row(line, &row);
    if (++lineno == 1 && k != 0) {
      fclose(f);
      nz_error("%s:1:1: not a nessie profile (its header is program,backend,device,kernel,cluster,soacs,"
               "launches,elements,...)", path);
      return -1;
    }
    header = 1;
    if (k < 0) {
      fclose(f);
      nz_error("%s:%d:1: not a profile row (10 columns, the last five numbers)", path, lineno);
      return -1;
    }
    if (k == 0 || row.launches <= 0) continue;
    double soacs = row.soacs < 1 ? 1 : row.soacs, launches = row.launches, elems = row.elements;
    for (char *save = NULL, *w = strtok_r(row.cluster, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
      if (S->n == S->cap) {
        S->cap = S->cap ? 2 * S->cap : 64;
        S->name = nz_xrealloc(S->name, sizeof(char *) * (size_t)S->cap);
        S->elems = nz_xrealloc(S->elems, sizeof(double) * (size_t)S->cap);
        S->launches = nz_xrealloc(S->launches, sizeof(double) * (size_t)S->cap);
      }
      S->name[S->n] = nz_xstrdup(w);
      S->launches[S->n] = launches;
      S->elems[S->n++] = elems / (launches * soacs);
    }
  }
  fclose(f);
  if (!header) {
    nz_error("%s: empty (not a nessie profile)", path);
    return -1;
  }
  return 0;
}

static void sizes_free(Sizes *S) {
  for (int i = 0; i < S->n; i++) free((void *)S->name[i]);
  free(S->name);
  free(S->elems);
  free(S->launches);
}

/* The graph's elements per invocation from the profile (-1: not in it), and
 * in *runs how often the region ran: the most launches of its invocations
 * (all run together in straight-line code; 1 if none is in the profile). */
static double *sizes_for(const Sizes *S, const FusGraph *g, double *runs) {
  double *e = nz_xmalloc(sizeof(double) * (size_t)(g->ninv ? g->ninv : 1));
  *runs = 1;
  for (int i = 0; i < g->ninv; i++) {
    e[i] = -1;
    for (int k = 0; k < S->n && e[i] < 0; k++)
      if (!strcmp(S->name[k], g->inv[i].name)) {
        e[i] = S->elems[k];
        if (S->launches[k] > *runs) *runs = S->launches[k];
      }
  }
  return e;
}

int drv_fuse(LcuProgram *p, DrvFuse *o, NzBuf *report) {
  /* A work limit alone replaces the default time limit: the search is then
   * bounded by work only, and repeats on any machine. */
  if (o->opt.work_limit > 0 && !o->time_given) o->opt.time_limit = 0;
  if (o->png && !o->dot_dir) nz_warning("--png does nothing without --dot=DIR");
  if (fus_lcu_prepare(p) != 0) {
    nz_error("fusion: the program does not check after preparing its regions (a bug)");
    return NZ_EXIT_INTERNAL;
  }
  if (o->dot_dir && ensure_dir(o->dot_dir) != 0) return NZ_EXIT_USER;
  Sizes sizes = {0};
  if (o->sizes_path && o->cost.unit && !o->report_set)
    nz_warning("--sizes does nothing under the unit cost model (--cost=FILE or --report-cost=FILE)");
  if (o->sizes_path && sizes_load(o->sizes_path, &sizes) != 0) {
    sizes_free(&sizes);
    return NZ_EXIT_USER;
  }
  if (report && !o->cost.unit) {
    NzBuf m = {0};
    fus_cost_model_print(&m, &o->cost, NULL);
    for (char *l = m.s, *e; l && *l; l = e + 1) {
      e = strchr(l, '\n');
      nz_buf_printf(report, "// cost %.*s\n", (int)(e - l), l);
    }
    nz_buf_free(&m);
  }
  FusLcuRegions *rs = fus_lcu_regions(p);
  FusNames *names = fus_names_new(p);
  int rc = NZ_EXIT_OK;
  FusCost tb = {0}, ta = {0};
  for (int i = 0; i < rs->n && rc == NZ_EXIT_OK; i++) {
    FusLcuRegion *r = &rs->r[i];
    r->graph->strict_float = o->opt.strict_float;
    double runs = 1;
    double *elems = o->sizes_path ? sizes_for(&sizes, r->graph, &runs) : NULL;
    fus_graph_set_model(r->graph, &o->cost, elems);
    FusSchedule s;
    if (fus_schedule(r->graph, o->scheduler, &o->opt, &s) != 0) {
      free(elems);
      rc = NZ_EXIT_USER;
      break;
    }
    fus_graph_set_runs(r->graph, runs); /* after scheduling: it scales the sized objective only */
    FusCost before, after;
    fus_cost_before(r->graph, &before);
    fus_cost(r->graph, s.cl, &after);
    tb.kernels += before.kernels, tb.arrays += before.arrays, tb.traversals += before.traversals;
    ta.kernels += after.kernels, ta.arrays += after.arrays, ta.traversals += after.traversals;
    if (report) {
      nz_buf_printf(report,
                    "// region %d in %s: scheduler=%s status=%s kernels %d -> %d, arrays %d -> %d, "
                    "traversals %d -> %d, objective %g -> %g, solve %.6f s\n",
                    i, r->func->name, o->scheduler, fus_status_name(s.status), before.kernels, after.kernels,
                    before.arrays, after.arrays, before.traversals, after.traversals, before.objective,
                    after.objective, s.solve_seconds);
      if (runs > 1) nz_buf_printf(report, "//   runs %g (the profile's launches; sized objectives are per program run)\n", runs);
      if (!o->cost.unit) { /* the paper's objective of the same partition, for comparison */
        FusCost ub, ua;
        const FusCostModel *m = r->graph->model;
        r->graph->model = NULL;
        fus_cost_before(r->graph, &ub);
        fus_cost(r->graph, s.cl, &ua);
        r->graph->model = m;
        nz_buf_printf(report, "//   unit objective %g -> %g\n", ub.objective, ua.objective);
      }
      if (o->report_set) { /* the same partition priced by another sized model */
        FusCost rb, ra;
        fus_graph_set_model(r->graph, &o->report_cost, elems);
        fus_cost_before(r->graph, &rb);
        fus_cost(r->graph, s.cl, &ra);
        fus_graph_set_model(r->graph, &o->cost, elems);
        nz_buf_printf(report, "//   sized objective %g -> %g\n", rb.objective, ra.objective);
      }
      if (o->show_spaces && r->graph->space_expr)
        for (int j = 0; j < r->graph->ninv; j++) {
          nz_buf_printf(report, "//   space %s: %s", r->graph->inv[j].name, r->graph->space_expr[j]);
          if (r->graph->inv_size) nz_buf_printf(report, " (cost model: %g)", r->graph->inv_size[j]);
          nz_buf_printf(report, "\n");
        }
      NzBuf part = {0};
      fus_partition_print(&part, r->graph, s.cl);
      nz_buf_printf(report, "//   clusters: %s\n", part.s ? part.s : "");
      nz_buf_free(&part);
    }
    if (o->dot_dir) {
      char base[4096], title[512];
      snprintf(base, sizeof base, "%s/region%d", o->dot_dir, i);
      snprintf(title, sizeof title, "region %d of %s, scheduler %s", i, r->func->name, o->scheduler);
      int df = (o->png ? FUS_DOT_PNG : 0) | (o->dot_scalars ? FUS_DOT_SCALARS : 0);
      if (fus_dot_write(r->graph, s.cl, title, base, df, o->dot_limit) != 0) rc = NZ_EXIT_USER;
    }
    if (rc == NZ_EXIT_OK && fus_lcu_rewrite(p, names, r, s.cl) != 0) rc = NZ_EXIT_INTERNAL;
    fus_schedule_free(&s);
    free(elems);
  }
  if (report)
    nz_buf_printf(report, "// total: %d regions, kernels %d -> %d, arrays %d -> %d, traversals %d -> %d\n", rs->n,
                  tb.kernels, ta.kernels, tb.arrays, ta.arrays, tb.traversals, ta.traversals);
  fus_lcu_regions_free(rs);
  sizes_free(&sizes);
  fus_names_free(names);
  if (o->opt.dump_ilp && rc == NZ_EXIT_OK && o->opt.dump_seq == 0)
    nz_warning("--dump-ilp=%s does nothing here: scheduler %s built no ILP instance", o->opt.dump_ilp, o->scheduler);
  if (rc != NZ_EXIT_OK) return rc;
  fus_lcu_unsplit_flat_reduces(p);
  fus_lcu_drop_unused_kernels(p);
  if (lcu_check(p) != 0) {
    NzBuf b = {0};
    lcu_print_program(&b, p);
    fprintf(stderr, "%s", b.s ? b.s : "");
    nz_buf_free(&b);
    nz_error("fusion produced a program that fails the λcu checker (a bug; program above)");
    return NZ_EXIT_INTERNAL;
  }
  return NZ_EXIT_OK;
}
