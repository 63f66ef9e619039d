/* The embedding's hooks around host waits (see blocking.h). */
#include "base/blocking.h"

#include <stddef.h>

static tt_blocking_begin_fn_t g_begin; /* set once before the first call; read-only after */
static tt_blocking_end_fn_t g_end;

void tt_blocking_set_hooks(tt_blocking_begin_fn_t begin, tt_blocking_end_fn_t end) {
  g_begin = begin;
  g_end = end;
}

void *tt_blocking_begin(void) { return g_begin ? g_begin() : NULL; }

void tt_blocking_end(void *token) {
  if (g_end) g_end(token);
}
