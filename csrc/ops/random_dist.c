/* Lowerings of the in-place samplers of further distributions: cauchy_,
 * log_normal_, geometric_ (inverse-CDF and normal transforms of the shared
 * uniform/normal draws in ops/random.h). */
#include <math.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/random.h"

/* The C++ type name PyTorch's message prints for a non-float dtype. */
static const char *cpp_type_name(tt_dtype_t dt) {
  switch (dt) {
    case TT_I64: return "long int";
    case TT_I32: return "int";
    case TT_I16: return "short int";
    case TT_I8: return "signed char";
    case TT_U8: return "unsigned char";
    case TT_BOOL: return "bool";
    default: return tt_op_type_name(dt);
  }
}

/* CPU's words for a continuous distribution asked to fill an integer tensor. */
static tt_status_t need_float(tt_lower_t *L, const char *dist) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_float(dt))
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "%s distribution is a continuous probability distribution. dtype must be a floating point "
                          "but you specified %s",
                          dist, cpp_type_name(dt));
  return NULL;
}

/* cauchy_(self, median, sigma): median + sigma * tan(pi (u - 1/2)), u in (0, 1)
 * so tan never sees +-pi/2. */
static tt_status_t lower_cauchy_(tt_lower_t *L) {
  const tt_tensor_ref_t *s = tt_l_ref(L, 0);
  if (!s) return tt_status_make(TT_TYPE_ERROR, "cauchy_: self must be a Tensor");
  tt_status_t st = need_float(L, "Cauchy");
  if (st) return st;
  double median = tt_l_float(L, 1, 0), sigma = tt_l_float(L, 2, 1);
  if (!(sigma > 0)) return tt_status_make(TT_INVALID_ARGUMENT, "cauchy_ expects sigma > 0.0, but found sigma=%g", sigma);
  tt_graph_t *g = L->g;
  int r = s->view.rank;
  const int64_t *d = s->view.sizes;
  tt_dtype_t ct = tt_rand_compute_type(s->dtype);
  tt_val_t u = tt_rand_uniform_open(L, ct, r, d);
  tt_val_t a = tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_SUB, u, tt_b_full_f(g, ct, r, d, 0.5)),
                           tt_b_full_f(g, ct, r, d, M_PI));
  tt_val_t v = tt_b_binary(g, TT_BIN_MUL, tt_b_unary(g, TT_UN_TAN, a), tt_b_full_f(g, ct, r, d, sigma));
  return tt_rand_write_self(L, tt_b_binary(g, TT_BIN_ADD, v, tt_b_full_f(g, ct, r, d, median)));
}

/* log_normal_(self, mean, std): exp(mean + std * z). */
static tt_status_t lower_log_normal_(tt_lower_t *L) {
  const tt_tensor_ref_t *s = tt_l_ref(L, 0);
  if (!s) return tt_status_make(TT_TYPE_ERROR, "log_normal_: self must be a Tensor");
  if (!tt_dtype_is_float(s->dtype))
    return tt_op_refuse_dtype(s->dtype, "log_normal_cpu");
  double mean = tt_l_float(L, 1, 1), std = tt_l_float(L, 2, 2);
  if (!(std > 0)) return tt_status_make(TT_INVALID_ARGUMENT, "log_normal_ expects std > 0.0, but found std=%g", std);
  tt_graph_t *g = L->g;
  int r = s->view.rank;
  const int64_t *d = s->view.sizes;
  tt_dtype_t ct = tt_rand_compute_type(s->dtype);
  tt_val_t z = tt_rand_std_normal(L, s->dtype, r, d);
  z = tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_MUL, z, tt_b_full_f(g, ct, r, d, std)), tt_b_full_f(g, ct, r, d, mean));
  return tt_rand_write_self(L, tt_b_unary(g, TT_UN_EXP, z));
}

/* geometric_(self, p): trials up to the first success, ceil(log(u) / log1p(-p))
 * with u in (0, 1), so the support is {1, 2, ...}. Any dtype but bool, as CPU. */
static tt_status_t lower_geometric_(tt_lower_t *L) {
  const tt_tensor_ref_t *s = tt_l_ref(L, 0);
  if (!s) return tt_status_make(TT_TYPE_ERROR, "geometric_: self must be a Tensor");
  if (s->dtype == TT_BOOL)
    return tt_op_refuse_dtype(s->dtype, "geometric_cpu");
  double p = tt_l_float(L, 1, 0.5);
  if (!(p > 0 && p < 1)) return tt_status_make(TT_INVALID_ARGUMENT, "geometric_ expects p to be in (0, 1), but got p=%g", p);
  tt_graph_t *g = L->g;
  int r = s->view.rank;
  const int64_t *d = s->view.sizes;
  /* Integer results can be large: draw them in double. */
  tt_dtype_t ct = tt_dtype_is_float(s->dtype) ? tt_rand_compute_type(s->dtype) : TT_F64;
  tt_val_t u = tt_rand_uniform_open(L, ct, r, d);
  tt_val_t k = tt_b_binary(g, TT_BIN_DIV, tt_b_unary(g, TT_UN_LOG, u), tt_b_full_f(g, ct, r, d, log1p(-p)));
  k = tt_b_unary(g, TT_UN_CEIL, k);
  /* Narrow integer types keep the low bits of large draws, as CPU's casts do. */
  if (!tt_dtype_is_float(s->dtype)) k = tt_b_convert(g, k, TT_I64);
  return tt_rand_write_self(L, k);
}

const tt_op_def_t tt_ops_random_dist[] = {
    {"cauchy_", lower_cauchy_, 0},
    {"log_normal_", lower_log_normal_, 0},
    {"geometric_", lower_geometric_, 0},
    {NULL, NULL, 0},
};
