/* nessie-gen — prints a synthetic single-region λcu program (generators/lib)
 * for fusion experiments and property tests: `nessie-gen --kernels=40
 * --chain=4 --seed=7`, or the same spec as nessie-bench's `gen:` inputs take. */
#include "gen.h"

static void usage(FILE *f) {
  fputs("usage: nessie-gen [--KEY=VALUE...] [SPEC] [--stats] [--check]\n"
        "Prints a synthetic dataflow region as a λcu program: `main` runs KERNELS kernel\n"
        "invocations, one SOAC each, and returns every result no invocation reads.\n"
        "SPEC is KEY=VALUE,... (as in nessie-bench's gen:SPEC inputs); options override it.\n"
        "Keys:\n",
        f);
  gen_spec_help(f);
  fputs("Options:\n"
        "  --stats      add comment lines describing the region (depth, fan-in, SOACs)\n"
        "  --check      run the λcu checker on the program before printing it\n"
        "  --help       this message\n"
        "Run one: nessie-gen --seed=3 > r.lcu && nessie lcu run r.lcu --random-inputs\n"
        "Families and keys in detail: generators/README.md.\n",
        f);
}

static int bad(const char *msg) {
  fprintf(stderr, "nessie-gen: error: %s\n", msg);
  fputs("(nessie-gen --help lists the keys)\n", stderr);
  return NZ_EXIT_USAGE;
}

int main(int argc, char **argv) {
  nz_progname = "nessie-gen";
  nz_output_init();
  GenSpec spec;
  gen_spec_default(&spec);
  int stats = 0, check = 0, rc = NZ_EXIT_OK;
  char *err = NULL;
  /* The positional spec first, so --key=value options override it wherever written. */
  const char *positional = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return nz_stdout_finish(NZ_EXIT_OK);
    }
    if (a[0] != '-') {
      if (positional) return bad("more than one SPEC argument");
      positional = a;
    }
  }
  if (positional && gen_spec_parse(positional, &spec, &err) != 0) {
    rc = bad(err);
    free(err);
    return rc;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-') continue;
    if (!strcmp(a, "--stats")) {
      stats = 1;
    } else if (!strcmp(a, "--check")) {
      check = 1;
    } else if (a[1] == '-' && strchr(a, '=')) {
      const char *eq = strchr(a, '=');
      char key[32];
      size_t n = (size_t)(eq - (a + 2));
      if (n >= sizeof key) n = sizeof key - 1;
      memcpy(key, a + 2, n);
      key[n] = 0;
      if (gen_spec_set(&spec, key, eq + 1, &err) != 0) {
        rc = bad(err);
        free(err);
        return rc;
      }
    } else {
      char msg[256];
      snprintf(msg, sizeof msg, "unknown option '%s'", a);
      return bad(msg);
    }
  }
  if (gen_spec_validate(&spec, &err) != 0) {
    rc = bad(err);
    free(err);
    return rc;
  }

  GenStats st;
  LcuProgram *p = gen_region_stats(&spec, &st);
  if (check && lcu_check(p) != 0) {
    fprintf(stderr, "nessie-gen: internal error: the generated program does not check\n");
    rc = NZ_EXIT_INTERNAL;
  } else {
    NzBuf b = {0};
    nz_buf_puts(&b, "// nessie-gen ");
    gen_spec_format(&b, &spec);
    nz_buf_putc(&b, '\n');
    if (stats) gen_stats_print(&b, &st);
    nz_buf_putc(&b, '\n');
    lcu_print_program(&b, p);
    fputs(b.s, stdout);
    nz_buf_free(&b);
  }
  lcu_program_free(p);
  nz_intern_free_all();
  return nz_stdout_finish(rc); /* a write error on stdout is an error (output.c) */
}
