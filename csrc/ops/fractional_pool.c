/* Lowerings of fractional_max_pool2d/3d and their backward. The windows come
 * from `random_samples` (one sample per plane and spatial dim) by CPU's
 * interval rule, computed on device with CPU's rounding in the input's type,
 * so the same samples give CPU's exact windows; each window is then gathered
 * and reduced to its maximum and the flat index of it within the plane. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"
#include "ops/nn_util.h"

typedef struct geom_s {
  int nsp;        /* spatial dims: 2 or 3 */
  int batched;    /* input has a batch dim */
  int64_t n, c;   /* batch (1 when unbatched) and planes per item */
  int64_t in[3], out[3], k[3];
  int64_t plane;  /* elements of one input plane */
  int64_t oprod;  /* outputs per plane */
} geom_t;

static const char *const dim_word[3][3] = {{"height", "width", ""}, {"time", "height", "width"}};

static void shape_str(char *buf, size_t cap, int rank, const int64_t *d) {
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < rank && n < cap; i++) n += (size_t)snprintf(buf + n, cap - n, i ? ", %lld" : "%lld", (long long)d[i]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

/* Reads self (argument xi), kernel_size and output_size (ki, ki + 1) and
 * checks them with CPU's words; `name` is "fractional_max_pool2d". */
static tt_status_t read_geom(tt_lower_t *L, int nsp, int xi, int ki, geom_t *gm) {
  const char *name = nsp == 2 ? "fractional_max_pool2d" : "fractional_max_pool3d";
  const char *pre = nsp == 2 ? "fractional_max_pool2d()" : "fractional_max_pool3d_out()";
  memset(gm, 0, sizeof *gm);
  gm->nsp = nsp;
  int64_t v[TT_MAX_RANK];
  if (tt_l_ints(L, ki, v, TT_MAX_RANK) != nsp)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: kernel_size must either be a single Int or tuple of %sInts", name,
                          nsp == 2 ? "" : "three ");
  memcpy(gm->k, v, sizeof(int64_t) * (size_t)nsp);
  if (tt_l_ints(L, ki + 1, v, TT_MAX_RANK) != nsp)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: output_size must either be a single Int or tuple of %sInts", name,
                          nsp == 2 ? "" : "three ");
  memcpy(gm->out, v, sizeof(int64_t) * (size_t)nsp);
  if (!tt_l_ref(L, xi)) return tt_status_make(TT_TYPE_ERROR, "%s: self must be a Tensor", name);
  int rank = tt_l_arg_rank(L, xi);
  const int64_t *sz = tt_l_arg_sizes(L, xi);
  char buf[256];
  if (rank != nsp + 1 && rank != nsp + 2) {
    shape_str(buf, sizeof buf, rank, sz);
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: Expected %dD or %dD tensor, but got: %s", pre, nsp + 1, nsp + 2, buf);
  }
  for (int i = 1; i < rank; i++)
    if (sz[i] <= 0) {
      shape_str(buf, sizeof buf, rank, sz);
      return tt_status_make(TT_INVALID_ARGUMENT,
                            "%s: Expected input to have non-zero size for non-batch dimensions, but got%s with dimension "
                            "%d being empty.",
                            pre, buf, i);
    }
  gm->batched = rank == nsp + 2;
  gm->n = gm->batched ? sz[0] : 1;
  gm->c = sz[rank - nsp - 1];
  gm->plane = 1;
  gm->oprod = 1;
  for (int d = 0; d < nsp; d++) {
    gm->in[d] = sz[rank - nsp + d];
    gm->plane *= gm->in[d];
    gm->oprod *= gm->out[d];
  }
  return NULL;
}

/* The pool-size check, after the samples' (2-d allows out + k - 1 == in, 3-d does not, as on CPU). */
static tt_status_t check_fit(const geom_t *gm) {
  for (int d = 0; d < gm->nsp; d++) {
    int64_t need = gm->out[d] + gm->k[d] - 1;
    if (gm->nsp == 2 ? need > gm->in[d] : need >= gm->in[d])
      return tt_status_make(TT_INVALID_ARGUMENT, "%s: pool %s %lld too large relative to input %s %lld",
                            gm->nsp == 2 ? "fractional_max_pool2d()" : "fractional_max_pool3d_out()", dim_word[gm->nsp - 2][d],
                            (long long)gm->k[d], dim_word[gm->nsp - 2][d], (long long)gm->in[d]);
  }
  for (int d = 0; d < gm->nsp; d++)
    if (gm->out[d] < 0) {
      int64_t od[TT_MAX_RANK];
      int r = 0;
      if (gm->batched) od[r++] = gm->n;
      od[r++] = gm->c;
      for (int e = 0; e < gm->nsp; e++) od[r++] = gm->out[e];
      char buf[256];
      shape_str(buf, sizeof buf, r, od);
      return tt_status_make(TT_INVALID_ARGUMENT, "Trying to create tensor with negative dimension %lld: %s",
                            (long long)gm->out[d], buf);
    }
  return NULL;
}

static tt_status_t check_samples(tt_lower_t *L, const geom_t *gm) {
  if (!tt_l_ref(L, 3)) return tt_status_make(TT_TYPE_ERROR, "fractional_max_pool: random_samples must be a Tensor");
  if (tt_l_arg_dtype(L, 3) != tt_l_arg_dtype(L, 0))
    return tt_status_make(TT_INVALID_ARGUMENT, "Expect _random_samples to have the same dtype as input");
  int r = tt_l_arg_rank(L, 3);
  if (r != 3) return tt_status_make(TT_INVALID_ARGUMENT, "Expect _random_samples to have 3 dimensions, got %d", r);
  const int64_t *s = tt_l_arg_sizes(L, 3);
  if (s[0] < gm->n) return tt_status_make(TT_INVALID_ARGUMENT, "Expect _random_samples.size(0) no less then input batch size.");
  if (s[1] != gm->c) return tt_status_make(TT_INVALID_ARGUMENT, "Expect _random_samples.size(1) equals to input channel size.");
  if (s[2] != gm->nsp)
    return tt_status_make(TT_INVALID_ARGUMENT, "Expect _random_samples.size(2) equals to %d; got %lld.", gm->nsp, (long long)s[2]);
  return NULL;
}

/* v rounded to dt and back to its compute type: CPU's Half/BFloat16
 * arithmetic rounds after every operation. */
static tt_val_t rnd(tt_graph_t *g, tt_val_t v, tt_dtype_t dt, tt_dtype_t ct) {
  return dt == ct ? v : tt_b_convert(g, tt_b_convert(g, v, dt), ct);
}

/* Window starts along spatial dim d for every plane: int64 [planes, out],
 * start[i] = int((i + s) * alpha) - int(s * alpha), the last one in - k. */
static tt_val_t interval_starts(tt_graph_t *g, tt_val_t s, tt_dtype_t dt, int64_t planes, int64_t in, int64_t out, int64_t k) {
  int64_t d[2] = {planes, out};
  if (out <= 1) return tt_b_full_i(g, TT_I64, 2, d, in - k);
  tt_dtype_t ct = dt == TT_F64 ? TT_F64 : TT_F32;
  tt_val_t alpha = rnd(g, tt_b_binary(g, TT_BIN_DIV, rnd(g, tt_b_full_f(g, ct, 2, d, (double)(in - k)), dt, ct),
                                      rnd(g, tt_b_full_f(g, ct, 2, d, (double)(out - 1)), dt, ct)),
                       dt, ct);
  tt_val_t sb = tt_b_broadcast(g, s, 2, d, (int64_t[]){0});
  tt_val_t i = tt_b_iota(g, TT_I64, 2, d, 1);
  tt_val_t a = rnd(g, tt_b_binary(g, TT_BIN_MUL, rnd(g, tt_b_binary(g, TT_BIN_ADD, rnd(g, tt_b_convert(g, i, ct), dt, ct), sb), dt, ct), alpha), dt, ct);
  tt_val_t b = rnd(g, tt_b_binary(g, TT_BIN_MUL, sb, alpha), dt, ct);
  /* convert truncates toward zero, as static_cast<int> does */
  tt_val_t st = tt_b_binary(g, TT_BIN_SUB, tt_b_convert(g, a, TT_I64), tt_b_convert(g, b, TT_I64));
  return tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, i, tt_b_full_i(g, TT_I64, 2, d, out - 1)),
                     tt_b_full_i(g, TT_I64, 2, d, in - k), st);
}

/* Output dims: [n,] c, out... */
static int out_dims(const geom_t *gm, int64_t *od) {
  int r = 0;
  if (gm->batched) od[r++] = gm->n;
  od[r++] = gm->c;
  for (int d = 0; d < gm->nsp; d++) od[r++] = gm->out[d];
  return r;
}

/* fractional_max_pool{2,3}d(self, kernel_size, output_size, random_samples) -> (values, indices) */
static tt_status_t lower_fmp(tt_lower_t *L, int nsp) {
  geom_t gm;
  tt_status_t st = read_geom(L, nsp, 0, 1, &gm);
  if (!st) st = check_samples(L, &gm);
  if (!st) st = check_fit(&gm);
  if (st) return st;
  tt_graph_t *g = L->g;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  tt_dtype_t ct = dt == TT_F64 ? TT_F64 : TT_F32;
  int64_t od[TT_MAX_RANK];
  int orank = out_dims(&gm, od);
  int64_t P = gm.n * gm.c, kprod = 1;
  for (int d = 0; d < nsp; d++) kprod *= gm.k[d] > 0 ? gm.k[d] : 0;
  if (P * gm.oprod == 0) {
    tt_l_output(L, tt_b_full_f(g, dt, orank, od, 0));
    tt_l_output(L, tt_b_full_i(g, TT_I64, orank, od, 0));
    return NULL;
  }
  /* Samples of the first n items, one row per plane. */
  tt_val_t smp = tt_b_slice_dim(g, tt_l_tensor(L, 3), 0, 0, gm.n, 1);
  smp = tt_b_convert(g, tt_b_reshape(g, smp, 2, (int64_t[]){P, nsp}), ct);
  /* Flat in-plane index of each window's origin: [P, out...]. */
  int64_t pd[4] = {P, gm.out[0], gm.out[1], gm.out[2]};
  int64_t stride = 1;
  tt_val_t start = -1;
  for (int d = nsp - 1; d >= 0; d--) {
    /* 2-d samples are (w, h); 3-d ones (t, h, w). */
    int col = nsp == 2 ? 1 - d : d;
    tt_val_t s = tt_b_reshape(g, tt_b_slice_dim(g, smp, 1, col, col + 1, 1), 1, &P);
    tt_val_t seq = interval_starts(g, s, dt, P, gm.in[d], gm.out[d], gm.k[d]);
    seq = tt_b_binary(g, TT_BIN_MUL, seq, tt_b_full_i(g, TT_I64, 2, (int64_t[]){P, gm.out[d]}, stride));
    tt_val_t b = tt_b_broadcast(g, seq, nsp + 1, pd, (int64_t[]){0, 1 + d});
    start = start < 0 ? b : tt_b_binary(g, TT_BIN_ADD, start, b);
    stride *= gm.in[d];
  }
  int64_t flat2[2] = {P, gm.oprod};
  start = tt_b_reshape(g, start, 2, flat2);
  tt_val_t vals, idx;
  if (kprod == 0) { /* empty windows: -inf at the origin, as CPU's loop leaves them */
    vals = tt_b_full_f(g, dt, 2, flat2, -INFINITY);
    idx = start;
  } else {
    /* In-window offsets: [kprod]. */
    int64_t kd[3] = {gm.k[0], gm.k[1], gm.k[2]};
    tt_val_t off = -1;
    stride = 1;
    for (int d = nsp - 1; d >= 0; d--) {
      tt_val_t o = tt_b_binary(g, TT_BIN_MUL, tt_b_iota(g, TT_I64, nsp, kd, d), tt_b_full_i(g, TT_I64, nsp, kd, stride));
      off = off < 0 ? o : tt_b_binary(g, TT_BIN_ADD, off, o);
      stride *= gm.in[d];
    }
    off = tt_b_reshape(g, off, 1, &kprod);
    int64_t d3[3] = {P, gm.oprod, kprod};
    tt_val_t pidx = tt_b_binary(g, TT_BIN_ADD, tt_b_broadcast(g, start, 3, d3, (int64_t[]){0, 1}),
                                tt_b_broadcast(g, off, 3, d3, (int64_t[]){2}));
    tt_val_t gidx = tt_b_binary(g, TT_BIN_ADD, pidx,
                                tt_b_binary(g, TT_BIN_MUL, tt_b_iota(g, TT_I64, 3, d3, 0), tt_b_full_i(g, TT_I64, 3, d3, gm.plane)));
    int64_t total = P * gm.oprod * kprod, all = P * gm.plane;
    tt_val_t xf = tt_b_reshape(g, tt_l_tensor(L, 0), 1, &all);
    tt_val_t w = tt_b_reshape(g, tt_nn_gather_dim(g, xf, 0, tt_b_reshape(g, gidx, 1, &total), total), 3, d3);
    /* CPU's scan keeps the first maximum, but a NaN replaces it and the last NaN wins. */
    int64_t last = 2;
    tt_val_t isnan = tt_b_compare(g, TT_CMP_NE, w, w);
    tt_val_t anynan = tt_b_reduce(g, TT_RED_OR, isnan, 1, &last);
    tt_val_t m = tt_b_reduce(g, TT_RED_MAX, tt_b_select(g, isnan, tt_b_full_f(g, dt, 3, d3, -INFINITY), w), 1, &last);
    tt_val_t is_m = tt_b_compare(g, TT_CMP_EQ, w, tt_b_broadcast(g, m, 3, d3, (int64_t[]){0, 1}));
    tt_val_t first_m = tt_b_reduce(g, TT_RED_MIN, tt_b_select(g, is_m, pidx, tt_b_full_i(g, TT_I64, 3, d3, INT64_MAX)), 1, &last);
    tt_val_t last_nan = tt_b_reduce(g, TT_RED_MAX, tt_b_select(g, isnan, pidx, tt_b_full_i(g, TT_I64, 3, d3, -1)), 1, &last);
    vals = tt_b_select(g, anynan, tt_b_full_f(g, dt, 2, flat2, NAN), m);
    idx = tt_b_select(g, anynan, last_nan, first_m);
  }
  tt_l_output(L, tt_b_reshape(g, vals, orank, od));
  tt_l_output(L, tt_b_reshape(g, idx, orank, od));
  return NULL;
}

static tt_status_t lower_fmp2d(tt_lower_t *L) { return lower_fmp(L, 2); }
static tt_status_t lower_fmp3d(tt_lower_t *L) { return lower_fmp(L, 3); }

/* fractional_max_pool{2,3}d_backward(grad, self, kernel_size, output_size, indices):
 * each output's gradient added at its argmax (windows overlap, so sums). */
static tt_status_t lower_fmp_backward(tt_lower_t *L, int nsp) {
  geom_t gm;
  tt_status_t st = read_geom(L, nsp, 1, 2, &gm);
  if (st) return st;
  if (!tt_l_ref(L, 0) || !tt_l_ref(L, 4))
    return tt_status_make(TT_TYPE_ERROR, "fractional_max_pool%dd_backward: grad_output and indices must be Tensors", nsp);
  int64_t od[TT_MAX_RANK];
  int orank = out_dims(&gm, od);
  int grank = tt_l_arg_rank(L, 0);
  const int64_t *gs = tt_l_arg_sizes(L, 0);
  if (nsp == 2) {
    int ok = grank == orank;
    for (int i = 0; ok && i < orank; i++) ok = gs[i] == od[i];
    if (!ok) return tt_status_make(TT_INVALID_ARGUMENT, "fractional_max_pool2d_backward(): gradOutput sizes unexpected");
  } else {
    for (int d = 0; d < 3; d++) {
      int gi = grank - 3 + d;
      if (gi < 0 || gs[gi] != gm.out[d])
        return tt_status_make(TT_INVALID_ARGUMENT, "fractional_max_pool3d_backward_out(): gradOutput %s unexpected", dim_word[1][d]);
    }
    int ok = grank == orank;
    for (int i = 0; ok && i < orank; i++) ok = gs[i] == od[i];
    if (!ok) return tt_status_make(TT_INVALID_ARGUMENT, "fractional_max_pool3d_backward_out(): gradOutput sizes unexpected");
  }
  int irank = tt_l_arg_rank(L, 4);
  int ok = irank == orank;
  for (int i = 0; ok && i < orank; i++) ok = tt_l_arg_sizes(L, 4)[i] == od[i];
  if (!ok) return tt_status_make(TT_INVALID_ARGUMENT, "fractional_max_pool%dd_backward(): indices sizes unexpected", nsp);
  tt_graph_t *g = L->g;
  tt_dtype_t dt = tt_l_arg_dtype(L, 1);
  int xr = tt_l_arg_rank(L, 1);
  const int64_t *xs = tt_l_arg_sizes(L, 1);
  int64_t P = gm.n * gm.c;
  if (P * gm.oprod == 0 || gm.plane == 0) {
    tt_l_output(L, tt_b_full_f(g, dt, xr, xs, 0));
    return NULL;
  }
  int64_t flat2[2] = {P, gm.oprod};
  tt_val_t gr = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 0), dt), 2, flat2);
  tt_val_t ix = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 4), TT_I64), 2, flat2);
  tt_val_t gi = tt_nn_scatter_flat(g, gr, ix, P, gm.oprod, gm.plane);
  tt_l_output(L, tt_b_reshape(g, gi, xr, xs));
  return NULL;
}

static tt_status_t lower_fmp2d_backward(tt_lower_t *L) { return lower_fmp_backward(L, 2); }
static tt_status_t lower_fmp3d_backward(tt_lower_t *L) { return lower_fmp_backward(L, 3); }

const tt_op_def_t tt_ops_fractional_pool[] = {
    {"fractional_max_pool2d", lower_fmp2d, 0},
    {"fractional_max_pool3d", lower_fmp3d, 0},
    {"fractional_max_pool2d_backward", lower_fmp2d_backward, 0},
    {"fractional_max_pool3d_backward", lower_fmp3d_backward, 0},
    {NULL, NULL, 0},
};
