/* mono_check.c (unit) — monomorphises a small generic program (compiler/mono/), checks
 * the instances' names, that a call of a function parameter became a direct call, that
 * the printed result type-checks again, and that mono_check rejects broken copies: a
 * generic function called, a type variable left, an argument of the wrong type, an
 * instance reference with other type arguments, an instance without its definition. */
#include "mono.h"
#include "unit.h"

static const char *PROG = "function twice(x) = x + x $\n"
                          "function hmap(h, s) = {h(x) : x in s} $\n"
                          "function inc(x) = x + 1 $\n"
                          "twice(3) $\n"
                          "hmap(inc, [1, 2]) $\n"
                          "twice(1.5) $\n";

/* Parses and checks text in *env, a fresh environment with the basis; false on an error. */
static bool load(const char *text, NlEnv **env, NlDecl ***ds, int *n) {
  *env = nesl_env_new();
  if (!nesl_load_basis(*env)) return false;
  NzSource *src = nz_source_from_string("mono_check.nesl", text);
  nz_vec_push((*env)->sources, src);
  if (!nesl_parse(src, (*env)->arena, true, ds, n)) return false;
  for (int i = 0; i < *n; i++)
    if (!nesl_check_decl(*env, (*ds)[i])) return false;
  return true;
}

static int violations(MonoProgram *p) {
  NzBuf err = {0};
  int k = mono_check(p, &err);
  nz_buf_free(&err);
  return k;
}

static int find_inst(MonoProgram *p, const char *name) {
  for (int i = 0; i < p->insts.n; i++)
    if (!strcmp(p->insts.v[i].name, name)) return i;
  return -1;
}

int main(void) {
  NlDecl **ds = NULL;
  int n = 0;
  NlEnv *env = NULL;
  bool ok = load(PROG, &env, &ds, &n);
  CHECK("program checks", ok);
  if (!ok) return 0;
  MonoProgram *p = mono_program(env, ds, n);
  CHECK("pass runs", p != NULL);
  if (!p) return 0;
  CHECK("clean program passes", violations(p) == 0);
  CHECK("twice at int", find_inst(p, "twice__int") >= 0);
  CHECK("twice at float", find_inst(p, "twice__float") >= 0);
  int hi = find_inst(p, "hmap__inc__int__int");
  CHECK("hmap keyed by its function", hi >= 0);
  if (hi >= 0) { /* {h(x) : x in s} became {inc(x) : x in s} */
    NlExpr *each = p->insts.v[hi].decl->body;
    NlExpr *body = each && each->k == E_EACH ? each->a : NULL;
    CHECK("hmap's instance calls inc directly", body && body->k == E_CALL && body->a->k == E_VAR &&
                                                    body->a->vk == VK_GLOBAL && !strcmp(body->a->name, "inc"));
  }

  /* the first runnable form: twice(3), a call of twice__int */
  NlExpr *call = NULL;
  for (int i = 0; i < p->forms.n && !call; i++)
    if (p->forms.v[i].k == MF_MONO && p->forms.v[i].d->k == D_EXPR) call = p->forms.v[i].d->body;
  CHECK("twice(3) is a call", call && call->k == E_CALL && call->a->k == E_VAR);
  if (!call || call->k != E_CALL) return 0;
  CHECK("twice(3) calls twice__int", !strcmp(call->a->name, "twice__int"));

  const char *name = call->a->name;
  call->a->name = nz_intern_cstr("twice");
  CHECK("generic function called", violations(p) > 0);
  call->a->name = name;

  NlType *ty = call->b->ty;
  NlType var = {0};
  var.k = TY_VAR;
  call->b->ty = &var;
  CHECK("type variable left", violations(p) > 0);
  NlType fl = {0};
  fl.k = TY_FLOAT;
  call->b->ty = &fl;
  CHECK("argument of another type", violations(p) > 0);
  call->b->ty = ty;

  NlType **inst = call->a->inst;
  NlType *other[1] = {&fl};
  call->a->inst = other;
  CHECK("reference with other type arguments", violations(p) > 0);
  call->a->inst = inst;

  CHECK("restored program passes", violations(p) == 0);
  for (int i = 0; i < p->forms.n; i++)
    if (p->forms.v[i].k == MF_INST && !strcmp(p->insts.v[p->forms.v[i].inst].name, "twice__float")) {
      p->forms.v[i].k = MF_KEEP;
      CHECK("instance without its definition", violations(p) > 0);
      p->forms.v[i].k = MF_INST;
    }

  /* the printed program is NESL that checks again */
  NzBuf out = {0};
  mono_print(&out, p);
  NlDecl **ds2 = NULL;
  int n2 = 0;
  NlEnv *env2 = NULL;
  CHECK("printed program type-checks", load(out.s, &env2, &ds2, &n2));
  CHECK("printed program names the instance", strstr(out.s, "function twice__float(x) : (float -> float) =") != NULL);
  nz_buf_free(&out);
  free(ds2);
  nesl_env_free(env2);
  mono_free(p);
  free(ds);
  nesl_env_free(env);
  return 0;
}
