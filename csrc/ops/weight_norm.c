/* Lowerings of weight normalization's fused kernels: _weight_norm_interface
 * (w = v * g / ||v||, the norm over every dim but `dim`) and its backward,
 * for dim 0 or the last dim as CPU's kernels; computed in the opmath type,
 * the norms returned in it with g's shape (CPU's float norms for half types). */
#include <math.h>
#include <string.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"

typedef struct {
  int rank, dim, nr;
  int64_t rd[TT_MAX_RANK];
  const int64_t *sz;
  tt_dtype_t dt, mt;
} wn_shape_t;

static tt_status_t wn_shape(tt_lower_t *L, int vi, int gi, int64_t dim_arg, wn_shape_t *s) {
  s->rank = tt_l_arg_rank(L, vi);
  s->sz = tt_l_arg_sizes(L, vi);
  s->dt = tt_l_arg_dtype(L, vi);
  if (s->rank == 0) return tt_status_make(TT_INVALID_ARGUMENT, "weight_norm: v must have at least one dimension");
  if (!tt_dtype_is_float(s->dt))
    return tt_op_refuse_dtype(s->dt, "weight_norm_first_dim_kernel");
  s->mt = tt_op_math_type(s->dt);
  int64_t d = dim_arg < 0 ? dim_arg + s->rank : dim_arg;
  if (!(d == 0 || d == s->rank - 1))
    return tt_status_make(TT_INVALID_ARGUMENT, "fused kernels can only be applied for first or last dim");
  s->dim = (int)d;
  int64_t gn = 1;
  const int64_t *gs = tt_l_arg_sizes(L, gi);
  for (int i = 0; i < tt_l_arg_rank(L, gi); i++) gn *= gs[i];
  if (gn != s->sz[s->dim])
    return tt_status_make(TT_INVALID_ARGUMENT, "weight_norm: g has %lld elements, expected %lld (v's size at dim %d)",
                          (long long)gn, (long long)s->sz[s->dim], s->dim);
  s->nr = 0;
  for (int i = 0; i < s->rank; i++)
    if (i != s->dim) s->rd[s->nr++] = i;
  return NULL;
}

/* A per-slice [n] value broadcast along v's shape. */
static tt_val_t along(tt_graph_t *g, tt_val_t x, const wn_shape_t *s) {
  int64_t bd = s->dim;
  return tt_b_broadcast(g, x, s->rank, s->sz, &bd);
}

static tt_val_t slice_vec(tt_lower_t *L, int i, const wn_shape_t *s) {
  int64_t n = s->sz[s->dim];
  return tt_b_reshape(L->g, tt_b_convert(L->g, tt_l_tensor(L, i), s->mt), 1, &n);
}

static tt_val_t as_g(tt_lower_t *L, int gi, tt_val_t x) {
  return tt_b_reshape(L->g, x, tt_l_arg_rank(L, gi), tt_l_arg_sizes(L, gi));
}

/* _weight_norm_interface(v, g, dim=0) -> (w, norms) */
static tt_status_t lower_weight_norm(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  wn_shape_t s;
  tt_status_t st = wn_shape(L, 0, 1, tt_l_int(L, 2, 0), &s);
  if (st) return st;
  tt_val_t v = tt_b_convert(g, tt_l_tensor(L, 0), s.mt);
  tt_val_t norm = tt_b_unary(g, TT_UN_SQRT, tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, v, v), s.nr, s.rd));
  tt_val_t a = tt_b_binary(g, TT_BIN_DIV, slice_vec(L, 1, &s), norm);
  tt_l_output(L, tt_b_convert(g, tt_b_binary(g, TT_BIN_MUL, v, along(g, a, &s)), s.dt));
  tt_l_output(L, as_g(L, 1, norm));
  return NULL;
}

/* _weight_norm_interface_backward(grad_w, saved_v, saved_g, saved_norms, dim) -> (grad_v, grad_g):
 * with S = sum(grad_w * v) per slice, grad_g = S / norm and
 * grad_v = (g / norm) * grad_w - (g / norm) * S / norm^2 * v, as CPU's kernel. */
static tt_status_t lower_weight_norm_backward(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  wn_shape_t s;
  tt_status_t st = wn_shape(L, 1, 2, tt_l_int(L, 4, 0), &s);
  if (st) return st;
  tt_val_t gw = tt_b_convert(g, tt_l_tensor(L, 0), s.mt), v = tt_b_convert(g, tt_l_tensor(L, 1), s.mt);
  tt_val_t gv = slice_vec(L, 2, &s), norm = slice_vec(L, 3, &s);
  tt_val_t sum = tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, gw, v), s.nr, s.rd);
  tt_val_t grad_g = tt_b_binary(g, TT_BIN_DIV, sum, norm);
  tt_val_t a = tt_b_binary(g, TT_BIN_DIV, gv, norm);
  tt_val_t b = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_MUL, a, sum), tt_b_binary(g, TT_BIN_MUL, norm, norm));
  tt_val_t grad_v = tt_b_binary(g, TT_BIN_SUB, tt_b_binary(g, TT_BIN_MUL, along(g, a, &s), gw),
                                tt_b_binary(g, TT_BIN_MUL, along(g, b, &s), v));
  tt_l_output(L, tt_b_convert(g, grad_v, s.dt));
  tt_l_output(L, tt_b_convert(g, as_g(L, 2, grad_g), tt_l_arg_dtype(L, 2)));
  return NULL;
}

const tt_op_def_t tt_ops_weight_norm[] = {
    {"_weight_norm_interface", lower_weight_norm, 0},
    {"_weight_norm_interface_backward", lower_weight_norm_backward, 0},
    {NULL, NULL, 0},
};
