/* Lowerings of histogramdd's parts: _histogramdd_bin_edges,
 * _histogramdd_from_bin_cts and _histogramdd_from_bin_tensors. The input is
 * seen as M points of N coordinates. As on CPU, the outer edges of a
 * dimension come from `range` or from the data's min/max: those are
 * downloaded first (size companions, as doubles' bits), so the
 * edge arithmetic and CPU's range errors happen on the host exactly as CPU
 * does them. Each point's bin per dimension is found with the search CPU
 * uses (libstdc++'s upper_bound, also on unsorted bin tensors), and the
 * weights are scatter-added in point order. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"

#define HDD_MAX_DIMS 32

/* The input as [M, N] and its checks shared by the three ops. */
typedef struct hdd_s {
  int64_t M, N;
  tt_dtype_t dt;
} hdd_t;

/* c10's TypeMeta names, which CPU's histogramdd messages print. */
static const char *meta_name(tt_dtype_t dt) {
  switch (dt) {
    case TT_F32: return "float";
    case TT_F64: return "double";
    case TT_F16: return "c10::Half";
    case TT_BF16: return "c10::BFloat16";
    case TT_I32: return "int";
    case TT_I64: return "long int";
    case TT_BOOL: return "bool";
    default: return tt_op_type_name(dt);
  }
}

static int read_input(tt_lower_t *L, hdd_t *H) {
  int rank = tt_l_arg_rank(L, 0);
  const int64_t *sz = tt_l_arg_sizes(L, 0);
  H->dt = tt_l_arg_dtype(L, 0);
  if (rank < 2) return tt_l_fail(L, TT_INVALID_ARGUMENT, "torch.histogramdd: input tensor should have at least 2 dimensions"), 0;
  H->N = sz[rank - 1];
  H->M = 1;
  for (int d = 0; d < rank - 1; d++) H->M *= sz[d];
  if (H->N > HDD_MAX_DIMS)
    return tt_l_fail(L, TT_NOT_IMPLEMENTED, "torch.histogramdd: at most %d dimensions are supported on TPU, got %lld", HDD_MAX_DIMS, (long long)H->N), 0;
  return 1;
}

static int check_float(tt_lower_t *L, const hdd_t *H) {
  if (H->dt != TT_F32 && H->dt != TT_F64)
    return tt_l_refuse_dtype(L, H->dt, "histogramdd"), 0;
  return 1;
}

/* bin counts (argument 1) for the bin_ct forms. */
static int read_bin_cts(tt_lower_t *L, const hdd_t *H, int64_t *bins) {
  int n = tt_l_ints(L, 1, bins, HDD_MAX_DIMS + 1);
  if (n != H->N) return tt_l_fail(L, TT_INVALID_ARGUMENT, "histogramdd: The size of bins must be equal to the innermost dimension of the input."), 0;
  for (int d = 0; d < n; d++)
    if (bins[d] <= 0)
      return tt_l_fail(L, TT_INVALID_ARGUMENT, "torch.histogram(): bins must be > 0, but got %lld for dimension %d", (long long)bins[d], d), 0;
  return 1;
}

/* The weight argument wi checked as CPU's histogramdd_check_inputs does. */
static int check_weight(tt_lower_t *L, const hdd_t *H, int wi) {
  if (tt_l_is_none(L, wi)) return 1;
  tt_dtype_t wdt = tt_l_arg_dtype(L, wi);
  if (wdt != H->dt)
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the same dtype, "
                     "but got input(%s), and weight(%s)", meta_name(H->dt), meta_name(wdt)), 0;
  int r = tt_l_arg_rank(L, 0), wr = tt_l_arg_rank(L, wi);
  const int64_t *s = tt_l_arg_sizes(L, 0), *ws = tt_l_arg_sizes(L, wi);
  int same = wr == r - 1;
  for (int d = 0; same && d < wr; d++) same = ws[d] == s[d];
  if (!same) {
    char a[256], b[256];
    size_t na = 0, nb = 0;
    for (int d = 0; d < r && na < sizeof a - 32; d++) na += (size_t)snprintf(a + na, sizeof a - na, "%s%lld", d ? ", " : "", (long long)s[d]);
    for (int d = 0; d < wr && nb < sizeof b - 32; d++) nb += (size_t)snprintf(b + nb, sizeof b - nb, "%s%lld", d ? ", " : "", (long long)ws[d]);
    a[na] = b[nb] = 0;
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor excluding "
                     "its innermost dimension, but got input with shape [%s] and weight with shape [%s]", a, b), 0;
  }
  return 1;
}

/* Whether the outer edges come from the data (no range, some points). */
static int range_from_data(tt_lower_t *L, const hdd_t *H) { return tt_l_is_none(L, 2) && H->M > 0; }

/* CPU's select_outer_bin_edges on the host: `range`, else the data's
 * min/max (downloaded as the bits of doubles), else [0, 1]; then CPU's
 * checks, and an empty range widened by 0.5 on each side. */
static int outer_edges(tt_lower_t *L, const hdd_t *H, int dl, double *lo, double *hi) {
  for (int d = 0; d < H->N; d++) lo[d] = 0, hi[d] = 1;
  const tt_arg_t *ra = &L->args[2];
  if (ra->kind == TT_ARG_FLOATS || ra->kind == TT_ARG_INTS) {
    if (ra->n != 2 * H->N)
      return tt_l_fail(L, TT_INVALID_ARGUMENT, "torch.histogramdd: for a %lld-dimensional histogram range should have %lld elements, but got %d",
                       (long long)H->N, (long long)(2 * H->N), ra->n), 0;
    for (int d = 0; d < H->N; d++) {
      lo[d] = ra->kind == TT_ARG_FLOATS ? ra->floats[2 * d] : (double)ra->ints[2 * d];
      hi[d] = ra->kind == TT_ARG_FLOATS ? ra->floats[2 * d + 1] : (double)ra->ints[2 * d + 1];
    }
  } else if (range_from_data(L, H)) {
    int64_t bits[2 * HDD_MAX_DIMS];
    if (tt_l_ints(L, dl, bits, 2 * HDD_MAX_DIMS) != 2 * H->N)
      return tt_l_fail(L, TT_INTERNAL, "%s: missing downloaded data range", L->op), 0;
    for (int d = 0; d < H->N; d++) {
      memcpy(&lo[d], &bits[d], sizeof(double));
      memcpy(&hi[d], &bits[H->N + d], sizeof(double));
    }
  }
  for (int d = 0; d < H->N; d++) {
    if (!isfinite(lo[d]) || !isfinite(hi[d]))
      return tt_l_fail(L, TT_INVALID_ARGUMENT, "torch.histogramdd: dimension %d's range [%g, %g] is not finite", d, lo[d], hi[d]), 0;
    if (lo[d] > hi[d])
      return tt_l_fail(L, TT_INVALID_ARGUMENT, "torch.histogramdd: min should not exceed max, but got min %g max %g for dimension %d", lo[d], hi[d], d), 0;
    if (lo[d] == hi[d]) lo[d] -= 0.5, hi[d] += 0.5;
  }
  return 1;
}

/* linspace(lo, hi, bins + 1) in dt as CPU's kernel computes it: the first
 * half counts up from lo, the rest down from hi, step = (hi - lo) / bins. */
static tt_val_t linspace_edges(tt_lower_t *L, tt_dtype_t dt, double lo, double hi, int64_t bins) {
  tt_graph_t *g = L->g;
  int64_t ne = bins + 1;
  /* The step on the host in dt's precision: XLA turns a division by a
   * constant into a multiplication by its rounded reciprocal. */
  double step_h = dt == TT_F32 ? (double)(((float)hi - (float)lo) / (float)bins) : (hi - lo) / (double)bins;
  tt_val_t a = tt_l_scalar(L, dt, lo, 0, 1), b = tt_l_scalar(L, dt, hi, 0, 1);
  tt_val_t i = tt_b_convert(g, tt_b_iota(g, TT_I64, 1, &ne, 0), dt);
  tt_val_t step = tt_b_broadcast(g, tt_l_scalar(L, dt, step_h, 0, 1), 1, &ne, NULL);
  tt_val_t up = tt_b_binary(g, TT_BIN_ADD, tt_b_broadcast(g, a, 1, &ne, NULL), tt_b_binary(g, TT_BIN_MUL, step, i));
  tt_val_t back = tt_b_binary(g, TT_BIN_SUB, tt_b_full_f(g, dt, 1, &ne, (double)bins), i);
  tt_val_t down = tt_b_binary(g, TT_BIN_SUB, tt_b_broadcast(g, b, 1, &ne, NULL), tt_b_binary(g, TT_BIN_MUL, step, back));
  tt_val_t first = tt_b_compare(g, TT_CMP_LT, tt_b_iota(g, TT_I64, 1, &ne, 0), tt_b_full_i(g, TT_I64, 1, &ne, ne / 2));
  return tt_b_select(g, first, up, down);
}

/* size companion of _histogramdd_bin_edges / _from_bin_cts -> the data's per-dim
 * min then max as the bits of doubles (int64[2N]); empty when not needed. */
static tt_status_t lower_data_range(tt_lower_t *L) {
  hdd_t H;
  if (!read_input(L, &H)) return NULL;
  tt_graph_t *g = L->g;
  if (!range_from_data(L, &H) || H.N == 0) {
    int64_t z = 0;
    tt_l_output(L, tt_b_full_i(g, TT_I64, 1, &z, 0));
    return NULL;
  }
  if (!check_float(L, &H)) return NULL;
  int64_t mn[2] = {H.M, H.N}, d0 = 0;
  tt_val_t x = tt_b_reshape(g, tt_l_tensor(L, 0), 2, mn);
  /* CPU's aminmax: a NaN in a column makes both its min and max NaN. */
  tt_val_t nan = tt_b_reduce(g, TT_RED_OR, tt_b_compare(g, TT_CMP_NE, x, x), 1, &d0);
  tt_val_t nanv = tt_b_full_f(g, H.dt, 1, &H.N, NAN);
  tt_val_t parts[2] = {tt_b_select(g, nan, nanv, tt_b_reduce(g, TT_RED_MIN, x, 1, &d0)),
                       tt_b_select(g, nan, nanv, tt_b_reduce(g, TT_RED_MAX, x, 1, &d0))};
  tt_l_output(L, tt_b_bitcast(g, tt_b_convert(g, tt_b_concat(g, 2, parts, 0), TT_F64), TT_I64));
  return NULL;
}

/* _histogramdd_bin_edges(self, bins, *, range, weight, density, [data range]) -> N edge tensors */
static tt_status_t lower_bin_edges(tt_lower_t *L) {
  hdd_t H;
  int64_t bins[HDD_MAX_DIMS + 1];
  double lo[HDD_MAX_DIMS], hi[HDD_MAX_DIMS];
  if (!read_input(L, &H) || !read_bin_cts(L, &H, bins)) return NULL;
  if (range_from_data(L, &H) && !check_float(L, &H)) return NULL;
  if (!outer_edges(L, &H, 5, lo, hi) || !check_weight(L, &H, 3)) return NULL;
  for (int d = 0; d < H.N; d++) tt_l_output(L, linspace_edges(L, H.dt, lo[d], hi[d], bins[d]));
  return NULL;
}

/* Gathers e[idx] for a 1-D e and int64 indices idx [M] (clamped). */
static tt_val_t take(tt_graph_t *g, tt_val_t e, tt_val_t idx, int64_t M) {
  tt_gather_dims_t gd;
  memset(&gd, 0, sizeof gd);
  gd.n_collapsed = gd.n_start_map = 1;
  gd.slice_sizes[0] = 1;
  int64_t d[2] = {M, 1};
  return tt_b_gather(g, e, tt_b_reshape(g, idx, 2, d), &gd);
}

/* libstdc++'s upper_bound(e + first, e + first + len, v) - e for every
 * point, in `iters` halving steps (enough for the largest len). Edges need
 * not be sorted: the same comparisons give the same answer as CPU's. */
static tt_val_t upper_bound(tt_graph_t *g, tt_val_t e, tt_val_t v, tt_val_t first, tt_val_t len, int64_t M, int iters) {
  tt_val_t zero = tt_b_full_i(g, TT_I64, 1, &M, 0), one = tt_b_full_i(g, TT_I64, 1, &M, 1);
  for (int k = 0; k < iters; k++) {
    tt_val_t active = tt_b_compare(g, TT_CMP_GT, len, zero);
    tt_val_t half = tt_b_binary(g, TT_BIN_SHR_A, len, one);
    tt_val_t mid = tt_b_binary(g, TT_BIN_ADD, first, half);
    tt_val_t left = tt_b_compare(g, TT_CMP_LT, v, take(g, e, mid, M));
    tt_val_t nfirst = tt_b_select(g, left, first, tt_b_binary(g, TT_BIN_ADD, mid, one));
    tt_val_t nlen = tt_b_select(g, left, half, tt_b_binary(g, TT_BIN_SUB, tt_b_binary(g, TT_BIN_SUB, len, half), one));
    first = tt_b_select(g, active, nfirst, first);
    len = tt_b_select(g, active, nlen, len);
  }
  return first;
}

static int steps_for(int64_t n) {
  int k = 0;
  while (n > 0) n >>= 1, k++;
  return k;
}

/* The histogram of x [M, N] over edges[d] (each [nb_d]); `local` selects
 * CPU's linear interpolation refined by a search of the neighbouring edges
 * (bin counts), else a binary search over all edges (bin tensors). */
static tt_val_t histogram(tt_lower_t *L, const hdd_t *H, tt_val_t x, const tt_val_t *edges, const int64_t *nb, int local, int wi, int density) {
  tt_graph_t *g = L->g;
  int64_t M = H->M, total = 1, hd[HDD_MAX_DIMS];
  for (int d = 0; d < H->N; d++) hd[d] = nb[d] - 1, total *= nb[d] - 1;
  tt_val_t flat = tt_b_full_i(g, TT_I64, 1, &M, 0);
  tt_val_t keep = tt_b_compare(g, TT_CMP_EQ, flat, flat); /* all true */
  int64_t stride = total;
  for (int d = 0; d < H->N; d++) {
    stride /= nb[d] - 1;
    tt_val_t v = tt_b_reshape(g, tt_b_slice_dim(g, x, 1, d, d + 1, 1), 1, &M);
    tt_val_t e = edges[d];
    tt_val_t lo = tt_b_reshape(g, tt_b_slice_dim(g, e, 0, 0, 1, 1), 0, NULL);
    tt_val_t hi = tt_b_reshape(g, tt_b_slice_dim(g, e, 0, nb[d] - 1, nb[d], 1), 0, NULL);
    tt_val_t lob = tt_b_broadcast(g, lo, 1, &M, NULL), hib = tt_b_broadcast(g, hi, 1, &M, NULL);
    /* Points outside [first edge, last edge] and NaNs are skipped. */
    keep = tt_b_binary(g, TT_BIN_AND, keep, tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_GE, v, lob), tt_b_compare(g, TT_CMP_LE, v, hib)));
    tt_val_t first, len;
    int iters;
    if (local) {
      /* (v - lo) * (nb - 1) / (hi - lo) in the input's type, truncated;
       * then upper_bound over edges [pos - 1, pos + 2). */
      tt_val_t num = tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_SUB, v, lob), tt_b_full_f(g, H->dt, 1, &M, (double)(nb[d] - 1)));
      tt_val_t pos = tt_b_convert(g, tt_b_binary(g, TT_BIN_DIV, num, tt_b_binary(g, TT_BIN_SUB, hib, lob)), TT_I64);
      pos = tt_b_clamp(g, tt_b_const_i(g, TT_I64, 0), pos, tt_b_const_i(g, TT_I64, nb[d] - 1));
      first = tt_b_binary(g, TT_BIN_MAX, tt_b_binary(g, TT_BIN_SUB, pos, tt_b_full_i(g, TT_I64, 1, &M, 1)), tt_b_full_i(g, TT_I64, 1, &M, 0));
      tt_val_t last = tt_b_binary(g, TT_BIN_MIN, tt_b_binary(g, TT_BIN_ADD, pos, tt_b_full_i(g, TT_I64, 1, &M, 2)), tt_b_full_i(g, TT_I64, 1, &M, nb[d]));
      len = tt_b_binary(g, TT_BIN_SUB, last, first);
      iters = steps_for(3);
    } else {
      first = tt_b_full_i(g, TT_I64, 1, &M, 0);
      len = tt_b_full_i(g, TT_I64, 1, &M, nb[d]);
      iters = steps_for(nb[d]);
    }
    tt_val_t b = tt_b_binary(g, TT_BIN_SUB, upper_bound(g, e, v, first, len, M, iters), tt_b_full_i(g, TT_I64, 1, &M, 1));
    /* The last bin includes its right edge. */
    tt_val_t top = tt_b_compare(g, TT_CMP_EQ, b, tt_b_full_i(g, TT_I64, 1, &M, nb[d] - 1));
    b = tt_b_select(g, top, tt_b_binary(g, TT_BIN_SUB, b, tt_b_full_i(g, TT_I64, 1, &M, 1)), b);
    flat = tt_b_binary(g, TT_BIN_ADD, flat, tt_b_binary(g, TT_BIN_MUL, b, tt_b_full_i(g, TT_I64, 1, &M, stride)));
  }
  /* Skipped points go past the end, where the scatter drops them. */
  flat = tt_b_select(g, keep, flat, tt_b_full_i(g, TT_I64, 1, &M, total));
  tt_val_t w = tt_l_is_none(L, wi) ? tt_b_full_f(g, H->dt, 1, &M, 1) : tt_b_reshape(g, tt_l_tensor(L, wi), 1, &M);
  tt_scatter_dims_t sd;
  memset(&sd, 0, sizeof sd);
  sd.n_inserted = sd.n_to_operand = 1;
  int64_t cd[2] = {M, 1};
  tt_val_t hist = tt_b_full_f(g, H->dt, 1, &total, 0);
  if (M > 0) hist = tt_b_scatter(g, TT_RED_SUM, hist, tt_b_reshape(g, flat, 2, cd), w, &sd);
  hist = tt_b_reshape(g, hist, (int)H->N, hd);
  if (density) {
    /* CPU: hist / hist.sum(), then / each dimension's bin widths. */
    int64_t all[HDD_MAX_DIMS];
    for (int d = 0; d < H->N; d++) all[d] = d;
    tt_val_t sum = tt_b_reduce(g, TT_RED_SUM, hist, (int)H->N, all);
    hist = tt_b_binary(g, TT_BIN_DIV, hist, tt_b_broadcast(g, sum, (int)H->N, hd, NULL));
    for (int d = 0; d < H->N; d++) {
      tt_val_t width = tt_b_binary(g, TT_BIN_SUB, tt_b_slice_dim(g, edges[d], 0, 1, nb[d], 1), tt_b_slice_dim(g, edges[d], 0, 0, nb[d] - 1, 1));
      int64_t bd = d;
      hist = tt_b_binary(g, TT_BIN_DIV, hist, tt_b_broadcast(g, width, (int)H->N, hd, &bd));
    }
  }
  return hist;
}

static tt_val_t points(tt_lower_t *L, const hdd_t *H) {
  int64_t mn[2] = {H->M, H->N};
  return tt_b_reshape(L->g, tt_l_tensor(L, 0), 2, mn);
}

/* _histogramdd_from_bin_cts(self, bins, *, range, weight, density, [data range]) -> hist */
static tt_status_t lower_from_bin_cts(tt_lower_t *L) {
  hdd_t H;
  int64_t bins[HDD_MAX_DIMS + 1], nb[HDD_MAX_DIMS];
  double lo[HDD_MAX_DIMS], hi[HDD_MAX_DIMS];
  tt_val_t edges[HDD_MAX_DIMS];
  if (!read_input(L, &H) || !read_bin_cts(L, &H, bins) || !check_float(L, &H)) return NULL;
  if (!outer_edges(L, &H, 5, lo, hi) || !check_weight(L, &H, 3)) return NULL;
  for (int d = 0; d < H.N; d++) {
    edges[d] = linspace_edges(L, H.dt, lo[d], hi[d], bins[d]);
    nb[d] = bins[d] + 1;
  }
  tt_l_output(L, histogram(L, &H, points(L, &H), edges, nb, 1, 3, tt_l_bool(L, 4, 0)));
  return NULL;
}

/* _histogramdd_from_bin_tensors(self, bins, *, weight, density) -> hist */
static tt_status_t lower_from_bin_tensors(tt_lower_t *L) {
  hdd_t H;
  int64_t nb[HDD_MAX_DIMS];
  tt_val_t edges[HDD_MAX_DIMS];
  if (!read_input(L, &H)) return NULL;
  const tt_arg_t *ba = &L->args[1];
  if (ba->kind != TT_ARG_TENSORS) return tt_l_fail(L, TT_TYPE_ERROR, "%s: bins must be a list of Tensors", L->op), NULL;
  if (ba->n != H.N)
    return tt_status_make(TT_INVALID_ARGUMENT, "torch.histogramdd: expected %lld sequences of bin edges for a %lld-dimensional histogram but got %d",
                          (long long)H.N, (long long)H.N, ba->n);
  for (int d = 0; d < H.N; d++) {
    const tt_tensor_ref_t *r = &ba->t[d];
    if (r->dtype != H.dt)
      return tt_status_make(TT_INVALID_ARGUMENT, "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with dtype %s "
                            "and bins for dimension %d with dtype %s", meta_name(H.dt), d, meta_name(r->dtype));
    if (r->view.rank != 1)
      return tt_status_make(TT_INVALID_ARGUMENT, "torch.histogramdd: bins tensor should have one dimension, but got %d dimensions in the bins tensor for dimension %d",
                            r->view.rank, d);
    nb[d] = r->view.sizes[0];
    if (nb[d] < 1)
      return tt_status_make(TT_INVALID_ARGUMENT, "torch.histogramdd: bins tensor should have at least 1 element, but got %lld elements in the bins tensor for dimension %d",
                            (long long)nb[d], d);
  }
  if (!check_weight(L, &H, 2)) return NULL;
  for (int d = 0; d < H.N; d++)
    if (nb[d] < 2) return tt_status_make(TT_INVALID_ARGUMENT, "torch.histogram(): bins must be > 0, but got %lld for dimension %d", (long long)(nb[d] - 1), d);
  if (!check_float(L, &H)) return NULL;
  for (int d = 0; d < H.N; d++) edges[d] = tt_l_tensor_elem(L, 1, d);
  tt_l_output(L, histogram(L, &H, points(L, &H), edges, nb, 0, 2, tt_l_bool(L, 3, 0)));
  return NULL;
}

const tt_op_def_t tt_ops_histogramdd[] = {
    {"_histogramdd_bin_edges", lower_bin_edges, 0, .size = lower_data_range},
    {"_histogramdd_from_bin_cts", lower_from_bin_cts, 0, .size = lower_data_range},
    {"_histogramdd_from_bin_tensors", lower_from_bin_tensors, 0},
    {NULL, NULL, 0},
};
