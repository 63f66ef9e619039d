/* Factories computed on device: full, arange, linspace, logspace, eye. Uninitialized
 * tensors (empty) need no program: the binding makes a lazy storage. */
#include <math.h>

#include "base/scalar_bits.h"
#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/linalg_util.h"

/* full(size, fill_value, *, dtype, layout, device, pin_memory) */
static tt_status_t lower_full(tt_lower_t *L) {
  int64_t dims[TT_MAX_RANK];
  int rank = tt_l_ints(L, 0, dims, TT_MAX_RANK);
  tt_dtype_t dt = tt_l_dtype(L, 2);
  if (dt == TT_DTYPE_INVALID) dt = tt_op_arg_dtype(L, 1);
  if (dt == TT_DTYPE_INVALID)
    return tt_status_make(TT_NOT_IMPLEMENTED, "full: the result type is complex32 (ComplexHalf), which is not supported on TPU");
  int64_t numel = 1;
  for (int i = 0; i < rank; i++) numel *= dims[i];
  /* empty(size).fill_(value): fill_'s check (one float16 element: unchecked, fuzz 168:736) */
  if (!tt_op_check_fill_fits(L, 1, dt, numel)) return NULL;
  for (int i = 0; i < rank; i++)
    if (dims[i] < 0)
      return tt_status_make(TT_INVALID_ARGUMENT, "Trying to create tensor with negative dimension %lld: [%lld]",
                            (long long)dims[i], (long long)dims[i]);
  tt_val_t c = tt_op_complex_fill(L, 1, dt);
  if (tt_graph_failed(L->g)) return NULL;
  tt_l_output(L, tt_b_broadcast(L->g, c >= 0 ? c : tt_l_scalar_arg(L, 1, dt), rank, dims, NULL));
  return NULL;
}

static int is_float_arg(tt_lower_t *L, int i) { return !tt_l_is_none(L, i) && L->args[i].kind == TT_ARG_FLOAT; }

/* An arange end as CPU's accumulate type int64 reads it: an integer as is, a
 * float truncated (Scalar::to<int64_t>); 0 with *bad set past int64. */
static int64_t arange_int(tt_lower_t *L, int i, int64_t dflt, int *bad) {
  if (i < 0) return dflt;
  if (!is_float_arg(L, i)) return tt_l_int(L, i, dflt);
  double v = trunc(tt_l_float(L, i, (double)dflt));
  if (!(v > -9.2233720368547758e18 && v < 9.2233720368547758e18)) {
    *bad = 1;
    return 0;
  }
  return (int64_t)v;
}

/* arange(start, end, step) as CPU's arange_out: the checks on the numbers as
 * given; the length ceil((end - start) / step) in double, except for int64
 * results, where it is computed in int64 from the truncated ends (so
 * arange(-0.91, 5, dtype=int64) has 5 elements, int32 6); the values
 * start + step * i in CPU's accumulate type: int64 from truncated start and
 * step for integer results (arange(3, -0.9, -1.4, dtype=int32) is 3, 2, 1),
 * float32 for float16/bfloat16, double otherwise. */
static tt_status_t arange_common(tt_lower_t *L, int istart, int iend, int istep, int idtype) {
  double start = istart >= 0 ? tt_l_float(L, istart, 0) : 0;
  double end = tt_l_float(L, iend, 0);
  double step = istep >= 0 ? tt_l_float(L, istep, 1) : 1;
  int any_float = (istart >= 0 && is_float_arg(L, istart)) || is_float_arg(L, iend) || (istep >= 0 && is_float_arg(L, istep));
  tt_dtype_t dt = tt_l_dtype(L, idtype);
  if (dt == TT_DTYPE_INVALID) dt = any_float ? tt_op_default_float(L) : TT_I64;
  if (dt == TT_BOOL) return tt_op_refuse_dtype(TT_BOOL, "arange_cpu");
  if (step == 0) return tt_status_make(TT_INVALID_ARGUMENT, "step must be nonzero");
  if (!isfinite(start) || !isfinite(end))
    return tt_status_make(TT_INVALID_ARGUMENT, "unsupported range: %g -> %g", start, end);
  if ((step > 0 && end < start) || (step < 0 && end > start))
    return tt_status_make(TT_INVALID_ARGUMENT, "upper bound and lower bound inconsistent with step sign");
  int is_int = !tt_dtype_is_float(dt);
  int bad = 0;
  int64_t s_i = arange_int(L, istart, 0, &bad), e_i = arange_int(L, iend, 0, &bad), st_i = arange_int(L, istep, 1, &bad);
  if (is_int && bad) return tt_status_make(TT_INVALID_ARGUMENT, "value cannot be converted to type int64_t without overflow");
  int64_t n;
  if (dt == TT_I64) {
    if (st_i == 0) return tt_status_make(TT_VALUE_ERROR, "step must be nonzero");
    int64_t sgn = (st_i > 0) - (st_i < 0);
    n = (e_i - s_i + st_i - sgn) / st_i;
    if (n < 0) n = 0;
  } else {
    n = (int64_t)ceil((end - start) / step);
  }
  tt_dtype_t ct = is_int ? TT_I64 : (dt == TT_F16 || dt == TT_BF16) ? TT_F32 : TT_F64;
  tt_val_t i = tt_b_iota(L->g, ct, 1, &n, 0);
  tt_val_t st = tt_b_broadcast(L->g, tt_l_scalar(L, ct, step, st_i, !is_int), 1, &n, NULL);
  tt_val_t s0 = tt_b_broadcast(L->g, tt_l_scalar(L, ct, start, s_i, !is_int), 1, &n, NULL);
  tt_val_t v = tt_b_binary(L->g, TT_BIN_ADD, tt_b_binary(L->g, TT_BIN_MUL, i, st), s0);
  tt_l_output(L, tt_b_convert(L->g, v, dt));
  return NULL;
}

static tt_status_t lower_arange(tt_lower_t *L) { return arange_common(L, -1, 0, -1, 1); }
static tt_status_t lower_arange_start(tt_lower_t *L) { return arange_common(L, 0, 1, -1, 2); }
static tt_status_t lower_arange_start_step(tt_lower_t *L) { return arange_common(L, 0, 1, 2, 3); }

/* An integral value as a C cast to dt's type gives it (two's complement wrap). */
static double wrap_to(double v, tt_dtype_t dt) {
  int64_t i = (int64_t)v;
  switch (dt) {
    case TT_U8: return (double)(uint8_t)i;
    case TT_I8: return (double)(int8_t)i;
    case TT_I16: return (double)(int16_t)i;
    case TT_I32: return (double)(int32_t)(uint32_t)i;
    default: return (double)i;
  }
}

/* end - start of two values of integral type dt as C computes it: promoted
 * to int for the narrow types, wrapping in int32/int64. */
static double int_diff(double end, double start, tt_dtype_t dt) {
  if (dt == TT_I32) return (double)(int32_t)((uint32_t)(int32_t)end - (uint32_t)(int32_t)start);
  if (dt == TT_I64) return (double)(int64_t)((uint64_t)(int64_t)end - (uint64_t)(int64_t)start);
  return end - start;
}

/* v rounded to float16. */
static double r16(double v) { return tt_scalar_bits_float(TT_F16, tt_scalar_bits(TT_F16, v, 0, 1)); }

/* x (float32) rounded to float16 and widened back: one c10::Half operation's result. */
static tt_val_t rnd16(tt_graph_t *g, tt_val_t x) { return tt_b_convert(g, tt_b_convert(g, x, TT_F16), TT_F32); }

/* float16 linspace as CPU's kernel computes it in c10::Half arithmetic, each
 * operation in float and rounded to half: step = (end - start) / Half(steps - 1),
 * then start + step * Half(i) and end - step * Half(steps - 1 - i) (fuzz
 * 381:477: linspace(0.194, 3.523, 7, float16): the step from the rounded
 * start and end is 0.55518, not 0.55469 (the exact quotient rounded once), so
 * [3] is 1.8574 on CPU; tpu gave 1.8594). CPU's vectorized loop (16 or more
 * steps per SIMD vector) adds lanes to a rounded base instead, which depends
 * on the vector width (as arange's, docs/fuzz_known.md); this is its scalar loop. */
static tt_status_t half_linspace(tt_lower_t *L, int outi, double start, double end, int64_t steps) {
  tt_graph_t *g = L->g;
  double sh = r16(start), eh = r16(end);
  double step = r16((double)((float)r16(eh - sh) / (float)r16((double)(steps - 1))));
  tt_val_t i = tt_b_iota(g, TT_F32, 1, &steps, 0);
  tt_val_t s0 = tt_b_broadcast(g, tt_l_scalar(L, TT_F32, sh, 0, 1), 1, &steps, NULL);
  tt_val_t e0 = tt_b_broadcast(g, tt_l_scalar(L, TT_F32, eh, 0, 1), 1, &steps, NULL);
  tt_val_t st = tt_b_broadcast(g, tt_l_scalar(L, TT_F32, step, 0, 1), 1, &steps, NULL);
  tt_val_t lo = rnd16(g, tt_b_binary(g, TT_BIN_ADD, s0, rnd16(g, tt_b_binary(g, TT_BIN_MUL, st, rnd16(g, i)))));
  tt_val_t back = rnd16(g, tt_b_binary(g, TT_BIN_SUB, tt_b_like_f(g, i, (double)(steps - 1)), i));
  tt_val_t hi = rnd16(g, tt_b_binary(g, TT_BIN_SUB, e0, rnd16(g, tt_b_binary(g, TT_BIN_MUL, st, back))));
  tt_val_t v = tt_b_select(g, tt_b_compare(g, TT_CMP_LT, i, tt_b_like_f(g, i, (double)(steps / 2))), lo, hi);
  tt_l_write(L, outi, 0, tt_b_convert(g, v, TT_F16));
  L->returns_arg = outi;
  return NULL;
}

/* linspace.out(start, end, steps, out) / logspace.out(start, end, steps, base, out):
 * PyTorch's CPU kernel fills the first half from start and the second half
 * back from end (start + step i, end - step (steps - 1 - i)), in the result
 * type for floats and in double for integers (then truncated); one step is start. */
static tt_status_t space_common(tt_lower_t *L, int is_log) {
  int outi = is_log ? 4 : 3;
  const tt_tensor_ref_t *out = tt_l_ref(L, outi);
  int64_t steps = tt_l_int(L, 2, 0);
  if (!out) return tt_status_make(TT_TYPE_ERROR, "%s: out must be a Tensor", L->op);
  if (steps < 0) return tt_status_make(TT_INVALID_ARGUMENT, "number of steps must be non-negative");
  if (out->view.rank != 1 || out->view.sizes[0] != steps)
    return tt_status_make(TT_NOT_IMPLEMENTED, "%s: resizing `out` is not supported on TPU yet; pass an out tensor of shape [%lld]",
                          L->op, (long long)steps);
  tt_dtype_t dt = out->dtype;
  if (steps == 0) { /* CPU writes nothing: no end is converted, no kernel chosen */
    L->returns_arg = outi;
    return NULL;
  }
  int is_float = tt_dtype_is_float(dt);
  tt_graph_t *g = L->g;
  tt_dtype_t ct = is_float ? dt : TT_F64;
  /* float16/bfloat16 logspace: step and exponent in float (CPU's opmath) */
  if (is_log && (dt == TT_F16 || dt == TT_BF16)) ct = TT_F32;
  if (steps == 1) {
    /* CPU fills the one step: linspace with fill_(start) (end unchecked),
     * logspace with fill_(pow(base, start)) computed in double; fill_'s
     * checked conversion. */
    double v = is_log ? pow(tt_l_float(L, 3, 10.0), tt_l_float(L, 0, 0)) : tt_l_float(L, 0, 0);
    /* into float16/bfloat16 CPU's one step overflows to inf unchecked (fuzz
     * 675:33: logspace(5, 0.989, 1) into float16 is inf; fill_(1e5) refuses) */
    int half = dt == TT_F16 || dt == TT_BF16;
    if (!half && (is_log ? !tt_op_check_host_value_fits(L, v, dt) : !tt_op_check_scalar_fits(L, 0, dt))) return NULL;
    if (dt == TT_BOOL) v = v != 0; /* fill_'s static_cast<bool>: 0.5 and NaN are true */
    else if (!is_float) v = wrap_to(trunc(v), dt);
    tt_l_write(L, outi, 0, tt_b_convert(g, tt_b_broadcast(g, tt_l_scalar(L, ct, v, 0, 1), 1, &steps, NULL), dt));
    L->returns_arg = outi;
    return NULL;
  }
  if (dt == TT_BOOL) /* the kernel, for two steps or more */
    return tt_op_refuse_dtype(TT_BOOL, "%s_cpu", is_log ? "logspace" : "linspace");
  /* start.to<scalar_t>(), end.to<scalar_t>(): CPU's checked conversions */
  if (!tt_op_check_scalar_fits(L, 0, dt) || !tt_op_check_scalar_fits(L, 1, dt)) return NULL;
  double start = tt_l_float(L, 0, 0), end = tt_l_float(L, 1, 0);
  double base = is_log ? tt_l_float(L, 3, 10.0) : 0;
  if (ct == TT_F32 && dt != TT_F32) { /* start.to<scalar_t>(), then computed in float */
    start = tt_scalar_bits_float(dt, tt_scalar_bits(dt, start, 0, 1));
    end = tt_scalar_bits_float(dt, tt_scalar_bits(dt, end, 0, 1));
  }
  if (!is_float) { /* start.to<scalar_t>(): truncated, then wrapped into the type (uint8: -1 is 255) */
    start = wrap_to(trunc(start), dt);
    end = wrap_to(trunc(end), dt);
  }
  if (dt == TT_F16 && !is_log) return half_linspace(L, outi, start, end, steps);
  tt_val_t i = tt_b_iota(g, ct, 1, &steps, 0);
  tt_val_t s0 = tt_b_broadcast(g, tt_l_scalar(L, ct, start, 0, 1), 1, &steps, NULL);
  tt_val_t e0 = tt_b_broadcast(g, tt_l_scalar(L, ct, end, 0, 1), 1, &steps, NULL);
  /* step on the host (the device may divide by a rounded reciprocal), then
   * rounded to the step type as on CPU; values computed in that type. */
  double step = steps > 1 ? (end - start) / (double)(steps - 1) : 0;
  if (!is_float && is_log) /* CPU's integral logspace: scalar_end - scalar_start in C's integer arithmetic */
    step = steps > 1 ? int_diff(end, start, dt) / (double)(steps - 1) : 0;
  if ((dt == TT_F32 || ct == TT_F32) && steps > 1) step = (double)(((float)end - (float)start) / (float)(steps > 1 ? steps - 1 : 1));
  tt_val_t st;
  if (ct == TT_BF16 && steps > 1) /* matches CPU's bf16 rounding: the quotient computed in bf16 */
    st = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_SUB, e0, s0), tt_b_like_f(g, s0, steps > 1 ? (double)(steps - 1) : 1.0));
  else
    st = tt_b_broadcast(g, tt_l_scalar(L, ct, step, 0, 1), 1, &steps, NULL);
  tt_val_t lo = tt_b_binary(g, TT_BIN_ADD, s0, tt_b_binary(g, TT_BIN_MUL, st, i));
  tt_val_t back = tt_b_binary(g, TT_BIN_SUB, tt_b_like_f(g, i, (double)(steps - 1)), i);
  tt_val_t hi = tt_b_binary(g, TT_BIN_SUB, e0, tt_b_binary(g, TT_BIN_MUL, st, back));
  tt_val_t v = tt_b_select(g, tt_b_compare(g, TT_CMP_LT, i, tt_b_like_f(g, i, steps == 1 ? 1.0 : (double)(steps / 2))), lo, hi);
  if (is_log) {
    /* std::pow(double base, scalar_t exponent): the exponent in the result
     * type, the power in double, then rounded once to the result type (a
     * float16 power computed in float16 is ulps off, test_fuzz_found6) */
    tt_val_t b = tt_b_broadcast(g, tt_l_scalar(L, TT_F64, base, 0, 1), 1, &steps, NULL);
    v = tt_b_binary(g, TT_BIN_POW, b, tt_b_convert(g, v, TT_F64));
  }
  tt_l_write(L, outi, 0, tt_b_convert(g, v, dt));
  L->returns_arg = outi;
  return NULL;
}
static tt_status_t lower_linspace_out(tt_lower_t *L) { return space_common(L, 0); }
static tt_status_t lower_logspace_out(tt_lower_t *L) { return space_common(L, 1); }

/* The real and imaginary parts of scalar argument i (a real one: part 0). */
static double scalar_part(tt_lower_t *L, int i, int imag) {
  const tt_arg_t *a = &L->args[i];
  if (a->kind == TT_ARG_COMPLEX) return imag ? a->f_im : a->f;
  return imag ? 0.0 : tt_l_float(L, i, 0);
}

/* One part of a complex linspace, as CPU's kernel fills it: start + step i
 * up to halfway, end - step (steps - 1 - i) after, step (end - start) /
 * (steps - 1), all in the part type pt. */
static tt_val_t space_part(tt_lower_t *L, tt_dtype_t pt, double start, double end, int64_t steps) {
  tt_graph_t *g = L->g;
  tt_val_t i = tt_b_iota(g, pt, 1, &steps, 0);
  double step = (end - start) / (double)(steps - 1);
  if (pt == TT_F32) step = (double)(((float)end - (float)start) / (float)(steps - 1));
  tt_val_t s0 = tt_b_broadcast(g, tt_l_scalar(L, pt, start, 0, 1), 1, &steps, NULL);
  tt_val_t e0 = tt_b_broadcast(g, tt_l_scalar(L, pt, end, 0, 1), 1, &steps, NULL);
  tt_val_t st = tt_b_broadcast(g, tt_l_scalar(L, pt, step, 0, 1), 1, &steps, NULL);
  tt_val_t lo = tt_b_binary(g, TT_BIN_ADD, s0, tt_b_binary(g, TT_BIN_MUL, st, i));
  tt_val_t back = tt_b_binary(g, TT_BIN_SUB, tt_b_like_f(g, i, (double)(steps - 1)), i);
  tt_val_t hi = tt_b_binary(g, TT_BIN_SUB, e0, tt_b_binary(g, TT_BIN_MUL, st, back));
  return tt_b_select(g, tt_b_compare(g, TT_CMP_LT, i, tt_b_like_f(g, i, (double)(steps / 2))), lo, hi);
}

/* linspace.out / logspace.out into a complex out: each part spaced as the
 * real kernel spaces it (complex start and end, or real ones with 0
 * imaginary parts); logspace raises base to it (exp(v log base), complex
 * pow). Zero and one steps as the real forms. */
static tt_status_t space_complex(tt_lower_t *L, int is_log) {
  int outi = is_log ? 4 : 3;
  const tt_tensor_ref_t *out = tt_l_ref(L, outi);
  if (!out || !tt_dtype_is_complex(out->dtype))
    return tt_status_make(TT_NOT_IMPLEMENTED, "%s: complex start or end into a real out is not supported on TPU yet", L->op);
  int64_t steps = tt_l_int(L, 2, 0);
  if (steps < 0) return tt_status_make(TT_INVALID_ARGUMENT, "number of steps must be non-negative");
  if (out->view.rank != 1 || out->view.sizes[0] != steps)
    return tt_status_make(TT_NOT_IMPLEMENTED, "%s: resizing `out` is not supported on TPU yet; pass an out tensor of shape [%lld]",
                          L->op, (long long)steps);
  L->returns_arg = outi;
  if (steps == 0) return NULL;
  tt_graph_t *g = L->g;
  tt_dtype_t dt = out->dtype, pt = tt_dtype_real_part(dt);
  tt_val_t v;
  if (steps == 1) {
    tt_val_t re = tt_l_scalar(L, pt, scalar_part(L, 0, 0), 0, 1), im = tt_l_scalar(L, pt, scalar_part(L, 0, 1), 0, 1);
    v = tt_b_broadcast(g, tt_b_binary(g, TT_BIN_COMPLEX, re, im), 1, &steps, NULL);
  } else {
    v = tt_b_binary(g, TT_BIN_COMPLEX, space_part(L, pt, scalar_part(L, 0, 0), scalar_part(L, 1, 0), steps),
                    space_part(L, pt, scalar_part(L, 0, 1), scalar_part(L, 1, 1), steps));
  }
  double base = is_log ? tt_l_float(L, 3, 10.0) : 0;
  if (is_log && base > 0 && steps == 1) {
    /* CPU's fill_(pow(base, start)) in double: libstdc++'s pow of a
     * positive real to a complex, polar(pow(base, re), im * log(base))
     * (inf + NaN j where the power overflows), then fill_'s checked
     * conversion */
    double rho = pow(base, scalar_part(L, 0, 0)), th = scalar_part(L, 0, 1) * log(base);
    double vr = rho * cos(th), vi = rho * sin(th);
    if (!tt_op_check_host_value_fits(L, vr, dt) || !tt_op_check_host_value_fits(L, vi, dt)) return NULL;
    v = tt_b_binary(g, TT_BIN_COMPLEX, tt_l_scalar(L, pt, vr, 0, 1), tt_l_scalar(L, pt, vi, 0, 1));
    v = tt_b_broadcast(g, v, 1, &steps, NULL);
  } else if (is_log && base > 0 && scalar_part(L, 0, 1) == 0 && scalar_part(L, 1, 1) == 0) {
    /* a positive base to real exponents: CPU's complex pow has a zero
     * imaginary part (its overflow is inf + 0j; XLA's complex pow gave
     * exp(x) * sin(0), NaN) */
    tt_val_t b = tt_b_broadcast(g, tt_l_scalar(L, pt, base, 0, 1), 1, &steps, NULL);
    tt_val_t re = tt_b_binary(g, TT_BIN_POW, b, tt_b_unary(g, TT_UN_REAL, v));
    v = tt_b_binary(g, TT_BIN_COMPLEX, re, tt_b_full_f(g, pt, 1, &steps, 0.0));
  } else if (is_log) {
    tt_val_t b = tt_b_convert(g, tt_l_scalar(L, pt, base, 0, 1), dt);
    v = tt_b_binary(g, TT_BIN_POW, tt_b_broadcast(g, b, 1, &steps, NULL), v);
  }
  tt_l_write(L, outi, 0, tt_b_convert(g, v, dt));
  return NULL;
}
static tt_status_t linspace_complex(tt_lower_t *L) { return space_complex(L, 0); }
static tt_status_t logspace_complex(tt_lower_t *L) { return space_complex(L, 1); }

/* eye(n[, m]) and their out= forms (which take the dtype from out). */
static tt_val_t eye_value(tt_lower_t *L, int64_t n, int64_t m, tt_dtype_t dt) {
  if (n < 0) return tt_l_fail(L, TT_INVALID_ARGUMENT, "n must be greater or equal to 0, got %lld", (long long)n);
  if (m < 0) return tt_l_fail(L, TT_INVALID_ARGUMENT, "m must be greater or equal to 0, got %lld", (long long)m);
  int64_t d[2] = {n, m};
  return tt_la_eye(L->g, dt, 2, d);
}

static tt_dtype_t dtype_or_default(tt_lower_t *L, int i) {
  tt_dtype_t dt = tt_l_dtype(L, i);
  return dt == TT_DTYPE_INVALID ? tt_op_default_float(L) : dt;
}
static tt_status_t lower_eye(tt_lower_t *L) {
  int64_t n = tt_l_int(L, 0, 0);
  tt_l_output(L, eye_value(L, n, n, dtype_or_default(L, 1)));
  return NULL;
}
static tt_status_t lower_eye_m(tt_lower_t *L) {
  tt_l_output(L, eye_value(L, tt_l_int(L, 0, 0), tt_l_int(L, 1, 0), dtype_or_default(L, 2)));
  return NULL;
}

static tt_status_t eye_out(tt_lower_t *L, int64_t n, int64_t m, int outi) {
  const tt_tensor_ref_t *out = tt_l_ref(L, outi);
  if (!out) return tt_status_make(TT_TYPE_ERROR, "%s: out must be a Tensor", L->op);
  if (n < 0) return tt_status_make(TT_INVALID_ARGUMENT, "n must be greater or equal to 0, got %lld", (long long)n);
  if (m < 0) return tt_status_make(TT_INVALID_ARGUMENT, "m must be greater or equal to 0, got %lld", (long long)m);
  if (out->view.rank != 2 || out->view.sizes[0] != n || out->view.sizes[1] != m)
    return tt_status_make(TT_NOT_IMPLEMENTED, "%s: resizing `out` is not supported on TPU yet; pass an out tensor of shape [%lld, %lld]",
                          L->op, (long long)n, (long long)m);
  tt_l_write(L, outi, 0, eye_value(L, n, m, out->dtype));
  L->returns_arg = outi;
  return NULL;
}
static tt_status_t lower_eye_out(tt_lower_t *L) {
  int64_t n = tt_l_int(L, 0, 0);
  return eye_out(L, n, n, 1);
}
static tt_status_t lower_eye_m_out(tt_lower_t *L) { return eye_out(L, tt_l_int(L, 0, 0), tt_l_int(L, 1, 0), 2); }

const tt_op_def_t tt_ops_factory[] = {
    {"full", lower_full, TT_OPF_COMPLEX},
    {"arange", lower_arange, 0},
    {"arange.start", lower_arange_start, 0},
    {"arange.start_step", lower_arange_start_step, 0},
    {"linspace.out", lower_linspace_out, 0, .complex = linspace_complex},
    {"logspace.out", lower_logspace_out, 0, .complex = logspace_complex},
    {"eye", lower_eye, TT_OPF_COMPLEX},
    {"eye.m", lower_eye_m, TT_OPF_COMPLEX},
    {"eye.out", lower_eye_out, TT_OPF_COMPLEX},
    {"eye.m_out", lower_eye_m_out, TT_OPF_COMPLEX},
    {NULL, NULL, 0},
};
