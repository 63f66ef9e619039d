/* Helpers shared by the nn lowerings: per-dim gathers, matrices, scatters. */
#include <string.h>

#include "ops/nn_util.h"

#include <math.h>

tt_val_t tt_nn_addc(tt_graph_t *g, tt_val_t x, double c) { return tt_b_binary(g, TT_BIN_ADD, x, tt_b_like_f(g, x, c)); }
tt_val_t tt_nn_mulc(tt_graph_t *g, tt_val_t x, double c) { return tt_b_binary(g, TT_BIN_MUL, x, tt_b_like_f(g, x, c)); }

tt_val_t tt_nn_gather_dim(tt_graph_t *g, tt_val_t x, int a, tt_val_t idx, int64_t n) {
  const tt_type_t *t = tt_graph_type(g, x);
  if (!t) return -1;
  int r = t->rank;
  int64_t d2[2] = {n, 1};
  tt_val_t coords = tt_b_reshape(g, idx, 2, d2);
  tt_gather_dims_t gd;
  memset(&gd, 0, sizeof gd);
  for (int i = 0; i < r; i++) {
    gd.slice_sizes[i] = i == a ? 1 : t->dims[i];
    if (i != a) gd.offset_dims[gd.n_offset++] = i;
  }
  gd.n_collapsed = 1;
  gd.collapsed[0] = a;
  gd.n_start_map = 1;
  gd.start_index_map[0] = a;
  return tt_b_gather(g, x, coords, &gd);
}

tt_val_t tt_nn_scatter_dim0(tt_graph_t *g, tt_reduce_t kind, tt_val_t out, tt_val_t idx, tt_val_t upd, int64_t n) {
  const tt_type_t *t = tt_graph_type(g, out);
  if (!t) return -1;
  tt_scatter_dims_t sd;
  memset(&sd, 0, sizeof sd);
  for (int i = 1; i < t->rank; i++) sd.update_window_dims[sd.n_window++] = i;
  sd.inserted_window_dims[sd.n_inserted++] = 0;
  sd.scatter_to_operand[sd.n_to_operand++] = 0;
  int64_t d2[2] = {n, 1};
  return tt_b_scatter(g, kind, out, tt_b_reshape(g, idx, 2, d2), upd, &sd);
}

tt_val_t tt_nn_apply_dim(tt_graph_t *g, tt_val_t x, int r, int a, tt_val_t m, int mdim) {
  int64_t lc = a, rc = mdim;
  tt_val_t y = tt_b_dot(g, x, m, 0, NULL, NULL, 1, &lc, &rc);
  if (a == r - 1) return y;
  /* The new dim came out last: move it back to a. */
  int64_t perm[TT_MAX_RANK];
  for (int i = 0, j = 0; i < r; i++) perm[i] = i == a ? r - 1 : j++;
  return tt_b_transpose(g, y, perm);
}

tt_val_t tt_nn_window_sum(tt_graph_t *g, tt_val_t x, int r, int a, tt_val_t m, int mdim) {
  tt_val_t fin = tt_b_unary(g, TT_UN_IS_FINITE, x);
  tt_val_t zero = tt_b_like_f(g, x, 0), inf = tt_b_like_f(g, x, INFINITY);
  tt_val_t y = tt_nn_apply_dim(g, tt_b_select(g, fin, x, zero), r, a, m, mdim);
  /* windows holding +inf, -inf, NaN (counts in x's type: exact below 2^24) */
  tt_val_t kind[3] = {tt_b_compare(g, TT_CMP_EQ, x, inf), tt_b_compare(g, TT_CMP_EQ, x, tt_b_unary(g, TT_UN_NEG, inf)),
                      tt_b_compare(g, TT_CMP_NE, x, x)};
  tt_val_t has[3];
  for (int k = 0; k < 3; k++) {
    tt_val_t c = tt_nn_apply_dim(g, tt_b_convert(g, kind[k], tt_graph_type(g, x)->dtype), r, a, m, mdim);
    has[k] = tt_b_compare(g, TT_CMP_GT, c, tt_b_like_f(g, c, 0));
  }
  tt_val_t nan = tt_b_binary(g, TT_BIN_OR, has[2], tt_b_binary(g, TT_BIN_AND, has[0], has[1]));
  y = tt_b_select(g, has[1], tt_b_like_f(g, y, -INFINITY), y);
  y = tt_b_select(g, has[0], tt_b_like_f(g, y, INFINITY), y);
  return tt_b_select(g, nan, tt_b_like_f(g, y, NAN), y);
}

/* v (n) along dim a of a value of type t. */
static tt_val_t along(tt_graph_t *g, tt_val_t v, const tt_type_t *t, int a) {
  int64_t bd = a;
  return tt_b_broadcast(g, v, t->rank, t->dims, &bd);
}

tt_val_t tt_nn_taps_apply(tt_graph_t *g, tt_val_t x, int a, const tt_nn_taps_t *t, int64_t n_out) {
  tt_val_t y = -1;
  for (int k = 0; k < t->n; k++) {
    tt_val_t v = tt_nn_gather_dim(g, x, a, t->idx[k], n_out);
    const tt_type_t *vt = tt_graph_type(g, v);
    if (!vt) return -1;
    if (t->w[k] >= 0) v = tt_b_binary(g, TT_BIN_MUL, along(g, t->w[k], vt, a), v);
    if (t->valid[k] >= 0) v = tt_b_select(g, along(g, t->valid[k], vt, a), v, tt_b_like_f(g, v, 0));
    y = k ? tt_b_binary(g, TT_BIN_ADD, y, v) : v;
  }
  return y;
}

tt_val_t tt_nn_taps_backward(tt_graph_t *g, tt_val_t gy, int a, const tt_nn_taps_t *t, int64_t n_in) {
  const tt_type_t *gt = tt_graph_type(g, gy);
  if (!gt) return -1;
  int r = gt->rank;
  /* dim a first: a scatter along dim 0, then back */
  int64_t perm[TT_MAX_RANK], inv[TT_MAX_RANK], od[TT_MAX_RANK];
  perm[0] = a;
  for (int i = 0, j = 1; i < r; i++)
    if (i != a) perm[j++] = i;
  for (int i = 0; i < r; i++) inv[perm[i]] = i;
  for (int i = 0; i < r; i++) od[i] = i == 0 ? n_in : gt->dims[perm[i]];
  tt_val_t gx = tt_b_full_f(g, gt->dtype, r, od, 0);
  for (int k = 0; k < t->n; k++) {
    tt_val_t u = gy;
    if (t->w[k] >= 0) u = tt_b_binary(g, TT_BIN_MUL, along(g, t->w[k], gt, a), u);
    tt_val_t idx = t->idx[k];
    if (t->valid[k] >= 0) /* an invalid tap's index is out of range: the scatter drops it */
      idx = tt_b_select(g, t->valid[k], idx, tt_b_like_f(g, idx, (double)n_in));
    gx = tt_nn_scatter_dim0(g, TT_RED_SUM, gx, idx, tt_b_transpose(g, u, perm), gt->dims[a]);
  }
  return tt_b_transpose(g, gx, inv);
}

tt_val_t tt_nn_scatter_flat(tt_graph_t *g, tt_val_t upd, tt_val_t idx, int64_t planes, int64_t n, int64_t size) {
  return tt_nn_scatter_flat_kind(g, TT_RED_SUM, upd, idx, planes, n, size);
}

tt_val_t tt_nn_scatter_flat_kind(tt_graph_t *g, tt_reduce_t kind, tt_val_t upd, tt_val_t idx, int64_t planes, int64_t n, int64_t size) {
  int64_t d3[3] = {planes, n, 1}, od[2] = {planes, size};
  tt_val_t both[2] = {tt_b_iota(g, TT_I64, 3, d3, 0), tt_b_reshape(g, idx, 3, d3)};
  tt_val_t coords = tt_b_concat(g, 2, both, 2);
  const tt_type_t *ut = tt_graph_type(g, upd);
  if (!ut) return -1;
  tt_scatter_dims_t sd;
  memset(&sd, 0, sizeof sd);
  sd.n_inserted = 2;
  sd.inserted_window_dims[0] = 0;
  sd.inserted_window_dims[1] = 1;
  sd.n_to_operand = 2;
  sd.scatter_to_operand[0] = 0;
  sd.scatter_to_operand[1] = 1;
  int64_t d2[2] = {planes, n};
  return tt_b_scatter(g, kind, tt_b_full_f(g, ut->dtype, 2, od, 0), coords, tt_b_reshape(g, upd, 2, d2), &sd);
}

int64_t tt_nn_pool_out_size(int64_t in, int64_t k, int64_t p, int64_t s, int64_t d, int ceil_mode) {
  int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  /* In ceil mode the last window must start inside the input or its left padding. */
  if (ceil_mode && (o - 1) * s >= in + p) o--;
  return o;
}

int tt_nn_pool_ints(tt_lower_t *L, int i, int nsp, const int64_t *dflt, int64_t *out) {
  int64_t v[4];
  int n = (i < 0 || tt_l_is_none(L, i)) ? 0 : tt_l_ints(L, i, v, 4);
  if (n == 0 && dflt) {
    for (int j = 0; j < nsp; j++) out[j] = dflt[j];
    return 1;
  }
  if (n != 1 && n != nsp) return 0;
  for (int j = 0; j < nsp; j++) out[j] = v[n == 1 ? 0 : j];
  return 1;
}

tt_val_t tt_nn_avg_divisor(tt_lower_t *L, const tt_nn_pool_t *q, int count_include_pad, int idiv, tt_dtype_t ct) {
  tt_graph_t *g = L->g;
  int n = q->nsp;
  if (!tt_l_is_none(L, idiv)) {
    int64_t dv = tt_l_int(L, idiv, 1);
    if (dv == 0) return tt_l_fail(L, TT_INVALID_ARGUMENT, "divisor must be not zero");
    return tt_b_full_f(g, ct, n, q->out, (double)dv);
  }
  tt_val_t ones = tt_b_full_f(g, ct, n, q->in, 1);
  int64_t lo[3], hi[3];
  if (count_include_pad) {
    /* Padding counts, but not the extra ceil-mode area past in + pad. */
    ones = tt_b_pad(g, ones, tt_b_const_f(g, ct, 1), q->p, q->p, NULL);
    for (int i = 0; i < n; i++) lo[i] = 0, hi[i] = q->pad_hi[i] > q->p[i] ? q->pad_hi[i] - q->p[i] : 0;
  } else {
    for (int i = 0; i < n; i++) lo[i] = q->p[i], hi[i] = q->pad_hi[i];
  }
  tt_val_t cnt = tt_b_reduce_window(g, TT_RED_SUM, ones, -1, q->k, q->s, lo, hi);
  int64_t s0[3] = {0, 0, 0}, st[3] = {1, 1, 1};
  return tt_b_slice(g, cnt, s0, q->out, st);
}

/* Full-rank window attributes with q's spatial values in the trailing dims. */
static void pool_window(const tt_nn_pool_t *q, int64_t *win, int64_t *str, int64_t *lo, int64_t *hi, int use_pad) {
  for (int i = 0; i < q->rank; i++) win[i] = str[i] = 1, lo[i] = hi[i] = 0;
  for (int i = 0; i < q->nsp; i++) {
    int a = q->rank - q->nsp + i;
    win[a] = q->k[i];
    str[a] = q->s[i];
    lo[a] = use_pad ? q->p[i] : 0;
    hi[a] = use_pad ? q->pad_hi[i] : 0;
  }
}

tt_status_t tt_nn_avg_pool(tt_lower_t *L, const tt_nn_pool_t *q, int count_include_pad, int idiv) {
  tt_graph_t *g = L->g;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0), ct = tt_op_math_type(dt);
  int64_t win[TT_MAX_RANK], str[TT_MAX_RANK], lo[TT_MAX_RANK], hi[TT_MAX_RANK];
  pool_window(q, win, str, lo, hi, 1);
  tt_val_t sum = tt_b_reduce_window(g, TT_RED_SUM, tt_b_convert(g, tt_l_tensor(L, 0), ct), -1, win, str, lo, hi);
  tt_val_t div = tt_nn_avg_divisor(L, q, count_include_pad, idiv, ct);
  if (tt_graph_failed(g)) return NULL;
  const tt_type_t *st = tt_graph_type(g, sum);
  tt_l_output(L, tt_b_convert(g, tt_b_binary(g, TT_BIN_DIV, sum, tt_b_broadcast_to(g, div, st->rank, st->dims)), dt));
  return NULL;
}

tt_status_t tt_nn_avg_pool_backward(tt_lower_t *L, const tt_nn_pool_t *q, int count_include_pad, int idiv) {
  tt_graph_t *g = L->g;
  int r = q->rank;
  tt_dtype_t dt = tt_l_arg_dtype(L, 1), ct = tt_op_math_type(dt);
  tt_val_t gy = tt_b_convert(g, tt_l_tensor(L, 0), ct);
  tt_val_t div = tt_nn_avg_divisor(L, q, count_include_pad, idiv, ct);
  if (tt_graph_failed(g)) return NULL;
  const tt_type_t *gt = tt_graph_type(g, gy);
  gy = tt_b_binary(g, TT_BIN_DIV, gy, tt_b_broadcast_to(g, div, gt->rank, gt->dims));
  int64_t lo[TT_MAX_RANK] = {0}, hi[TT_MAX_RANK] = {0}, inter[TT_MAX_RANK] = {0};
  for (int i = 0; i < q->nsp; i++) {
    int a = r - q->nsp + i;
    lo[a] = q->k[i] - 1 - q->p[i];
    hi[a] = q->in[i] + q->p[i] - (q->out[i] - 1) * q->s[i] - 1;
    inter[a] = q->s[i] - 1;
  }
  tt_val_t f = tt_b_pad(g, gy, tt_b_const_f(g, ct, 0), lo, hi, inter);
  int64_t win[TT_MAX_RANK], str[TT_MAX_RANK], zl[TT_MAX_RANK], zh[TT_MAX_RANK];
  pool_window(q, win, str, zl, zh, 0);
  for (int i = 0; i < r; i++) str[i] = 1;
  tt_l_output(L, tt_b_convert(g, tt_b_reduce_window(g, TT_RED_SUM, f, -1, win, str, zl, zh), dt));
  return NULL;
}
