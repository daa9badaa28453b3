/* lcu_interp.c (unit) — the λcu interpreter on small programs given as text:
 * SOAC edge cases (empty index spaces, FILTER keeping nothing, PARTITION
 * order, identities, tuple rops, empty segments, PERMUTE collisions), CPU
 * code (wrapping, short-circuit, deep recursion) and faults returning 1.
 * Expected results are worked out by hand in the comments. */
#include "lcu.h"
#include "unit.h"

/* Parses, checks and runs text with main's arguments given as literals.
 * Returns the printed result, "FAULT" when the run faulted, or "REJECTED"
 * when the program did not parse or check. The caller frees it. */
static char *run(const char *text, int nargs, const char **args) {
  NzSource *src = nz_source_from_string("test.lcu", text);
  LcuProgram *p = lcu_parse(src);
  char *out = NULL;
  if (!p || lcu_check(p) != 0) {
    out = nz_xstrdup("REJECTED");
  } else {
    LcuFunc *m = lcu_main(p);
    LcuValue vals[8];
    int n = 0;
    for (; n < nargs; n++)
      if (lcu_value_parse(args[n], m->params[n].ty, &vals[n], "arg") != 0) break;
    if (n < nargs || nargs != m->nparams) {
      out = nz_xstrdup("BAD ARGS");
    } else {
      LcuValue r;
      if (lcu_run_main(p, nargs, vals, &r) != 0) {
        out = nz_xstrdup("FAULT");
      } else {
        NzBuf b = {0};
        lcu_value_print(&b, r);
        out = b.s ? b.s : nz_xstrdup("");
        lcu_value_release(r);
      }
    }
    for (int i = 0; i < n; i++) lcu_value_release(vals[i]);
  }
  lcu_program_free(p);
  nz_source_free(src);
  return out;
}

static void expect(const char *name, const char *text, int nargs, const char **args,
                   const char *want) {
  char *got = run(text, nargs, args);
  int ok = strcmp(got, want) == 0;
  if (!ok) printf("# %s: got %s, want %s\n", name, got, want);
  CHECK(name, ok);
  free(got);
}

#define ARGS(...) (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)), (const char *[]){__VA_ARGS__}

static const char *int_reduce =
    "kernel k(n : int) -> (int, int, int, int, int, int, int) {\n"
    "  let (a, b, c, d, e, f, g) = REDUCE { i => (i, i + 1, i, i, i, i, i) }"
    " (iadd, imul, imax, imin, iand, ior, ixor) (n)\n"
    "  return a, b, c, d, e, f, g\n"
    "}\n"
    "function main(n : int) -> (int, int, int, int, int, int, int) { run k(n) }\n";

static const char *other_reduce =
    "kernel k(n : int) -> (float, float, float, float, bool, bool, bool) {\n"
    "  let (a, b, c, d, e, f, g) = REDUCE { i => (i2f(i) + 0.5, i2f(i + 1), i2f(i), i2f(i),"
    " i < 10, i == 2, i % 2 == 0) } (fadd, fmul, fmax, fmin, band, bor, bxor) (n)\n"
    "  return a, b, c, d, e, f, g\n"
    "}\n"
    "function main(n : int) -> (float, float, float, float, bool, bool, bool) { run k(n) }\n";

static void test_reductions(void) {
  /* n = 0: every identity. */
  expect("int identities", int_reduce, ARGS("0"), "(0, 1, -2147483648, 2147483647, -1, 0, 0)");
  /* i = 0..4: sum 10, 1*2*3*4*5 = 120, max 4, min 0, and 0, or 7, xor 0^1^2^3^4 = 4. */
  expect("int rops as a tuple", int_reduce, ARGS("5"), "(10, 120, 4, 0, 0, 7, 4)");
  expect("float and bool identities", other_reduce, ARGS("0"), "(0.0, 1.0, -inf, inf, T, F, F)");
  /* i = 0..2: 0.5+1.5+2.5, 1*2*3, max 2, min 0, all < 10, some == 2, T^F^T. */
  expect("float and bool rops", other_reduce, ARGS("3"), "(4.5, 6.0, 2.0, 0.0, T, T, F)");

  const char *id_reduce =
      "kernel k(n : int) -> ([int], int) {\n"
      "  let (xs, s) = REDUCE { i => (i * 2, i) } (id, iadd) (n)\n"
      "  return xs, s\n"
      "}\n"
      "function main(n : int) -> ([int], int) { run k(n) }\n";
  expect("REDUCE with id", id_reduce, ARGS("3"), "([0, 2, 4], 3)");
  expect("REDUCE with id, empty", id_reduce, ARGS("0"), "([], 0)");

  const char *scans =
      "kernel k(xs : [int]) -> ([int], [float], [int]) {\n"
      "  let (a, b, c) = SCAN { i => (xs[i], i2f(xs[i]), xs[i]) using xs } (iadd, fmax, id) (#xs)\n"
      "  return a, b, c\n"
      "}\n"
      "function main(xs : [int]) -> ([int], [float], [int]) { run k(xs) }\n";
  /* inclusive: 3, 3-1, +4, +1, -5; running max of 3 -1 4 1 -5. */
  expect("SCAN inclusive with tuple rops and id", scans, ARGS("[3, -1, 4, 1, -5]"),
         "([3, 2, 6, 7, 2], [3.0, 3.0, 4.0, 4.0, 4.0], [3, -1, 4, 1, -5])");
  expect("SCAN over nothing", scans, ARGS("[]"), "([], [], [])");

  const char *wrap =
      "kernel k(xs : [int]) -> (int, int) {\n"
      "  let (s, p) = REDUCE { i => (xs[i], xs[i]) using xs } (iadd, imul) (#xs)\n"
      "  return s, p\n"
      "}\n"
      "function main(xs : [int]) -> (int, int) { run k(xs) }\n";
  /* 2147483647 + 1 wraps; 65536 * 65536 = 2^32 wraps to 0. */
  expect("int rops wrap", wrap, ARGS("[2147483647, 1]"), "(-2147483648, 2147483647)");
  expect("imul wraps", wrap, ARGS("[65536, 65536]"), "(131072, 0)");
}

static void test_filter_partition(void) {
  const char *filt =
      "kernel k(xs : [int], lim : int) -> ([int], [int]) {\n"
      "  let (ys, js) = FILTER { i => (xs[i], i) using xs } { (x, j) => x > lim using lim } (#xs)\n"
      "  return ys, js\n"
      "}\n"
      "function main(xs : [int], lim : int) -> ([int], [int]) { run k(xs, lim) }\n";
  expect("FILTER keeps nothing", filt, ARGS("[1, 2, 3]", "100"), "([], [])");
  expect("FILTER keeps everything", filt, ARGS("[1, 2, 3]", "0"), "([1, 2, 3], [0, 1, 2])");
  expect("FILTER keeps in index order", filt, ARGS("[4, 7, 2, 9, 6]", "5"), "([7, 9, 6], [1, 3, 4])");
  expect("FILTER over nothing", filt, ARGS("[]", "0"), "([], [])");

  const char *part =
      "kernel k(xs : [int]) -> ([int], [int], [int], [int]) {\n"
      "  let (a, ai, b, bi) = PARTITION { i => (xs[i], i) using xs } { (x, j) => x < 5 } (#xs)\n"
      "  return a, ai, b, bi\n"
      "}\n"
      "function main(xs : [int]) -> ([int], [int], [int], [int]) { run k(xs) }\n";
  expect("PARTITION: kept then rejected, both in index order", part,
         ARGS("[7, 1, 8, 2, 9, 3]"), "([1, 2, 3], [1, 3, 5], [7, 8, 9], [0, 2, 4])");
  expect("PARTITION all rejected", part, ARGS("[9, 8]"), "([], [], [9, 8], [0, 1])");
}

static void test_permute(void) {
  const char *perm =
      "kernel k(xs : [int], ix : [int], m : int) -> ([int], [bool]) {\n"
      "  let (v, w) = PERMUTE { i => (xs[i], true) using xs } { i => ix[i] using ix } (#xs) into (m)\n"
      "  return v, w\n"
      "}\n"
      "function main(xs : [int], ix : [int], m : int) -> ([int], [bool]) { run k(xs, ix, m) }\n";
  /* unwritten positions hold 0 / F (DPERMUTE's flags). */
  expect("PERMUTE into a longer array", perm, ARGS("[1, 2, 3]", "[0, 2, 4]", "7"),
         "([1, 0, 2, 0, 3, 0, 0], [T, F, T, F, T, F, F])");
  expect("PERMUTE collision: higher source wins", perm, ARGS("[5, 6, 7]", "[0, 0, 0]", "1"),
         "([7], [T])");
  expect("PERMUTE of nothing into 2", perm, ARGS("[]", "[]", "2"), "([0, 0], [F, F])");
  expect("PERMUTE destination past the end faults", perm, ARGS("[1, 2]", "[0, 2]", "2"), "FAULT");
  expect("PERMUTE negative destination faults", perm, ARGS("[1]", "[-1]", "2"), "FAULT");
  expect("PERMUTE negative output length faults", perm, ARGS("[]", "[]", "-1"), "FAULT");
  /* without `into` the destinations must be a permutation */
  const char *perm_n =
      "kernel k(xs : [int], ix : [int]) -> [int] {\n"
      "  let v = PERMUTE { i => xs[i] using xs } { i => ix[i] using ix } (#xs)\n"
      "  return v\n"
      "}\n"
      "function main(xs : [int], ix : [int]) -> [int] { run k(xs, ix) }\n";
  expect("PERMUTE without into: a permutation", perm_n, ARGS("[5, 6, 7]", "[2, 0, 1]"), "[6, 7, 5]");
  expect("PERMUTE without into: a collision faults", perm_n, ARGS("[5, 6, 7]", "[2, 0, 2]"), "FAULT");
}

static void test_segmented(void) {
  const char *seg =
      "kernel k(xs : [int], sd : segdes) -> ([int], [int], [int], [float], [int]) {\n"
      "  let (s, m, f) = SEGREDUCE { i => (xs[i], xs[i], xs[i]) using xs } (iadd, imax, id) (sd)\n"
      "  let (c, p) = SEGSCAN { i => (xs[i], i2f(xs[i])) using xs } (iadd, fmul) (sd)\n"
      "  return s, m, c, p, f\n"
      "}\n"
      "function main(xs : [int], sd : segdes) -> ([int], [int], [int], [float], [int]) {\n"
      "  run k(xs, sd)\n"
      "}\n";
  /* segments [1 2] [] [3 4 5] []: sums 3 0 12 0, maxima with imax's identity
   * for empty ones, scans restart at each start: 1 3 | 3 7 12, 1 2 | 3 12 60. */
  expect("SEGREDUCE/SEGSCAN with empty segments", seg, ARGS("[1, 2, 3, 4, 5]", "segdes[2, 0, 3, 0]"),
         "([3, 0, 12, 0], [2, -2147483648, 5, -2147483648], [1, 3, 3, 7, 12], "
         "[1.0, 2.0, 3.0, 12.0, 60.0], [1, 2, 3, 4, 5])");
  expect("segmented over no segments", seg, ARGS("[]", "segdes[]"), "([], [], [], [], [])");
  expect("segmented over only empty segments", seg, ARGS("[]", "segdes[0, 0]"),
         "([0, 0], [-2147483648, -2147483648], [], [], [])");

  const char *prims =
      "kernel k(sd : segdes, t : int) -> ([int], [int], [int]) {\n"
      "  let st = MAP { j => seg_start(sd, j) using sd } (#sd)\n"
      "  let ln = MAP { j => seg_len(sd, j) using sd } (#sd)\n"
      "  let of = MAP { i => seg_of(sd, i) using sd } (t)\n"
      "  return st, ln, of\n"
      "}\n"
      "function main(ls : [int]) -> ([int], [int], [int], [int], int) {\n"
      "  let sd = make_segdes(ls) in\n"
      "  let (a, b, c) = run k(sd, seg_total(sd)) in\n"
      "  (a, b, c, seg_lengths(sd), seg_total(sd))\n"
      "}\n";
  expect("segment descriptor primitives", prims, ARGS("[2, 0, 1]"),
         "([0, 2, 2], [2, 0, 1], [0, 0, 2], [2, 0, 1], 3)");
  expect("make_segdes with a negative length faults", prims, ARGS("[2, -1]"), "FAULT");
}

static void test_thunks(void) {
  const char *once =
      "kernel k(a : int) -> (int, int, float) {\n"
      "  let (x, y, z) = ONCE { () => let p = (a, a + 1) in let (u, v) = p in"
      " (u * v, if a > 0 then 1 else 2, 0.5) using a }\n"
      "  return x, y, z\n"
      "}\n"
      "function main(a : int) -> (int, int, float) { run k(a) }\n";
  expect("ONCE with a tuple-valued local", once, ARGS("6"), "(42, 1, 0.5)");

  const char *sel =
      "kernel k(xs : [int]) -> ([int], [int]) {\n"
      "  let (a, b) = MAP { i => if xs[i] > 0 then (xs[i], 1) else (0 - xs[i], 0) using xs } (#xs)\n"
      "  return a, b\n"
      "}\n"
      "function main(xs : [int]) -> ([int], [int]) { run k(xs) }\n";
  expect("MAP with a tuple-valued if", sel, ARGS("[3, -4, 0]"), "([3, 4, 0], [1, 0, 0])");

  const char *big =
      "kernel k(n : int) -> int {\n"
      "  let xs = MAP { i => i % 3 } (n)\n"
      "  let s = REDUCE { i => xs[i] using xs } (iadd) (#xs)\n"
      "  return s\n"
      "}\n"
      "function main(n : int) -> int { run k(n) }\n";
  /* 10^6 = 333333 * 3 + 1: 333333 * (0+1+2) + 0. */
  expect("MAP and REDUCE over a million", big, ARGS("1000000"), "999999");
  expect("MAP over a negative size faults", big, ARGS("-1"), "FAULT");
}

static void test_cpu(void) {
  const char *arith =
      "function main(a : int, b : int) -> (int, int, int, int, int) {\n"
      "  (a + 1, a / b, a % b, abs(a), 0 - a)\n"
      "}\n";
  /* INT_MIN / -1 and INT_MIN % -1 wrap instead of trapping. */
  expect("int wrapping", arith, ARGS("-2147483648", "-1"),
         "(-2147483647, -2147483648, 0, -2147483648, -2147483648)");
  expect("int division truncates", arith, ARGS("-7", "2"), "(-6, -3, -1, 7, 7)");
  expect("int division by zero faults", arith, ARGS("7", "0"), "FAULT");

  const char *conv =
      "function main(x : float) -> (int, int, int, int) {\n"
      "  (round(x), floor(x), ceil(x), trunc(x))\n"
      "}\n";
  expect("round halves away from zero", conv, ARGS("-2.5"), "(-3, -3, -2, -2)");
  expect("round 2.5", conv, ARGS("2.5"), "(3, 2, 3, 2)");
  expect("float to int out of range faults", conv, ARGS("1e10"), "FAULT");
  expect("nan to int faults", conv, ARGS("nan"), "FAULT");

  const char *bits =
      "function main(a : int) -> (int, int, int, int, char, int) {\n"
      "  (lshift(1, 31), rshift(a, 1), lshift(1, 32), rshift(a, 40), max('a', 'c'), c2i(i2c(65)))\n"
      "}\n";
  expect("shifts and chars", bits, ARGS("-8"), "(-2147483648, -4, 0, -1, `c, 65)");

  const char *sc =
      "function main(n : int) -> (bool, bool) {\n"
      "  (n != 0 && 10 / n > 1, n == 0 || 10 / n > 1)\n"
      "}\n";
  expect("&& and || short-circuit", sc, ARGS("0"), "(F, T)");
  expect("&& and || evaluate the right side", sc, ARGS("4"), "(T, T)");

  const char *fl = "function main(x : float) -> (float, float, float) { (1.0 / x, sqrt(x), x * x) }\n";
  expect("float division by zero is IEEE", fl, ARGS("0"), "(inf, 0.0, 0.0)");
  expect("float arithmetic", fl, ARGS("4"), "(0.25, 2.0, 16.0)");

  const char *rec =
      "function down(n : int, acc : int) -> int {\n"
      "  if n == 0 then acc else down(n - 1, acc + 2)\n"
      "}\n"
      "function main(n : int) -> int { let r = down(n, 0) in r + 1 }\n";
  expect("deep recursion (100000 calls)", rec, ARGS("100000"), "200001");

  const char *runaway =
      "function down(n : int) -> int { if n == 0 then 0 else 1 + down(n - 1) }\n"
      "function main(n : int) -> int { down(n) }\n";
  expect("runaway recursion is a fault, not a crash", runaway, ARGS("-1"), "FAULT");

  const char *fib =
      "function fib(n : int) -> int {\n"
      "  if n < 2 then n else let a = fib(n - 1) in let b = fib(n - 2) in a + b\n"
      "}\n"
      "function main(n : int) -> int { fib(n) }\n";
  expect("fib 20", fib, ARGS("20"), "6765");

  const char *idx =
      "function pick(xs : [int], k : int) -> int {\n"
      "  if k == 0 then xs[100] else let r = pick(xs, k - 1) in r\n"
      "}\n"
      "function main(xs : [int], k : int) -> (int, [int]) {\n"
      "  let ys = [1, 2, 3] in\n"
      "  let t = (ys, xs[0]) in\n"
      "  let (a, b) = t in\n"
      "  (pick(a, k) + b, ys)\n"
      "}\n";
  expect("fault deep in recursion with live arrays and tuples", idx, ARGS("[5]", "1000"), "FAULT");

  const char *lit = "function main(n : int) -> ([int], [float]) { ([n, n + 1], [] float) }\n";
  expect("array literals", lit, ARGS("4"), "([4, 5], [])");
  expect("unit result", "function main() -> () { () }\n", 0, NULL, "()");
}

static void test_faults_in_soacs(void) {
  const char *filt =
      "kernel k(xs : [int], d : int) -> ([int], [int]) {\n"
      "  let ys = MAP { i => xs[i] * 2 using xs } (#xs)\n"
      "  let (a, b) = PARTITION { i => 100 / (ys[i] - d) using ys, d } { (x) => x > 10 } (#ys)\n"
      "  return a, b\n"
      "}\n"
      "function main(xs : [int], d : int) -> ([int], [int]) { run k(xs, d) }\n";
  /* 100 / (2 - 0), 100 / (8 - 0), 100 / (20 - 0): 50 12 5 (truncating). */
  expect("PARTITION computing", filt, ARGS("[1, 4, 10]", "0"), "([50, 12], [5])");
  expect("division by zero half-way through PARTITION", filt, ARGS("[1, 4, 10]", "8"), "FAULT");
  const char *sub =
      "kernel k(xs : [int]) -> [int] {\n"
      "  let ys = SCAN { i => xs[i + 1] using xs } (iadd) (#xs)\n"
      "  return ys\n"
      "}\n"
      "function main(xs : [int]) -> [int] { run k(xs) }\n";
  expect("subscript past the end in SCAN", sub, ARGS("[1, 2, 3]"), "FAULT");
  const char *i2c =
      "kernel k(xs : [int]) -> [char] {\n"
      "  let ys = MAP { i => i2c(xs[i]) using xs } (#xs)\n"
      "  return ys\n"
      "}\n"
      "function main(xs : [int]) -> [char] { run k(xs) }\n";
  expect("i2c in range", i2c, ARGS("[104, 105]"), "[`h, `i]");
  expect("i2c out of range faults", i2c, ARGS("[104, 256]"), "FAULT");
}

int main(void) {
  test_reductions();
  test_filter_partition();
  test_permute();
  test_segmented();
  test_thunks();
  test_cpu();
  test_faults_in_soacs();
  nz_intern_free_all();
  return 0;
}
