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

/* Per output: whether any of its taps in 0/1 matrix `mat` reads a +inf, a
 * -inf, a NaN. One dot of the code pinf + B*ninf + B^2*nan (B = taps + 1,
 * exact where B^3 < 2^24 in float32) when the contraction is short enough,
 * else three. */
static void classes(tt_graph_t *g, tt_val_t pinf, tt_val_t ninf, tt_val_t nan, int r, int a, int mdim, tt_val_t mat,
                    int64_t taps, tt_val_t out[3]) {
  const tt_type_t *mt = tt_graph_type(g, mat);
  double b = (double)(taps + 1);
  if (b * b * b < (mt->dtype == TT_F64 ? 9.0e15 : 1.6e7)) {
    tt_val_t code = tt_b_binary(g, TT_BIN_ADD, pinf, tt_b_binary(g, TT_BIN_ADD, tt_nn_mulc(g, ninf, b), tt_nn_mulc(g, nan, b * b)));
    tt_val_t c = tt_nn_apply_dim(g, code, r, a, mat, mdim);
    tt_val_t hi = tt_b_unary(g, TT_UN_FLOOR, tt_nn_mulc(g, c, 1.0 / (b * b)));
    tt_val_t rest = tt_b_binary(g, TT_BIN_SUB, c, tt_nn_mulc(g, hi, b * b));
    tt_val_t mid = tt_b_unary(g, TT_UN_FLOOR, tt_nn_mulc(g, rest, 1.0 / b));
    tt_val_t lo = tt_b_binary(g, TT_BIN_SUB, rest, tt_nn_mulc(g, mid, b));
    tt_val_t v[3] = {lo, mid, hi};
    for (int i = 0; i < 3; i++) out[i] = tt_b_compare(g, TT_CMP_GT, v[i], tt_b_like_f(g, v[i], 0.5));
    return;
  }
  tt_val_t v[3] = {pinf, ninf, nan};
  for (int i = 0; i < 3; i++) {
    tt_val_t c = tt_nn_apply_dim(g, v[i], r, a, mat, mdim);
    out[i] = tt_b_compare(g, TT_CMP_GT, c, tt_b_like_f(g, c, 0.5));
  }
}

/* x's dim a contracted with matrix m (weights) as CPU's taps compute it:
 * the finite inputs by a dot; an output any of whose taps reads a NaN, or
 * an inf with weight 0, or infinities of both signs (after the weights'
 * signs) is NaN, else one reading an infinity is that infinity. Weights
 * are not negative. p, z: 0/1 matrices (m's type) of the positive and zero
 * weighted taps (z -1 when there are none); taps: the most taps one output
 * has. */
static tt_val_t contract_ieee(tt_graph_t *g, tt_val_t x, int r, int a, int mdim, tt_val_t m, tt_val_t p, tt_val_t z,
                              int64_t taps) {
  tt_dtype_t dt = tt_graph_type(g, x)->dtype;
  tt_val_t inf = tt_b_like_f(g, x, INFINITY);
  tt_val_t pinf = tt_b_convert(g, tt_b_compare(g, TT_CMP_EQ, x, inf), dt);
  tt_val_t ninf = tt_b_convert(g, tt_b_compare(g, TT_CMP_EQ, x, tt_b_unary(g, TT_UN_NEG, inf)), dt);
  tt_val_t isnan = tt_b_convert(g, tt_b_compare(g, TT_CMP_NE, x, x), dt);
  tt_val_t y = tt_nn_apply_dim(g, tt_b_select(g, tt_b_unary(g, TT_UN_IS_FINITE, x), x, tt_b_like_f(g, x, 0)), r, a, m, mdim);
  tt_val_t c[3];
  classes(g, pinf, ninf, isnan, r, a, mdim, p, taps, c);
  tt_val_t up = c[0], down = c[1], nan = c[2];
  if (z >= 0) { /* an infinity times a zero weight */
    classes(g, pinf, ninf, isnan, r, a, mdim, z, taps, c);
    nan = tt_b_binary(g, TT_BIN_OR, nan, tt_b_binary(g, TT_BIN_OR, c[0], tt_b_binary(g, TT_BIN_OR, c[1], c[2])));
  }
  nan = tt_b_binary(g, TT_BIN_OR, nan, tt_b_binary(g, TT_BIN_AND, up, down));
  y = tt_b_select(g, down, tt_b_like_f(g, y, -INFINITY), y);
  y = tt_b_select(g, up, tt_b_like_f(g, y, INFINITY), y);
  return tt_b_select(g, nan, tt_b_like_f(g, y, NAN), y);
}

tt_val_t tt_nn_window_sum(tt_graph_t *g, tt_val_t x, int r, int a, tt_val_t m, int mdim) {
  const tt_type_t *mt = tt_graph_type(g, m);
  return mt ? contract_ieee(g, x, r, a, mdim, m, m, -1, mt->dims[mdim]) : -1;
}

tt_val_t tt_nn_taps_contract(tt_graph_t *g, tt_val_t x, int r, int a, const tt_nn_taps_t *t, int64_t n_out, int64_t n_in,
                             int backward) {
  tt_dtype_t ct = tt_graph_type(g, x)->dtype;
  int64_t d[2] = {n_out, n_in}, zero = 0;
  tt_val_t col = tt_b_iota(g, TT_I64, 2, d, 1);
  tt_val_t m = -1, p = -1, z = -1;
  for (int k = 0; k < t->n; k++) {
    tt_val_t hit = tt_b_compare(g, TT_CMP_EQ, col, tt_b_broadcast(g, t->idx[k], 2, d, &zero));
    if (t->valid[k] >= 0) hit = tt_b_binary(g, TT_BIN_AND, hit, tt_b_broadcast(g, t->valid[k], 2, d, &zero));
    tt_val_t w = t->w[k] >= 0 ? tt_b_broadcast(g, t->w[k], 2, d, &zero) : tt_b_full_f(g, ct, 2, d, 1);
    tt_val_t wk = tt_b_select(g, hit, w, tt_b_like_f(g, w, 0));
    tt_val_t pk = tt_b_binary(g, TT_BIN_AND, hit, tt_b_compare(g, TT_CMP_GT, w, tt_b_like_f(g, w, 0)));
    tt_val_t zk = tt_b_binary(g, TT_BIN_AND, hit, tt_b_compare(g, TT_CMP_EQ, w, tt_b_like_f(g, w, 0)));
    m = k ? tt_b_binary(g, TT_BIN_ADD, m, wk) : wk;
    p = k ? tt_b_binary(g, TT_BIN_OR, p, pk) : pk;
    z = k ? tt_b_binary(g, TT_BIN_OR, z, zk) : zk;
  }
  /* taps per output: at most n; per input (backward), at most the outputs */
  int64_t most = backward ? n_out : t->n;
  return contract_ieee(g, x, r, a, backward ? 0 : 1, m, tt_b_convert(g, p, ct), tt_b_convert(g, z, ct), most);
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
    return tt_b_broadcast(g, tt_l_scalar(L, ct, (double)dv, 0, 1), n, q->out, NULL);
  }
  /* From a runtime 1, not a constant: XLA folds a constant divisor and turns
   * the division into a product with its rounded reciprocal (avg_pool1d of
   * ones with kernel 41 gave 0.99999994 where CPU gives 1). */
  tt_val_t ones = tt_b_broadcast(g, tt_l_scalar(L, ct, 1.0, 0, 1), n, q->in, NULL);
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
