/* cg_lp.c — ilp-cg's LP layer on CLP and on GLPK, one script for both: a small
 * set-partitioning master re-optimised after new columns, bound changes, new
 * rows and right-hand-side changes, each answer checked by its optimality
 * certificate (primal feasible, reduced costs of the right sign, dual value =
 * primal value), so degenerate duals pass whatever vertex a solver picks;
 * and an infeasible LP reported as such. */
#include "cg_lp.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>

#define MAXC 16
#define MAXR 8

/* Our copy of the LP, for the certificate. */
typedef struct {
  int nr, nc;
  double a[MAXR][MAXC], cost[MAXC], clo[MAXC], chi[MAXC], rlo[MAXR], rhi[MAXR];
} Lp;

static void col(CgLp *lp, Lp *m, const int *rows, int nz, double cost, double lo, double hi) {
  double val[MAXR];
  for (int e = 0; e < nz; e++) val[e] = 1, m->a[rows[e]][m->nc] = 1;
  m->cost[m->nc] = cost, m->clo[m->nc] = lo, m->chi[m->nc] = hi;
  int j = cg_lp_add_col(lp, nz, rows, val, cost, lo, hi);
  if (j != m->nc) printf("  column number %d, expected %d\n", j, m->nc);
  m->nc++;
}

/* Optimal: x within bounds, rows within bounds, reduced costs d_j >= 0 at
 * lower bounds, <= 0 at upper bounds, 0 strictly between; duals of the
 * right sign for their row's active side; Σ y·b + Σ d·(bound) = value. */
static int certified(CgLp *lp, const Lp *m, double want) {
  const double eps = 1e-6;
  double z = cg_lp_value(lp), dualobj = 0, primal = 0;
  double x[MAXC], y[MAXR];
  for (int j = 0; j < m->nc; j++) {
    x[j] = cg_lp_x(lp, j);
    primal += m->cost[j] * x[j];
    if (x[j] < m->clo[j] - eps || x[j] > m->chi[j] + eps) return printf("  x%d = %g out of bounds\n", j, x[j]), 0;
  }
  for (int i = 0; i < m->nr; i++) {
    double r = 0;
    for (int j = 0; j < m->nc; j++) r += m->a[i][j] * x[j];
    if (r < m->rlo[i] - eps || r > m->rhi[i] + eps) return printf("  row %d = %g out of bounds\n", i, r), 0;
    y[i] = cg_lp_dual(lp, i);
    /* y > 0 needs the row at its lower bound, y < 0 at its upper. */
    if ((y[i] > eps && fabs(r - m->rlo[i]) > eps) || (y[i] < -eps && fabs(r - m->rhi[i]) > eps))
      return printf("  row %d: dual %g, activity %g\n", i, y[i], r), 0;
    dualobj += y[i] * r;
  }
  for (int j = 0; j < m->nc; j++) {
    double d = m->cost[j];
    for (int i = 0; i < m->nr; i++) d -= y[i] * m->a[i][j];
    int atlo = fabs(x[j] - m->clo[j]) <= eps, athi = fabs(x[j] - m->chi[j]) <= eps;
    if ((d < -eps && !athi) || (d > eps && !atlo)) return printf("  column %d: reduced cost %g at x = %g\n", j, d, x[j]), 0;
    dualobj += d * x[j];
  }
  if (fabs(z - primal) > eps || fabs(z - dualobj) > eps || fabs(z - want) > eps)
    return printf("  value %g, primal %g, dual %g, expected %g\n", z, primal, dualobj, want), 0;
  return 1;
}

static void script(CgLpKind kind) {
  const char *k = cg_lp_kind_name(kind);
  char name[128];
#define NAME(s) (snprintf(name, sizeof name, "%s: %s", k, s), name)
  Lp m = {0};
  m.nr = 3;
  CgLp *lp = cg_lp_new(kind, 3);
  for (int i = 0; i < 3; i++) {
    cg_lp_row_bounds(lp, i, 1, 1);
    m.rlo[i] = m.rhi[i] = 1;
  }
  /* Singletons at 1; {a,b} 1.5, {b,c} 1.2: optimum {a}{b,c} = 2.2. */
  col(lp, &m, (int[]){0}, 1, 1, 0, INFINITY);
  col(lp, &m, (int[]){1}, 1, 1, 0, INFINITY);
  col(lp, &m, (int[]){2}, 1, 1, 0, INFINITY);
  col(lp, &m, (int[]){0, 1}, 2, 1.5, 0, INFINITY);
  col(lp, &m, (int[]){1, 2}, 2, 1.2, 0, INFINITY);
  CHECK(NAME("first solve optimal"), cg_lp_solve(lp, 0, 0) == CG_LP_OPT);
  CHECK(NAME("first solve certified"), certified(lp, &m, 2.2));
  /* A new column {a,b,c} at 1: the primal simplex from the last basis. */
  col(lp, &m, (int[]){0, 1, 2}, 3, 1, 0, INFINITY);
  CHECK(NAME("new column optimal"), cg_lp_solve(lp, 0, 1) == CG_LP_OPT);
  CHECK(NAME("new column certified"), certified(lp, &m, 1));
  CHECK(NAME("new column used"), fabs(cg_lp_x(lp, 5) - 1) < 1e-6);
  /* Fixed at zero again (a branching decision): the dual simplex. */
  cg_lp_col_bounds(lp, 5, 0, 0);
  m.chi[5] = 0;
  CHECK(NAME("fixed column optimal"), cg_lp_solve(lp, 1, 0) == CG_LP_OPT);
  CHECK(NAME("fixed column certified"), certified(lp, &m, 2.2));
  /* A cut row x0 + x4 <= 1 - 0.5: the optimum becomes fractional. */
  int r = cg_lp_add_row(lp, 2, (int[]){0, 4}, (double[]){1, 1}, -INFINITY, 0.5);
  CHECK(NAME("row number"), r == 3);
  m.nr = 4, m.a[3][0] = m.a[3][4] = 1, m.rlo[3] = -INFINITY, m.rhi[3] = 0.5;
  CHECK(NAME("cut row optimal"), cg_lp_solve(lp, 1, 0) == CG_LP_OPT);
  /* With s = x0, t = x4: x3 = 1 - s, x1 = s - t, x2 = 1 - t, and the cost
   * 2.5 + 0.5s - 0.8t over s + t <= 0.5, s >= t is least at s = t = 0.25:
   * 2.425. */
  CHECK(NAME("cut row certified"), certified(lp, &m, 2.425));
  /* {a,b} dearer (3) and the cut at rhs 1: the cost 4 - s - 0.8t over
   * s + t <= 1, s >= t is least at s = 1, t = 0 (the singletons): 3. */
  cg_lp_cost(lp, 3, 3);
  m.cost[3] = 3;
  cg_lp_row_bounds(lp, 3, -INFINITY, 1);
  m.rhi[3] = 1;
  CHECK(NAME("changed costs optimal"), cg_lp_solve(lp, 0, 0) == CG_LP_OPT);
  CHECK(NAME("changed costs certified"), certified(lp, &m, 3));
  /* Nothing may cover a: infeasible. */
  cg_lp_col_bounds(lp, 0, 0, 0);
  cg_lp_col_bounds(lp, 3, 0, 0);
  CHECK(NAME("infeasible reported"), cg_lp_solve(lp, 1, 0) == CG_LP_INFEAS);
  /* Columns added while infeasible, then feasible again. */
  m.chi[0] = 0, m.chi[3] = 0;
  col(lp, &m, (int[]){0, 2}, 2, 1.1, 0, INFINITY);
  CHECK(NAME("feasible again"), cg_lp_solve(lp, 0, 0) == CG_LP_OPT);
  /* {a,c} 1.1 + {b} 1 = 2.1. */
  CHECK(NAME("feasible again certified"), certified(lp, &m, 2.1));
  cg_lp_free(lp);
  /* An empty LP (a region without invocations makes none, but no crash). */
  cg_lp_free(cg_lp_new(kind, 0));
#undef NAME
}

int main(void) {
  script(CG_LP_CLP);
  script(CG_LP_GLPK);
  unsetenv("NESSIE_CG_LP");
  CHECK("default is clp", cg_lp_default() == CG_LP_CLP);
  setenv("NESSIE_CG_LP", "glpk", 1);
  CHECK("NESSIE_CG_LP=glpk", cg_lp_default() == CG_LP_GLPK);
  return 0;
}
