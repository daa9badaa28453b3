/* lcu_parse.c (unit) — the λcu parser and printer: round trips of every
 * construct, and syntax errors rejected with a position. */
#include "lcu.h"
#include "unit.h"

static const char *roundtrip_src =
    "// every construct of the text form\n"
    "kernel k1(xs : [int], ys : [float], n : int, sd : segdes, c : char) -> ([int], float, int) {\n"
    "  let a = MAP { i => xs[i] * 2 + -3 using xs } (#xs)\n"
    "  let (b, f) = FILTER { i => (xs[i], ys[i]) using xs, ys } { (x, y) => x > 0 && y < 1.5 } (n)\n"
    "  let (t1, t2, r1, r2) = PARTITION { i => (a[i], i) using a } { (x, j) => x % 2 == 0 } (#a)\n"
    "  let (s, m) = REDUCE { i => (ys[i], xs[i]) using ys, xs } (fadd, imax) (#ys)\n"
    "  let q = SCAN { i => xs[i] using xs } (id) (#xs)\n"
    "  let p = PERMUTE { i => xs[i] using xs } { i => #xs - 1 - i using xs } (#xs) into (10)\n"
    "  let g = SEGREDUCE { i => xs[i] using xs } (iadd) (sd)\n"
    "  let h = SEGSCAN { i => if xs[i] > 0 then 1 else 0 using xs } (iadd) (sd)\n"
    "  let o = ONCE { () => let (u, v) = (seg_start(sd, 0), -2147483648) in max(u, v) - -1 using sd }\n"
    "  let w = MAP { j => c == 'a' || !(j < 3) && - -j != j - 1 - 2 using c } (7)\n"
    "  return a, s, o\n"
    "}\n"
    "\n"
    "function helper(x : int, y : float) -> (int, float) {\n"
    "  (x / 2, sqrt(y) * 1e+20 - 0.5 + -inf * nan)\n"
    "}\n"
    "\n"
    "function main(xs : [int], n : int) -> int {\n"
    "  let () = print(n) in\n"
    "  let (a, b, c) = run k1(xs, [1.5, -0.25], n, make_segdes([1, 0, 2]), '\\n') in\n"
    "  let e = [] bool in\n"
    "  if n > 0 then\n"
    "    let r = helper(n - 1, b) in\n"
    "    main(xs, n - 1)\n"
    "  else\n"
    "    c + (if a[0] > 1 then 2 else 3)\n"
    "}\n";

/* Non-canonical spellings the parser accepts. */
static void variants(void) {
  NzSource *s = nz_source_from_string(
      "v.lcu", "kernel k(x : [int]) -> (int, int) { let a, b = REDUCE { (i) => (x[i], (x[i])) using x }"
               " (iadd, imax) (#x) return a, b }\nfunction main() -> (int) { (((1))) }");
  LcuProgram *p = lcu_parse(s);
  CHECK("variants: let a, b / (i) => / (int) parse", p != NULL);
  if (p) {
    NzBuf b = {0};
    lcu_print_program(&b, p);
    CHECK("variants: canonical print",
          strstr(b.s, "let (a, b) = REDUCE { i => (x[i], x[i]) using x } (iadd, imax) (#x)") &&
              strstr(b.s, "function main() -> int {\n  1\n}"));
    nz_buf_free(&b);
  }
  lcu_program_free(p);
  nz_source_free(s);
}

static char *print_prog(const LcuProgram *p) {
  NzBuf b = {0};
  lcu_print_program(&b, p);
  return b.s;
}

static void roundtrip(void) {
  NzSource *src = nz_source_from_string("rt.lcu", roundtrip_src);
  LcuProgram *p = lcu_parse(src);
  CHECK("parse: all constructs", p != NULL);
  if (!p) return;
  CHECK("parse: 1 kernel, 2 functions", p->nkernels == 1 && p->nfuncs == 2);
  CHECK("parse: 10 SOACs", p->kernels[0]->nsoacs == 10);
  CHECK("parse: PERMUTE into", p->kernels[0]->soacs[5].outlen.kind == LZ_LIT &&
                                   p->kernels[0]->soacs[5].outlen.lit == 10);
  char *once = print_prog(p);
  NzSource *src2 = nz_source_from_string("rt2.lcu", once);
  LcuProgram *p2 = lcu_parse(src2);
  CHECK("round trip: printed form parses", p2 != NULL);
  if (p2) {
    char *twice = print_prog(p2);
    CHECK("round trip: print(parse(print(p))) == print(p)", strcmp(once, twice) == 0);
    if (strcmp(once, twice)) printf("# first:\n%s# second:\n%s", once, twice);
    free(twice);
    lcu_program_free(p2);
  }
  /* The canonical layout of the test source is the source itself, minus the comment. */
  const char *body = strchr(roundtrip_src, '\n') + 1;
  CHECK("canonical layout", strcmp(once, body) == 0);
  if (strcmp(once, body)) printf("# printed:\n%s", once);
  free(once);
  lcu_program_free(p);
  nz_source_free(src);
  nz_source_free(src2);
}

/* Each bad source must fail; stderr shows the messages for a reader. */
static void errors(void) {
  static const struct {
    const char *name, *src;
  } bad[] = {
      {"missing return", "kernel k(x : int) -> int { }"},
      {"bad SOAC", "kernel k(x : [int]) -> [int] { let a = MOP { i => x[i] } (#x) return a }"},
      {"bad rop", "kernel k(x : [int]) -> int { let a = REDUCE { i => x[i] using x } (plus) (#x) return a }"},
      {"missing size", "kernel k(x : [int]) -> [int] { let a = MAP { i => x[i] using x } return a }"},
      {"unterminated thunk", "kernel k(x : [int]) -> [int] { let a = MAP { i => x[i] using x (#x) return a }"},
      {"bad type", "function main(x : [[int]]) -> int { 1 }"},
      {"int too large", "function main() -> int { 2147483648 }"},
      {"stray char", "function main() -> int { 1 @ 2 }"},
      {"let without in", "function main() -> int { let x = 1 x }"},
      {"keyword as name", "function main(let : int) -> int { 1 }"},
      {"prim as function name", "function max(a : int) -> int { a }"},
      {"garbage at top", "main() -> int { 1 }"},
      {"unterminated char", "function main() -> char { 'a }"},
      {"eof in expr", "function main() -> int { 1 +"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    NzSource *s = nz_source_from_string("bad.lcu", bad[i].src);
    int before = nz_error_count;
    LcuProgram *p = lcu_parse(s);
    char name[128];
    snprintf(name, sizeof name, "syntax error: %s", bad[i].name);
    CHECK(name, p == NULL && nz_error_count == before + 1);
    lcu_program_free(p);
    nz_source_free(s);
  }
}

int main(void) {
  roundtrip();
  variants();
  errors();
  nz_intern_free_all();
  return 0;
}
