/* Helpers shared by the nn lowerings (upsampling, pools, padding): per-dim
 * gathers, per-dim weight matrices, scatters, pooling geometry. */
#ifndef TT_OPS_NN_UTIL_H
#define TT_OPS_NN_UTIL_H

#include "ops/common.h"

/* x with dim a replaced by x[..., idx[k], ...] for the n int64 indices idx (n). */
tt_val_t tt_nn_gather_dim(tt_graph_t *g, tt_val_t x, int a, tt_val_t idx, int64_t n);
/* out with out[idx[k], ...] (kind)= upd[k, ...] for the n int64 indices idx
 * (n): the scatter counterpart of tt_nn_gather_dim along dim 0. Indices out
 * of range are dropped (XLA's scatter semantics). */
tt_val_t tt_nn_scatter_dim0(tt_graph_t *g, tt_reduce_t kind, tt_val_t out, tt_val_t idx, tt_val_t upd, int64_t n);
/* Contracts dim a of x (rank r) with dim `mdim` of the matrix m; the other
 * dim of m takes dim a's place. Every input meets every output (0 * inf is
 * NaN): only for finite data, or through tt_nn_window_sum. */
tt_val_t tt_nn_apply_dim(tt_graph_t *g, tt_val_t x, int r, int a, tt_val_t m, int mdim);
/* tt_nn_apply_dim for a 0/1 matrix m (in the math type of x) with IEEE sums:
 * each output is the sum of exactly the inputs m selects, so an inf or NaN
 * reaches only the outputs whose window holds it (finite values contract;
 * counts of +inf, -inf and NaN per window, also contracted, set the
 * non-finite results). */
tt_val_t tt_nn_window_sum(tt_graph_t *g, tt_val_t x, int r, int a, tt_val_t m, int mdim);
/* One dim of a resampling as taps, as PyTorch's CPU kernels compute it:
 * output position o (of n_out) is sum over k of w[k][o] * x[idx[k][o]], over
 * the taps whose valid[k][o] holds. idx: int64 (n_out), in range where
 * valid; w: (n_out) in the math type, or -1 for weight 1; valid: bool
 * (n_out), or -1 for always. A zero weight still multiplies its input, as on
 * CPU (0 * inf is NaN there too); an invalid tap is not read. */
#define TT_NN_TAPS_MAX 128
typedef struct {
  int n;
  tt_val_t idx[TT_NN_TAPS_MAX], w[TT_NN_TAPS_MAX], valid[TT_NN_TAPS_MAX];
} tt_nn_taps_t;
/* x's dim a resampled to t's n_out positions. */
tt_val_t tt_nn_taps_apply(tt_graph_t *g, tt_val_t x, int a, const tt_nn_taps_t *t, int64_t n_out);
/* The transpose: the gradient gy (dim a of n_out) scatter-added into dim a of
 * n_in positions, w * gy at each tap's index. */
tt_val_t tt_nn_taps_backward(tt_graph_t *g, tt_val_t gy, int a, const tt_nn_taps_t *t, int64_t n_in);
/* The same results through an (n_out, n_in) weight matrix (x of rank r, in
 * the math type; backward: gy's dim a of n_out to n_in): one dot for the
 * finite values and a few 0/1 ones that place infinities and NaN where the
 * taps put them. Cheaper than gathers where taps are many and the matrix
 * small (antialiased downsampling). Weights must not be negative. */
tt_val_t tt_nn_taps_contract(tt_graph_t *g, tt_val_t x, int r, int a, const tt_nn_taps_t *t, int64_t n_out, int64_t n_in,
                             int backward);
/* Sum of scatter-adds: (planes, n) updates to flat positions idx (planes, n)
 * of a zero (planes, size) tensor. */
tt_val_t tt_nn_scatter_flat(tt_graph_t *g, tt_val_t upd, tt_val_t idx, int64_t planes, int64_t n, int64_t size);
/* The same scatter with another combiner (TT_RED_SET: stores). */
tt_val_t tt_nn_scatter_flat_kind(tt_graph_t *g, tt_reduce_t kind, tt_val_t upd, tt_val_t idx, int64_t planes, int64_t n, int64_t size);
/* Geometry of one pooling call over the nsp (2 or 3) trailing dims of a
 * rank-`rank` input: spatial sizes, kernel, stride, padding, dilation. */
typedef struct {
  int rank, nsp;
  int64_t in[3], out[3], k[3], s[3], p[3], d[3];
  int64_t pad_hi[3]; /* high padding that makes exactly out windows */
  int ceil_mode;
} tt_nn_pool_t;
/* PyTorch's pooling_output_shape for one spatial dim. */
int64_t tt_nn_pool_out_size(int64_t in, int64_t k, int64_t p, int64_t s, int64_t d, int ceil_mode);
/* Reads the int[nsp] argument i into out (one value means all of them);
 * dflt when i < 0 or the argument is None or empty. 0 when malformed. */
int tt_nn_pool_ints(tt_lower_t *L, int i, int nsp, const int64_t *dflt, int64_t *out);
/* The average-pool divisor per output cell (shape q->out) in ct: argument
 * idiv's divisor_override when given (zero fails as on CPU), otherwise the
 * window sizes, counting the padding when count_include_pad. */
tt_val_t tt_nn_avg_divisor(tt_lower_t *L, const tt_nn_pool_t *q, int count_include_pad, int idiv, tt_dtype_t ct);
/* avg_pool2d/3d(self, ...) with geometry q: window sums in the math type
 * divided by tt_nn_avg_divisor; outputs the result in self's type. */
tt_status_t tt_nn_avg_pool(tt_lower_t *L, const tt_nn_pool_t *q, int count_include_pad, int idiv);
/* avg_pool2d/3d_backward(grad_output, self, ...): each input position sums
 * grad/divisor over the windows covering it, i.e. a stride-1 window sum over
 * the gradient dilated by the stride. Outputs the gradient of self. */
tt_status_t tt_nn_avg_pool_backward(tt_lower_t *L, const tt_nn_pool_t *q, int count_include_pad, int idiv);
/* max_pool2d/3d_with_indices(self, ...) with geometry q: the window maxima
 * and their in-plane flat indices (int64), PyTorch's scan rule (greater or
 * NaN wins, the first in-bounds cell by default). In ops/max_pool.c. */
tt_status_t tt_nn_max_pool(tt_lower_t *L, const tt_nn_pool_t *q);
/* Their backward(grad_output, self, ..., indices at argument 7): the gradient
 * of self, accumulated in the opmath type. */
tt_status_t tt_nn_max_pool_backward(tt_lower_t *L, const tt_nn_pool_t *q);
/* Elementwise helpers over same-shaped values. */
tt_val_t tt_nn_addc(tt_graph_t *g, tt_val_t x, double c);
tt_val_t tt_nn_mulc(tt_graph_t *g, tt_val_t x, double c);

#endif
