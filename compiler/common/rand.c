/* rand.c — NESL's random-number generator (and fail_if_g's message, nz_msg_g) (NESL.md 4.4), one definition for the AST
 * interpreter (nesl_prims.c), the λcu interpreter and the runtime of compiled programs
 * (rand, rand_vec, rand_seed in compiler/lcu/README.md), so that all three draw the same
 * numbers in the same order. A 64-bit LCG; the state is global (one per process). */
#include "nessie.h"

static const uint64_t SEED = 0x2545F4914F6CDD1DULL;
static uint64_t state = 0x2545F4914F6CDD1DULL;

void nz_rand_seed(int32_t n) { state = SEED ^ (uint64_t)(uint32_t)n * 0x9E3779B97F4A7C15ULL; }

static uint32_t next(void) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(state >> 33);
}

int32_t nz_rand_int(int32_t v) { return v > 0 ? (int32_t)(next() % (uint32_t)v) : 0; }

double nz_rand_float(double v) {
  return v > 0 ? v * ((double)(next() & ((1u << 30) - 1)) / (double)(1u << 30)) : 0.0;
}

void nz_msg_g(NzBuf *b, const char *msg, size_t len, double x) {
  size_t i = 0;
  for (; i + 1 < len && !(msg[i] == '%' && msg[i + 1] == 'g'); i++) nz_buf_putc(b, msg[i]);
  if (i + 1 >= len) {
    for (; i < len; i++) nz_buf_putc(b, msg[i]);
    return;
  }
  nz_buf_printf(b, "%g", x);
  for (i += 2; i < len; i++) nz_buf_putc(b, msg[i]);
}
