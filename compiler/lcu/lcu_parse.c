/* lcu_parse.c — placeholder until the parser lands. */
#include "lcu.h"
LcuProgram *lcu_parse(const NzSource *src) { (void)src; nz_die("lcu_parse: not implemented yet"); }
