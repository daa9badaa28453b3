/* nesl_print.c — printing as NESL does: types (NESL.md §3.9), top-level values guided by
 * their type (§4.8: T/F, `c, "strings", flat right-nested tuples, name(fields) for
 * datatypes, floats to 15 significant digits), and the `@` conversion (§4.9). */
#include "nesl.h"
#include <math.h>

/* ---------- types ---------- */
/* Type variables are named as NESL 3.1 names them (CMU NESL's clean-type in
 * type-check.lisp, checked against its output: tests/nesl/hof_types.nesl). It walks
 * the type's internal form, where a function type is (function IDENTITY RESULT
 * ARGUMENT), and collects the variables of each node as the union of its components'
 * lists; Lisp's union keeps the second list's order, so a variable takes its place
 * from its LAST occurrence in that walk. The identity of a function whose identity is
 * unknown (a function parameter) is a variable of its own: it gets a letter and a
 * place in the context although the printed type never shows it (NESL.md 3.4), so
 * twice(g, x) = g(g(x)) is (b -> b, b) -> b :: (a in any; b in any). Up to five
 * variables are a ... e; with more, all of them are a0, a1, ... (typevarnames). */
typedef struct {
  NlType *v[64];
  int n;
  size_t start; /* length of the buffer before the type */
} Names;

static bool same_var(NlType *u, NlType *t) {
  return u == t || (t->k == TY_GEN && u->k == TY_GEN && u->id == t->id);
}

static int var_index(Names *nm, NlType *t) {
  for (int i = 0; i < nm->n; i++)
    if (same_var(nm->v[i], t)) return i;
  if (nm->n < 64) nm->v[nm->n++] = t;
  return nm->n - 1;
}

/* One occurrence of a variable in the walk: it moves to the end of the list. */
static void occurrence(Names *nm, NlType *t) {
  int i = 0;
  while (i < nm->n && !same_var(nm->v[i], t)) i++;
  if (i == nm->n) {
    if (nm->n == 64) return;
    nm->n++;
  }
  for (; i + 1 < nm->n; i++) nm->v[i] = nm->v[i + 1];
  nm->v[nm->n - 1] = t;
}

/* budget bounds the walk: types are shared DAGs whose trees can be exponential. */
static void collect(Names *nm, NlType *t, long *budget) {
  if (!t || --*budget < 0) return;
  t = nesl_type_resolve(t);
  switch (t->k) {
  case TY_VAR:
  case TY_GEN: occurrence(nm, t); return;
  case TY_SEQ: collect(nm, t->a, budget); return;
  case TY_PAIR:
    collect(nm, t->a, budget);
    collect(nm, t->b, budget);
    return;
  case TY_FUN: /* NULL: a datatype field's "any function" */
    collect(nm, t->fnid, budget);
    collect(nm, t->b, budget);
    collect(nm, t->a, budget);
    return;
  case TY_DATA:
    for (int i = 0; i < t->nargs; i++) collect(nm, t->args[i], budget);
    return;
  default: return;
  }
}

static void var_name(NzBuf *b, int i, int n) {
  if (n <= 5) nz_buf_putc(b, (char)('a' + i));
  else nz_buf_printf(b, "a%d", i);
}

enum { CTX_TOP, CTX_PAIR_RIGHT, CTX_PAREN, CTX_FUN_ARG };

static void tstr(NzBuf *b, NlType *t, int ctx, Names *nm) {
  t = nesl_type_resolve(t);
  if (b->len - nm->start > 4000) { /* types are shared DAGs: their text can be exponential */
    if (b->len - nm->start < 4004) nz_buf_puts(b, "...");
    return;
  }
  switch (t->k) {
  case TY_INT: nz_buf_puts(b, "int"); return;
  case TY_FLOAT: nz_buf_puts(b, "float"); return;
  case TY_BOOL: nz_buf_puts(b, "bool"); return;
  case TY_CHAR: nz_buf_puts(b, "char"); return;
  case TY_VAR:
  case TY_GEN: var_name(b, var_index(nm, t), nm->n); return;
  case TY_SEQ:
    nz_buf_putc(b, '[');
    tstr(b, t->a, CTX_PAREN, nm);
    nz_buf_putc(b, ']');
    return;
  case TY_PAIR: {
    bool paren = ctx != CTX_TOP && ctx != CTX_PAIR_RIGHT;
    if (paren) nz_buf_putc(b, '(');
    tstr(b, t->a, CTX_PAREN, nm);
    nz_buf_puts(b, ", ");
    tstr(b, t->b, CTX_PAIR_RIGHT, nm);
    if (paren) nz_buf_putc(b, ')');
    return;
  }
  case TY_FUN: {
    bool paren = ctx == CTX_FUN_ARG;
    if (paren) nz_buf_putc(b, '(');
    tstr(b, t->a, CTX_FUN_ARG, nm);
    nz_buf_puts(b, " -> ");
    tstr(b, t->b, CTX_PAREN, nm);
    if (paren) nz_buf_putc(b, ')');
    return;
  }
  case TY_FNID: return; /* identities are not printed (NESL.md 3.4) */
  case TY_DATA:
    nz_buf_puts(b, t->dt->name);
    if (t->nargs) {
      nz_buf_putc(b, '(');
      for (int i = 0; i < t->nargs; i++) {
        if (i) nz_buf_puts(b, ", ");
        tstr(b, t->args[i], CTX_PAREN, nm);
      }
      nz_buf_putc(b, ')');
    }
    return;
  }
}

void nesl_type_str(NzBuf *b, NlType *t) {
  Names nm = {0};
  nm.start = b->len;
  long budget = 1L << 16;
  collect(&nm, t, &budget);
  tstr(b, t, CTX_TOP, &nm);
  if (nm.n) {
    static const char *cls[] = {"any", "scalar", "ordinal", "number", "logical"};
    nz_buf_puts(b, " :: (");
    for (int i = 0; i < nm.n; i++) {
      if (i) nz_buf_puts(b, "; ");
      var_name(b, i, nm.n);
      nz_buf_printf(b, " in %s", cls[nm.v[i]->cls]);
    }
    nz_buf_putc(b, ')');
  }
}

/* ---------- floats ---------- */
void nesl_float_top(NzBuf *b, double x) { nz_float_print(b, x, 15); }

/* float_string / exp_string (NESL.md §4.9): compiler/common/floatfmt.c, shared with the
 * λcu interpreter and the runtime. */
void nesl_float_string(NzBuf *b, double x, int digits, bool force_sci) { nz_float_string(b, x, digits, force_sci); }

/* ---------- values ---------- */
static void vstr_any(NzBuf *b, NlVal v);

static void print_char_seq(NzBuf *b, const NlSeq *s) {
  nz_buf_putc(b, '"');
  for (int i = 0; i < s->n; i++) {
    char c = (char)s->b[i];
    if (c == '"' || c == '\\') nz_buf_putc(b, '\\');
    nz_buf_putc(b, c);
  }
  nz_buf_putc(b, '"');
}

int nesl_print_length = 100;

static void pv(NzBuf *b, NlVal v, NlType *t);

static void pv_fields(NzBuf *b, NlVal v, NlType *t) {
  /* a tuple without its outer parentheses */
  t = nesl_type_resolve(t);
  while (t && t->k == TY_PAIR && v.k == V_PAIR) {
    pv(b, v.p->a, t->a);
    nz_buf_puts(b, ", ");
    v = v.p->b;
    t = nesl_type_resolve(t->b);
  }
  pv(b, v, t);
}

static void pv_data(NzBuf *b, NlVal v, NlType *t);

static void pv(NzBuf *b, NlVal v, NlType *t) {
  t = nesl_type_resolve(t);
  if (!t || t->k == TY_VAR || t->k == TY_GEN) {
    vstr_any(b, v);
    return;
  }
  if (t->k == TY_DATA) {
    pv_data(b, v, t);
    return;
  }
  switch (v.k) {
  case V_INT:
    if (t->k == TY_FLOAT) /* the int zero of a reduction over an untyped empty sequence */
      nesl_float_top(b, (double)v.i);
    else
      nz_buf_printf(b, "%d", v.i);
    return;
  case V_BOOL: nz_buf_puts(b, v.i ? "T" : "F"); return;
  case V_CHAR: nz_buf_printf(b, "`%c", (char)v.i); return;
  case V_FLOAT: nesl_float_top(b, v.f); return;
  case V_FN: nz_buf_puts(b, "fn"); return;
  case V_SEQ: {
    NlSeq *s = v.s;
    NlType *et = t->k == TY_SEQ ? t->a : NULL;
    if (s->ek == EK_CHAR) {
      print_char_seq(b, s);
      return;
    }
    nz_buf_putc(b, '[');
    for (int i = 0; i < s->n; i++) {
      if (i == nesl_print_length) {
        nz_buf_puts(b, ",...");
        break;
      }
      if (i) nz_buf_puts(b, ", ");
      pv(b, nesl_seq_get(s, i), et);
    }
    nz_buf_putc(b, ']');
    return;
  }
  case V_PAIR:
    nz_buf_putc(b, '(');
    pv_fields(b, v, t);
    nz_buf_putc(b, ')');
    return;
  }
}

void nesl_value_print(NzBuf *b, NlVal v, NlType *t) {
  NlType *r = nesl_type_resolve(t);
  if (r && r->k == TY_DATA)
    pv_data(b, v, r);
  else
    pv(b, v, t);
}

/* Field types of a datatype instance: substitute its arguments into the generic fields. */
static NlType *subst(NlType *g, NlType **args, NzArena *a) {
  g = nesl_type_resolve(g);
  switch (g->k) {
  case TY_GEN: return args[g->id];
  case TY_SEQ: {
    NlType *t = NZ_NEW(a, NlType);
    *t = *g;
    t->a = subst(g->a, args, a);
    return t;
  }
  case TY_PAIR:
  case TY_FUN: {
    NlType *t = NZ_NEW(a, NlType);
    *t = *g;
    t->a = subst(g->a, args, a);
    t->b = subst(g->b, args, a);
    return t;
  }
  case TY_DATA: {
    NlType *t = NZ_NEW(a, NlType);
    *t = *g;
    t->args = NZ_NEWN(a, NlType *, g->nargs ? g->nargs : 1);
    for (int i = 0; i < g->nargs; i++) t->args[i] = subst(g->args[i], args, a);
    return t;
  }
  default: return g;
  }
}

static void pv_data(NzBuf *b, NlVal v, NlType *t) {
  NzArena *a = nz_arena_new();
  NlType *ft = subst(t->dt->fields, t->args, a);
  nz_buf_printf(b, "%s(", t->dt->name);
  pv_fields(b, v, ft);
  nz_buf_putc(b, ')');
  nz_arena_free(a);
}

/* ---------- @ ---------- */
static void vstr_any(NzBuf *b, NlVal v) {
  switch (v.k) {
  case V_INT: nz_buf_printf(b, "%d", v.i); return;
  case V_BOOL: nz_buf_puts(b, v.i ? "t" : "f"); return;
  case V_CHAR: nz_buf_printf(b, "`%c", (char)v.i); return;
  case V_FLOAT: nesl_float_string(b, v.f, 8, false); return;
  case V_FN: nz_buf_puts(b, "function"); return;
  case V_SEQ:
    nz_buf_putc(b, '[');
    for (int i = 0; i < v.s->n; i++) {
      if (i) nz_buf_puts(b, ", ");
      vstr_any(b, nesl_seq_get(v.s, i));
    }
    nz_buf_putc(b, ']');
    return;
  case V_PAIR:
    nz_buf_putc(b, '(');
    vstr_any(b, v.p->a);
    nz_buf_puts(b, ", ");
    if (v.p->b.k == V_PAIR) {
      vstr_any(b, v.p->b.p->a);
      nz_buf_puts(b, ", ");
      vstr_any(b, v.p->b.p->b);
    } else {
      vstr_any(b, v.p->b);
    }
    nz_buf_putc(b, ')');
    return;
  }
}

void nesl_value_string(NzBuf *b, NlVal v) { vstr_any(b, v); }

/* ---------- the AST, printed back as NESL (nessie emit --stage=ast) ---------- */
static void tyx_str(NzBuf *b, const NlTyX *x) {
  switch (x->k) {
  case TX_NAME:
    nz_buf_puts(b, x->name);
    if (x->nargs) {
      nz_buf_putc(b, '(');
      for (int i = 0; i < x->nargs; i++) {
        if (i) nz_buf_puts(b, ", ");
        tyx_str(b, x->args[i]);
      }
      nz_buf_putc(b, ')');
    }
    return;
  case TX_SEQ:
    nz_buf_putc(b, '[');
    tyx_str(b, x->a);
    nz_buf_putc(b, ']');
    return;
  case TX_PAIR:
  case TX_FUN:
    nz_buf_putc(b, '(');
    tyx_str(b, x->a);
    nz_buf_puts(b, x->k == TX_PAIR ? ", " : " -> ");
    tyx_str(b, x->b);
    nz_buf_putc(b, ')');
    return;
  }
}

static void expr_str(NzBuf *b, const NlExpr *e);

static void gens_str(NzBuf *b, const NlExpr *e) {
  for (int i = 0; i < e->n; i++) {
    if (i) nz_buf_puts(b, "; ");
    nesl_pat_str(b, e->pats[i]);
    nz_buf_puts(b, " in ");
    expr_str(b, e->xs[i]);
  }
}

static void expr_str(NzBuf *b, const NlExpr *e) {
  switch (e->k) {
  case E_INT: nz_buf_printf(b, e->ival < 0 ? "(%d)" : "%d", e->ival); return;
  case E_FLOAT: {
    char t[40];
    snprintf(t, sizeof t, "%.17g", e->fval);
    if (!strpbrk(t, ".eEin")) strcat(t, ".0");
    nz_buf_printf(b, e->fval < 0 ? "(%s)" : "%s", t);
    return;
  }
  case E_BOOL: nz_buf_puts(b, e->ival ? "t" : "f"); return;
  case E_CHAR: nz_buf_printf(b, "`%c", (char)e->ival); return;
  case E_STRING:
    nz_buf_putc(b, '"');
    for (int i = 0; i < e->slen; i++) {
      if (e->name[i] == '"' || e->name[i] == '\\') nz_buf_putc(b, '\\');
      nz_buf_putc(b, e->name[i]);
    }
    nz_buf_putc(b, '"');
    return;
  case E_VAR: nz_buf_puts(b, e->name); return;
  case E_PAIR:
    nz_buf_putc(b, '(');
    expr_str(b, e->a);
    nz_buf_puts(b, ", ");
    expr_str(b, e->b);
    nz_buf_putc(b, ')');
    return;
  case E_CALL:
    if (e->a->k == E_VAR && e->a->op) {
      const char *op = e->a->name;
      if (!strcmp(op, "elt")) {
        nz_buf_putc(b, '(');
        expr_str(b, e->b->a);
        nz_buf_putc(b, '[');
        expr_str(b, e->b->b);
        nz_buf_puts(b, "])");
      } else if (!strcmp(op, "negate") || !strcmp(op, "#") || !strcmp(op, "@")) {
        nz_buf_printf(b, "(%s", !strcmp(op, "negate") ? "-" : op);
        expr_str(b, e->b);
        nz_buf_putc(b, ')');
      } else {
        nz_buf_putc(b, '(');
        expr_str(b, e->b->a);
        nz_buf_printf(b, " %s ", op);
        expr_str(b, e->b->b);
        nz_buf_putc(b, ')');
      }
      return;
    }
    if (e->a->k == E_VAR) {
      expr_str(b, e->a);
    } else {
      nz_buf_putc(b, '(');
      expr_str(b, e->a);
      nz_buf_putc(b, ')');
    }
    nz_buf_putc(b, '(');
    expr_str(b, e->b);
    nz_buf_putc(b, ')');
    return;
  case E_IF:
    nz_buf_puts(b, "(if ");
    expr_str(b, e->a);
    nz_buf_puts(b, " then ");
    expr_str(b, e->b);
    nz_buf_puts(b, " else ");
    expr_str(b, e->c);
    nz_buf_putc(b, ')');
    return;
  case E_LET:
    nz_buf_puts(b, "(let ");
    for (int i = 0; i < e->n; i++) {
      if (i) nz_buf_puts(b, "; ");
      nesl_pat_str(b, e->pats[i]);
      nz_buf_puts(b, " = ");
      expr_str(b, e->xs[i]);
    }
    nz_buf_puts(b, " in ");
    expr_str(b, e->a);
    nz_buf_putc(b, ')');
    return;
  case E_SEQ:
    nz_buf_putc(b, '[');
    for (int i = 0; i < e->n; i++) {
      if (i) nz_buf_puts(b, ", ");
      expr_str(b, e->xs[i]);
    }
    nz_buf_putc(b, ']');
    return;
  case E_EMPTY:
    nz_buf_puts(b, "([] ");
    tyx_str(b, e->tyx);
    nz_buf_putc(b, ')');
    return;
  case E_RANGE:
    nz_buf_putc(b, '[');
    expr_str(b, e->a);
    nz_buf_puts(b, " : ");
    expr_str(b, e->b);
    if (e->c) {
      nz_buf_puts(b, " : ");
      expr_str(b, e->c);
    }
    nz_buf_putc(b, ']');
    return;
  case E_EACH:
    nz_buf_putc(b, '{');
    expr_str(b, e->a);
    nz_buf_puts(b, " : ");
    gens_str(b, e);
    if (e->b) {
      nz_buf_puts(b, " | ");
      expr_str(b, e->b);
    }
    nz_buf_putc(b, '}');
    return;
  case E_LAMBDA:
    nz_buf_puts(b, "((");
    nesl_pat_str(b, e->pats[0]);
    nz_buf_puts(b, ") => ");
    expr_str(b, e->a);
    nz_buf_putc(b, ')');
    return;
  case E_TIME:
    nz_buf_puts(b, "time(");
    expr_str(b, e->a);
    nz_buf_putc(b, ')');
    return;
  }
}

void nesl_decl_print(NzBuf *b, const NlDecl *d) {
  if (d->ty) {
    nz_buf_puts(b, "% ");
    switch (d->k) {
    case D_FUN:
    case D_DATA: nz_buf_printf(b, "%s : ", d->name); break;
    case D_BIND:
      nesl_pat_str(b, d->pat);
      nz_buf_puts(b, " : ");
      break;
    default: nz_buf_puts(b, "it : "); break;
    }
    nesl_type_str(b, d->ty);
    nz_buf_puts(b, " %\n");
  }
  switch (d->k) {
  case D_FUN:
    nz_buf_printf(b, "function %s(", d->name);
    nesl_pat_str(b, d->pat);
    nz_buf_putc(b, ')');
    if (d->sig) {
      nz_buf_puts(b, " : ");
      tyx_str(b, d->sig);
      if (d->nctx) {
        nz_buf_puts(b, " :: (");
        for (int i = 0; i < d->nctx; i++)
          nz_buf_printf(b, "%s%s in %s", i ? "; " : "", d->ctx[i].var, d->ctx[i].cls);
        nz_buf_putc(b, ')');
      }
    }
    if (d->body) {
      nz_buf_puts(b, " =\n  ");
      expr_str(b, d->body);
    }
    break;
  case D_DATA:
    nz_buf_printf(b, "datatype %s(", d->name);
    for (int i = 0; i < d->nfields; i++) {
      if (i) nz_buf_puts(b, ", ");
      tyx_str(b, d->fields[i]);
    }
    nz_buf_putc(b, ')');
    if (d->nctx) {
      nz_buf_puts(b, " :: (");
      for (int i = 0; i < d->nctx; i++)
        nz_buf_printf(b, "%s%s in %s", i ? "; " : "", d->ctx[i].var, d->ctx[i].cls);
      nz_buf_putc(b, ')');
    }
    break;
  case D_BIND:
    nesl_pat_str(b, d->pat);
    nz_buf_puts(b, " = ");
    expr_str(b, d->body);
    break;
  case D_EXPR: expr_str(b, d->body); break;
  case D_LOAD: nz_buf_printf(b, "load \"%s\"", d->name); break;
  case D_IGNORED:
    if (d->name == nz_intern_cstr("exit")) { /* ends the run: it must stay */
      nz_buf_puts(b, "exit");
      break;
    }
    nz_buf_printf(b, "%% %s (interactive command, ignored) %%\n", d->name);
    return;
  case D_SET: nz_buf_printf(b, "set %s %d", d->name, d->nfields); break;
  case D_ERROR: return; /* reported, not printed */
  }
  nz_buf_puts(b, " $\n");
}
