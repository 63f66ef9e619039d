/* Lowering of nonzero_static: nonzero with a caller-given row count, so the
 * shape is static and no count goes to the host (rows past the count hold fill_value). */
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"

/* nonzero_static(self, *, size, fill_value=-1) -> [size, rank] int64 */
static tt_status_t lower_nonzero_static(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  int rank = tt_l_arg_rank(L, 0);
  int64_t size = tt_l_int(L, 1, 0), fill = tt_l_int(L, 2, -1);
  if (size < 0) return tt_status_make(TT_INVALID_ARGUMENT, "nonzero_static: 'size' must be an non-negative integer");
  if (tt_graph_failed(g)) return NULL;
  const int64_t *sz = tt_l_arg_sizes(L, 0);
  int64_t n = 1;
  for (int d = 0; d < rank; d++) n *= sz[d];
  int64_t od[2] = {size, rank};
  if (size == 0 || rank == 0 || n == 0) {
    tt_l_output(L, tt_b_full_i(g, TT_I64, 2, od, rank == 0 ? 0 : fill));
    return NULL;
  }
  tt_val_t x = tt_b_reshape(g, tt_l_tensor(L, 0), 1, &n);
  tt_val_t nz = tt_b_compare(g, TT_CMP_NE, x, tt_b_like_f(g, x, 0));
  /* A stable sort on "is zero" brings the nonzero positions, in order, to the front. */
  tt_val_t ops[2] = {tt_b_convert(g, tt_b_unary(g, TT_UN_NOT, nz), TT_I32), tt_b_iota(g, TT_I64, 1, &n, 0)};
  tt_val_t flat = tt_b_get(g, tt_b_sort(g, 2, ops, 0, 0, 1), 1);
  int64_t keep = size < n ? size : n;
  flat = tt_b_slice_dim(g, flat, 0, 0, keep, 1);
  if (keep < size) {
    int64_t lo = 0, hi = size - keep, in = 0;
    flat = tt_b_pad(g, flat, tt_b_const_i(g, TT_I64, 0), &lo, &hi, &in);
  }
  int64_t d0 = 0;
  tt_val_t count = tt_b_reduce(g, TT_RED_SUM, tt_b_convert(g, nz, TT_I64), 1, &d0);
  tt_val_t valid = tt_b_compare(g, TT_CMP_LT, tt_b_iota(g, TT_I64, 1, &size, 0), tt_b_broadcast(g, count, 1, &size, NULL));
  int64_t c1[2] = {size, 1}, stride = 1;
  tt_val_t cols[TT_MAX_RANK];
  for (int d = rank - 1; d >= 0; d--) {
    tt_val_t q = tt_b_binary(g, TT_BIN_DIV, flat, tt_b_full_i(g, TT_I64, 1, &size, stride));
    q = tt_b_binary(g, TT_BIN_REM, q, tt_b_full_i(g, TT_I64, 1, &size, sz[d]));
    q = tt_b_select(g, valid, q, tt_b_full_i(g, TT_I64, 1, &size, fill));
    cols[d] = tt_b_reshape(g, q, 2, c1);
    stride *= sz[d];
  }
  tt_l_output(L, rank == 1 ? cols[0] : tt_b_concat(g, rank, cols, 1));
  return NULL;
}

const tt_op_def_t tt_ops_nonzero_static[] = {
    {"nonzero_static", lower_nonzero_static, 0},
    {NULL, NULL, 0},
};
