/* A minimal test harness for the C tests: CHECK, CHECK_OK and a summary line. */
#ifndef TT_TESTS_CHECK_H
#define TT_TESTS_CHECK_H

#include <stdio.h>

#include "base/status.h"

static int g_passed, g_failed;

#define CHECK(cond)                                                   \
  do {                                                                \
    if (cond) {                                                       \
      g_passed++;                                                     \
    } else {                                                          \
      g_failed++;                                                     \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                 \
  } while (0)

static inline int check_ok_(tt_status_t s, const char *expr, int line) {
  if (!s) {
    g_passed++;
    return 1;
  }
  g_failed++;
  fprintf(stderr, "FAIL line %d: %s -> %s: %s\n", line, expr, tt_code_name(tt_status_code(s)),
          tt_status_message(s));
  tt_status_free(s);
  return 0;
}
#define CHECK_OK(expr) check_ok_((expr), #expr, __LINE__)

/* Expects an error of `code`; frees it. */
static inline void check_err_(tt_status_t s, tt_code_t code, const char *expr, int line) {
  if (s && tt_status_code(s) == code) {
    g_passed++;
  } else {
    g_failed++;
    fprintf(stderr, "FAIL line %d: %s -> expected %s, got %s: %s\n", line, expr, tt_code_name(code),
            tt_code_name(tt_status_code(s)), tt_status_message(s));
  }
  tt_status_free(s);
}
#define CHECK_ERR(expr, code) check_err_((expr), (code), #expr, __LINE__)

static inline int check_summary(void) {
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}

#endif
