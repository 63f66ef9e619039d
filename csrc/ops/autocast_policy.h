/* The autocast class of each ATen op that autocast changes on tpu (ops not
 * listed run unchanged). One table (ops/autocast_policy.c) for the whole
 * policy; pure data, callable from any thread. */
#ifndef TT_OPS_AUTOCAST_POLICY_H
#define TT_OPS_AUTOCAST_POLICY_H

typedef enum {
  TT_AUTOCAST_LOWER = 1,   /* floating inputs in the autocast dtype (matmuls, convolutions) */
  TT_AUTOCAST_FP32 = 2,    /* floating inputs in float32 */
  TT_AUTOCAST_PROMOTE = 3, /* floating inputs at their widest type */
} tt_autocast_class_t;

typedef struct {
  const char *name; /* an ATen overload name, "pow.Tensor_Scalar"; a bare packet name is its default overload */
  tt_autocast_class_t cls;
} tt_autocast_row_t;

int tt_autocast_count(void);
/* Row i (0 <= i < count), NULL otherwise. */
const tt_autocast_row_t *tt_autocast_row(int i);
/* "lower", "fp32" or "promote": the names the glue's kernels take. */
const char *tt_autocast_class_name(tt_autocast_class_t c);

#endif
