/* dot.c — draws a region and its schedule with Graphviz (cgraph + gvc): one
 * Graphviz cluster per fusion cluster, labelled with its SOACs and the arrays it
 * reads and writes; invocations labelled with name, SOAC, iteration space and the
 * region's input scalars they use; edges labelled with the variable they carry.
 * Arrays fusion eliminates (every consumer fused with the producer, not live out)
 * are drawn dashed and grey, so the picture alone shows what a schedule saves; a
 * legend says what each mark means. */
#include "fusion.h"

#include <errno.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *S(const char *s) { return (char *)s; } /* cgraph's API is not const-correct */

/* One Graphviz context per process: creating a second one after freeing the
 * first reads freed font data in graphviz 2.42's pango plugin (ASan reports
 * it), so the context lives until exit. */
static GVC_t *the_gvc;
static void free_gvc(void) {
  if (the_gvc) gvFreeContext(the_gvc);
  the_gvc = NULL;
}
static GVC_t *gvc_get(void) {
  if (!the_gvc) {
    the_gvc = gvContext();
    atexit(free_gvc);
  }
  return the_gvc;
}

/* Graphviz's text layout (pango, fontconfig) keeps font caches it never
 * frees; LeakSanitizer, which the test suite runs, would report them in every
 * binary that draws. This hook (read by LSan at exit, ignored otherwise)
 * suppresses leaks allocated inside those libraries only. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
  return "leak:libfontconfig.so\nleak:libpango\nleak:libcairo.so\nleak:libgvc.so\nleak:libgvplugin\n";
}

static void set(void *obj, const char *attr, const char *value) { agsafeset(obj, S(attr), S(value), S("")); }

/* Graphviz's errors while laying out and rendering: the first whole line
 * that is an error is kept for our message (dot's own can run to thousands
 * of lines); warnings pass through to stderr. Graphviz hands a message over
 * in pieces ("Error", ": ", "lost ... edge\n"). */
static char gv_line[512], gv_first_error[256];
static int gv_capture(char *msg) {
  size_t len = strlen(gv_line);
  snprintf(gv_line + len, sizeof gv_line - len, "%s", msg);
  char *nl = strchr(gv_line, '\n');
  if (!nl && strlen(gv_line) + 1 < sizeof gv_line) return 0;
  if (nl) *nl = 0;
  if (strncmp(gv_line, "Warning", 7) == 0) fprintf(stderr, "%s\n", gv_line);
  else if (!gv_first_error[0]) snprintf(gv_first_error, sizeof gv_first_error, "%.255s", gv_line);
  gv_line[0] = 0;
  return 0;
}

/* Do the last n bytes of the file at path equal tail? */
static int ends_with(const char *path, const char *tail, long n) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char buf[16] = {0};
  int ok = fseek(f, -n, SEEK_END) == 0 && fread(buf, 1, (size_t)n, f) == (size_t)n && !memcmp(buf, tail, (size_t)n);
  fclose(f);
  return ok;
}

/* Lays out G and renders it as BASE.svg (and .png). Runs in a child
 * process: Graphviz 2.42's dot layout has known crashes on some clustered
 * graphs (a double free after it loses an edge, errors its libpath prints
 * without reporting them), and a crash there must not take the compiler
 * down or leave a half-written picture. Nor may a layout that would take
 * hours: past `seconds` (> 0) the child is killed. Returns 0, or -1 with a
 * message. */
static int render(Agraph_t *G, const char *base, int png, double seconds, int ninv) {
  /* Drawn under temporary names, renamed once complete: Graphviz ignores
   * what fclose reports, so a full disk could leave a truncated picture;
   * the parent checks each file's last bytes first (ends_with). */
  size_t blen = strlen(base) + 40;
  char *svg = nz_xmalloc(blen), *pngp = nz_xmalloc(blen), *svg_final = nz_xmalloc(blen), *png_final = nz_xmalloc(blen);
  snprintf(svg_final, blen, "%s.svg", base);
  snprintf(png_final, blen, "%s.png", base);
  snprintf(svg, blen, "%s.svg.tmp%ld", base, (long)getpid());
  snprintf(pngp, blen, "%s.png.tmp%ld", base, (long)getpid());
  GVC_t *gvc = gvc_get(); /* loaded once, here; each child inherits it */
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    gv_line[0] = gv_first_error[0] = 0;
    agreseterrors();
    agseterrf(gv_capture);
    int rc = 0;
    if (gvLayout(gvc, G, "dot") != 0 || agerrors() >= AGERR) {
      nz_error("graphviz could not lay out %s.dot%s%s", base, gv_first_error[0] ? ": " : "", gv_first_error);
      rc = 1;
    } else if (gvRenderFilename(gvc, G, "svg", svg) != 0 || (png && gvRenderFilename(gvc, G, "png", pngp) != 0) ||
               agerrors() >= AGERR) {
      nz_error("graphviz could not draw %s%s%s", base, gv_first_error[0] ? ": " : "", gv_first_error);
      rc = 1;
    }
    fflush(stderr);
    _exit(rc); /* no atexit handlers, no flushing the parent's buffers again */
  }
  int status = 0, rc = 0;
  if (pid < 0) {
    nz_error("cannot draw %s: fork: %s", base, strerror(errno));
    rc = -1;
  } else {
    /* wait, polling from 1 ms up to 50 ms apart, until the child ends or
     * the limit passes */
    double end = seconds > 0 ? nz_now() + seconds : 0;
    long nap = 1000000;
    int late = 0;
    for (;;) {
      pid_t w = waitpid(pid, &status, seconds > 0 ? WNOHANG : 0);
      if (w == pid || (w < 0 && errno != EINTR)) break;
      if (w == 0 && nz_now() >= end) {
        kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        late = 1;
        break;
      }
      if (w == 0) {
        struct timespec ts = {0, nap};
        nanosleep(&ts, NULL);
        if (nap < 50000000) nap *= 2;
      }
    }
    if (late) {
      nz_error("graphviz did not finish drawing %s within %g s (%d invocations); %s.dot is written: render it "
               "with `dot -Tsvg %s.dot -o %s.svg`, or raise --dot-time-limit",
               base, seconds, ninv, base, base, base);
      rc = -1;
    } else if (WIFSIGNALED(status)) {
      nz_error("graphviz crashed (signal %d) drawing %s; %s.dot is written", WTERMSIG(status), base, base);
      rc = -1;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      rc = -1;
    } else if (!ends_with(svg, "</svg>\n", 7) || (png && !ends_with(pngp, "IEND\xae\x42\x60\x82", 8))) {
      nz_error("cannot write the picture of %s (a write error: disk full?)", base);
      rc = -1;
    } else if (rename(svg, svg_final) != 0 || (png && rename(pngp, png_final) != 0)) {
      nz_error("cannot rename the picture of %s into place: %s", base, strerror(errno));
      unlink(svg_final);
      rc = -1;
    }
  }
  /* no half-written pictures, no temporaries */
  unlink(svg);
  unlink(pngp);
  free(svg);
  free(pngp);
  free(svg_final);
  free(png_final);
  return rc;
}

/* Appends name to a comma-separated list of at most `max` names ("..." after). */
static void list_add(NzBuf *b, int *count, const char *name, int max) {
  if (*count < max) nz_buf_printf(b, "%s%s", *count ? ", " : "", name);
  else if (*count == max) nz_buf_puts(b, ", ...");
  (*count)++;
}

/* A cluster's label: its kernel, its SOACs with counts, and the arrays it reads from
 * outside and writes for outside (consumers in other kernels, or live out). */
static void cluster_label(const FusGraph *g, const int *cl, int x, int size, NzBuf *b) {
  nz_buf_printf(b, size > 1 ? "kernel %d (fused: %d):" : "kernel %d:", x, size);
  for (int sk = 0; sk <= LS_SEGSCAN; sk++) {
    int c = 0;
    for (int i = 0; i < g->ninv; i++) c += cl[i] == x && (int)g->inv[i].soac == sk;
    if (c) nz_buf_printf(b, c > 1 ? " %s x%d" : " %s", lcu_soac_name((LcuSoacKind)sk), c);
  }
  /* The iteration spaces it runs over: invocations over different spaces
   * cannot share a kernel, so two neighbouring kernels with different spaces
   * say at a glance why they were split. */
  NzBuf sp = {0};
  int ns = 0;
  for (int i = 0; i < g->ninv; i++) {
    if (cl[i] != x || g->inv[i].soac == LS_ONCE) continue;
    int seen = 0;
    for (int j = 0; j < i && !seen; j++)
      seen = cl[j] == x && g->inv[j].soac != LS_ONCE && g->inv[j].size == g->inv[i].size;
    if (!seen) list_add(&sp, &ns, g->inv[i].size == FUS_UNKNOWN ? "?" : g->size_names[g->inv[i].size], 3);
  }
  if (ns) nz_buf_printf(b, "\\nover %s", sp.s);
  nz_buf_free(&sp);
  NzBuf rd = {0}, wr = {0};
  int nr = 0, nw = 0;
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x_ = &g->var[v];
    if (!x_->is_array) continue;
    int inside = x_->producer >= 0 && cl[x_->producer] == x, read = 0, out = inside && x_->live_out;
    for (int u = 0; u < x_->nconsumers; u++) {
      if (cl[x_->consumers[u]] == x && !inside) read = 1;
      if (cl[x_->consumers[u]] != x && inside) out = 1;
    }
    if (read) list_add(&rd, &nr, x_->name, 6);
    if (out) list_add(&wr, &nw, x_->name, 6);
  }
  nz_buf_printf(b, "\\narrays in: %s\\narrays out: %s", nr ? rd.s : "-", nw ? wr.s : "-");
  nz_buf_free(&rd);
  nz_buf_free(&wr);
}

/* What the marks mean, drawn in every picture. */
static void legend(Agraph_t *G, int scalars) {
  Agraph_t *L = agsubg(G, S("cluster_legend"), 1);
  set(L, "label", "legend");
  set(L, "style", "rounded");
  set(L, "color", "#bbbbbb");
  Agnode_t *t = agnode(L, S("legend_text"), 1);
  set(t, "shape", "plaintext");
  set(t, "fontsize", "10");
  set(t, "label", scalars ? "blue frame: a kernel of several fused invocations\\l"
                            "grey frame: an invocation left alone\\l"
                            "over: the kernel's iteration spaces\\l"
                            "box: an invocation (its SOAC and iteration space)\\l"
                            "solid edge: an array materialised between kernels\\l"
                            "dashed grey edge: an array fusion eliminated\\l"
                            "dotted edge: a scalar\\l"
                            "cylinder, ellipse: an array, a scalar the region reads\\l"
                            "live out: read after the region\\l"
                          : "blue frame: a kernel of several fused invocations\\l"
                            "grey frame: an invocation left alone\\l"
                            "over: the kernel's iteration spaces\\l"
                            "box: an invocation (its SOAC and iteration space;\\l"
                            "  uses: the region's input scalars it reads)\\l"
                            "solid edge: an array materialised between kernels\\l"
                            "dashed grey edge: an array fusion eliminated\\l"
                            "dotted edge: a scalar computed in the region\\l"
                            "cylinder: an array the region reads\\l"
                            "live out: read after the region\\l");
}

int fus_dot_write(const FusGraph *g, const int *cl_in, const char *title, const char *base, int flags, double seconds) {
  int png = (flags & FUS_DOT_PNG) != 0, scalars = (flags & FUS_DOT_SCALARS) != 0;
  int n = g->ninv;
  int *cl = nz_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) cl[i] = cl_in ? cl_in[i] : i;
  int k = fus_partition_canon(n, cl);
  int *csize = nz_xcalloc((size_t)(k ? k : 1), sizeof(int));
  for (int i = 0; i < n; i++) csize[cl[i]]++;
  char buf[512];

  Agraph_t *G = agopen(S(title ? title : "region"), Agdirected, NULL);
  set(G, "label", title ? title : "region");
  set(G, "labelloc", "t");
  set(G, "fontname", "Helvetica");
  /* Rank the whole graph at once rather than cluster by cluster: dot's
   * default ranking loses edges between clusters on larger regions
   * ("Error: lost inv192 inv294 edge" at 300 invocations), after which
   * Graphviz 2.42 frees the layout twice and the process aborts. */
  set(G, "newrank", "true");
  agattr(G, AGNODE, S("fontname"), S("Helvetica"));
  agattr(G, AGEDGE, S("fontname"), S("Helvetica"));
  agattr(G, AGEDGE, S("fontsize"), S("10"));

  Agnode_t **node = nz_xcalloc((size_t)(n ? n : 1), sizeof(Agnode_t *));
  Agraph_t **sub = nz_xcalloc((size_t)(k ? k : 1), sizeof(Agraph_t *));
  for (int x = 0; x < k; x++) {
    snprintf(buf, sizeof buf, "cluster_%d", x);
    sub[x] = agsubg(G, buf, 1);
    NzBuf lb = {0};
    cluster_label(g, cl, x, csize[x], &lb);
    set(sub[x], "label", lb.s);
    nz_buf_free(&lb);
    set(sub[x], "style", csize[x] > 1 ? "rounded,filled" : "rounded");
    set(sub[x], "fillcolor", "#e8f0fe");
    set(sub[x], "color", csize[x] > 1 ? "#3366cc" : "#999999");
  }
  for (int i = 0; i < n; i++) {
    const FusInv *I = &g->inv[i];
    snprintf(buf, sizeof buf, "inv%d", i);
    node[i] = agnode(sub[cl[i]], buf, 1);
    NzBuf lb = {0};
    if (I->soac == LS_ONCE)
      nz_buf_printf(&lb, "%s\\nONCE", I->name);
    else
      nz_buf_printf(&lb, "%s\\n%s (%s)", I->name, lcu_soac_name(I->soac),
                    I->size == FUS_UNKNOWN ? "?" : g->size_names[I->size]);
    int nu = 0; /* the region's input scalars it reads, folded into its label */
    for (int v = 0; v < g->nvar && !scalars; v++) {
      const FusVar *x = &g->var[v];
      if (x->is_array || x->producer >= 0) continue;
      for (int u = 0; u < x->nconsumers; u++)
        if (x->consumers[u] == i) {
          if (!nu) nz_buf_puts(&lb, "\\nuses: ");
          list_add(&lb, &nu, x->name, 4);
        }
    }
    set(node[i], "label", lb.s);
    nz_buf_free(&lb);
    set(node[i], "shape", "box");
    set(node[i], "style", "filled");
    set(node[i], "fillcolor", "white");
  }
  for (int v = 0; v < g->nvar; v++) {
    const FusVar *x = &g->var[v];
    Agnode_t *from;
    if (x->producer >= 0)
      from = node[x->producer];
    else {
      if (x->nconsumers == 0 || (!x->is_array && !scalars)) continue;
      snprintf(buf, sizeof buf, "var%d", v);
      from = agnode(G, buf, 1);
      set(from, "label", x->name);
      set(from, "shape", x->is_array ? "cylinder" : "ellipse");
    }
    int eliminated = x->producer >= 0 && !x->live_out;
    for (int u = 0; u < x->nconsumers && eliminated; u++) eliminated = cl[x->consumers[u]] == cl[x->producer];
    for (int u = 0; u < x->nconsumers; u++) {
      snprintf(buf, sizeof buf, "e%d_%d", v, u);
      Agedge_t *e = agedge(G, from, node[x->consumers[u]], buf, 1);
      set(e, "label", x->name);
      if (eliminated && x->is_array) {
        set(e, "style", "dashed");
        set(e, "color", "grey60");
        set(e, "fontcolor", "grey50");
      } else if (!x->is_array)
        set(e, "style", "dotted");
    }
    if (x->live_out && x->producer >= 0) {
      /* One "live out" mark per array, next to its producer: a single node
       * for all of them drew an edge from every level to the bottom, and
       * dot's layout grew with the edges' length (a chain of 300
       * invocations: 21,618 virtual nodes, 38 s to place them). */
      snprintf(buf, sizeof buf, "out%d", v);
      Agnode_t *out = agnode(G, buf, 1);
      set(out, "label", "live out");
      set(out, "shape", "plaintext");
      snprintf(buf, sizeof buf, "o%d", v);
      Agedge_t *e = agedge(G, from, out, buf, 1);
      set(e, "label", x->name);
      if (!x->is_array) set(e, "style", "dotted"); /* as the legend says of scalars */
    }
  }

  legend(G, scalars);

  int rc = 0;
  size_t blen = strlen(base) + 8;
  char *path = nz_xmalloc(blen);
  snprintf(path, blen, "%s.dot", base);
  NzOutFile out; /* checked, and complete or absent (output.c) */
  FILE *f = nz_out_open(&out, path);
  if (!f) {
    rc = -1;
  } else {
    agwrite(G, f);
    rc = nz_out_close(&out) != 0 ? -1 : render(G, base, png, seconds, n);
  }
  agclose(G);
  free(path);
  free(node);
  free(sub);
  free(csize);
  free(cl);
  return rc;
}
