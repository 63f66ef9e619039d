/* Shared builders for the special-function lowerings (see ops/special.h). */
#include "ops/special.h"

#include "ops/common.h"

tt_val_t tt_sp_c(tt_graph_t *g, tt_val_t like, double v) { return tt_b_like_f(g, like, v); }
tt_val_t tt_sp_add(tt_graph_t *g, tt_val_t x, tt_val_t y) { return tt_b_binary(g, TT_BIN_ADD, x, y); }
tt_val_t tt_sp_sub(tt_graph_t *g, tt_val_t x, tt_val_t y) { return tt_b_binary(g, TT_BIN_SUB, x, y); }
tt_val_t tt_sp_mul(tt_graph_t *g, tt_val_t x, tt_val_t y) { return tt_b_binary(g, TT_BIN_MUL, x, y); }
tt_val_t tt_sp_div(tt_graph_t *g, tt_val_t x, tt_val_t y) { return tt_b_binary(g, TT_BIN_DIV, x, y); }
tt_val_t tt_sp_lt(tt_graph_t *g, tt_val_t x, double v) { return tt_b_compare(g, TT_CMP_LT, x, tt_sp_c(g, x, v)); }
tt_val_t tt_sp_le(tt_graph_t *g, tt_val_t x, double v) { return tt_b_compare(g, TT_CMP_LE, x, tt_sp_c(g, x, v)); }
tt_val_t tt_sp_gt(tt_graph_t *g, tt_val_t x, double v) { return tt_b_compare(g, TT_CMP_GT, x, tt_sp_c(g, x, v)); }
tt_val_t tt_sp_eq(tt_graph_t *g, tt_val_t x, double v) { return tt_b_compare(g, TT_CMP_EQ, x, tt_sp_c(g, x, v)); }
tt_val_t tt_sp_isnan(tt_graph_t *g, tt_val_t x) { return tt_b_compare(g, TT_CMP_NE, x, x); }
tt_val_t tt_sp_and(tt_graph_t *g, tt_val_t a, tt_val_t b) { return tt_b_binary(g, TT_BIN_AND, a, b); }
tt_val_t tt_sp_or(tt_graph_t *g, tt_val_t a, tt_val_t b) { return tt_b_binary(g, TT_BIN_OR, a, b); }
tt_val_t tt_sp_where_c(tt_graph_t *g, tt_val_t pred, double v, tt_val_t x) {
  return tt_b_select(g, pred, tt_sp_c(g, x, v), x);
}

tt_val_t tt_sp_poly(tt_graph_t *g, tt_val_t x, const double *c, int n) {
  tt_val_t acc = tt_sp_c(g, x, c[0]);
  for (int k = 1; k < n; k++) acc = tt_sp_add(g, tt_sp_mul(g, acc, x), tt_sp_c(g, x, c[k]));
  return acc;
}

tt_val_t tt_sp_poly1(tt_graph_t *g, tt_val_t x, const double *c, int n) {
  tt_val_t acc = tt_sp_add(g, x, tt_sp_c(g, x, c[0]));
  for (int k = 1; k < n; k++) acc = tt_sp_add(g, tt_sp_mul(g, acc, x), tt_sp_c(g, x, c[k]));
  return acc;
}

/* b0 = x b1 - b2 + c[i]; result (b0 - b2) / 2. */
tt_val_t tt_sp_chbevl(tt_graph_t *g, tt_val_t x, const double *c, int n) {
  tt_val_t b0 = tt_sp_c(g, x, c[0]), b1 = tt_sp_c(g, x, 0), b2 = b1;
  for (int i = 1; i < n; i++) {
    b2 = b1;
    b1 = b0;
    b0 = tt_sp_add(g, tt_sp_sub(g, tt_sp_mul(g, x, b1), b2), tt_sp_c(g, x, c[i]));
  }
  return tt_sp_mul(g, tt_sp_c(g, x, 0.5), tt_sp_sub(g, b0, b2));
}

tt_status_t tt_sp_unary(tt_lower_t *L, tt_val_t (*fn)(tt_graph_t *, tt_val_t)) {
  tt_dtype_t out = tt_op_float_type(L, tt_l_arg_dtype(L, 0));
  tt_val_t x = tt_b_convert(L->g, tt_l_tensor(L, 0), tt_op_math_type(out));
  if (x < 0) return NULL;
  tt_l_output(L, tt_b_convert(L->g, fn(L->g, x), out));
  return NULL;
}

tt_status_t tt_sp_binary(tt_lower_t *L, int a, int b, tt_val_t (*fn)(tt_graph_t *, tt_val_t, tt_val_t)) {
  int argi[2] = {a, b};
  tt_dtype_t out = tt_op_float_type(L, tt_op_result_type(L, argi, 2));
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 2, dims);
  tt_dtype_t ct = tt_op_math_type(out);
  tt_val_t x = tt_op_operand(L, a, ct, rank, dims), y = tt_op_operand(L, b, ct, rank, dims);
  if (x < 0 || y < 0) return NULL;
  tt_l_output(L, tt_b_convert(L->g, fn(L->g, x, y), out));
  return NULL;
}
