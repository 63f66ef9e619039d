/* Lowerings of adaptive pooling not in pool.c: adaptive_max_pool2d/3d (+
 * backward) and _adaptive_avg_pool3d (+ backward). Output cell o of a dim
 * pools input [floor(o*in/out), ceil((o+1)*in/out)), as on CPU. */
#include <math.h>
#include <string.h>

#include "ops/families.h"
#include "ops/dispatch_refusal.h"
#include "ops/nn_util.h"

/* Checks rank (nsp+1 or nsp+2), non-empty non-batch dims and a float dtype;
 * reads output_size (arg io) into os when io >= 0. */
static int adaptive_check(tt_lower_t *L, const char *name, int nsp, int ix, int io, int64_t *os) {
  int r = tt_l_arg_rank(L, ix);
  const int64_t *xs = tt_l_arg_sizes(L, ix);
  if (r != nsp + 1 && r != nsp + 2) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s(): Expected %dD or %dD tensor, but got %d dims", name, nsp + 1, nsp + 2, r);
    return 0;
  }
  for (int i = r == nsp + 2 ? 1 : 0; i < r; i++)
    if (xs[i] == 0) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "%s(): Expected input to have non-zero size for non-batch dimensions, but input has sizes with dimension %d being empty", name, i);
      return 0;
    }
  if (!tt_dtype_is_float(tt_l_arg_dtype(L, ix))) {
    tt_l_refuse_dtype(L, tt_l_arg_dtype(L, ix), "%s", name);
    return 0;
  }
  if (io >= 0) {
    int64_t v[4];
    int n = tt_l_ints(L, io, v, 4);
    if (n != nsp) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "%s(): internal error: output_size.size() must be %d", name, nsp);
      return 0;
    }
    for (int i = 0; i < nsp; i++) {
      if (v[i] < 0) {
        tt_l_fail(L, TT_INVALID_ARGUMENT, "%s(): elements of output_size must be greater than or equal to 0 but received {%lld}", name, (long long)v[i]);
        return 0;
      }
      os[i] = v[i];
    }
  }
  return 1;
}

/* Window start (floor(o*in/out)) and end (ceil((o+1)*in/out)) as int64 over a
 * grid where dim `dim` of d (rank n) runs over o. */
static void window(tt_graph_t *g, int n, const int64_t *d, int dim, int64_t in, int64_t out, tt_val_t *start, tt_val_t *end) {
  tt_val_t o = tt_b_iota(g, TT_I64, n, d, dim);
  *start = tt_b_binary(g, TT_BIN_DIV, tt_nn_mulc(g, o, (double)in), tt_b_like_f(g, o, (double)out));
  *end = tt_b_binary(g, TT_BIN_DIV, tt_nn_addc(g, tt_nn_mulc(g, tt_nn_addc(g, o, 1), (double)in), (double)(out - 1)),
                     tt_b_like_f(g, o, (double)out));
}

static int64_t max_window(int64_t in, int64_t out) {
  int64_t m = 0;
  for (int64_t o = 0; o < out; o++) {
    int64_t w = ((o + 1) * in + out - 1) / out - (o * in) / out;
    if (w > m) m = w;
  }
  return m;
}

/* adaptive_max_poolNd(self, output_size) -> (values, flat in-plane indices):
 * one gather per window offset, scanned in CPU's order with its rule (take a
 * value if greater or NaN; the window start is the default). */
static tt_status_t adaptive_max(tt_lower_t *L, int nsp) {
  const char *name = nsp == 2 ? "adaptive_max_pool2d" : "adaptive_max_pool3d";
  int64_t os[3];
  if (!adaptive_check(L, name, nsp, 0, 1, os)) return NULL;
  tt_graph_t *g = L->g;
  int r = tt_l_arg_rank(L, 0), b0 = r - nsp;
  const int64_t *xs = tt_l_arg_sizes(L, 0);
  int64_t odims[TT_MAX_RANK], kmax[3], ncomb = 1;
  memcpy(odims, xs, sizeof(int64_t) * (size_t)r);
  for (int i = 0; i < nsp; i++) {
    odims[b0 + i] = os[i];
    kmax[i] = os[i] ? max_window(xs[b0 + i], os[i]) : 0;
    ncomb *= kmax[i];
  }
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  tt_val_t x = tt_l_tensor(L, 0);
  tt_val_t best = tt_b_full_f(g, dt, r, odims, -INFINITY);
  tt_val_t bidx = tt_b_full_i(g, TT_I64, r, odims, -1);
  for (int64_t c = 0; c < ncomb; c++) {
    int64_t k[3], rem = c;
    for (int i = nsp - 1; i >= 0; i--) k[i] = rem % kmax[i], rem /= kmax[i];
    tt_val_t v = x, flat = -1, valid = -1;
    for (int i = 0; i < nsp; i++) {
      int64_t in = xs[b0 + i];
      tt_val_t st, en;
      window(g, 1, &os[i], 0, in, os[i], &st, &en);
      tt_val_t p = tt_nn_addc(g, st, (double)k[i]);
      tt_val_t ok = tt_b_compare(g, TT_CMP_LT, p, en);
      p = tt_b_binary(g, TT_BIN_MIN, p, tt_b_like_f(g, p, (double)(in - 1)));
      v = tt_nn_gather_dim(g, v, b0 + i, p, os[i]);
      int64_t bd = b0 + i;
      tt_val_t pb = tt_b_broadcast(g, p, r, odims, &bd), okb = tt_b_broadcast(g, ok, r, odims, &bd);
      flat = i ? tt_b_binary(g, TT_BIN_ADD, tt_nn_mulc(g, flat, (double)in), pb) : pb;
      valid = i ? tt_b_binary(g, TT_BIN_AND, valid, okb) : okb;
    }
    tt_val_t unset = tt_b_compare(g, TT_CMP_LT, bidx, tt_b_like_f(g, bidx, 0));
    tt_val_t better = tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_GT, v, best), tt_b_compare(g, TT_CMP_NE, v, v));
    tt_val_t take = tt_b_binary(g, TT_BIN_AND, valid, tt_b_binary(g, TT_BIN_OR, unset, better));
    best = tt_b_select(g, take, v, best);
    bidx = tt_b_select(g, take, flat, bidx);
  }
  tt_l_output(L, best);
  tt_l_output(L, bidx);
  return NULL;
}

/* adaptive_max_poolNd_backward(grad_output, self, indices): scatter-add of
 * the gradients to the recorded flat in-plane positions. */
static tt_status_t adaptive_max_backward(tt_lower_t *L, int nsp) {
  const char *name = nsp == 2 ? "adaptive_max_pool2d_backward" : "adaptive_max_pool3d_backward";
  if (!adaptive_check(L, name, nsp, 1, -1, NULL)) return NULL;
  tt_graph_t *g = L->g;
  int r = tt_l_arg_rank(L, 1);
  const int64_t *xs = tt_l_arg_sizes(L, 1), *gs = tt_l_arg_sizes(L, 0);
  if (tt_l_arg_rank(L, 0) != r || tt_l_arg_rank(L, 2) != r || memcmp(gs, tt_l_arg_sizes(L, 2), sizeof(int64_t) * (size_t)r))
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: expected sizes of grad_output and indices to match", name);
  int64_t planes = 1, nin = 1, nout = 1;
  for (int i = 0; i < r - nsp; i++) planes *= xs[i];
  for (int i = r - nsp; i < r; i++) nin *= xs[i], nout *= gs[i];
  tt_dtype_t dt = tt_l_arg_dtype(L, 1), ct = tt_op_math_type(dt);
  tt_val_t gy = tt_b_convert(g, tt_l_tensor(L, 0), ct);
  tt_val_t gx = tt_nn_scatter_flat(g, gy, tt_l_tensor(L, 2), planes, nout, nin);
  tt_l_output(L, tt_b_convert(g, tt_b_reshape(g, gx, r, xs), dt));
  return NULL;
}

/* The (out, in) 0/1 window matrix of one dim and each window's length (out). */
static tt_val_t avg_matrix(tt_graph_t *g, int64_t in, int64_t out, tt_dtype_t ct, tt_val_t *len) {
  int64_t d[2] = {out, in};
  tt_val_t st, en;
  window(g, 2, d, 0, in, out, &st, &en);
  tt_val_t i = tt_b_iota(g, TT_I64, 2, d, 1);
  tt_val_t m = tt_b_convert(g, tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_GE, i, st), tt_b_compare(g, TT_CMP_LT, i, en)), ct);
  int64_t one = 1;
  *len = tt_b_reduce(g, TT_RED_SUM, m, 1, &one);
  return m;
}

/* _adaptive_avg_pool3d(self, output_size) and its backward(grad_output,
 * self): separable window sums divided by the window volumes. */
static tt_status_t adaptive_avg3d(tt_lower_t *L, int backward) {
  int64_t os[3];
  int ix = backward ? 1 : 0;
  if (!adaptive_check(L, backward ? "adaptive_avg_pool3d_backward" : "adaptive_avg_pool3d", 3, ix, backward ? -1 : 1, os)) return NULL;
  tt_graph_t *g = L->g;
  int r = tt_l_arg_rank(L, ix);
  const int64_t *xs = tt_l_arg_sizes(L, ix);
  if (backward) {
    if (tt_l_arg_rank(L, 0) != r) return tt_status_make(TT_INVALID_ARGUMENT, "adaptive_avg_pool3d_backward: grad_output rank differs from input");
    for (int i = 0; i < 3; i++) os[i] = tt_l_arg_sizes(L, 0)[r - 3 + i];
  }
  tt_dtype_t dt = tt_l_arg_dtype(L, ix), ct = tt_op_math_type(dt);
  tt_val_t m[3], len[3];
  for (int i = 0; i < 3; i++) m[i] = avg_matrix(g, xs[r - 3 + i], os[i], ct, &len[i]);
  tt_val_t vol = -1;
  for (int i = 0; i < 3; i++) {
    int64_t bd = i;
    tt_val_t l = tt_b_broadcast(g, len[i], 3, os, &bd);
    vol = i ? tt_b_binary(g, TT_BIN_MUL, vol, l) : l;
  }
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), ct);
  if (tt_graph_failed(g)) return NULL;
  if (backward) {
    const tt_type_t *t = tt_graph_type(g, x);
    x = tt_b_binary(g, TT_BIN_DIV, x, tt_b_broadcast_to(g, vol, t->rank, t->dims));
  }
  for (int i = 0; i < 3; i++) x = tt_nn_window_sum(g, x, r, r - 3 + i, m[i], backward ? 0 : 1);
  if (!backward) {
    if (tt_graph_failed(g)) return NULL;
    const tt_type_t *t = tt_graph_type(g, x);
    x = tt_b_binary(g, TT_BIN_DIV, x, tt_b_broadcast_to(g, vol, t->rank, t->dims));
  }
  tt_l_output(L, tt_b_convert(g, x, dt));
  return NULL;
}

static tt_status_t l_amax2(tt_lower_t *L) { return adaptive_max(L, 2); }
static tt_status_t l_amax3(tt_lower_t *L) { return adaptive_max(L, 3); }
static tt_status_t l_amax2b(tt_lower_t *L) { return adaptive_max_backward(L, 2); }
static tt_status_t l_amax3b(tt_lower_t *L) { return adaptive_max_backward(L, 3); }
static tt_status_t l_aavg3(tt_lower_t *L) { return adaptive_avg3d(L, 0); }
static tt_status_t l_aavg3b(tt_lower_t *L) { return adaptive_avg3d(L, 1); }

const tt_op_def_t tt_ops_pool_adaptive[] = {
    {"adaptive_max_pool2d", l_amax2, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"adaptive_max_pool3d", l_amax3, 0},
    {"adaptive_max_pool2d_backward", l_amax2b, 0},
    {"adaptive_max_pool3d_backward", l_amax3b, 0},
    {"_adaptive_avg_pool3d", l_aavg3, 0},
    {"_adaptive_avg_pool3d_backward", l_aavg3b, 0},
    {NULL, NULL, 0},
};
