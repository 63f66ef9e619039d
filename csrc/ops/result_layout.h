/* The strides PyTorch gives an op's result when its tensor arguments are not
 * row-major (a transposed or channels_last input): the lowerings compute
 * values; this says in which dim order the result is laid out, so that the
 * facade can store it that way (a transpose inside the same program) and
 * hand out a tensor with CPU's strides. Pure arithmetic on the arguments'
 * views; no graph, no engine. */
#ifndef TT_OPS_RESULT_LAYOUT_H
#define TT_OPS_RESULT_LAYOUT_H

#include "ops/args.h"

typedef enum {
  /* Not stated by the row: TensorIterator's rule for the ops the framework
   * tags pointwise, row-major for the rest. */
  TT_LAYOUT_DEFAULT = 0,
  /* Row-major even when tagged pointwise (CPU computes them through a
   * row-major clone or a reduction: masked_fill, mvlgamma). */
  TT_LAYOUT_ROW_MAJOR,
  /* TensorIterator's rule (ops tagged pointwise): all operands of one shape
   * and all row-major / all channels_last / all dense with equal strides
   * give that layout; otherwise dims are ordered by the operands' byte
   * strides, the first operand that tells two dims apart deciding. */
  TT_LAYOUT_ITERATOR,
  /* The input's suggested memory format (norms, 2-d pools, upsample, pad,
   * max_pool3d): a channels_last 4-d (channels_last_3d 5-d) input gives
   * results of its rank in that format, everything else row-major. (CPU's
   * avg_pool3d and adaptive 3-d pools are row-major: their rows say nothing.) */
  TT_LAYOUT_MEMORY_FORMAT,
  /* As MEMORY_FORMAT, from the input or else the weight (convolution). */
  TT_LAYOUT_CONV,
  /* empty_like(input, preserve_format) (sort, dropout): a dense input's
   * strides for results of its shape; else its suggested memory format. */
  TT_LAYOUT_LIKE_INPUT,
} tt_layout_kind_t;

/* 1 when some tensor argument (not in a list) is not row-major: only then
 * can a result's layout differ from row-major. */
int tt_layout_args_strided(const tt_arg_t *args, int nargs);

/* The result order of a result of `rank`/`sizes` for an op of `kind` called
 * with `args`: order[0] is the slowest dim, order[rank-1] the fastest (the
 * result is stored as transpose(value, order) in row-major order), and
 * strides[] the element strides the result tensor then has. Returns 0 when
 * the layout is plain row-major (nothing to do). */
int tt_layout_result(tt_layout_kind_t kind, const tt_arg_t *args, int nargs, int rank, const int64_t *sizes,
                     int64_t *order, int64_t *strides);

#endif
