/* Lowering of _assert_async (and its .msg overload): the device-side
 * assert that decompositions use (one_hot's class range under
 * torch.compile). A one-element tensor's value is checked on device; a zero
 * raises RuntimeError with the caller's message at the next synchronization
 * point, as CUDA's device-side assert does (at the op in Debug mode): a
 * device check (ops/checks.h, exec/async_errors.h), so a true condition costs
 * no host round trip. The element count is known here and checked at the op
 * with CPU's is_nonzero words. */
#include "ops/common.h"
#include "ops/families.h"

/* CPU's message when the assert gives none (_assert_async_cpu). */
#define NO_MSG "Expected Tensor with single nonzero value, but got zero"

static tt_status_t assert_async(tt_lower_t *L, const char *msg) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (dt == TT_DTYPE_INVALID) return tt_status_make(TT_TYPE_ERROR, "_assert_async: self must be a Tensor");
  int rank = tt_l_arg_rank(L, 0);
  const int64_t *sizes = tt_l_arg_sizes(L, 0);
  int64_t n = 1;
  for (int d = 0; d < rank; d++) n *= sizes[d];
  if (n == 0) return tt_status_make(TT_INVALID_ARGUMENT, "Boolean value of Tensor with no values is ambiguous");
  if (n > 1) return tt_status_make(TT_INVALID_ARGUMENT, "Boolean value of Tensor with more than one value is ambiguous");
  tt_graph_t *g = L->g;
  tt_val_t x = tt_l_tensor(L, 0);
  /* is_nonzero: NaN is nonzero, -0.0 is zero (an ordered compare with 0) */
  tt_val_t bad = dt == TT_BOOL ? tt_b_unary(g, TT_UN_NOT, x) : tt_b_compare(g, TT_CMP_EQ, x, tt_b_like_f(g, x, 0));
  tt_l_check_assert(L, bad, msg);
  return NULL;
}

static tt_status_t lower_assert_async(tt_lower_t *L) { return assert_async(L, NO_MSG); }

/* _assert_async.msg(self, assert_msg): CPU's "Assertion is failed" for an empty message. */
static tt_status_t lower_assert_async_msg(tt_lower_t *L) {
  const char *msg = tt_l_str(L, 1, "");
  return assert_async(L, msg[0] ? msg : "Assertion is failed");
}

const tt_op_def_t tt_ops_assert_async[] = {
    {"_assert_async", lower_assert_async, 0},
    {"_assert_async.msg", lower_assert_async_msg, 0},
    {NULL, NULL, 0},
};
