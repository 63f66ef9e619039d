/* Regularized incomplete gamma functions igamma(a, x) = P(a, x) and
 * igammac(a, x) = Q(a, x) (torch.special.gammainc / gammaincc).
 *
 * PyTorch's CPU kernel (after Cephes / SciPy) picks per element among the
 * power series of P, the series of Q for small x and the continued fraction
 * of Q, with SciPy's boundary values. Each of the three runs here as a
 * stablehlo.while over the whole tensor: an element stops updating once its
 * own stopping test holds (the same test as CPU's), the loop ends when every
 * element that uses that method has stopped, or after CPU's 2000 steps.
 * Not done: CPU's uniform asymptotic expansion for large a near x (a > 20,
 * |x - a| / a < 0.3); there the series / continued fraction are used, which
 * converge to the same value (differences of a few float ulps, far inside
 * OpInfo's 1e-3), and x^a e^-x / Gamma(a) always comes from logarithms. */
#include <math.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/special.h"

#define INF (1.0 / 0.0)
#define NAN_ (0.0 / 0.0)
#define MAXITER 2000

static tt_val_t un(tt_graph_t *g, tt_unary_t op, tt_val_t x) { return tt_b_unary(g, op, x); }
static tt_val_t C(tt_graph_t *g, tt_val_t x, double v) { return tt_sp_c(g, x, v); }
static tt_val_t sel(tt_graph_t *g, tt_val_t p, tt_val_t a, tt_val_t b) { return tt_b_select(g, p, a, b); }
static tt_val_t not_(tt_graph_t *g, tt_val_t p) { return un(g, TT_UN_NOT, p); }

static double machep(tt_graph_t *g, tt_val_t x) {
  return tt_graph_type(g, x)->dtype == TT_F64 ? 1.11022302462515654042E-16 : 5.9604644775390625E-8;
}

/* Loop condition: counter < MAXITER and some element not done. */
static tt_val_t more(tt_graph_t *g, tt_val_t i, tt_val_t done) {
  const tt_type_t *ty = tt_graph_type(g, done);
  int64_t rd[TT_MAX_RANK];
  for (int d = 0; d < ty->rank; d++) rd[d] = d;
  tt_val_t any = tt_b_reduce(g, TT_RED_OR, not_(g, done), ty->rank, rd);
  return tt_sp_and(g, tt_b_compare(g, TT_CMP_LT, i, tt_b_const_i(g, TT_I64, MAXITER)), any);
}
static tt_val_t inc(tt_graph_t *g, tt_val_t i) { return tt_b_binary(g, TT_BIN_ADD, i, tt_b_const_i(g, TT_I64, 1)); }

/* x^a e^-x / Gamma(a), 0 below exp's range (CPU's _igam_helper_fac, log form). */
static tt_val_t fac(tt_graph_t *g, tt_val_t a, tt_val_t x) {
  tt_val_t ax = tt_sp_sub(g, tt_sp_sub(g, tt_sp_mul(g, a, un(g, TT_UN_LOG, x)), x), un(g, TT_UN_LGAMMA, a));
  double maxlog = tt_graph_type(g, x)->dtype == TT_F64 ? 7.09782712893383996843E2 : 88.72283905206835;
  return tt_sp_where_c(g, tt_sp_lt(g, ax, -maxlog), 0, un(g, TT_UN_EXP, ax));
}

/* P(a, x) by its power series (DLMF 8.11.4); elements outside `use` start done. */
static tt_val_t igam_series(tt_graph_t *g, tt_val_t a, tt_val_t x, tt_val_t use) {
  tt_val_t ax = fac(g, a, x);
  tt_loop_t lp;
  tt_val_t c[5], init[5] = {tt_b_const_i(g, TT_I64, 0), not_(g, use), a, C(g, x, 1), C(g, x, 1)};
  tt_b_while_begin(g, &lp, 5, init, c);
  tt_b_while_body(g, &lp, more(g, c[0], c[1]), c);
  tt_val_t on = not_(g, c[1]);
  tt_val_t r = tt_sp_add(g, c[2], C(g, x, 1));
  tt_val_t cc = tt_sp_mul(g, c[3], tt_sp_div(g, x, r));
  tt_val_t ans = tt_sp_add(g, c[4], cc);
  tt_val_t stop = tt_b_compare(g, TT_CMP_LE, cc, tt_sp_mul(g, C(g, x, machep(g, x)), ans));
  tt_val_t next[5] = {inc(g, c[0]), tt_sp_or(g, c[1], stop), sel(g, on, r, c[2]), sel(g, on, cc, c[3]), sel(g, on, ans, c[4])};
  tt_val_t res[5];
  tt_b_while_end(g, &lp, next, res);
  tt_val_t v = tt_sp_div(g, tt_sp_mul(g, res[4], ax), a);
  return tt_sp_where_c(g, tt_sp_eq(g, ax, 0), 0, v);
}

/* Q(a, x) for small x (DLMF 8.7.3). */
static tt_val_t igamc_series(tt_graph_t *g, tt_val_t a, tt_val_t x, tt_val_t use) {
  tt_loop_t lp;
  tt_val_t c[5], init[5] = {tt_b_const_i(g, TT_I64, 1), not_(g, use), C(g, x, 1), C(g, x, 0), C(g, x, 1)};
  tt_b_while_begin(g, &lp, 5, init, c);
  tt_b_while_body(g, &lp, more(g, c[0], c[1]), c);
  tt_val_t on = not_(g, c[1]);
  tt_val_t n = c[4];
  tt_val_t f = tt_sp_mul(g, c[2], tt_sp_div(g, un(g, TT_UN_NEG, x), n));
  tt_val_t term = tt_sp_div(g, f, tt_sp_add(g, a, n));
  tt_val_t sum = tt_sp_add(g, c[3], term);
  tt_val_t stop = tt_b_compare(g, TT_CMP_LE, un(g, TT_UN_ABS, term), tt_sp_mul(g, C(g, x, machep(g, x)), un(g, TT_UN_ABS, sum)));
  tt_val_t next[5] = {inc(g, c[0]), tt_sp_or(g, c[1], stop), sel(g, on, f, c[2]), sel(g, on, sum, c[3]),
                      tt_sp_add(g, n, C(g, x, 1))};
  tt_val_t res[5];
  tt_b_while_end(g, &lp, next, res);
  tt_val_t lx = un(g, TT_UN_LOG, x);
  tt_val_t t = un(g, TT_UN_NEG, un(g, TT_UN_EXPM1, tt_sp_sub(g, tt_sp_mul(g, a, lx), un(g, TT_UN_LGAMMA, tt_sp_add(g, a, C(g, x, 1))))));
  return tt_sp_sub(g, t, tt_sp_mul(g, un(g, TT_UN_EXP, tt_sp_sub(g, tt_sp_mul(g, a, lx), un(g, TT_UN_LGAMMA, a))), res[3]));
}

/* Q(a, x) by its continued fraction (DLMF 8.9.2), rescaled as CPU does. */
enum { CF_I, CF_DONE, CF_C, CF_Y, CF_Z, CF_PKM2, CF_PKM1, CF_QKM2, CF_QKM1, CF_ANS, CF_N };
static tt_val_t igamc_cf(tt_graph_t *g, tt_val_t a, tt_val_t x, tt_val_t use) {
  int f64 = tt_graph_type(g, x)->dtype == TT_F64;
  double big = f64 ? 4.503599627370496e15 : 16777216., biginv = f64 ? 2.22044604925031308085e-16 : 5.9604644775390625E-8;
  tt_val_t ax = fac(g, a, x);
  tt_val_t one = C(g, x, 1);
  tt_val_t y0 = tt_sp_sub(g, one, a), z0 = tt_sp_add(g, tt_sp_add(g, x, y0), one);
  tt_val_t pkm1 = tt_sp_add(g, x, one), qkm1 = tt_sp_mul(g, z0, x);
  tt_val_t init[CF_N] = {tt_b_const_i(g, TT_I64, 0), not_(g, use), C(g, x, 0), y0, z0, one, pkm1, x, qkm1, tt_sp_div(g, pkm1, qkm1)};
  tt_val_t c[CF_N], next[CF_N], res[CF_N];
  tt_loop_t lp;
  tt_b_while_begin(g, &lp, CF_N, init, c);
  tt_b_while_body(g, &lp, more(g, c[CF_I], c[CF_DONE]), c);
  tt_val_t on = not_(g, c[CF_DONE]);
  tt_val_t cc = tt_sp_add(g, c[CF_C], one), y = tt_sp_add(g, c[CF_Y], one), z = tt_sp_add(g, c[CF_Z], C(g, x, 2));
  tt_val_t yc = tt_sp_mul(g, y, cc);
  tt_val_t pk = tt_sp_sub(g, tt_sp_mul(g, c[CF_PKM1], z), tt_sp_mul(g, c[CF_PKM2], yc));
  tt_val_t qk = tt_sp_sub(g, tt_sp_mul(g, c[CF_QKM1], z), tt_sp_mul(g, c[CF_QKM2], yc));
  tt_val_t qnz = not_(g, tt_sp_eq(g, qk, 0));
  tt_val_t r = tt_sp_div(g, pk, qk);
  tt_val_t t = sel(g, qnz, un(g, TT_UN_ABS, tt_sp_div(g, tt_sp_sub(g, c[CF_ANS], r), r)), one);
  tt_val_t ans = sel(g, qnz, r, c[CF_ANS]);
  tt_val_t scale = sel(g, tt_sp_gt(g, un(g, TT_UN_ABS, pk), big), C(g, x, biginv), one);
  tt_val_t stop = tt_b_compare(g, TT_CMP_LE, t, C(g, x, machep(g, x)));
  next[CF_I] = inc(g, c[CF_I]);
  next[CF_DONE] = tt_sp_or(g, c[CF_DONE], stop);
  next[CF_C] = sel(g, on, cc, c[CF_C]);
  next[CF_Y] = sel(g, on, y, c[CF_Y]);
  next[CF_Z] = sel(g, on, z, c[CF_Z]);
  next[CF_PKM2] = sel(g, on, tt_sp_mul(g, c[CF_PKM1], scale), c[CF_PKM2]);
  next[CF_PKM1] = sel(g, on, tt_sp_mul(g, pk, scale), c[CF_PKM1]);
  next[CF_QKM2] = sel(g, on, tt_sp_mul(g, c[CF_QKM1], scale), c[CF_QKM2]);
  next[CF_QKM1] = sel(g, on, tt_sp_mul(g, qk, scale), c[CF_QKM1]);
  next[CF_ANS] = sel(g, on, ans, c[CF_ANS]);
  tt_b_while_end(g, &lp, next, res);
  return tt_sp_where_c(g, tt_sp_eq(g, ax, 0), 0, tt_sp_mul(g, res[CF_ANS], ax));
}

/* Both functions share the branch choice; lower = 1 gives P, else Q. */
static tt_val_t igamma_common(tt_graph_t *g, tt_val_t a0, tt_val_t x0, int lower) {
  tt_val_t bad = tt_sp_or(g, tt_sp_lt(g, x0, 0), tt_sp_lt(g, a0, 0));
  tt_val_t nan = tt_sp_or(g, tt_sp_isnan(g, x0), tt_sp_isnan(g, a0));
  tt_val_t a_inf = tt_sp_eq(g, a0, INF), x_inf = tt_sp_eq(g, x0, INF);
  tt_val_t edge = tt_sp_or(g, tt_sp_or(g, tt_sp_or(g, bad, nan), tt_sp_or(g, a_inf, x_inf)),
                           tt_sp_or(g, tt_sp_eq(g, a0, 0), tt_sp_eq(g, x0, 0)));
  /* Interior points only reach the loops; edge elements get a = x = 1. */
  tt_val_t a = sel(g, edge, C(g, a0, 1), a0), x = sel(g, edge, C(g, x0, 1), x0);
  tt_val_t inner = not_(g, edge);
  /* Q's own choice: continued fraction (x > 1.1, x >= a), P's series
   * (1 - P) or Q's series. */
  tt_val_t use_cf = tt_sp_and(g, tt_sp_gt(g, x, 1.1), not_(g, tt_b_compare(g, TT_CMP_LT, x, a)));
  tt_val_t small_q = tt_sp_and(g, tt_sp_le(g, x, 0.5),
                               not_(g, tt_b_compare(g, TT_CMP_LT, tt_sp_div(g, C(g, x, -0.4), un(g, TT_UN_LOG, x)), a)));
  tt_val_t mid_q = tt_sp_and(g, tt_sp_and(g, tt_sp_gt(g, x, 0.5), not_(g, tt_sp_gt(g, x, 1.1))),
                             not_(g, tt_b_compare(g, TT_CMP_LT, tt_sp_mul(g, x, C(g, x, 1.1)), a)));
  tt_val_t use_qs = tt_sp_or(g, small_q, mid_q);
  tt_val_t use_ps_q = not_(g, tt_sp_or(g, use_cf, use_qs)); /* Q = 1 - P(series) */
  /* P: 1 - Q when x > 1 and x > a, else its series. */
  tt_val_t p_via_q = tt_sp_and(g, tt_sp_gt(g, x, 1), tt_b_compare(g, TT_CMP_GT, x, a));
  tt_val_t need_ps = lower ? tt_sp_or(g, not_(g, p_via_q), tt_sp_and(g, p_via_q, use_ps_q)) : use_ps_q;
  tt_val_t need_q = lower ? p_via_q : inner;
  tt_val_t ps = igam_series(g, a, x, tt_sp_and(g, inner, need_ps));
  tt_val_t qs = igamc_series(g, a, x, tt_sp_and(g, inner, tt_sp_and(g, need_q, use_qs)));
  tt_val_t cf = igamc_cf(g, a, x, tt_sp_and(g, inner, tt_sp_and(g, need_q, use_cf)));
  tt_val_t one = C(g, x, 1);
  tt_val_t q = sel(g, use_cf, cf, sel(g, use_qs, qs, tt_sp_sub(g, one, ps)));
  tt_val_t r = lower ? sel(g, p_via_q, tt_sp_sub(g, one, q), ps) : q;
  /* SciPy's boundary values, lowest priority first (CPU tests them in the
   * opposite order; NaN only where no boundary value applies). */
  double at_a0 = lower ? 1 : 0, at_x0 = lower ? 0 : 1;
  r = tt_sp_where_c(g, nan, NAN_, r);
  r = sel(g, x_inf, C(g, x, lower ? 1 : 0), r);
  r = sel(g, a_inf, sel(g, x_inf, C(g, x, NAN_), C(g, x, lower ? 0 : 1)), r);
  r = sel(g, tt_sp_eq(g, x0, 0), C(g, x, at_x0), r);
  r = sel(g, tt_sp_eq(g, a0, 0), sel(g, tt_sp_gt(g, x0, 0), C(g, x, at_a0), C(g, x, NAN_)), r);
  return tt_sp_where_c(g, bad, NAN_, r);
}
static tt_val_t f_igamma(tt_graph_t *g, tt_val_t a, tt_val_t x) { return igamma_common(g, a, x, 1); }
static tt_val_t f_igammac(tt_graph_t *g, tt_val_t a, tt_val_t x) { return igamma_common(g, a, x, 0); }

/* CPU's igamma/igammac iterator keeps its operands' common type (no float
 * promotion) and its kernel dispatches on floating types: integral and
 * bool operands are refused after the broadcast's size check
 * ('"igamma_cpu" not implemented for 'Int''; tpu computed them). */
static tt_status_t igamma_checked(tt_lower_t *L, const char *kernel, tt_val_t (*fn)(tt_graph_t *, tt_val_t, tt_val_t)) {
  int argi[2] = {0, 1};
  int64_t dims[TT_MAX_RANK];
  tt_op_broadcast_shape(L, argi, 2, dims);
  if (tt_graph_failed(L->g)) return NULL;
  tt_dtype_t dt = tt_op_result_type(L, argi, 2);
  if (dt != TT_DTYPE_INVALID && !tt_dtype_is_float(dt) && !tt_dtype_is_complex(dt))
    return tt_op_refuse_dtype(dt, "%s", kernel);
  return tt_sp_binary(L, 0, 1, fn);
}
static tt_status_t lower_igamma(tt_lower_t *L) { return igamma_checked(L, "igamma_cpu", f_igamma); }
static tt_status_t lower_igammac(tt_lower_t *L) { return igamma_checked(L, "igammac_cpu", f_igammac); }

const tt_op_def_t tt_ops_special_igamma[] = {
    {"igamma", lower_igamma, 0}, {"igamma_", lower_igamma, TT_OPF_INPLACE},
    {"igammac", lower_igammac, 0}, {"igammac_", lower_igammac, TT_OPF_INPLACE},
    {NULL, NULL, 0},
};
