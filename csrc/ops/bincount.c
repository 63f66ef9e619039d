/* Lowering of bincount: the length (largest value + 1) is downloaded first, then counts are scatter-added.
 *
 * bincount's size companion computes {max, min} of self on device; the Python
 * trampoline downloads them and lowers bincount again with them appended, so
 * the result has a known length and negative values raise as on CPU. */
#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/nn_util.h"
#include "ops/size_pair.h"

static tt_status_t check_args(tt_lower_t *L) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_int(dt))
    return tt_op_refuse_dtype(dt, "bincount_cpu");
  if (tt_l_arg_rank(L, 0) != 1)
    return tt_status_make(TT_INVALID_ARGUMENT, "bincount only supports 1-d non-negative integral inputs.");
  if (tt_l_int(L, 2, 0) < 0) return tt_status_make(TT_INVALID_ARGUMENT, "minlength should be >= 0");
  if (!tt_l_is_none(L, 1) && (tt_l_arg_rank(L, 1) != 1 || tt_l_arg_sizes(L, 1)[0] != tt_l_arg_sizes(L, 0)[0]))
    return tt_status_make(TT_INVALID_ARGUMENT, "weights should be 1-d and have the same length as input");
  return NULL;
}

/* size companion of bincount(self, weights, minlength) -> int64[2] {max, min} ({-1, 0} when empty) */
static tt_status_t lower_bincount_size(tt_lower_t *L) {
  tt_status_t st = check_args(L);
  if (st) return st;
  tt_l_output(L, tt_op_size_pair(L, 0, TT_RED_MAX, TT_RED_MIN, -1, 0));
  return NULL;
}

/* bincount(self, weights, minlength, [max, min]): counts as int64, or sums of
 * the weights (float32 weights give float32, any other type float64, as CPU). */
static tt_status_t lower_bincount(tt_lower_t *L) {
  tt_status_t st = check_args(L);
  if (st) return st;
  tt_graph_t *g = L->g;
  int64_t mm[2];
  if (!tt_op_size_pair_arg(L, 3, mm)) return NULL;
  if (mm[1] < 0) return tt_status_make(TT_INVALID_ARGUMENT, "bincount only supports 1-d non-negative integral inputs.");
  int64_t n = tt_l_arg_sizes(L, 0)[0], len = mm[0] + 1, minlength = tt_l_int(L, 2, 0);
  if (len < minlength) len = minlength;
  int weighted = !tt_l_is_none(L, 1);
  tt_dtype_t rt = !weighted ? TT_I64 : tt_l_arg_dtype(L, 1) == TT_F32 ? TT_F32 : TT_F64;
  tt_val_t out = tt_b_full_i(g, rt, 1, &len, 0);
  if (n > 0) {
    tt_val_t w = weighted ? tt_b_convert(g, tt_l_tensor(L, 1), rt) : tt_b_full_i(g, rt, 1, &n, 1);
    out = tt_nn_scatter_dim0(g, TT_RED_SUM, out, tt_b_convert(g, tt_l_tensor(L, 0), TT_I64), w, n);
  }
  tt_l_output(L, out);
  return NULL;
}

const tt_op_def_t tt_ops_bincount[] = {
    {"bincount", lower_bincount, 0, .size = lower_bincount_size},
    {NULL, NULL, 0},
};
