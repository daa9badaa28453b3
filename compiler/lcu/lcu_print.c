/* lcu_print.c — the canonical text form of λcu. Every program prints in
 * exactly one layout, which lcu_parse.c reads back to a program that prints
 * identically (the round-trip property tests rely on). */
#include <math.h>

#include "lcu.h"

/* Precedence of an expression as printed: 0 let/if, 1 ||, 2 &&, 3 comparisons,
 * 4 + -, 5 * / %, 6 prefix operators, 7 postfix and atoms. */
static int prec(const LcuExpr *e) {
  switch (e->kind) {
  case LE_LET:
  case LE_IF:
    return 0;
  case LE_PRIM: {
    const LcuPrimInfo *pi = lcu_prim_info(e->prim);
    if (!(pi->flags & LPF_INFIX)) return 7;
    if (pi->arity == 1) return 6;
    switch (e->prim) {
    case LP_ORELSE: return 1;
    case LP_ANDALSO: return 2;
    case LP_ADD: case LP_SUB: return 4;
    case LP_MUL: case LP_DIV: case LP_MOD: return 5;
    default: return 3;
    }
  }
  case LE_INT:
    return e->lit.i < 0 ? 6 : 7; /* -3 prints like a prefix minus */
  case LE_FLOAT:
    return signbit(e->lit.f) && !isnan(e->lit.f) ? 6 : 7;
  default:
    return 7;
  }
}

/* Shortest decimal that reads back as the same double; always has a '.' or
 * an exponent so it lexes as a float. */
static void print_float_lit(NzBuf *b, double f) {
  if (isnan(f)) {
    nz_buf_puts(b, "nan");
    return;
  }
  if (isinf(f)) {
    nz_buf_puts(b, f > 0 ? "inf" : "-inf");
    return;
  }
  /* Fixed notation with the fewest decimals that read back exactly where that
   * is short (100.0, 0.001), else the shortest exponent form (1e+20). */
  char buf[400];
  double a = fabs(f);
  if (a == 0 || (a >= 1e-4 && a < 1e15)) {
    for (int d = 1; d <= 20; d++) {
      snprintf(buf, sizeof buf, "%.*f", d, f);
      if (strtod(buf, NULL) == f) {
        nz_buf_puts(b, buf);
        return;
      }
    }
  }
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, sizeof buf, "%.*g", p, f);
    if (strtod(buf, NULL) == f) break;
  }
  nz_buf_puts(b, buf);
  if (!strpbrk(buf, ".e")) nz_buf_puts(b, ".0");
}

static void print_char_lit(NzBuf *b, unsigned char c) {
  switch (c) {
  case '\n': nz_buf_puts(b, "'\\n'"); return;
  case '\t': nz_buf_puts(b, "'\\t'"); return;
  case '\r': nz_buf_puts(b, "'\\r'"); return;
  case 0: nz_buf_puts(b, "'\\0'"); return;
  case '\\': nz_buf_puts(b, "'\\\\'"); return;
  case '\'': nz_buf_puts(b, "'\\''"); return;
  default:
    if (c >= 32 && c < 127)
      nz_buf_printf(b, "'%c'", c);
    else
      nz_buf_printf(b, "'\\x%02x'", c);
  }
}

static void print_binders(NzBuf *b, int n, const LcuBinder *bs) {
  if (n == 1) {
    nz_buf_puts(b, bs[0].name);
    return;
  }
  nz_buf_putc(b, '(');
  for (int i = 0; i < n; i++) {
    if (i) nz_buf_puts(b, ", ");
    nz_buf_puts(b, bs[i].name);
  }
  nz_buf_putc(b, ')');
}

static void print_inline(NzBuf *b, const LcuExpr *e, int ctx);

static void print_args(NzBuf *b, int n, LcuExpr *const *args) {
  nz_buf_putc(b, '(');
  for (int i = 0; i < n; i++) {
    if (i) nz_buf_puts(b, ", ");
    print_inline(b, args[i], 0);
  }
  nz_buf_putc(b, ')');
}

/* One-line form; parenthesised when its precedence is below ctx. */
static void print_inline(NzBuf *b, const LcuExpr *e, int ctx) {
  int p = prec(e);
  if (p < ctx) nz_buf_putc(b, '(');
  switch (e->kind) {
  case LE_INT:
    nz_buf_printf(b, "%d", (int)e->lit.i);
    break;
  case LE_FLOAT:
    print_float_lit(b, e->lit.f);
    break;
  case LE_BOOL:
    nz_buf_puts(b, e->lit.b ? "true" : "false");
    break;
  case LE_CHAR:
    print_char_lit(b, e->lit.c);
    break;
  case LE_ARRAY:
    if (e->nargs == 0) {
      nz_buf_puts(b, "[] ");
      const LcuType *et = e->opty;
      if (!et && e->ty && e->ty->kind == LT_ARRAY) et = lcu_type_base(e->ty->elem);
      if (!et) nz_die("lcu_print: empty array literal without an element type");
      lcu_type_print(b, et);
    } else {
      nz_buf_putc(b, '[');
      for (int i = 0; i < e->nargs; i++) {
        if (i) nz_buf_puts(b, ", ");
        print_inline(b, e->args[i], 0);
      }
      nz_buf_putc(b, ']');
    }
    break;
  case LE_VAR:
    nz_buf_puts(b, e->name);
    break;
  case LE_PRIM: {
    const LcuPrimInfo *pi = lcu_prim_info(e->prim);
    if (!(pi->flags & LPF_INFIX)) {
      nz_buf_puts(b, pi->name);
      print_args(b, e->nargs, e->args);
    } else if (pi->arity == 1) {
      nz_buf_puts(b, pi->sym);
      /* "- -3" must not print as "--3" (not a token, but unclear) */
      const LcuExpr *a = e->args[0];
      if (e->prim == LP_NEG && prec(a) == 6) nz_buf_putc(b, ' ');
      print_inline(b, a, 6);
    } else {
      print_inline(b, e->args[0], p);
      nz_buf_printf(b, " %s ", pi->sym);
      print_inline(b, e->args[1], p + 1);
    }
    break;
  }
  case LE_IF:
    nz_buf_puts(b, "if ");
    print_inline(b, e->args[0], 0);
    nz_buf_puts(b, " then ");
    print_inline(b, e->args[1], 0);
    nz_buf_puts(b, " else ");
    print_inline(b, e->args[2], 0);
    break;
  case LE_LET:
    nz_buf_puts(b, "let ");
    print_binders(b, e->nbinds, e->binds);
    nz_buf_puts(b, " = ");
    print_inline(b, e->args[0], 0);
    nz_buf_puts(b, " in ");
    print_inline(b, e->args[1], 0);
    break;
  case LE_TUPLE:
    print_args(b, e->nargs, e->args);
    break;
  case LE_INDEX:
    print_inline(b, e->args[0], 7);
    nz_buf_putc(b, '[');
    print_inline(b, e->args[1], 0);
    nz_buf_putc(b, ']');
    break;
  case LE_CALL:
    nz_buf_puts(b, e->name);
    print_args(b, e->nargs, e->args);
    break;
  case LE_RUN:
    nz_buf_printf(b, "run %s", e->name);
    print_args(b, e->nargs, e->args);
    break;
  }
  if (p < ctx) nz_buf_putc(b, ')');
}

void lcu_print_expr(NzBuf *b, const LcuExpr *e) { print_inline(b, e, 0); }

static void indent(NzBuf *b, int n) {
  for (int i = 0; i < n; i++) nz_buf_putc(b, ' ');
}

/* CPU code in statement position: one `let ... in` per line, if/else as a
 * block; everything else on one line. */
static void print_block(NzBuf *b, const LcuExpr *e, int ind) {
  indent(b, ind);
  if (e->kind == LE_LET) {
    nz_buf_puts(b, "let ");
    print_binders(b, e->nbinds, e->binds);
    nz_buf_puts(b, " = ");
    print_inline(b, e->args[0], 0);
    nz_buf_puts(b, " in\n");
    print_block(b, e->args[1], ind);
  } else if (e->kind == LE_IF) {
    nz_buf_puts(b, "if ");
    print_inline(b, e->args[0], 0);
    nz_buf_puts(b, " then\n");
    print_block(b, e->args[1], ind + 2);
    nz_buf_putc(b, '\n');
    indent(b, ind);
    nz_buf_puts(b, "else\n");
    print_block(b, e->args[2], ind + 2);
  } else {
    print_inline(b, e, 0);
  }
}

void lcu_print_thunk(NzBuf *b, const LcuThunk *t) {
  nz_buf_puts(b, "{ ");
  if (t->nparams == 0)
    nz_buf_puts(b, "()");
  else
    print_binders(b, t->nparams, t->params);
  nz_buf_puts(b, " => ");
  print_inline(b, t->body, 0);
  if (t->nusing) {
    nz_buf_puts(b, " using ");
    for (int i = 0; i < t->nusing; i++) {
      if (i) nz_buf_puts(b, ", ");
      nz_buf_puts(b, t->usings[i].name);
    }
  }
  nz_buf_puts(b, " }");
}

static void print_size(NzBuf *b, const LcuSize *z) {
  switch (z->kind) {
  case LZ_LIT: nz_buf_printf(b, "(%d)", (int)z->lit); break;
  case LZ_VAR: nz_buf_printf(b, "(%s)", z->name); break;
  case LZ_LEN: nz_buf_printf(b, "(#%s)", z->name); break;
  case LZ_NONE: nz_die("lcu_print: SOAC without a size");
  }
}

void lcu_print_soac(NzBuf *b, const LcuSoac *s) {
  nz_buf_puts(b, "let ");
  print_binders(b, s->nbinds, s->binds);
  nz_buf_printf(b, " = %s", lcu_soac_name(s->kind));
  for (int i = 0; i < s->nthunks; i++) {
    nz_buf_putc(b, ' ');
    lcu_print_thunk(b, s->thunks[i]);
  }
  if (s->nrops) {
    nz_buf_puts(b, " (");
    for (int i = 0; i < s->nrops; i++) {
      if (i) nz_buf_puts(b, ", ");
      nz_buf_puts(b, lcu_rop_name(s->rops[i]));
    }
    nz_buf_putc(b, ')');
  }
  if (s->kind != LS_ONCE) {
    nz_buf_putc(b, ' ');
    print_size(b, &s->size);
  }
  if (s->kind == LS_PERMUTE && s->outlen.kind != LZ_NONE) {
    nz_buf_puts(b, " into ");
    print_size(b, &s->outlen);
  }
}

static void print_params(NzBuf *b, int n, const LcuBinder *ps) {
  nz_buf_putc(b, '(');
  for (int i = 0; i < n; i++) {
    if (i) nz_buf_puts(b, ", ");
    nz_buf_printf(b, "%s : ", ps[i].name);
    lcu_type_print(b, ps[i].ty);
  }
  nz_buf_putc(b, ')');
}

void lcu_print_kernel(NzBuf *b, const LcuKernel *k) {
  nz_buf_printf(b, "kernel %s", k->name);
  print_params(b, k->nparams, k->params);
  nz_buf_puts(b, " -> ");
  lcu_type_print(b, k->ret);
  nz_buf_puts(b, " {\n");
  for (int i = 0; i < k->nsoacs; i++) {
    nz_buf_puts(b, "  ");
    lcu_print_soac(b, &k->soacs[i]);
    nz_buf_putc(b, '\n');
  }
  nz_buf_puts(b, "  return ");
  for (int i = 0; i < k->nrets; i++) {
    if (i) nz_buf_puts(b, ", ");
    nz_buf_puts(b, k->rets[i].name);
  }
  nz_buf_puts(b, "\n}\n");
}

void lcu_print_func(NzBuf *b, const LcuFunc *f) {
  nz_buf_printf(b, "function %s", f->name);
  print_params(b, f->nparams, f->params);
  nz_buf_puts(b, " -> ");
  lcu_type_print(b, f->ret);
  nz_buf_puts(b, " {\n");
  print_block(b, f->body, 2);
  nz_buf_puts(b, "\n}\n");
}

void lcu_print_program(NzBuf *b, const LcuProgram *p) {
  int first = 1;
  for (int i = 0; i < p->nkernels; i++) {
    if (!first) nz_buf_putc(b, '\n');
    first = 0;
    lcu_print_kernel(b, p->kernels[i]);
  }
  for (int i = 0; i < p->nfuncs; i++) {
    if (!first) nz_buf_putc(b, '\n');
    first = 0;
    lcu_print_func(b, p->funcs[i]);
  }
}
