/* fus_rewrite.c (unit) — fus_lcu_fuse_kernel on kernels given as text, run
 * by the interpreter before and after: the horizontal merges, including the
 * case the scheduled pipeline never builds (a legal cluster cannot hold it):
 * B reads a SOAC placed between A and B, so the merged SOAC must move after
 * it and the order is rebuilt. Each case checks the fused kernel's SOACs and
 * that main gives the same result, and the program passes the checker. */
#include "fus_lcu.h"
#include "unit.h"

/* Parses and checks text, runs main on args, fuses kernel k, checks and runs
 * again. kinds: the fused kernel's SOAC kinds in order, as letters (M MAP,
 * R REDUCE, O ONCE, S SCAN, F FILTER). */
static void fuse_case(const char *name, const char *text, const char *arg, const char *kinds) {
  NzSource *src = nz_source_from_string("test.lcu", text);
  LcuProgram *p = lcu_parse(src);
  int ok = p && lcu_check(p) == 0;
  char before[256] = "", after[256] = "", got[64] = "";
  for (int round = 0; ok && round < 2; round++) {
    if (round == 1) {
      LcuKernel *k = NULL;
      for (int i = 0; i < p->nkernels; i++)
        if (!strcmp(p->kernels[i]->name, "k")) k = p->kernels[i];
      FusNames *names = fus_names_new(p);
      fus_lcu_fuse_kernel(p, names, k);
      fus_names_free(names);
      for (int s = 0; s < k->nsoacs && s < 63; s++) {
        LcuSoacKind x = k->soacs[s].kind;
        got[s] = x == LS_MAP ? 'M' : x == LS_REDUCE ? 'R' : x == LS_ONCE ? 'O' : x == LS_SCAN ? 'S' : x == LS_FILTER ? 'F' : '?';
        got[s + 1] = 0;
      }
      ok = lcu_check(p) == 0;
      if (!ok) break;
    }
    LcuFunc *m = lcu_main(p);
    LcuValue v, r;
    if (lcu_value_parse(arg, m->params[0].ty, &v, "arg") != 0 || lcu_run_main(p, 1, &v, &r) != 0) {
      ok = 0;
      break;
    }
    NzBuf b = {0};
    lcu_value_print(&b, r);
    snprintf(round ? after : before, sizeof before, "%s", b.s ? b.s : "");
    nz_buf_free(&b);
    lcu_value_release(r), lcu_value_release(v);
  }
  if (!ok || strcmp(before, after) || strcmp(got, kinds))
    printf("# %s: ok %d, before %s, after %s, kinds %s (want %s)\n", name, ok, before, after, got, kinds);
  CHECK(name, ok && !strcmp(before, after) && !strcmp(got, kinds));
  if (p) lcu_program_free(p);
  nz_source_free(src);
}

int main(void) {
  /* A and B are MAPs over xs, B reads s, the REDUCE between them: the
   * merged MAP goes after the REDUCE. */
  fuse_case("merged SOAC moves after what B reads",
            "kernel k(xs : [int]) -> (int, [int], [int]) {\n"
            "  let a = MAP { i => xs[i] + 1 using xs } (#xs)\n"
            "  let s = REDUCE { i => xs[i] using xs } (iadd) (#xs)\n"
            "  let b = MAP { i => xs[i] * s using xs, s } (#xs)\n"
            "  return s, a, b\n"
            "}\n"
            "function main(xs : [int]) -> (int, [int], [int]) { run k(xs) }\n",
            "[1, 2, 3]", "RM");
  /* The same with a second pair after it: the scan resumes at the moved
   * position and merges the two REDUCEs too. */
  fuse_case("scan resumes after a move",
            "kernel k(xs : [int]) -> (int, [int], [int], int) {\n"
            "  let a = MAP { i => xs[i] + 1 using xs } (#xs)\n"
            "  let s = REDUCE { i => xs[i] using xs } (iadd) (#xs)\n"
            "  let b = MAP { i => xs[i] * s using xs, s } (#xs)\n"
            "  let t = REDUCE { i => xs[i] * 2 using xs } (imax) (#xs)\n"
            "  return s, a, b, t\n"
            "}\n"
            "function main(xs : [int]) -> (int, [int], [int], int) { run k(xs) }\n",
            "[4, -1, 7]", "RM");
  /* Siblings: five MAPs and three REDUCEs interleaved become one of each;
   * the REDUCE that reads a MAP's output stays apart from that MAP. */
  fuse_case("interleaved siblings",
            "kernel k(xs : [int]) -> ([int], int, [int], int, [int], int, [int], [int]) {\n"
            "  let a1 = MAP { i => xs[i] + 1 using xs } (#xs)\n"
            "  let r1 = REDUCE { i => xs[i] using xs } (iadd) (#xs)\n"
            "  let a2 = MAP { i => xs[i] + 2 using xs } (#xs)\n"
            "  let r2 = REDUCE { i => xs[i] using xs } (imin) (#xs)\n"
            "  let a3 = MAP { i => xs[i] - r1 using xs, r1 } (#xs)\n"
            "  let r3 = REDUCE { i => xs[i] using xs } (imax) (#xs)\n"
            "  let a4 = MAP { i => xs[i] * 3 using xs } (#xs)\n"
            "  let a5 = MAP { i => xs[i] * r2 using xs, r2 } (#xs)\n"
            "  return a1, r1, a2, r2, a3, r3, a4, a5\n"
            "}\n"
            "function main(xs : [int]) -> ([int], int, [int], int, [int], int, [int], [int]) { run k(xs) }\n",
            "[3, 1, 2, 9]", "RM");
  /* Dependent MAPs into a REDUCE fuse vertically first; nothing to merge. */
  fuse_case("vertical first",
            "kernel k(xs : [int]) -> int {\n"
            "  let a = MAP { i => xs[i] + 1 using xs } (#xs)\n"
            "  let b = MAP { i => a[i] * 2 using a } (#a)\n"
            "  let s = REDUCE { i => b[i] using b } (iadd) (#b)\n"
            "  return s\n"
            "}\n"
            "function main(xs : [int]) -> int { run k(xs) }\n",
            "[1, 2, 3, 4]", "R");
  nz_intern_free_all();
  return unit_failures != 0;
}
