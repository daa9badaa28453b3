/* nesl_fuzz.c — libFuzzer target for the NESL lexer, parser and type checker: any input
 * must give either a checked program or diagnostics, never a crash, hang or leak.
 * Build and run a short campaign with `make fuzz` (see compiler/nesl/README.md, "Tests and fuzzing"). */
#include "nesl.h"

static NlEnv *env;
static int runs;

static void fresh_env(void) {
  if (env) nesl_env_free(env);
  nesl_rt_reset();
  env = nesl_env_new();
  if (!nesl_load_basis(env)) nz_die("fuzz: the basis failed to load");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!env || ++runs % 500 == 0) fresh_env(); /* bound the arena's growth */
  if (memchr(data, 0, size)) return 0; /* sources are text */
  char *text = nz_xmalloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  NzSource *src = nz_source_from_string("fuzz.nesl", text);
  free(text);
  int nglobals = env->globals.n, ndatatypes = env->datatypes.n;
  NlDecl **ds = NULL;
  int n = 0;
  nesl_parse(src, env->arena, true, &ds, &n); /* the forms before a syntax error, if any */
  for (int i = 0; i < n; i++)
    if (ds[i]->k == D_ERROR || !nesl_check_decl(env, ds[i])) break;
  free(ds);
  /* forget the input's definitions; the next input starts from the basis again */
  env->globals.n = nglobals;
  env->datatypes.n = ndatatypes;
  nz_source_free(src);
  return 0;
}
