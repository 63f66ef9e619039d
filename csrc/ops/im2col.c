/* Lowerings of im2col (unfold) and col2im (fold) over (N, C, H, W) or
 * (C, H, W) inputs: one strided slice (im2col) or one interior-padded
 * placement (col2im) per kernel offset; each is the other's backward. */
#include <string.h>

#include "ops/families.h"
#include "ops/dispatch_refusal.h"
#include "ops/nn_util.h"

typedef struct {
  int64_t k[2], d[2], p[2], s[2], in[2], out[2];
} geom_t;

static int read2(tt_lower_t *L, int i, const char *what, int64_t *out) {
  int64_t v[4];
  int n = tt_l_ints(L, i, v, 4);
  if (n != 2) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "It is expected %s equals to 2, but got size %d", what, n);
    return 0;
  }
  out[0] = v[0], out[1] = v[1];
  return 1;
}

/* Reads kernel_size, dilation, padding, stride from args i..i+3; in[] set by caller. */
static int geometry(tt_lower_t *L, int i, geom_t *q) {
  if (!read2(L, i, "kernel_size", q->k) || !read2(L, i + 1, "dilation", q->d) || !read2(L, i + 2, "padding", q->p) ||
      !read2(L, i + 3, "stride", q->s))
    return 0;
  for (int j = 0; j < 2; j++) {
    if (q->k[j] <= 0 || q->d[j] <= 0 || q->s[j] <= 0 || q->p[j] < 0) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "kernel size, dilation and stride should be greater than zero and padding non-negative, but got kernel_size: (%lld, %lld), dilation: (%lld, %lld), padding: (%lld, %lld), stride: (%lld, %lld)",
                (long long)q->k[0], (long long)q->k[1], (long long)q->d[0], (long long)q->d[1], (long long)q->p[0], (long long)q->p[1],
                (long long)q->s[0], (long long)q->s[1]);
      return 0;
    }
    q->out[j] = (q->in[j] + 2 * q->p[j] - (q->d[j] * (q->k[j] - 1) + 1)) / q->s[j] + 1;
    if (q->in[j] + 2 * q->p[j] - (q->d[j] * (q->k[j] - 1) + 1) < 0 || q->out[j] < 1) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "Given input with spatial size (%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), padding=(%lld, %lld), calculated shape of the array of sliding blocks as (%lld, %lld), but its components must be at least one.",
                (long long)q->in[0], (long long)q->in[1], (long long)q->k[0], (long long)q->k[1], (long long)q->d[0], (long long)q->d[1],
                (long long)q->p[0], (long long)q->p[1], (long long)q->out[0], (long long)q->out[1]);
      return 0;
    }
  }
  return 1;
}

/* im2col(self, kernel_size, dilation, padding, stride) -> (N, C*kh*kw, L) */
static tt_status_t lower_im2col(tt_lower_t *L) {
  int r = tt_l_arg_rank(L, 0);
  const int64_t *xs = tt_l_arg_sizes(L, 0);
  if (r != 3 && r != 4) return tt_status_make(TT_INVALID_ARGUMENT, "Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions, but got %dD", r);
  geom_t q;
  q.in[0] = xs[r - 2], q.in[1] = xs[r - 1];
  if (!geometry(L, 1, &q)) return NULL;
  tt_graph_t *g = L->g;
  int64_t n = r == 4 ? xs[0] : 1, c = xs[r - 3];
  int64_t d4[4] = {n, c, q.in[0], q.in[1]};
  tt_val_t x = tt_b_reshape(g, tt_l_tensor(L, 0), 4, d4);
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  int64_t lo[4] = {0, 0, q.p[0], q.p[1]}, hi[4] = {0, 0, q.p[0], q.p[1]};
  tt_val_t zero = dt == TT_BOOL ? tt_b_convert(g, tt_b_const_i(g, TT_I32, 0), TT_BOOL) : tt_b_convert(g, tt_b_const_f(g, TT_F32, 0), dt);
  x = tt_b_pad(g, x, zero, lo, hi, NULL);
  int64_t nk = q.k[0] * q.k[1], nl = q.out[0] * q.out[1];
  tt_val_t parts[1024];
  if (nk > 1024) return tt_status_make(TT_NOT_IMPLEMENTED, "im2col: kernels of more than 1024 elements are not supported (got %lld)", (long long)nk);
  for (int64_t i = 0; i < nk; i++) {
    int64_t ki = i / q.k[1], kj = i % q.k[1];
    int64_t st[4] = {0, 0, ki * q.d[0], kj * q.d[1]};
    int64_t lim[4] = {n, c, st[2] + (q.out[0] - 1) * q.s[0] + 1, st[3] + (q.out[1] - 1) * q.s[1] + 1};
    int64_t str[4] = {1, 1, q.s[0], q.s[1]};
    int64_t d5[4] = {n, c, 1, nl};
    parts[i] = tt_b_reshape(g, tt_b_slice(g, x, st, lim, str), 4, d5);
  }
  tt_val_t y = tt_b_concat(g, (int)nk, parts, 2);
  int64_t od[3] = {n, c * nk, nl};
  tt_l_output(L, tt_b_reshape(g, y, r == 4 ? 3 : 2, r == 4 ? od : od + 1));
  return NULL;
}

/* col2im(self, output_size, kernel_size, dilation, padding, stride): the
 * columns summed back onto the (padded) image, padding cut off. */
static tt_status_t lower_col2im(tt_lower_t *L) {
  int r = tt_l_arg_rank(L, 0);
  const int64_t *xs = tt_l_arg_sizes(L, 0);
  if (r != 2 && r != 3) return tt_status_make(TT_INVALID_ARGUMENT, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions, but got %dD", r);
  geom_t q;
  if (!read2(L, 1, "output_size", q.in)) return NULL;
  if (!geometry(L, 2, &q)) return NULL;
  int64_t n = r == 3 ? xs[0] : 1, ck = xs[r - 2], nl = xs[r - 1], nk = q.k[0] * q.k[1];
  if (ck % nk)
    return tt_status_make(TT_INVALID_ARGUMENT, "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=%lld and kernel_size=(%lld, %lld)",
                          (long long)ck, (long long)q.k[0], (long long)q.k[1]);
  if (nl != q.out[0] * q.out[1])
    return tt_status_make(TT_INVALID_ARGUMENT, "Given output_size=(%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), padding=(%lld, %lld), stride=(%lld, %lld), expected size of input's dimension 2 to match the calculated number of sliding blocks %lld * %lld = %lld, but got input.size(2)=%lld.",
                          (long long)q.in[0], (long long)q.in[1], (long long)q.k[0], (long long)q.k[1], (long long)q.d[0], (long long)q.d[1],
                          (long long)q.p[0], (long long)q.p[1], (long long)q.s[0], (long long)q.s[1], (long long)q.out[0], (long long)q.out[1],
                          (long long)(q.out[0] * q.out[1]), (long long)nl);
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_float(dt)) return tt_op_refuse_dtype(dt, "col2im_out_cpu");
  tt_dtype_t ct = tt_op_math_type(dt);
  tt_graph_t *g = L->g;
  int64_t c = ck / nk;
  int64_t d5[5] = {n, c, nk, q.out[0], q.out[1]};
  tt_val_t x = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 0), ct), 5, d5);
  tt_val_t acc = -1;
  int64_t ph = q.in[0] + 2 * q.p[0], pw = q.in[1] + 2 * q.p[1];
  for (int64_t i = 0; i < nk; i++) {
    int64_t ki = i / q.k[1], kj = i % q.k[1];
    int64_t st[5] = {0, 0, i, 0, 0}, lim[5] = {n, c, i + 1, q.out[0], q.out[1]};
    int64_t d4[4] = {n, c, q.out[0], q.out[1]};
    int64_t one5[5] = {1, 1, 1, 1, 1};
    tt_val_t part = tt_b_reshape(g, tt_b_slice(g, x, st, lim, one5), 4, d4);
    int64_t lo[4] = {0, 0, ki * q.d[0], kj * q.d[1]};
    int64_t hi[4] = {0, 0, ph - lo[2] - (q.out[0] - 1) * q.s[0] - 1, pw - lo[3] - (q.out[1] - 1) * q.s[1] - 1};
    int64_t in[4] = {0, 0, q.s[0] - 1, q.s[1] - 1};
    part = tt_b_pad(g, part, tt_b_const_f(g, ct, 0), lo, hi, in);
    acc = i ? tt_b_binary(g, TT_BIN_ADD, acc, part) : part;
  }
  int64_t st[4] = {0, 0, q.p[0], q.p[1]}, lim[4] = {n, c, q.p[0] + q.in[0], q.p[1] + q.in[1]};
  int64_t one4[4] = {1, 1, 1, 1};
  tt_val_t y = tt_b_convert(g, tt_b_slice(g, acc, st, lim, one4), dt);
  int64_t od[4] = {n, c, q.in[0], q.in[1]};
  tt_l_output(L, tt_b_reshape(g, y, r == 3 ? 4 : 3, r == 3 ? od : od + 1));
  return NULL;
}

const tt_op_def_t tt_ops_im2col[] = {
    {"im2col", lower_im2col, 0},
    {"col2im", lower_col2im, 0},
    {NULL, NULL, 0},
};
