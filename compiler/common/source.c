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

NzSource *nz_source_read(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    nz_error("cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  NzBuf b = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    for (size_t i = 0; i < n; i++) nz_buf_putc(&b, chunk[i]);
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    nz_error("cannot read '%s'", path);
    nz_buf_free(&b);
    return NULL;
  }
  NzSource *s = nz_xcalloc(1, sizeof *s);
  s->name = nz_xstrdup(path);
  s->text = b.s ? b.s : nz_xstrdup("");
  s->len = b.len;
  if (memchr(s->text, 0, s->len)) {
    nz_error("'%s' contains a NUL byte; is it a text file?", path);
    nz_source_free(s);
    return NULL;
  }
  return s;
}

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
