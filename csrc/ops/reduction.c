/* Lowerings of the reduction op family: sum, mean, max/min, arg-reductions,
 * var/std, prod, any/all, logsumexp, cumulative ops and vector norms. */
#include <math.h>
#include <string.h>

#include "ops/complex.h"
#include "ops/complex_refusal.h"
#include "ops/dispatch_refusal.h"
#include "ops/exact_diff.h"
#include "ops/common.h"
#include "ops/scan.h"
#include "ops/families.h"
#include "ops/moments.h"

/* A reduction's geometry: which dims of the input go away. */
typedef struct {
  int rank;                  /* input rank */
  int64_t in[TT_MAX_RANK];   /* input sizes */
  int n;                     /* number of reduced dims */
  int64_t dims[TT_MAX_RANK]; /* reduced dims, ascending */
  int mask[TT_MAX_RANK];     /* 1 where reduced */
  int keepdim;
} red_t;

/* Fills r from the tensor argument `self` and the dims argument `dimi`
 * (-1: no dims argument, reduce everything). None, and an empty list when
 * `empty_all`, mean every dim, as PyTorch's reductions do. */
static int red_prepare(tt_lower_t *L, int self, int dimi, int keepdim, int empty_all, red_t *r) {
  memset(r, 0, sizeof *r);
  r->rank = tt_l_arg_rank(L, self);
  if (r->rank < 0) {
    tt_l_fail(L, TT_TYPE_ERROR, "%s: argument %d must be a Tensor", L->op, self);
    return 0;
  }
  memcpy(r->in, tt_l_arg_sizes(L, self), sizeof(int64_t) * (size_t)r->rank);
  r->keepdim = keepdim;
  int64_t list[TT_MAX_RANK + 1];
  int cnt = dimi < 0 ? 0 : tt_l_ints(L, dimi, list, TT_MAX_RANK + 1);
  if (tt_graph_failed(L->g)) return 0;
  int all = dimi < 0 || tt_l_is_none(L, dimi) || (cnt == 0 && empty_all);
  for (int k = 0; !all && k < cnt; k++) {
    int d = tt_op_wrap_dim(L, list[k], r->rank);
    if (tt_graph_failed(L->g)) return 0;
    if (r->mask[d]) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "dim %d appears multiple times in the list of dims", d);
      return 0;
    }
    r->mask[d] = 1; /* a scalar's dim 0 / -1 too (nothing to reduce; seen, for the check above) */
  }
  if (r->rank == 0) r->mask[0] = 0;
  for (int d = 0; d < r->rank; d++) {
    if (all) r->mask[d] = 1;
    if (r->mask[d]) r->dims[r->n++] = d;
  }
  return 1;
}

/* Number of elements folded into each result element. */
static int64_t red_count(const red_t *r) {
  int64_t c = 1;
  for (int k = 0; k < r->n; k++) c *= r->in[r->dims[k]];
  return c;
}

/* The result shape with reduced dims kept as size 1. */
static int red_keep_shape(const red_t *r, int64_t *out) {
  for (int d = 0; d < r->rank; d++) out[d] = r->mask[d] ? 1 : r->in[d];
  return r->rank;
}

/* v (reduced, flat) in the keepdim shape where r keeps its dims. */
static tt_val_t keep_shaped(tt_lower_t *L, const red_t *r, tt_val_t v) {
  if (!r->keepdim || !r->n) return v;
  int64_t shape[TT_MAX_RANK];
  int rk = red_keep_shape(r, shape);
  return tt_b_reshape(L->g, v, rk, shape);
}

/* Reduces v over r's dims, then restores them as 1s when keepdim. Float
 * max/min propagate NaN as PyTorch does (XLA's CPU reduce may drop it). */
static tt_val_t red_apply(tt_lower_t *L, const red_t *r, tt_reduce_t kind, tt_val_t v) {
  tt_val_t out = tt_b_reduce(L->g, kind, v, r->n, r->dims);
  const tt_type_t *vt = v >= 0 ? tt_graph_type(L->g, v) : NULL;
  if ((kind == TT_RED_MAX || kind == TT_RED_MIN) && vt && tt_dtype_is_float(vt->dtype) && r->n) {
    tt_val_t isnan = tt_b_compare(L->g, TT_CMP_NE, v, v);
    tt_val_t anynan = tt_b_reduce(L->g, TT_RED_OR, isnan, r->n, r->dims);
    out = tt_b_select(L->g, anynan, tt_b_like_f(L->g, out, __builtin_nan("")), out);
  }
  return keep_shaped(L, r, out);
}

/* Reshapes a reduced value (dims dropped) to the keepdim shape, for use
 * against the full input (broadcast). */
static tt_val_t red_kept(tt_lower_t *L, const red_t *r, tt_val_t reduced) {
  int64_t shape[TT_MAX_RANK];
  int rk = red_keep_shape(r, shape);
  tt_val_t k = tt_b_reshape(L->g, reduced, rk, shape);
  return tt_b_broadcast_to(L->g, k, r->rank, r->in);
}

/* Accumulation type: half types accumulate in float32, as PyTorch on CPU. */

/* sum/prod result type: integral and bool inputs give int64 unless dtype is given. */
static tt_dtype_t int_promoting_type(tt_dtype_t in, tt_dtype_t req) {
  if (req != TT_DTYPE_INVALID) return req;
  return tt_dtype_is_float(in) ? in : TT_I64;
}

static tt_val_t reduce_accumulating(tt_lower_t *L, tt_reduce_t kind, int dimi, int keepdim, int dtypei) {
  red_t r;
  if (!red_prepare(L, 0, dimi, keepdim, 1, &r)) return -1;
  tt_dtype_t out = int_promoting_type(tt_l_arg_dtype(L, 0), tt_l_dtype(L, dtypei));
  tt_val_t x = tt_b_convert(L->g, tt_b_convert(L->g, tt_l_tensor(L, 0), out), tt_op_math_type(out));
  return tt_b_convert(L->g, red_apply(L, &r, kind, x), out);
}

/* sum(self, *, dtype) */
static tt_status_t lower_sum(tt_lower_t *L) {
  tt_l_output(L, reduce_accumulating(L, TT_RED_SUM, -1, 0, 1));
  return NULL;
}
/* sum.dim_IntList(self, dim, keepdim, *, dtype) */
static tt_status_t lower_sum_dim(tt_lower_t *L) {
  tt_l_output(L, reduce_accumulating(L, TT_RED_SUM, 1, tt_l_bool(L, 2, 0), 3));
  return NULL;
}
/* prod(self, *, dtype) */
static tt_status_t lower_prod(tt_lower_t *L) {
  tt_l_output(L, reduce_accumulating(L, TT_RED_PROD, -1, 0, 1));
  return NULL;
}
/* prod.dim_int(self, dim, keepdim, *, dtype) */
static tt_status_t lower_prod_dim(tt_lower_t *L) {
  tt_l_output(L, reduce_accumulating(L, TT_RED_PROD, 1, tt_l_bool(L, 2, 0), 3));
  return NULL;
}

/* mean over r: float (or requested float dtype) only, accumulating in f32 for halves. */
static tt_val_t mean_of(tt_lower_t *L, int dimi, int keepdim, int dtypei) {
  tt_dtype_t in = tt_l_arg_dtype(L, 0), req = tt_l_dtype(L, dtypei);
  tt_dtype_t out = req != TT_DTYPE_INVALID ? req : in;
  if (!tt_dtype_is_float(out))
    return tt_l_fail(L, TT_INVALID_ARGUMENT,
                     "mean(): could not infer output dtype. %s dtype must be either a floating point or "
                     "complex dtype. Got: %s",
                     req != TT_DTYPE_INVALID ? "Optional" : "Input", tt_op_type_name(out));
  red_t r;
  if (!red_prepare(L, 0, dimi, keepdim, 1, &r)) return -1;
  /* CPU's mean into a half type sums self converted straight to float32,
   * not rounded to the half type first (mean(float32 x, dtype=bfloat16):
   * cpu 0.010437, tpu was 0.010620, the mean of x rounded to bfloat16);
   * for every other type acc is out itself */
  tt_dtype_t acc = tt_op_math_type(out);
  tt_val_t x = tt_b_convert(L->g, tt_l_tensor(L, 0), acc);
  tt_val_t s = red_apply(L, &r, TT_RED_SUM, x);
  return tt_b_convert(L->g, tt_div_count(L, s, red_count(&r)), out);
}

static tt_status_t lower_mean(tt_lower_t *L) {
  tt_l_output(L, mean_of(L, -1, 0, 1));
  return NULL;
}
static tt_status_t lower_mean_dim(tt_lower_t *L) {
  tt_l_output(L, mean_of(L, 1, tt_l_bool(L, 2, 0), 3));
  return NULL;
}

/* amax/amin(self, dim=[], keepdim): an empty list reduces every dim. */
static tt_status_t amax_amin(tt_lower_t *L, tt_reduce_t kind, const char *name) {
  /* CPU's zero_numel_check_dims first, before the dim mask's duplicate check
   * (fuzz 421:297: amin of a (0,) over [-1, -1] is the empty-dim IndexError):
   * an empty input needs its dims named, each in the order given wrapped
   * (its range error) and named as given (amin(x, dim=-2) says -2) */
  int rank = tt_l_arg_rank(L, 0);
  const int64_t *sizes = tt_l_arg_sizes(L, 0);
  int64_t numel = 1, dims[TT_MAX_RANK + 1];
  for (int d = 0; d < rank; d++) numel *= sizes[d];
  int nd = numel == 0 && !tt_l_is_none(L, 1) ? tt_l_ints(L, 1, dims, TT_MAX_RANK + 1) : 0;
  if (tt_graph_failed(L->g)) return NULL;
  if (numel == 0 && nd == 0)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                          "Specify the reduction dim with the 'dim' argument.", name);
  for (int k = 0; k < nd; k++) {
    int w = tt_op_wrap_dim(L, dims[k], rank);
    if (tt_graph_failed(L->g)) return NULL;
    if (rank > 0 && sizes[w] == 0)
      return tt_status_make(TT_INDEX_ERROR, "%s(): Expected reduction dim %lld to have non-zero size.", name,
                            (long long)dims[k]);
  }
  red_t r;
  if (!red_prepare(L, 0, 1, tt_l_bool(L, 2, 0), 1, &r)) return NULL;
  /* a complex input reaches here only with an empty result (ops/complex_rules.c):
   * no ordering needed, the reduction only shapes it */
  if (tt_dtype_is_complex(tt_l_arg_dtype(L, 0))) kind = TT_RED_SUM;
  tt_l_output(L, red_apply(L, &r, kind, tt_l_tensor(L, 0)));
  return NULL;
}
static tt_status_t lower_amax(tt_lower_t *L) { return amax_amin(L, TT_RED_MAX, "amax"); }
static tt_status_t lower_amin(tt_lower_t *L) { return amax_amin(L, TT_RED_MIN, "amin"); }

/* max()/min() over everything. */
static tt_status_t full_max_min(tt_lower_t *L, tt_reduce_t kind, const char *name) {
  red_t r;
  if (!red_prepare(L, 0, -1, 0, 1, &r)) return NULL;
  if (red_count(&r) == 0)
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                          "the reduction dim with the 'dim' argument.",
                          name);
  tt_l_output(L, red_apply(L, &r, kind, tt_l_tensor(L, 0)));
  return NULL;
}
static tt_status_t lower_max(tt_lower_t *L) { return full_max_min(L, TT_RED_MAX, "max"); }
static tt_status_t lower_min(tt_lower_t *L) { return full_max_min(L, TT_RED_MIN, "min"); }

/* Values and int64 indices along one dim (first index on ties, NaN wins). */
static void argreduce_dim(tt_lower_t *L, tt_reduce_t kind, tt_val_t x, int rank, const int64_t *sizes, int dim,
                          int keepdim, tt_val_t *val, tt_val_t *idx) {
  if (rank == 0) { /* a scalar is its own max at index 0 */
    *val = x;
    *idx = tt_b_const_i(L->g, TT_I64, 0);
    return;
  }
  *val = tt_b_argreduce(L->g, kind, x, dim, idx);
  if (!keepdim) return;
  int64_t shape[TT_MAX_RANK];
  for (int d = 0; d < rank; d++) shape[d] = d == dim ? 1 : sizes[d];
  *val = tt_b_reshape(L->g, *val, rank, shape);
  *idx = tt_b_reshape(L->g, *idx, rank, shape);
}

/* max.dim / min.dim(self, dim, keepdim) -> (values, indices) */
static tt_status_t max_min_dim(tt_lower_t *L, tt_reduce_t kind, const char *name) {
  int rank = tt_l_arg_rank(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  if (tt_graph_failed(L->g)) return NULL;
  const int64_t *sizes = tt_l_arg_sizes(L, 0);
  if (rank > 0 && sizes[dim] == 0)
    return tt_status_make(TT_INDEX_ERROR, "%s(): Expected reduction dim %d to have non-zero size.", name, dim);
  tt_val_t v, i;
  argreduce_dim(L, kind, tt_l_tensor(L, 0), rank, sizes, dim, tt_l_bool(L, 2, 0), &v, &i);
  tt_l_output(L, v);
  tt_l_output(L, i);
  return NULL;
}
static tt_status_t lower_max_dim(tt_lower_t *L) { return max_min_dim(L, TT_RED_ARGMAX, "max"); }
static tt_status_t lower_min_dim(tt_lower_t *L) { return max_min_dim(L, TT_RED_ARGMIN, "min"); }

/* argmax/argmin(self, dim=None, keepdim): None flattens the input. */
static tt_status_t arg_max_min(tt_lower_t *L, tt_reduce_t kind, const char *name) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (dt == TT_BOOL) /* CPU's own check, before its kernel's dispatch */
    return tt_status_make(TT_INVALID_ARGUMENT, "%s(): does not support bool input", name);
  int rank = tt_l_arg_rank(L, 0);
  const int64_t *sizes = tt_l_arg_sizes(L, 0);
  int keepdim = tt_l_bool(L, 2, 0);
  tt_val_t x = tt_l_tensor(L, 0), v, i;
  if (tt_l_is_none(L, 1)) {
    int64_t n = 1;
    for (int d = 0; d < rank; d++) n *= sizes[d];
    if (n == 0)
      return tt_status_make(TT_INDEX_ERROR, /* CPU's TORCH_CHECK_INDEX */
                            "%s(): Expected reduction dim to be specified for input.numel() == 0.", name);
    argreduce_dim(L, kind, tt_b_reshape(L->g, x, 1, &n), 1, &n, 0, 0, &v, &i);
    if (keepdim) {
      int64_t ones[TT_MAX_RANK];
      for (int d = 0; d < rank; d++) ones[d] = 1;
      i = tt_b_reshape(L->g, i, rank, ones);
    }
    tt_l_output(L, i);
    return NULL;
  }
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  if (tt_graph_failed(L->g)) return NULL;
  if (rank > 0 && sizes[dim] == 0)
    return tt_status_make(TT_INDEX_ERROR, "%s(): Expected reduction dim %d to have non-zero size.", name, dim);
  argreduce_dim(L, kind, x, rank, sizes, dim, keepdim, &v, &i);
  tt_l_output(L, i);
  return NULL;
}
static tt_status_t lower_argmax(tt_lower_t *L) { return arg_max_min(L, TT_RED_ARGMAX, "argmax"); }
static tt_status_t lower_argmin(tt_lower_t *L) { return arg_max_min(L, TT_RED_ARGMIN, "argmin"); }

/* A splat of the integer v shaped like x, in x's (integer) dtype. */
static tt_val_t like_i(tt_graph_t *g, tt_val_t x, int64_t v) {
  const tt_type_t *t = tt_graph_type(g, x);
  return tt_b_full_i(g, t->dtype, t->rank, t->dims, v);
}

/* The power of two with m's exponent (float32 or float64 m >= 0): x / it is
 * exact; 1 where m is 0, subnormal, infinite or NaN (nothing to gain there). */
static tt_val_t pow2_scale(tt_graph_t *g, tt_val_t m) {
  tt_dtype_t ft = tt_graph_type(g, m)->dtype;
  int wide = ft == TT_F64;
  int64_t emask = wide ? INT64_C(0x7ff0000000000000) : INT64_C(0x7f800000);
  tt_val_t bits = tt_b_bitcast(g, m, wide ? TT_I64 : TT_I32);
  tt_val_t e = tt_b_binary(g, TT_BIN_AND, bits, like_i(g, bits, emask));
  tt_val_t s = tt_b_bitcast(g, e, ft);
  tt_val_t ok = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_NE, e, like_i(g, e, 0)),
                            tt_b_compare(g, TT_CMP_NE, e, like_i(g, e, emask)));
  return tt_b_select(g, ok, s, tt_b_like_f(g, s, 1.0));
}

/* var/std.correction(self, dim=None, *, correction=None, keepdim): the
 * divisor is max(0, N - correction), as PyTorch (0 gives inf/nan). Also
 * returns the mean through out_mean (in the output dtype). */
/* The variance (or std) of the real values x (in their math type) over r,
 * with its mean (scaled back, flat) in *mean. */
static tt_val_t moments(tt_lower_t *L, const red_t *rp, tt_val_t x, double corr, int want_std, tt_val_t *out_mean) {
  red_t r = *rp;
  tt_graph_t *g = L->g;
  tt_dtype_t acc = tt_graph_type(g, x)->dtype;
  red_t flat = r;
  flat.keepdim = 0;
  int64_t n = red_count(&r);
  /* CPU accumulates in double; in float32 the squares (and the sum) of values
   * near finfo.max overflow. In float64 CPU's Welford mean stays finite where
   * the pivot's deviations overflow (var([max, -3, 7]): their sum -2 max is
   * -inf, so the mean was -inf and the variance NaN, fuzz 180:1162). Each
   * group is scaled by a power of two near its largest |x| first (exact), the
   * moments taken, and the scale put back. */
  tt_val_t scale = -1;
  if (acc == TT_F32 || acc == TT_F64) scale = pow2_scale(g, red_apply(L, &flat, TT_RED_MAX, tt_b_unary(g, TT_UN_ABS, x)));
  if (scale >= 0) x = tt_b_binary(g, TT_BIN_DIV, x, red_kept(L, &r, scale));
  tt_val_t ss = -1;
  tt_val_t mean = tt_moments(L, x, r.n, r.dims, n, &ss);
  ss = keep_shaped(L, &r, ss);
  tt_val_t so = scale >= 0 ? keep_shaped(L, &r, scale) : -1;
  if (acc == TT_F64 && so >= 0) {
    /* CPU's m2 is itself a double sum that overflows (std([max, -3, 7]) is
     * inf on CPU, though the true std is 1.04e308): the scale goes back on
     * m2 before the division, so it overflows where CPU's does. */
    ss = tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_MUL, ss, so), so);
    so = -1;
  }
  double div = (double)n - corr;
  if (div < 0) div = 0;
  tt_val_t var = tt_div_count(L, ss, div);
  if (want_std) var = tt_b_unary(g, TT_UN_SQRT, var);
  if (so >= 0) { /* float32 (CPU's double m2 does not overflow): std * scale; var * scale * scale */
    var = tt_b_binary(g, TT_BIN_MUL, var, so);
    if (!want_std) var = tt_b_binary(g, TT_BIN_MUL, var, so);
  }
  if (scale >= 0) mean = tt_b_binary(g, TT_BIN_MUL, mean, scale);
  *out_mean = mean;
  return var;
}

/* std/var (and their _mean forms) of self over dim with correction. A
 * complex self is CPU's var(real) + var(imag), real typed, its square root
 * for std; its mean is complex. name: the op in CPU's refusal of an
 * integral self ("std and var", "std_mean", "var_mean"). */
static tt_val_t variance(tt_lower_t *L, const char *name, int want_std, tt_val_t *out_mean) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_float(dt) && !tt_dtype_is_complex(dt))
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s only support floating point and complex dtypes", name);
  red_t r;
  if (!red_prepare(L, 0, 1, tt_l_bool(L, 3, 0), 0, &r)) return -1;
  double corr = tt_l_float(L, 2, 1.0);
  tt_graph_t *g = L->g;
  tt_val_t mean = -1;
  if (tt_dtype_is_complex(dt)) {
    tt_dtype_t rt = tt_dtype_real_part(dt);
    tt_val_t z = tt_b_convert(g, tt_l_tensor(L, 0), tt_op_math_type(dt));
    tt_val_t mr = -1, mi = -1;
    tt_val_t vr = moments(L, &r, tt_b_unary(g, TT_UN_REAL, z), corr, 0, &mr);
    tt_val_t vi = moments(L, &r, tt_b_unary(g, TT_UN_IMAG, z), corr, 0, &mi);
    tt_val_t v = tt_b_binary(g, TT_BIN_ADD, tt_b_convert(g, vr, rt), tt_b_convert(g, vi, rt));
    if (out_mean) {
      mean = tt_b_binary(g, TT_BIN_COMPLEX, mr, mi);
      mean = keep_shaped(L, &r, mean);
      *out_mean = tt_b_convert(g, mean, dt);
    }
    return want_std ? tt_b_unary(g, TT_UN_SQRT, v) : v;
  }
  tt_val_t var = moments(L, &r, tt_b_convert(g, tt_l_tensor(L, 0), tt_op_math_type(dt)), corr, want_std, &mean);
  if (out_mean) {
    mean = keep_shaped(L, &r, mean);
    *out_mean = tt_b_convert(g, mean, dt);
  }
  return tt_b_convert(g, var, dt);
}

static tt_status_t lower_var(tt_lower_t *L) {
  tt_l_output(L, variance(L, "std and var", 0, NULL));
  return NULL;
}
static tt_status_t lower_std(tt_lower_t *L) {
  tt_l_output(L, variance(L, "std and var", 1, NULL));
  return NULL;
}
static tt_status_t lower_var_mean(tt_lower_t *L) {
  tt_val_t m = -1;
  tt_val_t v = variance(L, "var_mean", 0, &m);
  tt_l_output(L, v);
  tt_l_output(L, m);
  return NULL;
}
static tt_status_t lower_std_mean(tt_lower_t *L) {
  tt_val_t m = -1;
  tt_val_t v = variance(L, "std_mean", 1, &m);
  tt_l_output(L, v);
  tt_l_output(L, m);
  return NULL;
}

/* any/all: nonzero test then logical or/and; the result is bool. */
static tt_status_t any_all(tt_lower_t *L, tt_reduce_t kind, int dimi, int keepdimi) {
  red_t r;
  if (!red_prepare(L, 0, dimi, dimi < 0 ? 0 : tt_l_bool(L, keepdimi, 0), 1, &r)) return NULL;
  tt_val_t x = tt_l_tensor(L, 0);
  tt_val_t nz = tt_b_compare(L->g, TT_CMP_NE, x, tt_b_like_f(L->g, x, 0));
  tt_val_t v = red_apply(L, &r, kind, nz);
  /* CPU keeps uint8 for uint8 input (0 or 1), bool for every other type */
  tt_l_output(L, tt_l_arg_dtype(L, 0) == TT_U8 ? tt_b_convert(L->g, v, TT_U8) : v);
  return NULL;
}
/* _tt_iterator_cast(self, dtype): self converted to dtype as CPU's
 * TensorIterator casts an input (c10::convert), for the out= reductions
 * that read their input in out's type (ops/out_rules.h: any/all into a
 * uint8 out, std/var into another floating type). A complex number converts
 * its real part; a floating value into uint8 is the low byte of its int64
 * truncation (static_cast<uint8_t>(static_cast<int64_t>(x)); NaN,
 * infinities and values past int64's range give 0 on x86), where XLA's
 * conversion saturates (0.97 and 256 are 0 there, -1 is 255); other pairs
 * convert as usual. */
static tt_status_t lower_iterator_cast(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  tt_dtype_t from = tt_l_arg_dtype(L, 0), to = tt_l_dtype(L, 1);
  tt_val_t x = tt_l_tensor(L, 0);
  if (tt_dtype_is_complex(from) && !tt_dtype_is_complex(to)) {
    x = tt_b_unary(g, TT_UN_REAL, x);
    from = tt_graph_type(g, x)->dtype;
  }
  if (to == TT_U8 && tt_dtype_is_float(from)) {
    tt_val_t in_range = tt_b_compare(g, TT_CMP_LT, tt_b_unary(g, TT_UN_ABS, x), tt_b_like_f(g, x, 0x1p63));
    tt_val_t low = tt_b_convert(g, tt_b_convert(g, x, TT_I64), TT_U8); /* truncation, then its low byte */
    x = tt_b_select(g, in_range, low, tt_b_like_f(g, low, 0));
  }
  tt_l_output(L, tt_b_convert(g, x, to));
  return NULL;
}
static tt_status_t lower_any(tt_lower_t *L) { return any_all(L, TT_RED_OR, -1, -1); }
static tt_status_t lower_all(tt_lower_t *L) { return any_all(L, TT_RED_AND, -1, -1); }
/* any.dim(self, int dim, keepdim) reduces one dim; an int list of one works alike. */
static tt_status_t lower_any_dim(tt_lower_t *L) { return any_all(L, TT_RED_OR, 1, 2); }
static tt_status_t lower_all_dim(tt_lower_t *L) { return any_all(L, TT_RED_AND, 1, 2); }

/* logsumexp(self, dim=(), keepdim=False) of a non-empty self of rank >= 1:
 * CPU's logsumexp_out sums over all dims into a 0-dim result and then adds
 * its maxes, kept as [1, ..., 1] (amax keepdim, squeezing no dim), in place:
 * the broadcast check of that add_ raises. Its words, for out= too. */
static tt_status_t lse_empty_dims_check(tt_lower_t *L) {
  const tt_arg_t *d = &L->args[1];
  int rank = tt_l_arg_rank(L, 0);
  if (d->kind != TT_ARG_INTS || d->n != 0 || tt_l_bool(L, 2, 0) || rank == 0) return NULL;
  const int64_t *sizes = tt_l_arg_sizes(L, 0);
  for (int k = 0; k < rank; k++)
    if (sizes[k] == 0) return NULL; /* CPU's empty-input branch sums exp(self): no add_ */
  char shape[3 * TT_MAX_RANK + 2] = "[";
  for (int k = 0; k < rank; k++) strcat(shape, k ? ", 1" : "1");
  strcat(shape, "]");
  return tt_status_make(TT_INVALID_ARGUMENT, "output with shape [] doesn't match the broadcast shape %s", shape);
}

/* logsumexp(self, dim, keepdim): max-shifted for stability; an infinite max
 * is replaced by 0 so that all -inf rows give -inf and +inf gives +inf. A
 * complex self is shifted by the max of its real parts (CPU's). */
static tt_status_t lower_logsumexp(tt_lower_t *L) {
  tt_status_t st = lse_empty_dims_check(L);
  if (st) return st;
  red_t r;
  if (!red_prepare(L, 0, 1, tt_l_bool(L, 2, 0), 1, &r)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  tt_dtype_t out = tt_dtype_is_float(dt) || tt_dtype_is_complex(dt) ? dt : tt_op_default_float(L);
  tt_dtype_t acc = tt_op_math_type(out);
  tt_graph_t *g = L->g;
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), acc);
  red_t flat = r;
  flat.keepdim = 0;
  int cx = tt_dtype_is_complex(out);
  tt_val_t m = red_apply(L, &flat, TT_RED_MAX, cx ? tt_b_unary(g, TT_UN_REAL, x) : x);
  /* only an infinite max becomes 0, as CPU's masked_fill_(|max| == inf, 0):
   * a NaN max stays, so a complex row with a NaN real part gives nan+nanj
   * (fuzz 226:526 row 29; the sum's C99 log was inf+nanj) */
  tt_val_t is_inf = tt_b_compare(g, TT_CMP_EQ, tt_b_unary(g, TT_UN_ABS, m), tt_b_like_f(g, m, 1.0 / 0.0));
  m = tt_b_select(g, is_inf, tt_b_like_f(g, m, 0), m);
  if (cx) m = tt_b_convert(g, m, acc); /* (m, 0) */
  tt_val_t mk = red_kept(L, &r, m); /* x - max exactly 0 at the max: the sum >= 1, the result >= max */
  /* complex terms take C99's exp and log as CPU's std::exp/std::log: a term
   * -inf + NaN j (-finfo.max + NaN j shifted by +max) is 0 there, NaN in
   * XLA's exp (fuzz 226:526, 239:1205: cpu 3.4e38-1j, tpu nan+nanj) */
  tt_val_t e = cx ? tt_cx_exp(g, tt_b_binary(g, TT_BIN_SUB, x, mk)) : tt_b_unary(g, TT_UN_EXP, tt_exact_diff(g, x, mk));
  tt_val_t sum = red_apply(L, &flat, TT_RED_SUM, e);
  tt_val_t res = tt_b_binary(g, TT_BIN_ADD, cx ? tt_cx_log(g, sum) : tt_b_unary(g, TT_UN_LOG, sum), m);
  res = keep_shaped(L, &r, res);
  tt_l_output(L, tt_b_convert(g, res, out));
  return NULL;
}

/* _tt_logsumexp_into(self, dim, keepdim, dtype): logsumexp(..., out=t) for a
 * floating out of another type, as CPU's logsumexp_out computes it: the
 * terms exp(self - max) rounded to self's type (an integral self is read as
 * the default float), summed in out's type (make_reduction converts them to
 * it), the log taken in out's type and the max added in the common type of
 * the two, rounded into out. The functional op computes in self's type. A
 * complex self (any real floating out) is shifted by the max of its real
 * parts, an infinite one replaced by 0 (CPU's masked_fill_), its terms
 * exp'd by C99's exp in self's type and converted to out's type as
 * TensorIterator converts them, by their real parts: logsumexp of
 * [1+1j, 2-0.5j] into float32 is log(Re e^(-1+1j) + Re e^(-0.5j)) + 2. */
static tt_status_t lower_logsumexp_into(tt_lower_t *L) {
  tt_status_t st = lse_empty_dims_check(L);
  if (st) return st;
  red_t r;
  if (!red_prepare(L, 0, 1, tt_l_bool(L, 2, 0), 1, &r)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0), into = tt_l_dtype(L, 3);
  int cx = tt_dtype_is_complex(dt);
  tt_dtype_t in = tt_dtype_is_float(dt) || cx ? dt : tt_op_default_float(L);
  if (!tt_dtype_is_float(into))
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "_tt_logsumexp_into: out's dtype must be floating here, got %s (complex outs take "
                          "logsumexp's functional result)", tt_op_type_name(into));
  tt_graph_t *g = L->g;
  tt_dtype_t real_in = cx ? tt_dtype_real_part(in) : in;
  tt_dtype_t acc_in = tt_op_math_type(in), acc_into = tt_op_math_type(into);
  tt_dtype_t add_t = tt_op_math_type(tt_dtype_promote(real_in, into));
  tt_val_t x = tt_b_convert(g, tt_b_convert(g, tt_l_tensor(L, 0), in), acc_in);
  red_t flat = r;
  flat.keepdim = 0;
  tt_val_t m = red_apply(L, &flat, TT_RED_MAX, cx ? tt_b_unary(g, TT_UN_REAL, x) : x);
  tt_val_t e;
  if (cx) {
    tt_val_t is_inf = tt_b_compare(g, TT_CMP_EQ, tt_b_unary(g, TT_UN_ABS, m), tt_b_like_f(g, m, 1.0 / 0.0));
    m = tt_b_select(g, is_inf, tt_b_like_f(g, m, 0), m);
    tt_val_t d = tt_b_binary(g, TT_BIN_SUB, x, red_kept(L, &r, tt_b_convert(g, m, acc_in)));
    e = tt_b_convert(g, tt_b_unary(g, TT_UN_REAL, tt_cx_exp(g, d)), into);
  } else {
    tt_val_t finite = tt_b_unary(g, TT_UN_IS_FINITE, m);
    m = tt_b_select(g, finite, m, tt_b_like_f(g, m, 0));
    /* self - maxes and its exp_ are tensors of self's type: each rounded */
    tt_val_t d = tt_b_convert(g, tt_b_convert(g, tt_b_binary(g, TT_BIN_SUB, x, red_kept(L, &r, m)), in), acc_in);
    e = tt_b_convert(g, tt_b_convert(g, tt_b_unary(g, TT_UN_EXP, d), in), into);
  }
  e = tt_b_convert(g, e, acc_into);
  tt_val_t s = tt_b_convert(g, tt_b_convert(g, red_apply(L, &flat, TT_RED_SUM, e), into), acc_into);
  tt_val_t lg = tt_b_convert(g, tt_b_convert(g, tt_b_unary(g, TT_UN_LOG, s), into), add_t);
  tt_val_t res = tt_b_binary(g, TT_BIN_ADD, lg, tt_b_convert(g, m, add_t));
  res = keep_shaped(L, &r, res);
  tt_l_output(L, tt_b_convert(g, res, into));
  return NULL;
}

/* A running count along dim of the positions where pred holds (int32). */
static tt_val_t count_scan(tt_graph_t *g, tt_val_t pred, int dim) {
  return tt_op_scan(g, TT_RED_SUM, tt_b_convert(g, pred, TT_I32), dim);
}

/* cumprod past its first zero, as CPU's sequential product gives it: the
 * tree-ordered scan may multiply two later factors into an infinity before
 * the zero reaches them (0 * (-max * max) = NaN, where 0 * -max * max is
 * -0: fuzz 247:50). From the first zero on the product is a zero whose sign
 * is the parity of the negative factors so far, or NaN when the product
 * before the zero was not finite or a factor since is inf or NaN. */
static tt_val_t prod_past_zeros(tt_graph_t *g, tt_val_t x, tt_val_t prod, int dim) {
  tt_val_t zero = tt_b_like_f(g, x, 0.0);
  tt_val_t is_zero = tt_b_compare(g, TT_CMP_EQ, x, zero);
  tt_val_t zeros = count_scan(g, is_zero, dim); /* zeros up to i */
  tt_val_t none_yet = tt_b_compare(g, TT_CMP_EQ, zeros, like_i(g, zeros, 0));
  /* NaN from the zero on: the product before it was not finite, or a factor since is not */
  tt_val_t bad_prod = tt_b_unary(g, TT_UN_NOT, tt_b_unary(g, TT_UN_IS_FINITE, prod));
  tt_val_t zeros_before = tt_b_binary(g, TT_BIN_SUB, zeros, tt_b_convert(g, is_zero, TT_I32));
  tt_val_t after = tt_b_compare(g, TT_CMP_GT, zeros_before, like_i(g, zeros_before, 0));
  tt_val_t bad_x = tt_b_unary(g, TT_UN_NOT, tt_b_unary(g, TT_UN_IS_FINITE, x));
  tt_val_t bads = count_scan(g, tt_b_binary(g, TT_BIN_OR, tt_b_binary(g, TT_BIN_AND, bad_prod, none_yet),
                                            tt_b_binary(g, TT_BIN_AND, bad_x, after)), dim);
  tt_val_t bad = tt_b_compare(g, TT_CMP_GT, bads, like_i(g, bads, 0));
  /* negative factors, -0 included (1 / -0 = -inf) */
  tt_val_t neg = tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_LT, x, zero),
                             tt_b_binary(g, TT_BIN_AND, is_zero,
                                         tt_b_compare(g, TT_CMP_LT, tt_b_binary(g, TT_BIN_DIV, tt_b_like_f(g, x, 1.0), x), zero)));
  tt_val_t odd = tt_b_binary(g, TT_BIN_AND, count_scan(g, neg, dim), like_i(g, zeros, 1));
  tt_val_t signed_zero = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, odd, like_i(g, odd, 1)),
                                     tt_b_like_f(g, x, -0.0), zero);
  tt_val_t past = tt_b_select(g, bad, tt_b_like_f(g, x, NAN), signed_zero);
  return tt_b_select(g, none_yet, prod, past);
}

/* cumsum/cumprod(self, dim, *, dtype): a reduce_window whose window covers
 * the whole dim, padded in front so output i sees inputs 0..i. */
static tt_status_t cumulative(tt_lower_t *L, tt_reduce_t kind) {
  int rank = tt_l_arg_rank(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  if (tt_graph_failed(L->g)) return NULL;
  tt_dtype_t out = int_promoting_type(tt_l_arg_dtype(L, 0), tt_l_dtype(L, 2));
  if (out == TT_BOOL) { /* dtype=bool (an out= or in place cumsum_ of a bool tensor) */
    const int64_t *sizes = tt_l_arg_sizes(L, 0);
    int64_t numel = 1;
    for (int d = 0; d < rank; d++) numel *= sizes[d];
    /* CPU's kernel has no Bool case, but a 0-dim input is copied (result.fill_(self))
     * and an empty one zeroed without it (fuzz 368:445: an empty bool cumprod_) */
    if (rank > 0 && numel > 0)
      return tt_op_refuse_dtype(TT_BOOL, "%s_out_cpu", kind == TT_RED_SUM ? "cumsum" : "cumprod");
    tt_l_output(L, tt_b_convert(L->g, tt_l_tensor(L, 0), TT_BOOL));
    return NULL;
  }
  /* CPU's running value is acc_type's: float64 for float32 (a float32 running
   * product through 1e39 comes back into range there: fuzz 144:867) */
  tt_dtype_t acc = out == TT_F32 ? TT_F64 : tt_op_math_type(out);
  tt_val_t x = tt_b_convert(L->g, tt_b_convert(L->g, tt_l_tensor(L, 0), out), acc);
  tt_val_t r = tt_op_scan(L->g, kind, x, dim);
  if (kind == TT_RED_PROD && tt_dtype_is_float(acc)) r = prod_past_zeros(L->g, x, r, dim);
  tt_l_output(L, tt_b_convert(L->g, r, out));
  return NULL;
}
static tt_status_t lower_cumsum(tt_lower_t *L) { return cumulative(L, TT_RED_SUM); }
static tt_status_t lower_cumprod(tt_lower_t *L) { return cumulative(L, TT_RED_PROD); }

/* linalg_vector_norm(self, ord=2, dim=None, keepdim, *, dtype): inf/-inf are
 * max/min of |x|, 0 counts nonzeros, others are (sum |x|^p)^(1/p). */
static tt_status_t lower_vector_norm(tt_lower_t *L) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0), req = tt_l_dtype(L, 4);
  if (!tt_dtype_is_float(dt))
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s",
                          tt_op_type_name(dt));
  if (req != TT_DTYPE_INVALID && !tt_dtype_is_float(req) && !tt_dtype_is_complex(req))
    return tt_status_make(TT_INVALID_ARGUMENT, "linalg.vector_norm: dtype should be floating point or complex, but got %s",
                          tt_op_type_name(req));
  if (req != TT_DTYPE_INVALID && tt_dtype_is_complex(req))
    return tt_status_make(TT_INVALID_ARGUMENT, "linalg.vector_norm: dtype should be real for real inputs, but got %s",
                          tt_op_type_name(req));
  if (req != TT_DTYPE_INVALID && tt_dtype_promote(dt, req) != req)
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "linalg.vector_norm: the dtype of the input (%s) should be convertible without narrowing to "
                          "the specified dtype (%s)", tt_op_type_name(dt), tt_op_type_name(req));
  tt_dtype_t out = req != TT_DTYPE_INVALID ? req : dt;
  double p = tt_l_float(L, 1, 2.0);
  red_t r;
  if (!red_prepare(L, 0, 2, tt_l_bool(L, 3, 0), 1, &r)) return NULL;
  if (p < 0 && red_count(&r) == 0)
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "linalg.vector_norm cannot compute the %g norm on an empty tensor because the "
                          "operation does not have an identity", p);
  tt_graph_t *g = L->g;
  tt_dtype_t acc = tt_op_math_type(out);
  tt_val_t a = tt_b_unary(g, TT_UN_ABS, tt_b_convert(g, tt_b_convert(g, tt_l_tensor(L, 0), out), acc));
  tt_val_t res;
  if (isinf(p)) {
    if (p > 0 && red_count(&r) == 0)
      return tt_status_make(TT_INVALID_ARGUMENT,
                            "linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
                            "operation does not have an identity");
    res = red_apply(L, &r, p > 0 ? TT_RED_MAX : TT_RED_MIN, a);
  } else if (p == 0) {
    tt_val_t nz = tt_b_convert(g, tt_b_compare(g, TT_CMP_NE, a, tt_b_like_f(g, a, 0)), acc);
    res = red_apply(L, &r, TT_RED_SUM, nz);
  } else if (p == 1) {
    res = red_apply(L, &r, TT_RED_SUM, a);
  } else if (p == 2) {
    res = tt_b_unary(g, TT_UN_SQRT, red_apply(L, &r, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, a, a)));
  } else {
    tt_val_t s = red_apply(L, &r, TT_RED_SUM, tt_b_binary(g, TT_BIN_POW, a, tt_b_like_f(g, a, p)));
    res = tt_b_binary(g, TT_BIN_POW, s, tt_b_like_f(g, s, 1.0 / p));
  }
  tt_l_output(L, tt_b_convert(g, res, out));
  return NULL;
}

/* nansum(self, dim, keepdim, *, dtype): sum with NaNs counted as 0. */
static tt_status_t lower_nansum(tt_lower_t *L) {
  red_t r;
  if (!red_prepare(L, 0, 1, tt_l_bool(L, 2, 0), 1, &r)) return NULL;
  tt_dtype_t in = tt_l_arg_dtype(L, 0), want = tt_l_dtype(L, 3);
  /* CPU refuses a complex input after the dims' checks, a float one summed
   * in a complex dtype= in its kernel's dispatch (an integral one sums as
   * sum does) */
  if (tt_dtype_is_complex(in)) return tt_status_make(TT_INVALID_ARGUMENT, TT_NANSUM_COMPLEX_MSG);
  if (tt_dtype_is_complex(want)) {
    /* an empty input never reaches that kernel: zeros (fuzz 156:1343) */
    int64_t numel = 1;
    for (int i = 0; i < tt_l_arg_rank(L, 0); i++) numel *= tt_l_arg_sizes(L, 0)[i];
    if (tt_dtype_is_float(in) && numel != 0) return tt_op_refuse_dtype(want, "nansum_cpu");
    return tt_complex_sum_dim(L); /* an integral or empty input: CPU's sum (same arguments) */
  }
  tt_dtype_t out = int_promoting_type(in, want);
  tt_graph_t *g = L->g;
  /* NaNs count as 0 before the conversion into out's type: a NaN into a
   * bool dtype= is False on CPU, not True (fuzz 135:286) */
  tt_val_t x = tt_l_tensor(L, 0);
  if (tt_dtype_is_float(in)) x = tt_b_select(g, tt_b_compare(g, TT_CMP_NE, x, x), tt_b_like_f(g, x, 0), x);
  x = tt_b_convert(g, tt_b_convert(g, x, out), tt_op_math_type(out));
  tt_l_output(L, tt_b_convert(g, red_apply(L, &r, TT_RED_SUM, x), out));
  return NULL;
}

/* count_nonzero(self, dim): int64 count of nonzero elements. */
static tt_status_t lower_count_nonzero(tt_lower_t *L) {
  red_t r;
  if (!red_prepare(L, 0, 1, 0, 1, &r)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t x = tt_l_tensor(L, 0);
  tt_val_t nz = tt_b_convert(g, tt_b_compare(g, TT_CMP_NE, x, tt_b_like_f(g, x, 0)), TT_I64);
  tt_l_output(L, red_apply(L, &r, TT_RED_SUM, nz));
  return NULL;
}

/* aminmax(self, *, dim=None, keepdim) -> (min, max). */
static tt_status_t lower_aminmax(tt_lower_t *L) {
  red_t r;
  if (!red_prepare(L, 0, 1, tt_l_bool(L, 2, 0), 1, &r)) return NULL;
  /* CPU's meta: a dim's emptiness is an IndexError naming it wrapped, without
   * the parentheses; no dim, an empty input has no identity */
  if (!tt_l_is_none(L, 1) && r.n == 1 && r.rank > 0 && r.in[r.dims[0]] == 0)
    return tt_status_make(TT_INDEX_ERROR, "aminmax: Expected reduction dim %lld to have non-zero size.",
                          (long long)r.dims[0]);
  if (red_count(&r) == 0)
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
  tt_val_t x = tt_l_tensor(L, 0);
  tt_l_output(L, red_apply(L, &r, TT_RED_MIN, x));
  tt_l_output(L, red_apply(L, &r, TT_RED_MAX, x));
  return NULL;
}

/* equal(self, other) as a bool[] tensor (the glue returns it as a Python
 * bool): same shape and every element equal after type promotion (NaN is
 * unequal to itself, as on CPU). */
static tt_status_t lower_equal(tt_lower_t *L) {
  int ra = tt_l_arg_rank(L, 0), rb = tt_l_arg_rank(L, 1);
  tt_graph_t *g = L->g;
  if (ra != rb || memcmp(tt_l_arg_sizes(L, 0), tt_l_arg_sizes(L, 1), sizeof(int64_t) * (size_t)(ra > 0 ? ra : 0))) {
    tt_l_output(L, tt_b_const_i(g, TT_BOOL, 0));
    return NULL;
  }
  int argi[2] = {0, 1};
  tt_dtype_t rt = tt_op_result_type(L, argi, 2);
  const int64_t *dims = tt_l_arg_sizes(L, 0);
  tt_val_t eq = tt_b_compare(g, TT_CMP_EQ, tt_op_operand(L, 0, rt, ra, dims), tt_op_operand(L, 1, rt, ra, dims));
  int64_t all[TT_MAX_RANK];
  for (int i = 0; i < ra; i++) all[i] = i;
  tt_l_output(L, tt_b_reduce(g, TT_RED_AND, eq, ra, all));
  return NULL;
}

const tt_op_def_t tt_ops_reduction[] = {
    {"sum", lower_sum, 0, .complex = tt_complex_sum},
    {"sum.dim_IntList", lower_sum_dim, 0, .complex = tt_complex_sum_dim},
    {"mean", lower_mean, 0, .complex = tt_complex_mean},
    {"mean.dim", lower_mean_dim, 0, .complex = tt_complex_mean_dim},
    {"prod", lower_prod, 0, .complex = tt_complex_prod},
    {"prod.dim_int", lower_prod_dim, 0, .complex = tt_complex_prod_dim},
    {"amax", lower_amax, TT_OPF_UNORDERED},
    {"amin", lower_amin, TT_OPF_UNORDERED},
    {"max", lower_max, TT_OPF_UNORDERED},
    {"min", lower_min, TT_OPF_UNORDERED},
    {"max.dim", lower_max_dim, TT_OPF_UNORDERED_CHECK},
    {"min.dim", lower_min_dim, TT_OPF_UNORDERED_CHECK},
    {"argmax", lower_argmax, TT_OPF_UNORDERED_CHECK},
    {"argmin", lower_argmin, TT_OPF_UNORDERED_CHECK},
    {"var.correction", lower_var, TT_OPF_COMPLEX},
    {"std.correction", lower_std, TT_OPF_COMPLEX},
    {"var_mean.correction", lower_var_mean, TT_OPF_COMPLEX},
    {"std_mean.correction", lower_std_mean, TT_OPF_COMPLEX},
    {"any", lower_any, TT_OPF_COMPLEX},
    {"all", lower_all, TT_OPF_COMPLEX},
    {"any.dim", lower_any_dim, TT_OPF_COMPLEX},
    {"all.dim", lower_all_dim, TT_OPF_COMPLEX},
    {"any.dims", lower_any_dim, TT_OPF_COMPLEX},
    {"all.dims", lower_all_dim, TT_OPF_COMPLEX},
    {"_tt_iterator_cast", lower_iterator_cast, TT_OPF_COMPLEX},
    {"logsumexp", lower_logsumexp, TT_OPF_COMPLEX},
    {"_tt_logsumexp_into", lower_logsumexp_into, TT_OPF_COMPLEX},
    {"cumsum", lower_cumsum, 0, .complex = tt_complex_cumsum},
    {"cumprod", lower_cumprod, 0, .complex = tt_complex_cumprod},
    {"linalg_vector_norm", lower_vector_norm, 0},
    /* norm(self, p, dim, keepdim, *, dtype) has vector_norm's argument layout. */
    {"norm.Scalar", lower_vector_norm, 0},
    {"norm.ScalarOpt_dim", lower_vector_norm, 0},
    {"norm.ScalarOpt_dim_dtype", lower_vector_norm, 0},
    {"nansum", lower_nansum, TT_OPF_COMPLEX},
    {"aminmax", lower_aminmax, TT_OPF_UNORDERED},
    {"equal", lower_equal, TT_OPF_COMPLEX},
    {"count_nonzero.dim_IntList", lower_count_nonzero, TT_OPF_COMPLEX},
    {"count_nonzero", lower_count_nonzero, TT_OPF_COMPLEX},
    {NULL, NULL, 0},
};
