/* cmd_nesl.c — `nessie check|run PROG.nesl [-e EXPR]`: parse, typecheck and (for run)
 * evaluate a NESL program form by form with the reference AST interpreter, printing
 * results like NESL. `emit` and `build` belong to later stages of the pipeline. */
#include "driver.h"
#include "flan.h"
#include "mono.h"
#include "nesl.h"
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

typedef struct {
  bool run, emit;
  const char *file, *expr;
  NlEnv *env;
  int depth;
  bool exited; /* an `exit` command was met: no further forms run */
  bool lcu;    /* --interp=lcu: forms run through flattening and the λcu interpreter */
  int stage;   /* emit: the stage printed (DrvStageId: ast, mono, flan, lcu, fused) */
  NZ_VEC(NlDecl *) mono_decls; /* emit --stage=mono: the checked forms, loads expanded */
  MonoProgram *mono; /* the mono stage, form by form (NULL: no stage after ast runs) */
  bool fuse;   /* --scheduler given (run) or stage fused (emit) */
  DrvFuse fo;
  int rc;      /* exit status of a failure other than a user error (0: none) */
  bool stats;  /* --stats: the λcu interpreter's work counters on stderr at the end */
  bool noopt;  /* --stage=flan or --no-opt: the flattener's program without the Flan optimiser */
  NZ_VEC(FlProgram *) forms; /* emit --stage=lcu|fused: the forms' programs, joined at the end */
  NZ_VEC(NlDecl *) form_decls;
  /* The compiled path (build, emit --stage=c, run --target=c, emit --show): main shows
   * each form's output in order; a function definition's line is a form without program
   * (forms.v[k] NULL). shows.v[k]: the text operand of form k's show. */
  bool show;
  bool check; /* --check: also monomorphise the checked forms and run mono_check */
  NZ_VEC(char *) shows;
  bool defer;  /* run --target=c: a front-end error is reported after the earlier forms ran */
  int (*use)(LcuProgram *p, void *ctx); /* what the compiled path does with the program */
  void *use_ctx;
  /* --keep-going: a failing form is reported and the next one runs, as the reference's
   * `load` does; failed records that one did (exit status 1 at the end). The compiled
   * path runs the program in segments that end after each failing form (cuts: the
   * number of forms before the cut, and where the held front-end messages stood). */
  bool keep_going, failed;
  NZ_VEC(struct Cut { int nforms; long held; }) cuts;
  /* and, per form, the values of the earlier top-level values it reads, taken when it
   * was compiled: a segment's program gets those defined before it as literals */
  NZ_VEC(LcuValue *) gvals;
} Job;

static char *show_text(NlDecl *d);
/* --compile-time's parts: flattening (with its λcu check), the Flan optimiser, fusion. */
static double flat_seconds, opt_seconds, fuse_seconds;

static int fuse_timed(LcuProgram *p, DrvFuse *o, NzBuf *report) {
  double t0 = nz_now();
  int rc = drv_fuse(p, o, report);
  fuse_seconds += nz_now() - t0;
  return rc;
}

/* The stages after mono for one runnable form, md its monomorphic copy: flattened,
 * optimised (unless --no-opt or --stage=flan) and, when running (`run --interp=lcu
 * --scheduler`), fused. NULL after an error (j->rc set). */
static FlProgram *form_program(Job *j, NlDecl *md) {
  double t_flat = nz_now();
  FlProgram *fp = flan_lower_form(j->env, j->mono, md);
  flat_seconds += nz_now() - t_flat;
  if (!fp) {
    j->rc = NZ_EXIT_INTERNAL;
    return NULL;
  }
  t_flat = nz_now();
  int rc = drv_stage_after(DRV_FLAN, j->env, fp->lcu, j->check);
  flat_seconds += nz_now() - t_flat;
  if (rc == NZ_EXIT_OK && !j->noopt) {
    double t_opt = nz_now();
    if (flan_opt(fp->lcu, NULL) != 0) {
      nz_error("the Flan optimiser broke the program (a bug); --no-opt runs without it");
      rc = NZ_EXIT_INTERNAL;
    } else {
      rc = drv_stage_after(DRV_LCU, j->env, fp->lcu, j->check);
    }
    opt_seconds += nz_now() - t_opt;
  }
  if (rc == NZ_EXIT_OK && j->fuse && !j->emit) { /* emit fuses the joined program */
    rc = fuse_timed(fp->lcu, &j->fo, NULL);
    if (rc == NZ_EXIT_OK) rc = drv_stage_after(DRV_FUSED, j->env, fp->lcu, j->check);
  }
  if (rc != NZ_EXIT_OK) {
    flan_program_free(fp);
    j->rc = rc;
    return NULL;
  }
  return fp;
}

/* --interp=lcu: the form's λcu program run with the earlier top-level values it
 * reads; its value printed by the NESL printer. Returns 0 after an error. */
static int run_lcu(Job *j, NlDecl *d, NlDecl *md) {
  FlProgram *fp = form_program(j, md);
  if (!fp) return 0;
  NZ_VEC(LcuValue) args = {0};
  for (int i = 0; i < fp->nglobals; i++) {
    int n = flan_ncomp(fp->gtys[i], false);
    LcuValue tmp[n > 0 ? n : 1];
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
static void emit_lcu(Job *j, NlDecl *d, NlDecl *md) {
  FlProgram *fp = form_program(j, md);
  if (!fp) return;
  nz_vec_push(j->forms, fp);
  nz_vec_push(j->form_decls, d);
  if (j->show) nz_vec_push(j->shows, show_text(d));
  LcuFunc *m = lcu_find_func(fp->lcu, "main");
  char name[32];
  snprintf(name, sizeof name, "form_%d", j->forms.n);
  m->name = nz_intern_cstr(name);
}

/* The `show` descriptor of a NESL value of type t (compiler/lcu/README.md): its
 * printing structure over the flat components of compiler/flan/flan.h. A datatype's
 * generic fields read their arguments from ctx. */
typedef struct ShowCtx {
  NlType **args;
  int nargs;
  const struct ShowCtx *up;
} ShowCtx;

static void show_desc(NzBuf *b, NlType *t, const ShowCtx *c) {
  t = nesl_type_resolve(t);
  switch (t ? t->k : TY_VAR) {
  case TY_INT: nz_buf_putc(b, 'i'); return;
  case TY_FLOAT: nz_buf_putc(b, 'f'); return;
  case TY_BOOL: nz_buf_putc(b, 'b'); return;
  case TY_CHAR: nz_buf_putc(b, 'c'); return;
  case TY_FUN: case TY_FNID: nz_buf_putc(b, 'N'); return; /* its int tag (compiler/flan) */
  case TY_SEQ:
    nz_buf_putc(b, '[');
    show_desc(b, t->a, c);
    return;
  case TY_PAIR:
    nz_buf_putc(b, '(');
    show_desc(b, t->a, c);
    show_desc(b, t->b, c);
    return;
  case TY_DATA: {
    ShowCtx in = {t->args, t->nargs, c};
    nz_buf_printf(b, "d%s;", t->dt->name);
    show_desc(b, t->dt->fields, &in);
    return;
  }
  case TY_GEN:
    if (c && t->id < c->nargs) {
      show_desc(b, c->args[t->id], c->up);
      return;
    }
    nz_buf_putc(b, 'i'); /* flattening represents an unbound type variable as int */
    return;
  case TY_VAR: nz_buf_putc(b, 'i'); return;
  }
}

/* The text operand of the show that prints form d's line, as the AST interpreter
 * prints it (nesl_interp.c print_result): DESC \t PRINT_LENGTH \t PREFIX \t SUFFIX. */
static bool fn_valued(NlDecl *d) {
  NlType *t = nesl_type_resolve(d->ty);
  return t && t->k == TY_FUN;
}

static char *show_text(NlDecl *d) {
  NzBuf b = {0};
  if (d->k == D_FUN || d->k == D_DATA) {
    nz_buf_printf(&b, "\t0\t\t%s = fn : ", d->name);
  } else if (fn_valued(d)) { /* a function value: known by its type, printed as fn */
    nz_buf_puts(&b, "\t0\t\t");
    if (d->k == D_BIND) nesl_pat_str(&b, d->pat);
    else nz_buf_puts(&b, "it");
    nz_buf_puts(&b, " = fn : ");
  } else {
    show_desc(&b, d->ty, NULL);
    nz_buf_printf(&b, "\t%d\t", nesl_print_length);
    if (d->k == D_BIND) nesl_pat_str(&b, d->pat);
    else nz_buf_puts(&b, "it");
    nz_buf_puts(&b, " = \t : ");
  }
  nesl_type_str(&b, d->ty);
  nz_buf_putc(&b, '\n');
  return b.s;
}

/* show(text, v) as a λcu expression; v NULL for (). */
static LcuExpr *show_call(LcuProgram *p, const char *text, LcuExpr *v, NzLoc L) {
  LcuExpr *m = lcu_expr_new(p, LE_ARRAY, L);
  int len = (int)strlen(text);
  m->nargs = len;
  m->args = lcu_exprs(p, len);
  for (int i = 0; i < len; i++) m->args[i] = lcu_char(p, (unsigned char)text[i], L);
  LcuExpr *a[2] = {m, v ? v : lcu_tuple(p, 0, NULL, L)};
  return lcu_prim(p, LP_SHOW, 2, a, L);
}

/* The components of global g in emitted main: names[k..k+n) of its defining form. */
typedef struct {
  int g, first, n;
} EmitGlobal;
typedef NZ_VEC(EmitGlobal) EmitGlobals;

/* Global g now lives in names[first..first+n): so do the earlier definitions of its name
 * with the same type, which functions defined before it read (NESL.md 4.6). */
static void emit_global(NlEnv *env, int g, int first, int n, EmitGlobals *gs) {
  for (; g >= 0; g = env->globals.v[g].older) {
    EmitGlobal e = {g, first, n};
    nz_vec_push(*gs, e);
  }
}

static void emit_bind(NlEnv *env, NlPat *q, const FlTy *t, int first, EmitGlobals *gs) {
  switch (q->k) {
  case P_VAR: emit_global(env, q->slot, first, flan_ncomp(t, false), gs); return;
  case P_PAIR:
    emit_bind(env, q->a, t->a, first, gs);
    emit_bind(env, q->b, t->b, first + flan_ncomp(t->a, false), gs);
    return;
  case P_CON: emit_bind(env, q->a, t, first, gs); return;
  }
}

/* Joins the forms' programs into one whose main runs them in order (see emit_lcu); with
 * j->show main shows each form's line and returns (), else it returns every form's
 * value. mode (NULL: all 2) says per form: 0 left out, 1 run without its show (a later
 * form reads its value), 2 run and shown. The forms' kernels and functions are
 * borrowed: free with join_free. NULL if the joined program fails the checker (a bug;
 * j->rc set). */
static LcuProgram *join_forms(Job *j, const char *mode) {
  const NzSource *src = NULL;
  for (int f = 0; f < j->forms.n && !src; f++)
    if (j->forms.v[f]) src = j->forms.v[f]->lcu->src;
  LcuProgram *all = lcu_program_new(src);
  NzLoc L = {0};
  NZ_VEC(const char *) names = {0};
  NZ_VEC(const LcuType *) tys = {0};
  EmitGlobals gs = {0};
  NZ_VEC(LcuBinder) binds = {0};
  NZ_VEC(LcuExpr *) rhs = {0};
  NZ_VEC(int) nb = {0};
  for (int f = 0; f < j->forms.n; f++) {
    FlProgram *fp = j->forms.v[f];
    if (mode && (!mode[f] || (!fp && mode[f] == 1))) continue;
    if (!fp) { /* a definition's line */
      char nm[48];
      snprintf(nm, sizeof nm, "s%d", f + 1);
      nz_vec_push(binds, lcu_binder(nz_intern_cstr(nm), NULL, L));
      nz_vec_push(rhs, show_call(all, j->shows.v[f], NULL, L));
      nz_vec_push(nb, 1);
      continue;
    }
    for (int k = 0; k < fp->lcu->nkernels; k++) {
      all->kernels = nz_xrealloc(all->kernels, sizeof(LcuKernel *) * (size_t)(all->nkernels + 1));
      all->kernels[all->nkernels++] = fp->lcu->kernels[k];
    }
    for (int k = 0; k < fp->lcu->nfuncs; k++) {
      all->funcs = nz_xrealloc(all->funcs, sizeof(LcuFunc *) * (size_t)(all->nfuncs + 1));
      all->funcs[all->nfuncs++] = fp->lcu->funcs[k];
    }
    NZ_VEC(LcuExpr *) args = {0};
    for (int i = 0, off = 0; i < fp->nglobals; off += flan_ncomp(fp->gtys[i], false), i++) {
      int at = -1;
      for (int k = gs.n - 1; k >= 0 && at < 0; k--)
        if (gs.v[k].g == fp->globals[i]) at = k;
      if (at < 0 && mode && f < j->gvals.n && j->gvals.v[f]) { /* from an earlier segment */
        int n = flan_ncomp(fp->gtys[i], false);
        const LcuType *ct[n > 0 ? n : 1];
        flan_comp_types(fp->gtys[i], false, ct);
        for (int c = 0; c < n; c++) nz_vec_push(args, flan_const_expr(all, &j->gvals.v[f][off + c], ct[c], L));
        continue;
      }
      if (at < 0) nz_die("emit: a global read before its form");
      for (int c = 0; c < gs.v[at].n; c++) nz_vec_push(args, lcu_var(all, names.v[gs.v[at].first + c], L));
    }
    int n = flan_ncomp(fp->result, false), first = names.n;
    const LcuType *rt[n > 0 ? n : 1];
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
    if (j->show && (!mode || mode[f] == 2)) { /* show(text, the form's value) */
      LcuExpr **vs = lcu_exprs(all, n);
      for (int c = 0; c < n; c++) vs[c] = lcu_var(all, names.v[first + c], L);
      char nm[48];
      snprintf(nm, sizeof nm, "s%d", f + 1);
      nz_vec_push(binds, lcu_binder(nz_intern_cstr(nm), NULL, L));
      nz_vec_push(rhs, show_call(all, j->shows.v[f], n == 1 ? vs[0] : lcu_tuple(all, n, vs, L), L));
      nz_vec_push(nb, 1);
    }
    NlDecl *d = j->form_decls.v[f];
    if (d->k == D_BIND) emit_bind(j->env, d->pat, fp->result, first, &gs);
    else emit_global(j->env, d->global, first, n, &gs);
  }
  LcuFunc *m = lcu_func_add(all, "main", L);
  LcuExpr *body;
  if (j->show) {
    body = lcu_tuple(all, 0, NULL, L);
    m->ret = lcu_type_unit();
  } else {
    LcuExpr **res = lcu_exprs(all, names.n);
    for (int i = 0; i < names.n; i++) res[i] = lcu_var(all, names.v[i], L);
    body = names.n == 1 ? res[0] : lcu_tuple(all, names.n, res, L);
    m->ret = lcu_type_tuple(tys.n, tys.v);
  }
  int bi = binds.n;
  for (int f = rhs.n - 1; f >= 0; f--) {
    bi -= nb.v[f];
    LcuBinder *b = lcu_binders(all, nb.v[f]);
    memcpy(b, binds.v + bi, sizeof(LcuBinder) * (size_t)nb.v[f]);
    body = lcu_let(all, nb.v[f], b, rhs.v[f], body, L);
  }
  m->body = body;
  nz_vec_free(names);
  nz_vec_free(tys);
  nz_vec_free(gs);
  nz_vec_free(binds);
  nz_vec_free(rhs);
  nz_vec_free(nb);
  if (lcu_check(all) != 0) {
    nz_error("the joined λcu program fails the checker (a bug)");
    j->rc = NZ_EXIT_INTERNAL;
  } else if (lcu_dedupe_functions(all) > 0 && lcu_check(all) != 0) {
    /* the forms' copies of one function become one (issue 39) */
    nz_error("the joined λcu program fails the checker after merging duplicate functions (a bug)");
    j->rc = NZ_EXIT_INTERNAL;
  }
  return all;
}

/* Frees a joined program, not the kernels and functions it borrowed. */
static void join_free(LcuProgram *all) {
  free(all->kernels);
  free(all->funcs);
  all->kernels = NULL;
  all->funcs = NULL;
  all->nkernels = all->nfuncs = 0;
  lcu_program_free(all);
}

static void emit_program(Job *j) {
  LcuProgram *all = join_forms(j, NULL);
  NzBuf out = {0};
  if (j->rc) {
    /* message printed */
  } else if (j->fuse && ((j->rc = fuse_timed(all, &j->fo, &out)) != NZ_EXIT_OK ||
                         (j->rc = drv_stage_after(DRV_FUSED, j->env, all, j->check)) != NZ_EXIT_OK)) {
    /* message printed */
  } else {
    drv_stages[j->stage].print(&out, all);
    fwrite(out.s, 1, out.len, stdout);
  }
  nz_buf_free(&out);
  join_free(all);
}

static int process_source(Job *j, NzSource *src);

/* emit --stage=mono: the mono stage over every checked form at once, in print order,
 * its checker run (always, compiler/mono/README.md) and printed. */
static int emit_mono(Job *j) {
  MonoProgram *mp = mono_program(j->env, j->mono_decls.v, j->mono_decls.n);
  if (!mp) return NZ_EXIT_INTERNAL;
  int rc = drv_stage_after(DRV_MONO, j->env, mp, true);
  if (rc == NZ_EXIT_OK) {
    NzBuf out = {0};
    drv_stages[DRV_MONO].print(&out, mp);
    fwrite(out.s, 1, out.len, stdout);
    nz_buf_free(&out);
  }
  mono_free(mp);
  return rc;
}

/* Messages held back in a file while fd 2 points at it: the real stderr (err) and the
 * file. Two are live at most: run --target=c's front-end errors (job_main), inside
 * them a silenced evaluation's. */
typedef struct {
  int err;
  FILE *held;
} Held;
static Held held_job = {-1, NULL}, held_eval = {-1, NULL};

/* The held messages, shown on the real stderr. */
static void held_replay(Held *h) {
  if (h->err < 0 || !h->held) return;
  fflush(stderr);
  dup2(h->err, 2);
  rewind(h->held);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, h->held)) > 0) fwrite(buf, 1, n, stderr);
  fflush(stderr);
}

/* A process that exits while messages are held (out of memory inside an evaluation)
 * shows them: innermost first, into the outer hold, which then reaches stderr. */
static void held_at_exit(void) {
  held_replay(&held_eval);
  held_replay(&held_job);
}

static void held_register(void) {
  static bool registered;
  if (!registered) atexit(held_at_exit);
  registered = true;
}

/* Evaluates d with the AST interpreter, its output (prints, files written to stdout)
 * discarded, and its messages held unless keep_errors: the compiled paths need the
 * top-level values that functions read (flattening makes them literals). Held
 * messages are shown if the process exits during the evaluation; with replay, also
 * if the evaluation fails. */
static int eval_silenced(NlEnv *env, NlDecl *d, bool keep_errors, bool replay) {
  held_register();
  nz_stdout_flush();
  fflush(stderr);
  int o = dup(1), e = dup(2), nul = open("/dev/null", O_WRONLY);
  FILE *held = keep_errors ? NULL : tmpfile();
  if (o < 0 || e < 0 || nul < 0 || (!keep_errors && !held)) nz_die("cannot redirect output: %s", strerror(errno));
  dup2(nul, 1);
  if (held) {
    dup2(fileno(held), 2);
    held_eval = (Held){e, held};
  }
  close(nul);
  int ok = nesl_eval_decl(env, d, false);
  nz_stdout_flush();
  fflush(stderr);
  if (!ok && replay) held_replay(&held_eval);
  held_eval = (Held){-1, NULL};
  dup2(o, 1);
  dup2(e, 2);
  close(o);
  close(e);
  if (held) fclose(held);
  return ok;
}

static int eval_quiet(NlEnv *env, NlDecl *d, bool replay) { return eval_silenced(env, d, false, replay); }

/* emit: a form evaluated because later forms read its value; a fault is reported. The
 * seconds are --compile-time's "AST evaluation". */
static double eval_seconds;
static int eval_timed(NlEnv *env, NlDecl *d) {
  double t0 = nz_now();
  int ok = eval_silenced(env, d, true, false);
  eval_seconds += nz_now() - t0;
  return ok;
}

/* --keep-going: the values of the top-level values fp reads, now (Job.gvals). */
static LcuValue *global_values(Job *j, const FlProgram *fp) {
  int n = 0;
  for (int i = 0; i < fp->nglobals; i++) n += flan_ncomp(fp->gtys[i], false);
  LcuValue *v = nz_xcalloc((size_t)n + 1, sizeof *v);
  for (int i = 0, off = 0; i < fp->nglobals; off += flan_ncomp(fp->gtys[i], false), i++)
    flan_value_to_lcu(j->env->globals.v[fp->globals[i]].val, fp->gtys[i], v + off);
  return v;
}

/* The compiled path: d becomes a form of the joined program, with its show. A form
 * that no later form reads (not `evaluate`) is not run here: if it faults, the compiled
 * program stops there, and nothing after it needs its value. */
static int compile_decl(Job *j, NlDecl *d, NlDecl *md, bool evaluate) {
  if ((d->k == D_BIND || d->k == D_EXPR) && !fn_valued(d)) {
    emit_lcu(j, d, md);
    if (j->rc) return 0;
    if (j->keep_going) nz_vec_push(j->gvals, global_values(j, j->forms.v[j->forms.n - 1]));
    /* a run-time error: the compiled program stops at this form, as `nessie run` does
     * (--keep-going: its segment ends after it, process_source forgets it) */
    if (evaluate && !eval_quiet(j->env, d, false)) {
      if (j->keep_going) return 0;
      j->exited = true;
    }
    return 1;
  }
  if (!eval_quiet(j->env, d, true)) return 0; /* the command stops here: say why */
  if (d->k != D_FUN || d->body) { /* the `name = fn : TYPE` line */
    if (j->keep_going) nz_vec_push(j->gvals, NULL);
    nz_vec_push(j->forms, NULL);
    nz_vec_push(j->form_decls, d);
    nz_vec_push(j->shows, show_text(d));
  }
  return 1;
}

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

/* Byte offset of a location in its source. */
static size_t loc_offset(NzLoc l) {
  const char *t = l.src->text;
  size_t o = 0;
  for (int line = 1; line < l.line && o < l.src->len; o++)
    if (t[o] == '\n') line++;
  o += l.col > 0 ? (size_t)l.col - 1 : 0;
  return o < l.src->len ? o : l.src->len;
}

static bool ident_char(char c) { return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z'); }

/* Does the identifier name occur (case-insensitively, as a whole word) in text[from..)? */
static bool mentions(const NzSource *src, size_t from, const char *name) {
  size_t n = strlen(name);
  for (size_t o = from; o + n <= src->len; o++)
    if ((o == 0 || !ident_char(src->text[o - 1])) && !strncasecmp(src->text + o, name, n) &&
        (o + n == src->len || !ident_char(src->text[o + n])))
      return true;
  return false;
}

static bool pat_mentioned(const NzSource *src, size_t from, const NlPat *p) {
  if (!p) return false;
  if (p->k == P_VAR) return mentions(src, from, p->name);
  return pat_mentioned(src, from, p->a) || pat_mentioned(src, from, p->b);
}

/* emit and the compiled path evaluate the forms with the AST interpreter because a later
 * form's flattening reads the values of earlier ones. In the file given on the command line (no -e), forms
 * after the last one whose names are mentioned later in the file (or followed by a
 * `load`) are not evaluated: nothing reads their values, and the forms that are
 * evaluated are the same prefix as before (the same rand state). Returns the number of
 * forms of ds to evaluate. */
static int forms_to_evaluate(Job *j, NzSource *src, NlDecl **ds, int n) {
  if (j->depth != 1 || j->expr || j->keep_going || !(j->emit || j->show)) return n;
  int last = 0;
  for (int i = 0; i < n; i++) {
    NlDecl *d = ds[i];
    if (d->k == D_LOAD || d->k == D_ERROR) {
      last = i + 1; /* a loaded file may read anything */
      continue;
    }
    if (d->k != D_BIND && d->k != D_EXPR) continue;
    size_t from = i + 1 < n ? loc_offset(ds[i + 1]->loc) : src->len;
    if (d->k == D_EXPR ? mentions(src, from, "it") : pat_mentioned(src, from, d->pat)) last = i + 1;
  }
  return last;
}

/* --keep-going: the form that just failed leaves no trace. The globals it declared
 * (from index nglobals on) are hidden, so later forms see an earlier definition of
 * the name or report it undefined, as after the reference's `load`; the compiled path's
 * current segment ends after it (Job.cuts). */
static void forget_form(Job *j, int nglobals) {
  const char *gone = nz_intern_cstr("(a form that failed)");
  for (int g = nglobals; g < j->env->globals.n; g++) j->env->globals.v[g].name = gone;
  j->failed = true;
  if (j->show) {
    fflush(stderr); /* the held front-end messages so far belong before the next segment */
    struct Cut c = {j->forms.n, (long)lseek(2, 0, SEEK_CUR)};
    nz_vec_push(j->cuts, c);
  }
}

static int process_source(Job *j, NzSource *src) {
  NlDecl **ds;
  int n;
  nesl_parse(src, j->env->arena, true, &ds, &n); /* a syntax error is a last D_ERROR form */
  int neval = forms_to_evaluate(j, src, ds, n);
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
      if (!ok && j->keep_going && !j->rc) {
        forget_form(j, j->env->globals.n); /* what it loaded stays */
        ok = 1;
      }
      continue;
    }
    if (d->k == D_IGNORED) {
      /* `exit` ends the NESL session: the forms after it never run */
      if (d->name == nz_intern_cstr("exit")) {
        if (!j->emit) {
          j->exited = true;
        } else if (j->stage == DRV_MONO) {
          nz_vec_push(j->mono_decls, d);
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
      if (!j->emit || j->show) { /* --show: the shows after it truncate to N elements */
        nesl_print_length = d->nfields < 0 ? 0 : d->nfields;
        continue;
      }
    }
    int nglobals = j->env->globals.n;
    if (!nesl_check_decl(j->env, d)) {
      if (j->keep_going) {
        forget_form(j, nglobals);
        continue;
      }
      ok = 0;
      break;
    }
    if ((j->rc = drv_stage_after(DRV_AST, j->env, d, j->check)) != NZ_EXIT_OK) {
      ok = 0;
      break;
    }
    NlDecl *md = d; /* what the flattener reads: the form's monomorphic copy */
    if (j->mono) {
      if (!(md = mono_add(j->mono, d))) j->rc = NZ_EXIT_INTERNAL; /* message printed */
      else j->rc = drv_stage_after(DRV_MONO, j->env, j->mono, j->check);
      if (j->rc) {
        ok = 0;
        break;
      }
    }
    if (j->show) {
      ok = compile_decl(j, d, md, i < neval);
      if (!ok && j->keep_going && !j->rc) {
        forget_form(j, nglobals);
        ok = 1;
      }
    } else if (j->emit && j->stage == DRV_MONO) {
      nz_vec_push(j->mono_decls, d); /* monomorphised once every form is checked */
    } else if (j->emit && j->stage != DRV_AST) {
      if (d->k == D_BIND || d->k == D_EXPR) {
        emit_lcu(j, d, md);
        if (j->rc) ok = 0;
        else if (i < neval && !eval_timed(j->env, d)) ok = 0; /* later forms read its value */
      } else if (d->k == D_FUN || d->k == D_DATA) {
        ok = eval_timed(j->env, d);
      }
    } else if (j->emit) {
      NzBuf b = {0};
      drv_stages[DRV_AST].print(&b, d);
      fputs(b.s, stdout);
      nz_buf_free(&b);
    } else if (j->run && j->lcu && (d->k == D_BIND || d->k == D_EXPR)) {
      ok = run_lcu(j, d, md);
    } else if (j->run) {
      ok = nesl_eval_decl(j->env, d, true);
    } else {
      print_check(d);
    }
    if (j->run && !j->show && !ok && j->keep_going && !j->rc) {
      forget_form(j, nglobals);
      ok = 1;
    }
  }
  free(ds);
  nz_stdout_flush();
  return ok;
}

/* Copies the held front-end messages [from, to) (to < 0: to the end) to stderr. */
static void copy_held(FILE *held, long from, long to) {
  fflush(stderr);
  if (fseek(held, from, SEEK_SET) != 0) return;
  char buf[4096];
  size_t n;
  while ((to < 0 || from < to) &&
         (n = fread(buf, 1, to < 0 || to - from > (long)sizeof buf ? sizeof buf : (size_t)(to - from), held)) > 0) {
    fwrite(buf, 1, n, stderr);
    from += (long)n;
  }
}

/* --keep-going on the compiled path: the forms run in segments, each ending after a
 * form that failed (Job.cuts), each its own program, which gets the values of earlier
 * segments that its forms read as literals (Job.gvals); after a segment, the front-end
 * messages held up to its cut. A segment's fault is its program's own message and exit status
 * 1; the next segment runs. Returns 1 if a segment failed, or the first status > 1. */
static int use_segments(Job *j, FILE *held) {
  int urc = 0, from = 0;
  long hfrom = 0;
  char *mode = nz_xcalloc((size_t)j->forms.n + 1, 1);
  for (int c = 0; c <= j->cuts.n; c++) {
    int to = c < j->cuts.n ? j->cuts.v[c].nforms : j->forms.n;
    long hto = c < j->cuts.n ? j->cuts.v[c].held : -1;
    if (to > from) {
      memset(mode, 0, (size_t)j->forms.n);
      memset(mode + from, 2, (size_t)(to - from));
      LcuProgram *all = join_forms(j, mode);
      int rc = j->rc ? j->rc : j->use(all, j->use_ctx);
      join_free(all);
      if (rc > NZ_EXIT_USER) {
        urc = rc;
        break;
      }
      if (rc) urc = rc;
    }
    if (held) copy_held(held, hfrom, hto);
    from = to;
    hfrom = hto;
  }
  free(mode);
  return urc;
}

static int job_main(void *arg) {
  Job *j = arg;
  if (!nesl_load_basis(j->env)) {
    nz_error("the NESL basis library failed to load");
    return NZ_EXIT_INTERNAL;
  }
  /* the stages after the checked AST run form by form (emit --stage=mono makes its
     program at the end, in print order); --check runs mono for its checker */
  if (j->lcu || j->show || (j->emit && j->stage >= DRV_FLAN) || (j->check && !j->emit)) j->mono = mono_new(j->env);
  /* run --target=c: the front end's errors wait until the earlier forms have run */
  FILE *held = j->defer ? tmpfile() : NULL;
  int saved = -1;
  if (held) {
    fflush(stderr);
    saved = dup(2);
    dup2(fileno(held), 2);
    held_register();
    held_job = (Held){saved, held};
  }
  int ok = process_file(j, j->file, (NzLoc){0});
  if (ok && j->expr && !j->exited) { /* -e EXPR: a last form */
    NzBuf b = {0};
    nz_buf_puts(&b, j->expr);
    size_t l = b.len;
    while (l && (b.s[l - 1] == ' ' || b.s[l - 1] == '\n')) l--;
    if (!l || (b.s[l - 1] != ';' && b.s[l - 1] != '$')) nz_buf_puts(&b, " $");
    NzSource *src = nz_source_from_string("<-e>", b.s);
    nz_buf_free(&b);
    nz_vec_push(j->env->sources, src);
    ok = process_source(j, src);
  }
  if (held) {
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    held_job = (Held){-1, NULL};
  }
  int urc = 0;
  if (j->use && !j->rc && j->keep_going && (ok || j->defer)) {
    urc = use_segments(j, held);
    if (held) fclose(held);
    held = NULL;
  } else if (j->use && !j->rc && (ok || j->defer)) {
    LcuProgram *all = join_forms(j, NULL);
    urc = j->rc ? j->rc : j->use(all, j->use_ctx);
    join_free(all);
  } else if (ok && j->emit && j->stage == DRV_MONO) {
    j->rc = emit_mono(j);
  } else if (ok && j->emit && j->stage != DRV_AST && (j->forms.n || j->show)) {
    emit_program(j);
  }
  if (j->check && !j->rc && getenv("NESSIE_CHECK_TRACE")) drv_stage_trace(); /* silent otherwise */
  nz_vec_free(j->mono_decls);
  mono_free(j->mono);
  if (held) {
    if (urc == 0) { /* what `nessie run` reports after the forms before the error */
      rewind(held);
      char buf[4096];
      size_t n;
      while ((n = fread(buf, 1, sizeof buf, held)) > 0) fwrite(buf, 1, n, stderr);
    }
    fclose(held);
  }
  for (int i = 0; i < j->gvals.n; i++) { /* before the forms, which say how many */
    const FlProgram *fp = j->forms.v[i];
    int n = 0;
    for (int c = 0; fp && j->gvals.v[i] && c < fp->nglobals; c++) n += flan_ncomp(fp->gtys[c], false);
    for (int c = 0; c < n; c++) lcu_value_release(j->gvals.v[i][c]);
    free(j->gvals.v[i]);
  }
  nz_vec_free(j->gvals);
  for (int i = 0; i < j->forms.n; i++)
    if (j->forms.v[i]) flan_program_free(j->forms.v[i]);
  for (int i = 0; i < j->shows.n; i++) free(j->shows.v[i]);
  nz_vec_free(j->forms);
  nz_vec_free(j->form_decls);
  nz_vec_free(j->shows);
  nz_vec_free(j->cuts);
  if (urc) return urc;
  if (j->rc) return j->rc;
  if (!ok || j->failed) return NZ_EXIT_USER;
  return NZ_EXIT_OK;
}

static void usage(FILE *f) {
  fputs("usage: nessie check PROG.nesl\n"
        "       nessie run PROG.nesl [-e EXPR] [--interp=ast|lcu] [--check] [--no-opt] [--keep-going]\n"
        "                  [--scheduler=S [--solver=glpk|cbc] [--time-limit=SEC] [--cost=unit|FILE]]\n"
        "       nessie emit PROG.nesl --stage=STAGE [--scheduler=S] [--show] [--compile-time] [--no-opt]\n"
        "                  [--check]\n"
        "  (STAGE, in the pipeline's order: ast, the checked program as NESL; mono, the\n"
        "   monomorphic program as NESL; flan, the flattener's λcu before the Flan optimiser;\n"
        "   lcu: after it (--no-opt: without it); fused; c, cuda: nessie build --help)\n"
        "  (--check: every stage's invariant checker runs after it (compiler/README.md);\n"
        "   NESSIE_CHECK_TRACE=1 says which ran on stderr)\n"
        "  (--compile-time: on stderr, the time from start to the printed program less the\n"
        "   AST evaluation of the forms: front end, flattening, fusion)\n"
        "  (--show: main prints each form's line as `nessie run` does, the program nessie build\n"
        "   compiles; else it returns every form's value)\n"
        "  (--keep-going, also with --target=c: a form that fails is reported and the next one\n"
        "   runs, as the reference's `load` does; the exit status is still 1)\n",
        f);
}

/* The interpreter allocates and frees many large sequences: keep freed memory in the
 * process instead of returning it to the kernel, which must zero it again. */
static int run_job(Job *j) {
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  j->env = nesl_env_new();
  int rc = nesl_run_on_big_stack(job_main, j);
  nz_stdout_flush();
  nesl_env_free(j->env);
  nesl_rt_reset();
  return rc;
}

int drv_nesl_compile(const char *path, const char *expr, int defer, int (*use)(LcuProgram *p, void *ctx),
                     void *ctx) {
  Job j = {0};
  j.file = path;
  j.expr = expr;
  j.stage = DRV_LCU;
  j.show = true;
  j.defer = (defer & DRV_DEFER) != 0;
  j.keep_going = (defer & DRV_KEEP_GOING) != 0;
  j.use = use;
  j.use_ctx = ctx;
  drv_fuse_defaults(&j.fo); /* the caller fuses the joined program */
  return run_job(&j);
}

int drv_cmd_nesl(int argc, char **argv) {
  const char *cmd = argv[0];
  Job j = {0};
  bool compile_time = false;
  j.run = !strcmp(cmd, "run");
  j.emit = !strcmp(cmd, "emit");
  j.stage = DRV_AST;
  drv_fuse_defaults(&j.fo);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (j.emit && !strncmp(a, "--stage=", 8)) {
      j.stage = drv_stage_find(a + 8); /* c and cuda went to cmd_build.c (nessie.c) */
      if (j.stage < 0 || j.stage > DRV_FUSED) {
        NzBuf names = {0};
        drv_stage_names(&names, ", ");
        fprintf(stderr, "nessie emit: unknown stage '%s' (%s)\n", a + 8, names.s);
        nz_buf_free(&names);
        return NZ_EXIT_USAGE;
      }
      if (j.stage == DRV_FLAN) j.noopt = true; /* Flan: λcu before the optimiser (compiler/flan/README.md) */
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
    if (!strcmp(a, "--check") && (j.run || j.emit)) {
      j.check = true;
      continue;
    }
    if (!strcmp(a, "--show") && j.emit) {
      j.show = true;
      continue;
    }
    if (!strcmp(a, "--compile-time") && j.emit) {
      compile_time = true;
      continue;
    }
    if (!strcmp(a, "--no-opt") && (j.run || j.emit)) {
      j.noopt = true;
      continue;
    }
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
    } else if (!strcmp(a, "--keep-going") && j.run) {
      j.keep_going = true;
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
  if (j.emit && j.stage == DRV_FUSED) {
    j.fuse = true;
    if (!j.fo.scheduler_given) j.fo.scheduler = "greedy-down"; /* --scheduler=none: the unfused report */
  }
  if (j.run && j.fuse && !j.lcu) {
    fprintf(stderr, "nessie run: --scheduler needs --interp=lcu (or --target=c)\n");
    return NZ_EXIT_USAGE;
  }
  if (j.show && j.stage <= DRV_MONO) {
    fprintf(stderr, "nessie emit: --show is for --stage=lcu|fused\n");
    return NZ_EXIT_USAGE;
  }
  double t0 = nz_now();
  int rc = run_job(&j);
  if (compile_time)
    fprintf(stderr,
            "compile time: %.1f ms (flattening %.1f ms, Flan optimiser %.1f ms, fusion %.1f ms, the rest: front "
            "end, printing; AST evaluation of the forms, %.1f ms, excluded)\n",
            (nz_now() - t0 - eval_seconds) * 1e3, flat_seconds * 1e3, opt_seconds * 1e3, fuse_seconds * 1e3,
            eval_seconds * 1e3);
  if (j.stats)
    fprintf(stderr, "lcu stats: %lld SOAC applications, %lld elements\n", (long long)lcu_stats.soacs,
            (long long)lcu_stats.elements);
  return rc;
}
