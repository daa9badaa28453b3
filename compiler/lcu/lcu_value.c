/* lcu_value.c — placeholder until values land. */
#include "lcu.h"
void lcu_value_release(LcuValue v) { (void)v; }
void lcu_value_print(NzBuf *b, LcuValue v) { (void)b; (void)v; nz_die("not implemented yet"); }
int lcu_value_parse(const char *text, const LcuType *ty, LcuValue *out, const char *what) { (void)text; (void)ty; (void)out; (void)what; nz_die("not implemented yet"); }
LcuValue lcu_value_random(LcuRng *rng, const LcuType *ty) { (void)rng; (void)ty; nz_die("not implemented yet"); }
