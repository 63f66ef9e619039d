/* Lowerings of the randomized leaky ReLU (rrelu_with_noise and its in-place,
 * functional and backward forms). Training draws a slope in [lower, upper)
 * for every element <= 0 and records the slopes (1 elsewhere) in `noise`,
 * which the backward multiplies by; eval is leaky_relu with the mean slope. */
#include <stdio.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/random.h"

static void shape_str(char *buf, size_t cap, int rank, const int64_t *d) {
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < rank && n < cap; i++) n += (size_t)snprintf(buf + n, cap - n, i ? ", %lld" : "%lld", (long long)d[i]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

static int same_shape(tt_lower_t *L, int a, int b) {
  int r = tt_l_arg_rank(L, a);
  if (r != tt_l_arg_rank(L, b)) return 0;
  for (int i = 0; i < r; i++)
    if (tt_l_arg_sizes(L, a)[i] != tt_l_arg_sizes(L, b)[i]) return 0;
  return 1;
}

static tt_status_t check_args(tt_lower_t *L, const char *op) {
  if (!tt_l_ref(L, 0) || !tt_l_ref(L, 1)) return tt_status_make(TT_TYPE_ERROR, "%s: self and noise must be Tensors", op);
  if (!same_shape(L, 0, 1)) {
    char a[256], b[256];
    shape_str(a, sizeof a, tt_l_arg_rank(L, 0), tt_l_arg_sizes(L, 0));
    shape_str(b, sizeof b, tt_l_arg_rank(L, 1), tt_l_arg_sizes(L, 1));
    return tt_status_make(TT_INVALID_ARGUMENT, "noise tensor shape must match self tensor shape. Got self.shape = %s noise.shape = %s", a, b);
  }
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  int training = tt_l_bool(L, 4, 0);
  /* CPU's training kernel covers float, double and bfloat16; eval is leaky_relu's. */
  if (!tt_dtype_is_float(dt) || (training && dt == TT_F16))
    return tt_op_refuse_dtype(dt, "%s", training ? "rrelu_with_noise_out_cpu" : "leaky_relu_cpu");
  if (training && tt_l_arg_dtype(L, 1) != dt)
    return tt_status_make(TT_INVALID_ARGUMENT, "expected scalar type %s but found %s", tt_op_type_name(dt),
                          tt_op_type_name(tt_l_arg_dtype(L, 1)));
  double lo = tt_l_float(L, 2, 0.125), hi = tt_l_float(L, 3, 1.0 / 3);
  if (training && !(lo <= hi))
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "Expected from <= to to be true, but got false.  (Could this error message be improved?  If so, "
                          "please report an enhancement request to PyTorch.)");
  return NULL;
}

/* x > 0 ? x : x * slope, in the math type, rounded once to x's type. */
static tt_val_t leaky(tt_graph_t *g, tt_val_t x, tt_dtype_t dt, double slope) {
  const tt_type_t *t = tt_graph_type(g, x);
  if (!t) return -1;
  tt_dtype_t ct = tt_rand_compute_type(dt);
  tt_val_t xf = tt_b_convert(g, x, ct);
  tt_val_t pos = tt_b_compare(g, TT_CMP_GT, xf, tt_b_full_f(g, ct, t->rank, t->dims, 0));
  tt_val_t y = tt_b_select(g, pos, xf, tt_b_binary(g, TT_BIN_MUL, xf, tt_b_full_f(g, ct, t->rank, t->dims, slope)));
  return tt_b_convert(g, y, dt);
}

/* Computes (output, noise or -1 in eval) for the three forward forms. */
static tt_status_t forward(tt_lower_t *L, const char *op, tt_val_t *out_y, tt_val_t *out_noise) {
  tt_status_t st = check_args(L, op);
  if (st) return st;
  tt_graph_t *g = L->g;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  double lo = tt_l_float(L, 2, 0.125), hi = tt_l_float(L, 3, 1.0 / 3);
  tt_val_t x = tt_l_tensor(L, 0);
  *out_noise = -1;
  if (!tt_l_bool(L, 4, 0)) {
    *out_y = leaky(g, x, dt, (lo + hi) / 2);
    return NULL;
  }
  int r = tt_l_arg_rank(L, 0);
  const int64_t *d = tt_l_arg_sizes(L, 0);
  tt_dtype_t ct = tt_rand_compute_type(dt);
  /* CPU takes the bounds in x's type and rounds the slope to it before the product. */
  tt_val_t lov = tt_b_convert(g, tt_b_full_f(g, dt, r, d, lo), ct), hiv = tt_b_convert(g, tt_b_full_f(g, dt, r, d, hi), ct);
  tt_val_t u = tt_rand_uniform01(L, ct, r, d);
  tt_val_t slope = tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_MUL, u, tt_b_binary(g, TT_BIN_SUB, hiv, lov)), lov);
  slope = tt_b_convert(g, tt_b_convert(g, slope, dt), ct);
  tt_val_t xf = tt_b_convert(g, x, ct);
  /* NaN is not <= 0: it passes through with noise 1, as on CPU. */
  tt_val_t neg = tt_b_compare(g, TT_CMP_LE, xf, tt_b_full_f(g, ct, r, d, 0));
  *out_y = tt_b_convert(g, tt_b_select(g, neg, tt_b_binary(g, TT_BIN_MUL, xf, slope), xf), dt);
  *out_noise = tt_b_convert(g, tt_b_select(g, neg, slope, tt_b_full_f(g, ct, r, d, 1)), tt_l_arg_dtype(L, 1));
  return NULL;
}

/* rrelu_with_noise(self, noise!, lower, upper, training, generator) */
static tt_status_t lower_rrelu_with_noise(tt_lower_t *L) {
  tt_val_t y, noise;
  tt_status_t st = forward(L, "rrelu_with_noise", &y, &noise);
  if (st) return st;
  if (noise >= 0) tt_l_write(L, 1, 0, noise);
  tt_l_output(L, y);
  return NULL;
}

/* rrelu_with_noise_(self!, noise!, ...) */
static tt_status_t lower_rrelu_with_noise_(tt_lower_t *L) {
  tt_val_t y, noise;
  tt_status_t st = forward(L, "rrelu_with_noise_", &y, &noise);
  if (st) return st;
  tt_l_write(L, 0, 0, y);
  if (noise >= 0) tt_l_write(L, 1, 0, noise);
  L->returns_arg = 0;
  return NULL;
}

/* rrelu_with_noise_functional(self, noise, ...) -> (output, noise_out) */
static tt_status_t lower_rrelu_with_noise_functional(tt_lower_t *L) {
  tt_val_t y, noise;
  tt_status_t st = forward(L, "rrelu_with_noise_functional", &y, &noise);
  if (st) return st;
  tt_l_output(L, y);
  tt_l_output(L, noise >= 0 ? noise : tt_l_tensor(L, 1));
  return NULL;
}

/* rrelu_with_noise_backward(grad, self, noise, lower, upper, training, self_is_result):
 * grad * noise when training (whatever the range, as CPU), else leaky_relu_backward. */
static tt_status_t lower_rrelu_with_noise_backward(tt_lower_t *L) {
  if (!tt_l_ref(L, 0) || !tt_l_ref(L, 1) || !tt_l_ref(L, 2))
    return tt_status_make(TT_TYPE_ERROR, "rrelu_with_noise_backward: grad_output, self and noise must be Tensors");
  tt_graph_t *g = L->g;
  int argi[2] = {0, 1};
  tt_dtype_t dt = tt_op_result_type(L, argi, 2);
  int64_t dims[TT_MAX_RANK];
  int r = tt_op_broadcast_shape(L, argi, 2, dims);
  double lo = tt_l_float(L, 3, 0.125), hi = tt_l_float(L, 4, 1.0 / 3);
  tt_dtype_t ct = tt_rand_compute_type(dt);
  tt_val_t gr = tt_op_operand(L, 0, ct, r, dims);
  if (tt_l_bool(L, 5, 0)) {
    tt_val_t y = tt_b_binary(g, TT_BIN_MUL, gr, tt_op_operand(L, 2, ct, r, dims));
    tt_l_output(L, tt_b_convert(g, y, dt));
    return NULL;
  }
  double slope = (lo + hi) / 2;
  if (tt_l_bool(L, 6, 0) && slope < 0)
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                          "supported. This is caused by calling in-place forward function with a negative slope, please "
                          "call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you "
                          "do require supporting in-place leakRelu backward calculation with negative slope");
  tt_val_t x = tt_op_operand(L, 1, ct, r, dims);
  tt_val_t pos = tt_b_compare(g, TT_CMP_GT, x, tt_b_full_f(g, ct, r, dims, 0));
  tt_val_t y = tt_b_select(g, pos, gr, tt_b_binary(g, TT_BIN_MUL, gr, tt_b_full_f(g, ct, r, dims, slope)));
  tt_l_output(L, tt_b_convert(g, y, dt));
  return NULL;
}

const tt_op_def_t tt_ops_rrelu[] = {
    {"rrelu_with_noise", lower_rrelu_with_noise, 0},
    {"rrelu_with_noise_", lower_rrelu_with_noise_, 0},
    {"rrelu_with_noise_functional", lower_rrelu_with_noise_functional, 0},
    {"rrelu_with_noise_backward", lower_rrelu_with_noise_backward, 0},
    {NULL, NULL, 0},
};
