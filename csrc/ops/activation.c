/* Activations and their backward ops (relu, gelu, silu, leaky_relu, hardtanh,
 * elu, softplus, threshold, sigmoid/tanh backward, hardsigmoid, hardswish,
 * mish, log_sigmoid, soft/hard shrink, glu), computed in opmath. */
#include <string.h>

#include "ops/common.h"
#include "ops/complex.h"
#include "ops/dispatch_refusal.h"
#include "ops/elementwise.h"
#include "ops/families.h"

/* Tensor argument i converted to the opmath type of `dt`, broadcast to the
 * shape of arguments a and b (grad and input of a backward op). */
typedef struct {
  tt_dtype_t dt, ct;
  int rank;
  int64_t dims[TT_MAX_RANK];
} act_t;

static int act_prepare(tt_lower_t *L, int a, int b, act_t *p) {
  int argi[2] = {a, b < 0 ? a : b};
  p->dt = tt_l_arg_dtype(L, a);
  if (b >= 0) p->dt = tt_op_result_type(L, argi, 2);
  p->ct = tt_op_math_type(p->dt);
  p->rank = tt_op_broadcast_shape(L, argi, b < 0 ? 1 : 2, p->dims);
  return !tt_graph_failed(L->g);
}
static tt_val_t act_in(tt_lower_t *L, act_t *p, int i) { return tt_op_operand(L, i, p->ct, p->rank, p->dims); }
static tt_val_t act_scalar(tt_lower_t *L, act_t *p, int i) {
  return tt_op_fit(L, tt_l_scalar_arg(L, i, p->ct), p->ct, p->rank, p->dims);
}
static tt_val_t cst(tt_graph_t *g, tt_val_t like, double v) { return tt_b_like_f(g, like, v); }
static tt_val_t add(tt_graph_t *g, tt_val_t x, tt_val_t y) { return tt_b_binary(g, TT_BIN_ADD, x, y); }
static tt_val_t sub(tt_graph_t *g, tt_val_t x, tt_val_t y) { return tt_b_binary(g, TT_BIN_SUB, x, y); }
static tt_val_t mul(tt_graph_t *g, tt_val_t x, tt_val_t y) { return tt_b_binary(g, TT_BIN_MUL, x, y); }
static tt_val_t cmp(tt_graph_t *g, tt_cmp_t c, tt_val_t x, tt_val_t y) { return tt_b_compare(g, c, x, y); }
static void act_out(tt_lower_t *L, act_t *p, tt_val_t v) { tt_l_output(L, tt_b_convert(L->g, v, p->dt)); }

static tt_status_t float_only(tt_lower_t *L, const char *name) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_float(dt))
    return tt_op_refuse_dtype(dt, "%s", name);
  return NULL;
}

/* relu = clamp_min(x, 0): NaN stays NaN; integers allowed, bool not. */
static tt_status_t lower_relu(tt_lower_t *L) {
  if (tt_l_arg_dtype(L, 0) == TT_BOOL) return tt_status_make(TT_INVALID_ARGUMENT, "Boolean inputs not supported for relu");
  tt_val_t x = tt_l_tensor(L, 0);
  tt_l_output(L, tt_b_select(L->g, cmp(L->g, TT_CMP_LT, x, cst(L->g, x, 0)), cst(L->g, x, 0), x));
  return NULL;
}

/* threshold(x, th, value) = x <= th ? value : x. */
static tt_status_t lower_threshold(tt_lower_t *L) {
  /* CPU's kernel dispatches on every type but Bool, then converts threshold
   * and value into the input's type checked (int8 with 300, float16 with
   * 1e6: 'value cannot be converted to type int8_t without overflow'; tpu
   * computed a bool input and wrapped the numbers) */
  if (tt_l_arg_dtype(L, 0) == TT_BOOL) return tt_op_refuse_dtype(TT_BOOL, "threshold_cpu");
  act_t p;
  if (!act_prepare(L, 0, -1, &p)) return NULL;
  /* (a float16/bfloat16 kernel reads threshold as float, value in its type) */
  tt_dtype_t th_dt = p.dt == TT_F16 || p.dt == TT_BF16 ? TT_F32 : p.dt;
  if (!tt_op_check_scalar_fits(L, 1, th_dt) || !tt_op_check_scalar_fits(L, 2, p.dt)) return NULL;
  p.ct = p.dt; /* selects: exact in the input type */
  tt_val_t x = act_in(L, &p, 0);
  /* the comparison in threshold's type: x <= 0.3 in float, not against 0.3
   * rounded to float16 (0.2998 or 0.3005 decided otherwise) */
  p.ct = th_dt;
  tt_val_t le = cmp(L->g, TT_CMP_LE, tt_b_convert(L->g, x, th_dt), act_scalar(L, &p, 1));
  p.ct = p.dt;
  tt_l_output(L, tt_b_select(L->g, le, act_scalar(L, &p, 2), x));
  return NULL;
}

/* threshold_backward(grad, self, th) = self <= th ? 0 : grad. */
static tt_status_t lower_threshold_backward(tt_lower_t *L) {
  act_t p;
  if (!act_prepare(L, 0, 1, &p)) return NULL;
  p.ct = p.dt;
  tt_val_t gr = act_in(L, &p, 0), x = act_in(L, &p, 1);
  tt_l_output(L, tt_b_select(L->g, cmp(L->g, TT_CMP_LE, x, act_scalar(L, &p, 2)), cst(L->g, gr, 0), gr));
  return NULL;
}

static int gelu_tanh(tt_lower_t *L, int i) {
  const char *a = tt_l_str(L, i, "none");
  if (!strcmp(a, "tanh")) return 1;
  if (strcmp(a, "none")) tt_l_fail(L, TT_INVALID_ARGUMENT, "approximate argument must be either none or tanh.");
  return 0;
}

#define SQRT_2_OVER_PI 0.79788456080286535588 /* sqrt(2/pi) */
#define INV_SQRT_2PI 0.39894228040143267794   /* 1/sqrt(2 pi) */
#define GELU_K 0.044715

/* The inner tanh argument of the tanh approximation: sqrt(2/pi)(x + k x^3). */
static tt_val_t gelu_inner(tt_graph_t *g, tt_val_t x) {
  tt_val_t x3 = mul(g, mul(g, x, x), x);
  return mul(g, cst(g, x, SQRT_2_OVER_PI), add(g, x, mul(g, cst(g, x, GELU_K), x3)));
}

static tt_status_t lower_gelu(tt_lower_t *L) {
  tt_status_t s = float_only(L, "GeluKernelImpl");
  if (s) return s;
  act_t p;
  int tanh_form = gelu_tanh(L, 1);
  if (!act_prepare(L, 0, -1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t x = act_in(L, &p, 0), cdf;
  if (tanh_form) cdf = mul(g, cst(g, x, 0.5), add(g, cst(g, x, 1), tt_b_unary(g, TT_UN_TANH, gelu_inner(g, x))));
  else cdf = tt_ew_normal_cdf(g, x);
  act_out(L, &p, mul(g, x, cdf));
  return NULL;
}

static tt_status_t lower_gelu_backward(tt_lower_t *L) {
  act_t p;
  int tanh_form = gelu_tanh(L, 2);
  if (!act_prepare(L, 0, 1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t gr = act_in(L, &p, 0), x = act_in(L, &p, 1), d;
  if (tanh_form) {
    /* d/dx 0.5 x (1 + tanh(u)) = 0.5 (1 + t) + 0.5 x (1 - t^2) u'. */
    tt_val_t t = tt_b_unary(g, TT_UN_TANH, gelu_inner(g, x));
    tt_val_t du = mul(g, cst(g, x, SQRT_2_OVER_PI), add(g, cst(g, x, 1), mul(g, cst(g, x, 3 * GELU_K), mul(g, x, x))));
    tt_val_t left = mul(g, cst(g, x, 0.5), add(g, cst(g, x, 1), t));
    tt_val_t right = mul(g, mul(g, mul(g, cst(g, x, 0.5), x), sub(g, cst(g, x, 1), mul(g, t, t))), du);
    d = add(g, left, right);
  } else {
    /* Phi(x) + x phi(x). */
    tt_val_t cdf = tt_ew_normal_cdf(g, x);
    tt_val_t pdf = mul(g, cst(g, x, INV_SQRT_2PI), tt_b_unary(g, TT_UN_EXP, mul(g, cst(g, x, -0.5), mul(g, x, x))));
    d = add(g, cdf, mul(g, x, pdf));
  }
  act_out(L, &p, mul(g, gr, d));
  return NULL;
}

static tt_status_t lower_silu(tt_lower_t *L) {
  tt_status_t s = float_only(L, "silu_cpu"); /* CPU's kernel name */
  if (s) return s;
  act_t p;
  if (!act_prepare(L, 0, -1, &p)) return NULL;
  tt_val_t x = act_in(L, &p, 0);
  act_out(L, &p, mul(L->g, x, tt_b_unary(L->g, TT_UN_LOGISTIC, x)));
  return NULL;
}

/* grad * s (1 + x (1 - s)), s = sigmoid(x). */
static tt_status_t lower_silu_backward(tt_lower_t *L) {
  act_t p;
  if (!act_prepare(L, 0, 1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t gr = act_in(L, &p, 0), x = act_in(L, &p, 1);
  tt_val_t s = tt_b_unary(g, TT_UN_LOGISTIC, x);
  act_out(L, &p, mul(g, gr, mul(g, s, add(g, cst(g, x, 1), mul(g, x, sub(g, cst(g, x, 1), s))))));
  return NULL;
}

/* sigmoid_backward(grad, y) = grad (1 - y) y. */
static tt_status_t lower_sigmoid_backward(tt_lower_t *L) {
  act_t p;
  if (!act_prepare(L, 0, 1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t gr = act_in(L, &p, 0), y = act_in(L, &p, 1);
  act_out(L, &p, mul(g, gr, mul(g, sub(g, cst(g, y, 1), y), y)));
  return NULL;
}

/* tanh_backward(grad, y) = grad (1 - y^2). */
static tt_status_t lower_tanh_backward(tt_lower_t *L) {
  act_t p;
  if (!act_prepare(L, 0, 1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t gr = act_in(L, &p, 0), y = act_in(L, &p, 1);
  act_out(L, &p, mul(g, gr, sub(g, cst(g, y, 1), mul(g, y, y))));
  return NULL;
}

static tt_status_t lower_leaky_relu(tt_lower_t *L) {
  tt_status_t s = float_only(L, "leaky_relu_cpu");
  if (s) return s;
  act_t p;
  if (!act_prepare(L, 0, -1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t x = act_in(L, &p, 0);
  act_out(L, &p, tt_b_select(g, cmp(g, TT_CMP_GT, x, cst(g, x, 0)), x, mul(g, x, act_scalar(L, &p, 1))));
  return NULL;
}

/* leaky_relu_backward(grad, self, slope, self_is_result). */
static tt_status_t lower_leaky_relu_backward(tt_lower_t *L) {
  act_t p;
  if (!act_prepare(L, 0, 1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t gr = act_in(L, &p, 0), x = act_in(L, &p, 1);
  act_out(L, &p, tt_b_select(g, cmp(g, TT_CMP_GT, x, cst(g, x, 0)), gr, mul(g, gr, act_scalar(L, &p, 2))));
  return NULL;
}

/* A hardtanh limit of an integral input as CPU's hardtanh_out reads it:
 * Scalar::toLong, truncating a float (-0.5 is 0) and refusing one past
 * int64's range; 0 after that error. */
static int hardtanh_limit(tt_lower_t *L, int i, int64_t *v) {
  const tt_arg_t *a = i < L->nargs ? &L->args[i] : NULL;
  if (!a || a->kind == TT_ARG_NONE) {
    *v = i == 1 ? -1 : 1; /* the schema's defaults */
    return 1;
  }
  if (a->kind == TT_ARG_INT || a->kind == TT_ARG_BOOL) {
    *v = a->i;
    return 1;
  }
  if (a->kind == TT_ARG_FLOAT || a->kind == TT_ARG_COMPLEX) {
    if (!tt_op_check_scalar_fits(L, i, TT_I64)) return 0;
    *v = (int64_t)a->f;
    return 1;
  }
  tt_l_fail(L, TT_TYPE_ERROR, "hardtanh: expected a number for argument %d", i);
  return 0;
}

/* hardtanh = clamp(x, min_val, max_val) with NaN propagation. */
static tt_status_t lower_hardtanh(tt_lower_t *L) {
  if (tt_l_arg_dtype(L, 0) == TT_BOOL) return tt_status_make(TT_INVALID_ARGUMENT, "Bool inputs not supported for hardtanh");
  act_t p;
  if (!act_prepare(L, 0, -1, &p)) return NULL;
  p.ct = p.dt;
  tt_val_t x = act_in(L, &p, 0), lo, hi;
  if (tt_dtype_is_int(p.dt)) {
    int64_t lim[2];
    for (int k = 0; k < 2; k++)
      if (!hardtanh_limit(L, 1 + k, &lim[k])) return NULL;
    if (p.dt == TT_U8 && (lim[0] < 0 || lim[1] < 0))
      return tt_status_make(TT_INVALID_ARGUMENT, "cannot do hardtanh on an unsigned type with negative limits");
    for (int k = 0; k < 2; k++)
      if (!tt_op_check_host_value_fits(L, (double)lim[k], p.dt)) return NULL;
    lo = tt_op_fit(L, tt_l_scalar(L, p.dt, 0, lim[0], 0), p.dt, p.rank, p.dims);
    hi = tt_op_fit(L, tt_l_scalar(L, p.dt, 0, lim[1], 0), p.dt, p.rank, p.dims);
  } else {
    /* clamp_out's checked conversion of each limit into the input's type */
    if (!tt_op_check_scalar_fits(L, 1, p.dt) || !tt_op_check_scalar_fits(L, 2, p.dt)) return NULL;
    lo = act_scalar(L, &p, 1), hi = act_scalar(L, &p, 2);
  }
  tt_l_output(L, tt_ew_min(L->g, tt_ew_max(L->g, x, lo), hi));
  return NULL;
}

/* hardtanh_backward(grad, self, lo, hi) = (self <= lo || self >= hi) ? 0 : grad. */
static tt_status_t lower_hardtanh_backward(tt_lower_t *L) {
  act_t p;
  if (!act_prepare(L, 0, 1, &p)) return NULL;
  p.ct = p.dt;
  tt_graph_t *g = L->g;
  tt_val_t gr = act_in(L, &p, 0), x = act_in(L, &p, 1);
  tt_val_t out = tt_b_binary(g, TT_BIN_OR, cmp(g, TT_CMP_LE, x, act_scalar(L, &p, 2)), cmp(g, TT_CMP_GE, x, act_scalar(L, &p, 3)));
  tt_l_output(L, tt_b_select(g, out, cst(g, gr, 0), gr));
  return NULL;
}

/* elu(x, alpha, scale, input_scale) = x > 0 ? scale x : alpha scale expm1(x input_scale). */
static tt_status_t lower_elu(tt_lower_t *L) {
  tt_status_t s = float_only(L, "elu_cpu");
  if (s) return s;
  act_t p;
  if (!act_prepare(L, 0, -1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t x = act_in(L, &p, 0);
  tt_val_t alpha = act_scalar(L, &p, 1), scale = act_scalar(L, &p, 2), iscale = act_scalar(L, &p, 3);
  tt_val_t neg = mul(g, mul(g, alpha, scale), tt_b_unary(g, TT_UN_EXPM1, mul(g, x, iscale)));
  act_out(L, &p, tt_b_select(g, cmp(g, TT_CMP_GT, x, cst(g, x, 0)), mul(g, x, scale), neg));
  return NULL;
}

/* elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result). */
static tt_status_t lower_elu_backward(tt_lower_t *L) {
  act_t p;
  if (!act_prepare(L, 0, 5, &p)) return NULL;
  tt_graph_t *g = L->g;
  int is_result = tt_l_bool(L, 4, 0);
  tt_val_t gr = act_in(L, &p, 0), x = act_in(L, &p, 5);
  tt_val_t alpha = act_scalar(L, &p, 1), scale = act_scalar(L, &p, 2), iscale = act_scalar(L, &p, 3);
  tt_val_t neg;
  if (is_result) /* y = alpha scale (e^(x is) - 1): dy/dx = is (y + alpha scale) */
    neg = mul(g, mul(g, gr, iscale), add(g, x, mul(g, alpha, scale)));
  else
    neg = mul(g, mul(g, mul(g, gr, iscale), mul(g, alpha, scale)), tt_b_unary(g, TT_UN_EXP, mul(g, x, iscale)));
  act_out(L, &p, tt_b_select(g, cmp(g, TT_CMP_LE, x, cst(g, x, 0)), neg, mul(g, gr, scale)));
  return NULL;
}

/* softplus(x, beta, threshold) = x beta > threshold ? x : log1p(exp(x beta)) / beta. */
static tt_status_t lower_softplus(tt_lower_t *L) {
  tt_status_t s = float_only(L, "softplus_cpu");
  if (s) return s;
  act_t p;
  if (!act_prepare(L, 0, -1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t x = act_in(L, &p, 0), beta = act_scalar(L, &p, 1);
  tt_val_t xb = mul(g, x, beta);
  tt_val_t soft = tt_b_binary(g, TT_BIN_DIV, tt_b_unary(g, TT_UN_LOG1P, tt_b_unary(g, TT_UN_EXP, xb)), beta);
  act_out(L, &p, tt_b_select(g, cmp(g, TT_CMP_GT, xb, act_scalar(L, &p, 2)), x, soft));
  return NULL;
}

/* softplus_backward(grad, self, beta, threshold): grad z / (z + 1), z = exp(x beta). */
static tt_status_t lower_softplus_backward(tt_lower_t *L) {
  act_t p;
  if (!act_prepare(L, 0, 1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t gr = act_in(L, &p, 0), x = act_in(L, &p, 1);
  tt_val_t xb = mul(g, x, act_scalar(L, &p, 2));
  tt_val_t z = tt_b_unary(g, TT_UN_EXP, xb);
  tt_val_t d = tt_b_binary(g, TT_BIN_DIV, mul(g, gr, z), add(g, z, cst(g, z, 1)));
  act_out(L, &p, tt_b_select(g, cmp(g, TT_CMP_GT, xb, act_scalar(L, &p, 3)), gr, d));
  return NULL;
}

/* ---- hardsigmoid, hardswish, mish, log_sigmoid, soft/hard shrink ---- */

static tt_val_t relu6_of(tt_graph_t *g, tt_val_t x) { /* min(max(x + 3, 0), 6) */
  return tt_b_clamp(g, cst(g, x, 0), add(g, x, cst(g, x, 3)), cst(g, x, 6));
}
static tt_val_t div6(tt_graph_t *g, tt_val_t x) { return tt_b_binary(g, TT_BIN_DIV, x, cst(g, x, 6)); }

static tt_status_t lower_hardsigmoid(tt_lower_t *L) {
  tt_status_t s = float_only(L, "hardsigmoid_cpu");
  if (s) return s;
  act_t p;
  if (!act_prepare(L, 0, -1, &p)) return NULL;
  act_out(L, &p, div6(L->g, relu6_of(L->g, act_in(L, &p, 0))));
  return NULL;
}
/* grad / 6 inside (-3, 3), else 0. */
static tt_status_t lower_hardsigmoid_backward(tt_lower_t *L) {
  act_t p;
  if (!act_prepare(L, 0, 1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t gr = act_in(L, &p, 0), x = act_in(L, &p, 1);
  tt_val_t in = tt_b_binary(g, TT_BIN_AND, cmp(g, TT_CMP_GT, x, cst(g, x, -3)), cmp(g, TT_CMP_LT, x, cst(g, x, 3)));
  act_out(L, &p, tt_b_select(g, in, div6(g, gr), cst(g, gr, 0)));
  return NULL;
}
static tt_status_t lower_hardswish(tt_lower_t *L) {
  tt_status_t s = float_only(L, "hardswish_cpu");
  if (s) return s;
  act_t p;
  if (!act_prepare(L, 0, -1, &p)) return NULL;
  tt_val_t x = act_in(L, &p, 0);
  act_out(L, &p, div6(L->g, mul(L->g, x, relu6_of(L->g, x))));
  return NULL;
}
/* x <= -3: 0; x < 3: grad (x / 3 + 1/2); else grad (PyTorch's boundaries). */
static tt_status_t lower_hardswish_backward(tt_lower_t *L) {
  act_t p;
  if (!act_prepare(L, 0, 1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t gr = act_in(L, &p, 0), x = act_in(L, &p, 1);
  tt_val_t mid = mul(g, gr, add(g, tt_b_binary(g, TT_BIN_DIV, x, cst(g, x, 3)), cst(g, x, 0.5)));
  tt_val_t r = tt_b_select(g, cmp(g, TT_CMP_LT, x, cst(g, x, 3)), mid, gr);
  act_out(L, &p, tt_b_select(g, cmp(g, TT_CMP_LE, x, cst(g, x, -3)), cst(g, gr, 0), r));
  return NULL;
}

/* mish = x tanh(log1p(exp(x))). */
static tt_status_t lower_mish(tt_lower_t *L) {
  tt_status_t s = float_only(L, "mish_cpu");
  if (s) return s;
  act_t p;
  if (!act_prepare(L, 0, -1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t x = act_in(L, &p, 0);
  act_out(L, &p, mul(g, x, tt_b_unary(g, TT_UN_TANH, tt_b_unary(g, TT_UN_LOG1P, tt_b_unary(g, TT_UN_EXP, x)))));
  return NULL;
}
/* d mish = t + x sigmoid(x) (1 - t^2), t = tanh(softplus(x)). */
static tt_status_t lower_mish_backward(tt_lower_t *L) {
  act_t p;
  if (!act_prepare(L, 0, 1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t gr = act_in(L, &p, 0), x = act_in(L, &p, 1);
  tt_val_t t = tt_b_unary(g, TT_UN_TANH, tt_b_unary(g, TT_UN_LOG1P, tt_b_unary(g, TT_UN_EXP, x)));
  tt_val_t sg = tt_b_unary(g, TT_UN_LOGISTIC, x);
  tt_val_t d = add(g, t, mul(g, mul(g, x, sg), sub(g, cst(g, t, 1), mul(g, t, t))));
  act_out(L, &p, mul(g, gr, d));
  return NULL;
}

/* log_sigmoid_forward(x) -> (min(x, 0) - log1p(z), buffer z = exp(-|x|)): the
 * buffer CPU's kernel and the meta function give (the input's shape; an empty
 * buffer disagreed with the compiled graph's shapes). The backward recomputes
 * from x. */
static tt_status_t lower_log_sigmoid_forward(tt_lower_t *L) {
  tt_status_t s = float_only(L, "log_sigmoid_cpu");
  if (s) return s;
  act_t p;
  if (!act_prepare(L, 0, -1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t x = act_in(L, &p, 0);
  tt_val_t mn = tt_b_binary(g, TT_BIN_MIN, x, cst(g, x, 0));
  tt_val_t z = tt_b_unary(g, TT_UN_EXP, tt_b_unary(g, TT_UN_NEG, tt_b_unary(g, TT_UN_ABS, x)));
  tt_val_t r = sub(g, mn, tt_b_unary(g, TT_UN_LOG1P, z));
  r = tt_b_select(g, cmp(g, TT_CMP_NE, x, x), x, r);
  act_out(L, &p, r);
  act_out(L, &p, z);
  return NULL;
}
/* log_sigmoid_backward(grad, self, buffer): grad (m - s z / (1 + z)), z = exp(-|x|),
 * m = 1 and s = 1 for x < 0, else m = 0 and s = -1. */
static tt_status_t lower_log_sigmoid_backward(tt_lower_t *L) {
  act_t p;
  if (!act_prepare(L, 0, 1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t gr = act_in(L, &p, 0), x = act_in(L, &p, 1);
  tt_val_t z = tt_b_unary(g, TT_UN_EXP, tt_b_unary(g, TT_UN_NEG, tt_b_unary(g, TT_UN_ABS, x)));
  tt_val_t q = tt_b_binary(g, TT_BIN_DIV, z, add(g, cst(g, z, 1), z));
  tt_val_t neg = cmp(g, TT_CMP_LT, x, cst(g, x, 0));
  tt_val_t d = tt_b_select(g, neg, sub(g, cst(g, q, 1), q), q);
  act_out(L, &p, mul(g, gr, d));
  return NULL;
}

/* softshrink(x, l) = x > l ? x - l : x < -l ? x + l : 0 (NaN stays NaN).
 * CPU's meta function checks lambd in the input's type, for floating types
 * only (a bool input's graph failed to compile on tpu, an integral one was
 * computed: '"softshrink_check" not implemented for 'Int'' on CPU). */
static tt_status_t lower_softshrink(tt_lower_t *L) {
  tt_status_t s = float_only(L, "softshrink_check");
  if (s) return s;
  act_t p;
  if (!act_prepare(L, 0, -1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t x = act_in(L, &p, 0), l = act_scalar(L, &p, 1);
  tt_val_t r = tt_b_select(g, cmp(g, TT_CMP_LT, x, tt_b_unary(g, TT_UN_NEG, l)), add(g, x, l), mul(g, x, cst(g, x, 0)));
  act_out(L, &p, tt_b_select(g, cmp(g, TT_CMP_GT, x, l), sub(g, x, l), r));
  return NULL;
}
/* hardshrink(x, l) = -l <= x <= l ? 0 : x. */
static tt_status_t lower_hardshrink(tt_lower_t *L) {
  /* CPU's kernel dispatches on floating types only ('"hardshrink_cpu" not
   * implemented for 'Int''; a bool input's graph failed to compile, an
   * integral one was computed) */
  tt_status_t s = float_only(L, "hardshrink_cpu");
  if (s) return s;
  act_t p;
  if (!act_prepare(L, 0, -1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t x = act_in(L, &p, 0), l = act_scalar(L, &p, 1);
  tt_val_t in = tt_b_binary(g, TT_BIN_AND, cmp(g, TT_CMP_GE, x, tt_b_unary(g, TT_UN_NEG, l)), cmp(g, TT_CMP_LE, x, l));
  act_out(L, &p, tt_b_select(g, in, cst(g, x, 0), x));
  return NULL;
}
/* Both shrink backwards: grad where the forward passed x through, else 0. */
static tt_status_t shrink_backward(tt_lower_t *L) {
  act_t p;
  if (!act_prepare(L, 0, 1, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t gr = act_in(L, &p, 0), x = act_in(L, &p, 1), l = act_scalar(L, &p, 2);
  tt_val_t in = tt_b_binary(g, TT_BIN_AND, cmp(g, TT_CMP_GE, x, tt_b_unary(g, TT_UN_NEG, l)), cmp(g, TT_CMP_LE, x, l));
  act_out(L, &p, tt_b_select(g, in, cst(g, gr, 0), gr));
  return NULL;
}

/* glu(self, dim) = a sigmoid(b), a and b the halves of self along dim. */
static int glu_split(tt_lower_t *L, int xi, int dimi, tt_val_t *a, tt_val_t *b, int *dim) {
  int r = tt_l_arg_rank(L, xi);
  if (r == 0) { tt_l_fail(L, TT_INVALID_ARGUMENT, "glu does not support scalars because halving size must be even"); return 0; }
  *dim = tt_op_wrap_dim(L, tt_l_int(L, dimi, -1), r);
  if (tt_graph_failed(L->g)) return 0;
  int64_t n = tt_l_arg_sizes(L, xi)[*dim];
  if (n % 2) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "Halving dimension must be even, but dimension %d is size %lld", *dim, (long long)n);
    return 0;
  }
  tt_dtype_t dt = tt_l_arg_dtype(L, xi);
  tt_val_t x = tt_b_convert(L->g, tt_l_tensor(L, xi), tt_op_math_type(dt));
  *a = tt_b_slice_dim(L->g, x, *dim, 0, n / 2, 1);
  *b = tt_b_slice_dim(L->g, x, *dim, n / 2, n, 1);
  return !tt_graph_failed(L->g);
}
static tt_status_t lower_glu(tt_lower_t *L) {
  tt_status_t s = float_only(L, "glu_cpu"); /* CPU's kernel name */
  if (s) return s;
  tt_val_t a, b;
  int dim;
  if (!glu_split(L, 0, 1, &a, &b, &dim)) return NULL;
  tt_l_output(L, tt_b_convert(L->g, mul(L->g, a, tt_b_unary(L->g, TT_UN_LOGISTIC, b)), tt_l_arg_dtype(L, 0)));
  return NULL;
}
/* glu_backward(grad, self, dim): [grad s, grad a s (1 - s)] along dim, s = sigmoid(b). */
static tt_status_t lower_glu_backward(tt_lower_t *L) {
  tt_val_t a, b;
  int dim;
  if (!glu_split(L, 1, 2, &a, &b, &dim)) return NULL;
  tt_graph_t *g = L->g;
  tt_dtype_t dt = tt_l_arg_dtype(L, 1);
  tt_val_t gr = tt_b_convert(g, tt_l_tensor(L, 0), tt_op_math_type(dt));
  tt_val_t sg = tt_b_unary(g, TT_UN_LOGISTIC, b);
  tt_val_t parts[2] = {mul(g, gr, sg), mul(g, mul(g, mul(g, gr, a), sg), sub(g, cst(g, sg, 1), sg))};
  tt_l_output(L, tt_b_convert(g, tt_b_concat(g, 2, parts, dim), dt));
  return NULL;
}

const tt_op_def_t tt_ops_activation[] = {
    {"relu", lower_relu, TT_OPF_UNORDERED}, {"relu_", lower_relu, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"threshold", lower_threshold, TT_OPF_UNORDERED}, {"threshold_", lower_threshold, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"threshold_backward", lower_threshold_backward, 0},
    {"gelu", lower_gelu, 0}, {"gelu_", lower_gelu, TT_OPF_INPLACE},
    {"gelu_backward", lower_gelu_backward, 0},
    {"silu", lower_silu, 0, .complex = tt_complex_silu}, {"silu_", lower_silu, TT_OPF_INPLACE, .complex = tt_complex_silu},
    {"silu_backward", lower_silu_backward, 0},
    {"sigmoid_backward", lower_sigmoid_backward, 0},
    {"tanh_backward", lower_tanh_backward, 0},
    {"leaky_relu", lower_leaky_relu, 0}, {"leaky_relu_", lower_leaky_relu, TT_OPF_INPLACE},
    {"leaky_relu_backward", lower_leaky_relu_backward, 0},
    {"hardtanh", lower_hardtanh, TT_OPF_UNORDERED}, {"hardtanh_", lower_hardtanh, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"hardtanh_backward", lower_hardtanh_backward, 0},
    {"elu", lower_elu, 0}, {"elu_", lower_elu, TT_OPF_INPLACE},
    {"elu_backward", lower_elu_backward, 0},
    {"softplus", lower_softplus, 0},
    {"softplus_backward", lower_softplus_backward, 0},
    {"hardsigmoid", lower_hardsigmoid, 0}, {"hardsigmoid_", lower_hardsigmoid, TT_OPF_INPLACE},
    {"hardsigmoid_backward", lower_hardsigmoid_backward, 0},
    {"hardswish", lower_hardswish, 0}, {"hardswish_", lower_hardswish, TT_OPF_INPLACE},
    {"hardswish_backward", lower_hardswish_backward, 0},
    {"mish", lower_mish, 0}, {"mish_", lower_mish, TT_OPF_INPLACE},
    {"mish_backward", lower_mish_backward, 0},
    {"log_sigmoid_forward", lower_log_sigmoid_forward, 0},
    {"log_sigmoid_backward", lower_log_sigmoid_backward, 0},
    {"softshrink", lower_softshrink, 0}, {"softshrink_backward", shrink_backward, 0},
    {"hardshrink", lower_hardshrink, 0}, {"hardshrink_backward", shrink_backward, 0},
    {"glu", lower_glu, 0}, {"glu_backward", lower_glu_backward, 0},
    {NULL, NULL, 0},
};
