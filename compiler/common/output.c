/* output.c — checked output: a write error (a full disk, a closed pipe) is an
 * error with a message and a non-zero exit, never a silent truncation; files
 * are written under a temporary name and renamed over the target only once
 * complete, so no half-written file is left where a complete one was
 * expected. */
#include "nessie.h"
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

void nz_output_init(void) {
  /* A closed pipe shows as EPIPE on the write, reported like any write
   * error, instead of a silent death by SIGPIPE. */
  signal(SIGPIPE, SIG_IGN);
}

/* The first write error's errno seen by nz_stdout_flush, for the message. */
static int first_err;

int nz_stdout_flush(void) {
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
  if (!first_err) first_err = errno;
  return -1;
}

int nz_stdout_finish(int rc) {
  errno = 0;
  int bad = fflush(stdout) != 0 || ferror(stdout);
  int err = first_err ? first_err : errno;
  /* Closing reports errors that only show at close (NFS, a full disk on
   * some file systems); stdout is not used after this. */
  if (fclose(stdout) != 0 && !bad) bad = 1, err = errno;
  if (!bad) return rc;
  fprintf(stderr, "%s: error: writing the standard output: %s\n", nz_progname,
          err ? strerror(err) : "a write failed");
  return rc == NZ_EXIT_OK ? NZ_EXIT_USER : rc;
}

/* Replace the target only where it is a regular file or does not exist: a
 * device (/dev/null, /dev/full), a FIFO or a terminal is written directly. */
static int direct_target(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

char *nz_out_temp_name(const char *path) {
  if (direct_target(path)) return NULL;
  size_t n = strlen(path) + 32;
  char *t = nz_xmalloc(n);
  snprintf(t, n, "%s.tmp%ld", path, (long)getpid());
  return t;
}

int nz_out_commit_name(const char *tmp, const char *path, int ok) {
  if (!tmp) return ok ? 0 : -1;
  if (!ok) {
    unlink(tmp);
    return -1;
  }
  if (rename(tmp, path) != 0) {
    nz_error("cannot rename %s to %s: %s", tmp, path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}

FILE *nz_out_open(NzOutFile *o, const char *path) {
  memset(o, 0, sizeof *o);
  o->path = path;
  o->tmp = nz_out_temp_name(path);
  const char *open_as = o->tmp ? o->tmp : path;
  o->f = fopen(open_as, "w");
  if (!o->f) {
    nz_error("cannot write %s: %s", path, strerror(errno));
    free(o->tmp);
    o->tmp = NULL;
  }
  return o->f;
}

int nz_out_close(NzOutFile *o) {
  if (!o->f) return -1;
  errno = 0;
  int bad = fflush(o->f) != 0 || ferror(o->f);
  int err = errno;
  if (fclose(o->f) != 0 && !bad) bad = 1, err = errno;
  o->f = NULL;
  if (bad) nz_error("cannot write %s: %s", o->path, err ? strerror(err) : "write error");
  int rc = nz_out_commit_name(o->tmp, o->path, !bad);
  free(o->tmp);
  o->tmp = NULL;
  return rc;
}

void nz_out_discard(NzOutFile *o) {
  if (o->f) fclose(o->f);
  o->f = NULL;
  if (o->tmp) unlink(o->tmp);
  free(o->tmp);
  o->tmp = NULL;
}
