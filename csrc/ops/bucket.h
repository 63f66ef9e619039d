/* Eager programs shared by every length of a bucket (issue 15, part 5): a
 * tensor whose one dimension is a prefix of a power-of-two capacity (the
 * padded layout bucketed cat produces) is read at the capacity, the op is
 * lowered at that shape, the logical length enters as a runtime i32 scalar
 * (masks where padding could change a result), and the result is again a
 * padded tensor. So a KV cache growing one token per step compiles each op
 * once per bucket, not once per length. Off unless
 * TORCH_TPU_EAGER_BUCKETS=1 or torch.tpu.set_eager_buckets(True). */
#ifndef TT_OPS_BUCKET_H
#define TT_OPS_BUCKET_H

#include "ops/lower.h"

#define TT_BUCKET_MAX_ARGS 16
#define TT_BUCKET_MAX_REFS 16

typedef struct tt_bucket_plan_s {
  tt_lower_fn fn;        /* the lowering to run on `args`; NULL: the op's own */
  tt_arg_t args[TT_BUCKET_MAX_ARGS];
  tt_tensor_ref_t refs[TT_BUCKET_MAX_REFS];
  int out_dim;           /* the result's padded dim */
  int64_t out_len;       /* its logical length there */
} tt_bucket_plan_t;

/* The capacity a logical length is stored at: the least power of two above
 * it, so that a bucketed tensor always has padding (a full one would read
 * as an ordinary tensor, and its length compile on its own). */
int64_t tt_bucket_capacity(int64_t len);

/* Whether op `name` on L's arguments runs at a bucket's shape: fills plan
 * (widened copies of the arguments) and L's padded-read list (ops/lower.h);
 * 0 leaves L as it was and the op lowers as usual. */
int tt_bucket_prepare(tt_lower_t *L, const char *name, tt_bucket_plan_t *plan);

#endif
