/* Lowerings of renorm (each slice along dim rescaled to a p-norm of at most
 * maxnorm) and _efficientzerotensor (autograd's zero gradients, e.g. sgn's). */
#include <math.h>
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"

/* renorm(self, p, dim, maxnorm): norm over all dims but dim; slices above
 * maxnorm are scaled by maxnorm / (norm + 1e-7), as CPU, in the opmath type. */
static tt_status_t lower_renorm(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  int rank = tt_l_arg_rank(L, 0);
  double p = tt_l_float(L, 1, 2);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 2, 0), rank);
  if (tt_graph_failed(g)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0), mt = tt_op_math_type(dt);
  if (!tt_dtype_is_float(dt))
    return tt_status_make(TT_INVALID_ARGUMENT, "renorm: Expected a floating point or complex tensor as input. Got %s", tt_op_type_name(dt));
  if (!(p > 0)) return tt_status_make(TT_INVALID_ARGUMENT, "renorm: non-positive-norm not supported");
  if (rank <= 1) return tt_status_make(TT_INVALID_ARGUMENT, "renorm: input needs at least 2 dimensions, got %d dimensions", rank);
  const int64_t *sz = tt_l_arg_sizes(L, 0);
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), mt), a = tt_b_unary(g, TT_UN_ABS, x);
  int64_t rd[TT_MAX_RANK];
  int nr = 0;
  for (int d = 0; d < rank; d++)
    if (d != dim) rd[nr++] = d;
  tt_val_t norm;
  if (isinf(p)) {
    norm = tt_b_reduce(g, TT_RED_MAX, a, nr, rd);
  } else if (p == 1) {
    norm = tt_b_reduce(g, TT_RED_SUM, a, nr, rd);
  } else if (p == 2) {
    norm = tt_b_unary(g, TT_UN_SQRT, tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, a, a), nr, rd));
  } else {
    tt_val_t s = tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_POW, a, tt_b_like_f(g, a, p)), nr, rd);
    norm = tt_b_binary(g, TT_BIN_POW, s, tt_b_like_f(g, s, 1.0 / p));
  }
  int64_t n = sz[dim], bd = dim;
  tt_val_t maxnorm = tt_b_broadcast(g, tt_l_scalar_arg(L, 3, mt), 1, &n, NULL);
  tt_val_t scale = tt_b_binary(g, TT_BIN_DIV, maxnorm, tt_b_binary(g, TT_BIN_ADD, norm, tt_b_like_f(g, norm, 1e-7)));
  tt_val_t factor = tt_b_select(g, tt_b_compare(g, TT_CMP_GT, norm, maxnorm), scale, tt_b_like_f(g, norm, 1));
  tt_l_output(L, tt_b_convert(g, tt_b_binary(g, TT_BIN_MUL, x, tt_b_broadcast(g, factor, rank, sz, &bd)), dt));
  return NULL;
}

/* _efficientzerotensor(size, *, dtype, ...): plain zeros here (no ZeroTensor key). */
static tt_status_t lower_efficientzerotensor(tt_lower_t *L) {
  int64_t dims[TT_MAX_RANK + 1];
  int rank = tt_l_ints(L, 0, dims, TT_MAX_RANK + 1);
  if (rank > TT_MAX_RANK) return tt_status_make(TT_INVALID_ARGUMENT, "_efficientzerotensor: rank %d too large", rank);
  tt_dtype_t dt = tt_l_dtype(L, 1);
  if (dt == TT_DTYPE_INVALID) dt = tt_op_default_float(L);
  tt_l_output(L, tt_b_full_i(L->g, dt, rank, dims, 0));
  return NULL;
}

const tt_op_def_t tt_ops_renorm[] = {
    {"renorm", lower_renorm, 0},
    {"renorm_", lower_renorm, TT_OPF_INPLACE},
    {"_efficientzerotensor", lower_efficientzerotensor, 0},
    {NULL, NULL, 0},
};
