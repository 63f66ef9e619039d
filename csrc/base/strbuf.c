/* Growable text buffer with a sticky allocation-failure flag. */
#include "base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

void tt_strbuf_init(tt_strbuf_t *sb) {
  sb->data = NULL;
  sb->len = sb->cap = 0;
  sb->failed = 0;
}

void tt_strbuf_free(tt_strbuf_t *sb) {
  tt_free(sb->data);
  tt_strbuf_init(sb);
}

static int reserve(tt_strbuf_t *sb, size_t extra) {
  if (sb->failed) return 0;
  if (sb->len + extra + 1 <= sb->cap) return 1;
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < sb->len + extra + 1) cap *= 2;
  char *d = tt_realloc(sb->data, cap);
  if (!d) {
    sb->failed = 1;
    return 0;
  }
  sb->data = d;
  sb->cap = cap;
  return 1;
}

void tt_strbuf_append(tt_strbuf_t *sb, const char *s) {
  size_t n = strlen(s);
  if (!reserve(sb, n)) return;
  memcpy(sb->data + sb->len, s, n + 1);
  sb->len += n;
}

void tt_strbuf_appendf(tt_strbuf_t *sb, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n > 0 && reserve(sb, (size_t)n)) {
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
    sb->len += (size_t)n;
  }
  va_end(ap2);
}

tt_status_t tt_strbuf_status(const tt_strbuf_t *sb) {
  return sb->failed ? tt_status_make(TT_OUT_OF_MEMORY, "out of host memory while emitting text")
                    : TT_OK_STATUS;
}
