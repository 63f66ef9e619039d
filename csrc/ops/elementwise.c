/* Elementwise ops: arithmetic, comparisons, unary math, pow, where, clamp,
 * logical/bitwise, remainders, lerp/addcmul/addcdiv, with PyTorch promotion. */
#include <string.h>

#include "ops/complex.h"
#include "ops/dispatch_refusal.h"
#include "ops/common.h"
#include "ops/out_rules.h"
#include "ops/elementwise.h"
#include "ops/families.h"

/* Result dtype, broadcast shape and both operands prepared in `compute`. */
typedef struct {
  tt_dtype_t result;
  int rank;
  int64_t dims[TT_MAX_RANK];
  tt_val_t x, y;
} binop_t;

/* An operand of another dtype is cast to the result type first, as CPU's
 * TensorIterator does, then widened to `compute` (fuzz 277:436: an int32
 * -2**31 beside float16 is -inf, 2049 is 2048, before a float32 kernel),
 * except b when b_own: a scalar `other` the kernel reads at its own value
 * (CPU's original_scalar_value; scalar_other_type, rounding_div_type). */
static int prepare2_own(tt_lower_t *L, int a, int b, tt_dtype_t compute, int b_own, binop_t *p) {
  int argi[2] = {a, b};
  p->result = tt_op_result_type(L, argi, 2);
  if (compute == TT_DTYPE_INVALID) compute = p->result;
  p->rank = tt_op_broadcast_shape(L, argi, 2, p->dims);
  p->x = tt_op_operand_via(L, a, p->result, compute, p->rank, p->dims);
  p->y = b_own ? tt_op_operand(L, b, compute, p->rank, p->dims) : tt_op_operand_via(L, b, p->result, compute, p->rank, p->dims);
  return !tt_graph_failed(L->g);
}
static int prepare2(tt_lower_t *L, int a, int b, tt_dtype_t compute, binop_t *p) { return prepare2_own(L, a, b, compute, 0, p); }

/* The type CPU's mul and true div compute in: a scalar-shaped `other` (a
 * number or 0-dim tensor) of a bfloat16/float16 result keeps its own
 * precision, the product or quotient taken in float32 and rounded once
 * (CPU's original_scalar_value path); else the result type. */
static tt_dtype_t scalar_other_type(tt_lower_t *L, tt_dtype_t result) {
  if ((result == TT_BF16 || result == TT_F16) && tt_l_arg_rank(L, 1) <= 0) return TT_F32;
  return result;
}

/* The type CPU's div with rounding_mode 'floor' or 'trunc' (and
 * floor_divide) computes in: a bfloat16/float16 result whose divisor is one
 * element (a number, or any tensor of numel 1: TensorIterator's is_scalar)
 * is computed in float32 from the divisor's own value and rounded once;
 * else every step in the result type. */
static tt_dtype_t rounding_div_type(tt_lower_t *L, tt_dtype_t result) {
  if (result != TT_BF16 && result != TT_F16) return result;
  int rank = tt_l_arg_rank(L, 1);
  if (rank <= 0) return TT_F32;
  const int64_t *sz = tt_l_arg_sizes(L, 1);
  int64_t n = 1;
  for (int d = 0; d < rank; d++) n *= sz[d];
  return n == 1 ? TT_F32 : result;
}

/* x (+|-) alpha * y, alpha from argument 2 when present. */
static tt_status_t add_sub(tt_lower_t *L, tt_binary_t op) {
  if (op == TT_BIN_SUB) {
    tt_status_t s = tt_op_sub_check(L);
    if (s) return s;
  }
  binop_t p;
  if (!prepare2(L, 0, 1, TT_DTYPE_INVALID, &p)) return NULL;
  tt_val_t y = p.y;
  if (!tt_l_is_none(L, 2)) {
    const tt_arg_t *al = &L->args[2];
    int is_one = (al->kind == TT_ARG_INT && al->i == 1) || (al->kind == TT_ARG_FLOAT && al->f == 1.0);
    if (al->kind == TT_ARG_FLOAT && !tt_dtype_is_float(p.result))
      return tt_status_make(TT_INVALID_ARGUMENT, "For integral input tensors, argument alpha must not be a floating point number.");
    if (al->kind == TT_ARG_BOOL && p.result != TT_BOOL)
      return tt_status_make(TT_INVALID_ARGUMENT, "Boolean alpha only supported for Boolean results.");
    if (al->kind != TT_ARG_BOOL && !tt_op_check_scalar_fits(L, 2, p.result)) return NULL; /* alpha.to<scalar_t>() */
    /* bfloat16/float16: alpha * y rounds to the result type before the add,
     * as CPU's scalar loop does (its vectorized loop, over all but the last
     * numel % vector-width elements, fuses x + alpha * y in float32: CPU
     * itself differs by position there). */
    if (!is_one) y = tt_b_binary(L->g, TT_BIN_MUL, y, tt_op_fit(L, tt_l_scalar_arg(L, 2, p.result), p.result, p.rank, p.dims));
  }
  if (p.result == TT_BOOL && op == TT_BIN_SUB)
    return tt_status_make(TT_INVALID_ARGUMENT, "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.");
  tt_l_output(L, tt_b_binary(L->g, p.result == TT_BOOL ? TT_BIN_OR : op, p.x, y));
  return NULL;
}

static tt_status_t lower_add(tt_lower_t *L) { return add_sub(L, TT_BIN_ADD); }
static tt_status_t lower_sub(tt_lower_t *L) { return add_sub(L, TT_BIN_SUB); }

static tt_status_t lower_rsub(tt_lower_t *L) {
  tt_status_t s = tt_op_sub_check(L);
  if (s) return s;
  binop_t p;
  if (!prepare2(L, 0, 1, TT_DTYPE_INVALID, &p)) return NULL;
  tt_val_t x = p.x;
  if (!tt_l_is_none(L, 2)) x = tt_b_binary(L->g, TT_BIN_MUL, x, tt_op_fit(L, tt_l_scalar_arg(L, 2, p.result), p.result, p.rank, p.dims));
  tt_l_output(L, tt_b_binary(L->g, TT_BIN_SUB, p.y, x));
  return NULL;
}

static tt_status_t mul_rounding_scalar(tt_lower_t *L, int round_scalar) {
  binop_t p;
  int argi[2] = {0, 1};
  tt_dtype_t rt = tt_op_result_type(L, argi, 2);
  tt_dtype_t ct = round_scalar ? rt : scalar_other_type(L, rt);
  if (!prepare2_own(L, 0, 1, ct, ct != rt, &p)) return NULL;
  tt_val_t r = tt_b_binary(L->g, p.result == TT_BOOL ? TT_BIN_AND : TT_BIN_MUL, p.x, p.y);
  int b0 = tt_op_arg_dtype(L, 0) == TT_BOOL, b1 = tt_op_arg_dtype(L, 1) == TT_BOOL;
  if (tt_dtype_is_float(p.result) && b0 != b1) {
    /* XLA rewrites x * convert(mask) as select(mask, x, 0), which loses
     * IEEE's 0 * inf = NaN that CPU gives: False * x is spelled x * 0. */
    tt_val_t mask = tt_op_operand(L, b0 ? 0 : 1, TT_BOOL, p.rank, p.dims);
    tt_val_t x = b0 ? p.y : p.x;
    r = tt_b_select(L->g, mask, x, tt_b_binary(L->g, TT_BIN_MUL, x, tt_b_like_f(L->g, x, 0.0)));
  }
  tt_l_output(L, tt_b_convert(L->g, r, p.result));
  return NULL;
}
static tt_status_t lower_mul(tt_lower_t *L) { return mul_rounding_scalar(L, 0); }
/* CPU's mul_.Scalar (which _foreach_mul_'s per-tensor loop calls) rounds
 * the scalar to the result type, unlike mul.Scalar and Tensor.mul_(number). */
static tt_status_t lower_mul_scalar_(tt_lower_t *L) { return mul_rounding_scalar(L, 1); }

/* floor(x / y) for integers with the sign fix-up PyTorch uses. */
static tt_val_t int_floor_div(tt_graph_t *g, tt_val_t x, tt_val_t y) {
  tt_val_t q = tt_b_binary(g, TT_BIN_DIV, x, y);
  tt_val_t r = tt_b_binary(g, TT_BIN_REM, x, y);
  tt_val_t zero = tt_b_like_f(g, x, 0);
  tt_val_t rnz = tt_b_compare(g, TT_CMP_NE, r, zero);
  tt_val_t sx = tt_b_compare(g, TT_CMP_LT, x, zero), sy = tt_b_compare(g, TT_CMP_LT, y, zero);
  tt_val_t diff = tt_b_compare(g, TT_CMP_NE, sx, sy);
  tt_val_t fix = tt_b_binary(g, TT_BIN_AND, rnz, diff);
  return tt_b_select(g, fix, tt_b_binary(g, TT_BIN_SUB, q, tt_b_like_f(g, q, 1)), q);
}

/* CPU raises ZeroDivisionError for an integral division or remainder by a
 * zero element. A number (or host 0-dim tensor) divisor is known here and
 * raises now; a device divisor gets a device-side check, raised at the op in
 * Debug mode and at the next synchronization point otherwise (as CUDA's
 * device asserts): never a silent value. `y` is the divisor as computed. */
static int int_zero_div_check(tt_lower_t *L, tt_dtype_t result, tt_val_t y) {
  if (tt_dtype_is_float(result) || tt_dtype_is_complex(result) || result == TT_BOOL) return 1;
  const tt_type_t *yt = tt_graph_type(L->g, y); /* y is broadcast to the result: an empty one divides nothing */
  for (int d = 0; d < yt->rank; d++)
    if (yt->dims[d] == 0) return 1;
  const tt_arg_t *a = &L->args[1];
  int host = a->kind == TT_ARG_INT || a->kind == TT_ARG_FLOAT || a->kind == TT_ARG_BOOL ||
             (a->kind == TT_ARG_TENSOR && a->t->is_host_scalar);
  if (host) {
    /* the number as the integral type sees it (trunc, then wrapped into the
     * type). An integer stays an integer: through a double, INT64_MAX rounds
     * to 2**63, whose conversion back wraps to 0 (fuzz 107:462: remainder of
     * int16 by 2**63 - 1, which CPU wraps to -1, raised ZeroDivisionError) */
    int is_f = a->kind == TT_ARG_FLOAT || (a->kind == TT_ARG_TENSOR && tt_dtype_is_float(a->t->dtype));
    int64_t iv = !is_f ? (a->kind == TT_ARG_TENSOR ? a->t->host_i : a->i)
                 : (int64_t)(a->kind == TT_ARG_FLOAT ? a->f : a->t->host_f);
    if (result == TT_U8) iv = (uint8_t)iv;
    else if (result == TT_I8) iv = (int8_t)iv;
    else if (result == TT_I16) iv = (int16_t)iv;
    else if (result == TT_I32) iv = (int32_t)(uint32_t)iv;
    if (iv == 0) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "ZeroDivisionError");
      return 0;
    }
    return 1;
  }
  tt_l_check_index_mask(L, y, tt_b_compare(L->g, TT_CMP_EQ, y, tt_b_like_f(L->g, y, 0)), 0, 0, TT_CHECK_ZERO_DIV);
  return !tt_graph_failed(L->g);
}

/* x / y in floating point. XLA rewrites convert(mask) / broadcast(y) as
 * select(mask, 1 / y, 0), losing IEEE's 0 / 0 = NaN (and 0 / NaN) that CPU
 * gives: a bool dividend is spelled select(mask, 1 / y, 0 / y), as mul's is. */
static tt_val_t float_quotient(tt_lower_t *L, tt_val_t x, tt_val_t y, int rank, const int64_t *dims) {
  tt_graph_t *g = L->g;
  if (tt_op_arg_dtype(L, 0) != TT_BOOL) return tt_b_binary(g, TT_BIN_DIV, x, y);
  tt_val_t mask = tt_op_operand(L, 0, TT_BOOL, rank, dims);
  return tt_b_select(g, mask, tt_b_binary(g, TT_BIN_DIV, tt_b_like_f(g, y, 1.0), y),
                     tt_b_binary(g, TT_BIN_DIV, tt_b_like_f(g, y, 0.0), y));
}

static tt_status_t div_mode(tt_lower_t *L, const char *mode) {
  binop_t p;
  int argi[2] = {0, 1};
  tt_dtype_t rt = tt_op_result_type(L, argi, 2);
  if (!mode) {
    tt_dtype_t ft = tt_op_float_type(L, rt);
    tt_dtype_t ct = scalar_other_type(L, ft);
    if (!prepare2_own(L, 0, 1, ct, ct != ft, &p)) return NULL;
    tt_val_t q = tt_dtype_is_float(ft) ? float_quotient(L, p.x, p.y, p.rank, p.dims) : tt_b_binary(L->g, TT_BIN_DIV, p.x, p.y);
    tt_l_output(L, tt_b_convert(L->g, q, ft));
    return NULL;
  }
  tt_dtype_t rct = rounding_div_type(L, rt);
  if (!prepare2_own(L, 0, 1, rct, rct != rt, &p)) return NULL;
  if (p.result == TT_BOOL && (!strcmp(mode, "trunc") || !strcmp(mode, "floor"))) /* CPU's kernels lack Bool */
    return tt_op_refuse_dtype(TT_BOOL, "div_%s_cpu", mode);
  tt_graph_t *g = L->g;
  int is_float = tt_dtype_is_float(p.result);
  if ((!strcmp(mode, "trunc") || !strcmp(mode, "floor")) && !int_zero_div_check(L, p.result, p.y)) return NULL;
  if (!strcmp(mode, "trunc")) {
    tt_val_t q = is_float ? float_quotient(L, p.x, p.y, p.rank, p.dims) : tt_b_binary(g, TT_BIN_DIV, p.x, p.y);
    if (is_float) {
      /* trunc = sign(q) * floor(|q|) */
      q = tt_b_binary(g, TT_BIN_MUL, tt_b_unary(g, TT_UN_SIGN, q), tt_b_unary(g, TT_UN_FLOOR, tt_b_unary(g, TT_UN_ABS, q)));
    }
    tt_l_output(L, tt_b_convert(g, q, p.result));
  } else if (!strcmp(mode, "floor")) {
    if (is_float) {
      /* PyTorch: floor of the true quotient computed via the remainder. */
      tt_val_t mod = tt_b_binary(g, TT_BIN_REM, p.x, p.y);
      tt_val_t div = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_SUB, p.x, mod), p.y);
      tt_val_t zero = tt_b_like_f(g, mod, 0);
      tt_val_t fix = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_NE, mod, zero),
                                 tt_b_compare(g, TT_CMP_NE, tt_b_compare(g, TT_CMP_LT, p.y, zero), tt_b_compare(g, TT_CMP_LT, mod, zero)));
      div = tt_b_select(g, fix, tt_b_binary(g, TT_BIN_SUB, div, tt_b_like_f(g, div, 1)), div);
      tt_val_t fl = tt_b_unary(g, TT_UN_FLOOR, div);
      tt_val_t up = tt_b_compare(g, TT_CMP_GT, tt_b_binary(g, TT_BIN_SUB, div, fl), tt_b_like_f(g, div, 0.5));
      fl = tt_b_select(g, up, tt_b_binary(g, TT_BIN_ADD, fl, tt_b_like_f(g, fl, 1)), fl);
      tt_val_t nz = tt_b_compare(g, TT_CMP_NE, div, tt_b_like_f(g, div, 0));
      tt_val_t q = float_quotient(L, p.x, p.y, p.rank, p.dims);
      tt_val_t res = tt_b_select(g, nz, fl, tt_b_binary(g, TT_BIN_MUL, tt_b_like_f(g, q, 0), q));
      /* Division by zero: the true quotient (inf/nan) as PyTorch returns. */
      tt_val_t yz = tt_b_compare(g, TT_CMP_EQ, p.y, tt_b_like_f(g, p.y, 0));
      tt_l_output(L, tt_b_convert(g, tt_b_select(g, yz, q, res), p.result));
    } else {
      tt_l_output(L, int_floor_div(g, p.x, p.y));
    }
  } else {
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", mode);
  }
  return NULL;
}
static tt_status_t lower_div(tt_lower_t *L) { return div_mode(L, tt_l_str(L, 2, NULL)); }
/* floor_divide is div(rounding_mode='floor'). */
static tt_status_t lower_floor_divide(tt_lower_t *L) { return div_mode(L, "floor"); }

/* An operand as complex64 holding complex32's value: each part rounded to
 * float16 (a float16 operand's parts are already). */
static tt_val_t complex32_operand(tt_lower_t *L, int i, int rank, const int64_t *dims) {
  tt_graph_t *g = L->g;
  tt_val_t v = tt_op_operand(L, i, TT_C64, rank, dims);
  if (v < 0) return -1;
  tt_val_t re = tt_b_convert(g, tt_b_convert(g, tt_b_unary(g, TT_UN_REAL, v), TT_F16), TT_F32);
  tt_val_t im = tt_b_convert(g, tt_b_convert(g, tt_b_unary(g, TT_UN_IMAG, v), TT_F16), TT_F32);
  return tt_b_binary(g, TT_BIN_COMPLEX, re, im);
}

static tt_status_t compare(tt_lower_t *L, tt_cmp_t c) {
  /* eq/ne whose common type is complex32 (a float16 tensor beside a complex
   * number or 0-dim complex tensor) compute on CPU, in ComplexHalf, which
   * StableHLO lacks: compared in complex64 with each part rounded to float16
   * first, the same answer (fuzz 487:626: ne(float16, 1.86+1.24j, out=...)
   * was refused) */
  int argi[2] = {0, 1}, complex32 = 0;
  if (c == TT_CMP_EQ || c == TT_CMP_NE) tt_op_result_type_of(L->args, L->nargs, argi, 2, L->default_float, &complex32);
  if (complex32) {
    int64_t dims[TT_MAX_RANK];
    int rank = tt_op_broadcast_shape(L, argi, 2, dims);
    if (tt_graph_failed(L->g)) return NULL;
    tt_val_t x = complex32_operand(L, 0, rank, dims), y = complex32_operand(L, 1, rank, dims);
    if (x >= 0 && y >= 0) tt_l_output(L, tt_b_compare(L->g, c, x, y));
    return NULL;
  }
  binop_t p;
  if (!prepare2(L, 0, 1, TT_DTYPE_INVALID, &p)) return NULL;
  tt_l_output(L, tt_b_compare(L->g, c, p.x, p.y));
  return NULL;
}
static tt_status_t lower_eq(tt_lower_t *L) { return compare(L, TT_CMP_EQ); }
static tt_status_t lower_ne(tt_lower_t *L) { return compare(L, TT_CMP_NE); }
static tt_status_t lower_lt(tt_lower_t *L) { return compare(L, TT_CMP_LT); }
static tt_status_t lower_le(tt_lower_t *L) { return compare(L, TT_CMP_LE); }
static tt_status_t lower_gt(tt_lower_t *L) { return compare(L, TT_CMP_GT); }
static tt_status_t lower_ge(tt_lower_t *L) { return compare(L, TT_CMP_GE); }


/* ---- Shared element-function helpers (see ops/elementwise.h) ---- */


static tt_val_t is_nan(tt_graph_t *g, tt_val_t x) { return tt_b_compare(g, TT_CMP_NE, x, x); }

/* Bool has no ordering in StableHLO's max/min: use or/and. Floats propagate
 * NaN explicitly (x + y is NaN when either is). */
static tt_val_t minmax(tt_graph_t *g, tt_val_t x, tt_val_t y, int is_max) {
  if (x < 0 || y < 0) return -1;
  tt_dtype_t dt = tt_graph_type(g, x)->dtype;
  if (dt == TT_BOOL) return tt_b_binary(g, is_max ? TT_BIN_OR : TT_BIN_AND, x, y);
  tt_val_t m = tt_b_binary(g, is_max ? TT_BIN_MAX : TT_BIN_MIN, x, y);
  if (!tt_dtype_is_float(dt)) return m;
  tt_val_t nan = tt_b_binary(g, TT_BIN_OR, is_nan(g, x), is_nan(g, y));
  return tt_b_select(g, nan, tt_b_binary(g, TT_BIN_ADD, x, y), m);
}
tt_val_t tt_ew_max(tt_graph_t *g, tt_val_t x, tt_val_t y) { return minmax(g, x, y, 1); }
tt_val_t tt_ew_min(tt_graph_t *g, tt_val_t x, tt_val_t y) { return minmax(g, x, y, 0); }

/* erf is CHLO's (chlo.erf, which XLA's PJRT compile expands on every
 * plugin), computed in the op's math type: on XLA's CPU plugin it is within
 * 2-4 ulp of CPU's in float32 and to the last bit in float64, and cheaper
 * than a series expansion of our own (GELU's cost in a transformer). In
 * float32, XLA CPU's fusion emitters (large tensors, or a program with a
 * matrix product) level off at +-0.99999982 instead of reaching +-1: 1 + erf
 * of a very negative x was 1.8e-7, not 0, and GELU(-inf) -inf, not CPU's
 * NaN (graph fuzzer 30:55). Past the point where float32 erf is +-1, the
 * result is +-1. */
tt_val_t tt_ew_erf(tt_graph_t *g, tt_val_t x) {
  if (x < 0) return -1;
  tt_dtype_t dt = tt_graph_type(g, x)->dtype, ct = tt_op_math_type(dt);
  tt_val_t xc = tt_b_convert(g, x, ct);
  tt_val_t y = tt_b_unary(g, TT_UN_ERF, xc);
  if (ct == TT_F32) {
    tt_val_t far = tt_b_compare(g, TT_CMP_GE, tt_b_unary(g, TT_UN_ABS, xc), tt_b_like_f(g, xc, TT_ERF_F32_SATURATES));
    y = tt_b_select(g, far, tt_b_unary(g, TT_UN_SIGN, xc), y);
  }
  return tt_b_convert(g, y, dt);
}

tt_val_t tt_ew_scalar_like(tt_lower_t *L, int i, tt_val_t x) {
  if (x < 0) return -1;
  const tt_type_t *t = tt_graph_type(L->g, x);
  tt_type_t ty = *t;
  return tt_op_fit(L, tt_l_scalar_arg(L, i, ty.dtype), ty.dtype, ty.rank, ty.dims);
}

/* ---- Unary math ---- */

/* Functions computed in floating point: integer and bool inputs give
 * float32; bf16/f16 compute in f32 and round once, as PyTorch's CPU does. */
static tt_status_t unary_float(tt_lower_t *L, tt_unary_t op) {
  tt_dtype_t out = tt_op_float_type(L, tt_l_arg_dtype(L, 0));
  tt_val_t x = tt_b_convert(L->g, tt_l_tensor(L, 0), tt_op_math_type(out));
  tt_l_output(L, tt_b_convert(L->g, tt_b_unary(L->g, op, x), out));
  return NULL;
}
static tt_status_t lower_exp(tt_lower_t *L) { return unary_float(L, TT_UN_EXP); }
static tt_status_t lower_expm1(tt_lower_t *L) { return unary_float(L, TT_UN_EXPM1); }
static tt_status_t lower_log(tt_lower_t *L) { return unary_float(L, TT_UN_LOG); }
static tt_status_t lower_log1p(tt_lower_t *L) { return unary_float(L, TT_UN_LOG1P); }
static tt_status_t lower_sqrt(tt_lower_t *L) { return unary_float(L, TT_UN_SQRT); }
static tt_status_t lower_rsqrt(tt_lower_t *L) { return unary_float(L, TT_UN_RSQRT); }
static tt_status_t lower_sin(tt_lower_t *L) { return unary_float(L, TT_UN_SIN); }
static tt_status_t lower_cos(tt_lower_t *L) { return unary_float(L, TT_UN_COS); }
static tt_status_t lower_tan(tt_lower_t *L) { return unary_float(L, TT_UN_TAN); }
static tt_status_t lower_tanh(tt_lower_t *L) { return unary_float(L, TT_UN_TANH); }
static tt_status_t lower_sigmoid(tt_lower_t *L) { return unary_float(L, TT_UN_LOGISTIC); }

/* f(x) in opmath for the log2/log10/exp2/reciprocal/erf family. */
static tt_status_t unary_float_fn(tt_lower_t *L, tt_val_t (*fn)(tt_graph_t *, tt_val_t)) {
  tt_dtype_t out = tt_op_float_type(L, tt_l_arg_dtype(L, 0));
  tt_val_t x = tt_b_convert(L->g, tt_l_tensor(L, 0), tt_op_math_type(out));
  tt_l_output(L, tt_b_convert(L->g, fn(L->g, x), out));
  return NULL;
}
static tt_val_t f_reciprocal(tt_graph_t *g, tt_val_t x) { return tt_b_binary(g, TT_BIN_DIV, tt_b_like_f(g, x, 1.0), x); }
static tt_val_t f_log2(tt_graph_t *g, tt_val_t x) { return tt_b_binary(g, TT_BIN_DIV, tt_b_unary(g, TT_UN_LOG, x), tt_b_like_f(g, x, 0.69314718055994531)); }
static tt_val_t f_log10(tt_graph_t *g, tt_val_t x) { return tt_b_binary(g, TT_BIN_DIV, tt_b_unary(g, TT_UN_LOG, x), tt_b_like_f(g, x, 2.3025850929940457)); }
static tt_val_t f_exp2(tt_graph_t *g, tt_val_t x) { return tt_b_binary(g, TT_BIN_POW, tt_b_like_f(g, x, 2.0), x); }
static tt_status_t lower_reciprocal(tt_lower_t *L) { return unary_float_fn(L, f_reciprocal); }
static tt_status_t lower_log2(tt_lower_t *L) { return unary_float_fn(L, f_log2); }
static tt_status_t lower_log10(tt_lower_t *L) { return unary_float_fn(L, f_log10); }
static tt_status_t lower_exp2(tt_lower_t *L) { return unary_float_fn(L, f_exp2); }
static tt_status_t lower_erf(tt_lower_t *L) { return unary_float_fn(L, tt_ew_erf); }

static tt_status_t lower_neg(tt_lower_t *L) {
  if (tt_l_arg_dtype(L, 0) == TT_BOOL)
    return tt_status_make(TT_INVALID_ARGUMENT, "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  tt_l_output(L, tt_b_unary(L->g, TT_UN_NEG, tt_l_tensor(L, 0)));
  return NULL;
}

static tt_status_t lower_abs(tt_lower_t *L) {
  if (tt_l_arg_dtype(L, 0) == TT_BOOL) return tt_op_refuse_dtype(TT_BOOL, "abs_cpu");
  tt_l_output(L, tt_b_unary(L->g, TT_UN_ABS, tt_l_tensor(L, 0)));
  return NULL;
}

/* sign/sgn: bool is its own sign; NaN gives 0 as on PyTorch's CPU. */
static tt_status_t lower_sign(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  tt_val_t x = tt_l_tensor(L, 0);
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (dt == TT_BOOL) { tt_l_output(L, x); return NULL; }
  tt_val_t s = tt_b_unary(g, TT_UN_SIGN, x);
  if (tt_dtype_is_float(dt)) s = tt_b_select(g, is_nan(g, x), tt_b_like_f(g, x, 0), s);
  tt_l_output(L, s);
  return NULL;
}

/* Rounding functions are the identity on integers. */
static tt_val_t round_float(tt_graph_t *g, tt_val_t x, int mode) {
  switch (mode) {
    case 0: return tt_b_unary(g, TT_UN_FLOOR, x);
    case 1: return tt_b_unary(g, TT_UN_CEIL, x);
    case 2: return tt_b_unary(g, TT_UN_ROUND_EVEN, x);
    default: /* trunc: toward zero */
      return tt_b_select(g, tt_b_compare(g, TT_CMP_LT, x, tt_b_like_f(g, x, 0)), tt_b_unary(g, TT_UN_CEIL, x),
                         tt_b_unary(g, TT_UN_FLOOR, x));
  }
}
static tt_status_t rounding(tt_lower_t *L, int mode) {
  static const char *const names[] = {"floor", "ceil", "round", "trunc"};
  if (tt_l_arg_dtype(L, 0) == TT_BOOL) /* CPU has no bool kernel for these */
    return tt_op_refuse_dtype(TT_BOOL, "%s_vml_cpu", names[mode]);
  tt_val_t x = tt_l_tensor(L, 0);
  tt_l_output(L, tt_dtype_is_float(tt_l_arg_dtype(L, 0)) ? round_float(L->g, x, mode) : x);
  return NULL;
}
static tt_status_t lower_floor(tt_lower_t *L) { return rounding(L, 0); }
static tt_status_t lower_ceil(tt_lower_t *L) { return rounding(L, 1); }
static tt_status_t lower_round(tt_lower_t *L) { return rounding(L, 2); }
static tt_status_t lower_trunc(tt_lower_t *L) { return rounding(L, 3); }

/* round.decimals: nearbyint(x * 10^d) / 10^d (d < 0: x / 10^-d, then times), in opmath. */
static tt_status_t lower_round_decimals(tt_lower_t *L) {
  int64_t d = tt_l_int(L, 1, 0);
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  tt_val_t x = tt_l_tensor(L, 0);
  if (!tt_dtype_is_float(dt) || d == 0) return rounding(L, 2);
  tt_graph_t *g = L->g;
  x = tt_b_convert(g, x, tt_op_math_type(dt));
  double p = 1;
  for (int64_t k = 0; k < (d < 0 ? -d : d); k++) p *= 10;
  tt_val_t ten = tt_b_like_f(g, x, p);
  tt_val_t r = d > 0 ? tt_b_binary(g, TT_BIN_DIV, tt_b_unary(g, TT_UN_ROUND_EVEN, tt_b_binary(g, TT_BIN_MUL, x, ten)), ten)
                     : tt_b_binary(g, TT_BIN_MUL, tt_b_unary(g, TT_UN_ROUND_EVEN, tt_b_binary(g, TT_BIN_DIV, x, ten)), ten);
  tt_l_output(L, tt_b_convert(g, r, dt));
  return NULL;
}

/* ---- pow ---- */

/* Integer powers with negative exponents: 1 and -1 keep their power, the
 * rest truncate to 0 (PyTorch's integer pow). */
/* Integer x ** e as CPU's powi: squaring over every bit of the exponent,
 * wrapping like the type's multiplication. (StableHLO's integer power, as
 * XLA lowers it, squares over the exponent's low 6 bits only: 2 ** 64 gave 1.)
 * A negative exponent (tensor exponents; numbers are refused before) gives
 * CPU's 1 / x in integers: 1 for 1, +-1 for -1, else 0. */
static tt_val_t int_pow(tt_graph_t *g, tt_val_t b, tt_val_t e) {
  tt_dtype_t dt = tt_graph_type(g, b)->dtype;
  int bits = 8 * (int)tt_dtype_size(dt);
  tt_val_t one = tt_b_like_f(g, b, 1), r = one, base = b, ex = e;
  for (int i = 0; i < bits; i++) {
    tt_val_t odd = tt_b_compare(g, TT_CMP_NE, tt_b_binary(g, TT_BIN_AND, ex, tt_b_like_f(g, ex, 1)), tt_b_like_f(g, ex, 0));
    r = tt_b_select(g, odd, tt_b_binary(g, TT_BIN_MUL, r, base), r);
    if (i + 1 < bits) {
      base = tt_b_binary(g, TT_BIN_MUL, base, base);
      ex = tt_b_binary(g, TT_BIN_SHR_L, ex, tt_b_like_f(g, ex, 1));
    }
  }
  if (tt_dtype_is_unsigned(dt)) return r; /* never negative (and -1 is no uint8 constant) */
  tt_val_t zero = tt_b_like_f(g, b, 0), m1 = tt_b_like_f(g, b, -1);
  tt_val_t odd = tt_b_compare(g, TT_CMP_NE, tt_b_binary(g, TT_BIN_REM, e, tt_b_like_f(g, e, 2)), zero);
  tt_val_t rneg = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, b, one), one,
                              tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, b, m1), tt_b_select(g, odd, m1, one), zero));
  return tt_b_select(g, tt_b_compare(g, TT_CMP_LT, e, zero), rneg, r);
}

static tt_status_t pow_common(tt_lower_t *L) {
  binop_t p;
  if (!prepare2(L, 0, 1, TT_DTYPE_INVALID, &p)) return NULL;
  tt_graph_t *g = L->g;
  if (p.result == TT_BOOL && L->args[1].kind == TT_ARG_BOOL) {
    /* CPU special-cases these exponents before its kernel: x ** True copies, x ** False is all ones. */
    tt_l_output(L, L->args[1].i ? p.x : tt_b_like_f(g, p.x, 1));
    return NULL;
  }
  if (p.result == TT_BOOL) return tt_op_refuse_dtype(TT_BOOL, "pow");
  /* a number exponent of an integral, float16 or bfloat16 tensor:
   * exp.to<scalar_t>(), CPU's checked conversion (float32/float64 take it
   * as a double, unchecked) */
  int checked = !tt_dtype_is_float(p.result) || p.result == TT_F16 || p.result == TT_BF16;
  if (checked && L->args[0].kind == TT_ARG_TENSOR && L->args[1].kind != TT_ARG_TENSOR &&
      !tt_op_check_scalar_fits(L, 1, p.result))
    return NULL;
  if (!tt_dtype_is_float(p.result)) {
    tt_l_output(L, int_pow(g, p.x, p.y));
    return NULL;
  }
  /* PyTorch's CPU kernel special-cases these exponents, computing in the
   * tensor's own type (bf16/f16 round after each multiply): match it. */
  const tt_arg_t *e = &L->args[1];
  double ev = e->kind == TT_ARG_FLOAT ? e->f : e->kind == TT_ARG_INT ? (double)e->i : 0.0;
  int special = (e->kind == TT_ARG_FLOAT || e->kind == TT_ARG_INT) && L->args[0].kind == TT_ARG_TENSOR;
  tt_val_t x = p.x, r;
  if (special && ev == 2.0) r = tt_b_binary(g, TT_BIN_MUL, x, x);
  else if (special && ev == 3.0) r = tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_MUL, x, x), x);
  else if (special && ev == -1.0) r = tt_b_binary(g, TT_BIN_DIV, tt_b_like_f(g, x, 1), x);
  else if (special && ev == -2.0) r = tt_b_binary(g, TT_BIN_DIV, tt_b_like_f(g, x, 1), tt_b_binary(g, TT_BIN_MUL, x, x));
  else if (special && ev == 0.5) r = tt_b_unary(g, TT_UN_SQRT, x);
  else if (special && ev == -0.5) r = tt_b_unary(g, TT_UN_RSQRT, x);
  else {
    tt_dtype_t ct = tt_op_math_type(p.result);
    r = tt_b_binary(g, TT_BIN_POW, tt_b_convert(g, x, ct), tt_b_convert(g, p.y, ct));
  }
  tt_l_output(L, tt_b_convert(g, r, p.result));
  return NULL;
}

static tt_status_t lower_pow_tensor_scalar(tt_lower_t *L) {
  int argi[2] = {0, 1};
  tt_dtype_t rt = tt_op_result_type(L, argi, 2);
  const tt_arg_t *e = &L->args[1];
  if (!tt_dtype_is_float(rt) && e->kind == TT_ARG_INT && e->i < 0)
    return tt_status_make(TT_INVALID_ARGUMENT, "Integers to negative integer powers are not allowed.");
  return pow_common(L);
}
static tt_status_t lower_pow(tt_lower_t *L) { return pow_common(L); }

/* ---- Selection, clamping, filling ---- */

static tt_status_t lower_where(tt_lower_t *L) {
  tt_dtype_t cd = tt_op_arg_dtype(L, 0);
  if (cd != TT_BOOL && cd != TT_U8)
    return tt_status_make(TT_INVALID_ARGUMENT, "where expected condition to be a boolean tensor, but got a tensor with dtype %s", tt_op_type_name(cd));
  int vi[2] = {1, 2}, all[3] = {0, 1, 2};
  tt_dtype_t rt = tt_op_result_type(L, vi, 2);
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, all, 3, dims);
  tt_val_t c = tt_op_operand(L, 0, cd, rank, dims);
  if (cd != TT_BOOL) c = tt_b_compare(L->g, TT_CMP_NE, c, tt_b_like_f(L->g, c, 0));
  tt_l_output(L, tt_b_select(L->g, c, tt_op_operand(L, 1, rt, rank, dims), tt_op_operand(L, 2, rt, rank, dims)));
  return NULL;
}

static tt_status_t minmax_op(tt_lower_t *L, int is_max) {
  binop_t p;
  if (!prepare2(L, 0, 1, TT_DTYPE_INVALID, &p)) return NULL;
  tt_l_output(L, minmax(L->g, p.x, p.y, is_max));
  return NULL;
}
static tt_status_t lower_maximum(tt_lower_t *L) { return minmax_op(L, 1); }
static tt_status_t lower_minimum(tt_lower_t *L) { return minmax_op(L, 0); }

/* clamp(x, lo, hi) = min(max(x, lo), hi) with NaN propagation; bounds
 * arguments lo_i/hi_i (-1: absent) take part in type promotion. */
static tt_status_t clamp_args(tt_lower_t *L, int lo_i, int hi_i) {
  int argi[3] = {0, lo_i, hi_i};
  int has_lo = lo_i >= 0 && !tt_l_is_none(L, lo_i), has_hi = hi_i >= 0 && !tt_l_is_none(L, hi_i);
  if (!has_lo && !has_hi) return tt_status_make(TT_INVALID_ARGUMENT, "torch.clamp: At least one of 'min' or 'max' must not be None");
  tt_dtype_t rt = tt_op_result_type(L, argi, 3);
  if (rt == TT_BOOL) {
    /* CPU computes a bool clamp only through maximum/minimum (one tensor
     * bound); its clamp and scalar-bound kernels have no bool case. */
    int one = has_lo ? lo_i : hi_i;
    if (has_lo && has_hi)
      return tt_op_refuse_dtype(TT_BOOL, "clamp_cpu");
    /* a 0-dim CPU tensor bound is a tensor bound there too (fuzz 155:104) */
    if (L->args[one].kind != TT_ARG_TENSOR)
      return tt_op_refuse_dtype(TT_BOOL, "%s_scalar_cpu", has_lo ? "clamp_min" : "clamp_max");
  }
  /* number bounds convert to the result type with CPU's overflow check;
   * with two number bounds one of which is NaN, CPU fills NaN before any
   * conversion (clamp(x, 1e300, nan) is all NaN, fuzz 170:369), which the
   * NaN-propagating max/min below give */
  int both_numbers = has_lo && has_hi && L->args[lo_i].kind != TT_ARG_TENSOR && L->args[hi_i].kind != TT_ARG_TENSOR;
  int nan_bound = both_numbers && ((L->args[lo_i].kind == TT_ARG_FLOAT && L->args[lo_i].f != L->args[lo_i].f) ||
                                   (L->args[hi_i].kind == TT_ARG_FLOAT && L->args[hi_i].f != L->args[hi_i].f));
  if (!nan_bound && ((has_lo && L->args[lo_i].kind != TT_ARG_TENSOR && !tt_op_check_scalar_fits(L, lo_i, rt)) ||
                     (has_hi && L->args[hi_i].kind != TT_ARG_TENSOR && !tt_op_check_scalar_fits(L, hi_i, rt))))
    return NULL;
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 3, dims);
  tt_val_t x = tt_op_operand(L, 0, rt, rank, dims);
  if (has_lo) x = tt_ew_max(L->g, x, tt_op_operand(L, lo_i, rt, rank, dims));
  if (has_hi) x = tt_ew_min(L->g, x, tt_op_operand(L, hi_i, rt, rank, dims));
  tt_l_output(L, x);
  return NULL;
}
static tt_status_t lower_clamp(tt_lower_t *L) { return clamp_args(L, 1, 2); }
static tt_status_t lower_clamp_min(tt_lower_t *L) { return clamp_args(L, 1, -1); }
static tt_status_t lower_clamp_max(tt_lower_t *L) { return clamp_args(L, -1, 1); }

static tt_status_t lower_masked_fill(tt_lower_t *L) {
  tt_dtype_t md = tt_l_arg_dtype(L, 1);
  if (md != TT_BOOL)
    return tt_status_make(TT_INVALID_ARGUMENT, "masked_fill_ only supports boolean masks, but got mask with dtype %s",
                          md == TT_I64 ? "long int" : md == TT_U8 ? "unsigned char" : tt_dtype_name(md));
  const tt_tensor_ref_t *v = tt_l_ref(L, 2);
  if (v && v->view.rank != 0)
    return tt_status_make(TT_INVALID_ARGUMENT, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).", v->view.rank);
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_op_check_value_fits(L, 2, dt)) return NULL;
  int argi[2] = {0, 1};
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 2, dims);
  tt_val_t x = tt_op_operand(L, 0, dt, rank, dims);
  tt_val_t m = tt_op_operand(L, 1, TT_BOOL, rank, dims);
  const tt_tensor_ref_t *self = tt_l_ref(L, 0);
  if (!strncmp(L->op, "masked_fill_", 12) && self && tt_view_has_internal_overlap(&self->view)) {
    /* An expanded self: CPU warns and fills every element that some alias
     * of it selects (its loop writes the value through each alias). */
    int64_t bdims[TT_MAX_RANK];
    int nb = tt_op_expanded_dims(self, bdims);
    if (nb > 0 && rank == self->view.rank) {
      m = tt_op_alias_reduce(L, TT_RED_OR, m, rank, dims, nb, bdims);
      L->warning = "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before performing "
                   "this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar";
    }
  }
  tt_val_t fill = tt_op_complex_fill(L, 2, dt);
  if (tt_graph_failed(L->g)) return NULL;
  fill = fill >= 0 ? tt_b_broadcast(L->g, fill, rank, dims, NULL) : tt_op_operand(L, 2, dt, rank, dims);
  tt_l_output(L, tt_b_select(L->g, m, fill, x));
  return NULL;
}

/* ---- Logical and bitwise ---- */

static tt_val_t truthy(tt_graph_t *g, tt_val_t v) {
  if (v < 0) return -1;
  if (tt_graph_type(g, v)->dtype == TT_BOOL) return v;
  return tt_b_compare(g, TT_CMP_NE, v, tt_b_like_f(g, v, 0));
}

/* logical_and/or/xor: CPU's kernel reads both operands in their common
 * dtype before the nonzero test (fuzz 461:89: an int64 0-dim -2^63 with an
 * int16 tensor is 0 in int16, so logical_and is False; tested in its own
 * dtype it was True). */
static tt_status_t logical(tt_lower_t *L, tt_binary_t op, const char *kernel) {
  int argi[2] = {0, 1};
  /* a complex32 common type (float16 beside a complex number or 0-dim
   * tensor) has no CPU kernel: its refusal (fuzz 532:1063: float16
   * logical_xor_ with a 0-dim complex128) */
  int complex32 = 0;
  tt_op_result_type_of(L->args, L->nargs, argi, 2, L->default_float, &complex32);
  if (complex32) return tt_op_refuse_type_named("ComplexHalf", "%s", kernel);
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 2, dims);
  tt_dtype_t common = tt_op_result_type(L, argi, 2);
  if (tt_graph_failed(L->g)) return NULL;
  tt_val_t x = truthy(L->g, tt_op_operand(L, 0, common, rank, dims));
  tt_val_t y = truthy(L->g, tt_op_operand(L, 1, common, rank, dims));
  tt_l_output(L, tt_b_binary(L->g, op, x, y));
  return NULL;
}
static tt_status_t lower_logical_and(tt_lower_t *L) { return logical(L, TT_BIN_AND, "logical_and_cpu"); }
static tt_status_t lower_logical_or(tt_lower_t *L) { return logical(L, TT_BIN_OR, "logical_or_cpu"); }
static tt_status_t lower_logical_xor(tt_lower_t *L) { return logical(L, TT_BIN_XOR, "logical_xor_cpu"); }
static tt_status_t lower_logical_not(tt_lower_t *L) {
  tt_l_output(L, tt_b_unary(L->g, TT_UN_NOT, truthy(L->g, tt_l_tensor(L, 0))));
  return NULL;
}

static tt_status_t bitwise(tt_lower_t *L, tt_binary_t op, const char *name) {
  binop_t p;
  if (!prepare2(L, 0, 1, TT_DTYPE_INVALID, &p)) return NULL;
  if (tt_dtype_is_float(p.result))
    return tt_op_refuse_result_dtype(L, p.result, "%s_cpu", name);
  tt_l_output(L, tt_b_binary(L->g, op, p.x, p.y));
  return NULL;
}
static tt_status_t lower_bitwise_and(tt_lower_t *L) { return bitwise(L, TT_BIN_AND, "bitwise_and"); }
static tt_status_t lower_bitwise_or(tt_lower_t *L) { return bitwise(L, TT_BIN_OR, "bitwise_or"); }
static tt_status_t lower_bitwise_xor(tt_lower_t *L) { return bitwise(L, TT_BIN_XOR, "bitwise_xor"); }
static tt_status_t lower_bitwise_not(tt_lower_t *L) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (tt_dtype_is_float(dt))
    return tt_op_refuse_dtype(dt, "bitwise_not_cpu");
  tt_l_output(L, tt_b_unary(L->g, TT_UN_NOT, tt_l_tensor(L, 0)));
  return NULL;
}

/* ---- Float classification ---- */

static tt_status_t classify(tt_lower_t *L, int which) {
  tt_graph_t *g = L->g;
  const tt_tensor_ref_t *r = tt_l_ref(L, 0);
  tt_val_t x = tt_l_tensor(L, 0);
  if (!r || x < 0) return NULL;
  if (!tt_dtype_is_float(r->dtype)) { /* integers are never NaN or infinite */
    tt_l_output(L, tt_b_full_i(g, TT_BOOL, r->view.rank, r->view.sizes, which == 2));
    return NULL;
  }
  tt_val_t v;
  if (which == 0) v = is_nan(g, x);
  else if (which == 1) v = tt_b_compare(g, TT_CMP_EQ, tt_b_unary(g, TT_UN_ABS, x), tt_b_like_f(g, x, 1.0 / 0.0));
  else if (which == 3) v = tt_b_compare(g, TT_CMP_EQ, x, tt_b_like_f(g, x, 1.0 / 0.0));
  else if (which == 4) v = tt_b_compare(g, TT_CMP_EQ, x, tt_b_like_f(g, x, -1.0 / 0.0));
  else v = tt_b_unary(g, TT_UN_IS_FINITE, x);
  tt_l_output(L, v);
  return NULL;
}
static tt_status_t lower_isnan(tt_lower_t *L) { return classify(L, 0); }
static tt_status_t lower_isinf(tt_lower_t *L) { return classify(L, 1); }
static tt_status_t lower_isfinite(tt_lower_t *L) { return classify(L, 2); }
static tt_status_t lower_isposinf(tt_lower_t *L) { return classify(L, 3); }
static tt_status_t lower_isneginf(tt_lower_t *L) { return classify(L, 4); }

/* nan_to_num of a floating x (one part of a complex value too: CPU replaces
 * in each part with the part type's limits): NaN -> arg 1 (0), +inf -> arg 2
 * (the type's max), -inf -> arg 3 (its lowest). */
tt_val_t tt_ew_nan_to_num(tt_lower_t *L, tt_val_t x) {
  tt_graph_t *g = L->g;
  if (x < 0) return x;
  tt_dtype_t dt = tt_graph_type(g, x)->dtype;
  double big = dt == TT_F16 ? 65504.0 : dt == TT_BF16 ? 3.3895313892515355e38 : dt == TT_F64 ? 1.7976931348623157e308 : 3.4028234663852886e38;
  tt_val_t nanv = tt_l_is_none(L, 1) ? tt_b_like_f(g, x, 0) : tt_ew_scalar_like(L, 1, x);
  tt_val_t pos = tt_l_is_none(L, 2) ? tt_b_like_f(g, x, big) : tt_ew_scalar_like(L, 2, x);
  tt_val_t neg = tt_l_is_none(L, 3) ? tt_b_like_f(g, x, -big) : tt_ew_scalar_like(L, 3, x);
  tt_val_t r = tt_b_select(g, is_nan(g, x), nanv, x);
  r = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, x, tt_b_like_f(g, x, 1.0 / 0.0)), pos, r);
  return tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, x, tt_b_like_f(g, x, -1.0 / 0.0)), neg, r);
}
static tt_status_t lower_nan_to_num(tt_lower_t *L) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  tt_val_t x = tt_l_tensor(L, 0);
  tt_l_output(L, tt_dtype_is_float(dt) ? tt_ew_nan_to_num(L, x) : x);
  return NULL;
}

/* ---- Remainders ---- */

/* fmod (C's, sign of x) or remainder (Python's, sign of y), in opmath. */
static tt_status_t rem_op(tt_lower_t *L, int python) {
  binop_t p;
  if (!prepare2(L, 0, 1, TT_DTYPE_INVALID, &p)) return NULL;
  tt_graph_t *g = L->g;
  if (p.result == TT_BOOL) return tt_op_refuse_dtype(TT_BOOL, "%s_cpu", python ? "remainder" : "fmod");
  if (!int_zero_div_check(L, p.result, p.y)) return NULL;
  tt_dtype_t ct = tt_op_math_type(p.result);
  tt_val_t x = tt_b_convert(g, p.x, ct), y = tt_b_convert(g, p.y, ct);
  tt_val_t r = tt_b_binary(g, TT_BIN_REM, x, y);
  if (python) {
    tt_val_t zero = tt_b_like_f(g, r, 0);
    tt_val_t fix = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_NE, r, zero),
                               tt_b_compare(g, TT_CMP_NE, tt_b_compare(g, TT_CMP_LT, r, zero), tt_b_compare(g, TT_CMP_LT, y, zero)));
    r = tt_b_select(g, fix, tt_b_binary(g, TT_BIN_ADD, r, y), r);
  }
  tt_l_output(L, tt_b_convert(g, r, p.result));
  return NULL;
}
static tt_status_t lower_remainder(tt_lower_t *L) { return rem_op(L, 1); }
static tt_status_t lower_fmod(tt_lower_t *L) { return rem_op(L, 0); }

/* ---- Optimizer arithmetic: lerp, addcmul, addcdiv ---- */

static tt_status_t check_same_dtype(tt_lower_t *L, int i, const char *what) {
  tt_dtype_t a = tt_l_arg_dtype(L, 0), b = tt_l_arg_dtype(L, i);
  if (b != TT_DTYPE_INVALID && b != a)
    return tt_status_make(TT_INVALID_ARGUMENT, "expected dtype %s for `%s` but got dtype %s", tt_op_typemeta_name(a), what,
                          tt_op_typemeta_name(b));
  return NULL;
}

/* PyTorch's two-sided form: |w| < 0.5 ? s + w (e - s) : e - (e - s)(1 - w)
 * (a complex w's modulus). */
static tt_val_t lerp_fn(tt_graph_t *g, tt_val_t s, tt_val_t e, tt_val_t w) {
  tt_val_t d = tt_b_binary(g, TT_BIN_SUB, e, s);
  tt_val_t lo = tt_b_binary(g, TT_BIN_ADD, s, tt_b_binary(g, TT_BIN_MUL, w, d));
  tt_val_t hi = tt_b_binary(g, TT_BIN_SUB, e, tt_b_binary(g, TT_BIN_MUL, d, tt_b_binary(g, TT_BIN_SUB, tt_b_like_f(g, w, 1), w)));
  tt_val_t aw = tt_b_unary(g, TT_UN_ABS, w);
  return tt_b_select(g, tt_b_compare(g, TT_CMP_LT, aw, tt_b_like_f(g, aw, 0.5)), lo, hi);
}

/* lerp.Scalar / lerp.Tensor. A 0-dim weight tensor is promoted with self
 * and end (CPU's lerp_Tensor meta: its dtype unchecked, the kernel chosen
 * by the common dtype; lerp(int8, int8, tensor(2.5)) is float32). */
static tt_status_t lower_lerp(tt_lower_t *L) {
  tt_status_t s = check_same_dtype(L, 1, "end");
  int w_tensor = L->args[2].kind == TT_ARG_TENSOR, promote = w_tensor && tt_l_arg_rank(L, 2) == 0;
  if (!s && w_tensor && !promote) s = check_same_dtype(L, 2, "weight");
  if (s) return s;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (promote) {
    int argi[3] = {0, 1, 2};
    dt = tt_op_result_type(L, argi, 3);
    if (tt_graph_failed(L->g)) return NULL;
  }
  if (!tt_dtype_is_float(dt) && !tt_dtype_is_complex(dt)) /* CPU's two kernels: lerp.Scalar's and lerp.Tensor's */
    return tt_op_refuse_dtype(dt, L->args[2].kind == TT_ARG_TENSOR ? "lerp_kernel_tensor" : "lerp_kernel_scalar");
  tt_dtype_t ct = tt_op_math_type(dt);
  if (L->args[2].kind == TT_ARG_COMPLEX && !tt_op_check_scalar_fits(L, 2, ct)) return NULL; /* weight.to<opmath_t>() */
  int argi[3] = {0, 1, 2};
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 3, dims);
  tt_val_t w = tt_op_operand(L, 2, promote ? dt : ct, rank, dims); /* a promoted weight rounds to the common dtype first */
  tt_val_t r = lerp_fn(L->g, tt_op_operand(L, 0, ct, rank, dims), tt_op_operand(L, 1, ct, rank, dims), tt_b_convert(L->g, w, ct));
  tt_l_output(L, tt_b_convert(L->g, r, dt));
  return NULL;
}

/* self + value * t1 (* or /) t2, in opmath, rounded once. */
static tt_status_t addc(tt_lower_t *L, tt_binary_t op) {
  int argi[3] = {0, 1, 2};
  tt_dtype_t rt = tt_op_result_type(L, argi, 3);
  if (op == TT_BIN_DIV && !tt_dtype_is_float(rt) && !tt_dtype_is_complex(rt))
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.");
  if (op == TT_BIN_MUL && rt == TT_BOOL)
    return tt_op_refuse_dtype(TT_BOOL, "addcmul_cpu_out");
  tt_dtype_t ct = tt_op_math_type(rt);
  if (!tt_op_check_scalar_fits(L, 3, ct)) return NULL; /* value.to<opmath_t>() */
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 3, dims);
  tt_graph_t *g = L->g;
  /* tensors of another dtype cast to the result type first (TensorIterator) */
  tt_val_t s = tt_op_operand_via(L, 0, rt, ct, rank, dims), a = tt_op_operand_via(L, 1, rt, ct, rank, dims),
           b = tt_op_operand_via(L, 2, rt, ct, rank, dims);
  if (rt == TT_BOOL) op = op == TT_BIN_MUL ? TT_BIN_AND : op;
  tt_val_t v = tt_op_operand(L, 3, ct, rank, dims);
  tt_val_t r = tt_b_binary(g, op, rt == TT_BOOL ? tt_b_binary(g, TT_BIN_AND, v, a) : tt_b_binary(g, TT_BIN_MUL, v, a), b);
  r = tt_b_binary(g, rt == TT_BOOL ? TT_BIN_OR : TT_BIN_ADD, s, r);
  tt_l_output(L, tt_b_convert(g, r, rt));
  return NULL;
}
static tt_status_t lower_addcmul(tt_lower_t *L) { return addc(L, TT_BIN_MUL); }
static tt_status_t lower_addcdiv(tt_lower_t *L) { return addc(L, TT_BIN_DIV); }

/* ---- Inverse trigonometric, hyperbolic and other float functions ----
 * StableHLO has atan2, exp/expm1 and log/log1p; the rest are built from them
 * in opmath, choosing forms that keep precision near 0 and avoid overflow. */

#define LN2 0.69314718055994530942
static tt_val_t ew_add(tt_graph_t *g, tt_val_t x, tt_val_t y) { return tt_b_binary(g, TT_BIN_ADD, x, y); }
static tt_val_t ew_sub(tt_graph_t *g, tt_val_t x, tt_val_t y) { return tt_b_binary(g, TT_BIN_SUB, x, y); }
static tt_val_t ew_mul(tt_graph_t *g, tt_val_t x, tt_val_t y) { return tt_b_binary(g, TT_BIN_MUL, x, y); }
static tt_val_t ew_div(tt_graph_t *g, tt_val_t x, tt_val_t y) { return tt_b_binary(g, TT_BIN_DIV, x, y); }
static tt_val_t ew_c(tt_graph_t *g, tt_val_t like, double v) { return tt_b_like_f(g, like, v); }
static tt_val_t ew_lt(tt_graph_t *g, tt_val_t x, double v) { return tt_b_compare(g, TT_CMP_LT, x, tt_b_like_f(g, x, v)); }
/* sqrt((1 - x)(1 + x)) = sqrt(1 - x^2) without cancellation near |x| = 1. */
static tt_val_t one_minus_sq(tt_graph_t *g, tt_val_t x) {
  return tt_b_unary(g, TT_UN_SQRT, ew_mul(g, ew_sub(g, ew_c(g, x, 1), x), ew_add(g, ew_c(g, x, 1), x)));
}
static tt_val_t f_atan(tt_graph_t *g, tt_val_t x) { return tt_b_binary(g, TT_BIN_ATAN2, x, ew_c(g, x, 1)); }
static tt_val_t f_asin(tt_graph_t *g, tt_val_t x) { return tt_b_binary(g, TT_BIN_ATAN2, x, one_minus_sq(g, x)); }
static tt_val_t f_acos(tt_graph_t *g, tt_val_t x) { return tt_b_binary(g, TT_BIN_ATAN2, one_minus_sq(g, x), x); }
/* e^|x| / 2: exp(|x|) * 0.5 (exact halving) where exp(|x|) is finite;
 * exp(|x| - ln 2) only beyond, up to the largest finite cosh: the rounding
 * of |x| - ln 2 costs a relative ~|x| ulp (sinh(-9) was 4 float32 ulps off
 * CPU's, fuzz 109:429). */
static tt_val_t half_exp_abs(tt_graph_t *g, tt_val_t x) {
  tt_val_t a = tt_b_unary(g, TT_UN_ABS, x);
  tt_val_t near = ew_mul(g, tt_b_unary(g, TT_UN_EXP, a), ew_c(g, x, 0.5));
  tt_val_t far = tt_b_unary(g, TT_UN_EXP, ew_sub(g, a, ew_c(g, x, LN2)));
  double lim = tt_graph_type(g, x)->dtype == TT_F64 ? 709.0 : 88.0; /* exp(lim) finite */
  return tt_b_select(g, ew_lt(g, a, lim), near, far);
}
tt_val_t tt_ew_cosh(tt_graph_t *g, tt_val_t x) {
  tt_val_t e = half_exp_abs(g, x);
  return ew_add(g, e, ew_div(g, ew_c(g, x, 0.25), e));
}
/* |x| < 1: (expm1(x) - expm1(-x)) / 2; else sign(x) (e - 1/(4e)), e = e^|x|/2. */
tt_val_t tt_ew_sinh(tt_graph_t *g, tt_val_t x) {
  tt_val_t small = ew_mul(g, ew_c(g, x, 0.5), ew_sub(g, tt_b_unary(g, TT_UN_EXPM1, x), tt_b_unary(g, TT_UN_EXPM1, tt_b_unary(g, TT_UN_NEG, x))));
  tt_val_t e = half_exp_abs(g, x);
  tt_val_t big = ew_mul(g, tt_b_unary(g, TT_UN_SIGN, x), ew_sub(g, e, ew_div(g, ew_c(g, x, 0.25), e)));
  return tt_b_select(g, ew_lt(g, tt_b_unary(g, TT_UN_ABS, x), 1.0), small, big);
}
/* asinh: sign(x) log1p(a + a^2 / (1 + sqrt(1 + a^2))); huge a: log(a) + ln 2. */
static tt_val_t f_asinh(tt_graph_t *g, tt_val_t x) {
  tt_val_t a = tt_b_unary(g, TT_UN_ABS, x), a2 = ew_mul(g, a, a);
  tt_val_t r = tt_b_unary(g, TT_UN_LOG1P, ew_add(g, a, ew_div(g, a2, ew_add(g, ew_c(g, x, 1), tt_b_unary(g, TT_UN_SQRT, ew_add(g, ew_c(g, x, 1), a2))))));
  tt_val_t huge = ew_add(g, tt_b_unary(g, TT_UN_LOG, a), ew_c(g, x, LN2));
  r = tt_b_select(g, ew_lt(g, a, 1e8), r, huge);
  r = tt_b_select(g, ew_lt(g, x, 0), tt_b_unary(g, TT_UN_NEG, r), r);
  return tt_b_select(g, tt_b_compare(g, TT_CMP_NE, x, x), x, r);
}
/* acosh: log1p(t + sqrt(t (t + 2))), t = x - 1 (NaN below 1); huge x: log(x) + ln 2. */
static tt_val_t f_acosh(tt_graph_t *g, tt_val_t x) {
  tt_val_t t = ew_sub(g, x, ew_c(g, x, 1));
  tt_val_t r = tt_b_unary(g, TT_UN_LOG1P, ew_add(g, t, tt_b_unary(g, TT_UN_SQRT, ew_mul(g, t, ew_add(g, t, ew_c(g, x, 2))))));
  tt_val_t huge = ew_add(g, tt_b_unary(g, TT_UN_LOG, x), ew_c(g, x, LN2));
  r = tt_b_select(g, ew_lt(g, x, 1e8), r, huge);
  /* below 1 NaN by name: t + sqrt(t (t + 2)) cancels to -1 for x <= -1e8
   * (acosh(-1e8) was -inf in float64, 0 in float32) */
  return tt_b_select(g, ew_lt(g, x, 1.0), ew_c(g, x, 0.0 / 0.0), r);
}
/* atanh = sign(x) log1p(2a / (1 - a)) / 2, a = |x| (glibc's form): +-1 give
 * +-inf, |x| > 1 NaN. On x itself, 2x / (1 - x) next to -1 rounded 1 - x
 * first (atanh(-0.999999999999) was 4e-6 off in float64). */
static tt_val_t f_atanh(tt_graph_t *g, tt_val_t x) {
  tt_val_t a = tt_b_unary(g, TT_UN_ABS, x);
  tt_val_t q = ew_div(g, ew_add(g, a, a), ew_sub(g, ew_c(g, x, 1), a));
  tt_val_t r = ew_mul(g, ew_c(g, x, 0.5), tt_b_unary(g, TT_UN_LOG1P, q));
  return ew_mul(g, r, tt_b_unary(g, TT_UN_SIGN, x)); /* -0.0 keeps its sign, NaN stays NaN */
}
static tt_val_t f_deg2rad(tt_graph_t *g, tt_val_t x) { return ew_mul(g, x, ew_c(g, x, 0.017453292519943295)); }
static tt_val_t f_rad2deg(tt_graph_t *g, tt_val_t x) { return ew_mul(g, x, ew_c(g, x, 57.295779513082323)); }
static tt_status_t lower_atan(tt_lower_t *L) { return unary_float_fn(L, f_atan); }
static tt_status_t lower_asin(tt_lower_t *L) { return unary_float_fn(L, f_asin); }
static tt_status_t lower_acos(tt_lower_t *L) { return unary_float_fn(L, f_acos); }
static tt_status_t lower_sinh(tt_lower_t *L) { return unary_float_fn(L, tt_ew_sinh); }
static tt_status_t lower_cosh(tt_lower_t *L) { return unary_float_fn(L, tt_ew_cosh); }
static tt_status_t lower_asinh(tt_lower_t *L) { return unary_float_fn(L, f_asinh); }
static tt_status_t lower_acosh(tt_lower_t *L) { return unary_float_fn(L, f_acosh); }
static tt_status_t lower_atanh(tt_lower_t *L) { return unary_float_fn(L, f_atanh); }
static tt_status_t lower_deg2rad(tt_lower_t *L) { return unary_float_fn(L, f_deg2rad); }
static tt_status_t lower_rad2deg(tt_lower_t *L) { return unary_float_fn(L, f_rad2deg); }

/* frac = x - trunc(x); floating types only, as on CPU. */
static tt_status_t lower_frac(tt_lower_t *L) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_float(dt)) return tt_op_refuse_dtype(dt, "frac_cpu");
  tt_graph_t *g = L->g;
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), tt_op_math_type(dt));
  tt_l_output(L, tt_b_convert(g, ew_sub(g, x, round_float(g, x, 3)), dt));
  return NULL;
}

/* Sign bit of a float without bit casts: x < 0, or x == -0.0 (1/x = -inf). */
static tt_val_t sign_bit(tt_graph_t *g, tt_val_t x) {
  tt_dtype_t dt = tt_graph_type(g, x)->dtype;
  if (dt == TT_BOOL) return tt_b_compare(g, TT_CMP_NE, x, x);
  if (!tt_dtype_is_float(dt)) return ew_lt(g, x, 0);
  /* The bit itself, as CPU's std::signbit: set for -0.0 and for a NaN with
   * its sign bit set (-nan), which no comparison can see. */
  tt_dtype_t bits = tt_dtype_size(dt) == 8 ? TT_I64 : tt_dtype_size(dt) == 4 ? TT_I32 : TT_I16;
  return ew_lt(g, tt_b_bitcast(g, x, bits), 0);
}
static tt_status_t lower_signbit(tt_lower_t *L) {
  tt_l_output(L, sign_bit(L->g, tt_l_tensor(L, 0)));
  return NULL;
}

/* ---- Binary float functions (result promoted to a floating type) ---- */

static tt_status_t binary_float(tt_lower_t *L, tt_val_t (*fn)(tt_graph_t *, tt_val_t, tt_val_t)) {
  int argi[2] = {0, 1};
  tt_dtype_t out = tt_op_float_type(L, tt_op_result_type(L, argi, 2));
  binop_t p;
  if (!prepare2(L, 0, 1, tt_op_math_type(out), &p)) return NULL;
  tt_l_output(L, tt_b_convert(L->g, fn(L->g, p.x, p.y), out));
  return NULL;
}
static tt_val_t f_atan2(tt_graph_t *g, tt_val_t x, tt_val_t y) { return tt_b_binary(g, TT_BIN_ATAN2, x, y); }
tt_val_t tt_ew_hypot(tt_graph_t *g, tt_val_t x, tt_val_t y) {
  tt_val_t ax = tt_b_unary(g, TT_UN_ABS, x), ay = tt_b_unary(g, TT_UN_ABS, y);
  tt_val_t m = tt_b_binary(g, TT_BIN_MAX, ax, ay), n = tt_b_binary(g, TT_BIN_MIN, ax, ay);
  tt_val_t q = ew_div(g, n, m);
  tt_val_t r = ew_mul(g, m, tt_b_unary(g, TT_UN_SQRT, ew_add(g, ew_c(g, m, 1), ew_mul(g, q, q))));
  r = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, m, ew_c(g, m, 0)), m, r);
  r = tt_b_select(g, tt_b_binary(g, TT_BIN_OR, is_nan(g, x), is_nan(g, y)), ew_add(g, x, y), r);
  tt_val_t inf = tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_EQ, ax, ew_c(g, ax, 1.0 / 0.0)), tt_b_compare(g, TT_CMP_EQ, ay, ew_c(g, ay, 1.0 / 0.0)));
  return tt_b_select(g, inf, ew_c(g, m, 1.0 / 0.0), r);
}
static tt_val_t f_copysign(tt_graph_t *g, tt_val_t x, tt_val_t y) {
  tt_val_t ax = tt_b_unary(g, TT_UN_ABS, x);
  return tt_b_select(g, sign_bit(g, y), tt_b_unary(g, TT_UN_NEG, ax), ax);
}
/* PyTorch's logaddexp: equal infinities give themselves (not NaN). */
static tt_val_t logaddexp_base(tt_graph_t *g, tt_val_t x, tt_val_t y, int base2) {
  tt_val_t m = tt_ew_max(g, x, y);
  tt_val_t d = tt_b_unary(g, TT_UN_NEG, tt_b_unary(g, TT_UN_ABS, ew_sub(g, x, y)));
  tt_val_t r = base2 ? ew_add(g, m, ew_div(g, tt_b_unary(g, TT_UN_LOG1P, f_exp2(g, d)), ew_c(g, d, LN2)))
                     : ew_add(g, m, tt_b_unary(g, TT_UN_LOG1P, tt_b_unary(g, TT_UN_EXP, d)));
  tt_val_t same_inf = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_EQ, x, y),
                                  tt_b_compare(g, TT_CMP_EQ, tt_b_unary(g, TT_UN_ABS, x), ew_c(g, x, 1.0 / 0.0)));
  return tt_b_select(g, same_inf, x, r);
}
static tt_val_t f_logaddexp(tt_graph_t *g, tt_val_t x, tt_val_t y) { return logaddexp_base(g, x, y, 0); }
static tt_val_t f_logaddexp2(tt_graph_t *g, tt_val_t x, tt_val_t y) { return logaddexp_base(g, x, y, 1); }
/* xlogy: NaN y gives NaN, x == 0 gives 0, else x log(y) (xlog1py: log1p). */
static tt_val_t xlog_common(tt_graph_t *g, tt_val_t x, tt_val_t y, tt_unary_t lg) {
  /* the logarithm of a half-type y in float32, rounded to y's type as
   * CPU's is (XLA's own float16 log1p was off by an ulp of the result
   * type: log1p(7.043) 2.0859 for 2.0840) */
  tt_dtype_t yt = tt_graph_type(g, y)->dtype;
  tt_val_t l = yt == TT_F16 || yt == TT_BF16 ? tt_b_convert(g, tt_b_unary(g, lg, tt_b_convert(g, y, TT_F32)), yt)
                                             : tt_b_unary(g, lg, y);
  tt_val_t r = ew_mul(g, x, l);
  r = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, x, ew_c(g, x, 0)), ew_c(g, x, 0), r);
  return tt_b_select(g, is_nan(g, y), y, r);
}
static tt_val_t f_xlogy(tt_graph_t *g, tt_val_t x, tt_val_t y) { return xlog_common(g, x, y, TT_UN_LOG); }
static tt_val_t f_xlog1py(tt_graph_t *g, tt_val_t x, tt_val_t y) { return xlog_common(g, x, y, TT_UN_LOG1P); }
static tt_status_t lower_atan2(tt_lower_t *L) { return binary_float(L, f_atan2); }
/* CPU's kernels of these have no integral case (its result type is not
 * promoted to float as for atan2 or copysign): "hypot_cpu" not implemented
 * for 'Long'. */
static tt_status_t binary_float_kernel(tt_lower_t *L, const char *kernel, tt_val_t (*fn)(tt_graph_t *, tt_val_t, tt_val_t)) {
  int argi[2] = {0, 1};
  tt_dtype_t rt = tt_op_result_type(L, argi, 2);
  if (tt_dtype_is_int(rt) || rt == TT_BOOL)
    return tt_op_refuse_dtype(rt, "%s", kernel);
  return binary_float(L, fn);
}
static tt_status_t lower_hypot(tt_lower_t *L) { return binary_float_kernel(L, "hypot_cpu", tt_ew_hypot); }
static tt_status_t lower_copysign(tt_lower_t *L) { return binary_float(L, f_copysign); }
static tt_status_t lower_logaddexp(tt_lower_t *L) { return binary_float_kernel(L, "logaddexp_cpu", f_logaddexp); }
static tt_status_t lower_logaddexp2(tt_lower_t *L) { return binary_float_kernel(L, "logaddexp2_cpu", f_logaddexp2); }
/* PyTorch's CPU rounds the logarithm to the result type before multiplying
 * (bf16/f16 results differ by an ulp otherwise): compute in that type. */
static tt_status_t binary_float_own(tt_lower_t *L, tt_val_t (*fn)(tt_graph_t *, tt_val_t, tt_val_t)) {
  int argi[2] = {0, 1};
  tt_dtype_t out = tt_op_float_type(L, tt_op_result_type(L, argi, 2));
  binop_t p;
  if (!prepare2(L, 0, 1, out, &p)) return NULL;
  tt_l_output(L, fn(L->g, p.x, p.y));
  return NULL;
}
static tt_status_t lower_xlogy(tt_lower_t *L) { return binary_float_own(L, f_xlogy); }
/* xlog1py: CPU (torch 2.13) rounds log1p to the result type for float16
 * too (xlog1py(float16 257, 3) is 356.5 there, 257 * 1.3867; in float it
 * was 356.25), as for bfloat16. */
static tt_status_t lower_xlog1py(tt_lower_t *L) { return binary_float_own(L, f_xlog1py); }

/* 2**k for an int32 k within the normal exponents of the float type ft,
 * built from its bits (exact, where exp2 of a float may round). */
static tt_val_t pow2_int(tt_graph_t *g, tt_val_t k, tt_dtype_t ft) {
  int dbl = ft == TT_F64;
  tt_dtype_t it = dbl ? TT_I64 : TT_I32;
  tt_val_t ki = tt_b_convert(g, k, it);
  tt_val_t b = tt_b_binary(g, TT_BIN_ADD, ki, tt_b_like_f(g, ki, dbl ? 1023 : 127));
  return tt_b_bitcast(g, tt_b_binary(g, TT_BIN_SHL, b, tt_b_like_f(g, b, dbl ? 52 : 23)), ft);
}

/* ldexp(x, e): CPU's kernel computes std::ldexp(x, int(e)) for a floating x
 * and an integral e (int64 exponents wrap to int: 2**40 + 1 is 1), else
 * x * 2**e; the result type is the operands' promoted float type.
 * Without this lowering PyTorch's composite mul(x, pow(2, e)) ran, and
 * 2**e overflowed before the product: ldexp(0.0, 2049) was NaN (CPU 0),
 * ldexp(1e-30, 200) inf (CPU 1.6e30), ldexp(3, 2**40 + 1) inf (CPU 6).
 * The integral form is exact: e is clamped to where every result is 0 or
 * inf anyway and applied as three exact powers of two (the intermediate
 * products move monotonically toward the result, so none overflows or
 * leaves the normal range before it; a subnormal result is flushed to
 * zero by XLA's CPU plugin, README Dtypes). */
static tt_status_t lower_ldexp(tt_lower_t *L) {
  tt_dtype_t et = tt_op_arg_dtype(L, 1), xt = tt_op_arg_dtype(L, 0);
  /* CPU's kernel (a floating x) has no bool exponent; the composite below takes one */
  if (et == TT_BOOL && tt_dtype_is_float(xt)) return tt_op_refuse_dtype(TT_BOOL, "ldexp_cpu_exp");
  int argi[2] = {0, 1};
  tt_dtype_t out = tt_op_float_type(L, tt_op_result_type(L, argi, 2));
  if (!tt_dtype_is_float(out)) return tt_op_refuse_dtype(out, "ldexp_cpu");
  tt_dtype_t ct = tt_op_math_type(out);
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 2, dims);
  tt_graph_t *g = L->g;
  tt_val_t x = tt_op_operand_via(L, 0, out, ct, rank, dims);
  if (tt_dtype_is_float(et) || !tt_dtype_is_float(xt)) {
    /* CPU's kernel takes a floating x and an integral e only; otherwise
     * the composite mul(x, pow(2.0, e)): the power rounded to its own type
     * (e's floating type, else the default float) before the product
     * (bfloat16 -7.9375 * 2**3.609375 is -96.5 on CPU, -97 rounded once),
     * and ldexp(0, 2049) is 0 * inf = NaN there */
    tt_dtype_t pt = tt_dtype_is_float(et) ? et : tt_op_default_float(L);
    tt_val_t p = f_exp2(g, tt_op_operand(L, 1, ct, rank, dims));
    p = tt_b_convert(g, tt_b_convert(g, p, pt), ct);
    tt_l_output(L, tt_b_convert(g, ew_mul(g, x, p), out));
    return NULL;
  }
  tt_val_t e = tt_op_operand(L, 1, TT_I32, rank, dims); /* int(e): int64 wraps */
  double lim = ct == TT_F64 ? 2200 : 300;
  e = tt_b_clamp(g, tt_b_like_f(g, e, -lim), e, tt_b_like_f(g, e, lim));
  tt_val_t e1 = tt_b_binary(g, TT_BIN_DIV, e, tt_b_like_f(g, e, 3));
  tt_val_t rest = tt_b_binary(g, TT_BIN_SUB, e, e1);
  tt_val_t e2 = tt_b_binary(g, TT_BIN_DIV, rest, tt_b_like_f(g, rest, 2));
  tt_val_t e3 = tt_b_binary(g, TT_BIN_SUB, rest, e2);
  tt_val_t r = ew_mul(g, ew_mul(g, ew_mul(g, x, pow2_int(g, e1, ct)), pow2_int(g, e2, ct)), pow2_int(g, e3, ct));
  tt_l_output(L, tt_b_convert(g, r, out));
  return NULL;
}

/* A complex x: x * 2**e as PyTorch's composite computed it before this
 * lowering (the power in the real part type, widened to complex). */
static tt_status_t lower_ldexp_complex(tt_lower_t *L) {
  int argi[2] = {0, 1};
  tt_dtype_t out = tt_op_result_type(L, argi, 2);
  if (!tt_dtype_is_complex(out)) out = tt_dtype_to_complex(tt_op_float_type(L, out));
  tt_dtype_t rt = tt_dtype_real_part(out);
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 2, dims);
  tt_graph_t *g = L->g;
  tt_val_t p = f_exp2(g, tt_op_operand(L, 1, rt, rank, dims));
  tt_l_output(L, tt_b_binary(g, TT_BIN_MUL, tt_op_operand(L, 0, out, rank, dims), tt_b_convert(g, p, out)));
  return NULL;
}

/* fmax/fmin: like maximum/minimum, but a NaN operand yields the other one. */
static tt_status_t fminmax(tt_lower_t *L, int is_max) {
  binop_t p;
  if (!prepare2(L, 0, 1, TT_DTYPE_INVALID, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t m = p.result == TT_BOOL ? tt_b_binary(g, is_max ? TT_BIN_OR : TT_BIN_AND, p.x, p.y)
                                   : tt_b_binary(g, is_max ? TT_BIN_MAX : TT_BIN_MIN, p.x, p.y);
  if (tt_dtype_is_float(p.result)) {
    m = tt_b_select(g, is_nan(g, p.x), p.y, m);
    m = tt_b_select(g, is_nan(g, p.y), p.x, m);
  }
  tt_l_output(L, m);
  return NULL;
}
static tt_status_t lower_fmax(tt_lower_t *L) { return fminmax(L, 1); }
static tt_status_t lower_fmin(tt_lower_t *L) { return fminmax(L, 0); }

/* heaviside(x, values) = x == 0 ? values : x > 0 (NaN gives 0, as on CPU). */
static tt_status_t lower_heaviside(tt_lower_t *L) {
  tt_dtype_t a = tt_op_arg_dtype(L, 0), b = tt_op_arg_dtype(L, 1);
  if (a != b) return tt_status_make(TT_INVALID_ARGUMENT, "heaviside is not yet implemented for tensors with different dtypes");
  binop_t p;
  if (!prepare2(L, 0, 1, TT_DTYPE_INVALID, &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t zero = ew_c(g, p.x, 0);
  tt_val_t pos = tt_b_convert(g, tt_b_compare(g, TT_CMP_GT, p.x, zero), p.result);
  tt_l_output(L, tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, p.x, zero), p.y, pos));
  return NULL;
}

/* logit(x, eps): log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps is given. */
static tt_status_t lower_logit(tt_lower_t *L) {
  tt_dtype_t out = tt_op_float_type(L, tt_l_arg_dtype(L, 0));
  tt_graph_t *g = L->g;
  /* CPU rounds x / (1 - x) to bf16 before the log; float16 stays in float. */
  tt_val_t x = tt_b_convert(g, tt_l_tensor(L, 0), out == TT_BF16 ? out : tt_op_math_type(out));
  if (!tt_l_is_none(L, 1)) {
    double eps = tt_l_float(L, 1, 0);
    x = tt_b_clamp(g, ew_c(g, x, eps), x, ew_c(g, x, 1 - eps));
  }
  tt_l_output(L, tt_b_convert(g, tt_b_unary(g, TT_UN_LOG, ew_div(g, x, ew_sub(g, ew_c(g, x, 1), x))), out));
  return NULL;
}

/* logit_backward(grad, self, eps): grad / (x (1 - x)); 0 outside [eps, 1 - eps]
 * with eps, NaN outside [0, 1] without. */
static tt_status_t lower_logit_backward(tt_lower_t *L) {
  binop_t p;
  int argi[2] = {0, 1};
  tt_dtype_t rt = tt_op_result_type(L, argi, 2);
  if (!prepare2(L, 0, 1, tt_op_math_type(rt), &p)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t x = p.y;
  tt_val_t r = ew_div(g, p.x, ew_mul(g, x, ew_sub(g, ew_c(g, x, 1), x)));
  double lo = 0, hi = 1;
  tt_val_t fill = ew_c(g, x, 0.0 / 0.0);
  if (!tt_l_is_none(L, 2)) { lo = tt_l_float(L, 2, 0); hi = 1 - lo; fill = ew_c(g, x, 0); }
  tt_val_t outside = tt_b_binary(g, TT_BIN_OR, ew_lt(g, x, lo), tt_b_compare(g, TT_CMP_GT, x, ew_c(g, x, hi)));
  tt_l_output(L, tt_b_convert(g, tt_b_select(g, outside, fill, r), rt));
  return NULL;
}

const tt_op_def_t tt_ops_elementwise[] = {
    {"add.Tensor", lower_add, 0, .complex = tt_complex_add},
    {"add.Scalar", lower_add, 0, .complex = tt_complex_add},
    {"add_.Tensor", lower_add, TT_OPF_INPLACE, .complex = tt_complex_add},
    {"add_.Scalar", lower_add, TT_OPF_INPLACE, .complex = tt_complex_add},
    {"sub.Tensor", lower_sub, 0, .complex = tt_complex_sub},
    {"sub.Scalar", lower_sub, 0, .complex = tt_complex_sub},
    {"sub_.Tensor", lower_sub, TT_OPF_INPLACE, .complex = tt_complex_sub},
    {"sub_.Scalar", lower_sub, TT_OPF_INPLACE, .complex = tt_complex_sub},
    {"rsub.Tensor", lower_rsub, 0, .complex = tt_complex_rsub, .layout = TT_LAYOUT_ITERATOR},
    {"rsub.Scalar", lower_rsub, 0, .complex = tt_complex_rsub, .layout = TT_LAYOUT_ITERATOR},
    {"mul.Tensor", lower_mul, 0, .complex = tt_complex_mul},
    {"mul.Scalar", lower_mul, 0, .complex = tt_complex_mul},
    {"mul_.Tensor", lower_mul, TT_OPF_INPLACE, .complex = tt_complex_mul},
    {"mul_.Scalar", lower_mul_scalar_, TT_OPF_INPLACE, .complex = tt_complex_mul},
    {"div.Tensor", lower_div, 0, .complex = tt_complex_div},
    {"div.Scalar", lower_div, 0, .complex = tt_complex_div},
    {"div.Tensor_mode", lower_div, 0},
    {"div.Scalar_mode", lower_div, 0},
    {"div_.Tensor", lower_div, TT_OPF_INPLACE, .complex = tt_complex_div},
    {"div_.Scalar", lower_div, TT_OPF_INPLACE, .complex = tt_complex_div},
    {"div_.Tensor_mode", lower_div, TT_OPF_INPLACE},
    {"floor_divide", lower_floor_divide, TT_OPF_UNORDERED, .layout = TT_LAYOUT_ITERATOR}, {"floor_divide_.Tensor", lower_floor_divide, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"floor_divide.Scalar", lower_floor_divide, TT_OPF_UNORDERED, .layout = TT_LAYOUT_ITERATOR}, {"floor_divide_.Scalar", lower_floor_divide, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"eq.Tensor", lower_eq, TT_OPF_COMPLEX}, {"eq.Scalar", lower_eq, TT_OPF_COMPLEX},
    {"ne.Tensor", lower_ne, TT_OPF_COMPLEX}, {"ne.Scalar", lower_ne, TT_OPF_COMPLEX},
    {"lt.Tensor", lower_lt, TT_OPF_UNORDERED}, {"lt.Scalar", lower_lt, TT_OPF_UNORDERED},
    {"le.Tensor", lower_le, TT_OPF_UNORDERED}, {"le.Scalar", lower_le, TT_OPF_UNORDERED},
    {"gt.Tensor", lower_gt, TT_OPF_UNORDERED}, {"gt.Scalar", lower_gt, TT_OPF_UNORDERED},
    {"ge.Tensor", lower_ge, TT_OPF_UNORDERED}, {"ge.Scalar", lower_ge, TT_OPF_UNORDERED},
#define EW_UNARY(name, fn) {name, fn, 0}, {name "_", fn, TT_OPF_INPLACE}
/* ... whose complex lowering is cfn, in both forms */
/* Complex inputs refused as CPU refuses them: no ordering (TT_OPF_UNORDERED). */
#define EW_UNARY_U(name, fn) {name, fn, TT_OPF_UNORDERED}, {name "_", fn, TT_OPF_INPLACE | TT_OPF_UNORDERED}
#define EW_UNARY_C(name, fn, cfn) {name, fn, 0, .complex = cfn}, {name "_", fn, TT_OPF_INPLACE, .complex = cfn}
/* ... whose real lowering is checked on complex values too, in both forms */
#define EW_UNARY_X(name, fn) {name, fn, TT_OPF_COMPLEX}, {name "_", fn, TT_OPF_INPLACE | TT_OPF_COMPLEX}
    EW_UNARY_C("neg", lower_neg, tt_complex_neg), {"abs", lower_abs, 0, .complex = tt_complex_abs}, /* abs_ stays refused: CPU refuses an in-place abs of complex values */
    {"abs_", lower_abs, TT_OPF_INPLACE},
    EW_UNARY_C("exp", lower_exp, tt_complex_exp), EW_UNARY_C("expm1", lower_expm1, tt_complex_expm1), EW_UNARY_C("exp2", lower_exp2, tt_complex_exp2),
    EW_UNARY_C("log", lower_log, tt_complex_log), EW_UNARY_C("log1p", lower_log1p, tt_complex_log1p), EW_UNARY_C("log2", lower_log2, tt_complex_log2),
    EW_UNARY_C("log10", lower_log10, tt_complex_log10), EW_UNARY_C("sqrt", lower_sqrt, tt_complex_sqrt), EW_UNARY_C("rsqrt", lower_rsqrt, tt_complex_rsqrt),
    EW_UNARY_C("reciprocal", lower_reciprocal, tt_complex_reciprocal), EW_UNARY_C("sin", lower_sin, tt_complex_sin), EW_UNARY_C("cos", lower_cos, tt_complex_cos),
    EW_UNARY_C("tan", lower_tan, tt_complex_tan), EW_UNARY_C("tanh", lower_tanh, tt_complex_tanh), EW_UNARY_C("sigmoid", lower_sigmoid, tt_complex_sigmoid),
    EW_UNARY_U("floor", lower_floor), EW_UNARY_U("ceil", lower_ceil), EW_UNARY_U("round", lower_round),
    EW_UNARY_U("trunc", lower_trunc), EW_UNARY("sign", lower_sign), EW_UNARY_C("sgn", lower_sign, tt_complex_sgn),
    EW_UNARY("erf", lower_erf),
    {"round.decimals", lower_round_decimals, TT_OPF_UNORDERED}, {"round_.decimals", lower_round_decimals, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"pow.Tensor_Scalar", lower_pow_tensor_scalar, 0, .complex = tt_complex_pow}, {"pow_.Scalar", lower_pow_tensor_scalar, TT_OPF_INPLACE, .complex = tt_complex_pow},
    {"pow.Tensor_Tensor", lower_pow, 0, .complex = tt_complex_pow}, {"pow_.Tensor", lower_pow, TT_OPF_INPLACE, .complex = tt_complex_pow},
    {"pow.Scalar", lower_pow, 0, .complex = tt_complex_pow},
    {"where.self", lower_where, TT_OPF_COMPLEX},
    {"maximum", lower_maximum, TT_OPF_UNORDERED_CHECK}, {"minimum", lower_minimum, TT_OPF_UNORDERED_CHECK},
    {"clamp", lower_clamp, TT_OPF_UNORDERED}, {"clamp_", lower_clamp, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"clamp.Tensor", lower_clamp, TT_OPF_UNORDERED}, {"clamp_.Tensor", lower_clamp, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"clamp_min", lower_clamp_min, TT_OPF_UNORDERED}, {"clamp_min_", lower_clamp_min, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"clamp_min.Tensor", lower_clamp_min, TT_OPF_UNORDERED}, {"clamp_min_.Tensor", lower_clamp_min, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"clamp_max", lower_clamp_max, TT_OPF_UNORDERED}, {"clamp_max_", lower_clamp_max, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"clamp_max.Tensor", lower_clamp_max, TT_OPF_UNORDERED}, {"clamp_max_.Tensor", lower_clamp_max, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"masked_fill.Scalar", lower_masked_fill, TT_OPF_COMPLEX, .layout = TT_LAYOUT_ROW_MAJOR}, {"masked_fill_.Scalar", lower_masked_fill, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"masked_fill.Tensor", lower_masked_fill, TT_OPF_COMPLEX}, {"masked_fill_.Tensor", lower_masked_fill, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    /* nonzero tests: a complex value is true where either part is nonzero */
    EW_UNARY_X("logical_and", lower_logical_and), EW_UNARY_X("logical_or", lower_logical_or),
    EW_UNARY_X("logical_xor", lower_logical_xor), EW_UNARY_X("logical_not", lower_logical_not),
    {"bitwise_and.Tensor", lower_bitwise_and, 0}, {"bitwise_and_.Tensor", lower_bitwise_and, TT_OPF_INPLACE},
    {"bitwise_and.Scalar", lower_bitwise_and, 0}, {"bitwise_and_.Scalar", lower_bitwise_and, TT_OPF_INPLACE},
    {"bitwise_or.Tensor", lower_bitwise_or, 0}, {"bitwise_or_.Tensor", lower_bitwise_or, TT_OPF_INPLACE},
    {"bitwise_or.Scalar", lower_bitwise_or, 0}, {"bitwise_or_.Scalar", lower_bitwise_or, TT_OPF_INPLACE},
    {"bitwise_xor.Tensor", lower_bitwise_xor, 0}, {"bitwise_xor_.Tensor", lower_bitwise_xor, TT_OPF_INPLACE},
    {"bitwise_xor.Scalar", lower_bitwise_xor, 0}, {"bitwise_xor_.Scalar", lower_bitwise_xor, TT_OPF_INPLACE},
    EW_UNARY("bitwise_not", lower_bitwise_not),
    {"isnan", lower_isnan, 0, .complex = tt_complex_isnan}, {"isinf", lower_isinf, 0, .complex = tt_complex_isinf}, {"isfinite", lower_isfinite, 0, .complex = tt_complex_isfinite},
    {"isposinf", lower_isposinf, 0}, {"isneginf", lower_isneginf, 0},
    EW_UNARY_C("nan_to_num", lower_nan_to_num, tt_complex_nan_to_num),
    {"remainder.Tensor", lower_remainder, TT_OPF_UNORDERED}, {"remainder_.Tensor", lower_remainder, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"remainder.Scalar", lower_remainder, TT_OPF_UNORDERED}, {"remainder_.Scalar", lower_remainder, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"remainder.Scalar_Tensor", lower_remainder, TT_OPF_UNORDERED},
    {"fmod.Tensor", lower_fmod, TT_OPF_UNORDERED}, {"fmod_.Tensor", lower_fmod, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"fmod.Scalar", lower_fmod, TT_OPF_UNORDERED}, {"fmod_.Scalar", lower_fmod, TT_OPF_INPLACE | TT_OPF_UNORDERED},
    {"lerp.Scalar", lower_lerp, TT_OPF_COMPLEX}, {"lerp_.Scalar", lower_lerp, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"lerp.Tensor", lower_lerp, TT_OPF_COMPLEX}, {"lerp_.Tensor", lower_lerp, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    /* complex: self + (value * t1) * t2 (or / t2), CPU's order */
    EW_UNARY_X("addcmul", lower_addcmul), EW_UNARY_X("addcdiv", lower_addcdiv),
    EW_UNARY_C("atan", lower_atan, tt_complex_atan), EW_UNARY_C("asin", lower_asin, tt_complex_asin), EW_UNARY_C("acos", lower_acos, tt_complex_acos),
    EW_UNARY_C("sinh", lower_sinh, tt_complex_sinh), EW_UNARY_C("cosh", lower_cosh, tt_complex_cosh), EW_UNARY_C("asinh", lower_asinh, tt_complex_asinh),
    EW_UNARY_C("acosh", lower_acosh, tt_complex_acosh), EW_UNARY_C("atanh", lower_atanh, tt_complex_atanh),
    EW_UNARY("deg2rad", lower_deg2rad), EW_UNARY("rad2deg", lower_rad2deg), EW_UNARY("frac", lower_frac),
    {"signbit", lower_signbit, 0},
    EW_UNARY("atan2", lower_atan2), EW_UNARY("hypot", lower_hypot),
    {"copysign.Tensor", lower_copysign, 0}, {"copysign_.Tensor", lower_copysign, TT_OPF_INPLACE},
    {"copysign.Scalar", lower_copysign, 0}, {"copysign_.Scalar", lower_copysign, TT_OPF_INPLACE},
    {"logaddexp", lower_logaddexp, 0}, {"logaddexp2", lower_logaddexp2, 0},
    {"xlogy.Tensor", lower_xlogy, 0}, {"xlogy_.Tensor", lower_xlogy, TT_OPF_INPLACE},
    {"xlogy.Scalar_Self", lower_xlogy, 0}, {"xlogy.Scalar_Other", lower_xlogy, 0},
    {"xlogy_.Scalar_Other", lower_xlogy, TT_OPF_INPLACE},
    {"special_xlog1py", lower_xlog1py, 0},
    {"ldexp.Tensor", lower_ldexp, 0, .complex = lower_ldexp_complex}, {"ldexp_", lower_ldexp, TT_OPF_INPLACE, .complex = lower_ldexp_complex},
    {"fmax", lower_fmax, TT_OPF_UNORDERED_CHECK}, {"fmin", lower_fmin, TT_OPF_UNORDERED_CHECK},
    {"heaviside", lower_heaviside, TT_OPF_UNORDERED_CHECK}, {"heaviside_", lower_heaviside, TT_OPF_INPLACE | TT_OPF_UNORDERED_CHECK},
    EW_UNARY("logit", lower_logit), {"logit_backward", lower_logit_backward, 0},
#undef EW_UNARY
    {NULL, NULL, 0},
};
