/* cg_prog.c — one generated file for a whole λcu program, shared by the
 * targets: includes, prototypes, the target's kernels, the CPU functions, the
 * table of fault locations, the profile table and the glue to rt_main. */
#include "cg.h"

static void source_line(NzBuf *b, NzLoc loc) {
  const char *p = loc.src ? loc.src->text : NULL, *end = p ? p + loc.src->len : NULL;
  if (!p) {
    cg_c_string(b, "", 0);
    return;
  }
  for (int l = 1; l < loc.line && p < end; p++)
    if (*p == '\n') l++;
  const char *q = p;
  while (q < end && *q != '\n') q++;
  cg_c_string(b, p, (size_t)(q - p));
}

/* Which invocations each kernel holds: the fusion report's clusters with
 * several members, in order, name the fused kernels in order of creation. */
static void clusters(Cg *cg, const char *report) {
  const LcuProgram *p = cg->p;
  cg->clusters = NZ_NEWN(cg->arena, const char *, p->nkernels + 1);
  NZ_VEC(const char *) multi = {0};
  for (const char *r = report; r && (r = strstr(r, "//   clusters: ")); ) {
    r += 15;
    const char *eol = strchr(r, '\n');
    if (!eol) eol = r + strlen(r);
    for (const char *c = r; c < eol && (c = memchr(c, '{', (size_t)(eol - c))); ) {
      const char *e = memchr(c, '}', (size_t)(eol - c));
      if (!e) break;
      if (memchr(c, ',', (size_t)(e - c))) {
        NzBuf t = {0};
        for (const char *x = c + 1; x < e; x++)
          if (*x != ',') nz_buf_putc(&t, *x);
        nz_vec_push(multi, nz_strndup(cg->arena, t.s ? t.s : "", t.len));
        nz_buf_free(&t);
      }
      c = e + 1;
    }
    r = eol;
  }
  int next = 0, nfused = 0;
  for (int i = 0; i < p->nkernels; i++)
    if (!strncmp(p->kernels[i]->name, "fused_", 6)) nfused++;
  for (int i = 0; i < p->nkernels; i++) {
    const char *name = p->kernels[i]->name;
    if (!strncmp(name, "fused_", 6) && nfused == multi.n) cg->clusters[i] = multi.v[next++];
    else cg->clusters[i] = name;
  }
  nz_vec_free(multi);
}

static const char *cell_field(const LcuType *t) {
  switch (t->kind) {
  case LT_INT: return "i";
  case LT_FLOAT: return "f";
  case LT_ARRAY: return "a";
  case LT_SEGDES: return "s";
  default: return "b";
  }
}

/* ------------------------------------------- index checks known to pass */

/* What is known of the length of the array in a CPU slot: that it equals the value of
 * CPU slot v (IX_SLOT) or the literal v (IX_LIT); of an int slot: that it is the
 * length of array slot v (IX_LENOF, let n = #v). λcu's checker gives every binder of
 * a function its own slot, bound once per call, so a fact recorded where a slot is
 * bound holds wherever the slot is in scope. */
enum { IX_NONE, IX_SLOT, IX_LIT, IX_LENOF };
typedef struct {
  int kind, v;
} IxLen;

/* The size expression z of kernel k as a fact at a run with arguments args. */
static IxLen size_at(const LcuKernel *k, const LcuSize *z, LcuExpr **args) {
  IxLen r = {IX_NONE, 0};
  if (z->kind == LZ_LIT) r.kind = IX_LIT, r.v = z->lit;
  else if (z->kind == LZ_VAR && z->slot >= 0 && z->slot < k->nparams) {
    const LcuExpr *a = args[z->slot];
    if (a->kind == LE_VAR) r.kind = IX_SLOT, r.v = a->slot;
    else if (a->kind == LE_INT) r.kind = IX_LIT, r.v = a->lit.i;
  }
  return r;
}

/* The length of kernel slot x's array when a SOAC of k binds it: its iteration space
 * (MAP, SCAN, REDUCE's id components) or PERMUTE's output length; NULL if unknown. */
static const LcuSize *bound_len(const LcuKernel *k, int x, int *soac) {
  for (int i = 0; i < k->nsoacs; i++) {
    const LcuSoac *s = &k->soacs[i];
    for (int b = 0; b < s->nbinds; b++) {
      if (s->binds[b].slot != x) continue;
      *soac = i;
      if (s->kind == LS_MAP || s->kind == LS_SCAN || (s->kind == LS_REDUCE && s->rops[b] == LR_ID))
        return &s->size;
      if (s->kind == LS_PERMUTE) return s->outlen.kind != LZ_NONE ? &s->outlen : &s->size;
      return NULL;
    }
  }
  return NULL;
}

/* n known to be at most the length of the array in CPU slot a */
static bool ix_within(IxLen n, int a, const IxLen *len) {
  IxLen l = len[a];
  if (n.kind == IX_SLOT)
    return (l.kind == IX_SLOT && l.v == n.v) || (len[n.v].kind == IX_LENOF && len[n.v].v == a);
  return n.kind == IX_LIT && l.kind == IX_LIT && n.v <= l.v;
}

/* Kernel k run with args (facts len of the caller's slots): row i of its table keeps
 * only the parameters this run proves long enough for SOAC i. */
static void ix_run(Cg *cg, const LcuKernel *k, LcuExpr **args, const IxLen *len, int nslots, bool *seen) {
  int ki = 0;
  while (ki < cg->p->nkernels && cg->p->kernels[ki] != k) ki++;
  if (ki == cg->p->nkernels) return;
  uint8_t *t = cg->ixsafe[ki];
  for (int i = 0; i < k->nsoacs; i++) {
    IxLen n = size_at(k, &k->soacs[i].size, args);
    for (int x = 0; x < k->nparams; x++) {
      const LcuExpr *a = args[x];
      bool ok = k->params[x].ty && k->params[x].ty->kind == LT_ARRAY && a->kind == LE_VAR && a->slot >= 0 &&
                a->slot < nslots && (n.kind != IX_SLOT || (n.v >= 0 && n.v < nslots)) && ix_within(n, a->slot, len);
      uint8_t *f = &t[(size_t)i * (size_t)k->nslots + (size_t)x];
      *f = (seen[ki] ? *f : 1) && ok;
    }
  }
  seen[ki] = true;
}

static void ix_walk(Cg *cg, const LcuExpr *e, IxLen *len, int nslots, bool *seen) {
  if (!e) return;
  if (e->kind == LE_LET && e->nargs == 2) {
    const LcuExpr *r = e->args[0];
    ix_walk(cg, r, len, nslots, seen);
    if (r->kind == LE_PRIM && r->prim == LP_LENGTH && r->nargs == 1 && r->args[0]->kind == LE_VAR &&
        r->args[0]->ty && r->args[0]->ty->kind == LT_ARRAY && e->nbinds == 1 && e->binds[0].slot >= 0 &&
        e->binds[0].slot < nslots)
      len[e->binds[0].slot] = (IxLen){IX_LENOF, r->args[0]->slot};
    if (r->kind == LE_RUN && r->target) { /* the facts of its results, for the body's runs */
      const LcuKernel *k = r->target;
      for (int b = 0; b < e->nbinds && b < k->nrets; b++) {
        int sj, x = e->binds[b].slot;
        const LcuSize *z = bound_len(k, k->rets[b].slot, &sj);
        if (z && x >= 0 && x < nslots) len[x] = size_at(k, z, r->args);
      }
    }
    ix_walk(cg, e->args[1], len, nslots, seen);
    return;
  }
  for (int a = 0; a < e->nargs; a++) ix_walk(cg, e->args[a], len, nslots, seen);
  if (e->kind == LE_RUN && e->target) ix_run(cg, e->target, e->args, len, nslots, seen);
}

void cg_ix_facts(Cg *cg) {
  const LcuProgram *p = cg->p;
  cg->ixsafe = NZ_NEWN(cg->arena, uint8_t *, p->nkernels + 1);
  bool *seen = nz_xcalloc((size_t)p->nkernels + 1, sizeof(bool));
  for (int ki = 0; ki < p->nkernels; ki++) {
    const LcuKernel *k = p->kernels[ki];
    cg->ixsafe[ki] = NZ_NEWN(cg->arena, uint8_t, (size_t)k->nsoacs * (size_t)k->nslots + 1);
  }
  for (int fi = 0; fi < p->nfuncs; fi++) {
    const LcuFunc *f = p->funcs[fi];
    IxLen *len = nz_xcalloc((size_t)f->nslots + 1, sizeof(IxLen));
    ix_walk(cg, f->body, len, f->nslots, seen);
    free(len);
  }
  /* inside a kernel: an earlier SOAC's array over the same iteration space, and
   * #xs's own xs, need no run's facts */
  for (int ki = 0; ki < p->nkernels; ki++) {
    const LcuKernel *k = p->kernels[ki];
    for (int i = 0; i < k->nsoacs; i++) {
      const LcuSize *n = &k->soacs[i].size;
      uint8_t *row = cg->ixsafe[ki] + (size_t)i * (size_t)k->nslots;
      if (!seen[ki]) memset(row, 0, (size_t)k->nslots);
      if (n->kind == LZ_LEN && n->slot >= 0 && n->slot < k->nslots) row[n->slot] = 1;
      for (int x = k->nparams; x < k->nslots; x++) {
        int sj = -1;
        const LcuSize *z = bound_len(k, x, &sj);
        if (!z || sj >= i) continue;
        if ((n->kind == LZ_VAR && z->kind == LZ_VAR && n->slot == z->slot) ||
            (n->kind == LZ_LIT && z->kind == LZ_LIT && n->lit <= z->lit))
          row[x] = 1;
      }
    }
  }
  free(seen);
}

int cg_program(const LcuProgram *p, const CgTarget *t, const char *report, int flags, NzBuf *out) {
  const LcuFunc *m = lcu_main(p);
  if (!m) {
    nz_error("codegen: the program has no function main");
    return NZ_EXIT_USER;
  }
  Cg cg = {0};
  cg.p = p;
  cg.target = t;
  cg.arena = nz_arena_new();
  cg.profile = (flags & CG_PROFILE) != 0;
  cg.float32 = (flags & CG_FLOAT32) != 0;
  clusters(&cg, report);
  lcu_mark_last_uses(p);
  cg_ix_facts(&cg);
  for (int i = 0; i < p->nkernels; i++) t->kernel(&cg, p->kernels[i], i);
  for (int i = 0; i < p->nfuncs; i++) cg_func(&cg, p->funcs[i]);

  const char *file = p->src ? p->src->name : "program.lcu";
  nz_buf_printf(out, "/* Generated by nessie from %s (target %s): one C function per kernel and per\n"
                     " * CPU function of the λcu program; it links against the Nessie runtime. */\n",
                cg_c_comment_text(&cg, file), t->name);
  if (cg.float32) /* also keeps a --float32 build's cache key apart from the default one's */
    nz_buf_puts(out, "/* --float32: λcu's float is C's 32-bit float here (an experiment: results change);\n"
                     " * main's float arguments are narrowed, results widened to double for printing. */\n");
  if (t->glue) t->glue(&cg, out, CG_GLUE_INCLUDES);
  else nz_buf_puts(out, "#include <stdint.h>\n#include \"nessie_rt.h\"\n\n");
  /* A λcu function may recurse with no base case the C compiler can see: a
   * run-time fault ends it. That is the program's business, not a warning. */
  nz_buf_puts(out, "#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12\n"
                   "#pragma GCC diagnostic ignored \"-Winfinite-recursion\"\n#endif\n\n");
  for (int i = 0; i < p->nkernels; i++) {
    cg_kernel_proto(&cg, out, p->kernels[i]);
    nz_buf_puts(out, ";\n");
  }
  for (int i = 0; i < p->nfuncs; i++) {
    cg_func_proto(&cg, out, p->funcs[i]);
    nz_buf_puts(out, ";\n");
  }
  nz_buf_puts(out, "\n");
  nz_buf_puts(out, cg.body.s ? cg.body.s : "");

  nz_buf_puts(out, "static const RtLoc nessie_locs[] = {\n");
  for (int i = 0; i < cg.locs.n; i++) {
    nz_buf_printf(out, "  {%d, %d, ", cg.locs.v[i].line, cg.locs.v[i].col);
    source_line(out, cg.locs.v[i]);
    nz_buf_puts(out, "},\n");
  }
  if (!cg.locs.n) nz_buf_puts(out, "  {0, 0, \"\"},\n");
  nz_buf_puts(out, "};\n\nstatic RtKernelStat *const nessie_kernels[] = {\n");
  for (int i = 0; i < p->nkernels; i++) nz_buf_printf(out, "  &%s_stat,\n", cg_cid(&cg, p->kernels[i]->name));
  if (!p->nkernels) nz_buf_puts(out, "  NULL,\n");
  nz_buf_puts(out, "};\n\nstatic const char *const nessie_param_names[] = {");
  for (int i = 0; i < m->nparams; i++) nz_buf_printf(out, "%s, ", cg_c_string_text(&cg, m->params[i].name));
  nz_buf_puts(out, "NULL};\nstatic const char *const nessie_param_types[] = {");
  for (int i = 0; i < m->nparams; i++)
    nz_buf_printf(out, "%s, ", cg_type_lit(&cg, m->params[i].ty));
  nz_buf_puts(out, "NULL};\n\n");

  /* main's arguments and result cross the boundary as flat cells */
  nz_buf_puts(out, "static void nessie_entry(const RtCell *a, RtCell *r) {\n");
  nz_buf_puts(out, "  (void)a;\n  (void)r;\n");
  if (t->glue) t->glue(&cg, out, CG_GLUE_ENTRY);
  for (int k = 0; cg.float32 && k < lcu_type_arity(m->ret); k++)
    if (lcu_type_component(m->ret, k)->kind == LT_FLOAT) nz_buf_printf(out, "  float r%d = 0.0f;\n", k);
  /* main owns its arguments (cg_expr.c); rt_main keeps its own references */
  for (int i = 0, c = 0; i < m->nparams; i++)
    for (int k = 0; k < lcu_type_arity(m->params[i].ty); k++, c++) {
      const LcuType *ct = lcu_type_component(m->params[i].ty, k);
      if (ct->kind == LT_ARRAY) nz_buf_printf(out, "  rt_retain(a[%d].a);\n", c);
      if (ct->kind == LT_SEGDES) nz_buf_printf(out, "  rt_seg_retain(a[%d].s);\n", c);
    }
  nz_buf_printf(out, "  %s(", cg_func_cname(&cg, m));
  int cell = 0, first = 1;
  for (int i = 0; i < m->nparams; i++)
    for (int k = 0; k < lcu_type_arity(m->params[i].ty); k++, cell++) {
      const LcuType *ct = lcu_type_component(m->params[i].ty, k);
      nz_buf_printf(out, "%s%sa[%d].%s", first ? "" : ", ", cg.float32 && ct->kind == LT_FLOAT ? "(float)" : "", cell,
                    cell_field(ct));
      first = 0;
    }
  int nres = lcu_type_arity(m->ret);
  /* --float32: a float result comes back through a float, widened into its cell */
  NzBuf widen = {0};
  for (int k = 0; k < nres; k++) {
    int narrow = cg.float32 && lcu_type_component(m->ret, k)->kind == LT_FLOAT;
    if (narrow) {
      nz_buf_printf(&widen, "  r[%d].f = (double)r%d;\n", k, k);
      nz_buf_printf(out, "%s&r%d", first ? "" : ", ", k);
    } else {
      nz_buf_printf(out, "%s&r[%d].%s", first ? "" : ", ", k, cell_field(lcu_type_component(m->ret, k)));
    }
    first = 0;
  }
  nz_buf_puts(out, ");\n");
  if (widen.len) nz_buf_puts(out, widen.s);
  nz_buf_free(&widen);
  for (int k = 0; t->glue && k < nres; k++) /* the result is printed from the host */
    if (lcu_type_component(m->ret, k)->kind == LT_ARRAY) nz_buf_printf(out, "  (void)RT_HOST(r[%d].a);\n", k);
  nz_buf_puts(out, "}\n\n");
  nz_buf_puts(out, "static const RtProgram nessie_program = {\n  ");
  cg_c_string(out, file, strlen(file));
  nz_buf_printf(out, ", nessie_locs, %d, nessie_param_names, nessie_param_types, %s, %d, %d,\n", m->nparams,
                cg_type_lit(&cg, m->ret), cell, nres);
  nz_buf_printf(out, "  nessie_entry, nessie_kernels, %d, %s, %d};\n\n", p->nkernels,
                cg.profile ? "\"nessie-profile.csv\"" : "NULL", cg.float32);
  nz_buf_puts(out, "int main(int argc, char **argv) { return rt_main(argc, argv, &nessie_program); }\n");
  nz_buf_free(&cg.body);
  nz_vec_free(cg.locs);
  nz_vec_free(cg.shares);
  nz_arena_free(cg.arena);
  return NZ_EXIT_OK;
}
