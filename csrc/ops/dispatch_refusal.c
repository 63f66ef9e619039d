/* CPU's AT_DISPATCH refusal (see dispatch_refusal.h). */
#include "ops/dispatch_refusal.h"

#include <stdarg.h>
#include <stdio.h>

#include "ops/common.h"
#include "ops/out_rules.h"

/* c10's words: the kernel's name quoted, then the dtype's c10 name. */
#define REFUSAL_FMT "\"%s\" not implemented for '%s'"

tt_status_t tt_op_refuse_dtype(tt_dtype_t dt, const char *kernel_fmt, ...) {
  char kernel[128];
  va_list ap;
  va_start(ap, kernel_fmt);
  vsnprintf(kernel, sizeof kernel, kernel_fmt, ap);
  va_end(ap);
  return tt_status_make(TT_NOT_IMPLEMENTED, REFUSAL_FMT, kernel, tt_op_type_name(dt));
}

tt_val_t tt_l_refuse_dtype(tt_lower_t *L, tt_dtype_t dt, const char *kernel_fmt, ...) {
  char kernel[128];
  va_list ap;
  va_start(ap, kernel_fmt);
  vsnprintf(kernel, sizeof kernel, kernel_fmt, ap);
  va_end(ap);
  return tt_l_fail(L, TT_NOT_IMPLEMENTED, REFUSAL_FMT, kernel, tt_op_type_name(dt));
}

tt_status_t tt_op_refuse_result_dtype(const tt_lower_t *L, tt_dtype_t dt, const char *kernel_fmt, ...) {
  if (L->inplace && L->nargs > 0 && L->args[0].kind == TT_ARG_TENSOR &&
      !tt_op_can_cast(dt, L->args[0].t->dtype))
    return tt_status_make(TT_INVALID_ARGUMENT, "result type %s can't be cast to the desired output type %s",
                          tt_op_type_name(dt), tt_op_type_name(L->args[0].t->dtype));
  char kernel[128];
  va_list ap;
  va_start(ap, kernel_fmt);
  vsnprintf(kernel, sizeof kernel, kernel_fmt, ap);
  va_end(ap);
  return tt_status_make(TT_NOT_IMPLEMENTED, REFUSAL_FMT, kernel, tt_op_type_name(dt));
}
