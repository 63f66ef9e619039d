/* Lowerings of 3-D pooling over the last three dims of (N, C, D, H, W) or
 * (C, D, H, W): max_pool3d_with_indices (+ backward), avg_pool3d (+
 * backward). Same methods as pool.c's 2-D versions; the average pools share nn_util's code. */
#include <math.h>
#include <string.h>

#include "ops/families.h"
#include "ops/dispatch_refusal.h"
#include "ops/nn_util.h"

static int setup(tt_lower_t *L, const char *name, int ix, int ik, int is, int ip, int id, int ceil_mode, int is_max, tt_nn_pool_t *q) {
  memset(q, 0, sizeof *q);
  q->rank = tt_l_arg_rank(L, ix);
  q->nsp = 3;
  q->ceil_mode = ceil_mode;
  const int64_t *xs = tt_l_arg_sizes(L, ix);
  if (q->rank != 4 && q->rank != 5) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "non-empty 4D or 5D (batch mode) tensor expected for input");
    return 0;
  }
  /* CPU's kernels: max pooling takes every dtype but bool, avg pooling
   * floats and int64 (its kernel's name in the message). */
  tt_dtype_t dt = tt_l_arg_dtype(L, ix);
  if (is_max ? dt == TT_BOOL : !tt_dtype_is_float(dt) && dt != TT_I64) {
    tt_l_refuse_dtype(L, dt, "%s", is_max ? "max_pool3d" : "avg_pool3d_out_frame");
    return 0;
  }
  static const int64_t zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
  if (!tt_nn_pool_ints(L, ik, 3, NULL, q->k)) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: kernel_size must either be a single int, or a tuple of three ints", name);
    return 0;
  }
  if (!tt_nn_pool_ints(L, is, 3, q->k, q->s) || !tt_nn_pool_ints(L, ip, 3, zero, q->p) || !tt_nn_pool_ints(L, id, 3, one, q->d)) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: stride, padding and dilation must be a single int or a tuple of three ints", name);
    return 0;
  }
  for (int i = 0; i < 3; i++) {
    q->in[i] = xs[q->rank - 3 + i];
    if (q->k[i] <= 0 || q->s[i] <= 0 || q->d[i] <= 0) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "kernel size, stride and dilation should be greater than zero");
      return 0;
    }
    int64_t half = is_max ? (q->d[i] * (q->k[i] - 1) + 1) / 2 : q->k[i] / 2;
    if (q->p[i] < 0 || q->p[i] > half) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "pad should be smaller than or equal to half of kernel size, but got pad=%lld, kernel_size=%lld",
                (long long)q->p[i], (long long)q->k[i]);
      return 0;
    }
    q->out[i] = tt_nn_pool_out_size(q->in[i], q->k[i], q->p[i], q->s[i], q->d[i], ceil_mode);
    if (q->out[i] < 1) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "Given input size: (%lldx%lldx%lld). Calculated output size is too small", (long long)xs[q->rank - 3],
                (long long)xs[q->rank - 2], (long long)xs[q->rank - 1]);
      return 0;
    }
    int64_t need = (q->out[i] - 1) * q->s[i] + q->d[i] * (q->k[i] - 1) + 1 - q->in[i] - q->p[i];
    q->pad_hi[i] = need > 0 ? need : 0;
  }
  return 1;
}

/* max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) */
static tt_status_t lower_max_pool3d(tt_lower_t *L) {
  tt_nn_pool_t q;
  if (!setup(L, "max_pool3d", 0, 1, 2, 3, 4, tt_l_bool(L, 5, 0), 1, &q)) return NULL;
  return tt_nn_max_pool(L, &q);
}

/* max_pool3d_with_indices_backward(grad_output, self, kernel_size, stride,
 * padding, dilation, ceil_mode, indices) */
static tt_status_t lower_max_pool3d_backward(tt_lower_t *L) {
  tt_nn_pool_t q;
  if (!setup(L, "max_pool3d_with_indices_backward", 1, 2, 3, 4, 5, tt_l_bool(L, 6, 0), 1, &q)) return NULL;
  return tt_nn_max_pool_backward(L, &q);
}

/* avg_pool3d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override) */
static tt_status_t lower_avg_pool3d(tt_lower_t *L) {
  tt_nn_pool_t q;
  if (!setup(L, "avg_pool3d", 0, 1, 2, 3, -1, tt_l_bool(L, 4, 0), 0, &q)) return NULL;
  return tt_nn_avg_pool(L, &q, tt_l_bool(L, 5, 1), 6);
}

/* avg_pool3d_backward(grad_output, self, kernel_size, stride, padding,
 * ceil_mode, count_include_pad, divisor_override) */
static tt_status_t lower_avg_pool3d_backward(tt_lower_t *L) {
  tt_nn_pool_t q;
  if (!setup(L, "avg_pool3d_backward", 1, 2, 3, 4, -1, tt_l_bool(L, 5, 0), 0, &q)) return NULL;
  return tt_nn_avg_pool_backward(L, &q, tt_l_bool(L, 6, 1), 7);
}

const tt_op_def_t tt_ops_pool3d[] = {
    {"max_pool3d_with_indices", lower_max_pool3d, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"max_pool3d_with_indices_backward", lower_max_pool3d_backward, 0},
    {"avg_pool3d", lower_avg_pool3d, 0},
    {"avg_pool3d_backward", lower_avg_pool3d_backward, 0},
    {NULL, NULL, 0},
};
