/* Dtype views of a flat base (Tensor.view(dtype)): the same bytes read as
 * another element type, in either direction. */
#include "views/view.h"

#include "ir/builder.h"

int64_t tt_view_bitcast_numel(tt_dtype_t from, int64_t numel, tt_dtype_t to) {
  int64_t bytes = numel * (int64_t)tt_dtype_size(from), ts = (int64_t)tt_dtype_size(to);
  return (bytes + ts - 1) / ts;
}

/* flat (rank 1) cut or zero-padded to n elements. */
static tt_val_t fit(tt_graph_t *g, tt_val_t flat, int64_t n) {
  if (flat < 0) return -1;
  const tt_type_t *t = tt_graph_type(g, flat);
  int64_t have = t->dims[0];
  if (have == n) return flat;
  if (have > n) return tt_b_slice_dim(g, flat, 0, 0, n, 1);
  int64_t lo = 0, hi = n - have, in = 0;
  return tt_b_pad(g, flat, tt_b_const_i(g, t->dtype, 0), &lo, &hi, &in);
}

tt_val_t tt_view_bitcast_flat(tt_graph_t *g, tt_val_t flat, tt_dtype_t to, int64_t to_numel) {
  if (flat < 0 || tt_graph_failed(g)) return -1;
  tt_dtype_t from = tt_graph_type(g, flat)->dtype;
  if (from == to) return fit(g, flat, to_numel);
  /* i1 has no byte layout in StableHLO: bool storage is bytes of 0/1. */
  /* Complex types have no bitcast in StableHLO: a complex element is its two
   * parts side by side (re, im), as in memory. */
  if (tt_dtype_is_complex(from)) {
    int64_t n = tt_graph_type(g, flat)->dims[0], two[2] = {n, 1}, n2 = 2 * n;
    tt_val_t parts[2] = {tt_b_reshape(g, tt_b_unary(g, TT_UN_REAL, flat), 2, two),
                         tt_b_reshape(g, tt_b_unary(g, TT_UN_IMAG, flat), 2, two)};
    tt_val_t pairs = tt_b_reshape(g, tt_b_concat(g, 2, parts, 1), 1, &n2);
    return tt_view_bitcast_flat(g, pairs, to, to_numel);
  }
  if (tt_dtype_is_complex(to)) {
    tt_dtype_t pt = tt_dtype_real_part(to);
    int64_t pairs[2] = {to_numel, 2};
    tt_val_t x = tt_b_reshape(g, tt_view_bitcast_flat(g, flat, pt, 2 * to_numel), 2, pairs);
    int64_t n = to_numel;
    tt_val_t re = tt_b_reshape(g, tt_b_slice_dim(g, x, 1, 0, 1, 1), 1, &n);
    tt_val_t im = tt_b_reshape(g, tt_b_slice_dim(g, x, 1, 1, 2, 1), 1, &n);
    return tt_b_binary(g, TT_BIN_COMPLEX, re, im);
  }
  if (from == TT_BOOL) return tt_view_bitcast_flat(g, tt_b_convert(g, flat, TT_U8), to, to_numel);
  if (to == TT_BOOL) return tt_b_convert(g, tt_view_bitcast_flat(g, flat, TT_U8, to_numel), TT_BOOL);
  int64_t fs = (int64_t)tt_dtype_size(from), ts = (int64_t)tt_dtype_size(to);
  if (fs >= ts) { /* each element splits into fs/ts narrower ones */
    int64_t n = tt_graph_type(g, flat)->dims[0] * (fs / ts);
    tt_val_t x = tt_b_bitcast(g, flat, to);
    return fit(g, tt_b_reshape(g, x, 1, &n), to_numel);
  }
  int64_t dims[2] = {to_numel, ts / fs}; /* groups of narrower elements join */
  tt_val_t x = tt_b_reshape(g, fit(g, flat, dims[0] * dims[1]), 2, dims);
  return tt_b_bitcast(g, x, to);
}
