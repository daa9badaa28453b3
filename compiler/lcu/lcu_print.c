/* lcu_print.c — placeholder until the printer lands. */
#include "lcu.h"
void lcu_print_program(NzBuf *b, const LcuProgram *p) { (void)b; (void)p; nz_die("lcu_print: not implemented yet"); }
