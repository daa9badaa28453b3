/* cg_cuda.c — the CUDA target: a .cu file whose CPU functions are those of the
 * C target (cg_expr.c, compiled as host C++) and whose kernels run on the GPU.
 *
 * Every thunk becomes a functor (one struct: its captures as members under the
 * names the shared emitter uses — `<x>_d`/`<x>_n` for an array's data and
 * length, the variable itself for a scalar, a device header for a segdes — and
 * its body, emitted by cg_expr in thunk scope, as `__device__ operator()`).
 * Each SOAC wraps its thunk functors into one more functor that stores what the
 * SOAC keeps element by element, and calls a template of runtime/cuda/
 * rt_soac.cuh, so the thunk runs inside the SOAC's own kernel: a MAP fused
 * into a REDUCE reads its inputs once and materialises nothing. Scalars that a
 * SOAC binds come back to the host (the next launch needs them as sizes);
 * arrays stay on the device until CPU code reads them (rt_cu_prog.cuh).
 *
 * Index arithmetic is 32-bit (λcu sizes are ints), array captures are
 * `const T *__restrict__` (read-only loads), thunk code is the straight-line
 * A-normal form of cg_expr (gpucc's advice for generated code). */
#include "cg.h"

typedef struct {
  Cg *cg;
  const LcuKernel *k;
  CgScope ks;   /* the kernel frame; its buffer is host code */
  NzBuf fb;     /* functor definitions, emitted before the kernel's host function */
  NzBuf hb;     /* the host function's body */
  int tid;      /* thunks emitted so far */
  const char *pre; /* prefix of this SOAC's functor names */
  CgSizes *sizes;  /* λcu names of the sizes checked (cg_size_name) */
} Kern;

#define LINE(...) cg_line(&K->ks, __VA_ARGS__)

/* ------------------------------------------------------------ helpers */

static const LcuType *comp(const LcuThunk *t, int k) { return lcu_type_component(t->body->ty, k); }
static const char *bind(Kern *K, const LcuSoac *s, int k) { return K->ks.name[s->binds[k].slot]; }
static const char *ct(const Kern *K, const LcuType *t) { return cg_ctype(K->cg, t); }

/* Whether a thunk's body can raise a run-time fault (then the SOAC checks for
 * one after its launch; otherwise it does not pay for the check). */
static int may_fault(const LcuExpr *e) {
  if (!e) return 0;
  if (e->kind == LE_INDEX) return 1;
  if (e->kind == LE_PRIM) switch (e->prim) {
    case LP_DIV: if ((e->opty ? e->opty->kind : e->args[0]->ty->kind) == LT_INT) return 1; break;
    case LP_MOD: case LP_TRUNC: case LP_FLOOR: case LP_CEIL: case LP_ROUND: case LP_I2C:
    case LP_SEG_START: case LP_SEG_LEN: case LP_SEG_OF: return 1;
    default: break;
    }
  for (int k = 0; k < e->nargs; k++)
    if (may_fault(e->args[k])) return 1;
  return 0;
}

static int soac_may_fault(const LcuSoac *s) {
  for (int t = 0; t < s->nthunks; t++)
    if (may_fault(s->thunks[t]->body)) return 1;
  return 0;
}

/* `const int NAME = size;` checked non-negative (λcu sizes are ints). */
static void size(Kern *K, const LcuSize *z, const char *name) {
  if (z->kind == LZ_LIT) {
    LINE("const int %s = %d;", name, z->lit);
    return;
  }
  const char *v = K->ks.name[z->slot];
  int seg = K->ks.ty[z->slot]->kind == LT_SEGDES;
  if (z->kind == LZ_VAR) LINE("const int %s = %s;", name, seg ? cg_fmt(K->cg, "(int)%s->total", v) : v);
  else if (z->kind == LZ_LEN) LINE("const int %s = (int)%s->%s;", name, v, seg ? "nsegs" : "len");
  else nz_die("codegen: SOAC without a size");
  if (z->kind == LZ_VAR && !seg)
    LINE("if (%s < 0) rt_fault_negative_size(%s, %s, %s);", name, cg_loc(K->cg, z->loc),
         cg_size_name(K->cg, K->sizes, z), name);
}

/* ------------------------------------------------------------- functors */

/* The functor of thunk t, named PRE_tN: captures as members, the body as
 * operator(). Index thunks take `int j` (the element); a predicate takes the
 * value thunk's components. A value thunk returns PRE_tN_r (fields c0, c1, ...),
 * others their one scalar. Returns the functor's type name; *init gets the host
 * expression that builds it from the kernel's variables. */
static const char *functor(Kern *K, const LcuThunk *t, int values, int rstruct, const char **init) {
  Cg *cg = K->cg;
  const char *name = cg_fmt(cg, "%s_t%d", K->pre, K->tid + 1);
  NzBuf *b = &K->fb;
  int nc = lcu_type_arity(t->body->ty);
  if (rstruct) {
    nz_buf_printf(b, "struct %s_r {", name);
    for (int k = 0; k < nc; k++) nz_buf_printf(b, " %s c%d;", ct(K, comp(t, k)), k);
    nz_buf_puts(b, " };\n");
  }
  nz_buf_printf(b, "struct %s {\n", name);
  NzBuf in = {0};
  nz_buf_printf(&in, "%s{", name);
  int first = 1;
  int *done = nz_xcalloc((size_t)K->ks.nslots + 1, sizeof(int));
  for (int u = 0; u < t->nusing; u++) {
    int slot = t->usings[u].slot;
    if (done[slot]) continue;
    done[slot] = 1;
    const LcuType *ty = K->ks.ty[slot];
    for (int k = 0; k < lcu_type_arity(ty); k++) {
      const LcuType *c = lcu_type_component(ty, k);
      const char *v = cg_comp_name(cg, K->ks.name[slot], ty, k);
      const char *sep = first ? "" : ", ";
      first = 0;
      if (c->kind == LT_ARRAY) {
        const char *et = cg_ctype(K->cg, lcu_type_base(c->elem));
        nz_buf_printf(b, "  const %s *__restrict__ %s_d;\n  int64_t %s_n;\n", et, v, v);
        nz_buf_printf(&in, "%s(const %s *)rt_cu_dev(%s), %s->len", sep, et, v, v);
      } else if (c->kind == LT_SEGDES) {
        nz_buf_printf(b, "  const RtCuSegdes *%s;\n", v);
        nz_buf_printf(&in, "%srt_cu_seg(%s)->dhdr", sep, v);
      } else {
        nz_buf_printf(b, "  %s %s;\n", ct(K, c), v);
        nz_buf_printf(&in, "%s%s", sep, v);
      }
    }
  }
  free(done);
  nz_buf_putc(&in, '}');
  *init = nz_strndup(cg->arena, in.s, in.len);
  nz_buf_free(&in);

  const char *rty = rstruct ? cg_fmt(cg, "%s_r", name) : ct(K, t->body->ty);
  nz_buf_printf(b, "  __device__ __forceinline__ %s operator()(", rty);
  /* the body in thunk scope, written into the functor buffer */
  NzBuf *hb = K->ks.b;
  int hind = K->ks.ind;
  K->ks.b = b;
  K->ks.ind = 2;
  CgScope ts;
  cg_scope_thunk(&ts, &K->ks, t, ++K->tid, "j");
  if (values) { /* j: the element, for the index of a fault */
    nz_buf_puts(b, "int j");
    for (int p = 0; p < t->nparams; p++)
      nz_buf_printf(b, ", const %s %s", ct(K, t->params[p].ty), ts.name[t->params[p].slot]);
    nz_buf_puts(b, ") const {\n");
    cg_line(&ts, "(void)j;");
    for (int p = 0; p < t->nparams; p++) cg_line(&ts, "(void)%s;", ts.name[t->params[p].slot]);
  } else {
    nz_buf_puts(b, "int j) const {\n");
    for (int p = 0; p < t->nparams; p++)
      cg_line(&ts, "const %s %s RT_UNUSED = j;", ct(K, t->params[p].ty), ts.name[t->params[p].slot]);
  }
  CgAtoms a;
  cg_expr(&ts, t->body, &a);
  if (rstruct) {
    cg_line(&ts, "%s r_;", rty);
    for (int k = 0; k < a.n; k++) cg_line(&ts, "r_.c%d = %s;", k, a.v[k]);
    cg_line(&ts, "return r_;");
  } else {
    cg_line(&ts, "return %s;", a.v[0]);
  }
  nz_buf_puts(b, "  }\n};\n");
  K->ks.b = hb;
  K->ks.ind = hind;
  return name;
}

/* Output pointer members (`T *oK;`) of a wrapper functor and their host
 * initialisers (", (T *)rt_cu_dev(arr)" each). */
typedef struct {
  NzBuf mem, init;
} Outs;

static void out_member(const Kern *K, Outs *o, const LcuType *c, int k, const char *arr) {
  nz_buf_printf(&o->mem, "  %s *__restrict__ o%d;\n", ct(K, c), k);
  nz_buf_printf(&o->init, ", (%s *)rt_cu_dev(%s)", ct(K, c), arr);
}

/* NAME = a new device array of len elements of type c (zeroed if asked). */
static void out_array(Kern *K, const char *name, const LcuType *c, const char *len, int zero) {
  LINE("%s = rt_cu_arr_new(%s, %s, %d);", name, cg_rt_elem(K->cg, c->kind), len, zero);
}

static void outs_free(Outs *o) {
  nz_buf_free(&o->mem);
  nz_buf_free(&o->init);
}

/* The fault check after a launch, when a thunk can fault. */
static void check(Kern *K, const LcuSoac *s, const char *f) {
  if (soac_may_fault(s)) LINE("rt_cu_check(%s);", f);
}

/* ----------------------------------------------------------------- SOACs */

static void soac_map_once(Kern *K, const LcuSoac *s, int once) {
  const LcuThunk *t = s->thunks[0];
  int nc = lcu_type_arity(t->body->ty);
  const char *fi;
  const char *f = functor(K, t, 0, 1, &fi);
  if (once) LINE("const int n = 1;");
  else size(K, &s->size, "n");
  Outs o = {{0}, {0}};
  for (int k = 0; k < nc; k++) {
    if (once) {
      LINE("RtCuScratch<%s> once%d(1);", ct(K, comp(t, k)), k);
      nz_buf_printf(&o.mem, "  %s *__restrict__ o%d;\n", ct(K, comp(t, k)), k);
      nz_buf_printf(&o.init, ", once%d.p", k);
    } else {
      out_array(K, bind(K, s, k), comp(t, k), "n", 0);
      out_member(K, &o, comp(t, k), k, bind(K, s, k));
    }
  }
  nz_buf_printf(&K->fb, "struct %s_w {\n  %s f;\n%s", K->pre, f, o.mem.s ? o.mem.s : "");
  nz_buf_printf(&K->fb, "  __device__ void operator()(int j) const {\n    const %s_r v = f(j);\n", f);
  for (int k = 0; k < nc; k++) nz_buf_printf(&K->fb, "    o%d[j] = v.c%d;\n", k, k);
  nz_buf_puts(&K->fb, "  }\n};\n");
  LINE("const %s_w w{%s%s};", K->pre, fi, o.init.s ? o.init.s : "");
  LINE("rt_cu_map(w, n);");
  check(K, s, "w");
  if (once)
    for (int k = 0; k < nc; k++) LINE("%s = rt_cu_fetch(once%d.p);", bind(K, s, k), k);
  LINE("elements += n;");
  outs_free(&o);
}

/* REDUCE, SCAN, SEGREDUCE, SEGSCAN: the reduced components form the accumulator
 * PRE_a under PRE_op; components with the `id` operator are stored per element
 * by the wrapper PRE_w as it passes. */
static void soac_reduce_scan(Kern *K, const LcuSoac *s, int scan, int seg) {
  Cg *cg = K->cg;
  const LcuThunk *t = s->thunks[0];
  int nc = s->nrops, nred = 0;
  for (int k = 0; k < nc; k++) nred += s->rops[k] != LR_ID;
  const char *fi;
  const char *f = functor(K, t, 0, 1, &fi);
  const char *P = K->pre;
  NzBuf *b = &K->fb;
  if (seg) {
    const char *sd = K->ks.name[s->size.slot];
    LINE("const RtCuSegdes sd = rt_cu_seg(%s)->hdr;", sd);
    LINE("const int n = (int)sd.total, nsegs = (int)sd.nsegs;");
    LINE("(void)nsegs;");
  } else {
    size(K, &s->size, "n");
  }
  /* the accumulator and its operator (a dummy field when nothing is reduced) */
  nz_buf_printf(b, "struct %s_a {", P);
  for (int k = 0; k < nc; k++)
    if (s->rops[k] != LR_ID) nz_buf_printf(b, " %s c%d;", ct(K, comp(t, k)), k);
  if (!nred) nz_buf_puts(b, " int c_;");
  nz_buf_puts(b, " };\n");
  nz_buf_printf(b, "struct %s_op {\n  __device__ %s_a operator()(const %s_a &a, const %s_a &b) const {\n    %s_a r;\n", P, P,
                P, P, P);
  for (int k = 0; k < nc; k++)
    if (s->rops[k] != LR_ID)
      nz_buf_printf(b, "    r.c%d = %s;\n", k,
                    cg_rop_apply(cg, s->rops[k], cg_fmt(cg, "a.c%d", k), cg_fmt(cg, "b.c%d", k)));
  if (!nred) nz_buf_puts(b, "    r.c_ = a.c_ + b.c_;\n");
  nz_buf_puts(b, "    return r;\n  }\n};\n");
  /* the wrapper: the thunk, its per-element stores, the accumulator value */
  Outs w = {{0}, {0}}, st = {{0}, {0}};
  for (int k = 0; k < nc; k++) {
    const char *v = bind(K, s, k);
    if (s->rops[k] == LR_ID) {
      out_array(K, v, comp(t, k), "n", 0);
      out_member(K, &w, comp(t, k), k, v);
    } else if (scan || seg) {
      out_array(K, v, comp(t, k), scan ? "n" : "nsegs", 0);
      out_member(K, &st, comp(t, k), k, v);
    }
  }
  nz_buf_printf(b, "struct %s_w {\n  %s f;\n%s", P, f, w.mem.s ? w.mem.s : "");
  nz_buf_printf(b, "  __device__ %s_a operator()(int j) const {\n    const %s_r v = f(j);\n    %s_a r;\n", P, f, P);
  for (int k = 0; k < nc; k++)
    nz_buf_printf(b, s->rops[k] == LR_ID ? "    o%d[j] = v.c%d;\n" : "    r.c%d = v.c%d;\n", k, k);
  if (!nred) nz_buf_puts(b, "    r.c_ = 0;\n");
  nz_buf_puts(b, "    return r;\n  }\n};\n");
  if (scan || seg) {
    nz_buf_printf(b, "struct %s_st {\n%s  __device__ void operator()(int i, const %s_a &v) const {\n", P,
                  st.mem.s ? st.mem.s : "", P);
    if (!nred) nz_buf_puts(b, "    (void)i;\n    (void)v;\n");
    for (int k = 0; k < nc; k++)
      if (s->rops[k] != LR_ID) nz_buf_printf(b, "    o%d[i] = v.c%d;\n", k, k);
    nz_buf_puts(b, "  }\n};\n");
  }
  LINE("const %s_w w{%s%s};", P, fi, w.init.s ? w.init.s : "");
  LINE("%s_a id;", P);
  for (int k = 0; k < nc; k++)
    if (s->rops[k] != LR_ID) LINE("id.c%d = %s;", k, cg_rop_identity(K->cg, s->rops[k]));
  if (!nred) LINE("id.c_ = 0;");
  const char *sti = cg_fmt(cg, "%s_st{%s}", P, st.init.s ? st.init.s + 2 : "");
  if (seg) LINE("rt_cu_seg%s<%s_a>(w, sd, %s_op{}, id, %s);", scan ? "scan" : "reduce", P, P, sti);
  else if (scan) LINE("rt_cu_scan<%s_a>(w, n, %s_op{}, id, %s);", P, P, sti);
  else LINE("const %s_a r RT_UNUSED = rt_cu_reduce<%s_a>(w, n, %s_op{}, id);", P, P, P);
  check(K, s, "w");
  if (!scan && !seg)
    for (int k = 0; k < nc; k++)
      if (s->rops[k] != LR_ID) LINE("%s = r.c%d;", bind(K, s, k), k);
  LINE("elements += n;");
  outs_free(&w);
  outs_free(&st);
}

/* FILTER and PARTITION: count what the predicate keeps, allocate, then write
 * both kinds in index order (stable). */
static void soac_filter(Kern *K, const LcuSoac *s, int part) {
  const LcuThunk *t = s->thunks[0];
  int nc = lcu_type_arity(t->body->ty);
  const char *fi, *pi;
  const char *f = functor(K, t, 0, 1, &fi);
  const char *pf = functor(K, s->thunks[1], 1, 0, &pi);
  const char *P = K->pre;
  NzBuf *b = &K->fb;
  size(K, &s->size, "n");
  nz_buf_printf(b, "struct %s_p {\n  %s p;\n  __device__ bool operator()(int j, const %s_r &v) const { return p(j", P, pf, f);
  for (int k = 0; k < nc; k++) nz_buf_printf(b, ", v.c%d", k);
  nz_buf_puts(b, ") != 0; }\n};\n");
  nz_buf_printf(b, "struct %s_st {\n", P);
  for (int k = 0; k < nc; k++) nz_buf_printf(b, "  %s *__restrict__ o%d;\n", ct(K, comp(t, k)), k);
  nz_buf_printf(b, "  __device__ void operator()(int j, const %s_r &v) const {\n", f);
  for (int k = 0; k < nc; k++) nz_buf_printf(b, "    o%d[j] = v.c%d;\n", k, k);
  nz_buf_puts(b, "  }\n};\n");
  LINE("const %s f%s;", f, fi + strlen(f));
  LINE("const %s_p p{%s};", P, pi);
  LINE("RtCuScratch<int> *pre = NULL;");
  LINE("const int64_t kept = rt_cu_split_count(f, p, n, &pre);");
  if (soac_may_fault(s)) LINE("rt_cu_check(RtCuKeep<%s, %s_p>{f, p});", f, P);
  NzBuf kin = {0}, rin = {0};
  for (int k = 0; k < nc; k++) {
    out_array(K, bind(K, s, k), comp(t, k), "kept", 0);
    nz_buf_printf(&kin, "%s(%s *)rt_cu_dev(%s)", k ? ", " : "", ct(K, comp(t, k)), bind(K, s, k));
    if (part) {
      out_array(K, bind(K, s, nc + k), comp(t, k), "n - kept", 0);
      nz_buf_printf(&rin, "%s(%s *)rt_cu_dev(%s)", k ? ", " : "", ct(K, comp(t, k)), bind(K, s, nc + k));
    }
  }
  LINE("rt_cu_split(f, p, n, pre, %s_st{%s}, %s_st{%s}, %d);", P, kin.s, P, part ? rin.s : kin.s, part);
  LINE("elements += n;");
  nz_buf_free(&kin);
  nz_buf_free(&rin);
}

/* PERMUTE: destinations checked first (the interpreter's first fault in index
 * order, thunk faults included), then one scatter. */
static void soac_permute(Kern *K, const LcuSoac *s) {
  const LcuThunk *tv = s->thunks[0], *ti = s->thunks[1];
  int nc = lcu_type_arity(tv->body->ty);
  int into = s->outlen.kind != LZ_NONE;
  const char *loc = cg_loc(K->cg, ti->loc);
  const char *vi, *ii;
  const char *fv = functor(K, tv, 0, 1, &vi);
  const char *fd = functor(K, ti, 0, 0, &ii);
  const char *P = K->pre;
  NzBuf *b = &K->fb;
  size(K, &s->size, "n");
  if (into) size(K, &s->outlen, "m");
  else LINE("const int m = n;");
  nz_buf_printf(b, "struct %s_st {\n", P);
  for (int k = 0; k < nc; k++) nz_buf_printf(b, "  %s *__restrict__ o%d;\n", ct(K, comp(tv, k)), k);
  nz_buf_printf(b, "  __device__ void operator()(int d, const %s_r &v) const {\n", fv);
  /* into: the cheap schemes of lcu_permute_scatter need no winner pass (mode 2) */
  LcuScatter sc = lcu_permute_scatter(s);
  int mode = !into ? 0 : sc == LCU_SCATTER_ORDERED ? 1 : 2;
  for (int k = 0; k < nc; k++)
    nz_buf_printf(b, sc == LCU_SCATTER_MAX ? "    atomicMax(&o%d[d], v.c%d);\n" : "    o%d[d] = v.c%d;\n", k, k);
  nz_buf_puts(b, "  }\n};\n");
  nz_buf_printf(b, "struct %s_both {\n  %s fv;\n  %s fi;\n", P, fv, fd);
  nz_buf_puts(b, "  __device__ void operator()(int j) const {\n    (void)fv(j);\n    (void)fi(j);\n  }\n};\n");
  NzBuf sin = {0};
  for (int k = 0; k < nc; k++) {
    out_array(K, bind(K, s, k), comp(tv, k), "m", into);
    nz_buf_printf(&sin, "%s(%s *)rt_cu_dev(%s)", k ? ", " : "", ct(K, comp(tv, k)), bind(K, s, k));
  }
  LINE("const %s fv%s;", fv, vi + strlen(fv));
  LINE("const %s fi%s;", fd, ii + strlen(fd));
  LINE("long long tf = -1;");
  if (soac_may_fault(s)) {
    LINE("rt_cu_map(%s_both{fv, fi}, n);", P);
    LINE("tf = rt_cu_fault_index();");
  }
  LINE("if (tf >= 0 || rt_cu_permute(fv, fi, n, m, %d, %s_st{%s})) {", mode, P, sin.s);
  K->ks.ind++;
  LINE("int kind = 0;");
  LINE("long long d = 0, first = 0, at = 0;");
  LINE("rt_cu_permute_fault(fi, n, m, %d, &kind, &d, &first, &at);", into);
  LINE("if (kind && (tf < 0 || at < tf)) {");
  LINE("  if (kind == 1) rt_fault_permute_range(at, %s, (int32_t)d, m);", loc);
  LINE("  else rt_fault_permute_collide(at, %s, (int32_t)d, first);", loc);
  LINE("  rt_fault_report();");
  LINE("}");
  LINE("rt_cu_report(rt_cu_fault_detail(%s_both{fv, fi}, tf));", P);
  K->ks.ind--;
  LINE("}");
  LINE("elements += n;");
  nz_buf_free(&sin);
}

/* ---------------------------------------------------------------- kernels */

/* Kernel k's functors, then its host function as body fn (CgBodyFn). */
static void kernel_body(Cg *cg, const LcuKernel *k, NzBuf *out, const char *fn, CgSizes *sizes) {
  Kern KK;
  memset(&KK, 0, sizeof KK);
  Kern *K = &KK;
  K->cg = cg;
  K->k = k;
  K->sizes = sizes;
  cg_scope_kernel(&K->ks, cg, k, &K->hb);
  cg->tmp = 0;
  LINE("const int64_t bytes0 = rt_cu_kernel_begin(kx);");
  LINE("int64_t elements = 0;");
  for (int i = 0; i < k->nsoacs; i++)
    for (int j = 0; j < k->soacs[i].nbinds; j++) {
      const LcuBinder *bd = &k->soacs[i].binds[j];
      const char *c = ct(K, bd->ty);
      LINE("%s%s%s RT_UNUSED = %s;", c, c[strlen(c) - 1] == '*' ? "" : " ", K->ks.name[bd->slot], cg_zero(K->cg, bd->ty));
    }
  for (int i = 0; i < k->nsoacs; i++) {
    const LcuSoac *s = &k->soacs[i];
    K->pre = cg_fmt(cg, "%s_s%d", cg->canon ? "K" : cg_cid(cg, k->name), i);
    LINE("/* %s -> %s%s */", lcu_soac_name(s->kind), K->ks.name[s->binds[0].slot], s->nbinds > 1 ? ", ..." : "");
    LINE("{");
    K->ks.ind++;
    switch (s->kind) {
    case LS_ONCE: soac_map_once(K, s, 1); break;
    case LS_MAP: soac_map_once(K, s, 0); break;
    case LS_REDUCE: soac_reduce_scan(K, s, 0, 0); break;
    case LS_SCAN: soac_reduce_scan(K, s, 1, 0); break;
    case LS_SEGREDUCE: soac_reduce_scan(K, s, 0, 1); break;
    case LS_SEGSCAN: soac_reduce_scan(K, s, 1, 1); break;
    case LS_FILTER: soac_filter(K, s, 0); break;
    case LS_PARTITION: soac_filter(K, s, 1); break;
    case LS_PERMUTE: soac_permute(K, s); break;
    default: nz_die("codegen: SOAC kind %d", (int)s->kind);
    }
    K->ks.ind--;
    LINE("}");
  }
  cg_kernel_results(&K->ks, k);
  LINE("rt_cu_kernel_end(st, elements, bytes0);");
  nz_buf_puts(out, K->fb.s ? K->fb.s : "");
  cg_kernel_body_proto(cg, out, k, fn, sizes);
  nz_buf_puts(out, " {\n");
  nz_buf_puts(out, K->hb.s ? K->hb.s : "");
  nz_buf_puts(out, "}\n\n");
  nz_buf_free(&K->fb);
  nz_buf_free(&K->hb);
}

static void cuda_kernel(Cg *cg, const LcuKernel *k, int index) { cg_kernel_shared(cg, k, index, kernel_body); }

static void cuda_glue(Cg *cg, NzBuf *out, int where) {
  (void)cg;
  if (where == CG_GLUE_INCLUDES)
    nz_buf_puts(out, "#include <stdint.h>\n/* CPU code reads arrays through RT_HOST: copied back from the device once */\n"
                     "#define RT_HOST(a) rt_cu_host(a)\n#include \"rt_cu_prog.cuh\"\n"
                     "/* generated names a program may not read (RT_UNUSED in C): nvcc's 'declared but never\n"
                     " * referenced' and 'set but never used' */\n"
                     "#pragma nv_diag_suppress 177\n#pragma nv_diag_suppress 550\n\n");
  else if (where == CG_GLUE_ENTRY)
    nz_buf_puts(out, "  rt_cu_program();\n");
}

const CgTarget cg_target_cuda = {"cuda", cuda_kernel, cuda_glue, 0};
