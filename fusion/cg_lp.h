/* cg_lp.h — the linear program under ilp-cg's column generation (the restricted
 * master), solved by COIN-OR CLP through its C interface (the default) or by
 * GLPK, behind one small interface so that the two can be measured against
 * each other. Rows and columns are numbered from 0; infinite bounds are
 * ±INFINITY. Prefix: cg_lp_. */
#ifndef CG_LP_H
#define CG_LP_H

typedef struct CgLp CgLp;

typedef enum { CG_LP_CLP, CG_LP_GLPK } CgLpKind;
enum { CG_LP_OPT, CG_LP_INFEAS, CG_LP_LIMIT, CG_LP_ERROR }; /* cg_lp_solve's results */

/* CG_LP_CLP unless the environment says NESSIE_CG_LP=glpk. */
CgLpKind cg_lp_default(void);
const char *cg_lp_kind_name(CgLpKind k);

/* An LP with nrows rows (free until bounded) and no columns; minimises. */
CgLp *cg_lp_new(CgLpKind kind, int nrows);
void cg_lp_free(CgLp *lp);
/* Both return the new column's or row's number. */
int cg_lp_add_col(CgLp *lp, int nz, const int *rows, const double *val, double cost, double lo, double hi);
int cg_lp_add_row(CgLp *lp, int nz, const int *cols, const double *val, double lo, double hi);
void cg_lp_col_bounds(CgLp *lp, int col, double lo, double hi);
void cg_lp_row_bounds(CgLp *lp, int row, double lo, double hi);
void cg_lp_cost(CgLp *lp, int col, double cost);
/* Re-optimises from the last basis: the primal simplex after new columns,
 * the dual one (dual != 0) after new rows or bounds. seconds <= 0: no limit. */
int cg_lp_solve(CgLp *lp, int dual, double seconds);
double cg_lp_value(CgLp *lp);         /* objective of the last optimum */
double cg_lp_x(CgLp *lp, int col);    /* primal value */
double cg_lp_dual(CgLp *lp, int row); /* d_j = c_j - Σ_i dual_i a_ij */

#endif
