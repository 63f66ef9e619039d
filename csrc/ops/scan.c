/* Lowerings of the scan family: cummax/cummin (values and indices) and logcumsumexp. */
#include <math.h>
#include <string.h>

#include "ops/common.h"
#include "ops/complex.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/scan.h"

tt_val_t tt_op_scan(tt_graph_t *g, tt_reduce_t kind, tt_val_t x, int dim) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  const tt_type_t *t = tt_graph_type(g, x);
  if (t->rank == 0 || t->dims[dim] <= 1) return x;
  int64_t win[TT_MAX_RANK], st[TT_MAX_RANK], lo[TT_MAX_RANK], hi[TT_MAX_RANK];
  for (int d = 0; d < t->rank; d++) {
    win[d] = d == dim ? t->dims[d] : 1;
    st[d] = 1;
    lo[d] = d == dim ? t->dims[d] - 1 : 0;
    hi[d] = 0;
  }
  return tt_b_reduce_window(g, kind, x, -1, win, st, lo, hi);
}

/* cummax/cummin(self, dim) -> (values, indices). As on CPU, a NaN sticks once
 * seen and the index is the last position holding the current extreme (a
 * later equal value, or a later NaN, takes over). That position is the last
 * j <= i where x[j] equals the running extreme at j, so the indices are a
 * running max of "j where x[j] is the running extreme, else 0". */
static tt_status_t cum_extreme(tt_lower_t *L, int is_max, int write) {
  int rank = tt_l_arg_rank(L, 0);
  int64_t numel = 1, dim_arg = tt_l_int(L, write ? 3 : 1, 0);
  for (int d = 0; d < rank; d++) numel *= tt_l_arg_sizes(L, 0)[d];
  if (!write && rank == 0 && dim_arg != 0 && dim_arg != -1) /* CPU's zero_numel_check_dims for a scalar */
    return tt_status_make(TT_INDEX_ERROR, "%s(): Expected reduction dim -1 or 0 for scalar but got %lld", is_max ? "cummax" : "cummin",
                          (long long)dim_arg);
  /* CPU wraps dim only for a nonempty input (an empty one is returned whatever dim says) */
  int dim = write || numel > 0 ? tt_op_wrap_dim(L, dim_arg, rank) : 0;
  tt_graph_t *g = L->g;
  if (tt_graph_failed(g)) return NULL;
  tt_val_t x = tt_l_tensor(L, 0);
  tt_val_t vals, idx;
  if (rank == 0) {
    vals = x;
    idx = tt_b_const_i(g, TT_I64, 0);
  } else if (numel == 0) {
    vals = x;
    idx = tt_b_full_i(g, TT_I64, rank, tt_l_arg_sizes(L, 0), 0);
  } else {
    const int64_t *sz = tt_l_arg_sizes(L, 0);
    tt_dtype_t dt = tt_l_arg_dtype(L, 0);
    tt_val_t v = dt == TT_BOOL ? tt_b_convert(g, x, TT_I32) : x;
    vals = tt_op_scan(g, is_max ? TT_RED_MAX : TT_RED_MIN, v, dim);
    tt_val_t hit = tt_b_compare(g, TT_CMP_EQ, v, vals);
    if (tt_dtype_is_float(dt)) {
      tt_val_t nan = tt_b_compare(g, TT_CMP_NE, v, v);
      tt_val_t seen = tt_op_scan(g, TT_RED_OR, nan, dim);
      vals = tt_b_select(g, seen, tt_b_like_f(g, vals, NAN), vals);
      /* Before the first NaN: the running extreme; after: only NaNs take over. */
      hit = tt_b_select(g, seen, nan, tt_b_compare(g, TT_CMP_EQ, v, vals));
    }
    if (dt == TT_BOOL) vals = tt_b_convert(g, vals, TT_BOOL);
    tt_val_t iota = tt_b_iota(g, TT_I64, rank, sz, dim);
    idx = tt_op_scan(g, TT_RED_MAX, tt_b_select(g, hit, iota, tt_b_like_f(g, iota, 0)), dim);
  }
  if (write) {
    tt_l_write(L, 1, 0, vals);
    tt_l_write(L, 2, 0, idx);
  } else {
    tt_l_output(L, vals);
    tt_l_output(L, idx);
  }
  return NULL;
}
/* A complex self: CPU's cummax/cummin return a 0-dim or empty one before
 * their kernel dispatches (fuzz 131:371: cummax of a 0-dim complex128 is
 * (self, 0)); others are refused as its dispatch refuses them, once dim is
 * checked. */
static tt_status_t cum_extreme_complex(tt_lower_t *L, int is_max) {
  int rank = tt_l_arg_rank(L, 0);
  int64_t numel = 1;
  for (int d = 0; d < rank; d++) numel *= tt_l_arg_sizes(L, 0)[d];
  if (rank == 0 || numel == 0) return cum_extreme(L, is_max, 0);
  tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  if (tt_graph_failed(L->g)) return NULL;
  return tt_op_refuse_dtype(tt_l_arg_dtype(L, 0), "%s", is_max ? "cummax_cpu" : "cummin_cpu");
}
static tt_status_t cummax_complex(tt_lower_t *L) { return cum_extreme_complex(L, 1); }
static tt_status_t cummin_complex(tt_lower_t *L) { return cum_extreme_complex(L, 0); }
static tt_status_t lower_cummax(tt_lower_t *L) { return cum_extreme(L, 1, 0); }
static tt_status_t lower_cummin(tt_lower_t *L) { return cum_extreme(L, 0, 0); }
static tt_status_t lower_cummax_helper(tt_lower_t *L) { return cum_extreme(L, 1, 1); }
static tt_status_t lower_cummin_helper(tt_lower_t *L) { return cum_extreme(L, 0, 1); }

/* log(exp(a) + exp(b)) without overflow; equal infinities give themselves
 * (not inf - inf = NaN) and NaN propagates. */
static tt_val_t log_add_exp(tt_graph_t *g, tt_val_t a, tt_val_t b) {
  tt_val_t mx = tt_b_binary(g, TT_BIN_MAX, a, b), mn = tt_b_binary(g, TT_BIN_MIN, a, b);
  tt_val_t r = tt_b_binary(g, TT_BIN_ADD, mx,
                           tt_b_unary(g, TT_UN_LOG1P, tt_b_unary(g, TT_UN_EXP, tt_b_binary(g, TT_BIN_SUB, mn, mx))));
  tt_val_t inf_tie = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_EQ, mn, mx),
                                 tt_b_unary(g, TT_UN_NOT, tt_b_unary(g, TT_UN_IS_FINITE, mx)));
  r = tt_b_select(g, inf_tie, mx, r);
  r = tt_b_select(g, tt_b_compare(g, TT_CMP_NE, b, b), b, r);
  return tt_b_select(g, tt_b_compare(g, TT_CMP_NE, a, a), a, r);
}

/* _logcumsumexp(self, dim): a log-depth (Hillis-Steele) scan of log_add_exp,
 * so small terms are never lost to a global shift. The scan runs in CPU's
 * accumulation type (float64 for float32, float32 for half types) and rounds
 * once: with large inputs (|x| ~ 1e4, ulp ~ 1e-3) float32 steps lose enough
 * that exp(lcse(...) + x) in the backward formula differs from CPU by 1e-3. */
static tt_status_t lower_logcumsumexp(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  tt_graph_t *g = L->g;
  if (tt_graph_failed(g)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_float(dt))
    return tt_op_refuse_dtype(dt, "logcumsumexp_out_cpu");
  tt_dtype_t ct = dt == TT_F32 ? TT_F64 : tt_op_math_type(dt);
  tt_val_t y = tt_b_convert(g, tt_l_tensor(L, 0), ct);
  int64_t n = rank ? tt_l_arg_sizes(L, 0)[dim] : 1;
  for (int64_t s = 1; s < n; s *= 2) {
    int64_t lo[TT_MAX_RANK] = {0}, hi[TT_MAX_RANK] = {0}, in[TT_MAX_RANK] = {0};
    lo[dim] = s;
    tt_val_t head = tt_b_slice_dim(g, y, dim, 0, n - s, 1);
    tt_val_t shifted = tt_b_pad(g, head, tt_b_const_f(g, ct, -INFINITY), lo, hi, in);
    y = log_add_exp(g, y, shifted);
  }
  tt_l_output(L, tt_b_convert(g, y, dt));
  return NULL;
}

const tt_op_def_t tt_ops_scan[] = {
    {"cummax", lower_cummax, 0, .complex = cummax_complex},
    {"cummin", lower_cummin, 0, .complex = cummin_complex},
    {"_cummax_helper", lower_cummax_helper, 0},
    {"_cummin_helper", lower_cummin_helper, 0},
    {"_logcumsumexp", lower_logcumsumexp, 0, .complex = tt_complex_logcumsumexp},
    {NULL, NULL, 0},
};
