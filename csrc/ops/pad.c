/* Lowerings of reflection and replication padding over the last 1-3 dims
 * (reflection_padNd, replication_padNd and their backwards). Each padded dim
 * is a gather of source indices computed from iota; negative pads crop.
 * Backwards scatter-add every output position's gradient into its source
 * (ops/nn_util.h taps): an inf or NaN reaches only its own source. */
#include <stdio.h>
#include <string.h>

#include "ops/families.h"
#include "ops/dispatch_refusal.h"
#include "ops/nn_util.h"

/* Source index (int64, shape of j) of output positions j for one dim. */
static tt_val_t src_index(tt_graph_t *g, tt_val_t j, int reflect, int64_t n, int64_t lo) {
  tt_val_t p = tt_b_binary(g, TT_BIN_SUB, j, tt_b_like_f(g, j, (double)lo));
  if (!reflect) return tt_b_clamp(g, tt_b_like_f(g, p, 0), p, tt_b_like_f(g, p, (double)(n - 1)));
  tt_val_t a = tt_b_unary(g, TT_UN_ABS, p);
  /* past the end: 2(n-1) - p */
  tt_val_t back = tt_b_binary(g, TT_BIN_SUB, tt_b_like_f(g, a, (double)(2 * (n - 1))), a);
  return tt_b_binary(g, TT_BIN_MIN, a, back);
}

static void fmt_sizes(char *buf, size_t n, int r, const int64_t *s) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < r && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)s[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

static tt_status_t pad(tt_lower_t *L, int nsp, int reflect, int backward) {
  const char *kind = reflect ? "reflection_pad" : "replication_pad";
  int ix = backward ? 1 : 0, ip = backward ? 2 : 1;
  int64_t pads[6];
  int np = tt_l_ints(L, ip, pads, 6);
  if (np != 2 * nsp)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s%dd: padding size is expected to be %d, but got: %d", kind, nsp, 2 * nsp, np);
  int r = tt_l_arg_rank(L, ix);
  const int64_t *xs = tt_l_arg_sizes(L, ix);
  char s[160];
  fmt_sizes(s, sizeof s, r, xs);
  int ok = r == nsp + 1 || r == nsp + 2;
  for (int i = r == nsp + 2 ? 1 : 0; ok && i < r; i++) ok = xs[i] != 0;
  if (!ok)
    return tt_status_make(TT_INVALID_ARGUMENT, "Expected %dD or %dD (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: %s",
                          nsp + 1, nsp + 2, s);
  tt_dtype_t dt = tt_l_arg_dtype(L, ix);
  if (dt == TT_BOOL) return tt_op_refuse_dtype(TT_BOOL, "%s%dd", kind, nsp);
  int64_t lo[3], hi[3], out[3];
  for (int i = 0; i < nsp; i++) {
    int a = r - nsp + i; /* pads list the last dim first */
    lo[i] = pads[2 * (nsp - 1 - i)];
    hi[i] = pads[2 * (nsp - 1 - i) + 1];
    int64_t n = xs[a];
    if (reflect && (lo[i] >= n || hi[i] >= n))
      return tt_status_make(TT_INVALID_ARGUMENT, "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (%lld, %lld) at dimension %d of input %s",
                            (long long)lo[i], (long long)hi[i], a, s);
    out[i] = n + lo[i] + hi[i];
    if (out[i] < 1)
      return tt_status_make(TT_INVALID_ARGUMENT, "input (size %lld at dimension %d) is too small. Calculated output size: %lld", (long long)n, a,
                            (long long)out[i]);
  }
  tt_graph_t *g = L->g;
  if (!backward) {
    tt_val_t x = tt_l_tensor(L, 0);
    for (int i = 0; i < nsp; i++) {
      tt_val_t j = tt_b_iota(g, TT_I64, 1, &out[i], 0);
      x = tt_nn_gather_dim(g, x, r - nsp + i, src_index(g, j, reflect, xs[r - nsp + i], lo[i]), out[i]);
    }
    tt_l_output(L, x);
    return NULL;
  }
  const int64_t *gs = tt_l_arg_sizes(L, 0);
  for (int i = 0; i < r; i++) {
    int64_t want = i < r - nsp ? xs[i] : out[i - (r - nsp)];
    if (tt_l_arg_rank(L, 0) != r || gs[i] != want)
      return tt_status_make(TT_INVALID_ARGUMENT, "%s%dd_backward: grad_output size %lld at dimension %d, expected %lld", kind, nsp,
                            (long long)(tt_l_arg_rank(L, 0) == r ? gs[i] : -1), i, (long long)want);
  }
  tt_dtype_t ct = tt_op_math_type(dt);
  tt_val_t gy = tt_b_convert(g, tt_l_tensor(L, 0), ct);
  for (int i = 0; i < nsp; i++) {
    int a = r - nsp + i;
    tt_nn_taps_t t = {.n = 1, .w = {-1}, .valid = {-1}};
    t.idx[0] = src_index(g, tt_b_iota(g, TT_I64, 1, &out[i], 0), reflect, xs[a], lo[i]);
    gy = tt_nn_taps_backward(g, gy, a, &t, xs[a]);
  }
  tt_l_output(L, tt_b_convert(g, gy, dt));
  return NULL;
}

#define PAD(fn, nsp, refl, bw) \
  static tt_status_t fn(tt_lower_t *L) { return pad(L, nsp, refl, bw); }
PAD(l_refl1, 1, 1, 0)
PAD(l_refl2, 2, 1, 0)
PAD(l_refl3, 3, 1, 0)
PAD(l_refl1b, 1, 1, 1)
PAD(l_refl2b, 2, 1, 1)
PAD(l_refl3b, 3, 1, 1)
PAD(l_repl1, 1, 0, 0)
PAD(l_repl2, 2, 0, 0)
PAD(l_repl3, 3, 0, 0)
PAD(l_repl1b, 1, 0, 1)
PAD(l_repl2b, 2, 0, 1)
PAD(l_repl3b, 3, 0, 1)

const tt_op_def_t tt_ops_pad[] = {
    {"reflection_pad1d", l_refl1, TT_OPF_COMPLEX},
    {"reflection_pad2d", l_refl2, TT_OPF_COMPLEX, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"reflection_pad3d", l_refl3, 0},
    {"reflection_pad1d_backward", l_refl1b, 0},
    {"reflection_pad2d_backward", l_refl2b, 0},
    {"reflection_pad3d_backward", l_refl3b, 0},
    {"replication_pad1d", l_repl1, 0},
    {"replication_pad2d", l_repl2, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"replication_pad3d", l_repl3, 0},
    {"replication_pad1d_backward", l_repl1b, 0},
    {"replication_pad2d_backward", l_repl2b, 0},
    {"replication_pad3d_backward", l_repl3b, 0},
    {NULL, NULL, 0},
};
