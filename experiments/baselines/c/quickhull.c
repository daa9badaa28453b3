/* quickhull.c — quickhull on N points in the unit square, the points right of each
 * hull edge filtered and split on the farthest one, the two sides as OpenMP tasks, as
 * experiments/programs/quickhull.nesl; result: the hull's area. */
#include "suite.h"

typedef struct {
  double x, y;
} Pt;

static double cross(Pt o, Pt a, Pt b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

/* Writes to out the hull vertices from p1 (included) to p2 (excluded) that lie left
 * of p1->p2 among pts, in order, and returns how many; pts is reordered. */
static long hsplit(Pt *pts, long n, Pt p1, Pt p2, Pt *out) {
  long m = 0, best = -1;
  double far = 0;
  for (long i = 0; i < n; i++) {
    double c = cross(pts[i], p1, p2);
    if (c > 0) {
      Pt t = pts[m]; pts[m] = pts[i]; pts[i] = t;
      if (best < 0 || c > far) far = c, best = m;
      m++;
    }
  }
  if (m < 2) {
    out[0] = p1;
    if (m == 1) out[1] = pts[0];
    return 1 + m;
  }
  Pt pm = pts[best];
  /* the two sides get disjoint copies so the tasks do not share points */
  Pt *left = suite_alloc(sizeof(Pt) * m), *right = suite_alloc(sizeof(Pt) * m);
  Pt *o1 = suite_alloc(sizeof(Pt) * (m + 1)), *o2 = suite_alloc(sizeof(Pt) * (m + 1));
  memcpy(left, pts, sizeof(Pt) * m);
  memcpy(right, pts, sizeof(Pt) * m);
  long k1, k2;
#pragma omp task shared(k1) if (m > 10000)
  k1 = hsplit(left, m, p1, pm, o1);
  k2 = hsplit(right, m, pm, p2, o2);
#pragma omp taskwait
  memcpy(out, o1, sizeof(Pt) * k1);
  memcpy(out + k1, o2, sizeof(Pt) * k2);
  free(left), free(right), free(o1), free(o2);
  return k1 + k2;
}

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "points");
  Pt *pts = suite_alloc(sizeof(Pt) * n), *hull = suite_alloc(sizeof(Pt) * (n + 2));
  for (long i = 0; i < n; i++) pts[i] = (Pt){suite_unit(2 * i), suite_unit(2 * i + 1)};
  double t0 = suite_now();
  long lo = 0, hi = 0;
  for (long i = 1; i < n; i++) {
    if (pts[i].x < pts[lo].x) lo = i;
    if (pts[i].x > pts[hi].x) hi = i;
  }
  Pt a = pts[lo], b = pts[hi];
  long k = 0;
#pragma omp parallel
#pragma omp single
  {
    k = hsplit(pts, n, b, a, hull); /* the upper chain: points left of max -> min */
    k += hsplit(pts, n, a, b, hull + k);
  }
  double area = 0;
  for (long i = 0; i < k; i++) {
    Pt p = hull[i], q = hull[(i + 1) % k];
    area += p.x * q.y - q.x * p.y;
  }
  double t1 = suite_now();
  suite_report_float(fabs(area) / 2.0, t1 - t0);
  free(pts), free(hull);
  return 0;
}
