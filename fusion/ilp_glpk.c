/* ilp_glpk.c — loads a FusIlp into GLPK (glpk.h), solves it with glp_intopt
 * under a time limit, and writes instances in CPLEX LP format (glp_write_lp).
 * Lazy rows start outside the LP and enter it through the branch-and-cut
 * callback (GLP_IROWGEN) when a relaxation violates them; the model's
 * separation hook is asked there about integral relaxation solutions. */
#include "fusion.h"

#include <unistd.h>

#include <glpk.h>
#include <math.h>

/* Row r into GLPK row i (1-based); ind/val have room for the row. */
static void set_row(glp_prob *lp, int i, const FusIlp *m, int r, int *ind, double *val, int names) {
  if (names) glp_set_row_name(lp, i, m->rowname[r]);
  int type = m->sense[r] == 'L' ? GLP_UP : m->sense[r] == 'G' ? GLP_LO : GLP_FX;
  glp_set_row_bnds(lp, i, type, m->rhs[r], m->rhs[r]);
  int nz = 0;
  for (int e = m->rowstart[r]; e < m->rowstart[r + 1]; e++) {
    ind[nz + 1] = m->idx[e] + 1; /* GLPK arrays are 1-based */
    val[nz + 1] = m->val[e];
    nz++;
  }
  glp_set_mat_row(lp, i, nz, ind, val);
}

/* GLPK problems of this thread alive elsewhere (ilp-cg's master LP): the
 * environment, which holds them, may be freed only when there are none. */
static _Thread_local int held;
void fus_glpk_hold(void) { held++; }
void fus_glpk_release(void) {
  if (--held == 0) glp_free_env();
}

/* with_lazy = 0 leaves the lazy rows out. */
static glp_prob *load(const FusIlp *m, int with_lazy) {
  glp_prob *lp = glp_create_prob();
  glp_set_prob_name(lp, "fusion");
  glp_set_obj_name(lp, "cost");
  glp_set_obj_dir(lp, GLP_MIN);
  if (m->ncols) glp_add_cols(lp, m->ncols);
  for (int j = 0; j < m->ncols; j++) {
    glp_set_col_name(lp, j + 1, m->colname[j]);
    if (m->lb[j] == m->ub[j])
      glp_set_col_bnds(lp, j + 1, GLP_FX, m->lb[j], m->ub[j]);
    else
      glp_set_col_bnds(lp, j + 1, GLP_DB, m->lb[j], m->ub[j]);
    glp_set_col_kind(lp, j + 1, m->isint[j] ? GLP_IV : GLP_CV);
    glp_set_obj_coef(lp, j + 1, m->obj[j]);
  }
  int nload = 0;
  for (int r = 0; r < m->nrows; r++) nload += with_lazy || !m->lazy[r];
  if (nload) glp_add_rows(lp, nload);
  int maxnz = 0;
  for (int r = 0; r < m->nrows; r++)
    if (m->rowstart[r + 1] - m->rowstart[r] > maxnz) maxnz = m->rowstart[r + 1] - m->rowstart[r];
  int *ind = nz_xmalloc(sizeof(int) * (size_t)(maxnz + 1));
  double *val = nz_xmalloc(sizeof(double) * (size_t)(maxnz + 1));
  for (int r = 0, i = 1; r < m->nrows; r++)
    if (with_lazy || !m->lazy[r]) set_row(lp, i++, m, r, ind, val, 1);
  free(ind);
  free(val);
  return lp;
}

typedef struct {
  long nodes;
  const double *start; /* 1-based copy, handed over once */
  int given;
  FusIlp *m;
  double *x;   /* ncols: the relaxation's solution */
  long added;  /* lazy rows put into the LP */
  double lower_bound;
  int at_bound; /* stopped at an incumbent reaching lower_bound */
  long long node_limit; /* FusIlp.node_limit */
  int node_stop;        /* stopped there */
  const FusIlp *hm; /* the model, when it has a heuristic */
  double *hx, *hsol; /* ncols relaxation values; 1-based solution */
  long heur_calls;
} Cb;

static double activity(const FusIlp *m, int r, const double *x) {
  double a = 0;
  for (int e = m->rowstart[r]; e < m->rowstart[r + 1]; e++) a += m->val[e] * x[m->idx[e]];
  return a;
}

static int violated(const FusIlp *m, int r, const double *x) {
  double a = activity(m, r, x), eps = 1e-6;
  return m->sense[r] == 'L' ? a > m->rhs[r] + eps : m->sense[r] == 'G' ? a < m->rhs[r] - eps : fabs(a - m->rhs[r]) > eps;
}

/* GLP_IROWGEN: every lazy row the relaxation violates goes into the current
 * subproblem. GLPK keeps rows added at a node only in that node's subtree, so
 * all lazy rows are checked each time (the ones present are satisfied). When
 * none is violated and the solution is integral, the separation hook may
 * append rows that cut it off. */
static void add_lazy(glp_tree *tree, Cb *cb) {
  FusIlp *m = cb->m;
  glp_prob *lp = glp_ios_get_prob(tree);
  for (int j = 0; j < m->ncols; j++) cb->x[j] = glp_get_col_prim(lp, j + 1);
  NZ_VEC(int) add = {0};
  for (int r = 0; r < m->nrows; r++)
    if (m->lazy[r] && violated(m, r, cb->x)) nz_vec_push(add, r);
  if (add.n == 0 && m->separate) {
    int integral = 1;
    for (int j = 0; j < m->ncols && integral; j++)
      integral = !m->isint[j] || fabs(cb->x[j] - floor(cb->x[j] + 0.5)) < 1e-6;
    if (integral) {
      int before = m->nrows;
      m->separate(m->separate_ctx, m, cb->x);
      for (int r = before; r < m->nrows; r++)
        if (violated(m, r, cb->x)) nz_vec_push(add, r);
    }
  }
  if (add.n) {
    int maxnz = 0;
    for (int e = 0; e < add.n; e++) {
      int r = add.v[e];
      if (m->rowstart[r + 1] - m->rowstart[r] > maxnz) maxnz = m->rowstart[r + 1] - m->rowstart[r];
    }
    int *ind = nz_xmalloc(sizeof(int) * (size_t)(maxnz + 1));
    double *val = nz_xmalloc(sizeof(double) * (size_t)(maxnz + 1));
    int first = glp_add_rows(lp, add.n);
    for (int e = 0; e < add.n; e++) set_row(lp, first + e, m, add.v[e], ind, val, 0);
    cb->added += add.n;
    free(ind);
    free(val);
  }
  nz_vec_free(add);
}

static void callback(glp_tree *tree, void *info) {
  Cb *cb = info;
  int a, n, t;
  glp_ios_tree_size(tree, &a, &n, &t);
  cb->nodes = t;
  if (cb->node_limit > 0 && t > cb->node_limit && !cb->node_stop) {
    cb->node_stop = 1; /* the work limit: nodes counted, not seconds */
    glp_ios_terminate(tree);
    return;
  }
  if (glp_ios_reason(tree) == GLP_IROWGEN && cb->m) add_lazy(tree, cb);
  /* An incumbent at the model's known lower bound is optimal. */
  if (cb->lower_bound > 0 && glp_mip_status(glp_ios_get_prob(tree)) == GLP_FEAS &&
      glp_mip_obj_val(glp_ios_get_prob(tree)) <= cb->lower_bound + 1e-6 && !cb->at_bound) {
    cb->at_bound = 1;
    glp_ios_terminate(tree);
  }

  if (glp_ios_reason(tree) == GLP_IHEUR && cb->start && !cb->given) {
    glp_ios_heur_sol(tree, cb->start);
    cb->given = 1;
  }
  /* The model's own heuristic, at the root and then at every 8th node that
   * asks (it costs a few milliseconds on a 45-invocation group). */
  if (glp_ios_reason(tree) == GLP_IHEUR && cb->hm && cb->heur_calls++ % 8 == 0) {
    glp_prob *lp = glp_ios_get_prob(tree);
    for (int j = 0; j < cb->hm->ncols; j++) cb->hx[j] = glp_get_col_prim(lp, j + 1);
    if (cb->hm->heuristic(cb->hm->heuristic_ctx, cb->hm, cb->hx, cb->hsol + 1)) glp_ios_heur_sol(tree, cb->hsol);
  }
}

int fus_ilp_solve_glpk(FusIlp *m, double time_limit, const double *start, double *x, FusIlpResult *r) {
  memset(r, 0, sizeof *r);
  glp_term_out(GLP_OFF);
  int lazy = m->separate != NULL;
  for (int i = 0; i < m->nrows && !lazy; i++) lazy = m->lazy[i];
  glp_prob *lp = load(m, !lazy);
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;
  Cb cb = {0};
  double *start1 = NULL;
  if (start) {
    start1 = nz_xmalloc(sizeof(double) * ((size_t)m->ncols + 1));
    start1[0] = 0;
    memcpy(start1 + 1, start, sizeof(double) * (size_t)m->ncols);
    cb.start = start1;
  }
  if (lazy) {
    /* GLPK's simple rounding heuristic records solutions without asking for
     * lazy rows first (seen: a rounded solution breaking a transitivity row),
     * so with lazy rows only LP solutions and our start may become
     * incumbents. */
    parm.sr_heur = GLP_OFF;
    cb.m = m;
    cb.x = nz_xmalloc(sizeof(double) * ((size_t)m->ncols + 1));
  }
  cb.lower_bound = m->lower_bound;
  cb.node_limit = m->node_limit;
  if (m->heuristic) {
    cb.hm = m;
    cb.hx = nz_xcalloc((size_t)m->ncols + 1, sizeof(double));
    cb.hsol = nz_xcalloc((size_t)m->ncols + 1, sizeof(double));
  }
  parm.cb_func = callback;
  parm.cb_info = &cb;
  int tm = time_limit <= 0 ? 0 : time_limit * 1000 > 2e9 ? 2000000000 : (int)(time_limit * 1000);
  if (tm) parm.tm_lim = tm;
  int ret = 0;
  if (m->ncols && (start || lazy)) {
    /* In the callback, a presolved problem has other columns and rows than
     * ours, so a start or lazy rows need the search without the MIP
     * presolver: solve the LP relaxation first, then branch, both within the
     * time limit. */
    glp_smcp sp;
    glp_init_smcp(&sp);
    sp.msg_lev = GLP_MSG_OFF;
    sp.presolve = GLP_ON;
    if (tm) sp.tm_lim = tm;
    double t0 = glp_time();
    ret = glp_simplex(lp, &sp);
    if (ret == 0 && glp_get_status(lp) == GLP_OPT) {
      parm.presolve = GLP_OFF;
      if (tm) {
        double left = tm - glp_difftime(glp_time(), t0) * 1000;
        parm.tm_lim = left < 1 ? 1 : (int)left;
      }
      ret = glp_intopt(lp, &parm);
    } else if (ret == 0) {
      ret = GLP_ENOPFS; /* LP relaxation infeasible: impossible, the start is feasible */
    }
  } else if (m->ncols) {
    ret = glp_intopt(lp, &parm);
  }
  int st = m->ncols ? glp_mip_status(lp) : GLP_OPT;

  r->nodes = cb.nodes;
  r->lazy_rows = cb.added;
  free(start1);
  free(cb.x);
  free(cb.hx);
  free(cb.hsol);
  r->timed_out = ret == GLP_ETMLIM || (ret == GLP_ESTOP && cb.node_stop);
  r->has_solution = st == GLP_OPT || st == GLP_FEAS;
  r->optimal = (st == GLP_OPT && ret == 0) || (cb.at_bound && ret == GLP_ESTOP && r->has_solution);
  if (r->has_solution) {
    r->objective = glp_mip_obj_val(lp);
    for (int j = 0; j < m->ncols; j++) x[j] = glp_mip_col_val(lp, j + 1);
  }
  glp_delete_prob(lp);
  if (!held) glp_free_env(); /* GLPK keeps an environment per thread; release it so leak checkers stay quiet */
  return 0;
}

int fus_ilp_solve(FusSolver solver, FusIlp *m, double time_limit, const double *start, double *x, FusIlpResult *r) {
  /* Solvers take a start on trust (GLPK's glp_ios_heur_sol checks no row),
   * and one that ends on time may return it as its answer; a start that
   * breaks a row or bound is not handed over (a legal schedule does: above
   * a decomposed group's objective cap, or splitting a forced pair that
   * ilp-lazy and ilp-decomp fix). */
  if (start && !fus_ilp_feasible(m, start, NULL, NULL)) start = NULL;
  if (solver == FUS_CBC) return fus_ilp_solve_cbc(m, time_limit, start, x, r);
  return fus_ilp_solve_glpk(m, time_limit, start, x, r);
}

/* Does the file end with "End\n", the last line of the CPLEX LP format? */
static int ends_complete(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char tail[5] = {0};
  int ok = fseek(f, -4, SEEK_END) == 0 && fread(tail, 1, 4, f) == 4 && !strcmp(tail, "End\n");
  fclose(f);
  return ok;
}

int fus_ilp_write_lp(const FusIlp *m, const char *path) {
  glp_term_out(GLP_OFF);
  glp_prob *lp = load(m, 1);
  /* GLPK writes through stdio and ignores what fclose reports, so a full disk
   * can pass for success: the instance goes to a temporary file first, which
   * must end with the format's last line ("End"), and only then becomes the
   * file asked for: renamed where that is a regular file (or new), copied
   * through a checked write where it is a device or a FIFO. No half-written
   * instance is left under the name. */
  char *tmp = nz_out_temp_name(path);
  char dev_tmp[] = "/tmp/nessie-ilp-XXXXXX";
  int fd = -1;
  if (!tmp && (fd = mkstemp(dev_tmp)) >= 0) close(fd);
  const char *write_to = tmp ? tmp : dev_tmp;
  int ret = (tmp || fd >= 0) ? glp_write_lp(lp, NULL, write_to) : 1;
  glp_delete_prob(lp);
  if (!held) glp_free_env();
  int ok = ret == 0 && ends_complete(write_to);
  if (ok && !tmp) { /* a device or FIFO: copy, checking every write */
    NzOutFile o;
    FILE *in = fopen(dev_tmp, "rb"), *out = nz_out_open(&o, path);
    ok = in && out;
    char buf[65536];
    size_t k;
    while (ok && (k = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, k, out) == k;
    if (in) fclose(in);
    if (out) ok = nz_out_close(&o) == 0 && ok;
  }
  if (!tmp && fd >= 0) unlink(dev_tmp);
  if (!ok) nz_error("cannot write the ILP instance to %s", path);
  int rc = nz_out_commit_name(tmp, path, ok);
  free(tmp);
  return rc;
}
