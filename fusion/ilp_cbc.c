/* ilp_cbc.c — loads a FusIlp into COIN-OR CBC through its C interface
 * (coin/Cbc_C_Interface.h) and solves it under a time limit. */
#include "fusion.h"

#include <coin/Cbc_C_Interface.h>
#include <float.h>

int fus_ilp_solve_cbc(const FusIlp *m, double time_limit, const double *start, double *x, FusIlpResult *r) {
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
  } else if (nc > 1000 && time_limit > 0) {
    /* CBC 2.10.8 crashes (CglPreProcess::postProcess) when a time limit
     * expires during the preprocessing of a large model. */
    Cbc_setParameter(model, "preprocess", "off");
  }
  if (time_limit > 0) {
    /* Both: the C interface's own field, and the option CbcMain reads. */
    char sec[32];
    snprintf(sec, sizeof sec, "%g", time_limit);
    Cbc_setMaximumSeconds(model, time_limit);
    Cbc_setParameter(model, "timeMode", "elapsed"); /* wall clock, not CPU time */
    Cbc_setParameter(model, "sec", sec);
  }
  int *all = NULL;
  if (start) {
    all = nz_xmalloc(sizeof(int) * (size_t)nc);
    for (int j = 0; j < nc; j++) all[j] = j;
    Cbc_setMIPStartI(model, nc, all, start);
  }
  Cbc_solve(model);
  free(all);
  r->optimal = Cbc_isProvenOptimal(model);
  r->timed_out = Cbc_isSecondsLimitReached(model);
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
