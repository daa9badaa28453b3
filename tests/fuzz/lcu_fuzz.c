/* lcu_fuzz.c — libFuzzer target for the λcu pipeline: any input must give either
 * diagnostics or a checked program, never a crash, hang or leak; and a checked
 * program without recursion, fused by each scheduler, must pass the checker again
 * and compute what the unfused one computes on the same random inputs
 * (differential, like tests/sh/fusion_corpus.sh). Build and run a short campaign with `make fuzz-lcu`. */
#include "driver.h"
#include "lcu.h"

static const char *schedulers[] = {"greedy-down", "greedy-up", "exhaustive", "ilp-cg"};

static LcuProgram *load(const char *text, NzSource **src) {
  *src = nz_source_from_string("fuzz.lcu", text);
  LcuProgram *p = lcu_parse(*src);
  if (p && lcu_check(p) != 0) {
    lcu_program_free(p);
    p = NULL;
  }
  return p;
}

/* Does the program recurse (a cycle of CPU calls)? Those may run for ever on
 * random inputs, which is the program's business, so they are not run.
 * state[f]: 0 unseen, 1 on the DFS stack, 2 done. */
static int recurses_from(const LcuProgram *p, const LcuExpr *e, char *state);

static int func_recurses(const LcuProgram *p, const LcuFunc *f, char *state) {
  int k = 0;
  while (k < p->nfuncs && p->funcs[k] != f) k++;
  if (k == p->nfuncs || state[k] == 2) return 0;
  if (state[k] == 1) return 1;
  state[k] = 1;
  if (recurses_from(p, f->body, state)) return 1;
  state[k] = 2;
  return 0;
}

static int recurses_from(const LcuProgram *p, const LcuExpr *e, char *state) {
  if (e->kind == LE_CALL && func_recurses(p, e->target, state)) return 1;
  for (int a = 0; a < e->nargs; a++)
    if (recurses_from(p, e->args[a], state)) return 1;
  return 0;
}

static int recursive(const LcuProgram *p) {
  char *state = nz_xcalloc((size_t)p->nfuncs + 1, 1);
  int r = func_recurses(p, lcu_main(p), state);
  free(state);
  return r;
}

/* Runs main on random inputs (seed); returns 0 with the printed result, -1 if
 * the program stopped with a run-time error. */
static int run(const LcuProgram *p, uint64_t seed, NzBuf *out) {
  LcuFunc *m = lcu_main(p);
  if (!m) return -1;
  LcuRng rng = {seed * 0x9E3779B97F4A7C15ull + 1, 6};
  LcuValue *args = nz_xcalloc((size_t)m->nparams + 1, sizeof(LcuValue));
  for (int i = 0; i < m->nparams; i++) args[i] = lcu_value_random(&rng, m->params[i].ty);
  LcuValue result;
  int rc = lcu_run_main(p, m->nparams, args, &result);
  if (rc == 0) {
    lcu_value_print(out, result);
    lcu_value_release(result);
  }
  for (int i = 0; i < m->nparams; i++) lcu_value_release(args[i]);
  free(args);
  return rc == 0 ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (memchr(data, 0, size)) return 0; /* sources are text */
  char *text = nz_xmalloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  NzSource *src;
  LcuProgram *p = load(text, &src);
  if (p && lcu_main(p) && !recursive(p)) {
    uint64_t seed = size;
    NzBuf want = {0};
    int ok = run(p, seed, &want) == 0;
    for (size_t s = 0; s < sizeof schedulers / sizeof schedulers[0]; s++) {
      NzSource *src2;
      LcuProgram *q = load(text, &src2);
      DrvFuse o;
      drv_fuse_defaults(&o);
      o.scheduler = schedulers[s];
      o.opt.time_limit = 1;
      int rc = drv_fuse(q, &o, NULL);
      /* A region too large for `exhaustive` is a usage error; anything else
       * the pipeline reports is a bug in it. */
      if (rc != NZ_EXIT_OK && rc != NZ_EXIT_USER) {
        fprintf(stderr, "lcu_fuzz: %s: fusion failed (exit %d)\n", schedulers[s], rc);
        abort();
      }
      if (rc == NZ_EXIT_OK && ok) {
        NzBuf got = {0};
        if (run(q, seed, &got) != 0 || got.len != want.len || (want.len && memcmp(got.s, want.s, want.len))) {
          fprintf(stderr, "lcu_fuzz: %s: fused program gives %s, unfused %s\n", schedulers[s],
                  got.s ? got.s : "an error", want.s ? want.s : "");
          abort();
        }
        nz_buf_free(&got);
      }
      lcu_program_free(q);
      nz_source_free(src2);
    }
    nz_buf_free(&want);
  }
  if (p) lcu_program_free(p);
  nz_source_free(src);
  free(text);
  return 0;
}
