/* Lowerings of grid_sampler_2d / grid_sampler_3d and their backward ops:
 * gathers of the neighbour taps with PyTorch CPU's index math (GridSampler.h). */
#include <math.h>
#include <string.h>

#include "ops/families.h"
#include "ops/nn_util.h"

enum { GS_BILINEAR = 0, GS_NEAREST = 1, GS_BICUBIC = 2 };
enum { GS_ZEROS = 0, GS_BORDER = 1, GS_REFLECTION = 2 };
#define GS_MAX_TAPS 16

/* One neighbour read per output position: in-plane flat index (0 where
 * invalid), weight (0 where invalid) and d weight / d coordinate per dim. */
typedef struct {
  tt_val_t flat, w, dw[3];
  tt_val_t valid, wraw; /* for nan_weights: the unmasked weight */
} tap_t;

typedef struct {
  int nsp, mode, pad, align;
  int64_t n, c, q, p;    /* batch, channels, output positions, input positions */
  int64_t in[3];         /* input spatial sizes, D/H/W order */
  int64_t nq[2];         /* (n, q) */
  tt_dtype_t dt, ct;
  tt_val_t m[3];         /* d source coordinate / d grid per spatial dim */
  int nan_weights; /* 2-D bilinear zeros: CPU masks values, not weights, so NaN grids give NaN */
  int ntaps;
  tap_t taps[GS_MAX_TAPS];
} gs_t;

static tt_val_t cst(tt_graph_t *g, const gs_t *s, double v) { return tt_b_full_f(g, s->ct, 2, s->nq, v); }
static tt_val_t add(tt_graph_t *g, tt_val_t a, tt_val_t b) { return tt_b_binary(g, TT_BIN_ADD, a, b); }
static tt_val_t sub(tt_graph_t *g, tt_val_t a, tt_val_t b) { return tt_b_binary(g, TT_BIN_SUB, a, b); }
static tt_val_t mul(tt_graph_t *g, tt_val_t a, tt_val_t b) { return tt_b_binary(g, TT_BIN_MUL, a, b); }
static tt_val_t sel(tt_graph_t *g, tt_val_t p, tt_val_t a, tt_val_t b) { return tt_b_select(g, p, a, b); }
static tt_val_t cmpc(tt_graph_t *g, tt_cmp_t c, tt_val_t x, double v) { return tt_b_compare(g, c, x, tt_b_like_f(g, x, v)); }

/* clip_coordinates(_set_grad): clamp to [0, size-1]; gradient 0 at or past the ends. */
static tt_val_t clip(tt_graph_t *g, tt_val_t c, int64_t size, tt_val_t *grad) {
  tt_val_t out = tt_b_binary(g, TT_BIN_MIN, tt_nn_addc(g, tt_b_like_f(g, c, 0), (double)(size - 1)),
                             tt_b_binary(g, TT_BIN_MAX, c, tt_b_like_f(g, c, 0)));
  if (grad) {
    tt_val_t inside = tt_b_binary(g, TT_BIN_AND, cmpc(g, TT_CMP_GT, c, 0), cmpc(g, TT_CMP_LT, c, (double)(size - 1)));
    *grad = sel(g, inside, *grad, tt_b_like_f(g, c, 0));
  }
  return out;
}

/* reflect_coordinates(_set_grad) over [twice_low/2, twice_high/2]. */
static tt_val_t reflect(tt_graph_t *g, tt_val_t c, int64_t twice_low, int64_t twice_high, tt_val_t *grad) {
  if (twice_low == twice_high) {
    if (grad) *grad = tt_b_like_f(g, c, 0);
    return tt_b_like_f(g, c, 0);
  }
  double mn = (double)twice_low / 2, span = (double)(twice_high - twice_low) / 2;
  tt_val_t t = tt_nn_addc(g, c, -mn);
  tt_val_t neg = cmpc(g, TT_CMP_LT, t, 0);
  t = tt_b_unary(g, TT_UN_ABS, t);
  tt_val_t extra = tt_b_binary(g, TT_BIN_REM, t, tt_b_like_f(g, t, span));
  tt_val_t flips = tt_b_unary(g, TT_UN_FLOOR, tt_b_binary(g, TT_BIN_DIV, t, tt_b_like_f(g, t, span)));
  tt_val_t even = cmpc(g, TT_CMP_EQ, tt_b_binary(g, TT_BIN_REM, flips, tt_b_like_f(g, flips, 2)), 0);
  if (grad) {
    tt_val_t sgn = sel(g, neg, tt_b_like_f(g, c, -1), tt_b_like_f(g, c, 1));
    *grad = mul(g, *grad, sel(g, even, sgn, tt_b_unary(g, TT_UN_NEG, sgn)));
  }
  return sel(g, even, tt_nn_addc(g, extra, mn), tt_nn_addc(g, tt_b_unary(g, TT_UN_NEG, extra), span + mn));
}

/* Padding applied to a coordinate already in pixel units (compute_coordinates). */
static tt_val_t pad_coord(tt_graph_t *g, const gs_t *s, tt_val_t c, int64_t size, tt_val_t *grad) {
  if (s->pad == GS_BORDER) return clip(g, c, size, grad);
  if (s->pad == GS_REFLECTION) {
    c = s->align ? reflect(g, c, 0, 2 * (size - 1), grad) : reflect(g, c, -1, 2 * size - 1, grad);
    return clip(g, c, size, grad);
  }
  return c;
}

/* grid_sampler_unnormalize: grid in [-1, 1] to pixel units; *m its slope. */
static tt_val_t unnormalize(tt_graph_t *g, const gs_t *s, tt_val_t x, int64_t size, tt_val_t *m) {
  double k = s->align ? (double)(size - 1) / 2 : (double)size / 2;
  *m = tt_b_like_f(g, x, k);
  if (s->align) return tt_nn_mulc(g, tt_nn_addc(g, x, 1), k);
  return tt_nn_mulc(g, tt_nn_addc(g, tt_nn_mulc(g, tt_nn_addc(g, x, 1), (double)size), -1), 0.5);
}

/* safe_downgrade_to_int_range: non-finite or huge coordinates become -100. */
static tt_val_t safe_int(tt_graph_t *g, tt_val_t c) {
  tt_val_t ok = tt_b_binary(g, TT_BIN_AND, tt_b_unary(g, TT_UN_IS_FINITE, c),
                            cmpc(g, TT_CMP_LE, tt_b_unary(g, TT_UN_ABS, c), 2147483646.0));
  return sel(g, ok, c, tt_b_like_f(g, c, -100));
}

/* Integer position (float, integral) -> i64 index and its validity. */
static tt_val_t in_bounds(tt_graph_t *g, tt_val_t pos, int64_t size) {
  return tt_b_binary(g, TT_BIN_AND, cmpc(g, TT_CMP_GE, pos, 0), cmpc(g, TT_CMP_LT, pos, (double)(size - 1) + 0.5));
}

/* Bicubic convolution coefficients (A = -0.75) for offsets -1..2 and their
 * derivatives in t. */
static void cubic(tt_graph_t *g, tt_val_t t, tt_val_t *w, tt_val_t *dw) {
  const double A = -0.75;
  for (int j = 0; j < 4; j++) {
    /* Distance from the tap: |t + 1|, |t|, |1 - t|, |2 - t|; s = dx/dt. */
    double sgn = j < 2 ? 1 : -1;
    tt_val_t x = j < 2 ? tt_nn_addc(g, t, j == 0 ? 1 : 0) : tt_nn_addc(g, tt_b_unary(g, TT_UN_NEG, t), j == 2 ? 1 : 2);
    if (j == 1 || j == 2) { /* ((A + 2) x - (A + 3)) x^2 + 1 */
      tt_val_t in = tt_nn_addc(g, tt_nn_mulc(g, x, A + 2), -(A + 3));
      w[j] = tt_nn_addc(g, mul(g, mul(g, in, x), x), 1);
      tt_val_t d = mul(g, tt_nn_addc(g, tt_nn_mulc(g, x, 3 * (A + 2)), -2 * (A + 3)), x);
      dw[j] = tt_nn_mulc(g, d, sgn);
    } else { /* ((A x - 5A) x + 8A) x - 4A */
      tt_val_t in = tt_nn_addc(g, mul(g, tt_nn_addc(g, tt_nn_mulc(g, x, A), -5 * A), x), 8 * A);
      w[j] = tt_nn_addc(g, mul(g, in, x), -4 * A);
      tt_val_t d = tt_nn_addc(g, mul(g, tt_nn_addc(g, tt_nn_mulc(g, x, 3 * A), -10 * A), x), 8 * A);
      dw[j] = tt_nn_mulc(g, d, sgn);
    }
  }
}

/* Adds one tap from per-dim integer positions (float), weights and weight
 * derivatives (NULL dw: none). */
static void add_tap(tt_graph_t *g, gs_t *s, tt_val_t *pos, tt_val_t *w, tt_val_t *dw) {
  tt_val_t valid = -1, flat = -1, wt = -1;
  int64_t stride = 1;
  for (int a = s->nsp - 1; a >= 0; a--) {
    tt_val_t ok = in_bounds(g, pos[a], s->in[a]);
    valid = valid < 0 ? ok : tt_b_binary(g, TT_BIN_AND, valid, ok);
    tt_val_t term = tt_nn_mulc(g, tt_b_convert(g, pos[a], TT_I64), (double)stride);
    flat = flat < 0 ? term : add(g, flat, term);
    stride *= s->in[a];
  }
  for (int a = 0; a < s->nsp; a++) wt = wt < 0 ? w[a] : mul(g, wt, w[a]);
  tap_t *t = &s->taps[s->ntaps++];
  tt_val_t zero = cst(g, s, 0);
  t->flat = sel(g, valid, flat, tt_b_full_i(g, TT_I64, 2, s->nq, 0));
  t->w = sel(g, valid, wt, zero);
  t->valid = valid;
  t->wraw = wt;
  for (int a = 0; a < s->nsp; a++) {
    t->dw[a] = zero;
    if (!dw) continue;
    tt_val_t d = dw[a];
    for (int b = 0; b < s->nsp; b++)
      if (b != a) d = mul(g, d, w[b]);
    t->dw[a] = sel(g, valid, d, zero);
  }
}

/* Reads arguments (input at ix, grid at ix + 1, modes after) and builds the taps. */
static int build(tt_lower_t *L, int ix, int nsp, gs_t *s) {
  tt_graph_t *g = L->g;
  memset(s, 0, sizeof *s);
  s->nsp = nsp;
  const char *fn = "grid_sampler()";
  if (!tt_l_ref(L, ix) || !tt_l_ref(L, ix + 1)) { tt_l_fail(L, TT_TYPE_ERROR, "%s: expected Tensor input and grid", L->op); return 0; }
  int xr = tt_l_arg_rank(L, ix), gr = tt_l_arg_rank(L, ix + 1);
  const int64_t *xs = tt_l_arg_sizes(L, ix), *gsz = tt_l_arg_sizes(L, ix + 1);
  if (xr != nsp + 2 || gr != nsp + 2) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: expected %dD input and grid with same number of dimensions, but got input with %d and grid with %d dims",
              fn, nsp + 2, xr, gr);
    return 0;
  }
  if (gsz[nsp + 1] != nsp) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: expected grid to have size %d in last dimension, but got grid with size %lld", fn, nsp,
              (long long)gsz[nsp + 1]);
    return 0;
  }
  if (gsz[0] != xs[0]) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: expected grid and input to have same batch size, but got input with batch %lld and grid with batch %lld", fn,
              (long long)xs[0], (long long)gsz[0]);
    return 0;
  }
  s->dt = tt_l_arg_dtype(L, ix);
  if (!tt_dtype_is_float(s->dt) || tt_l_arg_dtype(L, ix + 1) != s->dt) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: expected input and grid of the same floating dtype, got %s and %s", fn, tt_op_type_name(s->dt),
              tt_op_type_name(tt_l_arg_dtype(L, ix + 1)));
    return 0;
  }
  s->ct = tt_op_math_type(s->dt);
  s->mode = (int)tt_l_int(L, ix + 2, 0);
  s->pad = (int)tt_l_int(L, ix + 3, 0);
  s->align = tt_l_bool(L, ix + 4, 0);
  if (s->mode < 0 || s->mode > 2 || s->pad < 0 || s->pad > 2) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: unknown interpolation mode %d or padding mode %d", fn, s->mode, s->pad);
    return 0;
  }
  if (s->mode == GS_BICUBIC && nsp != 2) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "grid_sampler(): bicubic interpolation only supports 4D input");
    return 0;
  }
  s->n = xs[0];
  s->c = xs[1];
  s->q = 1;
  s->p = 1;
  for (int a = 0; a < nsp; a++) {
    s->in[a] = xs[2 + a];
    if (s->in[a] <= 0) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: expected input to have non-empty spatial dimensions, but dimension %d is empty", fn, 2 + a);
      return 0;
    }
    s->p *= xs[2 + a];
    s->q *= gsz[1 + a];
  }
  s->nq[0] = s->n;
  s->nq[1] = s->q;
  s->nan_weights = nsp == 2 && s->mode == GS_BILINEAR && s->pad == GS_ZEROS;
  int64_t d3[3] = {s->n, s->q, nsp};
  tt_val_t grid = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, ix + 1), s->ct), 3, d3);
  tt_val_t c[3], lo[3];
  for (int a = 0; a < nsp; a++) {
    /* grid[..., 0] indexes the last spatial dim (x = W). */
    tt_val_t gc = tt_b_reshape(g, tt_b_slice_dim(g, grid, 2, nsp - 1 - a, nsp - a, 1), 2, s->nq);
    c[a] = unnormalize(g, s, gc, s->in[a], &s->m[a]);
    if (s->mode != GS_BICUBIC) c[a] = pad_coord(g, s, c[a], s->in[a], &s->m[a]);
    if (s->mode != GS_BICUBIC && !s->nan_weights) c[a] = safe_int(g, c[a]);
    lo[a] = tt_b_unary(g, TT_UN_FLOOR, c[a]);
  }
  if (s->mode == GS_NEAREST) {
    tt_val_t pos[3], w[3];
    for (int a = 0; a < nsp; a++) pos[a] = tt_b_unary(g, TT_UN_ROUND_EVEN, c[a]), w[a] = cst(g, s, 1);
    add_tap(g, s, pos, w, NULL);
  } else if (s->mode == GS_BILINEAR) {
    /* Corners in PyTorch's order (nw, ne, sw, se; t before b): last dim fastest. */
    for (int b = 0; b < (1 << nsp); b++) {
      tt_val_t pos[3], w[3], dw[3];
      for (int a = 0; a < nsp; a++) {
        int hi = (b >> (nsp - 1 - a)) & 1;
        pos[a] = hi ? tt_nn_addc(g, lo[a], 1) : lo[a];
        w[a] = hi ? sub(g, c[a], lo[a]) : sub(g, tt_nn_addc(g, lo[a], 1), c[a]);
        dw[a] = cst(g, s, hi ? 1 : -1);
      }
      add_tap(g, s, pos, w, dw);
    }
  } else {
    tt_val_t cw[2][4], cdw[2][4];
    for (int a = 0; a < 2; a++) cubic(g, sub(g, c[a], lo[a]), cw[a], cdw[a]);
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) {
        int k[2] = {i, j};
        tt_val_t pos[2], w[2], dw[2];
        for (int a = 0; a < 2; a++) {
          pos[a] = pad_coord(g, s, tt_nn_addc(g, lo[a], (double)(k[a] - 1)), s->in[a], NULL);
          w[a] = cw[a][k[a]];
          dw[a] = cdw[a][k[a]];
        }
        add_tap(g, s, pos, w, dw);
      }
    }
  }
  return !tt_graph_failed(g);
}

/* The input as (N*P, C) rows in ct. */
static tt_val_t input_rows(tt_graph_t *g, const gs_t *s, tt_val_t x) {
  int64_t d3[3] = {s->n, s->c, s->p}, perm[3] = {0, 2, 1}, d2[2] = {s->n * s->p, s->c};
  x = tt_b_transpose(g, tt_b_reshape(g, tt_b_convert(g, x, s->ct), 3, d3), perm);
  return tt_b_reshape(g, x, 2, d2);
}

/* Row indices (N*Q) of a tap into input_rows. */
static tt_val_t tap_rows(tt_graph_t *g, const gs_t *s, const tap_t *t) {
  tt_val_t base = tt_nn_mulc(g, tt_b_iota(g, TT_I64, 2, s->nq, 0), (double)s->p);
  int64_t n1 = s->n * s->q;
  return tt_b_reshape(g, add(g, base, t->flat), 1, &n1);
}

/* (N, Q, C) values of one tap. */
static tt_val_t tap_values(tt_graph_t *g, const gs_t *s, tt_val_t rows, const tap_t *t) {
  int64_t d3[3] = {s->n, s->q, s->c};
  return tt_b_reshape(g, tt_nn_gather_dim(g, rows, 0, tap_rows(g, s, t), s->n * s->q), 3, d3);
}

static tt_val_t per_channel(tt_graph_t *g, const gs_t *s, tt_val_t w) {
  int64_t d3[3] = {s->n, s->q, s->c}, bd[2] = {0, 1};
  return tt_b_broadcast(g, w, 3, d3, bd);
}

/* grid_sampler_{2,3}d(input, grid, interpolation_mode, padding_mode, align_corners) */
static tt_status_t lower_forward(tt_lower_t *L, int nsp) {
  gs_t s;
  if (!build(L, 0, nsp, &s)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t rows = input_rows(g, &s, tt_l_tensor(L, 0));
  tt_val_t acc = -1;
  for (int i = 0; i < s.ntaps; i++) {
    const tap_t *t = &s.taps[i];
    tt_val_t v = tap_values(g, &s, rows, t);
    if (s.nan_weights)
      v = mul(g, tt_b_select(g, per_channel(g, &s, t->valid), v, tt_b_like_f(g, v, 0)), per_channel(g, &s, t->wraw));
    else
      v = mul(g, v, per_channel(g, &s, t->w));
    acc = acc < 0 ? v : add(g, acc, v);
  }
  int64_t perm[3] = {0, 2, 1}, od[5] = {s.n, s.c};
  const int64_t *gsz = tt_l_arg_sizes(L, 1);
  for (int a = 0; a < nsp; a++) od[2 + a] = gsz[1 + a];
  tt_l_output(L, tt_b_convert(g, tt_b_reshape(g, tt_b_transpose(g, acc, perm), nsp + 2, od), s.dt));
  return NULL;
}

/* grid_sampler_{2,3}d_backward(grad_output, input, grid, interpolation_mode,
 * padding_mode, align_corners, output_mask) -> (grad_input, grad_grid):
 * scatter-add of the weighted gradient to the taps; the grid gradient is the
 * sum over taps and channels of grad * value * d weight, times the slope of
 * the source coordinate. */
static tt_status_t lower_backward(tt_lower_t *L, int nsp) {
  gs_t s;
  if (!build(L, 1, nsp, &s)) return NULL;
  tt_graph_t *g = L->g;
  int64_t d3[3] = {s.n, s.c, s.q}, perm[3] = {0, 2, 1};
  tt_val_t gy = tt_b_transpose(g, tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 0), s.ct), 3, d3), perm);
  tt_val_t rows = input_rows(g, &s, tt_l_tensor(L, 1));
  tt_val_t idx[GS_MAX_TAPS], upd[GS_MAX_TAPS], gg[3] = {-1, -1, -1};
  int64_t nqc[2] = {s.n * s.q, s.c}, nq1[2] = {s.n * s.q, 1};
  for (int i = 0; i < s.ntaps; i++) {
    const tap_t *t = &s.taps[i];
    idx[i] = tt_b_reshape(g, tap_rows(g, &s, t), 2, nq1);
    upd[i] = tt_b_reshape(g, mul(g, gy, per_channel(g, &s, t->w)), 2, nqc);
    if (s.mode == GS_NEAREST) continue;
    int64_t cd = 2;
    tt_val_t gv = tt_b_reduce(g, TT_RED_SUM, mul(g, gy, tap_values(g, &s, rows, t)), 1, &cd);
    for (int a = 0; a < nsp; a++) {
      tt_val_t term = mul(g, gv, t->dw[a]);
      gg[a] = gg[a] < 0 ? term : add(g, gg[a], term);
    }
  }
  /* grad_input: one scatter-add of all taps' rows. */
  tt_val_t all_idx = s.ntaps > 1 ? tt_b_concat(g, s.ntaps, idx, 0) : idx[0];
  tt_val_t all_upd = s.ntaps > 1 ? tt_b_concat(g, s.ntaps, upd, 0) : upd[0];
  tt_scatter_dims_t sd;
  memset(&sd, 0, sizeof sd);
  sd.n_window = 1;
  sd.update_window_dims[0] = 1;
  sd.n_inserted = 1;
  sd.inserted_window_dims[0] = 0;
  sd.n_to_operand = 1;
  sd.scatter_to_operand[0] = 0;
  int64_t rd[2] = {s.n * s.p, s.c};
  tt_val_t gx = tt_b_scatter(g, TT_RED_SUM, tt_b_full_f(g, s.ct, 2, rd, 0), all_idx, all_upd, &sd);
  int64_t npc[3] = {s.n, s.p, s.c};
  gx = tt_b_transpose(g, tt_b_reshape(g, gx, 3, npc), perm);
  tt_l_output(L, tt_b_convert(g, tt_b_reshape(g, gx, tt_l_arg_rank(L, 1), tt_l_arg_sizes(L, 1)), s.dt));
  /* grad_grid: component k is spatial dim nsp - 1 - k. */
  tt_val_t comp[3];
  int64_t nq1c[3] = {s.n, s.q, 1};
  for (int k = 0; k < nsp; k++) {
    int a = nsp - 1 - k;
    tt_val_t v = gg[a] < 0 ? cst(g, &s, 0) : mul(g, gg[a], s.m[a]);
    comp[k] = tt_b_reshape(g, v, 3, nq1c);
  }
  tt_val_t gg_all = tt_b_concat(g, nsp, comp, 2);
  tt_l_output(L, tt_b_convert(g, tt_b_reshape(g, gg_all, tt_l_arg_rank(L, 2), tt_l_arg_sizes(L, 2)), s.dt));
  return NULL;
}

static tt_status_t lower_gs2d(tt_lower_t *L) { return lower_forward(L, 2); }
static tt_status_t lower_gs3d(tt_lower_t *L) { return lower_forward(L, 3); }
static tt_status_t lower_gs2d_bw(tt_lower_t *L) { return lower_backward(L, 2); }
static tt_status_t lower_gs3d_bw(tt_lower_t *L) { return lower_backward(L, 3); }

const tt_op_def_t tt_ops_grid_sample[] = {
    {"grid_sampler_2d", lower_gs2d, 0},
    {"grid_sampler_3d", lower_gs3d, 0},
    {"grid_sampler_2d_backward", lower_gs2d_bw, 0},
    {"grid_sampler_3d_backward", lower_gs3d_bw, 0},
    {NULL, NULL, 0},
};
