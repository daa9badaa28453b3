/* cg_c.c — the C11 + OpenMP target: each kernel becomes one C function whose
 * SOACs are parallel loops with the thunk bodies inlined (a fused thunk is one
 * pass, no intermediate array). Reductions and scans run over fixed blocks of
 * rt_block elements (nessie_rt.h), so results do not depend on the thread
 * count; FILTER/PARTITION count per block then write (stable); PERMUTE
 * scatters and checks collisions; segmented SOACs split the flat elements into
 * blocks, so they stay parallel for many short and for a few long segments. */
#include "cg.h"

typedef struct {
  Cg *cg;
  const LcuKernel *k;
  CgScope ks; /* the kernel frame */
  int tid;    /* thunks emitted so far */
  CgSizes *sizes; /* λcu names of the sizes checked, in order (sz0, sz1, ...) */
  const uint8_t *safe; /* the SOAC being emitted: its row of cg->ixsafe, or NULL */
  const char *seg_sd, *seg_cur; /* a segmented loop's segdes (λcu) and segment variable (C) */
} Kern;

#define LINE(...) cg_line(&K->ks, __VA_ARGS__)

static const char *ectype(const Cg *cg, LcuTypeKind k) { return cg_ctype(cg, lcu_type_base(k)); }

/* Component k of thunk t's value type. */
static const LcuType *comp(const LcuThunk *t, int k) { return lcu_type_component(t->body->ty, k); }

/* Does e look up the segment of an element of segdes sd through its segment
 * index (seg_of), other than the element a segmented loop visits (cur)? Only
 * those descriptors need their element-to-segment table, which costs a pass and
 * 4 bytes per element (quicksort's interleaving kernels built three where they
 * look up one). A descriptor reached otherwise than as a variable counts as
 * looked up; one missed here is built at its first seg_of. */
static int looks_up_seg(const CgScope *cur, const LcuExpr *e, const char *sd) {
  if (!e) return 0;
  if (e->kind == LE_PRIM && e->prim == LP_SEG_OF && e->nargs > 0 &&
      (e->args[0]->kind != LE_VAR || (e->args[0]->name == sd && !cg_seg_of_current(cur, e))))
    return 1;
  for (int k = 0; k < e->nargs; k++)
    if (looks_up_seg(cur, e->args[k], sd)) return 1;
  return 0;
}

/* Before the loops: typed data pointers and lengths of captured arrays. */
static void hoist(Kern *K, const LcuSoac *s) {
  int *done = nz_xcalloc((size_t)K->ks.nslots + 1, sizeof(int));
  for (int t = 0; t < s->nthunks; t++) {
    const LcuThunk *th = s->thunks[t];
    for (int u = 0; u < th->nusing; u++) {
      int slot = th->usings[u].slot;
      const LcuType *ty = K->ks.ty[slot];
      const char *v = K->ks.name[slot];
      if (done[slot]) continue;
      if (ty->kind == LT_ARRAY) {
        done[slot] = 1;
        LINE("const %s *restrict %s_d RT_UNUSED = (const %s *)%s->d;", ectype(K->cg, ty->elem), v, ectype(K->cg, ty->elem), v);
        LINE("const int64_t %s_n RT_UNUSED = %s->len;", v, v);
      } else if (ty->kind == LT_SEGDES) {
        /* the n-entry index is built only where an element's segment is looked up */
        CgScope cur = {0};
        if (K->seg_cur && th->nparams == 1) cur.seg_sd = K->seg_sd, cur.seg_idx = th->params[0].name, cur.seg_cur = K->seg_cur;
        int need = 0;
        for (int t2 = 0; t2 < s->nthunks && !need; t2++) need = looks_up_seg(&cur, s->thunks[t2]->body, th->usings[u].name);
        if (need) {
          done[slot] = 1;
          LINE("rt_seg_need_segof(%s);", v);
        }
      }
    }
  }
  free(done);
}

/* int64_t NAME = the SOAC's size, checked non-negative. */
static void size(Kern *K, const LcuSize *z, const char *name) {
  const char *v = z->kind == LZ_LIT ? NULL : K->ks.name[z->slot];
  switch (z->kind) {
  case LZ_LIT: LINE("const int64_t %s = %d;", name, z->lit); return;
  case LZ_VAR:
    if (K->ks.ty[z->slot]->kind == LT_SEGDES) LINE("const int64_t %s = %s->total;", name, v);
    else LINE("const int64_t %s = %s;", name, v);
    break;
  case LZ_LEN:
    LINE("const int64_t %s = %s->%s;", name, v, K->ks.ty[z->slot]->kind == LT_SEGDES ? "nsegs" : "len");
    return;
  default: nz_die("codegen: SOAC without a size");
  }
  /* The name is the kernel function's parameter szN: kernels that differ only
   * in their binders' names share one body (cg_kernel_shared). */
  LINE("if (%s < 0) rt_fault_negative_size(%s, %s, %s);", name, cg_loc(K->cg, z->loc),
       cg_size_name(K->cg, K->sizes, z), name);
}

/* Emits thunk t at iteration `it` (its index parameter, if any, set to `idx`,
 * or its value parameters to vals); returns its atoms. */
static CgAtoms thunk(Kern *K, const LcuThunk *t, const char *it, const char *idx, const CgAtoms *vals) {
  CgScope ts;
  cg_scope_thunk(&ts, &K->ks, t, ++K->tid, it);
  if (K->safe && !vals && idx && t->nparams == 1) { /* an index thunk: idx is in [0, n) */
    uint8_t *f = NZ_NEWN(K->cg->arena, uint8_t, ts.nslots + 1);
    for (int u = 0; u < t->nusing; u++) f[u] = K->safe[t->usings[u].slot];
    ts.ixsafe = f;
    ts.ixslot = t->params[0].slot;
  }
  if (K->seg_cur && t->nparams == 1 && !vals) ts.seg_sd = K->seg_sd, ts.seg_idx = t->params[0].name, ts.seg_cur = K->seg_cur;
  for (int p = 0; p < t->nparams; p++) {
    const LcuBinder *b = &t->params[p];
    cg_line(&ts, "const %s %s RT_UNUSED = %s;", cg_ctype(K->cg, b->ty), ts.name[b->slot],
            vals ? vals->v[p] : cg_fmt(K->cg, "(int32_t)%s", idx));
  }
  CgAtoms a;
  cg_expr(&ts, t->body, &a);
  return a;
}

static const char *bind(Kern *K, const LcuSoac *s, int k) { return K->ks.name[s->binds[k].slot]; }

/* Output array for binder k: NAME = rt_arr_new(...); T *NAME_o = NAME->d. */
static void out_array(Kern *K, const LcuSoac *s, int k, const LcuType *elt, const char *len) {
  const char *v = bind(K, s, k);
  LINE("%s = rt_arr_new(%s, %s);", v, cg_rt_elem(K->cg, elt->kind), len);
  LINE("%s *restrict %s_o = %s->d;", cg_ctype(K->cg, elt), v, v);
}

static void block_bounds(Kern *K, const char *n) {
  LINE("const int64_t lo = b * rt_block, hi = lo + rt_block < %s ? lo + rt_block : %s;", n, n);
}

static void soac_once(Kern *K, const LcuSoac *s) {
  hoist(K, s);
  CgAtoms a = thunk(K, s->thunks[0], "-1", NULL, NULL);
  for (int k = 0; k < a.n; k++) LINE("%s = %s;", bind(K, s, k), a.v[k]);
  LINE("elements += 1;");
}

static void soac_map(Kern *K, const LcuSoac *s) {
  const LcuThunk *t = s->thunks[0];
  size(K, &s->size, "n");
  hoist(K, s);
  for (int k = 0; k < s->nbinds; k++) out_array(K, s, k, comp(t, k), "n");
  LINE("#pragma omp parallel for schedule(static)");
  LINE("for (int64_t j = 0; j < n; j++) {");
  K->ks.ind++;
  CgAtoms a = thunk(K, t, "j", "j", NULL);
  for (int k = 0; k < a.n; k++) LINE("%s_o[j] = %s;", bind(K, s, k), a.v[k]);
  K->ks.ind--;
  LINE("}");
  LINE("rt_fault_check();");
  LINE("elements += n;");
}

/* Per-component accumulators of a REDUCE/SCAN-like SOAC, from their identities. */
static void acc_decls(Kern *K, const LcuSoac *s) {
  for (int k = 0; k < s->nrops; k++)
    if (s->rops[k] != LR_ID)
      LINE("%s acc%d = %s;", cg_ctype(K->cg, comp(s->thunks[0], k)), k, cg_rop_identity(K->cg, s->rops[k]));
}

/* One element j with thunk value a: fold it into the accumulators (writing the
 * running value for a scan), or store it for an `id` component. */
static void fold_step(Kern *K, const LcuSoac *s, const CgAtoms *a, int scan) {
  for (int k = 0; k < s->nrops; k++) {
    if (s->rops[k] == LR_ID) {
      LINE("%s_o[j] = %s;", bind(K, s, k), a->v[k]);
      continue;
    }
    const char *acc = cg_fmt(K->cg, "acc%d", k);
    LINE("%s = %s;", acc, cg_rop_apply(K->cg, s->rops[k], acc, a->v[k]));
    if (scan) LINE("%s_o[j] = %s;", bind(K, s, k), acc);
  }
}

/* REDUCE and SCAN: blocks folded in parallel, block results combined in order. */
static void soac_reduce_scan(Kern *K, const LcuSoac *s, int scan) {
  const LcuThunk *t = s->thunks[0];
  int nc = s->nrops;
  size(K, &s->size, "n");
  hoist(K, s);
  LINE("const int64_t nb = rt_nblocks(n);");
  for (int k = 0; k < nc; k++) {
    const LcuType *ct = comp(t, k);
    if (scan || s->rops[k] == LR_ID) out_array(K, s, k, ct, "n");
    if (s->rops[k] != LR_ID)
      LINE("%s *part%d = rt_alloc(sizeof(%s) * (size_t)(nb + 1));", cg_ctype(K->cg, ct), k, cg_ctype(K->cg, ct));
  }
  LINE("#pragma omp parallel for schedule(static)");
  LINE("for (int64_t b = 0; b < nb; b++) {");
  K->ks.ind++;
  block_bounds(K, "n");
  acc_decls(K, s);
  LINE("for (int64_t j = lo; j < hi; j++) {");
  K->ks.ind++;
  CgAtoms a = thunk(K, t, "j", "j", NULL);
  fold_step(K, s, &a, scan);
  K->ks.ind--;
  LINE("}");
  for (int k = 0; k < nc; k++)
    if (s->rops[k] != LR_ID) LINE("part%d[b] = acc%d;", k, k);
  K->ks.ind--;
  LINE("}");
  LINE("rt_fault_check();");
  for (int k = 0; k < nc; k++) {
    LcuRop r = s->rops[k];
    if (r == LR_ID) continue;
    const char *part = cg_fmt(K->cg, "part%d", k);
    if (!scan) {
      const char *v = bind(K, s, k);
      LINE("%s = nb ? %s[0] : %s;", v, part, cg_rop_identity(K->cg, r));
      LINE("for (int64_t b = 1; b < nb; b++) %s = %s;", v, cg_rop_apply(K->cg, r, v, cg_fmt(K->cg, "%s[b]", part)));
    } else {
      /* part[b] becomes the carry into block b (b >= 1): the fold of blocks 0..b-1 */
      const char *ct = cg_ctype(K->cg, comp(t, k));
      LINE("if (nb > 1) {");
      K->ks.ind++;
      LINE("%s c = %s[0];", ct, part);
      LINE("for (int64_t b = 1; b < nb; b++) {");
      LINE("  const %s next = %s[b];", ct, part);
      LINE("  %s[b] = c;", part);
      LINE("  c = %s;", cg_rop_apply(K->cg, r, "c", "next"));
      LINE("}");
      LINE("#pragma omp parallel for schedule(static)");
      LINE("for (int64_t b = 1; b < nb; b++) {");
      K->ks.ind++;
      block_bounds(K, "n");
      LINE("const %s carry = %s[b];", ct, part);
      const char *o = cg_fmt(K->cg, "%s_o[j]", bind(K, s, k));
      LINE("for (int64_t j = lo; j < hi; j++) %s = %s;", o, cg_rop_apply(K->cg, r, "carry", o));
      K->ks.ind--;
      LINE("}");
      K->ks.ind--;
      LINE("}");
    }
    LINE("rt_free(%s);", part);
  }
  LINE("elements += n;");
}

/* FILTER and PARTITION: count per block, offsets in order, then write. */
static void soac_filter(Kern *K, const LcuSoac *s, int part) {
  const LcuThunk *t = s->thunks[0], *p = s->thunks[1];
  int nc = lcu_type_arity(t->body->ty);
  size(K, &s->size, "n");
  hoist(K, s);
  LINE("const int64_t nb = rt_nblocks(n);");
  LINE("int64_t *cnt = rt_alloc(sizeof(int64_t) * (size_t)(nb + 1));");
  for (int pass = 0; pass < 2; pass++) {
    LINE("#pragma omp parallel for schedule(static)");
    LINE("for (int64_t b = 0; b < nb; b++) {");
    K->ks.ind++;
    block_bounds(K, "n");
    if (pass == 0) LINE("int64_t c = 0;");
    else LINE("int64_t c = cnt[b], r RT_UNUSED = lo - cnt[b];");
    LINE("for (int64_t j = lo; j < hi; j++) {");
    K->ks.ind++;
    CgAtoms v = thunk(K, t, "j", "j", NULL);
    CgAtoms q = thunk(K, p, "j", NULL, &v);
    if (pass == 0) {
      LINE("c += %s;", q.v[0]);
      for (int k = 0; k < nc; k++) LINE("(void)%s;", v.v[k]);
    } else {
      LINE("if (%s) {", q.v[0]);
      for (int k = 0; k < nc; k++) LINE("  %s_o[c] = %s;", bind(K, s, k), v.v[k]);
      LINE("  c++;");
      if (part) {
        LINE("} else {");
        for (int k = 0; k < nc; k++) LINE("  %s_o[r] = %s;", bind(K, s, nc + k), v.v[k]);
        LINE("  r++;");
      }
      LINE("}");
    }
    K->ks.ind--;
    LINE("}");
    if (pass == 0) LINE("cnt[b] = c;");
    K->ks.ind--;
    LINE("}");
    if (pass == 0) {
      LINE("rt_fault_check();");
      LINE("int64_t kept = 0;");
      LINE("for (int64_t b = 0; b < nb; b++) {");
      LINE("  const int64_t c = cnt[b];");
      LINE("  cnt[b] = kept;");
      LINE("  kept += c;");
      LINE("}");
      for (int k = 0; k < nc; k++) {
        out_array(K, s, k, comp(t, k), "kept");
        if (part) out_array(K, s, nc + k, comp(t, k), "n - kept");
      }
    }
  }
  LINE("rt_free(cnt);");
  LINE("elements += n;");
}

static void soac_permute(Kern *K, const LcuSoac *s) {
  const LcuThunk *tv = s->thunks[0], *ti = s->thunks[1];
  int nc = lcu_type_arity(tv->body->ty);
  int into = s->outlen.kind != LZ_NONE;
  const char *loc = cg_loc(K->cg, ti->loc);
  size(K, &s->size, "n");
  if (into) size(K, &s->outlen, "m");
  else LINE("const int64_t m = n;");
  hoist(K, s);
  for (int k = 0; k < nc; k++) {
    const char *v = bind(K, s, k);
    LINE("%s = rt_arr_%s(%s, m);", v, into ? "zeroed" : "new", cg_rt_elem(K->cg, comp(tv, k)->kind));
    LINE("%s *restrict %s_o = %s->d;", cg_ctype(K->cg, comp(tv, k)), v, v);
  }
  if (!into) {
    /* a permutation of [0, n): each destination marked (plain stores); fewer
     * marks than writes means a collision, found again in order to report the
     * first one */
    LINE("uint8_t *seen = rt_calloc((size_t)m + 1);");
    LINE("#pragma omp parallel for schedule(static)");
    LINE("for (int64_t j = 0; j < n; j++) {");
    K->ks.ind++;
    CgAtoms v = thunk(K, tv, "j", "j", NULL);
    CgAtoms d = thunk(K, ti, "j", "j", NULL);
    LINE("if ((uint64_t)(int64_t)%s >= (uint64_t)m) {", d.v[0]);
    LINE("  rt_fault_permute_range(j, %s, %s, m);", loc, d.v[0]);
    LINE("} else {");
    LINE("  __atomic_store_n(&seen[%s], 1, __ATOMIC_RELAXED);", d.v[0]);
    for (int k = 0; k < nc; k++) LINE("  %s_o[%s] = %s;", bind(K, s, k), d.v[0], v.v[k]);
    LINE("}");
    K->ks.ind--;
    LINE("}");
    /* n destinations in range mark n places unless two met or one was out of
     * range (then the first collision before that fault is looked for, below):
     * a count after the scatter costs less than an atomic exchange per write */
    LINE("int64_t marked = 0;");
    LINE("#pragma omp parallel for schedule(static) reduction(+ : marked)");
    LINE("for (int64_t j = 0; j < m; j++) marked += seen[j];");
    LINE("if (marked != n) {");
    K->ks.ind++;
    LINE("int64_t *first = rt_alloc(sizeof(int64_t) * (size_t)(m + 1));");
    LINE("for (int64_t j = 0; j < m; j++) first[j] = -1;");
    LINE("for (int64_t j = 0; j < n && j < rt_fault_iter; j++) {");
    K->ks.ind++;
    CgAtoms d2 = thunk(K, ti, "j", "j", NULL);
    LINE("if ((uint64_t)(int64_t)%s >= (uint64_t)m) continue;", d2.v[0]);
    LINE("if (first[%s] >= 0) {", d2.v[0]);
    LINE("  rt_fault_permute_collide(j, %s, %s, first[%s]);", loc, d2.v[0], d2.v[0]);
    LINE("  break;");
    LINE("}");
    LINE("first[%s] = j;", d2.v[0]);
    K->ks.ind--;
    LINE("}");
    LINE("rt_free(first);");
    K->ks.ind--;
    LINE("}");
    LINE("rt_fault_check();");
    LINE("rt_free(seen);");
  } else if (lcu_permute_scatter(s) != LCU_SCATTER_ORDERED) {
    /* no winner array (lcu_permute_scatter): the writes to a position store one
     * value (one pass of plain stores, any order), or the winner's value is their
     * maximum (an atomic max into the zeroed output where writes met) */
    int same = lcu_permute_scatter(s) == LCU_SCATTER_SAME;
    const char *o = bind(K, s, 0);
    if (!same) {
      /* plain stores first; the values are >= 1, so a count of the places
       * written tells whether two writes met, and only then does a second pass
       * take the maximum over what the first left (a count over m costs more
       * than atomics when m is much larger than n) */
      LINE("int cas = m / 4 > n;");
      LINE("for (int pass = 0; pass < 2; pass++) {");
      K->ks.ind++;
    }
    LINE("#pragma omp parallel for schedule(static)");
    LINE("for (int64_t j = 0; j < n; j++) {");
    K->ks.ind++;
    CgAtoms v = thunk(K, tv, "j", "j", NULL);
    CgAtoms d = thunk(K, ti, "j", "j", NULL);
    LINE("if ((uint64_t)(int64_t)%s >= (uint64_t)m) rt_fault_permute_range(j, %s, %s, m);", d.v[0], loc, d.v[0]);
    if (same) {
      LINE("else {");
      for (int k = 0; k < nc; k++) LINE("  %s_o[%s] = %s;", bind(K, s, k), d.v[0], v.v[k]);
      LINE("}");
    } else {
      LINE("else if (cas) rt_atomic_max_i32(&%s_o[%s], %s);", o, d.v[0], v.v[0]);
      LINE("else __atomic_store_n(&%s_o[%s], %s, __ATOMIC_RELAXED);", o, d.v[0], v.v[0]);
    }
    K->ks.ind--;
    LINE("}");
    LINE("rt_fault_check();");
    if (!same) {
      LINE("if (cas) break;");
      LINE("int64_t written = 0;");
      LINE("#pragma omp parallel for schedule(static) reduction(+ : written)");
      LINE("for (int64_t j = 0; j < m; j++) written += %s_o[j] != 0;", o);
      LINE("if (written == n) break;");
      LINE("cas = 1;");
      K->ks.ind--;
      LINE("}");
    }
  } else {
    /* a general scatter: of two writes to one position the higher source
     * index wins, as in the interpreter, whatever the threads do */
    LINE("int64_t *win = rt_alloc(sizeof(int64_t) * (size_t)(m + 1));");
    LINE("#pragma omp parallel for schedule(static)");
    LINE("for (int64_t j = 0; j < m; j++) win[j] = -1;");
    LINE("#pragma omp parallel for schedule(static)");
    LINE("for (int64_t j = 0; j < n; j++) {");
    K->ks.ind++;
    CgAtoms v = thunk(K, tv, "j", "j", NULL);
    for (int k = 0; k < nc; k++) LINE("(void)%s;", v.v[k]);
    CgAtoms d = thunk(K, ti, "j", "j", NULL);
    LINE("if ((uint64_t)(int64_t)%s >= (uint64_t)m) rt_fault_permute_range(j, %s, %s, m);", d.v[0], loc, d.v[0]);
    LINE("else rt_atomic_max(&win[%s], j);", d.v[0]);
    K->ks.ind--;
    LINE("}");
    LINE("rt_fault_check();");
    LINE("#pragma omp parallel for schedule(static)");
    LINE("for (int64_t j = 0; j < n; j++) {");
    K->ks.ind++;
    CgAtoms d2 = thunk(K, ti, "j", "j", NULL);
    LINE("if (win[%s] != j) continue;", d2.v[0]);
    CgAtoms v2 = thunk(K, tv, "j", "j", NULL);
    for (int k = 0; k < nc; k++) LINE("%s_o[%s] = %s;", bind(K, s, k), d2.v[0], v2.v[k]);
    K->ks.ind--;
    LINE("}");
    LINE("rt_free(win);");
  }
  LINE("elements += n;");
}

/* SEGREDUCE and SEGSCAN over blocks of the flat elements: a block visits the
 * segments it overlaps; a segment that began in an earlier block is its head,
 * combined (reduce) or carried (scan) in block order afterwards. */
static void soac_seg(Kern *K, const LcuSoac *s, int scan) {
  const LcuThunk *t = s->thunks[0];
  int nc = s->nrops;
  const char *sd = K->ks.name[s->size.slot];
  LINE("const RtSeg *sd = %s;", sd);
  LINE("const int64_t n = sd->total, nsegs = sd->nsegs, nb = rt_nblocks(n);");
  LINE("const int64_t *restrict st = sd->starts;");
  /* the loops visit element j of segment g: the thunk's seg_of(sd, j) is g */
  K->seg_sd = s->size.name, K->seg_cur = "g";
  hoist(K, s);
  for (int k = 0; k < nc; k++) {
    const LcuType *ct = comp(t, k);
    out_array(K, s, k, ct, scan || s->rops[k] == LR_ID ? "n" : "nsegs");
    if (s->rops[k] != LR_ID) LINE("%s *part%d = rt_alloc(sizeof(%s) * (size_t)(nb + 1));", cg_ctype(K->cg, ct), k, cg_ctype(K->cg, ct));
  }
  LINE("int64_t *head = rt_alloc(sizeof(int64_t) * (size_t)(nb + 1));");
  if (!scan) {
    LINE("if (nb == 0) {");
    for (int k = 0; k < nc; k++)
      if (s->rops[k] != LR_ID) LINE("  for (int64_t g = 0; g < nsegs; g++) %s_o[g] = %s;", bind(K, s, k), cg_rop_identity(K->cg, s->rops[k]));
    LINE("}");
  }
  LINE("#pragma omp parallel for schedule(static)");
  LINE("for (int64_t b = 0; b < nb; b++) {");
  K->ks.ind++;
  block_bounds(K, "n");
  LINE("head[b] = -1;");
  if (scan) LINE("for (int64_t g = rt_seg_first(sd, lo); g < nsegs && st[g] < hi; g++) {");
  else LINE("for (int64_t g = rt_seg_first(sd, lo); g < nsegs && (st[g] < hi || b == nb - 1); g++) {");
  K->ks.ind++;
  LINE("const int64_t a0 = st[g] > lo ? st[g] : lo, a1 = st[g + 1] < hi ? st[g + 1] : hi;");
  acc_decls(K, s);
  LINE("for (int64_t j = a0; j < a1; j++) {");
  K->ks.ind++;
  CgAtoms a = thunk(K, t, "j", "j", NULL);
  K->seg_sd = NULL, K->seg_cur = NULL;
  fold_step(K, s, &a, scan);
  K->ks.ind--;
  LINE("}");
  if (scan) {
    LINE("if (st[g] < lo) head[b] = g;");
    for (int k = 0; k < nc; k++)
      if (s->rops[k] != LR_ID) LINE("part%d[b] = acc%d; /* the block's part of its last segment */", k, k);
  } else {
    LINE("if (st[g] < lo) {");
    LINE("  head[b] = g;");
    for (int k = 0; k < nc; k++)
      if (s->rops[k] != LR_ID) LINE("  part%d[b] = acc%d;", k, k);
    LINE("} else {");
    for (int k = 0; k < nc; k++)
      if (s->rops[k] != LR_ID) LINE("  %s_o[g] = acc%d;", bind(K, s, k), k);
    LINE("}");
  }
  K->ks.ind--;
  LINE("}");
  K->ks.ind--;
  LINE("}");
  LINE("rt_fault_check();");
  for (int k = 0; k < nc; k++) {
    LcuRop r = s->rops[k];
    if (r == LR_ID) continue;
    const char *o = bind(K, s, k);
    const char *ct = cg_ctype(K->cg, comp(t, k));
    if (!scan) {
      LINE("for (int64_t b = 1; b < nb; b++)");
      LINE("  if (head[b] >= 0) %s_o[head[b]] = %s;", o,
           cg_rop_apply(K->cg, r, cg_fmt(K->cg, "%s_o[head[b]]", o), cg_fmt(K->cg, "part%d[b]", k)));
    } else {
      /* carry[b]: the fold of head[b]'s elements before block b */
      LINE("%s *carry%d = rt_alloc(sizeof(%s) * (size_t)(nb + 1));", ct, k, ct);
      LINE("for (int64_t b = 1; b < nb; b++)");
      LINE("  if (head[b] >= 0) carry%d[b] = head[b - 1] == head[b] ? %s : part%d[b - 1];", k,
           cg_rop_apply(K->cg, r, cg_fmt(K->cg, "carry%d[b - 1]", k), cg_fmt(K->cg, "part%d[b - 1]", k)), k);
      LINE("#pragma omp parallel for schedule(static)");
      LINE("for (int64_t b = 1; b < nb; b++) {");
      K->ks.ind++;
      LINE("if (head[b] < 0) continue;");
      block_bounds(K, "n");
      LINE("const int64_t end = st[head[b] + 1] < hi ? st[head[b] + 1] : hi;");
      LINE("const %s c = carry%d[b];", ct, k);
      const char *oj = cg_fmt(K->cg, "%s_o[j]", o);
      LINE("for (int64_t j = lo; j < end; j++) %s = %s;", oj, cg_rop_apply(K->cg, r, "c", oj));
      K->ks.ind--;
      LINE("}");
      LINE("rt_free(carry%d);", k);
    }
    LINE("rt_free(part%d);", k);
  }
  LINE("rt_free(head);");
  LINE("elements += n;");
}

/* The body of kernel k as function fn into b (CgBodyFn). */
static void kernel_body(Cg *cg, const LcuKernel *k, NzBuf *b, const char *fn, CgSizes *sizes) {
  NzBuf text = {0};
  Kern KK = {cg, k, {0}, 0, sizes, NULL, NULL, NULL}, *K = &KK;
  cg_scope_kernel(&K->ks, cg, k, &text);
  cg->tmp = 0;
  LINE("const double t0 = rt_now();");
  LINE("const int64_t bytes0 = rt_bytes_allocated;");
  LINE("int64_t elements = 0;");
  for (int i = 0; i < k->nsoacs; i++)
    for (int j = 0; j < k->soacs[i].nbinds; j++) {
      const LcuBinder *bd = &k->soacs[i].binds[j];
      const char *ct = cg_ctype(K->cg, bd->ty);
      LINE("%s%s%s = %s;", ct, ct[strlen(ct) - 1] == '*' ? "" : " ", K->ks.name[bd->slot], cg_zero(K->cg, bd->ty));
    }
  int ki = 0;
  while (ki < cg->p->nkernels && cg->p->kernels[ki] != k) ki++;
  for (int i = 0; i < k->nsoacs; i++) {
    const LcuSoac *s = &k->soacs[i];
    /* segmented SOACs' indices range over their descriptor's elements: not known */
    K->safe = ki < cg->p->nkernels && cg->ixsafe && s->kind != LS_SEGREDUCE && s->kind != LS_SEGSCAN
                  ? cg->ixsafe[ki] + (size_t)i * (size_t)k->nslots
                  : NULL;
    LINE("/* %s -> %s%s */", lcu_soac_name(s->kind), bind(K, s, 0), s->nbinds > 1 ? ", ..." : "");
    LINE("{");
    K->ks.ind++;
    switch (s->kind) {
    case LS_ONCE: soac_once(K, s); break;
    case LS_MAP: soac_map(K, s); break;
    case LS_REDUCE: soac_reduce_scan(K, s, 0); break;
    case LS_SCAN: soac_reduce_scan(K, s, 1); break;
    case LS_FILTER: soac_filter(K, s, 0); break;
    case LS_PARTITION: soac_filter(K, s, 1); break;
    case LS_PERMUTE: soac_permute(K, s); break;
    case LS_SEGREDUCE: soac_seg(K, s, 0); break;
    case LS_SEGSCAN: soac_seg(K, s, 1); break;
    default: nz_die("codegen: SOAC kind %d", (int)s->kind);
    }
    K->ks.ind--;
    LINE("}");
  }
  cg_kernel_results(&K->ks, k);
  LINE("rt_prof_kernel(st, elements, t0, bytes0);");
  cg_kernel_body_proto(cg, b, k, fn, sizes);
  nz_buf_printf(b, " {\n%s}\n\n", text.s ? text.s : "");
  nz_buf_free(&text);
}

static void c_kernel(Cg *cg, const LcuKernel *k, int index) { cg_kernel_shared(cg, k, index, kernel_body); }

const CgTarget cg_target_c = {"c", c_kernel, NULL, 1}; /* no glue: the default includes and entry */
