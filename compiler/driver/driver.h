/* driver.h — subcommands of the nessie driver, one file each. Prefix: drv_. */
#ifndef DRIVER_H
#define DRIVER_H
#include "nessie.h"

/* Each takes argv starting at the subcommand name and returns an exit status. */
int drv_cmd_lcu(int argc, char **argv);  /* cmd_lcu.c: lcu check|run|fuse */
int drv_cmd_nesl(int argc, char **argv); /* cmd_nesl.c: check, run, emit, build */

#endif
