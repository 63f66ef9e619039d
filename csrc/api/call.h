/* Calling an op: lower it, append view writes, run it, collect results.
 * Thread safety: one caller at a time: callers hold the engine lock
 * (api/engine_lock.h). */
#ifndef TT_API_CALL_H
#define TT_API_CALL_H

#include "ops/args.h"
#include "exec/engine_type.h"

typedef struct tt_call_out_s {
  tt_storage_t *storage; /* owned by the result */
  tt_dtype_t dtype;
  int rank;
  int64_t sizes[TT_MAX_RANK];
  /* A padded result (ops/bucket.h): sizes hold its capacity along pad_dim,
   * the tensor is its first pad_len there; pad_dim -1 otherwise. */
  int pad_dim;
  int64_t pad_len;
  /* 1: the result's strides are `strides` (CPU's layout for a call with a
   * non-row-major argument, ops/result_layout.h), its storage holding the
   * elements in that order; 0: row-major. */
  int strided;
  int64_t strides[TT_MAX_RANK];
} tt_call_out_t;

/* Results held inline; an op with more (a foreach op over many tensors)
 * gets a heap array, freed by tt_call_result_clear. */
#define TT_CALL_INLINE_OUTS 16

/* Caller-owned (on the stack is fine: ~1.5 KB); not copyable by value once
 * tt_call has filled it (outs may point into it). */
typedef struct tt_call_result_s {
  int n;
  tt_call_out_t *outs; /* inline_outs, or a heap array of up to TT_LOWER_MAX_OUTS */
  tt_call_out_t inline_outs[TT_CALL_INLINE_OUTS];
  int returns_arg; /* -1, or the argument to return as the result */
  /* Static texts of the UserWarnings CPU gives for this call, in its order. */
#define TT_CALL_MAX_WARNINGS 4
  const char *warnings[TT_CALL_MAX_WARNINGS];
  int nwarnings;
} tt_call_result_t;

/* torch.get_default_dtype() for the next calls: the type Python floats,
 * integer true division and float factories take (PyTorch's default dtype). */
void tt_call_set_default_dtype(tt_engine_t *e, tt_dtype_t dt);
/* The op ids the embedding's framework tags pointwise (PyTorch's
 * Tag.pointwise, functional forms): their results take TensorIterator's
 * layout. Replaces the previous set; an id out of range is ignored. */
tt_status_t tt_call_set_pointwise_ops(tt_engine_t *e, const int *ids, int n);
/* The in-place ops of the form self.op_(other) (PyTorch's schemas: an
 * in-place op whose argument 1 is `other`) and the other in-place pointwise
 * ops (lerp_, addcdiv_): where the core refuses a dtype, TensorIterator's
 * shape checks (and for the binary ones its cast into self) come first, as
 * on CPU (api/iterator_first.h). Replaces the previous sets. */
tt_status_t tt_call_set_inplace_iterator_ops(tt_engine_t *e, const int *binary, int nb, const int *pointwise, int np);
/* The float32 matmul precision (tt_precision_t, ir/graph.h: HIGHEST 0, HIGH
 * 1, MEDIUM 2) for the next calls: every float32 dot_general and
 * convolution an op lowers to carries it (node sub, so in the cache key). */
void tt_call_set_matmul_precision(tt_engine_t *e, int precision);
int tt_call_matmul_precision(const tt_engine_t *e);
/* Or a source asked during lowering, only by the ops that contract float32
 * values, on the calling thread (NULL: the value set above). The embedding
 * uses it so that the other ops pay nothing for the setting. */
void tt_call_set_matmul_precision_source(tt_engine_t *e, int (*source)(void *ctx), void *ctx);

/* The op table as the embedding sees it (ops/registry.h below): ids 0 ..
 * named_count-1 are the rows, in the order of tt_call_op_name; size
 * companions follow up to tt_call_op_count (named as their op). */
int tt_call_op_count(void);
int tt_call_op_named_count(void);
const char *tt_call_op_name(int op_id); /* NULL for an unknown id */
int tt_call_op_size_companion(int op_id); /* -1 when it has none */

tt_status_t tt_call(tt_engine_t *e, int op_id, tt_arg_t *args, int nargs, tt_call_result_t *out);
/* The same without the index-mask step of TT_OPF_INDEX_MASKS rows (which
 * tt_call sends to api/index_masks.h, which calls this for the op itself). */
tt_status_t tt_call_op(tt_engine_t *e, int op_id, tt_arg_t *args, int nargs, tt_call_result_t *out);
/* The out= rule of ATen out overload `name` ("argmax.out") for its output
 * number k whose functional result has dtype `result`, before anything is
 * written to out: CPU's rule and message for that op (ops/out_rules.h).
 * The in-place form is checked inside tt_call. */
tt_status_t tt_call_check_out(const char *name, int k, tt_dtype_t result, tt_dtype_t out);
/* 1 when that overload computes in out's dtype where its dtype= is None. */
int tt_call_out_dtype_from_out(const char *name);
/* An explicit dtype= against out's dtype (ops/out_rules.h): phase 0 before
 * the meta kernel's dim checks (the overload's check of the input's dtype
 * `in`, TT_DTYPE_INVALID: none, comes first), phase 1 after them. */
tt_status_t tt_call_check_out_dtype_arg(const char *name, tt_dtype_t dtype, tt_dtype_t out, tt_dtype_t in, int phase);

/* Releases the storages a result still owns (NULL ones are skipped: a
 * caller may steal them) and its heap array. */
void tt_call_result_clear(tt_call_result_t *r);

/* Runs deferred work now (a materialization point): `why` names the cause
 * in error messages. */
tt_status_t tt_materialize(tt_engine_t *e, const char *why);

/* Waits for every launch so far; returns the first asynchronous error. */
tt_status_t tt_synchronize(tt_engine_t *e);

#endif
