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
  /* clone/_to_copy: the copy rule of tt_layout_copy_strides for the call's
   * memory_format argument (preserve when it has none). */
  TT_LAYOUT_COPY,
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

/* Dense strides of `sizes` in memory format `fmt` (contiguous, channels_last,
 * channels_last_3d; preserve reads as contiguous), as torch.empty(sizes,
 * memory_format=fmt) gives them. Returns 0, or -1 when fmt needs another rank
 * (rank 4 for channels_last, 5 for channels_last_3d). */
int tt_layout_format_strides(int rank, const int64_t *sizes, tt_memory_format_t fmt, int64_t *strides);

/* The strides of a copy of `v` in memory format `fmt` (clone, _to_copy,
 * empty_like): preserve keeps a non-overlapping and dense view's strides and
 * otherwise orders dims as its strides do (infer_dense_strides); the other
 * formats are tt_layout_format_strides. order[] (slowest dim first) is the
 * dim order of the copy's storage. Returns 1 when the strides differ from
 * row-major, 0 when they are row-major, -1 when fmt needs another rank. */
int tt_layout_copy_strides(const tt_view_t *v, tt_memory_format_t fmt, int64_t *order, int64_t *strides);

/* The call's memory_format argument; preserve when it has none. */
tt_memory_format_t tt_layout_memory_format_arg(const tt_arg_t *args, int nargs);

/* PyTorch's message for a memory format a rank cannot have. */
const char *tt_layout_format_rank_error(tt_memory_format_t fmt);

#endif
