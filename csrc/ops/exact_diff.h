/* x - m where m is one of x's own values (its max, a constant row's mean):
 * exactly 0 where x equals m, as CPU's subtraction of a rounded x gives. */
#ifndef TT_OPS_EXACT_DIFF_H
#define TT_OPS_EXACT_DIFF_H

#include "ops/common.h"

/* x and m of one shape and real float type: select(x == m and finite, 0,
 * x - m).
 * Why: XLA CPU contracts a multiply feeding the subtraction into one FMA
 * inside a fused loop, so for x = a * b the difference is taken from the
 * unrounded product and (a*b) - max(a*b) came out +-1e-8 where CPU gives 0
 * (log_softmax above 0, logsumexp below the max, a constant row of a*b
 * layer-normalized to 1e-6: graph fuzzer dynamic 6:96). The comparison
 * reads the rounded x, so it holds wherever CPU's difference is 0. */
tt_val_t tt_exact_diff(tt_graph_t *g, tt_val_t x, tt_val_t m);

#endif
