/* Bit shifts: bitwise_left_shift/bitwise_right_shift and the operators
 * <<, >>, <<=, >>= (__lshift__ ...), with CPU's rules for integer types
 * (ATen's lshift/rshift kernels): a left shift by a negative amount or by the
 * type's width or more gives 0; a right shift by such an amount shifts by
 * width - 1 for signed types (the sign fills) and by the width for uint8 (0);
 * right shifts are arithmetic for signed types. Floats and bool are refused
 * with CPU's NotImplementedError. */
#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"

static tt_status_t shift(tt_lower_t *L, int left) {
  tt_graph_t *g = L->g;
  int argi[2] = {0, 1};
  tt_dtype_t rt = tt_op_result_type(L, argi, 2);
  if (tt_graph_failed(g)) return NULL;
  if (tt_dtype_is_float(rt) || tt_dtype_is_complex(rt) || rt == TT_BOOL)
    return tt_op_refuse_result_dtype(L, rt, "%s", left ? "lshift_cpu" : "rshift_cpu");
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 2, dims);
  tt_val_t a = tt_op_operand(L, 0, rt, rank, dims), b = tt_op_operand(L, 1, rt, rank, dims);
  if (tt_graph_failed(g)) return NULL;
  int is_signed = rt != TT_U8;
  int64_t width = (int64_t)tt_dtype_size(rt) * 8, max_shift = left ? width : width - is_signed;
  tt_val_t out_of_range = tt_b_compare(g, TT_CMP_GE, b, tt_b_full_i(g, rt, rank, dims, max_shift));
  if (is_signed) out_of_range = tt_b_binary(g, TT_BIN_OR, out_of_range, tt_b_compare(g, TT_CMP_LT, b, tt_b_full_i(g, rt, rank, dims, 0)));
  tt_val_t r;
  if (left) {
    r = tt_b_select(g, out_of_range, tt_b_full_i(g, rt, rank, dims, 0), tt_b_binary(g, TT_BIN_SHL, a, b));
  } else {
    tt_binary_t op = is_signed ? TT_BIN_SHR_A : TT_BIN_SHR_L;
    tt_val_t whole = tt_b_binary(g, op, a, tt_b_full_i(g, rt, rank, dims, max_shift));
    r = tt_b_select(g, out_of_range, whole, tt_b_binary(g, op, a, b));
  }
  tt_l_output(L, r);
  return NULL;
}

static tt_status_t lower_lshift(tt_lower_t *L) { return shift(L, 1); }
static tt_status_t lower_rshift(tt_lower_t *L) { return shift(L, 0); }

const tt_op_def_t tt_ops_shift[] = {
    {"bitwise_left_shift.Tensor", lower_lshift, 0},
    {"bitwise_left_shift.Tensor_Scalar", lower_lshift, 0},
    {"bitwise_left_shift.Scalar_Tensor", lower_lshift, 0},
    {"bitwise_left_shift_.Tensor", lower_lshift, TT_OPF_INPLACE},
    {"bitwise_left_shift_.Tensor_Scalar", lower_lshift, TT_OPF_INPLACE},
    {"__lshift__.Tensor", lower_lshift, 0},
    {"__lshift__.Scalar", lower_lshift, 0},
    {"__ilshift__.Tensor", lower_lshift, TT_OPF_INPLACE},
    {"__ilshift__.Scalar", lower_lshift, TT_OPF_INPLACE},
    {"bitwise_right_shift.Tensor", lower_rshift, 0},
    {"bitwise_right_shift.Tensor_Scalar", lower_rshift, 0},
    {"bitwise_right_shift.Scalar_Tensor", lower_rshift, 0},
    {"bitwise_right_shift_.Tensor", lower_rshift, TT_OPF_INPLACE},
    {"bitwise_right_shift_.Tensor_Scalar", lower_rshift, TT_OPF_INPLACE},
    {"__rshift__.Tensor", lower_rshift, 0},
    {"__rshift__.Scalar", lower_rshift, 0},
    {"__irshift__.Tensor", lower_rshift, TT_OPF_INPLACE},
    {"__irshift__.Scalar", lower_rshift, TT_OPF_INPLACE},
    {NULL, NULL, 0},
};
