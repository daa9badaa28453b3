/* gen_plan.h — private to generators/lib: the abstract dataflow plan a family
 * builds (gen_plan.c) before gen_region.c turns it into λcu. A plan is a list
 * of invocations in program order (a topological order), each applying one SOAC
 * to values: region inputs or results of earlier invocations. */
#ifndef GEN_PLAN_H
#define GEN_PLAN_H

#include "gen.h"

typedef struct {
  char name[16];    /* x0 (input), a7 (array result), s7 (scalar), b7 (PARTITION's rejects) */
  int is_array;
  LcuTypeKind elem; /* LT_INT or LT_FLOAT */
  /* Arrays in one length class have equal lengths on every input: a class is
   * an input array and the MAP/PERMUTE/SCAN results derived from it, or one
   * FILTER/PARTITION result and its derivatives. Thunks read only arrays of
   * the class they iterate over, at their own index. */
  int cls;
  int producer; /* invocation, or -1 for an input */
  int level;    /* producer's level, -1 for inputs */
  int nconsumers;
} GenVal;

typedef struct {
  LcuSoacKind kind;
  int level; /* 1 + the highest level among the producers it reads; 0 if none */
  int nin;
  int *in; /* values read; for all but ONCE in[0] is the array iterated over */
  int nout;
  int out[2];
  LcuTypeKind ty; /* element (or scalar) type of the results */
} GenNode;

typedef struct {
  const GenSpec *spec;
  uint64_t rng;
  NZ_VEC(GenVal) vals;
  NZ_VEC(GenNode) nodes;
  int nclasses;
} GenPlan;

/* Builds the plan for spec->family; free with gen_plan_free. */
void gen_plan_build(GenPlan *P, const GenSpec *spec);
void gen_plan_free(GenPlan *P);

/* The plan's PRNG (splitmix64), also used to pick thunk bodies. */
uint64_t gen_rand(GenPlan *P);
int gen_below(GenPlan *P, int n);    /* uniform in [0, n) */
int gen_chance(GenPlan *P, double p); /* true with probability p */

#endif
