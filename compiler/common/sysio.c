/* sysio.c — NESL's streams, files and processes (NESL.md 5.16), shared by the AST
 * interpreter (nesl_prims.c), the λcu interpreter and the runtime (compiler/lcu/lcu_io.c),
 * so that a program's I/O means the same under `nessie run --interp=ast|lcu` and
 * compiled. Streams are small ints: 0, 1, 2 are stdin, stdout, stderr; 3..63 index one
 * process-wide table of open files (a stream opened by one top-level form is used by
 * the next). */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nessie.h"

static FILE *files[64];

static FILE *file_of(int fd) {
  if (fd == 0) return stdin;
  if (fd == 1) return stdout;
  if (fd == 2) return stderr;
  return fd > 2 && fd < 64 ? files[fd] : NULL;
}

static int file_slot(FILE *f) {
  for (int i = 3; i < 64; i++)
    if (!files[i]) {
      files[i] = f;
      return i;
    }
  return -1;
}

int nz_io_open(const char *name, int mode, const char **msg) {
  static const char *modes[] = {"r", "w", "a"};
  int m = mode < 0 || mode > 2 ? 0 : mode;
  *msg = "";
  FILE *f = fopen(name, modes[m]);
  if (!f) {
    *msg = strerror(errno);
    return -1;
  }
  int fd = file_slot(f);
  if (fd < 0) {
    fclose(f);
    *msg = "too many open files";
  }
  return fd;
}

bool nz_io_close(int fd, const char **msg) {
  *msg = "";
  if (fd <= 2) return true;
  if (fd >= 64 || !files[fd]) {
    *msg = "stream is not open";
    return false;
  }
  fclose(files[fd]);
  files[fd] = NULL;
  while (waitpid(-1, NULL, WNOHANG) > 0) /* reap spawned commands that have ended */
    ;
  return true;
}

bool nz_io_write(int fd, const void *s, size_t n, const char **msg) {
  FILE *f = file_of(fd);
  *msg = f ? "" : "stream is not open";
  if (!f) return false;
  fwrite(s, 1, n, f);
  return true;
}

int nz_io_read_char(int fd, bool *ok, const char **msg) {
  FILE *f = file_of(fd);
  if (!f) {
    *ok = false;
    *msg = "stream is not open";
    return 0;
  }
  int c = fgetc(f);
  *ok = c != EOF;
  *msg = c == EOF ? "end of file" : "";
  return c == EOF ? 0 : c;
}

bool nz_io_read_file(const char *name, NzBuf *out, const char **msg) {
  FILE *f = fopen(name, "rb");
  *msg = "";
  if (!f) {
    *msg = strerror(errno);
    return false;
  }
  int c;
  while ((c = fgetc(f)) != EOF) nz_buf_putc(out, (char)c);
  fclose(f);
  return true;
}

void nz_io_shell(const char *cmd, const void *in, size_t n, NzBuf *out) {
  /* input goes through a temporary file so the command's output can be read back */
  char tmpl[] = "/tmp/nessie-shell-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) return;
  if (write(fd, in, n) < 0) { /* best effort */
  }
  close(fd);
  NzBuf c = {0};
  nz_buf_printf(&c, "(%s) < %s", cmd, tmpl);
  nz_stdout_flush();
  FILE *p = popen(c.s, "r");
  nz_buf_free(&c);
  if (p) {
    int ch;
    while ((ch = fgetc(p)) != EOF) nz_buf_putc(out, (char)ch);
    pclose(p);
  }
  unlink(tmpl);
}

/* spawn: run `sh -c cmd` with its standard input, output and error connected to the given
 * streams, or, for -1 (nullstr), to new pipes that come back as streams (NESL.md 5.16). */
bool nz_io_spawn(const char *cmd, const int want[3], int got[3], const char **msg) {
  int child[3], mine[3] = {-1, -1, -1};
  got[0] = got[1] = got[2] = -1;
  *msg = "";
  int nfree = 0;
  for (int i = 3; i < 64; i++) nfree += !files[i];
  int npipes = (want[0] < 0) + (want[1] < 0) + (want[2] < 0);
  if (npipes > nfree) {
    *msg = "too many open files";
    return false;
  }
  for (int k = 0; k < 3; k++) {
    got[k] = want[k];
    if (want[k] >= 0) {
      FILE *f = file_of(want[k]);
      if (!f) {
        for (int j = 0; j < k; j++)
          if (mine[j] >= 0) close(mine[j]), close(child[j]);
        got[0] = got[1] = got[2] = -1;
        *msg = "stream is not open";
        return false;
      }
      fflush(f);
      child[k] = fileno(f);
      continue;
    }
    int pp[2];
    if (pipe(pp) < 0) {
      for (int j = 0; j < k; j++)
        if (mine[j] >= 0) close(mine[j]), close(child[j]);
      got[0] = got[1] = got[2] = -1;
      *msg = strerror(errno);
      return false;
    }
    child[k] = k == 0 ? pp[0] : pp[1]; /* the child reads its input, writes the others */
    mine[k] = k == 0 ? pp[1] : pp[0];
  }
  fflush(NULL); /* the child must not repeat buffered output */
  pid_t pid = fork();
  if (pid == 0) {
    int moved[3];
    for (int k = 0; k < 3; k++) moved[k] = dup(child[k]); /* may overlap 0..2 */
    for (int k = 0; k < 3; k++) dup2(moved[k], k);
    for (int fd = 3; fd < 1024; fd++) close(fd);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  int e = errno;
  for (int k = 0; k < 3; k++)
    if (mine[k] >= 0) close(child[k]);
  if (pid < 0) {
    for (int k = 0; k < 3; k++)
      if (mine[k] >= 0) close(mine[k]);
    got[0] = got[1] = got[2] = -1;
    *msg = strerror(e);
    return false;
  }
  signal(SIGPIPE, SIG_IGN); /* a child that stops reading makes writes fail, not kill us */
  for (int k = 0; k < 3; k++)
    if (mine[k] >= 0) {
      FILE *f = fdopen(mine[k], k == 0 ? "w" : "r");
      if (!f) {
        close(mine[k]);
        got[k] = -1;
        continue;
      }
      if (k == 0) setvbuf(f, NULL, _IONBF, 0); /* the child sees what was written at once */
      got[k] = file_slot(f);
    }
  return true;
}
