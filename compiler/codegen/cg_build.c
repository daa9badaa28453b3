/* cg_build.c — turning generated C into an executable: the system C compiler
 * (NESSIE_CC, else cc) with the runtime found next to the running nessie
 * binary (DIR/nessie-rt/{include/nessie_rt.h,libnessie_rt.a}, built by make),
 * and a cache of binaries keyed by a hash of everything that goes into them. */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cg.h"

#if defined(__SANITIZE_ADDRESS__)
#define CG_SAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CG_SAN 1
#endif
#endif
/* A sanitizer build of nessie has a sanitizer build of the runtime next to
 * it: programs it compiles carry the same instrumentation. */
#ifdef CG_SAN
#define CG_SANFLAGS " -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
#else
#define CG_SANFLAGS ""
#endif

void cg_build_defaults(CgBuildOpts *o) {
  memset(o, 0, sizeof *o);
  o->cc = getenv("NESSIE_CC") && *getenv("NESSIE_CC") ? getenv("NESSIE_CC") : "cc";
  o->cflags = getenv("NESSIE_CFLAGS") && *getenv("NESSIE_CFLAGS") ? getenv("NESSIE_CFLAGS") : "-O2";
}

const char *cg_runtime_dir(void) {
  static char dir[PATH_MAX];
  const char *env = getenv("NESSIE_RT_DIR");
  if (env && *env) return env;
  if (dir[0]) return dir;
  ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 16);
  if (n <= 0) return strcpy(dir, "bin/nessie-rt");
  dir[n] = 0;
  char *slash = strrchr(dir, '/');
  strcpy(slash ? slash + 1 : dir, "nessie-rt");
  return dir;
}

/* Single-quoted for the shell. */
static void shq(NzBuf *b, const char *s) {
  nz_buf_putc(b, '\'');
  for (; *s; s++) {
    if (*s == '\'') nz_buf_puts(b, "'\\''");
    else nz_buf_putc(b, *s);
  }
  nz_buf_putc(b, '\'');
}

static int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) {
    nz_error("cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  fputs(text, f);
  if (fclose(f) != 0) {
    nz_error("cannot write '%s'", path);
    return -1;
  }
  return 0;
}

int cg_compile(const char *ctext, const char *out, const CgBuildOpts *o) {
  const char *rt = cg_runtime_dir();
  char lib[PATH_MAX + 32], hdr[PATH_MAX + 32];
  snprintf(lib, sizeof lib, "%s/libnessie_rt.a", rt);
  snprintf(hdr, sizeof hdr, "%s/include/nessie_rt.h", rt);
  if (access(lib, R_OK) != 0 || access(hdr, R_OK) != 0) {
    nz_error("the Nessie runtime is not at %s (libnessie_rt.a, include/nessie_rt.h): run make, "
             "or set NESSIE_RT_DIR", rt);
    return NZ_EXIT_INTERNAL;
  }
  char cpath[PATH_MAX + 8];
  snprintf(cpath, sizeof cpath, "%s.c", out);
  if (write_file(cpath, ctext) != 0) return NZ_EXIT_USER;
  NzBuf cmd = {0};
  nz_buf_printf(&cmd, "%s -std=c11 %s -fopenmp" CG_SANFLAGS " -I", o->cc, o->cflags);
  NzBuf inc = {0};
  nz_buf_printf(&inc, "%s/include", rt);
  shq(&cmd, inc.s);
  nz_buf_puts(&cmd, " ");
  shq(&cmd, cpath);
  nz_buf_puts(&cmd, " -o ");
  shq(&cmd, out);
  nz_buf_puts(&cmd, " ");
  shq(&cmd, lib);
  nz_buf_puts(&cmd, " -lm -lpthread");
  fflush(stdout);
  int st = system(cmd.s);
  int rc = NZ_EXIT_OK;
  if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    nz_error("the C compiler failed on the generated program (a bug in nessie): %s", cmd.s);
    rc = NZ_EXIT_INTERNAL;
  }
  if (!o->keep_c || rc != NZ_EXIT_OK) {
    if (rc == NZ_EXIT_OK) unlink(cpath);
    else fprintf(stderr, "nessie: the generated C is kept in %s\n", cpath);
  }
  nz_buf_free(&cmd);
  nz_buf_free(&inc);
  return rc;
}

static uint64_t fnv(uint64_t h, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
  return h;
}

static int mkdirs(const char *path) {
  char tmp[PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int cg_compile_cached(const char *ctext, const CgBuildOpts *o, char **bin) {
  char dir[PATH_MAX];
  const char *env = getenv("NESSIE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (env && *env) snprintf(dir, sizeof dir, "%s", env);
  else if (xdg && *xdg) snprintf(dir, sizeof dir, "%s/nessie", xdg);
  else snprintf(dir, sizeof dir, "%s/.cache/nessie", home && *home ? home : "/tmp");
  if (mkdirs(dir) != 0) {
    nz_error("cannot create the cache directory '%s': %s (set NESSIE_CACHE_DIR)", dir, strerror(errno));
    return NZ_EXIT_USER;
  }
  /* the key: the C text, the compiler and flags, and the runtime's identity */
  uint64_t h = 0xcbf29ce484222325ull;
  h = fnv(h, ctext, strlen(ctext));
  h = fnv(h, o->cc, strlen(o->cc) + 1);
  h = fnv(h, o->cflags, strlen(o->cflags) + 1);
  h = fnv(h, CG_SANFLAGS, sizeof CG_SANFLAGS);
  char lib[PATH_MAX + 32];
  snprintf(lib, sizeof lib, "%s/libnessie_rt.a", cg_runtime_dir());
  struct stat st;
  if (stat(lib, &st) == 0) {
    char id[96];
    snprintf(id, sizeof id, "%lld.%lld.%lld", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
             (long long)st.st_mtim.tv_nsec);
    h = fnv(h, id, strlen(id));
  }
  char path[PATH_MAX + 64], tmp[PATH_MAX + 96];
  snprintf(path, sizeof path, "%s/c-%016llx", dir, (unsigned long long)h);
  *bin = nz_xstrdup(path);
  if (access(path, X_OK) == 0) return NZ_EXIT_OK;
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
  int rc = cg_compile(ctext, tmp, o);
  if (rc == NZ_EXIT_OK && rename(tmp, path) != 0) {
    nz_error("cannot move '%s' into the cache: %s", tmp, strerror(errno));
    rc = NZ_EXIT_USER;
  }
  return rc;
}
