/* _tt_check_bounds(index, size, dim, op): the index check of a padded
 * graph (torchtpu/_bounded.py). Its indices address a dim whose real length
 * is a run-time value (`size`, a 0-d integer tensor of the launch) while the
 * dim's static length is the bucket's; an index outside the real length
 * raises the error CPU raises for `op` at that length, at the next
 * synchronization point (or at the op in Debug mode) like every device
 * check. The op has no outputs: the caller maps bad indices to valid ones. */
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"

/* The ops whose checks a padded graph makes, with CPU's error for each. */
static const struct {
  const char *key;
  const char *op; /* the aten op the error names; static: the check keeps the pointer */
  tt_check_kind_t kind;
  int nonneg; /* negative indices are out of range too (else [-size, size)) */
} kOps[] = {
    {"index.Tensor", "index.Tensor", TT_CHECK_INDEX, 0},
    {"index_put", "index_put", TT_CHECK_INDEX, 0},
    {"index_select", "index_select", TT_CHECK_SELF, 1},
    /* CPU's index_select along dim 1 of a matrix or more (its dim-1 fast path, as lower_index_select):
     * check_indexarray_range's RuntimeError */
    {"index_select_indices", "index_select", TT_CHECK_INDICES, 1},
    {"scatter", "scatter", TT_CHECK_DIM, 1},
};

static tt_status_t lower_check_bounds(tt_lower_t *L) {
  const char *op = tt_l_str(L, 3, "");
  int which = -1;
  for (int i = 0; i < (int)(sizeof kOps / sizeof kOps[0]); i++)
    if (strcmp(op, kOps[i].key) == 0) which = i;
  if (which < 0) return tt_status_make(TT_INVALID_ARGUMENT, "_tt_check_bounds: no check for op '%s'", op);
  tt_dtype_t it = tt_l_arg_dtype(L, 0), st = tt_l_arg_dtype(L, 1);
  if (!tt_dtype_is_int(it) || !tt_dtype_is_int(st) || tt_l_arg_rank(L, 1) != 0)
    return tt_status_make(TT_INVALID_ARGUMENT, "_tt_check_bounds: integer indices and a 0-d integer size expected");
  int n = L->nchecks;
  tt_val_t size = tt_b_convert(L->g, tt_l_tensor(L, 1), TT_I64);
  tt_l_check_index_rt(L, tt_l_tensor(L, 0), size, kOps[which].nonneg, (int)tt_l_int(L, 2, 0), kOps[which].kind);
  if (L->nchecks > n) L->checks[n].op = kOps[which].op;
  return NULL;
}

const tt_op_def_t tt_ops_check_bounds[] = {
    {"_tt_check_bounds", lower_check_bounds, 0},
    {NULL, NULL, 0},
};
