/* cmd_nesl.c — `nessie check|run PROG.nesl [-e EXPR]`: parse, typecheck and (for run)
 * evaluate a NESL program form by form with the reference AST interpreter, printing
 * results like NESL. `emit` and `build` belong to later stages of the pipeline. */
#include "driver.h"
#include "nesl.h"
#include <malloc.h>
#include <unistd.h>

typedef struct {
  bool run, emit;
  const char *file, *expr;
  NlEnv *env;
  int depth;
  bool exited; /* an `exit` command was met: no further forms run */
} Job;

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
    if (j->emit) {
      NzBuf b = {0};
      nesl_decl_print(&b, d);
      fputs(b.s, stdout);
      nz_buf_free(&b);
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
  if (!process_file(j, j->file, (NzLoc){0})) return NZ_EXIT_USER;
  if (j->expr && !j->exited) {
    NzBuf b = {0};
    nz_buf_puts(&b, j->expr);
    size_t l = b.len;
    while (l && (b.s[l - 1] == ' ' || b.s[l - 1] == '\n')) l--;
    if (!l || (b.s[l - 1] != ';' && b.s[l - 1] != '$')) nz_buf_puts(&b, " $");
    NzSource *src = nz_source_from_string("<-e>", b.s);
    nz_buf_free(&b);
    nz_vec_push(j->env->sources, src);
    if (!process_source(j, src)) return NZ_EXIT_USER;
  }
  return NZ_EXIT_OK;
}

static void usage(FILE *f) {
  fputs("usage: nessie check PROG.nesl\n"
        "       nessie run PROG.nesl [-e EXPR] [--interp=ast]\n"
        "       nessie emit PROG.nesl --stage=ast\n",
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
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (j.emit && !strncmp(a, "--stage=", 8)) {
      if (strcmp(a + 8, "ast")) {
        fprintf(stderr, "nessie emit: stage '%s' is not implemented yet (only ast)\n", a + 8);
        return NZ_EXIT_INTERNAL;
      }
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
      /* the default and, for now, the only interpreter */
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
  /* The interpreter allocates and frees many large sequences: keep freed memory in the
   * process instead of returning it to the kernel, which must zero it again. */
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  j.env = nesl_env_new();
  int rc = nesl_run_on_big_stack(job_main, &j);
  nz_stdout_flush();
  nesl_env_free(j.env);
  nesl_rt_reset();
  return rc;
}
