/* Elementwise arithmetic, comparisons, logical ops, where: PyTorch's type
 * promotion and broadcasting, then one StableHLO op per element function. */
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"

/* Result dtype, broadcast shape and both operands prepared in `compute`. */
typedef struct {
  tt_dtype_t result;
  int rank;
  int64_t dims[TT_MAX_RANK];
  tt_val_t x, y;
} binop_t;

static int prepare2(tt_lower_t *L, int a, int b, tt_dtype_t compute, binop_t *p) {
  int argi[2] = {a, b};
  p->result = tt_op_result_type(L, argi, 2);
  if (compute == TT_DTYPE_INVALID) compute = p->result;
  p->rank = tt_op_broadcast_shape(L, argi, 2, p->dims);
  p->x = tt_op_operand(L, a, compute, p->rank, p->dims);
  p->y = tt_op_operand(L, b, compute, p->rank, p->dims);
  return !tt_graph_failed(L->g);
}

/* x (+|-) alpha * y, alpha from argument 2 when present. */
static tt_status_t add_sub(tt_lower_t *L, tt_binary_t op) {
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
  binop_t p;
  if (!prepare2(L, 0, 1, TT_DTYPE_INVALID, &p)) return NULL;
  tt_val_t x = p.x;
  if (!tt_l_is_none(L, 2)) x = tt_b_binary(L->g, TT_BIN_MUL, x, tt_op_fit(L, tt_l_scalar_arg(L, 2, p.result), p.result, p.rank, p.dims));
  tt_l_output(L, tt_b_binary(L->g, TT_BIN_SUB, p.y, x));
  return NULL;
}

static tt_status_t lower_mul(tt_lower_t *L) {
  binop_t p;
  if (!prepare2(L, 0, 1, TT_DTYPE_INVALID, &p)) return NULL;
  tt_l_output(L, tt_b_binary(L->g, p.result == TT_BOOL ? TT_BIN_AND : TT_BIN_MUL, p.x, p.y));
  return NULL;
}

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

static tt_status_t lower_div(tt_lower_t *L) {
  const char *mode = tt_l_str(L, 2, NULL);
  binop_t p;
  int argi[2] = {0, 1};
  tt_dtype_t rt = tt_op_result_type(L, argi, 2);
  if (!mode) {
    tt_dtype_t ft = tt_op_float_type(rt);
    if (!prepare2(L, 0, 1, ft, &p)) return NULL;
    tt_l_output(L, tt_b_binary(L->g, TT_BIN_DIV, p.x, p.y));
    return NULL;
  }
  if (!prepare2(L, 0, 1, TT_DTYPE_INVALID, &p)) return NULL;
  tt_graph_t *g = L->g;
  int is_float = tt_dtype_is_float(p.result);
  if (!strcmp(mode, "trunc")) {
    tt_val_t q = tt_b_binary(g, TT_BIN_DIV, p.x, p.y);
    if (is_float) {
      /* trunc = sign(q) * floor(|q|) */
      q = tt_b_binary(g, TT_BIN_MUL, tt_b_unary(g, TT_UN_SIGN, q), tt_b_unary(g, TT_UN_FLOOR, tt_b_unary(g, TT_UN_ABS, q)));
    }
    tt_l_output(L, q);
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
      tt_val_t q = tt_b_binary(g, TT_BIN_DIV, p.x, p.y);
      tt_val_t res = tt_b_select(g, nz, fl, tt_b_binary(g, TT_BIN_MUL, tt_b_like_f(g, q, 0), q));
      /* Division by zero: the true quotient (inf/nan) as PyTorch returns. */
      tt_val_t yz = tt_b_compare(g, TT_CMP_EQ, p.y, tt_b_like_f(g, p.y, 0));
      tt_l_output(L, tt_b_select(g, yz, q, res));
    } else {
      tt_l_output(L, int_floor_div(g, p.x, p.y));
    }
  } else {
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", mode);
  }
  return NULL;
}

static tt_status_t compare(tt_lower_t *L, tt_cmp_t c) {
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

const tt_op_def_t tt_ops_elementwise[] = {
    {"add.Tensor", lower_add, 0},
    {"add.Scalar", lower_add, 0},
    {"add_.Tensor", lower_add, TT_OPF_INPLACE},
    {"add_.Scalar", lower_add, TT_OPF_INPLACE},
    {"sub.Tensor", lower_sub, 0},
    {"sub.Scalar", lower_sub, 0},
    {"sub_.Tensor", lower_sub, TT_OPF_INPLACE},
    {"sub_.Scalar", lower_sub, TT_OPF_INPLACE},
    {"rsub.Tensor", lower_rsub, 0},
    {"rsub.Scalar", lower_rsub, 0},
    {"mul.Tensor", lower_mul, 0},
    {"mul.Scalar", lower_mul, 0},
    {"mul_.Tensor", lower_mul, TT_OPF_INPLACE},
    {"mul_.Scalar", lower_mul, TT_OPF_INPLACE},
    {"div.Tensor", lower_div, 0},
    {"div.Scalar", lower_div, 0},
    {"div.Tensor_mode", lower_div, 0},
    {"div.Scalar_mode", lower_div, 0},
    {"div_.Tensor", lower_div, TT_OPF_INPLACE},
    {"div_.Scalar", lower_div, TT_OPF_INPLACE},
    {"div_.Tensor_mode", lower_div, TT_OPF_INPLACE},
    {"eq.Tensor", lower_eq, 0}, {"eq.Scalar", lower_eq, 0},
    {"ne.Tensor", lower_ne, 0}, {"ne.Scalar", lower_ne, 0},
    {"lt.Tensor", lower_lt, 0}, {"lt.Scalar", lower_lt, 0},
    {"le.Tensor", lower_le, 0}, {"le.Scalar", lower_le, 0},
    {"gt.Tensor", lower_gt, 0}, {"gt.Scalar", lower_gt, 0},
    {"ge.Tensor", lower_ge, 0}, {"ge.Scalar", lower_ge, 0},
    {NULL, NULL, 0},
};
