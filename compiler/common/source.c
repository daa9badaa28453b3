/* source.c — reading source files and reporting diagnostics against them. */
#include "nessie.h"
#include <errno.h>

const char *nz_progname = "nessie";
int nz_error_count;

NzSource *nz_source_from_string(const char *name, const char *text) {
  NzSource *s = nz_xcalloc(1, sizeof *s);
  s->name = nz_xstrdup(name);
  s->len = strlen(text);
  s->text = nz_xmalloc(s->len + 1);
  memcpy(s->text, text, s->len + 1);
  return s;
}

/* Reports a read failure at `from` (a `load` form) when it has a source. */
static void read_error(NzLoc from, const char *fmt, ...) NZ_PRINTF(2, 3);
static void read_error(NzLoc from, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (from.src) {
    nz_verror_at(from, fmt, ap);
  } else {
    fprintf(stderr, "%s: error: ", nz_progname);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    nz_error_count++;
  }
  va_end(ap);
}

NzSource *nz_source_read_at(const char *path, NzLoc from) {
  bool in = !strcmp(path, "-"); /* standard input: `nessie emit ... | nessie lcu check -` */
  FILE *f = in ? stdin : fopen(path, "rb");
  if (!f) {
    read_error(from, "cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  /* Read in chunks up to the cap: endless input (/dev/zero, a pipe that never
   * closes) stops with an error instead of eating the memory. */
  char *text = NULL;
  size_t len = 0, cap = 0, n;
  int too_big = 0, err = 0;
  for (;;) {
    if (len + 65536 + 1 > cap) {
      cap = cap ? 2 * cap : 65536 * 2;
      text = nz_xrealloc(text, cap);
    }
    errno = 0;
    n = fread(text + len, 1, 65536, f);
    len += n;
    if (len > NZ_SOURCE_MAX) {
      too_big = 1;
      break;
    }
    if (n == 0) {
      err = ferror(f) ? (errno ? errno : EIO) : 0;
      break;
    }
  }
  if (!in) fclose(f);
  if (too_big || err) {
    if (too_big)
      read_error(from, "'%s' is larger than %d MiB, the limit on a source file", path, NZ_SOURCE_MAX >> 20);
    else
      read_error(from, "cannot read '%s': %s", path, strerror(err));
    free(text);
    return NULL;
  }
  text[len] = 0;
  NzSource *s = nz_xcalloc(1, sizeof *s);
  s->name = nz_xstrdup(path);
  s->text = text;
  s->len = len;
  if (memchr(s->text, 0, s->len)) {
    read_error(from, "'%s' contains a NUL byte; is it a text file?", path);
    nz_source_free(s);
    return NULL;
  }
  return s;
}

NzSource *nz_source_read(const char *path) { return nz_source_read_at(path, (NzLoc){0}); }

void nz_source_free(NzSource *s) {
  if (!s) return;
  free((char *)s->name);
  free(s->text);
  free(s);
}

/* Print the source line of loc with a caret under its column. */
static void show_line(NzLoc loc) {
  if (!loc.src || loc.line <= 0) return;
  const char *p = loc.src->text, *end = p + loc.src->len;
  for (int l = 1; l < loc.line && p < end; p++)
    if (*p == '\n') l++;
  const char *q = p;
  while (q < end && *q != '\n') q++;
  fprintf(stderr, "  %.*s\n  ", (int)(q - p), p);
  for (int i = 1; i < loc.col && p + i - 1 < q; i++) fputc(p[i - 1] == '\t' ? '\t' : ' ', stderr);
  fputs("^\n", stderr);
}

static void report(const char *kind, NzLoc loc, const char *fmt, va_list ap) {
  fflush(stdout);
  if (loc.src)
    fprintf(stderr, "%s:%d:%d: %s: ", loc.src->name, loc.line, loc.col, kind);
  else
    fprintf(stderr, "%s: %s: ", nz_progname, kind);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  show_line(loc);
}

void nz_verror_at(NzLoc loc, const char *fmt, va_list ap) {
  nz_error_count++;
  report("error", loc, fmt, ap);
}

void nz_error_at(NzLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  nz_verror_at(loc, fmt, ap);
  va_end(ap);
}

void nz_note_at(NzLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report("note", loc, fmt, ap);
  va_end(ap);
}

void nz_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  NzLoc none = {0};
  nz_error_count++;
  report("error", none, fmt, ap);
  va_end(ap);
}

void nz_warning(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  NzLoc none = {0};
  report("warning", none, fmt, ap);
  va_end(ap);
}

void nz_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  NzLoc none = {0};
  report("internal error", none, fmt, ap);
  va_end(ap);
  exit(NZ_EXIT_INTERNAL);
}
