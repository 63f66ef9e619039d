/* Type promotion, broadcasting and operand helpers for lowerings. */
#include "ops/common.h"

#include <stdio.h>
#include <string.h>

const char *tt_op_type_name(tt_dtype_t dt) {
  switch (dt) {
    case TT_BOOL: return "Bool";
    case TT_U8: return "Byte";
    case TT_I8: return "Char";
    case TT_I16: return "Short";
    case TT_I32: return "Int";
    case TT_I64: return "Long";
    case TT_F16: return "Half";
    case TT_BF16: return "BFloat16";
    case TT_F32: return "Float";
    case TT_F64: return "Double";
    case TT_C64: return "ComplexFloat";
    case TT_C128: return "ComplexDouble";
    default: return tt_dtype_name(dt);
  }
}

void tt_op_sizes_text(char *buf, size_t n, int rank, const int64_t *sizes) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < rank && k < n; i++) k += (size_t)snprintf(buf + k, n - k, i ? ", %lld" : "%lld", (long long)sizes[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

void tt_op_legacy_type_name(tt_dtype_t dt, char *buf, size_t n) {
  const char *pt = tt_op_type_name(dt);
  if (dt == TT_BOOL || dt == TT_BF16 || tt_dtype_is_complex(dt)) snprintf(buf, n, "CPU%sType", pt);
  else snprintf(buf, n, "torch.%sTensor", pt);
}

tt_dtype_t tt_op_math_type(tt_dtype_t dt) { return (dt == TT_BF16 || dt == TT_F16) ? TT_F32 : dt; }

/* torch.get_default_dtype() of the call (tt_lower_t's default_float, set
 * from the engine's by api/call.c): F32, F64, F16 or BF16. */
tt_dtype_t tt_op_default_float(const tt_lower_t *L) { return L->default_float; }

/* The float32 matmul precision (tt_precision_t) of the call, asked of the
 * engine only here (exec/lower_env.c: the global
 * torch.set_float32_matmul_precision or a torch.tpu.precision block around
 * the call, as the embedding reports it). */
int tt_op_matmul_precision_for(const tt_lower_t *L, tt_dtype_t dt) {
  return dt == TT_F32 ? L->env->matmul_precision(L->env->self) : TT_PREC_HIGHEST;
}

/* The complex type holding a floating type's values (PyTorch's
 * toComplexType as result_type uses it; bfloat16 -> complex64);
 * float16 -> complex32, which has no StableHLO type: INVALID. */
static tt_dtype_t complex_of(tt_dtype_t dt) {
  return dt == TT_F64 ? TT_C128 : dt == TT_F16 ? TT_DTYPE_INVALID : TT_C64;
}

/* PyTorch's default complex type follows the default float type; complex32
 * (a float16 default) has no StableHLO type: INVALID. */
tt_dtype_t tt_op_default_complex(const tt_lower_t *L) { return complex_of(L->default_float); }

tt_dtype_t tt_op_float_type(const tt_lower_t *L, tt_dtype_t dt) {
  return tt_dtype_is_float(dt) || tt_dtype_is_complex(dt) ? dt : L->default_float;
}

/* An argument's dtype on its own, given the default float type (a Python
 * float has it, a Python complex its complex type: INVALID for complex32). */
static tt_dtype_t arg_dtype(const tt_arg_t *a, tt_dtype_t default_float) {
  switch (a->kind) {
    case TT_ARG_TENSOR: return a->t->dtype;
    case TT_ARG_INT: return TT_I64;
    case TT_ARG_FLOAT: return default_float;
    case TT_ARG_BOOL: return TT_BOOL;
    case TT_ARG_COMPLEX: return complex_of(default_float);
    default: return TT_DTYPE_INVALID;
  }
}

tt_dtype_t tt_op_arg_dtype(tt_lower_t *L, int i) {
  if (i < 0 || i >= L->nargs) return TT_DTYPE_INVALID;
  return arg_dtype(&L->args[i], L->default_float);
}

static tt_dtype_t promote_skip(tt_dtype_t a, tt_dtype_t b) {
  if (a == TT_DTYPE_INVALID) return b;
  if (b == TT_DTYPE_INVALID) return a;
  return tt_dtype_promote(a, b);
}

/* PyTorch's combine_categories: a lower-priority participant (0-dim tensor,
 * number) changes the result only when its category (bool < integral <
 * floating < complex) is higher; a complex one over a floating result keeps
 * that result's precision. Sets *refused on a complex32 result. */
static tt_dtype_t combine(tt_dtype_t higher, tt_dtype_t lower, int *refused) {
  if (higher == TT_DTYPE_INVALID) return lower;
  if (lower == TT_DTYPE_INVALID) return higher;
  if (tt_dtype_is_complex(higher)) return higher;
  if (tt_dtype_is_complex(lower)) {
    if (!tt_dtype_is_float(higher)) return lower;
    tt_dtype_t c = complex_of(higher);
    if (c == TT_DTYPE_INVALID) *refused = 1;
    return c;
  }
  if (tt_dtype_is_float(higher)) return higher;
  if (higher == TT_BOOL || tt_dtype_is_float(lower)) return tt_dtype_promote(higher, lower);
  return higher;
}

tt_dtype_t tt_op_result_type_of(const tt_arg_t *args, int nargs, const int *argi, int n, tt_dtype_t default_float,
                                int *complex32) {
  tt_dtype_t dim = TT_DTYPE_INVALID, zero = TT_DTYPE_INVALID, wrapped = TT_DTYPE_INVALID;
  int refused = 0, wrapped_c32 = 0;
  for (int k = 0; k < n; k++) {
    int i = argi[k];
    if (i < 0 || i >= nargs) continue;
    const tt_arg_t *a = &args[i];
    tt_dtype_t dt = arg_dtype(a, default_float);
    int c32 = a->kind == TT_ARG_COMPLEX && dt == TT_DTYPE_INVALID; /* a float16 default: complex32 */
    if (c32) {
      wrapped_c32 = 1;
      dt = TT_C64; /* stands in: refused below unless a tensor gives the precision */
    }
    if (dt == TT_DTYPE_INVALID) continue;
    if (a->kind == TT_ARG_TENSOR) {
      if (a->t->view.rank > 0) dim = promote_skip(dim, dt);
      else zero = promote_skip(zero, dt);
    } else {
      wrapped = promote_skip(wrapped, dt);
    }
  }
  tt_dtype_t r = combine(dim, combine(zero, wrapped, &refused), &refused);
  /* a complex32 number decides the result unless a tensor is floating or complex */
  if (wrapped_c32 && !tt_dtype_is_float(dim) && !tt_dtype_is_complex(dim) && !tt_dtype_is_float(zero) &&
      !tt_dtype_is_complex(zero))
    refused = 1;
  *complex32 = refused;
  if (refused) return TT_C64;
  return r == TT_DTYPE_INVALID ? default_float : r;
}

tt_dtype_t tt_op_result_type(tt_lower_t *L, const int *argi, int n) {
  int complex32 = 0;
  tt_dtype_t r = tt_op_result_type_of(L->args, L->nargs, argi, n, L->default_float, &complex32);
  if (complex32) tt_l_fail(L, TT_NOT_IMPLEMENTED, "the result type is complex32 (ComplexHalf), which is not supported on TPU");
  return r;
}

int tt_op_broadcast_shape(tt_lower_t *L, const int *argi, int n, int64_t *out_dims) {
  int rank = 0;
  for (int k = 0; k < n; k++) {
    int r = tt_l_arg_rank(L, argi[k]);
    if (r > rank) rank = r;
  }
  for (int d = 0; d < rank; d++) out_dims[d] = 1;
  /* Track which argument set each dim, for PyTorch's message. */
  int owner[TT_MAX_RANK] = {0};
  for (int k = 0; k < n; k++) {
    int r = tt_l_arg_rank(L, argi[k]);
    if (r <= 0) continue;
    const int64_t *s = tt_l_arg_sizes(L, argi[k]);
    for (int j = 0; j < r; j++) {
      int d = rank - r + j;
      if (s[j] == out_dims[d] || s[j] == 1) continue;
      if (out_dims[d] == 1) {
        out_dims[d] = s[j];
        owner[d] = k;
        continue;
      }
      tt_l_fail(L, TT_INVALID_ARGUMENT,
                "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                (long long)out_dims[d], (long long)s[j], d);
      (void)owner;
      return rank;
    }
  }
  return rank;
}

tt_val_t tt_op_fit(tt_lower_t *L, tt_val_t v, tt_dtype_t dtype, int rank, const int64_t *dims) {
  v = tt_b_convert(L->g, v, dtype);
  if (v < 0) return -1;
  const tt_type_t *t = tt_graph_type(L->g, v);
  if (t->rank == rank && memcmp(t->dims, dims, sizeof(int64_t) * (size_t)rank) == 0) return v;
  return tt_b_broadcast_to(L->g, v, rank, dims);
}

tt_val_t tt_op_fit_like(tt_lower_t *L, tt_val_t v, tt_val_t like) {
  const tt_type_t *t = tt_graph_type(L->g, like);
  return tt_op_fit(L, v, t->dtype, t->rank, t->dims);
}

tt_val_t tt_op_one_element(tt_lower_t *L, int i, const char *name) {
  const tt_tensor_ref_t *r = tt_l_ref(L, i);
  if (!r) return tt_l_fail(L, TT_TYPE_ERROR, "%s: %s must be a Tensor", L->op, name);
  if (!r->is_host_scalar && tt_view_numel(&r->view) != 1)
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s must be a 1-element tensor.", name);
  return tt_b_reshape(L->g, tt_l_tensor(L, i), 0, NULL);
}

tt_val_t tt_op_operand(tt_lower_t *L, int i, tt_dtype_t dtype, int rank, const int64_t *dims) {
  if (i < 0 || i >= L->nargs) return tt_l_fail(L, TT_INTERNAL, "%s: missing argument %d", L->op, i);
  tt_val_t v;
  if (L->args[i].kind == TT_ARG_TENSOR)
    v = tt_l_tensor(L, i);
  else
    v = tt_l_scalar_arg(L, i, dtype);
  return tt_op_fit(L, v, dtype, rank, dims);
}

tt_val_t tt_op_operand_via(tt_lower_t *L, int i, tt_dtype_t via, tt_dtype_t compute, int rank, const int64_t *dims) {
  /* an integral common dtype is no stop: CPU's float ops (atan2, xlogy,
   * true div) promote integer inputs to float directly (xlogy(uint8, -4)
   * is log(-4.0), not log(252), fuzz 294:761) */
  if (via == compute || !tt_dtype_is_float(via) || tt_op_arg_dtype(L, i) == via) return tt_op_operand(L, i, compute, rank, dims);
  tt_val_t v = tt_op_operand(L, i, via, rank, dims);
  return tt_op_fit(L, v, compute, rank, dims);
}

int tt_op_wrap_dim(tt_lower_t *L, int64_t dim, int rank) {
  int r = rank > 0 ? rank : 1;
  if (dim < -r || dim >= r) {
    tt_l_fail(L, TT_INDEX_ERROR, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)",
              -r, r - 1, (long long)dim);
    return 0;
  }
  return (int)(dim < 0 ? dim + r : dim);
}

static const char *c_type_name(tt_dtype_t dt) {
  switch (dt) {
    case TT_U8: return "uint8_t";
    case TT_I8: return "int8_t";
    case TT_I16: return "int16_t";
    case TT_I32: return "int";
    case TT_I64: return "int64_t";
    case TT_F16: return "c10::Half";
    case TT_BF16: return "c10::BFloat16";
    case TT_F32: return "float";
    case TT_F64: return "double";
    case TT_C64: return "c10::complex<float>";
    case TT_C128: return "c10::complex<double>";
    default: return tt_dtype_name(dt);
  }
}

/* c10::overflows<To, From>: the range an integer must lie in to convert
 * into dt; 0 when every int64 fits. */
static int int_range(tt_dtype_t dt, int64_t *lo, int64_t *hi) {
  switch (dt) {
    case TT_U8: *lo = -255, *hi = 255; return 1; /* negatives wrap (two's complement), as CPU allows */
    case TT_I8: *lo = -128, *hi = 127; return 1;
    case TT_I16: *lo = -32768, *hi = 32767; return 1;
    case TT_I32: *lo = -2147483647LL - 1, *hi = 2147483647LL; return 1;
    case TT_F16: *lo = -65504, *hi = 65504; return 1;
    default: return 0;
  }
}

/* The same for a floating value (NaN and inf convert into floating types,
 * never into integral ones); 0 when every double fits. */
static int float_range(tt_dtype_t dt, double *lo, double *hi) {
  switch (dt) {
    case TT_U8: *lo = 0, *hi = 255; return 1;
    case TT_I8: *lo = -128, *hi = 127; return 1;
    case TT_I16: *lo = -32768, *hi = 32767; return 1;
    case TT_I32: *lo = -2147483648.0, *hi = 2147483647.0; return 1;
    case TT_I64: *lo = -9223372036854775808.0, *hi = 9223372036854775807.0; return 1;
    case TT_F16: *lo = -65504, *hi = 65504; return 1;
    case TT_BF16: *lo = -3.3895313892515355e38, *hi = 3.3895313892515355e38; return 1;
    case TT_F32: case TT_C64: *lo = -3.4028234663852886e38, *hi = 3.4028234663852886e38; return 1;
    default: return 0;
  }
}

static int int_overflows(int64_t v, tt_dtype_t dt) {
  int64_t lo, hi;
  return int_range(dt, &lo, &hi) && (v < lo || v > hi);
}

static int float_overflows(double f, tt_dtype_t dt) {
  double lo, hi;
  if (!float_range(dt, &lo, &hi)) return 0;
  if (tt_dtype_is_float(dt) || tt_dtype_is_complex(dt)) {
    if (f != f || f == 1.0 / 0.0 || f == -1.0 / 0.0) return 0; /* NaN and inf convert */
  } else if (f != f) {
    return 1;
  }
  return f < lo || f > hi;
}

int tt_op_check_scalar_fits(tt_lower_t *L, int i, tt_dtype_t dt) {
  if (i < 0 || i >= L->nargs) return 1;
  const tt_arg_t *a = &L->args[i];
  int bad = 0;
  if (a->kind == TT_ARG_INT) bad = int_overflows(a->i, dt);
  else if (a->kind == TT_ARG_FLOAT) bad = float_overflows(a->f, dt);
  /* c10's checked conversion of a complex Scalar to a real type: a nonzero imaginary part overflows
   * (every value converts into bool) */
  else if (a->kind == TT_ARG_COMPLEX && !tt_dtype_is_complex(dt) && dt != TT_BOOL) bad = a->f_im != 0.0;
  else if (a->kind == TT_ARG_TENSOR && a->t->is_host_scalar && !tt_dtype_is_complex(a->t->dtype))
    bad = tt_dtype_is_float(a->t->dtype) ? float_overflows(a->t->host_f, dt) : int_overflows(a->t->host_i, dt);
  if (!bad) return 1;
  tt_l_fail(L, TT_INVALID_ARGUMENT, "value cannot be converted to type %s without overflow", c_type_name(dt));
  return 0;
}

int tt_op_check_fill_fits(tt_lower_t *L, int i, tt_dtype_t dt, int64_t numel) {
  if (i < 0 || i >= L->nargs) return 1;
  tt_arg_kind_t k = L->args[i].kind;
  if (numel == 1 && (dt == TT_F16 || dt == TT_BF16) && (k == TT_ARG_FLOAT || k == TT_ARG_INT)) return 1;
  return tt_op_check_scalar_fits(L, i, dt);
}

tt_val_t tt_op_complex_fill(tt_lower_t *L, int i, tt_dtype_t dt) {
  if (i < 0 || i >= L->nargs || L->args[i].kind != TT_ARG_COMPLEX || tt_dtype_is_complex(dt)) return -1;
  double re = L->args[i].f, im = L->args[i].f_im;
  if (dt == TT_BOOL) return tt_l_scalar(L, dt, 0, re != 0 || im != 0, 0);
  if (im != 0 || float_overflows(re, dt)) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "value cannot be converted to type %s without overflow", c_type_name(dt));
    return -1;
  }
  return tt_l_scalar(L, dt, re, 0, 1);
}

int tt_op_check_host_value_fits(tt_lower_t *L, double v, tt_dtype_t dt) {
  if (!float_overflows(v, dt)) return 1;
  tt_l_fail(L, TT_INVALID_ARGUMENT, "value cannot be converted to type %s without overflow", c_type_name(dt));
  return 0;
}

tt_status_t tt_op_sub_check(tt_lower_t *L) {
  int b0 = tt_op_arg_dtype(L, 0) == TT_BOOL, b1 = tt_op_arg_dtype(L, 1) == TT_BOOL;
  if (b0 && b1)
    return tt_status_make(TT_INVALID_ARGUMENT, "Subtraction, the `-` operator, with two bool tensors is not supported. "
                          "Use the `^` or `logical_xor()` operator instead.");
  if (b0 || b1)
    return tt_status_make(TT_INVALID_ARGUMENT, "Subtraction, the `-` operator, with a bool tensor is not supported. "
                          "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  return NULL;
}

int tt_op_check_value_fits(tt_lower_t *L, int i, tt_dtype_t dt) {
  if (i < 0 || i >= L->nargs) return 1;
  const tt_arg_t *a = &L->args[i];
  if (a->kind != TT_ARG_TENSOR || a->t->is_host_scalar) return tt_op_check_scalar_fits(L, i, dt);
  /* a value of another rank is refused elsewhere; every value converts into bool (Scalar::to<bool>, complex too) */
  if (tt_dtype_is_complex(dt) || dt == TT_BOOL || a->t->view.rank != 0) return 1;
  tt_dtype_t src = a->t->dtype;
  /* values of a type that converts without overflow into dt need no check (and cost nothing) */
  if (src == TT_BOOL || (!tt_dtype_is_complex(src) && tt_dtype_is_float(src) == tt_dtype_is_float(dt) &&
                         tt_dtype_promote(src, dt) == dt))
    return 1;
  double flo, fhi;
  int64_t ilo, ihi;
  if (!tt_dtype_is_complex(src) && !(tt_dtype_is_float(src) ? float_range(dt, &flo, &fhi) : int_range(dt, &ilo, &ihi)))
    return 1;
  tt_graph_t *g = L->g;
  tt_val_t v = tt_l_tensor(L, i);
  tt_dtype_t vd = a->t->dtype;
  tt_val_t bad = tt_b_full_i(g, TT_BOOL, 0, NULL, 0);
  if (tt_dtype_is_complex(vd)) { /* a complex value converts into a real type only with a zero imaginary part */
    tt_val_t im = tt_b_unary(g, TT_UN_IMAG, v);
    bad = tt_b_binary(g, TT_BIN_OR, bad, tt_b_compare(g, TT_CMP_NE, im, tt_b_like_f(g, im, 0)));
    v = tt_b_unary(g, TT_UN_REAL, v);
    vd = tt_dtype_real_part(vd);
  }
  tt_val_t shown;
  if (tt_dtype_is_float(vd)) {
    tt_val_t x = tt_b_convert(g, v, TT_F64);
    double lo, hi;
    if (float_range(dt, &lo, &hi)) {
      tt_val_t out = tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_LT, x, tt_b_like_f(g, x, lo)),
                                 tt_b_compare(g, TT_CMP_GT, x, tt_b_like_f(g, x, hi)));
      if (tt_dtype_is_float(dt)) out = tt_b_binary(g, TT_BIN_AND, out, tt_b_unary(g, TT_UN_IS_FINITE, x));
      else out = tt_b_binary(g, TT_BIN_OR, out, tt_b_compare(g, TT_CMP_NE, x, x));
      bad = tt_b_binary(g, TT_BIN_OR, bad, out);
    }
    shown = x;
  } else {
    tt_val_t x = tt_b_convert(g, v, TT_I64);
    int64_t lo, hi;
    if (int_range(dt, &lo, &hi))
      bad = tt_b_binary(g, TT_BIN_OR, bad,
                        tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_LT, x, tt_b_full_i(g, TT_I64, 0, NULL, lo)),
                                    tt_b_compare(g, TT_CMP_GT, x, tt_b_full_i(g, TT_I64, 0, NULL, hi))));
    shown = x;
  }
  int n = L->nchecks;
  tt_l_check_index_mask(L, shown, bad, 0, 0, TT_CHECK_VALUE_FITS);
  if (L->nchecks > n) L->checks[n].type_name = c_type_name(dt);
  return !tt_graph_failed(g);
}

int tt_op_expanded_dims(const tt_tensor_ref_t *self, int64_t *bdims) {
  if (!self || tt_view_numel(&self->view) == 0) return 0; /* an empty self never overlaps */
  tt_view_t dropped = self->view;
  int nb = 0;
  for (int d = 0; d < self->view.rank; d++)
    if (self->view.strides[d] == 0 && self->view.sizes[d] > 1) {
      bdims[nb++] = d;
      dropped.sizes[d] = 1;
    }
  return nb > 0 && !tt_view_has_internal_overlap(&dropped) ? nb : 0;
}

tt_val_t tt_op_alias_reduce(tt_lower_t *L, tt_reduce_t kind, tt_val_t m, int rank, const int64_t *dims, int nb,
                            const int64_t *bdims) {
  if (m < 0 || nb == 0) return m;
  m = tt_b_reduce(L->g, kind, m, nb, bdims);
  int64_t keep[TT_MAX_RANK];
  int nk = 0;
  for (int d = 0, b = 0; d < rank; d++) {
    if (b < nb && bdims[b] == d) b++;
    else keep[nk++] = d;
  }
  L->alias_write = 1;
  return tt_b_broadcast(L->g, m, rank, dims, keep);
}
