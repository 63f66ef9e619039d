/* Lowerings of 2-D pooling: max_pool2d_with_indices (+backward), avg_pool2d
 * (+backward), _adaptive_avg_pool2d (+backward), over the last two dims of
 * (N, C, H, W) or (C, H, W) inputs; max_unpool2d/3d. */
#include <math.h>
#include <string.h>

#include "ops/families.h"
#include "ops/dispatch_refusal.h"
#include "ops/nn_util.h"

/* Validates and fills the geometry; is_max selects max-pool messages. */
static int setup(tt_lower_t *L, int ix, int ik, int is, int ip, int id, int ceil_mode, int is_max, tt_nn_pool_t *q) {
  const tt_tensor_ref_t *x = tt_l_ref(L, ix);
  if (!x) { tt_l_fail(L, TT_TYPE_ERROR, "%s: expected a Tensor input", L->op); return 0; }
  memset(q, 0, sizeof *q);
  q->rank = x->view.rank;
  q->nsp = 2;
  if (q->rank != 3 && q->rank != 4) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "non-empty 3D or 4D (batch mode) tensor expected for input");
    return 0;
  }
  /* CPU's kernels: max pooling takes every dtype but bool, avg pooling
   * floats and int64 (an integer sum divided with truncation). */
  if (is_max ? x->dtype == TT_BOOL : !tt_dtype_is_float(x->dtype) && x->dtype != TT_I64) {
    tt_l_refuse_dtype(L, x->dtype, "%s", is_max ? "max_pool2d" : "avg_pool2d");
    return 0;
  }
  static const int64_t zero[2] = {0, 0}, one[2] = {1, 1};
  if (!tt_nn_pool_ints(L, ik, 2, NULL, q->k)) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: kernel_size must either be a single int, or a tuple of two ints", L->op);
    return 0;
  }
  if (!tt_nn_pool_ints(L, is, 2, q->k, q->s) || !tt_nn_pool_ints(L, ip, 2, zero, q->p) ||
      (id >= 0 && !tt_nn_pool_ints(L, id, 2, one, q->d))) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: stride, padding and dilation must be a single int or a tuple of two ints", L->op);
    return 0;
  }
  if (id < 0) q->d[0] = q->d[1] = 1;
  q->ceil_mode = ceil_mode;
  for (int i = 0; i < 2; i++) {
    q->in[i] = x->view.sizes[q->rank - 2 + i];
    if (q->k[i] <= 0 || q->s[i] <= 0 || q->d[i] <= 0) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "kernel size, stride and dilation should be greater than zero");
      return 0;
    }
    if (q->p[i] < 0 || q->p[i] > (q->d[i] * (q->k[i] - 1) + 1) / 2) {
      if (is_max)
        tt_l_fail(L, TT_INVALID_ARGUMENT, "pad should be at most half of effective kernel size, but got pad=%lld, kernel_size=%lld and dilation=%lld",
                  (long long)q->p[i], (long long)q->k[i], (long long)q->d[i]);
      else
        tt_l_fail(L, TT_INVALID_ARGUMENT, "pad should be smaller than or equal to half of kernel size, but got padW = %lld, padH = %lld, kW = %lld, kH = %lld",
                  (long long)q->p[1], (long long)q->p[0], (long long)q->k[1], (long long)q->k[0]);
      return 0;
    }
    q->out[i] = tt_nn_pool_out_size(q->in[i], q->k[i], q->p[i], q->s[i], q->d[i], ceil_mode);
    int64_t need = (q->out[i] - 1) * q->s[i] + q->d[i] * (q->k[i] - 1) + 1 - q->in[i] - q->p[i];
    q->pad_hi[i] = need > 0 ? need : 0;
  }
  if (q->out[0] < 1 || q->out[1] < 1) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "Given input size: (%lldx%lld). Calculated output size: (%lldx%lld). Output size is too small",
              (long long)q->in[0], (long long)q->in[1], (long long)q->out[0], (long long)q->out[1]);
    return 0;
  }
  return 1;
}

/* max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode):
 * PyTorch's scan rule (take a value if it is greater or NaN; the first
 * in-bounds position is the default), ops/max_pool.c. */
static tt_status_t lower_max_pool2d(tt_lower_t *L) {
  tt_nn_pool_t q;
  if (!setup(L, 0, 1, 2, 3, 4, tt_l_bool(L, 5, 0), 1, &q)) return NULL;
  return tt_nn_max_pool(L, &q);
}

/* max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride,
 * padding, dilation, ceil_mode, indices): each input position collects the
 * gradients whose index names it, in float32 for bf16/f16. */
static tt_status_t lower_max_pool2d_backward(tt_lower_t *L) {
  tt_nn_pool_t q;
  if (!setup(L, 1, 2, 3, 4, 5, tt_l_bool(L, 6, 0), 1, &q)) return NULL;
  return tt_nn_max_pool_backward(L, &q);
}

/* avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override) */
static tt_status_t lower_avg_pool2d(tt_lower_t *L) {
  tt_nn_pool_t q;
  if (!setup(L, 0, 1, 2, 3, -1, tt_l_bool(L, 4, 0), 0, &q)) return NULL;
  return tt_nn_avg_pool(L, &q, tt_l_bool(L, 5, 1), 6);
}

/* avg_pool2d_backward(grad_output, self, kernel_size, stride, padding,
 * ceil_mode, count_include_pad, divisor_override) */
static tt_status_t lower_avg_pool2d_backward(tt_lower_t *L) {
  tt_nn_pool_t q;
  if (!setup(L, 1, 2, 3, 4, -1, tt_l_bool(L, 5, 0), 0, &q)) return NULL;
  return tt_nn_avg_pool_backward(L, &q, tt_l_bool(L, 6, 1), 7);
}

/* Adaptive pooling along one dim as a 0/1 matrix M (out, in) with the
 * windows [floor(o*in/out), ceil((o+1)*in/out)) and their lengths (out). */
static tt_val_t adaptive_matrix(tt_graph_t *g, int64_t in, int64_t out, tt_dtype_t ct, tt_val_t *len) {
  int64_t d[2] = {out, in};
  tt_val_t o = tt_b_iota(g, TT_I64, 2, d, 0), i = tt_b_iota(g, TT_I64, 2, d, 1);
  tt_val_t start = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_MUL, o, tt_b_like_f(g, o, (double)in)), tt_b_like_f(g, o, (double)out));
  tt_val_t o1 = tt_b_binary(g, TT_BIN_ADD, o, tt_b_like_f(g, o, 1));
  tt_val_t end = tt_b_binary(g, TT_BIN_DIV,
                             tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_MUL, o1, tt_b_like_f(g, o, (double)in)), tt_b_like_f(g, o, (double)(out - 1))),
                             tt_b_like_f(g, o, (double)out));
  tt_val_t m = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_GE, i, start), tt_b_compare(g, TT_CMP_LT, i, end));
  tt_val_t mf = tt_b_convert(g, m, ct);
  int64_t one = 1;
  *len = tt_b_reduce(g, TT_RED_SUM, mf, 1, &one);
  return mf;
}

static int adaptive_setup(tt_lower_t *L, int ix, int64_t *out) {
  const tt_tensor_ref_t *x = tt_l_ref(L, ix);
  if (!x || (x->view.rank != 3 && x->view.rank != 4)) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got %d dims", x ? x->view.rank : 0);
    return 0;
  }
  if (!tt_dtype_is_float(x->dtype)) {
    tt_l_refuse_dtype(L, x->dtype, "adaptive_avg_pool2d");
    return 0;
  }
  for (int i = 0; i < x->view.rank - 2; i++)
    if (x->view.sizes[i] == 0 && i > 0) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions");
      return 0;
    }
  (void)out;
  return 1;
}

/* _adaptive_avg_pool2d(self, output_size): separable window sums by 0/1
 * matrices (tt_nn_window_sum: an inf or NaN stays in its windows), divided by the window areas as PyTorch does. */
static tt_status_t lower_adaptive_avg_pool2d(tt_lower_t *L) {
  int64_t os[2];
  if (!adaptive_setup(L, 0, os) || !tt_nn_pool_ints(L, 1, 2, NULL, os)) {
    if (!tt_graph_failed(L->g)) tt_l_fail(L, TT_INVALID_ARGUMENT, "adaptive_avg_pool2d: output_size must be 2");
    return NULL;
  }
  if (os[0] < 0 || os[1] < 0) return tt_status_make(TT_INVALID_ARGUMENT, "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0");
  tt_graph_t *g = L->g;
  int r = tt_l_arg_rank(L, 0);
  const int64_t *xs = tt_l_arg_sizes(L, 0);
  tt_dtype_t dt = tt_l_arg_dtype(L, 0), ct = tt_op_math_type(dt);
  tt_val_t lh, lw;
  tt_val_t mh = adaptive_matrix(g, xs[r - 2], os[0], ct, &lh), mw = adaptive_matrix(g, xs[r - 1], os[1], ct, &lw);
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), ct);
  tt_val_t y = tt_nn_window_sum(g, tt_nn_window_sum(g, x, r, r - 2, mh, 1), r, r - 1, mw, 1);
  int64_t one = 1, zero = 0;
  int64_t ad[2] = {os[0], os[1]};
  tt_val_t area = tt_b_binary(g, TT_BIN_MUL, tt_b_broadcast(g, lh, 2, ad, &zero), tt_b_broadcast(g, lw, 2, ad, &one));
  if (tt_graph_failed(g)) return NULL;
  const tt_type_t *yt = tt_graph_type(g, y);
  y = tt_b_binary(g, TT_BIN_DIV, y, tt_b_broadcast_to(g, area, yt->rank, yt->dims));
  tt_l_output(L, tt_b_convert(g, y, dt));
  return NULL;
}

/* _adaptive_avg_pool2d_backward(grad_output, self) */
static tt_status_t lower_adaptive_avg_pool2d_backward(tt_lower_t *L) {
  int64_t os[2];
  if (!adaptive_setup(L, 1, os)) return NULL;
  tt_graph_t *g = L->g;
  int r = tt_l_arg_rank(L, 1);
  if (tt_l_arg_rank(L, 0) != r) return tt_status_make(TT_INVALID_ARGUMENT, "adaptive_avg_pool2d_backward: grad_output rank differs from input");
  const int64_t *xs = tt_l_arg_sizes(L, 1), *gs = tt_l_arg_sizes(L, 0);
  os[0] = gs[r - 2];
  os[1] = gs[r - 1];
  tt_dtype_t dt = tt_l_arg_dtype(L, 1), ct = tt_op_math_type(dt);
  tt_val_t lh, lw;
  tt_val_t mh = adaptive_matrix(g, xs[r - 2], os[0], ct, &lh), mw = adaptive_matrix(g, xs[r - 1], os[1], ct, &lw);
  int64_t one = 1, zero = 0;
  tt_val_t area = tt_b_binary(g, TT_BIN_MUL, tt_b_broadcast(g, lh, 2, os, &zero), tt_b_broadcast(g, lw, 2, os, &one));
  tt_val_t gy = tt_b_convert(g, tt_l_tensor(L, 0), ct);
  if (tt_graph_failed(g)) return NULL;
  const tt_type_t *gt = tt_graph_type(g, gy);
  gy = tt_b_binary(g, TT_BIN_DIV, gy, tt_b_broadcast_to(g, area, gt->rank, gt->dims));
  tt_val_t gx = tt_nn_window_sum(g, tt_nn_window_sum(g, gy, r, r - 2, mh, 0), r, r - 1, mw, 0);
  tt_l_output(L, tt_b_convert(g, gx, dt));
  return NULL;
}

/* max_unpool2d(self, indices, output_size) / max_unpool3d(self, indices,
 * output_size, stride, padding): zeros of the output size with each input
 * value stored at its recorded flat in-plane index (a scatter per plane). */
static tt_status_t max_unpool(tt_lower_t *L, int nsp) {
  const char *name = nsp == 2 ? "max_unpool2d" : "max_unpool3d";
  int64_t osz[3];
  int r = tt_l_arg_rank(L, 0);
  if (tt_l_ints(L, 2, osz, 3) != nsp)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: output_size must have %d elements", name, nsp);
  if (r != nsp + 1 && r != nsp + 2)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: Expected %dD or %dD tensor for self, but got %dD", name, nsp + 1, nsp + 2, r);
  if (tt_l_arg_dtype(L, 1) != TT_I64)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: elements in indices should be type int64 but got: %s", name,
                          tt_op_type_name(tt_l_arg_dtype(L, 1)));
  const int64_t *xs = tt_l_arg_sizes(L, 0), *is = tt_l_arg_sizes(L, 1);
  if (tt_l_arg_rank(L, 1) != r || memcmp(xs, is, sizeof(int64_t) * (size_t)r))
    return tt_status_make(TT_INVALID_ARGUMENT, "Expected shape of indices to be same as that of the input tensor");
  tt_graph_t *g = L->g;
  int64_t planes = 1, nin = 1, nout = 1;
  for (int i = 0; i < r - nsp; i++) planes *= xs[i];
  for (int i = 0; i < nsp; i++) { nin *= xs[r - nsp + i]; nout *= osz[i]; }
  int64_t d3[3] = {planes, nin, 1};
  tt_val_t idx = tt_b_reshape(g, tt_l_tensor(L, 1), 3, d3);
  tt_l_check_index(L, idx, 0, nout, r - nsp, TT_CHECK_DIM);
  tt_val_t y = tt_nn_scatter_flat_kind(g, TT_RED_SET, tt_l_tensor(L, 0), idx, planes, nin, nout);
  int64_t ys[TT_MAX_RANK];
  for (int i = 0; i < r - nsp; i++) ys[i] = xs[i];
  for (int i = 0; i < nsp; i++) ys[r - nsp + i] = osz[i];
  tt_l_output(L, tt_b_reshape(g, y, r, ys));
  return NULL;
}
static tt_status_t lower_max_unpool2d(tt_lower_t *L) { return max_unpool(L, 2); }
static tt_status_t lower_max_unpool3d(tt_lower_t *L) { return max_unpool(L, 3); }

const tt_op_def_t tt_ops_pool[] = {
    {"max_pool2d_with_indices", lower_max_pool2d, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"max_pool2d_with_indices_backward", lower_max_pool2d_backward, 0},
    {"max_unpool2d", lower_max_unpool2d, 0},
    {"max_unpool3d", lower_max_unpool3d, 0},
    {"avg_pool2d", lower_avg_pool2d, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"avg_pool2d_backward", lower_avg_pool2d_backward, 0},
    {"_adaptive_avg_pool2d", lower_adaptive_avg_pool2d, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"_adaptive_avg_pool2d_backward", lower_adaptive_avg_pool2d_backward, 0},
    {NULL, NULL, 0},
};
