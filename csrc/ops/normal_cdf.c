/* The standard normal CDF Phi(x) = erfc(-x / sqrt 2) / 2 (exact GELU and
 * its backward). */
#include "ops/common.h"
#include "ops/elementwise.h"

/* float32: one evaluation of the upper tail q = Phi(-|x|) serves both
 * signs, Phi = x < 0 ? q : 1 - q, with
 *   q = exp(-x^2 / 2) P(a) / Q(a),  a = |x|,
 * P/Q a degree-4/4 rational with positive coefficients fitted by
 * tools/fit_normal_cdf.py (run it for the coefficients and the error by
 * band). That is one exp, one divide and about 12 multiply-adds where
 * chlo.erfc expands into erf's rational, an exp, a second rational and
 * selects (1.2-2.7x chlo.erf on XLA CPU in bench/bench_gelu_cdf.py, and
 * GELU's share of a transformer's compiled program). The variable is |x|
 * itself, exact; the divide is applied once, at the end, and read once:
 * XLA CPU does not fuse a divide into more than one reader (a Horner loop
 * in t = 1 / (1 + p|x|) had it written out as a second pass, slower than
 * chlo.erfc). x^2 / 2 is rounded once (0.5 x x), not through a rounded
 * x / sqrt 2: at the saturation point below (x^2 / 2 = 15.4) that is
 * 4.8e-7 relative in exp(-x^2 / 2) at most, less closer in.
 * bench/gelu_accuracy.py gives the GELU error by band against float64,
 * CPU's alongside. */
static const double NCDF_P[] = {0.5, 0.30594417452812195, 0.09089462459087372, 0.01084828469902277,
                                1.4682448181702057e-06};
/* D = (0.5 Q - P) / a: for x > 0, P/Q = 0.5 - a D / Q (below). */
static const double NCDF_D[] = {0.3989420235157013, 0.3124212920665741, 0.10232100635766983, 0.01364984642714262};
static const double NCDF_Q[] = {1.0, 1.4097723960876465, 0.8066318035125732, 0.22633858025074005,
                                0.027302628383040428};
#define NCDF_DEG 4
/* |x| past this only needs q -> 0: P/Q of +inf would be inf/inf, NaN,
 * where GELU(+inf) is inf; float32 exp(-x^2/2) is 0 past 14.4. */
#define NCDF_ABS_CLAMP 64.0

static tt_val_t k(tt_graph_t *g, tt_val_t like, double v) { return tt_b_like_f(g, like, v); }
static tt_val_t bin(tt_graph_t *g, tt_binary_t op, tt_val_t x, tt_val_t y) { return tt_b_binary(g, op, x, y); }

/* c[0] + a c[1] + ... + a^deg c[deg], by Horner. */
static tt_val_t poly(tt_graph_t *g, tt_val_t a, const double *c, int deg) {
  tt_val_t r = k(g, a, c[deg]);
  for (int i = deg - 1; i >= 0; i--) r = bin(g, TT_BIN_ADD, bin(g, TT_BIN_MUL, r, a), k(g, a, c[i]));
  return r;
}

/* For x < 0, q's relative error is GELU's: P / Q, no cancellation. For
 * x > 0, Phi = 1 - q and q's absolute error counts, largest near x = 0
 * where q is 0.5: 0.5 - a D / Q keeps the 0.5 out of the rounded Horner
 * loops and divide (P / Q cost 3.8 ulp of GELU there, this 1.5). One
 * divide serves both: the numerator is selected before it. */
static tt_val_t normal_cdf_f32(tt_graph_t *g, tt_val_t x) {
  tt_val_t a = bin(g, TT_BIN_MIN, tt_b_unary(g, TT_UN_ABS, x), k(g, x, NCDF_ABS_CLAMP));
  tt_val_t neg = tt_b_compare(g, TT_CMP_LT, x, k(g, x, 0.0));
  tt_val_t num = tt_b_select(g, neg, poly(g, a, NCDF_P, NCDF_DEG), bin(g, TT_BIN_MUL, a, poly(g, a, NCDF_D, NCDF_DEG - 1)));
  tt_val_t s = bin(g, TT_BIN_DIV, num, poly(g, a, NCDF_Q, NCDF_DEG));
  /* neg ? s : 0.5 - s, with s read once: XLA CPU does not fuse a divide
   * into two readers (it wrote s out as a second pass). */
  tt_val_t r = bin(g, TT_BIN_ADD, tt_b_select(g, neg, k(g, x, 0.0), k(g, x, 0.5)),
                   bin(g, TT_BIN_MUL, tt_b_select(g, neg, k(g, x, 1.0), k(g, x, -1.0)), s));
  tt_val_t w = bin(g, TT_BIN_MUL, bin(g, TT_BIN_MUL, x, x), k(g, x, -0.5));
  tt_val_t q = bin(g, TT_BIN_MUL, tt_b_unary(g, TT_UN_EXP, w), r);
  return tt_b_select(g, neg, q, bin(g, TT_BIN_SUB, k(g, x, 1.0), q));
}

/* In float32, 1 + erf(z) lost its digits for z < -2: GELU(-4.25) came out
 * -4.4742e-5 where float64 gives -4.4855e-5 (0.25% off; CPU's own erff form
 * 0.03%), and an atan2 of it amplified that (graph fuzzer dynamic 8:48).
 * Where CPU's float32 erf is -1 (x / sqrt 2 <= -TT_ERF_F32_SATURATES) its
 * sum is exactly 0 and so is this, as CPU (GELU gives -0 there, and NaN at
 * -inf). Other types (float64) take chlo.erfc. */
tt_val_t tt_ew_normal_cdf(tt_graph_t *g, tt_val_t x) {
  if (x < 0) return -1;
  tt_dtype_t dt = tt_graph_type(g, x)->dtype, ct = tt_op_math_type(dt);
  tt_val_t xc = tt_b_convert(g, x, ct);
  tt_val_t z = bin(g, TT_BIN_MUL, xc, k(g, xc, -0.70710678118654752440));
  if (ct != TT_F32) return tt_b_convert(g, bin(g, TT_BIN_MUL, k(g, z, 0.5), tt_b_unary(g, TT_UN_ERFC, z)), dt);
  tt_val_t c = normal_cdf_f32(g, xc);
  c = tt_b_select(g, tt_b_compare(g, TT_CMP_GE, z, k(g, z, TT_ERF_F32_SATURATES)), k(g, z, 0.0), c);
  return tt_b_convert(g, c, dt);
}
