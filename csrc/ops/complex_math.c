/* Complex forms of exp/exp2, log/log2/log10, sinh/cosh and nan_to_num,
 * built from real parts as CPU's kernels compute them, with C99's special
 * values (Annex G, which CPU's std::complex functions follow) where XLA's
 * expansions give NaNs (complex.h). */
#include "ops/common.h"
#include "ops/complex.h"
#include "ops/elementwise.h"

static tt_val_t re_of(tt_graph_t *g, tt_val_t z) { return tt_b_unary(g, TT_UN_REAL, z); }
static tt_val_t im_of(tt_graph_t *g, tt_val_t z) { return tt_b_unary(g, TT_UN_IMAG, z); }
static tt_val_t cplx(tt_graph_t *g, tt_val_t re, tt_val_t im) { return tt_b_binary(g, TT_BIN_COMPLEX, re, im); }
static tt_val_t mul(tt_graph_t *g, tt_val_t x, tt_val_t y) { return tt_b_binary(g, TT_BIN_MUL, x, y); }
static tt_val_t is_zero(tt_graph_t *g, tt_val_t x) { return tt_b_compare(g, TT_CMP_EQ, x, tt_b_like_f(g, x, 0.0)); }

static tt_val_t is_inf(tt_graph_t *g, tt_val_t x) {
  return tt_b_compare(g, TT_CMP_EQ, tt_b_unary(g, TT_UN_ABS, x), tt_b_like_f(g, x, 1.0 / 0.0));
}
static tt_val_t is_nan(tt_graph_t *g, tt_val_t x) { return tt_b_compare(g, TT_CMP_NE, x, x); }
static tt_val_t or2(tt_graph_t *g, tt_val_t a, tt_val_t b) { return tt_b_binary(g, TT_BIN_OR, a, b); }
static tt_val_t and2(tt_graph_t *g, tt_val_t a, tt_val_t b) { return tt_b_binary(g, TT_BIN_AND, a, b); }
static tt_val_t not_finite(tt_graph_t *g, tt_val_t x) { return tt_b_unary(g, TT_UN_NOT, tt_b_unary(g, TT_UN_IS_FINITE, x)); }

tt_val_t tt_cx_exp(tt_graph_t *g, tt_val_t z) {
  tt_val_t e = tt_b_unary(g, TT_UN_EXP, z);
  if (e < 0) return -1;
  tt_val_t x = re_of(g, z), y = im_of(g, z), re = re_of(g, e), im = im_of(g, e);
  tt_val_t f0 = tt_b_like_f(g, x, 0.0), inf = tt_b_like_f(g, x, 1.0 / 0.0), nan = tt_b_like_f(g, x, 0.0 / 0.0);
  im = tt_b_select(g, is_zero(g, y), y, im); /* exp(x + 0i) = exp(x) + 0i, x = inf and NaN too */
  tt_val_t at = and2(g, is_inf(g, x), not_finite(g, y)); /* exp(+-inf + i{inf, NaN}) */
  tt_val_t pos = tt_b_compare(g, TT_CMP_GT, x, f0);
  re = tt_b_select(g, at, tt_b_select(g, pos, inf, f0), re);
  im = tt_b_select(g, at, tt_b_select(g, pos, nan, f0), im);
  return cplx(g, re, im);
}

tt_val_t tt_cx_log(tt_graph_t *g, tt_val_t z) {
  tt_val_t l = tt_b_unary(g, TT_UN_LOG, z);
  if (l < 0) return -1;
  tt_val_t x = re_of(g, z), y = im_of(g, z), re = re_of(g, l);
  re = tt_b_select(g, or2(g, is_nan(g, x), is_nan(g, y)), tt_b_like_f(g, x, 0.0 / 0.0), re);
  re = tt_b_select(g, or2(g, is_inf(g, x), is_inf(g, y)), tt_b_like_f(g, x, 1.0 / 0.0), re);
  return cplx(g, re, im_of(g, l));
}

/* Argument 0 in its complex type (a real one in its complex type). */
static tt_val_t complex_arg(tt_lower_t *L) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_complex(dt)) dt = tt_dtype_to_complex(tt_op_float_type(L, dt));
  return tt_b_convert(L->g, tt_l_tensor(L, 0), dt);
}

/* 2 ** z = exp(ln 2 * z): CPU's identity, ln 2 rounded to the part type and
 * each part scaled by it. */
tt_status_t tt_complex_exp2(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  tt_val_t z = complex_arg(L);
  if (z < 0) return NULL;
  tt_val_t r = re_of(g, z), i = im_of(g, z), ln2 = tt_b_like_f(g, r, 0.69314718055994530942);
  tt_l_output(L, tt_cx_exp(g, cplx(g, mul(g, r, ln2), mul(g, i, ln2))));
  return NULL;
}

/* log(z) / ln(base), each part divided by the real constant (CPU's
 * vectorized kernel): no complex division, whose 0 * inf cross terms would
 * turn log(0) = -inf + 0j into NaNs. */
static tt_status_t log_base(tt_lower_t *L, double ln_base) {
  tt_graph_t *g = L->g;
  tt_val_t l = tt_cx_log(g, complex_arg(L));
  if (l < 0) return NULL;
  tt_val_t r = re_of(g, l), c = tt_b_like_f(g, r, ln_base);
  tt_l_output(L, cplx(g, tt_b_binary(g, TT_BIN_DIV, r, c), tt_b_binary(g, TT_BIN_DIV, im_of(g, l), c)));
  return NULL;
}
tt_status_t tt_complex_log2(tt_lower_t *L) { return log_base(L, 0.69314718055994530942); }
tt_status_t tt_complex_log10(tt_lower_t *L) { return log_base(L, 2.30258509299404568402); }

/* log1p(z): XLA's near 0 (|z| < 0.5), elsewhere log|1 + z| + i arg(1 + z)
 * as CPU computes it: XLA's form loses log|1 + z| where 1 + z is tiny
 * (log1p(-1 + 1.2e-38j) was -inf, CPU -87.34: fuzz 135:1114). A NaN part
 * gives nan+nanj and an infinite one inf + i arg(1 + z) (CPU's). */
tt_val_t tt_cx_log1p(tt_graph_t *g, tt_val_t z) {
  if (z < 0) return -1;
  tt_val_t near = tt_b_unary(g, TT_UN_LOG1P, z);
  tt_val_t x = re_of(g, z), y = im_of(g, z), xp1 = tt_b_binary(g, TT_BIN_ADD, x, tt_b_like_f(g, x, 1.0));
  tt_val_t arg = tt_b_binary(g, TT_BIN_ATAN2, y, xp1);
  /* log|1 + z| = log m + log1p((n / m)^2) / 2, m and n the larger and smaller
   * of |1 + x| and |y|: no overflow of |1 + z| (log1p(max + max j) is 89.07) */
  tt_val_t a = tt_b_unary(g, TT_UN_ABS, xp1), b = tt_b_unary(g, TT_UN_ABS, y);
  tt_val_t m = tt_b_binary(g, TT_BIN_MAX, a, b), q = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_MIN, a, b), m);
  tt_val_t far_re = tt_b_binary(g, TT_BIN_ADD, tt_b_unary(g, TT_UN_LOG, m),
                                mul(g, tt_b_like_f(g, x, 0.5), tt_b_unary(g, TT_UN_LOG1P, mul(g, q, q))));
  far_re = tt_b_select(g, is_zero(g, m), tt_b_like_f(g, x, -1.0 / 0.0), far_re);
  tt_val_t small = tt_b_compare(g, TT_CMP_LT, tt_b_unary(g, TT_UN_ABS, z), tt_b_like_f(g, x, 0.5));
  tt_val_t re = tt_b_select(g, small, re_of(g, near), far_re), im = tt_b_select(g, small, im_of(g, near), arg);
  tt_val_t inf = or2(g, is_inf(g, x), is_inf(g, y)), nan = or2(g, is_nan(g, x), is_nan(g, y));
  re = tt_b_select(g, inf, tt_b_like_f(g, x, 1.0 / 0.0), re);
  im = tt_b_select(g, inf, arg, im);
  /* CPU's own pattern: an infinite imaginary part with 0 < x < 0.5 gives NaN */
  tt_val_t x_in = and2(g, tt_b_compare(g, TT_CMP_GT, x, tt_b_like_f(g, x, 0.0)), tt_b_compare(g, TT_CMP_LT, x, tt_b_like_f(g, x, 0.5)));
  nan = or2(g, nan, and2(g, is_inf(g, y), x_in));
  re = tt_b_select(g, nan, tt_b_like_f(g, x, 0.0 / 0.0), re);
  im = tt_b_select(g, nan, tt_b_like_f(g, x, 0.0 / 0.0), im);
  return cplx(g, re, im);
}
tt_status_t tt_complex_log1p(tt_lower_t *L) {
  tt_l_output(L, tt_cx_log1p(L->g, complex_arg(L)));
  return NULL;
}

/* sinh(x + iy) = sinh x cos y + i cosh x sin y, cosh(x + iy) = cosh x cos y
 * + i sinh x sin y (C99's csinh/ccosh, which CPU calls). Where e^|x|
 * overflows the products can still be finite: there sinh x and cosh x are
 * +-e^|x| / 2, taken as (h cos y / 2) h with h = e^(|x| / 2). A zero part
 * stays an exact (signed) zero, as in C99's special values: csinh(x + 0i)
 * has imaginary part 0 for every x (not cosh x * 0, NaN at x = inf), and
 * csinh(0 + iy) real part 0 for every y. */
static tt_status_t hyperbolic(tt_lower_t *L, int is_cosh) {
  tt_graph_t *g = L->g;
  tt_val_t z = complex_arg(L);
  if (z < 0) return NULL;
  tt_val_t x = re_of(g, z), y = im_of(g, z);
  tt_val_t cy = tt_b_unary(g, TT_UN_COS, y), sy = tt_b_unary(g, TT_UN_SIN, y);
  tt_val_t sh = tt_ew_sinh(g, x), ch = tt_ew_cosh(g, x);
  tt_val_t re = mul(g, is_cosh ? ch : sh, cy), im = mul(g, is_cosh ? sh : ch, sy);
  /* beyond exp's range: (h/2 cos y) h and (h/2 sin y) h, signed by x for sinh's part */
  tt_val_t ax = tt_b_unary(g, TT_UN_ABS, x), half = tt_b_like_f(g, x, 0.5);
  tt_val_t h = tt_b_unary(g, TT_UN_EXP, mul(g, ax, half)), sx = tt_b_unary(g, TT_UN_SIGN, x);
  tt_val_t big_re = mul(g, mul(g, mul(g, h, half), cy), h), big_im = mul(g, mul(g, mul(g, h, half), sy), h);
  if (is_cosh) big_im = mul(g, sx, big_im);
  else big_re = mul(g, sx, big_re);
  double lim = tt_graph_type(g, x)->dtype == TT_F64 ? 709.0 : 88.0;
  tt_val_t far = tt_b_compare(g, TT_CMP_GE, ax, tt_b_like_f(g, x, lim));
  re = tt_b_select(g, far, big_re, re);
  im = tt_b_select(g, far, big_im, im);
  /* C99's csinh/ccosh(+-inf + i{inf, NaN}) = inf + iNaN */
  tt_val_t at = and2(g, is_inf(g, x), not_finite(g, y));
  re = tt_b_select(g, at, tt_b_like_f(g, x, 1.0 / 0.0), re);
  im = tt_b_select(g, at, tt_b_like_f(g, x, 0.0 / 0.0), im);
  if (is_cosh) { /* ccosh(x + 0i) = cosh x + i (sinh x * 0), ccosh(0 + iy) = cos y + i 0 */
    tt_val_t x_nan = tt_b_compare(g, TT_CMP_NE, x, x);
    tt_val_t zero_im = tt_b_select(g, x_nan, tt_b_like_f(g, y, 0.0), mul(g, sx, y));
    im = tt_b_select(g, tt_b_binary(g, TT_BIN_OR, is_zero(g, y), is_zero(g, x)),
                     tt_b_select(g, is_zero(g, y), zero_im, mul(g, x, tt_b_like_f(g, y, 0.0))), im);
  } else {
    re = tt_b_select(g, is_zero(g, x), x, re);
    im = tt_b_select(g, is_zero(g, y), y, im);
  }
  tt_l_output(L, cplx(g, re, im));
  return NULL;
}
tt_status_t tt_complex_sinh(tt_lower_t *L) { return hyperbolic(L, 0); }
tt_status_t tt_complex_cosh(tt_lower_t *L) { return hyperbolic(L, 1); }

/* nan_to_num of each part, with the part type's limits (CPU's kernel). */
tt_status_t tt_complex_nan_to_num(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  tt_val_t z = tt_l_tensor(L, 0);
  if (z < 0) return NULL;
  tt_l_output(L, cplx(g, tt_ew_nan_to_num(L, re_of(g, z)), tt_ew_nan_to_num(L, im_of(g, z))));
  return NULL;
}

/* Inverse trigonometric and hyperbolic functions: CHLO's (XLA's expansions,
 * within a few ulps of CPU's C99 functions), taken where a part's sign does
 * not matter to XLA's formulas and given it by C99's symmetries: each
 * commutes with conjugation (f(conj z) = conj f(z)), and asinh, atan and
 * atanh are odd. On a branch cut the sign of a zero part picks the side:
 * acos(1.5 - 0j) is +0.96j on CPU, XLA gave -0.96j for -0 and +0 alike. */
static tt_val_t sign_bit(tt_graph_t *g, tt_val_t x) {
  tt_dtype_t it = tt_graph_type(g, x)->dtype == TT_F64 ? TT_I64 : TT_I32;
  tt_val_t bits = tt_b_bitcast(g, x, it);
  return tt_b_compare(g, TT_CMP_LT, bits, tt_b_like_f(g, bits, 0));
}
static tt_val_t neg_if(tt_graph_t *g, tt_val_t c, tt_val_t v) { return tt_b_select(g, c, tt_b_unary(g, TT_UN_NEG, v), v); }

/* C99's atanh(x + iy) where a part is NaN (XLA's gave nan -+ pi/2 j):
 * atanh(+-0 + iNaN) = +-0 + iNaN, atanh(+-inf + iNaN) = +-0 + iNaN,
 * atanh(NaN +- i inf) = 0 +- i pi/2, NaN + iNaN otherwise. */
static void atanh_nan(tt_graph_t *g, tt_val_t x, tt_val_t y, tt_val_t *re, tt_val_t *im) {
  tt_val_t nan = tt_b_like_f(g, x, 0.0 / 0.0), f0 = tt_b_like_f(g, x, 0.0);
  tt_val_t yn = is_nan(g, y), xn = is_nan(g, x);
  tt_val_t r = tt_b_select(g, is_zero(g, x), x, tt_b_select(g, is_inf(g, x), neg_if(g, sign_bit(g, x), f0), nan));
  tt_val_t y_inf = is_inf(g, y);
  tt_val_t half_pi = neg_if(g, sign_bit(g, y), tt_b_like_f(g, x, 1.5707963267948966));
  *re = tt_b_select(g, yn, r, tt_b_select(g, xn, tt_b_select(g, y_inf, f0, nan), *re));
  *im = tt_b_select(g, yn, nan, tt_b_select(g, xn, tt_b_select(g, y_inf, half_pi, nan), *im));
}

/* atanh(p + iq)'s real part for p, q >= 0 next to the branch point 1, as
 * C99's catanh gives it: 1/4 log(((1+p)^2 + q^2) / ((1-p)^2 + q^2)), whose
 * denominator XLA's expansion squares into 0 (or a flushed subnormal) when
 * q is below ~1e-19 (float32): atan(1e-20 + 1j) was inf j, CPU 23.37j
 * (fuzz 158:706). There: 1/2 (log |(1+p, q)| - log |(1-p, q)|), no squares;
 * elsewhere XLA's value v. */
static tt_val_t atanh_near_one(tt_graph_t *g, tt_val_t p, tt_val_t q, tt_val_t v) {
  int f64 = tt_graph_type(g, p)->dtype == TT_F64;
  tt_val_t one = tt_b_like_f(g, p, 1.0);
  tt_val_t dp = tt_b_binary(g, TT_BIN_SUB, one, p);
  tt_val_t d = tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_MUL, q, q), tt_b_binary(g, TT_BIN_MUL, dp, dp));
  tt_val_t near = tt_b_compare(g, TT_CMP_LT, d, tt_b_like_f(g, d, f64 ? 1e-290 : 1e-30));
  tt_val_t hi = tt_b_unary(g, TT_UN_LOG, tt_ew_hypot(g, tt_b_binary(g, TT_BIN_ADD, one, p), q));
  tt_val_t lo = tt_b_unary(g, TT_UN_LOG, tt_ew_hypot(g, dp, q));
  tt_val_t alt = tt_b_binary(g, TT_BIN_MUL, tt_b_like_f(g, p, 0.5), tt_b_binary(g, TT_BIN_SUB, hi, lo));
  return tt_b_select(g, near, alt, v);
}

static tt_status_t inverse_fn(tt_lower_t *L, tt_unary_t op) {
  tt_graph_t *g = L->g;
  tt_val_t z = complex_arg(L);
  if (z < 0) return NULL;
  tt_val_t x = re_of(g, z), y = im_of(g, z), sx = sign_bit(g, x), sy = sign_bit(g, y);
  int odd = op == TT_UN_ASINH || op == TT_UN_ATAN || op == TT_UN_ATANH;
  tt_val_t ax = odd ? tt_b_unary(g, TT_UN_ABS, x) : x;
  tt_val_t w = tt_b_unary(g, op, cplx(g, ax, tt_b_unary(g, TT_UN_ABS, y)));
  tt_val_t wr = re_of(g, w), wi = im_of(g, w), ay = tt_b_unary(g, TT_UN_ABS, y);
  if (op == TT_UN_ATANH) wr = atanh_near_one(g, ax, ay, wr);
  if (op == TT_UN_ATAN) wi = atanh_near_one(g, ay, ax, wi); /* atan(x + iy) = -i atanh(-y + ix) */
  tt_val_t re = wr, im = neg_if(g, sy, wi);
  if (odd) re = neg_if(g, sx, re);
  if (op == TT_UN_ATANH) atanh_nan(g, x, y, &re, &im);
  if (op == TT_UN_ATAN) { /* atan(z) = -i atanh(iz): with atanh(-y + ix) = a + ib, atan(z) = b - ia */
    tt_val_t a = tt_b_unary(g, TT_UN_NEG, im), b = re;
    atanh_nan(g, tt_b_unary(g, TT_UN_NEG, y), x, &a, &b);
    re = b;
    im = tt_b_unary(g, TT_UN_NEG, a);
  }
  /* C99's values at a zero part and a NaN one: acos(+-0 + iNaN) = pi/2 + iNaN,
   * asin(+-0 + iNaN) = +-0 + iNaN, acosh(+-0 + iNaN) = NaN + i pi/2,
   * asinh(NaN +- 0i) = NaN +- 0i (XLA's: nan+nanj) */
  tt_val_t nan = tt_b_like_f(g, x, 0.0 / 0.0), half_pi = tt_b_like_f(g, x, 1.5707963267948966);
  tt_val_t at = op == TT_UN_ASINH ? and2(g, is_zero(g, y), is_nan(g, x)) : and2(g, is_zero(g, x), is_nan(g, y));
  if (op == TT_UN_ACOS || op == TT_UN_ASIN || op == TT_UN_ACOSH || op == TT_UN_ASINH) {
    tt_val_t r = op == TT_UN_ACOS ? half_pi : op == TT_UN_ASIN ? x : nan;
    tt_val_t i = op == TT_UN_ACOSH ? half_pi : op == TT_UN_ASINH ? y : nan;
    re = tt_b_select(g, at, r, re);
    im = tt_b_select(g, at, i, im);
  }
  tt_l_output(L, cplx(g, re, im));
  return NULL;
}
tt_status_t tt_complex_acos(tt_lower_t *L) { return inverse_fn(L, TT_UN_ACOS); }
tt_status_t tt_complex_asin(tt_lower_t *L) { return inverse_fn(L, TT_UN_ASIN); }
tt_status_t tt_complex_atan(tt_lower_t *L) { return inverse_fn(L, TT_UN_ATAN); }
tt_status_t tt_complex_acosh(tt_lower_t *L) { return inverse_fn(L, TT_UN_ACOSH); }
tt_status_t tt_complex_asinh(tt_lower_t *L) { return inverse_fn(L, TT_UN_ASINH); }
tt_status_t tt_complex_atanh(tt_lower_t *L) { return inverse_fn(L, TT_UN_ATANH); }
