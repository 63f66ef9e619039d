/* A growable text buffer, used to emit StableHLO module text. */
#ifndef TT_BASE_STRBUF_H
#define TT_BASE_STRBUF_H

#include <stddef.h>

#include "base/status.h"

typedef struct tt_strbuf_s {
  char *data;
  size_t len;
  size_t cap;
  int failed; /* sticky: an allocation failed; checked once at the end */
} tt_strbuf_t;

void tt_strbuf_init(tt_strbuf_t *sb);
void tt_strbuf_free(tt_strbuf_t *sb);
void tt_strbuf_append(tt_strbuf_t *sb, const char *s);
void tt_strbuf_appendf(tt_strbuf_t *sb, const char *fmt, ...) TT_PRINTF(2, 3);
/* OK unless an append failed to allocate. */
tt_status_t tt_strbuf_status(const tt_strbuf_t *sb);

#endif
