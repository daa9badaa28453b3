/* cmd_lcu.c — `nessie lcu check|run|fuse FILE.lcu`: the λcu tools. */
#include "cg.h"
#include "driver.h"
#include "lcu.h"

static void lcu_usage(FILE *f) {
  fputs("usage: nessie lcu check FILE.lcu\n"
        "       nessie lcu run FILE.lcu [ARG...] [--random-inputs [--seed=S] [--max-len=N]] [FUSION]\n"
        "       nessie lcu run FILE.lcu ... --compiled [--float32]   the same through the C back end (compiled, cached)\n"
        "       nessie lcu fuse FILE.lcu [FUSION]   print the fused program after a per-region report\n"
        "       nessie lcu print FILE.lcu           print the canonical text form\n"
        "FUSION options: --scheduler=S (fuse: ilp; the strategies are listed below)\n"
        "       --solver=glpk|cbc  --time-limit=SEC  --work-limit=N  --strict-float\n"
        "       --dot=DIR [--png] [--dot-scalars] [--dot-time-limit=SEC]  --dump-ilp=FILE.lp\n"
        "       --cost=unit|FILE [--sizes=PROFILE.csv]  the cost model (FILE: nessie-bench --calibrate;\n"
        "       sizes: elements per kernel from an unfused run's profile; fusion/README.md)\n"
        "--time-limit bounds an exact scheduler's search in seconds (default 10), --work-limit\n"
        "in counted work (without --time-limit, work alone: a run repeats on any machine);\n"
        "--dot=DIR draws each region's kernels (DIR/regionN.dot, .svg; .png with --png) with a legend;\n"
        "the region's input scalars are folded into their users' labels, --dot-scalars draws them\n"
        "as nodes with dotted edges (fusion/README.md, \"Pictures\")\n"
        "--strict-float: no fusion that reorders a float reduction (fusion/README.md, \"Decisions\")\n"
        "ARGs are literals of main's parameter types: 7, 1.5, T, [1, 2], segdes[2, 0],\n"
        "(1, [T, F]); see compiler/lcu/README.md.\n",
        f);
  fus_schedulers_help(f);
}

/* Parses and checks FILE; NULL (after printing errors) on failure. */
static LcuProgram *load(const char *path, NzSource **srcp) {
  NzSource *src = nz_source_read(path);
  *srcp = src;
  if (!src) return NULL;
  LcuProgram *p = lcu_parse(src);
  if (!p) return NULL;
  if (lcu_check(p) != 0) {
    lcu_program_free(p);
    return NULL;
  }
  return p;
}

int drv_cmd_lcu(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    lcu_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? NZ_EXIT_USAGE : NZ_EXIT_OK;
  }
  for (int i = 2; i < argc; i++) /* every subcommand's --help */
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      lcu_usage(stdout);
      return NZ_EXIT_OK;
    }
  const char *sub = argv[1];
  int is_run = !strcmp(sub, "run"), is_check = !strcmp(sub, "check"),
      is_print = !strcmp(sub, "print"), is_fuse = !strcmp(sub, "fuse");
  if (!is_run && !is_check && !is_print && !is_fuse) {
    fprintf(stderr, "nessie lcu: unknown subcommand '%s'\n", sub);
    lcu_usage(stderr);
    return NZ_EXIT_USAGE;
  }
  const char *file = NULL;
  const char **vals = nz_xcalloc((size_t)argc, sizeof(char *));
  int nvals = 0, random_inputs = 0, compiled = 0, float32 = 0;
  long long seed = 1, maxlen = 10;
  DrvFuse fo;
  drv_fuse_defaults(&fo);
  if (is_fuse) fo.scheduler = "ilp";
  int fusing = is_fuse;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    int r = drv_fuse_option(&fo, a);
    if (r < 0) {
      free(vals);
      return NZ_EXIT_USAGE;
    }
    if (r > 0) {
      if (is_check || is_print) {
        fprintf(stderr, "nessie lcu %s: fusion options are for run and fuse\n", sub);
        free(vals);
        return NZ_EXIT_USAGE;
      }
      fusing = 1;
      continue;
    }
    if (!strcmp(a, "--random-inputs")) {
      random_inputs = 1;
    } else if (!strcmp(a, "--compiled") && is_run) {
      compiled = 1;
    } else if (!strcmp(a, "--float32") && is_run) { /* with --compiled: the C back end's experiment */
      float32 = 1;
    } else if ((r = nz_opt_ll(a, "--seed", 0, INT64_MAX, &seed)) != 0 ||
               (r = nz_opt_ll(a, "--max-len", 0, LCU_RANDOM_MAX_LEN, &maxlen)) != 0) {
      if (r < 0) {
        free(vals);
        return NZ_EXIT_USAGE;
      }
    } else if (a[0] == '-' && a[1] == '-') {
      fprintf(stderr, "nessie lcu: unknown option '%s'\n", a);
      free(vals);
      return NZ_EXIT_USAGE;
    } else if (!file) {
      file = a;
    } else {
      vals[nvals++] = a;
    }
  }
  if (!file) {
    fprintf(stderr, "nessie lcu %s: no input file\n", sub);
    free(vals);
    return NZ_EXIT_USAGE;
  }
  if (float32 && !compiled) {
    fprintf(stderr, "nessie lcu run: --float32 is for --compiled (the interpreter's float is a double)\n");
    free(vals);
    return NZ_EXIT_USAGE;
  }
  if (!is_run && (nvals || random_inputs)) {
    fprintf(stderr, "nessie lcu %s: unexpected arguments after the file\n", sub);
    free(vals);
    return NZ_EXIT_USAGE;
  }
  NzSource *src;
  LcuProgram *p = load(file, &src);
  int rc = NZ_EXIT_OK;
  NzBuf report = {0};
  if (p && fusing) rc = drv_fuse(p, &fo, is_fuse || compiled ? &report : NULL);
  if (p && rc == NZ_EXIT_OK && compiled) { /* the binary parses the arguments itself */
    char **rest = nz_xcalloc((size_t)nvals + 4, sizeof(char *));
    char seedarg[64], lenarg[64];
    int nrest = 0;
    for (int i = 0; i < nvals; i++) rest[nrest++] = (char *)vals[i];
    if (random_inputs) {
      snprintf(seedarg, sizeof seedarg, "--seed=%lld", seed);
      snprintf(lenarg, sizeof lenarg, "--max-len=%lld", maxlen);
      rest[nrest++] = "--random-inputs";
      rest[nrest++] = seedarg;
      rest[nrest++] = lenarg;
    }
    rc = drv_run_compiled(p, report.s, rest, nrest, 0, float32 ? CG_FLOAT32 : 0);
    free(rest);
  }
  if (!p) {
    rc = NZ_EXIT_USER;
  } else if (rc != NZ_EXIT_OK) {
    /* the fusion pipeline printed why */
  } else if (is_fuse) {
    NzBuf b = {0};
    lcu_print_program(&b, p);
    fputs(report.s ? report.s : "", stdout);
    fputs(b.s ? b.s : "", stdout);
    nz_buf_free(&b);
  } else if (is_check) {
    printf("%s: ok (%d kernels, %d functions)\n", file, p->nkernels, p->nfuncs);
  } else if (is_print) {
    NzBuf b = {0};
    lcu_print_program(&b, p);
    fputs(b.s ? b.s : "", stdout);
    nz_buf_free(&b);
  } else {
    LcuFunc *m = lcu_main(p);
    LcuValue *args = nz_xcalloc((size_t)(m->nparams ? m->nparams : 1), sizeof(LcuValue));
    int nargs = 0;
    if (random_inputs) {
      if (nvals) {
        fprintf(stderr, "nessie lcu run: give either arguments or --random-inputs, not both\n");
        rc = NZ_EXIT_USAGE;
      } else {
        LcuRng rng = {(uint64_t)seed * 0x9E3779B97F4A7C15ull + 1, maxlen};
        for (; nargs < m->nparams; nargs++) args[nargs] = lcu_value_random(&rng, m->params[nargs].ty);
      }
    } else if (nvals != m->nparams) {
      fprintf(stderr, "nessie lcu run: main takes %d argument%s, %d given\n", m->nparams,
              m->nparams == 1 ? "" : "s", nvals);
      rc = NZ_EXIT_USAGE;
    } else {
      for (; nargs < nvals; nargs++) {
        char what[64];
        snprintf(what, sizeof what, "argument %d (%s)", nargs + 1, m->params[nargs].name);
        if (lcu_value_parse(vals[nargs], m->params[nargs].ty, &args[nargs], what) != 0) {
          rc = NZ_EXIT_USAGE;
          break;
        }
      }
    }
    if (rc == NZ_EXIT_OK) {
      LcuValue result;
      if (lcu_run_main(p, nargs, args, &result) != 0) {
        rc = NZ_EXIT_USER;
      } else if (m->ret != lcu_type_unit()) { /* a main of type () prints nothing */
        NzBuf b = {0};
        lcu_value_print(&b, result);
        if (b.len) fwrite(b.s, 1, b.len, stdout); /* a '\0' char is part of the value */
        putchar('\n');
        nz_buf_free(&b);
        lcu_value_release(result);
      }
    }
    for (int i = 0; i < nargs; i++) lcu_value_release(args[i]);
    free(args);
  }
  nz_stdout_flush();
  nz_buf_free(&report);
  lcu_program_free(p);
  nz_source_free(src);
  free(vals);
  return rc;
}
