/* Eager programs shared by every length of a bucket (issue 15, part 5): a
 * tensor whose one dimension is a prefix of a power-of-two capacity (the
 * padded layout bucketed cat produces) is read at the capacity, the op is
 * lowered at that shape, the logical length enters as a runtime i32 scalar
 * (masks where padding could change a result), and the result is again a
 * padded tensor. So a KV cache growing one token per step compiles each op
 * once per bucket, not once per length. Off unless
 * TORCH_TPU_EAGER_BUCKETS=1 or torch.tpu.set_eager_buckets(True).
 *
 * Small tensors start at a least capacity (TORCH_TPU_EAGER_BUCKET_MIN,
 * default 128, a TPU vector's lane count): a tensor whose other dims hold
 * `row` elements per index of the grown dim takes capacity 128 while
 * 128 * row stays within TT_BUCKET_SMALL_ELEMS, so the first 127 lengths of
 * a small KV cache share one bucket (one program per op instead of one per
 * power of two: compiles are what a first generate() waits for, and ops on
 * a few thousand padded elements cost no more to run than on a few dozen);
 * larger tensors keep plain powers of two (padding costs memory there). */
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

#define TT_BUCKET_MIN_DEFAULT 128
#define TT_BUCKET_SMALL_ELEMS ((int64_t)1 << 16)

/* The capacity a logical length is stored at: the least power of two above
 * it, so that a bucketed tensor always has padding (a full one would read
 * as an ordinary tensor, and its length compile on its own), raised to
 * min_len by doublings while capacity * row stays within
 * TT_BUCKET_SMALL_ELEMS (row: the elements one index of the dim holds). */
int64_t tt_bucket_capacity(int64_t len, int64_t row, int64_t min_len);

/* Whether op `name` on L's arguments runs at a bucket's shape (min_len as
 * in tt_bucket_capacity): fills plan (widened copies of the arguments) and
 * L's padded-read list (ops/lower.h); 0 leaves L as it was and the op
 * lowers as usual. */
int tt_bucket_prepare(tt_lower_t *L, const char *name, int64_t min_len, tt_bucket_plan_t *plan);

#endif
