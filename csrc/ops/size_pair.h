/* The int64[2] size pair that the size companions of bincount and repeat_interleave build on device; read back, it is their op's last argument. */
#ifndef TT_OPS_SIZE_PAIR_H
#define TT_OPS_SIZE_PAIR_H

#include "ops/common.h"

/* {r0 over x, r1 over x} in int64 for the 1-D integer tensor argument i, or
 * {e0, e1} when it is empty: the Python trampoline downloads this pair and
 * lowers the op itself again with it appended, so that op's result shape is
 * known. The caller checks that argument i is 1-D. */
tt_val_t tt_op_size_pair(tt_lower_t *L, int i, tt_reduce_t r0, tt_reduce_t r1, int64_t e0, int64_t e1);
/* Reads that pair, appended to the op's arguments as argument i, into out;
 * records an internal error and returns 0 when it is missing. */
int tt_op_size_pair_arg(tt_lower_t *L, int i, int64_t out[2]);

#endif
