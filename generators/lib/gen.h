/* gen.h — synthetic dataflow-region generators (issue 4, paper §10 / Figure 7):
 * a spec (kernels, chain, fan-in/out, SOAC mix, ...) and the single-region λcu
 * programs built from it, shared by nessie-gen and nessie-bench. Prefix: gen_.
 * What each key means and how each family is shaped: generators/README.md. */
#ifndef GEN_H
#define GEN_H

#include "lcu.h"

/* ------------------------------------------------------------ gen_spec.c */

typedef enum {
  GEN_RANDOM,   /* a random layered DAG: depth = chain, fan-in, fan-out, sharing */
  GEN_CHAIN,    /* independent chains of `chain` invocations each */
  GEN_SIBLINGS, /* wide groups of siblings sharing one input, `chain` groups deep */
  GEN_DIAMOND,  /* stacked diamonds: top MAP, branches, a joining MAP */
  GEN_TRAP,     /* gadgets that lure greedy fusion (paper §8.1), README.md */
  GEN__NFAMILIES
} GenFamily;

/* The SOACs a generator may apply (the unsegmented ones), in mix order. */
enum { GEN_NKINDS = 7 };
extern const LcuSoacKind gen_kinds[GEN_NKINDS]; /* ONCE MAP PERMUTE REDUCE SCAN FILTER PARTITION */

typedef struct {
  int kernels;   /* invocations in the region */
  int chain;     /* dependency-chain length (depth); 0 = the family's default */
  int fanin;     /* values one invocation reads, at most */
  int fanout;    /* consumers one result gets, at most (a target, see README) */
  int mix[GEN_NKINDS]; /* relative weights, indexed like gen_kinds */
  double shared; /* probability of reading an already-read value (siblings) */
  int sizes;     /* distinct input iteration spaces (input arrays) */
  uint64_t seed;
  GenFamily family;
} GenSpec;

void gen_spec_default(GenSpec *s);
/* Sets one key from its text value ("kernels", "40"); keys and value syntax in
 * generators/README.md. Returns 0, or -1 with *err a malloc'd message. */
int gen_spec_set(GenSpec *s, const char *key, const char *value, char **err);
/* Checks the combination (chain <= kernels, some mix weight > 0, ...) after
 * all keys are set. Returns 0, or -1 with *err a malloc'd message. */
int gen_spec_validate(const GenSpec *s, char **err);
/* Parses "kernels=40,chain=4,seed=7" (an optional "gen:" prefix is skipped)
 * on top of *s (start from gen_spec_default), then validates. A mix is written
 * "mix=map:5,reduce:1,...": items without '=' continue the mix. Returns 0, or
 * -1 with *err a malloc'd message naming the bad key or value. */
int gen_spec_parse(const char *text, GenSpec *s, char **err);
/* The canonical text form, every key (parses back to an equal spec). */
void gen_spec_format(NzBuf *b, const GenSpec *s);
const char *gen_family_name(GenFamily f);
/* One line per key with its default and meaning, for --help. */
void gen_spec_help(FILE *f);

/* ---------------------------------------------------------- gen_region.c */

/* What a generated region looks like, for --stats and tests. */
typedef struct {
  int invocations;
  int depth;             /* longest chain of dependent invocations */
  int per_kind[LS__COUNT];
  int inputs;            /* main's parameters */
  int outputs;           /* main's results (the region's sinks) */
  int max_fanin;         /* most values read by one invocation */
  int max_fanout;        /* most invocations reading one result */
  int shared_values;     /* values (inputs or results) read by two or more invocations */
} GenStats;

/* A single-region program of spec->kernels invocations (one SOAC per kernel,
 * unfused), deterministic for the spec. The spec must validate. The program is
 * unchecked: run lcu_check before interpreting it. st may be NULL. */
LcuProgram *gen_region(const GenSpec *spec);
LcuProgram *gen_region_stats(const GenSpec *spec, GenStats *st);
void gen_stats_print(NzBuf *b, const GenStats *st); /* "// invocations: 20 ..." lines */

#endif
