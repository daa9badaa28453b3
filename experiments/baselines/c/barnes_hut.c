/* barnes_hut.c — 2-D Barnes–Hut accelerations (θ = 0.5, unit masses, softening 10^-4),
 * as experiments/programs/barnes_hut.nesl: the quadtree over the unit square is built
 * once (a square with at most 4 bodies, or smaller than 10^-6, is a leaf whose bodies
 * pull directly; a square whose centre of mass c satisfies size² < 0.25 |t − c|² pulls
 * as one body of its mass), then one OpenMP loop walks it for every body. Result: the
 * sum of the acceleration norms (the NESL program's 3rd value). ./barnes_hut N [SEED] */
#include "suite.h"

typedef struct {
  long first, count; /* the node's bodies: idx[first .. first + count) */
  double cx, cy, m;  /* centre of mass and mass */
  int kid[4];        /* children by quadrant (x >= mid) + 2 (y >= mid), -1 if empty */
  int leaf;
} Node;

static Node *nodes;
static long nnodes, cap;
static long *idx, *tmp;
static double *px, *py;

/* The node of the square (x0, y0, size) holding idx[first .. first + count). */
static int build(long first, long count, double x0, double y0, double size) {
  if (nnodes == cap) {
    cap = cap ? 2 * cap : 1024;
    nodes = realloc(nodes, sizeof(Node) * (size_t)cap);
    if (!nodes) {
      fprintf(stderr, "out of memory\n");
      exit(1);
    }
  }
  int me = (int)nnodes++;
  Node nd = {first, count, 0, 0, (double)count, {-1, -1, -1, -1}, 0};
  for (long i = first; i < first + count; i++) {
    nd.cx += px[idx[i]];
    nd.cy += py[idx[i]];
  }
  nd.cx /= nd.m;
  nd.cy /= nd.m;
  if (count <= 4 || size < 1.0e-6) {
    nd.leaf = 1;
    nodes[me] = nd;
    return me;
  }
  double half = size / 2.0;
  long start[5] = {0};
  for (long i = first; i < first + count; i++) {
    long b = idx[i];
    start[1 + (px[b] >= x0 + half) + 2 * (py[b] >= y0 + half)]++;
  }
  for (int k = 0; k < 4; k++) start[k + 1] += start[k];
  long fill[4] = {start[0], start[1], start[2], start[3]};
  for (long i = first; i < first + count; i++) { /* stable: bodies keep their order */
    long b = idx[i];
    tmp[first + fill[(px[b] >= x0 + half) + 2 * (py[b] >= y0 + half)]++] = b;
  }
  memcpy(idx + first, tmp + first, sizeof(long) * (size_t)count);
  for (int k = 0; k < 4; k++)
    if (start[k + 1] > start[k])
      nd.kid[k] = build(first + start[k], start[k + 1] - start[k], x0 + half * (k % 2), y0 + half * (k / 2), half);
  nodes[me] = nd;
  return me;
}

static void pull(double tx, double ty, double sx, double sy, double m, double *ax, double *ay) {
  double dx = sx - tx, dy = sy - ty, r2 = dx * dx + dy * dy + 0.0001, f = m / (r2 * sqrt(r2));
  *ax += f * dx;
  *ay += f * dy;
}

static void accel(int n, double size, double tx, double ty, double *ax, double *ay) {
  const Node *nd = &nodes[n];
  if (nd->leaf) {
    for (long i = nd->first; i < nd->first + nd->count; i++) pull(tx, ty, px[idx[i]], py[idx[i]], 1.0, ax, ay);
    return;
  }
  double dx = tx - nd->cx, dy = ty - nd->cy;
  if (size * size < 0.25 * (dx * dx + dy * dy)) {
    pull(tx, ty, nd->cx, nd->cy, nd->m, ax, ay);
    return;
  }
  for (int k = 0; k < 4; k++)
    if (nd->kid[k] >= 0) accel(nd->kid[k], size / 2.0, tx, ty, ax, ay);
}

int main(int argc, char **argv) {
  long n = suite_args(argc, argv, "bodies");
  px = suite_alloc(sizeof(double) * (size_t)n);
  py = suite_alloc(sizeof(double) * (size_t)n);
  idx = suite_alloc(sizeof(long) * (size_t)n);
  tmp = suite_alloc(sizeof(long) * (size_t)n);
  double *norm = suite_alloc(sizeof(double) * (size_t)n);
  for (long i = 0; i < n; i++) {
    px[i] = suite_unit(2 * i);
    py[i] = suite_unit(2 * i + 1);
    idx[i] = i;
  }
  double t0 = suite_now();
  build(0, n, 0.0, 0.0, 1.0);
#pragma omp parallel for schedule(dynamic, 64)
  for (long i = 0; i < n; i++) {
    double ax = 0, ay = 0;
    accel(0, 1.0, px[i], py[i], &ax, &ay);
    norm[i] = sqrt(ax * ax + ay * ay);
  }
  double t1 = suite_now(), total = 0;
  for (long i = 0; i < n; i++) total += norm[i];
  suite_report_float(total, t1 - t0);
  free(norm);
  free(tmp);
  free(idx);
  free(py);
  free(px);
  free(nodes);
  return 0;
}
