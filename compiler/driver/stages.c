/* stages.c — the pipeline's stages, in order (compiler/README.md): what each makes, its
 * printer and its invariant checker. The NESL commands walk them (cmd_nesl.c calls
 * drv_stage_after as each stage's output is made), `emit --stage=NAME` names them, and
 * `--check` runs every stage's checker after it. */
#include "driver.h"
#include "mono.h"
#include "nesl.h"

static int check_ast(const NlEnv *env, void *ir, NzBuf *err) { return nesl_verify_decl(env, ir, err); }
static int check_mono(const NlEnv *env, void *ir, NzBuf *err) {
  (void)env;
  return mono_check_new(ir, err);
}
/* lcu_check prints its messages itself */
static int check_lcu(const NlEnv *env, void *ir, NzBuf *err) {
  (void)env, (void)err;
  return lcu_check(ir);
}

static void print_ast(NzBuf *b, const void *ir) { nesl_decl_print(b, ir); }
static void print_mono(NzBuf *b, const void *ir) { mono_print(b, ir); }
static void print_lcu(NzBuf *b, const void *ir) { lcu_print_program(b, ir); }

/* NESSIE_CHECK_MUTATE=STAGE breaks the stage's output just before its checker runs,
 * where the checker must find it (tests/sh/check_flag.sh). */
static void mutate_ast(void *ir) {
  NlDecl *d = ir;
  if (d->body) d->body->ty = NULL; /* an expression without a type */
}

static void mutate_mono(void *ir) {
  MonoProgram *p = ir;
  for (int i = 0; i < p->forms.n; i++) {
    NlDecl *d = p->forms.v[i].d;
    if (p->forms.v[i].k == MF_KEEP || !d->body) continue;
    NlType *v = NZ_NEW(p->arena, NlType); /* a type variable left in a monomorphic form */
    v->k = TY_VAR;
    d->body->ty = v;
    return;
  }
}

static void mutate_lcu(void *ir) {
  LcuFunc *m = lcu_find_func(ir, "main"); /* main returns a type its body does not have */
  if (m) m->ret = lcu_type_base(m->ret == lcu_type_base(LT_CHAR) ? LT_INT : LT_CHAR);
}

const DrvStage drv_stages[DRV_NSTAGES] = {
    [DRV_AST] = {"ast", "compiler/nesl/", "checked AST", "nesl_verify_decl", false, check_ast, print_ast, mutate_ast},
    [DRV_MONO] = {"mono", "compiler/mono/", "monomorphic AST", "mono_check", false, check_mono, print_mono,
                  mutate_mono},
    [DRV_FLAN] = {"flan", "compiler/flan/", "Flan (λcu, unoptimised)", "lcu_check", true, check_lcu, print_lcu,
                  mutate_lcu},
    [DRV_LCU] = {"lcu", "compiler/flan/flan_opt.c", "optimised λcu", "lcu_check", true, check_lcu, print_lcu,
                 mutate_lcu},
    [DRV_FUSED] = {"fused", "fusion/", "fused λcu", "lcu_check", false, check_lcu, print_lcu, mutate_lcu},
    [DRV_C] = {"c", "compiler/codegen/", "C11 + OpenMP", "the C compiler", false, NULL, NULL, NULL},
    [DRV_CUDA] = {"cuda", "compiler/codegen/", "CUDA C++", "nvcc", false, NULL, NULL, NULL},
};

int drv_stage_find(const char *name) {
  for (int s = 0; s < DRV_NSTAGES; s++)
    if (!strcmp(drv_stages[s].name, name)) return s;
  return -1;
}

void drv_stage_names(NzBuf *b, const char *sep) {
  for (int s = 0; s < DRV_NSTAGES; s++) nz_buf_printf(b, "%s%s", s ? sep : "", drv_stages[s].name);
}

/* How often each stage's checker ran and passed (the NESSIE_CHECK_TRACE lines). */
static int passed[DRV_NSTAGES];

int drv_stage_after(int s, const NlEnv *env, void *ir, bool check) {
  const DrvStage *st = &drv_stages[s];
  if (!st->check || !(check || st->always)) return NZ_EXIT_OK;
  const char *mut = getenv("NESSIE_CHECK_MUTATE");
  if (mut && !strcmp(mut, st->name)) st->mutate(ir);
  NzBuf err = {0};
  int bad = st->check(env, ir, &err);
  if (err.s) fputs(err.s, stderr);
  nz_buf_free(&err);
  if (bad) {
    if (s >= DRV_FLAN && s <= DRV_FUSED) { /* the program, to see where */
      NzBuf b = {0};
      lcu_print_program(&b, ir);
      fprintf(stderr, "%s", b.s ? b.s : "");
      nz_buf_free(&b);
    }
    nz_error("the %s stage (%s) made %s that fails %s (a bug)%s", st->name, st->folder, st->ir, st->checker,
             s == DRV_LCU ? "; --no-opt runs without the Flan optimiser" : "");
    return NZ_EXIT_INTERNAL;
  }
  passed[s]++;
  return NZ_EXIT_OK;
}

void drv_stage_trace(void) {
  for (int s = 0; s < DRV_NSTAGES; s++)
    if (passed[s])
      fprintf(stderr, "nessie: --check: %s: %s passed %d time%s\n", drv_stages[s].name, drv_stages[s].checker,
              passed[s], passed[s] == 1 ? "" : "s");
}
