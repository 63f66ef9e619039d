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
 * dim of m takes dim a's place. */
tt_val_t tt_nn_apply_dim(tt_graph_t *g, tt_val_t x, int r, int a, tt_val_t m, int mdim);
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
