/* cost_model.c — cost models beside the paper's unit one (issue 38): the cost
 * file's text form, sizes attached to a region graph, and the non-negative
 * least squares the calibration fits the weights with (fusion/README.md,
 * "Cost models").
 *
 * A cost file is lines of `key value`, `#` to the end of a line a comment:
 *
 *   model sized           # or unit (then nothing else is read)
 *   launch 2.0e-06        # seconds per kernel launch
 *   pass 1.0e-09          # seconds per element of a kernel's iteration space
 *   write 4.0e-09         # seconds per element of a materialised array
 *   read 1.0e-09          # seconds per element of a traversal
 *   default-size 1000     # elements where a size is not known
 *
 * Every key of a sized model must be given once; weights are finite and
 * non-negative (the schedulers' bounds assume it), default-size positive. */
#include "fusion.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>

const FusCostModel fus_cost_unit = {.unit = 1, .default_size = 1, .origin = "unit"};

static const struct {
  const char *key;
  size_t off;
} keys[] = {
    {"launch", offsetof(FusCostModel, launch)},
    {"pass", offsetof(FusCostModel, pass)},
    {"write", offsetof(FusCostModel, write)},
    {"read", offsetof(FusCostModel, read)},
    {"default-size", offsetof(FusCostModel, default_size)},
};
enum { NKEYS = sizeof keys / sizeof keys[0] };

static int bad(const char *what, int line, int col, const char *msg, const char *word, int wlen) {
  fprintf(stderr, "%s:%d:%d: error: %s", what, line, col, msg);
  if (word) fprintf(stderr, " '%.*s'", wlen, word);
  fputc('\n', stderr);
  return -1;
}

int fus_cost_model_parse(const char *text, const char *what, FusCostModel *out) {
  FusCostModel m = {0};
  int seen[NKEYS] = {0}, model = -1, line = 1;
  for (const char *p = text; *p; line++) {
    const char *eol = strchr(p, '\n');
    if (!eol) eol = p + strlen(p);
    const char *q = p;
    const char *words[3];
    int lens[3], nw = 0;
    while (q < eol && *q != '#') {
      while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
      if (q >= eol || *q == '#') break;
      const char *w0 = q;
      while (q < eol && *q != ' ' && *q != '\t' && *q != '\r' && *q != '#') q++;
      if (nw == 2) return bad(what, line, (int)(w0 - p) + 1, "one key and one value per line; unexpected", w0, (int)(q - w0));
      words[nw] = w0, lens[nw++] = (int)(q - w0);
    }
    if (nw == 1) return bad(what, line, (int)(words[0] - p) + 1, "no value after", words[0], lens[0]);
    if (nw == 2) {
      int col = (int)(words[1] - p) + 1;
      if (lens[0] == 5 && !strncmp(words[0], "model", 5)) {
        if (model >= 0) return bad(what, line, 1, "model given twice", NULL, 0);
        if (lens[1] == 4 && !strncmp(words[1], "unit", 4)) model = 1;
        else if (lens[1] == 5 && !strncmp(words[1], "sized", 5)) model = 0;
        else return bad(what, line, col, "unknown model (unit or sized)", words[1], lens[1]);
      } else {
        int k = 0;
        while (k < NKEYS && !(strlen(keys[k].key) == (size_t)lens[0] && !strncmp(keys[k].key, words[0], (size_t)lens[0]))) k++;
        if (k == NKEYS)
          return bad(what, line, 1, "unknown key (model, launch, pass, write, read, default-size)", words[0], lens[0]);
        if (seen[k]) return bad(what, line, 1, "key given twice", words[0], lens[0]);
        char num[64];
        if (lens[1] >= (int)sizeof num) return bad(what, line, col, "not a number", words[1], lens[1]);
        memcpy(num, words[1], (size_t)lens[1]);
        num[lens[1]] = 0;
        char *end;
        errno = 0;
        double v = strtod(num, &end);
        if (*end || end == num || errno || !isfinite(v) || v < 0)
          return bad(what, line, col, "not a finite non-negative number", words[1], lens[1]);
        if (keys[k].off == offsetof(FusCostModel, default_size) && v <= 0)
          return bad(what, line, col, "default-size must be positive:", words[1], lens[1]);
        *(double *)((char *)&m + keys[k].off) = v;
        seen[k] = 1;
      }
    }
    p = *eol ? eol + 1 : eol;
  }
  if (model < 0) {
    fprintf(stderr, "%s: error: no `model unit` or `model sized` line\n", what);
    return -1;
  }
  if (model == 1) {
    *out = fus_cost_unit;
    return 0;
  }
  for (int k = 0; k < NKEYS; k++)
    if (!seen[k]) {
      fprintf(stderr, "%s: error: a sized model needs `%s`\n", what, keys[k].key);
      return -1;
    }
  m.unit = 0;
  m.origin = what;
  *out = m;
  return 0;
}

int fus_cost_model_load(const char *path, FusCostModel *out) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "nessie: cannot read the cost file %s: %s\n", path, strerror(errno));
    return -1;
  }
  NzBuf b = {0};
  char chunk[4096];
  size_t got, total = 0;
  int nul = 0;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
    nul |= memchr(chunk, 0, got) != NULL;
    total += got;
    if (total > (1u << 20)) break;
    for (size_t i = 0; i < got; i++) nz_buf_putc(&b, chunk[i]);
  }
  int err = ferror(f);
  fclose(f);
  if (err || nul || total > (1u << 20)) {
    fprintf(stderr, "%s: error: %s\n", path,
            err ? "read error" : nul ? "a cost file is text (it has a NUL byte)" : "a cost file is at most 1 MB");
    nz_buf_free(&b);
    return -1;
  }
  int rc = fus_cost_model_parse(b.s ? b.s : "", path, out);
  nz_buf_free(&b);
  return rc;
}

void fus_cost_model_print(NzBuf *b, const FusCostModel *m, const char *comment) {
  if (comment) nz_buf_printf(b, "# %s\n", comment);
  if (m->unit) {
    nz_buf_printf(b, "model unit\n");
    return;
  }
  nz_buf_printf(b, "model sized\n");
  nz_buf_printf(b, "launch %.17g   # seconds per kernel launch\n", m->launch);
  nz_buf_printf(b, "pass %.17g   # seconds per element of a kernel's iteration space\n", m->pass);
  nz_buf_printf(b, "write %.17g   # seconds per element of a materialised array\n", m->write);
  nz_buf_printf(b, "read %.17g   # seconds per element of a traversal\n", m->read);
  nz_buf_printf(b, "default-size %.17g   # elements where a size is not known\n", m->default_size);
}

void fus_graph_set_model(FusGraph *g, const FusCostModel *m, const double *inv_elems) {
  g->model = m;
  g->inv_size = g->var_size = NULL;
  if (!m || m->unit) return;
  double *is = NZ_NEWN(g->arena, double, g->ninv ? g->ninv : 1);
  double *vs = NZ_NEWN(g->arena, double, g->nvar ? g->nvar : 1);
  /* A constant symbolic space (fus_shape.c) is exact; else what was measured. */
  for (int i = 0; i < g->ninv; i++)
    is[i] = g->space_value && g->space_value[i] >= 0 ? g->space_value[i]
            : inv_elems && inv_elems[i] >= 0      ? inv_elems[i]
                                                   : -1;
  /* Invocations over the same symbolic space share what is known of it. */
  for (int i = 0; i < g->ninv; i++)
    if (is[i] < 0 && g->inv[i].size != FUS_UNKNOWN)
      for (int j = 0; j < g->ninv; j++)
        if (is[j] >= 0 && g->inv[j].size == g->inv[i].size) {
          is[i] = is[j];
          break;
        }
  for (int i = 0; i < g->ninv; i++) {
    if (g->inv[i].soac == LS_ONCE) is[i] = 1;
    else if (is[i] < 0) is[i] = m->default_size;
  }
  /* An array's length: the space of a consumer that iterates over it (that is
   * its length), else its producer's space (exact for MAP, SCAN and PERMUTE,
   * an upper bound for FILTER), else the default. */
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x = &g->var[v];
    double s = -1;
    for (int u = 0; u < x->nconsumers && s < 0; u++) {
      int c = x->consumers[u];
      if (fus_uses(g, c, v) == 1 && g->inv[c].soac != LS_ONCE) s = is[c];
    }
    if (s < 0 && x->producer >= 0 && g->inv[x->producer].soac != LS_ONCE) s = is[x->producer];
    vs[v] = s < 0 ? m->default_size : s;
  }
  g->inv_size = is, g->var_size = vs;
}

void fus_graph_set_runs(FusGraph *g, double runs) { g->runs = runs >= 1 ? runs : 1; }

int fus_profile_row(char *line, FusProfileRow *out) {
  size_t len = strlen(line);
  while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
  if (!strncmp(line, "program,backend,device,kernel,cluster,", 38)) return 0;
  char *field[7]; /* kernel .. seconds, from the right */
  for (int k = 6; k >= 0; k--) {
    char *c = strrchr(line, ',');
    if (!c) return -1;
    *c = 0;
    field[k] = c + 1;
  }
  double num[5];
  for (int k = 0; k < 5; k++) {
    char *end;
    num[k] = strtod(field[2 + k], &end);
    if (end == field[2 + k] || *end || !isfinite(num[k]) || num[k] < 0) return -1;
  }
  if (!strcmp(field[0], "(total)")) return 0;
  *out = (FusProfileRow){field[0], field[1], num[0], num[1], num[2], num[3], num[4]};
  return 1;
}

/* --------------------------------------------------------------- fitting */

/* Solves the k x k system M z = r (M symmetric positive definite on the
 * passive set) by Gaussian elimination with partial pivoting; 0, or -1 when
 * singular. */
static int solve(int k, double *M, double *r, double *z) {
  for (int c = 0; c < k; c++) {
    int piv = c;
    for (int i = c + 1; i < k; i++)
      if (fabs(M[i * k + c]) > fabs(M[piv * k + c])) piv = i;
    if (fabs(M[piv * k + c]) < 1e-300) return -1;
    if (piv != c) {
      for (int j = 0; j < k; j++) {
        double t = M[c * k + j];
        M[c * k + j] = M[piv * k + j], M[piv * k + j] = t;
      }
      double t = r[c];
      r[c] = r[piv], r[piv] = t;
    }
    for (int i = c + 1; i < k; i++) {
      double f = M[i * k + c] / M[c * k + c];
      for (int j = c; j < k; j++) M[i * k + j] -= f * M[c * k + j];
      r[i] -= f * r[c];
    }
  }
  for (int c = k - 1; c >= 0; c--) {
    double s = r[c];
    for (int j = c + 1; j < k; j++) s -= M[c * k + j] * z[j];
    z[c] = s / M[c * k + c];
  }
  return 0;
}

/* Least squares restricted to the columns in P (mask), on column-scaled
 * normal equations G = AᵀA, h = Aᵀy: z gets the solution, 0 outside P. */
static int ls_on(int ncol, const double *G, const double *h, const int *P, double *z) {
  int idx[8], k = 0;
  for (int c = 0; c < ncol; c++)
    if (P[c]) idx[k++] = c;
  double M[64], r[8], s[8];
  for (int a = 0; a < k; a++) {
    r[a] = h[idx[a]];
    for (int b = 0; b < k; b++) M[a * k + b] = G[idx[a] * ncol + idx[b]];
  }
  for (int c = 0; c < ncol; c++) z[c] = 0;
  if (k && solve(k, M, r, s) != 0) return -1;
  for (int a = 0; a < k; a++) z[idx[a]] = s[a];
  return 0;
}

int fus_nnls(int nrow, int ncol, const double *A, const double *y, double *x) {
  if (ncol < 1 || ncol > 8 || nrow < ncol) return -1;
  /* Scale columns to unit norm: launch counts and element counts differ by
   * orders of magnitude, and the normal equations square that. */
  double scale[8], G[64], h[8];
  for (int c = 0; c < ncol; c++) {
    double s = 0;
    for (int i = 0; i < nrow; i++) s += A[i * ncol + c] * A[i * ncol + c];
    if (s <= 0) return -1;
    scale[c] = 1 / sqrt(s);
  }
  for (int a = 0; a < ncol; a++) {
    h[a] = 0;
    for (int i = 0; i < nrow; i++) h[a] += A[i * ncol + a] * scale[a] * y[i];
    for (int b = 0; b < ncol; b++) {
      double s = 0;
      for (int i = 0; i < nrow; i++) s += A[i * ncol + a] * scale[a] * A[i * ncol + b] * scale[b];
      G[a * ncol + b] = s;
    }
  }
  /* Lawson–Hanson active sets: P the passive (free) columns. */
  int P[8] = {0};
  double z[8], xs[8] = {0}, wgrad[8];
  for (int iter = 0; iter < 3 * ncol + 10; iter++) {
    int best = -1;
    for (int c = 0; c < ncol; c++) {
      wgrad[c] = h[c];
      for (int b = 0; b < ncol; b++) wgrad[c] -= G[c * ncol + b] * xs[b];
      if (!P[c] && wgrad[c] > 1e-12 && (best < 0 || wgrad[c] > wgrad[best])) best = c;
    }
    if (best < 0) break;
    P[best] = 1;
    for (;;) {
      if (ls_on(ncol, G, h, P, z) != 0) return -1;
      int neg = 0;
      for (int c = 0; c < ncol; c++) neg |= P[c] && z[c] <= 0;
      if (!neg) break;
      double alpha = 1;
      for (int c = 0; c < ncol; c++)
        if (P[c] && z[c] <= 0) {
          double t = xs[c] / (xs[c] - z[c]);
          if (t < alpha) alpha = t;
        }
      for (int c = 0; c < ncol; c++) {
        xs[c] += alpha * (z[c] - xs[c]);
        if (P[c] && xs[c] <= 1e-15) P[c] = 0, xs[c] = 0;
      }
    }
    memcpy(xs, z, sizeof xs);
  }
  for (int c = 0; c < ncol; c++) x[c] = xs[c] * scale[c];
  return 0;
}
