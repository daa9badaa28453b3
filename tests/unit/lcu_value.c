/* lcu_value.c — unit tests of λcu run-time values: the NESL float layout and
 * its edge cases, value printing, the command-line literal parser (round
 * trips and rejections) and the random input generator. */
#include "lcu.h"
#include "unit.h"
#include <math.h>

static int float_is(double x, const char *want) {
  NzBuf b = {0};
  lcu_float_print(&b, x);
  int ok = b.s && strcmp(b.s, want) == 0;
  if (!ok) printf("# float %.17g printed as '%s', want '%s'\n", x, b.s ? b.s : "", want);
  nz_buf_free(&b);
  return ok;
}

static char *show(LcuValue v) {
  NzBuf b = {0};
  lcu_value_print(&b, v);
  return b.s ? b.s : nz_xstrdup("");
}

/* Parses text as ty and prints it back; returns whether that gives want. */
static int parses_as(const char *text, const LcuType *ty, const char *want) {
  LcuValue v;
  if (lcu_value_parse(text, ty, &v, "test") != 0) {
    printf("# '%s' did not parse\n", text);
    return 0;
  }
  char *s = show(v);
  int ok = strcmp(s, want) == 0;
  if (!ok) printf("# '%s' printed back as '%s', want '%s'\n", text, s, want);
  free(s);
  lcu_value_release(v);
  return ok;
}

static int rejects(const char *text, const LcuType *ty) {
  LcuValue v;
  if (lcu_value_parse(text, ty, &v, "test") == 0) {
    lcu_value_release(v);
    printf("# '%s' was accepted\n", text);
    return 0;
  }
  return 1;
}

static void test_floats(void) {
  CHECK("float zero", float_is(0.0, "0.0"));
  CHECK("float negative zero", float_is(-0.0, "-0.0"));
  CHECK("float one", float_is(1.0, "1.0"));
  CHECK("float -2.5", float_is(-2.5, "-2.5"));
  CHECK("float 0.1", float_is(0.1, "0.1"));
  CHECK("float 0.1+0.2 shortest round trip", float_is(0.1 + 0.2, "0.30000000000000004"));
  CHECK("float 1/3", float_is(1.0 / 3.0, "0.3333333333333333"));
  CHECK("float 2/3", float_is(2.0 / 3.0, "0.6666666666666666"));
  CHECK("float 100", float_is(100.0, "100.0"));
  CHECK("float 123456", float_is(123456.0, "123456.0"));
  CHECK("float 1234567.8", float_is(1234567.8, "1234567.8"));
  CHECK("float just below 1e7 is fixed", float_is(9999999.0, "9999999.0"));
  CHECK("float 1e7 is scientific", float_is(1e7, "1.0E7"));
  CHECK("float 1.23456789E8", float_is(1.23456789e8, "1.23456789E8"));
  CHECK("float 1e21", float_is(1e21, "1.0E21"));
  CHECK("float -1e100", float_is(-1e100, "-1.0E100"));
  CHECK("float 0.001 is fixed", float_is(0.001, "0.001"));
  CHECK("float 0.0015", float_is(0.0015, "0.0015"));
  CHECK("float 9e-4 is scientific", float_is(0.0009, "9.0E-4"));
  CHECK("float 1e-4", float_is(1e-4, "1.0E-4"));
  CHECK("float 2.875e-6", float_is(2.875e-6, "2.875E-6"));
  CHECK("float smallest denormal", float_is(5e-324, "5.0E-324"));
  CHECK("float largest double", float_is(1.7976931348623157e308, "1.7976931348623157E308"));
  CHECK("float pi", float_is(3.141592653589793, "3.141592653589793"));
  CHECK("float 0.5", float_is(0.5, "0.5"));
  CHECK("float 12.0", float_is(12.0, "12.0"));
  CHECK("float inf", float_is(INFINITY, "inf"));
  CHECK("float -inf", float_is(-INFINITY, "-inf"));
  CHECK("float nan", float_is(NAN, "nan"));

  /* Every printed float reads back as the same double. */
  LcuRng r = {12345, 0};
  int bad = 0;
  const LcuType *ft = lcu_type_base(LT_FLOAT);
  for (int i = 0; i < 20000 && bad < 3; i++) {
    uint64_t bits = (r.state = r.state * 6364136223846793005ull + 1442695040888963407ull);
    bits ^= bits >> 29;
    double x;
    memcpy(&x, &bits, sizeof x);
    if (isnan(x)) continue;
    if (i % 3 == 0) x = (double)(int64_t)(bits % 2000001) / 1000.0 - 1000.0; /* short decimals */
    NzBuf b = {0};
    lcu_float_print(&b, x);
    LcuValue v;
    if (lcu_value_parse(b.s, ft, &v, "round trip") != 0 ||
        memcmp(&v.u.f, &x, sizeof x) != 0) {
      printf("# %.17g printed as %s does not read back\n", x, b.s);
      bad++;
    }
    nz_buf_free(&b);
  }
  CHECK("floats round-trip through print and parse", bad == 0);
}

static void test_print_parse(void) {
  const LcuType *I = lcu_type_base(LT_INT), *F = lcu_type_base(LT_FLOAT),
                *B = lcu_type_base(LT_BOOL), *C = lcu_type_base(LT_CHAR),
                *SD = lcu_type_base(LT_SEGDES);
  const LcuType *AI = lcu_type_array(LT_INT), *AB = lcu_type_array(LT_BOOL),
                *AF = lcu_type_array(LT_FLOAT), *AC = lcu_type_array(LT_CHAR);
  const LcuType *pair_elems[] = {I, AB};
  const LcuType *PAIR = lcu_type_tuple(2, pair_elems);
  const LcuType *three_elems[] = {F, SD, C};
  const LcuType *THREE = lcu_type_tuple(3, three_elems);

  CHECK("int", parses_as("42", I, "42"));
  CHECK("negative int", parses_as("  -7 ", I, "-7"));
  CHECK("int min", parses_as("-2147483648", I, "-2147483648"));
  CHECK("int max", parses_as("2147483647", I, "2147483647"));
  CHECK("float from an int", parses_as("3", F, "3.0"));
  CHECK("float exponent", parses_as("1e5", F, "100000.0"));
  CHECK("float printed form", parses_as("1.0E-4", F, "1.0E-4"));
  CHECK("float -inf", parses_as("-inf", F, "-inf"));
  CHECK("bool T", parses_as("T", B, "T"));
  CHECK("bool f", parses_as("f", B, "F"));
  CHECK("bool true", parses_as("true", B, "T"));
  CHECK("bool false", parses_as("false", B, "F"));
  CHECK("char backquote", parses_as("`a", C, "`a"));
  CHECK("char quoted", parses_as("'z'", C, "`z"));
  CHECK("char escaped newline", parses_as("'\\n'", C, "`\n"));
  CHECK("char space", parses_as("` ", C, "` "));
  CHECK("int array with spaces", parses_as(" [ 1 ,2,  3 ] ", AI, "[1, 2, 3]"));
  CHECK("empty array", parses_as("[]", AI, "[]"));
  CHECK("empty array with space", parses_as("[ ]", AF, "[]"));
  CHECK("float array", parses_as("[1, 2.5, -0.25]", AF, "[1.0, 2.5, -0.25]"));
  CHECK("bool array", parses_as("[t,F,true]", AB, "[T, F, T]"));
  CHECK("char array of punctuation", parses_as("[`,, `], `a]", AC, "[`,, `], `a]"));
  CHECK("segdes", parses_as("segdes[2,0, 1]", SD, "segdes[2, 0, 1]"));
  CHECK("empty segdes", parses_as("segdes[]", SD, "segdes[]"));
  CHECK("pair", parses_as("(1,[T,F])", PAIR, "(1, [T, F])"));
  CHECK("triple", parses_as("( 2 , segdes[3], 'q' )", THREE, "(2.0, segdes[3], `q)"));
  CHECK("unit", parses_as("()", lcu_type_unit(), "()"));

  CHECK("rejects a float for int", rejects("1.5", I));
  CHECK("rejects int overflow", rejects("2147483648", I));
  CHECK("rejects a word for int", rejects("abc", I));
  CHECK("rejects an empty argument", rejects("  ", I));
  CHECK("rejects trailing text", rejects("1 2", I));
  CHECK("rejects an unclosed array", rejects("[1, 2", AI));
  CHECK("rejects a trailing comma", rejects("[1, ]", AI));
  CHECK("rejects a negative segment", rejects("segdes[1, -1]", SD));
  CHECK("rejects a short tuple", rejects("(1)", PAIR));
  CHECK("rejects a long tuple", rejects("(1, [T], 3)", PAIR));
  CHECK("rejects hex floats", rejects("0x10", F));
  CHECK("rejects yes as a bool", rejects("yes", B));
  CHECK("rejects Tx as a bool", rejects("Tx", B));

  /* Values built directly print in the stable form. */
  LcuArray *a = lcu_array_new(LT_CHAR, 2);
  a->d.b[0] = 'h';
  a->d.b[1] = 'i';
  LcuValue comps[2] = {lcu_value_char('x'), {.kind = LT_ARRAY, .u.arr = a}};
  LcuValue t = lcu_value_tuple(2, comps);
  LcuValue t2 = lcu_value_copy(t);
  lcu_value_release(t);
  char *s = show(t2);
  CHECK("char tuple prints", strcmp(s, "(`x, [`h, `i])") == 0);
  CHECK("copy shares the array", t2.u.tup.elems[1].u.arr == a && a->refs == 1);
  free(s);
  lcu_value_release(t2);

  int32_t lens[] = {2, 0, 3};
  LcuSegdes *sd = lcu_segdes_new(lens, 3);
  CHECK("segdes total", sd->total == 5 && sd->starts[3] == 5 && sd->starts[2] == 2);
  CHECK("segdes segof", sd->segof[0] == 0 && sd->segof[1] == 0 && sd->segof[2] == 2 &&
                            sd->segof[4] == 2);
  LcuValue sv = {.kind = LT_SEGDES, .u.sd = sd};
  lcu_value_release(sv);
  int32_t neg[] = {1, -2};
  CHECK("segdes with a negative length is NULL", lcu_segdes_new(neg, 2) == NULL);
}

static void test_random(void) {
  const LcuType *elems[] = {lcu_type_array(LT_INT), lcu_type_base(LT_SEGDES),
                            lcu_type_array(LT_FLOAT), lcu_type_base(LT_BOOL)};
  const LcuType *ty = lcu_type_tuple(4, elems);
  LcuRng r1 = {99, 8}, r2 = {99, 8};
  int same = 1, inrange = 1, lens_ok = 1, floats_ok = 1, nonempty = 0;
  for (int k = 0; k < 200; k++) {
    LcuValue a = lcu_value_random(&r1, ty), b = lcu_value_random(&r2, ty);
    char *sa = show(a), *sb = show(b);
    same &= strcmp(sa, sb) == 0;
    free(sa);
    free(sb);
    LcuArray *xs = a.u.tup.elems[0].u.arr, *fs = a.u.tup.elems[2].u.arr;
    LcuSegdes *sd = a.u.tup.elems[1].u.sd;
    lens_ok &= xs->len <= 8 && fs->len <= 8 && sd->nsegs <= 8 && sd->total <= 16;
    nonempty |= xs->len > 0;
    for (int64_t i = 0; i < xs->len; i++) inrange &= xs->d.i[i] >= -50 && xs->d.i[i] <= 50;
    for (int64_t i = 0; i < fs->len; i++)
      floats_ok &= fs->d.f[i] * 4 == floor(fs->d.f[i] * 4) && fabs(fs->d.f[i]) <= 50;
    lcu_value_release(a);
    lcu_value_release(b);
  }
  CHECK("random values are deterministic for a seed", same);
  CHECK("random ints are in [-50, 50]", inrange);
  CHECK("random floats are quarters in [-50, 50]", floats_ok);
  CHECK("random lengths respect max-len", lens_ok && nonempty);
  LcuRng r3 = {100, 8};
  LcuRng r4 = {99, 8};
  LcuValue c = lcu_value_random(&r3, lcu_type_array(LT_INT)),
           d = lcu_value_random(&r4, lcu_type_array(LT_INT));
  char *sc = show(c), *sd2 = show(d);
  CHECK("random values differ between seeds", strcmp(sc, sd2) != 0);
  free(sc);
  free(sd2);
  lcu_value_release(c);
  lcu_value_release(d);
}

int main(void) {
  test_floats();
  test_print_parse();
  test_random();
  nz_intern_free_all();
  return 0;
}
