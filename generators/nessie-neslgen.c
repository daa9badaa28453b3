/* nessie-neslgen — prints a random well-typed, terminating NESL program
 * (generators/lib/gen_nesl.c) for differential tests of the interpreters:
 * `nessie-neslgen --seed=7 > p.nesl && nessie run p.nesl`. */
#include "gen_nesl.h"
#include <errno.h>

static void usage(FILE *f) {
  fputs("usage: nessie-neslgen [--seed=S] [--forms=N] [--depth=D] [--seq-depth=K]\n"
        "                      [--errors=P] [--work=W] [--avoid=F,...] [--programs=K]\n"
        "                      [--print-error]\n"
        "Prints one random NESL program: a recursive function used inside an apply-to-each,\n"
        "then N more top-level forms (bindings, functions, recursive functions, expressions),\n"
        "a last expression, and, in P percent of the seeds, a form that fails at run time.\n"
        "  --seed=S       any 64-bit unsigned integer (default 1); the program depends on\n"
        "                 the options only\n"
        "  --forms=N      top-level forms after the first two (default 8, 0..200)\n"
        "  --depth=D      expression depth below a form (default 4, 1..8)\n"
        "  --seq-depth=K  deepest nesting of sequence types (default 3, 2..4)\n"
        "  --errors=P     percent of seeds whose program ends with a run-time error: an\n"
        "                 index out of range, unequal generator lengths or a division by\n"
        "                 zero (default 15, 0..100)\n"
        "  --work=W       estimated work one form may do, in generator units (default 20000)\n"
        "  --avoid=F,...  functions no form may call (basis or operator names, @ for\n"
        "                 string conversion): such forms are drawn again, else left out\n"
        "  --programs=K   the programs of seeds S .. S+K-1 in one file (names numbered on;\n"
        "                 only the last keeps its final error form), to run many per process\n"
        "  --print-error  print only the kind of final error (none, index, length, divzero)\n"
        "Details: generators/README.md, \"Random NESL programs\".\n",
        f);
}

static int bad(const char *msg, const char *arg) {
  fprintf(stderr, "nessie-neslgen: error: %s '%s'\n(nessie-neslgen --help lists the options)\n",
          msg, arg);
  return NZ_EXIT_USAGE;
}

/* Parses an integer option value within [lo, hi]. */
static bool int_opt(const char *v, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno || end == v || *end || x < lo || x > hi) return false;
  *out = x;
  return true;
}

int main(int argc, char **argv) {
  nz_progname = "nessie-neslgen";
  GenNeslOpts o;
  gen_nesl_default(&o);
  bool print_error = false;
  int programs = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *eq = strchr(a, '=');
    const char *v = eq ? eq + 1 : "";
    long long x;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return NZ_EXIT_OK;
    } else if (!strcmp(a, "--print-error")) {
      print_error = true;
    } else if (!strncmp(a, "--seed=", 7)) {
      char *end;
      errno = 0;
      unsigned long long s = strtoull(v, &end, 10);
      if (errno || end == v || *end || *v == '-') return bad("bad seed", v);
      o.seed = s;
    } else if (!strncmp(a, "--forms=", 8)) {
      if (!int_opt(v, 0, 200, &x)) return bad("--forms takes 0..200, not", v);
      o.forms = (int)x;
    } else if (!strncmp(a, "--depth=", 8)) {
      if (!int_opt(v, 1, 8, &x)) return bad("--depth takes 1..8, not", v);
      o.depth = (int)x;
    } else if (!strncmp(a, "--seq-depth=", 12)) {
      if (!int_opt(v, 2, 4, &x)) return bad("--seq-depth takes 2..4, not", v);
      o.seq_depth = (int)x;
    } else if (!strncmp(a, "--errors=", 9)) {
      if (!int_opt(v, 0, 100, &x)) return bad("--errors takes 0..100, not", v);
      o.errors = (int)x;
    } else if (!strncmp(a, "--avoid=", 8)) {
      o.avoid = v;
    } else if (!strncmp(a, "--programs=", 11)) {
      if (!int_opt(v, 1, 100000, &x)) return bad("--programs takes 1..100000, not", v);
      programs = (int)x;
    } else if (!strncmp(a, "--work=", 7)) {
      if (!int_opt(v, 1, 100000000, &x)) return bad("--work takes 1..100000000, not", v);
      o.work = (double)x;
    } else {
      return bad("unknown option", a);
    }
  }
  NzBuf b = {0};
  GenNeslErr e = programs == 1 ? gen_nesl_program(&o, &b) : gen_nesl_batch(&o, programs, &b);
  if (print_error) puts(gen_nesl_err_name(e));
  else fputs(b.s, stdout);
  nz_buf_free(&b);
  nz_intern_free_all();
  return nz_stdout_finish(NZ_EXIT_OK); /* a write error on stdout is an error (output.c) */
}
