/* gen_spec.c — unit tests of the region generators: the spec parser (values,
 * defaults, errors, the canonical form round trip) and, in process, that every
 * family's regions check, have the asked-for shape, are deterministic, and run
 * on random inputs including all-empty arrays (the ASan build checks leaks). */
#include "gen.h"
#include "unit.h"

static int parses(const char *text, GenSpec *s) {
  gen_spec_default(s);
  char *err = NULL;
  int rc = gen_spec_parse(text, s, &err);
  if (rc) printf("# '%s': %s\n", text, err);
  free(err);
  return rc == 0;
}

/* Does text fail to parse with a message containing want? */
static int rejects(const char *text, const char *want) {
  GenSpec s;
  gen_spec_default(&s);
  char *err = NULL;
  int rc = gen_spec_parse(text, &s, &err);
  int ok = rc == -1 && err && strstr(err, want);
  if (!ok) printf("# '%s': rc %d, message '%s', want '%s'\n", text, rc, err ? err : "", want);
  free(err);
  return ok;
}

static char *fmt(const GenSpec *s) {
  NzBuf b = {0};
  gen_spec_format(&b, s);
  return b.s;
}

static void test_parse(void) {
  GenSpec s;
  gen_spec_default(&s);
  char *d = fmt(&s);
  CHECK("defaults in canonical form",
        !strcmp(d, "family=random,kernels=20,chain=auto,fanin=2,fanout=3,mix=map:5,once:1,"
                   "permute:1,reduce:1,scan:1,filter:1,partition:1,shared=0.3,sizes=2,seed=1"));
  free(d);

  CHECK("kernels,chain,seed", parses("kernels=40,chain=4,seed=7", &s) && s.kernels == 40 &&
                                  s.chain == 4 && s.seed == 7 && s.fanin == 2 && s.sizes == 2);
  CHECK("gen: prefix and a mix continuing over commas",
        parses("gen:mix=map:5,reduce:1,seed=3", &s) && s.mix[1] == 5 && s.mix[3] == 1 &&
            s.mix[0] == 0 && s.mix[2] == 0 && s.mix[4] == 0 && s.mix[5] == 0 && s.mix[6] == 0 &&
            s.seed == 3);
  CHECK("mix last", parses("seed=4,mix=scan:2,partition:1", &s) && s.mix[4] == 2 && s.mix[6] == 1 &&
                        s.mix[1] == 0 && s.seed == 4);
  CHECK("64-bit seed", parses("seed=18446744073709551615", &s) && s.seed == UINT64_MAX);
  CHECK("shared, sizes, fanin, fanout, family",
        parses("shared=0.75,sizes=5,fanin=4,fanout=1,family=diamond", &s) && s.shared == 0.75 &&
            s.sizes == 5 && s.fanin == 4 && s.fanout == 1 && s.family == GEN_DIAMOND);
  CHECK("chain=auto", parses("chain=3,chain=auto", &s) && s.chain == 0);
  CHECK("empty items are ignored", parses("kernels=3,,seed=2,", &s) && s.kernels == 3 && s.seed == 2);
  CHECK("empty spec is the default", parses("", &s) && s.kernels == 20);

  CHECK("unknown key", rejects("kernels=3,colour=red", "unknown key 'colour'"));
  CHECK("kernels=0", rejects("kernels=0", "bad value '0' for kernels"));
  CHECK("empty value", rejects("kernels=", "bad value '' for kernels"));
  CHECK("missing key", rejects("=3", "missing key"));
  CHECK("no '='", rejects("kernels", "expected KEY=VALUE"));
  CHECK("negative seed", rejects("seed=-3", "bad value '-3' for seed"));
  CHECK("shared above 1", rejects("shared=2", "bad value '2' for shared"));
  CHECK("shared nan", rejects("shared=nan", "bad value 'nan' for shared"));
  CHECK("fanin too big", rejects("fanin=9", "from 1 to 8"));
  /* make plots SIZE=large runs greedy at 30000 invocations */
  CHECK("kernels up to 30000", parses("kernels=30000", &s) && s.kernels == 30000);
  CHECK("kernels too big", rejects("kernels=30001", "from 1 to 30000"));
  CHECK("chain longer than kernels", rejects("kernels=3,chain=5", "chain=5 is longer than kernels=3"));
  CHECK("mix of zeros", rejects("mix=map:0,scan:0", "weight 0"));
  CHECK("mix unknown SOAC", rejects("mix=map:1,gather:1", "unknown SOAC 'gather'"));
  CHECK("mix twice", rejects("mix=map:1,map:2", "given twice"));
  CHECK("mix without weight", rejects("mix=map", "expected KIND:WEIGHT"));
  CHECK("family", rejects("family=tree", "unknown family 'tree'"));
  CHECK("trap too small", rejects("family=trap,kernels=3", "kernels >= 4"));
  CHECK("trap chain=1", rejects("family=trap,chain=1", "chain >= 2"));
  CHECK("trap chain too long", rejects("family=trap,kernels=8,chain=7", "kernels >= 9"));
  CHECK("diamond even chain", rejects("family=diamond,chain=6", "chain must be odd"));

  /* canonical form parses back to the same spec */
  static const char *specs[] = {
      "family=trap,kernels=17,chain=3,seed=99",
      "family=siblings,kernels=9,chain=2,fanin=1,fanout=7,mix=once:2,scan:1,shared=0.125,sizes=4",
      "family=chain,mix=partition:3,seed=0",
  };
  for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
    GenSpec a, b;
    int ok = parses(specs[k], &a);
    char *t = fmt(&a);
    ok = ok && parses(t, &b) && !memcmp(&a, &b, sizeof a);
    char name[64];
    snprintf(name, sizeof name, "format round trip %zu", k);
    CHECK(name, ok);
    free(t);
  }
}

/* Invocations in main's body: the lets whose right-hand side is a run. */
static int count_runs(const LcuProgram *p) {
  int n = 0;
  for (const LcuExpr *e = lcu_main(p)->body; e && e->kind == LE_LET; e = e->args[1])
    n += e->args[0]->kind == LE_RUN;
  return n;
}

static char *print(const LcuProgram *p) {
  NzBuf b = {0};
  lcu_print_program(&b, p);
  return b.s;
}

/* Runs main on random inputs with arrays of at most maxlen elements. */
static int runs(const LcuProgram *p, uint64_t seed, int64_t maxlen) {
  LcuFunc *m = lcu_main(p);
  LcuValue args[64];
  if (m->nparams > 64) return 0;
  LcuRng rng = {seed, maxlen};
  for (int a = 0; a < m->nparams; a++) args[a] = lcu_value_random(&rng, m->params[a].ty);
  LcuValue r;
  int rc = lcu_run_main(p, m->nparams, args, &r);
  if (rc == 0) lcu_value_release(r);
  for (int a = 0; a < m->nparams; a++) lcu_value_release(args[a]);
  return rc == 0;
}

static void test_regions(void) {
  static const char *fams[] = {"random", "chain", "siblings", "diamond", "trap"};
  static const int sizes[] = {1, 2, 4, 7, 16, 33};
  int bad_check = 0, bad_count = 0, bad_run = 0, bad_det = 0, bad_seed = 0, total = 0;
  for (int f = 0; f < 5; f++)
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
      for (int seed = 1; seed <= 4; seed++) {
        if (f == GEN_TRAP && sizes[z] < 4) continue;
        char text[128];
        snprintf(text, sizeof text, "family=%s,kernels=%d,seed=%d", fams[f], sizes[z], seed);
        GenSpec s;
        if (!parses(text, &s)) {
          bad_check++;
          continue;
        }
        total++;
        LcuProgram *p = gen_region(&s), *q = gen_region(&s);
        s.seed += 1000;
        LcuProgram *o = gen_region(&s);
        char *tp = print(p), *tq = print(q), *to = print(o);
        if (strcmp(tp, tq)) bad_det++;
        if (sizes[z] >= 4 && !strcmp(tp, to)) bad_seed++;
        if (lcu_check(p) != 0) {
          printf("# %s does not check\n", text);
          bad_check++;
        } else {
          if (count_runs(p) != sizes[z]) bad_count++;
          /* all-empty inputs, single elements, and a few longer ones */
          if (!runs(p, (uint64_t)seed, 0) || !runs(p, (uint64_t)seed, 1) || !runs(p, (uint64_t)seed, 9)) {
            printf("# %s faults\n", text);
            bad_run++;
          }
        }
        free(tp);
        free(tq);
        free(to);
        lcu_program_free(p);
        lcu_program_free(q);
        lcu_program_free(o);
      }
  printf("# %d regions\n", total);
  CHECK("every region checks", bad_check == 0);
  CHECK("invocations == kernels", bad_count == 0);
  CHECK("every region runs on empty, singleton and random inputs", bad_run == 0);
  CHECK("same spec, same program", bad_det == 0);
  CHECK("other seed, other program", bad_seed == 0);
}

/* chain= is the depth, as the generator's own statistics report it. */
static void test_depth(void) {
  static const char *specs[] = {"kernels=30,chain=7", "family=chain,kernels=10,chain=4",
                                "family=siblings,kernels=10,chain=3", "family=diamond,kernels=12,chain=5",
                                "family=trap,kernels=14,chain=5", "kernels=5,chain=5,fanin=1"};
  for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
    GenSpec s;
    GenStats st;
    int ok = parses(specs[k], &s);
    if (ok) {
      LcuProgram *p = gen_region_stats(&s, &st);
      ok = st.depth == s.chain && st.invocations == s.kernels && lcu_check(p) == 0;
      if (!ok) printf("# %s: depth %d, invocations %d\n", specs[k], st.depth, st.invocations);
      lcu_program_free(p);
    }
    char name[96];
    snprintf(name, sizeof name, "depth of %s", specs[k]);
    CHECK(name, ok);
  }
  GenSpec s;
  GenStats st;
  parses("kernels=40,chain=5,fanin=3,sizes=3", &s);
  lcu_program_free(gen_region_stats(&s, &st));
  CHECK("fanin bounds the values an invocation reads", st.max_fanin <= 3);
  CHECK("fanout bounds the readers of a result", st.max_fanout <= 3);
  int over = 0;
  for (int seed = 1; seed <= 30; seed++) {
    char text[96];
    snprintf(text, sizeof text, "kernels=50,chain=%d,fanout=%d,seed=%d", 2 + seed % 9, 1 + seed % 3, seed);
    parses(text, &s);
    lcu_program_free(gen_region_stats(&s, &st));
    if (st.max_fanout > s.fanout || st.depth != s.chain) {
      printf("# %s: max fan-out %d, depth %d\n", text, st.max_fanout, st.depth);
      over++;
    }
  }
  CHECK("random: fanout and depth hold for 30 specs", over == 0);
  CHECK("sizes bounds the inputs", st.inputs >= 1 && st.inputs <= 3);
  parses("family=trap,kernels=18", &s);
  lcu_program_free(gen_region_stats(&s, &st));
  CHECK("trap kernels=18: three gadgets of M R C1 C2 C3 R2",
        st.per_kind[LS_MAP] == 6 && st.per_kind[LS_REDUCE] == 9 && st.per_kind[LS_FILTER] == 3 &&
            st.inputs == 3 && st.outputs == 9 && st.depth == 4);
}

int main(void) {
  test_parse();
  test_regions();
  test_depth();
  nz_intern_free_all();
  return 0;
}
