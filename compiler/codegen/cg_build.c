/* cg_build.c — turning generated C into an executable: the system C compiler
 * (NESSIE_CC, else cc) with the runtime found next to the running nessie
 * binary (DIR/nessie-rt/{include/nessie_rt.h,libnessie_rt.a}, built by make),
 * and a cache of binaries keyed by a hash of everything that goes into them. */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
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
  if (ferror(f) | (fclose(f) != 0)) {
    nz_error("cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

/* One of the files a build writes (the executable, OUT.c, OUT.cu): a name that is
 * absent or a regular file, and not one of the program's sources. */
static int output_ok(const char *path, const char *what, const char *const *srcs) {
  struct stat st, ss;
  if (!*path) {
    nz_error("-o needs a file name");
    return NZ_EXIT_USAGE;
  }
  if (stat(path, &st) != 0) return NZ_EXIT_OK;
  if (S_ISDIR(st.st_mode)) {
    nz_error("cannot write the %s '%s': it is a directory", what, path);
    return NZ_EXIT_USAGE;
  }
  if (!S_ISREG(st.st_mode)) {
    nz_error("cannot write the %s '%s': it is not a regular file", what, path);
    return NZ_EXIT_USAGE;
  }
  for (int i = 0; srcs && srcs[i]; i++)
    if (stat(srcs[i], &ss) == 0 && ss.st_dev == st.st_dev && ss.st_ino == st.st_ino) {
      nz_error("the %s '%s' would replace the source file '%s': choose another -o", what, path, srcs[i]);
      return NZ_EXIT_USAGE;
    }
  return NZ_EXIT_OK;
}

int cg_outputs_ok(const char *out, const char *companion, const char *const *srcs) {
  int rc = output_ok(out, "executable", srcs);
  if (rc == NZ_EXIT_OK && companion) {
    char c[PATH_MAX + 8];
    snprintf(c, sizeof c, "%s%s", out, companion);
    rc = output_ok(c, companion[2] == 'u' ? "CUDA file" : "C file", srcs);
  }
  return rc;
}

char *cg_temp_beside(const char *path) {
  char *t = nz_xcalloc(strlen(path) + 32, 1);
  const char *slash = strrchr(path, '/');
  int dir = slash ? (int)(slash - path + 1) : 0;
  sprintf(t, "%.*s.%s.nessie-XXXXXX", dir, path, path + dir);
  int fd = mkstemp(t);
  if (fd < 0) {
    nz_error("cannot write '%s': %s", path, strerror(errno));
    free(t);
    return NULL;
  }
  close(fd);
  return t;
}

int cg_install(const char *tmp, const char *out) {
  mode_t um = umask(0); /* mkstemp made it 0600; an executable gets the usual mode */
  umask(um);
  chmod(tmp, 0777 & ~um);
  if (rename(tmp, out) == 0) return NZ_EXIT_OK;
  nz_error("cannot write '%s': %s", out, strerror(errno));
  unlink(tmp);
  return NZ_EXIT_USER;
}

/* The generated C goes into a private temporary directory, never beside OUT (the
 * user's OUT.c is theirs), and the executable into a temporary file beside OUT,
 * renamed over it once it is complete. */
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
  int rc = cg_outputs_ok(out, o->keep_c ? ".c" : NULL, o->srcs);
  if (rc != NZ_EXIT_OK) return rc;
  const char *td = getenv("TMPDIR");
  char dir[PATH_MAX], cpath[PATH_MAX + 16];
  snprintf(dir, sizeof dir, "%s/nessie-cc-XXXXXX", td && *td ? td : "/tmp");
  if (!mkdtemp(dir)) {
    nz_error("cannot create a temporary directory '%s': %s (set TMPDIR)", dir, strerror(errno));
    return NZ_EXIT_USER;
  }
  snprintf(cpath, sizeof cpath, "%s/program.c", dir);
  char *bin = NULL;
  if (write_file(cpath, ctext) != 0 || !(bin = cg_temp_beside(out))) {
    unlink(cpath);
    rmdir(dir);
    return NZ_EXIT_USER;
  }
  NzBuf cmd = {0};
  nz_buf_printf(&cmd, "%s -std=c11 %s -fopenmp" CG_SANFLAGS " -I", o->cc, o->cflags);
  NzBuf inc = {0};
  nz_buf_printf(&inc, "%s/include", rt);
  shq(&cmd, inc.s);
  nz_buf_puts(&cmd, " ");
  shq(&cmd, cpath);
  nz_buf_puts(&cmd, " -o ");
  shq(&cmd, bin);
  nz_buf_puts(&cmd, " ");
  shq(&cmd, lib);
  nz_buf_puts(&cmd, " -lm -lpthread");
  fflush(stdout);
  fflush(stderr);
  int st = system(cmd.s);
  if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    nz_error("the C compiler failed on the generated program (a bug in nessie): %s", cmd.s);
    fprintf(stderr, "nessie: the generated C is kept in %s\n", cpath);
    unlink(bin);
    rc = NZ_EXIT_INTERNAL;
  } else {
    rc = cg_install(bin, out);
    if (rc == NZ_EXIT_OK && o->keep_c) {
      char kept[PATH_MAX + 8];
      snprintf(kept, sizeof kept, "%s.c", out);
      if (write_file(kept, ctext) != 0) rc = NZ_EXIT_USER;
    }
    unlink(cpath);
    rmdir(dir);
  }
  free(bin);
  nz_buf_free(&cmd);
  nz_buf_free(&inc);
  return rc;
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
  return mkdir(tmp, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* What the cache runs must be the user's own: a directory or file that another
 * user owns or may write could hold a planted binary. */
static int owned_safely(const char *path, int dir) {
  struct stat st;
  if (lstat(path, &st) != 0) return 0;
  if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
    nz_error("the compile cache's '%s' is not a %s: remove it, or set NESSIE_CACHE_DIR", path,
             dir ? "directory (a link?)" : "regular file");
    return 0;
  }
  if (st.st_uid != geteuid() || (st.st_mode & 022)) {
    nz_error("the compile cache's '%s' is owned by another user or writable by others; nothing in it is "
             "run: remove it, or set NESSIE_CACHE_DIR",
             path);
    return 0;
  }
  return 1;
}

/* NESSIE_CACHE_DIR, else $XDG_CACHE_HOME/nessie, else $HOME/.cache/nessie, else the
 * home directory the password database gives, else a per-user directory under
 * $TMPDIR or /tmp, made private (0700). */
static void cache_dir(char *dir, size_t n) {
  const char *env = getenv("NESSIE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (env && *env) snprintf(dir, n, "%s", env);
  else if (xdg && *xdg) snprintf(dir, n, "%s/nessie", xdg);
  else if (home && *home) snprintf(dir, n, "%s/.cache/nessie", home);
  else {
    struct passwd *pw = getpwuid(geteuid());
    const char *td = getenv("TMPDIR");
    if (pw && pw->pw_dir && *pw->pw_dir && strcmp(pw->pw_dir, "/")) snprintf(dir, n, "%s/.cache/nessie", pw->pw_dir);
    else snprintf(dir, n, "%s/nessie-cache-%ld", td && *td ? td : "/tmp", (long)geteuid());
  }
}

int cg_compile_cached(const char *ctext, const CgBuildOpts *o, char **bin) {
  char dir[PATH_MAX];
  cache_dir(dir, sizeof dir);
  *bin = NULL;
  if (mkdirs(dir) != 0) {
    nz_error("cannot create the cache directory '%s': %s (set NESSIE_CACHE_DIR)", dir, strerror(errno));
    return NZ_EXIT_USER;
  }
  if (!owned_safely(dir, 1)) return NZ_EXIT_USER;
  /* the key: the C text, the compiler and flags, and the runtime's identity */
  uint64_t h = NZ_FNV_SEED;
  h = nz_fnv1a(h, ctext, strlen(ctext));
  h = nz_fnv1a(h, o->cc, strlen(o->cc) + 1);
  h = nz_fnv1a(h, o->cflags, strlen(o->cflags) + 1);
  h = nz_fnv1a(h, CG_SANFLAGS, sizeof CG_SANFLAGS);
  char lib[PATH_MAX + 32];
  snprintf(lib, sizeof lib, "%s/libnessie_rt.a", cg_runtime_dir());
  struct stat st;
  if (stat(lib, &st) == 0) {
    char id[96];
    snprintf(id, sizeof id, "%lld.%lld.%lld", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
             (long long)st.st_mtim.tv_nsec);
    h = nz_fnv1a(h, id, strlen(id));
  }
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/c-%016llx", dir, (unsigned long long)h);
  if (access(path, F_OK) == 0) {
    if (!owned_safely(path, 0)) return NZ_EXIT_USER;
    *bin = nz_xstrdup(path);
    return NZ_EXIT_OK;
  }
  CgBuildOpts co = *o; /* compiled beside its place, then renamed into it: racing builds agree */
  co.keep_c = 0;
  co.srcs = NULL;
  int rc = cg_compile(ctext, path, &co);
  if (rc == NZ_EXIT_OK) {
    chmod(path, 0700);
    *bin = nz_xstrdup(path);
  }
  return rc;
}
