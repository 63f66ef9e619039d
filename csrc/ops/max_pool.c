/* Max pooling over the nsp (2 or 3) trailing dims, forward (values and
 * in-plane indices) and backward, shared by max_pool2d and max_pool3d.
 *
 * Small windows (up to TT_MAX_POOL_SCAN_CELLS cells) are unrolled: one
 * strided slice of the padded input per window cell and PyTorch's scan rule
 * as elementwise selects, which every plugin fuses into one loop (XLA:CPU
 * ran the variadic reduce_window of 16x8x16x16 -> 2x2 windows in ~140 us,
 * the unrolled form in ~10). The backward mirrors it: per cell, the
 * gradients whose index names that cell, placed by an interior-padded pad
 * (PyTorch CUDA's rule: an input position collects from the windows that
 * cover it); windows that tile the input need no pads, one select over a
 * reshaped view. Larger windows keep the (value, index) reduce_window and the
 * scatter-add. */
#include <stdint.h>

#include "ops/nn_util.h"

#define TT_MAX_POOL_SCAN_CELLS 16

static int64_t cells(const tt_nn_pool_t *q) {
  int64_t n = 1;
  for (int i = 0; i < q->nsp; i++) n *= q->k[i];
  return n;
}

/* In-plane flat index h*W + w (or d*H*W + h*W + w) over the spatial dims. */
static tt_val_t plane_index(tt_graph_t *g, const tt_nn_pool_t *q) {
  tt_val_t flat = -1;
  int64_t mul = 1;
  for (int i = q->nsp - 1; i >= 0; i--) {
    tt_val_t t = tt_nn_mulc(g, tt_b_iota(g, TT_I64, q->nsp, q->in, i), (double)mul);
    flat = flat < 0 ? t : tt_b_binary(g, TT_BIN_ADD, flat, t);
    mul *= q->in[i];
  }
  return flat;
}

/* The plane index padded as the input is (padding reads INT64_MAX). */
static tt_val_t padded_plane_index(tt_graph_t *g, const tt_nn_pool_t *q) {
  int64_t lo[3], hi[3], in0[3] = {0, 0, 0};
  for (int i = 0; i < q->nsp; i++) lo[i] = q->p[i], hi[i] = q->pad_hi[i];
  return tt_b_pad(g, plane_index(g, q), tt_b_const_i(g, TT_I64, INT64_MAX), lo, hi, in0);
}

/* Window cell e's position per spatial dim (row-major over the kernel). */
static void cell_pos(const tt_nn_pool_t *q, int64_t e, int64_t *pos) {
  for (int i = q->nsp - 1; i >= 0; i--) pos[i] = e % q->k[i], e /= q->k[i];
}

/* Strided slice of a padded value (rank r, spatial dims last) holding cell
 * pos of every window: shape (.., out...). */
static tt_val_t cell_slice(tt_graph_t *g, tt_val_t xp, int r, const int64_t *dims, const tt_nn_pool_t *q, const int64_t *pos) {
  int64_t start[TT_MAX_RANK], limit[TT_MAX_RANK], stride[TT_MAX_RANK];
  int b0 = r - q->nsp;
  for (int i = 0; i < r; i++) start[i] = 0, limit[i] = dims[i], stride[i] = 1;
  for (int i = 0; i < q->nsp; i++) {
    start[b0 + i] = pos[i] * q->d[i];
    limit[b0 + i] = start[b0 + i] + (q->out[i] - 1) * q->s[i] + 1;
    stride[b0 + i] = q->s[i];
  }
  return tt_b_slice(g, xp, start, limit, stride);
}

/* Cell pos's plane indices broadcast to the output shape (rank r). */
static tt_val_t cell_index(tt_graph_t *g, tt_val_t fp, const tt_nn_pool_t *q, const int64_t *pos, int r, const int64_t *outd) {
  int64_t pd[3], bd[3];
  for (int i = 0; i < q->nsp; i++) pd[i] = q->in[i] + q->p[i] + q->pad_hi[i], bd[i] = r - q->nsp + i;
  return tt_b_broadcast(g, cell_slice(g, fp, q->nsp, pd, q, pos), r, outd, bd);
}

static void out_dims(const tt_nn_pool_t *q, const int64_t *xs, int64_t *outd) {
  int r = q->rank, b0 = r - q->nsp;
  for (int i = 0; i < r; i++) outd[i] = i < b0 ? xs[i] : q->out[i - b0];
}

static tt_val_t scan_forward(tt_graph_t *g, tt_val_t x, const int64_t *xs, const tt_nn_pool_t *q, tt_val_t *out_idx) {
  int r = q->rank, b0 = r - q->nsp;
  tt_dtype_t dt = tt_graph_type(g, x)->dtype;
  int64_t lo[TT_MAX_RANK] = {0}, hi[TT_MAX_RANK] = {0}, in0[TT_MAX_RANK] = {0}, pd[TT_MAX_RANK], outd[TT_MAX_RANK];
  for (int i = 0; i < r; i++) pd[i] = xs[i];
  for (int i = 0; i < q->nsp; i++) lo[b0 + i] = q->p[i], hi[b0 + i] = q->pad_hi[i], pd[b0 + i] += q->p[i] + q->pad_hi[i];
  out_dims(q, xs, outd);
  tt_val_t xp = tt_b_pad(g, x, tt_b_lowest(g, dt), lo, hi, in0), fp = padded_plane_index(g, q);
  tt_val_t best = -1, idx = -1;
  int64_t pos[3];
  for (int64_t e = 0; e < cells(q); e++) {
    cell_pos(q, e, pos);
    tt_val_t v = cell_slice(g, xp, r, pd, q, pos), f = cell_index(g, fp, q, pos, r, outd);
    if (e == 0) {
      best = v, idx = f;
      continue;
    }
    /* Greater wins; NaN wins (a later NaN over an earlier one); an equal
     * value wins only over padding (a smaller index: the first in-bounds
     * cell is the default, as in PyTorch's scan). */
    tt_val_t take = tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_GT, v, best),
                                tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_EQ, v, best), tt_b_compare(g, TT_CMP_LT, f, idx)));
    if (tt_dtype_is_float(dt)) take = tt_b_binary(g, TT_BIN_OR, take, tt_b_compare(g, TT_CMP_NE, v, v));
    best = tt_b_select(g, take, v, best);
    idx = tt_b_select(g, take, f, idx);
  }
  *out_idx = idx;
  return best;
}

static tt_val_t max_pool(tt_graph_t *g, tt_val_t x, const int64_t *xs, const tt_nn_pool_t *q, tt_val_t *out_idx) {
  if (cells(q) <= TT_MAX_POOL_SCAN_CELLS) return scan_forward(g, x, xs, q, out_idx);
  int r = q->rank, b0 = r - q->nsp;
  int64_t lo[TT_MAX_RANK] = {0}, hi[TT_MAX_RANK] = {0}, win[TT_MAX_RANK], str[TT_MAX_RANK], dil[TT_MAX_RANK], bd[3];
  for (int i = 0; i < r; i++) win[i] = str[i] = dil[i] = 1;
  for (int i = 0; i < q->nsp; i++) {
    lo[b0 + i] = q->p[i], hi[b0 + i] = q->pad_hi[i];
    win[b0 + i] = q->k[i], str[b0 + i] = q->s[i], dil[b0 + i] = q->d[i], bd[i] = b0 + i;
  }
  tt_val_t flat = tt_b_broadcast(g, plane_index(g, q), r, xs, bd);
  return tt_b_argmax_window(g, x, flat, win, str, dil, lo, hi, out_idx);
}

/* Windows that tile the input (stride = kernel, no dilation): the gradient
 * is one select over the (.., out0, k0, out1, k1 ..) view of the covered
 * region, then reshaped, padded to the padded input and cropped. */
static int tiles(const tt_nn_pool_t *q) {
  for (int i = 0; i < q->nsp; i++)
    if (q->s[i] != q->k[i] || q->d[i] != 1) return 0;
  return 1;
}

static tt_val_t tiled_backward(tt_graph_t *g, tt_val_t gy, tt_val_t idx, const int64_t *xs, const tt_nn_pool_t *q) {
  int r = q->rank, b0 = r - q->nsp, rt = r + q->nsp;
  int64_t td[TT_MAX_RANK], bd_out[TT_MAX_RANK], bd_f[3 * 2], cov[3], fd[3 * 2];
  int64_t start[TT_MAX_RANK] = {0}, limit[TT_MAX_RANK], stride[TT_MAX_RANK], lo[TT_MAX_RANK] = {0}, hi[TT_MAX_RANK] = {0}, in0[TT_MAX_RANK] = {0};
  for (int i = 0; i < b0; i++) td[i] = xs[i], bd_out[i] = i;
  for (int i = 0; i < q->nsp; i++) {
    td[b0 + 2 * i] = q->out[i], td[b0 + 2 * i + 1] = q->k[i];
    bd_out[b0 + i] = b0 + 2 * i;
    fd[2 * i] = q->out[i], fd[2 * i + 1] = q->k[i];
    bd_f[2 * i] = b0 + 2 * i, bd_f[2 * i + 1] = b0 + 2 * i + 1;
    cov[i] = q->out[i] * q->k[i];
  }
  int64_t z[3] = {0, 0, 0}, one[3] = {1, 1, 1};
  tt_val_t f = tt_b_reshape(g, tt_b_slice(g, padded_plane_index(g, q), z, cov, one), 2 * q->nsp, fd);
  f = tt_b_broadcast(g, f, rt, td, bd_f);
  tt_dtype_t ct = tt_graph_type(g, gy)->dtype;
  tt_val_t part = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, tt_b_broadcast(g, idx, rt, td, bd_out), f),
                              tt_b_broadcast(g, gy, rt, td, bd_out), tt_b_full_f(g, ct, rt, td, 0));
  int64_t pd[TT_MAX_RANK];
  for (int i = 0; i < r; i++) pd[i] = i < b0 ? xs[i] : cov[i - b0];
  part = tt_b_reshape(g, part, r, pd);
  for (int i = 0; i < q->nsp; i++) hi[b0 + i] = q->in[i] + q->p[i] + q->pad_hi[i] - cov[i];
  part = tt_b_pad(g, part, tt_b_const_f(g, ct, 0), lo, hi, in0);
  for (int i = 0; i < r; i++) limit[i] = xs[i], stride[i] = 1;
  for (int i = 0; i < q->nsp; i++) start[b0 + i] = q->p[i], limit[b0 + i] = q->p[i] + q->in[i];
  return tt_b_slice(g, part, start, limit, stride);
}

static tt_val_t max_pool_backward(tt_graph_t *g, tt_val_t gy, tt_val_t idx, const int64_t *xs, const tt_nn_pool_t *q) {
  if (tiles(q)) return tiled_backward(g, gy, idx, xs, q);
  int r = q->rank, b0 = r - q->nsp;
  int64_t plane = 1, planes = 1, nout = 1;
  for (int i = 0; i < q->nsp; i++) plane *= q->in[i], nout *= q->out[i];
  for (int i = 0; i < b0; i++) planes *= xs[i];
  if (cells(q) > TT_MAX_POOL_SCAN_CELLS)
    return tt_b_reshape(g, tt_nn_scatter_flat(g, gy, idx, planes, nout, plane), r, xs);
  int64_t outd[TT_MAX_RANK], lo[TT_MAX_RANK] = {0}, hi[TT_MAX_RANK] = {0}, inner[TT_MAX_RANK] = {0};
  int64_t start[TT_MAX_RANK] = {0}, limit[TT_MAX_RANK], stride[TT_MAX_RANK], pos[3];
  out_dims(q, xs, outd);
  tt_val_t fp = padded_plane_index(g, q), zero = tt_b_full_f(g, tt_graph_type(g, gy)->dtype, r, outd, 0), acc = -1;
  for (int64_t e = 0; e < cells(q); e++) {
    cell_pos(q, e, pos);
    tt_val_t part = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, idx, cell_index(g, fp, q, pos, r, outd)), gy, zero);
    /* Spread back to the padded input: cell pos of output o sits at
     * pos*d + o*s. */
    for (int i = 0; i < q->nsp; i++) {
      int64_t padded = q->in[i] + q->p[i] + q->pad_hi[i];
      lo[b0 + i] = pos[i] * q->d[i];
      inner[b0 + i] = q->s[i] - 1;
      hi[b0 + i] = padded - (lo[b0 + i] + (q->out[i] - 1) * q->s[i] + 1);
    }
    part = tt_b_pad(g, part, tt_b_const_f(g, tt_graph_type(g, gy)->dtype, 0), lo, hi, inner);
    acc = acc < 0 ? part : tt_b_binary(g, TT_BIN_ADD, acc, part);
  }
  for (int i = 0; i < r; i++) limit[i] = xs[i], stride[i] = 1;
  for (int i = 0; i < q->nsp; i++) start[b0 + i] = q->p[i], limit[b0 + i] = q->p[i] + q->in[i];
  return tt_b_slice(g, acc, start, limit, stride);
}

tt_status_t tt_nn_max_pool(tt_lower_t *L, const tt_nn_pool_t *q) {
  tt_val_t idx;
  tt_val_t best = max_pool(L->g, tt_l_tensor(L, 0), tt_l_arg_sizes(L, 0), q, &idx);
  tt_l_output(L, best);
  tt_l_output(L, idx);
  return NULL;
}

tt_status_t tt_nn_max_pool_backward(tt_lower_t *L, const tt_nn_pool_t *q) {
  tt_graph_t *g = L->g;
  tt_dtype_t dt = tt_l_arg_dtype(L, 1), ct = tt_op_math_type(dt);
  tt_val_t gy = tt_b_convert(g, tt_l_tensor(L, 0), ct);
  tt_val_t idx = tt_b_convert(g, tt_l_tensor(L, 7), TT_I64);
  tt_l_output(L, tt_b_convert(g, max_pool_backward(g, gy, idx, tt_l_arg_sizes(L, 1), q), dt));
  return NULL;
}
