/* logcumsumexp of complex values, in CPU's order (complex.h). */
#include "ops/common.h"
#include "ops/complex.h"

static tt_val_t re_of(tt_graph_t *g, tt_val_t z) { return tt_b_unary(g, TT_UN_REAL, z); }
static tt_val_t im_of(tt_graph_t *g, tt_val_t z) { return tt_b_unary(g, TT_UN_IMAG, z); }
static tt_val_t is_nan(tt_graph_t *g, tt_val_t x) { return tt_b_compare(g, TT_CMP_NE, x, x); }
static tt_val_t or2(tt_graph_t *g, tt_val_t a, tt_val_t b) { return tt_b_binary(g, TT_BIN_OR, a, b); }
static tt_val_t and2(tt_graph_t *g, tt_val_t a, tt_val_t b) { return tt_b_binary(g, TT_BIN_AND, a, b); }

/* CPU's _log_add_exp_helper(x, acc) for complex values: min and max by real
 * part (a NaN part of acc, then of x, makes that one both); a NaN min gives
 * nan+nanj; equal infinite real parts give min for -inf, log(exp(min) +
 * exp(max)) for +inf; else log1p(exp(min - max)) + max. */
static tt_val_t log_add_exp(tt_graph_t *g, tt_val_t x, tt_val_t y) {
  tt_val_t xr = re_of(g, x), yr = re_of(g, y);
  tt_val_t y_nan = or2(g, is_nan(g, yr), is_nan(g, im_of(g, y))), x_nan = or2(g, is_nan(g, xr), is_nan(g, im_of(g, x)));
  tt_val_t x_lt = tt_b_compare(g, TT_CMP_LT, xr, yr);
  tt_val_t mn = tt_b_select(g, y_nan, y, tt_b_select(g, x_nan, x, tt_b_select(g, x_lt, x, y)));
  tt_val_t mx = tt_b_select(g, y_nan, y, tt_b_select(g, x_nan, x, tt_b_select(g, x_lt, y, x)));
  tt_val_t mnr = re_of(g, mn), mxr = re_of(g, mx);
  tt_val_t r = tt_b_binary(g, TT_BIN_ADD, tt_cx_log1p(g, tt_cx_exp(g, tt_b_binary(g, TT_BIN_SUB, mn, mx))), mx);
  tt_val_t inf_tie = and2(g, tt_b_unary(g, TT_UN_NOT, tt_b_unary(g, TT_UN_IS_FINITE, mnr)), tt_b_compare(g, TT_CMP_EQ, mnr, mxr));
  tt_val_t pos = tt_cx_log(g, tt_b_binary(g, TT_BIN_ADD, tt_cx_exp(g, mn), tt_cx_exp(g, mx)));
  tt_val_t tie = tt_b_select(g, tt_b_compare(g, TT_CMP_LT, mnr, tt_b_like_f(g, mnr, 0.0)), mn, pos);
  r = tt_b_select(g, inf_tie, tie, r);
  tt_val_t mn_nan = or2(g, is_nan(g, mnr), is_nan(g, im_of(g, mn)));
  tt_val_t nan = tt_b_like_f(g, mnr, 0.0 / 0.0);
  return tt_b_select(g, mn_nan, tt_b_binary(g, TT_BIN_COMPLEX, nan, nan), r);
}

/* _logcumsumexp(self, dim) of a complex self: CPU's running sum, one step
 * per index along dim from a -inf start, in complex128 (its accumulation
 * type for both complex types), rounded once. The order matters: each step
 * adds arg(1 + exp(min - max)) to an imaginary part, so a log-depth scan
 * could land on another branch (2 pi apart). The loop runs n steps of
 * slices (dynamic_slice / dynamic_update_slice), n the size of dim. */
tt_status_t tt_complex_logcumsumexp(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  int rank = tt_l_arg_rank(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  if (tt_graph_failed(g)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), TT_C128);
  if (x < 0) return NULL;
  int64_t dims[TT_MAX_RANK], one[TT_MAX_RANK];
  int r = rank ? rank : 1; /* a 0-dim self scans as [1] */
  for (int d = 0; d < r; d++) dims[d] = rank ? tt_l_arg_sizes(L, 0)[d] : 1, one[d] = dims[d];
  if (!rank) x = tt_b_reshape(g, x, 1, dims), dim = 0;
  int64_t n = dims[dim];
  one[dim] = 1;
  tt_val_t y = x;
  if (n > 0) {
    tt_val_t init[2] = {tt_b_broadcast_to(g, tt_b_const_f(g, TT_C128, -1.0 / 0.0), r, one), x}, i, c[2], res[2];
    tt_val_t zero = tt_b_const_i(g, TT_I64, 0);
    tt_loop_t lp;
    tt_b_for_begin(g, &lp, 0, n, 2, init, &i, c);
    tt_val_t starts[TT_MAX_RANK];
    for (int d = 0; d < r; d++) starts[d] = d == dim ? i : zero;
    tt_val_t acc = log_add_exp(g, tt_b_dslice(g, x, starts, one), c[0]);
    tt_val_t next[2] = {acc, tt_b_dus_v(g, c[1], acc, starts)};
    tt_b_for_end(g, &lp, next, res);
    y = res[1];
  }
  if (!rank) y = tt_b_reshape(g, y, 0, dims);
  tt_l_output(L, tt_b_convert(g, y, dt));
  return NULL;
}
