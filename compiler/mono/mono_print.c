/* mono_print.c — a monomorphic program printed as NESL source (`nessie emit
 * --stage=mono`): the AST printer of nesl_print.c for each form, an instance preceded by
 * a comment that names the generic function and what its type variables stand for. */
#include "mono.h"

static void inst_comment(NzBuf *b, const MonoProgram *p, const MonoInst *in) {
  const NlGlobal *g = &p->env->globals.v[in->global];
  nz_buf_printf(b, "%% mono: instance %s of %s%s : ", in->name, in->basis ? "basis function " : "", g->name);
  nesl_type_str(b, g->ty);
  nz_buf_puts(b, " %\n");
}

void mono_print(NzBuf *b, const MonoProgram *p) {
  nz_buf_puts(b, "% nessie emit --stage=mono: every generic function a computation reaches is\n"
                 "  specialised per ground instance (NAME__TYPE...); generic definitions are kept\n"
                 "  for their `name = fn : type` lines, and only their instances are called %\n");
  for (int i = 0; i < p->forms.n; i++) {
    const MonoForm *f = &p->forms.v[i];
    switch (f->k) {
    case MF_INST_SIG: {
      NlDecl sig = *f->d; /* the declaration without its body */
      sig.body = NULL;
      sig.ty = NULL;
      nesl_decl_print(b, &sig);
      break;
    }
    case MF_INST:
      inst_comment(b, p, &p->insts.v[f->inst]);
      nesl_decl_print(b, f->d);
      break;
    case MF_KEEP:
      if (f->d->k == D_FUN && f->d->body && f->d->ty && f->d->ngvars)
        nz_buf_puts(b, "% mono: generic, kept for its line; its instances follow %\n");
      nesl_decl_print(b, f->d);
      break;
    case MF_MONO: nesl_decl_print(b, f->d); break;
    }
  }
}
