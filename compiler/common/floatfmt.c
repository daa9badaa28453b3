/* floatfmt.c — NESL's float layout (NESL.md §4.8), shared by the NESL printer
 * and λcu's value printer: Common Lisp style, fixed notation for exponents
 * -3..6, else d.dddE-n, always a digit after the point. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nessie.h"

/* nan, inf, -inf and zero (-0.0 when neg_zero), in both layouts; false for others. */
static bool special(NzBuf *b, double x, bool neg_zero) {
  if (isnan(x)) nz_buf_puts(b, "nan");
  else if (isinf(x)) nz_buf_puts(b, x < 0 ? "-inf" : "inf");
  else if (x == 0) nz_buf_puts(b, neg_zero && signbit(x) ? "-0.0" : "0.0");
  else return false;
  return true;
}

void nz_float_print(NzBuf *b, double x, int sig) {
  if (special(b, x, sig == 0)) return;
  /* m: [-]d.ddd…e±XX with sig digits, or the fewest that read back as x */
  char m[64];
  if (sig > 0) {
    snprintf(m, sizeof m, "%.*e", sig - 1, x);
  } else {
    for (int p = 1; p <= 17; p++) {
      snprintf(m, sizeof m, "%.*e", p - 1, x);
      if (strtod(m, NULL) == x) break;
    }
  }
  const char *p = m;
  if (*p == '-') {
    nz_buf_putc(b, '-');
    p++;
  }
  char dig[32];
  int nd = 0;
  for (; *p && *p != 'e'; p++)
    if (*p >= '0' && *p <= '9') dig[nd++] = *p;
  int ex = atoi(p + 1); /* |x| = d0.d1d2… * 10^ex */
  while (nd > 1 && dig[nd - 1] == '0') nd--;
  if (ex >= -3 && ex < 7) {
    if (ex < 0) {
      nz_buf_puts(b, "0.");
      for (int i = 0; i < -ex - 1; i++) nz_buf_putc(b, '0');
      for (int i = 0; i < nd; i++) nz_buf_putc(b, dig[i]);
    } else {
      for (int i = 0; i <= ex; i++) nz_buf_putc(b, i < nd ? dig[i] : '0');
      nz_buf_putc(b, '.');
      if (nd > ex + 1)
        for (int i = ex + 1; i < nd; i++) nz_buf_putc(b, dig[i]);
      else
        nz_buf_putc(b, '0');
    }
  } else {
    nz_buf_putc(b, dig[0]);
    nz_buf_putc(b, '.');
    if (nd > 1)
      for (int i = 1; i < nd; i++) nz_buf_putc(b, dig[i]);
    else
      nz_buf_putc(b, '0');
    nz_buf_printf(b, "E%d", ex);
  }
}

/* float_string / exp_string (NESL.md §4.9): digits significant digits, rounded half up;
 * fixed notation for exponents -3..6, else d.ddde+n; force_sci: always d.ddde+n. */
void nz_float_string(NzBuf *b, double x, int digits, bool force_sci) {
  if (special(b, x, false)) return;
  if (x < 0) {
    nz_buf_putc(b, '-');
    x = -x;
  }
  int e = 1 + (int)floor(log10(x));
  double lim = pow(10, digits);
  double r = floor(x * pow(10, digits - e) + 0.5);
  if (r < lim / 10) { /* log10 came out one too high */
    e--;
    r = floor(x * pow(10, digits - e) + 0.5);
  }
  if (r >= lim) {
    e++;
    r = floor(r / 10);
    if (r >= lim) r = lim / 10;
  }
  char s[40];
  snprintf(s, sizeof s, "%.0f", r);
  int n = (int)strlen(s);
  if (force_sci) {
    nz_buf_putc(b, s[0]);
    nz_buf_putc(b, '.');
    nz_buf_puts(b, s + 1);
    nz_buf_printf(b, "e%c%d", e - 1 >= 0 ? '+' : '-', abs(e - 1));
    return;
  }
  /* strip trailing zeros of s[from..], never the first of them */
  int end = n;
  while (end > 1 && s[end - 1] == '0') end--;
  if (e > 7 || e < -2) {
    nz_buf_putc(b, s[0]);
    nz_buf_putc(b, '.');
    int ee = end > 1 ? end : 2;
    nz_buf_printf(b, "%.*s", ee - 1, s + 1);
    nz_buf_printf(b, "e%c%d", e - 1 >= 0 ? '+' : '-', abs(e - 1));
  } else if (e < 1) {
    nz_buf_puts(b, "0.");
    for (int i = 0; i < -e; i++) nz_buf_putc(b, '0');
    nz_buf_printf(b, "%.*s", end, s);
  } else {
    nz_buf_printf(b, "%.*s.", e, s);
    int ee = end > e ? end : e + 1;
    nz_buf_printf(b, "%.*s", ee - e, s + e);
  }
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool nz_parse_float(const char *s, int n, double *x) {
  /* the longest prefix of the form [+-]?[0-9]*(.[0-9]*)?(e[+-]?[0-9]+)? with at least one
   * mantissa digit gives the value (like parse_int, "1.5x" is (1.5, f)); the flag says it
   * is the whole string. strtod alone would also accept hex, inf and leading spaces. */
  int i = 0, digits = 0;
  *x = 0;
  if (i < n && (s[i] == '+' || s[i] == '-')) i++;
  for (; i < n && is_digit(s[i]); i++) digits++;
  if (i < n && s[i] == '.')
    for (i++; i < n && is_digit(s[i]); i++) digits++;
  if (digits == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    int j = i + 1;
    if (j < n && (s[j] == '+' || s[j] == '-')) j++;
    if (j < n && is_digit(s[j])) {
      while (j < n && is_digit(s[j])) j++;
      i = j;
    }
  }
  char *t = nz_xmalloc((size_t)i + 1);
  memcpy(t, s, (size_t)i);
  t[i] = 0;
  *x = strtod(t, NULL);
  free(t);
  return i == n;
}
