/* Lowerings of upsampling (nearest, nearest-exact, linear/bilinear/trilinear,
 * bicubic, antialiased bilinear) and their backwards, 1-3 spatial dims.
 * Each spatial dim is resampled on its own, as taps (ops/nn_util.h): per
 * output position the source indices and weights PyTorch's CPU kernels use
 * (UpSample.h; weights computed in float32), gathered and summed in CPU's
 * order; backwards scatter-add the weighted gradient to the same indices. An
 * inf or NaN reaches exactly the outputs whose taps read it, as on CPU (a
 * weight matrix over every input made every output NaN). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/families.h"
#include "ops/dispatch_refusal.h"
#include "ops/nn_util.h"
#include "ops/result_layout.h"

typedef enum { UP_NEAREST, UP_NEAREST_EXACT, UP_LINEAR, UP_CUBIC, UP_AA } up_mode_t;

typedef struct {
  const char *name; /* for messages */
  up_mode_t mode;
  int nsp, has_align, backward;
  /* The CPU kernels that refuse a dtype, as CPU names them (measured on
   * 2.13): `kernel` for a row-major gradient (and every forward input),
   * `kernel_cl` for a channels_last one where CPU has such a kernel. */
  const char *kernel, *kernel_cl;
} up_op_t;

/* compute_scales_value: 1/scale when a positive scale was given, else in/out (float). */
static float scales_value(int has, double s, int64_t in, int64_t out) {
  return (has && s > 0.) ? (float)(1.0 / s) : (float)in / (float)out;
}

/* area_pixel_compute_scale. */
static float area_scale(int align, int has, double s, int64_t in, int64_t out) {
  if (align) return out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.f;
  return scales_value(has, s, in, out);
}

static tt_val_t cf(tt_graph_t *g, tt_val_t like, double v) { return tt_b_like_f(g, like, v); }

/* The nearest source index (int64, shape of o) of output positions o (f32). */
static tt_val_t nearest_index(tt_graph_t *g, tt_val_t o, up_mode_t mode, float scale, int64_t in, int64_t out) {
  tt_val_t s;
  if (mode == UP_NEAREST && out == in) s = o;
  else if (mode == UP_NEAREST && out == 2 * in) s = tt_b_unary(g, TT_UN_FLOOR, tt_nn_mulc(g, o, 0.5));
  else {
    tt_val_t p = mode == UP_NEAREST_EXACT ? tt_nn_addc(g, o, 0.5) : o;
    s = tt_b_unary(g, TT_UN_FLOOR, tt_b_binary(g, TT_BIN_MUL, p, cf(g, p, scale)));
  }
  tt_val_t i = tt_b_convert(g, s, TT_I64);
  return tt_b_binary(g, TT_BIN_MIN, i, tt_b_like_f(g, i, (double)(in - 1)));
}

/* cubic_convolution1 (|x| <= 1) and cubic_convolution2 (1 < |x| < 2), A = -0.75. */
static tt_val_t cubic1(tt_graph_t *g, tt_val_t x) {
  const double A = -0.75;
  tt_val_t p = tt_b_binary(g, TT_BIN_SUB, tt_nn_mulc(g, x, A + 2), cf(g, x, A + 3));
  return tt_nn_addc(g, tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_MUL, p, x), x), 1);
}
static tt_val_t cubic2(tt_graph_t *g, tt_val_t x) {
  const double A = -0.75;
  tt_val_t p = tt_b_binary(g, TT_BIN_SUB, tt_nn_mulc(g, x, A), cf(g, x, 5 * A));
  p = tt_nn_addc(g, tt_b_binary(g, TT_BIN_MUL, p, x), 8 * A);
  return tt_b_binary(g, TT_BIN_SUB, tt_b_binary(g, TT_BIN_MUL, p, x), cf(g, x, 4 * A));
}

/* v rounded to wdt and back: CPU stores linear and cubic weights of
 * bfloat16/float16 inputs in the input's type. */
static tt_val_t wround(tt_graph_t *g, tt_val_t v, tt_dtype_t wdt) {
  return wdt == TT_F32 ? v : tt_b_convert(g, tt_b_convert(g, v, wdt), TT_F32);
}

/* The taps of one dim (weights in float32): CPU's source indices and
 * weights per output position, its taps with zero weight included. 0 when
 * antialiasing needs more than TT_NN_TAPS_MAX taps per output (nothing built). */
static int build_taps(tt_graph_t *g, up_mode_t mode, int align, int has_s, double sc, int64_t in, int64_t out, tt_dtype_t wdt,
                       tt_nn_taps_t *t) {
  memset(t, 0, sizeof *t);
  tt_val_t o = tt_b_iota(g, TT_F32, 1, &out, 0);
  if (mode == UP_NEAREST || mode == UP_NEAREST_EXACT) {
    t->n = 1;
    t->idx[0] = nearest_index(g, o, mode, scales_value(has_s, sc, in, out), in, out);
    t->w[0] = t->valid[0] = -1;
    return 1;
  }
  float scale = area_scale(align, has_s, sc, in, out);
  tt_val_t sv = cf(g, o, scale);
  if (mode == UP_AA) {
    double support = scale >= 1.0f ? (double)scale : 1.0, inv = scale >= 1.0f ? 1.0 / scale : 1.0;
    int n = (int)ceil(support) * 2 + 1; /* CPU's largest window */
    if (n > TT_NN_TAPS_MAX) return 0; /* never fewer taps than CPU reads: a wrong answer */
    tt_val_t center = tt_b_binary(g, TT_BIN_MUL, sv, tt_nn_addc(g, o, 0.5));
    /* static_cast<int64_t> truncates; both bounds are clamped, so floor of the
     * clamped value is the same. */
    tt_val_t lo = tt_b_unary(g, TT_UN_FLOOR, tt_b_binary(g, TT_BIN_MAX, tt_nn_addc(g, center, 0.5 - support), cf(g, o, 0)));
    tt_val_t hi = tt_b_binary(g, TT_BIN_MIN, tt_b_unary(g, TT_UN_FLOOR, tt_nn_addc(g, center, 0.5 + support)), cf(g, o, (double)in));
    tt_val_t tot = -1;
    t->n = n;
    for (int k = 0; k < n; k++) {
      tt_val_t j = tt_nn_addc(g, lo, (double)k);
      tt_val_t x = tt_nn_mulc(g, tt_nn_addc(g, tt_b_binary(g, TT_BIN_SUB, j, center), 0.5), inv);
      tt_val_t w = tt_b_binary(g, TT_BIN_MAX, tt_b_binary(g, TT_BIN_SUB, cf(g, x, 1), tt_b_unary(g, TT_UN_ABS, x)), cf(g, x, 0));
      t->valid[k] = tt_b_compare(g, TT_CMP_LT, j, hi);
      t->w[k] = tt_b_select(g, t->valid[k], w, cf(g, w, 0));
      t->idx[k] = tt_b_binary(g, TT_BIN_MIN, tt_b_convert(g, j, TT_I64), tt_b_like_f(g, tt_b_convert(g, j, TT_I64), (double)(in - 1)));
      tot = k ? tt_b_binary(g, TT_BIN_ADD, tot, t->w[k]) : t->w[k];
    }
    tt_val_t nz = tt_b_compare(g, TT_CMP_NE, tot, cf(g, tot, 0));
    for (int k = 0; k < n; k++) t->w[k] = tt_b_select(g, nz, tt_b_binary(g, TT_BIN_DIV, t->w[k], tot), t->w[k]);
    return 1;
  }
  tt_val_t src;
  if (align) src = tt_b_binary(g, TT_BIN_MUL, sv, o);
  else src = tt_nn_addc(g, tt_b_binary(g, TT_BIN_MUL, sv, tt_nn_addc(g, o, 0.5)), -0.5);
  tt_val_t last = tt_b_like_f(g, tt_b_iota(g, TT_I64, 1, &out, 0), (double)(in - 1));
  if (mode == UP_LINEAR && in == out) { /* CPU's "simply copy": both taps at o, weights 1 and 0 */
    t->n = 2;
    t->idx[0] = t->idx[1] = tt_b_iota(g, TT_I64, 1, &out, 0);
    t->w[0] = cf(g, o, 1);
    t->w[1] = cf(g, o, 0);
    t->valid[0] = t->valid[1] = -1;
    return 1;
  }
  if (mode == UP_LINEAR) {
    src = tt_b_binary(g, TT_BIN_MAX, src, cf(g, src, 0));
    tt_val_t i0 = tt_b_binary(g, TT_BIN_MIN, tt_b_convert(g, tt_b_unary(g, TT_UN_FLOOR, src), TT_I64), last);
    tt_val_t lam = tt_b_clamp(g, cf(g, src, 0), tt_b_binary(g, TT_BIN_SUB, src, tt_b_convert(g, i0, TT_F32)), cf(g, src, 1));
    lam = wround(g, lam, wdt);
    tt_val_t step = tt_b_convert(g, tt_b_compare(g, TT_CMP_LT, i0, last), TT_I64);
    t->n = 2;
    t->idx[0] = i0;
    t->idx[1] = tt_b_binary(g, TT_BIN_ADD, i0, step);
    t->w[0] = wround(g, tt_b_binary(g, TT_BIN_SUB, cf(g, lam, 1), lam), wdt);
    t->w[1] = lam;
    t->valid[0] = t->valid[1] = -1;
    return 1;
  }
  /* Bicubic: taps floor(src)-1 .. floor(src)+2, clamped to the input. */
  tt_val_t fl = tt_b_unary(g, TT_UN_FLOOR, src);
  tt_val_t tf = tt_b_binary(g, TT_BIN_SUB, src, fl);
  tt_val_t i0 = tt_b_convert(g, fl, TT_I64);
  tt_val_t coef[4] = {cubic2(g, tt_nn_addc(g, tf, 1)), cubic1(g, tf), cubic1(g, tt_b_binary(g, TT_BIN_SUB, cf(g, tf, 1), tf)),
                      cubic2(g, tt_b_binary(g, TT_BIN_SUB, cf(g, tf, 2), tf))};
  t->n = 4;
  for (int k = 0; k < 4; k++) {
    t->idx[k] = tt_b_clamp(g, tt_b_like_f(g, last, 0), tt_b_binary(g, TT_BIN_ADD, i0, tt_b_like_f(g, i0, (double)(k - 1))), last);
    t->w[k] = wround(g, coef[k], wdt);
    t->valid[k] = -1;
  }
  return 1;
}

static void fmt_sizes(char *buf, size_t n, int r, const int64_t *s) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < r && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)s[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

/* Whether tensor argument i is laid out channels_last (4-d) or
 * channels_last_3d (5-d) and not row-major: the gradients CPU's backward
 * kernels take their channels-last path for. Size-1 dims do not count. */
static int channels_last_arg(tt_lower_t *L, int i) {
  const tt_tensor_ref_t *t = tt_l_ref(L, i);
  if (!t || (t->view.rank != 4 && t->view.rank != 5)) return 0;
  const tt_view_t *v = &t->view;
  int64_t cl[TT_MAX_RANK];
  tt_layout_format_strides(v->rank, v->sizes, v->rank == 4 ? TT_MEMORY_FORMAT_CHANNELS_LAST : TT_MEMORY_FORMAT_CHANNELS_LAST_3D, cl);
  int is_cl = 1, row_major = 1;
  int64_t expect = 1;
  for (int d = v->rank - 1; d >= 0; d--) {
    if (v->sizes[d] != 1) {
      is_cl &= v->strides[d] == cl[d];
      row_major &= v->strides[d] == expect;
    }
    expect *= v->sizes[d];
  }
  return is_cl && !row_major;
}

static tt_status_t upsample(tt_lower_t *L, const up_op_t *op) {
  int nsp = op->nsp, b = op->backward;
  int64_t osz[3], isz[TT_MAX_RANK];
  if (tt_l_ints(L, 1, osz, 3) != nsp)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: It is expected output_size equals to %d, but got size %d", op->name, nsp,
                          tt_l_ints(L, 1, osz, 3));
  int r;
  if (b) {
    r = tt_l_ints(L, 2, isz, TT_MAX_RANK);
    if (r != nsp + 2)
      return tt_status_make(TT_INVALID_ARGUMENT, "%s: It is expected input_size equals to %d, but got size %d", op->name, nsp + 2, r);
  } else {
    r = tt_l_arg_rank(L, 0);
    memcpy(isz, tt_l_arg_sizes(L, 0), sizeof(int64_t) * (size_t)r);
    int ok = r == nsp + 2;
    for (int i = 1; ok && i < r; i++) ok = isz[i] > 0;
    if (!ok) {
      char s[160];
      fmt_sizes(s, sizeof s, r, isz);
      return tt_status_make(TT_INVALID_ARGUMENT, "Non-empty %dD data tensor expected but got a tensor with sizes %s", nsp + 2, s);
    }
  }
  for (int i = 0; i < nsp; i++)
    if (isz[2 + i] <= 0 || osz[i] <= 0)
      return tt_status_make(TT_INVALID_ARGUMENT, "%s: Input and output sizes should be greater than 0, but got input size %lld and output size %lld",
                            op->name, (long long)isz[2 + i], (long long)osz[i]);
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  int nearest = op->mode == UP_NEAREST || op->mode == UP_NEAREST_EXACT;
  if (!tt_dtype_is_float(dt) && !(nearest && !b && dt == TT_U8))
    return tt_op_refuse_dtype(dt, "%s", op->kernel_cl && channels_last_arg(L, 0) ? op->kernel_cl : op->kernel);
  if (b) {
    int gr = tt_l_arg_rank(L, 0);
    const int64_t *gs = tt_l_arg_sizes(L, 0);
    for (int i = 0; i < r; i++) {
      int64_t want = i < 2 ? isz[i] : osz[i - 2];
      if (gr != r || gs[i] != want)
        return tt_status_make(TT_INVALID_ARGUMENT, "Expected grad_output to have the same shape as output; output.size(%d) = %lld but got grad_output.size(%d) = %lld",
                              i, (long long)want, i, gr == r ? (long long)gs[i] : -1LL);
    }
  }
  int ia = b ? 3 : 2; /* align_corners, when present */
  int align = op->has_align ? tt_l_bool(L, ia, 0) : 0;
  int is0 = ia + (op->has_align ? 1 : 0);
  tt_graph_t *g = L->g;
  tt_val_t x = tt_l_tensor(L, 0);
  if (nearest && !b) {
    for (int i = 0; i < nsp; i++) {
      int has = !tt_l_is_none(L, is0 + i);
      double sc = has ? tt_l_float(L, is0 + i, 0) : 0;
      int64_t in = isz[2 + i], out = osz[i];
      tt_val_t o = tt_b_iota(g, TT_F32, 1, &out, 0);
      x = tt_nn_gather_dim(g, x, 2 + i, nearest_index(g, o, op->mode, scales_value(has, sc, in, out), in, out), out);
    }
    tt_l_output(L, x);
    return NULL;
  }
  tt_dtype_t ct = tt_op_math_type(dt);
  /* Measured against CPU: linear1d, trilinear and bicubic round their
   * weights to the input type; bilinear2d keeps them in float. */
  tt_dtype_t wdt = (dt == TT_BF16 || dt == TT_F16) && ((op->mode == UP_LINEAR && nsp != 2) || op->mode == UP_CUBIC) ? dt : TT_F32;
  x = tt_b_convert(g, x, ct);
  /* Innermost dim first, as CPU's kernels nest their sums. */
  for (int i = nsp - 1; i >= 0; i--) {
    int has = !tt_l_is_none(L, is0 + i);
    double sc = has ? tt_l_float(L, is0 + i, 0) : 0;
    if (op->mode == UP_AA && !b && isz[2 + i] == osz[i]) continue; /* CPU's separable kernel skips such a dim */
    tt_nn_taps_t t;
    if (!build_taps(g, op->mode, align, has, sc, isz[2 + i], osz[i], wdt, &t))
      return tt_status_make(TT_NOT_IMPLEMENTED,
                            "%s: antialiased resampling from %lld to %lld (more than %d input positions per output) is not "
                            "supported on TPU yet; resize in steps of at most 63x, or set torch.tpu.set_cpu_fallback(True)",
                            op->name, (long long)isz[2 + i], (long long)osz[i], TT_NN_TAPS_MAX);
    for (int k = 0; k < t.n; k++)
      if (t.w[k] >= 0) t.w[k] = tt_b_convert(g, t.w[k], ct);
    if (t.n > 4) /* many taps (antialiased downsampling, weights >= 0): a small matrix beats as many gathers */
      x = tt_nn_taps_contract(g, x, r, 2 + i, &t, osz[i], isz[2 + i], b);
    else
      x = b ? tt_nn_taps_backward(g, x, 2 + i, &t, isz[2 + i]) : tt_nn_taps_apply(g, x, 2 + i, &t, osz[i]);
  }
  tt_l_output(L, tt_b_convert(g, x, dt));
  return NULL;
}

#define UP(fn, nm, mode, nsp, al, bw, k, kcl)                            \
  static tt_status_t fn(tt_lower_t *L) {                                  \
    static const up_op_t op = {nm, mode, nsp, al, bw, k, kcl};             \
    return upsample(L, &op);                                              \
  }
#define NEAREST_W "compute_indices_weights_nearest"
#define LINEAR_W "compute_indices_weights_linear"
UP(l_near1, "upsample_nearest1d", UP_NEAREST, 1, 0, 0, NEAREST_W, NULL)
UP(l_near2, "upsample_nearest2d", UP_NEAREST, 2, 0, 0, "upsample_nearest2d_channels_last", NULL)
UP(l_near3, "upsample_nearest3d", UP_NEAREST, 3, 0, 0, NEAREST_W, NULL)
UP(l_near1b, "upsample_nearest1d_backward", UP_NEAREST, 1, 0, 1, "upsample_nearest1d_backward", NULL)
UP(l_near2b, "upsample_nearest2d_backward", UP_NEAREST, 2, 0, 1, "upsample_nearest2d_backward", "upsample_nearest2d_backward_cl")
UP(l_near3b, "upsample_nearest3d_backward", UP_NEAREST, 3, 0, 1, "upsample_nearest3d_backward", "_upsample_nearest3d_backward_cl")
UP(l_ex1, "_upsample_nearest_exact1d", UP_NEAREST_EXACT, 1, 0, 0, NEAREST_W, NULL)
UP(l_ex2, "_upsample_nearest_exact2d", UP_NEAREST_EXACT, 2, 0, 0, "upsample_nearest2d_channels_last", NULL)
UP(l_ex3, "_upsample_nearest_exact3d", UP_NEAREST_EXACT, 3, 0, 0, NEAREST_W, NULL)
UP(l_ex1b, "_upsample_nearest_exact1d_backward", UP_NEAREST_EXACT, 1, 0, 1, "_upsample_nearest_exact1d_backward", NULL)
UP(l_ex2b, "_upsample_nearest_exact2d_backward", UP_NEAREST_EXACT, 2, 0, 1, "_upsample_nearest_exact2d_backward",
   "_upsample_nearest_exact2d_backward_cl")
UP(l_ex3b, "_upsample_nearest_exact3d_backward", UP_NEAREST_EXACT, 3, 0, 1, "_upsample_nearest_exact3d_backward",
   "_upsample_nearest_exact3d_backward_cl")
UP(l_lin1, "upsample_linear1d", UP_LINEAR, 1, 1, 0, LINEAR_W, NULL)
UP(l_lin2, "upsample_bilinear2d", UP_LINEAR, 2, 1, 0, "upsample_bilinear2d_channels_last", NULL)
UP(l_lin3, "upsample_trilinear3d", UP_LINEAR, 3, 1, 0, LINEAR_W, NULL)
UP(l_lin1b, "upsample_linear1d_backward", UP_LINEAR, 1, 1, 1, "upsample_linear1d_backward", NULL)
UP(l_lin2b, "upsample_bilinear2d_backward", UP_LINEAR, 2, 1, 1, "upsample_bilinear2d_backward",
   "upsample_bilinear2d_backward_channels_last")
UP(l_lin3b, "upsample_trilinear3d_backward", UP_LINEAR, 3, 1, 1, "upsample_trilinear3d_backward",
   "upsample_trilinear3d_backward_channels_last")
UP(l_cub2, "upsample_bicubic2d", UP_CUBIC, 2, 1, 0, "compute_indices_weights_cubic", NULL)
UP(l_cub2b, "upsample_bicubic2d_backward", UP_CUBIC, 2, 1, 1, "upsample_bicubic2d_backward", NULL)
UP(l_aa2, "_upsample_bilinear2d_aa", UP_AA, 2, 1, 0, "compute_index_ranges_weights", NULL)
UP(l_aa2b, "_upsample_bilinear2d_aa_backward", UP_AA, 2, 1, 1, "upsample_bilinear2d_aa_backward_cpu", NULL)

const tt_op_def_t tt_ops_upsample[] = {
    {"upsample_nearest1d", l_near1, 0},
    {"upsample_nearest2d", l_near2, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"upsample_nearest3d", l_near3, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"upsample_nearest1d_backward", l_near1b, 0},
    {"upsample_nearest2d_backward", l_near2b, 0},
    {"upsample_nearest3d_backward", l_near3b, 0},
    {"_upsample_nearest_exact1d", l_ex1, 0},
    {"_upsample_nearest_exact2d", l_ex2, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"_upsample_nearest_exact3d", l_ex3, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"_upsample_nearest_exact1d_backward", l_ex1b, 0},
    {"_upsample_nearest_exact2d_backward", l_ex2b, 0},
    {"_upsample_nearest_exact3d_backward", l_ex3b, 0},
    {"upsample_linear1d", l_lin1, 0},
    {"upsample_bilinear2d", l_lin2, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"upsample_trilinear3d", l_lin3, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"upsample_linear1d_backward", l_lin1b, 0},
    {"upsample_bilinear2d_backward", l_lin2b, 0},
    {"upsample_trilinear3d_backward", l_lin3b, 0},
    {"upsample_bicubic2d", l_cub2, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"upsample_bicubic2d_backward", l_cub2b, 0},
    {"_upsample_bilinear2d_aa", l_aa2, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"_upsample_bilinear2d_aa_backward", l_aa2b, 0},
    {NULL, NULL, 0},
};
