/* Lowerings of the random op family: in-place samplers, dropout, randperm,
 * all built on rng_bit_generator (three-fry) keyed by the device generator's
 * (seed, counter) state. Streams differ from PyTorch's CPU ones by design. */
#include <math.h>
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"
#include "ops/random.h"

/* Fresh random bits of element type bt (TT_U32 or TT_U64). */
tt_val_t tt_rand_bits(tt_lower_t *L, tt_dtype_t bt, int rank, const int64_t *dims) {
  tt_val_t ns;
  tt_type_t t = tt_type_make(bt, rank, dims);
  return tt_b_rng(L->g, tt_l_rng_state(L), &t, &ns);
}

/* Number of significand bits (with the implicit one) of a float type. */
static int mant_bits(tt_dtype_t dt) {
  switch (dt) {
    case TT_F16: return 11;
    case TT_BF16: return 8;
    case TT_F64: return 53;
    default: return 24;
  }
}

/* The type samplers compute in: f64 for f64, else f32. */
tt_dtype_t tt_rand_compute_type(tt_dtype_t dt) { return dt == TT_F64 ? TT_F64 : TT_F32; }

/* Uniform in [0, 1) with the precision of `prec` (k bits: multiples of 2^-k,
 * so converting to prec is exact and never rounds up to 1), in compute type. */
tt_val_t tt_rand_uniform01(tt_lower_t *L, tt_dtype_t prec, int rank, const int64_t *dims) {
  tt_graph_t *g = L->g;
  int k = mant_bits(prec);
  tt_dtype_t ct = tt_rand_compute_type(prec);
  tt_dtype_t bt = ct == TT_F64 ? TT_U64 : TT_U32;
  int width = ct == TT_F64 ? 64 : 32;
  tt_val_t bits = tt_rand_bits(L, bt, rank, dims);
  bits = tt_b_binary(g, TT_BIN_SHR_L, bits, tt_b_full_i(g, bt, rank, dims, width - k));
  tt_val_t f = tt_b_convert(g, bits, ct);
  return tt_b_binary(g, TT_BIN_MUL, f, tt_b_full_f(g, ct, rank, dims, ldexp(1.0, -k)));
}

/* (m + 1/2) 2^-(k-1) for k-1 random bits m: every value is exact in ct and
 * both endpoints are excluded. */
tt_val_t tt_rand_uniform_open(tt_lower_t *L, tt_dtype_t ct, int rank, const int64_t *dims) {
  tt_graph_t *g = L->g;
  int k = mant_bits(ct) - 1;
  tt_dtype_t bt = ct == TT_F64 ? TT_U64 : TT_U32;
  int width = ct == TT_F64 ? 64 : 32;
  tt_val_t bits = tt_rand_bits(L, bt, rank, dims);
  bits = tt_b_binary(g, TT_BIN_SHR_L, bits, tt_b_full_i(g, bt, rank, dims, width - k));
  tt_val_t f = tt_b_binary(g, TT_BIN_ADD, tt_b_convert(g, bits, ct), tt_b_full_f(g, ct, rank, dims, 0.5));
  return tt_b_binary(g, TT_BIN_MUL, f, tt_b_full_f(g, ct, rank, dims, ldexp(1.0, -k)));
}

static const tt_tensor_ref_t *self_ref(tt_lower_t *L) { return tt_l_ref(L, 0); }

tt_status_t tt_rand_write_self(tt_lower_t *L, tt_val_t v) {
  tt_l_write(L, 0, 0, tt_b_convert(L->g, v, tt_l_arg_dtype(L, 0)));
  L->returns_arg = 0;
  return NULL;
}

static tt_status_t need_float(tt_lower_t *L, const char *op) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_float(dt))
    return tt_status_make(TT_INVALID_ARGUMENT, "%s expects a floating point dtype, but got %s", op, tt_op_type_name(dt));
  return NULL;
}

/* Uniform in [from, to) of shape dims, in the compute type of dt. */
static tt_val_t uniform_in(tt_lower_t *L, tt_dtype_t dt, double from, double to, int r, const int64_t *d) {
  tt_graph_t *g = L->g;
  tt_dtype_t ct = tt_rand_compute_type(dt);
  tt_val_t u = tt_rand_uniform01(L, dt, r, d);
  return tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_MUL, u, tt_b_full_f(g, ct, r, d, to - from)),
                     tt_b_full_f(g, ct, r, d, from));
}

/* mean + std * N(0, 1) of shape dims, in the compute type of dt. */
static tt_val_t normal_of(tt_lower_t *L, tt_dtype_t dt, double mean, double std, int r, const int64_t *d) {
  tt_graph_t *g = L->g;
  tt_dtype_t ct = tt_rand_compute_type(dt);
  tt_val_t z = tt_rand_std_normal(L, dt, r, d);
  return tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_MUL, z, tt_b_full_f(g, ct, r, d, std)),
                     tt_b_full_f(g, ct, r, d, mean));
}

/* A complex self is sampled as CPU samples view_as_real(self): real and
 * imaginary parts drawn independently from the same real distribution
 * (normal_: std / sqrt(2) each, so that E|z - mean|^2 = std^2). Both parts
 * come from one draw of shape [2, sizes] so they never share a stream. */
static tt_status_t complex_pair(tt_lower_t *L, int normal, double a, double b) {
  tt_graph_t *g = L->g;
  const tt_tensor_ref_t *s = self_ref(L);
  int r = s->view.rank;
  int64_t d2[TT_MAX_RANK + 1];
  if (r + 1 > TT_MAX_RANK)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: complex tensors of rank %d are not supported on TPU (max %d)", L->op,
                          r, TT_MAX_RANK - 1);
  d2[0] = 2;
  memcpy(d2 + 1, s->view.sizes, sizeof(int64_t) * (size_t)r);
  tt_dtype_t pt = tt_dtype_real_part(s->dtype);
  tt_val_t v = normal ? normal_of(L, pt, a, b, r + 1, d2) : uniform_in(L, pt, a, b, r + 1, d2);
  v = tt_b_convert(g, v, pt);
  tt_val_t re = tt_b_reshape(g, tt_b_slice_dim(g, v, 0, 0, 1, 1), r, s->view.sizes);
  tt_val_t im = tt_b_reshape(g, tt_b_slice_dim(g, v, 0, 1, 2, 1), r, s->view.sizes);
  tt_l_write(L, 0, 0, tt_b_binary(g, TT_BIN_COMPLEX, re, im));
  L->returns_arg = 0;
  return NULL;
}

/* uniform_(self, from, to) */
static tt_status_t lower_uniform_(tt_lower_t *L) {
  const tt_tensor_ref_t *s = self_ref(L);
  if (!s) return tt_status_make(TT_TYPE_ERROR, "uniform_: self must be a Tensor");
  tt_status_t st = tt_dtype_is_complex(s->dtype) ? NULL : need_float(L, "uniform_");
  if (st) return st;
  double from = tt_l_float(L, 1, 0), to = tt_l_float(L, 2, 1);
  if (!(from <= to))
    return tt_status_make(TT_INVALID_ARGUMENT, "uniform_ expects to return a [from, to) range, but found from=%g > to=%g", from, to);
  if (tt_dtype_is_complex(s->dtype)) return complex_pair(L, 0, from, to);
  return tt_rand_write_self(L, uniform_in(L, s->dtype, from, to, s->view.rank, s->view.sizes));
}

/* Standard normal samples by Box-Muller, in the compute type of dt. */
tt_val_t tt_rand_std_normal(tt_lower_t *L, tt_dtype_t dt, int rank, const int64_t *dims) {
  tt_graph_t *g = L->g;
  tt_dtype_t ct = tt_rand_compute_type(dt);
  int64_t d2[TT_MAX_RANK + 1];
  d2[0] = 2;
  memcpy(d2 + 1, dims, sizeof(int64_t) * (size_t)rank);
  /* Full compute precision for the two uniforms, whatever dt is. */
  tt_val_t u = tt_rand_uniform01(L, ct, rank + 1, d2);
  tt_val_t u1 = tt_b_reshape(g, tt_b_slice_dim(g, u, 0, 0, 1, 1), rank, dims);
  tt_val_t u2 = tt_b_reshape(g, tt_b_slice_dim(g, u, 0, 1, 2, 1), rank, dims);
  /* 1 - u1 lies in (0, 1]: log never sees 0. */
  u1 = tt_b_binary(g, TT_BIN_SUB, tt_b_full_f(g, ct, rank, dims, 1.0), u1);
  tt_val_t rad = tt_b_unary(g, TT_UN_SQRT, tt_b_binary(g, TT_BIN_MUL, tt_b_full_f(g, ct, rank, dims, -2.0),
                                                        tt_b_unary(g, TT_UN_LOG, u1)));
  tt_val_t th = tt_b_binary(g, TT_BIN_MUL, tt_b_full_f(g, ct, rank, dims, 2.0 * M_PI), u2);
  return tt_b_binary(g, TT_BIN_MUL, rad, tt_b_unary(g, TT_UN_COS, th));
}

/* normal_(self, mean, std) */
static tt_status_t lower_normal_(tt_lower_t *L) {
  const tt_tensor_ref_t *s = self_ref(L);
  if (!s) return tt_status_make(TT_TYPE_ERROR, "normal_: self must be a Tensor");
  tt_status_t st = tt_dtype_is_complex(s->dtype) ? NULL : need_float(L, "normal_");
  if (st) return st;
  double mean = tt_l_float(L, 1, 0), std = tt_l_float(L, 2, 1);
  if (std < 0) return tt_status_make(TT_INVALID_ARGUMENT, "normal expects std >= 0.0, but found std %g", std);
  if (tt_dtype_is_complex(s->dtype)) return complex_pair(L, 1, mean, std / sqrt(2.0));
  return tt_rand_write_self(L, normal_of(L, s->dtype, mean, std, s->view.rank, s->view.sizes));
}

/* normal.Tensor_float / float_Tensor / Tensor_Tensor: mean + std * z, broadcast. */
static tt_status_t lower_normal_fn(tt_lower_t *L) {
  int argi[2] = {0, 1};
  tt_dtype_t dt = tt_op_result_type(L, argi, 2);
  if (!tt_dtype_is_float(dt)) dt = tt_op_default_float(L);
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 2, dims);
  if (L->args[1].kind == TT_ARG_FLOAT && L->args[1].f < 0)
    return tt_status_make(TT_INVALID_ARGUMENT, "normal expects std >= 0.0, but found std %g", L->args[1].f);
  tt_dtype_t ct = tt_rand_compute_type(dt);
  tt_val_t mean = tt_op_operand(L, 0, ct, rank, dims), std = tt_op_operand(L, 1, ct, rank, dims);
  tt_val_t z = tt_rand_std_normal(L, dt, rank, dims);
  z = tt_b_binary(L->g, TT_BIN_ADD, tt_b_binary(L->g, TT_BIN_MUL, z, std), mean);
  tt_l_output(L, tt_b_convert(L->g, z, dt));
  return NULL;
}

/* exponential_(self, lambd): -log(1 - u) / lambd. */
static tt_status_t lower_exponential_(tt_lower_t *L) {
  const tt_tensor_ref_t *s = self_ref(L);
  if (!s) return tt_status_make(TT_TYPE_ERROR, "exponential_: self must be a Tensor");
  tt_status_t st = need_float(L, "exponential_");
  if (st) return st;
  double lambd = tt_l_float(L, 1, 1);
  if (!(lambd > 0)) return tt_status_make(TT_INVALID_ARGUMENT, "exponential_ expects lambda > 0.0, but found lambda=%g", lambd);
  tt_graph_t *g = L->g;
  int r = s->view.rank;
  const int64_t *d = s->view.sizes;
  tt_dtype_t ct = tt_rand_compute_type(s->dtype);
  tt_val_t u = tt_rand_uniform01(L, ct, r, d);
  tt_val_t e = tt_b_unary(g, TT_UN_NEG, tt_b_unary(g, TT_UN_LOG1P, tt_b_unary(g, TT_UN_NEG, u)));
  return tt_rand_write_self(L, tt_b_binary(g, TT_BIN_DIV, e, tt_b_full_f(g, ct, r, d, lambd)));
}

/* A bernoulli draw with probability p (a value of compute type, shape dims), as dtype. */
static tt_val_t bernoulli_draw(tt_lower_t *L, tt_val_t p, tt_dtype_t ct, tt_dtype_t dtype, int r, const int64_t *d) {
  tt_val_t u = tt_rand_uniform01(L, ct, r, d);
  return tt_b_convert(L->g, tt_b_compare(L->g, TT_CMP_LT, u, p), dtype);
}

/* bernoulli_.float(self, p) */
static tt_status_t lower_bernoulli_float_(tt_lower_t *L) {
  const tt_tensor_ref_t *s = self_ref(L);
  if (!s) return tt_status_make(TT_TYPE_ERROR, "bernoulli_: self must be a Tensor");
  double p = tt_l_float(L, 1, 0.5);
  if (!(p >= 0 && p <= 1)) return tt_status_make(TT_INVALID_ARGUMENT, "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
  tt_dtype_t ct = tt_rand_compute_type(s->dtype);
  tt_val_t pv = tt_b_full_f(L->g, ct, s->view.rank, s->view.sizes, p);
  tt_l_write(L, 0, 0, bernoulli_draw(L, pv, ct, s->dtype, s->view.rank, s->view.sizes));
  L->returns_arg = 0;
  return NULL;
}

/* bernoulli_.Tensor(self, p): p broadcast to self. */
static tt_status_t lower_bernoulli_tensor_(tt_lower_t *L) {
  const tt_tensor_ref_t *s = self_ref(L);
  if (!s) return tt_status_make(TT_TYPE_ERROR, "bernoulli_: self must be a Tensor");
  tt_dtype_t pdt = tt_op_arg_dtype(L, 1);
  tt_dtype_t ct = tt_rand_compute_type(tt_dtype_is_float(pdt) ? pdt : s->dtype);
  tt_val_t p = tt_op_operand(L, 1, ct, s->view.rank, s->view.sizes);
  tt_l_write(L, 0, 0, bernoulli_draw(L, p, ct, s->dtype, s->view.rank, s->view.sizes));
  L->returns_arg = 0;
  return NULL;
}

/* bernoulli(self): self holds the probabilities. */
static tt_status_t lower_bernoulli(tt_lower_t *L) {
  const tt_tensor_ref_t *s = self_ref(L);
  if (!s) return tt_status_make(TT_TYPE_ERROR, "bernoulli: self must be a Tensor");
  tt_status_t st = need_float(L, "bernoulli");
  if (st) return st;
  tt_dtype_t ct = tt_rand_compute_type(s->dtype);
  tt_val_t p = tt_b_convert(L->g, tt_l_tensor(L, 0), ct);
  tt_l_output(L, bernoulli_draw(L, p, ct, s->dtype, s->view.rank, s->view.sizes));
  return NULL;
}

/* bernoulli.p(self, p): a new tensor like self. */
static tt_status_t lower_bernoulli_p(tt_lower_t *L) {
  const tt_tensor_ref_t *s = self_ref(L);
  if (!s) return tt_status_make(TT_TYPE_ERROR, "bernoulli: self must be a Tensor");
  double p = tt_l_float(L, 1, 0.5);
  if (!(p >= 0 && p <= 1)) return tt_status_make(TT_INVALID_ARGUMENT, "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
  tt_dtype_t ct = tt_rand_compute_type(s->dtype);
  tt_val_t pv = tt_b_full_f(L->g, ct, s->view.rank, s->view.sizes, p);
  tt_l_output(L, bernoulli_draw(L, pv, ct, s->dtype, s->view.rank, s->view.sizes));
  return NULL;
}

/* Integers uniform in [from, from + range) (range 0 means 2^64) as dtype. */
static tt_status_t random_range(tt_lower_t *L, int64_t from, uint64_t range) {
  const tt_tensor_ref_t *s = self_ref(L);
  tt_graph_t *g = L->g;
  int r = s->view.rank;
  const int64_t *d = s->view.sizes;
  tt_val_t bits = tt_rand_bits(L, TT_U64, r, d);
  if (range) bits = tt_b_binary(g, TT_BIN_REM, bits, tt_b_full_i(g, TT_U64, r, d, (int64_t)range));
  tt_val_t v = tt_b_binary(g, TT_BIN_ADD, tt_b_convert(g, bits, TT_I64), tt_b_full_i(g, TT_I64, r, d, from));
  tt_l_write(L, 0, 0, tt_b_convert(g, v, s->dtype));
  L->returns_arg = 0;
  return NULL;
}

/* The exclusive upper bound of random_() for dtype: max+1, or 2^digits+1 for floats. */
static uint64_t default_to(tt_dtype_t dt) {
  switch (dt) {
    case TT_BOOL: return 2;
    case TT_U8: return 256;
    case TT_I8: return 128;
    case TT_I16: return 32768;
    case TT_I32: return 2147483648ull;
    case TT_I64: return 9223372036854775808ull;
    default: return (1ull << mant_bits(dt)) + 1;
  }
}

/* random_(self): [0, default_to). */
static tt_status_t lower_random_(tt_lower_t *L) {
  if (!self_ref(L)) return tt_status_make(TT_TYPE_ERROR, "random_: self must be a Tensor");
  return random_range(L, 0, default_to(tt_l_arg_dtype(L, 0)));
}

static tt_status_t check_from_to(int64_t from, int64_t to) {
  if (from >= to)
    return tt_status_make(TT_INVALID_ARGUMENT, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                          (long long)from, (long long)to);
  return NULL;
}

/* random_.from(self, from, to?) */
static tt_status_t lower_random_from(tt_lower_t *L) {
  if (!self_ref(L)) return tt_status_make(TT_TYPE_ERROR, "random_: self must be a Tensor");
  int64_t from = tt_l_int(L, 1, 0);
  if (tt_l_is_none(L, 2)) {
    uint64_t hi = default_to(tt_l_arg_dtype(L, 0));
    if ((uint64_t)from >= hi && from >= 0)
      return tt_status_make(TT_INVALID_ARGUMENT, "random_ expects 'from' casted to dtype to be less than or equal to 'to' casted to dtype, but got from=%lld > to=%llu",
                            (long long)from, (unsigned long long)hi);
    return random_range(L, from, hi - (uint64_t)from);
  }
  int64_t to = tt_l_int(L, 2, 0);
  tt_status_t st = check_from_to(from, to);
  if (st) return st;
  return random_range(L, from, (uint64_t)to - (uint64_t)from);
}

/* random_.to(self, to) */
static tt_status_t lower_random_to(tt_lower_t *L) {
  if (!self_ref(L)) return tt_status_make(TT_TYPE_ERROR, "random_: self must be a Tensor");
  int64_t to = tt_l_int(L, 1, 0);
  tt_status_t st = check_from_to(0, to);
  if (st) return st;
  return random_range(L, 0, (uint64_t)to);
}

/* native_dropout(input, p, train?) -> (output, mask) */
static tt_status_t lower_native_dropout(tt_lower_t *L) {
  const tt_tensor_ref_t *s = self_ref(L);
  if (!s) return tt_status_make(TT_TYPE_ERROR, "native_dropout: input must be a Tensor");
  double p = tt_l_float(L, 1, 0.5);
  int train = tt_l_bool(L, 2, 1);
  if (!(p >= 0 && p <= 1))
    return tt_status_make(TT_INVALID_ARGUMENT, "dropout probability has to be between 0 and 1, but got %g", p);
  tt_graph_t *g = L->g;
  int r = s->view.rank;
  const int64_t *d = s->view.sizes;
  tt_val_t x = tt_l_tensor(L, 0);
  if (!train || tt_type_numel(tt_graph_type(g, x)) == 0) {
    tt_l_output(L, x);
    tt_l_output(L, tt_b_full_i(g, TT_BOOL, r, d, train ? 0 : 1));
    return NULL;
  }
  tt_dtype_t ct = tt_rand_compute_type(s->dtype);
  double p1m = 1.0 - p, scale = p1m == 0 ? 0.0 : 1.0 / p1m;
  tt_val_t mask = tt_b_compare(g, TT_CMP_LT, tt_rand_uniform01(L, ct, r, d), tt_b_full_f(g, ct, r, d, p1m));
  /* x * mask is exact; the scale rounds once, in float32 for half types as PyTorch does. */
  tt_val_t xf = tt_b_convert(g, x, ct);
  tt_val_t y = tt_b_select(g, mask, tt_b_binary(g, TT_BIN_MUL, xf, tt_b_full_f(g, ct, r, d, scale)), tt_b_full_f(g, ct, r, d, 0));
  tt_l_output(L, tt_b_convert(g, y, s->dtype));
  tt_l_output(L, mask);
  return NULL;
}

/* native_dropout_backward(grad, mask, scale) = grad * mask * scale */
static tt_status_t lower_native_dropout_backward(tt_lower_t *L) {
  const tt_tensor_ref_t *s = self_ref(L);
  if (!s) return tt_status_make(TT_TYPE_ERROR, "native_dropout_backward: grad must be a Tensor");
  tt_graph_t *g = L->g;
  int r = s->view.rank;
  const int64_t *d = s->view.sizes;
  tt_dtype_t ct = tt_rand_compute_type(s->dtype);
  tt_val_t gr = tt_b_convert(g, tt_l_tensor(L, 0), ct);
  tt_val_t m = tt_op_operand(L, 1, ct, r, d);
  tt_val_t y = tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_MUL, gr, m), tt_b_full_f(g, ct, r, d, tt_l_float(L, 2, 1)));
  tt_l_output(L, tt_b_convert(g, y, s->dtype));
  return NULL;
}

/* randperm(n, dtype=long, ...): sort random keys, carrying an iota. */
static tt_status_t randperm(tt_lower_t *L, int dtypei) {
  int64_t n = tt_l_int(L, 0, 0);
  if (n < 0) return tt_status_make(TT_INVALID_ARGUMENT, "n must be non-negative, got%lld", (long long)n);
  tt_dtype_t dt = tt_l_dtype(L, dtypei);
  if (dt == TT_DTYPE_INVALID) dt = TT_I64;
  tt_graph_t *g = L->g;
  if (n == 0) {
    tt_l_output(L, tt_b_full_i(g, dt, 1, &n, 0));
    return NULL;
  }
  tt_val_t ops[2] = {tt_rand_bits(L, TT_U64, 1, &n), tt_b_iota(g, TT_I64, 1, &n, 0)};
  tt_val_t srt = tt_b_sort(g, 2, ops, 0, 0, 1);
  tt_l_output(L, tt_b_convert(g, tt_b_get(g, srt, 1), dt));
  return NULL;
}
/* randperm(n, dtype, ...) and randperm.generator(n, generator, dtype, ...) */
static tt_status_t lower_randperm(tt_lower_t *L) { return randperm(L, 1); }
static tt_status_t lower_randperm_generator(tt_lower_t *L) { return randperm(L, 2); }

const tt_op_def_t tt_ops_random[] = {
    {"uniform_", lower_uniform_, TT_OPF_COMPLEX},
    {"normal_", lower_normal_, TT_OPF_COMPLEX},
    {"normal.Tensor_float", lower_normal_fn, 0},
    {"normal.float_Tensor", lower_normal_fn, 0},
    {"normal.Tensor_Tensor", lower_normal_fn, 0},
    {"exponential_", lower_exponential_, 0},
    {"bernoulli_.float", lower_bernoulli_float_, 0},
    {"bernoulli_.Tensor", lower_bernoulli_tensor_, 0},
    {"bernoulli", lower_bernoulli, 0},
    {"bernoulli.p", lower_bernoulli_p, 0},
    {"random_", lower_random_, 0},
    {"random_.from", lower_random_from, 0},
    {"random_.to", lower_random_to, 0},
    {"native_dropout", lower_native_dropout, 0, .layout = TT_LAYOUT_LIKE_INPUT},
    {"native_dropout_backward", lower_native_dropout_backward, 0},
    {"randperm", lower_randperm, 0},
    {"randperm.generator", lower_randperm_generator, 0},
    {NULL, NULL, 0},
};
