/* fusion.h — the fusion engine (paper §8; transcription §7): a control region's
 * dataflow graph of kernel invocations, the compatibility relations, a legality
 * checker and a cost model that are independent of every scheduler, and the
 * schedulers behind one table. Sections are named after the file implementing
 * them. Prefix: fus_. The ILP model is derived in fusion/ILP.md. */
#ifndef FUSION_H
#define FUSION_H

#include "lcu.h"

/* ------------------------------------------------------------- graph.c */

/* Iteration spaces are symbolic: two invocations with the same size id iterate
 * over equally many elements; FUS_UNKNOWN means nothing is known (then the
 * paper's shared-iterated-input proxy decides, see compat.c). */
enum { FUS_UNKNOWN = -1 };

typedef struct {
  int var;  /* index into FusGraph.var */
  int iter; /* read elementwise at the invocation's own index, i.e. it is an
               iterated input: the array's length is the iteration space */
} FusUse;

/* One kernel invocation ⟨kernel SOAC, uses, defs⟩. Before fusion every kernel
 * applies exactly one SOAC, so the SOAC kind stands for the kernel. */
typedef struct {
  const char *name; /* label (the kernel or a binder), for messages and DOT */
  LcuSoacKind soac;
  int size; /* iteration-space id or FUS_UNKNOWN; ignored for ONCE */
  int nuses;
  FusUse *uses; /* distinct variables */
  int ndefs;
  int *defs;
  /* A reduction (REDUCE, SCAN, SEGREDUCE, SEGSCAN) with a float operator:
   * reordering its operands changes the result in the last bits (set by
   * fus_region.c; 0 from fus_graph_inv). */
  int float_reduce;
} FusInv;

typedef struct {
  const char *name;
  int is_array;   /* arrays are materialised and traversed; scalars are not counted */
  int producer;   /* defining invocation, or -1 for an input of the region */
  int live_out;   /* read after the region: must be materialised */
  int nconsumers; /* distinct invocations using it, in increasing order */
  int *consumers;
} FusVar;

/* Invocations are numbered in program order, which is a topological order of
 * the dataflow: a variable's producer precedes its consumers (checked). */
typedef struct FusGraph {
  NzArena *arena;
  int ninv, nvar, nsize;
  FusInv *inv;
  FusVar *var;
  const char **size_names; /* nsize symbolic sizes, for printing */
  int finished;
  /* --strict-float (FusOptions.strict_float): fus_vcompat refuses the
   * fusions that reorder a float reduction (PERMUTE into a float REDUCE).
   * Set before scheduling; 0 from fus_graph_new. */
  int strict_float;
  /* The cost model (fus_graph_set_model; NULL: unit) and, for a sized one,
   * elements per invocation and per variable (arena). */
  const struct FusCostModel *model;
  double *inv_size, *var_size;
  /* How many times the region runs per program run (fus_graph_set_runs; 0
   * means once): fus_cost multiplies a sized model's objective by it, so
   * that a program's objective, the sum over its regions, weighs a region
   * inside a recursion or a loop by its executions. A constant factor of the
   * whole region, it changes no schedule; the driver sets it after
   * scheduling, so schedulers see the per-run objective. */
  double runs;
  /* Symbolic spaces per invocation (fus_shape.c, for graphs of λcu regions;
   * NULL otherwise): the polynomial as text, and its value where constant
   * (else -1). */
  const char **space_expr;
  double *space_value;
  /* Derived by fus_graph_finish: bit matrices of ninv rows of `words` words. */
  int words;
  uint64_t *into; /* row i, bit j: i into j (direct data dependence) */
  uint64_t *path; /* row i, bit j: a dataflow path of length >= 1 from i to j */
  int capinv, capvar, capsize;
  int *vhash, vhcap; /* variable names, open addressing (index + 1; 0 empty) */
} FusGraph;

FusGraph *fus_graph_new(void);
void fus_graph_free(FusGraph *g);
/* A size id by name ("n", "#xs"); equal names give equal ids. */
int fus_graph_size(FusGraph *g, const char *name);
int fus_graph_var(FusGraph *g, const char *name, int is_array); /* existing or new */
int fus_graph_find_var(const FusGraph *g, const char *name);    /* -1 if none */
void fus_graph_live_out(FusGraph *g, int var);
/* Adds an invocation defining `defs` (each defined once in a region). */
int fus_graph_inv(FusGraph *g, const char *name, LcuSoacKind soac, int size, int nuses,
                  const FusUse *uses, int ndefs, const int *defs);
/* Computes consumers, into and its transitive closure. Returns 0, or -1 after
 * printing why (a use before its definition). No change after finishing. */
int fus_graph_finish(FusGraph *g);
int fus_into(const FusGraph *g, int i, int j);
int fus_path(const FusGraph *g, int i, int j);  /* i ⇝ j */
int fus_indep(const FusGraph *g, int i, int j); /* no path either way, i != j */
/* Does invocation i use variable v (and is the use iterated)? -1 if not used. */
int fus_uses(const FusGraph *g, int i, int v);

/* A small text form, for tests and experiments; one statement per line or ';':
 *   NAME SOAC(SIZE): USE, USE... -> DEF, DEF...     SIZE is n, #xs or '?'; ONCE has none
 *   out VAR...                                       variables live out of the region
 * A use written `a*` is iterated. Names starting with '$' are scalars, others
 * arrays. Variables never defined are inputs of the region. '#' starts a comment.
 *   "P MAP(n): x* -> A; C REDUCE(n): A* -> $s; out $s"
 * Returns a finished graph, or NULL after printing "what: error: ..." on stderr. */
FusGraph *fus_graph_parse(const char *text, const char *what);
void fus_graph_print(NzBuf *b, const FusGraph *g); /* in the same text form */

/* --------------------------------------------------------- partition.c */

/* A partition of a region's invocations into fusion clusters: cl[i] is the
 * cluster of invocation i. Canonical form numbers clusters 0..k-1 in order of
 * their first member; fus_partition_canon rewrites cl so and returns k. */
int fus_partition_canon(int n, int *cl);
/* Union-find over parent[] (parent[a] == a at a root): a's root, halving the
 * path on the way. */
int fus_uf_find(int *parent, int a);
void fus_partition_print(NzBuf *b, const FusGraph *g, const int *cl); /* {P, C} {R} */

/* ------------------------------------------------------------ compat.c */

/* Vertical compatibility of SOAC kinds: can a `producer` flowing into a
 * `consumer` be fused (table and extensions documented in compat.c). */
int fus_soac_vcompat(LcuSoacKind producer, LcuSoacKind consumer);
/* Does that vertical fusion combine the two elementwise (the consumer must then
 * read each carried array at its own index), rather than after a barrier? */
int fus_soac_elementwise(LcuSoacKind producer, LcuSoacKind consumer);
/* Horizontal: the same SOAC. */
int fus_soac_hcompat(LcuSoacKind a, LcuSoacKind b);
/* Do i and j iterate over the same space: equal symbolic sizes, or (when a size
 * is unknown) a shared iterated input, the paper's proxy. ONCE always does. */
int fus_same_space(const FusGraph *g, int i, int j);
/* A key of i's SOAC and space, known without looking at j: two invocations
 * with the same key >= 0 are horizontally compatible when independent (same
 * SOAC; equal known sizes, or both ONCE); -1 when i's size is unknown. */
int fus_space_key(const FusGraph *g, int i);
/* For i into j: may they be fused vertically. why (may be NULL) gets a reason. */
int fus_vcompat(const FusGraph *g, int i, int j, NzBuf *why);
/* For independent i, j: may they be fused horizontally. */
int fus_hcompat(const FusGraph *g, int i, int j, NzBuf *why);
/* The pair rule the legality checker and every scheduler share: may i and j be
 * in one cluster as far as the pair itself is concerned (into: vertical;
 * independent: horizontal; connected only through others: yes, the middle
 * invocations decide). */
int fus_pair_ok(const FusGraph *g, int i, int j, NzBuf *why);

/* ------------------------------------------------------------- legal.c */

/* Is the partition legal: every fused pair passes fus_pair_ok and the graph
 * contracted by the clusters is acyclic. Returns 1, or 0 with a reason in why. */
int fus_legal(const FusGraph *g, const int *cl, NzBuf *why);
/* For a legal partition: would merging clusters c1 and c2 keep it legal?
 * O(pairs across the two clusters + edges). */
int fus_legal_merge(const FusGraph *g, const int *cl, int c1, int c2, NzBuf *why);
/* A cycle of the graph contracted by cl (canonical, k clusters): returns its
 * length L, with cyc_in[e], cyc_out[e] where it enters and leaves its e-th
 * cluster and cyc_out[e] -> cyc_in[e+1 mod L] a region edge; 0 if acyclic.
 * The arrays need room for k entries. Used by the lazy ILP variants' cuts. */
int fus_contracted_cycle(const FusGraph *g, const int *cl, int *cyc_in, int *cyc_out);

/* -------------------------------------------------------------- cost.c */

/* The one cost model (DESIGN.md "Metrics"); the objective is lexicographic in
 * kernels, then materialised arrays, then traversals (see cost.c). */
typedef struct {
  int kernels;    /* clusters */
  int arrays;     /* arrays produced in the region that must be materialised */
  int traversals; /* array reads; a read shared within a cluster counts once */
  double objective;
} FusCost;

/* The objective's weights for one graph. Under the unit model every kernel,
 * array and traversal weighs its term's constant (lexicographic, see cost.c)
 * and inv_size, var_size are NULL. Under a sized model (FusCostModel) the
 * constants are per element and a term is weighed by its size: a cluster
 * whose first member is j costs kernels + pass * inv_size[j], a materialised
 * array v arrays * var_size[v], a traversal of v traversals * var_size[v].
 * Use the accessors below rather than the fields. */
typedef struct {
  double kernels, arrays, traversals;
  double pass;
  const double *inv_size, *var_size;
} FusWeights;

static inline double fus_w_kernel(const FusWeights *w, int j) {
  return w->kernels + (w->inv_size ? w->pass * w->inv_size[j] : 0);
}
static inline double fus_w_array(const FusWeights *w, int v) {
  return w->arrays * (w->var_size ? w->var_size[v] : 1);
}
static inline double fus_w_read(const FusWeights *w, int v) {
  return w->traversals * (w->var_size ? w->var_size[v] : 1);
}
/* Under a sized model the weights above are per run of the region; the
 * objective fus_cost reports is multiplied by the graph's runs (FusGraph). */

void fus_cost(const FusGraph *g, const int *cl, FusCost *out);
void fus_cost_before(const FusGraph *g, FusCost *out); /* the all-singleton partition */
FusWeights fus_cost_weights(const FusGraph *g);

/* A cost model (issue 38; fusion/README.md "Cost models"). `unit` is the
 * paper's lexicographic model; a sized model prices each term in seconds per
 * element from a calibration of the machine (cost_model.c):
 *   objective = sum over clusters (launch + pass * space)
 *             + sum over materialised arrays write * length
 *             + sum over traversals read * length
 * where space and length come from the graph's sizes (fus_graph_set_sizes),
 * default_size elements where nothing is known. */
typedef struct FusCostModel {
  int unit;
  double launch, pass, write, read;
  double default_size;
  const char *origin; /* "unit", or the file it was read from (for reports) */
} FusCostModel;
extern const FusCostModel fus_cost_unit;
/* Reads a cost file (the text form fus_cost_model_print writes). Returns 0,
 * or -1 after printing "FILE:LINE:COL: error: ..." on stderr. The model's
 * origin is `path` (or `what`), which must outlive it (a command-line word). */
int fus_cost_model_load(const char *path, FusCostModel *out);
int fus_cost_model_parse(const char *text, const char *what, FusCostModel *out);
void fus_cost_model_print(NzBuf *b, const FusCostModel *m, const char *comment);
/* Attaches a model to a finished graph, with measured elements per
 * invocation (inv_elems[i] < 0: unknown; NULL: none known); a constant
 * symbolic space (space_value) takes precedence over them. Array lengths
 * are derived: an array's iterating consumer's space, else its producer's,
 * else the model's default. The unit model ignores sizes. */
void fus_graph_set_model(FusGraph *g, const FusCostModel *m, const double *inv_elems);
/* The region's executions per program run (runs >= 1; the default is 1), from
 * a profile's launch counts: scales a sized model's objective (FusGraph.runs). */
void fus_graph_set_runs(FusGraph *g, double runs);

/* One line of a runtime profile (runtime/README.md; DESIGN.md's columns
 * program,backend,device,kernel,cluster,soacs,launches,elements,
 * bytes_allocated,seconds), split in place from the right (a program path may
 * hold commas). Returns 1 for a kernel's row, 0 for the header and the
 * (total) row, -1 for anything else. */
typedef struct {
  const char *kernel;
  char *cluster; /* invocation names separated by spaces */
  double soacs, launches, elements, bytes, seconds;
} FusProfileRow;
int fus_profile_row(char *line, FusProfileRow *out);

/* Least squares with non-negative coefficients (cost_model.c), for the
 * calibration: minimises |A x - y| over x >= 0, A row-major nrow x ncol
 * (ncol <= 8), by active sets on the normal equations. Returns 0, or -1 when
 * the system is degenerate (a column of zeros, fewer rows than columns). */
int fus_nnls(int nrow, int ncol, const double *A, const double *y, double *x);

/* ------------------------------------------------------------- sched.c */

typedef enum { FUS_GLPK, FUS_CBC } FusSolver;

typedef enum {
  FUS_ST_OPTIMAL,  /* proven optimal (ilp, exhaustive) */
  FUS_ST_FEASIBLE, /* time limit: the solver's best feasible schedule */
  FUS_ST_FALLBACK, /* time limit without a feasible schedule: the greedy one */
  FUS_ST_GREEDY,   /* a heuristic (none, greedy-*): nothing proven */
} FusStatus;
const char *fus_status_name(FusStatus s); /* optimal, feasible, time-limit fallback, greedy */

typedef struct {
  FusSolver solver;
  double time_limit; /* seconds per solve; <= 0: none */
  /* A deterministic bound on an exact scheduler's search (0: none), checked
   * beside time_limit, whichever comes first; on expiry the status says so
   * just as for the time limit. The unit is the scheduler's own counted work:
   * ilp, ilp-mono, ilp-bare, ilp-lazy, ilp-decomp: branch-and-bound nodes per
   * ILP solve (GLPK, CBC); ilp-cg: work units of its search, about a
   * microsecond each on this machine (WORK_COL per column of each master LP
   * solved, WORK_NODE per pricing search node; its heuristics run every 5 %
   * of the limit), its restricted-master MIPs bounded by nodes, not seconds.
   * Counted, not timed: a run with a work limit and no time limit takes the
   * same path and ends with the same schedule on any machine and under any
   * load. */
  long long work_limit;
  /* Refuse the fusions that reorder a float reduction (compat.c,
   * fus_vcompat): fused programs then give bit-identical results to the
   * unfused interpreter (fusion/README.md, "Decisions"). */
  int strict_float;
  unsigned long long seed; /* the `random` scheduler's (--partition-seed) */
  const char *dump_ilp; /* write each ILP instance here (CPLEX LP), or NULL */
  int dump_seq;         /* instances dumped so far; the second gets FILE.1 etc. */
  int dump_failed;      /* some instance could not be written (the scheduler then fails) */
} FusOptions;
void fus_options_default(FusOptions *o); /* glpk, 10 s, no work limit, no dump */
#define FUS_WORK_LIMIT_MAX 1000000000000LL /* the largest --work-limit accepted */

typedef struct {
  int n;
  int *cl; /* canonical partition, malloc'ed */
  FusStatus status;
  double solve_seconds; /* scheduler wall time (the solver's part for ilp) */
  double build_seconds; /* ilp: building the instance */
  int nvars, nconstraints;
  long nodes; /* branch-and-bound nodes where the solver reports them, else -1 */
  double solver_objective; /* ilp: the solver's objective value */
} FusSchedule;
void fus_schedule_free(FusSchedule *s);

/* A scheduler fills out->cl (n entries, any numbering) and the statistics it
 * knows; returns 0, or -1 after printing an error (e.g. region too large). */
typedef int (*FusSchedFn)(const FusGraph *g, FusOptions *opt, FusSchedule *out);
typedef struct {
  const char *name;
  FusSchedFn run;
  const char *help;
} FusScheduler;
extern const FusScheduler fus_schedulers[]; /* ends with {NULL} */
const FusScheduler *fus_scheduler_find(const char *name);
void fus_schedulers_help(FILE *f); /* one line per strategy, for --help */
/* Runs a scheduler, canonicalises its partition and checks it with the legality
 * checker (an illegal schedule is an internal error). */
int fus_schedule(const FusGraph *g, const char *name, FusOptions *opt, FusSchedule *out);

/* The schedulers (each in its own file, listed in sched.c's table). */
int fus_sched_none(const FusGraph *g, FusOptions *opt, FusSchedule *out);        /* sched_none.c */
int fus_sched_greedy_down(const FusGraph *g, FusOptions *opt, FusSchedule *out); /* sched_greedy.c */
int fus_sched_greedy_up(const FusGraph *g, FusOptions *opt, FusSchedule *out);   /* sched_greedy.c */
/* The greedy core: down = 1 top-down, 0 bottom-up. reference = 1 decides each
 * merge with fus_legal_merge instead of the incremental check (for tests). */
void fus_greedy(const FusGraph *g, int *cl, int down, int reference);
/* The horizontal sweep alone, from a start: each invocation tries to merge
 * with the first invocation of its cluster in seed (a partition; merges that
 * are not legal are refused), then the sweep runs. For tests of the sweep's
 * filters, on pairs of clusters greedy's vertical phase would have settled. */
void fus_greedy_seeded(const FusGraph *g, int *cl, int down, int reference, const int *seed);
int fus_sched_ilp(const FusGraph *g, FusOptions *opt, FusSchedule *out);         /* sched_ilp.c: per group */
int fus_sched_ilp_mono(const FusGraph *g, FusOptions *opt, FusSchedule *out);    /* sched_ilp.c: whole region */
int fus_sched_ilp_bare(const FusGraph *g, FusOptions *opt, FusSchedule *out);    /* sched_ilp.c */
int fus_sched_ilp_lazy(const FusGraph *g, FusOptions *opt, FusSchedule *out);    /* ilp_lazy.c */
int fus_sched_ilp_decomp(const FusGraph *g, FusOptions *opt, FusSchedule *out);  /* sched_ilp_decomp.c */
int fus_sched_ilp_cg(const FusGraph *g, FusOptions *opt, FusSchedule *out);      /* sched_ilp_cg.c */
/* ilp-cg's branch on the number of arrays (ILP.md, "Branching"), at a node
 * whose partitions cost at least `bound` and have at least klo kernels, whose
 * LP solution has `as` arrays (fractional) and `ts` traversals: the children
 * are "arrays <= *a" and "traversals <= *thi", which holds for every
 * partition with more arrays that costs less than `best` (*thi = -1: there
 * is none). Returns 0 if `as` is integral or the second child would keep the
 * LP's solution. */
int fus_cg_array_branch(FusWeights w, double bound, int klo, double best, double as, double ts, int *a, int *thi);
int fus_sched_exhaustive(const FusGraph *g, FusOptions *opt, FusSchedule *out);  /* exhaustive.c */
int fus_sched_random(const FusGraph *g, FusOptions *opt, FusSchedule *out);      /* sched_random.c */

/* -------------------------------------------------------- exhaustive.c */

/* Enumerates every partition (restricted growth strings, pruned by the pair
 * rule), keeps the legal ones, and returns the least cost; best gets a
 * partition reaching it. nlegal (may be NULL) counts legal partitions. */
enum { FUS_EXHAUSTIVE_MAX = 12 };
double fus_exhaustive(const FusGraph *g, int *best, long *nlegal);

/* --------------------------------------------------------------- ilp.c */

/* A solver-independent 0/1-integer program: columns with bounds, kind and
 * objective; rows `sum coef*col  sense  rhs` with sense 'L' (<=), 'G' (>=), 'E'. */
typedef struct FusIlp {
  NzArena *arena;
  int ncols, nrows, nnz;
  const char **colname;
  double *lb, *ub, *obj;
  char *isint;
  const char **rowname;
  char *sense;
  double *rhs;
  int *rowstart; /* nrows + 1 */
  int *idx;      /* nnz column indices */
  double *val;
  int capcols, caprows, capnnz;
  /* Where the model's variables live. */
  int n;     /* invocations */
  int *ocol; /* column of o_i */
  char *role; /* per column: 'o' 'f' 'd' 'k' 'c' 't' (ILP.md), 'x' (ilp_lazy.c) */
  int *ra, *rb; /* per column: o_i: i; f_ij, d_ij: i, j; k_j: j; c_a: a; t_ia: i, a */
  /* Lazy rows (lazy[r] = 1; rows are made lazy while lazy_mode is set): part
   * of the model, but a solver that can add rows during its search (GLPK)
   * starts without them and adds each one when a relaxation violates it.
   * separate (may be NULL) is asked about every integral relaxation solution
   * x (length ncols); it may append lazy rows that x violates (cuts valid for
   * every legal partition) and returns how many it appended. */
  char *lazy;
  int lazy_mode;
  /* A proven lower bound on the optimum (0: none): a solver that can may stop
   * at a solution reaching it, which is then optimal. A bound is better
   * handed over this way than as a row on the objective, which made GLPK's
   * relaxations degenerate (measured: 2.8 s without such a row, not proven
   * in 19 s with it, on a 67-invocation group). */
  double lower_bound;
  int (*separate)(void *ctx, struct FusIlp *m, const double *x);
  void *separate_ctx;
  /* A primal heuristic (may be NULL): from a relaxation solution x, write a
   * feasible solution vector to out and return 1, or return 0. */
  int (*heuristic)(void *ctx, const struct FusIlp *m, const double *x, double *out);
  void *heuristic_ctx;
  /* Ask the solver not to generate cuts of its own (CBC; GLPK generates
   * none by default): on ilp-cg's set-partitioning restricted masters CBC's
   * root cuts took its whole 1 s budget, without them it proves in 0.14 s. */
  char no_cuts;
  /* Branch-and-bound nodes the solver may explore (0: no limit): the
   * deterministic limit (FusOptions.work_limit); reaching it reports
   * timed_out like the time limit. */
  long long node_limit;
} FusIlp;

/* The reference formulation of paper §8 as corrected in fusion/ILP.md, with
 * its implied rows (implied = 1, what fus_ilp_build and `ilp` use) or
 * without them (0, the `ilp-bare` scheduler, kept to measure what they buy). */
FusIlp *fus_ilp_build(const FusGraph *g);
FusIlp *fus_ilp_build_variant(const FusGraph *g, int implied);
void fus_ilp_free(FusIlp *m);
/* Building blocks for other formulations: an empty model for n invocations,
 * a column (returns its index; role/a/b as in FusIlp), and a row built term by
 * term (fus_ilp_row starts it, fus_ilp_term adds to the latest row). */
FusIlp *fus_ilp_new(int n);
int fus_ilp_col(FusIlp *m, const char *name, double lb, double ub, double obj, int isint, char role, int a, int b);
void fus_ilp_row(FusIlp *m, const char *name, char sense, double rhs);
void fus_ilp_term(FusIlp *m, int col, double coef);
/* Clusters from equal o values of a solution vector. */
void fus_ilp_recover(const FusIlp *m, const double *x, int *cl);
/* The solution vector of a legal partition (o = topological rank of the
 * cluster, every other variable its indicator value): a MIP start, and the
 * first half of ILP.md's proof made executable. */
void fus_ilp_assign(const FusIlp *m, const FusGraph *g, const int *cl, double *x);
/* Is x within bounds, integral where required and satisfying every row?
 * Returns 1, or 0 with the first violation in why. obj gets its objective. */
int fus_ilp_feasible(const FusIlp *m, const double *x, double *obj, NzBuf *why);

/* ilp_glpk.c / ilp_cbc.c: solve; x (ncols) gets the best solution found. */
typedef struct {
  int has_solution; /* x holds an integer-feasible solution */
  int optimal;      /* proven optimal */
  int timed_out; /* the time limit or the node limit cut the search */
  double objective;
  long nodes; /* -1 if not reported */
  long lazy_rows; /* lazy rows the solver added to its LP (GLPK) */
  int crashed;    /* the solver died (CBC runs in a child process); no solution */
} FusIlpResult;
/* start (may be NULL) is a feasible solution handed to the solver first. */
int fus_ilp_solve_glpk(FusIlp *m, double time_limit, const double *start, double *x, FusIlpResult *r);
int fus_ilp_solve_cbc(const FusIlp *m, double time_limit, const double *start, double *x, FusIlpResult *r);
/* The one a FusSolver names (ilp_glpk.c), given start only if it satisfies
 * every row and bound. */
int fus_ilp_solve(FusSolver solver, FusIlp *m, double time_limit, const double *start, double *x, FusIlpResult *r);
/* Around a GLPK problem kept alive across solves (ilp-cg): the solves free
 * GLPK's per-thread environment only while none is held. */
void fus_glpk_hold(void);
void fus_glpk_release(void);
/* sched_ilp.c: --dump-ilp: writes m to FILE, then FILE.1, FILE.2, ... for
 * later instances. 0, or -1 after printing why. */
int fus_ilp_dump(const FusIlp *m, FusOptions *opt);
/* Writes the instance in CPLEX LP format (through glp_write_lp). 0 or -1. */
int fus_ilp_write_lp(const FusIlp *m, const char *path);

/* ----------------------------------------------------------- improve.c */

/* Local search on a legal partition cl: legal cluster merges, then single
 * invocations moved to another cluster or alone, while the objective drops,
 * for at most budget legality checks (FUS_CHECKS_PER_SECOND of them take
 * about a second at 300 invocations; a count, not a time, so that a run
 * repeats whatever the machine's load). movable (may be NULL: all) marks the
 * invocations that may move; clusters holding any other stay as they are.
 * cl stays legal, canonical, and never gets worse. */
#define FUS_CHECKS_PER_SECOND 400000L
void fus_improve(const FusGraph *g, int *cl, const char *movable, long budget);

/* ------------------------------------------------------------ decomp.c */

/* Apart pairs (ILP.md, "Implied rows"): the pair rule (fus_pair_ok), closed
 * under "i ⇝ m ⇝ j with m apart from i or j". No legal partition puts an
 * apart pair in one cluster. n*n chars, malloc'ed. */
char *fus_apart(const FusGraph *g);
/* forced.c: pairs every optimal partition fuses (ILP.md, "Forced pairs"),
 * found on atoms (sets already known to be fused) until no more are: a source
 * atom whose outside readers are all in one atom w and that reads from outside
 * only scalars and live-out arrays, or a sink atom that no one outside reads
 * and that reads from outside only w; an array read only within the pair,
 * not live out; and the pair rule between the atom and whatever may share a
 * cluster with w. partner[r] = w for the root r of each atom joined to w, else
 * -1. order (unless NULL): the joined roots in the order they were joined.
 * Returns how many atoms were joined. */
int fus_forced_partners(const FusGraph *g, const char *apart, int *partner, int *order);
/* Moves each joined atom of fus_forced_partners into its partner's cluster,
 * in join order, where the partition cl splits them: a legal partition stays
 * legal and gets cheaper (ILP.md, "Forced pairs"). Returns the moves made. */
int fus_forced_apply(int n, const int *partner, const int *order, int count, int *cl);
/* Representative rows shared by group models (ILP.md, "Representatives"):
 * yc[a*ng+b] is the column of "local a represents local b" or -1, k_a is
 * column kbase + a. rep_MEMBER: k_b + Σ_a y_ab = 1; and for each a its later
 * partners split greedily into sets of pairwise apart members, with
 * Σ_{b in set} y_ab <= k_a per set of two or more (rep_indep_MEMBER_ROUND). */
struct FusGroup;
void fus_ilp_rep_rows(FusIlp *m, const struct FusGroup *G, const int *yc, int kbase);
/* The read rows of the x-formulations (ilp-lazy, ilp-decomp; ILP.md,
 * "Traversals"): for each read of an array by i (a member: lid NULL or
 * lid[i] >= 0), t_ia >= 1 - Σ x(earlier reader, i) - x(producer, i), with
 * xcol(ctx, i, j) the column of "i and j fused" or -1. */
void fus_ilp_read_rows(FusIlp *m, const FusGraph *g, FusWeights w, const int *lid,
                       int (*xcol)(const void *ctx, int i, int j), const void *ctx);
/* ilp.c: the size of a set of pairwise apart invocations among mem[0..ng),
 * chosen greedily (most apart partners first): a lower bound on the kernels
 * (row kernels_clique). */
int fus_apart_clique(const FusGraph *g, const char *apart, const int *mem, int ng);
/* Makes a partition that satisfies the pair rule acyclic (and so legal) by
 * splitting a cluster on each contracted cycle in turn, in two where it can
 * (the cheapest such split on the cycle), else into single invocations; cl
 * ends canonical. cin/cout: room for n entries; name for errors. */
void fus_split_cycles(const FusGraph *g, int *cl, int *cin, int *cout, const char *name);
/* The same; halves = 0 splits into single invocations only. seen, if not
 * NULL, gets each cycle before it is split (the first is cl's own; the others
 * are the partly split partitions', just as real). */
void fus_split_cycles_seen(const FusGraph *g, int *cl, int *cin, int *cout, const char *name, int halves,
                           void (*seen)(void *ctx, const int *cin, const int *cout, int len), void *ctx);
/* A repair of such a partition: split both ways, each polished by fus_improve
 * with half of `budget` checks (none if 0), the cheaper kept. seen as above,
 * for the splits in two. */
void fus_repair(const FusGraph *g, int *cl, const char *movable, long budget, const char *name,
                void (*seen)(void *ctx, const int *cin, const int *cout, int len), void *ctx);
/* The better of greedy-down and greedy-up (a legal start and the fallback). */
void fus_greedy_best(const FusGraph *g, int *cl);

/* One group of a decomposed solve (ILP.md, "The decomposed variant"): members
 * mem[0..ng) in increasing order, lid[i] = local index of i or -1. Every
 * other invocation is a singleton whose kernel, arrays and reads are
 * constants, so a group's model leaves them out. */
typedef struct FusGroup {
  const FusGraph *g;
  int n;
  const char *apart; /* fus_apart */
  int ng;
  const int *mem, *lid;
  const int *partner; /* fus_forced_partners, when the model asks for them; else NULL */
} FusGroup;

/* A formulation solved group by group. build makes the group's model (aux:
 * whatever the other hooks need, freed by free_aux); assign fills x with the
 * solution vector of a legal partition cl (others alone); recover reads the
 * partition back (others alone; any numbering); cut excludes a contracted
 * cycle (cin/cout/len as fus_contracted_cycle) found in a solution, or is NULL
 * when the model excludes cycles by itself. The cycle may pass through
 * clusters of non-members that the driver holds fixed (a repair, decomp.c):
 * pairs outside the group then count as fused, and cut returns 0 when no
 * member pair is left to cut (the fixed clusters alone force the cycle),
 * else 1. */
typedef struct {
  const char *name;
  FusIlp *(*build)(const FusGroup *G, FusWeights w, void **aux);
  void (*assign)(const FusGroup *G, void *aux, const FusIlp *m, const int *cl, double *x);
  void (*recover)(const FusGroup *G, void *aux, const FusIlp *m, const double *x, int *cl);
  int (*cut)(const FusGroup *G, void *aux, FusIlp *m, const int *cin, const int *cout, int len, int ncut);
  void (*free_aux)(void *aux);
  int forced; /* build may use G->partner: pairs every optimal partition fuses */
} FusGroupModel;

/* The decomposition driver: groups start as the components of the fusable
 * (not apart) graph, each is solved with gm, and groups whose optima form a
 * cycle together are merged and solved again. Exact (ILP.md). */
int fus_sched_decomposed(const FusGraph *g, FusOptions *opt, FusSchedule *out, const FusGroupModel *gm);

/* ilp.c: the reference model of one group (ILP.md, "Solving the reference per
 * group"): o, f, d, k, c, t for the members only, dependent pairs from the
 * whole region's paths. It excludes cycles through non-members by itself
 * (cut = NULL). tight selects the tightenings, each valid for every legal
 * partition (FUS_TIGHT_DEFAULT: those that measured as helping). */
enum {
  FUS_TIGHT_M = 1,       /* o in 0..ng-1, each big-M the pair's own o span */
  FUS_TIGHT_APART = 2,   /* apart pairs: f fixed to 1 by bounds, o_i + 1 <= o_j */
  FUS_TIGHT_OBOUNDS = 4, /* o bounds from apart steps on dependent chains */
  FUS_TIGHT_ARRAYS = 8,  /* c_a >= f between consumers; c_a = 1 when forced */
  FUS_TIGHT_CONSEC = 16, /* clusters at consecutive positions: o <= sum k - 1 */
  FUS_TIGHT_THIRD = 32,  /* f_im + f_jm >= 1 for apart i, j */
  FUS_TIGHT_CONVEX = 64, /* f_im, f_mj <= f_ij for i ⇝ m ⇝ j */
  FUS_TIGHT_TRANS = 128, /* f_ik <= f_ij + f_jk */
  FUS_TIGHT_NOTFIRST = 256, /* k_j <= f_ij for fusable i < j */
  FUS_TIGHT_REP = 512,   /* representatives y_ij = (1 - f_ij) AND k_i, as ilp-decomp */
  FUS_TIGHT_CROSS = 1024, /* f_ab <= f_ad + f_bc for a ⇝ b, c ⇝ d: two-cluster cycles */
  FUS_TIGHT_ALL = 2047,
  /* Measured (ILP.md, "Implied rows"): CONVEX and TRANS cost more than they
   * save; NOTFIRST is part of REP. */
  FUS_TIGHT_DEFAULT = FUS_TIGHT_M | FUS_TIGHT_APART | FUS_TIGHT_OBOUNDS | FUS_TIGHT_ARRAYS | FUS_TIGHT_CONSEC |
                      FUS_TIGHT_THIRD | FUS_TIGHT_REP | FUS_TIGHT_CROSS,
};
FusIlp *fus_ilp_build_group(const FusGroup *G, FusWeights w, int tight);
void fus_ilp_group_assign(const FusGroup *G, void *aux, const FusIlp *m, const int *cl, double *x);
void fus_ilp_group_recover(const FusGroup *G, void *aux, const FusIlp *m, const double *x, int *cl);
extern const FusGroupModel fus_ilp_group; /* fus_ilp_build_group with FUS_TIGHT_DEFAULT */

/* ------------------------------------------------------------ random.c */

/* A random region of n invocations for property tests: mixed SOACs, shared
 * inputs, symbolic sizes from a small pool (some unknown), scalars between
 * REDUCE/ONCE and the rest, random live-outs. Same seed, same graph. */
FusGraph *fus_graph_random(uint64_t seed, int n);

/* --------------------------------------------------------------- dot.c */

/* Writes the region with its clusters (cl may be NULL: no fusion) as
 * BASE.dot and renders BASE.svg (and BASE.png with FUS_DOT_PNG) with Graphviz,
 * giving the drawing at most `seconds` (<= 0: no limit; dot's layout grows
 * much faster than the graph: 1000 invocations take a second or two, 2000
 * over a minute, 10000 more than ten minutes). Returns 0, or -1 after
 * printing why (BASE.dot is kept, no picture is left half written). */
#define FUS_DOT_TIME_LIMIT 60.0 /* the CLIs' default, --dot-time-limit */
/* flags: FUS_DOT_PNG also renders BASE.png; FUS_DOT_SCALARS draws each input scalar of
 * the region as a node with an edge to every user (by default they are folded into
 * their users' labels). Every picture carries a legend. */
enum { FUS_DOT_PNG = 1, FUS_DOT_SCALARS = 2 };
int fus_dot_write(const FusGraph *g, const int *cl, const char *title, const char *base, int flags, double seconds);

#endif
