/* ilp_cbc.c — loads a FusIlp into COIN-OR CBC through its C interface
 * (coin/Cbc_C_Interface.h) and solves it under a time limit, in a child
 * process: CBC 2.10.8 segfaults inside Cgl on some of our instances, and a
 * crash must cost the schedule of one region, not the compiler. */
#include "fusion.h"

#include <coin/Cbc_C_Interface.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static int solve(const FusIlp *m, double time_limit, const double *start, double *x, FusIlpResult *r) {
  memset(r, 0, sizeof *r);
  if (m->ncols == 0) {
    r->has_solution = r->optimal = 1;
    return 0;
  }
  /* One Cbc_loadProblem of the column-major matrix: adding rows one by one
   * through Cbc_addRow is quadratic (10 s for 19k rows). */
  int nc = m->ncols, nr = m->nrows;
  int *colstart = nz_xcalloc((size_t)nc + 1, sizeof(int));
  int *index = nz_xmalloc(sizeof(int) * (size_t)(m->nnz ? m->nnz : 1));
  double *value = nz_xmalloc(sizeof(double) * (size_t)(m->nnz ? m->nnz : 1));
  double *rlo = nz_xmalloc(sizeof(double) * (size_t)(nr ? nr : 1));
  double *rhi = nz_xmalloc(sizeof(double) * (size_t)(nr ? nr : 1));
  for (int e = 0; e < m->nnz; e++) colstart[m->idx[e] + 1]++;
  for (int j = 0; j < nc; j++) colstart[j + 1] += colstart[j];
  int *fill = nz_xmalloc(sizeof(int) * (size_t)nc);
  for (int j = 0; j < nc; j++) fill[j] = colstart[j];
  for (int rr = 0; rr < nr; rr++) {
    for (int e = m->rowstart[rr]; e < m->rowstart[rr + 1]; e++) {
      int k = fill[m->idx[e]]++;
      index[k] = rr;
      value[k] = m->val[e];
    }
    rlo[rr] = m->sense[rr] == 'L' ? -DBL_MAX : m->rhs[rr];
    rhi[rr] = m->sense[rr] == 'G' ? DBL_MAX : m->rhs[rr];
  }
  Cbc_Model *model = Cbc_newModel();
  Cbc_setProblemName(model, "fusion");
  Cbc_loadProblem(model, nc, nr, colstart, index, value, m->lb, m->ub, m->obj, rlo, rhi);
  for (int j = 0; j < nc; j++)
    if (m->isint[j]) Cbc_setInteger(model, j);
  free(colstart);
  free(index);
  free(value);
  free(rlo);
  free(rhi);
  free(fill);
  Cbc_setLogLevel(model, 0);
  Cbc_setParameter(model, "log", "0");
  Cbc_setParameter(model, "slog", "0");
  Cbc_setObjSense(model, 1);
  /* Every variable is integer and every weight an integer, so the objective is
   * integral: a gap below 1 already proves optimality. */
  Cbc_setAllowableGap(model, 0.5);
  /* On tiny instances CBC's setup of preprocessing, cut generators and
   * heuristics costs more than the search (3x on 8-invocation regions). */
  if (nc < 200) {
    Cbc_setParameter(model, "preprocess", "off");
    Cbc_setParameter(model, "cuts", "off");
    Cbc_setParameter(model, "heuristics", "off");
  } else if (time_limit > 0 || m->node_limit > 0) {
    /* CBC 2.10.8 crashes now and then (a segfault in libCgl; seen in
     * CglPreProcess::postProcess) in solves with preprocessing under a time
     * limit, whatever the model's size, most often when the limit is short. Measured on 80-100-invocation
     * regions: with limits of 0.3-1 s, 4 crashes in 48 runs of ilp, ilp-lazy,
     * ilp-decomp and ilp-cg, none in 96 without preprocessing; ilp-decomp on
     * gen:kernels=80,chain=2,seed=1 under a 4 s limit, 2 in 10 runs, none in
     * 10 without. So no preprocessing under a limit. It was worth 2-3x on
     * some 40-80-invocation models and cost as much on others. Under a work
     * (node) limit neither: a limit of a few nodes should not wait for the
     * preprocessing of a large model. */
    Cbc_setParameter(model, "preprocess", "off");
  }
  if (m->no_cuts) Cbc_setParameter(model, "cuts", "off");
  if (time_limit > 0) {
    /* Both: the C interface's own field, and the option CbcMain reads. */
    char sec[32];
    snprintf(sec, sizeof sec, "%g", time_limit);
    Cbc_setMaximumSeconds(model, time_limit);
    Cbc_setParameter(model, "timeMode", "elapsed"); /* wall clock, not CPU time */
    Cbc_setParameter(model, "sec", sec);
  }
  if (m->node_limit > 0) Cbc_setMaximumNodes(model, m->node_limit > INT_MAX ? INT_MAX : (int)m->node_limit);
  int *all = NULL;
  if (start) {
    all = nz_xmalloc(sizeof(int) * (size_t)nc);
    for (int j = 0; j < nc; j++) all[j] = j;
    Cbc_setMIPStartI(model, nc, all, start);
  }
  Cbc_solve(model);
  free(all);
  r->optimal = Cbc_isProvenOptimal(model);
  r->timed_out = Cbc_isSecondsLimitReached(model) || Cbc_isNodeLimitReached(model);
  const double *best = Cbc_bestSolution(model);
  r->has_solution = best != NULL;
  r->nodes = Cbc_getNodeCount(model);
  if (best) {
    r->objective = Cbc_getObjValue(model);
    memcpy(x, best, sizeof(double) * (size_t)m->ncols);
  }
  Cbc_deleteModel(model);
  return 0;
}

/* Everything the child reports: the result, then ncols doubles. */
static int write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t k = write(fd, p, len);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k, len -= (size_t)k;
  }
  return 0;
}

static int read_all(int fd, void *buf, size_t len) {
  char *p = buf;
  while (len > 0) {
    ssize_t k = read(fd, p, len);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k, len -= (size_t)k;
  }
  return 0;
}

int fus_ilp_solve_cbc(const FusIlp *m, double time_limit, const double *start, double *x, FusIlpResult *r) {
  memset(r, 0, sizeof *r);
  if (getenv("NESSIE_CBC_INPROCESS")) return solve(m, time_limit, start, x, r); /* for debuggers */
  int fd[2];
  if (pipe(fd) != 0) nz_die("pipe: %s", strerror(errno));
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) nz_die("fork: %s", strerror(errno));
  if (pid == 0) {
    close(fd[0]);
    if (getenv("NESSIE_TEST_CBC_CRASH")) { /* tests/sh/cbc_crash.sh; past any sanitizer handler */
      signal(SIGSEGV, SIG_DFL);
      raise(SIGSEGV);
    }
    FusIlpResult cr;
    double *cx = nz_xcalloc((size_t)m->ncols + 1, sizeof(double));
    solve(m, time_limit, start, cx, &cr);
    int bad = write_all(fd[1], &cr, sizeof cr) || write_all(fd[1], cx, sizeof(double) * (size_t)m->ncols);
    _exit(bad ? 1 : 0); /* no atexit handlers: the parent owns them */
  }
  close(fd[1]);
  /* CBC looks at its clock only between phases (its root LP alone took 2-6 s
   * on a 120-invocation instance with a 1 ms limit), so the child gets the
   * limit plus a grace period and is then killed: the solve gives no
   * solution, as on any time-out without one. */
  int killed = 0;
  if (time_limit > 0) {
    /* Half a second or a tenth of the limit, whichever is more, but never
     * more than the limit itself: a 0.1 s limit ends by 0.2 s. */
    double grace = time_limit * 0.1 < 0.5 ? 0.5 : time_limit * 0.1;
    if (grace > time_limit) grace = time_limit;
    double ms = (time_limit + grace) * 1000;
    struct pollfd p = {fd[0], POLLIN, 0};
    int k;
    while ((k = poll(&p, 1, ms > 2e9 ? 2000000000 : (int)ms)) < 0 && errno == EINTR) {
    }
    if (k == 0) {
      kill(pid, SIGKILL);
      killed = 1;
    }
  }
  FusIlpResult cr;
  int got = !killed && read_all(fd[0], &cr, sizeof cr) == 0 &&
            read_all(fd[0], x, sizeof(double) * (size_t)m->ncols) == 0;
  close(fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    *r = cr;
    return 0;
  }
  r->nodes = -1;
  if (killed) {
    r->timed_out = 1;
    return 0;
  }
  /* No solution from this solve; the caller falls back as on a time-out. */
  r->crashed = 1;
  if (WIFSIGNALED(status))
    nz_warning("CBC crashed (signal %d) on a %d-column instance; this solve gives no schedule", WTERMSIG(status),
               m->ncols);
  else
    nz_warning("CBC failed (status %d) on a %d-column instance; this solve gives no schedule", status, m->ncols);
  return 0;
}
