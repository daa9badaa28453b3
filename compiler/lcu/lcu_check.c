/* lcu_check.c — placeholder until the checker lands. */
#include "lcu.h"
int lcu_check(LcuProgram *p) { (void)p; nz_die("lcu_check: not implemented yet"); }
