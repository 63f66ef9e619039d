/* Lowerings of small linear-algebra ops with no decomposition: linalg_cross
 * (the cross product along a dim of size 3) and trace. */
#include "ops/complex.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/linalg_util.h"

/* linalg_cross(self, other, *, dim=-1) */
static tt_status_t lower_linalg_cross(tt_lower_t *L) {
  tt_dtype_t da = tt_l_arg_dtype(L, 0), db = tt_l_arg_dtype(L, 1);
  if (da == TT_DTYPE_INVALID || db == TT_DTYPE_INVALID)
    return tt_status_make(TT_TYPE_ERROR, "linalg.cross: expected Tensor arguments");
  if (da != db)
    return tt_status_make(TT_INVALID_ARGUMENT, "expected scalar type %s but found %s", tt_op_type_name(da),
                          tt_op_type_name(db));
  if (da == TT_BOOL) return tt_op_refuse_dtype(TT_BOOL, "cross");
  int ra = tt_l_arg_rank(L, 0), rb = tt_l_arg_rank(L, 1);
  if (ra != rb) return tt_status_make(TT_INVALID_ARGUMENT, "linalg.cross: inputs must have the same number of dimensions.");
  int64_t dim_arg = tt_l_int(L, 2, -1);
  int dim = tt_op_wrap_dim(L, dim_arg, ra);
  if (tt_graph_failed(L->g)) return NULL;
  int64_t na = tt_l_arg_sizes(L, 0)[dim], nb = tt_l_arg_sizes(L, 1)[dim];
  if (na != 3 || nb != 3)
    return tt_status_make(TT_INVALID_ARGUMENT, "linalg.cross: inputs dimension %lld must have length 3. Got %lld and %lld",
                          (long long)dim_arg, (long long)na, (long long)nb);
  int64_t dims[TT_MAX_RANK];
  int argi[2] = {0, 1};
  int rank = tt_op_broadcast_shape(L, argi, 2, dims);
  tt_val_t a = tt_op_operand(L, 0, da, rank, dims), b = tt_op_operand(L, 1, da, rank, dims);
  tt_graph_t *g = L->g;
  tt_val_t ac[3], bc[3], r[3];
  for (int i = 0; i < 3; i++) {
    ac[i] = tt_b_slice_dim(g, a, dim, i, i + 1, 1);
    bc[i] = tt_b_slice_dim(g, b, dim, i, i + 1, 1);
  }
  /* r_i = a_j b_k - a_k b_j for (i, j, k) cyclic; bf16/f16 round each
   * product as the CPU kernel's scalar arithmetic does. */
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    r[i] = tt_b_binary(g, TT_BIN_SUB, tt_b_binary(g, TT_BIN_MUL, ac[j], bc[k]), tt_b_binary(g, TT_BIN_MUL, ac[k], bc[j]));
  }
  tt_l_output(L, tt_b_concat(g, 3, r, dim));
  return NULL;
}

/* trace(self): the diagonal sum of a matrix; integers sum to int64, bf16/f16
 * accumulate in float32 and round once, as the CPU kernel does. */
static tt_status_t lower_trace(tt_lower_t *L) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (dt == TT_DTYPE_INVALID) return tt_status_make(TT_TYPE_ERROR, "trace: expected a Tensor");
  int rank = tt_l_arg_rank(L, 0);
  if (dt == TT_BOOL) return tt_op_refuse_dtype(TT_BOOL, "trace"); /* CPU's dispatch, before its dim check */
  if (rank != 2) return tt_status_make(TT_INVALID_ARGUMENT, "trace: expected a matrix, but got tensor with dim %d", rank);
  tt_dtype_t out = tt_dtype_is_float(dt) ? dt : TT_I64;
  tt_dtype_t acc = tt_dtype_is_float(dt) ? tt_op_math_type(dt) : TT_I64;
  tt_graph_t *g = L->g;
  tt_val_t d = tt_la_diag(g, tt_b_convert(g, tt_l_tensor(L, 0), acc));
  int64_t zero = 0;
  tt_l_output(L, tt_b_convert(g, tt_b_reduce(g, TT_RED_SUM, d, 1, &zero), out));
  return NULL;
}

const tt_op_def_t tt_ops_linalg_small[] = {
    {"linalg_cross", lower_linalg_cross, 0},
    {"trace", lower_trace, 0, .complex = tt_complex_trace},
    {NULL, NULL, 0},
};
