/* CPU's rule for normalization parameters of another dtype than the input
 * (ATen's mixed_dtype.h), shared by layer norm, group norm and batch norm. */
#ifndef TT_OPS_NORM_MIXED_H
#define TT_OPS_NORM_MIXED_H

#include "ops/common.h"

/* The parameters are the op's arguments at parami (n of them, in CPU's
 * order; absent ones are skipped). When the first present one has the
 * input's dtype, the others must have it too (else RuntimeError "expected
 * scalar type Float but found BFloat16", CPU's kernel reading them as the
 * input's type). Otherwise only a float16 or bfloat16 input with float32
 * parameters computes (the statistics in float32); any other mix raises
 * RuntimeError as on CPU: a parameter that is not float32 "mixed dtype
 * (CPU): expect parameter to have scalar type of Float" (checked first), an
 * input that is not float16/bfloat16 "mixed dtype (CPU): all inputs must
 * share same datatype.". Returns 0 with L failed when refused. */
int tt_norm_check_mixed(tt_lower_t *L, int inputi, const int *parami, int n);

#endif
