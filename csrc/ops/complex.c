/* Complex elementwise ops and reductions: the complex64/complex128 forms of
 * arithmetic, abs/angle/sgn, exp, sum/mean (routed here by complex_rules.c),
 * and complex/polar/_conj_physical, which exist only for complex values. */
#include <string.h>

#include "ops/common.h"
#include "ops/complex.h"
#include "ops/dispatch_refusal.h"
#include "ops/elementwise.h"
#include "ops/families.h"
#include "ops/linalg_util.h"
#include "ops/scan.h"

static tt_val_t re_of(tt_graph_t *g, tt_val_t z) { return tt_b_unary(g, TT_UN_REAL, z); }
static tt_val_t im_of(tt_graph_t *g, tt_val_t z) { return tt_b_unary(g, TT_UN_IMAG, z); }
static tt_val_t conj_of(tt_graph_t *g, tt_val_t z) {
  return tt_b_binary(g, TT_BIN_COMPLEX, re_of(g, z), tt_b_unary(g, TT_UN_NEG, im_of(g, z)));
}

typedef struct {
  tt_dtype_t dt;
  int rank;
  int64_t dims[TT_MAX_RANK];
  tt_val_t x, y;
} pair_t;

/* Both operands in the promoted type, broadcast. */
static int pair(tt_lower_t *L, pair_t *p) {
  int argi[2] = {0, 1};
  p->dt = tt_op_result_type(L, argi, 2);
  p->rank = tt_op_broadcast_shape(L, argi, 2, p->dims);
  p->x = tt_op_operand(L, 0, p->dt, p->rank, p->dims);
  p->y = tt_op_operand(L, 1, p->dt, p->rank, p->dims);
  return !tt_graph_failed(L->g);
}

/* A bool alpha: CPU's alpha_check refuses it for a result that is not
 * bool, which a complex one never is, after the iterator's broadcast and
 * before any dtype check (fuzz 708:898: float16 + complex number with
 * alpha=True is that error on CPU; tpu refused the complex32 result). */
static tt_status_t bool_alpha_check(tt_lower_t *L) {
  if (tt_l_is_none(L, 2) || L->args[2].kind != TT_ARG_BOOL) return NULL;
  int argi[2] = {0, 1};
  int64_t dims[TT_MAX_RANK];
  tt_op_broadcast_shape(L, argi, 2, dims);
  if (tt_graph_failed(L->g)) return NULL;
  return tt_status_make(TT_INVALID_ARGUMENT, "Boolean alpha only supported for Boolean results.");
}

/* add/sub(self, other, alpha): alpha may be any number, complex included.
 * CPU computes self + alpha * other with alpha as a complex number (alpha +
 * 0j for a real one) and c10::complex's plain product, for the default
 * alpha 1 too (its scalar and vectorized loops alike; sub adds -alpha *
 * other): an infinite part of other makes the product's other part NaN
 * (0 * inf), so 1 + (inf + 0j) is inf + nanj there. The product by alpha is
 * kept for alpha 1 (a runtime parameter: not folded away) for that. */
static tt_status_t add_sub(tt_lower_t *L, tt_binary_t op) {
  if (op == TT_BIN_SUB) {
    tt_status_t s = tt_op_sub_check(L);
    if (s) return s;
  }
  tt_status_t b = bool_alpha_check(L);
  if (b || tt_graph_failed(L->g)) return b;
  pair_t p;
  if (!pair(L, &p)) return NULL;
  tt_val_t y = p.y;
  if (!tt_l_is_none(L, 2)) {
    const tt_arg_t *al = &L->args[2];
    if (al->kind == TT_ARG_BOOL) /* a complex result is never bool */
      return tt_status_make(TT_INVALID_ARGUMENT, "Boolean alpha only supported for Boolean results.");
    if (al->kind == TT_ARG_COMPLEX && !tt_dtype_is_complex(p.dt)) /* real tensors routed here by a complex alpha: CPU's alpha_check */
      return tt_status_make(TT_INVALID_ARGUMENT, tt_dtype_is_float(p.dt)
                                                     ? "For non-complex input tensors, argument alpha must not be a complex number."
                                                     : "For integral input tensors, argument alpha must not be a floating point number.");
    y = tt_b_binary(L->g, TT_BIN_MUL, y, tt_op_fit(L, tt_l_scalar_arg(L, 2, p.dt), p.dt, p.rank, p.dims));
  }
  tt_l_output(L, tt_b_binary(L->g, op, p.x, y));
  return NULL;
}
tt_status_t tt_complex_add(tt_lower_t *L) { return add_sub(L, TT_BIN_ADD); }
tt_status_t tt_complex_sub(tt_lower_t *L) { return add_sub(L, TT_BIN_SUB); }

/* rsub(self, other, alpha) = other - alpha * self */
tt_status_t tt_complex_rsub(tt_lower_t *L) {
  tt_status_t s = tt_op_sub_check(L);
  if (s) return s;
  s = bool_alpha_check(L);
  if (s || tt_graph_failed(L->g)) return s;
  pair_t p;
  if (!pair(L, &p)) return NULL;
  tt_val_t x = p.x;
  if (!tt_l_is_none(L, 2) && L->args[2].kind == TT_ARG_BOOL)
    return tt_status_make(TT_INVALID_ARGUMENT, "Boolean alpha only supported for Boolean results.");
  if (!tt_l_is_none(L, 2))
    x = tt_b_binary(L->g, TT_BIN_MUL, x, tt_op_fit(L, tt_l_scalar_arg(L, 2, p.dt), p.dt, p.rank, p.dims));
  tt_l_output(L, tt_b_binary(L->g, TT_BIN_SUB, p.y, x));
  return NULL;
}

static tt_status_t binary(tt_lower_t *L, tt_binary_t op) {
  pair_t p;
  if (!pair(L, &p)) return NULL;
  tt_l_output(L, tt_b_binary(L->g, op, p.x, p.y));
  return NULL;
}
tt_status_t tt_complex_mul(tt_lower_t *L) { return binary(L, TT_BIN_MUL); }
tt_status_t tt_complex_div(tt_lower_t *L) { return binary(L, TT_BIN_DIV); }

/* The complex type of argument 0 (real inputs go to their complex type). */
static tt_val_t complex_arg(tt_lower_t *L, int i, tt_dtype_t *out_dt) {
  tt_dtype_t dt = tt_l_arg_dtype(L, i);
  if (!tt_dtype_is_complex(dt)) dt = tt_dtype_to_complex(tt_op_float_type(L, dt));
  *out_dt = dt;
  return tt_b_convert(L->g, tt_l_tensor(L, i), dt);
}

tt_status_t tt_complex_neg(tt_lower_t *L) {
  tt_l_output(L, tt_b_unary(L->g, TT_UN_NEG, tt_l_tensor(L, 0)));
  return NULL;
}
tt_status_t tt_complex_exp(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_l_output(L, tt_cx_exp(L->g, complex_arg(L, 0, &dt)));
  return NULL;
}
tt_status_t tt_complex_reciprocal(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_val_t z = complex_arg(L, 0, &dt);
  tt_l_output(L, tt_b_binary(L->g, TT_BIN_DIV, tt_b_like_f(L->g, z, 1.0), z));
  return NULL;
}

/* Analytic functions StableHLO defines on complex values (principal branches,
 * as std::complex and PyTorch's CPU kernels). */
static tt_status_t unary(tt_lower_t *L, tt_unary_t op) {
  tt_dtype_t dt;
  tt_l_output(L, tt_b_unary(L->g, op, complex_arg(L, 0, &dt)));
  return NULL;
}
/* sqrt with the sign of its imaginary part taken from z's, signed zero
 * included: on the branch cut sqrt(-4 - 0j) is -2j (C99, CPU); XLA's
 * expansion gives +2j there. */
static tt_val_t sqrt_signed(tt_graph_t *g, tt_val_t z) {
  tt_val_t r = tt_b_unary(g, TT_UN_SQRT, z), zi = im_of(g, z);
  const tt_type_t *zt = tt_graph_type(g, zi);
  if (zi < 0) return -1;
  tt_dtype_t pt = zt->dtype, it = pt == TT_F64 ? TT_I64 : TT_I32;
  tt_val_t neg = tt_b_compare(g, TT_CMP_LT, tt_b_bitcast(g, zi, it), tt_b_like_f(g, tt_b_bitcast(g, zi, it), 0));
  tt_val_t mag = tt_b_unary(g, TT_UN_ABS, im_of(g, r));
  return tt_b_binary(g, TT_BIN_COMPLEX, re_of(g, r), tt_b_select(g, neg, tt_b_unary(g, TT_UN_NEG, mag), mag));
}
tt_status_t tt_complex_sqrt(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_l_output(L, sqrt_signed(L->g, complex_arg(L, 0, &dt)));
  return NULL;
}
/* 1 / sqrt(z), as CPU computes it */
tt_status_t tt_complex_rsqrt(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_val_t r = sqrt_signed(L->g, complex_arg(L, 0, &dt));
  tt_l_output(L, tt_b_binary(L->g, TT_BIN_DIV, tt_b_like_f(L->g, r, 1.0), r));
  return NULL;
}
tt_status_t tt_complex_log(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_l_output(L, tt_cx_log(L->g, complex_arg(L, 0, &dt)));
  return NULL;
}
/* expm1(x + iy) by CPU's formula (c10's complex expm1): expm1(x) cos(y) -
 * 2 sin(y/2)^2 + i exp(x) sin(y). XLA's complex expm1 lost digits of the
 * real part where cos(y) is near 0 (expm1(6.8 - 4.702j): cpu -10.337498,
 * tpu -10.337462, exact -10.337498; fuzz 262:965), and gave inf + 0j where
 * CPU's exp(x) sin(0) is inf * 0 = NaN (expm1(100 + 0j) in complex64). */
static tt_val_t expm1_like_cpu(tt_graph_t *g, tt_val_t z) {
  tt_val_t x = re_of(g, z), y = im_of(g, z);
  tt_val_t a = tt_b_unary(g, TT_UN_SIN, tt_b_binary(g, TT_BIN_MUL, y, tt_b_like_f(g, y, 0.5)));
  tt_val_t two_a2 = tt_b_binary(g, TT_BIN_MUL, tt_b_like_f(g, a, 2.0), tt_b_binary(g, TT_BIN_MUL, a, a));
  tt_val_t re = tt_b_binary(g, TT_BIN_SUB, tt_b_binary(g, TT_BIN_MUL, tt_b_unary(g, TT_UN_EXPM1, x), tt_b_unary(g, TT_UN_COS, y)),
                            two_a2);
  tt_val_t im = tt_b_binary(g, TT_BIN_MUL, tt_b_unary(g, TT_UN_EXP, x), tt_b_unary(g, TT_UN_SIN, y));
  return tt_b_binary(g, TT_BIN_COMPLEX, re, im);
}
tt_status_t tt_complex_expm1(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_l_output(L, expm1_like_cpu(L->g, complex_arg(L, 0, &dt)));
  return NULL;
}
tt_status_t tt_complex_sin(tt_lower_t *L) { return unary(L, TT_UN_SIN); }
tt_status_t tt_complex_cos(tt_lower_t *L) { return unary(L, TT_UN_COS); }
tt_status_t tt_complex_tan(tt_lower_t *L) { return unary(L, TT_UN_TAN); }
/* tanh(x + iy) = (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y)
 * for finite x, y with |x| below where sinh^2 overflows (glibc's ctanh
 * form, whose denominator is a sum of squares): next to a pole (y near
 * pi/2) XLA's formula cancels in its denominator and lost digits
 * (fuzz 315:123: tanh(0.02766 + 1.58057j) in complex64 was 2e-6 off CPU's).
 * XLA's tanh elsewhere, and its special values (NaN and infinite parts). */
tt_status_t tt_complex_tanh(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_graph_t *g = L->g;
  tt_val_t z = complex_arg(L, 0, &dt);
  tt_val_t w = tt_b_unary(g, TT_UN_TANH, z);
  if (w < 0) return NULL;
  tt_val_t x = re_of(g, z), y = im_of(g, z);
  tt_val_t sx = tt_ew_sinh(g, x), cx = tt_ew_cosh(g, x), sy = tt_b_unary(g, TT_UN_SIN, y), cy = tt_b_unary(g, TT_UN_COS, y);
  tt_val_t den = tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_MUL, sx, sx), tt_b_binary(g, TT_BIN_MUL, cy, cy));
  tt_val_t re = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_MUL, sx, cx), den);
  tt_val_t im = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_MUL, sy, cy), den);
  double lim = dt == TT_C128 ? 300.0 : 20.0; /* sinh(x)^2 finite, tanh(x) not yet +-1 */
  tt_val_t ok = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_LT, tt_b_unary(g, TT_UN_ABS, x), tt_b_like_f(g, x, lim)),
                            tt_b_unary(g, TT_UN_IS_FINITE, y));
  tt_l_output(L, tt_b_select(g, ok, tt_b_binary(g, TT_BIN_COMPLEX, re, im), w));
  return NULL;
}
/* silu(z) = z / (1 + exp(-z)), CPU's complex kernel's formula (C99's exp,
 * then a complex division); tpu refused complex silu, which CPU computes. */
tt_status_t tt_complex_silu(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_graph_t *g = L->g;
  tt_val_t z = complex_arg(L, 0, &dt);
  tt_val_t d = tt_b_binary(g, TT_BIN_ADD, tt_b_like_f(g, z, 1.0), tt_cx_exp(g, tt_b_unary(g, TT_UN_NEG, z)));
  tt_l_output(L, tt_b_binary(g, TT_BIN_DIV, z, d));
  return NULL;
}
/* sigmoid(z) = 1 / (1 + exp(-z)) (CPU's kernel, with C99's exp): XLA's
 * logistic, except at an infinite real part +inf with an infinite or NaN
 * imaginary part, where C99's exp(-inf + iy) is a signed zero and the result
 * is 1 (fuzz 425:879: sigmoid_ of inf+infj was nan+nanj). */
tt_status_t tt_complex_sigmoid(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_graph_t *g = L->g;
  tt_val_t z = complex_arg(L, 0, &dt);
  tt_val_t w = tt_b_unary(g, TT_UN_LOGISTIC, z);
  if (w < 0) return NULL;
  tt_val_t x = re_of(g, z), y = im_of(g, z);
  tt_val_t at = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_EQ, x, tt_b_like_f(g, x, 1.0 / 0.0)),
                            tt_b_unary(g, TT_UN_NOT, tt_b_unary(g, TT_UN_IS_FINITE, y)));
  tt_val_t one = tt_b_binary(g, TT_BIN_COMPLEX, tt_b_like_f(g, x, 1.0), tt_b_like_f(g, x, 0.0));
  tt_l_output(L, tt_b_select(g, at, one, w));
  return NULL;
}
/* x ** y. CPU computes exp(y * log(x)) (std::pow) except for the scalar
 * exponents its kernel special-cases (0.5, 2, 3, -0.5, -1, -2). At x = 0,
 * log(x) = -inf and that gives 0 for re(y) > 0, (inf, nan) for re(y) < 0
 * and NaN for re(y) = 0, where XLA's pow gives NaN for every non-real y.
 * At an x with an infinite part and a finite y, log(x) = inf + i arg(x)
 * (arg NaN where the other part is): y log(x) (C99's multiply recovers the
 * infinities) has real part re(y) * inf, and C99's exp of it gives 0 for
 * re(y) < 0, (inf, nan) for re(y) > 0 and NaN for re(y) = 0 (fuzz
 * 122:1421: bfloat16 inf ** (-1.15-1.89j) is 0 on CPU, XLA gave nan+nanj).
 * A Python number 0 as y gives 1 for every x, NaN included (CPU's
 * tensor-scalar kernel); a tensor y = 0 goes through exp(y log x). */
static tt_val_t pow_at_infinity(tt_graph_t *g, tt_val_t x, tt_val_t y, tt_val_t r) {
  tt_val_t xr = re_of(g, x), xi = im_of(g, x), yr = re_of(g, y), yi = im_of(g, y);
  tt_val_t inf = tt_b_like_f(g, yr, 1.0 / 0.0), f0 = tt_b_like_f(g, yr, 0.0), nan = tt_b_like_f(g, yr, 0.0 / 0.0);
  tt_val_t x_inf = tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_EQ, tt_b_unary(g, TT_UN_ABS, xr), inf),
                               tt_b_compare(g, TT_CMP_EQ, tt_b_unary(g, TT_UN_ABS, xi), inf));
  tt_val_t y_fin = tt_b_binary(g, TT_BIN_AND, tt_b_unary(g, TT_UN_IS_FINITE, yr), tt_b_unary(g, TT_UN_IS_FINITE, yi));
  tt_val_t at = tt_b_binary(g, TT_BIN_AND, x_inf, y_fin);
  tt_val_t pos = tt_b_compare(g, TT_CMP_GT, yr, f0), neg = tt_b_compare(g, TT_CMP_LT, yr, f0);
  tt_val_t v = tt_b_binary(g, TT_BIN_COMPLEX, tt_b_select(g, neg, f0, tt_b_select(g, pos, inf, nan)),
                           tt_b_select(g, neg, f0, nan));
  return tt_b_select(g, at, v, r);
}

tt_status_t tt_complex_pow(tt_lower_t *L) {
  pair_t p;
  if (!pair(L, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t r = tt_b_binary(g, TT_BIN_POW, p.x, p.y);
  const tt_arg_t *e = &L->args[1];
  double ev = e->kind == TT_ARG_FLOAT ? e->f : e->kind == TT_ARG_INT ? (double)e->i : 0.0;
  int special = (e->kind == TT_ARG_FLOAT || e->kind == TT_ARG_INT) &&
                (ev == 0.5 || ev == 2 || ev == 3 || ev == -0.5 || ev == -1 || ev == -2);
  /* CPU's kernel multiplies for 2 and 3 (base * base [* base]): so does this,
   * where XLA's pow rounded differently (fuzz 126:1345: square of complex64
   * off in 50 of 561 real parts) */
  if (special && (ev == 2 || ev == 3)) {
    r = tt_b_binary(g, TT_BIN_MUL, p.x, p.x);
    if (ev == 3) r = tt_b_binary(g, TT_BIN_MUL, r, p.x);
  }
  if (!special) {
    tt_val_t zero = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_EQ, re_of(g, p.x), tt_b_like_f(g, re_of(g, p.x), 0)),
                                tt_b_compare(g, TT_CMP_EQ, im_of(g, p.x), tt_b_like_f(g, im_of(g, p.x), 0)));
    tt_val_t yr = re_of(g, p.y);
    tt_val_t f0 = tt_b_like_f(g, yr, 0.0), nan = tt_b_like_f(g, yr, 0.0 / 0.0), inf = tt_b_like_f(g, yr, 1.0 / 0.0);
    tt_val_t pos = tt_b_compare(g, TT_CMP_GT, yr, f0), neg = tt_b_compare(g, TT_CMP_LT, yr, f0);
    tt_val_t at0 = tt_b_binary(g, TT_BIN_COMPLEX, tt_b_select(g, pos, f0, tt_b_select(g, neg, inf, nan)),
                               tt_b_select(g, pos, f0, nan));
    r = pow_at_infinity(g, p.x, p.y, tt_b_select(g, zero, at0, r));
  }
  int scalar0 = (e->kind == TT_ARG_FLOAT || e->kind == TT_ARG_INT || e->kind == TT_ARG_COMPLEX) && ev == 0.0 &&
                (e->kind != TT_ARG_COMPLEX || (e->f == 0.0 && e->f_im == 0.0));
  if (scalar0) r = tt_b_binary(g, TT_BIN_COMPLEX, tt_b_like_f(g, re_of(g, r), 1.0), tt_b_like_f(g, re_of(g, r), 0.0));
  tt_l_output(L, r);
  return NULL;
}

/* vdot(a, b) = sum(conj(a) * b) */
tt_status_t tt_complex_vdot(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  tt_dtype_t a = tt_l_arg_dtype(L, 0), b = tt_l_arg_dtype(L, 1);
  if (a != b) /* CPU's dot_check: no promotion */
    return tt_status_make(TT_INVALID_ARGUMENT, "dot : expected both vectors to have same dtype, but found %s and %s",
                          tt_op_type_name(a), tt_op_type_name(b));
  if (tt_l_arg_rank(L, 0) != 1 || tt_l_arg_rank(L, 1) != 1)
    return tt_status_make(TT_INVALID_ARGUMENT, "1D tensors expected, but got %dD and %dD tensors", tt_l_arg_rank(L, 0),
                          tt_l_arg_rank(L, 1));
  int64_t na = tt_l_arg_sizes(L, 0)[0], nb = tt_l_arg_sizes(L, 1)[0];
  if (na != nb) /* not broadcast: CPU's dot_check */
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "inconsistent tensor size, expected tensor [%lld] and src [%lld] to have the same number of "
                          "elements, but got %lld and %lld elements respectively",
                          (long long)na, (long long)nb, (long long)na, (long long)nb);
  pair_t p;
  if (!pair(L, &p)) return NULL;
  int64_t d0 = 0;
  tt_l_output(L, tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, conj_of(g, p.x), p.y), 1, &d0));
  return NULL;
}

/* |z|: XLA's abs of a complex value (scaled, no overflow), in the real type. */
/* |z| as C's hypot (CPU's std::abs): an infinite part gives inf, else a NaN
 * part gives NaN (XLA's complex abs drops a NaN imaginary part). */
tt_status_t tt_complex_abs(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  tt_val_t z = tt_l_tensor(L, 0);
  tt_val_t r = tt_b_unary(g, TT_UN_ABS, z);
  tt_val_t re = tt_b_unary(g, TT_UN_ABS, re_of(g, z)), im = tt_b_unary(g, TT_UN_ABS, im_of(g, z));
  tt_val_t nan = tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_NE, re, re), tt_b_compare(g, TT_CMP_NE, im, im));
  tt_val_t inf = tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_EQ, re, tt_b_like_f(g, re, 1.0 / 0.0)),
                             tt_b_compare(g, TT_CMP_EQ, im, tt_b_like_f(g, im, 1.0 / 0.0)));
  r = tt_b_select(g, nan, tt_b_like_f(g, r, 0.0 / 0.0), r);
  tt_l_output(L, tt_b_select(g, inf, tt_b_like_f(g, r, 1.0 / 0.0), r));
  return NULL;
}

/* angle(z) = atan2(im, re), real-typed. */
tt_status_t tt_complex_angle(tt_lower_t *L) {
  tt_val_t z = tt_l_tensor(L, 0);
  tt_l_output(L, tt_b_binary(L->g, TT_BIN_ATAN2, im_of(L->g, z), re_of(L->g, z)));
  return NULL;
}

/* sgn(z) = z / |z|, and 0 at 0, as on CPU. */
tt_status_t tt_complex_sgn(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  tt_val_t z = tt_l_tensor(L, 0);
  if (z < 0) return NULL; /* a failed argument: the graph holds the error */
  tt_val_t a = tt_b_unary(g, TT_UN_ABS, z);
  tt_val_t zero = tt_b_compare(g, TT_CMP_EQ, a, tt_b_like_f(g, a, 0.0));
  tt_val_t q = tt_b_binary(g, TT_BIN_DIV, z, tt_b_convert(g, a, tt_graph_type(g, z)->dtype));
  tt_l_output(L, tt_b_select(g, zero, tt_b_like_f(g, z, 0.0), q));
  return NULL;
}

/* _conj_physical / conj_physical_: the conjugate, materialized. */
static tt_status_t lower_conj_physical(tt_lower_t *L) {
  tt_val_t x = tt_l_tensor(L, 0);
  tt_l_output(L, tt_dtype_is_complex(tt_l_arg_dtype(L, 0)) ? conj_of(L->g, x) : x);
  return NULL;
}

/* conj_physical_: CPU returns a real self untouched, before any check (fuzz
 * 701:134: an expanded int8 self; a write of itself raised the
 * internal-overlap error); a complex self is written with its conjugate. */
static tt_status_t lower_conj_physical_(tt_lower_t *L) {
  const tt_tensor_ref_t *self = tt_l_ref(L, 0);
  if (!self) return tt_status_make(TT_TYPE_ERROR, "conj_physical_: self must be a Tensor");
  L->returns_arg = 0;
  if (tt_dtype_is_complex(self->dtype)) tt_l_write(L, 0, 0, conj_of(L->g, tt_l_tensor(L, 0)));
  return NULL;
}

/* isnan/isinf/isfinite of z: of either part, as CPU (std::isnan(re) || ...). */
static tt_status_t classify(tt_lower_t *L, int which) {
  tt_graph_t *g = L->g;
  tt_val_t z = tt_l_tensor(L, 0);
  if (z < 0) return NULL;
  tt_val_t p[2] = {re_of(g, z), im_of(g, z)}, v[2];
  for (int k = 0; k < 2; k++) {
    if (which == 0) v[k] = tt_b_compare(g, TT_CMP_NE, p[k], p[k]);
    else if (which == 1)
      v[k] = tt_b_compare(g, TT_CMP_EQ, tt_b_unary(g, TT_UN_ABS, p[k]), tt_b_like_f(g, p[k], 1.0 / 0.0));
    else v[k] = tt_b_unary(g, TT_UN_IS_FINITE, p[k]);
  }
  tt_l_output(L, tt_b_binary(g, which == 2 ? TT_BIN_AND : TT_BIN_OR, v[0], v[1]));
  return NULL;
}
tt_status_t tt_complex_isnan(tt_lower_t *L) { return classify(L, 0); }
tt_status_t tt_complex_isinf(tt_lower_t *L) { return classify(L, 1); }
tt_status_t tt_complex_isfinite(tt_lower_t *L) { return classify(L, 2); }

/* complex()/polar() arguments: one float32 or float64 dtype for both, as on CPU
 * (Half would need complex32, which has no StableHLO type). */
static tt_status_t float_pair(tt_lower_t *L, const char *api, tt_dtype_t *dt) {
  tt_dtype_t a = tt_l_arg_dtype(L, 0), b = tt_l_arg_dtype(L, 1);
  if (a != b)
    return tt_status_make(TT_INVALID_ARGUMENT, "Expected object of scalar type %s but got scalar type %s for second argument",
                          tt_op_type_name(a), tt_op_type_name(b));
  if (a != TT_F32 && a != TT_F64)
    return tt_status_make(a == TT_F16 && !strcmp(api, "complex") ? TT_NOT_IMPLEMENTED : TT_INVALID_ARGUMENT,
                          "%s: expected both inputs to be Float or Double tensors but got %s and %s%s", api,
                          tt_op_type_name(a), tt_op_type_name(b),
                          a == TT_F16 && !strcmp(api, "complex") ? " (Half: complex32 has no StableHLO type)" : "");
  *dt = a;
  return NULL;
}

/* complex(real, imag): same floating dtype required, as on CPU. */
static tt_status_t lower_complex(tt_lower_t *L) {
  tt_dtype_t a;
  tt_status_t st = float_pair(L, "complex", &a);
  if (st) return st;
  int argi[2] = {0, 1};
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 2, dims);
  tt_val_t re = tt_op_operand(L, 0, a, rank, dims), im = tt_op_operand(L, 1, a, rank, dims);
  tt_l_output(L, tt_b_binary(L->g, TT_BIN_COMPLEX, re, im));
  return NULL;
}

/* polar(abs, angle) = abs * (cos(angle) + i sin(angle)). */
static tt_status_t lower_polar(tt_lower_t *L) {
  tt_dtype_t a;
  tt_status_t st = float_pair(L, "polar", &a);
  if (st) return st;
  tt_graph_t *g = L->g;
  int argi[2] = {0, 1};
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 2, dims);
  tt_val_t r = tt_op_operand(L, 0, a, rank, dims), th = tt_op_operand(L, 1, a, rank, dims);
  tt_val_t re = tt_b_binary(g, TT_BIN_MUL, r, tt_b_unary(g, TT_UN_COS, th));
  tt_val_t im = tt_b_binary(g, TT_BIN_MUL, r, tt_b_unary(g, TT_UN_SIN, th));
  tt_l_output(L, tt_b_binary(g, TT_BIN_COMPLEX, re, im));
  return NULL;
}

/* A complex z converted to real dtype dt as CPU's iterator casts an input
 * (c10::convert): its real part, or for bool whether either part is nonzero.
 * For the reductions with a real dtype= (sum(z, dtype=torch.int64) sums the
 * truncated real parts). */
static tt_val_t real_of(tt_graph_t *g, tt_val_t z, tt_dtype_t dt) {
  if (z < 0) return -1;
  if (dt != TT_BOOL) return tt_b_convert(g, re_of(g, z), dt);
  tt_val_t r = re_of(g, z), i = im_of(g, z);
  return tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_NE, r, tt_b_like_f(g, r, 0.0)),
                     tt_b_compare(g, TT_CMP_NE, i, tt_b_like_f(g, i, 0.0)));
}

/* sum/mean/prod over dims (all when none given), in the complex type or a
 * real dtype= (the input cast into it first, then reduced as the real ops
 * do): the dims argument index, or -1. */
static tt_status_t reduce(tt_lower_t *L, tt_reduce_t op, int dimi, int keepi, int dtypei, int mean) {
  tt_graph_t *g = L->g;
  int rank = tt_l_arg_rank(L, 0);
  const int64_t *sizes = tt_l_arg_sizes(L, 0);
  tt_dtype_t dt = tt_l_dtype(L, dtypei);
  if (dt == TT_DTYPE_INVALID) dt = tt_l_arg_dtype(L, 0);
  if (mean && !tt_dtype_is_complex(dt) && !tt_dtype_is_float(dt)) /* CPU's check, before the dims' */
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "mean(): could not infer output dtype. Optional dtype must be either a floating point or "
                          "complex dtype. Got: %s", tt_op_type_name(dt));
  int64_t list[TT_MAX_RANK], dims[TT_MAX_RANK];
  int cnt = dimi < 0 ? 0 : tt_l_ints(L, dimi, list, TT_MAX_RANK);
  int mask[TT_MAX_RANK] = {0}, n = 0, keep = keepi < 0 ? 0 : tt_l_bool(L, keepi, 0);
  for (int k = 0; k < cnt; k++) {
    int d = tt_op_wrap_dim(L, list[k], rank);
    if (tt_graph_failed(g)) return NULL;
    if (mask[d]) return tt_status_make(TT_INVALID_ARGUMENT, "dim %d appears multiple times in the list of dims", d);
    mask[d] = 1;
  }
  int64_t count = 1, kept[TT_MAX_RANK];
  for (int d = 0; d < rank; d++) {
    if (cnt == 0) mask[d] = 1;
    if (mask[d]) dims[n++] = d, count *= sizes[d];
    kept[d] = mask[d] ? 1 : sizes[d];
  }
  int real = !tt_dtype_is_complex(dt);
  /* CPU's mean in a half dtype sums in float32 (the input cast straight there) */
  tt_dtype_t cast = mean && real ? tt_op_math_type(dt) : dt;
  tt_val_t x = real ? tt_b_convert(g, real_of(g, tt_l_tensor(L, 0), cast), tt_op_math_type(dt)) : tt_b_convert(g, tt_l_tensor(L, 0), dt);
  tt_val_t s;
  if (real)
    s = tt_b_reduce(g, op, x, n, dims);
  else if (op == TT_RED_SUM) /* each part on its own: XLA turns the sum of an expanded (broadcast) value into a
                         * complex multiply by the count, whose inf * 0 cross terms CPU's sum does not have */
    s = tt_b_binary(g, TT_BIN_COMPLEX, tt_b_reduce(g, op, re_of(g, x), n, dims), tt_b_reduce(g, op, im_of(g, x), n, dims));
  else
    s = tt_b_reduce(g, op, x, n, dims);
  if (mean) s = tt_b_binary(g, TT_BIN_DIV, s, tt_b_like_f(g, s, (double)count));
  if (keep) s = tt_b_reshape(g, s, rank, kept);
  tt_l_output(L, tt_b_convert(g, s, dt));
  return NULL;
}
/* cumsum/cumprod(self, dim, *, dtype): the real ops' prefix scan, in the complex type or a real
 * dtype= (the input cast into it first, CPU's; bool has no CPU kernel). */
static tt_status_t cumulative(tt_lower_t *L, tt_reduce_t op) {
  tt_dtype_t dt = tt_l_dtype(L, 2);
  if (dt == TT_DTYPE_INVALID) dt = tt_l_arg_dtype(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), tt_l_arg_rank(L, 0));
  if (tt_graph_failed(L->g)) return NULL;
  if (dt == TT_BOOL) {
    /* as for a real input: CPU's kernel has no Bool case, but a 0-dim input
     * is copied (z != 0) and an empty one zeroed without it (fuzz 435:396:
     * cumprod of a complex (0, 3) with dtype=bool is an empty bool tensor) */
    int rank = tt_l_arg_rank(L, 0);
    const int64_t *sizes = tt_l_arg_sizes(L, 0);
    int64_t numel = 1;
    for (int d = 0; d < rank; d++) numel *= sizes[d];
    if (rank > 0 && numel > 0) return tt_op_refuse_dtype(dt, "%s_out_cpu", op == TT_RED_SUM ? "cumsum" : "cumprod");
    tt_l_output(L, tt_b_convert(L->g, tt_l_tensor(L, 0), TT_BOOL));
    return NULL;
  }
  if (!tt_dtype_is_complex(dt)) {
    tt_val_t x = tt_b_convert(L->g, real_of(L->g, tt_l_tensor(L, 0), dt), dt == TT_F32 ? TT_F64 : tt_op_math_type(dt));
    tt_l_output(L, tt_b_convert(L->g, tt_op_scan(L->g, op, x, dim), dt));
    return NULL;
  }
  /* complex128 running values for complex64, as CPU's acc_type */
  tt_val_t x = tt_b_convert(L->g, tt_b_convert(L->g, tt_l_tensor(L, 0), dt), TT_C128);
  tt_l_output(L, tt_b_convert(L->g, tt_op_scan(L->g, op, x, dim), dt));
  return NULL;
}
tt_status_t tt_complex_cumsum(tt_lower_t *L) { return cumulative(L, TT_RED_SUM); }
tt_status_t tt_complex_cumprod(tt_lower_t *L) { return cumulative(L, TT_RED_PROD); }

tt_status_t tt_complex_sum(tt_lower_t *L) { return reduce(L, TT_RED_SUM, -1, -1, 1, 0); }
tt_status_t tt_complex_sum_dim(tt_lower_t *L) { return reduce(L, TT_RED_SUM, 1, 2, 3, 0); }
tt_status_t tt_complex_mean(tt_lower_t *L) { return reduce(L, TT_RED_SUM, -1, -1, 1, 1); }
tt_status_t tt_complex_mean_dim(tt_lower_t *L) { return reduce(L, TT_RED_SUM, 1, 2, 3, 1); }
tt_status_t tt_complex_prod(tt_lower_t *L) { return reduce(L, TT_RED_PROD, -1, -1, 1, 0); }
tt_status_t tt_complex_prod_dim(tt_lower_t *L) { return reduce(L, TT_RED_PROD, 1, 2, 3, 0); }

/* trace: the sum of the diagonal, in the complex type. */
tt_status_t tt_complex_trace(tt_lower_t *L) {
  if (tt_l_arg_rank(L, 0) != 2)
    return tt_status_make(TT_INVALID_ARGUMENT, "trace: expected a matrix, but got tensor with dim %d", tt_l_arg_rank(L, 0));
  int64_t zero = 0;
  tt_l_output(L, tt_b_reduce(L->g, TT_RED_SUM, tt_la_diag(L->g, tt_l_tensor(L, 0)), 1, &zero));
  return NULL;
}

/* Ops that exist only for complex values (or take real ones too). */
const tt_op_def_t tt_ops_complex[] = {
    {"complex", lower_complex, TT_OPF_COMPLEX, .layout = TT_LAYOUT_ITERATOR},
    {"polar", lower_polar, TT_OPF_COMPLEX, .layout = TT_LAYOUT_ITERATOR},
    {"_conj_physical", lower_conj_physical, TT_OPF_COMPLEX},
    {"conj_physical_", lower_conj_physical_, TT_OPF_COMPLEX},
    {NULL, NULL, 0},
};
