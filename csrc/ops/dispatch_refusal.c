/* CPU's AT_DISPATCH refusal (see dispatch_refusal.h). */
#include "ops/dispatch_refusal.h"

#include <stdarg.h>
#include <stdio.h>

#include "ops/common.h"
#include "ops/out_rules.h"

/* c10's words: the kernel's name quoted, then the dtype's c10 name. */
#define REFUSAL_FMT "\"%s\" not implemented for '%s'"

/* The error's text into buf: the kernel's name formatted, then c10's words. */
static void refusal_text(char *buf, size_t n, tt_dtype_t dt, const char *kernel_fmt, va_list ap) {
  char kernel[128];
  vsnprintf(kernel, sizeof kernel, kernel_fmt, ap);
  snprintf(buf, n, REFUSAL_FMT, kernel, tt_op_type_name(dt));
}

static tt_status_t refusal(tt_dtype_t dt, const char *kernel_fmt, va_list ap) {
  char text[192];
  refusal_text(text, sizeof text, dt, kernel_fmt, ap);
  return tt_status_make(TT_NOT_IMPLEMENTED, "%s", text);
}

tt_status_t tt_op_refuse_dtype(tt_dtype_t dt, const char *kernel_fmt, ...) {
  va_list ap;
  va_start(ap, kernel_fmt);
  tt_status_t s = refusal(dt, kernel_fmt, ap);
  va_end(ap);
  return s;
}

tt_status_t tt_op_refuse_type_named(const char *type_name, const char *kernel_fmt, ...) {
  char kernel[128];
  va_list ap;
  va_start(ap, kernel_fmt);
  vsnprintf(kernel, sizeof kernel, kernel_fmt, ap);
  va_end(ap);
  return tt_status_make(TT_NOT_IMPLEMENTED, REFUSAL_FMT, kernel, type_name);
}

tt_val_t tt_l_refuse_dtype(tt_lower_t *L, tt_dtype_t dt, const char *kernel_fmt, ...) {
  char text[192];
  va_list ap;
  va_start(ap, kernel_fmt);
  refusal_text(text, sizeof text, dt, kernel_fmt, ap);
  va_end(ap);
  return tt_l_fail(L, TT_NOT_IMPLEMENTED, "%s", text);
}

tt_status_t tt_op_refuse_result_dtype(const tt_lower_t *L, tt_dtype_t dt, const char *kernel_fmt, ...) {
  if (L->inplace && L->nargs > 0 && L->args[0].kind == TT_ARG_TENSOR && !tt_op_can_cast(dt, L->args[0].t->dtype))
    return tt_status_make(TT_INVALID_ARGUMENT, "result type %s can't be cast to the desired output type %s",
                          tt_op_type_name(dt), tt_op_type_name(L->args[0].t->dtype));
  va_list ap;
  va_start(ap, kernel_fmt);
  tt_status_t s = refusal(dt, kernel_fmt, ap);
  va_end(ap);
  return s;
}
