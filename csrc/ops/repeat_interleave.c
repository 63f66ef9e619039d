/* Lowering of repeat_interleave.Tensor: the total (sum of repeats) is downloaded first, then the indices are built.
 *
 * repeat_interleave.Tensor's size companion computes {sum, min} of the repeats on
 * device; the op is then lowered with them appended. Index j of the result is
 * the number of bag ends (inclusive cumsum of repeats) at or before j: a
 * scatter-add of ones at the ends followed by a prefix sum, O(total + n). */
#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/nn_util.h"
#include "ops/scan.h"
#include "ops/size_pair.h"

static tt_status_t check_repeats(tt_lower_t *L) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (tt_l_arg_rank(L, 0) != 1) return tt_status_make(TT_INVALID_ARGUMENT, "repeat_interleave only accept 1D vector as repeat");
  if (dt != TT_I32 && dt != TT_I64)
    return tt_op_refuse_dtype(dt, "repeat_interleave_cpu");
  return NULL;
}

/* -> int64[2] {sum, min} of the repeats ({0, 0} when empty) */
static tt_status_t lower_size(tt_lower_t *L) {
  tt_status_t st = check_repeats(L);
  if (st) return st;
  tt_l_output(L, tt_op_size_pair(L, 0, TT_RED_SUM, TT_RED_MIN, 0, 0));
  return NULL;
}

/* repeat_interleave.Tensor(repeats, *, output_size, [sum, min]) -> indices in repeats' type */
static tt_status_t lower_repeat_interleave(tt_lower_t *L) {
  tt_status_t st = check_repeats(L);
  if (st) return st;
  tt_graph_t *g = L->g;
  int64_t sm[2];
  if (!tt_op_size_pair_arg(L, 2, sm)) return NULL;
  if (sm[1] < 0) return tt_status_make(TT_INVALID_ARGUMENT, "repeats can not be negative");
  int64_t total = sm[0], n = tt_l_arg_sizes(L, 0)[0];
  if (!tt_l_is_none(L, 1) && tt_l_int(L, 1, 0) != total)
    return tt_status_make(TT_INVALID_ARGUMENT, "allocated size does not match required size");
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (total == 0 || n == 0) {
    tt_l_output(L, tt_b_full_i(g, dt, 1, &total, 0));
    return NULL;
  }
  tt_val_t ends = tt_op_scan(g, TT_RED_SUM, tt_b_convert(g, tt_l_tensor(L, 0), TT_I64), 0);
  /* Ends at `total` (the last bags) fall outside and are dropped by the scatter. */
  tt_val_t marks = tt_nn_scatter_dim0(g, TT_RED_SUM, tt_b_full_i(g, TT_I64, 1, &total, 0), ends, tt_b_full_i(g, TT_I64, 1, &n, 1), n);
  tt_l_output(L, tt_b_convert(g, tt_op_scan(g, TT_RED_SUM, marks, 0), dt));
  return NULL;
}

const tt_op_def_t tt_ops_repeat_interleave[] = {
    {"repeat_interleave.Tensor", lower_repeat_interleave, 0, .size = lower_size},
    {NULL, NULL, 0},
};
