/* cg_text.c — the only ways text from outside the compiler (source lines, file
 * paths, λcu names, literals' spellings) enters generated C and CUDA: as a string
 * literal, inside a comment, or as an identifier. Each is safe for any bytes: no
 * trigraph, line splice, comment end or quote survives (tests/sh/hostile_build.sh). */
#include <ctype.h>

#include "cg.h"

/* A C string literal. '?' is escaped too: "??/" would be a trigraph under
 * -std=c11 (a backslash that ends the literal early). */
void cg_c_string(NzBuf *b, const char *s, size_t n) {
  nz_buf_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\' || c == '?') nz_buf_printf(b, "\\%c", c);
    else if (c == '\t') nz_buf_puts(b, "\\t");
    else if (c < 32 || c >= 127) nz_buf_printf(b, "\\%03o", c);
    else nz_buf_putc(b, (char)c);
  }
  nz_buf_putc(b, '"');
}

const char *cg_c_string_text(Cg *cg, const char *s) {
  NzBuf b = {0};
  cg_c_string(&b, s, strlen(s));
  return cg_buf_take(cg, &b);
}

/* Text inside a block comment: printable ASCII except '*', '?' and '\\' (so no
 * "* /", no trigraph, no line splice can form), anything else as '_'. Bytes of
 * UTF-8 are kept: they cannot end a comment. */
void cg_c_comment(NzBuf *b, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    nz_buf_putc(b, (c >= 32 && c < 127 && c != '*' && c != '?' && c != '\\') || c >= 128 ? (char)c : '_');
  }
}

const char *cg_c_comment_text(Cg *cg, const char *s) {
  NzBuf b = {0};
  cg_c_comment(&b, s);
  return cg_buf_take(cg, &b);
}

/* A λcu name as a C identifier. λcu names are [A-Za-z_][A-Za-z0-9_']*; a name
 * that is already a C identifier and does not start with "nq_" stays as it is,
 * any other becomes "nq_" and its bytes with every byte but a letter or digit
 * spelled _XX in hex. The map is one to one, so distinct λcu names stay distinct. */
const char *cg_cid(Cg *cg, const char *name) {
  int plain = strncmp(name, "nq_", 3) != 0 && (isalpha((unsigned char)name[0]) || name[0] == '_');
  for (const char *p = name; plain && *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '_') plain = 0;
  if (plain) return name;
  NzBuf b = {0};
  nz_buf_puts(&b, "nq_");
  for (const char *p = name; *p; p++) {
    if (isalnum((unsigned char)*p)) nz_buf_putc(&b, *p);
    else nz_buf_printf(&b, "_%02x", (unsigned char)*p);
  }
  return cg_buf_take(cg, &b);
}
