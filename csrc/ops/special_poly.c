/* Orthogonal polynomials special.{,shifted_}chebyshev_polynomial_{t,u,v,w},
 * hermite_polynomial_{h,he}, laguerre_polynomial_l, legendre_polynomial_p.
 *
 * They follow PyTorch's CPU kernels: the degree n (a tensor, usually float)
 * is truncated to an integer (non-finite n counts as negative, which CPU's
 * cast gives on x86), the special cases (n < 0, n <= 1, |x| == 1, the
 * trigonometric closed forms of large n inside (-1, 1)) are selected
 * elementwise, and the three-term recurrence runs in a stablehlo.while up to
 * the largest degree in the tensor, each element frozen once it reaches its
 * own n (so every element sees exactly CPU's sequence of operations). */
#include <math.h>

#include "ops/common.h"
#include "ops/families.h"
#include "ops/special.h"

#define NAN_ (0.0 / 0.0)

typedef enum {
  P_CHEB_T, P_CHEB_U, P_CHEB_V, P_CHEB_W,
  P_SCHEB_T, P_SCHEB_U, P_SCHEB_V, P_SCHEB_W,
  P_HERMITE_H, P_HERMITE_HE, P_LAGUERRE, P_LEGENDRE
} poly_t;

static tt_val_t un(tt_graph_t *g, tt_unary_t op, tt_val_t x) { return tt_b_unary(g, op, x); }
static tt_val_t sel(tt_graph_t *g, tt_val_t p, tt_val_t a, tt_val_t b) { return tt_b_select(g, p, a, b); }
static tt_val_t cmpv(tt_graph_t *g, tt_cmp_t c, tt_val_t a, tt_val_t b) { return tt_b_compare(g, c, a, b); }

/* acos(x) = atan2(sqrt((1 - x)(1 + x)), x): no acos in the IR. */
static tt_val_t acos_(tt_graph_t *g, tt_val_t x) {
  tt_val_t one = tt_sp_c(g, x, 1);
  tt_val_t s = un(g, TT_UN_SQRT, tt_sp_mul(g, tt_sp_sub(g, one, x), tt_sp_add(g, one, x)));
  return tt_b_binary(g, TT_BIN_ATAN2, s, x);
}

/* One recurrence step r(k, p, q); k is the degree counter of CPU's loop. */
static tt_val_t step(tt_graph_t *g, poly_t kind, tt_val_t x, tt_val_t k, tt_val_t p, tt_val_t q) {
  tt_val_t one = tt_sp_c(g, x, 1);
  switch (kind) {
  case P_HERMITE_H: return tt_sp_sub(g, tt_sp_mul(g, tt_sp_add(g, x, x), q), tt_sp_mul(g, k, p));
  case P_HERMITE_HE: return tt_sp_sub(g, tt_sp_mul(g, x, q), tt_sp_mul(g, k, p));
  case P_LAGUERRE:
    return tt_sp_div(g, tt_sp_sub(g, tt_sp_mul(g, tt_sp_add(g, tt_sp_add(g, k, k), tt_sp_sub(g, one, x)), q), tt_sp_mul(g, k, p)),
                     tt_sp_add(g, k, one));
  case P_LEGENDRE:
    return tt_sp_div(g, tt_sp_sub(g, tt_sp_mul(g, tt_sp_mul(g, tt_sp_add(g, tt_sp_add(g, k, k), one), x), q), tt_sp_mul(g, k, p)),
                     tt_sp_add(g, k, one));
  default: /* Chebyshev kinds: x here is already the shifted argument. */
    return tt_sp_sub(g, tt_sp_mul(g, tt_sp_add(g, x, x), q), p);
  }
}

/* Runs steps j = 1 .. while some element has j < n (and a non-NaN q, as CPU
 * stops on NaN; NaN stays NaN anyway). k = j + 1 for Chebyshev, 2j for
 * Hermite H, j otherwise. Returns the final q. */
static tt_val_t recurrence(tt_graph_t *g, poly_t kind, tt_val_t x, tt_val_t n, tt_val_t need, tt_val_t q0) {
  const tt_type_t *ty = tt_graph_type(g, x);
  int rank = ty->rank;
  int64_t dims[TT_MAX_RANK], rdims[TT_MAX_RANK];
  for (int d = 0; d < rank; d++) dims[d] = ty->dims[d], rdims[d] = d;
  tt_val_t nmax = tt_b_reduce(g, TT_RED_MAX, sel(g, need, n, tt_b_full_i(g, TT_I64, rank, dims, 0)), rank, rdims);
  tt_loop_t lp;
  tt_val_t c[3], init[3] = {tt_b_const_i(g, TT_I64, 1), tt_sp_c(g, x, 1), q0};
  tt_b_while_begin(g, &lp, 3, init, c);
  /* Also stop once every element still below its n holds NaN (CPU's loop
   * stops there too), so a huge n with |x| > 1 does not spin. */
  tt_val_t live = tt_sp_and(g, cmpv(g, TT_CMP_LT, tt_b_broadcast_to(g, c[0], rank, dims), n), tt_sp_and(g, need, cmpv(g, TT_CMP_EQ, c[2], c[2])));
  tt_val_t any = tt_b_reduce(g, TT_RED_OR, live, rank, rdims);
  tt_b_while_body(g, &lp, tt_sp_and(g, cmpv(g, TT_CMP_LT, c[0], nmax), any), c);
  tt_val_t j = c[0], p = c[1], q = c[2];
  int64_t koff = kind <= P_SCHEB_W ? 1 : 0;
  tt_val_t kk = kind == P_HERMITE_H ? tt_b_binary(g, TT_BIN_ADD, j, j) : tt_b_binary(g, TT_BIN_ADD, j, tt_b_const_i(g, TT_I64, koff));
  tt_val_t k = tt_b_broadcast_to(g, tt_b_convert(g, kk, ty->dtype), rank, dims);
  tt_val_t r = step(g, kind, x, k, p, q);
  tt_val_t active = cmpv(g, TT_CMP_LT, tt_b_broadcast_to(g, j, rank, dims), n);
  tt_val_t next[3] = {tt_b_binary(g, TT_BIN_ADD, j, tt_b_const_i(g, TT_I64, 1)), sel(g, active, q, p), sel(g, active, r, q)};
  tt_val_t res[3];
  tt_b_while_end(g, &lp, next, res);
  return res[2];
}

static tt_val_t int_c(tt_graph_t *g, tt_val_t n, int64_t v) { return tt_b_full_i(g, TT_I64, tt_graph_type(g, n)->rank, tt_graph_type(g, n)->dims, v); }
static tt_val_t n_is(tt_graph_t *g, tt_cmp_t c, tt_val_t n, int64_t v) { return cmpv(g, c, n, int_c(g, n, v)); }
static tt_val_t n_even(tt_graph_t *g, tt_val_t n) {
  return n_is(g, TT_CMP_EQ, tt_b_binary(g, TT_BIN_REM, n, int_c(g, n, 2)), 0);
}

/* Chebyshev kinds (shifted ones get y = 2x - 1 and their own thresholds). */
static tt_val_t chebyshev(tt_graph_t *g, poly_t kind, tt_val_t x, tt_val_t n, tt_val_t nf) {
  int shifted = kind >= P_SCHEB_T;
  int base = shifted ? kind - P_SCHEB_T : kind; /* 0 t, 1 u, 2 v, 3 w */
  tt_val_t one = tt_sp_c(g, x, 1);
  tt_val_t y = shifted ? tt_sp_sub(g, tt_sp_add(g, x, x), one) : x;
  int thr = shifted ? (base == 3 ? 4 : 6) : (base == 0 ? 6 : 8);
  tt_val_t q1 = base == 0 ? y : base == 1 ? tt_sp_add(g, y, y) : base == 2 ? tt_sp_sub(g, tt_sp_add(g, y, y), one) : tt_sp_add(g, tt_sp_add(g, y, y), one);
  tt_val_t ay = un(g, TT_UN_ABS, y);
  tt_val_t at1 = tt_sp_eq(g, ay, 1), inside = tt_sp_lt(g, ay, 1);
  tt_val_t trig = tt_sp_and(g, n_is(g, TT_CMP_GT, n, thr), inside);
  tt_val_t need = un(g, TT_UN_NOT, tt_sp_or(g, trig, at1));
  tt_val_t r = recurrence(g, kind, y, n, need, q1);
  r = sel(g, n_is(g, TT_CMP_EQ, n, 0), one, r);
  /* Closed forms through theta = acos y. */
  tt_val_t th = acos_(g, y);
  tt_val_t n1 = tt_sp_add(g, nf, one), n2 = tt_sp_add(g, tt_sp_add(g, nf, nf), one);
  tt_val_t nh = tt_sp_add(g, nf, tt_sp_c(g, x, 0.5)), half = tt_sp_mul(g, th, tt_sp_c(g, x, 0.5));
  tt_val_t even = n_even(g, n), pos = tt_sp_gt(g, y, 0);
  tt_val_t sgn_n1 = sel(g, tt_sp_or(g, pos, even), n1, un(g, TT_UN_NEG, n1));
  tt_val_t sgn_n2 = sel(g, even, n2, un(g, TT_UN_NEG, n2));
  tt_val_t sgn_1 = sel(g, even, one, un(g, TT_UN_NEG, one));
  tt_val_t tv, ev;
  switch (base) {
  case 0:
    tv = un(g, TT_UN_COS, tt_sp_mul(g, nf, th));
    ev = sel(g, tt_sp_or(g, pos, even), one, un(g, TT_UN_NEG, one));
    break;
  case 1: {
    tt_val_t s = un(g, TT_UN_SIN, th);
    tv = sel(g, tt_sp_eq(g, s, 0), tt_sp_div(g, tt_sp_mul(g, n1, un(g, TT_UN_COS, tt_sp_mul(g, n1, th))), y),
             tt_sp_div(g, un(g, TT_UN_SIN, tt_sp_mul(g, n1, th)), s));
    ev = sgn_n1;
    break;
  }
  case 2:
    tv = sel(g, tt_sp_eq(g, un(g, TT_UN_SIN, half), 1), sgn_n2,
             tt_sp_div(g, un(g, TT_UN_COS, tt_sp_mul(g, nh, th)), un(g, TT_UN_COS, half)));
    ev = sel(g, pos, one, sgn_n2);
    break;
  default:
    tv = sel(g, tt_sp_eq(g, un(g, TT_UN_COS, half), 1), sel(g, pos, n2, sgn_1),
             tt_sp_div(g, un(g, TT_UN_SIN, tt_sp_mul(g, nh, th)), un(g, TT_UN_SIN, half)));
    ev = sel(g, pos, n2, sgn_1);
    break;
  }
  r = sel(g, trig, tv, r);
  return sel(g, at1, ev, r);
}

static tt_val_t poly(tt_graph_t *g, poly_t kind, tt_val_t x, tt_val_t nraw, double hermite_limit) {
  /* CPU casts n to int64: truncation; NaN, inf and out-of-range give INT64_MIN. */
  tt_val_t ok = tt_sp_and(g, un(g, TT_UN_IS_FINITE, nraw), tt_sp_lt(g, un(g, TT_UN_ABS, nraw), 9.2e18));
  tt_val_t n = tt_b_convert(g, tt_sp_where_c(g, un(g, TT_UN_NOT, ok), -1, nraw), TT_I64);
  tt_val_t nf = tt_b_convert(g, n, tt_graph_type(g, x)->dtype);
  tt_val_t one = tt_sp_c(g, x, 1), r;
  if (kind <= P_SCHEB_W) {
    r = chebyshev(g, kind, x, n, nf);
  } else {
    tt_val_t q1 = kind == P_HERMITE_H ? tt_sp_add(g, x, x) : kind == P_HERMITE_HE ? x
                  : kind == P_LAGUERRE ? tt_sp_sub(g, one, x) : x;
    tt_val_t need = n_is(g, TT_CMP_GE, n, 2);
    if (kind == P_HERMITE_H || kind == P_HERMITE_HE)
      need = tt_sp_and(g, need, n_is(g, TT_CMP_LE, n, (int64_t)hermite_limit));
    r = recurrence(g, kind, x, n, need, q1);
    if (kind == P_HERMITE_H || kind == P_HERMITE_HE)
      r = tt_sp_where_c(g, n_is(g, TT_CMP_GT, n, (int64_t)hermite_limit), NAN_, r);
    r = sel(g, n_is(g, TT_CMP_EQ, n, 0), one, r);
    if (kind == P_LAGUERRE) r = sel(g, tt_sp_eq(g, un(g, TT_UN_ABS, x), 0), one, r);
    if (kind == P_LEGENDRE) {
      tt_val_t ev = sel(g, tt_sp_or(g, tt_sp_gt(g, x, 0), n_even(g, n)), one, un(g, TT_UN_NEG, one));
      r = sel(g, tt_sp_eq(g, un(g, TT_UN_ABS, x), 1), ev, r);
    }
  }
  return tt_sp_where_c(g, n_is(g, TT_CMP_LT, n, 0), 0, r);
}

static tt_status_t lower_poly(tt_lower_t *L, poly_t kind) {
  int argi[2] = {0, 1};
  tt_dtype_t out = tt_op_float_type(L, tt_op_result_type(L, argi, 2));
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 2, dims);
  tt_dtype_t ct = tt_op_math_type(out);
  tt_val_t x = tt_op_operand(L, 0, ct, rank, dims), n = tt_op_operand(L, 1, ct, rank, dims);
  if (x < 0 || n < 0) return NULL;
  /* CPU's Hermite kernels give NaN above degree 128 (float), 512 (double). */
  double limit = ct == TT_F64 ? 512 : 128;
  tt_l_output(L, tt_b_convert(L->g, poly(L->g, kind, x, n, limit), out));
  return NULL;
}

#define POLY_FN(fn, kind) \
  static tt_status_t fn(tt_lower_t *L) { return lower_poly(L, kind); }
POLY_FN(l_cheb_t, P_CHEB_T)
POLY_FN(l_cheb_u, P_CHEB_U)
POLY_FN(l_cheb_v, P_CHEB_V)
POLY_FN(l_cheb_w, P_CHEB_W)
POLY_FN(l_scheb_t, P_SCHEB_T)
POLY_FN(l_scheb_u, P_SCHEB_U)
POLY_FN(l_scheb_v, P_SCHEB_V)
POLY_FN(l_scheb_w, P_SCHEB_W)
POLY_FN(l_herm_h, P_HERMITE_H)
POLY_FN(l_herm_he, P_HERMITE_HE)
POLY_FN(l_laguerre, P_LAGUERRE)
POLY_FN(l_legendre, P_LEGENDRE)

#define POLY_OPS(name, fn) {name, fn, 0}, {name ".x_scalar", fn, 0}, {name ".n_scalar", fn, 0}
const tt_op_def_t tt_ops_special_poly[] = {
    POLY_OPS("special_chebyshev_polynomial_t", l_cheb_t),
    POLY_OPS("special_chebyshev_polynomial_u", l_cheb_u),
    POLY_OPS("special_chebyshev_polynomial_v", l_cheb_v),
    POLY_OPS("special_chebyshev_polynomial_w", l_cheb_w),
    POLY_OPS("special_shifted_chebyshev_polynomial_t", l_scheb_t),
    POLY_OPS("special_shifted_chebyshev_polynomial_u", l_scheb_u),
    POLY_OPS("special_shifted_chebyshev_polynomial_v", l_scheb_v),
    POLY_OPS("special_shifted_chebyshev_polynomial_w", l_scheb_w),
    POLY_OPS("special_hermite_polynomial_h", l_herm_h),
    POLY_OPS("special_hermite_polynomial_he", l_herm_he),
    POLY_OPS("special_laguerre_polynomial_l", l_laguerre),
    POLY_OPS("special_legendre_polynomial_p", l_legendre),
    {NULL, NULL, 0},
};
