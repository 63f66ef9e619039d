/* Gamma-family special functions: lgamma, digamma, polygamma, mvlgamma,
 * zeta, erfinv, erfc, nextafter.
 *
 * Most lower to CHLO ops (chlo.lgamma, chlo.digamma, chlo.zeta, chlo.erf_inv,
 * chlo.erfc, chlo.next_after): XLA's PJRT compile expands CHLO on every
 * plugin (CPU, CUDA, libtpu), so they are portable. The CHLO expansions agree
 * with PyTorch's Cephes-based CPU kernels to a few ulp in the interior; the
 * special points (poles, zeros, infinities) are fixed here to CPU's values.
 * Trigamma (polygamma n = 1) follows CPU's own reflection + series formula. */
#include <math.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/special.h"

#define INF (1.0 / 0.0)
#define NAN_ (0.0 / 0.0)

static tt_val_t un(tt_graph_t *g, tt_unary_t op, tt_val_t x) { return tt_b_unary(g, op, x); }
static tt_val_t is_int(tt_graph_t *g, tt_val_t x) {
  return tt_b_compare(g, TT_CMP_EQ, x, un(g, TT_UN_FLOOR, x));
}
/* x is -0.0 (or negative): 1/x < 0. */
static tt_val_t neg_zero(tt_graph_t *g, tt_val_t x) {
  return tt_sp_and(g, tt_sp_eq(g, x, 0), tt_sp_lt(g, tt_sp_div(g, tt_sp_c(g, x, 1), x), 0));
}

/* lgamma: +inf at the poles (non-positive integers) and at +-inf, as C's. */
static tt_val_t f_lgamma(tt_graph_t *g, tt_val_t x) {
  tt_val_t r = un(g, TT_UN_LGAMMA, x);
  tt_val_t pole = tt_sp_or(g, tt_sp_and(g, tt_sp_le(g, x, 0), is_int(g, x)), tt_sp_eq(g, un(g, TT_UN_ABS, x), INF));
  return tt_sp_where_c(g, pole, INF, r);
}

/* digamma: +-0 gives -+inf, negative integers and -inf NaN, +inf inf (CPU). */
static tt_val_t f_digamma(tt_graph_t *g, tt_val_t x) {
  tt_val_t r = un(g, TT_UN_DIGAMMA, x);
  r = tt_sp_where_c(g, tt_sp_and(g, tt_sp_lt(g, x, 0), is_int(g, x)), NAN_, r);
  r = tt_sp_where_c(g, tt_sp_eq(g, x, INF), INF, r);
  tt_val_t z = tt_sp_eq(g, x, 0);
  return tt_b_select(g, z, tt_b_select(g, neg_zero(g, x), tt_sp_c(g, x, INF), tt_sp_c(g, x, -INF)), r);
}

/* CPU's trigamma: reflection below 0.5, six recurrence steps, then the
 * asymptotic series 1/x + 1/(2x^2) + 1/(6x^3) - 1/(30x^5) + 1/(42x^7). */
static tt_val_t f_trigamma(tt_graph_t *g, tt_val_t x) {
  tt_val_t refl = tt_sp_lt(g, x, 0.5);
  tt_val_t s = un(g, TT_UN_SIN, tt_sp_mul(g, tt_sp_c(g, x, M_PI), x));
  tt_val_t res = tt_b_select(g, refl, tt_sp_div(g, tt_sp_c(g, x, -M_PI * M_PI), tt_sp_mul(g, s, s)), tt_sp_c(g, x, 0));
  tt_val_t y = tt_b_select(g, refl, tt_sp_sub(g, tt_sp_c(g, x, 1), x), x);
  for (int i = 0; i < 6; i++) {
    res = tt_sp_add(g, res, tt_sp_div(g, tt_sp_c(g, y, 1), tt_sp_mul(g, y, y)));
    y = tt_sp_add(g, y, tt_sp_c(g, y, 1));
  }
  tt_val_t ixx = tt_sp_div(g, tt_sp_c(g, y, 1), tt_sp_mul(g, y, y));
  tt_val_t inner = tt_sp_sub(g, tt_sp_c(g, y, 1.0 / 30), tt_sp_mul(g, ixx, tt_sp_c(g, y, 1.0 / 42)));
  inner = tt_sp_sub(g, tt_sp_c(g, y, 1.0 / 6), tt_sp_mul(g, ixx, inner));
  tt_val_t t = tt_sp_add(g, tt_sp_add(g, tt_sp_c(g, y, 1), tt_sp_div(g, tt_sp_c(g, y, 1), tt_sp_mul(g, tt_sp_c(g, y, 2), y))),
                         tt_sp_mul(g, ixx, inner));
  res = tt_sp_add(g, res, tt_sp_div(g, t, y));
  return tt_b_select(g, refl, un(g, TT_UN_NEG, res), res);
}

/* Hurwitz zeta(s, q) with CPU's special cases: s == 1 inf, s < 1 NaN,
 * q a non-positive integer inf, q <= 0 with non-integer s NaN. */
#define ZETA_SHIFT 32
/* terms summed at most (q down to -ZETA_MAX_TERMS; CPU's loop has no bound) */
#define ZETA_MAX_TERMS 1e7
static tt_val_t f_zeta(tt_graph_t *g, tt_val_t s, tt_val_t q) {
  /* XLA's expansion is only accurate for q > -2 or so; CPU sums the terms
   * (q + k)^-s directly until q + k > 9. Sum the terms with q + k < 0 (up to
   * ZETA_SHIFT of them) here and hand zeta(s, q + m) to XLA. */
  tt_val_t m = tt_b_clamp(g, tt_sp_c(g, q, 0), un(g, TT_UN_CEIL, un(g, TT_UN_NEG, q)), tt_sp_c(g, q, ZETA_MAX_TERMS));
  tt_val_t negs = un(g, TT_UN_NEG, s), head = tt_sp_c(g, q, 0);
  for (int k = 0; k < ZETA_SHIFT; k++) {
    tt_val_t t = tt_b_binary(g, TT_BIN_POW, tt_sp_add(g, q, tt_sp_c(g, q, k)), negs);
    head = tt_sp_add(g, head, tt_b_select(g, tt_sp_gt(g, m, k), t, tt_sp_c(g, t, 0)));
  }
  /* q below -ZETA_SHIFT: the rest of the terms in a loop (polygamma(3,
   * -42.18) was 7e27 where CPU gives 5733: the sum stopped after 32 terms
   * and XLA's expansion took it from q + 32 < 0) */
  if (tt_graph_failed(g)) return -1;
  int rank = tt_graph_type(g, q)->rank;
  int64_t all[TT_MAX_RANK];
  for (int d = 0; d < rank; d++) all[d] = d;
  tt_loop_t lp;
  tt_val_t c[2], res[2], init[2] = {tt_sp_c(g, q, ZETA_SHIFT), head};
  tt_b_while_begin(g, &lp, 2, init, c);
  tt_val_t left = tt_b_compare(g, TT_CMP_LT, c[0], m);
  tt_b_while_body(g, &lp, rank ? tt_b_reduce(g, TT_RED_OR, left, rank, all) : left, c);
  left = tt_b_compare(g, TT_CMP_LT, c[0], m);
  tt_val_t t = tt_b_binary(g, TT_BIN_POW, tt_sp_add(g, q, c[0]), negs);
  tt_val_t next[2] = {tt_sp_add(g, c[0], tt_sp_c(g, q, 1)), tt_sp_add(g, c[1], tt_b_select(g, left, t, tt_sp_c(g, t, 0)))};
  tt_b_while_end(g, &lp, next, res);
  head = res[1];
  tt_val_t r = tt_sp_add(g, head, tt_b_binary(g, TT_BIN_ZETA, s, tt_sp_add(g, q, m)));
  tt_val_t qneg = tt_sp_le(g, q, 0);
  r = tt_sp_where_c(g, tt_sp_and(g, qneg, tt_b_unary(g, TT_UN_NOT, is_int(g, s))), NAN_, r);
  r = tt_sp_where_c(g, tt_sp_and(g, qneg, is_int(g, q)), INF, r);
  r = tt_sp_where_c(g, tt_sp_lt(g, s, 1), NAN_, r);
  return tt_sp_where_c(g, tt_sp_eq(g, s, 1), INF, r);
}

/* polygamma(n, x) = (-1)^(n+1) n! zeta(n+1, x) for n >= 2; CPU rounds the
 * zeta factor to the result type `out` before multiplying. */
static tt_val_t polygamma_val(tt_graph_t *g, int64_t n, tt_val_t x, tt_dtype_t out) {
  if (n == 0) return f_digamma(g, x);
  if (n == 1) return f_trigamma(g, x);
  /* CPU's factor is exp(lgamma(n + 1)) in float (for f32/bf16/f16), which can
   * be an ulp off n!; use the same value. */
  double fact = 1;
  for (int64_t k = 2; k <= n; k++) fact *= (double)k;
  if (tt_graph_type(g, x)->dtype == TT_F32) fact = (double)expf(lgammaf((float)n + 1.0f));
  tt_val_t z = f_zeta(g, tt_sp_c(g, x, (double)(n + 1)), x);
  tt_dtype_t ct = tt_graph_type(g, z)->dtype;
  if (out != ct) z = tt_b_convert(g, tt_b_convert(g, z, out), ct);
  return tt_sp_mul(g, tt_sp_c(g, x, (n % 2 ? 1.0 : -1.0) * fact), z);
}

static tt_val_t f_erfinv(tt_graph_t *g, tt_val_t x) {
  tt_val_t r = un(g, TT_UN_ERF_INV, x);
  tt_val_t ax = un(g, TT_UN_ABS, x);
  r = tt_b_select(g, tt_sp_eq(g, ax, 1), tt_sp_mul(g, x, tt_sp_c(g, x, INF)), r);
  return tt_sp_where_c(g, tt_sp_gt(g, ax, 1), NAN_, r);
}
static tt_val_t f_erfc(tt_graph_t *g, tt_val_t x) { return un(g, TT_UN_ERFC, x); }

static tt_status_t lower_lgamma(tt_lower_t *L) { return tt_sp_unary(L, f_lgamma); }
static tt_status_t lower_digamma(tt_lower_t *L) { return tt_sp_unary(L, f_digamma); }
static tt_status_t lower_erfinv(tt_lower_t *L) { return tt_sp_unary(L, f_erfinv); }
static tt_status_t lower_erfc(tt_lower_t *L) { return tt_sp_unary(L, f_erfc); }
/* CPU's zeta kernel has no float16/bfloat16 case ('"zeta_cpu" not
 * implemented for 'Half''; tpu computed them): refused where the promoted
 * common type is one, after the broadcast's size check. */
static tt_status_t lower_zeta(tt_lower_t *L) {
  int argi[2] = {0, 1};
  int64_t dims[TT_MAX_RANK];
  tt_op_broadcast_shape(L, argi, 2, dims);
  if (tt_graph_failed(L->g)) return NULL;
  tt_dtype_t dt = tt_op_result_type(L, argi, 2);
  if (dt != TT_DTYPE_INVALID && !tt_dtype_is_complex(dt)) {
    dt = tt_op_float_type(L, dt);
    if (dt == TT_F16 || dt == TT_BF16) return tt_op_refuse_dtype(dt, "zeta_cpu");
  }
  return tt_sp_binary(L, 0, 1, f_zeta);
}

/* polygamma(int n, Tensor self). */
static tt_status_t lower_polygamma(tt_lower_t *L) {
  int64_t n = tt_l_int(L, 0, 0);
  if (n < 0) return tt_status_make(TT_INVALID_ARGUMENT, "polygamma(n, x) does not support negative n.");
  tt_dtype_t out = tt_op_float_type(L, tt_l_arg_dtype(L, 1));
  tt_val_t x = tt_b_convert(L->g, tt_l_tensor(L, 1), tt_op_math_type(out));
  if (x < 0) return NULL;
  tt_l_output(L, tt_b_convert(L->g, polygamma_val(L->g, n, x, out), out));
  return NULL;
}

/* mvlgamma(x, p) = sum_{j<p} lgamma(x - j/2) + p (p - 1) / 4 log(pi). CPU
 * builds it from tensor ops in the result type: x + shift, lgamma, the sum
 * and the final add each round to it (emulated for bf16/f16). PyTorch 2.13's
 * CPU kernel does not check x > (p - 1) / 2 (its docs say it must hold): like
 * CPU, values outside give what the formula gives. */
static tt_val_t round_to(tt_graph_t *g, tt_val_t v, tt_dtype_t out) {
  tt_dtype_t ct = tt_graph_type(g, v)->dtype;
  return out == ct ? v : tt_b_convert(g, tt_b_convert(g, v, out), ct);
}
static tt_status_t lower_mvlgamma(tt_lower_t *L) {
  int64_t p = tt_l_int(L, 1, 1);
  if (p < 1) return tt_status_make(TT_INVALID_ARGUMENT, "p has to be greater than or equal to 1");
  tt_dtype_t out = tt_op_float_type(L, tt_l_arg_dtype(L, 0));
  tt_graph_t *g = L->g;
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), tt_op_math_type(out));
  if (x < 0) return NULL;
  tt_val_t acc = -1;
  for (int64_t j = p - 1; j >= 0; j--) {
    tt_val_t t = round_to(g, f_lgamma(g, round_to(g, tt_sp_add(g, x, tt_sp_c(g, x, -0.5 * (double)j)), out)), out);
    acc = acc < 0 ? t : tt_sp_add(g, acc, t);
  }
  acc = round_to(g, acc, out);
  /* The Python-number constant is rounded to the tensor's type too. */
  acc = tt_sp_add(g, acc, round_to(g, tt_sp_c(g, acc, (double)p * (double)(p - 1) / 4.0 * log(M_PI)), out));
  tt_l_output(L, tt_b_convert(g, acc, out));
  return NULL;
}

/* nextafter in the promoted floating type itself (no upcast: steps are ulps of
 * that type); integer results are refused as on CPU. */
static tt_status_t lower_nextafter(tt_lower_t *L) {
  int argi[2] = {0, 1};
  tt_dtype_t dt = tt_op_result_type(L, argi, 2);
  if (!tt_dtype_is_float(dt))
    return tt_op_refuse_dtype(dt, "nextafter_cpu");
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 2, dims);
  tt_val_t x = tt_op_operand(L, 0, dt, rank, dims), y = tt_op_operand(L, 1, dt, rank, dims);
  tt_l_output(L, tt_b_binary(L->g, TT_BIN_NEXT_AFTER, x, y));
  return NULL;
}

#define SP_UNARY(name, fn) {name, fn, 0}, {name "_", fn, TT_OPF_INPLACE}
const tt_op_def_t tt_ops_special_gamma[] = {
    SP_UNARY("lgamma", lower_lgamma),
    SP_UNARY("digamma", lower_digamma),
    SP_UNARY("erfinv", lower_erfinv),
    SP_UNARY("erfc", lower_erfc),
    {"polygamma", lower_polygamma, 0},
    {"mvlgamma", lower_mvlgamma, 0, .layout = TT_LAYOUT_ROW_MAJOR}, {"mvlgamma_", lower_mvlgamma, TT_OPF_INPLACE},
    {"special_zeta", lower_zeta, 0},
    {"special_zeta.self_scalar", lower_zeta, 0},
    {"special_zeta.other_scalar", lower_zeta, 0},
    SP_UNARY("nextafter", lower_nextafter),
    {NULL, NULL, 0},
};
