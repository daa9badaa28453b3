/* compat.c — which pairs of invocations may share a fusion cluster: vertical
 * compatibility along `into` edges, horizontal compatibility between
 * independent invocations, and the iteration-space test behind the latter.
 *
 * Vertical (producer into consumer), paper §8.5 plus our extensions:
 *
 *   producer \ consumer  ONCE MAP PERMUTE REDUCE SCAN FILTER PARTITION SEGREDUCE SEGSCAN
 *   ONCE                  x*
 *   MAP                        x     x      x      x     x       x         x        x
 *   PERMUTE                                 x
 *   REDUCE                x
 *   FILTER                                  x            x
 *   SEGREDUCE             x*
 *   SCAN, SEGSCAN, PARTITION: nothing (their results need the whole input first)
 *
 * (*) extensions, decided here because the paper is silent on the segmented
 * forms and on ONCE producers:
 *   - SEGREDUCE into ONCE, like REDUCE into ONCE: the ONCE runs after the
 *     grid-wide combine that completes every segment, in the same kernel.
 *   - ONCE into ONCE: two single-thread computations in sequence are one; this
 *     matters because scalar CPU code between runs is lifted into ONCE kernels.
 *   - MAP into SEGREDUCE/SEGSCAN is "MAP into any SOAC but ONCE": the segmented
 *     SOAC iterates over the flat elements, which the MAP produces elementwise.
 *   - Not added: FILTER or PERMUTE into SEGREDUCE/SEGSCAN (both move elements
 *     across segment boundaries), anything out of SCAN/SEGSCAN/PARTITION, and
 *     ONCE into a parallel SOAC (would need the scalar broadcast to every
 *     thread; the paper leaves it out too).
 * PERMUTE into REDUCE is the paper's: it is only meaning-preserving for
 * commutative operators over a true permutation; the rewriter must check that.
 It also reorders the reduction (the fused REDUCE combines the elements in
 * source order, not destination order): with a float operator the sum can
 * differ in the last bits. By default that is allowed (README.md,
 * "Decisions": fusion and the parallel back ends may reassociate float
 * reductions); under --strict-float (FusGraph.strict_float) fus_vcompat
 * refuses PERMUTE into a REDUCE with a float operator, and every other rule
 * keeps the order of a reduction's operands, so the fused program's results
 * are bit-identical to the unfused one's.
 *
 * Rows marked elementwise (all but the "into ONCE" ones) fuse thunk by thunk
 * at the same index (paper §9.2, ‡A substitutes A[i]), so the consumer must
 * read every carried array at its own index: an iterated use. Into-ONCE
 * fusions happen after a barrier and place no such demand.
 *
 * Horizontal: the same SOAC over the same iteration space, or a MAP and a
 * SEGREDUCE or SEGSCAN over the same (flat) elements. Sizes are symbolic
 * ids (equal ids: equal sizes); when one is unknown we fall back to the
 * paper's proxy, a shared *iterated* input (not just any shared input: a
 * gather's source says nothing about the iteration space). */
#include "fusion.h"

int fus_soac_vcompat(LcuSoacKind producer, LcuSoacKind consumer) {
  switch (producer) {
  case LS_MAP: return consumer != LS_ONCE;
  case LS_FILTER: return consumer == LS_FILTER || consumer == LS_REDUCE;
  case LS_PERMUTE: return consumer == LS_REDUCE;
  case LS_REDUCE: return consumer == LS_ONCE;
  case LS_SEGREDUCE: return consumer == LS_ONCE;
  case LS_ONCE: return consumer == LS_ONCE;
  case LS_SCAN:
  case LS_PARTITION:
  case LS_SEGSCAN: return 0;
  default: nz_die("fus_soac_vcompat: bad SOAC %d", (int)producer);
  }
}

int fus_soac_elementwise(LcuSoacKind producer, LcuSoacKind consumer) {
  return fus_soac_vcompat(producer, consumer) && consumer != LS_ONCE;
}

/* A reduction's pass over the same elements can also compute an independent
 * MAP: fus_rewrite's map_joins makes the MAP's values components of the
 * reduction with the `id` operator (each yields the whole array, as the MAP
 * does); the reduction's own components, and the order it combines them in,
 * do not change. Only the segmented reductions so far (the rewriter would
 * join a REDUCE or SCAN too; the paper's rule, which the greedy schedulers'
 * filters and their tests encode, keeps those apart). Without this, a MAP beside the SEGREDUCE that sums its
 * neighbours' values (n-body's pair values feeding the force sums and the
 * deferred checks) kept them in separate passes, the MAP writing n² arrays. */
static int joins_as_id(LcuSoacKind m, LcuSoacKind r) { return m == LS_MAP && (r == LS_SEGREDUCE || r == LS_SEGSCAN); }

int fus_soac_hcompat(LcuSoacKind a, LcuSoacKind b) { return a == b || joins_as_id(a, b) || joins_as_id(b, a); }

int fus_same_space(const FusGraph *g, int i, int j) {
  const FusInv *A = &g->inv[i], *B = &g->inv[j];
  if (A->soac == LS_ONCE && B->soac == LS_ONCE) return 1;
  if (A->size != FUS_UNKNOWN && B->size != FUS_UNKNOWN) return A->size == B->size;
  for (int u = 0; u < A->nuses; u++)
    if (A->uses[u].iter && fus_uses(g, j, A->uses[u].var) == 1) return 1;
  return 0;
}

int fus_space_key(const FusGraph *g, int i) {
  const FusInv *I = &g->inv[i];
  if (I->soac == LS_ONCE) return (int)LS_ONCE * (g->nsize + 1) + g->nsize;
  return I->size == FUS_UNKNOWN ? -1 : (int)I->soac * (g->nsize + 1) + I->size;
}

static const char *size_name(const FusGraph *g, int s) { return s == FUS_UNKNOWN ? "?" : g->size_names[s]; }

int fus_vcompat(const FusGraph *g, int i, int j, NzBuf *why) {
  const FusInv *A = &g->inv[i], *B = &g->inv[j];
  const char *an = lcu_soac_name(A->soac), *bn = lcu_soac_name(B->soac);
  if (!fus_soac_vcompat(A->soac, B->soac)) {
    if (why) nz_buf_printf(why, "%s (%s) flows into %s (%s): %s into %s is not fusable", A->name, an, B->name, bn, an, bn);
    return 0;
  }
  if (g->strict_float && A->soac == LS_PERMUTE && B->float_reduce) {
    if (why)
      nz_buf_printf(why, "%s (PERMUTE) flows into %s (%s with a float operator): fusing them reorders the reduction "
                    "(--strict-float)", A->name, B->name, bn);
    return 0;
  }
  if (!fus_soac_elementwise(A->soac, B->soac)) return 1;
  for (int d = 0; d < A->ndefs; d++) {
    int v = A->defs[d];
    if (fus_uses(g, j, v) == 0) {
      if (why)
        nz_buf_printf(why, "%s (%s) flows into %s (%s) through %s, which %s does not read elementwise", A->name, an,
                      B->name, bn, g->var[v].name, B->name);
      return 0;
    }
  }
  /* A MAP's output has its iteration space's length, so an elementwise consumer
   * iterates over the same space; different known sizes mean an inconsistent
   * graph or a consumer over a prefix, which the rules do not cover. */
  if (A->soac == LS_MAP && A->size != FUS_UNKNOWN && B->size != FUS_UNKNOWN && A->size != B->size) {
    if (why)
      nz_buf_printf(why, "%s (%s over %s) flows into %s (%s over %s): different iteration spaces", A->name, an,
                    size_name(g, A->size), B->name, bn, size_name(g, B->size));
    return 0;
  }
  return 1;
}

int fus_hcompat(const FusGraph *g, int i, int j, NzBuf *why) {
  const FusInv *A = &g->inv[i], *B = &g->inv[j];
  if (!fus_soac_hcompat(A->soac, B->soac)) {
    if (why)
      nz_buf_printf(why, "%s (%s) and %s (%s) are independent but apply different SOACs", A->name,
                    lcu_soac_name(A->soac), B->name, lcu_soac_name(B->soac));
    return 0;
  }
  if (!fus_same_space(g, i, j)) {
    if (why) {
      if (A->size != FUS_UNKNOWN && B->size != FUS_UNKNOWN)
        nz_buf_printf(why, "%s and %s (%s) are independent but iterate over different spaces (%s, %s)", A->name,
                      B->name, lcu_soac_name(A->soac), size_name(g, A->size), size_name(g, B->size));
      else
        nz_buf_printf(why,
                      "%s and %s (%s) are independent but their iteration spaces are not known to be equal "
                      "(a size is unknown and they share no iterated input)",
                      A->name, B->name, lcu_soac_name(A->soac));
    }
    return 0;
  }
  return 1;
}

int fus_pair_ok(const FusGraph *g, int i, int j, NzBuf *why) {
  if (i == j) return 1;
  if (fus_into(g, i, j)) return fus_vcompat(g, i, j, why);
  if (fus_into(g, j, i)) return fus_vcompat(g, j, i, why);
  if (fus_indep(g, i, j)) return fus_hcompat(g, i, j, why);
  return 1;
}
