/* flan_text.c — NESL's text primitives on n rows (lifted form; an unlifted call is one
 * row, flan_prims.c): `@` / __string and __write_object_str (the λcu primitive
 * `format`), __float_string (`float_text`), __parse_float (`parse_float`) and
 * __print_string (`print_chars`). Each is one CPU primitive over the whole vector, so a
 * lifted call formats every row at once into a segmented char vector. */
#include "flan_int.h"

/* A [char] literal. */
static LcuExpr *chars_lit(Fl *F, const char *s, size_t len, NzLoc loc) {
  LcuExpr *m = lcu_expr_new(F->p, LE_ARRAY, loc);
  m->nargs = (int)len;
  m->args = lcu_exprs(F->p, (int)len);
  for (size_t i = 0; i < len; i++) m->args[i] = lcu_char(F->p, (unsigned char)s[i], loc);
  return m;
}

/* The description of t for `format` (compiler/lcu/README.md, `show`): i f b c, [E, (AB, n. */
static void desc(NzBuf *b, const FlTy *t) {
  switch (t->k) {
  case FT_INT: nz_buf_putc(b, 'i'); return;
  case FT_FLOAT: nz_buf_putc(b, 'f'); return;
  case FT_BOOL: nz_buf_putc(b, 'b'); return;
  case FT_CHAR: nz_buf_putc(b, 'c'); return;
  case FT_FN: nz_buf_putc(b, 'N'); return; /* its int tag */
  case FT_SEQ:
    nz_buf_putc(b, '[');
    desc(b, t->a);
    return;
  case FT_PAIR:
    nz_buf_putc(b, '(');
    desc(b, t->a);
    desc(b, t->b);
    return;
  }
}

static LcuExpr *comps_expr(Fl *F, int n, const FlComp *c) {
  if (n == 1) return flan_v(F, c[0]);
  LcuExpr **a = lcu_exprs(F->p, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) a[i] = flan_v(F, c[i]);
  return lcu_tuple(F->p, n, a, F->uloc);
}

/* let (sd, cs) = rhs: out[0] = sd, out[1] = cs (vrep of [char]). */
static void seg_text(Fl *F, LcuExpr *rhs, FlComp *out) {
  const LcuType *tys[2] = {lcu_type_base(LT_SEGDES), lcu_type_array(LT_CHAR)};
  flan_emitn(F, F->blk, 2, tys, out, rhs);
}

void flan_text_format(Fl *F, char mode, FlComp n, FlComp *a, const FlTy *t, FlComp *out, NzLoc loc) {
  NzBuf b = {0};
  nz_buf_putc(&b, mode);
  desc(&b, t);
  LcuExpr *args[3] = {chars_lit(F, b.s, b.len, loc), flan_v(F, n), comps_expr(F, flan_ncomp(t, true), a)};
  nz_buf_free(&b);
  seg_text(F, lcu_prim(F->p, LP_FORMAT, 3, args, loc), out);
}

void flan_text_read_object(Fl *F, FlComp n, FlComp **a, const FlTy *t, FlComp *out, NzLoc loc) {
  /* the witness a[0] gives the type (and the checker the result's); its values are unused */
  (void)n;
  NzBuf b = {0};
  desc(&b, t);
  int nw = flan_ncomp(t, true);
  LcuExpr *args[3] = {chars_lit(F, b.s, b.len, loc), comps_expr(F, 2, a[1]), comps_expr(F, nw, a[0])};
  nz_buf_free(&b);
  const LcuType *tys[nw + 1];
  flan_comp_types(t, true, tys);
  tys[nw] = lcu_type_array(LT_BOOL);
  flan_emitn(F, F->blk, nw + 1, tys, out, lcu_prim(F->p, LP_READ_OBJECT, 3, args, loc));
}

void flan_text_float(Fl *F, FlComp n, FlComp **a, FlComp *out, NzLoc loc) {
  /* exp_string's fault (nesl_prims.c's __float_string), then the text of every row */
  FlKb k;
  flan_kb_init(&k, F);
  LcuExpr *ix = flan_kix(&k);
  LcuExpr *sci = lcu_index(F->p, flan_kc(&k, a[2][0]), ix, loc);
  LcuExpr *big = lcu_prim2(F->p, LP_GT, lcu_index(F->p, flan_kc(&k, a[1][0]), lcu_expr_copy(F->p, ix), loc),
                           lcu_int(F->p, 8, loc), loc);
  flan_check(F, flan_any(&k, n, lcu_prim2(F->p, LP_ANDALSO, sci, big, loc)),
             "In function exp_string, digits_after_point is too large.", loc);
  LcuExpr *args[3] = {flan_v(F, a[0][0]), flan_v(F, a[1][0]), flan_v(F, a[2][0])};
  seg_text(F, lcu_prim(F->p, LP_FLOAT_TEXT, 3, args, loc), out);
}

void flan_text_parse_float(Fl *F, FlComp *a, FlComp *out, NzLoc loc) {
  const LcuType *tys[2] = {lcu_type_array(LT_FLOAT), lcu_type_array(LT_BOOL)};
  LcuExpr *args[2] = {flan_v(F, a[0]), flan_v(F, a[1])};
  flan_emitn(F, F->blk, 2, tys, out, lcu_prim(F->p, LP_PARSE_FLOAT, 2, args, loc));
}

void flan_text_print(Fl *F, FlComp n, FlComp *a, FlComp *out, NzLoc loc) {
  /* the rows' characters in row order, then t for each row */
  LcuExpr *cs = flan_v(F, a[1]);
  flan_emit(F, F->blk, lcu_type_unit(), lcu_prim(F->p, LP_PRINT_CHARS, 1, &cs, loc));
  FlKb k;
  flan_kb_init(&k, F);
  out[0] = flan_kb_map1(&k, n, lcu_bool(F->p, 1, loc), LT_BOOL);
}

FlVal flan_text_print_arg(Fl *F, FlVal s, NzLoc loc) {
  /* A lifted print writes all its rows at once, in row order; the AST interpreter runs
   * an apply-to-each element by element. They agree when the apply-to-each (with the
   * ones nested in it) has one print site that runs once per element: with two sites
   * (a0 a1 b0 b1 against a0 b0 a1 b1) the root apply-to-each runs its elements one by
   * one instead (counted here, lower_each); so does one that calls a recursive
   * function whose lifted code prints (each level would print all its rows before the
   * next: flan_note_lifted_print). */
  if (F->in_lifted_fn) flan_note_lifted_print(F, loc);
  FlCtx *root = F->ctx;
  while (root->parent) root = root->parent;
  root->prints++;
  return s.ctx ? s : flan_lift(F, s, F->ctx);
}

/* The stream, file and process primitives: CPU calls on unlifted operands, in program
 * order (they are effects); their results are already NESL's representation. */
bool flan_text_io(Fl *F, const char *name, int nargs, FlVal *args, const FlTy *rt, NzLoc loc, FlVal *out) {
  static const struct {
    const char *name;
    LcuPrim op;
  } io[] = {{"__open", LP_OPEN_FILE}, {"__close", LP_CLOSE_FILE}, {"__write_stream", LP_WRITE_STREAM},
            {"__read_char", LP_READ_CHAR}, {"__read_file", LP_READ_FILE}, {"__getenv", LP_GETENV},
            {"__shell", LP_SHELL}, {"__spawn", LP_SPAWN}};
  size_t i = 0;
  while (i < sizeof io / sizeof *io && strcmp(io[i].name, name)) i++;
  if (i == sizeof io / sizeof *io) return false;
  bool lifted = false;
  for (int k = 0; k < nargs; k++) lifted |= args[k].ctx != NULL;
  if (lifted || (F->ctx && io[i].op != LP_GETENV)) flan_unsupported(F, loc, "%s inside an apply-to-each", name);
  LcuExpr *a[2];
  a[0] = flan_v(F, args[0].c[0]);
  if (io[i].op == LP_SPAWN) { /* the three streams as one [int] */
    LcuExpr *fds = lcu_expr_new(F->p, LE_ARRAY, loc);
    fds->nargs = 3;
    fds->args = lcu_exprs(F->p, 3);
    for (int k = 0; k < 3; k++) fds->args[k] = flan_v(F, args[k + 1].c[0]);
    a[1] = fds;
  } else if (nargs > 1) {
    a[1] = flan_v(F, args[1].c[0]);
  }
  int n = flan_ncomp(rt, false);
  const LcuType *tys[n];
  flan_comp_types(rt, false, tys);
  *out = (FlVal){rt, NULL, flan_comps(F, n)};
  flan_emitn(F, F->blk, n, tys, out->c, lcu_prim(F->p, io[i].op, lcu_prim_info(io[i].op)->arity, a, loc));
  return true;
}
