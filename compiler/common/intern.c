/* intern.c — a global table of unique strings, so names compare with ==. */
#include "nessie.h"

typedef struct Str {
  struct Str *next;
  size_t len;
  char s[];
} Str;

static Str **table;
static size_t nbuckets, count;

uint64_t nz_fnv1a(uint64_t h, const void *s, size_t n) {
  const unsigned char *p = s;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static uint64_t hash(const char *s, size_t n) { return nz_fnv1a(NZ_FNV_SEED, s, n); }

static void grow(void) {
  size_t nb = nbuckets ? nbuckets * 2 : 1024;
  Str **t = nz_xcalloc(nb, sizeof(Str *));
  for (size_t i = 0; i < nbuckets; i++)
    for (Str *e = table[i], *next; e; e = next) {
      next = e->next;
      size_t b = hash(e->s, e->len) & (nb - 1);
      e->next = t[b];
      t[b] = e;
    }
  free(table);
  table = t;
  nbuckets = nb;
}

const char *nz_intern(const char *s, size_t n) {
  if (count >= nbuckets / 2) grow();
  size_t b = hash(s, n) & (nbuckets - 1);
  for (Str *e = table[b]; e; e = e->next)
    if (e->len == n && memcmp(e->s, s, n) == 0) return e->s;
  Str *e = nz_xmalloc(sizeof(Str) + n + 1);
  e->len = n;
  memcpy(e->s, s, n);
  e->s[n] = 0;
  e->next = table[b];
  table[b] = e;
  count++;
  return e->s;
}

const char *nz_intern_cstr(const char *s) { return nz_intern(s, strlen(s)); }

void nz_intern_free_all(void) {
  for (size_t i = 0; i < nbuckets; i++)
    for (Str *e = table[i], *next; e; e = next) {
      next = e->next;
      free(e);
    }
  free(table);
  table = NULL;
  nbuckets = count = 0;
}

const char *nz_intern_numbered(const char *base, size_t len, unsigned long n) {
  char buf[160], digits[24];
  int nd = 0;
  do digits[nd++] = (char)('0' + n % 10), n /= 10;
  while (n);
  if (len > sizeof buf - sizeof digits - 2) len = sizeof buf - sizeof digits - 2;
  memcpy(buf, base, len);
  buf[len] = '_';
  for (int i = 0; i < nd; i++) buf[len + 1 + (size_t)i] = digits[nd - 1 - i];
  return nz_intern(buf, len + 1 + (size_t)nd);
}
