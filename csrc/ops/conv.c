/* Lowerings of convolution and convolution_backward (1-D/2-D/3-D, strided,
 * padded, dilated, grouped, transposed) as StableHLO convolutions. */
#include <string.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"

/* The geometry of one convolution call, as PyTorch's arguments give it. */
typedef struct {
  int nsp;
  int64_t stride[3], pad[3], dil[3], outpad[3];
  int transposed;
  int64_t groups;
  tt_dtype_t dt, ct; /* tensor dtype, compute dtype (f32 for bf16/f16) */
  int precision;     /* the float32 matmul precision (tt_precision_t) for dt */
} conv_t;

static int64_t spatial(const tt_type_t *t, int i) { return t->dims[2 + i]; }

/* Reads stride/padding/dilation/transposed/output_padding/groups starting at
 * argument a0 (the schema order shared by all the conv ops). */
static int read_geometry(tt_lower_t *L, int a0, int nsp, conv_t *c) {
  int64_t v[3];
  memset(c, 0, sizeof *c);
  c->nsp = nsp;
  int64_t *dst[4] = {c->stride, c->pad, c->dil, c->outpad};
  const char *names[4] = {"stride", "padding", "dilation", "output_padding"};
  int64_t dflt[4] = {1, 0, 1, 0};
  int argi[4] = {a0, a0 + 1, a0 + 2, a0 + 4};
  for (int k = 0; k < 4; k++) {
    int n = tt_l_is_none(L, argi[k]) ? 0 : tt_l_ints(L, argi[k], v, 3);
    for (int i = 0; i < nsp; i++) dst[k][i] = n == 0 ? dflt[k] : n == 1 ? v[0] : v[i < n ? i : n - 1];
    if (n > 1 && n != nsp) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "expected %s to be a single integer value or a list of %d values to match the convolution dimensions, but got %s=[%d values]",
                names[k], nsp, names[k], n);
      return 0;
    }
    for (int i = 0; i < nsp; i++) {
      if (k == 0 && dst[k][i] <= 0) { tt_l_fail(L, TT_INVALID_ARGUMENT, "non-positive stride is not supported"); return 0; }
      if (k == 1 && dst[k][i] < 0) { tt_l_fail(L, TT_INVALID_ARGUMENT, "negative padding is not supported"); return 0; }
      if (k == 2 && dst[k][i] <= 0) { tt_l_fail(L, TT_INVALID_ARGUMENT, "dilation should be greater than zero"); return 0; }
      if (k == 3 && dst[k][i] < 0) { tt_l_fail(L, TT_INVALID_ARGUMENT, "negative output_padding is not supported"); return 0; }
    }
  }
  c->transposed = tt_l_bool(L, a0 + 3, 0);
  c->groups = tt_l_int(L, a0 + 5, 1);
  if (c->groups <= 0) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "non-positive groups is not supported");
    return 0;
  }
  return 1;
}


/* A convolution whose pads may be negative: negative pads are applied as
 * zero padding followed by a slice of the result. A negative low pad is only
 * used with window stride 1, where it removes whole leading outputs. */
static tt_val_t conv_any_pad(tt_graph_t *g, tt_val_t lhs, tt_val_t rhs, tt_conv_params_t p) {
  if (lhs < 0 || rhs < 0) return -1;
  const tt_type_t *a = tt_graph_type(g, lhs), *b = tt_graph_type(g, rhs);
  int64_t want[3], cut_lo[3];
  int cut = 0;
  for (int i = 0; i < p.nsp; i++) {
    /* The output size the requested (possibly negative) pads give. */
    int64_t in = (a->dims[2 + i] - 1) * p.lhs_dilation[i] + 1 + p.pad_lo[i] + p.pad_hi[i];
    int64_t k = (b->dims[2 + i] - 1) * p.rhs_dilation[i] + 1;
    want[i] = in < k ? 0 : (in - k) / p.stride[i] + 1;
    cut_lo[i] = 0;
    if (p.pad_lo[i] < 0) {
      if (p.stride[i] != 1) return tt_graph_fail(g, TT_INTERNAL, "conv: negative low padding with a stride");
      cut_lo[i] = -p.pad_lo[i];
      p.pad_lo[i] = 0;
      cut = 1;
    }
    if (p.pad_hi[i] < 0) {
      p.pad_hi[i] = 0;
      cut = 1;
    }
  }
  tt_val_t y = tt_b_conv(g, lhs, rhs, &p);
  if (!cut) return y;
  for (int i = 0; i < p.nsp; i++) y = tt_b_slice_dim(g, y, 2 + i, cut_lo[i], cut_lo[i] + want[i], 1);
  return y;
}

/* Regular convolution of x (N, C, sp) with w (O, C/g, k). */
static tt_val_t conv_regular(tt_graph_t *g, tt_val_t x, tt_val_t w, const conv_t *c) {
  tt_conv_params_t p;
  memset(&p, 0, sizeof p);
  p.nsp = c->nsp;
  for (int i = 0; i < c->nsp; i++) {
    p.stride[i] = c->stride[i];
    p.pad_lo[i] = p.pad_hi[i] = c->pad[i];
    p.lhs_dilation[i] = 1;
    p.rhs_dilation[i] = c->dil[i];
  }
  p.feature_groups = c->groups;
  p.batch_groups = 1;
  p.precision = c->precision;
  return tt_b_conv(g, x, w, &p);
}

/* Transposed convolution of x (N, Ci, sp) with w (Ci, Co/g, k) to spatial
 * sizes `target`: the input dilated by the stride, convolved with the
 * spatially flipped kernel whose in/out features are swapped per group. */
static tt_val_t conv_transposed(tt_graph_t *g, tt_val_t x, tt_val_t w, const conv_t *c, const int64_t *target) {
  if (x < 0 || w < 0) return -1;
  const tt_type_t *wt = tt_graph_type(g, w);
  const tt_type_t *xt = tt_graph_type(g, x);
  int r = wt->rank, nsp = c->nsp;
  int64_t ci = wt->dims[0], cog = wt->dims[1], gr = c->groups;
  int64_t d5[TT_MAX_RANK] = {gr, ci / gr, cog};
  for (int i = 0; i < nsp; i++) d5[3 + i] = wt->dims[2 + i];
  tt_val_t k = tt_b_reshape(g, w, r + 1, d5);
  int64_t perm[TT_MAX_RANK] = {0, 2, 1};
  for (int i = 0; i < nsp; i++) perm[3 + i] = 3 + i;
  k = tt_b_transpose(g, k, perm);
  int64_t d4[TT_MAX_RANK] = {gr * cog, ci / gr};
  for (int i = 0; i < nsp; i++) d4[2 + i] = wt->dims[2 + i];
  k = tt_b_reshape(g, k, r, d4);
  int64_t rev[3] = {2, 3, 4};
  k = tt_b_reverse(g, k, nsp, rev);
  tt_conv_params_t p;
  memset(&p, 0, sizeof p);
  p.nsp = nsp;
  for (int i = 0; i < nsp; i++) {
    int64_t keff = c->dil[i] * (wt->dims[2 + i] - 1) + 1;
    int64_t dilated = (spatial(xt, i) - 1) * c->stride[i] + 1;
    p.stride[i] = 1;
    p.lhs_dilation[i] = c->stride[i];
    p.rhs_dilation[i] = c->dil[i];
    p.pad_lo[i] = keff - 1 - c->pad[i];
    p.pad_hi[i] = target[i] - 1 + keff - dilated - p.pad_lo[i];
  }
  p.feature_groups = gr;
  p.batch_groups = 1;
  p.precision = c->precision;
  return conv_any_pad(g, x, k, p);
}

/* The weight gradient of a regular convolution of x (N, C, sp) giving gy
 * (N, O, sp'), for a kernel of spatial sizes ks: result (O, C/g, ks). The
 * batch is the contraction: x is fed with C as batch and N as features, gy
 * as the kernel; batch_group_count splits the channels into the groups. */
static tt_val_t conv_wgrad(tt_graph_t *g, tt_val_t x, tt_val_t gy, const conv_t *c, const int64_t *ks) {
  if (x < 0 || gy < 0) return -1;
  int nsp = c->nsp, r = nsp + 2;
  int64_t perm[TT_MAX_RANK] = {1, 0};
  for (int i = 0; i < nsp; i++) perm[2 + i] = 2 + i;
  const tt_type_t *xt = tt_graph_type(g, x), *yt = tt_graph_type(g, gy);
  int64_t xs[3], ys[3];
  for (int i = 0; i < nsp; i++) xs[i] = spatial(xt, i), ys[i] = spatial(yt, i);
  tt_val_t lhs = tt_b_transpose(g, x, perm);
  tt_val_t rhs = tt_b_transpose(g, gy, perm);
  tt_conv_params_t p;
  memset(&p, 0, sizeof p);
  p.nsp = nsp;
  for (int i = 0; i < nsp; i++) {
    p.stride[i] = c->dil[i];
    p.lhs_dilation[i] = 1;
    p.rhs_dilation[i] = c->stride[i];
    p.pad_lo[i] = c->pad[i];
    p.pad_hi[i] = (ks[i] - 1) * c->dil[i] + (ys[i] - 1) * c->stride[i] + 1 - xs[i] - c->pad[i];
  }
  p.feature_groups = 1;
  p.batch_groups = c->groups;
  p.precision = c->precision;
  tt_val_t w = conv_any_pad(g, lhs, rhs, p);
  (void)r;
  return tt_b_transpose(g, w, perm);
}

/* Checks shapes as PyTorch does and fills the geometry; input is arg ix,
 * weight arg iw. */
static int check_shapes(tt_lower_t *L, int ix, int iw, conv_t *c) {
  const tt_tensor_ref_t *x = tt_l_ref(L, ix), *w = tt_l_ref(L, iw);
  if (!x || !w) {
    tt_l_fail(L, TT_TYPE_ERROR, "%s: expected Tensor input and weight", L->op);
    return 0;
  }
  int r = w->view.rank;
  if (r < 3 || r > 5) {
    tt_l_fail(L, TT_NOT_IMPLEMENTED, "%s: weight of rank %d (only 1-D, 2-D and 3-D convolutions are supported)", L->op, r);
    return 0;
  }
  if (x->view.rank != r) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "Expected %dD (unbatched) or %dD (batched) input to conv%dd, but got input of size: [%d dims]",
              r - 1, r, r - 2, x->view.rank);
    return 0;
  }
  if (x->dtype != w->dtype) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "Input type (%s) and weight type (%s) should be the same",
              tt_op_type_name(x->dtype), tt_op_type_name(w->dtype));
    return 0;
  }
  /* CPU convolves integers (wrapping, in the input's type) except bool, and
   * transposes or dilates only int64; the same set here, with CPU's words. */
  if (x->dtype == TT_BOOL || (c->transposed && !tt_dtype_is_float(x->dtype) && x->dtype != TT_I64)) {
    tt_l_refuse_dtype(L, x->dtype, "%s", c->transposed ? "slow_conv_transpose2d_out_cpu" : "slow_conv2d_cpu");
    return 0;
  }
  int dilated = 0;
  for (int i = 0; i < c->nsp; i++) dilated |= c->dil[i] != 1;
  if (dilated && !tt_dtype_is_float(x->dtype) && x->dtype != TT_I64) {
    tt_l_refuse_dtype(L, x->dtype, "slow_conv_dilated<>");
    return 0;
  }
  c->dt = x->dtype;
  c->ct = tt_op_math_type(x->dtype);
  c->precision = tt_op_matmul_precision_for(L, x->dtype);
  int64_t cin = x->view.sizes[1];
  int64_t wcin = c->transposed ? w->view.sizes[0] : w->view.sizes[1] * c->groups;
  if (cin != wcin || (c->transposed ? w->view.sizes[0] : w->view.sizes[0]) % c->groups) {
    tt_l_fail(L, TT_INVALID_ARGUMENT,
              "Given groups=%lld, expected input to have %lld channels, but got %lld channels instead",
              (long long)c->groups, (long long)wcin, (long long)cin);
    return 0;
  }
  for (int i = 0; i < c->nsp; i++) {
    int64_t keff = c->dil[i] * (w->view.sizes[2 + i] - 1) + 1;
    if (!c->transposed && x->view.sizes[2 + i] + 2 * c->pad[i] < keff) {
      tt_l_fail(L, TT_INVALID_ARGUMENT,
                "Calculated padded input size per channel: (%lld). Kernel size: (%lld). Kernel size can't be greater than actual input size",
                (long long)(x->view.sizes[2 + i] + 2 * c->pad[i]), (long long)keff);
      return 0;
    }
    if (c->transposed && c->outpad[i] >= c->stride[i] && c->outpad[i] >= c->dil[i]) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "output padding must be smaller than either stride or dilation");
      return 0;
    }
  }
  return 1;
}

/* Spatial sizes of a transposed convolution's output. */
static void transposed_sizes(const conv_t *c, const int64_t *xsz, const int64_t *wsz, int64_t *out) {
  for (int i = 0; i < c->nsp; i++)
    out[i] = (xsz[2 + i] - 1) * c->stride[i] - 2 * c->pad[i] + c->dil[i] * (wsz[2 + i] - 1) + c->outpad[i] + 1;
}

/* convolution(input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups) */
static tt_status_t lower_convolution(tt_lower_t *L) {
  conv_t c;
  int nsp = tt_l_arg_rank(L, 1) - 2;
  if (!read_geometry(L, 3, nsp < 1 ? 1 : nsp > 3 ? 3 : nsp, &c) || !check_shapes(L, 0, 1, &c)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), c.ct);
  tt_val_t w = tt_b_convert(g, tt_l_tensor(L, 1), c.ct);
  tt_val_t y;
  if (c.transposed) {
    int64_t target[3];
    transposed_sizes(&c, tt_l_arg_sizes(L, 0), tt_l_arg_sizes(L, 1), target);
    y = conv_transposed(g, x, w, &c, target);
  } else {
    y = conv_regular(g, x, w, &c);
  }
  if (!tt_l_is_none(L, 2)) {
    const tt_tensor_ref_t *b = tt_l_ref(L, 2);
    int64_t nout = tt_graph_failed(g) ? 0 : tt_graph_type(g, y)->dims[1];
    if (b && (b->view.rank != 1 || b->view.sizes[0] != nout))
      return tt_status_make(TT_INVALID_ARGUMENT, "Given weight, expected bias to be 1-dimensional with %lld elements, but got bias of rank %d instead",
                            (long long)nout, b->view.rank);
    if (tt_graph_failed(g)) return NULL;
    const tt_type_t *yt = tt_graph_type(g, y);
    int64_t bd = 1;
    tt_val_t bias = tt_b_broadcast(g, tt_b_convert(g, tt_l_tensor(L, 2), c.ct), yt->rank, yt->dims, &bd);
    y = tt_b_binary(g, TT_BIN_ADD, y, bias);
  }
  tt_l_output(L, tt_b_convert(g, y, c.dt));
  return NULL;
}

/* Shared by convolution_backward (bias_sizes at 3) and
 * convolution_backward_overrideable (no bias_sizes): a0 is the first
 * geometry argument, imask the output_mask. */
static tt_status_t conv_backward(tt_lower_t *L, int a0, int imask) {
  conv_t c;
  int nsp = tt_l_arg_rank(L, 2) - 2;
  if (!read_geometry(L, a0, nsp < 1 ? 1 : nsp > 3 ? 3 : nsp, &c) || !check_shapes(L, 1, 2, &c)) return NULL;
  int64_t mask[3] = {1, 1, 1};
  if (!tt_l_is_none(L, imask)) tt_l_ints(L, imask, mask, 3);
  tt_graph_t *g = L->g;
  tt_val_t gy = tt_b_convert(g, tt_l_tensor(L, 0), c.ct);
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 1), c.ct);
  tt_val_t w = tt_b_convert(g, tt_l_tensor(L, 2), c.ct);
  const int64_t *xsz = tt_l_arg_sizes(L, 1), *wsz = tt_l_arg_sizes(L, 2);
  tt_val_t gx = -1, gw = -1, gb = -1;
  if (mask[0]) {
    /* Regular: a transposed conv of gy back to x's size; transposed: a
     * regular conv of gy (it lands on x's size since output_padding < stride). */
    gx = c.transposed ? conv_regular(g, gy, w, &c) : conv_transposed(g, gy, w, &c, xsz + 2);
    /* With output_padding >= stride (allowed when below the dilation) the
     * regular conv of gy runs past x's size; the extra outputs touch only
     * the padding rows, which no input fed. */
    for (int i = 0; c.transposed && i < c.nsp && !tt_graph_failed(g); i++)
      if (tt_graph_type(g, gx)->dims[2 + i] > xsz[2 + i]) gx = tt_b_slice_dim(g, gx, 2 + i, 0, xsz[2 + i], 1);
    gx = tt_b_convert(g, gx, c.dt);
  }
  if (mask[1]) {
    gw = c.transposed ? conv_wgrad(g, gy, x, &c, wsz + 2) : conv_wgrad(g, x, gy, &c, wsz + 2);
    gw = tt_b_convert(g, gw, c.dt);
  }
  if (mask[2]) {
    int64_t dims[4] = {0, 2, 3, 4};
    gb = tt_b_convert(g, tt_b_reduce(g, TT_RED_SUM, gy, 1 + c.nsp, dims), c.dt);
  }
  /* Undefined gradients are returned as None by the binding when an output
   * is absent; produce them all and let autograd drop the unused ones. */
  if (!mask[0]) gx = tt_b_full_f(g, c.dt, tt_l_arg_rank(L, 1), xsz, 0);
  if (!mask[1]) gw = tt_b_full_f(g, c.dt, tt_l_arg_rank(L, 2), wsz, 0);
  if (!mask[2]) {
    int64_t n = tt_graph_failed(g) ? 0 : tt_graph_type(g, gy)->dims[1];
    gb = tt_b_full_f(g, c.dt, 1, &n, 0);
  }
  tt_l_output(L, gx);
  tt_l_output(L, gw);
  tt_l_output(L, gb);
  return NULL;
}

static tt_status_t lower_convolution_backward(tt_lower_t *L) { return conv_backward(L, 4, 10); }
static tt_status_t lower_convolution_backward_overrideable(tt_lower_t *L) { return conv_backward(L, 3, 9); }

const tt_op_def_t tt_ops_conv[] = {
    {"convolution", lower_convolution, 0, .layout = TT_LAYOUT_CONV},
    {"convolution_overrideable", lower_convolution, 0},
    {"convolution_backward", lower_convolution_backward, 0},
    {"convolution_backward_overrideable", lower_convolution_backward_overrideable, 0},
    {NULL, NULL, 0},
};
