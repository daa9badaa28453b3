/* lcu_interp.c — placeholder until the interpreter lands. */
#include "lcu.h"
int lcu_run_main(const LcuProgram *p, int nargs, const LcuValue *args, LcuValue *result) { (void)p; (void)nargs; (void)args; (void)result; nz_die("not implemented yet"); }
