/* cg_lp.c — ilp-cg's restricted-master LP on CLP or GLPK (cg_lp.h).
 *
 * CLP keeps the model and its basis between solves. Its C interface adds
 * columns and rows by copying the model's arrays, so additions are buffered
 * here and handed over in one call before the next solve (one column at a
 * time was quadratic in the pool: 20k columns). Bounds and costs live in
 * arrays of our own, given to CLP whole when changed. */
#include "cg_lp.h"

#include "fusion.h"

#include <coin/Clp_C_Interface.h>
#include <float.h>
#include <limits.h>
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* cg_lp_solve: with under CLP_NEAR seconds left, the clock is read every CLP_CHUNK
 * simplex iterations. */
#define CLP_NEAR 2.0
enum { CLP_CHUNK = 200 };

struct CgLp {
  CgLpKind kind;
  int nrows, ncols;
  glp_prob *glp;
  Clp_Simplex *clp;
  /* CLP: what it has (rows_in, cols_in) and what is still to hand over. */
  int rows_in, cols_in;
  NZ_VEC(double) clo, chi, cost, rlo, rhi;
  NZ_VEC(CoinBigIndex) pstart; /* pending columns (then rows), CSR-like */
  NZ_VEC(int) pidx;
  NZ_VEC(double) pval;
  int bounds_dirty, cost_dirty, rows_dirty;
  int pending_rows; /* rows added since the last hand-over */
  NZ_VEC(CoinBigIndex) rstart;
  NZ_VEC(int) ridx;
  NZ_VEC(double) rval;
};

CgLpKind cg_lp_default(void) {
  const char *e = getenv("NESSIE_CG_LP");
  return e && !strcmp(e, "glpk") ? CG_LP_GLPK : CG_LP_CLP;
}

const char *cg_lp_kind_name(CgLpKind k) { return k == CG_LP_GLPK ? "glpk" : "clp"; }

/* Row (row != 0) or column i of a GLPK problem bounded to [lo, hi]. */
static void glp_bounds(glp_prob *p, int row, int i, double lo, double hi) {
  int type = isinf(lo) && isinf(hi) ? GLP_FR
           : isinf(hi)              ? GLP_LO
           : isinf(lo)              ? GLP_UP
           : lo == hi               ? GLP_FX
                                    : GLP_DB;
  (row ? glp_set_row_bnds : glp_set_col_bnds)(p, i, type, isinf(lo) ? 0 : lo, isinf(hi) ? 0 : hi);
}

static double clp_inf(double v) { return isinf(v) ? (v > 0 ? DBL_MAX : -DBL_MAX) : v; }

/* lo[from..from+n), hi[...] with CLP's infinities, in two new arrays. */
static void clp_bounds(const double *lo, const double *hi, int from, int n, double **olo, double **ohi) {
  *olo = nz_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
  *ohi = nz_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
  for (int j = 0; j < n; j++) (*olo)[j] = clp_inf(lo[from + j]), (*ohi)[j] = clp_inf(hi[from + j]);
}

CgLp *cg_lp_new(CgLpKind kind, int nrows) {
  CgLp *lp = nz_xcalloc(1, sizeof *lp);
  lp->kind = kind;
  lp->nrows = nrows;
  if (kind == CG_LP_GLPK) {
    fus_glpk_hold(); /* other GLPK solves (ilp-cg's heuristic) must not free its environment */
    lp->glp = glp_create_prob();
    glp_set_obj_dir(lp->glp, GLP_MIN);
    if (nrows > 0) glp_add_rows(lp->glp, nrows);
    return lp;
  }
  lp->clp = Clp_newModel();
  Clp_setLogLevel(lp->clp, 0);
  Clp_setOptimizationDirection(lp->clp, 1);
  for (int i = 0; i < nrows; i++) {
    nz_vec_push(lp->rlo, -INFINITY);
    nz_vec_push(lp->rhi, INFINITY);
  }
  /* The rows exist from the start, empty. */
  if (nrows > 0) {
    double *lo, *hi;
    CoinBigIndex *st = nz_xcalloc((size_t)nrows + 1, sizeof(CoinBigIndex));
    clp_bounds(lp->rlo.v, lp->rhi.v, 0, nrows, &lo, &hi);
    Clp_addRows(lp->clp, nrows, lo, hi, st, NULL, NULL);
    free(lo), free(hi), free(st);
  }
  lp->rows_in = nrows;
  nz_vec_push(lp->pstart, 0);
  nz_vec_push(lp->rstart, 0);
  return lp;
}

void cg_lp_free(CgLp *lp) {
  if (!lp) return;
  if (lp->glp) {
    glp_delete_prob(lp->glp);
    fus_glpk_release();
  }
  if (lp->clp) Clp_deleteModel(lp->clp);
  nz_vec_free(lp->clo), nz_vec_free(lp->chi), nz_vec_free(lp->cost), nz_vec_free(lp->rlo), nz_vec_free(lp->rhi);
  nz_vec_free(lp->pstart), nz_vec_free(lp->pidx), nz_vec_free(lp->pval);
  nz_vec_free(lp->rstart), nz_vec_free(lp->ridx), nz_vec_free(lp->rval);
  free(lp);
}

int cg_lp_add_col(CgLp *lp, int nz, const int *rows, const double *val, double cost, double lo, double hi) {
  int j = lp->ncols++;
  if (lp->glp) {
    int c = glp_add_cols(lp->glp, 1);
    int *ind = nz_xmalloc(sizeof(int) * ((size_t)nz + 1));
    double *v = nz_xmalloc(sizeof(double) * ((size_t)nz + 1));
    for (int e = 0; e < nz; e++) ind[e + 1] = rows[e] + 1, v[e + 1] = val[e];
    glp_set_mat_col(lp->glp, c, nz, ind, v);
    glp_set_obj_coef(lp->glp, c, cost);
    glp_bounds(lp->glp, 0, c, lo, hi);
    free(ind), free(v);
    return j;
  }
  nz_vec_push(lp->clo, lo);
  nz_vec_push(lp->chi, hi);
  nz_vec_push(lp->cost, cost);
  for (int e = 0; e < nz; e++) {
    nz_vec_push(lp->pidx, rows[e]);
    nz_vec_push(lp->pval, val[e]);
  }
  nz_vec_push(lp->pstart, (CoinBigIndex)lp->pidx.n);
  return j;
}

int cg_lp_add_row(CgLp *lp, int nz, const int *cols, const double *val, double lo, double hi) {
  int i = lp->nrows++;
  if (lp->glp) {
    int r = glp_add_rows(lp->glp, 1);
    int *ind = nz_xmalloc(sizeof(int) * ((size_t)nz + 1));
    double *v = nz_xmalloc(sizeof(double) * ((size_t)nz + 1));
    for (int e = 0; e < nz; e++) ind[e + 1] = cols[e] + 1, v[e + 1] = val[e];
    glp_set_mat_row(lp->glp, r, nz, ind, v);
    glp_bounds(lp->glp, 1, r, lo, hi);
    free(ind), free(v);
    return i;
  }
  nz_vec_push(lp->rlo, lo);
  nz_vec_push(lp->rhi, hi);
  for (int e = 0; e < nz; e++) {
    nz_vec_push(lp->ridx, cols[e]);
    nz_vec_push(lp->rval, val[e]);
  }
  nz_vec_push(lp->rstart, (CoinBigIndex)lp->ridx.n);
  lp->pending_rows++;
  return i;
}

void cg_lp_col_bounds(CgLp *lp, int col, double lo, double hi) {
  if (lp->glp) {
    glp_bounds(lp->glp, 0, col + 1, lo, hi);
    return;
  }
  if (lp->clo.v[col] != lo || lp->chi.v[col] != hi) lp->bounds_dirty = 1;
  lp->clo.v[col] = lo;
  lp->chi.v[col] = hi;
}

void cg_lp_row_bounds(CgLp *lp, int row, double lo, double hi) {
  if (lp->glp) {
    glp_bounds(lp->glp, 1, row + 1, lo, hi);
    return;
  }
  if (lp->rlo.v[row] != lo || lp->rhi.v[row] != hi) lp->rows_dirty = 1;
  lp->rlo.v[row] = lo;
  lp->rhi.v[row] = hi;
}

void cg_lp_cost(CgLp *lp, int col, double cost) {
  if (lp->glp) {
    glp_set_obj_coef(lp->glp, col + 1, cost);
    return;
  }
  if (lp->cost.v[col] != cost) lp->cost_dirty = 1;
  lp->cost.v[col] = cost;
}

/* Hands CLP the buffered columns, rows and changed bounds and costs. */
static void clp_sync(CgLp *lp) {
  int nc = lp->ncols - lp->cols_in;
  if (nc > 0) {
    double *lo, *hi;
    clp_bounds(lp->clo.v, lp->chi.v, lp->cols_in, nc, &lo, &hi);
    Clp_addColumns(lp->clp, nc, lo, hi, lp->cost.v + lp->cols_in, lp->pstart.v, lp->pidx.v, lp->pval.v);
    free(lo), free(hi);
    lp->cols_in = lp->ncols;
    lp->pstart.n = lp->pidx.n = lp->pval.n = 0;
    nz_vec_push(lp->pstart, 0);
  }
  if (lp->pending_rows > 0) {
    int nr = lp->pending_rows;
    double *lo, *hi;
    clp_bounds(lp->rlo.v, lp->rhi.v, lp->rows_in, nr, &lo, &hi);
    Clp_addRows(lp->clp, nr, lo, hi, lp->rstart.v, lp->ridx.v, lp->rval.v);
    free(lo), free(hi);
    lp->rows_in = lp->nrows;
    lp->pending_rows = 0;
    lp->rstart.n = lp->ridx.n = lp->rval.n = 0;
    nz_vec_push(lp->rstart, 0);
  }
  if (lp->bounds_dirty && lp->ncols > 0) {
    double *lo, *hi;
    clp_bounds(lp->clo.v, lp->chi.v, 0, lp->ncols, &lo, &hi);
    Clp_chgColumnLower(lp->clp, lo);
    Clp_chgColumnUpper(lp->clp, hi);
    free(lo), free(hi);
  }
  if (lp->rows_dirty && lp->nrows > 0) {
    double *lo, *hi;
    clp_bounds(lp->rlo.v, lp->rhi.v, 0, lp->nrows, &lo, &hi);
    Clp_chgRowLower(lp->clp, lo);
    Clp_chgRowUpper(lp->clp, hi);
    free(lo), free(hi);
  }
  if (lp->cost_dirty && lp->ncols > 0) Clp_chgObjCoefficients(lp->clp, lp->cost.v);
  lp->bounds_dirty = lp->rows_dirty = lp->cost_dirty = 0;
}

int cg_lp_solve(CgLp *lp, int dual, double seconds) {
  if (lp->glp) {
    glp_smcp sp;
    glp_init_smcp(&sp);
    sp.msg_lev = GLP_MSG_OFF;
    sp.meth = dual ? GLP_DUALP : GLP_PRIMAL;
    if (seconds > 0) sp.tm_lim = seconds * 1000 > 2e9 ? 2000000000 : (int)(seconds * 1000) + 1;
    int ret = glp_simplex(lp->glp, &sp);
    if (ret == GLP_EBADB || ret == GLP_ESING || ret == GLP_ECOND) {
      glp_adv_basis(lp->glp, 0);
      ret = glp_simplex(lp->glp, &sp);
    }
    if (ret == GLP_ETMLIM) return CG_LP_LIMIT;
    if (ret != 0) return CG_LP_ERROR;
    int st = glp_get_status(lp->glp);
    return st == GLP_OPT ? CG_LP_OPT : st == GLP_NOFEAS || st == GLP_INFEAS ? CG_LP_INFEAS : CG_LP_ERROR;
  }
  clp_sync(lp);
  /* CLP 1.17 compares its limit with the process's CPU time (CoinCpuTime,
   * user time from getrusage), not with the time since the call. */
  double limit = -1;
  if (seconds > 0) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    limit = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + seconds;
  }
  Clp_setMaximumSeconds(lp->clp, limit);
  /* Nor does it look at that limit often: a dual simplex of 4721 iterations after
   * 100 cut rows (300 invocations, 7349 columns) ran 2.7 s with 1.6 s left. So a
   * solve with less than CLP_NEAR seconds left goes in chunks of CLP_CHUNK
   * iterations, each resumed from the last basis, with the clock read between
   * them. Only then: a resumed solve may pivot differently (steepest-edge weights
   * start afresh), and earlier in a run the chunks changed the LPs of a
   * 300-invocation root that took more (median 32 iterations, 90 % below 123,
   * a few thousands), where the limit was far. */
  double end = seconds > 0 ? nz_now() + seconds : 0;
  int chunked = seconds > 0 && seconds < CLP_NEAR;
  Clp_setMaximumIterations(lp->clp, chunked ? CLP_CHUNK : INT_MAX);
  for (;;) {
    if (dual) Clp_dual(lp->clp, 0);
    else Clp_primal(lp->clp, 0);
    if (!chunked || Clp_status(lp->clp) != 3 || nz_now() >= end) break;
  }
  /* Stopped on an error (numerical trouble, measured: rare, after many
   * cut rows): the other method, then from scratch. */
  if (Clp_status(lp->clp) == 4) dual ? Clp_primal(lp->clp, 0) : Clp_dual(lp->clp, 0);
  if (Clp_status(lp->clp) == 4) Clp_initialSolve(lp->clp);
  switch (Clp_status(lp->clp)) {
  case 0: return CG_LP_OPT;
  case 1: return CG_LP_INFEAS;
  case 3: return CG_LP_LIMIT;
  default: return CG_LP_ERROR;
  }
}

double cg_lp_value(CgLp *lp) { return lp->glp ? glp_get_obj_val(lp->glp) : Clp_getObjValue(lp->clp); }

double cg_lp_x(CgLp *lp, int col) {
  if (lp->glp) return glp_get_col_prim(lp->glp, col + 1);
  return col < lp->cols_in ? Clp_getColSolution(lp->clp)[col] : 0; /* not handed over: not in the basis */
}

double cg_lp_dual(CgLp *lp, int row) {
  if (lp->glp) return glp_get_row_dual(lp->glp, row + 1);
  return row < lp->rows_in ? Clp_getRowPrice(lp->clp)[row] : 0;
}
