/* Lowerings of embedding_bag (sum, mean, max over bags of weight rows) and its backward ops.
 *
 * Each index's bag is a prefix count of bag starts (scatter of ones at the
 * offsets, then a cumsum), so shapes stay static. The auxiliary outputs are
 * filled as CPU fills them, since its backward (and ours) read them:
 * offset2bag is empty in sum mode without padding_idx (CPU's fast path),
 * bag_size counts the non-padding indices of each bag in mean/max mode (zeros
 * in sum mode), max_indices holds the weight row of each maximum in max mode
 * (0 for empty bags) and is bag_size otherwise; all in the indices' type.
 * With include_last_offset the last bag runs to the end of indices, as on CPU.
 * Half types accumulate in float32 and round once (CPU adds in the half type,
 * one rounding per element, so bf16/f16 results differ from CPU by an ulp).
 * scale_grad_by_freq divides by each row's true frequency; CPU's kernel
 * indexes its counts by group number, which differs when indices repeat. */
#include <math.h>
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"
#include "ops/nn_util.h"
#include "ops/scan.h"

enum { MODE_SUM = 0, MODE_MEAN = 1, MODE_MAX = 2 };

static tt_val_t i64_full(tt_graph_t *g, int64_t n, int64_t v) { return tt_b_full_i(g, TT_I64, 1, &n, v); }

/* Bag of each of n indices: (number of offsets[0..nbags) <= i) - 1, at least 0. */
static tt_val_t bag_of(tt_graph_t *g, tt_val_t offsets, int64_t n, int64_t nbags) {
  if (nbags == 0) return i64_full(g, n, 0);
  tt_val_t starts = tt_b_convert(g, tt_b_slice_dim(g, offsets, 0, 0, nbags, 1), TT_I64);
  tt_val_t marks = tt_nn_scatter_dim0(g, TT_RED_SUM, i64_full(g, n, 0), starts, i64_full(g, nbags, 1), nbags);
  tt_val_t bag = tt_b_binary(g, TT_BIN_SUB, tt_op_scan(g, TT_RED_SUM, marks, 0), i64_full(g, n, 1));
  return tt_b_binary(g, TT_BIN_MAX, bag, i64_full(g, n, 0));
}

/* Indices that count: not padding_idx (when >= 0). */
static tt_val_t kept(tt_graph_t *g, tt_val_t idx, int64_t n, int64_t padding_idx) {
  if (padding_idx < 0) return tt_b_full_i(g, TT_BOOL, 1, &n, 1);
  return tt_b_compare(g, TT_CMP_NE, idx, i64_full(g, n, padding_idx));
}

static tt_val_t bcast_col(tt_graph_t *g, tt_val_t v, int64_t n, int64_t d) {
  int64_t nd[2] = {n, d}, b0 = 0;
  return tt_b_broadcast(g, v, 2, nd, &b0);
}

/* _embedding_bag / _embedding_bag_forward_only(weight, indices, offsets,
 * scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset,
 * padding_idx) -> (output, offset2bag, bag_size, max_indices) */
static tt_status_t embedding_bag(tt_lower_t *L, int forward_only) {
  tt_graph_t *g = L->g;
  if (tt_l_arg_rank(L, 0) != 2) return tt_status_make(TT_INVALID_ARGUMENT, "embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension %d", tt_l_arg_rank(L, 0));
  if (tt_l_arg_rank(L, 1) != 1) return tt_status_make(TT_INVALID_ARGUMENT, "input has to be a 1D or 2D Tensor, but got Tensor of dimension %d", tt_l_arg_rank(L, 1));
  if (tt_l_arg_rank(L, 2) != 1) return tt_status_make(TT_INVALID_ARGUMENT, "offsets has to be a 1D Tensor, but got Tensor of dimension %d", tt_l_arg_rank(L, 2));
  tt_dtype_t wt = tt_l_arg_dtype(L, 0), it = tt_l_arg_dtype(L, 1);
  /* CPU's checkScalarTypes, indices first, with the legacy type names */
  char got[48];
  if (it != TT_I32 && it != TT_I64) {
    tt_op_legacy_type_name(it, got, sizeof got);
    return tt_status_make(TT_INVALID_ARGUMENT, "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got %s instead (while checking arguments for embedding_bag)", got);
  }
  if (!tt_dtype_is_float(wt)) {
    tt_op_legacy_type_name(wt, got, sizeof got);
    return tt_status_make(TT_INVALID_ARGUMENT, "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, BFloat16, Float, Double; but got %s instead (while checking arguments for embedding_bag)", got);
  }
  int64_t mode = tt_l_int(L, 4, 0), padding_idx = tt_l_int(L, 8, -1);
  int has_psw = !tt_l_is_none(L, 6), ilo = tt_l_bool(L, 7, 0);
  if (mode < 0 || mode > 2) return tt_status_make(TT_INVALID_ARGUMENT, "embedding_bag: mode %lld is not one of sum (0), mean (1), max (2)", (long long)mode);
  if (has_psw && mode != MODE_SUM)
    return tt_status_make(TT_NOT_IMPLEMENTED, "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='%s'). Please open a feature request on GitHub.", mode == MODE_MEAN ? "mean" : "max");
  const int64_t *ws = tt_l_arg_sizes(L, 0);
  int64_t V = ws[0], D = ws[1], n = tt_l_arg_sizes(L, 1)[0], O = tt_l_arg_sizes(L, 2)[0];
  int64_t B = ilo ? O - 1 : O;
  if (B < 0) return tt_status_make(TT_INVALID_ARGUMENT, "embedding_bag: include_last_offset needs at least one offset");
  if (has_psw && (tt_l_arg_rank(L, 6) != 1 || tt_l_arg_sizes(L, 6)[0] != n))
    return tt_status_make(TT_INVALID_ARGUMENT, "embedding_bag: per_sample_weights must have the shape of indices [%lld]", (long long)n);
  tt_dtype_t ct = tt_op_math_type(wt);
  tt_val_t idx = tt_b_convert(g, tt_l_tensor(L, 1), TT_I64);
  tt_val_t bag = bag_of(g, tt_l_tensor(L, 2), n, B);
  tt_val_t keep = kept(g, idx, n, padding_idx);
  tt_val_t safe = tt_b_clamp(g, tt_b_const_i(g, TT_I64, 0), idx, tt_b_const_i(g, TT_I64, V > 0 ? V - 1 : 0));
  tt_l_check_index(L, idx, 0, V, 0, TT_CHECK_SELF);
  tt_val_t rows = tt_b_convert(g, tt_nn_gather_dim(g, tt_l_tensor(L, 0), 0, safe, n), ct);
  int64_t nd[2] = {n, D}, bd[2] = {B, D};
  tt_val_t keep2 = bcast_col(g, keep, n, D);
  tt_val_t cnt = tt_nn_scatter_dim0(g, TT_RED_SUM, tt_b_full_i(g, TT_I64, 2, (int64_t[]){B, 1}, 0), bag,
                              tt_b_reshape(g, tt_b_convert(g, keep, TT_I64), 2, (int64_t[]){n, 1}), n);
  cnt = tt_b_reshape(g, cnt, 1, &B);
  tt_val_t out, max_idx = -1;
  if (mode == MODE_MAX) {
    tt_val_t v = tt_b_select(g, keep2, rows, tt_b_full_f(g, ct, 2, nd, -INFINITY));
    tt_val_t mx = tt_nn_scatter_dim0(g, TT_RED_MAX, tt_b_full_f(g, ct, 2, bd, -INFINITY), bag, v, n);
    /* The first kept position holding its bag's maximum gives the weight row. */
    tt_val_t hit = tt_b_binary(g, TT_BIN_AND, keep2, tt_b_compare(g, TT_CMP_EQ, v, tt_nn_gather_dim(g, mx, 0, bag, n)));
    tt_val_t pos = tt_b_select(g, hit, tt_b_iota(g, TT_I64, 2, nd, 0), tt_b_full_i(g, TT_I64, 2, nd, n));
    tt_val_t first = tt_nn_scatter_dim0(g, TT_RED_MIN, tt_b_full_i(g, TT_I64, 2, bd, n), bag, pos, n);
    tt_val_t has = tt_b_compare(g, TT_CMP_LT, first, tt_b_full_i(g, TT_I64, 2, bd, n));
    tt_val_t idx_pad = n ? idx : i64_full(g, 1, 0);
    int64_t np = n ? n : 1;
    tt_val_t fi = tt_b_reshape(g, tt_b_binary(g, TT_BIN_MIN, first, tt_b_full_i(g, TT_I64, 2, bd, np - 1)), 1, (int64_t[]){B * D});
    tt_val_t w_at = tt_b_reshape(g, tt_nn_gather_dim(g, idx_pad, 0, fi, B * D), 2, bd);
    max_idx = tt_b_select(g, has, w_at, tt_b_full_i(g, TT_I64, 2, bd, 0));
    out = tt_b_select(g, has, mx, tt_b_full_f(g, ct, 2, bd, 0));
  } else {
    tt_val_t v = rows;
    if (has_psw) v = tt_b_binary(g, TT_BIN_MUL, v, bcast_col(g, tt_b_convert(g, tt_l_tensor(L, 6), ct), n, D));
    v = tt_b_select(g, keep2, v, tt_b_full_f(g, ct, 2, nd, 0));
    out = tt_nn_scatter_dim0(g, TT_RED_SUM, tt_b_full_f(g, ct, 2, bd, 0), bag, v, n);
    if (mode == MODE_MEAN) {
      tt_val_t den = tt_b_convert(g, tt_b_binary(g, TT_BIN_MAX, cnt, i64_full(g, B, 1)), ct);
      out = tt_b_binary(g, TT_BIN_DIV, out, bcast_col(g, den, B, D));
    }
  }
  tt_l_output(L, tt_b_convert(g, out, wt));
  int fast_sum = mode == MODE_SUM && padding_idx < 0;
  tt_l_output(L, fast_sum ? tt_b_full_i(g, it, 1, (int64_t[]){0}, 0) : tt_b_convert(g, bag, it));
  /* Sum mode: zeros, one per offset in the forward-only op (CPU's requires_grad=false form). */
  tt_val_t bag_size = mode == MODE_SUM ? i64_full(g, forward_only ? O : B, 0) : cnt;
  tt_l_output(L, tt_b_convert(g, bag_size, it));
  tt_l_output(L, tt_b_convert(g, mode == MODE_MAX ? max_idx : bag_size, it));
  return NULL;
}

static tt_status_t lower_embedding_bag(tt_lower_t *L) { return embedding_bag(L, 0); }
static tt_status_t lower_embedding_bag_fwd_only(tt_lower_t *L) { return embedding_bag(L, 1); }

/* Where the backward ops keep their arguments (-1: absent). */
typedef struct bwd_args_s {
  int grad, indices, offsets, offset2bag, bag_size, max_indices, num_weights, scale, mode, sparse, psw, padding_idx;
} bwd_args_t;

/* _embedding_bag_dense_backward(grad, indices, offset2bag, bag_size,
 * maximum_indices, num_weights, scale_grad_by_freq, mode, per_sample_weights,
 * padding_idx) -> grad of weight [num_weights, D] */
static tt_status_t dense_backward(tt_lower_t *L, const bwd_args_t *a) {
  tt_graph_t *g = L->g;
  if (a->sparse >= 0 && tt_l_bool(L, a->sparse, 0))
    return tt_status_make(TT_NOT_IMPLEMENTED, "embedding_bag: sparse gradients are not supported on tpu; use sparse=False");
  if (tt_l_arg_rank(L, a->grad) != 2 || tt_l_arg_rank(L, a->indices) != 1)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: expected grad [bags, dim] and 1-D indices", L->op);
  tt_dtype_t gt = tt_l_arg_dtype(L, a->grad), ct = tt_op_math_type(gt);
  int64_t B = tt_l_arg_sizes(L, a->grad)[0], D = tt_l_arg_sizes(L, a->grad)[1], n = tt_l_arg_sizes(L, a->indices)[0];
  int64_t V = tt_l_int(L, a->num_weights, 0), mode = tt_l_int(L, a->mode, 0), padding_idx = tt_l_int(L, a->padding_idx, -1);
  int scale = tt_l_bool(L, a->scale, 0), has_psw = !tt_l_is_none(L, a->psw);
  int64_t vd[2] = {V, D}, bd[2] = {B, D};
  tt_val_t grad = tt_b_convert(g, tt_l_tensor(L, a->grad), ct);
  tt_val_t gw = tt_b_full_f(g, ct, 2, vd, 0);
  if (mode == MODE_MAX) {
    /* gw[max_indices[b, d], d] += grad[b, d] over non-empty bags. */
    tt_val_t mi = tt_b_convert(g, tt_l_tensor(L, a->max_indices), TT_I64);
    tt_val_t nonempty = tt_b_compare(g, TT_CMP_GT, tt_b_convert(g, tt_l_tensor(L, a->bag_size), TT_I64), i64_full(g, B, 0));
    grad = tt_b_select(g, bcast_col(g, nonempty, B, D), grad, tt_b_full_f(g, ct, 2, bd, 0));
    int64_t b3[3] = {B, D, 1};
    tt_val_t coords[2] = {tt_b_reshape(g, mi, 3, b3), tt_b_iota(g, TT_I64, 3, b3, 1)};
    tt_scatter_dims_t sd;
    memset(&sd, 0, sizeof sd);
    sd.inserted_window_dims[sd.n_inserted++] = 0;
    sd.inserted_window_dims[sd.n_inserted++] = 1;
    sd.scatter_to_operand[sd.n_to_operand++] = 0;
    sd.scatter_to_operand[sd.n_to_operand++] = 1;
    gw = tt_b_scatter(g, TT_RED_SUM, gw, tt_b_concat(g, 2, coords, 2), grad, &sd);
  } else if (n > 0) {
    tt_val_t idx = tt_b_convert(g, tt_l_tensor(L, a->indices), TT_I64);
    tt_val_t bag;
    if (tt_l_arg_rank(L, a->offset2bag) == 1 && tt_l_arg_sizes(L, a->offset2bag)[0] == n) {
      bag = tt_b_convert(g, tt_l_tensor(L, a->offset2bag), TT_I64);
    } else if (a->offsets >= 0) { /* empty: CPU's sum fast path did not fill it */
      int64_t O = tt_l_arg_sizes(L, a->offsets)[0];
      bag = bag_of(g, tt_l_tensor(L, a->offsets), n, O < B ? O : B);
    } else {
      return tt_status_make(TT_INVALID_ARGUMENT, "%s: offset2bag must have the shape of indices [%lld]", L->op, (long long)n);
    }
    bag = tt_b_clamp(g, tt_b_const_i(g, TT_I64, 0), bag, tt_b_const_i(g, TT_I64, B > 0 ? B - 1 : 0));
    tt_val_t v = tt_nn_gather_dim(g, grad, 0, bag, n);
    tt_val_t w = tt_b_full_f(g, ct, 1, &n, 1);
    if (has_psw) w = tt_b_convert(g, tt_l_tensor(L, a->psw), ct);
    if (mode == MODE_MEAN) {
      tt_val_t bs = tt_b_convert(g, tt_l_tensor(L, a->bag_size), TT_I64);
      tt_val_t bsz = tt_b_binary(g, TT_BIN_MAX, tt_nn_gather_dim(g, bs, 0, bag, n), i64_full(g, n, 1));
      w = tt_b_binary(g, TT_BIN_DIV, w, tt_b_convert(g, bsz, ct));
    }
    if (scale) {
      /* Divided by how often each weight row occurs in indices. */
      tt_val_t freq = tt_nn_scatter_dim0(g, TT_RED_SUM, tt_b_full_i(g, TT_I64, 2, (int64_t[]){V, 1}, 0), idx,
                                   tt_b_full_i(g, TT_I64, 2, (int64_t[]){n, 1}, 1), n);
      tt_val_t f = tt_b_reshape(g, tt_nn_gather_dim(g, freq, 0, idx, n), 1, &n);
      w = tt_b_binary(g, TT_BIN_DIV, w, tt_b_convert(g, f, ct));
    }
    w = tt_b_select(g, kept(g, idx, n, padding_idx), w, tt_b_full_f(g, ct, 1, &n, 0));
    v = tt_b_binary(g, TT_BIN_MUL, v, bcast_col(g, w, n, D));
    gw = tt_nn_scatter_dim0(g, TT_RED_SUM, gw, idx, v, n);
  }
  tt_l_output(L, tt_b_convert(g, gw, gt));
  return NULL;
}

static tt_status_t lower_dense_backward(tt_lower_t *L) {
  static const bwd_args_t a = {0, 1, -1, 2, 3, 4, 5, 6, 7, -1, 8, 9};
  return dense_backward(L, &a);
}

/* _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size,
 * maximum_indices, num_weights, scale_grad_by_freq, mode, sparse,
 * per_sample_weights, padding_idx): the dense backward (sparse is refused). */
static tt_status_t lower_backward(tt_lower_t *L) {
  static const bwd_args_t a = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  return dense_backward(L, &a);
}

/* _embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets,
 * offset2bag, mode, padding_idx) -> [n]: <grad[bag[i]], weight[indices[i]]>,
 * 0 at padding; offset2bag is recomputed from offsets when empty (sum mode). */
static tt_status_t lower_psw_backward(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  if (tt_l_int(L, 5, 0) != MODE_SUM)
    return tt_status_make(TT_INVALID_ARGUMENT, "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  tt_dtype_t gt = tt_l_arg_dtype(L, 0), ct = tt_op_math_type(gt);
  int64_t B = tt_l_arg_sizes(L, 0)[0], n = tt_l_arg_sizes(L, 2)[0];
  int64_t V = tt_l_arg_sizes(L, 1)[0], padding_idx = tt_l_int(L, 6, -1);
  tt_val_t bag;
  if (tt_l_arg_rank(L, 4) == 1 && tt_l_arg_sizes(L, 4)[0] == n && n > 0) {
    bag = tt_b_convert(g, tt_l_tensor(L, 4), TT_I64);
  } else {
    int64_t O = tt_l_arg_sizes(L, 3)[0];
    bag = bag_of(g, tt_l_tensor(L, 3), n, O < B ? O : B);
  }
  if (n == 0 || B == 0) {
    tt_l_output(L, tt_b_full_f(g, gt, 1, &n, 0));
    return NULL;
  }
  tt_val_t idx = tt_b_convert(g, tt_l_tensor(L, 2), TT_I64);
  tt_val_t safe = tt_b_clamp(g, tt_b_const_i(g, TT_I64, 0), idx, tt_b_const_i(g, TT_I64, V > 0 ? V - 1 : 0));
  tt_val_t a = tt_nn_gather_dim(g, tt_b_convert(g, tt_l_tensor(L, 0), ct), 0, bag, n);
  tt_val_t b = tt_nn_gather_dim(g, tt_b_convert(g, tt_l_tensor(L, 1), ct), 0, safe, n);
  int64_t one = 1;
  tt_val_t r = tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, a, b), 1, &one);
  r = tt_b_select(g, kept(g, idx, n, padding_idx), r, tt_b_full_f(g, ct, 1, &n, 0));
  tt_l_output(L, tt_b_convert(g, r, gt));
  return NULL;
}

/* embedding_renorm_(self, indices, max_norm, norm_type): rows named by
 * indices whose p-norm exceeds max_norm are scaled by max_norm / (norm + 1e-7)
 * (embedding and embedding_bag with max_norm). */
static tt_status_t lower_embedding_renorm(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  if (tt_l_arg_rank(L, 0) != 2) return tt_status_make(TT_INVALID_ARGUMENT, "embedding_renorm_: self must be 2-D, got %d-D", tt_l_arg_rank(L, 0));
  tt_dtype_t dt = tt_l_arg_dtype(L, 0), ct = tt_op_math_type(dt);
  int64_t V = tt_l_arg_sizes(L, 0)[0], D = tt_l_arg_sizes(L, 0)[1], n = 1;
  for (int d = 0; d < tt_l_arg_rank(L, 1); d++) n *= tt_l_arg_sizes(L, 1)[d];
  double max_norm = tt_l_float(L, 2, 0), p = tt_l_float(L, 3, 2);
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), ct);
  if (n == 0 || V == 0) {
    tt_l_output(L, tt_l_tensor(L, 0));
    return NULL;
  }
  tt_val_t idx = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 1), TT_I64), 1, &n);
  tt_l_check_index(L, idx, 0, V, 0, TT_CHECK_SELF);
  tt_val_t sel = tt_nn_scatter_dim0(g, TT_RED_MAX, tt_b_full_i(g, TT_I64, 2, (int64_t[]){V, 1}, 0), idx,
                              tt_b_full_i(g, TT_I64, 2, (int64_t[]){n, 1}, 1), n);
  sel = tt_b_compare(g, TT_CMP_GT, tt_b_reshape(g, sel, 1, &V), i64_full(g, V, 0));
  int64_t one = 1, vd[2] = {V, D};
  tt_val_t a = tt_b_unary(g, TT_UN_ABS, x), norm;
  if (isinf(p)) {
    norm = tt_b_reduce(g, TT_RED_MAX, a, 1, &one);
  } else if (p == 1) {
    norm = tt_b_reduce(g, TT_RED_SUM, a, 1, &one);
  } else if (p == 2) {
    norm = tt_b_unary(g, TT_UN_SQRT, tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, x, x), 1, &one));
  } else {
    tt_val_t s = tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_POW, a, tt_b_full_f(g, ct, 2, vd, p)), 1, &one);
    norm = tt_b_binary(g, TT_BIN_POW, s, tt_b_full_f(g, ct, 1, &V, 1.0 / p));
  }
  tt_val_t big = tt_b_binary(g, TT_BIN_AND, sel, tt_b_compare(g, TT_CMP_GT, norm, tt_b_full_f(g, ct, 1, &V, max_norm)));
  tt_val_t scale = tt_b_binary(g, TT_BIN_DIV, tt_b_full_f(g, ct, 1, &V, max_norm),
                               tt_b_binary(g, TT_BIN_ADD, norm, tt_b_full_f(g, ct, 1, &V, 1e-7)));
  scale = tt_b_select(g, big, scale, tt_b_full_f(g, ct, 1, &V, 1));
  tt_l_output(L, tt_b_convert(g, tt_b_binary(g, TT_BIN_MUL, x, bcast_col(g, scale, V, D)), dt));
  return NULL;
}

const tt_op_def_t tt_ops_embedding_bag[] = {
    {"embedding_renorm_", lower_embedding_renorm, TT_OPF_INPLACE},
    {"_embedding_bag", lower_embedding_bag, 0},
    {"_embedding_bag_forward_only", lower_embedding_bag_fwd_only, 0},
    {"_embedding_bag_backward", lower_backward, 0},
    {"_embedding_bag_dense_backward", lower_dense_backward, 0},
    {"_embedding_bag_per_sample_weights_backward", lower_psw_backward, 0},
    {NULL, NULL, 0},
};
