/* lcu_dedupe.c (unit) — lcu_dedupe_functions (compiler/lcu/lcu_dedupe.c) on a
 * program holding the copies flattening makes: f1/f2 the same code with
 * self-recursion and a kernel each, g1/h1 and g2/h2 the same mutually
 * recursive pair, f3 like f1 but for one literal (running k1 too), f4 like f1 but its kernel
 * differs. The copies are written on different lines, so the test sets every
 * location to one (as copies of one NESL function have the same ones) before
 * merging; a second round keeps the locations and must merge nothing. main's
 * result must not change, and the program must check after. Last,
 * lcu_find_kernel's index must follow the dropped and a renamed kernel. */
#include "lcu.h"
#include "unit.h"

static const char *text =
    "kernel k1(xs : [int]) -> int {\n"
    "  let s = REDUCE { i => xs[i] * 2 using xs } (iadd) (#xs)\n  return s\n}\n"
    "kernel k2(ys : [int]) -> int {\n"
    "  let t = REDUCE { j => ys[j] * 2 using ys } (iadd) (#ys)\n  return t\n}\n"
    "kernel k4(ys : [int]) -> int {\n"
    "  let t = REDUCE { j => ys[j] * 3 using ys } (iadd) (#ys)\n  return t\n}\n"
    "function f1(n : int, xs : [int]) -> int {\n"
    "  if n == 0 then run k1(xs) else f1(n - 1, xs) + 1\n}\n"
    "function f2(m : int, ys : [int]) -> int {\n"
    "  if m == 0 then run k2(ys) else f2(m - 1, ys) + 1\n}\n"
    "function f3(m : int, ys : [int]) -> int {\n"
    "  if m == 0 then run k1(ys) else f3(m - 1, ys) + 2\n}\n"
    "function f4(m : int, ys : [int]) -> int {\n"
    "  if m == 0 then run k4(ys) else f4(m - 1, ys) + 1\n}\n"
    "function g1(n : int) -> bool {\n  if n == 0 then true else h1(n - 1)\n}\n"
    "function h1(n : int) -> bool {\n  if n == 0 then false else g1(n - 1)\n}\n"
    "function g2(n : int) -> bool {\n  if n == 0 then true else h2(n - 1)\n}\n"
    "function h2(n : int) -> bool {\n  if n == 0 then false else g2(n - 1)\n}\n"
    "function main(xs : [int]) -> (int, int, int, int, bool, bool) {\n"
    "  (f1(3, xs), f2(4, xs), f3(2, xs), f4(1, xs), g1(7), h2(7))\n}\n";

static NzLoc L0;

static void reset_expr(LcuExpr *e) {
  e->loc = L0;
  for (int b = 0; b < e->nbinds; b++) e->binds[b].loc = L0;
  for (int i = 0; i < e->nargs; i++) reset_expr(e->args[i]);
}

static void reset_binders(int n, LcuBinder *b) {
  for (int i = 0; i < n; i++) b[i].loc = L0;
}

static void reset(LcuProgram *p) {
  for (int f = 0; f < p->nfuncs; f++) {
    p->funcs[f]->loc = L0;
    reset_binders(p->funcs[f]->nparams, p->funcs[f]->params);
    reset_expr(p->funcs[f]->body);
  }
  for (int k = 0; k < p->nkernels; k++) {
    LcuKernel *K = p->kernels[k];
    K->loc = L0;
    reset_binders(K->nparams, K->params);
    reset_binders(K->nrets, K->rets);
    for (int s = 0; s < K->nsoacs; s++) {
      LcuSoac *q = &K->soacs[s];
      q->loc = L0, q->size.loc = L0, q->outlen.loc = L0;
      reset_binders(q->nbinds, q->binds);
      for (int t = 0; t < q->nthunks; t++) {
        q->thunks[t]->loc = L0;
        reset_binders(q->thunks[t]->nparams, q->thunks[t]->params);
        reset_binders(q->thunks[t]->nusing, q->thunks[t]->usings);
        reset_expr(q->thunks[t]->body);
      }
    }
  }
}

static int has(const LcuProgram *p, const char *name) {
  for (int f = 0; f < p->nfuncs; f++)
    if (!strcmp(p->funcs[f]->name, name)) return 1;
  for (int k = 0; k < p->nkernels; k++)
    if (!strcmp(p->kernels[k]->name, name)) return 1;
  return 0;
}

static int run(LcuProgram *p, char *out, size_t cap) {
  LcuFunc *m = lcu_main(p);
  LcuValue v, r;
  if (lcu_value_parse("[1, 2, 3, 4]", m->params[0].ty, &v, "arg") != 0 || lcu_run_main(p, 1, &v, &r) != 0) return -1;
  NzBuf b = {0};
  lcu_value_print(&b, r);
  snprintf(out, cap, "%s", b.s ? b.s : "");
  nz_buf_free(&b);
  lcu_value_release(r), lcu_value_release(v);
  return 0;
}

int main(void) {
  NzSource *src = nz_source_from_string("test.lcu", text);
  LcuProgram *p = lcu_parse(src);
  int ok = p && lcu_check(p) == 0;
  char before[256] = "", after[256] = "";
  ok = ok && run(p, before, sizeof before) == 0;
  /* With the text's own locations every copy is distinct. */
  int kept = ok ? lcu_dedupe_functions(p) : -1;
  CHECK("copies on other lines (other fault locations) are not merged", kept == 0 && p->nfuncs == 9);
  reset(p);
  int dropped = ok ? lcu_dedupe_functions(p) : -1;
  CHECK("f2, g2, h2 merged into f1, g1, h1", dropped == 3 && !has(p, "f2") && !has(p, "g2") && !has(p, "h2") &&
                                                  has(p, "f1") && has(p, "g1") && has(p, "h1"));
  CHECK("a literal or a kernel apart: f3, f4 kept", has(p, "f3") && has(p, "f4"));
  CHECK("the kernel only the dropped copy ran is gone", !has(p, "k2") && has(p, "k1") && has(p, "k4"));
  ok = ok && lcu_check(p) == 0;
  CHECK("the merged program checks", ok);
  ok = ok && run(p, after, sizeof after) == 0;
  if (strcmp(before, after)) printf("# before %s, after %s\n", before, after);
  CHECK("main's result is unchanged", ok && !strcmp(before, after) && before[0]);
  /* lcu_find_kernel's index (lcu_build.c) after kernels were dropped and one
   * is renamed: it must not answer from a stale entry. */
  int found = ok && lcu_find_kernel(p, "k4") && lcu_find_kernel(p, "k1") && !lcu_find_kernel(p, "k2");
  LcuKernel *k4 = ok ? lcu_find_kernel(p, "k4") : NULL;
  if (k4) k4->name = nz_intern_cstr("k4_renamed");
  found = found && k4 && !lcu_find_kernel(p, "k4") && lcu_find_kernel(p, "k4_renamed") == k4 &&
          lcu_find_kernel(p, "k1") && !lcu_find_kernel(p, "nope");
  CHECK("lcu_find_kernel after kernels are dropped and renamed", found);
  if (p) lcu_program_free(p);
  nz_source_free(src);
  return unit_failures != 0;
}
