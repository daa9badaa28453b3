/* ilp_glpk.c — loads a FusIlp into GLPK (glpk.h), solves it with glp_intopt
 * under a time limit, and writes instances in CPLEX LP format (glp_write_lp). */
#include "fusion.h"

#include <glpk.h>

static glp_prob *load(const FusIlp *m) {
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
  if (m->nrows) glp_add_rows(lp, m->nrows);
  int maxnz = 0;
  for (int r = 0; r < m->nrows; r++)
    if (m->rowstart[r + 1] - m->rowstart[r] > maxnz) maxnz = m->rowstart[r + 1] - m->rowstart[r];
  int *ind = nz_xmalloc(sizeof(int) * (size_t)(maxnz + 1));
  double *val = nz_xmalloc(sizeof(double) * (size_t)(maxnz + 1));
  for (int r = 0; r < m->nrows; r++) {
    glp_set_row_name(lp, r + 1, m->rowname[r]);
    int type = m->sense[r] == 'L' ? GLP_UP : m->sense[r] == 'G' ? GLP_LO : GLP_FX;
    glp_set_row_bnds(lp, r + 1, type, m->rhs[r], m->rhs[r]);
    int nz = 0;
    for (int e = m->rowstart[r]; e < m->rowstart[r + 1]; e++) {
      ind[nz + 1] = m->idx[e] + 1; /* GLPK arrays are 1-based */
      val[nz + 1] = m->val[e];
      nz++;
    }
    glp_set_mat_row(lp, r + 1, nz, ind, val);
  }
  free(ind);
  free(val);
  return lp;
}

typedef struct {
  long nodes;
  const double *start; /* 1-based copy, handed over once */
  int given;
} Cb;

static void callback(glp_tree *tree, void *info) {
  Cb *cb = info;
  int a, n, t;
  glp_ios_tree_size(tree, &a, &n, &t);
  cb->nodes = t;
  if (glp_ios_reason(tree) == GLP_IHEUR && cb->start && !cb->given) {
    glp_ios_heur_sol(tree, cb->start);
    cb->given = 1;
  }
}

int fus_ilp_solve_glpk(const FusIlp *m, double time_limit, const double *start, double *x, FusIlpResult *r) {
  memset(r, 0, sizeof *r);
  glp_term_out(GLP_OFF);
  glp_prob *lp = load(m);
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
  parm.cb_func = callback;
  parm.cb_info = &cb;
  int tm = time_limit <= 0 ? 0 : time_limit * 1000 > 2e9 ? 2000000000 : (int)(time_limit * 1000);
  if (tm) parm.tm_lim = tm;
  int ret = 0;
  if (m->ncols && start) {
    /* In the callback, a presolved problem has other columns than ours, so a
     * start can only be handed over without the MIP presolver: solve the LP
     * relaxation first, then branch, both within the time limit. */
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
  free(start1);
  r->timed_out = ret == GLP_ETMLIM;
  r->has_solution = st == GLP_OPT || st == GLP_FEAS;
  r->optimal = st == GLP_OPT && ret == 0;
  if (r->has_solution) {
    r->objective = glp_mip_obj_val(lp);
    for (int j = 0; j < m->ncols; j++) x[j] = glp_mip_col_val(lp, j + 1);
  }
  glp_delete_prob(lp);
  glp_free_env(); /* GLPK keeps an environment per thread; release it so leak checkers stay quiet */
  return 0;
}

int fus_ilp_write_lp(const FusIlp *m, const char *path) {
  glp_term_out(GLP_OFF);
  glp_prob *lp = load(m);
  int ret = glp_write_lp(lp, NULL, path);
  glp_delete_prob(lp);
  glp_free_env();
  if (ret != 0) {
    nz_error("cannot write the ILP instance to %s", path);
    return -1;
  }
  return 0;
}
