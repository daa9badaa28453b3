/* rt_io.c — a compiled program's boundary: main's arguments (the literals and
 * random inputs of `nessie lcu run`, through the λcu value code, so both read
 * and print values identically), result printing, print and the segment
 * descriptor primitives, and rt_main. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lcu.h"
#include "nessie_rt.h"
#include "rt_internal.h"

const RtProgram *rt_current;

void rt_float_text(char *buf, size_t cap, double x) {
  NzBuf b = {0};
  lcu_float_print(&b, x);
  snprintf(buf, cap, "%s", b.s ? b.s : "");
  nz_buf_free(&b);
}

/* ------------------------------------------------- types from their text */

static const LcuType *parse_type(const char **s);

static void skip_ws(const char **s) {
  while (**s == ' ') (*s)++;
}

static int word(const char **s, const char *w) {
  size_t n = strlen(w);
  if (strncmp(*s, w, n)) return 0;
  *s += n;
  return 1;
}

static LcuTypeKind base_kind(const char **s) {
  if (word(s, "bool")) return LT_BOOL;
  if (word(s, "char")) return LT_CHAR;
  if (word(s, "int")) return LT_INT;
  if (word(s, "float")) return LT_FLOAT;
  nz_die("runtime: bad type text at '%s'", *s);
}

static const LcuType *parse_type(const char **s) {
  skip_ws(s);
  if (word(s, "segdes")) return lcu_type_base(LT_SEGDES);
  if (word(s, "[")) {
    LcuTypeKind k = base_kind(s);
    if (!word(s, "]")) nz_die("runtime: bad array type text");
    return lcu_type_array(k);
  }
  if (word(s, "(")) {
    const LcuType *el[64];
    int n = 0;
    skip_ws(s);
    while (!word(s, ")")) {
      if (n == 64) nz_die("runtime: tuple type too wide");
      el[n++] = parse_type(s);
      skip_ws(s);
      word(s, ",");
      skip_ws(s);
    }
    return lcu_type_tuple(n, el);
  }
  return lcu_type_base(base_kind(s));
}

static const LcuType *type_of_text(const char *text) {
  const char *s = text;
  return parse_type(&s);
}

/* ------------------------------------------ cells <-> interpreter values */

static int elem_of(LcuTypeKind k) {
  switch (k) {
  case LT_BOOL: return RT_BOOL;
  case LT_CHAR: return RT_CHAR;
  case LT_INT: return RT_INT;
  default: return RT_FLOAT;
  }
}

static size_t elem_bytes(LcuTypeKind k) { return k == LT_FLOAT ? 8 : k == LT_INT ? 4 : 1; }

/* --float32 (RtProgram.float32): the program's float arrays hold floats. The λcu
 * value code (printing, show, format, I/O, parsing) works on doubles, so this
 * boundary narrows the float arrays it hands to the program and widens the ones
 * it reads (elems). Float scalars cross as double cells; generated code converts. */
static int float32_mode(void) { return rt_current && rt_current->float32; }

static RtArr *narrowed(const double *x, int64_t n) {
  RtArr *a = rt_arr_new(RT_FLOAT32, n);
  for (int64_t j = 0; j < n; j++) ((float *)a->d)[j] = (float)x[j];
  return a;
}

/* a's elements as the λcu value code reads them: a->d itself, or (RT_FLOAT32) a
 * widened copy that *tmp owns (free it when done). */
static void *elems(const RtArr *a, void **tmp) {
  *tmp = NULL;
  if (a->elem != RT_FLOAT32) return a->d;
  double *w = nz_xmalloc(sizeof(double) * (size_t)(a->len > 0 ? a->len : 1));
  for (int64_t j = 0; j < a->len; j++) w[j] = ((const float *)a->d)[j];
  return *tmp = w;
}

/* Converts v (released here) into cells; returns the cells written. */
static int to_cells(LcuValue v, RtCell *c) {
  switch (v.kind) {
  case LT_BOOL: c->b = (uint8_t)(v.u.b != 0); return 1;
  case LT_CHAR: c->b = v.u.c; return 1;
  case LT_INT: c->i = v.u.i; return 1;
  case LT_FLOAT: c->f = v.u.f; return 1;
  case LT_ARRAY: {
    RtArr *a;
    if (v.u.arr->elem == LT_FLOAT && float32_mode()) {
      a = narrowed(v.u.arr->d.f, v.u.arr->len);
    } else {
      a = rt_arr_new(elem_of(v.u.arr->elem), v.u.arr->len);
      if (a->len) memcpy(a->d, v.u.arr->d.b, elem_bytes(v.u.arr->elem) * (size_t)a->len);
    }
    c->a = a;
    lcu_value_release(v);
    return 1;
  }
  case LT_SEGDES:
    c->s = rt_seg_from_lens(v.u.sd->lens, v.u.sd->nsegs);
    lcu_value_release(v);
    return 1;
  case LT_TUPLE: {
    int n = 0;
    for (int k = 0; k < v.u.tup.n; k++) n += to_cells(v.u.tup.elems[k], c + n);
    free(v.u.tup.elems);
    return n;
  }
  }
  return 0;
}

/* Prints the value of type ty held in cells; returns the cells read. The
 * arrays are borrowed: the LcuArray views point at the runtime's data. */
static int print_cells(NzBuf *b, const LcuType *ty, const RtCell *c) {
  LcuValue v = {.kind = ty->kind};
  switch (ty->kind) {
  case LT_BOOL: v.u.b = c->b; break;
  case LT_CHAR: v.u.c = c->b; break;
  case LT_INT: v.u.i = c->i; break;
  case LT_FLOAT: v.u.f = c->f; break;
  case LT_ARRAY: {
    void *tmp;
    LcuArray view = {1, ty->elem, c->a->len, {.b = elems(c->a, &tmp)}};
    v.u.arr = &view;
    lcu_value_print(b, v);
    free(tmp);
    return 1;
  }
  case LT_SEGDES: {
    LcuSegdes view = {1, c->s->nsegs, c->s->total, c->s->lens, c->s->starts, NULL};
    v.u.sd = &view;
    lcu_value_print(b, v);
    return 1;
  }
  case LT_TUPLE: {
    int n = 0;
    nz_buf_putc(b, '(');
    for (int k = 0; k < ty->n; k++) {
      if (k) nz_buf_puts(b, ", ");
      n += print_cells(b, ty->elems[k], c + n);
    }
    nz_buf_putc(b, ')');
    return n;
  }
  }
  lcu_value_print(b, v);
  return 1;
}

static int release_cells(const LcuType *ty, RtCell *c) {
  switch (ty->kind) {
  case LT_ARRAY: rt_release(c->a); return 1;
  case LT_SEGDES: rt_seg_release(c->s); return 1;
  case LT_TUPLE: {
    int n = 0;
    for (int k = 0; k < ty->n; k++) n += release_cells(ty->elems[k], c + n);
    return n;
  }
  default: return 1;
  }
}

void rt_print(const char *type, const RtCell *cells) {
  NzBuf b = {0};
  print_cells(&b, type_of_text(type), cells);
  nz_buf_putc(&b, '\n');
  fwrite(b.s, 1, b.len, stdout);
  nz_buf_free(&b);
}

/* --------------------------------------------------- CPU-only primitives */

/* Borrowed views of cells as λcu values (for lcu_show): arrays and segdes point at the
 * runtime's data through the headers in arrs[] and sds[] (a --float32 array at a
 * widened copy in tmp[], freed by the caller). */
static int view_cells(const LcuType *ty, const RtCell *c, LcuValue *v, LcuArray *arrs, LcuSegdes *sds,
                      void **tmp) {
  switch (ty->kind) {
  case LT_TUPLE: {
    int n = 0;
    for (int k = 0; k < ty->n; k++) n += view_cells(ty->elems[k], c + n, v + n, arrs + n, sds + n, tmp + n);
    return n;
  }
  case LT_ARRAY:
    arrs[0] = (LcuArray){1, ty->elem, c->a->len, {.b = elems(c->a, tmp)}};
    *v = (LcuValue){.kind = LT_ARRAY, .u.arr = arrs};
    return 1;
  case LT_SEGDES:
    sds[0] = (LcuSegdes){1, c->s->nsegs, c->s->total, c->s->lens, c->s->starts, NULL};
    *v = (LcuValue){.kind = LT_SEGDES, .u.sd = sds};
    return 1;
  case LT_BOOL: *v = lcu_value_bool(c->b); return 1;
  case LT_CHAR: *v = lcu_value_char(c->b); return 1;
  case LT_INT: *v = lcu_value_int(c->i); return 1;
  case LT_FLOAT: *v = lcu_value_float(c->f); return 1;
  }
  return 0;
}

/* The ncells cells of type `type` as λcu values (views_free when done). */
typedef struct {
  LcuValue *v;
  LcuArray *arrs;
  LcuSegdes *sds;
  void **tmp;
  int n;
} Views;

static Views views_of(const char *type, const RtCell *cells, int ncells) {
  Views w = {.n = ncells ? ncells : 1};
  w.v = nz_xcalloc((size_t)w.n, sizeof *w.v);
  w.arrs = nz_xcalloc((size_t)w.n, sizeof *w.arrs);
  w.sds = nz_xcalloc((size_t)w.n, sizeof *w.sds);
  w.tmp = nz_xcalloc((size_t)w.n, sizeof *w.tmp);
  view_cells(type_of_text(type), cells, w.v, w.arrs, w.sds, w.tmp);
  return w;
}

static void views_free(Views *w) {
  for (int k = 0; k < w->n; k++) free(w->tmp[k]);
  free(w->v);
  free(w->arrs);
  free(w->sds);
  free(w->tmp);
}

void rt_show(const RtArr *text, const char *type, const RtCell *cells, int ncells, int loc) {
  Views w = views_of(type, cells, ncells);
  NzBuf b = {0};
  int rc = lcu_show(&b, (const char *)text->d, (size_t)text->len, w.v, ncells);
  views_free(&w);
  if (rc != 0) rt_fault(-1, loc, "show: the value does not match the description '%.*s'", (int)text->len,
                        (const char *)text->d);
  fwrite(b.s, 1, b.len, stdout);
  nz_buf_free(&b);
}

/* (segdes, [char]) of n rows of text: row r has lens[r] characters of b. */
static void seg_text(int32_t *lens, int64_t n, NzBuf *b, RtSeg **sd, RtArr **chars, int loc, const char *what) {
  if (b->len > INT32_MAX) {
    free(lens);
    nz_buf_free(b);
    rt_fault(-1, loc, "%s: more than 2147483647 characters of text", what);
  }
  *chars = rt_arr_new(RT_CHAR, (int64_t)b->len);
  if (b->len) memcpy((*chars)->d, b->s, b->len);
  *sd = rt_seg_from_lens(lens, n);
  free(lens);
  nz_buf_free(b);
}

void rt_format(const RtArr *text, int32_t n, const char *type, const RtCell *cells, int ncells, RtSeg **sd,
               RtArr **chars, int loc) {
  Views w = views_of(type, cells, ncells);
  int32_t *lens = nz_xmalloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
  NzBuf b = {0};
  int rc = lcu_format(&b, lens, (const char *)text->d, (size_t)text->len, n, w.v, ncells);
  views_free(&w);
  if (rc != 0) {
    free(lens);
    nz_buf_free(&b);
    rt_fault(-1, loc, "format: %d rows of the value do not match the description '%.*s'", n, (int)text->len,
             (const char *)text->d);
  }
  seg_text(lens, n, &b, sd, chars, loc, "format");
}

void rt_float_format(const RtArr *x, const RtArr *digits, const RtArr *sci, RtSeg **sd, RtArr **chars, int loc) {
  int64_t n = x->len;
  if (digits->len != n || sci->len != n)
    rt_fault(-1, loc, "float_text: arrays of lengths %lld, %lld and %lld", (long long)n, (long long)digits->len,
             (long long)sci->len);
  int32_t *lens = nz_xmalloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
  NzBuf b = {0};
  void *tmp;
  lcu_float_text(&b, lens, elems(x, &tmp), digits->d, sci->d, n);
  free(tmp);
  seg_text(lens, n, &b, sd, chars, loc, "float_text");
}

void rt_parse_float(const RtSeg *sd, const RtArr *chars, RtArr **xs, RtArr **ok, int loc) {
  if (sd->total != chars->len)
    rt_fault(-1, loc, "parse_float: a segdes of %lld elements over %lld characters", (long long)sd->total,
             (long long)chars->len);
  *xs = rt_arr_new(float32_mode() ? RT_FLOAT32 : RT_FLOAT, sd->nsegs);
  *ok = rt_arr_new(RT_BOOL, sd->nsegs);
  const char *c = chars->d;
  for (int64_t r = 0; r < sd->nsegs; r++) {
    double x = 0;
    ((uint8_t *)(*ok)->d)[r] = nz_parse_float(c + sd->starts[r], sd->lens[r], &x);
    if ((*xs)->elem == RT_FLOAT32) ((float *)(*xs)->d)[r] = (float)x;
    else ((double *)(*xs)->d)[r] = x;
  }
}

void rt_print_chars(const RtArr *chars) { fwrite(chars->d, 1, (size_t)chars->len, stdout); }

void rt_io_call(const char *name, const char *argtype, const RtCell *args, RtCell *res) {
  const LcuType *aty = type_of_text(argtype);
  LcuValue v[2];
  LcuArray arrs[2];
  LcuSegdes sds[2];
  void *tmp[2] = {NULL, NULL};
  if (lcu_type_arity(aty) > 2) rt_fault(-1, -1, "rt_io_call: %s takes at most two operands", name);
  view_cells(aty, args, v, arrs, sds, tmp);
  int op = 0;
  while (op < LP__COUNT && strcmp(lcu_prim_info((LcuPrim)op)->name, name)) op++;
  if (op == LP__COUNT) rt_fault(-1, -1, "rt_io_call: no primitive %s", name);
  to_cells(lcu_io_call((LcuPrim)op, v), res);
  free(tmp[0]);
  free(tmp[1]);
}

void rt_read_objects(const RtArr *text, const RtSeg *sd, const RtArr *cs, RtCell *res, int nres, int loc) {
  LcuSegdes sv = {1, sd->nsegs, sd->total, sd->lens, sd->starts, NULL};
  LcuArray cv = {1, LT_CHAR, cs->len, {.b = cs->d}};
  LcuValue *out = nz_xcalloc((size_t)nres, sizeof *out);
  if (lcu_read_objects((const char *)text->d, (size_t)text->len, &sv, &cv, out, nres - 1) != 0)
    rt_fault(-1, loc, "read_object: the description '%.*s' does not fit the operands", (int)text->len,
             (const char *)text->d);
  for (int k = 0; k < nres; k++) to_cells(out[k], res + k);
  free(out);
}

RtSeg *rt_make_segdes(const RtArr *lens, int loc) {
  const int32_t *l = lens->d;
  int64_t total = 0;
  for (int64_t j = 0; j < lens->len; j++) {
    if (l[j] < 0)
      rt_fault(-1, loc, "make_segdes: negative segment length %d at position %lld", l[j], (long long)j);
    total += l[j];
  }
  if (total > INT32_MAX)
    rt_fault(-1, loc, "make_segdes: %lld elements in all, more than an int can index", (long long)total);
  return rt_seg_from_lens(l, lens->len);
}

void rt_fail_message(const RtArr *msg, int loc) {
  rt_fault(-1, loc, "%.*s", (int)msg->len, (const char *)msg->d);
}

void rt_fail_message_g(const RtArr *msg, double x, int loc) {
  NzBuf b = {0};
  nz_msg_g(&b, (const char *)msg->d, (size_t)msg->len, x);
  rt_fault(-1, loc, "%s", b.s ? b.s : "");
  nz_buf_free(&b);
}

RtArr *rt_seg_lengths(const RtSeg *s) {
  RtArr *a = rt_arr_new(RT_INT, s->nsegs);
  if (s->nsegs) memcpy(a->d, s->lens, sizeof(int32_t) * (size_t)s->nsegs);
  return a;
}

/* rand and timer: the generator is the compilers' (compiler/common/rand.c). */
static const char RAND_BAD[] = "Rand only works with positive numbers.";

int32_t rt_rand_int(int32_t v, int loc) {
  if (v <= 0) rt_fault(-1, loc, "%s", RAND_BAD);
  return nz_rand_int(v);
}

double rt_rand_float(double v, int loc) {
  if (!(v > 0)) rt_fault(-1, loc, "%s", RAND_BAD);
  return nz_rand_float(v);
}

RtArr *rt_rand_vec(const RtArr *bounds, int loc) {
  RtArr *r = rt_arr_new(bounds->elem, bounds->len);
  for (int64_t j = 0; j < bounds->len; j++) {
    if (bounds->elem == RT_FLOAT) ((double *)r->d)[j] = rt_rand_float(((const double *)bounds->d)[j], loc);
    else if (bounds->elem == RT_FLOAT32) ((float *)r->d)[j] = (float)rt_rand_float(((const float *)bounds->d)[j], loc);
    else ((int32_t *)r->d)[j] = rt_rand_int(((const int32_t *)bounds->d)[j], loc);
  }
  return r;
}

uint8_t rt_rand_seed(int32_t n) {
  nz_rand_seed(n);
  return 1;
}

double rt_timer(void) { return nz_now(); }

RtArr *rt_sort_perm(const RtSeg *sd, const RtArr *xs, int loc) {
  if (xs->len != sd->total)
    rt_fault(-1, loc, "sort_perm: %lld elements for a segdes of %lld", (long long)xs->len, (long long)sd->total);
  RtArr *r = rt_arr_new(RT_INT, xs->len);
  void *tmp;
  nz_sort_perm(sd->starts, sd->nsegs, (const double *)elems(xs, &tmp), (int32_t *)r->d);
  free(tmp);
  return r;
}

/* ------------------------------------------------------------- rt_main */

typedef struct {
  const RtProgram *p;
  RtCell *args, *res;
  double seconds;
} Job;

static void run_job(void *arg, size_t room) {
  Job *j = arg;
  rt_stack_limit = (char *)__builtin_frame_address(0) - room;
  double t0 = rt_now();
  j->p->entry(j->args, j->res);
  j->seconds = rt_now() - t0;
}

static int usage(const RtProgram *p, const char *prog) {
  fprintf(stderr,
          "usage: %s ARG... | --random-inputs [--seed=S] [--max-len=N]\n"
          "  compiled from %s; ARGs are literals of main's parameter types (%d)\n",
          prog, p->program, p->nparams);
  return 2;
}

/* OpenMP threads that wait for the next parallel region spin by default, and a
 * flattened program runs thousands of tiny kernels with serial code between them:
 * on a machine whose cores are shared the spinning threads make it about ten times
 * slower. libgomp reads OMP_WAIT_POLICY once, when it is loaded (before main), so
 * when the variable is unset the program runs itself again once with it set to
 * passive. A user's own setting (OMP_WAIT_POLICY=active) is kept; where the
 * program cannot be re-executed it goes on with libgomp's default. */
static void passive_wait_policy(char **argv) {
  if (getenv("OMP_WAIT_POLICY")) return;
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  execv("/proc/self/exe", argv);
}

int rt_main(int argc, char **argv, const RtProgram *p) {
  passive_wait_policy(argv);
  rt_current = p;
  /* Arrays come and go: keep freed memory in the process for the next ones
   * instead of returning it to the kernel, which must zero it again (as the
   * NESL interpreter does). */
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  const char *blk = getenv("NESSIE_RT_BLOCK");
  if (blk && atoll(blk) > 0) rt_block = atoll(blk);
  int random_inputs = 0, nvals = 0;
  long long seed = 1, maxlen = 10;
  const char **vals = calloc((size_t)argc + 1, sizeof *vals);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--random-inputs")) {
      random_inputs = 1;
    } else if (!strncmp(a, "--seed=", 7) || !strncmp(a, "--max-len=", 10)) { /* as `nessie lcu run` takes them */
      nz_progname = argv[0];
      int r = a[2] == 's' ? nz_opt_ll(a, "--seed", 0, INT64_MAX, &seed)
                          : nz_opt_ll(a, "--max-len", 0, LCU_RANDOM_MAX_LEN, &maxlen);
      if (r < 0) return free(vals), usage(p, argv[0]);
    } else if (a[0] == '-' && a[1] == '-') {
      fprintf(stderr, "%s: unknown option '%s'\n", argv[0], a);
      free(vals);
      return 2;
    } else {
      vals[nvals++] = a;
    }
  }
  RtCell *args = calloc((size_t)p->nparam_cells + 1, sizeof(RtCell));
  RtCell *res = calloc((size_t)p->nresult_cells + 1, sizeof(RtCell));
  int rc = 0, ncell = 0, nargs = 0;
  if (random_inputs && nvals) {
    fprintf(stderr, "nessie lcu run: give either arguments or --random-inputs, not both\n");
    rc = 2;
  } else if (!random_inputs && nvals != p->nparams) {
    fprintf(stderr, "nessie lcu run: main takes %d argument%s, %d given\n", p->nparams,
            p->nparams == 1 ? "" : "s", nvals);
    rc = 2;
  } else {
    LcuRng rng = {(uint64_t)seed * 0x9E3779B97F4A7C15ull + 1, maxlen};
    for (; nargs < p->nparams; nargs++) {
      const LcuType *ty = type_of_text(p->param_types[nargs]);
      LcuValue v;
      if (random_inputs) {
        v = lcu_value_random(&rng, ty);
      } else {
        char what[64];
        snprintf(what, sizeof what, "argument %d (%s)", nargs + 1, p->param_names[nargs]);
        if (lcu_value_parse(vals[nargs], ty, &v, what) != 0) {
          rc = 2;
          break;
        }
      }
      ncell += to_cells(v, args + ncell);
    }
  }
  double wall = 0;
  if (rc == 0) {
    Job job = {p, args, res, 0};
    rt_max_depth = nz_max_depth(); /* the recursion rule (nessie.h), as the interpreters */
    nz_run_on_stack(run_job, &job);
    wall = job.seconds;
    NzBuf b = {0};
    const LcuType *rty = type_of_text(p->result_type);
    if (rty != lcu_type_unit()) { /* a main of type () prints nothing (NESL programs) */
      print_cells(&b, rty, res);
      if (b.len) fwrite(b.s, 1, b.len, stdout);
      putchar('\n');
    }
    nz_buf_free(&b);
    release_cells(rty, res);
    if (getenv("NESSIE_TIME")) fprintf(stderr, "seconds %.6f\n", wall);
  }
  int at = 0;
  for (int k = 0; k < nargs; k++) at += release_cells(type_of_text(p->param_types[k]), args + at);
  fflush(stdout);
  const char *prof = getenv("NESSIE_PROFILE");
  if (!prof || !*prof) prof = p->profile_default;
  if (rc == 0 && prof && rt_prof_write(p, prof, wall) != 0) rc = 1;
  if (rc == 0 && getenv("NESSIE_RT_LIVE"))
    fprintf(stderr, "live bytes at exit: %lld (peak %lld, allocated %lld)\n", (long long)rt_bytes_live,
            (long long)rt_bytes_peak, (long long)rt_bytes_allocated);
  free(args);
  free(res);
  free(vals);
  nz_intern_free_all();
  return rc;
}
