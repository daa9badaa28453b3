/* rt_internal.h — what the runtime's own files share (not generated code). */
#ifndef RT_INTERNAL_H
#define RT_INTERNAL_H
#include "nessie_rt.h"

extern const RtProgram *rt_current; /* the program being run (rt_io.c) */
/* x in the λcu/NESL float layout (shortest round trip), NUL-terminated. */
void rt_float_text(char *buf, size_t cap, double x);
/* Writes the profile CSV to path (rt_prof.c); wall is main's run time. */
int rt_prof_write(const RtProgram *p, const char *path, double wall);

#endif
