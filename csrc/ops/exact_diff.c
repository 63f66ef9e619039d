/* x - m, exactly 0 where x == m (ops/exact_diff.h). */
#include "ops/exact_diff.h"

tt_val_t tt_exact_diff(tt_graph_t *g, tt_val_t x, tt_val_t m) {
  if (x < 0 || m < 0) return -1;
  tt_val_t d = tt_b_binary(g, TT_BIN_SUB, x, m);
  /* equal infinities keep CPU's inf - inf = NaN (a row of -inf softmaxes to NaN) */
  tt_val_t same = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_EQ, x, m), tt_b_unary(g, TT_UN_IS_FINITE, x));
  return tt_b_select(g, same, tt_b_like_f(g, d, 0.0), d);
}
