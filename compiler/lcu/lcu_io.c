/* lcu_io.c — λcu's I/O primitives (NESL's __open, __close, __write_stream, __read_char,
 * __read_file, __getenv, __shell, __spawn), one routine on λcu values that the
 * interpreter and the runtime (runtime/host/rt_io.c) both call; the streams themselves
 * are compiler/common/sysio.c's, shared with the AST interpreter. */
#include "lcu.h"

static const LcuType *B(LcuTypeKind k) { return lcu_type_base(k); }
static const LcuType *chars(void) { return lcu_type_array(LT_CHAR); }

const LcuType *lcu_io_result(LcuPrim op) {
  const LcuType *t[5];
  int n = 0;
  switch (op) {
  case LP_OPEN_FILE: t[n++] = B(LT_INT); break;
  case LP_READ_CHAR: t[n++] = B(LT_CHAR); break;
  case LP_READ_FILE: t[n++] = chars(); break;
  case LP_GETENV: case LP_SHELL: return chars();
  case LP_SPAWN: t[n++] = B(LT_INT), t[n++] = B(LT_INT), t[n++] = B(LT_INT); break;
  default: break;
  }
  t[n++] = B(LT_BOOL); /* ok, msg */
  t[n++] = chars();
  return lcu_type_tuple(n, t);
}

/* A NUL-terminated copy of a [char] value. */
static char *cstr(LcuValue v) {
  char *s = nz_xmalloc((size_t)v.u.arr->len + 1);
  if (v.u.arr->len) memcpy(s, v.u.arr->d.b, (size_t)v.u.arr->len);
  s[v.u.arr->len] = 0;
  return s;
}

static LcuValue chars_value(const void *s, size_t n) {
  LcuArray *a = lcu_array_new(LT_CHAR, (int64_t)n);
  if (n) memcpy(a->d.b, s, n);
  return (LcuValue){.kind = LT_ARRAY, .u.arr = a};
}

LcuValue lcu_io_call(LcuPrim op, const LcuValue *args) {
  LcuValue r[5];
  int n = 0;
  const char *msg = "";
  bool ok = true;
  switch (op) {
  case LP_OPEN_FILE: {
    char *name = cstr(args[0]);
    int fd = nz_io_open(name, args[1].u.i, &msg);
    free(name);
    ok = fd >= 0;
    r[n++] = lcu_value_int(fd);
    break;
  }
  case LP_CLOSE_FILE: ok = nz_io_close(args[0].u.i, &msg); break;
  case LP_WRITE_STREAM: ok = nz_io_write(args[1].u.i, args[0].u.arr->d.b, (size_t)args[0].u.arr->len, &msg); break;
  case LP_READ_CHAR: r[n++] = lcu_value_char((unsigned char)nz_io_read_char(args[0].u.i, &ok, &msg)); break;
  case LP_READ_FILE: {
    char *name = cstr(args[0]);
    NzBuf b = {0};
    ok = nz_io_read_file(name, &b, &msg);
    free(name);
    r[n++] = chars_value(b.s, b.len);
    nz_buf_free(&b);
    break;
  }
  case LP_GETENV: {
    char *name = cstr(args[0]);
    const char *v = getenv(name);
    free(name);
    return chars_value(v, v ? strlen(v) : 0);
  }
  case LP_SHELL: {
    char *cmd = cstr(args[0]);
    NzBuf b = {0};
    nz_io_shell(cmd, args[1].u.arr->d.b, (size_t)args[1].u.arr->len, &b);
    free(cmd);
    LcuValue v = chars_value(b.s, b.len);
    nz_buf_free(&b);
    return v;
  }
  case LP_SPAWN: {
    char *cmd = cstr(args[0]);
    int want[3] = {-1, -1, -1}, got[3];
    for (int k = 0; k < 3 && k < args[1].u.arr->len; k++) want[k] = args[1].u.arr->d.i[k];
    ok = nz_io_spawn(cmd, want, got, &msg);
    free(cmd);
    for (int k = 0; k < 3; k++) r[n++] = lcu_value_int(got[k]);
    break;
  }
  default: nz_die("lcu_io_call: %s is not an I/O primitive", lcu_prim_info(op)->name);
  }
  r[n++] = lcu_value_bool(ok);
  r[n++] = chars_value(msg, strlen(msg));
  return lcu_value_tuple(n, r);
}
