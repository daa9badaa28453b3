/* gen_spec.c — the generator spec: defaults, `key=value` parsing shared by
 * nessie-gen's options and nessie-bench's `gen:` inputs, validation, and the
 * canonical text form. Every message names the key and the accepted values. */
#include <errno.h>
#include <stdarg.h>

#include "gen.h"

const LcuSoacKind gen_kinds[GEN_NKINDS] = {LS_ONCE,   LS_MAP,    LS_PERMUTE,  LS_REDUCE,
                                           LS_SCAN,   LS_FILTER, LS_PARTITION};
static const char *const kind_names[GEN_NKINDS] = {"once", "map",    "permute",  "reduce",
                                                   "scan", "filter", "partition"};
static const char *const family_names[GEN__NFAMILIES] = {"random", "chain", "siblings",
                                                         "diamond", "trap"};

enum { MAX_KERNELS = 30000, MAX_FANIN = 8, MAX_FANOUT = 1000, MAX_SIZES = 64, MAX_WEIGHT = 1000 };

const char *gen_family_name(GenFamily f) {
  return f >= 0 && f < GEN__NFAMILIES ? family_names[f] : "?";
}

void gen_spec_default(GenSpec *s) {
  memset(s, 0, sizeof *s);
  s->kernels = 20;
  s->chain = 0;
  s->fanin = 2;
  s->fanout = 3;
  static const int mix[GEN_NKINDS] = {1, 5, 1, 1, 1, 1, 1}; /* once map permute reduce scan filter partition */
  memcpy(s->mix, mix, sizeof mix);
  s->shared = 0.3;
  s->sizes = 2;
  s->seed = 1;
  s->family = GEN_RANDOM;
}

static int fail(char **err, const char *fmt, ...) NZ_PRINTF(2, 3);
static int fail(char **err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = NULL;
  if (vasprintf(&m, fmt, ap) < 0) m = NULL;
  va_end(ap);
  if (err) *err = m ? m : nz_xstrdup("bad generator spec");
  else free(m);
  return -1;
}

/* A decimal integer in [lo, hi], the whole string. */
static int parse_int(const char *v, long long lo, long long hi, long long *out) {
  if (!*v) return -1;
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (*end || errno || x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

static int int_key(const char *key, const char *v, long long lo, long long hi, int *out,
                   char **err) {
  long long x;
  if (parse_int(v, lo, hi, &x) != 0)
    return fail(err, "bad value '%s' for %s: expected an integer from %lld to %lld", v, key, lo,
                hi);
  *out = (int)x;
  return 0;
}

/* "map:5,reduce:1": listed kinds get their weight, the others 0. */
static int parse_mix(const char *v, int mix[GEN_NKINDS], char **err) {
  int w[GEN_NKINDS] = {0}, seen[GEN_NKINDS] = {0};
  const char *p = v;
  if (!*p) return fail(err, "empty mix: expected e.g. mix=map:5,reduce:1");
  while (*p) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char item[64];
    if (n == 0 || n >= sizeof item)
      return fail(err, "bad mix item '%.*s': expected KIND:WEIGHT", (int)n, p);
    memcpy(item, p, n);
    item[n] = 0;
    char *colon = strchr(item, ':');
    if (!colon) return fail(err, "bad mix item '%s': expected KIND:WEIGHT, e.g. map:5", item);
    *colon = 0;
    int k = -1;
    for (int i = 0; i < GEN_NKINDS; i++)
      if (!strcmp(item, kind_names[i])) k = i;
    if (k < 0)
      return fail(err,
                  "unknown SOAC '%s' in mix: expected once, map, permute, reduce, scan, filter "
                  "or partition",
                  item);
    if (seen[k]) return fail(err, "SOAC '%s' given twice in mix", item);
    seen[k] = 1;
    long long x;
    if (parse_int(colon + 1, 0, MAX_WEIGHT, &x) != 0)
      return fail(err, "bad weight '%s' for %s in mix: expected an integer from 0 to %d",
                  colon + 1, item, MAX_WEIGHT);
    w[k] = (int)x;
    p += n;
    if (*p == ',') p++;
  }
  memcpy(mix, w, sizeof w);
  return 0;
}

int gen_spec_set(GenSpec *s, const char *key, const char *v, char **err) {
  if (!strcmp(key, "kernels")) return int_key(key, v, 1, MAX_KERNELS, &s->kernels, err);
  if (!strcmp(key, "chain")) {
    if (!strcmp(v, "auto")) {
      s->chain = 0;
      return 0;
    }
    return int_key(key, v, 0, MAX_KERNELS, &s->chain, err);
  }
  if (!strcmp(key, "fanin")) return int_key(key, v, 1, MAX_FANIN, &s->fanin, err);
  if (!strcmp(key, "fanout")) return int_key(key, v, 1, MAX_FANOUT, &s->fanout, err);
  if (!strcmp(key, "sizes")) return int_key(key, v, 1, MAX_SIZES, &s->sizes, err);
  if (!strcmp(key, "mix")) return parse_mix(v, s->mix, err);
  if (!strcmp(key, "shared")) {
    char *end;
    errno = 0;
    double x = *v ? strtod(v, &end) : -1;
    if (!*v || *end || errno || !(x >= 0 && x <= 1))
      return fail(err, "bad value '%s' for shared: expected a probability from 0 to 1", v);
    s->shared = x;
    return 0;
  }
  if (!strcmp(key, "seed")) {
    char *end;
    errno = 0;
    unsigned long long x = *v && *v != '-' ? strtoull(v, &end, 10) : 0;
    if (!*v || *v == '-' || *end || errno)
      return fail(err, "bad value '%s' for seed: expected a non-negative integer", v);
    s->seed = (uint64_t)x;
    return 0;
  }
  if (!strcmp(key, "family")) {
    for (int f = 0; f < GEN__NFAMILIES; f++)
      if (!strcmp(v, family_names[f])) {
        s->family = (GenFamily)f;
        return 0;
      }
    return fail(err,
                "unknown family '%s': expected random, chain, siblings, diamond or trap", v);
  }
  return fail(err,
              "unknown key '%s': expected kernels, chain, fanin, fanout, mix, shared, sizes, "
              "seed or family",
              key);
}

int gen_spec_validate(const GenSpec *s, char **err) {
  if (s->chain > s->kernels)
    return fail(err, "chain=%d is longer than kernels=%d: a chain needs one invocation per step",
                s->chain, s->kernels);
  int total = 0;
  for (int k = 0; k < GEN_NKINDS; k++) total += s->mix[k];
  if (total == 0) return fail(err, "mix gives every SOAC weight 0");
  if (s->family == GEN_TRAP && s->kernels < 4)
    return fail(err, "family=trap needs kernels >= 4 (its smallest gadget has 4 invocations)");
  if (s->family == GEN_TRAP && s->chain == 1)
    return fail(err, "family=trap needs chain >= 2 (the MAP and the chain it should fuse with)");
  if (s->family == GEN_TRAP && s->chain > s->kernels - 2)
    return fail(err, "family=trap with chain=%d needs kernels >= %d (chain + 2)", s->chain,
                s->chain + 2);
  if (s->family == GEN_DIAMOND && s->chain > 0 && (s->chain < 3 || s->chain % 2 == 0))
    return fail(err,
                "family=diamond has depth 2*diamonds+1: chain must be odd and >= 3, not %d",
                s->chain);
  return 0;
}

int gen_spec_parse(const char *text, GenSpec *s, char **err) {
  if (!strncmp(text, "gen:", 4)) text += 4;
  char *copy = nz_xstrdup(text);
  char *key = NULL, *mixbuf = NULL;
  size_t mixlen = 0;
  int rc = 0;
  /* Items are key=value; an item with no '=' continues a mix (map:5,reduce:1). */
  for (char *p = copy; rc == 0 && p;) {
    char *comma = strchr(p, ',');
    if (comma) *comma = 0;
    char *eq = strchr(p, '=');
    if (eq) {
      if (mixbuf) {
        rc = gen_spec_set(s, "mix", mixbuf, err);
        free(mixbuf);
        mixbuf = NULL;
        if (rc) break;
      }
      *eq = 0;
      key = p;
      if (!*key) {
        rc = fail(err, "missing key before '=%s'", eq + 1);
      } else if (!strcmp(key, "mix")) {
        mixlen = strlen(eq + 1);
        mixbuf = nz_xmalloc(mixlen + 1);
        memcpy(mixbuf, eq + 1, mixlen + 1);
      } else {
        rc = gen_spec_set(s, key, eq + 1, err);
      }
    } else if (mixbuf && strchr(p, ':')) {
      size_t n = strlen(p);
      mixbuf = nz_xrealloc(mixbuf, mixlen + n + 2);
      mixbuf[mixlen++] = ',';
      memcpy(mixbuf + mixlen, p, n + 1);
      mixlen += n;
    } else if (*p) { /* empty items ("a=1,,b=2", a trailing comma) are harmless */
      rc = fail(err, "bad item '%s' in generator spec: expected KEY=VALUE", p);
    }
    p = comma ? comma + 1 : NULL;
  }
  if (rc == 0 && mixbuf) rc = gen_spec_set(s, "mix", mixbuf, err);
  free(mixbuf);
  free(copy);
  if (rc == 0) rc = gen_spec_validate(s, err);
  return rc;
}

void gen_spec_format(NzBuf *b, const GenSpec *s) {
  nz_buf_printf(b, "family=%s,kernels=%d,chain=", gen_family_name(s->family), s->kernels);
  if (s->chain) nz_buf_printf(b, "%d", s->chain);
  else nz_buf_puts(b, "auto");
  nz_buf_printf(b, ",fanin=%d,fanout=%d,mix=", s->fanin, s->fanout);
  int first = 1;
  for (int k = 0; k < GEN_NKINDS; k++) {
    /* map first: it is the common case and reads naturally */
    int i = k == 0 ? 1 : k == 1 ? 0 : k;
    if (!s->mix[i]) continue;
    nz_buf_printf(b, "%s%s:%d", first ? "" : ",", kind_names[i], s->mix[i]);
    first = 0;
  }
  /* %.17g round-trips; trim to the shortest form that still does */
  char buf[40];
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, sizeof buf, "%.*g", p, s->shared);
    if (strtod(buf, NULL) == s->shared) break;
  }
  nz_buf_printf(b, ",shared=%s,sizes=%d,seed=%llu", buf, s->sizes, (unsigned long long)s->seed);
}

void gen_spec_help(FILE *f) {
  fputs("  kernels=N    kernel invocations in the region (default 20)\n"
        "  chain=L      longest dependency chain, in invocations (default auto: the\n"
        "               family's own, 4 for random and trap, kernels for chain)\n"
        "  fanin=N      values one invocation reads, at most (default 2)\n"
        "  fanout=N     invocations reading one result, at most (default 3)\n"
        "  mix=K:W,...  SOAC weights, K in once map permute reduce scan filter partition\n"
        "               (default map:5,once:1,permute:1,reduce:1,scan:1,filter:1,\n"
        "               partition:1; unlisted SOACs get 0)\n"
        "  shared=P     probability of reading an already-read value (default 0.3)\n"
        "  sizes=N      input arrays, each its own iteration space (default 2)\n"
        "  seed=S       random seed (default 1)\n"
        "  family=F     random | chain | siblings | diamond | trap (default random)\n",
        f);
}
