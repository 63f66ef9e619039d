/* FFTs: ATen's _fft_r2c, _fft_c2r and _fft_c2c over any dims, lowered to
 * stablehlo.fft (at most 3 innermost dims per op, so dims are moved inward
 * and longer lists are done in groups), with ATen's normalization. */
#include <math.h>

#include "ops/common.h"
#include "ops/families.h"

#define MAX_FFT_DIMS 3

/* One stablehlo.fft over dims (n <= 3, in order) of x: they are moved to
 * the end, transformed, and moved back. `lengths` are the signal lengths. */
static tt_val_t fft_group(tt_graph_t *g, tt_val_t x, tt_fft_t type, int n, const int64_t *dims, const int64_t *lengths) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  int rank = tt_graph_type(g, x)->rank;
  int64_t perm[TT_MAX_RANK], inv[TT_MAX_RANK];
  int k = 0, moved[TT_MAX_RANK] = {0};
  for (int i = 0; i < n; i++) moved[dims[i]] = 1;
  for (int d = 0; d < rank; d++)
    if (!moved[d]) perm[k++] = d;
  for (int i = 0; i < n; i++) perm[k++] = dims[i];
  int identity = 1;
  for (int d = 0; d < rank; d++) {
    inv[perm[d]] = d;
    identity &= perm[d] == d;
  }
  if (!identity) x = tt_b_transpose(g, x, perm);
  x = tt_b_fft(g, x, type, n, lengths);
  return identity ? x : tt_b_transpose(g, x, inv);
}

/* The sizes of x's dim d fitted to want elements: cut, or zero-padded. */
static tt_val_t fit_dim(tt_graph_t *g, tt_val_t x, int d, int64_t want) {
  if (x < 0) return -1;
  const tt_type_t *t = tt_graph_type(g, x);
  int64_t have = t->dims[d];
  if (have == want) return x;
  if (have > want) return tt_b_slice_dim(g, x, d, 0, want, 1);
  int64_t lo[TT_MAX_RANK] = {0}, hi[TT_MAX_RANK] = {0}, in[TT_MAX_RANK] = {0};
  hi[d] = want - have;
  return tt_b_pad(g, x, tt_b_const_f(g, t->dtype, 0.0), lo, hi, in);
}

typedef struct {
  int rank, n;
  int64_t dims[TT_MAX_RANK]; /* the transformed dims, wrapped, in ATen's order */
} fft_dims_t;

static int read_dims(tt_lower_t *L, fft_dims_t *f) {
  f->rank = tt_l_arg_rank(L, 0);
  int64_t list[TT_MAX_RANK + 1];
  f->n = tt_l_ints(L, 1, list, TT_MAX_RANK);
  int seen[TT_MAX_RANK] = {0};
  for (int i = 0; i < f->n && !tt_graph_failed(L->g); i++) {
    f->dims[i] = tt_op_wrap_dim(L, list[i], f->rank);
    if (tt_graph_failed(L->g)) return 0;
    if (seen[f->dims[i]]++) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: dims must be unique", L->op);
      return 0;
    }
  }
  return !tt_graph_failed(L->g);
}

/* Complex transforms over dims [0, upto) of f, in groups of three. */
static tt_val_t c2c_groups(tt_graph_t *g, tt_val_t x, const fft_dims_t *f, int upto, int forward) {
  for (int s = 0; s < upto; s += MAX_FFT_DIMS) {
    int n = upto - s < MAX_FFT_DIMS ? upto - s : MAX_FFT_DIMS;
    int64_t len[MAX_FFT_DIMS];
    for (int i = 0; i < n; i++) len[i] = tt_graph_type(g, x)->dims[f->dims[s + i]];
    x = fft_group(g, x, forward ? TT_FFT_FFT : TT_FFT_IFFT, n, f->dims + s, len);
  }
  return x;
}

/* ATen's normalization (0: none, 1: 1/sqrt(n), 2: 1/n, n = the product of
 * the signal lengths), after undoing XLA's 1/n of inverse transforms. */
static tt_val_t normalize(tt_lower_t *L, tt_val_t x, int64_t norm, double signal, int xla_inverse) {
  if (norm < 0 || norm > 2) return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: invalid normalization %lld", L->op, (long long)norm);
  double scale = xla_inverse ? signal : 1.0;
  if (norm == 1) scale /= sqrt(signal);
  if (norm == 2) scale /= signal;
  if (scale == 1.0 || signal == 0.0 || x < 0) return x;
  return tt_b_binary(L->g, TT_BIN_MUL, x, tt_b_like_f(L->g, x, scale));
}

static int check_real(tt_lower_t *L, tt_dtype_t dt) {
  if (dt == TT_F32 || dt == TT_F64) return 1;
  tt_l_fail(L, dt == TT_F16 || dt == TT_BF16 ? TT_NOT_IMPLEMENTED : TT_INVALID_ARGUMENT,
            "%s: expected a float32 or float64 input, got %s", L->op, tt_dtype_name(dt));
  return 0;
}

/* _fft_r2c(self, dim, normalization, onesided) */
static tt_status_t lower_r2c(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  fft_dims_t f;
  if (!read_dims(L, &f) || !check_real(L, tt_l_arg_dtype(L, 0))) return NULL;
  int64_t norm = tt_l_int(L, 2, 0);
  int onesided = tt_l_bool(L, 3, 1);
  tt_val_t x = tt_l_tensor(L, 0);
  const int64_t *sizes = tt_l_arg_sizes(L, 0);
  double signal = 1;
  for (int i = 0; i < f.n; i++) signal *= (double)sizes[f.dims[i]];
  if (f.n == 0) {
    tt_l_output(L, tt_b_convert(g, x, tt_dtype_to_complex(tt_l_arg_dtype(L, 0))));
    return NULL;
  }
  if (onesided) { /* a real transform over the last group, complex ones over the rest */
    int last = f.n - (f.n - 1) % MAX_FFT_DIMS - 1, n = f.n - last;
    int64_t len[MAX_FFT_DIMS];
    for (int i = 0; i < n; i++) len[i] = sizes[f.dims[last + i]];
    x = fft_group(g, x, TT_FFT_RFFT, n, f.dims + last, len);
    x = c2c_groups(g, x, &f, last, 1);
  } else {
    x = c2c_groups(g, tt_b_convert(g, x, tt_dtype_to_complex(tt_l_arg_dtype(L, 0))), &f, f.n, 1);
  }
  tt_l_output(L, normalize(L, x, norm, signal, 0));
  return NULL;
}

/* _fft_c2c(self, dim, normalization, forward) */
static tt_status_t lower_c2c(tt_lower_t *L) {
  fft_dims_t f;
  if (!read_dims(L, &f)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_complex(dt))
    return tt_status_make(TT_INVALID_ARGUMENT, "_fft_c2c: expected a complex input, got %s", tt_dtype_name(dt));
  int64_t norm = tt_l_int(L, 2, 0);
  int forward = tt_l_bool(L, 3, 1);
  const int64_t *sizes = tt_l_arg_sizes(L, 0);
  double signal = 1;
  for (int i = 0; i < f.n; i++) signal *= (double)sizes[f.dims[i]];
  tt_val_t x = c2c_groups(L->g, tt_l_tensor(L, 0), &f, f.n, forward);
  tt_l_output(L, normalize(L, x, norm, signal, !forward && f.n > 0));
  return NULL;
}

/* _fft_c2r(self, dim, normalization, last_dim_size): the inverse of a
 * onesided r2c; the last dim holds last_dim_size/2+1 of the spectrum. */
static tt_status_t lower_c2r(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  fft_dims_t f;
  if (!read_dims(L, &f)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_complex(dt))
    return tt_status_make(TT_INVALID_ARGUMENT, "_fft_c2r: expected a complex input, got %s", tt_dtype_name(dt));
  if (f.n == 0) return tt_status_make(TT_INVALID_ARGUMENT, "_fft_c2r: needs at least one dim");
  int64_t norm = tt_l_int(L, 2, 0), last_size = tt_l_int(L, 3, 0);
  if (last_size < 1)
    return tt_status_make(TT_INVALID_ARGUMENT, "Invalid number of data points (%lld) specified", (long long)last_size);
  const int64_t *sizes = tt_l_arg_sizes(L, 0);
  int dlast = (int)f.dims[f.n - 1];
  double signal = (double)last_size;
  for (int i = 0; i + 1 < f.n; i++) signal *= (double)sizes[f.dims[i]];
  int last = f.n - (f.n - 1) % MAX_FFT_DIMS - 1, n = f.n - last;
  tt_val_t x = c2c_groups(g, tt_l_tensor(L, 0), &f, last, 0);
  x = fit_dim(g, x, dlast, last_size / 2 + 1);
  int64_t len[MAX_FFT_DIMS];
  for (int i = 0; i < n; i++) len[i] = i == n - 1 ? last_size : sizes[f.dims[last + i]];
  x = fft_group(g, x, TT_FFT_IRFFT, n, f.dims + last, len);
  tt_l_output(L, normalize(L, x, norm, signal, 1));
  return NULL;
}

const tt_op_def_t tt_ops_fft[] = {
    {"_fft_r2c", lower_r2c, TT_OPF_COMPLEX},
    {"_fft_c2r", lower_c2r, TT_OPF_COMPLEX},
    {"_fft_c2c", lower_c2c, TT_OPF_COMPLEX},
    {NULL, NULL, 0},
};
