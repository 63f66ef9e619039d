/* Lowerings of gcd and lcm (and their in-place forms; the .out forms are
 * generated from these): Euclid's algorithm on every element at once, in a
 * stablehlo.while that runs until no element has a remainder left. */
#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"

/* CPU's calc_gcd: a = |x|, b = |y|; while (a != 0) (a, b) = (b % a, a);
 * the answer is b. |INT_MIN| stays INT_MIN, as in two's complement C. */
static tt_val_t abs_int(tt_graph_t *g, tt_val_t x) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  return tt_dtype_is_unsigned(tt_graph_type(g, x)->dtype) ? x : tt_b_unary(g, TT_UN_ABS, x); /* stablehlo.abs is signed only */
}

static tt_val_t gcd_values(tt_graph_t *g, tt_val_t x, tt_val_t y) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  const tt_type_t *t = tt_graph_type(g, x);
  tt_val_t init[2] = {abs_int(g, x), abs_int(g, y)};
  int rank = t->rank;
  int64_t all[TT_MAX_RANK];
  for (int d = 0; d < rank; d++) all[d] = d;
  tt_loop_t lp;
  tt_val_t c[2], res[2];
  tt_b_while_begin(g, &lp, 2, init, c);
  tt_val_t nz = tt_b_compare(g, TT_CMP_NE, c[0], tt_b_like_f(g, c[0], 0));
  tt_val_t more = rank ? tt_b_reduce(g, TT_RED_OR, nz, rank, all) : nz;
  tt_b_while_body(g, &lp, more, c);
  nz = tt_b_compare(g, TT_CMP_NE, c[0], tt_b_like_f(g, c[0], 0));
  /* Elements already done divide by 1 instead of 0 and keep their values. */
  tt_val_t safe = tt_b_select(g, nz, c[0], tt_b_like_f(g, c[0], 1));
  tt_val_t next[2] = {tt_b_select(g, nz, tt_b_binary(g, TT_BIN_REM, c[1], safe), c[0]), tt_b_select(g, nz, c[0], c[1])};
  tt_b_while_end(g, &lp, next, res);
  return res[1];
}

/* gcd/lcm(self, other): integer operands promoted together, broadcast. */
static tt_status_t gcd_lcm(tt_lower_t *L, int lcm) {
  int argi[2] = {0, 1};
  tt_dtype_t rt = tt_op_result_type(L, argi, 2);
  if (rt == TT_DTYPE_INVALID) return NULL;
  if (tt_dtype_is_float(rt) || rt == TT_BOOL)
    return tt_op_refuse_dtype(rt, "%s_cpu", lcm ? "lcm" : "gcd");
  int64_t dims[TT_MAX_RANK];
  int rank = tt_op_broadcast_shape(L, argi, 2, dims);
  tt_val_t x = tt_op_operand(L, 0, rt, rank, dims), y = tt_op_operand(L, 1, rt, rank, dims);
  if (tt_graph_failed(L->g)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t r = gcd_values(g, x, y);
  if (lcm) { /* CPU: g == 0 ? 0 : |x / g * y| */
    tt_val_t zero = tt_b_compare(g, TT_CMP_EQ, r, tt_b_like_f(g, r, 0));
    tt_val_t safe = tt_b_select(g, zero, tt_b_like_f(g, r, 1), r);
    tt_val_t q = tt_b_binary(g, TT_BIN_DIV, x, safe);
    /* C promotes types narrower than int before the multiply and abs, so
     * those wrap only when stored back. */
    int narrow = rt == TT_U8 || rt == TT_I8 || rt == TT_I16;
    tt_val_t v = narrow ? tt_b_convert(g, abs_int(g, tt_b_binary(g, TT_BIN_MUL, tt_b_convert(g, q, TT_I32), tt_b_convert(g, y, TT_I32))), rt)
                        : abs_int(g, tt_b_binary(g, TT_BIN_MUL, q, y));
    r = tt_b_select(g, zero, tt_b_like_f(g, r, 0), v);
  }
  tt_l_output(L, r);
  return NULL;
}

static tt_status_t lower_gcd(tt_lower_t *L) { return gcd_lcm(L, 0); }
static tt_status_t lower_lcm(tt_lower_t *L) { return gcd_lcm(L, 1); }

const tt_op_def_t tt_ops_gcd[] = {
    {"gcd", lower_gcd, 0},
    {"gcd_", lower_gcd, TT_OPF_INPLACE},
    {"lcm", lower_lcm, 0},
    {"lcm_", lower_lcm, TT_OPF_INPLACE},
    {NULL, NULL, 0},
};
