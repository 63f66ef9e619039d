/* Lowerings of histograms: histc and histogram (bin count or bin edges).
 * Each element's bin is computed on device and counts are scatter-added, so
 * shapes stay static; a range taken from the data is its min/max on device. */
#include <math.h>
#include <string.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"

/* self flattened to [n] in its float type. */
static tt_val_t flat_input(tt_lower_t *L, int64_t *n) {
  int r = tt_l_arg_rank(L, 0);
  const int64_t *sz = tt_l_arg_sizes(L, 0);
  *n = 1;
  for (int d = 0; d < r; d++) *n *= sz[d];
  return tt_b_reshape(L->g, tt_l_tensor(L, 0), 1, n);
}

/* hist[bins] += w[k] at pos[k] for the elements with keep[k]. */
static tt_val_t accumulate(tt_graph_t *g, tt_val_t pos, tt_val_t keep, tt_val_t w, int64_t n, int64_t bins) {
  tt_val_t zero = tt_b_full_i(g, TT_I64, 1, &n, 0);
  pos = tt_b_select(g, keep, pos, zero);
  w = tt_b_select(g, keep, w, tt_b_like_f(g, w, 0));
  int64_t cd[2] = {n, 1};
  tt_scatter_dims_t sd;
  memset(&sd, 0, sizeof sd);
  sd.n_inserted = 1;
  sd.n_to_operand = 1;
  tt_dtype_t dt = tt_graph_type(g, w)->dtype;
  return tt_b_scatter(g, TT_RED_SUM, tt_b_full_f(g, dt, 1, &bins, 0), tt_b_reshape(g, pos, 2, cd), w, &sd);
}

/* The outer edges as rank-0 values of dt: the given range, or the data's
 * min/max when the range is empty (min == max), widened by `widen` on each
 * side when they still coincide; NaN elements do not count towards the range. */
static void outer_edges(tt_graph_t *g, tt_val_t x, tt_dtype_t dt, int64_t n, double lo, double hi, int from_data,
                        double widen, tt_val_t *out_lo, tt_val_t *out_hi) {
  tt_val_t a = tt_b_const_f(g, dt, lo), b = tt_b_const_f(g, dt, hi);
  if (from_data && n > 0) {
    int64_t d0 = 0;
    a = tt_b_reduce(g, TT_RED_MIN, x, 1, &d0);
    b = tt_b_reduce(g, TT_RED_MAX, x, 1, &d0);
  }
  tt_val_t same = tt_b_compare(g, TT_CMP_EQ, a, b);
  *out_lo = tt_b_select(g, same, tt_b_binary(g, TT_BIN_SUB, a, tt_b_const_f(g, dt, widen)), a);
  *out_hi = tt_b_select(g, same, tt_b_binary(g, TT_BIN_ADD, b, tt_b_const_f(g, dt, widen)), b);
}

/* Bin of each x by linear interpolation, as CPU's kernel computes it (in the
 * input's type): (x - lo) * bins / (hi - lo), the top edge in the last bin. */
static tt_val_t interp_pos(tt_graph_t *g, tt_val_t x, tt_val_t lo, tt_val_t hi, int64_t n, int64_t bins) {
  tt_dtype_t dt = tt_graph_type(g, x)->dtype;
  int64_t nb[1] = {n}, e[1] = {0};
  (void)e;
  tt_val_t lob = tt_b_broadcast(g, lo, 1, nb, NULL), hib = tt_b_broadcast(g, hi, 1, nb, NULL);
  tt_val_t num = tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_SUB, x, lob), tt_b_full_f(g, dt, 1, nb, (double)bins));
  tt_val_t pos = tt_b_convert(g, tt_b_binary(g, TT_BIN_DIV, num, tt_b_binary(g, TT_BIN_SUB, hib, lob)), TT_I64);
  return tt_b_binary(g, TT_BIN_MIN, pos, tt_b_full_i(g, TT_I64, 1, nb, bins - 1));
}

static tt_val_t in_range(tt_graph_t *g, tt_val_t x, tt_val_t lo, tt_val_t hi, int64_t n) {
  int64_t nb[1] = {n};
  tt_val_t lob = tt_b_broadcast(g, lo, 1, nb, NULL), hib = tt_b_broadcast(g, hi, 1, nb, NULL);
  return tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_GE, x, lob), tt_b_compare(g, TT_CMP_LE, x, hib));
}

/* histc of an integer tensor, as CUDA computes it (CPU refuses integers; the
 * grouped mixture-of-experts code of transformers calls it on every device
 * but CPU): the range is min/max truncated to integers (the data's min/max when
 * they are equal, widened by one when those coincide), each element's bin is
 * (x - lo) * bins / (hi - lo) in 64-bit integer arithmetic, the top edge in
 * the last bin, and the counts have the input's dtype. */
static tt_status_t lower_histc_int(tt_lower_t *L, int64_t bins, double mn, double mx) {
  tt_graph_t *g = L->g;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (bins <= 0) return tt_status_make(TT_INVALID_ARGUMENT, "torch.histc(): bins must be > 0, but got %lld for dim 0", (long long)bins);
  if (isnan(mn) || isnan(mx) || fabs(mn) >= 9.2233720368547758e18 || fabs(mx) >= 9.2233720368547758e18)
    return tt_status_make(TT_INVALID_ARGUMENT, "value cannot be converted to type int64_t without overflow");
  int64_t ilo = (int64_t)trunc(mn), ihi = (int64_t)trunc(mx);
  if (ilo > ihi) return tt_status_make(TT_INVALID_ARGUMENT, "torch.histc: max must be larger than min");
  int64_t n;
  tt_val_t x = flat_input(L, &n);
  if (n == 0) {
    tt_l_output(L, tt_b_full_i(g, dt, 1, &bins, 0));
    return NULL;
  }
  x = tt_b_convert(g, x, TT_I64);
  tt_val_t lo = tt_b_const_i(g, TT_I64, ilo), hi = tt_b_const_i(g, TT_I64, ihi);
  if (ilo == ihi) {
    int64_t d0 = 0;
    lo = tt_b_reduce(g, TT_RED_MIN, x, 1, &d0);
    hi = tt_b_reduce(g, TT_RED_MAX, x, 1, &d0);
  }
  tt_val_t same = tt_b_compare(g, TT_CMP_EQ, lo, hi);
  lo = tt_b_select(g, same, tt_b_binary(g, TT_BIN_SUB, lo, tt_b_const_i(g, TT_I64, 1)), lo);
  hi = tt_b_select(g, same, tt_b_binary(g, TT_BIN_ADD, hi, tt_b_const_i(g, TT_I64, 1)), hi);
  int64_t nb[1] = {n};
  tt_val_t lob = tt_b_broadcast(g, lo, 1, nb, NULL), hib = tt_b_broadcast(g, hi, 1, nb, NULL);
  tt_val_t num = tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_SUB, x, lob), tt_b_full_i(g, TT_I64, 1, nb, bins));
  tt_val_t keep = in_range(g, x, lo, hi, n);
  tt_val_t pos = tt_b_binary(g, TT_BIN_DIV, num, tt_b_binary(g, TT_BIN_SUB, hib, lob));
  pos = tt_b_binary(g, TT_BIN_MIN, pos, tt_b_full_i(g, TT_I64, 1, nb, bins - 1));
  tt_l_output(L, accumulate(g, pos, keep, tt_b_full_i(g, dt, 1, &n, 1), n, bins));
  return NULL;
}

/* histc(self, bins, min, max) */
static tt_status_t lower_histc(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  int64_t bins = tt_l_int(L, 1, 100);
  double mn = tt_l_float(L, 2, 0), mx = tt_l_float(L, 3, 0);
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (tt_dtype_is_int(dt)) return lower_histc_int(L, bins, mn, mx);
  if (!tt_dtype_is_float(dt))
    return tt_op_refuse_dtype(dt, "histogram_cpu");
  if (bins <= 0) return tt_status_make(TT_INVALID_ARGUMENT, "torch.histc(): bins must be > 0, but got %lld for dim 0", (long long)bins);
  if (mn > mx) return tt_status_make(TT_INVALID_ARGUMENT, "torch.histc: max must be larger than min");
  if (isinf(mn) || isinf(mx) || isnan(mn) || isnan(mx))
    return tt_status_make(TT_INVALID_ARGUMENT, "torch.histc: range of [%g, %g] is not finite", mn, mx);
  int64_t n;
  tt_val_t x = flat_input(L, &n);
  if (n == 0) {
    tt_l_output(L, tt_b_full_f(g, dt, 1, &bins, 0));
    return NULL;
  }
  tt_val_t lo, hi;
  outer_edges(g, x, dt, n, mn, mx, mn == mx, 1, &lo, &hi);
  tt_val_t pos = interp_pos(g, x, lo, hi, n, bins);
  tt_l_output(L, accumulate(g, pos, in_range(g, x, lo, hi, n), tt_b_full_f(g, dt, 1, &n, 1), n, bins));
  return NULL;
}

/* Bins by edges e[bins+1]: the number of edges <= x, less one; the top edge
 * belongs to the last bin; x outside [e0, e_last] (or NaN) is dropped. */
static tt_val_t edge_pos(tt_graph_t *g, tt_val_t x, tt_val_t e, int64_t n, int64_t bins, tt_val_t *out_keep) {
  int64_t cd[2] = {n, bins + 1}, b0 = 0, b1 = 1;
  tt_val_t le = tt_b_compare(g, TT_CMP_LE, tt_b_broadcast(g, e, 2, cd, &b1), tt_b_broadcast(g, x, 2, cd, &b0));
  tt_val_t cnt = tt_b_reduce(g, TT_RED_SUM, tt_b_convert(g, le, TT_I64), 1, &b1);
  tt_val_t pos = tt_b_binary(g, TT_BIN_SUB, cnt, tt_b_full_i(g, TT_I64, 1, &n, 1));
  tt_val_t lo = tt_b_slice_dim(g, e, 0, 0, 1, 1), hi = tt_b_slice_dim(g, e, 0, bins, bins + 1, 1);
  int64_t sc[1] = {0};
  (void)sc;
  lo = tt_b_reshape(g, lo, 0, NULL);
  hi = tt_b_reshape(g, hi, 0, NULL);
  *out_keep = in_range(g, x, lo, hi, n);
  return tt_b_binary(g, TT_BIN_MIN, pos, tt_b_full_i(g, TT_I64, 1, &n, bins - 1));
}

/* Outputs hist (optionally a density: hist / (total * bin width)) and edges. */
static void finish(tt_lower_t *L, tt_val_t hist, tt_val_t e, int64_t bins, int density) {
  tt_graph_t *g = L->g;
  if (density) {
    int64_t d0 = 0;
    tt_val_t total = tt_b_reduce(g, TT_RED_SUM, hist, 1, &d0);
    tt_val_t width = tt_b_binary(g, TT_BIN_SUB, tt_b_slice_dim(g, e, 0, 1, bins + 1, 1), tt_b_slice_dim(g, e, 0, 0, bins, 1));
    hist = tt_b_binary(g, TT_BIN_DIV, hist, tt_b_binary(g, TT_BIN_MUL, tt_b_broadcast(g, total, 1, &bins, NULL), width));
  }
  tt_l_output(L, hist);
  tt_l_output(L, e);
}

static tt_val_t weights(tt_lower_t *L, int wi, tt_dtype_t dt, int64_t n) {
  if (tt_l_is_none(L, wi)) return tt_b_full_f(L->g, dt, 1, &n, 1);
  return tt_b_reshape(L->g, tt_b_convert(L->g, tt_l_tensor(L, wi), dt), 1, &n);
}

static tt_status_t check_float(tt_lower_t *L) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_float(dt))
    return tt_op_refuse_dtype(dt, "histogramdd");
  return NULL;
}

/* histogram.bin_ct(self, bins, *, range, weight, density) -> (hist, bin_edges):
 * edges as CPU's linspace over the range (from the data when absent or empty,
 * widened by 0.5 when degenerate), in the input's type. */
static tt_status_t lower_histogram_ct(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  tt_status_t st = check_float(L);
  if (st) return st;
  int64_t bins = tt_l_int(L, 1, 100);
  if (bins <= 0) return tt_status_make(TT_INVALID_ARGUMENT, "torch.histogramdd(): bins must be > 0, but got %lld for dim 0", (long long)bins);
  double mn = 0, mx = 0;
  int from_data = 1;
  const tt_arg_t *ra = &L->args[2];
  if (ra->kind == TT_ARG_FLOATS || ra->kind == TT_ARG_INTS) {
    if (ra->n != 2) return tt_status_make(TT_INVALID_ARGUMENT, "torch.histogramdd(): range should have 2 elements");
    mn = ra->kind == TT_ARG_FLOATS ? ra->floats[0] : (double)ra->ints[0];
    mx = ra->kind == TT_ARG_FLOATS ? ra->floats[1] : (double)ra->ints[1];
    if (mn > mx) return tt_status_make(TT_INVALID_ARGUMENT, "torch.histogramdd(): expected upper bin edge to be greater than lower bin edge for dimension 0");
    from_data = mn == mx;
  }
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  int64_t n;
  tt_val_t x = flat_input(L, &n);
  if (from_data && n == 0) { /* no data and no range: CPU's edges span [0, 1] */
    from_data = 0;
    mn = 0;
    mx = 1;
  }
  tt_val_t lo, hi;
  outer_edges(g, x, dt, n, mn, mx, from_data, 0.5, &lo, &hi);
  /* linspace: the first half counts up from lo, the rest down from hi. */
  int64_t ne = bins + 1;
  tt_val_t i = tt_b_convert(g, tt_b_iota(g, TT_I64, 1, &ne, 0), dt);
  tt_val_t step = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_SUB, hi, lo), tt_b_const_f(g, dt, (double)bins));
  tt_val_t stepb = tt_b_broadcast(g, step, 1, &ne, NULL);
  tt_val_t up = tt_b_binary(g, TT_BIN_ADD, tt_b_broadcast(g, lo, 1, &ne, NULL), tt_b_binary(g, TT_BIN_MUL, stepb, i));
  tt_val_t back = tt_b_binary(g, TT_BIN_SUB, tt_b_full_f(g, dt, 1, &ne, (double)bins), i);
  tt_val_t down = tt_b_binary(g, TT_BIN_SUB, tt_b_broadcast(g, hi, 1, &ne, NULL), tt_b_binary(g, TT_BIN_MUL, stepb, back));
  tt_val_t first = tt_b_compare(g, TT_CMP_LT, tt_b_iota(g, TT_I64, 1, &ne, 0), tt_b_full_i(g, TT_I64, 1, &ne, ne / 2));
  tt_val_t e = tt_b_select(g, first, up, down);
  tt_val_t keep;
  tt_val_t pos = edge_pos(g, x, e, n, bins, &keep);
  tt_val_t hist = accumulate(g, pos, keep, weights(L, 3, dt, n), n, bins);
  finish(L, hist, e, bins, tt_l_bool(L, 4, 0));
  return NULL;
}

/* histogram.bins_tensor(self, bins, *, weight, density) -> (hist, bins) */
static tt_status_t lower_histogram_edges(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  tt_status_t st = check_float(L);
  if (st) return st;
  if (tt_l_arg_rank(L, 1) != 1 || tt_l_arg_sizes(L, 1)[0] < 1)
    return tt_status_make(TT_INVALID_ARGUMENT, "torch.histogramdd(): bins tensor should have one dimension and at least 1 element");
  int64_t bins = tt_l_arg_sizes(L, 1)[0] - 1;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  int64_t n;
  tt_val_t x = flat_input(L, &n);
  tt_val_t e = tt_b_convert(g, tt_l_tensor(L, 1), dt);
  if (bins == 0) {
    tt_l_output(L, tt_b_full_f(g, dt, 1, &bins, 0));
    tt_l_output(L, e);
    return NULL;
  }
  tt_val_t keep;
  tt_val_t pos = edge_pos(g, x, e, n, bins, &keep);
  finish(L, accumulate(g, pos, keep, weights(L, 2, dt, n), n, bins), e, bins, tt_l_bool(L, 3, 0));
  return NULL;
}

const tt_op_def_t tt_ops_histogram[] = {
    {"histc", lower_histc, 0},
    {"histogram.bin_ct", lower_histogram_ct, 0},
    {"histogram.bins_tensor", lower_histogram_edges, 0},
    {NULL, NULL, 0},
};
