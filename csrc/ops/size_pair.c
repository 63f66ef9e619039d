/* The int64[2] size pair that the size companions of bincount and repeat_interleave build on device; read back, it is their op's last argument. */
#include "ops/size_pair.h"

tt_val_t tt_op_size_pair(tt_lower_t *L, int i, tt_reduce_t r0, tt_reduce_t r1, int64_t e0, int64_t e1) {
  tt_graph_t *g = L->g;
  int64_t one = 1, d0 = 0;
  tt_val_t parts[2];
  if (tt_l_arg_sizes(L, i)[0] == 0) {
    /* Reductions of nothing would give their identities; the caller names what an empty input means. */
    parts[0] = tt_b_full_i(g, TT_I64, 1, &one, e0);
    parts[1] = tt_b_full_i(g, TT_I64, 1, &one, e1);
  } else {
    tt_val_t x = tt_b_convert(g, tt_l_tensor(L, i), TT_I64);
    parts[0] = tt_b_reshape(g, tt_b_reduce(g, r0, x, 1, &d0), 1, &one);
    parts[1] = tt_b_reshape(g, tt_b_reduce(g, r1, x, 1, &d0), 1, &one);
  }
  return tt_b_concat(g, 2, parts, 0);
}

int tt_op_size_pair_arg(tt_lower_t *L, int i, int64_t out[2]) {
  if (tt_l_ints(L, i, out, 2) == 2) return 1;
  tt_l_fail(L, TT_INTERNAL, "%s: missing the downloaded size pair (its size companion's result)", L->op);
  return 0;
}
