/* nessie.c — the `nessie` driver: dispatches subcommands (DESIGN.md "Command lines"). */
#include "driver.h"

static void usage(FILE *f) {
  fputs("usage: nessie COMMAND [ARGS]\n"
        "  check  PROG.nesl                parse and typecheck; print each binding's type\n"
        "  run    PROG.nesl [-e EXPR]      evaluate and print results like NESL\n"
        "  lcu    check|run|fuse FILE.lcu  work on a λcu program (nessie lcu --help)\n"
        "  build  FILE.lcu|PROG.nesl       compile to a native multicore binary (nessie build --help)\n"
        "  emit   FILE --stage=c|cuda      print the generated C or CUDA\n",
        f);
}

static int has_arg(int argc, char **argv, const char *a) {
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], a)) return 1;
  return 0;
}

static int nessie_main(int argc, char **argv) {
  int rc;
  nz_output_init();
  nz_max_depth(); /* a bad NESSIE_MAX_DEPTH is refused before anything runs */
  if (argc < 2) {
    usage(stderr);
    return NZ_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    usage(stdout);
    return nz_stdout_finish(NZ_EXIT_OK);
  } else if (!strcmp(cmd, "lcu")) {
    rc = drv_cmd_lcu(argc - 1, argv + 1);
  } else if (!strcmp(cmd, "build")) {
    rc = drv_cmd_build(argc - 1, argv + 1, 0);
  } else if (!strcmp(cmd, "emit") && (has_arg(argc, argv, "--stage=c") || has_arg(argc, argv, "--stage=cuda"))) {
    rc = drv_cmd_build(argc - 1, argv + 1, 1);
  } else if (!strcmp(cmd, "run") && has_arg(argc, argv, "--target=c")) {
    rc = drv_cmd_run_target(argc - 1, argv + 1);
  } else if (!strcmp(cmd, "check") || !strcmp(cmd, "run") || !strcmp(cmd, "emit")) {
    rc = drv_cmd_nesl(argc - 1, argv + 1);
  } else {
    fprintf(stderr, "nessie: unknown command '%s'\n", cmd);
    usage(stderr);
    rc = NZ_EXIT_USAGE;
  }
  nz_intern_free_all();
  return nz_stdout_finish(rc); /* a write error on stdout is an error (output.c) */
}

/* On a 1 GB stack: the passes recurse along let chains (stack.c). */
int main(int argc, char **argv) { return nz_main_on_big_stack(nessie_main, argc, argv); }
