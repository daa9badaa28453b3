/* cmd_nesl.c — `nessie check|run|emit|build PROG.nesl`: the NESL pipeline.
 * The front end lands with issue 5; until then these say so. */
#include "driver.h"

int drv_cmd_nesl(int argc, char **argv) {
  (void)argc;
  fprintf(stderr, "nessie %s: the NESL front end is not built yet\n", argv[0]);
  return NZ_EXIT_INTERNAL;
}
