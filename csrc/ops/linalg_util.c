/* Shared helpers of the matrix decomposition lowerings (see linalg_util.h). */
#include "ops/linalg_util.h"

#include <string.h>

int tt_la_check_matrix(tt_lower_t *L, int i, const char *api, const char *name, int square) {
  tt_dtype_t dt = tt_l_arg_dtype(L, i);
  int rank = tt_l_arg_rank(L, i);
  if (dt == TT_DTYPE_INVALID) {
    tt_l_fail(L, TT_TYPE_ERROR, "%s: expected a Tensor for %s", api, name);
    return 0;
  }
  if (rank < 2) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: The input tensor %s must have at least 2 dimensions.", api, name);
    return 0;
  }
  if (dt == TT_F16 || dt == TT_BF16) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: Low precision dtypes not supported. Got %s", api, tt_op_type_name(dt));
    return 0;
  }
  if (dt != TT_F32 && dt != TT_F64) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: Expected a floating point or complex tensor as input. Got %s", api,
              tt_op_type_name(dt));
    return 0;
  }
  const int64_t *s = tt_l_arg_sizes(L, i);
  if (square && s[rank - 1] != s[rank - 2]) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: %s must be batches of square matrices, but they are %lld by %lld matrices",
              api, name, (long long)s[rank - 2], (long long)s[rank - 1]);
    return 0;
  }
  return 1;
}

tt_val_t tt_la_mT(tt_graph_t *g, tt_val_t x) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  int r = tt_graph_type(g, x)->rank;
  int64_t perm[TT_MAX_RANK];
  for (int i = 0; i < r; i++) perm[i] = i;
  perm[r - 2] = r - 1;
  perm[r - 1] = r - 2;
  return tt_b_transpose(g, x, perm);
}

/* col - row (i64) over the last two dims [rows, cols], broadcast to rank/dims. */
static tt_val_t col_minus_row(tt_graph_t *g, int rank, const int64_t *dims) {
  int64_t d2[2] = {dims[rank - 2], dims[rank - 1]}, keep[2] = {rank - 2, rank - 1};
  tt_val_t diff = tt_b_binary(g, TT_BIN_SUB, tt_b_iota(g, TT_I64, 2, d2, 1), tt_b_iota(g, TT_I64, 2, d2, 0));
  return tt_b_broadcast(g, diff, rank, dims, keep);
}

/* Where col - row == k (k = 0: the main diagonal). */
static tt_val_t on_diagonal(tt_graph_t *g, int rank, const int64_t *dims) {
  return tt_b_compare(g, TT_CMP_EQ, col_minus_row(g, rank, dims), tt_b_full_i(g, TT_I64, rank, dims, 0));
}

tt_val_t tt_la_tri(tt_graph_t *g, tt_val_t x, int lower, int64_t k) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  tt_type_t t = *tt_graph_type(g, x);
  /* A mask that keeps all or nothing is static (and XLA CPU folds a 1x1 mask
   * wrongly: tril(x, -1) of a 1x1 kept x). col - row spans [1 - rows, cols - 1]. */
  int64_t lo = 1 - t.dims[t.rank - 2], hi = t.dims[t.rank - 1] - 1;
  if (lower ? k >= hi : k <= lo) return x;
  if (lower ? k < lo : k > hi) return tt_b_like_f(g, x, 0.0);
  tt_val_t diff = col_minus_row(g, t.rank, t.dims);
  tt_val_t keep = tt_b_compare(g, lower ? TT_CMP_LE : TT_CMP_GE, diff, tt_b_full_i(g, TT_I64, t.rank, t.dims, k));
  return tt_b_select(g, keep, x, tt_b_like_f(g, x, 0.0));
}

tt_val_t tt_la_eye(tt_graph_t *g, tt_dtype_t dt, int rank, const int64_t *dims) {
  return tt_b_convert(g, on_diagonal(g, rank, dims), dt);
}

tt_val_t tt_la_eye_like(tt_graph_t *g, tt_val_t x) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  tt_type_t t = *tt_graph_type(g, x);
  return tt_la_eye(g, t.dtype, t.rank, t.dims);
}

tt_val_t tt_la_diag(tt_graph_t *g, tt_val_t x) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  tt_type_t t = *tt_graph_type(g, x);
  int64_t m = t.dims[t.rank - 2], n = t.dims[t.rank - 1], k = m < n ? m : n;
  x = tt_b_slice_dim(g, tt_b_slice_dim(g, x, t.rank - 2, 0, k, 1), t.rank - 1, 0, k, 1);
  if (tt_graph_failed(g)) return -1;
  t = *tt_graph_type(g, x);
  tt_val_t masked = tt_b_select(g, on_diagonal(g, t.rank, t.dims), x, tt_b_like_f(g, x, 0.0));
  int64_t d = t.rank - 1;
  return tt_b_reduce(g, TT_RED_SUM, masked, 1, &d);
}

tt_val_t tt_la_matmul(tt_graph_t *g, tt_val_t x, tt_val_t y) {
  if (x < 0 || y < 0 || tt_graph_failed(g)) return -1;
  int r = tt_graph_type(g, x)->rank;
  int64_t b[TT_MAX_RANK], lc = r - 1, rc = r - 2;
  for (int i = 0; i < r - 2; i++) b[i] = i;
  return tt_b_dot(g, x, y, r - 2, b, b, 1, &lc, &rc);
}

int tt_la_broadcast_batch(tt_lower_t *L, tt_val_t *a, tt_val_t *b) {
  tt_graph_t *g = L->g;
  if (*a < 0 || *b < 0 || tt_graph_failed(g)) return 0;
  tt_type_t ta = *tt_graph_type(g, *a), tb = *tt_graph_type(g, *b);
  int ba = ta.rank - 2, bb = tb.rank - 2, br = ba > bb ? ba : bb;
  int64_t bd[TT_MAX_RANK];
  for (int i = 0; i < br; i++) {
    int ia = i - (br - ba), ib = i - (br - bb);
    int64_t da = ia >= 0 ? ta.dims[ia] : 1, db = ib >= 0 ? tb.dims[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      tt_l_fail(L, TT_INVALID_ARGUMENT,
                "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                (long long)da, (long long)db, i);
      return 0;
    }
    bd[i] = da == 1 ? db : da;
  }
  int64_t da[TT_MAX_RANK], db[TT_MAX_RANK];
  memcpy(da, bd, sizeof(int64_t) * (size_t)br);
  memcpy(db, bd, sizeof(int64_t) * (size_t)br);
  da[br] = ta.dims[ta.rank - 2];
  da[br + 1] = ta.dims[ta.rank - 1];
  db[br] = tb.dims[tb.rank - 2];
  db[br + 1] = tb.dims[tb.rank - 1];
  *a = tt_b_broadcast_to(g, *a, br + 2, da);
  *b = tt_b_broadcast_to(g, *b, br + 2, db);
  return !tt_graph_failed(g);
}
