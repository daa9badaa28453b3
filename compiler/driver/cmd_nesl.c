/* cmd_nesl.c — `nessie check|run PROG.nesl [-e EXPR]`: parse, typecheck and (for run)
 * evaluate a NESL program form by form with the reference AST interpreter, printing
 * results like NESL. `emit` and `build` belong to later stages of the pipeline. */
#include "driver.h"
#include "flan.h"
#include "nesl.h"
#include <malloc.h>
#include <unistd.h>

typedef struct {
  bool run, emit;
  const char *file, *expr;
  NlEnv *env;
  int depth;
  bool exited; /* an `exit` command was met: no further forms run */
  bool lcu;    /* --interp=lcu: forms run through flattening and the λcu interpreter */
  const char *stage; /* emit: ast, lcu, fused */
  bool fuse;   /* --scheduler given (run) or stage fused (emit) */
  DrvFuse fo;
  int rc;      /* exit status of a failure other than a user error (0: none) */
  bool stats;  /* --stats: the λcu interpreter's work counters on stderr at the end */
  NZ_VEC(FlProgram *) forms; /* emit --stage=lcu|fused: the forms' programs, joined at the end */
  NZ_VEC(NlDecl *) form_decls;
} Job;

/* Flattens one runnable form to λcu; NULL after an error (j->rc set). */
static FlProgram *form_program(Job *j, NlDecl *d) {
  FlProgram *fp = flan_lower_form(j->env, d);
  if (!fp) {
    j->rc = NZ_EXIT_INTERNAL;
    return NULL;
  }
  if (lcu_check(fp->lcu) != 0) {
    NzBuf b = {0};
    lcu_print_program(&b, fp->lcu);
    fprintf(stderr, "%s", b.s ? b.s : "");
    nz_buf_free(&b);
    nz_error("the flattener produced a program that fails the λcu checker (a bug; program above)");
    flan_program_free(fp);
    j->rc = NZ_EXIT_INTERNAL;
    return NULL;
  }
  if (j->fuse && !j->emit) { /* emit fuses the joined program */
    int rc = drv_fuse(fp->lcu, &j->fo, NULL);
    if (rc != NZ_EXIT_OK) {
      flan_program_free(fp);
      j->rc = rc;
      return NULL;
    }
  }
  return fp;
}

/* --interp=lcu: the form's λcu program run with the earlier top-level values it
 * reads; its value printed by the NESL printer. Returns 0 after an error. */
static int run_lcu(Job *j, NlDecl *d) {
  FlProgram *fp = form_program(j, d);
  if (!fp) return 0;
  NZ_VEC(LcuValue) args = {0};
  for (int i = 0; i < fp->nglobals; i++) {
    int n = flan_ncomp(fp->gtys[i], false);
    LcuValue tmp[n];
    flan_value_to_lcu(j->env->globals.v[fp->globals[i]].val, fp->gtys[i], tmp);
    for (int k = 0; k < n; k++) nz_vec_push(args, tmp[k]);
  }
  LcuValue res;
  int rc = lcu_run_main(fp->lcu, args.n, args.v, &res);
  for (int i = 0; i < args.n; i++) lcu_value_release(args.v[i]);
  nz_vec_free(args);
  if (rc == 0) {
    int n = flan_ncomp(fp->result, false);
    const LcuValue *comps = n == 1 ? &res : res.u.tup.elems;
    NlVal v = flan_value_from_lcu(comps, fp->result);
    lcu_value_release(res);
    nesl_define_value(j->env, d, v, true);
  }
  flan_program_free(fp);
  return rc == 0;
}

/* emit --stage=lcu|fused: each runnable form becomes function form_K of one program
 * whose main runs them in order, passing each the earlier top-level values it reads,
 * and returns every form's value. */
static void emit_lcu(Job *j, NlDecl *d) {
  FlProgram *fp = form_program(j, d);
  if (!fp) return;
  nz_vec_push(j->forms, fp);
  nz_vec_push(j->form_decls, d);
  LcuFunc *m = lcu_find_func(fp->lcu, "main");
  char name[32];
  snprintf(name, sizeof name, "form_%d", j->forms.n);
  m->name = nz_intern_cstr(name);
}

/* The components of global g in emitted main: names[k..k+n) of its defining form. */
typedef struct {
  int g, first, n;
} EmitGlobal;
typedef NZ_VEC(EmitGlobal) EmitGlobals;

static void emit_bind(NlPat *q, const FlTy *t, int first, EmitGlobals *gs) {
  switch (q->k) {
  case P_VAR: {
    EmitGlobal e = {q->slot, first, flan_ncomp(t, false)};
    nz_vec_push(*gs, e);
    return;
  }
  case P_PAIR:
    emit_bind(q->a, t->a, first, gs);
    emit_bind(q->b, t->b, first + flan_ncomp(t->a, false), gs);
    return;
  case P_CON: emit_bind(q->a, t, first, gs); return;
  }
}

static void emit_program(Job *j) {
  if (!j->forms.n) return;
  LcuProgram *all = lcu_program_new(j->forms.v[0]->lcu->src);
  NzLoc L = {0};
  NZ_VEC(const char *) names = {0};
  NZ_VEC(const LcuType *) tys = {0};
  EmitGlobals gs = {0};
  NZ_VEC(LcuBinder) binds = {0};
  NZ_VEC(LcuExpr *) rhs = {0};
  NZ_VEC(int) nb = {0};
  for (int f = 0; f < j->forms.n; f++) {
    FlProgram *fp = j->forms.v[f];
    for (int k = 0; k < fp->lcu->nkernels; k++) {
      all->kernels = nz_xrealloc(all->kernels, sizeof(LcuKernel *) * (size_t)(all->nkernels + 1));
      all->kernels[all->nkernels++] = fp->lcu->kernels[k];
    }
    for (int k = 0; k < fp->lcu->nfuncs; k++) {
      all->funcs = nz_xrealloc(all->funcs, sizeof(LcuFunc *) * (size_t)(all->nfuncs + 1));
      all->funcs[all->nfuncs++] = fp->lcu->funcs[k];
    }
    NZ_VEC(LcuExpr *) args = {0};
    for (int i = 0; i < fp->nglobals; i++) {
      int at = -1;
      for (int k = gs.n - 1; k >= 0 && at < 0; k--)
        if (gs.v[k].g == fp->globals[i]) at = k;
      if (at < 0) nz_die("emit: a global read before its form");
      for (int c = 0; c < gs.v[at].n; c++) nz_vec_push(args, lcu_var(all, names.v[gs.v[at].first + c], L));
    }
    int n = flan_ncomp(fp->result, false), first = names.n;
    const LcuType *rt[n];
    flan_comp_types(fp->result, false, rt);
    for (int c = 0; c < n; c++) {
      char nm[48];
      snprintf(nm, sizeof nm, "r%d_%d", f + 1, c);
      nz_vec_push(names, nz_intern_cstr(nm));
      nz_vec_push(tys, rt[c]);
      nz_vec_push(binds, lcu_binder(names.v[first + c], NULL, L));
    }
    LcuExpr **av = lcu_exprs(all, args.n);
    if (args.n) memcpy(av, args.v, sizeof(LcuExpr *) * (size_t)args.n);
    char fname[32];
    snprintf(fname, sizeof fname, "form_%d", f + 1);
    nz_vec_push(rhs, lcu_call(all, fname, args.n, av, L));
    nz_vec_push(nb, n);
    nz_vec_free(args);
    NlDecl *d = j->form_decls.v[f];
    if (d->k == D_BIND) {
      emit_bind(d->pat, fp->result, first, &gs);
    } else {
      EmitGlobal e = {d->global, first, n};
      nz_vec_push(gs, e);
    }
  }
  LcuFunc *m = lcu_func_add(all, "main", L);
  LcuExpr **res = lcu_exprs(all, names.n);
  for (int i = 0; i < names.n; i++) res[i] = lcu_var(all, names.v[i], L);
  LcuExpr *body = names.n == 1 ? res[0] : lcu_tuple(all, names.n, res, L);
  m->ret = lcu_type_tuple(tys.n, tys.v);
  int bi = binds.n;
  for (int f = j->forms.n - 1; f >= 0; f--) {
    bi -= nb.v[f];
    LcuBinder *b = lcu_binders(all, nb.v[f]);
    memcpy(b, binds.v + bi, sizeof(LcuBinder) * (size_t)nb.v[f]);
    body = lcu_let(all, nb.v[f], b, rhs.v[f], body, L);
  }
  m->body = body;
  NzBuf out = {0};
  if (lcu_check(all) != 0) {
    nz_error("the joined λcu program fails the checker (a bug)");
    j->rc = NZ_EXIT_INTERNAL;
  } else if (j->fuse && (j->rc = drv_fuse(all, &j->fo, &out)) != NZ_EXIT_OK) {
    /* message printed */
  } else {
    lcu_print_program(&out, all);
    fwrite(out.s, 1, out.len, stdout);
  }
  nz_buf_free(&out);
  free(all->kernels);
  free(all->funcs);
  all->kernels = NULL;
  all->funcs = NULL;
  all->nkernels = all->nfuncs = 0;
  lcu_program_free(all);
  nz_vec_free(names);
  nz_vec_free(tys);
  nz_vec_free(gs);
  nz_vec_free(binds);
  nz_vec_free(rhs);
  nz_vec_free(nb);
}

static int process_source(Job *j, NzSource *src);

static int process_file(Job *j, const char *path, NzLoc from) {
  if (j->depth > 16) {
    nz_error_at(from, "load nested too deeply");
    return 0;
  }
  NzSource *src = nz_source_read_at(path, from); /* errors at the `load` form */
  if (!src) return 0;
  nz_vec_push(j->env->sources, src);
  j->depth++;
  int ok = process_source(j, src);
  j->depth--;
  return ok;
}

/* The file named by `load "NAME"`: NAME relative to the loading file's directory, else
 * to the current directory (where NESL looks); in each place NAME.nesl if NAME itself
 * does not exist, since NESL lets a program omit the ".nesl" suffix. */
static void load_path(NzBuf *path, const char *from, const char *name) {
  const char *slash = strrchr(from, '/');
  bool rel = name[0] != '/' && slash;
  for (int i = rel ? 0 : 2; i < 4; i++) {
    path->len = 0;
    if (i < 2) nz_buf_printf(path, "%.*s/", (int)(slash - from), from);
    nz_buf_printf(path, "%s%s", name, i % 2 ? ".nesl" : "");
    if (access(path->s, R_OK) == 0) return;
  }
  path->len = 0; /* nothing found: report the name as resolved first */
  if (rel) nz_buf_printf(path, "%.*s/", (int)(slash - from), from);
  nz_buf_puts(path, name);
}

static void print_check(NlDecl *d) {
  NzBuf b = {0};
  switch (d->k) {
  case D_FUN:
  case D_DATA: nz_buf_printf(&b, "%s : ", d->name); break;
  case D_BIND:
    nesl_pat_str(&b, d->pat);
    nz_buf_puts(&b, " : ");
    break;
  case D_EXPR: nz_buf_puts(&b, "it : "); break;
  default: return;
  }
  nesl_type_str(&b, d->ty);
  puts(b.s);
  nz_buf_free(&b);
}

static int process_source(Job *j, NzSource *src) {
  NlDecl **ds;
  int n;
  nesl_parse(src, j->env->arena, true, &ds, &n); /* a syntax error is a last D_ERROR form */
  int ok = 1;
  for (int i = 0; i < n && ok && !j->exited; i++) {
    NlDecl *d = ds[i];
    if (d->k == D_ERROR) {
      nesl_report_error(d);
      ok = 0;
      break;
    }
    if (d->k == D_LOAD) {
      NzBuf path = {0};
      load_path(&path, src->name, d->name);
      ok = process_file(j, path.s, d->loc);
      nz_buf_free(&path);
      continue;
    }
    if (d->k == D_IGNORED) {
      /* `exit` ends the NESL session: the forms after it never run */
      if (d->name == nz_intern_cstr("exit")) {
        if (!j->emit) {
          j->exited = true;
        } else {
          NzBuf b = {0};
          nesl_decl_print(&b, d);
          fputs(b.s, stdout);
          nz_buf_free(&b);
        }
      }
      continue;
    }
    if (d->k == D_SET) {
      if (!j->emit) {
        nesl_print_length = d->nfields < 0 ? 0 : d->nfields;
        continue;
      }
    }
    if (!nesl_check_decl(j->env, d)) {
      ok = 0;
      break;
    }
    if (j->emit && strcmp(j->stage, "ast")) {
      if (d->k == D_BIND || d->k == D_EXPR) {
        emit_lcu(j, d);
        if (j->rc) ok = 0;
        else if (!nesl_eval_decl(j->env, d, false)) ok = 0; /* later forms read its value */
      } else if (d->k == D_FUN || d->k == D_DATA) {
        ok = nesl_eval_decl(j->env, d, false);
      }
    } else if (j->emit) {
      NzBuf b = {0};
      nesl_decl_print(&b, d);
      fputs(b.s, stdout);
      nz_buf_free(&b);
    } else if (j->run && j->lcu && (d->k == D_BIND || d->k == D_EXPR)) {
      ok = run_lcu(j, d);
    } else if (j->run) {
      ok = nesl_eval_decl(j->env, d, true);
    } else {
      print_check(d);
    }
  }
  free(ds);
  nz_stdout_flush();
  return ok;
}

static int job_main(void *arg) {
  Job *j = arg;
  if (!nesl_load_basis(j->env)) {
    nz_error("the NESL basis library failed to load");
    return NZ_EXIT_INTERNAL;
  }
  int ok = process_file(j, j->file, (NzLoc){0});
  if (ok && j->emit && strcmp(j->stage, "ast")) emit_program(j);
  for (int i = 0; i < j->forms.n; i++) flan_program_free(j->forms.v[i]);
  nz_vec_free(j->forms);
  nz_vec_free(j->form_decls);
  if (j->rc) return j->rc;
  if (!ok) return NZ_EXIT_USER;
  if (j->expr && !j->exited) {
    NzBuf b = {0};
    nz_buf_puts(&b, j->expr);
    size_t l = b.len;
    while (l && (b.s[l - 1] == ' ' || b.s[l - 1] == '\n')) l--;
    if (!l || (b.s[l - 1] != ';' && b.s[l - 1] != '$')) nz_buf_puts(&b, " $");
    NzSource *src = nz_source_from_string("<-e>", b.s);
    nz_buf_free(&b);
    nz_vec_push(j->env->sources, src);
    if (!process_source(j, src)) return j->rc ? j->rc : NZ_EXIT_USER;
  }
  return NZ_EXIT_OK;
}

static void usage(FILE *f) {
  fputs("usage: nessie check PROG.nesl\n"
        "       nessie run PROG.nesl [-e EXPR] [--interp=ast|lcu] [--check]\n"
        "                  [--scheduler=S [--solver=glpk|cbc] [--time-limit=SEC]]\n"
        "       nessie emit PROG.nesl --stage=ast|lcu|fused [--scheduler=S]\n",
        f);
}

int drv_cmd_nesl(int argc, char **argv) {
  const char *cmd = argv[0];
  if (!strcmp(cmd, "build")) {
    fprintf(stderr, "nessie build: not implemented yet (the NESL front end stops at the AST "
                    "interpreter)\n");
    return NZ_EXIT_INTERNAL;
  }
  Job j = {0};
  j.run = !strcmp(cmd, "run");
  j.emit = !strcmp(cmd, "emit");
  j.stage = "ast";
  drv_fuse_defaults(&j.fo);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (j.emit && !strncmp(a, "--stage=", 8)) {
      j.stage = a + 8;
      if (!strcmp(j.stage, "mono") || !strcmp(j.stage, "flan")) {
        fprintf(stderr, "nessie emit: stage '%s' has no separate IR yet (compiler/flan/README.md); "
                        "use ast, lcu or fused\n", j.stage);
        return NZ_EXIT_INTERNAL;
      }
      if (strcmp(j.stage, "ast") && strcmp(j.stage, "lcu") && strcmp(j.stage, "fused")) {
        fprintf(stderr, "nessie emit: unknown stage '%s' (ast, lcu, fused)\n", j.stage);
        return NZ_EXIT_USAGE;
      }
      continue;
    }
    if ((j.run || j.emit) && !strncmp(a, "--", 2)) {
      int r = drv_fuse_option(&j.fo, a);
      if (r < 0) return NZ_EXIT_USAGE;
      if (r > 0) {
        if (!strncmp(a, "--scheduler=", 12)) j.fuse = true;
        continue;
      }
    }
    if (!strcmp(a, "--check") && (j.run || j.emit)) continue; /* λcu is always checked */
    if (!strcmp(a, "--stats") && j.run) {
      j.stats = true;
      continue;
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return NZ_EXIT_OK;
    } else if (!strcmp(a, "-e") && j.run) {
      if (++i >= argc) {
        usage(stderr);
        return NZ_EXIT_USAGE;
      }
      j.expr = argv[i];
    } else if (!strcmp(a, "--interp=ast") && j.run) {
      j.lcu = false;
    } else if (!strcmp(a, "--interp=lcu") && j.run) {
      j.lcu = true;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "nessie %s: unknown option '%s'\n", cmd, a);
      usage(stderr);
      return NZ_EXIT_USAGE;
    } else if (!j.file) {
      j.file = a;
    } else {
      usage(stderr);
      return NZ_EXIT_USAGE;
    }
  }
  if (!j.file) {
    usage(stderr);
    return NZ_EXIT_USAGE;
  }
  if (j.emit && !strcmp(j.stage, "fused")) {
    j.fuse = true;
    if (!strcmp(j.fo.scheduler, "none")) j.fo.scheduler = "greedy-down";
  }
  if (j.run && j.fuse && !j.lcu) {
    fprintf(stderr, "nessie run: --scheduler needs --interp=lcu\n");
    return NZ_EXIT_USAGE;
  }
  /* The interpreter allocates and frees many large sequences: keep freed memory in the
   * process instead of returning it to the kernel, which must zero it again. */
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  j.env = nesl_env_new();
  int rc = nesl_run_on_big_stack(job_main, &j);
  if (j.stats)
    fprintf(stderr, "lcu stats: %lld SOAC applications, %lld elements\n", (long long)lcu_stats.soacs,
            (long long)lcu_stats.elements);
  nz_stdout_flush();
  nesl_env_free(j.env);
  nesl_rt_reset();
  return rc;
}
