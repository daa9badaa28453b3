/* floatfmt.c — NESL's float layout (NESL.md §4.8), shared by the NESL printer
 * and λcu's value printer: Common Lisp style, fixed notation for exponents
 * -3..6, else d.dddE-n, always a digit after the point. */
#include <math.h>

#include "nessie.h"

void nz_float_print(NzBuf *b, double x, int sig) {
  if (isnan(x)) {
    nz_buf_puts(b, "nan");
    return;
  }
  if (isinf(x)) {
    nz_buf_puts(b, x < 0 ? "-inf" : "inf");
    return;
  }
  if (x == 0) {
    nz_buf_puts(b, sig == 0 && signbit(x) ? "-0.0" : "0.0");
    return;
  }
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
