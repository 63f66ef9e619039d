/* Allocation wrappers with a failure-injection hook for tests. */
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

static long fail_countdown = -1;

static int should_fail(void) {
  if (fail_countdown < 0) return 0;
  if (fail_countdown == 0) return 1;
  fail_countdown--;
  return 0;
}

void tt_alloc_fail_after(long countdown) { fail_countdown = countdown; }

void *tt_malloc(size_t n) { return should_fail() ? NULL : malloc(n ? n : 1); }

void *tt_calloc(size_t count, size_t n) {
  return should_fail() ? NULL : calloc(count ? count : 1, n ? n : 1);
}

void *tt_realloc(void *p, size_t n) { return should_fail() ? NULL : realloc(p, n ? n : 1); }

void tt_free(void *p) { free(p); }

char *tt_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = tt_malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}
