/* The PyTorch error of each device-side check kind. */
#include "ops/checks.h"

static const char kAsyncNote[] =
    "raised asynchronously at this synchronization point by an earlier op, like CUDA's "
    "device-side assert: that op's outputs hold clamped values; set TORCH_TPU_LAUNCH_BLOCKING=1 "
    "to raise at the op";

/* An assert has no outputs to hold clamped values. */
static const char kAsyncAssertNote[] =
    "raised asynchronously at this synchronization point by an earlier op, like CUDA's "
    "device-side assert; set TORCH_TPU_LAUNCH_BLOCKING=1 to raise at the op";

tt_status_t tt_index_check_status(const tt_index_check_t *k, const int64_t *flag, int async) {
  if (flag[0] == 0) return TT_OK_STATUS;
  long long n = (long long)flag[0], i = (long long)flag[1], size = (long long)flag[2];
  const char *op = k->op ? k->op : "?", *note = async ? kAsyncNote : "debug mode";
  switch (k->kind) {
    case TT_CHECK_INDEX:
      return tt_status_make(TT_INDEX_ERROR, "index %lld is out of bounds for dimension %d with size %lld (aten::%s, %lld index(es) out of range; %s)",
                            i, k->dim, size, op, n, note);
    case TT_CHECK_DIM:
      return tt_status_make(TT_INVALID_ARGUMENT, "index %lld is out of bounds for dimension %d with size %lld (aten::%s, %lld index(es) out of range; %s)",
                            i, k->dim, size, op, n, note);
    case TT_CHECK_SELF:
      return tt_status_make(TT_INDEX_ERROR, "index out of range in self (aten::%s: index %lld, dimension %d with size %lld; %s)",
                            op, i, k->dim, size, note);
    case TT_CHECK_TARGET:
      return tt_status_make(TT_INDEX_ERROR, "Target %lld is out of bounds. (aten::%s: %lld classes; %s)", i, op, size, note);
    case TT_CHECK_ZERO_DIV:
      return tt_status_make(TT_INVALID_ARGUMENT, "ZeroDivisionError (aten::%s: integer division by zero, %lld zero divisor(s); %s)",
                            op, n, note);
    case TT_CHECK_VALUE_FITS:
      return tt_status_make(TT_INVALID_ARGUMENT, "value cannot be converted to type %s without overflow (aten::%s: the value tensor; %s)",
                            k->type_name ? k->type_name : "?", op, note);
    case TT_CHECK_ASSERT:
      return tt_status_make(TT_INVALID_ARGUMENT, "%s (aten::%s: the asserted value was zero; %s)", k->msg, op,
                            async ? kAsyncAssertNote : note);
    case TT_CHECK_INDICES:
      return tt_status_make(TT_INVALID_ARGUMENT, "INDICES element is out of DATA bounds, id=%lld axis_dim=%lld (aten::%s: dimension %d, "
                            "%lld index(es) out of range; %s)", i, size, op, k->dim, n, note);
    case TT_CHECK_FLAT:
      return tt_status_make(TT_INDEX_ERROR, "out of range: tried to access index %lld on a tensor of %lld elements. "
                            "(aten::%s, %lld index(es) out of range; %s)", i, size, op, n, note);
    case TT_CHECK_LDL_PIVOT:
      return tt_status_make(TT_INVALID_ARGUMENT, "Pivots given to ldl_solve must all satisfy |pivot| %s. Did you properly pass the "
                            "result of ldl_factor? (aten::%s: pivot %lld, LD.size(-2) = %lld; %s)",
                            i == 0 ? ">= 1" : "<= LD.size(-2)", op, i, size, note);
  }
  return tt_status_make(TT_INTERNAL, "unknown index check kind %d (aten::%s)", (int)k->kind, op);
}
