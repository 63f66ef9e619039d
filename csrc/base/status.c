/* Status objects: creation, context chaining and release. */
#include "base/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

struct tt_status_s {
  tt_code_t code;
  char *message;
};

/* Returned when even the status object cannot be allocated. */
static struct tt_status_s oom_status = {TT_OUT_OF_MEMORY, "out of host memory"};

static char *vformat(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) n = 0;
  char *buf = tt_malloc((size_t)n + 1);
  if (!buf) return NULL;
  vsnprintf(buf, (size_t)n + 1, fmt, ap);
  return buf;
}

tt_status_t tt_status_makev(tt_code_t code, const char *fmt, va_list ap) {
  tt_status_t s = tt_malloc(sizeof(*s));
  if (!s) return &oom_status;
  s->code = code == TT_OK ? TT_INTERNAL : code;
  s->message = vformat(fmt, ap);
  if (!s->message) {
    tt_free(s);
    return &oom_status;
  }
  return s;
}

tt_status_t tt_status_make(tt_code_t code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tt_status_t s = tt_status_makev(code, fmt, ap);
  va_end(ap);
  return s;
}

tt_status_t tt_status_annotate(tt_status_t status, const char *fmt, ...) {
  if (!status || status == &oom_status) return status;
  va_list ap;
  va_start(ap, fmt);
  char *prefix = vformat(fmt, ap);
  va_end(ap);
  if (!prefix) return status;
  size_t a = strlen(prefix), b = strlen(status->message);
  char *joined = tt_malloc(a + 2 + b + 1);
  if (joined) {
    memcpy(joined, prefix, a);
    memcpy(joined + a, ": ", 2);
    memcpy(joined + a + 2, status->message, b + 1);
    tt_free(status->message);
    status->message = joined;
  }
  tt_free(prefix);
  return status;
}

tt_code_t tt_status_code(tt_status_t status) { return status ? status->code : TT_OK; }

const char *tt_status_message(tt_status_t status) { return status ? status->message : "OK"; }

void tt_status_free(tt_status_t status) {
  if (!status || status == &oom_status) return;
  tt_free(status->message);
  tt_free(status);
}

const char *tt_code_name(tt_code_t code) {
  switch (code) {
    case TT_OK: return "OK";
    case TT_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case TT_TYPE_ERROR: return "TYPE_ERROR";
    case TT_VALUE_ERROR: return "VALUE_ERROR";
    case TT_INDEX_ERROR: return "INDEX_ERROR";
    case TT_NOT_IMPLEMENTED: return "NOT_IMPLEMENTED";
    case TT_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
    case TT_UNAVAILABLE: return "UNAVAILABLE";
    case TT_INTERNAL: return "INTERNAL";
  }
  return "UNKNOWN";
}
