/* Calling an op: lower it, append view writes, run it, collect results.
 * Thread safety: one caller at a time: callers hold the engine lock
 * (api/engine_lock.h). */
#ifndef TT_API_CALL_H
#define TT_API_CALL_H

#include "api/args.h"
#include "ops/lower.h"

typedef struct tt_call_out_s {
  tt_storage_t *storage; /* owned by the result */
  tt_dtype_t dtype;
  int rank;
  int64_t sizes[TT_MAX_RANK];
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
  const char *warning; /* static text of a UserWarning CPU gives for this call, or NULL */
} tt_call_result_t;

/* torch.get_default_dtype() for the next calls: the type Python floats,
 * integer true division and float factories take (PyTorch's default dtype). */
void tt_call_set_default_dtype(tt_dtype_t dt);

tt_status_t tt_call(int op_id, tt_arg_t *args, int nargs, tt_call_result_t *out);
/* The out= rule of ATen out overload `name` ("argmax.out") for its output
 * number k whose functional result has dtype `result`, before anything is
 * written to out: CPU's rule and message for that op (ops/out_rules.h).
 * The in-place form is checked inside tt_call. */
tt_status_t tt_call_check_out(const char *name, int k, tt_dtype_t result, tt_dtype_t out);
/* 1 when that overload computes in out's dtype where its dtype= is None. */
int tt_call_out_dtype_from_out(const char *name);

/* Releases the storages a result still owns (NULL ones are skipped: a
 * caller may steal them) and its heap array. */
void tt_call_result_clear(tt_call_result_t *r);

/* Grows a storage in place to numel elements (Tensor.resize_): the old
 * contents stay as the prefix, the rest reads as zeros. */
tt_status_t tt_storage_grow(tt_storage_t *s, int64_t numel);

/* Runs deferred work now (a materialization point): `why` names the cause
 * in error messages. */
tt_status_t tt_materialize(const char *why);

/* Waits for every launch so far; returns the first asynchronous error. */
tt_status_t tt_synchronize(void);

/* Host transfers of a tensor view: to_host materializes the view in `dtype`
 * (converting on device) as dense row-major bytes. */
tt_status_t tt_tensor_to_host(const tt_tensor_ref_t *t, tt_dtype_t dtype, void *dst, size_t nbytes);
/* A new storage holding host data (dense row-major, numel elements). */
tt_status_t tt_storage_from_host(const void *data, tt_dtype_t dtype, int64_t numel,
                                 tt_storage_t **out_storage);

#endif
