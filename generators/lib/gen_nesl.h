/* gen_nesl.h — random well-typed, terminating NESL programs (the compiler's Csmith,
 * issue 25): top-level bindings, functions (recursive ones called inside
 * apply-to-each), nested sequences, tuples and the basis' sequence functions, for
 * comparing the interpreters byte for byte. Prefix: gen_nesl_. What a program
 * contains and what it avoids: generators/README.md, "Random NESL programs". */
#ifndef GEN_NESL_H
#define GEN_NESL_H

#include "nessie.h"
#include <stdbool.h>

typedef struct {
  uint64_t seed;
  int forms;     /* top-level forms after the fixed ones (bindings, functions, expressions) */
  int depth;     /* expression depth below a form */
  int seq_depth; /* deepest sequence nesting of a type, 1..3 */
  int errors;    /* percent of programs ending with a run-time error, 0..100 */
  double work;   /* estimated work one top-level form may do (generator units) */
  const char *avoid; /* comma-separated functions no form may call ("@" for string), or NULL */
} GenNeslOpts;

void gen_nesl_default(GenNeslOpts *o);

/* The run-time error a program ends with (or none), decided by the seed. */
typedef enum { GEN_NESL_ERR_NONE, GEN_NESL_ERR_INDEX, GEN_NESL_ERR_LENGTH, GEN_NESL_ERR_DIVZERO } GenNeslErr;
const char *gen_nesl_err_name(GenNeslErr e);

/* Appends one complete program for o to out; deterministic in *o. */
GenNeslErr gen_nesl_program(const GenNeslOpts *o, NzBuf *out);
/* The programs of seeds seed .. seed+count-1 one after the other, as one file: the same
 * programs with their names numbered on, and only the last may keep its final error
 * form (an error ends the file's run). Returns the last one's error. */
GenNeslErr gen_nesl_batch(const GenNeslOpts *o, int count, NzBuf *out);

#endif
