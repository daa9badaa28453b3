/* options.c — strict parsing of numeric command-line options: the whole value
 * must be a number, inside the option's range; anything else (overflow,
 * trailing text, a negative count, an absurd size) is a bad command line
 * whose message names the option and its range. */
#include "nessie.h"
#include <errno.h>
#include <math.h>

int nz_parse_ll(const char *s, long long lo, long long hi, long long *out) {
  if (!s || !*s || (s[0] != '-' && s[0] != '+' && (s[0] < '0' || s[0] > '9'))) return -1;
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (*end || errno || x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

int nz_parse_double(const char *s, double lo, double hi, double *out) {
  if (!s || !*s || s[0] == ' ' || s[0] == '\t') return -1;
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (*end || errno || !isfinite(x) || x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

/* The value of "NAME=VALUE" when arg is that option, else NULL. */
static const char *value_of(const char *arg, const char *name) {
  size_t n = strlen(name);
  return strncmp(arg, name, n) || arg[n] != '=' ? NULL : arg + n + 1;
}

int nz_opt_ll(const char *arg, const char *name, long long lo, long long hi, long long *out) {
  const char *v = value_of(arg, name);
  if (!v) return 0;
  if (nz_parse_ll(v, lo, hi, out) == 0) return 1;
  fprintf(stderr, "%s: %s wants an integer from %lld to %lld, not '%s'\n", nz_progname, name, lo, hi, v);
  return -1;
}

int nz_opt_int(const char *arg, const char *name, int lo, int hi, int *out) {
  long long x;
  int r = nz_opt_ll(arg, name, lo, hi, &x);
  if (r > 0) *out = (int)x;
  return r;
}

int nz_opt_seconds(const char *arg, const char *name, double hi, double *out) {
  const char *v = value_of(arg, name);
  if (!v) return 0;
  double x;
  if (nz_parse_double(v, 0, hi, &x) == 0 && x > 0) {
    *out = x;
    return 1;
  }
  fprintf(stderr, "%s: %s wants a positive number of seconds, at most %g, not '%s'\n", nz_progname, name, hi, v);
  return -1;
}
