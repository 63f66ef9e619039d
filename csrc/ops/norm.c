/* Lowerings of the normalization family: softmax/log_softmax (+ backward),
 * layer norm and batch norm (+ backward). Half types compute in float32. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/exact_diff.h"
#include "ops/families.h"
#include "ops/moments.h"
#include "ops/norm_mixed.h"


/* Sum over `dims` keeping them as size 1, broadcast back to x's shape. */
static tt_val_t sum_kept(tt_graph_t *g, tt_val_t x, int n, const int64_t *dims) {
  if (x < 0) return -1;
  const tt_type_t t = *tt_graph_type(g, x);
  tt_val_t s = tt_b_reduce(g, TT_RED_SUM, x, n, dims);
  int64_t kept[TT_MAX_RANK];
  memcpy(kept, t.dims, sizeof kept);
  for (int k = 0; k < n; k++) kept[dims[k]] = 1;
  return tt_b_broadcast_to(g, tt_b_reshape(g, s, t.rank, kept), t.rank, t.dims);
}

static tt_val_t max_kept(tt_graph_t *g, tt_val_t x, int dim) {
  if (x < 0) return -1;
  const tt_type_t t = *tt_graph_type(g, x);
  if (t.rank == 0) return x;
  int64_t d = dim;
  tt_val_t m = tt_b_reduce(g, TT_RED_MAX, x, 1, &d);
  int64_t kept[TT_MAX_RANK];
  memcpy(kept, t.dims, sizeof kept);
  kept[dim] = 1;
  return tt_b_broadcast_to(g, tt_b_reshape(g, m, t.rank, kept), t.rank, t.dims);
}

/* softmax (log: log_softmax) of x along dim, shifted by m, x's row maximum
 * kept as size 1. x - m is exactly 0 at the max (tt_exact_diff), so exp
 * gives 1 there, the sum is >= 1 and log_softmax <= 0, softmax <= 1 as on
 * CPU. */
static tt_val_t softmax_rows(tt_graph_t *g, tt_val_t x, tt_val_t m, int dim, int rank, int log) {
  int64_t d = dim;
  tt_val_t sh = tt_exact_diff(g, x, m);
  tt_val_t e = tt_b_unary(g, TT_UN_EXP, sh);
  tt_val_t s = sum_kept(g, e, rank > 0 ? 1 : 0, &d);
  return log ? tt_b_binary(g, TT_BIN_SUB, sh, tt_b_unary(g, TT_UN_LOG, s)) : tt_b_binary(g, TT_BIN_DIV, e, s);
}

/* _softmax / _log_softmax(self, dim, half_to_float) */
static tt_status_t softmax_common(tt_lower_t *L, int log) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  int rank = tt_l_arg_rank(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  if (tt_graph_failed(L->g)) return NULL;
  if (!tt_dtype_is_float(dt)) {
    /* CPU's kernel for the last dim (a 0-dim input's too) or another; an
     * empty input runs none (its empty result) */
    int64_t numel = 1;
    for (int d = 0; d < rank; d++) numel *= tt_l_arg_sizes(L, 0)[d];
    if (numel == 0) {
      tt_l_output(L, tt_l_tensor(L, 0));
      return NULL;
    }
    return tt_op_refuse_dtype(dt, "%s%s_kernel_impl", log ? "log_softmax" : "softmax",
                              rank == 0 || dim == rank - 1 ? "_lastdim" : "");
  }
  tt_dtype_t out = tt_l_bool(L, 2, 0) && (dt == TT_F16 || dt == TT_BF16) ? TT_F32 : dt;
  tt_graph_t *g = L->g;
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), tt_op_math_type(dt));
  tt_l_output(L, tt_b_convert(g, softmax_rows(g, x, max_kept(g, x, dim), dim, rank, log), out));
  return NULL;
}
static tt_status_t lower_softmax(tt_lower_t *L) { return softmax_common(L, 0); }
static tt_status_t lower_log_softmax(tt_lower_t *L) { return softmax_common(L, 1); }

/* _safe_softmax(self, dim, dtype=None): softmax, with 0 for rows that are
 * all -inf (attention rows masked out entirely; PyTorch's math attention
 * calls it). PyTorch's composite compares every element with -inf and
 * reduces that separately; here the row maximum softmax computes anyway
 * says it, taken with NaN read as +inf (XLA CPU's maximum reduction can
 * drop a NaN): it is -inf exactly when every entry is. As the shift it
 * gives softmax's values (a row with a NaN or +inf is NaN either way). The
 * test is on self's values: where dtype narrows (float64 -> float32), a
 * finite row that overflows to -inf is not masked, as in PyTorch (softmax
 * gives NaN there). */
static tt_val_t max_nan_high(tt_graph_t *g, tt_val_t x, int dim) {
  if (x < 0) return -1;
  const tt_type_t *t = tt_graph_type(g, x);
  tt_val_t hi = tt_b_select(g, tt_b_compare(g, TT_CMP_NE, x, x), tt_b_full_f(g, t->dtype, t->rank, t->dims, INFINITY), x);
  return max_kept(g, hi, dim);
}

static tt_status_t lower_safe_softmax(tt_lower_t *L) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0), want = tt_l_dtype(L, 2);
  int rank = tt_l_arg_rank(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  if (tt_graph_failed(L->g)) return NULL;
  tt_dtype_t out = want == TT_DTYPE_INVALID ? dt : want;
  if (!tt_dtype_is_float(out)) return tt_op_refuse_dtype(out, "softmax_lastdim_kernel_impl");
  tt_graph_t *g = L->g;
  tt_val_t x0 = tt_l_tensor(L, 0);
  tt_val_t x = tt_b_convert(g, x0, tt_op_math_type(out));
  tt_val_t m = max_nan_high(g, x, dim);
  tt_val_t r = softmax_rows(g, x, m, dim, rank, 0);
  if (tt_dtype_is_float(dt) && r >= 0) {
    int narrows = tt_dtype_size(tt_op_math_type(out)) < tt_dtype_size(dt);
    tt_val_t m0 = narrows ? max_nan_high(g, x0, dim) : m;
    const tt_type_t *mt = tt_graph_type(g, m0), *rt = tt_graph_type(g, r);
    tt_val_t masked = tt_b_compare(g, TT_CMP_EQ, m0, tt_b_full_f(g, mt->dtype, mt->rank, mt->dims, -INFINITY));
    r = tt_b_select(g, masked, tt_b_full_f(g, rt->dtype, rt->rank, rt->dims, 0.0), r);
  }
  tt_l_output(L, tt_b_convert(g, r, out));
  return NULL;
}

/* _softmax_backward_data / _log_softmax_backward_data(grad_output, output, dim, input_dtype):
 * softmax: y * (g - sum(g * y)); log_softmax: g - exp(y) * sum(g). */
static tt_status_t softmax_backward(tt_lower_t *L, int log) {
  int rank = tt_l_arg_rank(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 2, 0), rank);
  if (tt_graph_failed(L->g)) return NULL;
  tt_dtype_t out = tt_l_dtype(L, 3);
  if (out == TT_DTYPE_INVALID) out = tt_l_arg_dtype(L, 0);
  tt_dtype_t acc = tt_op_math_type(tt_l_arg_dtype(L, 0));
  tt_graph_t *g = L->g;
  tt_val_t go = tt_b_convert(g, tt_l_tensor(L, 0), acc);
  tt_val_t y = tt_b_convert(g, tt_l_tensor(L, 1), acc);
  int64_t d = dim;
  int nd = rank > 0 ? 1 : 0;
  tt_val_t r;
  if (log) {
    r = tt_b_binary(g, TT_BIN_SUB, go, tt_b_binary(g, TT_BIN_MUL, tt_b_unary(g, TT_UN_EXP, y), sum_kept(g, go, nd, &d)));
  } else {
    tt_val_t gy = tt_b_binary(g, TT_BIN_MUL, go, y);
    r = tt_b_binary(g, TT_BIN_SUB, gy, tt_b_binary(g, TT_BIN_MUL, y, sum_kept(g, gy, nd, &d)));
  }
  tt_l_output(L, tt_b_convert(g, r, out));
  return NULL;
}
static tt_status_t lower_softmax_bwd(tt_lower_t *L) { return softmax_backward(L, 0); }
static tt_status_t lower_log_softmax_bwd(tt_lower_t *L) { return softmax_backward(L, 1); }

/* Optional per-feature tensor argument i in acc, broadcast along `axis..`
 * (layer norm: trailing dims) or along dim 1 (batch norm); `fill` if None. */
static tt_val_t optional_param(tt_lower_t *L, int i, tt_dtype_t acc, const tt_type_t *like, int bn, double fill) {
  if (tt_l_is_none(L, i)) return tt_b_full_f(L->g, acc, like->rank, like->dims, fill);
  tt_val_t p = tt_b_convert(L->g, tt_l_tensor(L, i), acc);
  if (!bn) return tt_b_broadcast_to(L->g, p, like->rank, like->dims);
  int64_t one = 1;
  return tt_b_broadcast(L->g, p, like->rank, like->dims, &one);
}

/* Layer norm's split: input rank, normalized dims [axis, rank), their count. */
typedef struct {
  int rank, axis;
  int64_t n; /* elements per normalized group */
  int64_t dims[TT_MAX_RANK];
  int nd;
  int64_t stat_shape[TT_MAX_RANK]; /* outer dims then 1s */
} ln_t;

static int ln_prepare(tt_lower_t *L, int inputi, int shapei, ln_t *p) {
  int64_t ns[TT_MAX_RANK + 1];
  int k = tt_l_ints(L, shapei, ns, TT_MAX_RANK + 1);
  p->rank = tt_l_arg_rank(L, inputi);
  if (tt_graph_failed(L->g) || p->rank < 0) return 0;
  const int64_t *s = tt_l_arg_sizes(L, inputi);
  int ok = k >= 1 && k <= p->rank;
  for (int j = 0; ok && j < k; j++) ok = s[p->rank - k + j] == ns[j];
  if (!ok) {
    char a[256] = "", b[256] = "";
    size_t off = 0;
    for (int j = 0; j < k && off < sizeof a - 24; j++) off += (size_t)snprintf(a + off, sizeof a - off, "%s%lld", j ? ", " : "", (long long)ns[j]);
    off = 0;
    for (int j = 0; j < p->rank && off < sizeof b - 24; j++) off += (size_t)snprintf(b + off, sizeof b - off, "%s%lld", j ? ", " : "", (long long)s[j]);
    tt_l_fail(L, TT_INVALID_ARGUMENT,
              "Given normalized_shape=[%s], expected input with shape [*, %s], but got input of size[%s]", a, a, b);
    return 0;
  }
  p->axis = p->rank - k;
  p->nd = k;
  p->n = 1;
  for (int j = 0; j < p->rank; j++) {
    p->stat_shape[j] = j < p->axis ? s[j] : 1;
    if (j >= p->axis) {
      p->dims[j - p->axis] = j;
      p->n *= s[j];
    }
  }
  return 1;
}

/* native_layer_norm(input, normalized_shape, weight?, bias?, eps) -> (out, mean, rstd) */
static tt_status_t lower_layer_norm(tt_lower_t *L) {
  static const int params[2] = {2, 3};
  ln_t p;
  if (!ln_prepare(L, 0, 1, &p) || !tt_norm_check_mixed(L, 0, params, 2)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0), acc = tt_op_math_type(dt);
  tt_graph_t *g = L->g;
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), acc);
  if (tt_graph_failed(g)) return NULL;
  const tt_type_t xt = *tt_graph_type(g, x);
  int64_t outer[TT_MAX_RANK];
  for (int j = 0; j < p.axis; j++) outer[j] = j;
  tt_val_t m2 = -1;
  tt_val_t mean_r = tt_moments(L, x, p.nd, p.dims, p.n, &m2); /* outer shape */
  if (p.n == 0) { /* empty rows: mean 0, rstd 1/sqrt(eps) */
    mean_r = tt_b_like_f(g, mean_r, 0.0);
    m2 = tt_b_like_f(g, m2, 0.0);
  }
  tt_val_t var = tt_div_count(L, m2, p.n ? (double)p.n : 1.0);
  tt_val_t eps = tt_b_broadcast(g, tt_l_scalar_arg(L, 4, acc), p.axis, xt.dims, NULL);
  tt_val_t rstd_r = tt_b_unary(g, TT_UN_RSQRT, tt_b_binary(g, TT_BIN_ADD, var, eps));
  tt_val_t mean = tt_b_broadcast(g, mean_r, xt.rank, xt.dims, outer);
  tt_val_t rstd = tt_b_broadcast(g, rstd_r, xt.rank, xt.dims, outer);
  tt_val_t y = tt_b_binary(g, TT_BIN_MUL, tt_exact_diff(g, x, mean), rstd);
  if (!tt_l_is_none(L, 2)) y = tt_b_binary(g, TT_BIN_MUL, y, optional_param(L, 2, acc, &xt, 0, 1));
  if (!tt_l_is_none(L, 3)) y = tt_b_binary(g, TT_BIN_ADD, y, optional_param(L, 3, acc, &xt, 0, 0));
  /* Stats: one per outer index, normalized dims kept as 1s. */
  tt_val_t m = tt_b_reshape(g, mean_r, xt.rank, p.stat_shape);
  tt_val_t r = tt_b_reshape(g, rstd_r, xt.rank, p.stat_shape);
  tt_l_output(L, tt_b_convert(g, y, dt));
  tt_l_output(L, tt_b_convert(g, m, dt));
  tt_l_output(L, tt_b_convert(g, r, dt));
  return NULL;
}

/* native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd,
 * weight?, bias?, output_mask) -> (grad_input, grad_weight, grad_bias).
 * Masked-off results are still computed (autograd ignores them). */
static tt_status_t lower_layer_norm_bwd(tt_lower_t *L) {
  ln_t p;
  if (!ln_prepare(L, 1, 2, &p)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 1), acc = tt_op_math_type(dt);
  tt_graph_t *g = L->g;
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 1), acc);
  if (tt_graph_failed(g)) return NULL;
  const tt_type_t xt = *tt_graph_type(g, x);
  tt_val_t go = tt_b_convert(g, tt_l_tensor(L, 0), acc);
  tt_val_t mean = tt_b_broadcast_to(g, tt_b_convert(g, tt_l_tensor(L, 3), acc), xt.rank, xt.dims);
  tt_val_t rstd = tt_b_broadcast_to(g, tt_b_convert(g, tt_l_tensor(L, 4), acc), xt.rank, xt.dims);
  tt_val_t xhat = tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_SUB, x, mean), rstd);
  tt_val_t gw = tt_l_is_none(L, 5) ? go : tt_b_binary(g, TT_BIN_MUL, go, optional_param(L, 5, acc, &xt, 0, 1));
  /* dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)) */
  /* divided by n, not times 1/n: a row of ones (a sum's gradient) then gives
   * gw - mean(gw) = 0 exactly, where n * fl(1/n) can miss 1 by an ulp */
  tt_val_t m1 = tt_div_count(L, sum_kept(g, gw, p.nd, p.dims), p.n ? (double)p.n : 1.0);
  tt_val_t m2 = tt_div_count(L, sum_kept(g, tt_b_binary(g, TT_BIN_MUL, gw, xhat), p.nd, p.dims), p.n ? (double)p.n : 1.0);
  tt_val_t dx = tt_b_binary(g, TT_BIN_SUB, tt_b_binary(g, TT_BIN_SUB, gw, m1), tt_b_binary(g, TT_BIN_MUL, xhat, m2));
  dx = tt_b_binary(g, TT_BIN_MUL, dx, rstd);
  int64_t outer[TT_MAX_RANK];
  for (int j = 0; j < p.axis; j++) outer[j] = j;
  tt_dtype_t wdt = tt_l_is_none(L, 5) ? dt : tt_l_arg_dtype(L, 5);
  tt_dtype_t bdt = tt_l_is_none(L, 6) ? wdt : tt_l_arg_dtype(L, 6);
  tt_val_t dw = tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, go, xhat), p.axis, outer);
  tt_val_t db = tt_b_reduce(g, TT_RED_SUM, go, p.axis, outer);
  tt_l_output(L, tt_b_convert(g, dx, dt));
  tt_l_output(L, tt_b_convert(g, dw, wdt));
  tt_l_output(L, tt_b_convert(g, db, bdt));
  return NULL;
}

/* Batch norm reduces over every dim but 1 (channels). */
typedef struct {
  int rank;
  int64_t c, n; /* channels, elements per channel */
  int64_t dims[TT_MAX_RANK];
  int nd;
  tt_dtype_t dt, pdt, acc; /* input, statistics/params, compute */
} bn_t;

static int bn_prepare(tt_lower_t *L, int inputi, const int *parami, int nparam, bn_t *p) {
  p->rank = tt_l_arg_rank(L, inputi);
  if (p->rank < 2) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "Expected a 2D or higher input to batch_norm, got %dD", p->rank);
    return 0;
  }
  const int64_t *s = tt_l_arg_sizes(L, inputi);
  p->c = s[1];
  p->n = 1;
  p->nd = 0;
  for (int j = 0; j < p->rank; j++)
    if (j != 1) {
      p->dims[p->nd++] = j;
      p->n *= s[j];
    }
  p->dt = tt_l_arg_dtype(L, inputi);
  p->acc = tt_op_math_type(p->dt);
  /* PyTorch's mixed type: half input with float32 params keeps float32 stats. */
  p->pdt = p->dt;
  for (int k = 0; k < nparam; k++)
    if (!tt_l_is_none(L, parami[k])) {
      tt_dtype_t q = tt_l_arg_dtype(L, parami[k]);
      if (q == TT_F32 && p->dt != TT_F32) p->pdt = TT_F32;
      break;
    }
  return 1;
}

/* A per-channel vector (shape [C]) broadcast along dim 1 of x's shape. */
static tt_val_t per_channel(tt_graph_t *g, tt_val_t v, const tt_type_t *xt) {
  int64_t one = 1;
  return tt_b_broadcast(g, v, xt->rank, xt->dims, &one);
}

/* native_batch_norm(input, weight?, bias?, running_mean?, running_var?,
 * training, momentum, eps) -> (out, save_mean, save_invstd). Training
 * updates the running stats in place with the unbiased variance. */
static tt_status_t lower_batch_norm(tt_lower_t *L) {
  int params[4] = {1, 2, 3, 4};
  bn_t p;
  if (!tt_norm_check_mixed(L, 0, params, 4) || !bn_prepare(L, 0, params, 4, &p)) return NULL;
  int training = tt_l_bool(L, 5, 0);
  tt_graph_t *g = L->g;
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), p.acc);
  if (tt_graph_failed(g)) return NULL;
  const tt_type_t xt = *tt_graph_type(g, x);
  tt_val_t mean, invstd;
  tt_val_t eps = tt_b_broadcast(g, tt_l_scalar_arg(L, 7, p.acc), 1, &p.c, NULL);
  if (training) {
    if (p.n <= 1 && p.n >= 0)
      return tt_status_make(TT_VALUE_ERROR, "Expected more than 1 value per channel when training, got input size [%lld, %lld]",
                            (long long)tt_l_arg_sizes(L, 0)[0], (long long)p.c);
    tt_val_t ss = -1;
    mean = tt_moments(L, x, p.nd, p.dims, p.n, &ss);
    tt_val_t var = tt_div_count(L, ss, (double)p.n);
    invstd = tt_b_unary(g, TT_UN_RSQRT, tt_b_binary(g, TT_BIN_ADD, var, eps));
    if (!tt_l_is_none(L, 3) || !tt_l_is_none(L, 4)) {
      tt_val_t mom = tt_b_broadcast(g, tt_l_scalar_arg(L, 6, p.acc), 1, &p.c, NULL);
      tt_val_t keep = tt_b_binary(g, TT_BIN_SUB, tt_b_full_f(g, p.acc, 1, &p.c, 1.0), mom);
      for (int k = 3; k <= 4; k++) {
        if (tt_l_is_none(L, k)) continue;
        tt_val_t old = tt_b_convert(g, tt_l_tensor(L, k), p.acc);
        tt_val_t cur = k == 3 ? mean : tt_div_count(L, ss, (double)(p.n - 1));
        tt_val_t upd = tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_MUL, keep, old), tt_b_binary(g, TT_BIN_MUL, mom, cur));
        tt_l_write(L, k, 0, tt_b_convert(g, upd, tt_l_arg_dtype(L, k)));
      }
    }
  } else {
    if (tt_l_is_none(L, 3) || tt_l_is_none(L, 4))
      return tt_status_make(TT_INVALID_ARGUMENT, "running_mean and running_var must be defined in evaluation mode");
    mean = tt_b_convert(g, tt_l_tensor(L, 3), p.acc);
    invstd = tt_b_unary(g, TT_UN_RSQRT, tt_b_binary(g, TT_BIN_ADD, tt_b_convert(g, tt_l_tensor(L, 4), p.acc), eps));
  }
  tt_val_t y = tt_b_binary(g, TT_BIN_MUL, tt_exact_diff(g, x, per_channel(g, mean, &xt)), per_channel(g, invstd, &xt));
  if (!tt_l_is_none(L, 1)) y = tt_b_binary(g, TT_BIN_MUL, y, optional_param(L, 1, p.acc, &xt, 1, 1));
  if (!tt_l_is_none(L, 2)) y = tt_b_binary(g, TT_BIN_ADD, y, optional_param(L, 2, p.acc, &xt, 1, 0));
  tt_l_output(L, tt_b_convert(g, y, p.dt));
  if (training) {
    tt_l_output(L, tt_b_convert(g, mean, p.pdt));
    tt_l_output(L, tt_b_convert(g, invstd, p.pdt));
  } else { /* CPU returns empty save_mean/save_invstd in evaluation */
    int64_t zero = 0;
    tt_l_output(L, tt_b_full_f(g, p.pdt, 1, &zero, 0));
    tt_l_output(L, tt_b_full_f(g, p.pdt, 1, &zero, 0));
  }
  return NULL;
}

/* native_batch_norm_backward(grad_out, input, weight?, running_mean?,
 * running_var?, save_mean?, save_invstd?, train, eps, output_mask). */
static tt_status_t lower_batch_norm_bwd(tt_lower_t *L) {
  int params[3] = {2, 3, 4};
  bn_t p;
  if (!bn_prepare(L, 1, params, 3, &p)) return NULL;
  int train = tt_l_bool(L, 7, 0);
  tt_graph_t *g = L->g;
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 1), p.acc);
  if (tt_graph_failed(g)) return NULL;
  const tt_type_t xt = *tt_graph_type(g, x);
  tt_val_t go = tt_b_convert(g, tt_l_tensor(L, 0), p.acc);
  tt_val_t mean, invstd;
  if (train) {
    if (tt_l_is_none(L, 5) || tt_l_is_none(L, 6))
      return tt_status_make(TT_INVALID_ARGUMENT, "save_mean and save_invstd must be defined in training mode");
    mean = tt_b_convert(g, tt_l_tensor(L, 5), p.acc);
    invstd = tt_b_convert(g, tt_l_tensor(L, 6), p.acc);
  } else {
    if (tt_l_is_none(L, 3) || tt_l_is_none(L, 4))
      return tt_status_make(TT_INVALID_ARGUMENT, "running_mean and running_var must be defined in evaluation mode");
    mean = tt_b_convert(g, tt_l_tensor(L, 3), p.acc);
    tt_val_t eps = tt_b_broadcast(g, tt_l_scalar_arg(L, 8, p.acc), 1, &p.c, NULL);
    invstd = tt_b_unary(g, TT_UN_RSQRT, tt_b_binary(g, TT_BIN_ADD, tt_b_convert(g, tt_l_tensor(L, 4), p.acc), eps));
  }
  tt_val_t w = tt_l_is_none(L, 2) ? tt_b_full_f(g, p.acc, 1, &p.c, 1.0) : tt_b_convert(g, tt_l_tensor(L, 2), p.acc);
  tt_val_t xhat = tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_SUB, x, per_channel(g, mean, &xt)), per_channel(g, invstd, &xt));
  tt_val_t db = tt_b_reduce(g, TT_RED_SUM, go, p.nd, p.dims);
  tt_val_t dw = tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, go, xhat), p.nd, p.dims);
  tt_val_t scale = tt_b_binary(g, TT_BIN_MUL, w, invstd); /* [C] */
  tt_val_t dx;
  if (train) {
    /* dx = w * invstd * (go - mean(go) - xhat * mean(go * xhat)) */
    tt_val_t m1 = per_channel(g, tt_div_count(L, db, (double)p.n), &xt);
    tt_val_t m2 = per_channel(g, tt_div_count(L, dw, (double)p.n), &xt);
    dx = tt_b_binary(g, TT_BIN_SUB, tt_b_binary(g, TT_BIN_SUB, go, m1), tt_b_binary(g, TT_BIN_MUL, xhat, m2));
    dx = tt_b_binary(g, TT_BIN_MUL, dx, per_channel(g, scale, &xt));
  } else {
    dx = tt_b_binary(g, TT_BIN_MUL, go, per_channel(g, scale, &xt));
  }
  tt_l_output(L, tt_b_convert(g, dx, p.dt));
  tt_l_output(L, tt_b_convert(g, dw, p.pdt));
  tt_l_output(L, tt_b_convert(g, db, p.pdt));
  return NULL;
}

/* Batch-norm variants with native_batch_norm's arguments rearranged: ids
 * list, per native_batch_norm argument, the variant's argument (-1: None,
 * -2: training = true). Writes keep the variant's numbering since the
 * running stats stay at positions 3 and 4. */
static tt_status_t batch_norm_variant(tt_lower_t *L, const int *ids) {
  tt_arg_t a[8], *orig = L->args;
  int n = L->nargs;
  for (int k = 0; k < 8; k++) {
    memset(&a[k], 0, sizeof a[k]);
    if (ids[k] == -2) a[k].kind = TT_ARG_BOOL, a[k].i = 1;
    else if (ids[k] >= 0 && ids[k] < n) a[k] = orig[ids[k]];
  }
  L->args = a;
  L->nargs = 8;
  tt_status_t st = lower_batch_norm(L);
  L->args = orig;
  L->nargs = n;
  return st;
}
/* _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps) */
static tt_status_t lower_bn_no_stats(tt_lower_t *L) {
  static const int ids[8] = {0, 1, 2, -1, -1, 3, 4, 5};
  return batch_norm_variant(L, ids);
}
/* _batch_norm_with_update(input, weight, bias, running_mean, running_var,
 * momentum, eps) -> (out, save_mean, save_invstd, reserve): CPU's reserve is empty. */
static tt_status_t lower_bn_with_update(tt_lower_t *L) {
  static const int ids[8] = {0, 1, 2, 3, 4, -2, 5, 6};
  tt_status_t st = batch_norm_variant(L, ids);
  int64_t zero = 0;
  if (!st) tt_l_output(L, tt_b_full_i(L->g, TT_U8, 1, &zero, 0));
  return st;
}

const tt_op_def_t tt_ops_norm[] = {
    {"_softmax", lower_softmax, 0},
    {"_log_softmax", lower_log_softmax, 0},
    {"_safe_softmax", lower_safe_softmax, 0},
    {"_softmax_backward_data", lower_softmax_bwd, 0},
    {"_log_softmax_backward_data", lower_log_softmax_bwd, 0},
    {"native_layer_norm", lower_layer_norm, 0},
    {"native_layer_norm_backward", lower_layer_norm_bwd, 0},
    {"native_batch_norm", lower_batch_norm, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"native_batch_norm_backward", lower_batch_norm_bwd, 0},
    {"_native_batch_norm_legit", lower_batch_norm, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"_native_batch_norm_legit.no_stats", lower_bn_no_stats, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"_batch_norm_with_update", lower_bn_with_update, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    /* same leading arguments as native_batch_norm_backward; reserve unused */
    {"batch_norm_backward", lower_batch_norm_bwd, 0},
    {NULL, NULL, 0},
};
