/* Lowerings of order-statistic selections: median, nanmedian, kthvalue, mode.
 * Each is a stable sort along the dim (NaN last, as PyTorch orders it), then
 * a per-row position picked from the sorted values and their source indices. */
#include <math.h>
#include <string.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/scan.h"

/* A row-wise selection: x sorted along dim with its source indices. */
typedef struct {
  int rank, dim, keepdim;
  int64_t sz[TT_MAX_RANK];
  tt_val_t x, vals, idx; /* input, sorted values, their indices */
  tt_val_t nans;         /* i64 NaN count per row (dim reduced), or -1 for non-float */
} sel_t;

/* Sort key: NaN as +NaN and -0 as +0, so the total-order sort puts every NaN
 * last and keeps zeros of either sign in source order, as CPU compares them. */
static tt_val_t sort_key(tt_graph_t *g, tt_val_t x) {
  if (!tt_dtype_is_float(tt_graph_type(g, x)->dtype)) return x;
  tt_val_t zero = tt_b_like_f(g, x, 0);
  x = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, x, zero), zero, x);
  return tt_b_select(g, tt_b_compare(g, TT_CMP_NE, x, x), tt_b_like_f(g, x, NAN), x);
}

/* Reads self (arg 0) and sorts it along dim; `flat` sorts the flattened tensor. */
static int sel_prepare(tt_lower_t *L, int64_t dim_arg, int flat, int keepdim, sel_t *s) {
  tt_graph_t *g = L->g;
  memset(s, 0, sizeof *s);
  s->rank = tt_l_arg_rank(L, 0);
  if (s->rank < 0) return 0;
  s->keepdim = keepdim && s->rank > 0; /* a 0-dim input keeps rank 0 */
  s->x = tt_l_tensor(L, 0);
  if (tt_graph_failed(g)) return 0;
  memcpy(s->sz, tt_l_arg_sizes(L, 0), sizeof(int64_t) * (size_t)s->rank);
  if (!flat && s->rank == 0) { /* a 0-d input's dim must be -1 or 0, as CPU's maybe_wrap_dim */
    tt_op_wrap_dim(L, dim_arg, 1);
    if (tt_graph_failed(g)) return 0;
  }
  if (flat || s->rank == 0) {
    int64_t n = 1;
    for (int d = 0; d < s->rank; d++) n *= s->sz[d];
    s->rank = 1;
    s->sz[0] = n;
    s->dim = 0;
    s->x = tt_b_reshape(g, s->x, 1, &n);
  } else {
    s->dim = tt_op_wrap_dim(L, dim_arg, s->rank);
    if (tt_graph_failed(g)) return 0;
  }
  tt_val_t ops[3] = {sort_key(g, s->x), tt_b_iota(g, TT_I64, s->rank, s->sz, s->dim), s->x};
  tt_val_t srt = tt_b_sort(g, 3, ops, s->dim, 0, 1);
  s->idx = tt_b_get(g, srt, 1);
  s->vals = tt_b_get(g, srt, 2);
  s->nans = -1;
  if (tt_dtype_is_float(tt_graph_type(g, s->x)->dtype)) {
    int64_t d = s->dim;
    tt_val_t isnan = tt_b_convert(g, tt_b_compare(g, TT_CMP_NE, s->x, s->x), TT_I64);
    s->nans = tt_b_reduce(g, TT_RED_SUM, isnan, 1, &d);
  }
  return !tt_graph_failed(g);
}

/* Outputs (values, indices) at per-row position pos (i64, dim reduced). */
static void sel_pick(tt_lower_t *L, const sel_t *s, tt_val_t pos, int with_index, int unflatten) {
  tt_graph_t *g = L->g;
  int64_t d = s->dim;
  tt_val_t iota = tt_b_iota(g, TT_I64, s->rank, s->sz, s->dim);
  int64_t bd[TT_MAX_RANK];
  int nb = 0;
  for (int k = 0; k < s->rank; k++)
    if (k != s->dim) bd[nb++] = k;
  tt_val_t at = tt_b_compare(g, TT_CMP_EQ, iota, tt_b_broadcast(g, pos, s->rank, s->sz, bd));
  /* Exactly one element per row is picked, so a sum of the masked row is exact. */
  tt_val_t v = s->vals;
  tt_dtype_t dt = tt_graph_type(g, v)->dtype;
  if (dt == TT_BOOL) v = tt_b_convert(g, v, TT_I32);
  v = tt_b_reduce(g, TT_RED_SUM, tt_b_select(g, at, v, tt_b_like_f(g, v, 0)), 1, &d);
  if (dt == TT_BOOL) v = tt_b_convert(g, v, TT_BOOL);
  tt_val_t i = tt_b_reduce(g, TT_RED_SUM, tt_b_select(g, at, s->idx, tt_b_like_f(g, s->idx, 0)), 1, &d);
  if (unflatten) {
    v = tt_b_reshape(g, v, 0, NULL);
  } else if (s->keepdim) {
    int64_t kd[TT_MAX_RANK];
    memcpy(kd, s->sz, sizeof kd);
    kd[s->dim] = 1;
    v = tt_b_reshape(g, v, s->rank, kd);
    i = tt_b_reshape(g, i, s->rank, kd);
  }
  tt_l_output(L, v);
  if (with_index) tt_l_output(L, i);
}

static tt_val_t row_const(tt_lower_t *L, const sel_t *s, int64_t v) {
  int64_t rd[TT_MAX_RANK];
  int n = 0;
  for (int k = 0; k < s->rank; k++)
    if (k != s->dim) rd[n++] = s->sz[k];
  return tt_b_full_i(L->g, TT_I64, n, rd, v);
}

/* The lower median's position: (n-1)/2 of the non-NaN values when ignore_nan
 * (of all values, all NaN, when no value is a number, as CPU picks); else the
 * first NaN when a row has one. */
static tt_val_t median_pos(tt_lower_t *L, const sel_t *s, int ignore_nan) {
  tt_graph_t *g = L->g;
  int64_t n = s->sz[s->dim];
  if (s->nans < 0) return row_const(L, s, (n - 1) / 2);
  tt_val_t cnt = tt_b_binary(g, TT_BIN_SUB, row_const(L, s, n), s->nans);
  if (ignore_nan) {
    tt_val_t m = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_SUB, cnt, row_const(L, s, 1)), row_const(L, s, 2));
    tt_val_t none = tt_b_compare(g, TT_CMP_EQ, cnt, row_const(L, s, 0));
    return tt_b_select(g, none, row_const(L, s, (n - 1) / 2), m);
  }
  tt_val_t has = tt_b_compare(g, TT_CMP_GT, s->nans, row_const(L, s, 0));
  return tt_b_select(g, has, cnt, row_const(L, s, (n - 1) / 2));
}

static tt_status_t check_kind(tt_lower_t *L, const char *name) {
  if (tt_l_arg_dtype(L, 0) == TT_BOOL)
    return tt_op_refuse_dtype(TT_BOOL, "%s", name);
  return NULL;
}

/* median()/nanmedian(): the whole tensor; NaN for an empty one. */
static tt_status_t median_all(tt_lower_t *L, int ignore_nan) {
  int rank = tt_l_arg_rank(L, 0);
  int64_t numel = 1;
  for (int d = 0; d < rank; d++) numel *= tt_l_arg_sizes(L, 0)[d];
  if (rank >= 0 && numel == 0) { /* CPU fills a float NaN and converts it, before its dtype dispatch (bool: true;
                                   * integers: the float to integer conversion of NaN) */
    tt_dtype_t dt = tt_l_arg_dtype(L, 0);
    tt_val_t nan = tt_b_const_f(L->g, tt_dtype_is_float(dt) ? dt : TT_F32, NAN);
    tt_l_output(L, tt_b_convert(L->g, nan, dt));
    return NULL;
  }
  tt_status_t st = check_kind(L, "median_cpu"); /* CPU's name for nanmedian too */
  if (st) return st;
  sel_t s;
  if (!sel_prepare(L, 0, 1, 0, &s)) return NULL;
  sel_pick(L, &s, median_pos(L, &s, ignore_nan), 0, 1);
  return NULL;
}
static tt_status_t lower_median(tt_lower_t *L) { return median_all(L, 0); }
static tt_status_t lower_nanmedian(tt_lower_t *L) { return median_all(L, 1); }

/* median.dim/nanmedian.dim(self, dim, keepdim) -> (values, indices) */
static tt_status_t median_dim(tt_lower_t *L, int ignore_nan) {
  /* CPU's zero_numel_check_dims, before its kernel's dispatch refuses Bool (fuzz 111:191) */
  int rank = tt_l_arg_rank(L, 0);
  if (rank > 0) {
    int d = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
    if (tt_graph_failed(L->g)) return NULL;
    if (tt_l_arg_sizes(L, 0)[d] == 0)
      return tt_status_make(TT_INDEX_ERROR, "median(): Expected reduction dim %d to have non-zero size.", d);
  }
  tt_status_t st = check_kind(L, "median_out"); /* CPU's name for both, as "median_cpu" for the whole-tensor forms */
  if (st) return st;
  sel_t s;
  if (!sel_prepare(L, tt_l_int(L, 1, 0), 0, tt_l_bool(L, 2, 0), &s)) return NULL;
  sel_pick(L, &s, median_pos(L, &s, ignore_nan), 1, 0);
  return NULL;
}
static tt_status_t lower_median_dim(tt_lower_t *L) { return median_dim(L, 0); }
static tt_status_t lower_nanmedian_dim(tt_lower_t *L) { return median_dim(L, 1); }

/* kthvalue(self, k, dim, keepdim) -> (values, indices): the k-th smallest. */
static tt_status_t lower_kthvalue(tt_lower_t *L) {
  int64_t k = tt_l_int(L, 1, 1);
  sel_t s;
  if (!sel_prepare(L, tt_l_int(L, 2, -1), 0, tt_l_bool(L, 3, 0), &s)) return NULL;
  if (s.rank > 0 && s.sz[s.dim] == 0) /* CPU's zero_numel_check_dims, before k's range */
    return tt_status_make(TT_INDEX_ERROR, "kthvalue(): Expected reduction dim %d to have non-zero size.", s.dim);
  if (k < 1 || k > s.sz[s.dim])
    return tt_status_make(TT_INVALID_ARGUMENT, "kthvalue(): selected number k out of range for dimension %d", s.dim);
  sel_pick(L, &s, row_const(L, &s, k - 1), 1, 0);
  return NULL;
}

/* mode(self, dim, keepdim) -> (values, indices): the most frequent value,
 * the smallest on ties, with the last index where it occurs (as CPU). After
 * the sort a run of equal values is contiguous; its length so far at each
 * position is position - run start + 1, and the first position where that
 * peaks ends the earliest (smallest) longest run; its source index is the
 * run's largest, because the sort is stable. NaNs never compare equal, so
 * each is a run of one, as on CPU. */
static tt_status_t lower_mode(tt_lower_t *L) {
  sel_t s;
  if (!sel_prepare(L, tt_l_int(L, 1, -1), 0, tt_l_bool(L, 2, 0), &s)) return NULL;
  tt_graph_t *g = L->g;
  int64_t n = s.sz[s.dim];
  if (n == 0)
    return tt_status_make(TT_INDEX_ERROR, "mode(): Expected reduction dim %d to have non-zero size.", s.dim);
  tt_val_t v = s.vals;
  if (tt_graph_type(g, v)->dtype == TT_BOOL) v = tt_b_convert(g, v, TT_I32);
  tt_val_t iota = tt_b_iota(g, TT_I64, s.rank, s.sz, s.dim);
  tt_val_t start = tt_b_compare(g, TT_CMP_EQ, iota, tt_b_like_f(g, iota, 0));
  if (n > 1) {
    tt_val_t same = tt_b_compare(g, TT_CMP_EQ, tt_b_slice_dim(g, v, s.dim, 1, n, 1),
                                 tt_b_slice_dim(g, v, s.dim, 0, n - 1, 1));
    tt_val_t first = tt_b_slice_dim(g, start, s.dim, 0, 1, 1);
    tt_val_t parts[2] = {first, tt_b_unary(g, TT_UN_NOT, same)};
    start = tt_b_concat(g, 2, parts, s.dim);
  }
  tt_val_t run0 = tt_op_scan(g, TT_RED_MAX, tt_b_select(g, start, iota, tt_b_like_f(g, iota, 0)), s.dim);
  tt_val_t len = tt_b_binary(g, TT_BIN_SUB, iota, run0);
  tt_val_t pos;
  tt_b_argreduce(g, TT_RED_ARGMAX, len, s.dim, &pos);
  sel_pick(L, &s, pos, 1, 0);
  return NULL;
}

const tt_op_def_t tt_ops_sort_select[] = {
    {"median", lower_median, TT_OPF_UNORDERED},
    {"nanmedian", lower_nanmedian, TT_OPF_UNORDERED},
    {"median.dim", lower_median_dim, TT_OPF_UNORDERED},
    {"nanmedian.dim", lower_nanmedian_dim, TT_OPF_UNORDERED},
    {"kthvalue", lower_kthvalue, TT_OPF_UNORDERED},
    {"mode", lower_mode, 0},
    {NULL, NULL, 0},
};
