/* Lowerings of the loss family: nll_loss (1d/2d), mse_loss, binary cross
 * entropy, smooth_l1, huber and their backwards. Half types compute in float32. */
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"

enum { RED_NONE = 0, RED_MEAN = 1, RED_SUM = 2 }; /* at::Reduction */


static int check_reduction(tt_lower_t *L, int64_t red) {
  if (red < RED_NONE || red > RED_SUM) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%lld is not a valid value for reduction", (long long)red);
    return 0;
  }
  return 1;
}

static tt_val_t sum_all(tt_graph_t *g, tt_val_t v) {
  if (v < 0) return -1;
  const tt_type_t t = *tt_graph_type(g, v);
  int64_t dims[TT_MAX_RANK];
  for (int i = 0; i < t.rank; i++) dims[i] = i;
  return tt_b_reduce(g, TT_RED_SUM, v, t.rank, dims);
}

/* none: v; sum: total; mean: total / numel (nan for empty, as PyTorch). */
static tt_val_t apply_reduction(tt_graph_t *g, tt_val_t v, int64_t red) {
  if (red == RED_NONE || v < 0) return v;
  int64_t n = tt_type_numel(tt_graph_type(g, v));
  tt_val_t s = sum_all(g, v);
  if (red == RED_SUM) return s;
  return tt_b_binary(g, TT_BIN_DIV, s, tt_b_like_f(g, s, (double)n));
}

/* Upstream gradient of a reduced loss, in acc, broadcast to the input shape. */
static tt_val_t grad_scale(tt_lower_t *L, int gi, int64_t red, tt_dtype_t acc, int rank, const int64_t *dims) {
  tt_graph_t *g = L->g;
  tt_val_t go = tt_b_convert(g, tt_l_tensor(L, gi), acc);
  if (red == RED_MEAN) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    go = tt_b_binary(g, TT_BIN_DIV, go, tt_b_like_f(g, go, (double)n));
  }
  return tt_op_fit(L, go, acc, rank, dims);
}

/* The nll geometry: class dim 1 (0 for a 1-D input), target drops it. */
typedef struct {
  int rank, cdim;
  int64_t dims[TT_MAX_RANK], c;
  int64_t bdims[TT_MAX_RANK]; /* target dims inside the input shape */
  tt_dtype_t dt, acc;
} nll_t;

static int nll_prepare(tt_lower_t *L, int selfi, int targeti, int weighti, nll_t *p) {
  p->rank = tt_l_arg_rank(L, selfi);
  int tr = tt_l_arg_rank(L, targeti);
  if (p->rank < 1 || tr < 0) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "input tensor should be 1D or 2D");
    return 0;
  }
  memcpy(p->dims, tt_l_arg_sizes(L, selfi), sizeof(int64_t) * (size_t)p->rank);
  p->cdim = p->rank == 1 ? 0 : 1;
  p->c = p->dims[p->cdim];
  p->dt = tt_l_arg_dtype(L, selfi);
  p->acc = tt_op_math_type(p->dt);
  tt_dtype_t tdt = tt_l_arg_dtype(L, targeti);
  if (tdt != TT_I64 && tdt != TT_U8) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "expected scalar type Long but found %s", tt_op_type_name(tdt));
    return 0;
  }
  const int64_t *ts = tt_l_arg_sizes(L, targeti);
  int ok = tr == p->rank - 1;
  for (int i = 0, j = 0; ok && i < p->rank; i++) {
    if (i == p->cdim) continue;
    ok = ts[j] == p->dims[i];
    p->bdims[j++] = i;
  }
  if (!ok) {
    if (p->rank == 2 && tr == 1)
      tt_l_fail(L, TT_VALUE_ERROR, "Expected input batch_size (%lld) to match target batch_size (%lld).",
                (long long)p->dims[0], (long long)ts[0]);
    else
      tt_l_fail(L, TT_INVALID_ARGUMENT, "nll_loss: input and target shapes do not match");
    return 0;
  }
  if (!tt_l_is_none(L, weighti)) {
    int wr = tt_l_arg_rank(L, weighti);
    int64_t wn = 1;
    for (int i = 0; i < wr; i++) wn *= tt_l_arg_sizes(L, weighti)[i];
    if (wn != p->c) {
      tt_l_fail(L, TT_INVALID_ARGUMENT,
                "weight tensor should be defined either for all %lld classes or no classes but got weight "
                "tensor of shape: [%lld]", (long long)p->c, (long long)wn);
      return 0;
    }
  }
  return 1;
}

/* The one-hot mask of target over the input shape, each sample's weight
 * (0 where ignored) and whether its target is a valid class. */
static tt_val_t nll_onehot(tt_lower_t *L, const nll_t *p, int targeti, int weighti, int64_t ignore,
                           tt_val_t *w_out, tt_val_t *bad_out) {
  tt_graph_t *g = L->g;
  tt_val_t t = tt_b_convert(g, tt_l_tensor(L, targeti), TT_I64);
  tt_val_t tb = tt_b_broadcast(g, t, p->rank, p->dims, p->bdims);
  tt_val_t cls = tt_b_iota(g, TT_I64, p->rank, p->dims, p->cdim);
  tt_val_t hot = tt_b_compare(g, TT_CMP_EQ, cls, tb);
  tt_val_t valid = tt_b_compare(g, TT_CMP_NE, t, tt_b_like_f(g, t, (double)ignore));
  tt_val_t w;
  int64_t cd = p->cdim;
  if (tt_l_is_none(L, weighti)) {
    w = tt_b_convert(g, valid, p->acc);
  } else {
    int64_t c = p->c, one = p->cdim;
    tt_val_t wv = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, weighti), p->acc), 1, &c);
    tt_val_t wb = tt_b_broadcast(g, wv, p->rank, p->dims, &one);
    tt_val_t wpick = tt_b_reduce(g, TT_RED_SUM, tt_b_select(g, hot, wb, tt_b_like_f(g, wb, 0)), 1, &cd);
    w = tt_b_select(g, valid, wpick, tt_b_like_f(g, wpick, 0));
  }
  /* A target outside [0, C) that is not ignore_index: PyTorch raises. In
   * strict mode we cannot check device data here, so the affected outputs
   * become NaN; debug mode raises at this op. */
  tt_val_t zero = tt_b_like_f(g, t, 0), cmax = tt_b_like_f(g, t, (double)p->c);
  tt_val_t oob = tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_LT, t, zero), tt_b_compare(g, TT_CMP_GE, t, cmax));
  *bad_out = tt_b_binary(g, TT_BIN_AND, oob, valid);
  tt_l_check_index_mask(L, t, *bad_out, p->c, p->cdim, TT_CHECK_TARGET);
  *w_out = w;
  return hot;
}

/* nll_loss_forward / nll_loss2d_forward(self, target, weight?, reduction, ignore_index) -> (output, total_weight) */
static tt_status_t lower_nll_forward(tt_lower_t *L) {
  nll_t p;
  if (!nll_prepare(L, 0, 1, 2, &p)) return NULL;
  int64_t red = tt_l_int(L, 3, RED_MEAN);
  if (!check_reduction(L, red)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t w, bad;
  tt_val_t hot = nll_onehot(L, &p, 1, 2, tt_l_int(L, 4, -100), &w, &bad);
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), p.acc);
  int64_t cd = p.cdim;
  tt_val_t picked = tt_b_reduce(g, TT_RED_SUM, tt_b_select(g, hot, x, tt_b_like_f(g, x, 0)), 1, &cd);
  tt_val_t per = tt_b_unary(g, TT_UN_NEG, tt_b_binary(g, TT_BIN_MUL, picked, w));
  per = tt_b_select(g, tt_b_compare(g, TT_CMP_NE, w, tt_b_like_f(g, w, 0)), per, tt_b_like_f(g, per, 0));
  per = tt_b_select(g, bad, tt_b_like_f(g, per, __builtin_nan("")), per);
  tt_val_t out, total;
  if (red == RED_NONE) {
    out = per;
    total = tt_b_const_f(g, p.acc, 0);
  } else {
    total = sum_all(g, w);
    out = sum_all(g, per);
    if (red == RED_MEAN) out = tt_b_binary(g, TT_BIN_DIV, out, total);
  }
  tt_l_output(L, tt_b_convert(g, out, p.dt));
  tt_l_output(L, tt_b_convert(g, total, p.dt));
  return NULL;
}

/* nll_loss_backward / nll_loss2d_backward(grad_output, self, target, weight?,
 * reduction, ignore_index, total_weight): -w * g at each target class. */
static tt_status_t lower_nll_backward(tt_lower_t *L) {
  nll_t p;
  if (!nll_prepare(L, 1, 2, 3, &p)) return NULL;
  int64_t red = tt_l_int(L, 4, RED_MEAN);
  if (!check_reduction(L, red)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t w, bad;
  tt_val_t hot = nll_onehot(L, &p, 2, 3, tt_l_int(L, 5, -100), &w, &bad);
  tt_val_t go = tt_b_convert(g, tt_l_tensor(L, 0), p.acc);
  if (red == RED_MEAN) go = tt_b_binary(g, TT_BIN_DIV, go, tt_b_convert(g, tt_l_tensor(L, 6), p.acc));
  if (red != RED_NONE && go >= 0 && w >= 0) go = tt_b_broadcast_to(g, go, tt_graph_type(g, w)->rank, tt_graph_type(g, w)->dims);
  tt_val_t per = tt_b_unary(g, TT_UN_NEG, tt_b_binary(g, TT_BIN_MUL, w, go)); /* target shape */
  tt_val_t perb = tt_b_broadcast(g, per, p.rank, p.dims, p.bdims);
  tt_val_t gi = tt_b_select(g, hot, perb, tt_b_like_f(g, perb, 0));
  tt_l_output(L, tt_b_convert(g, gi, p.dt));
  return NULL;
}

/* Loss inputs self (0) and target (1) broadcast together in their result type. */
typedef struct {
  tt_dtype_t dt, acc;
  int rank;
  int64_t dims[TT_MAX_RANK];
  tt_val_t x, t;
  int64_t red; /* the reduction argument, checked */
} pair_t;

static int pair_prepare(tt_lower_t *L, int xi, int ti, int ri, pair_t *p) {
  int argi[2] = {xi, ti};
  p->dt = tt_op_result_type(L, argi, 2);
  p->acc = tt_op_math_type(p->dt);
  p->rank = tt_op_broadcast_shape(L, argi, 2, p->dims);
  p->x = tt_op_operand(L, xi, p->acc, p->rank, p->dims);
  p->t = tt_op_operand(L, ti, p->acc, p->rank, p->dims);
  if (tt_graph_failed(L->g)) return 0;
  p->red = tt_l_int(L, ri, RED_MEAN);
  return check_reduction(L, p->red);
}

/* mse_loss(self, target, reduction) */
static tt_status_t lower_mse(tt_lower_t *L) {
  pair_t p;
  if (!pair_prepare(L, 0, 1, 2, &p)) return NULL;
  tt_val_t d = tt_b_binary(L->g, TT_BIN_SUB, p.x, p.t);
  tt_l_output(L, tt_b_convert(L->g, apply_reduction(L->g, tt_b_binary(L->g, TT_BIN_MUL, d, d), p.red), p.dt));
  return NULL;
}

/* mse_loss_backward(grad_output, self, target, reduction): 2 (x - t) g */
static tt_status_t lower_mse_bwd(tt_lower_t *L) {
  pair_t p;
  if (!pair_prepare(L, 1, 2, 3, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t go = grad_scale(L, 0, p.red, p.acc, p.rank, p.dims);
  tt_val_t d = tt_b_binary(g, TT_BIN_SUB, p.x, p.t);
  tt_val_t r = tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_MUL, d, tt_b_like_f(g, d, 2.0)), go);
  tt_l_output(L, tt_b_convert(g, r, tt_l_arg_dtype(L, 1)));
  return NULL;
}

/* Optional elementwise weight (argument wi) fitted to the loss shape. */
static tt_val_t opt_weight(tt_lower_t *L, int wi, tt_val_t v, const pair_t *p) {
  if (tt_l_is_none(L, wi)) return v;
  return tt_b_binary(L->g, TT_BIN_MUL, v, tt_op_operand(L, wi, p->acc, p->rank, p->dims));
}

/* binary_cross_entropy(self, target, weight?, reduction): logs clamped at -100 as PyTorch. */
static tt_status_t lower_bce(tt_lower_t *L) {
  pair_t p;
  if (!pair_prepare(L, 0, 1, 3, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t one = tt_b_like_f(g, p.x, 1.0), lo = tt_b_like_f(g, p.x, -100.0);
  tt_val_t lx = tt_b_binary(g, TT_BIN_MAX, tt_b_unary(g, TT_UN_LOG, p.x), lo);
  tt_val_t l1x = tt_b_binary(g, TT_BIN_MAX, tt_b_unary(g, TT_UN_LOG, tt_b_binary(g, TT_BIN_SUB, one, p.x)), lo);
  tt_val_t v = tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_MUL, p.t, lx),
                           tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_SUB, one, p.t), l1x));
  v = opt_weight(L, 2, tt_b_unary(g, TT_UN_NEG, v), &p);
  tt_l_output(L, tt_b_convert(g, apply_reduction(g, v, p.red), p.dt));
  return NULL;
}

/* binary_cross_entropy_backward(grad_output, self, target, weight?, reduction):
 * g (x - t) / max(x (1 - x), 1e-12) */
static tt_status_t lower_bce_bwd(tt_lower_t *L) {
  pair_t p;
  if (!pair_prepare(L, 1, 2, 4, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t go = grad_scale(L, 0, p.red, p.acc, p.rank, p.dims);
  tt_val_t one = tt_b_like_f(g, p.x, 1.0);
  tt_val_t den = tt_b_binary(g, TT_BIN_MAX, tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_SUB, one, p.x), p.x),
                             tt_b_like_f(g, p.x, 1e-12));
  tt_val_t r = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_SUB, p.x, p.t), go), den);
  r = opt_weight(L, 3, r, &p);
  tt_l_output(L, tt_b_convert(g, r, tt_l_arg_dtype(L, 1)));
  return NULL;
}

/* smooth_l1_loss(self, target, reduction, beta): quadratic below beta. */
static tt_status_t lower_smooth_l1(tt_lower_t *L) {
  pair_t p;
  if (!pair_prepare(L, 0, 1, 2, &p)) return NULL;
  double beta = tt_l_float(L, 3, 1.0);
  if (beta < 0) return tt_status_make(TT_INVALID_ARGUMENT, "smooth_l1_loss does not support negative values for beta.");
  tt_graph_t *g = L->g;
  tt_val_t d = tt_b_unary(g, TT_UN_ABS, tt_b_binary(g, TT_BIN_SUB, p.x, p.t));
  tt_val_t v = d;
  if (beta > 0) {
    tt_val_t q = tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_MUL, d, d), tt_b_like_f(g, d, 0.5 / beta));
    tt_val_t lin = tt_b_binary(g, TT_BIN_SUB, d, tt_b_like_f(g, d, 0.5 * beta));
    v = tt_b_select(g, tt_b_compare(g, TT_CMP_LT, d, tt_b_like_f(g, d, beta)), q, lin);
  }
  tt_l_output(L, tt_b_convert(g, apply_reduction(g, v, p.red), p.dt));
  return NULL;
}

/* smooth_l1_loss_backward(grad_output, self, target, reduction, beta) */
static tt_status_t lower_smooth_l1_bwd(tt_lower_t *L) {
  pair_t p;
  if (!pair_prepare(L, 1, 2, 3, &p)) return NULL;
  double beta = tt_l_float(L, 4, 1.0);
  tt_graph_t *g = L->g;
  tt_val_t go = grad_scale(L, 0, p.red, p.acc, p.rank, p.dims);
  tt_val_t d = tt_b_binary(g, TT_BIN_SUB, p.x, p.t);
  tt_val_t r = tt_b_unary(g, TT_UN_SIGN, d);
  if (beta > 0)
    r = tt_b_select(g, tt_b_compare(g, TT_CMP_LT, tt_b_unary(g, TT_UN_ABS, d), tt_b_like_f(g, d, beta)),
                    tt_b_binary(g, TT_BIN_DIV, d, tt_b_like_f(g, d, beta)), r);
  tt_l_output(L, tt_b_convert(g, tt_b_binary(g, TT_BIN_MUL, r, go), tt_l_arg_dtype(L, 1)));
  return NULL;
}

/* huber_loss(self, target, reduction, delta): |d| < delta ? d^2 / 2 : delta (|d| - delta / 2). */
static tt_status_t lower_huber(tt_lower_t *L) {
  pair_t p;
  if (!pair_prepare(L, 0, 1, 2, &p)) return NULL;
  double delta = tt_l_float(L, 3, 1.0);
  if (delta <= 0) return tt_status_make(TT_INVALID_ARGUMENT, "huber_loss does not support non-positive values for delta.");
  tt_graph_t *g = L->g;
  tt_val_t d = tt_b_unary(g, TT_UN_ABS, tt_b_binary(g, TT_BIN_SUB, p.x, p.t));
  tt_val_t q = tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_MUL, d, d), tt_b_like_f(g, d, 0.5));
  tt_val_t lin = tt_b_binary(g, TT_BIN_MUL, tt_b_like_f(g, d, delta), tt_b_binary(g, TT_BIN_SUB, d, tt_b_like_f(g, d, 0.5 * delta)));
  tt_val_t v = tt_b_select(g, tt_b_compare(g, TT_CMP_LT, d, tt_b_like_f(g, d, delta)), q, lin);
  tt_l_output(L, tt_b_convert(g, apply_reduction(g, v, p.red), p.dt));
  return NULL;
}

/* huber_loss_backward(grad_output, self, target, reduction, delta): d clamped to [-delta, delta]. */
static tt_status_t lower_huber_bwd(tt_lower_t *L) {
  pair_t p;
  if (!pair_prepare(L, 1, 2, 3, &p)) return NULL;
  double delta = tt_l_float(L, 4, 1.0);
  tt_graph_t *g = L->g;
  tt_val_t go = grad_scale(L, 0, p.red, p.acc, p.rank, p.dims);
  tt_val_t d = tt_b_binary(g, TT_BIN_SUB, p.x, p.t);
  tt_val_t r = tt_b_select(g, tt_b_compare(g, TT_CMP_LE, d, tt_b_like_f(g, d, -delta)), tt_b_like_f(g, d, -delta),
                           tt_b_select(g, tt_b_compare(g, TT_CMP_GE, d, tt_b_like_f(g, d, delta)), tt_b_like_f(g, d, delta), d));
  tt_l_output(L, tt_b_convert(g, tt_b_binary(g, TT_BIN_MUL, r, go), tt_l_arg_dtype(L, 1)));
  return NULL;
}

const tt_op_def_t tt_ops_loss[] = {
    {"nll_loss_forward", lower_nll_forward, 0},
    {"nll_loss_backward", lower_nll_backward, 0},
    {"nll_loss2d_forward", lower_nll_forward, 0},
    {"nll_loss2d_backward", lower_nll_backward, 0},
    {"mse_loss", lower_mse, 0},
    {"mse_loss_backward", lower_mse_bwd, 0},
    {"binary_cross_entropy", lower_bce, 0},
    {"binary_cross_entropy_backward", lower_bce_bwd, 0},
    {"smooth_l1_loss", lower_smooth_l1, 0},
    {"smooth_l1_loss_backward", lower_smooth_l1_bwd, 0},
    {"huber_loss", lower_huber, 0},
    {"huber_loss_backward", lower_huber_bwd, 0},
    {NULL, NULL, 0},
};
