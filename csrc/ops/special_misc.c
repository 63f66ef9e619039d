/* Miscellaneous special functions: sinc, entr, angle (real), frexp, erfcx,
 * log_ndtr, ndtri. Computed from StableHLO elementwise ops and the CHLO
 * erfc/erf_inv (see special_gamma.c), following PyTorch CPU's formulas and
 * special cases. */
#include <math.h>

#include "ops/complex.h"
#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/special.h"

#define INF (1.0 / 0.0)
#define NAN_ (0.0 / 0.0)

static tt_val_t un(tt_graph_t *g, tt_unary_t op, tt_val_t x) { return tt_b_unary(g, op, x); }

/* sinc(x) = sin(pi x) / (pi x), 1 at 0. */
static tt_val_t f_sinc(tt_graph_t *g, tt_val_t x) {
  tt_val_t px = tt_sp_mul(g, tt_sp_c(g, x, M_PI), x);
  return tt_sp_where_c(g, tt_sp_eq(g, x, 0), 1, tt_sp_div(g, un(g, TT_UN_SIN, px), px));
}

/* entr(x) = -x log x for x > 0, 0 at 0, -inf below, NaN for NaN. */
static tt_val_t f_entr(tt_graph_t *g, tt_val_t x) {
  tt_val_t r = un(g, TT_UN_NEG, tt_sp_mul(g, x, un(g, TT_UN_LOG, x)));
  r = tt_sp_where_c(g, tt_sp_eq(g, x, 0), 0, r);
  r = tt_sp_where_c(g, tt_sp_lt(g, x, 0), -INF, r);
  return tt_b_select(g, tt_sp_isnan(g, x), x, r);
}

/* angle of a real number: pi below 0, else 0; NaN stays NaN. */
static tt_val_t f_angle(tt_graph_t *g, tt_val_t x) {
  tt_val_t r = tt_b_select(g, tt_sp_lt(g, x, 0), tt_sp_c(g, x, M_PI), tt_sp_c(g, x, 0));
  return tt_b_select(g, tt_sp_isnan(g, x), x, r);
}

/* erfcx(x) = exp(x^2) erfc(x). Below 8 directly (exp overflows to inf for
 * x < -9.3, as on CPU); from 8 on, the asymptotic series
 * 1/(x sqrt(pi)) sum_k (-1)^k (2k - 1)!! / (2x^2)^k, k < 15, whose next term
 * is below 1e-15 there. */
static tt_val_t f_erfcx(tt_graph_t *g, tt_val_t x) {
  tt_val_t xs = tt_b_binary(g, TT_BIN_MIN, x, tt_sp_c(g, x, 8));
  tt_val_t direct = tt_sp_mul(g, un(g, TT_UN_EXP, tt_sp_mul(g, xs, xs)), un(g, TT_UN_ERFC, xs));
  tt_val_t xl = tt_b_binary(g, TT_BIN_MAX, x, tt_sp_c(g, x, 8));
  tt_val_t u = tt_sp_div(g, tt_sp_c(g, x, 1), tt_sp_mul(g, tt_sp_c(g, x, 2), tt_sp_mul(g, xl, xl)));
  /* fifteen terms (-1)^k (2k - 1)!! u^k: five left a 3e-8 relative error at
   * x = 8, beyond float64's (erfcx(8.14) was 2e-8 off CPU's) */
  static const double c[15] = {213458046676875.0, -7905853580625.0, 316234143225.0, -13749310575.0, 654729075.0,
                               -34459425.0, 2027025.0, -135135.0, 10395.0, -945.0, 105, -15, 3, -1, 1};
  tt_val_t series = tt_sp_div(g, tt_sp_poly(g, u, c, 15), tt_sp_mul(g, xl, tt_sp_c(g, x, sqrt(M_PI))));
  tt_val_t r = tt_b_select(g, tt_sp_lt(g, x, 8), direct, series);
  return tt_sp_where_c(g, tt_sp_eq(g, x, INF), 0, r);
}

/* CPU: t = x / sqrt(2); x < -1: log(erfcx(-t) / 2) - t^2, else log1p(-erfc(t) / 2). */
static tt_val_t f_log_ndtr(tt_graph_t *g, tt_val_t x) {
  tt_val_t t = tt_sp_mul(g, x, tt_sp_c(g, x, M_SQRT1_2));
  tt_val_t lo = tt_sp_sub(g, un(g, TT_UN_LOG, tt_sp_mul(g, f_erfcx(g, un(g, TT_UN_NEG, t)), tt_sp_c(g, x, 0.5))),
                          tt_sp_mul(g, t, t));
  tt_val_t hi = un(g, TT_UN_LOG1P, tt_sp_mul(g, un(g, TT_UN_ERFC, t), tt_sp_c(g, x, -0.5)));
  tt_val_t r = tt_b_select(g, tt_sp_lt(g, x, -1), lo, hi);
  return tt_sp_where_c(g, tt_sp_eq(g, x, -INF), -INF, r);
}

/* ndtri(p): an erf_inv start on the lower tail min(p, 1 - p) refined by two
 * Newton steps on ndtr(x) = erfc(-x / sqrt 2) / 2 (accurate in the tail, where
 * 2p - 1 loses digits); 0 -> -inf, 1 -> inf, outside [0, 1] NaN. */
static tt_val_t f_ndtri(tt_graph_t *g, tt_val_t p) {
  tt_val_t upper = tt_sp_gt(g, p, 0.5);
  tt_val_t q = tt_b_select(g, upper, tt_sp_sub(g, tt_sp_c(g, p, 1), p), p);
  tt_val_t x = tt_sp_mul(g, tt_sp_c(g, p, M_SQRT2),
                         un(g, TT_UN_ERF_INV, tt_sp_sub(g, tt_sp_mul(g, tt_sp_c(g, p, 2), q), tt_sp_c(g, p, 1))));
  tt_val_t ok = tt_sp_gt(g, q, 0);
  for (int i = 0; i < 2; i++) {
    tt_val_t cdf = tt_sp_mul(g, tt_sp_c(g, p, 0.5), un(g, TT_UN_ERFC, tt_sp_mul(g, x, tt_sp_c(g, p, -M_SQRT1_2))));
    tt_val_t pdf = tt_sp_mul(g, tt_sp_c(g, p, 1 / sqrt(2 * M_PI)), un(g, TT_UN_EXP, tt_sp_mul(g, tt_sp_c(g, p, -0.5), tt_sp_mul(g, x, x))));
    tt_val_t nx = tt_sp_sub(g, x, tt_sp_div(g, tt_sp_sub(g, cdf, q), pdf));
    tt_val_t finite = un(g, TT_UN_IS_FINITE, nx);
    x = tt_b_select(g, tt_sp_and(g, ok, finite), nx, x);
  }
  /* Deep in the tail 2q - 1 rounds to -1 and erf_inv gives -inf, from which
   * no Newton step moves (ndtri(1e-10) was -inf in float32, ndtri(1e-20) in
   * float64; CPU gives -6.3613 and -9.2623): start there from the asymptote
   * x = -sqrt(y - log y - log 2 pi), y = -2 log q, and take Newton steps on
   * log ndtr(x) = log q, whose step (log ndtr(x) - log q) ndtr(x) / pdf(x)
   * stays finite where ndtr(x) is tiny. */
  tt_val_t tail = tt_sp_lt(g, q, 1e-5);
  tt_val_t qs = tt_b_select(g, tail, q, tt_sp_c(g, p, 1e-6)), lq = un(g, TT_UN_LOG, qs);
  tt_val_t y = tt_sp_mul(g, tt_sp_c(g, p, -2), lq);
  tt_val_t xt = un(g, TT_UN_NEG, un(g, TT_UN_SQRT, tt_sp_sub(g, tt_sp_sub(g, y, un(g, TT_UN_LOG, y)),
                                                             tt_sp_c(g, p, log(2 * M_PI)))));
  for (int i = 0; i < 4; i++) {
    tt_val_t cdf = tt_sp_mul(g, tt_sp_c(g, p, 0.5), un(g, TT_UN_ERFC, tt_sp_mul(g, xt, tt_sp_c(g, p, -M_SQRT1_2))));
    tt_val_t pdf = tt_sp_mul(g, tt_sp_c(g, p, 1 / sqrt(2 * M_PI)), un(g, TT_UN_EXP, tt_sp_mul(g, tt_sp_c(g, p, -0.5), tt_sp_mul(g, xt, xt))));
    tt_val_t nx = tt_sp_sub(g, xt, tt_sp_mul(g, tt_sp_sub(g, un(g, TT_UN_LOG, cdf), lq), tt_sp_div(g, cdf, pdf)));
    xt = tt_b_select(g, un(g, TT_UN_IS_FINITE, nx), nx, xt);
  }
  x = tt_b_select(g, tt_sp_and(g, tail, ok), xt, x);
  x = tt_b_select(g, upper, un(g, TT_UN_NEG, x), x);
  x = tt_sp_where_c(g, tt_sp_eq(g, p, 0), -INF, x);
  x = tt_sp_where_c(g, tt_sp_eq(g, p, 1), INF, x);
  return tt_sp_where_c(g, tt_sp_or(g, tt_sp_lt(g, p, 0), tt_sp_gt(g, p, 1)), NAN_, x);
}

static tt_status_t lower_sinc(tt_lower_t *L) { return tt_sp_unary(L, f_sinc); }
/* CPU computes entr for bfloat16 in bfloat16 arithmetic (log, then product). */
static tt_status_t lower_entr(tt_lower_t *L) {
  if (tt_l_arg_dtype(L, 0) != TT_BF16) return tt_sp_unary(L, f_entr);
  tt_l_output(L, f_entr(L->g, tt_l_tensor(L, 0)));
  return NULL;
}
static tt_status_t lower_angle(tt_lower_t *L) { return tt_sp_unary(L, f_angle); }
/* CPU's erfcx, log_ndtr and ndtri kernels have no float16/bfloat16 case
 * ('"ndtri_cpu" not implemented for 'Half''; tpu computed them); integral
 * inputs are promoted to float and computed. */
static tt_status_t no_half(tt_lower_t *L, const char *kernel, tt_val_t (*fn)(tt_graph_t *, tt_val_t)) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (dt == TT_F16 || dt == TT_BF16) return tt_op_refuse_dtype(dt, "%s", kernel);
  return tt_sp_unary(L, fn);
}
static tt_status_t lower_erfcx(tt_lower_t *L) { return no_half(L, "erfcx_cpu", f_erfcx); }
static tt_status_t lower_log_ndtr(tt_lower_t *L) { return no_half(L, "log_ndtr_cpu", f_log_ndtr); }
static tt_status_t lower_ndtri(tt_lower_t *L) { return no_half(L, "ndtri_cpu", f_ndtri); }

/* frexp: x = m 2^e with 0.5 <= |m| < 1, e int32; 0, inf and NaN give (x, 0).
 * e from log2 |x|, then corrected by one where log2 rounded across a power of 2. */
static tt_status_t lower_frexp(tt_lower_t *L) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_float(dt))
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "torch.frexp() only supports floating-point dtypes");
  tt_graph_t *g = L->g;
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), tt_op_math_type(dt));
  if (x < 0) return NULL;
  tt_val_t ax = un(g, TT_UN_ABS, x);
  tt_val_t special = tt_sp_or(g, tt_sp_eq(g, x, 0), un(g, TT_UN_NOT, un(g, TT_UN_IS_FINITE, x)));
  tt_val_t safe = tt_b_select(g, special, tt_sp_c(g, x, 1), ax);
  tt_val_t e = tt_sp_add(g, un(g, TT_UN_FLOOR, tt_sp_div(g, un(g, TT_UN_LOG, safe), tt_sp_c(g, x, M_LN2))), tt_sp_c(g, x, 1));
  /* 2^-e in two halves so that neither underflows nor overflows. */
  tt_val_t h = un(g, TT_UN_FLOOR, tt_sp_mul(g, e, tt_sp_c(g, x, 0.5)));
  tt_val_t two = tt_sp_c(g, x, 2);
  tt_val_t m = tt_sp_mul(g, tt_sp_mul(g, safe, tt_b_binary(g, TT_BIN_POW, two, un(g, TT_UN_NEG, h))),
                         tt_b_binary(g, TT_BIN_POW, two, un(g, TT_UN_NEG, tt_sp_sub(g, e, h))));
  tt_val_t big = tt_b_compare(g, TT_CMP_GE, m, tt_sp_c(g, m, 1));
  m = tt_b_select(g, big, tt_sp_mul(g, m, tt_sp_c(g, m, 0.5)), m);
  e = tt_b_select(g, big, tt_sp_add(g, e, tt_sp_c(g, e, 1)), e);
  tt_val_t small = tt_sp_lt(g, m, 0.5);
  m = tt_b_select(g, small, tt_sp_mul(g, m, two), m);
  e = tt_b_select(g, small, tt_sp_sub(g, e, tt_sp_c(g, e, 1)), e);
  m = tt_b_select(g, tt_sp_lt(g, x, 0), un(g, TT_UN_NEG, m), m);
  m = tt_b_select(g, special, x, m);
  e = tt_sp_where_c(g, special, 0, e);
  tt_l_output(L, tt_b_convert(g, m, dt));
  tt_l_output(L, tt_b_convert(g, e, TT_I32));
  return NULL;
}

#define SP_UNARY(name, fn) {name, fn, 0}, {name "_", fn, TT_OPF_INPLACE}
const tt_op_def_t tt_ops_special_misc[] = {
    SP_UNARY("sinc", lower_sinc),
    {"special_entr", lower_entr, 0},
    {"angle", lower_angle, 0, .complex = tt_complex_angle},
    {"special_erfcx", lower_erfcx, 0},
    {"special_log_ndtr", lower_log_ndtr, 0},
    {"special_ndtri", lower_ndtri, 0},
    {"frexp.Tensor", lower_frexp, 0},
    {NULL, NULL, 0},
};
