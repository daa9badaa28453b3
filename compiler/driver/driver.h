/* driver.h — subcommands of the nessie driver, one file each. Prefix: drv_. */
#ifndef DRIVER_H
#define DRIVER_H
#include "nessie.h"
#include "lcu.h"

/* Each takes argv starting at the subcommand name and returns an exit status. */
int drv_cmd_lcu(int argc, char **argv);  /* cmd_lcu.c: lcu check|run|fuse */
int drv_cmd_nesl(int argc, char **argv); /* cmd_nesl.c: check, run, emit, build */

/* fuse.c: the fusion pipeline shared by `lcu fuse`, `lcu run --scheduler`. */
#include "fusion.h"
typedef struct {
  const char *scheduler; /* a name in fus_schedulers */
  int scheduler_given;   /* --scheduler was on the command line */
  FusOptions opt;
  const char *dot_dir; /* --dot=DIR or NULL */
  int png;
  int dot_scalars; /* --dot-scalars: input scalars drawn as nodes, not folded into labels */
  double dot_limit; /* --dot-time-limit=SEC, per picture */
  int time_given;   /* --time-limit was given (else --work-limit turns it off) */
  FusCostModel cost;      /* --cost=unit|FILE (default unit) */
  const char *sizes_path; /* --sizes=PROFILE.csv: elements per invocation, or NULL */
  FusCostModel report_cost; /* --report-cost=FILE: also report each region's objective under it */
  int report_set;
  int show_spaces; /* --show-spaces: each invocation's symbolic space in the report */
} DrvFuse;
void drv_fuse_defaults(DrvFuse *o);
int drv_fuse_option(DrvFuse *o, const char *arg); /* 1 taken, 0 not ours, -1 bad */
/* Fuses every region of a checked program in place; appends the per-region
 * report (as // comments) to report if non-NULL. Returns an exit status. */
int drv_fuse(LcuProgram *p, DrvFuse *o, NzBuf *report);

/* stages.c: the pipeline's stages in order (compiler/README.md). `emit --stage=NAME`
 * prints one; the NESL commands call drv_stage_after as each stage's output is made. */
typedef enum { DRV_AST, DRV_MONO, DRV_FLAN, DRV_LCU, DRV_FUSED, DRV_C, DRV_CUDA, DRV_NSTAGES } DrvStageId;
typedef struct NlEnv NlEnv;
typedef struct {
  const char *name;    /* emit --stage=NAME */
  const char *folder;  /* the code that makes it */
  const char *ir;      /* what it makes */
  const char *checker; /* its invariant checker, by name */
  bool always;         /* the checker runs without --check too */
  /* ir: the stage's output: a checked form (NlDecl, ast), a MonoProgram (mono), an
   * LcuProgram (flan, lcu, fused); c and cuda have none here (cmd_build.c; the C or
   * CUDA compiler checks their text). check returns the number of violations, each a
   * line appended to err (lcu_check prints its own). */
  int (*check)(const NlEnv *env, void *ir, NzBuf *err);
  void (*print)(NzBuf *b, const void *ir);
  void (*mutate)(void *ir); /* NESSIE_CHECK_MUTATE=NAME: breaks ir before the checker runs */
} DrvStage;
extern const DrvStage drv_stages[DRV_NSTAGES];
int drv_stage_find(const char *name); /* -1: no such stage */
void drv_stage_names(NzBuf *b, const char *sep);
/* Stage s made ir: its checker runs if check (--check) is set or it always runs.
 * Returns 0, or NZ_EXIT_INTERNAL after saying which checker failed. */
int drv_stage_after(int s, const NlEnv *env, void *ir, bool check);
/* NESSIE_CHECK_TRACE: one stderr line per stage whose checker ran, with how often. */
void drv_stage_trace(void);

/* cmd_build.c: the compiled path (compiler/codegen/, runtime/). */
int drv_cmd_build(int argc, char **argv, int emit); /* build; emit --stage=c */
int drv_cmd_run_target(int argc, char **argv);      /* run PROG --target=c */
/* flags: cg_program's (CG_PROFILE, CG_FLOAT32; compiler/codegen/cg.h). */
int drv_gen_c(const LcuProgram *p, const char *report, int flags, NzBuf *out);
/* Compiles p (cached) and runs it with argv_rest as its arguments: by exec, returning
 * only on failure, or (wait) as a child whose exit status it returns. report: the
 * fusion report (names the fused clusters) or NULL; flags as drv_gen_c's. */
int drv_run_compiled(const LcuProgram *p, const char *report, char **argv_rest, int nrest, int wait, int flags);
/* cmd_nesl.c: NESL -> λcu for the compiled path: the file's forms flattened into one
 * program whose main shows each form's output as `nessie run` prints it; use(p, ctx)
 * gets it (checked, unfused) and its status is returned. A front-end error stops
 * before use, or with defer comes after use's run (`nessie run --target=c`). expr: the
 * text of `-e EXPR` (a last form) or NULL. */
#define DRV_DEFER 1      /* drv_nesl_compile's defer: as `nessie run --target=c` */
#define DRV_KEEP_GOING 2 /* with it, --keep-going: each failing form reported, the next run */
int drv_nesl_compile(const char *path, const char *expr, int defer, int (*use)(LcuProgram *p, void *ctx),
                     void *ctx);

#endif
