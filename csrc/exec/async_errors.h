/* Asynchronous device-side index checks, the equivalent of CUDA's
 * device-side assert. Index-like ops compute a small flag inside their own
 * program (how many indices were out of range, and the first one). Debug mode
 * downloads it at the op and raises there. Strict and DeferAndFuse do not
 * wait: each launch's flags stay pending here, and the next host
 * synchronization point (a copy to the host, .item(), synchronize(), a mode
 * switch) reads the flags of launches that are already done, after the wait
 * it does anyway, and raises the error Debug mode would have raised, noting
 * that an earlier op raised it. The op's outputs keep what the clamped
 * computation gave (gathers clamp, scatters drop), as CUDA leaves garbage;
 * later ops run normally. A program with no index op costs nothing here.
 * Thread safety: none; called with the binding's lock (the GIL) held. */
#ifndef TT_EXEC_ASYNC_ERRORS_H
#define TT_EXEC_ASYNC_ERRORS_H

#include <stdint.h>

#include "ir/graph.h"
#include "pjrt/runtime.h"

/* Which error PyTorch's CPU kernel raises for an out-of-range index. */
typedef enum tt_check_kind_e {
  TT_CHECK_INDEX,  /* IndexError "index 7 is out of bounds for dimension 0 with size 5" (index, index_put) */
  TT_CHECK_DIM,    /* RuntimeError, same words (gather, scatter) */
  TT_CHECK_SELF,   /* IndexError "index out of range in self" (index_select, embedding, index_add) */
  TT_CHECK_TARGET, /* IndexError "Target 7 is out of bounds." (nll_loss) */
  TT_CHECK_LDL_PIVOT, /* RuntimeError "Pivots given to ldl_solve must all satisfy |pivot| <= LD.size(-2)..." (or >= 1) */
  TT_CHECK_ZERO_DIV,  /* RuntimeError "ZeroDivisionError" (integer div, floor_divide, remainder, fmod by a zero element) */
  TT_CHECK_VALUE_FITS, /* RuntimeError "value cannot be converted to type int8_t without overflow" (a device value tensor) */
} tt_check_kind_t;

/* One check: `flag` is an i64[2] value of the op's graph {number of bad
 * indices, first bad index}; the rest goes into the message. */
typedef struct tt_index_check_s {
  tt_val_t flag;
  tt_check_kind_t kind;
  int dim;
  int64_t size;
  const char *op; /* the op's static name, e.g. "index_select" */
  const char *type_name; /* TT_CHECK_VALUE_FITS: the C type named in the message (static), else NULL */
} tt_index_check_t;

/* The error PyTorch raises for a failed check (OK when count is 0). `async`
 * adds the note that an earlier launch raised it, else the debug-mode note. */
tt_status_t tt_index_check_status(const tt_index_check_t *k, int64_t count, int64_t index, int async);

/* Keeps the flags of one launch: `flags` (owned from here on) is an
 * i64[2 * n] buffer, checks[i] describing elements 2i and 2i+1. */
tt_status_t tt_async_errors_push(tt_pjrt_buffer_t *flags, const tt_index_check_t *checks, int n);
/* At a synchronization point: reads the flags of finished launches (all of
 * them when all_done, i.e. after waiting for every launch) and returns the
 * error of the earliest failed check; those launches are forgotten. */
tt_status_t tt_async_errors_check(int all_done);
/* Launches whose flags are still unread. */
int tt_async_errors_pending(void);
/* Drops everything (at shutdown). */
void tt_async_errors_shutdown(void);

#endif
